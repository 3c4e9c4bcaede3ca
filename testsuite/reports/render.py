"""File renderers of score reports: CSV, JSON, Markdown and LaTeX.

Markdown and LaTeX come from Jinja2 templates in ``templates/``; CSV and JSON from the tidy
score table. Every renderer takes the data plus options and returns text; names from data
pass through the format's escaper in `escape` (the templates' ``md`` and ``tex`` filters).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import escape
from .tables import Cell, PaperTable, paper_tables, split_table

if TYPE_CHECKING:
    from ..scores import Scores

TEMPLATES = Path(__file__).parent / "templates"
FORMATS = ("terminal", "csv", "json", "markdown", "latex")

def percent(value: float | None) -> str:
    """Accuracy as a percentage with one decimal, as in the papers ('–' when undefined)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.1f}"


def _environment(kind: str) -> Any:
    import jinja2

    # LaTeX is full of braces: its templates use <% %>, << >> and <# #> instead.
    delimiters: dict[str, Any] = dict(
        block_start_string="<%", block_end_string="%>", variable_start_string="<<",
        variable_end_string=">>", comment_start_string="<#", comment_end_string="#>",
    ) if kind == "latex" else {}
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                             **delimiters)
    env.filters["pct"] = percent
    if kind == "latex":
        env.filters["tex"] = escape.latex
        env.filters["cell"] = lambda c: (rf"\textbf{{{percent(c.accuracy)}}}" if c.bold
                                         else percent(c.accuracy))
    else:
        env.filters["md"] = escape.markdown
        env.filters["cell"] = lambda c: (f"**{percent(c.accuracy)}**" if c.bold
                                         else percent(c.accuracy))
    return env


def render_tables(tables: list[PaperTable], kind: str) -> str:
    """Markdown or LaTeX text of paper tables."""
    env = _environment(kind)
    template = env.get_template("table.tex.j2" if kind == "latex" else "table.md.j2")
    if kind == "latex":  # a table taller than a page does not float; split it
        tables = [part for table in tables for part in split_table(table)]
    parts = [template.render(table=t, shade=t.title.startswith("Accuracy per phenomenon"))
             for t in tables]
    return "\n".join(parts)


def scores_json(scores: Scores) -> dict[str, Any]:
    """Per row and system: accuracy, passes, items, first cluster (and bounds, clusters)."""
    rows = []
    for (level, category, phenomenon), part in scores.table.groupby(
            ["level", "category", "phenomenon"], sort=False):
        systems = {}
        for record in part.to_dict("records"):
            entry = {k: record[k] for k in ("accuracy", "passes", "items", "first_cluster",
                                            "lower", "upper")}
            for key in ("cluster", "rank_best", "rank_worst"):
                if key in record and record[key] == record[key]:
                    entry[key] = int(record[key])
            systems[record["system"]] = {k: (None if isinstance(v, float) and math.isnan(v)
                                             else v) for k, v in entry.items()}
        rows.append({"level": level, "category": category or None,
                     "phenomenon": phenomenon or None,
                     "items": int(part["items"].iloc[0]), "systems": systems})
    coverage = scores.coverage
    return {
        "pair": scores.pair, "signature": scores.signature, "fair": scores.options.fair,
        "test": scores.options.test, "alpha": scores.options.alpha,
        "systems": scores.systems,
        "coverage": {"items": coverage.items, "entered": coverage.entered,
                     "not_located": coverage.not_located,
                     "with_warning": coverage.with_warning,
                     "with_missing": coverage.with_missing, "warnings": coverage.warnings,
                     "missing": coverage.missing},
        "rows": rows,
    }


def render(scores_list: list[Scores], kind: str, which: str = "both") -> str:
    """The report of one or more pairs in a file format (csv, json, markdown, latex)."""
    if kind == "json":
        documents = [scores_json(s) for s in scores_list]
        return json.dumps(documents[0] if len(documents) == 1 else documents, indent=2,
                          ensure_ascii=False) + "\n"
    if kind == "csv":
        import pandas as pd

        frames = [s.table.assign(pair=s.pair, signature=s.signature) for s in scores_list]
        return escape.csv_text(pd.concat(frames, ignore_index=True))
    tables = [t for s in scores_list for t in paper_tables(s, which)]
    return render_tables(tables, kind)


__all__ = ["FORMATS", "Cell", "render", "render_tables", "scores_json"]
