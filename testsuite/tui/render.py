"""Rich text for the triage screen: highlighted outputs, the rule, progress.

Pure functions from session data to `rich.text.Text`, so the app only places them. Text
from data (outputs, sources, names of systems, categories and annotators) is shown as the
terminal shows it, control characters and bidi overrides written as escapes
(`reports.escape.visible`): a name cannot reorder the line or break the panel around it.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from ..matching import DEFAULT_TIMEOUT, RegexCache
from ..model import DISAGREEMENT, Rule, Verdict
from ..reports.escape import visible
from ..verdicts.proposals import PreviewRow, Proposal
from ..verdicts.queue import Pending
from ..verdicts.why import Partial
from ..words import counted
from .session import Decision, Progress

POSITIVE = "bold black on green3"
NEGATIVE = "bold white on red3"
OUTCOME_STYLES = {"pass": "green", "fail": "red", "warning": "yellow", "missing": "dim"}
#: Most verdicts listed under the rule (the latest ones).
SHOWN_VERDICTS = 6
#: Columns of a preview table before the output: the item and the outputs of the row.
PREVIEW_COLUMNS = (10, 4)
#: The terminal the hurried annotator of ``bench/triage_sim.py`` reads previews on.
HURRIED_SCREEN = (80, 24)


def preview_room(proposal: Proposal, width: int, height: int) -> tuple[int, int]:
    """The width of a proposal dialog's output column and the lines its rows have, on a
    `width` × `height` terminal (`testsuite.tui.screens.ProposalScreen`: the dialog takes
    the screen, a thick border, one column of padding; its head, the table's header, a
    status line and a help line above and below the rows; a test checks both on screen)."""
    inner = width - 4
    output = inner - sum(PREVIEW_COLUMNS) - 2 * (len(PREVIEW_COLUMNS) + 1) - 2
    lines = height - 2 - len(proposal_header(proposal, inner)) - 1 - 2
    return max(output, 10), max(lines, 1)


def rows_that_fit(rows: Sequence[PreviewRow], width: int, lines: int) -> int:
    """How many of a preview's rows are shown whole at once in `lines` lines of a table
    whose output column is `width` cells wide (at least one, if there is one)."""
    used = 0
    for index, row in enumerate(rows):
        used += len(wrapped(row_text(row), width))
        if used > lines:
            return max(index, 1)
    return len(rows)


def highlight(output: str, rule: Rule | None, cache: RegexCache) -> Text:
    """The output with positive-regex matches in green and negative ones in red.

    Negative matches are drawn last, so where both overlap the error shows. Control
    characters are shown as escapes (`visible`), the matches still marked where they are.
    """
    # Where each character of the output starts in the text shown (escapes are longer).
    starts = [0]
    for char in output:
        starts.append(starts[-1] + len(visible(char)))
    text = Text(visible(output))
    if rule is None:
        return text
    for pattern, style in ((rule.positive_regex, POSITIVE), (rule.negative_regex, NEGATIVE)):
        compiled = cache.get(pattern) if pattern else None
        if compiled is None:
            continue
        try:
            for match in compiled.finditer(output, timeout=DEFAULT_TIMEOUT):
                if match.end() > match.start():
                    text.stylize(style, starts[match.start()], starts[match.end()])
        except TimeoutError:
            text.append("  (regex timed out)", style="italic yellow")
    return text


def heading(entry: Pending, position: int, count: int, decision: Decision | None,
            standing: list[Verdict] | None = None, others: list[str] | None = None) -> Text:
    """Item id, category, phenomenon, why it is a warning, and its place in the queue;
    a disagreement with who said what; other annotators on the same item now."""
    text = Text()
    text.append(f"{position + 1}/{count}  ", style="dim")
    text.append(visible(entry.item), style="bold")
    text.append(f"  {visible(entry.category)} › {visible(entry.phenomenon)}", style="cyan")
    text.append(f"  ({entry.pair}, {entry.reason})", style="dim")
    if entry.completes:
        text.append(f"  completes the item: {entry.impact} outcomes enter the scores",
                    style="magenta")
    if decision is not None:
        verdict = decision.verdict
        text.append(f"  ✔ {verdict.verdict} by {visible(verdict.annotator)}",
                    style=f"bold {OUTCOME_STYLES[verdict.verdict]}")
    if entry.reason == DISAGREEMENT and standing:
        text.append("\n  disagreement: ", style="bold magenta")
        text.append(", ".join(f"{visible(v.annotator or 'unknown')} {v.verdict}"
                              for v in standing))
        text.append(" — p or f settles it", style="magenta")
    if others:
        text.append(f"\n  ● {', '.join(visible(o) for o in sorted(set(others)))} on this item now",
                    style="bold yellow")
    return text


def why_text(partials: list[Partial]) -> Text:
    """How far each regex and token got in the output (why the rule missed)."""
    text = Text()
    for partial in partials:
        if text:
            text.append("\n")
        text.append(f"{partial.kind}: ", style="bold dim")
        if not partial.matched:
            text.append("nothing of ", style="dim")
            text.append(visible(partial.pattern))
            text.append(" matches", style="dim")
            continue
        text.append(visible(partial.matched), style="green")
        text.append(" matched, ", style="dim")
        text.append(visible(partial.missing), style="red")
        text.append(" did not: the output goes on with ", style="dim")
        text.append(repr(partial.found))
    return text


def proposal_text(proposal: Proposal | None) -> Text:
    """The best proposal that decides the entry's output: what it decides, why, what it was
    learned from and its estimated precision (``a`` opens its preview)."""
    text = Text()
    if proposal is None:
        return text
    items = len(proposal.items)
    text.append("proposal (a reviews it): ", style="bold magenta")
    text.append(proposal.verdict, style=f"bold {OUTCOME_STYLES[proposal.verdict]}")
    text.append(f" {counted(len(proposal.decides), 'pending output')} of "
                f"{counted(items, 'item')} ({counted(proposal.outcomes, 'outcome')})")
    text.append(f"\n  {proposal.why}", style="dim")
    text.append(f"\n  {proposal.evidence_text()}; {proposal.estimate_text()}", style="dim")
    return text


def proposal_header(proposal: Proposal, width: int) -> list[tuple[str, str]]:
    """The head of a proposal's dialog as (line, style), wrapped at `width` cells: what it
    decides, why, what it was learned from and its estimate (every line is shown whole)."""
    import textwrap

    items = len(proposal.items)
    parts = [
        (f"{proposal.verdict.upper()}: {counted(len(proposal.decides), 'output')} of "
         f"{counted(items, 'item')} ({counted(proposal.outcomes, 'outcome')}) of "
         f"{proposal.scope} · {proposal.id}", f"bold {OUTCOME_STYLES[proposal.verdict]}"),
        (f"why: {proposal.why}", ""),
        (f"{proposal.evidence_text()}; {proposal.estimate_text()}".rstrip("; "), "dim")]
    return [(line, style) for part, style in parts
            for line in textwrap.wrap(part, width, break_long_words=True,
                                      break_on_hyphens=False)]


def row_text(row: PreviewRow) -> str:
    """A preview row as shown: the output least like the evidence, and how many more like
    it (the same construction in other items) the row decides."""
    more = len(row.outputs) - 1
    like = f"  (+{more} like it, {counted(row.items, 'item')})" if more else ""
    return visible(row.shown) + like


def wrapped(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, as a preview row shows it."""
    import textwrap

    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def labelled(label: str, body: Text | str, style: str = "bold") -> Table:
    """``label`` in a fixed-width column, then the body (wrapped lines stay indented)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=7, style=style)
    grid.add_column(ratio=1)
    grid.add_row(label, body)
    return grid


def rule_text(rule: Rule | None, entry: Pending) -> Text:
    """The item's rule: regexes, tokens, where it is written, and its verdicts."""
    text = Text()
    if rule is None:
        text.append("no rule: every output of this item is a warning", style="yellow")
        return text
    rows = [("positive", rule.positive_regex, "green"), ("negative", rule.negative_regex, "red")]
    for label, pattern, style in rows:
        text.append(f"{label} regex  ", style=f"bold {style}")
        text.append(visible(pattern) or "—", style="" if pattern else "dim")
        text.append("\n")
    for label, tokens in (("positive", rule.positive_tokens), ("negative", rule.negative_tokens)):
        if tokens:
            text.append(f"{label} tokens ", style="bold")
            text.append(", ".join(f"“{visible(token)}”" for token in tokens))
            text.append("\n")
    if rule.file:
        text.append(f"{rule.file}" + (f":{rule.line}" if rule.line else ""), style="dim")
        text.append("\n")
    verdicts = rule.verdicts
    text.append(f"verdicts ({len(verdicts)})", style="bold")
    for verdict in verdicts[-SHOWN_VERDICTS:]:
        text.append("\n  ")
        text.append(f"{verdict.verdict:<4}", style=OUTCOME_STYLES[verdict.verdict])
        same = verdict.output.strip() == entry.output
        text.append(f" {visible(verdict.output)}", style="bold" if same else "")
        who = ", ".join(visible(x) for x in (verdict.annotator, verdict.note) if x)
        if who:
            text.append(f"  ({who})", style="dim")
    if len(verdicts) > SHOWN_VERDICTS:
        text.append(f"\n  … and {len(verdicts) - SHOWN_VERDICTS} earlier", style="dim")
    return text


def progress_text(progress: Progress, queue: int, decided: int, filters: str, *,
                  first: str | None = None, width: int = 0, lines: int = 2) -> Text:
    """Resolved of all outputs to decide, the queue shown, and the same by category.

    Resolved counts this session's decisions and rule edits, and what others resolved
    while it runs; the total counts every output pending at some point of the session
    whatever the filter. Counts read "3 of 20" (never "3/17", which reads as a fraction
    of the remaining). Per category the category `first` (the one on screen) first, the
    others by what remains; categories that do not fit in `lines` lines of `width` cells
    are summed up as "+N more". The lines are broken here, between categories (counted
    against the whole in characters, a line the terminal broke between words took one
    more).
    """
    text = Text()
    total = progress.resolved + progress.remaining
    text.append(f"resolved {progress.resolved:,} of {total:,}", style="bold green")
    if filters:  # else the queue is every output to decide (its length is in the heading)
        text.append(f" · filter {visible(filters)}: queue {queue:,} ({decided:,} decided here)")
    text.append("  │ ", style="dim")
    categories = sorted(progress.by_category.items(), key=lambda kv: kv[0] != first)
    used, row = text.cell_len, 1  # cells of the line being filled, and its number
    for index, (category, (resolved, remaining)) in enumerate(categories):
        part = Text()
        part.append(f"{visible(category)} ", style="bold" if category == first else "")
        part.append(f"{resolved:,}", style="green")
        part.append(f" of {resolved + remaining:,}")
        after = len(categories) - index - 1
        # On the last line, room to count those that follow.
        more = len(f" · +{after} more") if after else 0
        separator = " · " if index else ""
        room = width - (more if row == lines else 0)
        if width and used + len(separator) + part.cell_len > room \
                and not (index == 0 and category == first):  # the one on screen, always
            if row == lines or part.cell_len + (more if row + 1 == lines else 0) > width:
                text.append(f" · +{after + 1} more", style="dim")
                break
            text.append("\n")
            used, row, separator = 0, row + 1, ""
        text.append(separator, style="dim")
        text.append_text(part)
        used += len(separator) + part.cell_len
    return text
