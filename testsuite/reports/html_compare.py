"""The year-over-year comparison as a self-contained HTML page.

At least what the terminal shows (`compare_render.print_comparison`): accuracy per system
and run with every change, its p-value and significance; each run's best system against
the best of the earlier runs; per system the items that regressed and improved; the
changed items themselves (filterable, with their source, exportable as CSV); the notes
(the systems not compared among them, named) and the signature. Plus a slope chart of one
row at a time. Rows, cells, directions of change and change counts are `compare_render`'s.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import __version__
from .common import percent
from .compare_render import (
    ARROWS,
    CellKey,
    CompareRow,
    change_counts,
    direction,
    points,
    records,
    table_cells,
    table_rows,
)
from .html_common import COMMON_JS, asset, environment, json_script, state_link
from .plots import system_colour, system_dash

if TYPE_CHECKING:
    from ..compare import Comparison

#: Id of the list of changed items: the target of its views' permalinks (as in compare.js).
CHANGES_TARGET = "changes-list"
#: Columns of the changed items in the page's JSON, in order.
CHANGE_COLUMNS = ("system", "item", "category", "phenomenon", "from_run", "to_run", "change",
                  "source", "before", "after")


def comparison_html(comparison: Comparison, title: str | None = None) -> str:
    """The year-over-year comparison as a self-contained HTML page.

    Args:
        comparison: The comparison of runs on one pair.
        title: Title of the page; by default it names pair, runs and items.

    Returns:
        The page as text.
    """
    if title is None:
        title = (f"Year over year ({comparison.pair}): {' → '.join(comparison.runs)}, "
                 f"{len(comparison.systems)} systems on {comparison.items:,} items")
    cells = table_cells(comparison)
    rows = table_rows(comparison)
    fields = comparison.signature.fields
    changes = comparison.changes
    env = environment()
    env.filters["direction"] = direction
    env.filters["points"] = points
    env.globals["state_link"] = state_link
    template = env.get_template("compare.html.j2")
    return template.render(
        title=title, c=comparison, rows=rows, cells=cells, best=records(comparison.best),
        test=fields.get("test"), alpha=fields.get("alpha"), arrows=ARROWS,
        target=CHANGES_TARGET,
        signature=str(comparison.signature),
        summary=change_counts(comparison), chart=_slope_chart(comparison, rows, cells),
        chart_default=_key(next(i for i, r in enumerate(rows) if r.level == "micro")),
        has_source="source" in changes.columns,
        changes=json_script({"columns": list(CHANGE_COLUMNS),
                             "rows": [[r.get(k) for k in CHANGE_COLUMNS]
                                      for r in records(changes)]}),
        version=__version__, css=asset("report.css"), js=asset(*COMMON_JS, "compare.js"))


def _key(index: int) -> str:
    """The key of a table row's chart (the chart picker's value)."""
    return f"r{index}"


def _slope_chart(comparison: Comparison, rows: list[CompareRow],
                 cells: dict[CellKey, dict[str, Any]]) -> dict[str, Any]:
    """Each system's accuracy per run, one chart per table row (the page shows one)."""
    left, right, top, bottom = 60, 520, 20, 300
    runs = comparison.runs
    step = (right - left) / max(len(runs) - 1, 1)
    charts = []
    for index, row in enumerate(rows):
        values = [cells[(row.level, row.category, s, r)]["accuracy"]
                  for s in comparison.systems for r in runs]
        # The axis spans the tens around the values, with 2 points of room below.
        low = max(0, int(100 * min(values) - 2) // 10 * 10)
        high = max(min(100, math.ceil(100 * max(values) / 10) * 10), low + 10)

        def y(accuracy: float, low: int = low, high: int = high) -> float:
            return round(bottom - (100 * accuracy - low) / (high - low) * (bottom - top), 1)

        lines = []
        for number, system in enumerate(comparison.systems):
            dots = []
            for position, run in enumerate(runs):
                record = cells[(row.level, row.category, system, run)]
                mark = direction(record)
                dots.append({"x": round(left + step * position, 1),
                             "y": y(record["accuracy"]), "mark": mark,
                             "label": f"{system}, {run}: {percent(record['accuracy'])} %"
                             + (f" ({points(record['delta'])}, significant)" if mark else "")})
            lines.append({"system": system, "colour": system_colour(number),
                          "dash": system_dash(number), "points": dots})
        _dodge(lines, bottom)
        charts.append({"key": _key(index), "label": row.label, "lines": lines,
                       "ticks": [{"y": y(t / 100), "label": str(t)}
                                 for t in range(low, high + 1, 10)]})
    return {"width": right + 170, "height": bottom + 40, "left": left, "right": right,
            "top": top, "bottom": bottom, "runs": [{"x": round(left + step * i, 1), "label": r}
                                                   for i, r in enumerate(runs)],
            "charts": charts}


def _dodge(lines: list[dict[str, Any]], bottom: float, gap: float = 13) -> None:
    """Place the system names at the line ends without overlapping (at least `gap` apart)."""
    ordered = sorted(lines, key=lambda line: line["points"][-1]["y"])
    previous = -gap
    for line in ordered:
        line["label_y"] = max(line["points"][-1]["y"], previous + gap)
        previous = line["label_y"]
    overflow = previous - (bottom + 10)
    if overflow > 0:  # pushed below the chart: shift the whole column up
        for line in ordered:
            line["label_y"] -= overflow


__all__ = ["CHANGE_COLUMNS", "comparison_html"]
