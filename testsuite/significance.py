"""Significance tests and performance clusters for comparing MT systems on a test suite.

Everything here is a pure function over counts, 0/1 outcome arrays or score mappings; there
is no I/O and no module-level state, and every randomised test takes a ``seed``.

The published DFKI evaluation (``../shared/SPEC.md``; Macketanz et al., WMT test-suite papers
2018–2023) bolds the *first performance cluster* of each row: the best system and every system
whose difference from it is not significant in a one-tailed two-proportion Z-test at
α = 0.05. `first_cluster_ztest` computes exactly that and is the default. The rest is
opt-in and cannot change a result computed the published way:

* `mcnemar_greater` — items are *paired* (every system translated the same items after the
  fairness filter), which the Z-test ignores; McNemar's test uses the pairing.
* `paired_bootstrap_greater`, `approximate_randomization_greater` — for macro-averages, which
  are means of accuracies rather than one proportion, so no proportion test applies.
* `clusters`, `rank_ranges` — full WMT-style clusters and rank ranges from head-to-head tests.
* `correct` — Holm, Bonferroni or Benjamini–Hochberg correction over a family of comparisons.

A *pairwise test* is any ``test(better, worse) -> p`` returning the one-tailed p-value of
H1 "``better`` scores higher than ``worse``". `Comparison` bundles per-system scores with such
a test; ``ztest_comparison``, ``mcnemar_comparison``, ``bootstrap_comparison`` and
``randomization_comparison`` build one, e.g. ``clusters(*mcnemar_comparison(outcomes))``.

Tied scores are never significantly different: the tests are one-tailed in the direction of
the higher score, and with equal scores there is no such direction (the Z-test, McNemar and
both resampling tests give p ≥ 0.5 there anyway). So tied systems always share a cluster and
the results do not depend on the order in which systems are given.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportions_ztest

#: Significance level of the published evaluation: one-tailed, 95 % confidence.
DEFAULT_ALPHA = 0.05
#: Resamples for the bootstrap and approximate randomisation: 1,000 is the usual choice in MT
#: (Koehn 2004; sacrebleu), enough to resolve p-values near 0.05 to about ±0.007.
DEFAULT_RESAMPLES = 1000
#: Fixed default seed, so that a report computed twice shows the same p-values.
DEFAULT_SEED = 12345

#: Multiple-comparison corrections, named as in `statsmodels.stats.multitest.multipletests`.
Correction = Literal["holm", "bonferroni", "fdr_bh"]
_CORRECTIONS: frozenset[str] = frozenset({"holm", "bonferroni", "fdr_bh"})

#: ``test(better, worse)``: one-tailed p-value of H1 "system ``better`` scores higher".
PairwiseTest = Callable[[str, str], float]

# Resampled statistics equal to the observed one (e.g. identical systems, where every
# resample gives exactly the observed difference) must count as "at least as extreme";
# summing float weights in a different order may miss that by a few ulps.
_TOLERANCE = 1e-12


class Comparison(NamedTuple):
    """Per-system scores together with the pairwise test that compares them.

    A tuple, so ``first_cluster(*comparison)`` and ``clusters(*comparison)`` work.
    """

    scores: dict[str, float]
    test: PairwiseTest


# --------------------------------------------------------------------------- pairwise tests


def ztest_greater(passes_best: int, n_best: int, passes_other: int, n_other: int) -> float:
    """One-tailed two-proportion Z-test that ``best`` has the higher pass rate.

    This is the test of the published evaluation. H0: both systems have the same pass rate;
    H1: ``best``'s pass rate is higher (one-tailed, because the question is only whether the
    best system is significantly *better*). The statistic uses the pooled proportion
    p̂ = (x₁ + x₂) / (n₁ + n₂), as is standard under H0 of equal proportions::

        z = (x₁/n₁ − x₂/n₂) / sqrt(p̂ (1 − p̂) (1/n₁ + 1/n₂)),   p = 1 − Φ(z)

    computed by `statsmodels.stats.proportion.proportions_ztest` (``alternative="larger"``).

    Edge cases, decided here so that no warning or NaN escapes:

    * identical proportions (z = 0): p = 0.5 exactly;
    * both 0 % or both 100 %: the pooled variance is zero and z is 0/0; there is no evidence
      that ``best`` is better, so p = 1.0 ("not significantly worse");
    * n = 0 for either system: nothing to compare, p = 1.0.

    Args:
        passes_best: Passed items of the (presumably) better system.
        n_best: Items the better system was scored on.
        passes_other: Passed items of the other system.
        n_other: Items the other system was scored on.

    Returns:
        The one-tailed p-value, in [0, 1].

    Raises:
        ValueError: A count is negative, not an integer, or passes exceed items.
    """
    passes_best, n_best = _check_counts(passes_best, n_best, "best")
    passes_other, n_other = _check_counts(passes_other, n_other, "other")
    if n_best == 0 or n_other == 0:
        return 1.0
    total_passes, total_items = passes_best + passes_other, n_best + n_other
    if total_passes in (0, total_items):
        return 1.0  # both 0 % or both 100 %: zero pooled variance
    if passes_best * n_other == passes_other * n_best:
        return 0.5  # equal proportions, compared exactly in integers: z = 0
    _, pvalue = proportions_ztest(
        count=np.array([passes_best, passes_other]),
        nobs=np.array([n_best, n_other]),
        value=0.0,
        alternative="larger",
        prop_var=False,  # pooled variance under H0, as in the formula above
    )
    return _clip(float(pvalue))


def mcnemar_greater(best: npt.ArrayLike, other: npt.ArrayLike) -> float:
    """One-tailed exact McNemar test that ``best`` passes more of the same items.

    After the fairness filter every system is scored on the same items, so the outcomes are
    paired. Items both systems pass or both fail say nothing about which is better; only the
    discordant pairs do: b = items ``best`` passes and ``other`` fails, c = the reverse.
    Under H0 each discordant item goes either way with probability 1/2, so
    b ~ Bin(b + c, 1/2), and the one-tailed p-value is P(X ≥ b).

    The *exact* binomial form is used rather than the χ² approximation because a test-suite
    row often has only a handful of items on which two good systems differ (b + c < 25 is
    common), where the approximation is poor (Fagerland, Lydersen & Laake 2013). p = 1.0 when
    there are no discordant pairs (identical outcomes).

    Args:
        best: Outcomes of the (presumably) better system, one 0/1 (or bool) per item.
        other: Outcomes of the other system on the same items, in the same order.

    Returns:
        The one-tailed p-value, in [0, 1].

    Raises:
        ValueError: The arrays are not 1-D, differ in length, or hold values other than 0/1.
    """
    best_pass, other_pass = _paired(best, other, allow_empty=True)
    wins = int(np.count_nonzero(best_pass & ~other_pass))
    losses = int(np.count_nonzero(~best_pass & other_pass))
    if wins + losses == 0:
        return 1.0
    return _clip(float(binomtest(wins, wins + losses, 0.5, alternative="greater").pvalue))


def macro_average(outcomes: npt.ArrayLike, groups: npt.ArrayLike | None = None) -> float:
    """Mean over groups of the group accuracy (the micro-average when ``groups`` is None).

    Args:
        outcomes: One 0/1 (or bool) outcome per item.
        groups: One label per item (its category or phenomenon), or None for one group.

    Returns:
        The macro-average accuracy, in [0, 1].

    Raises:
        ValueError: Outcomes are empty or not 0/1, or labels do not match the items.
    """
    passed = _binary(outcomes, "outcomes")
    if passed.size == 0:
        raise ValueError("no items to score")
    codes, n_groups = _group_codes(groups, passed.size)
    sizes = np.bincount(codes, minlength=n_groups)
    group_passes = np.bincount(codes, weights=passed, minlength=n_groups)
    return float(np.mean(group_passes / sizes))


def paired_bootstrap_greater(
    best: npt.ArrayLike,
    other: npt.ArrayLike,
    groups: npt.ArrayLike | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> float:
    """One-tailed paired bootstrap test that ``best`` has the higher macro-average.

    The statistic is δ = macro(best) − macro(other), the macro-average being the mean over
    groups of the group accuracy (`macro_average`). Each resample draws, *within every
    group*, as many items as the group has, with replacement, and keeps each item's pair of
    outcomes together (paired; Koehn 2004). Stratifying keeps every group — and so the
    definition of the macro-average — intact in every resample.

    The p-value uses the shift method (Efron & Tibshirani 1993, §16.4; Berg-Kirkpatrick,
    Burkett & Klein 2012): the bootstrap distribution of δ* − δ approximates the distribution
    of δ under H0, so p = (1 + #{δ* − δ ≥ δ}) / (1 + n_resamples); the +1 counts the observed
    sample and keeps p > 0. Identical systems give δ* = δ = 0 in every resample, so p = 1.0.

    Only the per-group counts of wins (best passes, other fails), losses and ties enter δ*, so
    a resample of a group is drawn as one multinomial vector of those three counts — the
    same distribution as resampling the items one by one, in O(groups) per resample.

    Args:
        best: Outcomes of the (presumably) better system, one 0/1 (or bool) per item.
        other: Outcomes of the other system on the same items.
        groups: Category or phenomenon label per item; None for a single group
            (then δ is the difference of micro-averages).
        n_resamples: Number of bootstrap resamples.
        seed: Seed for `numpy.random.default_rng`.

    Returns:
        The one-tailed p-value, in (0, 1].

    Raises:
        ValueError: Invalid outcomes or labels, or ``n_resamples`` < 1.
    """
    n_resamples = _check_resamples(n_resamples)
    wins, losses, sizes = _group_tallies(best, other, groups)
    weights = 1.0 / (sizes.size * sizes)  # macro-average: 1/groups × 1/group size
    observed = float(np.dot(weights, wins - losses))
    ties = sizes - wins - losses
    probabilities = np.stack([wins, losses, ties], axis=1) / sizes[:, None]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(sizes, probabilities, size=(n_resamples, sizes.size))
    resampled = (counts[..., 0] - counts[..., 1]) @ weights
    extreme = int(np.count_nonzero(resampled - observed >= observed - _TOLERANCE))
    return _clip((1 + extreme) / (1 + n_resamples))


def approximate_randomization_greater(
    best: npt.ArrayLike,
    other: npt.ArrayLike,
    groups: npt.ArrayLike | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> float:
    """One-tailed approximate randomisation test that ``best`` has the higher macro-average.

    Under H0 the two systems are exchangeable, so on every item their outcomes may be
    swapped with probability 1/2 (Noreen 1989; Riezler & Maxwell 2005). The statistic is
    δ = macro(best) − macro(other) as in `paired_bootstrap_greater`; swapping never moves an
    item to another group, so the groups are respected automatically. The p-value is
    p = (1 + #{δ_perm ≥ δ}) / (1 + n_resamples). Identical systems: every swap leaves δ = 0,
    so p = 1.0.

    Swapping an item where the systems agree changes nothing, and a swapped win becomes a
    loss; so a shuffle of a group is drawn as the number of its wins and of its losses that
    are swapped (two Bin(·, 1/2) draws), the same distribution as swapping item by item.

    Args:
        best: Outcomes of the (presumably) better system, one 0/1 (or bool) per item.
        other: Outcomes of the other system on the same items.
        groups: Category or phenomenon label per item; None for a single group.
        n_resamples: Number of random shuffles.
        seed: Seed for `numpy.random.default_rng`.

    Returns:
        The one-tailed p-value, in (0, 1].

    Raises:
        ValueError: Invalid outcomes or labels, or ``n_resamples`` < 1.
    """
    n_resamples = _check_resamples(n_resamples)
    wins, losses, sizes = _group_tallies(best, other, groups)
    weights = 1.0 / (sizes.size * sizes)
    observed = float(np.dot(weights, wins - losses))
    rng = np.random.default_rng(seed)
    discordant = np.stack([wins, losses], axis=1)
    swapped = rng.binomial(discordant, 0.5, size=(n_resamples, sizes.size, 2))
    permuted = ((wins - 2 * swapped[..., 0]) - (losses - 2 * swapped[..., 1])) @ weights
    extreme = int(np.count_nonzero(permuted >= observed - _TOLERANCE))
    return _clip((1 + extreme) / (1 + n_resamples))


# ------------------------------------------------------------------------------ comparisons


def ztest_comparison(passes: Mapping[str, int], n: Mapping[str, int]) -> Comparison:
    """Scores (pass rates) and the two-proportion Z-test for counts per system.

    Args:
        passes: Passed items per system.
        n: Scored items per system (same keys as ``passes``).

    Returns:
        A `Comparison` whose test is `ztest_greater`.

    Raises:
        ValueError: The keys differ, a count is invalid, or a system has no items.
    """
    if set(passes) != set(n):
        raise ValueError("passes and n must name the same systems")
    counts = {name: _check_counts(passes[name], n[name], name) for name in passes}
    empty = sorted(name for name, (_, items) in counts.items() if items == 0)
    if empty:
        raise ValueError(f"systems without items cannot be scored: {', '.join(empty)}")

    def test(best: str, other: str) -> float:
        return ztest_greater(*counts[best], *counts[other])

    return Comparison({name: x / items for name, (x, items) in counts.items()}, test)


def mcnemar_comparison(outcomes: Mapping[str, npt.ArrayLike]) -> Comparison:
    """Scores (accuracies) and the exact McNemar test for paired outcomes per system.

    Args:
        outcomes: Per system, one 0/1 outcome per item; all on the same items, same order.

    Returns:
        A `Comparison` whose test is `mcnemar_greater`.

    Raises:
        ValueError: Outcomes are empty, not 0/1, or of different lengths.
    """
    arrays = _outcome_arrays(outcomes)

    def test(best: str, other: str) -> float:
        return mcnemar_greater(arrays[best], arrays[other])

    return Comparison({name: float(np.mean(a)) for name, a in arrays.items()}, test)


def bootstrap_comparison(
    outcomes: Mapping[str, npt.ArrayLike],
    groups: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Comparison:
    """Scores (macro-averages) and the paired bootstrap test per system.

    Every pair is tested with the same ``seed``, so each p-value depends only on the two
    systems' outcomes, not on which other systems are compared or in what order.

    Args:
        outcomes: Per system, one 0/1 outcome per item; all on the same items, same order.
        groups: Category or phenomenon label per item; None for micro-averages.
        n_resamples: Bootstrap resamples per pairwise test.
        seed: Seed for every pairwise test.

    Returns:
        A `Comparison` whose test is `paired_bootstrap_greater`.

    Raises:
        ValueError: Invalid outcomes or labels.
    """
    return _resampling_comparison(outcomes, groups, paired_bootstrap_greater, n_resamples, seed)


def randomization_comparison(
    outcomes: Mapping[str, npt.ArrayLike],
    groups: npt.ArrayLike | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Comparison:
    """Scores (macro-averages) and the approximate randomisation test per system.

    Args:
        outcomes: Per system, one 0/1 outcome per item; all on the same items, same order.
        groups: Category or phenomenon label per item; None for micro-averages.
        n_resamples: Random shuffles per pairwise test.
        seed: Seed for every pairwise test (see `bootstrap_comparison`).

    Returns:
        A `Comparison` whose test is `approximate_randomization_greater`.

    Raises:
        ValueError: Invalid outcomes or labels.
    """
    return _resampling_comparison(
        outcomes, groups, approximate_randomization_greater, n_resamples, seed
    )


def _resampling_comparison(
    outcomes: Mapping[str, npt.ArrayLike],
    groups: npt.ArrayLike | None,
    pairwise: Callable[..., float],
    n_resamples: int,
    seed: int,
) -> Comparison:
    """Macro-average scores with a resampling test between each two systems."""
    arrays = _outcome_arrays(outcomes)
    scores = {name: macro_average(a, groups) for name, a in arrays.items()}

    def test(best: str, other: str) -> float:
        return pairwise(arrays[best], arrays[other], groups, n_resamples=n_resamples, seed=seed)

    return Comparison(scores, test)


# ------------------------------------------------------------------ clusters and rank ranges


def correct(pvalues: npt.ArrayLike, method: Correction | None = None) -> npt.NDArray[np.float64]:
    """Adjust a family of p-values for multiple comparisons.

    Args:
        pvalues: One p-value per comparison in the family.
        method: ``"holm"`` (Holm–Bonferroni step-down; controls the family-wise error rate,
            never less powerful than Bonferroni), ``"bonferroni"``, ``"fdr_bh"``
            (Benjamini–Hochberg; controls the false discovery rate), or None for no
            correction — the published evaluation uses none. As in
            `statsmodels.stats.multitest.multipletests`, which computes all but Holm
            (see `_holm`).

    Returns:
        Adjusted p-values, in the input order; each is ≥ its raw value and ≤ 1.

    Raises:
        ValueError: Unknown method, or p-values not a 1-D array of numbers in [0, 1].
    """
    p = np.array(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("p-values must be a one-dimensional sequence")
    if not np.all((p >= 0.0) & (p <= 1.0)):  # also rejects NaN
        raise ValueError("p-values must lie in [0, 1]")
    if method is not None and method not in _CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; use one of {sorted(_CORRECTIONS)}")
    if method is None or p.size == 0:
        return p
    if method == "holm":
        return _holm(p)
    # `alpha` only affects the reject flags, which are not used here.
    _, adjusted, _, _ = multipletests(p, alpha=DEFAULT_ALPHA, method=method)
    return np.clip(np.asarray(adjusted, dtype=np.float64), 0.0, 1.0)


def _holm(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Holm step-down adjusted p-values: max over j ≤ i of (m − j + 1)·p₍ⱼ₎, capped at 1.

    The same values as ``multipletests(p, method="holm")``, computed here because statsmodels
    runs a full ``gc.collect()`` on every Holm call (tens of milliseconds in a large process,
    once per table row and cluster computation).
    """
    order = np.argsort(p, kind="stable")
    steps = np.arange(p.size, 0, -1, dtype=np.float64)  # m, m − 1, …, 1
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.maximum.accumulate(p[order] * steps), 1.0)
    return adjusted


def first_cluster(
    scores: Mapping[str, float],
    test: PairwiseTest,
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: Correction | None = None,
) -> set[str]:
    """The first performance cluster: the best system and all not significantly worse.

    This is the published definition (bold in the DFKI tables): the best system, plus every
    system ``s`` for which ``test(best, s)`` ≥ ``alpha``. All systems tied for the highest
    score are best. With several best systems, ``s`` is left out only if it is
    significantly worse than *each* of them, so the result does not depend on which tied
    system one calls the best. The family for ``correction`` is these best-versus-other
    comparisons.

    Because significance is not transitive, the first cluster may include a system and leave
    out a higher-scoring one (e.g. one scored on more items), and it may differ from
    ``clusters(...)[0]``, which asks more (see `clusters`).

    Args:
        scores: Score per system; higher is better.
        test: ``test(better, worse)`` → one-tailed p-value that ``better`` is better.
        alpha: Significance level (one-tailed).
        correction: Multiple-comparison correction over the comparisons made, or None.

    Returns:
        Names of the systems in the first cluster (empty if there are no systems).

    Raises:
        ValueError: Non-finite scores, invalid ``alpha``, or a p-value outside [0, 1].
    """
    order = _ranked(scores, alpha)
    if not order:
        return set()
    top = scores[order[0]]
    best = [name for name in order if scores[name] == top]
    others = [name for name in order if scores[name] != top]
    significant = _significant([(b, o) for b in best for o in others], test, alpha, correction)
    worse = {o for o in others if all((b, o) in significant for b in best)}
    return set(order) - worse


def first_cluster_ztest(
    passes: Mapping[str, int],
    n: Mapping[str, int],
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: Correction | None = None,
) -> set[str]:
    """The published first cluster: one-tailed two-proportion Z-tests against the best.

    Args:
        passes: Passed items per system.
        n: Scored items per system.
        alpha: Significance level (one-tailed); the published evaluation uses 0.05.
        correction: Multiple-comparison correction, or None (the published choice).

    Returns:
        Names of the systems in the first cluster.

    Raises:
        ValueError: See `ztest_comparison` and `first_cluster`.
    """
    return first_cluster(*ztest_comparison(passes, n), alpha=alpha, correction=correction)


def first_cluster_mcnemar(
    outcomes: Mapping[str, npt.ArrayLike],
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: Correction | None = None,
) -> set[str]:
    """The first cluster with the paired exact McNemar test instead of the Z-test.

    Args:
        outcomes: Per system, one 0/1 outcome per item; all on the same items, same order.
        alpha: Significance level (one-tailed).
        correction: Multiple-comparison correction, or None.

    Returns:
        Names of the systems in the first cluster.

    Raises:
        ValueError: See `mcnemar_comparison` and `first_cluster`.
    """
    return first_cluster(*mcnemar_comparison(outcomes), alpha=alpha, correction=correction)


def clusters(
    scores: Mapping[str, float],
    test: PairwiseTest,
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: Correction | None = None,
) -> list[list[str]]:
    """Split all systems into WMT-style performance clusters.

    Definition (as in the WMT findings papers: every system of a cluster is significantly
    better than every system of every lower cluster): order the systems by score, highest
    first. A boundary lies between positions i and i + 1 if and only if *every* system
    above it is significantly better (``test(above, below)`` < ``alpha``) than *every*
    system below it. The clusters are the runs between boundaries. Tied systems are never
    significantly different, so they always share a cluster.

    Every pair of systems with different scores is tested once, higher-scoring first; that
    is the family for ``correction``.

    Args:
        scores: Score per system; higher is better.
        test: ``test(better, worse)`` → one-tailed p-value that ``better`` is better.
        alpha: Significance level (one-tailed).
        correction: Multiple-comparison correction over all pairs, or None.

    Returns:
        Clusters from best to worst, each listing its systems by descending score (ties by
        name).

    Raises:
        ValueError: Non-finite scores, invalid ``alpha``, or a p-value outside [0, 1].
    """
    order = _ranked(scores, alpha)
    significant = _significant(_ordered_pairs(order, scores), test, alpha, correction)
    result: list[list[str]] = []
    for position, name in enumerate(order):
        boundary = position > 0 and all(
            (above, below) in significant
            for above in order[:position]
            for below in order[position:]
        )
        if boundary or not result:
            result.append([])
        result[-1].append(name)
    return result


def rank_ranges(
    scores: Mapping[str, float],
    test: PairwiseTest,
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: Correction | None = None,
) -> dict[str, tuple[int, int]]:
    """Rank range of every system from head-to-head tests (WMT style).

    A system's best possible rank is 1 + the number of systems significantly better than it;
    its worst possible rank is n − the number of systems it is significantly better than.
    The tests and the ``correction`` family are those of `clusters`.

    Args:
        scores: Score per system; higher is better.
        test: ``test(better, worse)`` → one-tailed p-value that ``better`` is better.
        alpha: Significance level (one-tailed).
        correction: Multiple-comparison correction over all pairs, or None.

    Returns:
        ``(best rank, worst rank)`` per system, 1-based, in descending order of score.

    Raises:
        ValueError: Non-finite scores, invalid ``alpha``, or a p-value outside [0, 1].
    """
    order = _ranked(scores, alpha)
    significant = _significant(_ordered_pairs(order, scores), test, alpha, correction)
    beaten_by = {name: sum(1 for _, worse in significant if worse == name) for name in order}
    beats = {name: sum(1 for better, _ in significant if better == name) for name in order}
    return {name: (1 + beaten_by[name], len(order) - beats[name]) for name in order}


# ------------------------------------------------------------------------------- internals


def _check_counts(passes: int, items: int, who: str) -> tuple[int, int]:
    """Validate a (passes, items) pair and return it as plain ints."""
    try:
        passes, items = operator.index(passes), operator.index(items)
    except TypeError as exc:
        raise ValueError(f"{who}: counts must be integers") from exc
    if items < 0 or not 0 <= passes <= items:
        raise ValueError(f"{who}: need 0 <= passes <= n, got passes={passes}, n={items}")
    return passes, items


def _binary(values: npt.ArrayLike, who: str) -> npt.NDArray[np.bool_]:
    """Validate a 1-D array of 0/1 outcomes and return it as booleans."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{who}: outcomes must be one-dimensional")
    if array.dtype != np.bool_ and not np.all((array == 0) | (array == 1)):
        raise ValueError(f"{who}: outcomes must be 0/1 (pass/fail)")
    return array.astype(np.bool_)


def _paired(
    best: npt.ArrayLike, other: npt.ArrayLike, *, allow_empty: bool = False
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Validate two outcome arrays over the same items."""
    best_pass, other_pass = _binary(best, "best"), _binary(other, "other")
    if best_pass.size != other_pass.size:
        raise ValueError(
            f"paired outcomes need the same items: {best_pass.size} != {other_pass.size}"
        )
    if best_pass.size == 0 and not allow_empty:
        raise ValueError("no items to score")
    return best_pass, other_pass


def _outcome_arrays(outcomes: Mapping[str, npt.ArrayLike]) -> dict[str, npt.NDArray[np.bool_]]:
    """Validate the outcome arrays of all systems (non-empty, 0/1, same length)."""
    arrays = {name: _binary(values, name) for name, values in outcomes.items()}
    lengths = {a.size for a in arrays.values()}
    if len(lengths) > 1:
        raise ValueError("all systems must be scored on the same items")
    if lengths == {0}:
        raise ValueError("no items to score")
    return arrays


def _group_codes(groups: npt.ArrayLike | None, n_items: int) -> tuple[npt.NDArray[np.intp], int]:
    """Integer code per item for its group label, and the number of groups."""
    if groups is None:
        return np.zeros(n_items, dtype=np.intp), 1
    labels = np.asarray(groups)
    if labels.ndim != 1 or labels.size != n_items:
        raise ValueError(f"need one group label per item ({n_items})")
    # Sorted codes: the resampling tests draw group by group, so sorting makes p-values
    # independent of the order of the items.
    codes, uniques = pd.factorize(labels, sort=True)
    if np.any(codes < 0):
        raise ValueError("group labels must not be missing")
    return codes.astype(np.intp), len(uniques)


def _group_tallies(
    best: npt.ArrayLike, other: npt.ArrayLike, groups: npt.ArrayLike | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per group: wins (best passes, other fails), losses (the reverse) and size."""
    best_pass, other_pass = _paired(best, other)
    codes, n_groups = _group_codes(groups, best_pass.size)
    wins = np.bincount(codes[best_pass & ~other_pass], minlength=n_groups)
    losses = np.bincount(codes[~best_pass & other_pass], minlength=n_groups)
    sizes = np.bincount(codes, minlength=n_groups)
    return wins.astype(np.int64), losses.astype(np.int64), sizes.astype(np.int64)


def _check_resamples(n_resamples: int) -> int:
    """Validate the number of resamples."""
    n_resamples = operator.index(n_resamples)
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    return n_resamples


def _ranked(scores: Mapping[str, float], alpha: float) -> list[str]:
    """Systems by descending score, ties by name (a fixed order, whatever the input order)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    for name, score in scores.items():
        if not math.isfinite(score):
            raise ValueError(f"score of {name!r} is not a finite number: {score}")
    return sorted(scores, key=lambda name: (-scores[name], name))


def _ordered_pairs(order: Sequence[str], scores: Mapping[str, float]) -> list[tuple[str, str]]:
    """All (higher, lower) pairs with strictly different scores; ties are not tested."""
    return [
        (higher, lower)
        for i, higher in enumerate(order)
        for lower in order[i + 1 :]
        if scores[higher] > scores[lower]
    ]


def _significant(
    pairs: Sequence[tuple[str, str]],
    test: PairwiseTest,
    alpha: float,
    correction: Correction | None,
) -> set[tuple[str, str]]:
    """The (better, worse) pairs whose (corrected) one-tailed p-value is below ``alpha``."""
    family = sorted(pairs)  # fixed order, so results never depend on the input order
    raw = []
    for better, worse in family:
        p = float(test(better, worse))
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"test({better!r}, {worse!r}) returned {p}, not a p-value")
        raw.append(p)
    adjusted = correct(raw, correction)
    return {pair for pair, p in zip(family, adjusted, strict=True) if p < alpha}


def _clip(p: float) -> float:
    """Keep a p-value inside [0, 1] despite floating-point round-off."""
    return min(1.0, max(0.0, p))
