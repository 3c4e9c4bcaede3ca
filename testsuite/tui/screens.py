"""Modal screens of the triage app: a one-line prompt (note, filter) and the regex editor."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from ..errors import TestsuiteError
from ..rule_edit import RegexField
from ..triage import Pending
from .render import NEGATIVE, OUTCOME_STYLES, POSITIVE
from .session import Change, TriageSession

#: Checks a prompt's text; returns why it is not acceptable, or None.
Validator = Callable[[str], str | None]


class PromptScreen(ModalScreen[str | None]):
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
            yield Label(self.title_text, classes="dialog-title")
            yield Input(self.value, placeholder=self.placeholder, id=self.input_id,
                        select_on_focus=False)
            yield Static("", id="prompt-error", classes="error")
            yield Label("enter: save · escape: cancel", classes="dialog-help")

    @on(Input.Submitted)
    def accept(self, event: Input.Submitted) -> None:
        """Close with the text, unless the validator refuses it."""
        self.error = self.validator(event.value) if self.validator else None
        if self.error:
            self.query_one("#prompt-error", Static).update(self.error)
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        """Close without a value."""
        self.dismiss(None)


class RegexScreen(ModalScreen[bool]):
    """Edit the positive or negative regex of the entry's rule, with a live preview.

    As the pattern is typed it is compiled (the error is shown if it does not compile) and
    every system's output of the item is re-judged with it: the outputs whose outcome would
    change are listed before anything is saved. `enter` writes the pattern into the rules
    file (returns True); `escape` cancels (returns False).

    Args:
        session: The triage session (judges and saves).
        entry: The entry whose item's rule is edited.
        field: ``positive_regex`` or ``negative_regex``.
    """

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, session: TriageSession, entry: Pending, field: RegexField) -> None:
        super().__init__()
        self.session = session
        self.entry = entry
        self.field = field
        rule = session.rule_of(entry)
        self.original = getattr(rule, field) if rule is not None else ""
        self.changes: list[Change] = []
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        kind = "positive" if self.field == "positive_regex" else "negative"
        with Vertical(classes="dialog wide"):
            yield Label(Text.assemble(f"Edit the {kind} regex of ", (self.entry.item, "bold"),
                                      style=POSITIVE if kind == "positive" else NEGATIVE),
                        classes="dialog-title")
            yield Input(self.original, id="regex-input", select_on_focus=False)
            yield Static("", id="regex-error", classes="error")
            yield Static("", id="regex-summary")
            table: DataTable[Text | str] = DataTable(id="regex-preview", cursor_type="none",
                                                     zebra_stripes=True)
            table.can_focus = False
            yield table
            yield Label("enter: save to the rules file · escape: cancel", classes="dialog-help")

    def on_mount(self) -> None:
        """Preview the pattern as it stands (it changes nothing)."""
        self.update_preview(self.original)

    @on(Input.Changed, "#regex-input")
    def changed(self, event: Input.Changed) -> None:
        """Validate and preview as the pattern is typed."""
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
            error_widget.update(self.error)
            summary.update("")
            return
        self.error = None
        error_widget.update("")
        count = len(self.changes)
        summary.update(Text(f"{count} output{'s' if count != 1 else ''} across all systems "
                            "would change outcome" + (":" if count else "")))
        table.display = bool(self.changes)
        system_width = max([6, *(len(c.system) for c in self.changes)])
        table.add_column("system", width=system_width)
        table.add_column("now", width=7)
        table.add_column("would be", width=9)
        # The dialog is 95% wide; leave its border and padding, cell padding and a scrollbar.
        rest = int(self.app.size.width * 0.95) - 6 - system_width - 16 - 8 - 2
        table.add_column("output", width=max(20, rest))
        for change in self.changes:
            table.add_row(change.system, Text(change.old, style=OUTCOME_STYLES[change.old]),
                          Text(f"→ {change.new}", style=OUTCOME_STYLES[change.new]),
                          change.output, height=None)

    @on(Input.Submitted, "#regex-input")
    def save(self, event: Input.Submitted) -> None:
        """Write the pattern into the rules file and close, unless it is refused."""
        if event.value == self.original:
            self.dismiss(False)
            return
        if self.error:
            self.app.bell()
            return
        try:
            self.session.save_regex(self.entry, self.field, event.value)
        except TestsuiteError as exc:
            self.error = str(exc)
            self.query_one("#regex-error", Static).update(self.error)
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(False)
