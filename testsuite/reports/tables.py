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
    """One accuracy of one system in one row (None when the row has no value).

    Besides what the paper prints (accuracy, bold), a cell carries what the scores know
    about it for renderers that can show more (the HTML tooltips): passes, the bounds of
    open warnings, the 95 % interval of the accuracy, the p-value of the row's best against
    this system and the rank range. Each is None when the scores do not have it.
    """

    accuracy: float | None
    bold: bool = False
    lower: float | None = None
    upper: float | None = None
    passes: int | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    rank_best: int | None = None
    rank_worst: int | None = None


@dataclass(frozen=True)
class Row:
    """A row: its label, kind, item count, one cell per system and the mean over systems.

    ``located`` counts the row's items located before the fairness rule (None when the
    scores do not say), so ``located - items`` items were left out by it.
    """

    label: str
    kind: RowKind
    items: int
    cells: tuple[Cell, ...]
    average: float | None
    located: int | None = None


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


#: Records of the score table by (level, category, phenomenon), then by system.
Index = dict[tuple[str, str, str], dict[str, dict[str, Any]]]


def _index(scores: Scores) -> Index:
    """The score table's records grouped by row, read once per table (not once per row)."""
    index: Index = {}
    records: list[dict[str, Any]] = scores.table.to_dict("records")  # type: ignore[assignment]
    for record in records:
        key = (str(record["level"]), str(record["category"]), str(record["phenomenon"]))
        index.setdefault(key, {})[str(record["system"])] = record
    return index


def _row(scores: Scores, index: Index, level: str, category: str, phenomenon: str,
         label: str, kind: RowKind) -> Row | None:
    records = index.get((level, category, phenomenon))
    if not records:
        return None
    cells = tuple(_cell(records[s]) if s in records else Cell(None) for s in scores.systems)
    values = [c.accuracy for c in cells if c.accuracy is not None]
    first = next(iter(records.values()))
    located = _integer(first.get("located"))
    return Row(label, kind, int(first["items"]), cells,
               sum(values) / len(values) if values else None, located)


def _cell(record: dict[str, Any]) -> Cell:
    return Cell(float(record["accuracy"]), bool(record["first_cluster"]),
                _number(record.get("lower")), _number(record.get("upper")),
                _integer(record.get("passes")), _number(record.get("ci_low")),
                _number(record.get("ci_high")), _number(record.get("p_value")),
                _integer(record.get("rank_best")), _integer(record.get("rank_worst")))


def _number(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return None if number != number else number  # NaN → None


def _integer(value: Any) -> int | None:
    number = _number(value)
    return None if number is None else int(number)


def _averages(scores: Scores, index: Index, levels: tuple[str, ...]) -> list[Row]:
    rows = [_row(scores, index, level, "", "", AVERAGE_LABELS[level], "average")
            for level in levels]
    return [r for r in rows if r is not None]


def _frame(scores: Scores, title: str, rows: list[Row]) -> PaperTable:
    note = str(scores.coverage)
    if not scores.options.fair:
        note += "; WITHOUT the fairness rule: warnings and missing outputs count as not passed"
    return PaperTable(title, scores.pair, tuple(scores.systems), tuple(rows), scores.signature,
                      note, scores.options.fair)


def category_table(scores: Scores) -> PaperTable:
    """Accuracy per category, then the micro- and category macro-average."""
    index = _index(scores)
    categories = [category for level, category, _ in index if level == "category"]
    rows = [_row(scores, index, "category", c, "", c, "category") for c in categories]
    rows_kept = [r for r in rows if r is not None]
    rows_kept += _averages(scores, index, ("micro", "category-macro"))
    return _frame(scores, f"Accuracy per category ({scores.pair})", rows_kept)


def phenomenon_table(scores: Scores) -> PaperTable:
    """Accuracy per phenomenon under a category row, then the averages."""
    index = _index(scores)
    phenomena: dict[str, list[str]] = {}
    for level, category, phenomenon in index:
        if level == "phenomenon":
            phenomena.setdefault(category, []).append(phenomenon)
    rows: list[Row | None] = []
    for category, names in phenomena.items():
        rows.append(_row(scores, index, "category", category, "", category, "category"))
        rows += [_row(scores, index, "phenomenon", category, phenomenon, phenomenon,
                      "phenomenon") for phenomenon in names]
    kept = [r for r in rows if r is not None]
    kept += _averages(scores, index, ("micro", "phenomenon-macro"))
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
