"""Modal screens of the triage app: a one-line prompt, the regex editor, the batch dialog.

Every dialog sends the keys typed before its input has focus into that input
(`TypeAhead`), so that a quick ``n`` followed by a note loses nothing. Data is shown as
`rich.text.Text`, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from ..errors import Stale, TestsuiteError
from ..reports.escape import visible
from ..rule_edit import RegexField
from ..verdicts.proposals import PreviewRow, Proposal
from ..verdicts.queue import Pending
from ..words import counted
from .render import (
    NEGATIVE,
    OUTCOME_STYLES,
    POSITIVE,
    PREVIEW_COLUMNS,
    highlight,
    labelled,
    preview_room,
    proposal_header,
    row_text,
    wrapped,
)
from .session import CONFIRM_CHANGES, Change, TriageSession

if TYPE_CHECKING:
    from .app import TriageApp

#: Checks a prompt's text; returns why it is not acceptable, or None.
Validator = Callable[[str], str | None]


class TypeAhead:
    """A dialog whose keys are taken one at a time, in the order they were typed.

    Textual hands a key to the focused input through a queue of its own, and an enter goes
    back up to the app before it submits: a key typed right after an enter could land in
    the input after it was submitted, a backspace could come after the letter that followed
    it, and keys typed right after the key that opened a dialog reach it before its input is
    there. So the app gives every key of a dialog to `take` as it comes (see
    `TriageApp.on_event`), which applies it to the input at once: text, the input's own keys
    (backspace, ctrl+u, arrows) and the dialog's (ctrl+s, escape). Keys typed before the
    dialog is ready wait in `pending`; keys typed after an enter that closes the dialog are
    `leftover`: the app replays them once the dialog is gone, so that ``n``, a note, enter,
    ``p`` saves the note and then decides pass.
    """

    input_id = ""
    ready = False
    submitted = False

    def __init__(self) -> None:
        super().__init__()
        self.pending: list[events.Key] = []
        self.leftover: list[events.Key] = []

    def on_mount(self) -> None:
        """Type the pending keys once the input is there."""
        screen = cast("ModalScreen[object]", self)
        screen.call_after_refresh(self._release)

    async def _release(self) -> None:
        screen = cast("ModalScreen[object]", self)
        screen.set_focus(screen.query_one(f"#{self.input_id}", Input))
        # By when they were typed (keys that went to the screen below first come back
        # later), including those that arrive while these are applied; then the app gives
        # keys to `take` as they come.
        while self.pending:
            self.pending.sort(key=lambda key: key.time)
            await self.take(self.pending.pop(0))
        self.ready = True

    async def take(self, key: events.Key) -> bool:
        """Apply one key to the dialog now (False: not one of the dialog's keys)."""
        if self.submitted:  # typed after the enter: for the screen below, or for the
            self.leftover.append(key)  # input again if what was entered is refused
            return True
        if key.key == "enter" or key.character is not None and key.is_printable:
            self.type_key("\n" if key.key == "enter" else str(key.character))
            return True
        # The input's bindings, then the dialog's, as Textual tries them (an input's ↑/↓
        # scroll nothing and fall through to the dialog's).
        return await cast("ModalScreen[object]", self).app._check_bindings(key.key)

    def type_key(self, character: str) -> None:
        """Type one character into the input (a line break submits it)."""
        screen = cast("ModalScreen[object]", self)
        field = screen.query_one(f"#{self.input_id}", Input)
        if character == "\n":
            self.submitted = True
            field.post_message(Input.Submitted(field, field.value))
        elif field.selection.is_empty:
            field.insert_text_at_cursor(character)
        else:  # as the input itself does: typing replaces what is selected
            field.replace(character, *field.selection)

    def reopen(self) -> None:
        """What was entered is refused (the dialog stays): the keys typed since the enter
        go to the dialog again, before any typed from now on."""
        self.submitted = False
        self.pending = [*self.leftover, *self.pending]
        self.leftover = []
        if self.pending:
            self.ready = False
            cast("ModalScreen[object]", self).call_later(self._release)

    def close(self, result: object) -> None:
        """Dismiss the dialog; keys typed from now on are replayed on the screen below."""
        self.submitted = True
        cast("ModalScreen[object]", self).dismiss(result)


def stale_text(refused: str, stale: Stale, then: str) -> Text:
    """Why an action prepared on a view that changed was refused: each change on a line."""
    return Text(f"{refused}:\n  " + "\n  ".join(stale.diff) + f"\n{then}")


def _table(table_id: str) -> DataTable[Text]:
    """A table that never takes the focus from the dialog's input."""
    table: DataTable[Text] = DataTable(id=table_id, cursor_type="none", zebra_stripes=True)
    table.can_focus = False
    return table


class PromptScreen(TypeAhead, ModalScreen[str | None]):
    """Ask for one line of text; `enter` accepts it, `escape` cancels (returns None).

    Args:
        title: What is asked.
        value: Initial text.
        input_id: Id of the input widget.
        placeholder: Shown while the input is empty.
        validate: Checks the text on `enter`; the prompt stays open with the message if it
            returns one.
    """

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, title: str, value: str, *, input_id: str, placeholder: str = "",
                 validate: Validator | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.input_id = input_id
        self.placeholder = placeholder
        self.validator = validate
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text), classes="dialog-title")
            yield Input(self.value, placeholder=self.placeholder, id=self.input_id,
                        select_on_focus=False)
            yield Static("", id="prompt-error", classes="error")
            yield Label(Text("enter: save · escape: cancel"), classes="dialog-help")

    @on(Input.Submitted)
    def accept(self, event: Input.Submitted) -> None:
        """Close with the text, unless the validator refuses it."""
        self.error = self.validator(event.value) if self.validator else None
        if self.error:
            self.reopen()
            self.query_one("#prompt-error", Static).update(Text(self.error))
            return
        self.close(event.value)

    def action_cancel(self) -> None:
        """Close without a value."""
        self.dismiss(None)


class RegexScreen(TypeAhead, ModalScreen[bool]):
    """Edit the positive or negative regex of the entry's rule, with a live preview.

    The output being judged stays visible at the top. As the pattern is typed it is
    compiled and every system's output of the item is re-judged with it: the outputs whose
    outcome would change are listed before anything is saved. `enter` writes the pattern
    into the rules file — after a second `enter` if it changes more than
    `CONFIRM_CHANGES` outcomes or turns a pass into a fail or back — unless the rule changed
    on disk since the editor opened (the change is shown, nothing is written); `escape`
    cancels.

    Args:
        session: The triage session (judges and saves).
        entry: The entry whose item's rule is edited.
        field: ``positive_regex`` or ``negative_regex``.
    """

    BINDINGS = [Binding("escape", "cancel", "cancel")]
    input_id = "regex-input"

    def __init__(self, session: TriageSession, entry: Pending, field: RegexField) -> None:
        super().__init__()
        self.session = session
        self.entry = entry
        self.field = field
        self.seen = session.rule_of(entry)  # the view the edit is made on
        self.original = getattr(self.seen, field) if self.seen is not None else ""
        self.changes: list[Change] = []
        self.error: str | None = None
        self.confirming: str | None = None  # the pattern waiting for a second enter
        self.saving = False

    def compose(self) -> ComposeResult:
        kind = "positive" if self.field == "positive_regex" else "negative"
        with Vertical(classes="dialog wide"):
            yield Label(Text.assemble(f"Edit the {kind} regex of ", (self.entry.item, "bold"),
                                      style=POSITIVE if kind == "positive" else NEGATIVE),
                        classes="dialog-title")
            yield Static(labelled("output", highlight(self.entry.output, self.seen,
                                                      self.session.cache)), id="regex-output")
            yield Input(self.original, id="regex-input", select_on_focus=False)
            yield Static("", id="regex-error", classes="error")
            yield Static("", id="regex-summary")
            yield _table("regex-preview")
            yield Label(Text("enter: save to the rules file · escape: cancel"),
                        classes="dialog-help")

    def on_mount(self) -> None:
        """Preview the pattern as it stands (it changes nothing)."""
        super().on_mount()
        self.update_preview(self.original)

    @on(Input.Changed, "#regex-input")
    def changed(self, event: Input.Changed) -> None:
        """Validate and preview as the pattern is typed."""
        self.confirming = None
        self.update_preview(event.value)

    def update_preview(self, pattern: str) -> None:
        """Compile `pattern` and list the outcomes it would change."""
        error_widget = self.query_one("#regex-error", Static)
        summary = self.query_one("#regex-summary", Static)
        table = self.query_one("#regex-preview", DataTable)
        table.clear(columns=True)
        try:
            self.changes = self.session.preview(self.entry, self.field, pattern)
        except TestsuiteError as exc:
            self.changes, self.error = [], str(exc)
            error_widget.update(Text(self.error))
            summary.update("")
            return
        self.error = None
        error_widget.update("")
        count = len(self.changes)
        summary.update(Text(f"{counted(count, 'output')} across all systems would change "
                            "outcome" + (":" if count else "")))
        table.display = bool(self.changes)
        system_width = max([6, *(len(visible(c.system)) for c in self.changes)])
        table.add_column(Text("system"), width=system_width)
        table.add_column(Text("now"), width=7)
        table.add_column(Text("would be"), width=9)
        # The dialog is 95% wide; leave its border and padding, cell padding and a scrollbar.
        rest = int(self.app.size.width * 0.95) - 6 - system_width - 16 - 8 - 2
        table.add_column(Text("output"), width=max(20, rest))
        for change in self.changes:
            table.add_row(Text(visible(change.system)),
                          Text(change.old, style=OUTCOME_STYLES[change.old]),
                          Text(f"→ {change.new}", style=OUTCOME_STYLES[change.new]),
                          Text(visible(change.output)), height=None)

    def needs_confirmation(self) -> str | None:
        """Why this save must be confirmed, or None."""
        flips = [c for c in self.changes if {c.old, c.new} == {"pass", "fail"}]
        if len(self.changes) > CONFIRM_CHANGES or flips:
            return (f"This changes {len(self.changes)} outcomes ({len(flips)} between pass "
                    "and fail). Press enter again to save, escape to cancel.")
        return None

    @on(Input.Submitted, "#regex-input")
    def save(self, event: Input.Submitted) -> None:
        """Write the pattern into the rules file and close, unless it is refused."""
        if event.value == self.original:
            self.close(False)
            return
        if self.error:
            self.app.bell()
            self.reopen()
            return
        reason = self.needs_confirmation()
        if reason and self.confirming != event.value:
            self.confirming = event.value
            self.query_one("#regex-error", Static).update(Text(reason))
            self.reopen()
            return
        # Saving re-reads, checks and rewrites the rules file, and re-judges the item: one to
        # several seconds for a big file on a busy machine, during which the enter looked
        # ignored. It runs beside the screen, which says so; keys typed meanwhile wait
        # (`TypeAhead`), and nothing else touches the session while a dialog is open.
        self.submitted = self.saving = True
        where = self.seen.file if self.seen is not None and self.seen.file else "the rules file"
        self.query_one("#regex-error", Static).update(Text(f"saving to {where} …",
                                                           style="bold"))
        self.run_worker(partial(self.write, event.value), thread=True)

    def write(self, pattern: str) -> None:
        """Save the pattern (in a thread, see `save`), then close or say why not."""
        try:
            self.session.save_regex(self.entry, self.field, pattern, self.seen)
        except TestsuiteError as exc:
            self.app.call_from_thread(self.refused, exc)
            return
        self.app.call_from_thread(self.saved)

    def saved(self) -> None:
        """The pattern is in the file: close."""
        self.saving = False
        self.close(True)

    def refused(self, error: TestsuiteError) -> None:
        """Nothing was written: say why, and let the pattern be edited again."""
        self.saving = False
        self.error = str(error)
        self.query_one("#regex-error", Static).update(stale_text(
            "Not saved: the rule changed on disk since you opened it", error,
            "Escape, look at the rule again, and edit it anew.")
            if isinstance(error, Stale) else Text(self.error))
        self.reopen()

    def action_cancel(self) -> None:
        """Close without saving (not while a save is under way)."""
        if not self.saving:
            self.dismiss(False)


class BatchScreen(TypeAhead, ModalScreen[object]):
    """Decide every pending output of the item (or phenomenon) that matches a pattern.

    Keys: type a regex (empty: every pending output); ``ctrl+p``/``ctrl+f`` choose pass or
    fail; ``ctrl+s`` switches the scope between the item and its phenomenon; ``↑``/``↓``
    choose an output of the preview and ``ctrl+o`` decides it the other way at once (it
    leaves the batch: what a preview got wrong is put right before the batch is recorded);
    `enter` records the batch (undone as one with ``u``); `escape` cancels.
    """

    BINDINGS = [Binding("escape", "cancel", "cancel"),
                Binding("ctrl+p", "verdict('pass')", "pass"),
                Binding("ctrl+f", "verdict('fail')", "fail"),
                Binding("ctrl+s", "scope", "item/phenomenon"),
                Binding("down", "row(1)", "next output", show=False),
                Binding("up", "row(-1)", "previous output", show=False),
                Binding("ctrl+o", "other_way", "decide it the other way")]
    input_id = "batch-input"

    def __init__(self, session: TriageSession) -> None:
        super().__init__()
        self.session = session
        # The entry the batch is on: what others write never moves the dialog to another.
        entry = session.current
        assert entry is not None
        self.entry: Pending = entry
        self.verdict = "pass"
        self.scope = "item"
        self.source = ""  # a regex the items' sources must match (a phenomenon batch)
        self.chosen: Proposal | None = None
        self.rows: list[PreviewRow] = []  # the preview of `chosen`
        self.confirming = False  # enter was pressed with rows of the preview not shown yet
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        table = PreviewTable(id="batch-preview")
        table.can_focus = False  # the pattern keeps the focus; ↑/↓ move the table's cursor
        with Vertical(classes="dialog wide"):
            yield Label("", id="batch-title", classes="dialog-title")
            yield Input("", id="batch-input",
                        placeholder="regex the outputs contain (empty: all pending outputs)",
                        select_on_focus=False)
            # The keys before the preview: on a small screen the preview's end is cut, not them.
            yield Label(Text("enter record · ctrl+p/ctrl+f pass/fail · ctrl+s item/phenomenon"
                             "\n↑↓ then ctrl+o: that output the other way · escape cancel"),
                        classes="dialog-help")
            yield Static("", id="batch-error", classes="error")
            yield Static("", id="batch-summary")
            yield table

    def on_mount(self) -> None:
        """Preview every pending output of the item; follow the preview's scrolling."""
        super().on_mount()
        self.update_preview()
        self.watch(self.query_one(PreviewTable), "scroll_y", lambda *_: self.summarise(),
                   init=False)

    @on(Input.Changed, "#batch-input")
    def changed(self, event: Input.Changed) -> None:
        """Preview as the pattern is typed."""
        self.update_preview()

    def action_verdict(self, verdict: str) -> None:
        """Choose the verdict."""
        self.verdict = verdict
        self.update_preview()

    def action_scope(self) -> None:
        """Switch between the item and its phenomenon."""
        self.scope = "phenomenon" if self.scope == "item" else "item"
        self.update_preview()

    def show_error(self, text: str | None) -> None:
        """Show why the batch cannot be recorded; no line at all when it can (a line more
        for the preview on a small screen)."""
        error = self.query_one("#batch-error", Static)
        error.update(Text(text or ""))
        error.display = text is not None

    def action_row(self, step: int) -> None:
        """Move the preview's cursor (the preview scrolls with it)."""
        table = self.query_one("#batch-preview", DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.cursor_row + step, table.row_count - 1)))

    def action_other_way(self) -> None:
        """Decide the output shown on the cursor's row the other way (it leaves the batch)."""
        table = self.query_one("#batch-preview", DataTable)
        if self.chosen is None or not self.rows:
            self.app.bell()
            return
        row = min(table.cursor_row, len(self.rows) - 1)
        item, output = self.rows[row].item, self.rows[row].shown
        entry = next((e for e in self.session.all_pending() if (e.pair, e.item, e.output)
                      == (self.chosen.pair, item, output)), None)
        if entry is None:
            self.app.bell()
            return
        other = "fail" if self.verdict == "pass" else "pass"
        try:
            self.session.decide(other, entry)
        except TestsuiteError as exc:
            self.show_error(str(exc))
            return
        # On the app's status line, below the dialog: a notification would cover the preview.
        cast("TriageApp", self.app).say(f"{item}: {output!r} decided {other}")
        self.update_preview()
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))

    def update_preview(self) -> None:
        """List what the batch would decide."""
        entry = self.entry
        where = f"item {entry.item}" if self.scope == "item" else \
            f"phenomenon {entry.phenomenon}" + (
                f" (items whose source matches {self.source})" if self.source else "")
        self.query_one("#batch-title", Label).update(Text.assemble(
            "Batch: ", (self.verdict, f"bold {OUTCOME_STYLES[self.verdict]}"),
            f" every pending output of {where} that matches"))
        table = self.query_one(PreviewTable)
        table.clear(columns=True)
        self.rows = []
        self.confirming = False
        pattern = self.query_one("#batch-input", Input).value
        try:
            self.chosen = self.session.batch_preview(
                self.verdict, pattern, self.scope,
                source=self.source if self.scope == "phenomenon" else "", entry=self.entry)
        except TestsuiteError as exc:
            self.chosen, self.error = None, str(exc)
            self.show_error(self.error)
            self.query_one("#batch-summary", Static).update("")
            return
        self.error = None
        self.show_error(None)
        self.rows = self.session.preview_rows(self.chosen) if self.chosen.decides else []
        # The dialog is 95% wide; its border and padding, the table's cell padding and a
        # scrollbar leave this much for the outputs.
        table.show(self.rows, max(20, int(self.app.size.width * 0.95) - 30),
                   then=self.summarise)
        self.summarise()

    def summarise(self) -> None:
        """What the batch decides, and how many rows of its preview were not shown yet."""
        if self.chosen is None:
            return
        count = len(self.chosen.decides)
        text = Text(f"{counted(count, 'output')} ({counted(self.chosen.outcomes, 'outcome')}) "
                    f"would be {self.verdict}" + (":" if count else ""))
        table = self.query_one(PreviewTable)
        unseen = self.rows[table.seen():]
        if unseen and table.laid_out == table.shown:  # else: said once it is laid out
            text.append(" ").append_text(
                not_shown(unseen, len(self.rows), self.confirming, "records"))
        self.query_one("#batch-summary", Static).update(text)

    @on(Input.Submitted, "#batch-input")
    def record(self, event: Input.Submitted) -> None:
        """Record the batch."""
        if self.chosen is None or not self.chosen.decides:
            self.app.bell()
            self.reopen()
            return
        if self.rows[self.query_one(PreviewTable).seen():] and not self.confirming:
            self.confirming = True  # rows not shown yet: a second enter records them
            self.app.bell()
            self.summarise()
            self.reopen()
            return
        try:
            done = self.session.apply_batch(self.chosen)
        except Stale as exc:
            self.update_preview()  # the batch as it stands now
            self.show_error(str(stale_text(
                "Not recorded: the outputs changed since the preview was shown", exc,
                "The preview now shows the batch as it stands; enter records it.")))
            self.reopen()
            return
        except TestsuiteError as exc:
            self.show_error(str(exc))
            self.reopen()
            return
        self.close(done)

    def action_cancel(self) -> None:
        """Close without deciding."""
        self.dismiss(None)


def not_shown(unseen: Sequence[PreviewRow], rows: int, confirming: bool, verb: str) -> Text:
    """What a preview says of its rows not on the screen yet (the batch and the proposal
    dialogs alike): how to see them, or — once enter was pressed with them unseen — that a
    second enter `verb` (records, accepts) them unseen."""
    outputs = counted(sum(len(r.outputs) for r in unseen), "output")
    if confirming:
        return Text(f"{len(unseen)} of {counted(rows, 'row')} ({outputs}) not shown yet: "
                    f"enter again {verb} them unseen", style="bold red")
    return Text(f"{len(unseen)} of {counted(rows, 'row')} not shown yet ({outputs}): "
                "↓ or PgDn", style="yellow")


class PreviewTable(DataTable[Text]):
    """A proposal's preview: one row per group of outputs (the same construction in several
    items), pre-wrapped so that each row is shown whole; it knows how many of its rows have
    been on the screen so far (`seen`), as the person scrolls.

    Nothing counts as seen until the screen was laid out with the rows shown last: before
    that, the table's height is that of the rows before (the dialog above it may have
    grown since, a title wrapped, an error shown), and counting with it could take rows for
    seen that never were on the screen.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.heights: list[int] = []
        self.bottom = 0  # the lowest line of rows that was on the screen
        self.shown = 0  # how often rows were shown: the layout a callback waits for
        self.laid_out = 0  # the last showing the screen was laid out with

    def show(self, rows: Sequence[PreviewRow], width: int,
             then: Callable[[], None] | None = None) -> None:
        """Show `rows`, the output column `width` cells wide; nothing seen yet. `then` is
        called once the screen was laid out with them (when `seen` counts them)."""
        self.clear(columns=True)
        item_width, count_width = PREVIEW_COLUMNS
        self.add_column(Text("item"), width=item_width)
        self.add_column(Text("n"), width=count_width)
        self.add_column(Text("output"), width=width)
        self.heights = []
        for row in rows:
            lines = wrapped(row_text(row), width)
            self.heights.append(len(lines))
            self.add_row(Text(visible(row.item), no_wrap=True, overflow="ellipsis"),
                         Text(str(len(row.outputs))), Text("\n".join(lines)),
                         height=len(lines))
        self.bottom = 0
        self.shown += 1
        self.call_after_refresh(self._laid_out, self.shown, then)

    def _laid_out(self, showing: int, then: Callable[[], None] | None) -> None:
        self.laid_out = max(self.laid_out, showing)
        if then is not None and showing == self.shown:
            then()

    def seen(self) -> int:
        """How many rows, from the first, have had their last line on the screen (none
        before the screen was laid out with them)."""
        if self.laid_out != self.shown:
            return 0
        header = self.header_height if self.show_header else 0
        visible = self.scrollable_content_region.height - header
        self.bottom = max(self.bottom, round(self.scroll_y) + visible)
        count = end = 0
        for height in self.heights:
            end += height
            if end > self.bottom:
                break
            count += 1
        return count


class ProposalScreen(ModalScreen[object]):
    """Review a proposal before its verdicts are recorded (``a``).

    The dialog takes the screen: what the proposal decides, why, what it was learned from
    and its estimated precision, then its preview (`PreviewTable`: outputs grouped by
    construction, those least like the evidence first), which scrolls with ↑/↓/PgUp/PgDn;
    a status line says how many rows have not been on the screen yet. `enter` records the
    verdicts (each with the proposal's id; ``u`` undoes them as one) — when rows were not
    shown yet, only after a second `enter`; ``r`` rejects it (not proposed again in this
    session); `escape` closes without deciding.
    """

    BINDINGS = [Binding("enter", "accept", "accept", priority=True),
                Binding("r", "reject", "reject"),
                Binding("escape", "cancel", "close")]

    def __init__(self, session: TriageSession, proposal: Proposal) -> None:
        super().__init__()
        self.session = session
        self.proposal = proposal
        self.rows = session.preview_rows(proposal)
        self.confirming = False  # enter was pressed with rows not shown yet

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog proposal"):
            yield Static("", id="proposal-head")
            yield PreviewTable(id="proposal-preview")
            yield Static("", id="proposal-status")
            yield Label(Text("enter accept · r reject · escape close · ↑↓ PgUp PgDn scroll"),
                        id="proposal-help")

    def on_mount(self) -> None:
        """Draw the head and the rows; follow the scrolling."""
        width, height = self.app.size
        head = Text()
        for index, (line, style) in enumerate(proposal_header(self.proposal, width - 4)):
            head.append(("\n" if index else "") + line, style=style)
        self.query_one("#proposal-head", Static).update(head)
        table = self.query_one(PreviewTable)
        table.show(self.rows, preview_room(self.proposal, width, height)[0],
                   then=self.update_status)
        table.focus()
        self.watch(table, "scroll_y", lambda *_: self.update_status(), init=False)

    def unseen(self) -> list[PreviewRow]:
        """The rows not on the screen yet."""
        return self.rows[self.query_one(PreviewTable).seen():]

    def update_status(self) -> None:
        """Say how many rows (and outputs) have not been shown yet."""
        unseen = self.unseen()
        if not unseen:
            shown = "the row is shown" if len(self.rows) == 1 else \
                f"all {len(self.rows)} rows shown"
            text = Text(f"{shown} ({counted(len(self.proposal.decides), 'output')})",
                        style="green")
        else:
            text = not_shown(unseen, len(self.rows), self.confirming, "accepts")
        self.query_one("#proposal-status", Static).update(text)

    def action_accept(self) -> None:
        """Record the proposal's verdicts (asking again if rows were not shown)."""
        if self.unseen() and not self.confirming:
            self.confirming = True
            self.app.bell()
            self.update_status()
            return
        status = self.query_one("#proposal-status", Static)
        try:
            done = self.session.apply_batch(self.proposal)
        except Stale as exc:
            status.update(stale_text("Not recorded: the outputs changed since the proposal "
                                     "was shown", exc, "Escape, and look at it again."))
            return
        except TestsuiteError as exc:
            status.update(Text(str(exc), style="red"))
            return
        self.dismiss(done)

    def action_reject(self) -> None:
        """Do not propose it again in this session."""
        self.session.reject(self.proposal)
        self.dismiss("rejected")

    def action_cancel(self) -> None:
        """Close without deciding."""
        self.dismiss(None)
