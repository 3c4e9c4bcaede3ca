"""Renderers of year-over-year comparisons: terminal, CSV, JSON and LaTeX."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .render import percent, tex_escape
from .terminal import column_blocks

if TYPE_CHECKING:
    from ..compare import Comparison

LABELS = {"micro": "micro-average", "category-macro": "category macro-average",
          "phenomenon-macro": "phenomenon macro-average"}


def _rows(comparison: Comparison) -> list[tuple[str, str, str]]:
    """(level, category, label) of each table row, categories first."""
    table = comparison.table
    categories = list(dict.fromkeys(table.loc[table["level"] == "category", "category"]))
    return ([("category", c, c) for c in categories]
            + [(level, "", LABELS[level]) for level in LABELS])


def _cells(comparison: Comparison) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    return {(str(r["level"]), str(r["category"]), str(r["system"]), str(r["run"])):
            {str(k): v for k, v in r.items()} for r in comparison.table.to_dict("records")}


def _mark(record: dict[str, Any]) -> str:
    """▲/▼ for a significant change, nothing otherwise."""
    if not record.get("significant"):
        return ""
    return "▲" if record["delta"] > 0 else "▼"


def print_comparison(comparison: Comparison, console: Console, regressions: int = 0) -> None:
    """Accuracy per run and system, significant changes marked; best systems; changes."""
    cells = _cells(comparison)
    runs = comparison.runs
    widths = [len(runs) * 8 + 3 for _ in comparison.systems]
    label_width = 30
    blocks = column_blocks(widths, console.width - label_width - 3 - 7 - 1)
    title = f"Year over year ({comparison.pair}): {' → '.join(runs)}"
    for block in blocks:
        grid = Table(title=title, title_justify="left", header_style="bold")
        grid.add_column("", no_wrap=True, max_width=label_width, overflow="ellipsis")
        grid.add_column("#", justify="right", style="dim", no_wrap=True, min_width=4)
        for index in block:
            system = comparison.systems[index]
            for run in runs:
                grid.add_column(f"{escape(system)}\n{escape(run)}", justify="right",
                                no_wrap=True)
        rows = _rows(comparison)
        for position, (level, category, label) in enumerate(rows):
            values = []
            items = 0
            for index in block:
                for run in runs:
                    record = cells[(level, category, comparison.systems[index], run)]
                    items = record["items"]
                    text = percent(record["accuracy"]) + _mark(record)
                    values.append(f"[bold]{text}[/]" if _mark(record) else text)
            last_category = level == "category" and position + 1 < len(rows) and \
                rows[position + 1][0] != "category"
            grid.add_row(escape(label), str(items), *values,
                         style="italic" if level != "category" else None,
                         end_section=last_category)
        console.print(grid)
    console.print("▲/▼: significant change from the previous run "
                  f"(two-sided, {escape(comparison.signature.get('test') or '')} test, "
                  f"α = {escape(comparison.signature.get('alpha') or '')}).")
    best = Table(title="Best system of each run against the best of the earlier runs",
                 title_justify="left")
    for column in ("run", "best system", "accuracy", "earlier best", "change", "p"):
        best.add_column(column, justify="left" if column in ("run", "best system",
                                                              "earlier best") else "right")
    for row in comparison.best.to_dict("records"):
        earlier = ("–" if row["previous_run"] is None or _nan(row["previous_run"])
                   else f"{row['previous_system']} ({row['previous_run']})")
        delta = "–" if row["delta"] is None or _nan(row["delta"]) else \
            f"{100 * row['delta']:+.1f}{' *' if row['significant'] else ''}"
        p = "–" if row["p_value"] is None or _nan(row["p_value"]) else f"{row['p_value']:.3g}"
        best.add_row(escape(row["run"]), escape(row["system"]), percent(row["accuracy"]),
                     escape(earlier), delta, p)
    console.print(best)
    changes = comparison.changes
    summary = Table(title="Items that changed outcome", title_justify="left")
    for column in ("system", "from → to", "regressed (pass → fail)", "improved (fail → pass)"):
        summary.add_column(column, justify="right" if "(" in column else "left")
    for (who, before, after), part in changes.groupby(["system", "from_run", "to_run"],
                                                      sort=False):
        counts = part["change"].value_counts()
        summary.add_row(escape(str(who)), f"{before} → {after}",
                        str(counts.get("regressed", 0)), str(counts.get("improved", 0)))
    console.print(summary)
    if regressions:
        for who, part in changes[changes["change"] == "regressed"].groupby("system",
                                                                            sort=False):
            listing = Table(title=f"{who!s}: regressions (first {regressions})",
                            title_justify="left")
            for column in ("item", "phenomenon", "before", "after"):
                listing.add_column(column, overflow="fold")
            for row in part.head(regressions).to_dict("records"):
                listing.add_row(escape(row["item"]), escape(row["phenomenon"]),
                                escape(str(row["before"])), escape(str(row["after"])))
            console.print(listing)
    for note in comparison.notes:
        console.print(f"note: {escape(note)}")
    console.print(f"[dim]{escape(str(comparison.signature))}[/]")


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _clean(value: Any) -> Any:
    return None if _nan(value) else value


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as plain data."""
    def records(frame: Any) -> list[dict[str, Any]]:
        return [{k: _clean(v) for k, v in r.items()} for r in frame.to_dict("records")]

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
    env.filters["mark"] = lambda r: (r"$^{\uparrow}$" if r.get("significant") and r["delta"] > 0
                                     else r"$^{\downarrow}$" if r.get("significant") else "")
    template = env.get_template("compare.tex.j2")
    return template.render(c=comparison, rows=_rows(comparison), cells=_cells(comparison),
                           tex=tex_escape)


def render_comparison(comparison: Comparison, kind: str) -> str:
    """A comparison as csv, json or latex text."""
    if kind == "json":
        return json.dumps(comparison_json(comparison), indent=2, ensure_ascii=False) + "\n"
    if kind == "csv":
        return str(comparison.table.to_csv(index=False))
    if kind == "latex":
        return comparison_latex(comparison)
    raise ValueError(f"unknown format {kind!r}")
