"""Statistics for comparing MT systems on a test suite: pure functions on arrays.

`pvalues` makes matrices of one-tailed p-values for all pairs of systems at once (Z-test,
McNemar, stratified Z, paired bootstrap), and runs the one a proportion or macro-average
row asks for by name (`proportion_pvalues`, `macro_pvalues`); `clusters` turns them into
first clusters, full clusters and rank ranges, with corrections; `intervals` gives
confidence intervals. There
is no I/O and no module-level state; every randomised function takes a seed. statsmodels
and scipy.stats are the independent references the tests check these against; the engine
does not import them (they are test dependencies).
"""

from .clusters import (
    CORRECTIONS,
    Correction,
    adjusted_pvalues,
    best_against,
    clusters,
    correct,
    first_cluster,
    rank_ranges,
)
from .intervals import macro_interval, wilson_interval
from .pvalues import (
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MACRO_TESTS,
    TESTS,
    Bootstrap,
    Stratified,
    bootstrap_pvalues,
    macro_average,
    macro_pvalues,
    mcnemar_pvalues,
    mean_of,
    proportion_pvalues,
    published_macro_pvalues,
    published_standard_errors,
    stratified_difference,
    stratified_pvalues,
    two_sided,
    ztest_pvalues,
)

__all__ = [
    "CORRECTIONS", "DEFAULT_ALPHA", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "MACRO_TESTS",
    "TESTS", "Bootstrap", "Correction", "Stratified", "adjusted_pvalues", "best_against",
    "bootstrap_pvalues", "clusters", "correct", "first_cluster", "macro_average",
    "macro_interval", "macro_pvalues", "mcnemar_pvalues", "mean_of", "proportion_pvalues",
    "published_macro_pvalues", "published_standard_errors", "rank_ranges",
    "stratified_difference", "stratified_pvalues", "two_sided", "wilson_interval",
    "ztest_pvalues",
]
