"""The triage app: one pending warning at a time, decided with a key.

Layout (see ``triage.tcss``): the entry (item, what to judge, source, highlighted output,
the systems that produced it, the note, why the rule missed), then the item's rule with the
best proposal that decides the output (``a`` reviews it), then every system's output of the
item with its outcome, then the progress. `tab` chooses the panel that ↑/↓/PgUp/PgDn
scroll, so every panel can be read on an 80×24 terminal; ←/→ always move in the queue.

The app draws a `TriageSession` and maps keys to its methods; every pass or fail is on
disk (locked, atomic) before the next entry is drawn. Every second it takes in what other
sessions wrote (`TriageSession.sync`). Data (outputs, names, patterns) is always drawn as
`rich.text.Text`, never as markup. Messages go to a status line above the progress, never
over the panels.

**A key acts on what was on the screen when it was pressed.** A key is handled a moment
after it is pressed, and the look at the folder runs in between (a timer, not a key): the
entry current when the action runs may already be the next one. So the app remembers when
each entry was drawn (`Shown`) and every key that acts on the entry (`p`, `f`, `s`, `n`,
`e`, `E`, `a`, `b`) goes through `pressed_on`: it is dropped, and the status line says so,
if the entry on screen when it was pressed is no longer the one drawn, or if another
annotator's decision replaced the entry less than `SETTLE` seconds before it was pressed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from rich.text import Text
from textual import events, work
from textual._time import get_time  # the clock of every event's `time`
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Header, LoadingIndicator, Static

from ..errors import TestsuiteError
from ..reports.escape import visible
from ..rule_edit import RegexField
from ..verdicts.queue import Pending
from ..words import counted
from .filters import Filters
from .render import (
    OUTCOME_STYLES,
    heading,
    highlight,
    labelled,
    progress_text,
    proposal_text,
    rule_text,
    why_text,
)
from .session import BatchDone, Decision, Key, RuleEdit, TriageSession, key_of

#: Panels that `tab` cycles through (the one ↑/↓ scroll).
PANELS = ("systems", "entry", "rule-box")
#: Seconds after another annotator's decision replaced the entry on screen during which a
#: key that acts on the entry is dropped: the person was looking at the entry before and
#: has not taken the new one in (a reaction to a change on screen takes about half a
#: second; in the case reported, `f` came 0.4 to 0.6 s after the new entry was drawn).
SETTLE = 1.5
#: How many drawn entries are remembered to find the one on screen when a key was pressed.
SHOWN_KEPT = 16


@dataclass(frozen=True)
class Shown:
    """An entry as drawn on the screen.

    Attributes:
        key: The entry (None: the queue was empty).
        item: Its item id, to name it in messages.
        since: When it was drawn, on the clock of key events' ``time``.
        by: What replaced the entry drawn before, when it was not this annotator
            ("alice decided it pass"); empty otherwise.
    """

    key: Key | None
    item: str
    since: float
    by: str = ""


class _SaysWhatIsCut:
    """A panel that says on its border how much of it is cut (`TriageApp.mark_more`),
    measured again when its size changes: a smaller terminal cuts it with nothing new in
    it (its size is set after layout, when the Resize event comes)."""

    def on_resize(self) -> None:
        """Measure again what is cut."""
        app, name = cast("Widget", self).app, cast("Widget", self).id
        if isinstance(app, TriageApp) and name:
            app.mark_more(name)


class Panel(_SaysWhatIsCut, VerticalScroll):
    """A panel of text, scrolled with ↑/↓ once chosen with `tab`."""


class SystemsTable(_SaysWhatIsCut, DataTable[Text]):
    """Every system's output of the item, with its outcome."""


class TriageApp(App[int]):
    """Decide pending warnings one distinct output at a time.

    Args:
        session: The loaded session, or None to load it with `loader` behind a loading
            indicator.
        loader: Loads the session (called in a thread, told what it is doing).
        follow: Take in what other sessions write, every second.

    The return value (`App.return_value`) is the number of decisions saved. A problem
    while loading ends the app; it is kept in `error`.
    """

    TITLE = "testsuite triage"
    CSS_PATH = "triage.tcss"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("p", "decide('pass')", "pass"),
        Binding("f", "decide('fail')", "fail"),
        Binding("u", "undo", "undo"),
        Binding("q", "quit_triage", "quit"),
        Binding("s", "skip", "skip"),
        Binding("n", "note", "note"),
        Binding("a", "accept", "proposal"),
        Binding("b", "batch", "batch"),
        Binding("g", "jump", "go to"),
        Binding("right,j", "next", "next", show=False),
        Binding("left,k", "previous", "prev", show=False),
        Binding("e", "edit('positive_regex')", "+regex", show=False),
        Binding("E", "edit('negative_regex')", "−regex", show=False),
        Binding("slash", "filter", "filter", show=False),
        # Priority: the screen's own tab moves the focus, and no panel takes the focus here.
        Binding("tab", "panel", "panel", show=False, priority=True),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
        Binding("ctrl+c", "quit_triage", "quit", show=False, priority=True),
    ]
    #: Keys bound with priority: handled at once, even while a dialog opens.
    PRIORITY_KEYS = frozenset(binding.key for binding in BINDINGS
                              if isinstance(binding, Binding) and binding.priority)

    def __init__(self, session: TriageSession | None = None,
                 loader: Callable[[Callable[[str], None]], TriageSession] | None = None,
                 follow: bool = True) -> None:
        super().__init__()
        self.session: TriageSession | None = session
        self.follow = follow  # look at the folder every second (tests call watch_files)
        self.loader = loader
        self.error: TestsuiteError | None = None
        self.panel = PANELS[0]
        self.settle = SETTLE
        self.shown: list[Shown] = []  # the entries drawn, latest last
        self.key: events.Key | None = None  # the key being handled
        self.status = ""  # the last message of the status line (tests read it)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="loading-box"):
            yield LoadingIndicator(id="loading")
            yield Static(Text("loading …"), id="loading-text")
        with Vertical(id="main"):
            yield Panel(Static(id="heading"), Static(id="judge"), Static(id="source"),
                        Static(id="output"), Static(id="shared"), Static(id="why"), id="entry")
            yield Panel(Static(id="rule"), Static(id="proposal"), id="rule-box")
            table: DataTable[Text] = SystemsTable(id="systems", cursor_type="none",
                                                  zebra_stripes=True)
            yield table
            yield Static(id="status")
            yield Static(id="progress")
        yield Footer()

    def on_mount(self) -> None:
        """Title the panels; load the session if needed, else draw the first entry."""
        for name in PANELS:
            widget = self.query_one(f"#{name}")
            widget.can_focus = False  # ←/→ move in the queue; `tab` picks what ↑/↓ scroll
            for attribute in ("scroll_y", "virtual_size"):
                self.watch(widget, attribute, self.marker(name), init=False)
        self.query_one("#entry").border_title = "to judge"
        self.query_one("#rule-box").border_title = "rule"
        self.query_one("#systems").border_title = "all systems on this item"
        self.mark_panel()
        if self.session is None:
            self.query_one("#main").display = False
            self.load()
        else:
            self.started()

    @work(thread=True, exclusive=True)
    def load(self) -> None:
        """Load the session in a thread while the loading indicator turns."""
        assert self.loader is not None

        def say(what: str) -> None:
            self.call_from_thread(self.query_one("#loading-text", Static).update,
                                  Text(f"loading: {what} …"))

        try:
            session = self.loader(say)
        except TestsuiteError as exc:
            self.error = exc
            self.call_from_thread(self.exit, 0)
            return
        self.call_from_thread(self.loaded, session)

    def loaded(self, session: TriageSession) -> None:
        """Show the session once it is loaded."""
        self.session = session
        self.started()

    def started(self) -> None:
        """Draw the first entry and start watching the suite folder."""
        assert self.session is not None
        self.query_one("#loading-box").display = False
        self.query_one("#main").display = True
        self.sub_title = f"annotator: {visible(self.session.annotator)}"
        self.refresh_bindings()  # the footer now offers every key
        self.session.begin()
        self.show()
        if self.follow:
            self.set_interval(1.0, self.watch_files)

    def on_resize(self) -> None:
        """Redraw at the new size, once Textual has taken it in: this handler runs before
        the base class's, which records it (drawn at once, the table kept the old width)."""
        self.call_after_refresh(self.resized)

    def resized(self) -> None:
        """Redraw: the output columns and the progress line follow the size (once a dialog
        is closed: it may be saving, and closing it redraws)."""
        if self._screen_stack and not isinstance(self.screen, ModalScreen):
            self.show()
        self.call_after_refresh(self.mark_panel)  # what is cut depends on the panels' size

    def watch_files(self) -> None:
        """Take in what other sessions wrote; say where they are; redraw if anything moved."""
        session = self.session
        if session is None or not self._screen_stack or isinstance(self.screen, ModalScreen):
            return  # not yet, quitting, or in a dialog (whose view must not move under it)
        before_others = dict(session.others)
        synced = session.sync()
        session.announce()
        session.look_around()
        if synced.problems:
            self.say("\n".join(synced.problems), "error")
        elif synced.rules:
            self.say("rules changed on disk: " + ", ".join(synced.rules))
        if synced or session.others != before_others or session.replaced:
            self.show()

    # --- drawing ----------------------------------------------------------------------------

    def show(self) -> None:
        """Draw the current entry, its rule, the progress and the systems' outcomes.

        When what others wrote took the entry on screen away (`TriageSession.replaced`,
        whichever look at the folder found it), the status line says so and keys are
        held back for a moment (`pressed_on`).
        """
        session = self.session
        if session is None:
            return
        entry = session.current
        key = key_of(entry) if entry is not None else None
        by, session.replaced = session.replaced, ""
        if by and entry is not None:
            self.say(f"{by}: you are now on {entry.item}", "warning")
        if not self.shown or self.shown[-1].key != key:
            self.shown.append(Shown(key, entry.item if entry else "", get_time(), by))
            del self.shown[:-SHOWN_KEPT]
            for name in PANELS:  # a new entry is read from its top (its id, its source)
                self.query_one(f"#{name}").scroll_home(animate=False)
        self.call_after_refresh(self.mark_panel)  # once laid out: what is cut now
        progress = session.progress()
        decided_here = sum(session.is_decided(e) for e in session.entries)
        self.query_one("#progress", Static).update(progress_text(
            progress, len(session.entries), decided_here, str(session.filters),
            first=entry.category if entry else None, width=self.size.width - 2,
            lines=1 if self.size.height <= 30 else 2))  # at 80×24 a line more for the panels
        table = self.query_one("#systems", DataTable)
        table.clear(columns=True)
        if entry is None:
            filters = str(session.filters)
            empty = Text(
                "Nothing left to decide" + (f" with the filter {filters}" if filters else "")
                + ".  / changes the filter, q quits.", style="bold green")
            for why in session.left_out_filtered():
                empty.append(f"\n{why}", style="yellow")
            self.query_one("#heading", Static).update(empty)
            for name in ("judge", "source", "output", "shared", "why", "rule", "proposal"):
                self.query_one(f"#{name}", Static).update("")
            return
        decision = session.decided.get((entry.pair, entry.item, entry.output))
        rule = session.rule_of(entry)
        item = session.suite.items[(entry.pair, entry.item)]
        others = session.others.get((entry.pair, entry.item), [])
        self.query_one("#heading", Static).update(heading(
            entry, session.position, len(session.entries), decision, session.standing(entry),
            others))
        from ..verdicts.why import partial_matches, what_to_judge

        self.query_one("#judge", Static).update(Text(what_to_judge(item), style="italic cyan"))
        self.query_one("#source", Static).update(labelled("source",
                                                          Text(visible(entry.source))))
        self.query_one("#output", Static).update(
            labelled("output", highlight(entry.output, rule, session.cache)))
        shared = Text(", ".join(visible(s) for s in entry.systems))
        note = session.note(entry)
        if note:
            shared.append("\nnote: ", style="italic")
            shared.append(visible(note), style="italic")
        self.query_one("#shared", Static).update(labelled("systems", shared, "bold dim"))
        self.query_one("#why", Static).update(
            why_text(partial_matches(rule, entry.output, session.why_cache)))
        self.query_one("#rule", Static).update(rule_text(rule, entry))
        self.query_one("#proposal", Static).update(proposal_text(session.proposal(entry)))
        # The systems that produced this output first: they are what is being decided.
        outcomes = sorted(session.outcomes(entry), key=lambda o: o.output.strip() != entry.output)
        widths = [max([6, *(len(visible(o.system)) for o in outcomes)]), 7,
                  max([6, *(len(o.reason) for o in outcomes)])]
        for name, width in zip(("system", "outcome", "reason"), widths, strict=True):
            table.add_column(Text(name), width=width)
        # The output column takes the rest of the width and wraps (border, scrollbar and
        # one cell of padding either side of each column are left out).
        table.add_column(Text("output"), width=max(20, self.size.width - 4 - sum(widths) - 8))
        for shown in outcomes:
            mine = shown.output.strip() == entry.output
            table.add_row(Text(visible(shown.system), style="bold" if mine else ""),
                          Text(shown.outcome, style=OUTCOME_STYLES[shown.outcome]),
                          Text(shown.reason),
                          Text(visible(shown.output), style="bold" if mine else ""),
                          height=None)

    def report(self, error: TestsuiteError) -> None:
        """Show a problem without leaving the app."""
        self.say(str(error), "error")

    def say(self, message: str, severity: str = "information") -> None:
        """Put a message on the status line (it stays until the next one).

        A line of the layout rather than a notification: notifications pile up over the
        panels on a small terminal, and a message a person must see (a dropped key) would
        vanish on a timer.
        """
        self.status = message
        style = {"error": "bold red", "warning": "yellow"}.get(severity, "")
        self.query_one("#status", Static).update(Text(message, style=style))

    def pressed_on(self) -> Pending | None:
        """The entry the key being handled was pressed on, or None if the key is dropped.

        The entry on screen when the key was pressed (`Shown`, by the key's ``time``) must
        still be the one drawn, and must not have replaced another annotator's entry
        less than `settle` seconds before the key: otherwise the key is dropped, and the
        status line says so, because the person could not have seen what it would act on.
        Without a key (an action called directly), the entry on screen now.
        """
        session = self.session
        entry = session.current if session is not None else None
        if entry is None or not self.shown:
            return entry
        pressed = self.key.time if self.key is not None else get_time()
        name = self.key.key if self.key is not None else "the key"
        drawn = self.shown[-1]
        at_press = next((s for s in reversed(self.shown) if s.since <= pressed), self.shown[0])
        if at_press is not drawn:
            self.say(f"{name} dropped: it was pressed on {at_press.item or 'an empty queue'}, "
                     f"which is no longer on the screen; this is {entry.item} — read it, then "
                     f"press {name} again", "warning")
            return None
        if drawn.by and pressed < drawn.since + self.settle:
            self.say(f"{name} dropped: {drawn.by} just before you pressed it; this is "
                     f"{entry.item} — read it, then press {name} again", "warning")
            return None
        return entry

    def mark_panel(self) -> None:
        """Show which panel ↑/↓ scroll."""
        for name in PANELS:
            self.query_one(f"#{name}").set_class(name == self.panel, "scrolling")
            self.mark_more(name)

    def marker(self, name: str) -> Callable[[], None]:
        """What keeps the panel `name` saying how much of it is below (`mark_more`)."""
        return lambda: self.mark_more(name)

    def mark_more(self, name: str) -> None:
        """Say on a panel's lower border how many of its lines are below what is shown:
        on a small terminal a panel shows its first lines only (a rule's token list, the
        systems), and nothing may be cut without saying so."""
        widget = self.query_one(f"#{name}")
        hidden = max(0, round(widget.max_scroll_y - widget.scroll_y))
        keys = "↓" if name == self.panel else "tab, ↓"
        widget.border_subtitle = f"▼ {counted(hidden, 'more line')} ({keys})" if hidden else ""

    # --- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No action before the session is loaded (but quitting)."""
        return self.session is not None or action == "quit_triage"

    def action_decide(self, verdict: str) -> None:
        """Record pass or fail on the entry the key was pressed on (with its note) and go
        to the next open one."""
        assert self.session is not None
        entry = self.pressed_on()
        if entry is None:
            return
        try:
            decision = self.session.decide(verdict, entry, advance=True)
        except TestsuiteError as exc:
            self.report(exc)
            return
        if decision is not None:
            what = "settled" if decision.verdict.settles else "saved"
            message = f"{verdict} {what} for {decision.entry.item} in {decision.path}"
            if all(self.session.is_decided(e) for e in self.session.entries):
                message += "; every entry of this queue is decided: q quits, / shows others"
            self.say(message)
        self.session.announce()
        self.show()

    def action_skip(self) -> None:
        """Go to the next undecided entry without deciding this one."""
        assert self.session is not None
        if self.pressed_on() is None:
            return
        self.session.next_open()
        self.show()

    def action_next(self) -> None:
        """Go to the next entry."""
        assert self.session is not None
        self.session.move(1)
        self.show()

    def action_previous(self) -> None:
        """Go to the previous entry."""
        assert self.session is not None
        self.session.move(-1)
        self.show()

    def action_panel(self) -> None:
        """Choose the next panel for ↑/↓/PgUp/PgDn (in a dialog: nothing)."""
        if isinstance(self.screen, ModalScreen):
            return
        self.panel = PANELS[(PANELS.index(self.panel) + 1) % len(PANELS)]
        self.mark_panel()

    def action_scroll(self, lines: int) -> None:
        """Scroll the chosen panel."""
        widget = self.query_one(f"#{self.panel}")
        widget.scroll_relative(y=lines, animate=False)

    def action_undo(self) -> None:
        """Take back this annotator's last action (decision, batch or rule edit)."""
        assert self.session is not None
        try:
            action = self.session.undo()
        except TestsuiteError as exc:
            self.report(exc)
            return
        if action is None:
            self.say("nothing of yours to undo", "warning")
        elif isinstance(action, Decision):
            self.say(f"undid {action.verdict.verdict} on {action.entry.item}")
        elif isinstance(action, BatchDone):
            what = "batch" if action.batch.how == "pattern" else "proposal"
            self.say(f"undid {what} {action.batch.id}: "
                     f"{counted(len(action.recorded), 'verdict')} taken back")
        elif isinstance(action, RuleEdit):
            self.say(f"undid the edit of {action.field} of {action.item}: back to "
                     f"{action.old or '(none)'!r}")
        self.show()

    def prompt(self, screen: ModalScreen[Any], done: Callable[[Any], None]) -> None:
        """Open a dialog (keys typed before it is ready still reach it, see `on_event`);
        keys typed after the enter that closed it are replayed once it is gone."""
        from .screens import TypeAhead

        def closed(result: Any) -> None:
            done(result)
            leftover = screen.leftover if isinstance(screen, TypeAhead) else []
            if leftover:
                self.call_after_refresh(self.replay, list(leftover))

        self.push_screen(screen, closed)

    def replay(self, keys: list[events.Key]) -> None:
        """Post keys again, in order, as if typed now."""
        for key in keys:
            self.post_message(events.Key(key.key, key.character))

    async def on_event(self, event: events.Event) -> None:
        """Note which key is being handled; give a dialog's keys to the dialog in order.

        Keys of a dialog are applied by the dialog as they come (`TypeAhead.take`), kept
        while it is not ready yet. Keys typed right after the one that opens a dialog were
        already on their way to the main screen; they come back here (forwarded,
        unhandled) once the dialog is the active screen.
        """
        if not isinstance(event, events.Key):
            await super().on_event(event)
            return
        # The key's actions find it here (`pressed_on`: when was it pressed?).
        outer, self.key = self.key, event
        try:
            await self._on_key_event(event)
        finally:
            self.key = outer

    async def _on_key_event(self, event: events.Key) -> None:
        from .screens import TypeAhead

        screen = self.screen if self._screen_stack else None
        if isinstance(screen, TypeAhead) and event.key not in self.PRIORITY_KEYS:
            if not screen.ready:
                screen.pending.append(event)  # played into the input in order when ready
                return
            if not event.is_forwarded and await screen.take(event):
                return
            if event.is_forwarded and event.character is not None and event.is_printable:
                # A text key typed before the dialog opened went to the screen below and
                # comes back only now. It belongs to the dialog.
                await screen.take(event)
                return
        await super().on_event(event)

    def action_note(self) -> None:
        """Ask for a note; it is saved as soon as it is entered."""
        from .screens import PromptScreen

        assert self.session is not None
        entry = self.pressed_on()
        if entry is None:
            return
        session = self.session

        def done(text: object) -> None:
            if isinstance(text, str):
                try:
                    where = session.set_note(text)
                except TestsuiteError as exc:
                    self.report(exc)
                    return
                self.say(f"note saved {where}")
                self.show()

        decided = session.is_decided(entry)
        self.prompt(PromptScreen(
            f"Note on this output of {entry.item}"
            + (" (added to your verdict)" if decided else " (saved now, kept with its verdict)"),
            session.note(entry), input_id="note-input"), done)

    def action_jump(self) -> None:
        """Go to an item id, or to the next entry whose output or source has a text."""
        from .screens import PromptScreen

        assert self.session is not None
        session = self.session

        def done(text: object) -> None:
            if isinstance(text, str) and text.strip():
                if session.jump(text):
                    self.show()
                else:
                    self.say(f"no entry in the queue for {text!r}", "warning")

        self.prompt(PromptScreen("Go to: an item id, or text in the output or source", "",
                                 input_id="jump-input"), done)

    def action_filter(self) -> None:
        """Ask for a filter such as ``category=MWE system=Online-A``; empty clears it."""
        from .screens import PromptScreen

        assert self.session is not None
        session = self.session

        def check(text: str) -> str | None:
            try:
                session.check_filters(Filters.parse(text))
            except TestsuiteError as exc:
                return str(exc)
            return None

        def done(text: object) -> None:
            if isinstance(text, str):
                session.set_filters(Filters.parse(text))
                self.show()

        self.prompt(PromptScreen(
            "Filter (category=… phenomenon=… system=…, commas for several; empty clears)",
            str(session.filters), input_id="filter-input",
            placeholder="category=MWE phenomenon=Idiom system=Online-A", validate=check), done)

    def action_edit(self, field: RegexField) -> None:
        """Edit the positive or negative regex of the item's rule, with a live preview."""
        from .screens import RegexScreen

        assert self.session is not None
        entry = self.pressed_on()
        if entry is None:
            return

        def done(saved: object) -> None:
            if saved:
                self.say(f"{field} of {entry.item} saved; outcomes re-judged (u undoes)")
            self.show()

        self.prompt(RegexScreen(self.session, entry, field), done)

    def action_accept(self) -> None:
        """Review the proposal shown in its preview; its verdicts are recorded only from
        there (`ProposalScreen`)."""
        from .screens import ProposalScreen

        assert self.session is not None
        entry = self.pressed_on()
        if entry is None:
            return
        proposal = self.session.proposal(entry)
        if proposal is None:
            self.say("no proposal for this output (they are learned from decided outputs of "
                     "its phenomenon)", "warning")
            return

        def done(result: object) -> None:
            if isinstance(result, BatchDone):
                self.say(f"{counted(len(result.recorded), 'output')} decided "
                         f"{result.batch.verdict} by proposal {result.batch.id} (u undoes it; "
                         f"later: testsuite revoke {result.batch.id})")
            elif result == "rejected":
                self.say(f"proposal {proposal.id} rejected: not proposed again here")
            self.show()

        self.push_screen(ProposalScreen(self.session, proposal), done)

    def action_batch(self) -> None:
        """Decide many pending outputs of the item or phenomenon at once, with a preview."""
        from .screens import BatchScreen

        assert self.session is not None
        if self.pressed_on() is None:
            return

        def done(result: object) -> None:
            if isinstance(result, BatchDone):
                self.say(f"{counted(len(result.recorded), 'output')} decided "
                         f"{result.batch.verdict} (u undoes the batch)")
            self.show()

        self.prompt(BatchScreen(self.session), done)

    def action_quit_triage(self) -> None:
        """Leave; every decision is already saved."""
        if self.session is not None:
            self.session.leave()
        self.exit(self.session.saved if self.session is not None else 0)
