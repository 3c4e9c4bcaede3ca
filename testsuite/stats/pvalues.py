"""Pairwise significance tests between MT systems, all pairs at once.

Every function returns a matrix ``P`` of one-tailed p-values with ``P[i, j]`` the p-value of
H1 "system *i* scores higher than system *j*" (the diagonal is 1). Clusters, rank ranges and
corrections (`testsuite.stats.clusters`) work on such matrices, whatever test made them.

* `ztest_pvalues` — the test of the published DFKI evaluation: one-tailed two-proportion
  Z-test with pooled variance. A closed form on arrays: the same p-values as
  ``statsmodels.stats.proportion.proportions_ztest(..., alternative="larger")`` (the tests
  cross-check it), for all pairs in microseconds instead of one call each.
* `mcnemar_pvalues` — exact one-tailed McNemar test on paired outcomes (every system scored
  on the same items, as after the fairness rule).
* `stratified_pvalues` — a paired Z-test for a difference of *macro*-averages: the variance
  of the difference is the sum over groups of the unbiased variance of the paired item
  differences in the group, weighted by 1/(G² nᵍ) (a one-item group contributes its squared
  difference). About the normal approximation of `bootstrap_pvalues`.
* `bootstrap_pvalues` — paired bootstrap of the macro-average, stratified by group: every
  resample draws each group's items with replacement and applies the *same* resample to
  every system (Koehn 2004; as sacreBLEU's paired bootstrap), so all pairs come from one set
  of resamples. Returns the Monte Carlo standard error of every p-value too.

`proportion_pvalues` and `macro_pvalues` run the test a row asks for by its name (`TESTS`,
`MACRO_TESTS`): every consumer (scores, year-over-year comparisons) chooses the same way.

Tied scores are never significantly different: equal proportions give p = 0.5 (Z, exactly),
identical outcomes give p = 1.0, and clusters never separate ties anyway.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .. import values

#: Significance level of the published evaluation: one-tailed, 95 % confidence.
DEFAULT_ALPHA = 0.05
#: Bootstrap resamples. With 10,000 the Monte Carlo standard error of a p-value near 0.05 is
#: 0.0022, and a p-value can be as small as 1/10,001 — small enough to pass a Holm or
#: Bonferroni correction over 17 comparisons (0.05 / 17 = 0.0029), which 1,000 cannot.
DEFAULT_RESAMPLES = 10_000
#: Fixed default seed, so that a report computed twice shows the same p-values.
DEFAULT_SEED = 12345
#: Tests of a proportion row (`proportion_pvalues`), the published one first.
TESTS = ("ztest", "paired")
#: Tests of a macro-average row (`macro_pvalues`), the published reading first.
MACRO_TESTS = ("published", "stratified", "bootstrap")
#: Resamples drawn at once (bounds the memory of the bootstrap: chunk × items integers).
_CHUNK = 1000

_erfc = np.frompyfunc(math.erfc, 1, 1)


def normal_sf(z: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Upper tail of the standard normal, 1 − Φ(z), elementwise (exact to double precision)."""
    values = np.asarray(z, dtype=np.float64)
    return np.asarray(_erfc(values / math.sqrt(2.0)), dtype=np.float64) * 0.5


def _counts(passes: npt.ArrayLike, n: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(passes)
    m = np.asarray(n)
    if x.shape != m.shape or x.ndim != 1:
        raise ValueError("passes and n must be one-dimensional and of the same length")
    integral = np.issubdtype(x.dtype, np.integer) and np.issubdtype(m.dtype, np.integer)
    if not integral and not (np.all(np.mod(x, 1) == 0) and np.all(np.mod(m, 1) == 0)):
        raise ValueError("counts must be integers")
    x = x.astype(np.int64)
    m = m.astype(np.int64)
    if np.any(m < 0) or np.any(x < 0) or np.any(x > m):
        raise ValueError("need 0 <= passes <= n for every system")
    return x, m


def ztest_pvalues(passes: npt.ArrayLike, n: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """One-tailed two-proportion Z-tests between all systems (the published test).

    With p̂ = (xᵢ + xⱼ) / (nᵢ + nⱼ) the pooled proportion under H0 of equal pass rates::

        z = (xᵢ/nᵢ − xⱼ/nⱼ) / sqrt(p̂ (1 − p̂) (1/nᵢ + 1/nⱼ)),   P[i, j] = 1 − Φ(z)

    Edge cases, decided so that no NaN escapes: equal proportions (compared exactly in
    integers) give 0.5; both 0 % or both 100 % (zero pooled variance) give 1.0; a system
    with n = 0 gives 1.0 (nothing to compare).

    Args:
        passes: Passed items per system.
        n: Items per system.

    Returns:
        The (systems × systems) matrix of p-values.

    Raises:
        ValueError: Counts that are not integers, negative, or passes above n.
    """
    x, m = _counts(passes, n)
    xi, xj = x[:, None], x[None, :]
    ni, nj = m[:, None], m[None, :]
    se = _pooled_se(x, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (xi / ni - xj / nj) / se
    p = np.ones_like(z)
    usable = (ni > 0) & (nj > 0) & (se > 0)
    p[usable] = normal_sf(z[usable])
    p[usable & (xi * nj == xj * ni)] = 0.5
    np.fill_diagonal(p, 1.0)
    return np.clip(p, 0.0, 1.0)


def _pooled_se(x: npt.NDArray[np.int64], m: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """sqrt(p̂ (1 − p̂) (1/nᵢ + 1/nⱼ)) with the pooled p̂ of every pair (NaN where n = 0)."""
    xi, xj = x[:, None], x[None, :]
    ni, nj = m[:, None], m[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (xi + xj) / (ni + nj)
        return np.asarray(np.sqrt(pooled * (1 - pooled) * (1 / ni + 1 / nj)),
                          dtype=np.float64)


def _binary(passed: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    array = np.asarray(passed)
    if array.ndim != 2:
        raise ValueError("outcomes must be a matrix: one row per item, one column per system")
    if array.dtype != np.bool_ and not np.all((array == 0) | (array == 1)):
        raise ValueError("outcomes must be 0/1 (pass/fail)")
    return array.astype(np.bool_)


def discordant(passed: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """``D[i, j]`` = items system *i* passes and system *j* fails."""
    p = _binary(passed).astype(np.int64)
    return np.asarray(p.T @ (1 - p), dtype=np.int64)


def binomial_tail_half(k: npt.ArrayLike, n: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """P(X ≥ k) for X ~ Bin(n, 1/2), elementwise; 1 where k ≤ 0.

    Summed exactly from the probabilities C(n, j) / 2ⁿ, computed in log space from a table
    of log-factorials (one per distinct n); the same values as scipy's ``binom.sf`` (the
    tests cross-check), without importing scipy on the scoring path.
    """
    k_arr = np.asarray(k, dtype=np.int64)
    n_arr = np.asarray(n, dtype=np.int64)
    out = np.ones(np.broadcast(k_arr, n_arr).shape, dtype=np.float64)
    k_b, n_b = np.broadcast_arrays(k_arr, n_arr)
    top = int(n_b.max(initial=0))
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, top + 1)))])
    tails: dict[int, npt.NDArray[np.float64]] = {}
    for index in zip(*np.nonzero(k_b > 0), strict=True):
        count, wins = int(n_b[index]), int(k_b[index])
        if wins > count:
            out[index] = 0.0
            continue
        tail = tails.get(count)
        if tail is None:
            j = np.arange(count + 1)
            pmf = np.exp(log_factorial[count] - log_factorial[j] - log_factorial[count - j]
                         - count * math.log(2.0))
            tail = tails[count] = np.cumsum(pmf[::-1])[::-1]  # tail[j] = P(X ≥ j)
        out[index] = tail[wins]
    return np.clip(out, 0.0, 1.0)


def mcnemar_pvalues(passed: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Exact one-tailed McNemar tests between all systems on the same items.

    Only discordant items say which system is better: b = items *i* passes and *j* fails,
    c = the reverse. Under H0 each goes either way with probability 1/2, so b ~ Bin(b + c,
    1/2) and P[i, j] = P(X ≥ b). The exact form, not the χ² approximation, because two good
    systems often differ on a handful of items only (Fagerland, Lydersen & Laake 2013).
    No discordant items (identical outcomes): p = 1.

    Args:
        passed: Items × systems, 1 (or True) where the system passed the item.

    Returns:
        The (systems × systems) matrix of p-values.
    """
    wins = discordant(passed)
    total = wins + wins.T
    p = np.where(total == 0, 1.0, binomial_tail_half(wins, total))
    np.fill_diagonal(p, 1.0)
    return np.asarray(p, dtype=np.float64)


def _groups(groups: npt.ArrayLike | None, n_items: int) -> tuple[npt.NDArray[np.intp], int]:
    """Integer code per item (sorted labels, so results do not depend on item order)."""
    if groups is None:
        return np.zeros(n_items, dtype=np.intp), 1
    labels = np.asarray(groups)
    if labels.ndim != 1 or labels.size != n_items:
        raise ValueError(f"need one group label per item ({n_items})")
    uniques, codes = np.unique(labels, return_inverse=True)
    return codes.astype(np.intp).reshape(-1), len(uniques)


def macro_average(passed: npt.ArrayLike, groups: npt.ArrayLike | None = None
                  ) -> npt.NDArray[np.float64]:
    """Per system, the mean over groups of the group accuracy (micro without groups).

    The sum is `mean_of`'s (exactly rounded), so any other mean of the same group
    accuracies — the bounds of `testsuite.scoring` — gives the same number to the last bit.
    """
    p = _binary(passed)
    if p.shape[0] == 0:
        raise ValueError("no items to score")
    codes, count = _groups(groups, p.shape[0])
    sizes = np.bincount(codes, minlength=count).astype(np.float64)
    per_group = np.stack([np.bincount(codes, weights=p[:, s], minlength=count)
                          for s in range(p.shape[1])], axis=1) / sizes[:, None]
    return np.array([mean_of(column) for column in per_group.T], dtype=np.float64)


def mean_of(values: npt.ArrayLike) -> float:
    """The mean of some numbers with an exactly rounded sum (`math.fsum`): the same result
    in whatever order they come, so two means of the same values never differ by rounding."""
    numbers = np.asarray(values, dtype=np.float64).ravel()
    return math.fsum(numbers.tolist()) / numbers.size


class Stratified(NamedTuple):
    """The stratified paired difference of macro-averages between all systems.

    Attributes:
        delta: ``delta[i, j]`` = macro(i) − macro(j).
        se: Its standard error (`stratified_pvalues` says how it is estimated).
        identical: Whether the two systems have the same outcome on every item.
    """

    delta: npt.NDArray[np.float64]
    se: npt.NDArray[np.float64]
    identical: npt.NDArray[np.bool_]

    def pvalues(self) -> npt.NDArray[np.float64]:
        """The one-tailed p-values of `stratified_pvalues`."""
        with np.errstate(divide="ignore", invalid="ignore"):
            z = self.delta / self.se
        pv = np.where(self.se > 0, normal_sf(np.where(self.se > 0, z, 0.0)),
                      np.where(self.delta > 0, 0.0, np.where(self.delta < 0, 1.0, 0.5)))
        pv = np.where(self.identical, 1.0, pv)
        np.fill_diagonal(pv, 1.0)
        return np.asarray(np.clip(pv, 0.0, 1.0), dtype=np.float64)


def stratified_difference(passed: npt.ArrayLike, groups: npt.ArrayLike | None = None
                          ) -> Stratified:
    """The difference of macro-averages of all pairs of systems and its standard error
    (the definitions of `stratified_pvalues`)."""
    p = _binary(passed).astype(np.float64)
    codes, count = _groups(groups, p.shape[0])
    sizes = np.bincount(codes, minlength=count).astype(np.float64)[:, None, None]
    sums = np.stack([p[codes == g].sum(axis=0) for g in range(count)])  # passes per group
    both = np.stack([p[codes == g].T @ p[codes == g] for g in range(count)])  # both pass
    # Per group, for d = pass(i) − pass(j): Σ d = passes(i) − passes(j), and
    # Σ d² = passes(i) + passes(j) − 2 both (d² is 1 exactly where one of them passes).
    sum_d = sums[:, :, None] - sums[:, None, :]
    sum_d2 = sums[:, :, None] + sums[:, None, :] - 2 * both
    squares = np.maximum(sum_d2 - sum_d**2 / sizes, 0.0)  # Σ (d − mean d)²
    with np.errstate(divide="ignore", invalid="ignore"):
        # Var(mean d) = s² / n with the unbiased s² = Σ (d − mean)² / (n − 1); a one-item
        # group has no spread to estimate s² from and contributes d² (see the docstring).
        variance = np.where(sizes > 1, squares / (sizes - 1) / sizes, sum_d2)
    delta = (sum_d / sizes).mean(axis=0)
    se = np.sqrt(variance.sum(axis=0)) / count
    identical = np.all(sum_d2 == 0, axis=0)
    return Stratified(np.asarray(delta, dtype=np.float64), np.asarray(se, dtype=np.float64),
                      np.asarray(identical, dtype=np.bool_))


def stratified_pvalues(passed: npt.ArrayLike, groups: npt.ArrayLike | None = None
                       ) -> npt.NDArray[np.float64]:
    """Paired Z-tests of macro-averages, with the variance of the stratified difference.

    For systems *i*, *j* and item differences dₖ = passₖ(i) − passₖ(j), the macro difference
    is δ = (1/G) Σ_g mean_g(d), and Var(δ) = (1/G²) Σ_g s²_g / n_g, with s²_g the unbiased
    variance of d in group g, Σ (d − mean_g d)² / (n_g − 1). (The plug-in divisor n_g, the
    variance the bootstrap reproduces, understates it: by a median 8–11 % of the standard
    error for the phenomenon macro-average of the DFKI suite, where many phenomena have
    five items or fewer.)

    **A one-item group** has no spread to estimate s²_g from. It contributes d², the squared
    difference of the two systems on its item: under the null hypothesis of no difference
    in that group E[d²] is exactly Var(d), so the estimate is unbiased where the test needs
    it and larger otherwise (conservative); it borrows nothing from other groups. Zero, the
    plug-in's value, would let a difference on that one item be significant at any size
    (δ > 0 with no variance); d² makes it count as one item's worth of doubt.

    P[i, j] = 1 − Φ(δ / sqrt(Var δ)); δ = 0 gives 0.5 (1.0 if the outcomes are identical);
    a non-zero δ with zero variance (the systems differ the same way on every item of some
    groups of two or more items and agree elsewhere) gives 0 or 1.

    Args:
        passed: Items × systems, 0/1.
        groups: Group label per item (category or phenomenon); None for micro-averages.
    """
    return stratified_difference(passed, groups).pvalues()


class Bootstrap(NamedTuple):
    """P-values of the paired bootstrap and their Monte Carlo standard errors."""

    pvalues: npt.NDArray[np.float64]
    standard_errors: npt.NDArray[np.float64]
    resamples: int


def bootstrap_pvalues(passed: npt.ArrayLike, groups: npt.ArrayLike | None = None,
                      resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
                      ) -> Bootstrap:
    """Paired, stratified bootstrap tests of macro-averages between all systems.

    The statistic is δ = macro(i) − macro(j). Each resample draws, within every group, as
    many items as the group has, with replacement, and gives every system the same items
    (paired). The p-value uses the shift method (Efron & Tibshirani 1993, §16.4;
    Berg-Kirkpatrick, Burkett & Klein 2012): p = (1 + #{δ* − δ ≥ δ}) / (1 + B). Identical
    systems give δ* = δ = 0 in every resample, so p = 1. The Monte Carlo standard error of
    each p is sqrt(p (1 − p) / B).

    Args:
        passed: Items × systems, 0/1.
        groups: Group label per item (category or phenomenon); None for micro-averages.
        resamples: B, the number of resamples.
        seed: Seed of `numpy.random.default_rng`.

    Raises:
        ValueError: Invalid outcomes or labels, or fewer than one resample.
    """
    resamples = values.count(resamples, "resamples", minimum=1)
    p = _binary(passed).astype(np.float64)
    n_items, n_systems = p.shape
    if n_items == 0:
        raise ValueError("no items to score")
    codes, count = _groups(groups, n_items)
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=count)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    sorted_p = p[order]
    # Per group: its items' outcomes, weighted 1/(G n_g), so a resample's macro is a sum.
    weight = 1.0 / (count * sizes)
    observed = macro_average(p.astype(bool), codes)
    delta = observed[:, None] - observed[None, :]
    rng = np.random.default_rng(seed)
    exceed = np.zeros((n_systems, n_systems), dtype=np.int64)
    done = 0
    while done < resamples:
        chunk = min(_CHUNK, resamples - done)
        macro = np.zeros((chunk, n_systems))
        for g in range(count):
            block = sorted_p[starts[g]:starts[g] + sizes[g]]
            # How often each item of the group is drawn in each resample (n_g draws with
            # replacement; counting the draws is ten times faster than `multinomial`), then
            # the passes of every system in that resample.
            size = int(sizes[g])
            picks = rng.integers(0, size, size=(chunk, size))
            picks += np.arange(chunk)[:, None] * size
            drawn = np.bincount(picks.ravel(), minlength=chunk * size).reshape(chunk, size)
            macro += weight[g] * (drawn.astype(np.float64) @ block)
        shifted = (macro[:, :, None] - macro[:, None, :]) - delta[None]
        exceed += np.count_nonzero(shifted >= delta[None] - 1e-12, axis=0)
        done += chunk
    pv = (1 + exceed) / (1 + resamples)
    identical = np.array([[np.array_equal(p[:, i], p[:, j]) for j in range(n_systems)]
                          for i in range(n_systems)])
    pv = np.where(identical, 1.0, pv)
    np.fill_diagonal(pv, 1.0)
    pv = np.clip(pv, 0.0, 1.0)
    return Bootstrap(pv, np.sqrt(pv * (1 - pv) / resamples), int(resamples))


def published_counts(macro: npt.ArrayLike, n: int) -> npt.NDArray[np.int64]:
    """The macro-averages as the published reading takes them: M·n rounded to whole passes."""
    return np.rint(np.asarray(macro, dtype=np.float64) * n).astype(np.int64)


def published_macro_pvalues(macro: npt.ArrayLike, n: int) -> npt.NDArray[np.float64]:
    """The Z-test on macro-average rows as the published tables read it.

    The macro-average M of each system is taken as a proportion over the row's ``n`` items,
    M·n rounded to whole passes (`published_counts`), and compared with `ztest_pvalues`.
    This reproduces the published first clusters; it is approximate: a mean of group
    accuracies is not x/n, and the test ignores that the systems are scored on the same
    items. Its standard error (`published_standard_errors`) may be too small (the category
    macro-average of the DFKI suite: about half the stratified one) or too large (the
    phenomenon macro-average: conservative). `stratified_pvalues` and `bootstrap_pvalues`
    are the correct tests.
    """
    counts = published_counts(macro, n)
    return ztest_pvalues(counts, np.full(counts.shape, n, dtype=np.int64))


def published_standard_errors(macro: npt.ArrayLike, n: int) -> npt.NDArray[np.float64]:
    """The standard error of the difference the published reading assumes, every pair:
    the pooled one of `ztest_pvalues` on the rounded counts."""
    counts = published_counts(macro, n)
    return _pooled_se(counts, np.full(counts.shape, n, dtype=np.int64))


def proportion_pvalues(test: str, passed: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """P-values of a proportion row (passes / items, every system on the same items) by the
    named test: ``ztest`` (`ztest_pvalues`, the published test) or ``paired``
    (`mcnemar_pvalues`).

    Args:
        test: One of `TESTS`.
        passed: Items × systems, 0/1.

    Raises:
        ValueError: An unknown test, or invalid outcomes.
    """
    p = _binary(passed)
    if test == "paired":
        return mcnemar_pvalues(p)
    if test == "ztest":
        return ztest_pvalues(p.sum(axis=0), np.full(p.shape[1], p.shape[0]))
    raise ValueError(f"unknown test {test!r} (known: {', '.join(TESTS)})")


def macro_pvalues(test: str, passed: npt.ArrayLike, groups: npt.ArrayLike,
                  resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
                  ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]:
    """P-values of a macro-average row (`macro_average` over `groups`) by the named test:
    ``published`` (`published_macro_pvalues` over the row's items), ``stratified``
    (`stratified_pvalues`) or ``bootstrap`` (`bootstrap_pvalues`).

    Args:
        test: One of `MACRO_TESTS`.
        passed: Items × systems, 0/1.
        groups: Group label per item (category or phenomenon).
        resamples: Resamples of the bootstrap.
        seed: Seed of the bootstrap.

    Returns:
        The p-values, and for the bootstrap their Monte Carlo standard errors (else None).

    Raises:
        ValueError: An unknown test, or invalid outcomes or labels.
    """
    if test == "published":
        return published_macro_pvalues(macro_average(passed, groups), len(_binary(passed))), None
    if test == "stratified":
        return stratified_pvalues(passed, groups), None
    if test == "bootstrap":
        boot = bootstrap_pvalues(passed, groups, resamples, seed)
        return boot.pvalues, boot.standard_errors
    raise ValueError(f"unknown macro test {test!r} (known: {', '.join(MACRO_TESTS)})")


def two_sided(one_tailed: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Two-sided p-values from a matrix of one-tailed ones: 2 × min(P[i, j], P[j, i])."""
    return np.asarray(np.minimum(1.0, 2 * np.minimum(one_tailed, one_tailed.T)),
                      dtype=np.float64)
