"""Performance clusters, rank ranges and multiple-comparison corrections on p-value matrices.

Systems are positions 0 … S−1; ``scores`` has one score per system and ``pvalues`` is a
matrix of one-tailed p-values, ``P[i, j]`` for H1 "system *i* is better than *j*"
(`testsuite.stats.pvalues`). Nothing here depends on which test made the matrix.

* `first_cluster` — the published definition (bold in the DFKI tables): the best system and
  every system not significantly worse than it.
* `clusters` — WMT-style clusters: every system of a cluster is significantly better than
  every system of every lower cluster.
* `rank_ranges` — best and worst possible rank from head-to-head tests.
* `correct` — Holm, Bonferroni or Benjamini–Hochberg over a family of comparisons.

Results never depend on the order in which systems are given: systems are ranked by score,
ties by position in a fixed order supplied by the caller (names), and tied systems are never
separated.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from ..values import probability

#: Multiple-comparison corrections, named as in `statsmodels.stats.multitest.multipletests`.
Correction = Literal["holm", "bonferroni", "fdr_bh"]
CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni", "fdr_bh")


def correct(pvalues: npt.ArrayLike, method: Correction | None = None
            ) -> npt.NDArray[np.float64]:
    """Adjust a family of p-values for multiple comparisons.

    Args:
        pvalues: One p-value per comparison.
        method: ``holm`` (step-down; controls the family-wise error rate, never less powerful
            than Bonferroni), ``bonferroni``, ``fdr_bh`` (Benjamini–Hochberg; controls the
            false discovery rate), or None — the published evaluation uses none. The values
            equal those of ``statsmodels.stats.multitest.multipletests`` (tests cross-check).

    Returns:
        Adjusted p-values in the input order, each ≥ its raw value and ≤ 1.

    Raises:
        ValueError: Unknown method, or values outside [0, 1].
    """
    p = np.array(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("p-values must be a one-dimensional sequence")
    if not np.all((p >= 0.0) & (p <= 1.0)):  # also rejects NaN
        raise ValueError("p-values must lie in [0, 1]")
    if method is not None and method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; use one of {', '.join(CORRECTIONS)}")
    m = p.size
    if method is None or m == 0:
        return p
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty_like(p)
    if method == "holm":  # max over j ≤ i of (m − j + 1) p₍ⱼ₎
        steps = np.arange(m, 0, -1, dtype=np.float64)
        adjusted[order] = np.minimum(np.maximum.accumulate(p[order] * steps), 1.0)
    else:  # fdr_bh: min over j ≥ i of m p₍ⱼ₎ / j
        ranks = np.arange(1, m + 1, dtype=np.float64)
        scaled = p[order] * m / ranks
        adjusted[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return adjusted


def _check(scores: npt.ArrayLike, pvalues: npt.ArrayLike, alpha: float
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    probability(alpha, "alpha")
    s = np.asarray(scores, dtype=np.float64)
    p = np.asarray(pvalues, dtype=np.float64)
    if s.ndim != 1 or p.shape != (s.size, s.size):
        raise ValueError("need one score per system and a systems × systems p-value matrix")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite numbers")
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError("p-values must lie in [0, 1]")
    return s, p


def ranked(scores: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """Positions by descending score; ties keep their given order (stable)."""
    s = np.asarray(scores, dtype=np.float64)
    return np.argsort(-s, kind="stable")


def _significant(pairs: list[tuple[int, int]], p: npt.NDArray[np.float64], alpha: float,
                 correction: Correction | None) -> set[tuple[int, int]]:
    """The (better, worse) pairs whose (corrected) p-value is below alpha."""
    family = sorted(pairs)  # a fixed order, so results never depend on the input order
    adjusted = correct([p[i, j] for i, j in family], correction)
    return {pair for pair, value in zip(family, adjusted, strict=True) if value < alpha}


def first_cluster(scores: npt.ArrayLike, pvalues: npt.ArrayLike, *, alpha: float = 0.05,
                  correction: Correction | None = None) -> npt.NDArray[np.bool_]:
    """The first performance cluster: the best system and every one not significantly worse.

    All systems tied for the highest score are best; a system is left out only if it is
    significantly worse than *each* of them, so the result does not depend on which tied
    system one calls the best. The family for `correction` is the best-against-other
    comparisons. Significance is not transitive: the first cluster may keep a system and
    leave out a higher-scoring one (scored on more items, or — with the paired McNemar
    test — one whose wins over the best are fewer), and it may differ from `clusters`' first.

    Returns:
        A boolean mask over the systems.
    """
    s, p = _check(scores, pvalues, alpha)
    mask = np.zeros(s.size, dtype=bool)
    if s.size == 0:
        return mask
    top = s.max()
    best = np.flatnonzero(s == top)
    others = np.flatnonzero(s != top)
    significant = _significant([(int(b), int(o)) for b in best for o in others], p, alpha,
                               correction)
    mask[:] = True
    for other in others:
        if all((int(b), int(other)) in significant for b in best):
            mask[other] = False
    return mask


def _ordered_pairs(order: npt.NDArray[np.intp], s: npt.NDArray[np.float64]
                   ) -> list[tuple[int, int]]:
    """All (higher, lower) pairs with strictly different scores; ties are not tested."""
    return [(int(hi), int(lo)) for k, hi in enumerate(order) for lo in order[k + 1:]
            if s[hi] > s[lo]]


def clusters(scores: npt.ArrayLike, pvalues: npt.ArrayLike, *, alpha: float = 0.05,
             correction: Correction | None = None) -> npt.NDArray[np.int64]:
    """WMT-style clusters: a boundary lies where everything above beats everything below.

    Order the systems by score. A boundary lies between positions k and k + 1 if and only if
    every system above it is significantly better than every system below it; the clusters
    are the runs between boundaries. Every pair with different scores is tested once,
    higher-scoring first: that is the family for `correction`.

    Returns:
        The cluster number of each system, 1 for the best cluster.
    """
    s, p = _check(scores, pvalues, alpha)
    order = ranked(s)
    significant = _significant(_ordered_pairs(order, s), p, alpha, correction)
    number = np.zeros(s.size, dtype=np.int64)
    current = 0
    for position, system in enumerate(order):
        boundary = position > 0 and all((int(above), int(below)) in significant
                                        for above in order[:position]
                                        for below in order[position:])
        if position == 0 or boundary:
            current += 1
        number[system] = current
    return number


def rank_ranges(scores: npt.ArrayLike, pvalues: npt.ArrayLike, *, alpha: float = 0.05,
                correction: Correction | None = None
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Best and worst possible rank of every system from head-to-head tests (WMT style).

    Best rank = 1 + the systems significantly better; worst rank = S − the systems it is
    significantly better than. Tests and correction family as in `clusters`.

    Returns:
        (best ranks, worst ranks), 1-based, one per system.
    """
    s, p = _check(scores, pvalues, alpha)
    significant = _significant(_ordered_pairs(ranked(s), s), p, alpha, correction)
    beaten = np.zeros(s.size, dtype=np.int64)
    beats = np.zeros(s.size, dtype=np.int64)
    for better, worse in significant:
        beats[better] += 1
        beaten[worse] += 1
    return 1 + beaten, s.size - beats
