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
* `adjusted_pvalues` — the one family of a row (every pair with different scores, systems
  no test can tell apart counted once), corrected; all three decisions above read it, and
  `best_against` gives the p-value that decides each system's place in the first cluster.

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


def interchangeable(scores: npt.ArrayLike, pvalues: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """Classes of systems the tests cannot tell apart: one label per system.

    Two systems are interchangeable when they have the same score and the same p-value in
    every comparison with a system of another score (``P[higher, lower]``, the direction
    tested; to 12 decimals): each such comparison of one of them is the other's,
    repeated — systems with identical outcomes, or tied counts under the Z-test. Each class
    is labelled by its first position, so the classes do not depend on the systems' order.
    """
    s = np.asarray(scores, dtype=np.float64)
    p = np.asarray(pvalues, dtype=np.float64)
    label = np.arange(s.size, dtype=np.intp)
    first: dict[tuple[float, bytes], int] = {}
    for i in range(s.size):
        other = s != s[i]
        tested = np.where(s[other] > s[i], p[other, i], p[i, other])
        # Equal to 12 decimals: the same value reached by two computations (the binomial
        # tail 1/2 of 1 of 1 and of 2 of 3) may differ in the last bit.
        label[i] = first.setdefault((float(s[i]), (np.round(tested, 12) + 0.0).tobytes()), i)
    return label


def adjusted_pvalues(scores: npt.ArrayLike, pvalues: npt.ArrayLike,
                     correction: Correction | None = None) -> npt.NDArray[np.float64]:
    """The p-values of the one family every decision of a row uses, adjusted for it.

    **The family** holds one comparison per pair of systems with different scores, the
    higher-scoring one tested as the better (``P[higher, lower]``); systems that are
    `interchangeable` count as one, because their comparisons with a third system are one
    test repeated and not another chance of a false discovery (WMT21 de-en "Polar
    question": 16 systems at 6/6 against one at 0/6 are one comparison, not 16). The first
    cluster, the full clusters and the rank ranges all read significance from this one
    matrix, so they never contradict each other: a system is out of the first cluster only
    if it is significantly worse than every best system, and then its best rank is below
    theirs.

    Args:
        scores: One score per system.
        pvalues: One-tailed p-values, ``P[i, j]`` for "*i* is better than *j*".
        correction: ``holm``, ``bonferroni``, ``fdr_bh`` (see `correct`) or None (the
            p-values as they are).

    Returns:
        A matrix like ``pvalues``: the adjusted p-value for every (higher, lower) pair, 1.0
        where the pair is not tested (equal scores, or the lower-scoring system first).
    """
    s = np.asarray(scores, dtype=np.float64)
    p = np.asarray(pvalues, dtype=np.float64)
    tested = s[:, None] > s[None, :]
    if correction is None:  # nothing to adjust: the classes would change nothing
        return np.asarray(np.where(tested, p, 1.0), dtype=np.float64)
    classes = interchangeable(s, p)
    heads = np.unique(classes)  # one representative per class: its smallest position
    family = [(int(hi), int(lo)) for hi in heads for lo in heads if s[hi] > s[lo]]
    adjusted = correct([p[hi, lo] for hi, lo in family], correction)
    by_class = np.ones((s.size, s.size), dtype=np.float64)
    for (hi, lo), value in zip(family, adjusted, strict=True):
        by_class[hi, lo] = value
    return by_class[np.ix_(classes, classes)]


def first_cluster(scores: npt.ArrayLike, pvalues: npt.ArrayLike, *, alpha: float = 0.05,
                  correction: Correction | None = None) -> npt.NDArray[np.bool_]:
    """The first performance cluster: the best system and every one not significantly worse.

    All systems tied for the highest score are best; a system is left out only if it is
    significantly worse than *each* of them (an intersection–union test: the largest of its
    p-values against the best is the one that decides), so the result does not depend on
    which tied system one calls the best. With a `correction`, the p-values are those of the
    one family of `adjusted_pvalues`, the same as for `clusters` and `rank_ranges`.
    Significance is not transitive: the first cluster may keep a system and leave out a
    higher-scoring one (scored on more items, or — with the paired McNemar test — one whose
    wins over the best are fewer), and it may differ from `clusters`' first.

    Returns:
        A boolean mask over the systems.
    """
    s, p = _check(scores, pvalues, alpha)
    return np.asarray(~(best_against(s, adjusted_pvalues(s, p, correction)) < alpha))


def best_against(scores: npt.ArrayLike, pvalues: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Per system, the largest p-value of a best system (all ties for the top score) against
    it: the p-value that decides its place in the first cluster; NaN for the best.

    Args:
        scores: One score per system.
        pvalues: A matrix of one-tailed p-values (raw, or `adjusted_pvalues`).
    """
    s = np.asarray(scores, dtype=np.float64)
    p = np.asarray(pvalues, dtype=np.float64)
    if s.size == 0:
        return np.zeros(0, dtype=np.float64)
    best = np.flatnonzero(s == s.max())
    out = p[best].max(axis=0)
    out[best] = np.nan
    return np.asarray(out, dtype=np.float64)


def _significant(scores: npt.NDArray[np.float64], pvalues: npt.NDArray[np.float64],
                 alpha: float, correction: Correction | None) -> npt.NDArray[np.bool_]:
    """``S[i, j]``: *i* is significantly better than *j* in the row's one family."""
    return np.asarray(adjusted_pvalues(scores, pvalues, correction) < alpha)


def clusters(scores: npt.ArrayLike, pvalues: npt.ArrayLike, *, alpha: float = 0.05,
             correction: Correction | None = None) -> npt.NDArray[np.int64]:
    """WMT-style clusters: a boundary lies where everything above beats everything below.

    Order the systems by score. A boundary lies between positions k and k + 1 if and only if
    every system above it is significantly better than every system below it; the clusters
    are the runs between boundaries. Every pair with different scores is tested once,
    higher-scoring first, in the one family of `adjusted_pvalues`.

    Returns:
        The cluster number of each system, 1 for the best cluster.
    """
    s, p = _check(scores, pvalues, alpha)
    order = ranked(s)
    significant = _significant(s, p, alpha, correction)
    number = np.zeros(s.size, dtype=np.int64)
    current = 0
    for position, system in enumerate(order):
        boundary = position > 0 and bool(
            significant[np.ix_(order[:position], order[position:])].all())
        if position == 0 or boundary:
            current += 1
        number[system] = current
    return number


def rank_ranges(scores: npt.ArrayLike, pvalues: npt.ArrayLike, *, alpha: float = 0.05,
                correction: Correction | None = None
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Best and worst possible rank of every system from head-to-head tests (WMT style).

    Best rank = 1 + the systems significantly better; worst rank = S − the systems it is
    significantly better than. Tests and family as in `clusters` (`adjusted_pvalues`).

    Returns:
        (best ranks, worst ranks), 1-based, one per system.
    """
    s, p = _check(scores, pvalues, alpha)
    significant = _significant(s, p, alpha, correction)
    beaten = significant.sum(axis=0).astype(np.int64)
    beats = significant.sum(axis=1).astype(np.int64)
    return 1 + beaten, s.size - beats
