"""The statistics of `testsuite.stats`, each checked against an independent computation.

References named per test: formulas written out by hand with `math`, statsmodels
(``proportions_ztest``, ``multipletests``, ``proportion_confint``), scipy.stats
(``binomtest``), and item-by-item re-implementations of the resampling tests.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from testsuite.stats import (
    Correction,
    adjusted_pvalues,
    best_against,
    bootstrap_pvalues,
    clusters,
    correct,
    first_cluster,
    macro_average,
    macro_interval,
    mcnemar_pvalues,
    published_macro_pvalues,
    rank_ranges,
    stratified_difference,
    stratified_pvalues,
    two_sided,
    wilson_interval,
    ztest_pvalues,
)

from .reference import adjust as reference_adjust
from .reference import decisions, family, macro_score_interval
from .reference import mcnemar as reference_mcnemar
from .reference import stratified as reference_stratified

CORRECTIONS: list[Correction | None] = [None, "holm", "bonferroni", "fdr_bh"]
PROPERTY_SETTINGS = settings(max_examples=40, deadline=None)


def ztest(x1: int, n1: int, x2: int, n2: int) -> float:
    return float(ztest_pvalues([x1, x2], [n1, n2])[0, 1])


# ------------------------------------------------------------------------------ Z-test


def hand_ztest(x1: int, n1: int, x2: int, n2: int) -> float:
    """Pooled two-proportion Z-test, one-tailed (H1: p1 > p2), written out with math.erfc."""
    pooled = (x1 + x2) / (n1 + n2)
    z = (x1 / n1 - x2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return 0.5 * math.erfc(z / math.sqrt(2))


@pytest.mark.parametrize(("x1", "n1", "x2", "n2"), [
    (90, 100, 89, 100), (90, 100, 50, 100), (7, 10, 3, 10), (45, 60, 30, 55),
    (120, 150, 200, 300), (3, 10, 7, 10), (1, 1, 0, 1)])
def test_ztest_matches_hand_formula_and_statsmodels(x1: int, n1: int, x2: int, n2: int) -> None:
    from statsmodels.stats.proportion import proportions_ztest

    _, reference = proportions_ztest(np.array([x1, x2]), np.array([n1, n2]),
                                     alternative="larger", prop_var=False)
    assert ztest(x1, n1, x2, n2) == pytest.approx(hand_ztest(x1, n1, x2, n2), abs=1e-12)
    assert ztest(x1, n1, x2, n2) == pytest.approx(float(reference), abs=1e-12)


@PROPERTY_SETTINGS
@given(st.lists(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
                min_size=2, max_size=8))
def test_ztest_matrix_equals_statsmodels_pair_by_pair(counts: list[tuple[int, int]]) -> None:
    from statsmodels.stats.proportion import proportions_ztest

    x = [c[0] for c in counts]
    n = [c[1] for c in counts]
    matrix = ztest_pvalues(x, n)
    for i in range(len(x)):
        for j in range(len(x)):
            if i == j:
                assert matrix[i, j] == 1.0
                continue
            pooled = (x[i] + x[j]) / (n[i] + n[j])
            if pooled in (0.0, 1.0):
                expected = 1.0  # zero variance: no evidence
            elif x[i] * n[j] == x[j] * n[i]:
                expected = 0.5
            else:
                expected = float(proportions_ztest(np.array([x[i], x[j]]), np.array([n[i], n[j]]),
                                                   alternative="larger", prop_var=False)[1])
            assert matrix[i, j] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "expected"), [
    # Worked by hand with a normal table: p̂ = 0.895, se = 0.04335, z = 0.2307 → 0.4088.
    (90, 100, 89, 100, 0.4088),
    # p̂ = 0.5, se = 0.2236, z = 1.7889 → 0.0368.
    (7, 10, 3, 10, 0.0368)])
def test_ztest_worked_examples(x1: int, n1: int, x2: int, n2: int, expected: float) -> None:
    assert ztest(x1, n1, x2, n2) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "expected"), [
    (50, 100, 50, 100, 0.5), (3, 6, 1, 2, 0.5), (0, 10, 0, 20, 1.0), (10, 10, 20, 20, 1.0),
    (0, 0, 5, 10, 1.0), (5, 10, 0, 0, 1.0), (0, 0, 0, 0, 1.0)])
def test_ztest_edge_cases(x1: int, n1: int, x2: int, n2: int, expected: float) -> None:
    assert ztest(x1, n1, x2, n2) == expected


@pytest.mark.parametrize(("x", "n"), [([11, 1], [10, 2]), ([-1, 1], [5, 2]), ([1, 3], [2, -1]),
                                      ([1.5, 1], [2, 2])])
def test_ztest_rejects_invalid_counts(x: list[float], n: list[int]) -> None:
    with pytest.raises(ValueError):
        ztest_pvalues(x, n)


def test_published_macro_reading_is_a_ztest_on_rounded_counts() -> None:
    macro = np.array([0.93, 0.915, 0.5])
    assert published_macro_pvalues(macro, 1879) == pytest.approx(
        ztest_pvalues([round(0.93 * 1879), round(0.915 * 1879), round(0.5 * 1879)],
                      [1879] * 3))


# ----------------------------------------------------------------------------- McNemar


def paired(wins: int, losses: int, both: int = 3, neither: int = 2) -> npt.NDArray[np.bool_]:
    best = [1] * wins + [0] * losses + [1] * both + [0] * neither
    other = [0] * wins + [1] * losses + [1] * both + [0] * neither
    return np.array([best, other], dtype=bool).T


@pytest.mark.parametrize(("wins", "losses"), [(7, 1), (3, 0), (10, 2), (5, 5), (0, 3), (0, 0),
                                              (30, 12), (1, 20), (400, 350)])
def test_mcnemar_equals_the_exact_binomial_tail(wins: int, losses: int) -> None:
    from scipy.stats import binomtest

    p = mcnemar_pvalues(paired(wins, losses))
    n = wins + losses
    expected = 1.0 if n == 0 else binomtest(wins, n, 0.5, alternative="greater").pvalue
    hand = sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n if n else 1.0
    assert p[0, 1] == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert p[0, 1] == pytest.approx(hand, rel=1e-9, abs=1e-15)
    reverse = 1.0 if n == 0 else binomtest(losses, n, 0.5, alternative="greater").pvalue
    assert p[1, 0] == pytest.approx(reverse, rel=1e-9, abs=1e-15)


def test_mcnemar_ignores_concordant_items() -> None:
    assert mcnemar_pvalues(paired(7, 1, 0, 0))[0, 1] == mcnemar_pvalues(paired(7, 1, 500,
                                                                               300))[0, 1]


@pytest.mark.parametrize("bad", [np.array([1, 0]), np.array([[1, 2], [0, 1]]),
                                 np.array([[1.0, np.nan]])])
def test_mcnemar_rejects_invalid_outcomes(bad: npt.NDArray[np.float64]) -> None:
    with pytest.raises(ValueError):
        mcnemar_pvalues(bad)


# ------------------------------------------------------ macro-averages: stratified, bootstrap


def test_macro_average_by_hand() -> None:
    outcomes = np.array([[1, 1, 0, 1, 0, 0]]).T
    groups = ["a", "a", "a", "b", "b", "c"]
    # (2/3 + 1/2 + 0/1) / 3 = 7/18
    assert macro_average(outcomes, groups)[0] == pytest.approx(7 / 18)
    assert macro_average(outcomes)[0] == pytest.approx(3 / 6)


def systems(seed: int, n_items: int = 300, rates: tuple[float, ...] = (0.8, 0.6)
            ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int_]]:
    rng = np.random.default_rng(seed)
    return (np.stack([rng.random(n_items) < r for r in rates], axis=1),
            rng.integers(0, 6, n_items))


def test_stratified_test_equals_the_formula_written_out() -> None:
    # tests/reference.py: numpy's var(ddof=1) group by group, scipy's norm.sf.
    passed, groups = systems(4, rates=(0.75, 0.7, 0.6))
    matrix = stratified_pvalues(passed, groups)
    expected, _ = reference_stratified(passed, list(groups))
    assert matrix == pytest.approx(expected, rel=1e-9)


def test_stratified_variance_is_unbiased_in_small_groups() -> None:
    # Groups of 2 to 5 items, as many phenomena of the DFKI suite: the unbiased variance
    # (n_g − 1) is larger than the plug-in one (n_g) by up to √2 in the standard error.
    rng = np.random.default_rng(8)
    groups = np.repeat(np.arange(30), rng.integers(2, 6, 30))
    passed = rng.random((groups.size, 2)) < (0.8, 0.7)
    difference = stratified_difference(passed, groups)
    _, errors = reference_stratified(passed, list(groups))
    assert difference.se[0, 1] == pytest.approx(errors[0, 1], rel=1e-12)
    d = passed[:, 0].astype(float) - passed[:, 1]
    plug_in = math.sqrt(sum(np.var(d[groups == g]) / (groups == g).sum()
                            for g in range(30))) / 30
    assert 1.1 < difference.se[0, 1] / plug_in < 1.5


def test_a_one_item_group_contributes_its_squared_difference() -> None:
    # Two systems agree on a 10-item group and differ on a one-item group: δ = 1/2 · 1.
    # The plug-in variance is 0 (p = 0: "significant" on one item); d² = 1 gives
    # se = sqrt(1) / 2, z = 1, p = 1 − Φ(1) = 0.1587.
    passed = np.array([[1, 1]] * 10 + [[1, 0]], dtype=bool)
    groups = ["big"] * 10 + ["single"]
    assert stratified_pvalues(passed, groups)[0, 1] == pytest.approx(0.15865525393145707)
    assert reference_stratified(passed, groups)[0][0, 1] == pytest.approx(0.15865525393145707)
    # Agreeing on the one item: it adds nothing (d = 0, and so d² = 0).
    passed[10] = True
    passed[:3, 1] = False
    with_single = stratified_difference(passed, groups).se[0, 1]
    without = stratified_difference(passed[:10], groups[:10]).se[0, 1]
    assert with_single == pytest.approx(without / 2)  # same variance, over G = 2 groups


def naive_bootstrap(passed: npt.NDArray[np.bool_], groups: npt.NDArray[np.int_],
                    resamples: int, seed: int) -> float:
    """Item-by-item stratified paired bootstrap of system 0 against system 1, shift method."""
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(groups == g) for g in np.unique(groups)]

    def delta(index: list[npt.NDArray[np.int_]]) -> float:
        return float(np.mean([passed[i, 0].mean() - passed[i, 1].mean() for i in index]))

    observed = delta(members)
    samples = [delta([rng.choice(m, size=m.size) for m in members]) for _ in range(resamples)]
    extreme = sum(s - observed >= observed - 1e-12 for s in samples)
    return (1 + extreme) / (1 + resamples)


def test_bootstrap_agrees_with_item_level_bootstrap_and_the_stratified_test() -> None:
    passed, groups = systems(4, n_items=200)
    passed[:, 1] = passed[:, 0]
    passed[:14, 1] = ~passed[:14, 1]
    fast = bootstrap_pvalues(passed, groups, resamples=4000, seed=11)
    slow = naive_bootstrap(passed, groups, 2000, 12)
    assert 0.01 < slow < 0.9
    # Same distribution, different random streams: equal within Monte Carlo error.
    tolerance = 4 * math.sqrt(slow * (1 - slow) / 2000) + 4 * fast.standard_errors[0, 1]
    assert fast.pvalues[0, 1] == pytest.approx(slow, abs=tolerance)
    # The normal approximation of the same statistic is close too.
    assert stratified_pvalues(passed, groups)[0, 1] == pytest.approx(fast.pvalues[0, 1],
                                                                      abs=0.03)
    assert fast.standard_errors[0, 1] == pytest.approx(
        math.sqrt(fast.pvalues[0, 1] * (1 - fast.pvalues[0, 1]) / 4000))


def test_bootstrap_identical_better_worse_seed_and_order() -> None:
    passed, groups = systems(1, rates=(0.8, 0.8, 0.6))
    passed[:, 1] = passed[:, 0]  # an identical twin
    result = bootstrap_pvalues(passed, groups, resamples=500, seed=7)
    assert result.pvalues[0, 1] == result.pvalues[1, 0] == 1.0
    assert result.pvalues[0, 2] < 0.05 and result.pvalues[2, 0] > 0.5
    again = bootstrap_pvalues(passed, groups, resamples=500, seed=7)
    assert np.array_equal(result.pvalues, again.pvalues)
    order = np.random.default_rng(0).permutation(passed.shape[0])
    shuffled = bootstrap_pvalues(passed[order], groups[order], resamples=500, seed=7)
    assert np.allclose(result.pvalues, shuffled.pvalues)


def test_resampling_uses_the_macro_average() -> None:
    # Group "big": best 200/200, other 150/200 (+0.25); "small": best 0/4, other 4/4 (−1).
    # Micro-average: best clearly better; macro-average: (0.25 − 1)/2 < 0, worse.
    best = np.array([1] * 200 + [0] * 4)
    other = np.array([1] * 150 + [0] * 50 + [1] * 4)
    passed = np.stack([best, other], axis=1)
    groups = np.array(["big"] * 200 + ["small"] * 4)
    assert bootstrap_pvalues(passed, None, 500, 1).pvalues[0, 1] < 0.05
    assert bootstrap_pvalues(passed, groups, 500, 1).pvalues[0, 1] > 0.5
    assert stratified_pvalues(passed, groups)[0, 1] > 0.5


def test_resampling_rejects_invalid_input() -> None:
    with pytest.raises(ValueError):
        bootstrap_pvalues(np.ones((2, 2)), None, resamples=0)
    with pytest.raises(ValueError):
        bootstrap_pvalues(np.ones((2, 2)), ["a"])
    with pytest.raises(ValueError):
        bootstrap_pvalues(np.ones((0, 2)), None)


def test_two_sided() -> None:
    one = np.array([[1.0, 0.01], [0.99, 1.0]])
    assert two_sided(one) == pytest.approx(np.array([[1.0, 0.02], [0.02, 1.0]]))


# ------------------------------------------------------------------------- intervals


def test_wilson_interval_equals_statsmodels() -> None:
    from statsmodels.stats.proportion import proportion_confint

    x = np.array([0, 1, 17, 29, 30, 1500])
    n = np.array([30, 30, 30, 30, 30, 1879])
    low, high = wilson_interval(x, n)
    reference = proportion_confint(x, n, alpha=0.05, method="wilson")
    assert low == pytest.approx(reference[0], abs=1e-12)
    assert high == pytest.approx(reference[1], abs=1e-12)


def test_macro_interval_of_one_group_is_wilson_with_divisor_n_minus_1() -> None:
    # One group: the score equation (p̂ − m)² = z² m (1 − m) / (n − 1) is Wilson's with n − 1
    # items and the same p̂ (statsmodels accepts a fractional count).
    from statsmodels.stats.proportion import proportion_confint

    x = np.array([0, 1, 17, 29, 30])
    low, high = macro_interval(x[None, :], np.array([30]))
    reference = proportion_confint(x * 29 / 30, 29, alpha=0.05, method="wilson")
    assert low == pytest.approx(reference[0], abs=1e-9)
    assert high == pytest.approx(reference[1], abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_macro_interval_equals_the_root_finding_reference(seed: int) -> None:
    # tests/reference.py fits the constrained group proportions with brentq on the Lagrange
    # condition and finds the ends with brentq; the engine solves the quadratic in closed
    # form and bisects. Groups of one item, at 0 % and at 100 % included.
    rng = np.random.default_rng(seed)
    groups = int(rng.integers(1, 14))
    sizes = rng.integers(1, 16, groups)
    passes = rng.binomial(sizes[:, None], rng.uniform(0.0, 1.0, (groups, 3)) ** 0.3)
    passes[:, 2] = sizes if seed % 2 else 0  # a system at 100 % (or 0 %) everywhere
    low, high = macro_interval(passes, sizes)
    macro = (passes / sizes[:, None]).mean(axis=0)
    for system in range(3):
        expected = macro_score_interval(passes[:, system], sizes)
        assert (low[system], high[system]) == pytest.approx(expected, abs=1e-7)
        assert low[system] <= macro[system] <= high[system]


def wald_interval(passes: npt.NDArray[np.int_], sizes: npt.NDArray[np.int_]
                  ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The macro interval before issue 22: M ± z sqrt(Σ p̂(1 − p̂)/n) / G."""
    accuracy = passes / sizes[:, None]
    half = 1.959963984540054 * np.sqrt((accuracy * (1 - accuracy) / sizes[:, None]).sum(
        axis=0)) / len(sizes)
    mean = accuracy.mean(axis=0)
    return mean - half, mean + half


@pytest.mark.parametrize(("sizes", "accuracies", "wald_at_most"), [
    # Phenomenon-like rows near 100 %: many small groups, some of one item (DFKI de-en has
    # phenomena of 1 to 5 items), most of them at 100 % in a given run.
    ((1, 9, 60), (0.93, 1.0, 60), 0.80),
    # Near 0 %: small groups of rarely passed items.
    ((2, 7, 30), (0.0, 0.08, 30), 0.88),
    # A few groups of 5–10 items nearly always passed: Wald's interval is mostly a point.
    ((5, 11, 8), (0.98, 1.0, 8), 0.50),
    # Category-like rows (14 groups of 7–300 items, 60–98 %): both should do about right.
    ((7, 300, 14), (0.6, 0.98, 14), 0.96),
])
def test_macro_interval_keeps_its_coverage(sizes: tuple[int, int, int],
                                          accuracies: tuple[float, float, int],
                                          wald_at_most: float) -> None:
    # 2,000 simulated runs per row (fixed seed): the 95 % score interval covers the true
    # macro-average at least 94 % of the time (a binomial standard error of 0.5 points at
    # 95 %), where the Wald interval covers far less near 0 and 1.
    rng = np.random.default_rng(22)
    group_sizes = rng.integers(sizes[0], sizes[1], sizes[2])
    truth = rng.uniform(*accuracies)
    passes = rng.binomial(group_sizes[:, None], truth[:, None], size=(group_sizes.size, 2000))
    low, high = macro_interval(passes, group_sizes)
    covered = float(np.mean((low <= truth.mean()) & (truth.mean() <= high)))
    old_low, old_high = wald_interval(passes, group_sizes)
    wald = float(np.mean((old_low <= truth.mean()) & (truth.mean() <= old_high)))
    assert 0.94 <= covered <= 0.99  # and not by being needlessly wide
    assert wald <= wald_at_most


# ------------------------------------------------------------------------ corrections


@pytest.mark.parametrize(("method", "expected"), [
    # Worked by hand for p = (0.01, 0.04, 0.03), m = 3.
    (None, [0.01, 0.04, 0.03]), ("bonferroni", [0.03, 0.12, 0.09]),
    ("holm", [0.03, 0.06, 0.06]), ("fdr_bh", [0.03, 0.04, 0.04])])
def test_correct_by_hand(method: Correction | None, expected: list[float]) -> None:
    assert correct([0.01, 0.04, 0.03], method) == pytest.approx(expected)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_correct_matches_statsmodels(method: Correction) -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for p in (rng.random(12), rng.random(7) ** 4, np.array([0.01, 0.01, 0.02, 0.02, 0.5, 0.9, 1.0]),
              np.array([0.3]), np.array([0.0, 0.0, 1.0])):
        expected = multipletests(p, method=method)[1]
        assert correct(p, method) == pytest.approx(expected, abs=1e-15)
        # The plain-loop reference of the real-data tests, likewise.
        assert reference_adjust(list(p), method) == pytest.approx(expected, abs=1e-15)


def test_correct_edge_cases() -> None:
    assert correct([], "holm").size == 0
    with pytest.raises(ValueError):
        correct([0.1], "sidak-ish")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        correct([1.5])
    with pytest.raises(ValueError):
        correct([float("nan")], "holm")


# ------------------------------------------------------------ clusters on constructed cases


def ztest_clusters(passes: Mapping[str, int], n: Mapping[str, int] | int = 100,
                   correction: Correction | None = None
                   ) -> tuple[set[str], list[list[str]], dict[str, tuple[int, int]]]:
    """First cluster, clusters (lists of names) and rank ranges by the Z-test."""
    names = list(passes)
    counts = [n] * len(names) if isinstance(n, int) else [n[s] for s in names]
    x = np.array([passes[s] for s in names])
    scores = x / np.array(counts)
    p = ztest_pvalues(x, counts)
    first = first_cluster(scores, p, correction=correction)
    numbers = clusters(scores, p, correction=correction)
    best, worst = rank_ranges(scores, p, correction=correction)
    groups: dict[int, list[str]] = {}
    for index in np.argsort(-scores, kind="stable"):
        groups.setdefault(int(numbers[index]), []).append(names[index])
    return ({names[i] for i in np.flatnonzero(first)}, [groups[k] for k in sorted(groups)],
            {s: (int(best[i]), int(worst[i])) for i, s in enumerate(names)})


def test_three_systems() -> None:
    first, groups, ranks = ztest_clusters({"A": 90, "B": 89, "C": 50})
    assert first == {"A", "B"}
    assert groups == [["A", "B"], ["C"]]
    assert ranks == {"A": (1, 2), "B": (1, 2), "C": (3, 3)}


def test_three_clusters() -> None:
    first, groups, ranks = ztest_clusters({"E": 30, "D": 69, "C": 70, "B": 94, "A": 95})
    assert first == {"A", "B"}
    assert groups == [["A", "B"], ["C", "D"], ["E"]]
    assert ranks == {"A": (1, 2), "B": (1, 2), "C": (3, 4), "D": (3, 4), "E": (5, 5)}


def test_non_transitive_chain_is_one_cluster() -> None:
    # A–B and B–C: z = 1.42, p = 0.078; A–C: z = 2.83, significant.
    assert ztest(60, 100, 50, 100) > 0.05 > ztest(60, 100, 40, 100)
    first, groups, ranks = ztest_clusters({"A": 60, "B": 50, "C": 40})
    assert first == {"A", "B"}
    assert groups == [["A", "B", "C"]]
    assert ranks == {"A": (1, 2), "B": (1, 3), "C": (2, 3)}


def test_first_cluster_may_skip_a_higher_system() -> None:
    # B (850/1000) is significantly worse than A (900/1000); C (8/10) is not: too few items.
    first, groups, ranks = ztest_clusters({"A": 900, "B": 850, "C": 8},
                                          {"A": 1000, "B": 1000, "C": 10})
    assert first == {"A", "C"}
    assert groups == [["A", "B", "C"]]
    assert ranks == {"A": (1, 2), "B": (2, 3), "C": (1, 3)}


def test_tied_best_systems() -> None:
    # A and B tie; C is significantly worse than B but not than A (fewer items): kept.
    assert ztest(900, 1000, 70, 100) < 0.05 <= ztest(9, 10, 70, 100)
    assert ztest_clusters({"A": 9, "B": 900, "C": 70}, {"A": 10, "B": 1000, "C": 100})[0] == \
        {"A", "B", "C"}
    assert ztest_clusters({"A": 90, "B": 90, "C": 50})[0] == {"A", "B"}


def test_correction_changes_the_first_cluster() -> None:
    # A vs B: p = 0.024; a family of three. Holm tests the largest p last at full α (B out);
    # Bonferroni multiplies it by 3 → 0.072 (B in).
    passes = {"A": 90, "B": 80, "C": 10, "D": 5}
    assert ztest(90, 100, 80, 100) == pytest.approx(0.0239, abs=1e-3)
    assert ztest_clusters(passes)[0] == {"A"}
    assert ztest_clusters(passes, correction="holm")[0] == {"A"}
    assert ztest_clusters(passes, correction="bonferroni")[0] == {"A", "B"}


def test_first_cluster_mcnemar() -> None:
    base = np.ones(60, dtype=bool)
    b, c = base.copy(), base.copy()
    b[:2] = False  # 2 discordant items: p = 1/4
    c[:10] = False  # 10: p = 1/1024
    passed = np.stack([base, b, c], axis=1)
    p = mcnemar_pvalues(passed)
    scores = passed.mean(axis=0)
    assert list(first_cluster(scores, p)) == [True, True, False]
    assert list(clusters(scores, p)) == [1, 1, 2]


def polar_question() -> npt.NDArray[np.bool_]:
    """WMT21 de-en "Polar question" (6 items): 16 systems pass all, one passes 5, one none."""
    passed = np.ones((6, 18), dtype=bool)
    passed[:, 16] = False
    passed[0, 17] = False
    return passed


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_tied_best_systems_are_one_comparison_in_the_family(correction: Correction) -> None:
    # The 16 systems at 6/6 have identical outcomes: their tests against the 0/6 system are
    # one test (p = 1/64), so the family is {top–5/6, top–0/6, 5/6–0/6}: m = 3, and
    # 3/64 < 0.05 leaves the 0/6 system out (Holm and Bonferroni alike: 3 × 1/64). Counted 16
    # times (as the best-against-other family did) it stayed in, with adjusted p 0.5.
    passed = polar_question()
    scores = passed.mean(axis=0)
    p = mcnemar_pvalues(passed)
    first = first_cluster(scores, p, correction=correction)
    assert not first[16] and first[17] and first[:16].all()
    adjusted = best_against(scores, adjusted_pvalues(scores, p, correction))
    assert adjusted[16] == pytest.approx(3 / 64)
    reference = family(list(scores), reference_mcnemar(passed), correction)
    assert adjusted[16] == pytest.approx(max(reference[b, 16] for b in range(16)))
    best, _ = rank_ranges(scores, p, correction=correction)
    assert best[16] == 17 and (best[:16] == 1).all()


@PROPERTY_SETTINGS
@given(st.integers(1, 25).flatmap(lambda k: st.lists(
    st.lists(st.booleans(), min_size=k, max_size=k), min_size=2, max_size=7)),
    st.sampled_from(["holm", "bonferroni", "fdr_bh"]), st.sampled_from([0.05, 0.25]))
def test_one_family_for_every_decision(columns: list[list[bool]], correction: Correction,
                                       alpha: float) -> None:
    # The adjusted p-values equal statsmodels' multipletests over the family written out in
    # tests/reference.py; the first cluster, its deciding p-value and the rank ranges all
    # follow from them, so a system is out of the first cluster exactly when its adjusted
    # p-value is below α, and then its best rank is not 1.
    passed = np.array(columns, dtype=bool).T
    scores = passed.mean(axis=0)
    p = mcnemar_pvalues(passed)
    expected = family(list(scores), reference_mcnemar(passed), correction)
    adjusted = adjusted_pvalues(scores, p, correction)
    assert adjusted == pytest.approx(expected, abs=1e-12)
    first = first_cluster(scores, p, alpha=alpha, correction=correction)
    best, _ = rank_ranges(scores, p, alpha=alpha, correction=correction)
    ref_first, ref_rank, ref_deciding = decisions(list(scores), expected, alpha)
    assert list(first) == ref_first
    assert list(best) == ref_rank
    deciding = best_against(scores, adjusted)
    assert np.allclose(deciding, ref_deciding, equal_nan=True, atol=1e-12)
    for system in range(len(columns)):
        assert first[system] == (not deciding[system] < alpha)
        if not first[system]:
            assert best[system] > 1


def test_validation() -> None:
    assert first_cluster(np.array([]), np.zeros((0, 0))).size == 0
    with pytest.raises(ValueError):
        first_cluster(np.array([np.nan, 0.5]), np.zeros((2, 2)))
    with pytest.raises(ValueError):
        clusters(np.array([1.0, 0.5]), np.full((2, 2), 1.5))
    with pytest.raises(ValueError):
        rank_ranges(np.array([1.0]), np.ones((1, 1)), alpha=0.0)


# ------------------------------------------------------------------------------ properties

counts = st.integers(1, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))
names = st.text(alphabet="ABCDEFG", min_size=1, max_size=2)
several = st.dictionaries(names, counts, min_size=1, max_size=6)
corrections = st.sampled_from(CORRECTIONS)


def by_name(data: Mapping[str, tuple[int, int]], correction: Correction | None
            ) -> tuple[set[str], dict[str, int], dict[str, tuple[int, int]]]:
    names_ = sorted(data)  # a fixed order for ties, as the scoring core uses
    x = [data[s][0] for s in names_]
    n = [data[s][1] for s in names_]
    scores = np.array(x) / np.array(n)
    p = ztest_pvalues(x, n)
    first = first_cluster(scores, p, correction=correction)
    numbers = clusters(scores, p, correction=correction)
    best, worst = rank_ranges(scores, p, correction=correction)
    return ({s for s, f in zip(names_, first, strict=True) if f},
            dict(zip(names_, map(int, numbers), strict=True)),
            {s: (int(b), int(w)) for s, b, w in zip(names_, best, worst, strict=True)})


@PROPERTY_SETTINGS
@given(several, st.randoms(use_true_random=False), corrections)
def test_results_independent_of_system_order(data: dict[str, tuple[int, int]],
                                             rng: random.Random,
                                             correction: Correction | None) -> None:
    keys = list(data)
    rng.shuffle(keys)
    names_ = keys
    x = np.array([data[s][0] for s in names_])
    n = np.array([data[s][1] for s in names_])
    scores, p = x / n, ztest_pvalues(x, n)
    first = {s for s, f in zip(names_, first_cluster(scores, p, correction=correction),
                               strict=True) if f}
    ranks = rank_ranges(scores, p, correction=correction)
    expected_first, expected_clusters, expected_ranks = by_name(data, correction)
    assert first == expected_first
    numbers = clusters(scores, p, correction=correction)
    assert dict(zip(names_, map(int, numbers), strict=True)) == expected_clusters
    assert {s: (int(b), int(w)) for s, b, w in zip(names_, *ranks, strict=True)} == \
        expected_ranks


@PROPERTY_SETTINGS
@given(several, st.data(), corrections)
def test_identical_systems_share_a_cluster(data: dict[str, tuple[int, int]],
                                           draw: st.DataObject,
                                           correction: Correction | None) -> None:
    original = draw.draw(st.sampled_from(sorted(data)))
    first, numbers, ranks = by_name({**data, "twin": data[original]}, correction)
    assert (original in first) == ("twin" in first)
    assert numbers[original] == numbers["twin"]
    assert ranks[original] == ranks["twin"]


@PROPERTY_SETTINGS
@given(several, corrections)
def test_structural_properties(data: dict[str, tuple[int, int]],
                               correction: Correction | None) -> None:
    first, numbers, ranks = by_name(data, correction)
    scores = {s: x / n for s, (x, n) in data.items()}
    top = max(scores.values())
    best = {s for s, v in scores.items() if v == top}
    assert best <= first
    assert all(numbers[s] == 1 for s in best)
    # Clusters follow the scores: a higher cluster number never has a higher score.
    for a in data:
        for b in data:
            if numbers[a] < numbers[b]:
                assert scores[a] > scores[b]
    assert all(1 <= lo <= hi <= len(data) for lo, hi in ranks.values())
    assert all(ranks[s][0] == 1 for s in best)
    if correction is None:
        assert first <= {s for s in data if numbers[s] == 1}


@PROPERTY_SETTINGS
@given(st.integers(1, 30).flatmap(lambda k: st.lists(
    st.lists(st.booleans(), min_size=k, max_size=k), min_size=1, max_size=5)),
    st.randoms(use_true_random=False))
def test_mcnemar_first_cluster_properties(columns: list[list[bool]],
                                          rng: random.Random) -> None:
    passed = np.array(columns, dtype=bool).T
    scores = passed.mean(axis=0)
    first = first_cluster(scores, mcnemar_pvalues(passed))
    order = list(range(len(columns)))
    rng.shuffle(order)
    shuffled = first_cluster(scores[order], mcnemar_pvalues(passed[:, order]))
    assert list(shuffled) == [first[i] for i in order]
    twin = np.concatenate([passed, passed[:, :1]], axis=1)
    with_twin = first_cluster(twin.mean(axis=0), mcnemar_pvalues(twin))
    assert with_twin[0] == with_twin[-1]
    assert first[int(np.argmax(scores))]
