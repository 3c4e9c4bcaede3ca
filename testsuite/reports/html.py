"""The HTML report: one self-contained file that works offline.

Everything is inline — CSS, JavaScript, the charts (SVG) and the data — so the file can be
mailed, attached to a submission or opened from disk with no network at all. The score
tables and the heatmap are rendered as HTML by a Jinja2 template (``report.html.j2``,
autoescaped); the drill-down to the outputs is drawn on demand by ``report.js`` from one
JSON block in which every distinct string is stored once, so that a full WMT evaluation
(≈50,000 outputs) opens and filters without rendering 50,000 rows up front.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from .plots import accuracy_colour, category_figure, heatmap_rows, system_colour, text_colour
from .render import percent
from .tables import paper_tables

if TYPE_CHECKING:
    from ..compare import Comparison
    from ..evaluate import Evaluation
    from ..model import Suite
    from ..scores import Scores

TEMPLATES = Path(__file__).parent / "templates"
OUTCOME_CODES = {"pass": "p", "fail": "f", "warning": "w", "missing": "m"}


def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["pct"] = percent
    env.filters["heat"] = accuracy_colour
    env.filters["ink"] = text_colour
    return env


def _asset(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def _svg(figure: Any) -> str:
    """A matplotlib figure as inline SVG text (fonts as text, no date: stable output)."""
    import matplotlib
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "testsuite"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype


def _script_json(data: Any) -> str:
    """JSON safe to place inside a <script> element."""
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            .replace("</", "<\\/").replace("<!--", "<\\!--"))


def drilldown_data(scores: Scores, evaluation: Evaluation, suite: Suite) -> dict[str, Any]:
    """The outputs of one pair for the drill-down, every distinct string stored once.

    Returns:
        ``systems``, ``categories``, ``phenomena`` (index of their category), ``strings``
        and ``items``: ``[id, phenomenon index, source string, [output string per system],
        outcome codes]`` where codes are one letter per system (``p f w m``, ``-`` for no
        output), in the order of `Scores.systems`.
    """
    results = evaluation.results
    results = results[results["pair"] == scores.pair]
    systems = list(scores.systems)
    strings: dict[str, int] = {}

    def code(text: str) -> int:
        return strings.setdefault(text, len(strings))

    by_item: dict[str, dict[str, tuple[str, str]]] = {}
    for item, system, output, outcome in zip(results["item"].astype(str),
                                              results["system"].astype(str), results["output"],
                                              results["outcome"].astype(str), strict=True):
        by_item.setdefault(item, {})[system] = (output, outcome)
    categories: list[str] = []
    phenomena: list[tuple[str, int]] = []
    phenomenon_index: dict[tuple[str, str], int] = {}
    items = []
    for entry in suite.items_of(scores.pair):
        outputs = by_item.get(entry.id)
        if not outputs:
            continue
        if entry.category not in categories:
            categories.append(entry.category)
        key = (entry.category, entry.phenomenon)
        if key not in phenomenon_index:
            phenomenon_index[key] = len(phenomena)
            phenomena.append((entry.phenomenon, categories.index(entry.category)))
        texts = [code(outputs[s][0]) if s in outputs else -1 for s in systems]
        codes = "".join(OUTCOME_CODES.get(outputs[s][1], "-") if s in outputs else "-"
                        for s in systems)
        items.append([entry.id, phenomenon_index[key], code(entry.source), texts, codes])
    return {"pair": scores.pair, "systems": systems, "categories": categories,
            "phenomena": phenomena, "strings": list(strings), "items": items}


def html_report(scores: list[Scores], evaluation: Evaluation, suite: Suite,
                title: str | None = None) -> str:
    """The whole report as one HTML document (see the module docs)."""
    import matplotlib

    matplotlib.use("Agg")
    pairs = []
    for one in scores:
        pairs.append({
            "pair": one.pair,
            "scores": one,
            "tables": paper_tables(one, "both"),
            "heatmap": heatmap_rows(one),
            "chart": _svg(category_figure(one)),
            "colours": [system_colour(i) for i in range(len(one.systems))],
            "data": _script_json(drilldown_data(one, evaluation, suite)),
        })
    if title is None:
        described = ", ".join(f"{one.pair} ({len(one.systems)} systems, "
                              f"{one.coverage.items} items)" for one in scores)
        title = f"testsuite report: {described}"
    return _environment().get_template("report.html.j2").render(
        title=title, pairs=pairs, version=__version__, css=_asset("report.css"),
        js=_asset("report.js"))


def comparison_html(comparison: Comparison, title: str | None = None) -> str:
    """The year-over-year comparison as one self-contained HTML document."""
    import matplotlib

    matplotlib.use("Agg")
    from .compare_render import _cells, _rows

    return _environment().get_template("compare.html.j2").render(
        title=title or f"testsuite comparison ({comparison.pair}): {' → '.join(comparison.runs)}",
        c=comparison, rows=_rows(comparison), cells=_cells(comparison),
        chart=_svg(_comparison_figure(comparison)), css=_asset("report.css"),
        changes=comparison.changes.to_dict("records"), version=__version__)


def _comparison_figure(comparison: Comparison) -> Any:
    """Micro-average of each system in each run, one line per system."""
    import matplotlib.pyplot as plt

    table = comparison.table
    micro = table[table["level"] == "micro"]
    figure, axes = plt.subplots(figsize=(6.5, 3.2), layout="constrained")
    for index, system in enumerate(comparison.systems):
        part = micro[micro["system"] == system].set_index("run").reindex(comparison.runs)
        axes.plot(comparison.runs, 100 * part["accuracy"], marker="o", label=system,
                  color=system_colour(index))
    axes.set_ylabel("micro-average accuracy (%)")
    axes.grid(axis="y", alpha=0.3)
    axes.legend(fontsize="small", loc="center left", bbox_to_anchor=(1, 0.5), frameon=False)
    return figure
