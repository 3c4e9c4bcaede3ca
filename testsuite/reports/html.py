"""Self-contained HTML reports: the score report of an evaluation and a year-over-year comparison.

Each report is one HTML file that works offline: its CSS and JavaScript (``templates/*.css``,
``templates/*.js``) are inlined, the charts are inline SVG or coloured tables, and a
Content-Security-Policy forbids every network request. The pages come from the Jinja2
templates ``report.html.j2`` and ``compare.html.j2`` with autoescaping on: every label,
source and output is escaped.

Large evaluations stay usable: the item × system outputs are not rendered as table rows but
embedded once as JSON (each distinct string stored once, outputs and outcomes as indices) and
the drill-down renders the items of the current filter page by page in the browser. The full
DFKI suite on all WMT21 de-en systems (49,464 outputs) gives a file under 1 MB.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from .plots import (
    ACCURACY_STOPS,
    accuracy_colour,
    axis_start,
    dot_rows,
    heatmap_rows,
    system_colour,
    text_colour,
)
from .render import percent
from .tables import Row, category_table, phenomenon_table

if TYPE_CHECKING:
    import jinja2
    from markupsafe import Markup

    from ..compare import Comparison
    from ..evaluate import Evaluation
    from ..model import Suite
    from ..scoring import Scores

TEMPLATES = Path(__file__).parent / "templates"
OUTCOMES = ("pass", "fail", "warning", "missing")
#: Letters of `code` (printable ASCII without '-', quotes, backslash and HTML specials).
ALPHABET = "".join(chr(c) for c in range(33, 127) if chr(c) not in "-\"\\<>&'")
COMPARE_LABELS = {"micro": "micro-average", "category-macro": "category macro-average",
                  "phenomenon-macro": "phenomenon macro-average"}


def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html.j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["pct"] = percent
    env.filters["thousands"] = lambda n: f"{n:,}"
    return env


def _asset(name: str) -> Markup:
    """An inline CSS or JS file; ours, so it is inserted as it is (not escaped)."""
    from markupsafe import Markup

    return Markup(TEMPLATES.joinpath(name).read_text(encoding="utf-8"))


def json_script(data: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``.

    The escapes are JSON string escapes, so ``JSON.parse`` returns the original text, and no
    output can close the script element (``</script>``) or open a comment.
    """
    from markupsafe import Markup

    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e")
                  .replace("&", "\\u0026"))


def _anchor(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z_-]+", "-", text).strip("-") or "x"


# ---------------------------------------------------------------------------------------------
# The score report


@dataclass(frozen=True)
class TableRow:
    """A paper-table row with what the drill-down opens when it is clicked."""

    row: Row
    category: int | None
    phenomenon: int | None


def html_report(scores: list[Scores], evaluation: Evaluation, suite: Suite,
                title: str | None = None) -> str:
    """The HTML score report of an evaluation, one section per language pair.

    Args:
        scores: Scores of each language pair to report (one per pair).
        evaluation: The outcomes scored (for the outputs of the drill-down).
        suite: The suite evaluated (item order, sources, descriptions).
        title: Title of the page; by default it names pairs, systems and items.

    Returns:
        The page as text (UTF-8 when written).
    """
    sections = [_pair_section(s, evaluation, suite) for s in scores]
    if title is None:
        title = ("Test-suite report: " + ", ".join(
            f"{s['pair']} ({len(s['systems'])} systems, {s['item_count']:,} items)"
            for s in sections))
    used = sorted({value for s in sections for value in s["heat_values"]})
    heat_classes = [(value, accuracy_colour(value / 100),
                     text_colour(accuracy_colour(value / 100))) for value in used]
    template = _environment().get_template("report.html.j2")
    return template.render(title=title, sections=sections, heat_classes=heat_classes,
                           outcomes=OUTCOMES, stops=ACCURACY_STOPS, version=__version__,
                           css=_asset("report.css"),
                           js=_asset("report.js"))


def _pair_section(scores: Scores, evaluation: Evaluation, suite: Suite) -> dict[str, Any]:
    pair = scores.pair
    data = drilldown_data(scores, evaluation, suite)
    categories = {name: index for index, name in enumerate(data["categories"])}
    phenomena = {(data["categories"][c], name): index
                 for index, (name, c) in enumerate(data["phenomena"])}
    heat_values: set[int] = set()
    return {
        "pair": pair,
        "anchor": _anchor(pair),
        "systems": scores.systems,
        "item_count": len(data["items"]),
        "inputs": _inputs(scores, evaluation),
        "summary": _summary(scores, evaluation),
        "categories": _category_rows(scores, categories),
        "category_table": category_table(scores),
        "phenomena": _phenomenon_rows(scores, categories, phenomena),
        "phenomenon_table": phenomenon_table(scores),
        "heatmap": _heatmap(scores, phenomena, heat_values),
        "heat_values": heat_values,
        "dotplot": _dotplot(scores, categories),
        "data": json_script(data),
    }


def drilldown_data(scores: Scores, evaluation: Evaluation, suite: Suite) -> dict[str, Any]:
    """Every item of the pair with each system's output and outcome, compactly.

    Strings (sources, outputs, reasons) are stored once in ``strings``. An item is
    ``[id, phenomenon, source, description, outputs, which, verdicts]``: ``source`` and
    ``description`` are string indices (-1: none), ``outputs`` the string indices of the
    item's distinct outputs, ``which`` one letter per system naming its output among them,
    and ``verdicts`` one letter per system naming its pair of outcome index and reason
    string index in ``verdicts``. A letter is ``code(n)``, ``-`` for a system with no
    output. Systems are in the order of `Scores.systems` (best first).

    Most systems give one of few outputs per item, so this is about half the size of one
    string index per item and system (WMT21 de-en: 2.8 distinct outputs per 18 systems).
    """
    results = evaluation.results
    part = results[(results["pair"] == scores.pair)
                   & results["system"].isin(scores.systems)]
    strings: dict[str, int] = {}

    def intern(text: str) -> int:
        return strings.setdefault(text, len(strings))

    verdict_index: dict[tuple[int, int], int] = {}
    column = {s: i for i, s in enumerate(scores.systems)}
    cells: dict[str, tuple[list[int], list[int]]] = {}
    places: dict[str, tuple[str, str]] = {}
    width = len(scores.systems)
    for item, system, output, outcome, reason, category, phenomenon in zip(
            part["item"].astype(str), part["system"].astype(str), part["output"].astype(str),
            part["outcome"].astype(str), part["reason"].astype(str),
            part["category"].astype(str), part["phenomenon"].astype(str), strict=True):
        outputs, verdicts = cells.setdefault(item, ([-1] * width, [-1] * width))
        places.setdefault(item, (category, phenomenon))
        key = (OUTCOMES.index(outcome), intern(reason))
        outputs[column[system]] = intern(output)
        verdicts[column[system]] = verdict_index.setdefault(key, len(verdict_index))

    # Suite order (the order of every report); items only in the results come last.
    known = {item.id: item for item in suite.items_of(scores.pair)}
    order = [i for i in known if i in cells] + [i for i in cells if i not in known]
    categories: dict[str, int] = {}
    phenomena: dict[tuple[str, str], int] = {}
    items = []
    for item_id in order:
        found = known.get(item_id)
        category, phenomenon = ((found.category, found.phenomenon) if found
                                else places[item_id])
        categories.setdefault(category, len(categories))
        phenomenon_index = phenomena.setdefault((category, phenomenon), len(phenomena))
        source = intern(found.source) if found else -1
        description = intern(found.description) if found and found.description else -1
        outputs, verdicts = cells[item_id]
        distinct = list(dict.fromkeys(o for o in outputs if o >= 0))
        local = {index: position for position, index in enumerate(distinct)}
        items.append([item_id, phenomenon_index, source, description, distinct,
                      "".join(code(local[o]) if o >= 0 else "-" for o in outputs),
                      "".join(code(v) if v >= 0 else "-" for v in verdicts)])
    return {
        "pair": scores.pair, "fair": scores.options.fair, "systems": scores.systems,
        "outcomes": list(OUTCOMES), "categories": list(categories),
        "phenomena": [[name, categories[category]] for category, name in phenomena],
        "verdicts": [list(key) for key in verdict_index], "strings": list(strings),
        "alphabet": ALPHABET, "items": items,
    }


def code(number: int) -> str:
    """One letter for a small number: `ALPHABET`, then characters from U+0100 on."""
    return ALPHABET[number] if number < len(ALPHABET) else chr(0x100 + number)


def _inputs(scores: Scores, evaluation: Evaluation) -> list[str]:
    """Sentences saying what was evaluated: source file, left-out and identical systems."""
    notes = []
    located = evaluation.located.get(scores.pair)
    if located is not None:
        total = len(located.lines) + len(located.not_found)
        notes.append(f"{len(located.lines):,} of {total:,} items located in "
                     f"{Path(located.source_file).name}")
    notes += [f"left out: {excluded}" for excluded in evaluation.excluded]
    notes += [f"identical outputs: {' = '.join(group)}" for group in evaluation.identical
              if set(group) <= set(scores.systems)]
    return notes


def _summary(scores: Scores, evaluation: Evaluation) -> list[dict[str, Any]]:
    """Outcome counts per system (best first) with their shares for the stacked bars."""
    summary: dict[Any, dict[Any, Any]] = evaluation.summary().to_dict("index")
    rows = []
    for system in scores.systems:
        found = summary.get((scores.pair, system), {})
        counts = {o: int(found.get(o, 0)) for o in OUTCOMES}
        total = sum(counts.values())
        rows.append({"system": system, "counts": counts, "total": total,
                     "shares": {o: 100 * n / total if total else 0 for o, n in counts.items()}})
    return rows


def _category_rows(scores: Scores, categories: dict[str, int]) -> list[TableRow]:
    return [TableRow(row, categories.get(row.label) if row.kind == "category" else None, None)
            for row in category_table(scores).rows]


def _phenomenon_rows(scores: Scores, categories: dict[str, int],
                     phenomena: dict[tuple[str, str], int]) -> list[TableRow]:
    rows = []
    current = ""
    for row in phenomenon_table(scores).rows:
        if row.kind == "category":
            current = row.label
            rows.append(TableRow(row, categories.get(row.label), None))
        elif row.kind == "phenomenon":
            rows.append(TableRow(row, categories.get(current),
                                 phenomena.get((current, row.label))))
        else:
            rows.append(TableRow(row, None, None))
    return rows


def _heatmap(scores: Scores, phenomena: dict[tuple[str, str], int],
             used: set[int]) -> list[dict[str, Any]]:
    """Heatmap rows grouped by category; a cell is the accuracy in whole % (None: none)."""
    groups: list[dict[str, Any]] = []
    for row in heatmap_rows(scores):
        if not groups or groups[-1]["category"] != row.category:
            groups.append({"category": row.category, "rows": []})
        cells = [None if accuracy is None else round(100 * accuracy)
                 for accuracy in row.accuracies]
        used.update(value for value in cells if value is not None)
        groups[-1]["rows"].append({"label": row.phenomenon, "count": row.items,
                                   "phenomenon": phenomena.get((row.category, row.phenomenon)),
                                   "cells": cells})
    return groups


def _dotplot(scores: Scores, categories: dict[str, int]) -> dict[str, Any]:
    """Layout of the category chart (SVG): one row per category, one dot per system."""
    rows = dot_rows(scores)
    left, right, top, step = 250, 1000, 28, 32
    start = axis_start(rows)

    def x(accuracy: float) -> float:
        return round(left + (100 * accuracy - start) / (100 - start) * (right - left), 1)

    systems = scores.systems
    spread = 16 / max(len(systems), 1)  # systems side by side within a row, best on top
    laid: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        y = top + step * index + (step // 2 if row.kind == "average" else 0)
        dots = [{"system": s, "index": i, "x": x(a), "colour": system_colour(i),
                 "y": round(y + (i - (len(systems) - 1) / 2) * spread, 1),
                 "filled": row.first_cluster[i], "label": f"{s} · {row.label}: {percent(a)} %"
                 + (" (first cluster)" if row.first_cluster[i] else "")}
                for i, (s, a) in enumerate(zip(systems, row.accuracies, strict=True))
                if a is not None]
        category = categories.get(row.label, -1) if row.kind == "category" else -1
        # The label column is 250 px wide: longer names are cut (the full one is the tooltip).
        short = row.label if len(row.label) <= 32 else row.label[:31] + "…"
        laid.append({"label": row.label, "short": short, "count": row.items, "kind": row.kind,
                     "y": y,
                     "category": category, "dots": dots})
    bottom = laid[-1]["y"] + step // 2 + 4 if laid else top
    ticks = [{"x": x(t / 100), "label": str(t)} for t in range(int(start), 101, 10)]
    separator = next((r["y"] - step * 0.75 for r in laid if r["kind"] == "average"), None)
    return {"width": right + 20, "height": bottom + 34, "left": left, "right": right,
            "top": top - step // 2, "bottom": bottom, "rows": laid, "ticks": ticks,
            "separator": separator,
            "systems": [{"name": s, "colour": system_colour(i)} for i, s in enumerate(systems)]}


# ---------------------------------------------------------------------------------------------
# The comparison report


def comparison_html(comparison: Comparison, title: str | None = None) -> str:
    """The year-over-year comparison as a self-contained HTML page.

    Args:
        comparison: The comparison of runs on one pair.
        title: Title of the page; by default it names pair, runs and items.

    Returns:
        The page as text.
    """
    from .compare_render import comparison_json

    if title is None:
        title = (f"Year over year ({comparison.pair}): {' → '.join(comparison.runs)}, "
                 f"{len(comparison.systems)} systems on {comparison.items:,} items")
    cells = {(str(r["level"]), str(r["category"]), str(r["system"]), str(r["run"])):
             {str(k): v for k, v in r.items()} for r in comparison.table.to_dict("records")}
    rows = _comparison_rows(comparison)
    plain = comparison_json(comparison)
    signed = comparison.signature.fields
    template = _environment().get_template("compare.html.j2")
    return template.render(
        title=title, c=comparison, rows=rows, cells=cells, best=plain["best"],
        test=signed.get("test", ""), alpha=signed.get("alpha", ""),
        summary=_change_summary(comparison), chart=_slope_chart(comparison, rows, cells),
        chart_default=next(r["key"] for r in rows if r["level"] == "micro"),
        changes=json_script({"columns": ["system", "item", "category", "phenomenon",
                                         "from_run", "to_run", "change", "before", "after"],
                             "rows": [[r[k] for k in ("system", "item", "category",
                                                      "phenomenon", "from_run", "to_run",
                                                      "change", "before", "after")]
                                      for r in plain["changes"]]}),
        version=__version__, css=_asset("report.css"), js=_asset("compare.js"))


def _comparison_rows(comparison: Comparison) -> list[dict[str, str]]:
    table = comparison.table
    categories = dict.fromkeys(table.loc[table["level"] == "category", "category"])
    rows = [{"level": "category", "category": str(c), "label": str(c)} for c in categories]
    rows += [{"level": level, "category": "", "label": label}
             for level, label in COMPARE_LABELS.items()]
    for index, row in enumerate(rows):
        row["key"] = f"r{index}"
    return rows


def _change_summary(comparison: Comparison) -> list[dict[str, Any]]:
    changes = comparison.changes
    summary = []
    for (system, before, after), part in changes.groupby(["system", "from_run", "to_run"],
                                                         sort=False):
        counts = part["change"].value_counts()
        summary.append({"system": system, "from": before, "to": after,
                        "regressed": int(counts.get("regressed", 0)),
                        "improved": int(counts.get("improved", 0))})
    return summary


def _slope_chart(comparison: Comparison, rows: list[dict[str, str]],
                 cells: dict[tuple[str, str, str, str], dict[str, Any]]) -> dict[str, Any]:
    """Each system's accuracy per run, one chart per table row (the page shows one)."""
    left, right, top, bottom = 60, 520, 20, 300
    runs = comparison.runs
    step = (right - left) / max(len(runs) - 1, 1)
    charts = []
    for row in rows:
        values = [cells[(row["level"], row["category"], s, r)]["accuracy"]
                  for s in comparison.systems for r in runs]
        # The axis spans the tens around the values, with 2 points of room below.
        low = max(0, int(100 * min(values) - 2) // 10 * 10)
        high = max(min(100, math.ceil(100 * max(values) / 10) * 10), low + 10)

        def y(accuracy: float, low: int = low, high: int = high) -> float:
            return round(bottom - (100 * accuracy - low) / (high - low) * (bottom - top), 1)

        lines = []
        for index, system in enumerate(comparison.systems):
            points = []
            for position, run in enumerate(runs):
                record = cells[(row["level"], row["category"], system, run)]
                mark = ("up" if record.get("significant") and record["delta"] > 0 else
                        "down" if record.get("significant") else "")
                points.append({"x": round(left + step * position, 1),
                               "y": y(record["accuracy"]), "mark": mark,
                               "label": f"{system}, {run}: {percent(record['accuracy'])} %"
                               + (f" ({100 * record['delta']:+.1f}, significant)" if mark
                                  else "")})
            lines.append({"system": system, "colour": system_colour(index), "points": points})
        _dodge(lines, bottom)
        charts.append({"key": row["key"], "label": row["label"], "lines": lines,
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


__all__ = ["code", "comparison_html", "drilldown_data", "html_report", "json_script"]
