"""Tests for `testsuite.significance`: p-values against hand computations, clusters and rank
ranges on constructed cases, and Hypothesis properties of the clustering."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from testsuite.significance import (
    Correction,
    approximate_randomization_greater,
    bootstrap_comparison,
    clusters,
    correct,
    first_cluster,
    first_cluster_mcnemar,
    first_cluster_ztest,
    macro_average,
    mcnemar_comparison,
    mcnemar_greater,
    paired_bootstrap_greater,
    randomization_comparison,
    rank_ranges,
    ztest_comparison,
    ztest_greater,
)

CORRECTIONS: list[Correction | None] = [None, "holm", "bonferroni", "fdr_bh"]
PROPERTY_SETTINGS = settings(max_examples=40, deadline=None)


# ------------------------------------------------------------------------------ Z-test


def hand_ztest(x1: int, n1: int, x2: int, n2: int) -> float:
    """Textbook pooled two-proportion Z-test, one-tailed (H1: p1 > p2), written out by hand.

    z = (p1 − p2) / sqrt(p̂(1 − p̂)(1/n1 + 1/n2)) with p̂ = (x1 + x2)/(n1 + n2), and
    p = 1 − Φ(z) = erfc(z/√2)/2 — independent of statsmodels.
    """
    pooled = (x1 + x2) / (n1 + n2)
    z = (x1 / n1 - x2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return 0.5 * math.erfc(z / math.sqrt(2))


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2"),
    [
        (90, 100, 89, 100),
        (90, 100, 50, 100),
        (7, 10, 3, 10),
        (45, 60, 30, 55),
        (120, 150, 200, 300),
        (3, 10, 7, 10),  # "best" is actually worse: p > 0.5
        (1, 1, 0, 1),
    ],
)
def test_ztest_matches_hand_formula(x1: int, n1: int, x2: int, n2: int) -> None:
    # Expected value: `hand_ztest`, the pooled formula evaluated with math.erfc.
    assert ztest_greater(x1, n1, x2, n2) == pytest.approx(hand_ztest(x1, n1, x2, n2), abs=1e-9)


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "expected"),
    [
        # Worked by hand with a standard normal table (4 decimals):
        # p̂ = 0.895, se = sqrt(0.895·0.105·0.02) = 0.04335, z = 0.2307, 1 − Φ(z) = 0.4088.
        (90, 100, 89, 100, 0.4088),
        # p̂ = 0.5, se = sqrt(0.25·0.2) = 0.2236, z = 1.7889, 1 − Φ(z) = 0.0368.
        (7, 10, 3, 10, 0.0368),
    ],
)
def test_ztest_worked_examples(x1: int, n1: int, x2: int, n2: int, expected: float) -> None:
    assert ztest_greater(x1, n1, x2, n2) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "expected"),
    [
        (50, 100, 50, 100, 0.5),  # identical proportions: z = 0
        (3, 6, 1, 2, 0.5),  # equal proportions, different n
        (0, 10, 0, 20, 1.0),  # both 0 %: zero variance
        (10, 10, 20, 20, 1.0),  # both 100 %: zero variance
        (0, 0, 5, 10, 1.0),  # no items
        (5, 10, 0, 0, 1.0),
        (0, 0, 0, 0, 1.0),
    ],
)
def test_ztest_edge_cases(x1: int, n1: int, x2: int, n2: int, expected: float) -> None:
    with np.errstate(all="raise"):
        assert ztest_greater(x1, n1, x2, n2) == expected


@pytest.mark.parametrize(("x1", "n1", "x2", "n2"), [(11, 10, 1, 2), (-1, 5, 1, 2), (1, 2, 3, -1)])
def test_ztest_rejects_invalid_counts(x1: int, n1: int, x2: int, n2: int) -> None:
    with pytest.raises(ValueError):
        ztest_greater(x1, n1, x2, n2)


counts = st.integers(0, 300).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@PROPERTY_SETTINGS
@given(counts, counts)
def test_ztest_pvalue_in_unit_interval(best: tuple[int, int], other: tuple[int, int]) -> None:
    assert 0.0 <= ztest_greater(*best, *other) <= 1.0


# ----------------------------------------------------------------------------- McNemar


def paired_outcomes(
    wins: int, losses: int, both: int = 3, neither: int = 2
) -> tuple[npt.NDArray[np.int_], npt.NDArray[np.int_]]:
    """Outcome arrays with the given discordant counts plus some concordant items."""
    best = [1] * wins + [0] * losses + [1] * both + [0] * neither
    other = [0] * wins + [1] * losses + [1] * both + [0] * neither
    return np.array(best), np.array(other)


def hand_binomial_tail(b: int, c: int) -> float:
    """P(X ≥ b) for X ~ Bin(b + c, 1/2), summed with math.comb."""
    n = b + c
    return sum(math.comb(n, k) for k in range(b, n + 1)) / 2**n


@pytest.mark.parametrize(
    ("wins", "losses", "expected"),
    [
        (7, 1, 9 / 256),  # (C(8,7) + C(8,8)) / 2^8
        (3, 0, 1 / 8),
        (10, 2, 79 / 4096),  # (66 + 12 + 1) / 2^12
        (5, 5, 638 / 1024),
        (0, 3, 1.0),
        (0, 0, 1.0),  # no discordant pairs
        (30, 12, None),
        (1, 20, None),
    ],
)
def test_mcnemar_matches_binomial_sum(wins: int, losses: int, expected: float | None) -> None:
    # Expected value: the exact binomial tail written out with math.comb.
    hand = hand_binomial_tail(wins, losses) if wins + losses else 1.0
    if expected is not None:
        assert hand == pytest.approx(expected, abs=1e-12)
    best, other = paired_outcomes(wins, losses)
    assert mcnemar_greater(best, other) == pytest.approx(hand, rel=1e-9, abs=1e-12)


def test_mcnemar_accepts_bool_and_ignores_concordant_items() -> None:
    best, other = paired_outcomes(7, 1, both=0, neither=0)
    padded = paired_outcomes(7, 1, both=500, neither=300)
    assert mcnemar_greater(best.astype(bool), other.astype(bool)) == mcnemar_greater(*padded)


@pytest.mark.parametrize(
    ("best", "other"),
    [([1, 0], [1, 0, 1]), ([1, 2], [0, 1]), ([[1, 0]], [[1, 0]]), ([1.0, np.nan], [1, 0])],
)
def test_mcnemar_rejects_invalid_outcomes(best: list[float], other: list[float]) -> None:
    with pytest.raises(ValueError):
        mcnemar_greater(best, other)


@PROPERTY_SETTINGS
@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=60))
def test_mcnemar_pvalue_in_unit_interval(pairs: list[tuple[bool, bool]]) -> None:
    best = np.array([b for b, _ in pairs], dtype=bool)
    other = np.array([o for _, o in pairs], dtype=bool)
    assert 0.0 <= mcnemar_greater(best, other) <= 1.0


# ------------------------------------------------------------ bootstrap / randomisation


def test_macro_average_by_hand() -> None:
    outcomes = [1, 1, 0, 1, 0, 0]
    groups = ["a", "a", "a", "b", "b", "c"]
    # (2/3 + 1/2 + 0/1) / 3 = 7/18
    assert macro_average(outcomes, groups) == pytest.approx(7 / 18)
    assert macro_average(outcomes) == pytest.approx(3 / 6)


RESAMPLING_TESTS = [paired_bootstrap_greater, approximate_randomization_greater]


def random_pair(
    seed: int, n_items: int = 300, p_best: float = 0.8, p_other: float = 0.6
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.int_]]:
    """Outcomes of two systems and a group label per item."""
    rng = np.random.default_rng(seed)
    return (
        rng.random(n_items) < p_best,
        rng.random(n_items) < p_other,
        rng.integers(0, 6, n_items),
    )


@pytest.mark.parametrize("method", RESAMPLING_TESTS)
def test_resampling_clearly_better_identical_and_worse(method: Callable[..., Any]) -> None:
    best, other, groups = random_pair(1)
    assert method(best, other, groups, n_resamples=500, seed=7) < 0.05
    # Identical systems: every resample reproduces δ = 0, so p is exactly 1.
    assert method(best, best.copy(), groups, n_resamples=500, seed=7) == 1.0
    assert method(other, best, groups, n_resamples=500, seed=7) > 0.5


@pytest.mark.parametrize("method", RESAMPLING_TESTS)
def test_resampling_reproducible_with_seed(method: Callable[..., Any]) -> None:
    best, _, groups = random_pair(2)
    other = best.copy()
    other[:12] = ~other[:12]  # a small, borderline difference
    first = method(best, other, groups, n_resamples=300, seed=42)
    assert method(best, other, groups, n_resamples=300, seed=42) == first
    assert 0.0 < first <= 1.0


@pytest.mark.parametrize("method", RESAMPLING_TESTS)
def test_resampling_independent_of_item_order(method: Callable[..., Any]) -> None:
    best, other, groups = random_pair(3, p_best=0.7, p_other=0.65)
    order = np.random.default_rng(0).permutation(best.size)
    p = method(best, other, groups, n_resamples=300, seed=5)
    assert method(best[order], other[order], groups[order], n_resamples=300, seed=5) == p


@pytest.mark.parametrize("method", RESAMPLING_TESTS)
def test_resampling_uses_the_macro_average(method: Callable[..., Any]) -> None:
    # Group "big": best 200/200, other 150/200 (+0.25). Group "small": best 0/4, other 4/4
    # (−1). Micro-average: best clearly better; macro-average: (0.25 − 1)/2 < 0, worse.
    best = np.array([1] * 200 + [0] * 4)
    other = np.array([1] * 150 + [0] * 50 + [1] * 4)
    groups = np.array(["big"] * 200 + ["small"] * 4)
    assert method(best, other, None, n_resamples=500, seed=1) < 0.05
    assert method(best, other, groups, n_resamples=500, seed=1) > 0.5


def naive_bootstrap(
    best: npt.NDArray[np.bool_],
    other: npt.NDArray[np.bool_],
    groups: npt.NDArray[np.int_],
    n_resamples: int,
    seed: int,
) -> float:
    """Item-by-item stratified paired bootstrap with the shift p-value, for cross-checking."""
    rng = np.random.default_rng(seed)
    labels = np.unique(groups)

    def delta(idx: list[npt.NDArray[np.int_]]) -> float:
        return float(np.mean([best[i].mean() - other[i].mean() for i in idx]))

    members = [np.flatnonzero(groups == g) for g in labels]
    observed = delta(members)
    samples = [delta([rng.choice(m, size=m.size) for m in members]) for _ in range(n_resamples)]
    extreme = sum(s - observed >= observed - 1e-12 for s in samples)
    return (1 + extreme) / (1 + n_resamples)


def naive_randomization(
    best: npt.NDArray[np.bool_],
    other: npt.NDArray[np.bool_],
    groups: npt.NDArray[np.int_],
    n_resamples: int,
    seed: int,
) -> float:
    """Item-by-item approximate randomisation, for cross-checking."""
    rng = np.random.default_rng(seed)
    observed = macro_average(best, groups) - macro_average(other, groups)
    extreme = 0
    for _ in range(n_resamples):
        swap = rng.random(best.size) < 0.5
        a, b = np.where(swap, other, best), np.where(swap, best, other)
        extreme += macro_average(a, groups) - macro_average(b, groups) >= observed - 1e-12
    return (1 + extreme) / (1 + n_resamples)


@pytest.mark.parametrize(
    ("method", "naive"),
    [
        (paired_bootstrap_greater, naive_bootstrap),
        (approximate_randomization_greater, naive_randomization),
    ],
)
def test_resampling_agrees_with_item_level_implementation(
    method: Callable[..., Any], naive: Callable[..., Any]
) -> None:
    # The module draws per-group counts instead of items; the distributions are the same,
    # so Monte-Carlo p-values near 0.1 must agree within a few standard errors (≈ 0.01).
    best, _, groups = random_pair(4, n_items=200)
    other = best.copy()
    other[:14] = ~other[:14]
    fast = method(best, other, groups, n_resamples=2000, seed=11)
    slow = naive(best, other, groups, 2000, 12)
    assert 0.01 < slow < 0.9
    assert fast == pytest.approx(slow, abs=0.04)


@pytest.mark.parametrize("method", RESAMPLING_TESTS)
def test_resampling_rejects_invalid_input(method: Callable[..., Any]) -> None:
    with pytest.raises(ValueError):
        method([1, 0], [1, 0], None, n_resamples=0)
    with pytest.raises(ValueError):
        method([1, 0], [1, 0], ["a"])
    with pytest.raises(ValueError):
        method([], [], None)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 3)), min_size=1, max_size=40),
    st.integers(0, 2**32 - 1),
)
def test_resampling_pvalues_in_unit_interval(
    items: list[tuple[bool, bool, int]], seed: int
) -> None:
    best = np.array([b for b, _, _ in items])
    other = np.array([o for _, o, _ in items])
    groups = np.array([g for _, _, g in items])
    for method in RESAMPLING_TESTS:
        assert 0.0 < method(best, other, groups, n_resamples=50, seed=seed) <= 1.0


# ------------------------------------------------------------------- correction


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        # Worked by hand for p = (0.01, 0.04, 0.03), m = 3.
        (None, [0.01, 0.04, 0.03]),
        ("bonferroni", [0.03, 0.12, 0.09]),  # m·p
        ("holm", [0.03, 0.06, 0.06]),  # sorted: 3·0.01, max(., 2·0.03), max(., 1·0.04)
        ("fdr_bh", [0.03, 0.04, 0.04]),  # sorted: 3/1·0.01, min(3/2·0.03, 0.04), 3/3·0.04
    ],
)
def test_correct_by_hand(method: Correction | None, expected: list[float]) -> None:
    assert correct([0.01, 0.04, 0.03], method) == pytest.approx(expected)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_correct_matches_statsmodels(method: Correction) -> None:
    # Holm is computed in-module (statsmodels' Holm runs gc.collect() on every call); all
    # methods must give exactly what `multipletests` gives, ties and large values included.
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    families = [
        rng.random(12),
        rng.random(7) ** 4,
        np.array([0.01, 0.01, 0.02, 0.02, 0.5, 0.9, 1.0]),
        np.array([0.3]),
        np.array([0.0, 0.0, 1.0]),
    ]
    for p in families:
        expected = multipletests(p, method=method)[1]
        assert correct(p, method) == pytest.approx(expected, abs=1e-15)


def test_correct_edge_cases() -> None:
    assert correct([], "holm").size == 0
    with pytest.raises(ValueError):
        correct([0.1], "sidak-ish")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        correct([1.5])
    with pytest.raises(ValueError):
        correct([float("nan")], "holm")


# ------------------------------------------------------ clusters on constructed cases


def ztest_clusters(
    passes: Mapping[str, int], n: Mapping[str, int] | int = 100
) -> tuple[set[str], list[list[str]], dict[str, tuple[int, int]]]:
    items = {name: n for name in passes} if isinstance(n, int) else dict(n)
    comparison = ztest_comparison(passes, items)
    return (
        first_cluster_ztest(passes, items),
        clusters(*comparison),
        rank_ranges(*comparison),
    )


def test_three_systems_from_brief() -> None:
    # A vs B: p = 0.41 (see worked example); A and B vs C: z > 6.
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
    # A–B and B–C: z = 1.42, p = 0.078 (not significant); A–C: z = 2.83 (significant).
    assert ztest_greater(60, 100, 50, 100) > 0.05
    assert ztest_greater(60, 100, 40, 100) < 0.05
    first, groups, ranks = ztest_clusters({"A": 60, "B": 50, "C": 40})
    assert first == {"A", "B"}
    assert groups == [["A", "B", "C"]]
    assert ranks == {"A": (1, 2), "B": (1, 3), "C": (2, 3)}


def test_first_cluster_may_skip_a_higher_system() -> None:
    # B (850/1000) is significantly worse than A (900/1000), C (8/10) is not: too few items.
    first, groups, ranks = ztest_clusters(
        {"A": 900, "B": 850, "C": 8}, {"A": 1000, "B": 1000, "C": 10}
    )
    assert first == {"A", "C"}
    assert groups == [["A", "B", "C"]]
    assert ranks == {"A": (1, 2), "B": (2, 3), "C": (1, 3)}


def test_tied_best_systems() -> None:
    # A and B tie; C is significantly worse than B but not than A (fewer items) → kept.
    passes, n = {"A": 9, "B": 900, "C": 70}, {"A": 10, "B": 1000, "C": 100}
    assert ztest_greater(900, 1000, 70, 100) < 0.05 <= ztest_greater(9, 10, 70, 100)
    assert first_cluster_ztest(passes, n) == {"A", "B", "C"}
    assert first_cluster_ztest({"A": 90, "B": 90, "C": 50}, {s: 100 for s in "ABC"}) == {"A", "B"}


def test_correction_changes_the_first_cluster() -> None:
    # A vs B: p = 0.024 raw; two hopeless systems make a family of three. Holm tests the
    # largest p last, at full α (B out); Bonferroni multiplies it by 3 → 0.072 (B in).
    passes = {"A": 90, "B": 80, "C": 10, "D": 5}
    n = dict.fromkeys(passes, 100)
    assert ztest_greater(90, 100, 80, 100) == pytest.approx(0.0239, abs=1e-3)
    assert first_cluster_ztest(passes, n) == {"A"}
    assert first_cluster_ztest(passes, n, correction="holm") == {"A"}
    assert first_cluster_ztest(passes, n, correction="bonferroni") == {"A", "B"}


def test_first_cluster_mcnemar() -> None:
    base = np.ones(60, dtype=bool)
    a = base.copy()
    b = base.copy()
    b[:2] = False  # 2 discordant items: p = 1/4
    c = base.copy()
    c[:10] = False  # 10 discordant items: p = 1/1024
    assert first_cluster_mcnemar({"A": a, "B": b, "C": c}) == {"A", "B"}
    assert clusters(*mcnemar_comparison({"A": a, "B": b, "C": c})) == [["A", "B"], ["C"]]


@pytest.mark.parametrize("build", [bootstrap_comparison, randomization_comparison])
def test_macro_average_comparisons(build: Callable[..., Any]) -> None:
    best, other, groups = random_pair(5)
    outcomes = {"best": best, "twin": best.copy(), "other": other}
    comparison = build(outcomes, groups, n_resamples=300, seed=3)
    assert comparison.scores["best"] == pytest.approx(macro_average(best, groups))
    assert first_cluster(*comparison) == {"best", "twin"}
    assert clusters(*comparison) == [["best", "twin"], ["other"]]


def test_generic_api_validates() -> None:
    assert first_cluster({}, lambda a, b: 0.0) == set()
    assert clusters({}, lambda a, b: 0.0) == []
    assert rank_ranges({}, lambda a, b: 0.0) == {}
    with pytest.raises(ValueError):
        first_cluster({"A": float("nan"), "B": 0.5}, lambda a, b: 0.0)
    with pytest.raises(ValueError):
        clusters({"A": 1.0, "B": 0.5}, lambda a, b: 1.5)
    with pytest.raises(ValueError):
        rank_ranges({"A": 1.0}, lambda a, b: 0.0, alpha=0.0)
    with pytest.raises(ValueError):
        ztest_comparison({"A": 1}, {"A": 0})
    with pytest.raises(ValueError):
        mcnemar_comparison({"A": [1, 0], "B": [1]})


# ----------------------------------------------------------------- properties

names = st.text(alphabet="ABCDEFG", min_size=1, max_size=2)
systems = st.dictionaries(names, counts.filter(lambda c: c[1] > 0), min_size=1, max_size=6)
corrections = st.sampled_from(CORRECTIONS)


def split(data: Mapping[str, tuple[int, int]]) -> tuple[dict[str, int], dict[str, int]]:
    return {k: v[0] for k, v in data.items()}, {k: v[1] for k, v in data.items()}


@PROPERTY_SETTINGS
@given(systems, st.randoms(use_true_random=False), corrections)
def test_results_independent_of_system_order(
    data: dict[str, tuple[int, int]], rng: random.Random, correction: Correction | None
) -> None:
    keys = list(data)
    rng.shuffle(keys)
    shuffled = {k: data[k] for k in keys}
    original, reordered = ztest_comparison(*split(data)), ztest_comparison(*split(shuffled))
    for function in (first_cluster, clusters, rank_ranges):
        assert function(*original, correction=correction) == function(
            *reordered, correction=correction
        )


@PROPERTY_SETTINGS
@given(systems, st.data(), corrections)
def test_identical_systems_share_a_cluster(
    data: dict[str, tuple[int, int]], draw: st.DataObject, correction: Correction | None
) -> None:
    original = draw.draw(st.sampled_from(sorted(data)))
    data = {**data, "twin": data[original]}
    comparison = ztest_comparison(*split(data))
    first = first_cluster(*comparison, correction=correction)
    assert (original in first) == ("twin" in first)
    index = {
        name: i
        for i, group in enumerate(clusters(*comparison, correction=correction))
        for name in group
    }
    assert index[original] == index["twin"]
    ranks = rank_ranges(*comparison, correction=correction)
    assert ranks[original] == ranks["twin"]


@PROPERTY_SETTINGS
@given(systems, corrections)
def test_structural_properties(
    data: dict[str, tuple[int, int]], correction: Correction | None
) -> None:
    comparison = ztest_comparison(*split(data))
    scores = comparison.scores
    top = max(scores.values())
    best = {name for name, score in scores.items() if score == top}
    first = first_cluster(*comparison, correction=correction)
    groups = clusters(*comparison, correction=correction)
    ranks = rank_ranges(*comparison, correction=correction)
    # The best systems are always in the first cluster.
    assert best <= first
    assert best <= set(groups[0])
    # Clusters partition the systems in descending order of score.
    flat = [name for group in groups for name in group]
    assert sorted(flat) == sorted(data)
    assert [scores[name] for name in flat] == sorted(scores.values(), reverse=True)
    # Rank ranges are well-formed and the best systems can rank first.
    assert all(1 <= lo <= hi <= len(data) for lo, hi in ranks.values())
    assert all(ranks[name][0] == 1 for name in best)
    if correction is None:
        # Same tests, no correction: a system not beaten by the best cannot be cut off.
        assert first <= set(groups[0])


@PROPERTY_SETTINGS
@given(
    st.integers(1, 30).flatmap(
        lambda k: st.dictionaries(
            names, st.lists(st.booleans(), min_size=k, max_size=k), min_size=1, max_size=5
        )
    ),
    st.randoms(use_true_random=False),
)
def test_mcnemar_clusters_properties(outcomes: dict[str, list[bool]], rng: random.Random) -> None:
    first = first_cluster_mcnemar(outcomes)
    keys = list(outcomes)
    rng.shuffle(keys)
    assert first_cluster_mcnemar({k: outcomes[k] for k in keys}) == first
    twin = {**outcomes, "twin": list(outcomes[keys[0]])}
    with_twin = first_cluster_mcnemar(twin)
    assert (keys[0] in with_twin) == ("twin" in with_twin)
    scores = mcnemar_comparison(outcomes).scores
    assert max(scores, key=lambda k: (scores[k], k)) in first
