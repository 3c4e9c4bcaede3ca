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
    systems with the same score and the same p-value (to 12 decimals) in every such
    comparison count once.
    Returns adjusted p-values for every (higher, lower) pair, 1.0 elsewhere.
    """
    n = len(scores)
    key = {}
    for i in range(n):
        tested = tuple(round(float(pvalues[k, i] if scores[k] > scores[i] else pvalues[i, k]),
                             12) for k in range(n) if scores[k] != scores[i])
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


def macro_score_interval(passes: Sequence[int], sizes: Sequence[int], z: float = 1.959963984540054
                         ) -> tuple[float, float]:
    """The README's score interval of a macro-average, one system, by root finding.

    For each hypothesised m₀ the group proportions maximise the likelihood under
    mean(p) = m₀: by the Lagrange condition n(p̂ − p) = λ p (1 − p) with one λ for all
    groups, each p found with ``scipy.optimize.brentq`` (and λ likewise, so that the mean
    is m₀). The variance is (1/G²) Σ p(1 − p)/(n − 1) (one-item groups: max(p(1 − p),
    m₀(1 − m₀))), and the ends are where (M − m₀)² = z² V(m₀), by brentq again.
    """
    from scipy.optimize import brentq

    x = np.asarray(passes, dtype=float)
    n = np.asarray(sizes, dtype=float)
    observed = x / n
    macro = float(observed.mean())
    edge = 1e-12

    def group(k: int, lam: float) -> float:
        p_hat, m = observed[k], n[k]
        if p_hat == 0:  # roots 0 and 1 + n/λ: the interior one when it exists
            return 1 + m / lam if lam < -m else 0.0
        if p_hat == 1:  # roots 1 and n/λ
            return m / lam if lam > m else 1.0
        return brentq(lambda p: m * (p_hat - p) - lam * p * (1 - p), 0.0, 1.0, xtol=1e-15)

    def fitted(m0: float) -> npt.NDArray[np.float64]:
        def gap(t: float) -> float:  # λ = sinh(t) spans every scale of n
            return float(np.mean([group(k, math.sinh(t)) for k in range(x.size)])) - m0
        t = brentq(gap, -40.0, 40.0, xtol=1e-14)
        return np.array([group(k, math.sinh(t)) for k in range(x.size)])

    def excess(m0: float) -> float:
        p = fitted(m0)
        own = p * (1 - p)
        v = np.where(n > 1, own / np.maximum(n - 1, 1), np.maximum(own, m0 * (1 - m0)))
        return (macro - m0) ** 2 - z * z * float(v.sum()) / x.size**2

    near = 1e-9  # just inside the interval: (M − m₀)² ~ 1e-18 is below z² V(m₀)
    low = 0.0 if macro <= 0 or excess(edge) <= 0 else brentq(excess, edge, macro - near,
                                                             xtol=1e-13)
    high = 1.0 if macro >= 1 or excess(1 - edge) <= 0 else brentq(excess, macro + near,
                                                                  1 - edge, xtol=1e-13)
    return float(low), float(high)
