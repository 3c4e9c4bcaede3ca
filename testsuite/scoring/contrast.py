"""The contrast of two systems, row by row: on the items behind each row of the tables.

For two systems A and B and each category and phenomenon row (and all categories): the
items that entered the scores (`behind.items_behind`), those A passes and B fails and the
reverse, the difference in accuracy (A − B) and the exact McNemar test of it, two-sided
(`stats.mcnemar_pvalues`: after the fairness rule both systems have an outcome on the same
items, so the paired test applies; only the items on which they differ count).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..stats import mcnemar_pvalues, two_sided
from .behind import passed_among, row_members

if TYPE_CHECKING:
    import numpy.typing as npt

    from .scores import Scores


@dataclass(frozen=True)
class ContrastRow:
    """One row of a contrast of A and B.

    Attributes:
        level: ``all`` (every item that entered), ``category`` or ``phenomenon``.
        category, phenomenon: The row's names ("" where none).
        items: Items behind the row (entered the scores).
        a_only: Items A passes and B fails.
        b_only: Items A fails and B passes.
        difference: Accuracy of A minus accuracy of B (a fraction; NaN without items).
        p_value: Exact McNemar test, two-sided (1 when they never differ).
    """

    level: str
    category: str
    phenomenon: str
    items: int
    a_only: int
    b_only: int
    difference: float
    p_value: float


def row_keys(scores: Scores) -> list[tuple[str, str, str]]:
    """(level, category, phenomenon) of the contrast's rows: all items, then each category
    followed by its phenomena, in suite order (rows with no item that entered included)."""
    matrix = scores.matrix
    keys: list[tuple[str, str, str]] = [("all", "", "")]
    pairs = list(dict.fromkeys(zip(matrix.categories, matrix.phenomena, strict=True)))
    for category in dict.fromkeys(matrix.categories):
        keys.append(("category", category, ""))
        keys += [("phenomenon", category, p) for c, p in pairs if c == category]
    return keys


def _passed(scores: Scores, level: str, category: str, phenomenon: str
            ) -> npt.NDArray[np.bool_]:
    """Items × systems (in `Scores.systems` order) passes over the items behind a row."""
    return passed_among(scores, scores.entered & row_members(
        scores, "micro" if level == "all" else level, category, phenomenon))


def pvalue_matrices(scores: Scores) -> list[npt.NDArray[np.float64]]:
    """Per row of `row_keys`: the systems × systems two-sided McNemar p-values (systems in
    `Scores.systems` order) on the items behind the row; all 1 for a row without items."""
    matrices = []
    for key in row_keys(scores):
        passed = _passed(scores, *key)
        if passed.shape[0] == 0:
            matrices.append(np.ones((passed.shape[1],) * 2))
        else:
            matrices.append(two_sided(mcnemar_pvalues(passed)))
    return matrices


def contrast(scores: Scores, a: str, b: str) -> list[ContrastRow]:
    """A against B on every row of `row_keys`.

    Raises:
        ValueError: when A or B is not a scored system, or A is B.
    """
    if a not in scores.systems or b not in scores.systems or a == b:
        raise ValueError(f"contrast needs two different scored systems, not {a!r} and {b!r}")
    i, j = scores.systems.index(a), scores.systems.index(b)
    rows = []
    for key in row_keys(scores):
        passed = _passed(scores, *key)
        n = passed.shape[0]
        a_only = int((passed[:, i] & ~passed[:, j]).sum())
        b_only = int((~passed[:, i] & passed[:, j]).sum())
        p = float(two_sided(mcnemar_pvalues(passed[:, [i, j]]))[0, 1]) if n else 1.0
        rows.append(ContrastRow(*key, n, a_only, b_only,
                                (a_only - b_only) / n if n else float("nan"), p))
    return rows


__all__ = ["ContrastRow", "contrast", "pvalue_matrices", "row_keys"]
