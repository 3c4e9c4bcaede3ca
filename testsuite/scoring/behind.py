"""The items behind a number of the tables, and why the others of its row were left out.

One definition for every report that lets a reader open a number (the HTML report's
heatmap cells, row names, chart dots, paper-table cells and menu counts): the items behind
a row's number are the row's located items that **entered the scores** (`Scores.entered`:
the fairness rule and the filters, exactly as scoring applied them). They give the row's
``#``, and a system's passes among them give its passes and accuracy. Average rows stand on
every item that entered. The row's other located items were left out; `left_out_reasons`
says why, per item, in words (the systems with a warning or no output for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .matrix import MISSING, WARNING

if TYPE_CHECKING:
    from .scores import Scores

#: Row levels that stand on every item that entered (no category or phenomenon filter).
WHOLE = ("micro", "category-macro", "phenomenon-macro")


@dataclass(frozen=True)
class ItemsBehind:
    """The items behind one row of the tables.

    Attributes:
        level: The row's level (`scoring.LEVELS`).
        category: The row's category ("" for averages).
        phenomenon: The row's phenomenon ("" unless a phenomenon row).
        scored: Ids of the row's items that entered the scores, in suite order.
        passes: Per system (in `Scores.systems` order), passes among `scored`.
        left_out: (id, why) of the row's located items that did not enter.
    """

    level: str
    category: str
    phenomenon: str
    scored: tuple[str, ...]
    passes: tuple[int, ...]
    left_out: tuple[tuple[str, str], ...]


def row_members(scores: Scores, level: str, category: str = "", phenomenon: str = ""
                ) -> np.ndarray:
    """Which located items (rows of `Scores.matrix`) belong to a row, scored or not."""
    matrix = scores.matrix
    if level in WHOLE:
        return np.ones(len(matrix.items), dtype=bool)
    if level == "category":
        return np.asarray(np.asarray(matrix.categories, dtype=object) == category, dtype=bool)
    if level == "phenomenon":
        return np.asarray((np.asarray(matrix.categories, dtype=object) == category)
                          & (np.asarray(matrix.phenomena, dtype=object) == phenomenon),
                          dtype=bool)
    raise ValueError(f"no rows at level {level!r}")


def passed_among(scores: Scores, mask: np.ndarray) -> np.ndarray:
    """Items × systems: True where the system passed, for the items where `mask` is true
    (rows of `Scores.matrix`), systems in `Scores.systems` order (best first)."""
    matrix = scores.matrix
    order = [matrix.systems.index(s) for s in scores.systems]
    return np.asarray(matrix.passed[mask][:, order])


def items_behind(scores: Scores, level: str, category: str = "", phenomenon: str = ""
                 ) -> ItemsBehind:
    """The items behind a row's numbers: those of the row that entered the scores.

    Raises:
        ValueError: for an unknown level.
    """
    matrix = scores.matrix
    members = row_members(scores, level, category, phenomenon)
    scored = members & scores.entered
    passes = passed_among(scores, scored).sum(axis=0)
    reasons = left_out_reasons(scores, members)
    return ItemsBehind(
        level, category, phenomenon,
        tuple(i for i, keep in zip(matrix.items, scored, strict=True) if keep),
        tuple(int(n) for n in passes),
        tuple((i, reasons[i]) for i, member, keep in zip(matrix.items, members, scored,
                                                         strict=True) if member and not keep))


def scored_ids(scores: Scores) -> set[str]:
    """Every item that entered the scores: behind the averages, and behind its own rows."""
    return {item for item, keep in zip(scores.matrix.items, scores.entered.tolist(),
                                       strict=True) if keep}


def left_out_reasons(scores: Scores, among: np.ndarray | None = None) -> dict[str, str]:
    """Why each located item that did not enter the scores was left out, in words.

    Under the fairness rule: the systems with a warning for it and those with no (or an
    empty) output, e.g. ``warning for Online-A, SMU; no output from UEdin``. Items that
    entered have no entry; with `among` (a mask of `Scores.matrix`'s items), only those.
    """
    matrix = scores.matrix
    if not scores.options.fair:  # every located item entered
        return {}
    warning, missing = matrix.has(WARNING), matrix.has(MISSING)
    reasons: dict[str, str] = {}
    left = ~scores.entered if among is None else ~scores.entered & among
    for index in np.flatnonzero(left):
        parts = []
        for codes, what in ((warning[index], "warning for "), (missing[index], "no output from ")):
            names = [s for s, hit in zip(matrix.systems, codes, strict=True) if hit]
            if names:
                parts.append(what + ", ".join(names))
        reasons[matrix.items[index]] = "; ".join(parts)
    return reasons


__all__ = ["WHOLE", "ItemsBehind", "items_behind", "left_out_reasons", "passed_among",
           "row_members", "scored_ids"]
