"""Scores of the systems on one language pair: the rows of the WMT test-suite papers.

Definitions follow `../shared/SPEC.md`:

* **Fairness rule** (on by default): an item enters the scores only if no included system
  has a `warning` or `missing` outcome for it (no output at all counts as missing). Without
  it (``fair=False``, said in every report) all located items enter, and a warning or
  missing output simply does not count as a pass.
* **Accuracy** of a phenomenon or category = passes / items entering. **Micro-average** over
  all items entering; **category macro-average** = mean of the category accuracies;
  **phenomenon macro-average** = mean of the phenomenon accuracies (a phenomenon is always
  its category's: two categories may share a phenomenon name). A row none of whose items
  entered has no accuracy: it is reported in `Scores.dropped`, and the macro-averages say
  over how many groups they are taken.
* **First performance cluster** of a row: the best system and every system not significantly
  worse in a one-tailed test at α (bold in reports). The published test is the
  two-proportion Z-test. With ``test="paired"`` proportion rows use the exact McNemar test
  (after the fairness rule every system is scored on the same items). With a correction,
  the first cluster, the clusters and the rank ranges read one family of comparisons
  (`stats.adjusted_pvalues`), and `ScoreRow.p_adjusted` is the p-value that decides.
* **Macro-average rows** are not one proportion. ``macro_test="published"`` (the default with
  the Z-test) tests them the way the published tables are read — the macro-average taken as
  a proportion over the row's items, rounded to whole passes — which reproduces the papers
  but is approximate, and errs either way: the note on each macro row measures which
  (`_RowBuilder._published_note`). ``stratified`` is a paired Z-test with the stratified,
  unbiased variance of the difference (the default with ``test="paired"``), ``bootstrap``
  a paired bootstrap within groups (its Monte Carlo error is reported per p-value,
  `ScoreRow.p_mc_error`, and in a note).
* **Bounds** (`ScoreRow.lower`, `upper`): while warnings are open, how far deciding them —
  any of them, either way — could move the row's accuracy under the same fairness rule:
  always an interval containing the accuracy shown (macro rows: one exactly rounded sum,
  `stats.mean_of`, for the accuracy and its bounds; every row: clamped to the accuracy).
* **Confidence intervals** (`ci_low`, `ci_high`): 95 % Wilson intervals for proportion rows,
  the score interval of `stats.macro_interval` for macro rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from .. import __version__
from ..errors import Problem, TestsuiteError
from ..stats import (
    CORRECTIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MACRO_TESTS,
    TESTS,
    Correction,
    adjusted_pvalues,
    best_against,
    clusters,
    first_cluster,
    macro_average,
    macro_interval,
    macro_pvalues,
    mean_of,
    proportion_pvalues,
    published_standard_errors,
    rank_ranges,
    stratified_difference,
    wilson_interval,
)
from ..values import choice, count, probability
from .matrix import FAIL, MISSING, WARNING, OutcomeMatrix
from .signature import Signature, suite_hash

if TYPE_CHECKING:
    import pandas as pd

    from ..evaluate import Evaluation
    from ..model import Suite

#: Row levels, in report order.
LEVELS = ("phenomenon", "category", "micro", "category-macro", "phenomenon-macro")
MACRO_LEVELS = {"category-macro": "category", "phenomenon-macro": "phenomenon"}
Test = Literal["ztest", "paired"]
MacroTest = Literal["published", "stratified", "bootstrap"]
#: Names in the signature of methods whose definition changed since the first release: a
#: signature names what computed its numbers, so an old number is never taken for a new one.
#: ``stratified``: the unbiased (n_g − 1) variance of the paired differences (was n_g).
SIGNATURE_NAMES = {"stratified": "stratified-unbiased"}
#: Suffix of a correction's name in the signature: the family is every pair of systems with
#: different scores (`stats.adjusted_pvalues`; the first cluster used the best-against-other
#: comparisons only).
FAMILY = "pairs"
#: The published reading's standard error counts as "close to" the stratified one within
#: this factor either way; beyond it, the note on the row says which way it errs.
PUBLISHED_TOLERANCE = 1.05


class Significance:
    """The significance settings every comparison of systems has (`ScoreOptions`,
    `compare.CompareOptions`), checked and resolved in one place; the dataclasses using it
    declare the fields, with their defaults.

    Attributes:
        test: Test of proportion rows: one of `TESTS`.
        macro_test: Test of macro-average rows (one of `MACRO_TESTS`), or None for the
            default of `test` (see `macro`).
        alpha: Significance level.
        seed: Seed of the bootstrap.
        resamples: Bootstrap resamples.
    """

    test: Test
    macro_test: MacroTest | None
    alpha: float
    seed: int
    resamples: int

    def check_significance(self, tests: tuple[str, ...] = TESTS) -> None:
        """Refuse a setting out of range (`values.BadValue`); an unknown test is named with
        the known `tests`, listed in that order."""
        choice(self.test, tests, "test")
        choice(self.macro_test, (None, *MACRO_TESTS), "macro test")
        probability(self.alpha, "alpha")
        count(self.resamples, "resamples", minimum=1)
        count(self.seed, "seed")

    @property
    def macro(self) -> MacroTest:
        """The macro-row test in effect: ``stratified`` with ``paired``, ``published`` with
        ``ztest``, unless `macro_test` says."""
        if self.macro_test is not None:
            return self.macro_test
        return "stratified" if self.test == "paired" else "published"

    def signature_parts(self, normalise: str | None, correction: str | None = None
                        ) -> tuple[tuple[str, object], ...]:
        """The parts of a `Signature` that say how systems were tested: test, macro test,
        the normalisation matched under (`norm`, None: none), alpha, the multiple-comparison
        `correction` (None: the part is left out) and the bootstrap's resamples and seed
        (when it is used)."""
        if correction not in (None, "none"):
            correction = f"{correction}-{FAMILY}"
        return (("test", self.test), ("macro", SIGNATURE_NAMES.get(self.macro, self.macro)),
                ("norm", normalise), ("alpha", f"{self.alpha:g}"), ("correction", correction),
                ("bootstrap", f"{self.resamples}@{self.seed}"
                 if self.macro == "bootstrap" else None))


@dataclass(frozen=True)
class ScoreOptions(Significance):
    """How scores are computed; every field that changes a number is in the signature.

    Attributes:
        fair: Apply the fairness rule (the published default).
        test: ``ztest`` (published) or ``paired`` (exact McNemar) for proportion rows.
        macro_test: Test of macro-average rows: ``published`` (the default with ``ztest``),
            ``stratified`` (the default with ``paired``) or ``bootstrap``.
        alpha: One-tailed significance level.
        correction: Multiple-comparison correction (``holm``, ``bonferroni``, ``fdr_bh``).
        clusters: Also compute full WMT-style clusters and rank ranges.
        categories: Only these categories (None: all).
        phenomena: Only these phenomena (None: all).
        systems: Only these systems (None: all).
        seed: Seed of the bootstrap.
        resamples: Bootstrap resamples.
    """

    fair: bool = True
    test: Test = "ztest"
    macro_test: MacroTest | None = None
    alpha: float = 0.05
    correction: Correction | None = None
    clusters: bool = False
    categories: tuple[str, ...] | None = None
    phenomena: tuple[str, ...] | None = None
    systems: tuple[str, ...] | None = None
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES

    def __post_init__(self) -> None:
        self.check_significance()
        choice(self.correction, (None, *CORRECTIONS), "correction")


@dataclass
class Coverage:
    """Which items entered the scores and why the others did not.

    Attributes:
        items: Items of the suite (after filters).
        not_located: Items with no output from any system (not in the WMT source, say).
        with_warning: Items left out because some system has a warning for them.
        with_missing: Items left out because some system has no or an empty output (and
            none has a warning: the two counts add up).
        entered: Items that entered the scores.
        warnings: Warnings per system on the located items.
        missing: Missing outputs per system on the located items.
    """

    items: int
    not_located: int
    with_warning: int
    with_missing: int
    entered: int
    warnings: dict[str, int] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        text = f"{self.entered:,} of {self.items:,} items entered the scores"
        reasons = [f"{n:,} {why}" for n, why in (
            (self.not_located, "not located"),
            (self.with_warning, "with a warning for some system"),
            (self.with_missing, "with a missing output (and no warning)")) if n]
        return text + (f" (left out: {', '.join(reasons)})" if reasons else "")


@dataclass(frozen=True)
class Note:
    """A sentence a report must show beside the numbers, and the rows it concerns.

    Attributes:
        text: The sentence.
        levels: The row levels it concerns (a table shows the notes of its levels); empty
            for notes on the whole report.
    """

    text: str
    levels: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.text

    def concerns(self, levels: Sequence[str]) -> bool:
        """Whether a table showing rows of `levels` must show this note."""
        return not self.levels or bool(set(self.levels) & set(levels))


@dataclass(frozen=True)
class Dropped:
    """A row of the tables with no item entering the scores, and why."""

    level: str
    category: str
    phenomenon: str
    located: int
    with_warning: int
    with_missing: int

    def __str__(self) -> str:
        name = (f"{self.phenomenon} ({self.category})" if self.level == "phenomenon"
                else self.category)
        if not self.located:
            return f"{name}: no item located"
        why = []
        if self.with_warning:
            why.append(f"{self.with_warning} with a warning")
        if self.with_missing:
            why.append(f"{self.with_missing} with a missing output")
        return f"{name}: none of its {self.located} located items entered ({', '.join(why)})"


@dataclass(frozen=True, eq=False)
class ScoreRow:
    """One row of the tables: values per system, in the order of `Scores.systems`.

    Attributes:
        level: One of `LEVELS`.
        category: The category ("" for averages).
        phenomenon: The phenomenon ("" unless ``level == "phenomenon"``).
        items: Items entering the row.
        located: Items of the row located before the fairness rule (``located - items``
            were left out by it); for macro rows, the groups averaged.
        passes: Passes per system (macro rows: the macro-average read as whole items).
        accuracy: Accuracy per system.
        first_cluster: Whether each system is in the row's first cluster.
        p_value: One-tailed p-value of the best system(s) against each system (the test of
            the first cluster, before correction; with tied best systems the largest, the one
            that decides); NaN for the best.
        p_adjusted: With a correction, the same p-value adjusted in the row's one family
            (`stats.adjusted_pvalues`): the one that decides the first cluster (in it
            exactly when ≥ α); None without a correction.
        p_mc_error: With the bootstrap (macro rows), the Monte Carlo standard error of
            `p_value`, sqrt(p (1 − p) / B); None otherwise.
        lower, upper: Bounds while warnings are open (see the module docs).
        ci_low, ci_high: 95 % confidence interval of the accuracy.
        cluster, rank_best, rank_worst: Full clusters and rank ranges, if computed.
        groups: For macro rows, the number of groups averaged.
    """

    level: str
    category: str
    phenomenon: str
    items: int
    located: int
    passes: npt.NDArray[np.int64]
    accuracy: npt.NDArray[np.float64]
    first_cluster: npt.NDArray[np.bool_]
    p_value: npt.NDArray[np.float64]
    lower: npt.NDArray[np.float64]
    upper: npt.NDArray[np.float64]
    ci_low: npt.NDArray[np.float64]
    ci_high: npt.NDArray[np.float64]
    cluster: npt.NDArray[np.int64] | None = None
    rank_best: npt.NDArray[np.int64] | None = None
    rank_worst: npt.NDArray[np.int64] | None = None
    p_adjusted: npt.NDArray[np.float64] | None = None
    p_mc_error: npt.NDArray[np.float64] | None = None
    groups: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        """(level, category, phenomenon)."""
        return (self.level, self.category, self.phenomenon)

    def values(self) -> list[dict[str, Any]]:
        """Per system (in order): passes, accuracy, first_cluster, p_value, p_adjusted and
        p_mc_error (when they exist), lower, upper, ci_low, ci_high, and cluster, rank_best,
        rank_worst when computed; NaN where a value does not exist (the best system's
        p-value)."""
        names = [n for n in _PER_SYSTEM if getattr(self, n) is not None]
        columns = [getattr(self, n).tolist() for n in names]
        return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]

    def reordered(self, order: npt.NDArray[np.intp]) -> ScoreRow:
        """The same row with its systems in another order."""
        arrays = {name: getattr(self, name)[order] for name in _PER_SYSTEM
                  if getattr(self, name) is not None}
        return ScoreRow(self.level, self.category, self.phenomenon, self.items, self.located,
                        groups=self.groups, **arrays)


_PER_SYSTEM = ("passes", "accuracy", "first_cluster", "p_value", "p_adjusted", "p_mc_error",
               "lower", "upper", "ci_low", "ci_high", "cluster", "rank_best", "rank_worst")


@dataclass
class Scores:
    """Scores of the systems on one language pair.

    Attributes:
        pair: Language pair.
        systems: Systems, best first (by category macro-average, as in the papers).
        table_rows: Every row, phenomena first (grouped by category), then categories, then
            the micro-average and the two macro-averages.
        coverage: What entered the scores.
        options: The options used.
        signature: From which the numbers can be reproduced (``str()`` gives the line).
        dropped: Rows none of whose items entered, with why.
        notes: What every report must say beside the numbers (the macro-row test reading,
            the groups a macro-average covers, a fairness rule over chosen systems only, …).
        matrix: The outcomes scored (items × systems, after the filters).
        entered: Which items of `matrix` entered the scores.
        stability: With the bootstrap, first-cluster decisions whose p-value lies within
            three Monte Carlo standard errors of α (row label, system, p-value).
    """

    pair: str
    systems: list[str]
    table_rows: list[ScoreRow]
    coverage: Coverage
    options: ScoreOptions
    signature: Signature
    dropped: list[Dropped]
    notes: list[Note]
    matrix: OutcomeMatrix
    entered: npt.NDArray[np.bool_]
    stability: list[tuple[str, str, float]] = field(default_factory=list)

    def level(self, level: str) -> list[ScoreRow]:
        """The rows of one level, in table order."""
        return [row for row in self.table_rows if row.level == level]

    def row(self, level: str, category: str = "", phenomenon: str = "") -> ScoreRow | None:
        """One row, or None if it has no value (dropped or filtered out)."""
        return self._by_key.get((level, category, phenomenon))

    @cached_property
    def _by_key(self) -> dict[tuple[str, str, str], ScoreRow]:
        return {row.key: row for row in self.table_rows}

    @cached_property
    def table(self) -> pd.DataFrame:
        """Long DataFrame, one row per (level, category, phenomenon, system): ``passes``,
        ``items``, ``located``, ``accuracy``, ``first_cluster``, ``p_value``, ``lower``,
        ``upper``, ``ci_low``, ``ci_high`` (and ``cluster``, ``rank_best``, ``rank_worst``
        with clusters)."""
        import pandas as pd

        return pd.DataFrame([{"level": row.level, "category": row.category,
                              "phenomenon": row.phenomenon, "system": system, "items": row.items,
                              "located": row.located, **values}
                             for row in self.table_rows
                             for system, values in zip(self.systems, row.values(), strict=True)])

    def rows(self, level: str) -> pd.DataFrame:
        """The rows of one level as a wide table: accuracy per system (columns, best first)."""
        import pandas as pd

        part = self.level(level)
        index = pd.MultiIndex.from_tuples([(r.category, r.phenomenon) for r in part],
                                          names=["category", "phenomenon"])
        return pd.DataFrame([r.accuracy for r in part], index=index,
                            columns=pd.Index(self.systems, name="system"))


# ----------------------------------------------------------------------------------------
# Scoring


def score(evaluation: Evaluation, suite: Suite, pair: str | None = None,
          options: ScoreOptions | None = None) -> Scores:
    """Score the systems of an evaluation on one language pair.

    Args:
        evaluation: Outcomes of every item × system.
        suite: The suite evaluated (item order, categories, the signature's hash).
        pair: Language pair; may be omitted when the evaluation has only one.
        options: How to score; the published method by default.

    Raises:
        TestsuiteError: for an unknown pair, category, phenomenon or system, when no system
            is left to score, or when no item enters the scores.
    """
    options = options or ScoreOptions()
    matrix = OutcomeMatrix.from_evaluation(evaluation, suite, pair)
    refuse_left_out(evaluation, matrix.pair, options.systems)
    scores = score_matrix(matrix, options, suite_hash(suite, matrix.pair))
    scores.notes[:0] = input_notes(evaluation, matrix.pair)
    return scores


def refuse_left_out(evaluation: Evaluation, pair: str, systems: Sequence[str] | None) -> None:
    """Refuse a system filter that names a system left out of the scores, saying why: it
    is in the outputs, so the name filter's "unknown system" would mislead.

    Raises:
        TestsuiteError: one problem per such system.
    """
    kept = {name.casefold() for name in evaluation.systems}
    left_out = {e.system.casefold(): e for e in evaluation.excluded if e.pair in ("", pair)}
    problems = []
    for name in systems or ():
        why = left_out.get(name.casefold())
        if why is not None and name.casefold() not in kept:
            problems.append(Problem(
                f"--system {name}: {why.system} is left out of every score, because "
                f"{why.count:,} of its {why.total:,} outputs are {why.what} (it did not "
                "translate this suite); choose another system"))
    if problems:
        raise TestsuiteError(problems)


def input_notes(evaluation: Evaluation, pair: str) -> list[Note]:
    """What the evaluation noticed about the inputs of a pair, for every report to say."""
    notes = [Note(text) for text in evaluation.notes]
    notes += [Note(f"left out: {e}") for e in evaluation.excluded if e.pair in ("", pair)]
    columns = evaluation.columns
    pair_systems = {s for s, p in zip(columns["system"], columns["pair"], strict=True)
                    if p == pair}
    notes += [Note(f"identical outputs on every item: {' = '.join(group)}")
              for group in evaluation.identical if set(group) <= pair_systems]
    located = evaluation.located.get(pair)
    if located is not None and located.repeated:
        text = (f"{len(located.repeated)} items occur more than once in the WMT source; the "
                f"{located.repeated_policy} occurrence's output was used")
        if located.repeated_policy == "agree":
            text = (f"{len(located.repeated)} items occur more than once in the WMT source; "
                    "an item whose occurrences got different outcomes is a warning")
        if located.differing:
            most = sorted(located.differing.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            text += (f" ({len(most)} systems translated some occurrences differently, e.g. "
                     + ", ".join(f"{s} on {len(i)} items" for s, i in most[:3]) + ")")
        notes.append(Note(text))
    return notes


def score_matrix(full: OutcomeMatrix, options: ScoreOptions, suite_id: str) -> Scores:
    """Score an outcome matrix (see `score`); `suite_id` goes into the signature."""
    if not full.systems:
        raise TestsuiteError(f"{full.pair}: no system to score (every system was left out: "
                             "none translated the suite)")
    matrix = full.select(options.categories, options.phenomena, options.systems)
    entered = matrix.entered(options.fair)
    coverage = _coverage(matrix, entered, options.fair)
    if coverage.entered == 0:
        raise TestsuiteError(f"{matrix.pair}: no item entered the scores ({coverage}); resolve "
                             "warnings with `testsuite triage`, or score without the fairness "
                             "rule (--no-fair)")
    notes: list[Note] = []
    if matrix.normalise:
        notes.append(Note(f"outputs matched under the {matrix.normalise} normalisation "
                          "(typographic equivalence): not comparable with numbers computed "
                          "without it, such as the published ones"))
    if not options.fair:
        notes.append(Note("WITHOUT the fairness rule: warnings and missing outputs count as "
                          "not passed"))
    if options.systems and len(matrix.systems) < len(full.systems) and options.fair:
        everyone = full.select(options.categories, options.phenomena).entered(True)
        notes.append(Note(f"the fairness rule was applied over the {len(matrix.systems)} "
                          f"chosen systems only: {coverage.entered:,} items entered (with all "
                          f"{len(full.systems)} systems: {int(everyone.sum()):,})"))
    builder = _RowBuilder(matrix, entered, options)
    rows, dropped = builder.build()
    notes += builder.notes
    decided = matrix.deciders(entered)
    if decided is not None:
        notes.append(Note(f"Of the {sum(decided.values()):,} passes and fails scored, "
                          f"{decided['rule']:,} were decided by the rules, {decided['hand']:,} "
                          f"by hand and {decided['proposal']:,} by proposals (verdicts "
                          "recorded from a batch or a learned proposal)"))
    macro = next(r for r in rows if r.level == "category-macro").accuracy
    order = np.array(sorted(range(len(matrix.systems)),
                            key=lambda i: (-macro[i], matrix.systems[i])), dtype=np.intp)
    systems = [matrix.systems[i] for i in order]
    stability = [(label, matrix.systems[i], p) for label, i, p in builder.unstable]
    signature = Signature.of(
        ("testsuite", __version__), ("pair", matrix.pair), ("suite", suite_id),
        ("fair", "yes" if options.fair else "no"),
        *options.signature_parts(matrix.normalise, options.correction or "none"),
        ("categories", options.categories), ("phenomena", options.phenomena),
        ("systems", options.systems), ("n-systems", len(systems)),
        ("n-items", coverage.entered),
        *((f"by-{name}", n) for name, n in (decided or {}).items()))
    return Scores(matrix.pair, systems, [r.reordered(order) for r in rows], coverage, options,
                  signature, dropped, notes, matrix, entered, stability)


def _coverage(matrix: OutcomeMatrix, entered: npt.NDArray[np.bool_], fair: bool) -> Coverage:
    warning, missing = matrix.has(WARNING), matrix.has(MISSING)
    any_warning, any_missing = warning.any(axis=1), missing.any(axis=1)
    return Coverage(
        items=matrix.suite_items, not_located=len(matrix.not_located),
        with_warning=int(any_warning.sum()) if fair else 0,
        with_missing=int((any_missing & ~any_warning).sum()) if fair else 0,
        entered=int(entered.sum()),
        warnings={s: int(n) for s, n in zip(matrix.systems, warning.sum(axis=0), strict=True)},
        missing={s: int(n) for s, n in zip(matrix.systems, missing.sum(axis=0), strict=True)})


class _RowBuilder:
    """Computes every row of one matrix; collects notes and unstable bootstrap decisions."""

    def __init__(self, matrix: OutcomeMatrix, entered: npt.NDArray[np.bool_],
                 options: ScoreOptions) -> None:
        self.matrix = matrix
        self.entered = entered
        self.options = options
        self.passed = matrix.passed
        self.n_systems = len(matrix.systems)
        # Per item and system: could a decision still make it a pass / a fail? (Bounds.)
        open_ = matrix.has(WARNING)
        self.can_pass = self.passed | open_
        self.can_fail = matrix.has(FAIL) | open_
        # Items that can still enter: under the fairness rule those without a missing output.
        self.candidates = (~matrix.has(MISSING).any(axis=1)) & ~entered if options.fair \
            else np.zeros(len(entered), dtype=bool)
        self.notes: list[Note] = []
        self.unstable: list[tuple[str, int, float]] = []
        self._group_bounds: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def build(self) -> tuple[list[ScoreRow], list[Dropped]]:
        rows: list[ScoreRow] = []
        dropped: list[Dropped] = []
        for level in ("phenomenon", "category"):
            groups = self.matrix.groups(level)
            located = groups.sizes()
            sizes = groups.sizes(self.entered)
            passes = self.matrix.group_passes(groups, self.entered)
            low, high = self._bounds(groups, sizes, passes)
            self._group_bounds[level] = (sizes, low, high)
            for g, (category, phenomenon) in enumerate(groups.keys):
                if sizes[g] == 0:
                    members = groups.codes == g
                    warning = self.matrix.has(WARNING)[members].any(axis=1)
                    missing = self.matrix.has(MISSING)[members].any(axis=1)
                    dropped.append(Dropped(level, category, phenomenon, int(located[g]),
                                           int(warning.sum()), int((missing & ~warning).sum())))
                    continue
                mask = self.entered & (groups.codes == g)
                rows.append(self._proportion_row(level, category, phenomenon, mask,
                                                 passes[g], int(sizes[g]), int(located[g]),
                                                 low[g], high[g]))
        everything = np.ones(len(self.entered), dtype=bool)
        micro_passes = self.passed[self.entered].sum(axis=0)
        low, high = self._bounds_of(everything, int(self.entered.sum()), micro_passes)
        rows.append(self._proportion_row("micro", "", "", self.entered, micro_passes,
                                         int(self.entered.sum()), len(self.entered), low, high))
        for level, by in MACRO_LEVELS.items():
            rows.append(self._macro_row(level, by))
        self._note_dropped(dropped)
        return rows, dropped

    # --- proportion rows --------------------------------------------------------------------

    def _proportion_row(self, level: str, category: str, phenomenon: str,
                        mask: npt.NDArray[np.bool_], passes: npt.NDArray[np.int64], items: int,
                        located: int, low: np.ndarray, high: np.ndarray) -> ScoreRow:
        accuracy = passes / items
        pvalues = proportion_pvalues(self.options.test, self.passed[mask])
        ci_low, ci_high = wilson_interval(passes, np.full(self.n_systems, items))
        return self._row(level, category, phenomenon, items, located, passes, accuracy,
                         pvalues, low, high, ci_low, ci_high)

    def _bounds(self, groups: Any, sizes: np.ndarray, passes: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """Bounds of every group of a level (groups × systems)."""
        lows, highs = [], []
        for g in range(len(groups.keys)):
            low, high = self._bounds_of(groups.codes == g, int(sizes[g]), passes[g])
            lows.append(low)
            highs.append(high)
        return np.array(lows), np.array(highs)

    def _bounds_of(self, members: npt.NDArray[np.bool_], items: int,
                   passes: npt.NDArray[np.int64]) -> tuple[np.ndarray, np.ndarray]:
        """How far deciding open warnings could move the accuracy of a row.

        With the fairness rule, deciding the warnings of an item lets it enter; deciding some
        and not others, any subset of the items that can still enter may join. The highest
        accuracy adds every such item this system passes or may pass; the lowest, every one
        it fails or may fail: (P + A) / (n + A) and P / (n + B), which bracket P / n. Without
        the rule the items are fixed, and only this system's own warnings can turn to passes.
        """
        if self.options.fair:
            extra = members & self.candidates
            can_pass = self.can_pass[extra].sum(axis=0)
            can_fail = self.can_fail[extra].sum(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                high = (passes + can_pass) / (items + can_pass)
                low = passes / (items + can_fail)
            return low, high
        open_ = self.matrix.has(WARNING)[members & self.entered].sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return passes / items, (passes + open_) / items

    # --- macro rows -------------------------------------------------------------------------

    def _macro_row(self, level: str, by: str) -> ScoreRow:
        groups = self.matrix.groups(by)
        sizes, group_low, group_high = self._group_bounds[by]
        kept = sizes > 0
        passes = self.matrix.group_passes(groups, self.entered)[kept]
        items = int(self.entered.sum())
        passed, labels = self.passed[self.entered], groups.codes[self.entered]
        accuracy = macro_average(passed, labels)
        pvalues, errors = macro_pvalues(self.options.macro, passed, labels,
                                        self.options.resamples, self.options.seed)
        ci_low, ci_high = macro_interval(passes, sizes[kept])
        low, high = _macro_bounds(group_low[kept], group_high[kept], group_low[~kept],
                                  group_high[~kept])
        if self.options.macro == "published":
            self.notes.append(self._published_note(level, items, accuracy, pvalues, passed,
                                                   labels))
        if (~kept).any():
            self.notes.append(Note(
                f"the {by} macro-average is over {int(kept.sum())} of {len(kept)} {by} rows "
                f"({int((~kept).sum())} had no item entering the scores)", (level,)))
        rounded = np.rint(accuracy * items).astype(np.int64)
        return self._row(level, "", "", items, len(kept), rounded, accuracy, pvalues, low,
                         high, ci_low, ci_high, groups=int(kept.sum()), errors=errors)

    def _published_note(self, level: str, items: int, accuracy: np.ndarray,
                        pvalues: np.ndarray, passed: np.ndarray, labels: np.ndarray) -> Note:
        """Which way the published reading errs on this row, measured on its data.

        The ratio of the standard error the published reading assumes to the stratified one
        (`stats.stratified_difference`), median over the comparisons of the first cluster
        (each best system against each other one), and the systems the stratified test
        would put in or out of the first cluster.
        """
        options = self.options
        by = MACRO_LEVELS[level]
        text = (f"the {by} macro-average: first cluster by the published reading (the "
                f"macro-average as a proportion over {items:,} items, rounded to whole "
                "passes), as in the papers")
        best = accuracy == accuracy.max()
        published = published_standard_errors(accuracy, items)[np.ix_(best, ~best)]
        stratified = stratified_difference(passed, labels)
        se = stratified.se[np.ix_(best, ~best)]
        if (se > 0).any():
            ratio = float(np.median(published[se > 0] / se[se > 0]))
            measured = (f"{ratio:.2f}× the stratified one, median over the best-against-other "
                        "comparisons")
            if ratio < 1 / PUBLISHED_TOLERANCE:
                text += f"; here it understates the standard error ({measured})"
            elif ratio > PUBLISHED_TOLERANCE:
                text += f"; here it overstates the standard error ({measured}): conservative"
            else:
                text += f"; here its standard error is about right ({measured})"
        first = first_cluster(accuracy, pvalues, alpha=options.alpha,
                              correction=options.correction)
        right = first_cluster(accuracy, stratified.pvalues(),
                              alpha=options.alpha, correction=options.correction)
        order = sorted(range(accuracy.size), key=lambda i: (-accuracy[i], self.matrix.systems[i]))
        wrongly_out = [self.matrix.systems[i] for i in order if right[i] and not first[i]]
        wrongly_in = [self.matrix.systems[i] for i in order if first[i] and not right[i]]
        if wrongly_out:
            text += (f"; by the stratified test {_names(wrongly_out)} would be in the first "
                     "cluster too")
        if wrongly_in:
            text += (f"; by the stratified test {_names(wrongly_in)} would not be in the "
                     "first cluster")
        if not wrongly_in and not wrongly_out:
            text += "; the stratified test gives the same first cluster"
        return Note(text + ". --macro-test stratified or bootstrap tests it correctly",
                    (level,))

    def _check_stability(self, level: str, deciding: np.ndarray, errors: np.ndarray) -> None:
        """Note the first-cluster decisions whose deciding p-value lies within three Monte
        Carlo standard errors of α."""
        close = []
        for other in np.flatnonzero(~np.isnan(deciding)):
            p, se = deciding[other], errors[other]
            if abs(p - self.options.alpha) < 3 * se:
                self.unstable.append((level, int(other), float(p)))
                close.append(f"{self.matrix.systems[other]} (p = {p:.3f})")
        if close:
            self.notes.append(Note(
                f"the {MACRO_LEVELS[level]} macro-average: the first-cluster decisions on "
                f"{', '.join(close)} may change with "
                f"the bootstrap's seed: their p-values lie within three Monte Carlo standard "
                f"errors of α (more --resamples settle them)", (level,)))

    # --- one row ----------------------------------------------------------------------------

    def _row(self, level: str, category: str, phenomenon: str, items: int, located: int,
             passes: np.ndarray, accuracy: np.ndarray, pvalues: np.ndarray, low: np.ndarray,
             high: np.ndarray, ci_low: np.ndarray, ci_high: np.ndarray, groups: int = 0,
             errors: np.ndarray | None = None) -> ScoreRow:
        options = self.options
        first = first_cluster(accuracy, pvalues, alpha=options.alpha,
                              correction=options.correction)
        p_value = best_against(accuracy, pvalues)
        extra: dict[str, Any] = {}
        deciding = p_value
        if options.correction is not None:
            deciding = extra["p_adjusted"] = best_against(
                accuracy, adjusted_pvalues(accuracy, pvalues, options.correction))
        if errors is not None:
            error = extra["p_mc_error"] = _deciding_error(accuracy, pvalues, errors)
            # A corrected p-value is the raw one times the correction's factor, and so is
            # its Monte Carlo error.
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = np.where(p_value > 0, deciding / p_value, 1.0)
            if not np.isnan(error).all():
                self.notes.append(Note(
                    f"the {MACRO_LEVELS[level]} macro-average: p-values from "
                    f"{options.resamples:,} paired bootstrap resamples (seed {options.seed}); "
                    f"their Monte Carlo standard errors reach {np.nanmax(error):.2g} (per system "
                    "in JSON, CSV and the HTML tooltips)", (level,)))
            self._check_stability(level, deciding, error * scale)
        if options.clusters:
            extra["cluster"] = clusters(accuracy, pvalues, alpha=options.alpha,
                                        correction=options.correction)
            extra["rank_best"], extra["rank_worst"] = rank_ranges(
                accuracy, pvalues, alpha=options.alpha, correction=options.correction)
        # Bounds and intervals contain the accuracy shown, also where two computations of
        # the same number could round apart.
        return ScoreRow(level, category, phenomenon, items, located,
                        np.asarray(passes, dtype=np.int64), np.asarray(accuracy, dtype=float),
                        first, p_value, np.minimum(low, accuracy).astype(float),
                        np.maximum(high, accuracy).astype(float),
                        np.minimum(ci_low, accuracy).astype(float),
                        np.maximum(ci_high, accuracy).astype(float), groups=groups, **extra)

    def _note_dropped(self, dropped: Sequence[Dropped]) -> None:
        for level in ("category", "phenomenon"):
            part = [d for d in dropped if d.level == level]
            if part:
                names = "; ".join(str(d) for d in part)
                rows = f"1 {level} row has" if len(part) == 1 else f"{len(part)} {level} rows have"
                self.notes.insert(0, Note(f"{rows} no score: {names}",
                                          (level, f"{level}-macro")))


def _names(names: Sequence[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _deciding_error(accuracy: np.ndarray, pvalues: np.ndarray, errors: np.ndarray
                    ) -> np.ndarray:
    """Per system, the Monte Carlo error of the p-value `best_against` reports (that of the
    best system whose p-value against it is the largest); NaN for the best."""
    best = np.flatnonzero(accuracy == accuracy.max())
    which = best[np.argmax(pvalues[best], axis=0)]
    error = np.asarray(errors[which, np.arange(accuracy.size)], dtype=np.float64)
    error[best] = np.nan
    return error


def _macro_bounds(low: np.ndarray, high: np.ndarray, absent_low: np.ndarray,
                  absent_high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of a mean of group accuracies (groups × systems), groups that could enter too.

    Each group's accuracy stays within its bounds; a group with no item entered yet may
    enter with any accuracy within its own bounds. The lowest mean adds, lowest first, the
    absent groups that pull the mean down; the highest, likewise upwards.
    """
    lows, highs = [], []
    for s in range(low.shape[1]):
        lows.append(_extreme_mean(low[:, s], absent_low[:, s], lower=True))
        highs.append(_extreme_mean(high[:, s], absent_high[:, s], lower=False))
    return np.array(lows), np.array(highs)


def _extreme_mean(values: np.ndarray, candidates: np.ndarray, lower: bool) -> float:
    # Means by `mean_of`, as the macro-average itself: without open warnings the bounds are
    # the very same mean, never a rounding apart (they were, by 7e-16, with --no-fair).
    chosen = [float(v) for v in values]
    usable = candidates[~np.isnan(candidates)]
    for value in sorted(usable, reverse=not lower):
        mean = mean_of(chosen)
        if (value < mean) if lower else (value > mean):
            chosen.append(float(value))
    return mean_of(chosen)
