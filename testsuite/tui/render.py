"""Rich text for the triage screen: highlighted outputs, the rule, progress.

Pure functions from session data to `rich.text.Text`, so the app only places them.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ..matching import DEFAULT_TIMEOUT, RegexCache
from ..model import DISAGREEMENT, Rule, Verdict
from ..verdicts.batch import Batch
from ..verdicts.queue import Pending
from ..verdicts.suggest import Suggestion
from ..verdicts.why import Partial
from ..words import counted
from .session import Decision, Progress

POSITIVE = "bold black on green3"
NEGATIVE = "bold white on red3"
OUTCOME_STYLES = {"pass": "green", "fail": "red", "warning": "yellow", "missing": "dim"}
#: Most verdicts listed under the rule (the latest ones).
SHOWN_VERDICTS = 6


def highlight(output: str, rule: Rule | None, cache: RegexCache) -> Text:
    """The output with positive-regex matches in green and negative ones in red.

    Negative matches are drawn last, so where both overlap the error shows.
    """
    text = Text(output)
    if rule is None:
        return text
    for pattern, style in ((rule.positive_regex, POSITIVE), (rule.negative_regex, NEGATIVE)):
        compiled = cache.get(pattern) if pattern else None
        if compiled is None:
            continue
        try:
            for match in compiled.finditer(output, timeout=DEFAULT_TIMEOUT):
                if match.end() > match.start():
                    text.stylize(style, match.start(), match.end())
        except TimeoutError:
            text.append("  (regex timed out)", style="italic yellow")
    return text


def heading(entry: Pending, position: int, count: int, decision: Decision | None,
            standing: list[Verdict] | None = None, others: list[str] | None = None) -> Text:
    """Item id, category, phenomenon, why it is a warning, and its place in the queue;
    a disagreement with who said what; other annotators on the same item now."""
    text = Text()
    text.append(f"{position + 1}/{count}  ", style="dim")
    text.append(entry.item, style="bold")
    text.append(f"  {entry.category} › {entry.phenomenon}", style="cyan")
    text.append(f"  ({entry.pair}, {entry.reason})", style="dim")
    if entry.completes:
        text.append(f"  completes the item: {entry.impact} outcomes enter the scores",
                    style="magenta")
    if decision is not None:
        verdict = decision.verdict
        text.append(f"  ✔ {verdict.verdict} by {verdict.annotator}",
                    style=f"bold {OUTCOME_STYLES[verdict.verdict]}")
    if entry.reason == DISAGREEMENT and standing:
        text.append("\n  disagreement: ", style="bold magenta")
        text.append(", ".join(f"{v.annotator or 'unknown'} {v.verdict}" for v in standing))
        text.append(" — p or f settles it", style="magenta")
    if others:
        text.append(f"\n  ● {', '.join(sorted(set(others)))} on this item now",
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
            text.append(partial.pattern)
            text.append(" matches", style="dim")
            continue
        text.append(partial.matched, style="green")
        text.append(" matched, ", style="dim")
        text.append(partial.missing, style="red")
        text.append(" did not: the output goes on with ", style="dim")
        text.append(repr(partial.found))
    return text


def suggestion_text(suggestion: Suggestion | None, batch: Batch | None = None) -> Text:
    """The best suggestion learned from the item's verdicts, with what it decides, and the
    batch learned from its phenomenon."""
    text = Text()
    if batch is not None:
        text.append("batch (b proposes it): ", style="bold magenta")
        text.append(f"{batch.verdict} the {counted(len(batch.decides), 'pending output')} ")
        items = len({item for item, _ in batch.decides})
        if batch.scope.startswith("phenomenon"):
            text.append(f"of {counted(items, 'item')} of the phenomenon ")
        text.append("matching ")
        text.append(batch.pattern, style="bold")
        if batch.source:
            text.append(" where the source matches ")
            text.append(batch.source, style="bold")
        text.append(f" — {batch.learned}", style="dim")
    if suggestion is None:
        return text
    if text:
        text.append("\n")
    kind = "positive" if suggestion.field == "positive_regex" else "negative"
    text.append("suggestion (a accepts): ", style="bold magenta")
    text.append(f"add to the {kind} regex ")
    text.append(suggestion.learned, style=POSITIVE if kind == "positive" else NEGATIVE)
    text.append(f" — decides {counted(len(suggestion.decides), 'pending output')} "
                f"({counted(suggestion.outcomes, 'outcome')}):")
    for decided in suggestion.decides:
        text.append("\n  ")
        text.append(f"{decided.outcome:<4}", style=OUTCOME_STYLES[decided.outcome])
        text.append(f" {decided.output}")
    return text


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
        text.append(pattern or "—", style="" if pattern else "dim")
        text.append("\n")
    for label, tokens in (("positive", rule.positive_tokens), ("negative", rule.negative_tokens)):
        if tokens:
            text.append(f"{label} tokens ", style="bold")
            text.append(", ".join(f"“{token}”" for token in tokens))
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
        text.append(f" {verdict.output}", style="bold" if same else "")
        who = ", ".join(x for x in (verdict.annotator, verdict.note) if x)
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
    are summed up as "+N more".
    """
    text = Text()
    total = progress.resolved + progress.remaining
    text.append(f"resolved {progress.resolved:,} of {total:,}", style="bold green")
    if filters:  # else the queue is every output to decide (its length is in the heading)
        text.append(f" · filter {filters}: queue {queue:,} ({decided:,} decided here)")
    text.append("  │", style="dim")
    categories = sorted(progress.by_category.items(), key=lambda kv: kv[0] != first)
    budget = width * lines - 12 if width else None  # room for the "+N more"
    for index, (category, (resolved, remaining)) in enumerate(categories):
        part = Text(" · " if index else " ", style="dim")
        part.append(f"{category} ", style="bold" if category == first else "")
        part.append(f"{resolved:,}", style="green")
        part.append(f" of {resolved + remaining:,}")
        if budget is not None and text.cell_len + part.cell_len > budget \
                and not (index == 0 and category == first):  # the one on screen, always
            text.append(f" · +{len(categories) - index} more", style="dim")
            break
        text.append_text(part)
    return text
