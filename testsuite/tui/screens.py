"""Modal screens of the triage app: a one-line prompt, the regex editor, the batch dialog.

Every dialog sends the keys typed before its input has focus into that input
(`TypeAhead`), so that a quick ``n`` followed by a note loses nothing. Data is shown as
`rich.text.Text`, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import cast

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from ..errors import Stale, TestsuiteError
from ..rule_edit import RegexField
from ..verdicts.batch import Batch
from ..verdicts.queue import Pending
from ..words import counted
from .render import NEGATIVE, OUTCOME_STYLES, POSITIVE, highlight, labelled
from .session import CONFIRM_CHANGES, Change, TriageSession

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


def _table(table_id: str, rows: bool = False) -> DataTable[Text]:
    """A table that never takes the focus from the dialog's input (`rows`: with a row
    cursor the dialog moves)."""
    table: DataTable[Text] = DataTable(id=table_id, cursor_type="row" if rows else "none",
                                       zebra_stripes=True)
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
        system_width = max([6, *(len(c.system) for c in self.changes)])
        table.add_column(Text("system"), width=system_width)
        table.add_column(Text("now"), width=7)
        table.add_column(Text("would be"), width=9)
        # The dialog is 95% wide; leave its border and padding, cell padding and a scrollbar.
        rest = int(self.app.size.width * 0.95) - 6 - system_width - 16 - 8 - 2
        table.add_column(Text("output"), width=max(20, rest))
        for change in self.changes:
            table.add_row(Text(change.system), Text(change.old, style=OUTCOME_STYLES[change.old]),
                          Text(f"→ {change.new}", style=OUTCOME_STYLES[change.new]),
                          Text(change.output), height=None)

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
        # Start from the batch learned on the phenomenon, if there is one.
        self.proposed = session.proposed_batch()
        self.verdict = self.proposed.verdict if self.proposed else "pass"
        across = self.proposed is not None and self.proposed.scope.startswith("phenomenon")
        self.scope = "phenomenon" if across else "item"
        # A batch learned across the phenomenon may keep to items whose source has a word.
        self.source = self.proposed.source if self.proposed else ""
        self.chosen: Batch | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label("", id="batch-title", classes="dialog-title")
            yield Input(self.proposed.pattern if self.proposed else "", id="batch-input",
                        placeholder="regex the outputs contain (empty: all pending outputs)",
                        select_on_focus=False)
            if self.proposed:
                yield Label(Text(f"proposed: {self.proposed.learned}", style="italic"),
                            classes="dialog-help")
            # The keys before the preview: on a small screen the preview's end is cut, not them.
            yield Label(Text("enter record · ctrl+p/ctrl+f pass/fail · ctrl+s item/phenomenon"
                             "\n↑↓ then ctrl+o: that output the other way · escape cancel"),
                        classes="dialog-help")
            yield Static("", id="batch-error", classes="error")
            yield Static("", id="batch-summary")
            yield _table("batch-preview", rows=True)

    def on_mount(self) -> None:
        """Preview every pending output of the item."""
        super().on_mount()
        self.update_preview()

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
        """Move the preview's cursor."""
        table = self.query_one("#batch-preview", DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.cursor_row + step, table.row_count - 1)))

    def action_other_way(self) -> None:
        """Decide the output under the cursor the other way (it leaves the batch)."""
        table = self.query_one("#batch-preview", DataTable)
        if self.chosen is None or not self.chosen.decides:
            self.app.bell()
            return
        row = min(table.cursor_row, len(self.chosen.decides) - 1)
        item, decided = self.chosen.decides[row]
        entry = next((e for e in self.session.all_pending() if (e.pair, e.item, e.output)
                      == (self.chosen.pair, item, decided.output)), None)
        if entry is None:
            self.app.bell()
            return
        other = "fail" if self.verdict == "pass" else "pass"
        try:
            self.session.decide(other, entry)
        except TestsuiteError as exc:
            self.show_error(str(exc))
            return
        self.notify(f"{item}: {decided.output!r} decided {other}", timeout=4, markup=False)
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
        table = self.query_one("#batch-preview", DataTable)
        table.clear(columns=True)
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
        count = len(self.chosen.decides)
        self.query_one("#batch-summary", Static).update(Text(
            f"{counted(count, 'output')} ({counted(self.chosen.outcomes, 'outcome')}) "
            f"would be {self.verdict}" + (":" if count else "")))
        table.add_column(Text("item"), width=10)
        table.add_column(Text("systems"), width=7)
        table.add_column(Text("output"), width=max(20, int(self.app.size.width * 0.95) - 33))
        for item, decided in self.chosen.decides:
            table.add_row(Text(item), Text(str(len(decided.systems))), Text(decided.output),
                          height=None)

    @on(Input.Submitted, "#batch-input")
    def record(self, event: Input.Submitted) -> None:
        """Record the batch."""
        if self.chosen is None or not self.chosen.decides:
            self.app.bell()
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
