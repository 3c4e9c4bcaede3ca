"""Independent re-implementations of the statistics, written from the README's definitions.

Loops over pairs and groups in plain Python with scipy.stats and statsmodels, nothing shared
with `testsuite.stats` (whose vectorised code the tests check against these). Used by
`test_stats.py` on constructed data and by `test_stats_realdata.py` on WMT21/22 de-en.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float64]


@functools.cache
def _binomial_tail(wins: int, total: int) -> float:
    from scipy.stats import binomtest

    return float(binomtest(wins, total, 0.5, alternative="greater").pvalue)


def mcnemar(passed: npt.NDArray[np.bool_]) -> Matrix:
    """One-tailed exact McNemar tests, pair by pair, with ``scipy.stats.binomtest``."""
    systems = passed.shape[1]
    out = np.ones((systems, systems))
    for i in range(systems):
        for j in range(systems):
            wins = int(np.sum(passed[:, i] & ~passed[:, j]))
            losses = int(np.sum(~passed[:, i] & passed[:, j]))
            if i != j and wins + losses:
                out[i, j] = _binomial_tail(wins, wins + losses)
    return out


def stratified(passed: npt.NDArray[np.bool_], groups: Sequence[object]
               ) -> tuple[Matrix, Matrix]:
    """The README's stratified paired Z-test, pair by pair and group by group.

    δ = mean over groups of the mean paired difference; Var δ = Σ_g s²_g / n_g / G² with
    ``numpy.var(ddof=1)`` as s²_g, and d² for a one-item group; p = ``scipy.stats.norm.sf``.
    Returns (p-values, standard errors).
    """
    from scipy.stats import norm

    labels = sorted(set(groups), key=str)
    members = [[k for k, g in enumerate(groups) if g == label] for label in labels]
    systems = passed.shape[1]
    pvalues, errors = np.ones((systems, systems)), np.zeros((systems, systems))
    for i in range(systems):
        for j in range(systems):
            if i == j:
                continue
            means, variance = [], 0.0
            for items in members:
                d = passed[items, i].astype(float) - passed[items, j].astype(float)
                means.append(d.mean())
                variance += d.var(ddof=1) / d.size if d.size > 1 else float(d[0] ** 2)
            delta = sum(means) / len(members)
            se = math.sqrt(variance) / len(members)
            errors[i, j] = se
            if np.array_equal(passed[:, i], passed[:, j]):
                pvalues[i, j] = 1.0
            elif se > 0:
                pvalues[i, j] = norm.sf(delta / se)
            else:
                pvalues[i, j] = 0.0 if delta > 0 else 1.0 if delta < 0 else 0.5
    return pvalues, errors


def adjust(raw: Sequence[float], method: str | None) -> list[float]:
    """Holm, Bonferroni or Benjamini–Hochberg adjusted p-values, from the textbook
    definitions in plain loops (``multipletests`` gives the same values, and calls
    ``gc.collect()`` each time: too slow for thousands of families)."""
    m = len(raw)
    if method is None or m == 0:
        return list(raw)
    if method == "bonferroni":
        return [min(1.0, m * p) for p in raw]
    order = sorted(range(m), key=lambda k: raw[k])
    out = [0.0] * m
    if method == "holm":  # step-down: the running maximum of (m − rank) p₍ᵣₐₙₖ₎
        running = 0.0
        for rank, k in enumerate(order):
            running = max(running, min(1.0, (m - rank) * raw[k]))
            out[k] = running
        return out
    running = 1.0  # fdr_bh, step-up: the running minimum of m p₍ᵣ₎ / r from the largest
    for rank in range(m - 1, -1, -1):
        k = order[rank]
        running = min(running, m * raw[k] / (rank + 1))
        out[k] = running
    return out


def family(scores: Sequence[float], pvalues: Matrix, correction: str | None) -> Matrix:
    """The README's one family, adjusted by `adjust`.

    One comparison per pair of systems with different scores, the higher-scoring first;
    systems with the same score and the same p-value (to 11 significant digits) in every such
    comparison count once.
    Returns adjusted p-values for every (higher, lower) pair, 1.0 elsewhere.
    """
    n = len(scores)
    key = {}
    for i in range(n):
        tested = tuple(float(f"{pvalues[k, i] if scores[k] > scores[i] else pvalues[i, k]:.11g}")
                       for k in range(n) if scores[k] != scores[i])
        key[i] = (scores[i], tested)
    classes: dict[tuple, list[int]] = {}
    for i in range(n):
        classes.setdefault(key[i], []).append(i)
    members = list(classes.values())
    pairs = [(a, b) for a in members for b in members if scores[a[0]] > scores[b[0]]]
    raw = [float(pvalues[a[0], b[0]]) for a, b in pairs]
    adjusted = adjust(raw, correction)
    out = np.ones((n, n))
    for (a, b), value in zip(pairs, adjusted, strict=True):
        for i in a:
            for j in b:
                out[i, j] = value
    return out


def decisions(scores: Sequence[float], adjusted: Matrix, alpha: float
              ) -> tuple[list[bool], list[int], list[float]]:
    """First cluster, best rank and the deciding p-value per system, from `family`."""
    n = len(scores)
    top = max(scores)
    best = [i for i in range(n) if scores[i] == top]
    first, rank, deciding = [], [], []
    for j in range(n):
        if j in best:
            first.append(True)
            deciding.append(math.nan)
        else:
            worst_case = max(adjusted[b, j] for b in best)
            first.append(not worst_case < alpha)
            deciding.append(worst_case)
        rank.append(1 + sum(adjusted[i, j] < alpha for i in range(n)))
    return first, rank, deciding
