"""The triage app: one pending warning at a time, decided with a key.

Layout (see ``triage.tcss``): the entry (item, category, phenomenon, source, highlighted
output, the systems that produced it, a waiting note), then the item's rule beside the
progress, then every system's output of the item with its outcome. The app draws a
`TriageSession` and maps keys to its methods; every pass or fail is on disk (locked,
atomic) before the next entry is drawn, so quitting, Ctrl-C or a kill loses nothing saved.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Static

from ..errors import TestsuiteError
from ..rule_edit import RegexField
from .filters import Filters
from .render import OUTCOME_STYLES, heading, highlight, labelled, progress_text, rule_text
from .session import TriageSession


class TriageApp(App[int]):
    """Decide pending warnings one distinct output at a time.

    Args:
        session: The loaded session (queue, decisions, rule edits).

    The return value (`App.return_value`) is the number of decisions saved.
    """

    TITLE = "testsuite triage"
    CSS_PATH = "triage.tcss"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("p", "decide('pass')", "pass"),
        Binding("f", "decide('fail')", "fail"),
        Binding("s", "skip", "skip"),
        Binding("u", "undo", "undo"),
        Binding("n", "note", "note"),
        Binding("right,j", "next", "next"),
        Binding("left,k", "previous", "prev"),
        Binding("e", "edit('positive_regex')", "+regex"),
        Binding("E", "edit('negative_regex')", "−regex"),
        Binding("slash", "filter", "filter"),
        Binding("q", "quit_triage", "quit"),
        Binding("ctrl+c", "quit_triage", "quit", show=False, priority=True),
    ]

    def __init__(self, session: TriageSession) -> None:
        super().__init__()
        self.session = session
        self.sub_title = f"annotator: {session.annotator}"

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="entry"):
            yield Static(id="heading")
            yield Static(id="source")
            yield Static(id="output")
            yield Static(id="shared")
        rule_box = VerticalScroll(Static(id="rule"), id="rule-box")
        rule_box.can_focus = False  # arrow keys navigate the queue, not the panel
        yield rule_box
        table: DataTable[Text | str] = DataTable(id="systems", cursor_type="none",
                                                 zebra_stripes=True)
        table.can_focus = False
        yield table
        yield Static(id="progress")
        yield Footer()

    def on_mount(self) -> None:
        """Title the panels and draw the first entry."""
        self.query_one("#rule-box").border_title = "rule"
        self.query_one("#systems", DataTable).border_title = "all systems on this item"
        self.show()

    def on_resize(self) -> None:
        """Redraw: the output columns and the progress line follow the width."""
        self.show()

    # --- drawing ----------------------------------------------------------------------------

    def show(self) -> None:
        """Draw the current entry, its rule, the progress and the systems' outcomes."""
        session = self.session
        entry = session.current
        progress = session.progress()
        decided_here = sum(session.is_decided(e) for e in session.entries)
        self.query_one("#progress", Static).update(progress_text(
            progress, len(session.entries), decided_here, str(session.filters),
            first=entry.category if entry else None, width=self.size.width - 2))
        table = self.query_one("#systems", DataTable)
        table.clear(columns=True)
        if entry is None:
            filters = str(session.filters)
            self.query_one("#heading", Static).update(Text(
                "Nothing left to decide" + (f" with the filter {filters}" if filters else "")
                + ".  / changes the filter, q quits.", style="bold green"))
            for name in ("source", "output", "shared", "rule"):
                self.query_one(f"#{name}", Static).update("")
            return
        decision = session.decided.get((entry.pair, entry.item, entry.output))
        rule = session.rule_of(entry)
        self.query_one("#heading", Static).update(
            heading(entry, session.position, len(session.entries), decision))
        self.query_one("#source", Static).update(labelled("source", entry.source))
        self.query_one("#output", Static).update(
            labelled("output", highlight(entry.output, rule, session.cache)))
        shared = Text(", ".join(entry.systems))
        note = session.note(entry)
        if note:
            shared.append(f"\nnote: {note}", style="italic")
        self.query_one("#shared", Static).update(labelled("systems", shared, "bold dim"))
        self.query_one("#rule", Static).update(rule_text(rule, entry))
        # The systems that produced this output first: they are what is being decided.
        outcomes = sorted(session.outcomes(entry), key=lambda o: o.output.strip() != entry.output)
        widths = [max([6, *(len(o.system) for o in outcomes)]), 7,
                  max([6, *(len(o.reason) for o in outcomes)])]
        for name, width in zip(("system", "outcome", "reason"), widths, strict=True):
            table.add_column(name, width=width)
        # The output column takes the rest of the width and wraps (border, scrollbar and
        # one cell of padding either side of each column are left out).
        table.add_column("output", width=max(20, self.size.width - 4 - sum(widths) - 8))
        for shown in outcomes:
            mine = shown.output.strip() == entry.output
            table.add_row(Text(shown.system, style="bold" if mine else ""),
                          Text(shown.outcome, style=OUTCOME_STYLES[shown.outcome]),
                          shown.reason,
                          Text(shown.output, style="bold" if mine else ""), height=None)

    def report(self, error: TestsuiteError) -> None:
        """Show a problem without leaving the app."""
        self.notify(str(error), severity="error", timeout=8)

    # --- actions ----------------------------------------------------------------------------

    def action_decide(self, verdict: str) -> None:
        """Record pass or fail on the entry (with its note) and go to the next open one."""
        try:
            decision = self.session.decide(verdict)
        except TestsuiteError as exc:
            self.report(exc)
            return
        if decision is not None:
            self.notify(f"{verdict} saved for {decision.entry.item} in {decision.path}",
                        timeout=3)
            if all(self.session.is_decided(e) for e in self.session.entries):
                self.notify("Every entry of this queue is decided: q quits, / shows others.",
                            timeout=8)
        self.show()

    def action_skip(self) -> None:
        """Go to the next undecided entry without deciding this one."""
        self.session.next_open()
        self.show()

    def action_next(self) -> None:
        """Go to the next entry."""
        self.session.move(1)
        self.show()

    def action_previous(self) -> None:
        """Go to the previous entry."""
        self.session.move(-1)
        self.show()

    def action_undo(self) -> None:
        """Take back the last decision (from the verdicts file) and return to its entry."""
        try:
            decision = self.session.undo()
        except TestsuiteError as exc:
            self.report(exc)
            return
        if decision is None:
            self.notify("nothing to undo", severity="warning", timeout=3)
        else:
            self.notify(f"undid {decision.verdict.verdict} on {decision.entry.item}", timeout=3)
        self.show()

    def action_note(self) -> None:
        """Ask for a note to store with the next pass or fail of this entry."""
        from .screens import PromptScreen

        entry = self.session.current
        if entry is None:
            return

        def done(text: str | None) -> None:
            if text is not None:
                self.session.set_note(text)
                self.show()

        self.push_screen(PromptScreen(
            f"Note on this output of {entry.item} (saved with its next pass or fail)",
            self.session.note(entry), input_id="note-input"), done)

    def action_filter(self) -> None:
        """Ask for a filter such as ``category=MWE system=Online-A``; empty clears it."""
        from .screens import PromptScreen

        def check(text: str) -> str | None:
            try:
                self.session.check_filters(Filters.parse(text))
            except TestsuiteError as exc:
                return str(exc)
            return None

        def done(text: str | None) -> None:
            if text is not None:
                self.session.set_filters(Filters.parse(text))
                self.show()

        self.push_screen(PromptScreen(
            "Filter (category=… phenomenon=… system=…, commas for several; empty clears)",
            str(self.session.filters), input_id="filter-input",
            placeholder="category=MWE phenomenon=Idiom system=Online-A", validate=check), done)

    def action_edit(self, field: RegexField) -> None:
        """Edit the positive or negative regex of the item's rule, with a live preview."""
        from .screens import RegexScreen

        entry = self.session.current
        if entry is None:
            return

        def done(saved: bool | None) -> None:
            if saved:
                self.notify(f"{field} of {entry.item} saved; outcomes re-judged", timeout=4)
            self.show()

        self.push_screen(RegexScreen(self.session, entry, field), done)

    def action_quit_triage(self) -> None:
        """Leave; every decision is already saved."""
        self.exit(self.session.saved)
