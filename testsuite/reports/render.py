"""File renderers of score reports: CSV, JSON, Markdown and LaTeX.

Markdown and LaTeX come from Jinja2 templates in ``templates/``; CSV and JSON from the tidy
score table. Every renderer takes the data plus options and returns text; names from data
pass through the format's escaper in `escape` (the templates' ``md`` and ``tex`` filters).
"""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..scoring.scores import LEVELS
from . import escape
from .common import (
    CAPTION_NOTE,
    CLUSTER_LEGEND,
    caption_note,
    cluster_mark,
    finite,
    percent,
    sentence,
)
from .tables import PaperTable, paper_tables, split_table

if TYPE_CHECKING:
    from ..scoring import Scores

TEMPLATES = Path(__file__).parent / "templates"
FORMATS = ("terminal", "csv", "json", "markdown", "latex")
WHICH = ("categories", "phenomena", "both")



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
    env.filters["sentence"] = sentence
    if kind == "latex":
        env.filters["tex"] = escape.latex
        env.filters["caption_note"] = caption_note
        env.tests["long_note"] = lambda note: len(note) > CAPTION_NOTE
        env.filters["visible"] = escape.visible  # in a % comment: one line, nothing to escape
        env.filters["cell"] = lambda c: (
            (rf"\textbf{{{percent(c.accuracy)}}}" if c.bold else percent(c.accuracy))
            + (rf"\textsuperscript{{{escape.latex(cluster_mark(c))}}}" if c.ranks else ""))
    else:
        env.filters["md"] = escape.markdown
        env.filters["cell"] = lambda c: (
            (f"**{percent(c.accuracy)}**" if c.bold else percent(c.accuracy))
            + (f" ({cluster_mark(c)})" if c.ranks else ""))
    return env


def render_tables(tables: list[PaperTable], kind: str) -> str:
    """Markdown or LaTeX text of paper tables."""
    env = _environment(kind)
    template = env.get_template("table.tex.j2" if kind == "latex" else "table.md.j2")
    if kind == "latex":  # a table taller than a page does not float; split it
        tables = [part for table in tables for part in split_table(table)]
    parts = [template.render(table=t, shade=t.title.startswith("Accuracy per phenomenon"),
                             legend=CLUSTER_LEGEND) for t in tables]
    return "\n".join(parts)


def scores_json(scores: Scores) -> dict[str, Any]:
    """Per row and system: accuracy, passes, items, first cluster, p-value, bounds, interval
    (and cluster and rank range when computed); with coverage, dropped rows and notes."""
    rows = [{"level": row.level, "category": row.category or None,
             "phenomenon": row.phenomenon or None, "items": row.items, "located": row.located,
             "systems": {system: {k: finite(v) if isinstance(v, float) else v
                                  for k, v in values.items()}
                         for system, values in zip(scores.systems, row.values(), strict=True)}}
            for row in scores.table_rows]
    coverage = scores.coverage
    return {
        "pair": scores.pair, "signature": str(scores.signature),
        "options": scores.signature.fields, "fair": scores.options.fair,
        "test": scores.options.test, "macro_test": scores.options.macro,
        "alpha": scores.options.alpha, "systems": scores.systems,
        "coverage": {"items": coverage.items, "entered": coverage.entered,
                     "not_located": coverage.not_located,
                     "not_located_items": [i for i, _, _ in scores.matrix.not_located],
                     "with_warning": coverage.with_warning,
                     "with_missing": coverage.with_missing, "warnings": coverage.warnings,
                     "missing": coverage.missing},
        "dropped": [{"level": d.level, "category": d.category,
                     "phenomenon": d.phenomenon or None, "located": d.located,
                     "with_warning": d.with_warning, "with_missing": d.with_missing}
                    for d in scores.dropped],
        "notes": [{"text": n.text, "levels": list(n.levels)} for n in scores.notes],
        "rows": rows,
    }


CSV_COLUMNS = ("pair", "level", "category", "phenomenon", "system", "passes", "items",
               "located", "accuracy", "first_cluster", "p_value", "p_adjusted", "p_mc_error",
               "lower", "upper", "ci_low", "ci_high", "cluster", "rank_best", "rank_worst",
               "signature")


def scores_csv(scores_list: list[Scores]) -> str:
    """One CSV line per (pair, row, system), with the signature of its scores.

    Names that a spreadsheet would run as a formula are neutralised (`escape.csv_cell`).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for scores in scores_list:
        document = scores_json(scores)
        for row in document["rows"]:
            for system, entry in row["systems"].items():
                writer.writerow(escape.csv_cell(value) for value in [
                    scores.pair, row["level"], row["category"] or "", row["phenomenon"] or "",
                    system, entry["passes"], row["items"], row["located"],
                    repr(entry["accuracy"]), entry["first_cluster"],
                    *("" if entry.get(k) is None else repr(entry[k])
                      for k in ("p_value", "p_adjusted", "p_mc_error", "lower", "upper",
                                "ci_low", "ci_high")),
                    *(entry.get(k, "") for k in ("cluster", "rank_best", "rank_worst")),
                    document["signature"]])
    return buffer.getvalue()


def render(scores_list: list[Scores], kind: str, which: str = "both") -> str:
    """The report of one or more pairs in a file format (csv, json, markdown, latex).

    `which` chooses the paper tables (``categories``, ``phenomena`` or ``both``) of every
    format: CSV and JSON keep the rows of the levels those tables show.
    """
    if which not in WHICH:
        raise ValueError(f"which must be one of {', '.join(WHICH)}")
    if kind in ("json", "csv"):
        scores_list = [_only(s, which) for s in scores_list]
    if kind == "json":
        documents = [scores_json(s) for s in scores_list]
        return escape.json_text(documents[0] if len(documents) == 1 else documents,
                                indent=2) + "\n"
    if kind == "csv":
        return scores_csv(scores_list)
    tables = [t for s in scores_list for t in paper_tables(s, which)]
    return render_tables(tables, kind)


def _only(scores: Scores, which: str) -> Scores:
    """The scores with only the rows of the chosen tables' levels."""

    levels = {"categories": ("category", "micro", "category-macro"),
              "phenomena": ("category", "phenomenon", "micro", "phenomenon-macro"),
              "both": LEVELS}[which]
    return replace(scores, table_rows=[r for r in scores.table_rows if r.level in levels])


__all__ = ["FORMATS", "percent", "render", "render_tables", "scores_csv", "scores_json"]
