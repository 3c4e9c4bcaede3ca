"""Renderers of year-over-year comparisons: terminal, CSV, JSON and LaTeX.

The rows, cells, directions of change and change counts defined here are what every
rendering draws, the HTML page (`html_compare`) too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import escape
from .common import AVERAGE_LABELS, finite, p_text, percent
from .escape import terminal as esc
from .escape import visible
from .terminal import GAP, GridCell, column_blocks, grid_lines

if TYPE_CHECKING:
    from ..compare import Comparison

#: Key of a cell: level, category, system, run.
CellKey = tuple[str, str, str, str]
#: The mark of a significant change, by its direction.
ARROWS = {"up": "▲", "down": "▼"}


class CompareRow(NamedTuple):
    """A row of the comparison table: its level, its category (or "") and its label."""

    level: str
    category: str
    label: str


def table_rows(comparison: Comparison) -> list[CompareRow]:
    """The rows of the comparison table, categories first, then the averages."""
    table = comparison.table
    categories = list(dict.fromkeys(table.loc[table["level"] == "category", "category"]))
    return ([CompareRow("category", str(c), str(c)) for c in categories]
            + [CompareRow(level, "", AVERAGE_LABELS[level]) for level in AVERAGE_LABELS])


def table_cells(comparison: Comparison) -> dict[CellKey, dict[str, Any]]:
    """Each cell's record (accuracy, items, delta, p_value, significant, …), by `CellKey`;
    None where there is no value (the first run has no change)."""
    return {(str(r["level"]), str(r["category"]), str(r["system"]), str(r["run"])): r
            for r in records(comparison.table)}


def direction(record: dict[str, Any]) -> str:
    """``up`` or ``down`` for a significant change from the previous run, "" otherwise."""
    if not record.get("significant"):
        return ""
    return "up" if record["delta"] > 0 else "down"


def points(delta: float) -> str:
    """A change of accuracy in points, signed: ``+2.7``."""
    return f"{100 * delta:+.1f}"


def change_counts(comparison: Comparison) -> list[dict[str, Any]]:
    """Per system and pair of runs (``from``, ``to``): the items regressed and improved."""
    counts = []
    for (system, before, after), part in comparison.changes.groupby(
            ["system", "from_run", "to_run"], sort=False):
        found = part["change"].value_counts()
        counts.append({"system": system, "from": before, "to": after,
                       "regressed": int(found.get("regressed", 0)),
                       "improved": int(found.get("improved", 0))})
    return counts


def _mark(record: dict[str, Any]) -> str:
    """▲/▼ for a significant change, nothing otherwise."""
    return ARROWS.get(direction(record), "")


def print_comparison(comparison: Comparison, console: Console, regressions: int = 0) -> None:
    """Accuracy per run and system, significant changes marked; best systems; changes.

    Each system's runs are sub-columns under its name; systems that do not fit side by side
    are shown in several blocks, each with the row labels.
    """
    cells = table_cells(comparison)
    runs = comparison.runs
    rows = table_rows(comparison)
    texts = {key: percent(record["accuracy"]) + _mark(record) for key, record in cells.items()}
    # Names are drawn as Text (no markup), with control characters made visible.
    width = max([len(visible(r)) for r in runs] + [len(t) for t in texts.values()])
    span = len(runs) * (width + GAP)
    label = min(30, max(len(visible(r.label)) for r in rows))
    count = max(len(str(r["items"])) for r in cells.values())
    blocks = column_blocks([max(span, len(visible(s)) + GAP) for s in comparison.systems],
                           console.width - 4 - label - count - 2 * GAP)
    title = f"Year over year ({comparison.pair}): {visible(' → '.join(runs))}"
    styles = [None if level == "category" else "italic" for level, _, _ in rows]
    rules = {i for i, (level, _, _) in enumerate(rows)
             if level != "category" and i and rows[i - 1][0] == "category"}
    for block in blocks:
        console.print(Text(title + (f" — systems {block[0] + 1}–{block[-1] + 1} of "
                                    f"{len(comparison.systems)}" if len(blocks) > 1 else ""),
                           style="bold"))
        systems = [comparison.systems[i] for i in block]
        head = ["", "#", *(visible(run) for _ in systems for run in runs)]
        sub = max(width, (max(len(visible(s)) for s in systems) - GAP * (len(runs) - 1))
                  // len(runs) + 1)
        widths = [label, count, *([sub] * len(runs) * len(systems))]
        lines: list[list[GridCell]] = []
        for level, category, name in rows:
            items = cells[(level, category, systems[0], runs[0])]["items"]
            line: list[GridCell] = [(visible(name), ""), (str(items), "dim")]
            for system in systems:
                for run in runs:
                    record = cells[(level, category, system, run)]
                    line.append((texts[(level, category, system, run)],
                                 "bold" if _mark(record) else ""))
            lines.append(line)
        groups = [("", 1), ("", 1), *((visible(s), len(runs)) for s in systems)]
        for text in grid_lines(head, lines, widths, styles, rules, groups):
            console.print(text, no_wrap=True, crop=True)
        console.print()
    console.print("▲/▼: significant change from the previous run "
                  f"(two-sided, {esc(comparison.signature.get('test') or '')} test, "
                  f"α = {esc(comparison.signature.get('alpha') or '')}).")
    best = Table(title="Best system of each run against the best of the earlier runs",
                 title_justify="left")
    for column in ("run", "best system", "accuracy", "earlier best", "change", "p"):
        best.add_column(column, justify="left" if column in ("run", "best system",
                                                              "earlier best") else "right")
    for row in records(comparison.best):
        earlier = ("–" if row["previous_run"] is None
                   else f"{row['previous_system']} ({row['previous_run']})")
        delta = "–" if row["delta"] is None else \
            f"{points(row['delta'])}{' *' if row['significant'] else ''}"
        p = "–" if row["p_value"] is None else p_text(row["p_value"]).removeprefix("p = ")
        best.add_row(esc(row["run"]), esc(row["system"]), percent(row["accuracy"]),
                     esc(earlier), delta, p)
    console.print(best)
    changes = comparison.changes
    summary = Table(title="Items that changed outcome", title_justify="left")
    for column in ("system", "from → to", "regressed (pass → fail)", "improved (fail → pass)"):
        summary.add_column(column, justify="right" if "(" in column else "left")
    for counted in change_counts(comparison):
        summary.add_row(esc(counted["system"]), esc(f"{counted['from']} → {counted['to']}"),
                        str(counted["regressed"]), str(counted["improved"]))
    console.print(summary)
    if regressions:
        for who, part in changes[changes["change"] == "regressed"].groupby("system",
                                                                            sort=False):
            listing = Table(title=f"{esc(who)}: regressions (first {regressions})",
                            title_justify="left")
            for column in ("item", "phenomenon", "before", "after"):
                listing.add_column(column, overflow="fold")
            for change in part.head(regressions).to_dict("records"):
                listing.add_row(esc(change["item"]), esc(change["phenomenon"]),
                                esc(change["before"]), esc(change["after"]))
            console.print(listing)
    for note in comparison.notes:
        console.print(f"note: {esc(note)}")
    console.print(f"[dim]{esc(str(comparison.signature))}[/]")


def records(frame: Any) -> list[dict[str, Any]]:
    """The rows of a data frame as dicts, a missing number (NaN) as None."""
    return [{str(k): finite(v) if isinstance(v, float) else v for k, v in r.items()}
            for r in frame.to_dict("records")]


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as plain data."""
    return {"pair": comparison.pair, "runs": comparison.runs, "systems": comparison.systems,
            "names": comparison.names, "items": comparison.items, "notes": comparison.notes,
            "not_compared": comparison.not_compared,
            "signature": str(comparison.signature), "options": comparison.signature.fields,
            "rows": records(comparison.table),
            "best": records(comparison.best), "changes": records(comparison.changes)}


def comparison_latex(comparison: Comparison) -> str:
    """The comparison table of the WMT test-suite papers: years as sub-columns per system."""
    from .render import _environment

    env = _environment("latex")
    arrows = {"up": r"$^{\uparrow}$", "down": r"$^{\downarrow}$"}
    env.filters["mark"] = lambda r: arrows.get(direction(r), "")
    template = env.get_template("compare.tex.j2")
    return template.render(c=comparison, rows=table_rows(comparison),
                           cells=table_cells(comparison), tex=escape.latex)


def render_comparison(comparison: Comparison, kind: str) -> str:
    """A comparison as csv, json or latex text."""
    if kind == "json":
        return escape.json_text(comparison_json(comparison), indent=2) + "\n"
    if kind == "csv":
        return escape.csv_text(comparison.table)
    if kind == "latex":
        return comparison_latex(comparison)
    raise ValueError(f"unknown format {kind!r}")
