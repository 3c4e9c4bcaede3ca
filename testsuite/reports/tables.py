"""The paper-style tables of a score report, independent of how they are drawn.

Like the WMT test-suite papers: one column per system (best first), one row per category or
phenomenon with its item count, the first performance cluster in bold, an average column,
and the averages at the bottom. In the phenomenon table each category's phenomena are
grouped under a (shaded) category row. Renderers (terminal, Markdown, LaTeX, HTML) draw a
`PaperTable`; they compute nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..scoring import ScoreRow, Scores
    from ..scoring.signature import Signature

from .common import AVERAGE_LABELS, finite

RowKind = Literal["category", "phenomenon", "average"]


@dataclass(frozen=True)
class Cell:
    """One system's value in one row (accuracy None when the row has no value).

    Attributes:
        accuracy: The accuracy.
        bold: In the row's first performance cluster.
        lower, upper: Bounds while warnings are open.
        ci_low, ci_high: 95 % confidence interval.
        p_value: One-tailed p-value of the best system against this one (None for the best).
        p_adjusted: The same, adjusted for the correction in effect (None without one): the
            p-value that decides the first cluster.
        p_mc_error: Monte Carlo standard error of `p_value` (bootstrap rows only).
        cluster: Full cluster number, if computed.
        ranks: (best, worst) rank, if computed.
    """

    accuracy: float | None
    bold: bool = False
    lower: float | None = None
    upper: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    cluster: int | None = None
    ranks: tuple[int, int] | None = None
    p_adjusted: float | None = None
    p_mc_error: float | None = None


@dataclass(frozen=True)
class Row:
    """A row: its label, kind, item count, one cell per system and the mean over systems.

    ``dropped`` says why a row has no values (none of its items entered the scores).
    """

    label: str
    kind: RowKind
    items: int
    cells: tuple[Cell, ...]
    average: float | None
    category: str = ""
    phenomenon: str = ""
    located: int = 0
    dropped: str = ""


@dataclass(frozen=True)
class PaperTable:
    """A whole table with what must be printed around it.

    Attributes:
        notes: Sentences every rendering shows under the table (coverage first).
        clusters: Whether the cells carry full clusters and rank ranges.
        levels: The row levels the table shows (`scoring.Note.concerns` says which notes
            are about its rows).
        general: The notes (of `notes`) on the whole report rather than on some rows:
            a rendering of several tables may show them once.
    """

    title: str
    pair: str
    systems: tuple[str, ...]
    rows: tuple[Row, ...]
    signature: Signature
    notes: tuple[str, ...]
    fair: bool
    clusters: bool = False
    levels: tuple[str, ...] = ()
    general: tuple[str, ...] = ()

    @property
    def row_notes(self) -> tuple[str, ...]:
        """The notes on the table's own rows: `notes` less the `general` ones (what a
        rendering of several tables shows under each of them)."""
        return tuple(note for note in self.notes if note not in self.general)


def _row(scores: Scores, row: ScoreRow, label: str, kind: RowKind) -> Row:
    ranks = (row.rank_best, row.rank_worst)
    cells = tuple(Cell(
        float(row.accuracy[i]), bool(row.first_cluster[i]), finite(row.lower[i]),
        finite(row.upper[i]), finite(row.ci_low[i]), finite(row.ci_high[i]),
        finite(row.p_value[i]), None if row.cluster is None else int(row.cluster[i]),
        None if ranks[0] is None or ranks[1] is None else (int(ranks[0][i]), int(ranks[1][i])),
        None if row.p_adjusted is None else finite(row.p_adjusted[i]),
        None if row.p_mc_error is None else finite(row.p_mc_error[i]))
        for i in range(len(scores.systems)))
    return Row(label, kind, row.items, cells, float(row.accuracy.mean()), row.category,
               row.phenomenon, row.located)


def _dropped(scores: Scores, level: str, category: str, phenomenon: str, label: str,
             kind: RowKind) -> Row | None:
    for dropped in scores.dropped:
        if (dropped.level, dropped.category, dropped.phenomenon) == (level, category,
                                                                     phenomenon):
            cells = tuple(Cell(None) for _ in scores.systems)
            return Row(label, kind, 0, cells, None, category, phenomenon, dropped.located,
                       str(dropped))
    return None


def _averages(scores: Scores, levels: tuple[str, ...]) -> list[Row]:
    return [_row(scores, row, AVERAGE_LABELS[level], "average") for level in levels
            for row in scores.level(level)]


def _frame(scores: Scores, title: str, rows: list[Row], levels: tuple[str, ...]
           ) -> PaperTable:
    notes = (str(scores.coverage), *(str(n) for n in scores.notes if n.concerns(levels)))
    general = (str(scores.coverage), *(str(n) for n in scores.notes if not n.levels))
    return PaperTable(title, scores.pair, tuple(scores.systems), tuple(rows), scores.signature,
                      notes, scores.options.fair, scores.options.clusters, levels, general)


def _categories(scores: Scores) -> list[str]:
    """Categories in suite order, scored or dropped."""
    return list(dict.fromkeys(scores.matrix.categories))


def _row_or_dropped(scores: Scores, level: str, category: str, phenomenon: str, label: str,
                    kind: RowKind) -> Row | None:
    found = scores.row(level, category, phenomenon)
    if found is not None:
        return _row(scores, found, label, kind)
    return _dropped(scores, level, category, phenomenon, label, kind)


def category_table(scores: Scores) -> PaperTable:
    """Accuracy per category, then the micro- and category macro-average."""
    rows = [_row_or_dropped(scores, "category", c, "", c, "category")
            for c in _categories(scores)]
    kept = [r for r in rows if r is not None]
    kept += _averages(scores, ("micro", "category-macro"))
    return _frame(scores, f"Accuracy per category ({scores.pair})", kept,
                  ("category", "micro", "category-macro"))


def phenomenon_table(scores: Scores) -> PaperTable:
    """Accuracy per phenomenon under a category row, then the averages."""
    matrix = scores.matrix
    phenomena = list(dict.fromkeys(zip(matrix.categories, matrix.phenomena, strict=True)))
    rows: list[Row | None] = []
    for category in _categories(scores):
        rows.append(_row_or_dropped(scores, "category", category, "", category, "category"))
        for of, phenomenon in phenomena:
            if of == category:
                rows.append(_row_or_dropped(scores, "phenomenon", category, phenomenon,
                                            phenomenon, "phenomenon"))
    kept = [r for r in rows if r is not None]
    kept += _averages(scores, ("micro", "phenomenon-macro"))
    return _frame(scores, f"Accuracy per phenomenon ({scores.pair})", kept,
                  ("category", "phenomenon", "micro", "phenomenon-macro"))


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
