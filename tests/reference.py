"""Independent re-implementations of the statistics, written from the README's definitions.

Loops over pairs and groups in plain Python with scipy.stats and statsmodels, nothing shared
with `testsuite.stats` (whose vectorised code the tests check against these). Used by
`test_stats.py` on constructed data and by `test_stats_realdata.py` on WMT21/22 de-en.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float64]


def mcnemar(passed: npt.NDArray[np.bool_]) -> Matrix:
    """One-tailed exact McNemar tests, pair by pair, with ``scipy.stats.binomtest``."""
    from scipy.stats import binomtest

    systems = passed.shape[1]
    out = np.ones((systems, systems))
    for i in range(systems):
        for j in range(systems):
            wins = int(np.sum(passed[:, i] & ~passed[:, j]))
            losses = int(np.sum(~passed[:, i] & passed[:, j]))
            if i != j and wins + losses:
                out[i, j] = binomtest(wins, wins + losses, 0.5, alternative="greater").pvalue
    return out


def family(scores: Sequence[float], pvalues: Matrix, correction: str | None) -> Matrix:
    """The README's one family, adjusted with ``statsmodels.stats.multitest.multipletests``.

    One comparison per pair of systems with different scores, the higher-scoring first;
    systems with the same score and the same p-value (to 11 significant digits) in every such
    comparison count once.
    Returns adjusted p-values for every (higher, lower) pair, 1.0 elsewhere.
    """
    from statsmodels.stats.multitest import multipletests

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
    adjusted = list(raw)
    if correction is not None and raw:
        adjusted = list(multipletests(raw, method=correction)[1])
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
