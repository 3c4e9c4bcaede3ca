"""The paper-style tables of a score report, independent of how they are drawn.

Like the WMT test-suite papers: one column per system (best first), one row per category or
phenomenon with its item count, the first performance cluster in bold, an average column,
and the averages at the bottom. In the phenomenon table each category's phenomena are
grouped under a (shaded) category row. Renderers (terminal, Markdown, LaTeX, HTML) draw a
`PaperTable`; they compute nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..scores import Scores

RowKind = Literal["category", "phenomenon", "average"]
AVERAGE_LABELS = {"micro": "micro-average", "category-macro": "category macro-average",
                  "phenomenon-macro": "phenomenon macro-average"}


@dataclass(frozen=True)
class Cell:
    """One accuracy of one system in one row (None when the row has no value)."""

    accuracy: float | None
    bold: bool = False
    lower: float | None = None
    upper: float | None = None


@dataclass(frozen=True)
class Row:
    """A row: its label, kind, item count, one cell per system and the mean over systems."""

    label: str
    kind: RowKind
    items: int
    cells: tuple[Cell, ...]
    average: float | None


@dataclass(frozen=True)
class PaperTable:
    """A whole table with what must be printed around it."""

    title: str
    pair: str
    systems: tuple[str, ...]
    rows: tuple[Row, ...]
    signature: str
    note: str
    fair: bool


def _row(scores: Scores, level: str, category: str, phenomenon: str, label: str,
         kind: RowKind) -> Row | None:
    table = scores.table
    part = table[(table["level"] == level) & (table["category"] == category)
                 & (table["phenomenon"] == phenomenon)].set_index("system")
    if part.empty:
        return None
    records = part.to_dict("index")
    cells = tuple(Cell(float(records[s]["accuracy"]), bool(records[s]["first_cluster"]),
                       _number(records[s]["lower"]), _number(records[s]["upper"]))
                  for s in scores.systems)
    values = [c.accuracy for c in cells if c.accuracy is not None]
    return Row(label, kind, int(part["items"].iloc[0]), cells,
               sum(values) / len(values) if values else None)


def _number(value: Any) -> float | None:
    number = float(value)
    return None if number != number else number  # NaN → None


def _averages(scores: Scores, levels: tuple[str, ...]) -> list[Row]:
    rows = [_row(scores, level, "", "", AVERAGE_LABELS[level], "average") for level in levels]
    return [r for r in rows if r is not None]


def _frame(scores: Scores, title: str, rows: list[Row]) -> PaperTable:
    note = str(scores.coverage)
    if not scores.options.fair:
        note += "; WITHOUT the fairness rule: warnings and missing outputs count as not passed"
    return PaperTable(title, scores.pair, tuple(scores.systems), tuple(rows), scores.signature,
                      note, scores.options.fair)


def category_table(scores: Scores) -> PaperTable:
    """Accuracy per category, then the micro- and category macro-average."""
    categories = scores.table.loc[scores.table["level"] == "category", "category"]
    rows = [_row(scores, "category", c, "", c, "category") for c in dict.fromkeys(categories)]
    rows_kept = [r for r in rows if r is not None]
    rows_kept += _averages(scores, ("micro", "category-macro"))
    return _frame(scores, f"Accuracy per category ({scores.pair})", rows_kept)


def phenomenon_table(scores: Scores) -> PaperTable:
    """Accuracy per phenomenon under a category row, then the averages."""
    table = scores.table
    phenomena = table.loc[table["level"] == "phenomenon", ["category", "phenomenon"]]
    rows: list[Row | None] = []
    for category in dict.fromkeys(phenomena["category"]):
        rows.append(_row(scores, "category", category, "", category, "category"))
        for phenomenon in dict.fromkeys(phenomena.loc[phenomena["category"] == category,
                                                      "phenomenon"]):
            rows.append(_row(scores, "phenomenon", category, phenomenon, phenomenon,
                             "phenomenon"))
    kept = [r for r in rows if r is not None]
    kept += _averages(scores, ("micro", "phenomenon-macro"))
    return _frame(scores, f"Accuracy per phenomenon ({scores.pair})", kept)


def split_table(table: PaperTable, max_rows: int = 48) -> list[PaperTable]:
    """Split a tall table into page-sized parts at category boundaries (for LaTeX).

    Each part keeps whole categories (a category taller than `max_rows` gets a part of its
    own); the averages stay at the end of the last part. A table that fits is returned as is.
    """
    if len(table.rows) <= max_rows:
        return [table]
    body = [r for r in table.rows if r.kind != "average"]
    averages = [r for r in table.rows if r.kind == "average"]
    groups: list[list[Row]] = []
    for row in body:
        if row.kind == "category" or not groups:
            groups.append([])
        groups[-1].append(row)
    parts: list[list[Row]] = [[]]
    for group in groups:
        if parts[-1] and len(parts[-1]) + len(group) > max_rows:
            parts.append([])
        parts[-1].extend(group)
    parts[-1].extend(averages)
    return [replace(table, title=f"{table.title}, part {n} of {len(parts)}", rows=tuple(rows))
            for n, rows in enumerate(parts, start=1)]


def paper_tables(scores: Scores, which: str = "both") -> list[PaperTable]:
    """The tables asked for: ``categories``, ``phenomena`` or ``both``."""
    tables = []
    if which in ("categories", "both"):
        tables.append(category_table(scores))
    if which in ("phenomena", "both"):
        tables.append(phenomenon_table(scores))
    return tables
