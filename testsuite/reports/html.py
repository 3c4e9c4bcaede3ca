"""The HTML score report: one self-contained page per evaluation, one section per pair.

Each section has what a researcher reads in a test-suite paper and what lets them check it:

* what was evaluated and what was left out (left-out and identical systems, located items,
  rows that dropped out of the scores and why, the fairness rule's removals per row);
* the paper tables (first performance cluster in bold, sortable, 95 % intervals and rank
  ranges in tooltips or shown in the cells), a heatmap of phenomenon × system and a
  category chart, every row and cell linked *by name* to the drill-down;
* the drill-down over every output (`drilldown.drilldown_data`): filters, a contrast of two
  systems, an item view with the rule and the matched spans, CSV export, and the filter
  state in the address (permalinks, Back and Forward).

The page renders what the scores computed; it does not compute statistics. See
`html_common` for the template environment and the safe JSON embedding.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..scoring.contrast import pvalue_matrices, row_keys
from .common import AVERAGE_LABELS, P_FLOOR, finite, percent, shorten
from .drilldown import ALPHABET, OUTCOMES, code, drilldown_data
from .html_common import (
    COMMON_JS,
    anchor,
    asset,
    environment,
    json_script,
    number,
    state_link,
)
from .html_compare import comparison_html
from .plots import (
    ACCURACY_STOPS,
    CHART_INK,
    accuracy_colour,
    axis_start,
    text_colour,
)
from .tables import PaperTable, Row, category_table, phenomenon_table

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from ..matching import RegexCache
    from ..model import Suite
    from ..scoring import Scores

#: Ticks of the heatmap's colour legend (accuracy in %).
LEGEND_TICKS = (0, 25, 50, 75, 100)


@dataclass(frozen=True)
class TableRow:
    """A paper-table row with the names it links to (None: not a link), its permalink, and
    the label of a macro-average row (None for any other)."""

    row: Row
    category: str | None
    phenomenon: str | None
    link: str | None
    average: str | None = None


def html_report(scores: list[Scores], evaluation: Evaluation, suite: Suite,
                title: str | None = None, cache: RegexCache | None = None) -> str:
    """The HTML score report of an evaluation, one section per language pair.

    Args:
        scores: Scores of each language pair to report (one per pair).
        evaluation: The outcomes scored (for the outputs of the drill-down).
        suite: The suite evaluated (item order, sources, descriptions, rules).
        title: Title of the page; by default it names pairs, systems and items.
        cache: Compiled patterns for the matched spans (default: the persistent cache).

    Returns:
        The page as text (UTF-8 when written).
    """
    sections = [_pair_section(s, evaluation, suite, cache) for s in scores]
    if title is None:
        title = ("Test-suite report: " + ", ".join(
            f"{s['pair']} ({len(s['systems'])} systems, {s['item_count']:,} items)"
            for s in sections))
    template = environment().get_template("report.html.j2")
    return template.render(title=title, sections=sections, heat_classes=_heat_classes(sections),
                           outcomes=OUTCOMES, stops=ACCURACY_STOPS, legend=LEGEND_TICKS,
                           ink=CHART_INK,
                           version=__version__, css=asset("report.css"),
                           js=asset(*COMMON_JS, "drilldown.js", "report.js"))


def _pair_section(scores: Scores, evaluation: Evaluation, suite: Suite,
                  cache: RegexCache | None) -> dict[str, Any]:
    target = f"{anchor(scores.pair)}-items"
    data = drilldown_data(scores, evaluation, suite, cache)
    categories = category_table(scores)
    phenomena = phenomenon_table(scores)
    return {
        "pair": scores.pair,
        "anchor": anchor(scores.pair),
        "target": target,
        "systems": scores.systems,
        "item_count": len(data["items"]),
        "facts": _facts(scores, evaluation),
        # Notes on the whole report once, at the top; those on some rows under their table.
        "notes": [str(note) for note in scores.notes if not note.levels],
        "table_notes": {"categories": categories.row_notes, "phenomena": phenomena.row_notes},
        "summary": _summary(scores, evaluation),
        "category_table": categories,
        "categories": _linked_rows(categories, target),
        "phenomenon_table": phenomena,
        "phenomena": _linked_rows(phenomena, target),
        "details": _has_details(categories, phenomena),
        "stats": json_script({"categories": _stats(scores, categories),
                              "phenomena": _stats(scores, phenomena),
                              "contrast": _contrast(scores, categories, phenomena)}),
        "heatmap": _heatmap(phenomena),
        "chart": _chart(categories, target),
        "data": json_script(data),
    }


# ---------------------------------------------------------------------------------------------
# What evaluate and score know


def _facts(scores: Scores, evaluation: Evaluation) -> list[str]:
    """Sentences saying what was evaluated: located items and what entered the scores.

    Left-out and identical systems, dropped rows and the tests' readings are in the scores'
    notes, shown beside these.
    """
    facts = []
    located = evaluation.located.get(scores.pair)
    if located is not None:
        total = len(located.lines) + len(located.not_found)
        facts.append(f"{len(located.lines):,} of {total:,} items located in "
                     f"{Path(located.source_file).name}"
                     + (f" ({len(located.not_found):,} not in that input)"
                        if located.not_found else ""))
    facts.append(str(scores.coverage) + ".")
    return facts


def _summary(scores: Scores, evaluation: Evaluation) -> list[dict[str, Any]]:
    """Outcome counts per system (best first) with their shares for the stacked bars."""
    summary = evaluation.counts()
    rows = []
    for system in scores.systems:
        found = summary.get((scores.pair, system), {})
        counts = {o: found.get(o, 0) for o in OUTCOMES}
        total = sum(counts.values())
        rows.append({"system": system, "counts": counts,
                     "shares": {o: 100 * n / total if total else 0 for o, n in counts.items()}})
    return rows


# ---------------------------------------------------------------------------------------------
# Tables, heatmap and chart


def behind_link(target: str, row: Row | None = None, system: str | None = None) -> str:
    """The permalink to the items behind a number: a row's (None: an average row's, every
    scored item) and, with `system`, one system's outputs of them.

    Every entry point of the page opens this view (row names, paper-table and heatmap
    cells, chart dots and legend): the drill-down's default set is the items that entered
    the scores (`scoring.behind`), so the list reproduces the row's ``#``, and the
    system's passes among them its accuracy; the row's left-out items are one click away.
    A macro-average is not passes over items: its view names the row (``average``), and
    the list says that its number is a mean of row accuracies.
    """
    category = row.category if row is not None and row.kind != "average" else None
    phenomenon = row.phenomenon if row is not None and row.kind == "phenomenon" else None
    return state_link(target, category=category, phenomenon=phenomenon, system=system,
                      average=_macro_label(row))


#: Labels of the macro-average rows (a mean of row accuracies, not one proportion).
MACRO_LABELS = (AVERAGE_LABELS["category-macro"], AVERAGE_LABELS["phenomenon-macro"])


def _macro_label(row: Row | None) -> str | None:
    """The label of a macro-average row (its number is a mean of row accuracies, not one
    proportion), None for any other row."""
    return row.label if row is not None and row.label in MACRO_LABELS else None


def _linked_rows(table: PaperTable, target: str) -> list[TableRow]:
    """A paper table's rows, each linked to the items behind it by name (averages: all)."""
    rows = []
    for row in table.rows:
        if row.kind == "average":
            rows.append(TableRow(row, None, None, behind_link(target, row), _macro_label(row)))
            continue
        phenomenon = row.phenomenon if row.kind == "phenomenon" else None
        rows.append(TableRow(row, row.category, phenomenon, behind_link(target, row)))
    return rows


def _has_details(*tables: PaperTable) -> dict[str, bool]:
    """Which optional statistics the scores carry (the page offers to show those)."""
    cells = [c for t in tables for r in t.rows for c in r.cells]
    return {"ci": any(c.ci_low is not None for c in cells),
            "rank": any(c.ranks is not None for c in cells),
            "p": any(c.p_value is not None for c in cells)}


def _stats(scores: Scores, table: PaperTable) -> list[list[Any]]:
    """Per table row: items, located items, and per system the cell's statistics.

    A cell is ``[accuracy, first, passes, lower, upper, ci_low, ci_high, p_value,
    rank_best, rank_worst, p_adjusted, p_mc_error]`` (p-values unrounded: rounded, a tiny
    one would read 0), None where the scores do not have a value (passes: macro rows,
    which are not a count); trailing Nones are left out (the page reads a missing entry as
    None). A dropped row has no cells. For tooltips and the optional statistics in the
    cells.
    """
    levels = {label: level for level, label in AVERAGE_LABELS.items()}
    stats: list[list[Any]] = []
    for row in table.rows:
        level = row.kind if row.kind != "average" else levels.get(row.label, "")
        found = scores.row(level, row.category, row.phenomenon)
        # Macro rows count the groups they average as "located": no items are left out.
        proportion = level in ("category", "phenomenon", "micro")
        located = row.located if proportion else None
        if found is None:  # dropped: no item entered
            stats.append([row.items, located, []])
            continue
        cells = []
        for index, cell in enumerate(row.cells):
            ranks = cell.ranks or (None, None)
            entry = [number(cell.accuracy, 6), 1 if cell.bold else 0,
                     int(found.passes[index]) if proportion else None,
                     number(cell.lower, 6), number(cell.upper, 6), number(cell.ci_low, 6),
                     number(cell.ci_high, 6), finite(cell.p_value), ranks[0], ranks[1],
                     finite(cell.p_adjusted), number(cell.p_mc_error, 6)]
            while entry and entry[-1] is None:
                entry.pop()
            cells.append(entry)
        stats.append([row.items, located, cells])
    return stats


def _contrast(scores: Scores, categories: PaperTable, phenomena: PaperTable
              ) -> dict[str, Any]:
    """What the contrast of two systems shows beside its counts, from scoring: per row of
    `scoring.contrast.row_keys` its name, where its accuracies are in the tables'
    statistics (``[table, row]``: the difference A − B is theirs), and the two-sided exact
    McNemar p-values of every pair of systems on its items, as the upper triangle of the
    matrix (systems best first, row by row). The p-values are rounded to the two
    significant digits shown (`common.p_text`; below its floor, 0): no second rounding.
    """
    where: dict[tuple[str, str, str], list[Any]] = {}
    for name, table in (("categories", categories), ("phenomena", phenomena)):
        for index, row in enumerate(table.rows):
            level = "all" if row.label == AVERAGE_LABELS["micro"] else row.kind
            found = (level, row.category if level != "all" else "",
                     row.phenomenon if level == "phenomenon" else "")
            where.setdefault(found, [name, index])
    n = len(scores.systems)
    rows, pvalues = [], []
    for key, matrix in zip(row_keys(scores), pvalue_matrices(scores), strict=True):
        rows.append([*key, where.get(key)])
        pvalues.append([0 if p < P_FLOOR else float(f"{p:.2g}")
                        for i in range(n) for p in matrix[i, i + 1:].tolist()])
    return {"rows": rows, "p": pvalues}


def _heatmap(phenomena: PaperTable) -> list[dict[str, Any]]:
    """Heatmap rows grouped by category; a cell is the accuracy in whole % (None: none).

    Every phenomenon of the phenomenon table, those none of whose items entered the scores
    too (their cells are "–", the label says why). Each row keeps its category and
    phenomenon names (the links) and the index of its row in the phenomenon table's
    statistics (the tooltips).
    """
    groups: list[dict[str, Any]] = []
    for index, row in enumerate(phenomena.rows):
        if row.kind != "phenomenon":
            continue
        if not groups or groups[-1]["category"] != row.category:
            groups.append({"category": row.category, "rows": []})
        cells = [None if cell.accuracy is None else round(100 * cell.accuracy)
                 for cell in row.cells]
        groups[-1]["rows"].append({"label": row.label, "count": row.items,
                                   "category": row.category, "stats": index,
                                   "dropped": row.dropped, "cells": cells})
    return groups


def _heat_classes(sections: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """The colours of each accuracy (whole %) the heatmaps show: value, background, text."""
    used = {value for s in sections for group in s["heatmap"] for row in group["rows"]
            for value in row["cells"] if value is not None}
    return [(value, accuracy_colour(value / 100), text_colour(accuracy_colour(value / 100)))
            for value in sorted(used)]


#: Layout of the category chart (SVG user units, 1 = 1 CSS px at full width).
PANEL = {"columns": 4, "width": 226, "gap": 22, "names": 118, "step": 11, "title": 24,
         "axis": 26, "space": 14}


def _chart(categories: PaperTable, target: str) -> dict[str, Any]:
    """Layout of the category chart as small multiples (SVG), from the category table.

    A panel per row of the table the page shows (categories, then the averages, as
    `plots.category_panels`; not built a second time), a line per system in every panel
    (best first, the same order everywhere, names at the left of each line of panels), its
    accuracy as a dot and its 95 % interval as a whisker; filled: first cluster. A dot
    links to the items behind its number (`behind_link`).
    """
    panels = list(categories.rows)
    systems = categories.systems
    start = axis_start(panels)
    columns, width, gap = PANEL["columns"], PANEL["width"], PANEL["gap"]
    step, names = PANEL["step"], PANEL["names"]
    height = PANEL["title"] + step * len(systems) + PANEL["axis"]
    ticks = [t for t in range(0, 101, 20) if t >= start]
    laid: list[dict[str, Any]] = []
    for index, row in enumerate(panels):
        x0 = names + (index % columns) * (width + gap)
        y0 = 6 + (index // columns) * (height + PANEL["space"])

        def x(value: float, x0: float = x0) -> float:
            return round(x0 + (100 * value - start) / (100 - start) * width, 1)

        top = y0 + PANEL["title"]
        dots = []
        for i, (system, cell) in enumerate(zip(systems, row.cells, strict=True)):
            if cell.accuracy is None:
                continue
            interval = (f", 95 % interval {percent(cell.ci_low)}–{percent(cell.ci_high)} %"
                        if cell.ci_low is not None and cell.ci_high is not None else "")
            dots.append({
                "s": i, "x": x(cell.accuracy), "y": round(top + step * (i + 0.5), 1),
                "low": None if cell.ci_low is None else x(cell.ci_low),
                "high": None if cell.ci_high is None else x(cell.ci_high),
                "filled": cell.bold, "link": behind_link(target, row, system),
                "label": f"{system} · {row.label}: {percent(cell.accuracy)} %{interval}"
                + ("; first performance cluster" if cell.bold else "")})
        laid.append({"label": row.label, "short": shorten(row.label, 30), "count": row.items,
                     "kind": row.kind, "dropped": row.dropped, "x0": x0, "y0": y0,
                     "top": top, "bottom": top + step * len(systems), "dots": dots,
                     "link": behind_link(target, row),
                     "ticks": [{"x": x(t / 100), "label": str(t)} for t in ticks]})
    lines = (len(panels) + columns - 1) // columns
    first = [p for p in laid if p["x0"] == names]
    return {"width": names + columns * width + (columns - 1) * gap + 12,
            "height": lines * (height + PANEL["space"]), "panels": laid, "names": names,
            "step": step, "panel_width": width,
            "bands": [{"y": round(p["top"] + step * i, 1)} for p in first
                      for i in range(0, len(systems), 2)],
            "systems": [{"name": s, "s": i, "link": behind_link(target, None, s),
                         "ys": [round(p["top"] + step * (i + 0.5), 1) for p in first]}
                        for i, s in enumerate(systems)]}


__all__ = ["ALPHABET", "code", "comparison_html", "drilldown_data", "html_report",
           "json_script"]
