"""Year-over-year comparison of the same systems on the same items.

Runs (see `runs`) are re-evaluated with the current rules and compared on one language
pair, with the scoring core (`testsuite.scoring`, `testsuite.stats`):

* **Items**: those present in every run (and in the current suite, with the same source),
  with no `warning` or `missing` outcome for any compared system in any run — the fairness
  rule across years (`OutcomeMatrix.entered` over the runs side by side).
* **Systems**: matched across runs by name, case and punctuation ignored (``Online-A`` =
  ``ONLINE-A``); a mapping renames systems that changed their name. The systems present in
  every run are compared; the others are named in a note.
* **Changes**: accuracy of every system in every run per category, micro-average, category
  and phenomenon macro-average (the same definitions as the paper tables); the change from
  the previous run and whether it is significant, two-sided at α. The items are the same in
  both runs, so by default the test is paired (exact McNemar; for the macro-averages a
  paired Z-test with the variance stratified by category or phenomenon, or on request a
  paired bootstrap); ``test="ztest"`` uses the two-proportion Z-test (and the published
  macro reading) instead.
* **Best against best**: each run's best system (micro-average) against the best of the
  earlier runs.
* **Changed items**: the items a system passed in an earlier run and fails now, and the
  reverse, with both outputs and the source.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import __version__
from .errors import TestsuiteError
from .names import pick
from .scoring.matrix import OutcomeMatrix
from .scoring.scores import MacroTest, Significance, Test
from .scoring.signature import Signature
from .stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    macro_average,
    macro_pvalues,
    proportion_pvalues,
    two_sided,
)

if TYPE_CHECKING:
    import pandas as pd

    from .runs import Run

LEVELS = ("category", "micro", "category-macro", "phenomenon-macro")


def canonical(name: str) -> str:
    """Name used to match systems across runs: lower case, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())


@dataclass(frozen=True)
class CompareOptions(Significance):
    """How runs are compared.

    Attributes:
        test: ``paired`` (McNemar; default) or ``ztest`` for proportion rows.
        macro_test: ``stratified`` (default with paired), ``bootstrap`` or ``published``
            (default with ztest) for the macro-averages.
        alpha: Two-sided significance level of a change.
        mapping: Renamed systems: a name in some run → the name to match it as.
        systems: Only these systems (names of the latest run, case-insensitive).
        categories: Only these categories (case-insensitive).
        seed: Seed of the bootstrap.
        resamples: Bootstrap resamples.
    """

    test: Test = "paired"
    macro_test: MacroTest | None = None
    alpha: float = 0.05
    mapping: tuple[tuple[str, str], ...] = ()
    systems: tuple[str, ...] | None = None
    categories: tuple[str, ...] | None = None
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES

    def __post_init__(self) -> None:
        self.check_significance(("paired", "ztest"))


@dataclass
class Comparison:
    """The comparison of runs on one language pair.

    Attributes:
        pair: Language pair.
        runs: Run labels, oldest first.
        systems: Compared systems (display names of the latest run), best first.
        names: The system's name in each run: ``names[system][run]``.
        items: Number of items compared.
        table: Long DataFrame: level, category, phenomenon, system, run, passes, items,
            accuracy, delta (from the previous run), p_value, significant.
        best: Per run: its best system, accuracy, and the test against the best of the
            earlier runs.
        changes: Per system and item, passes that became fails (``regressed``) and the
            reverse (``improved``) between consecutive runs, with both outputs and the
            source.
        not_compared: Systems not in every run (display names), so not compared.
        notes: What was left out and why.
        signature: From which the numbers can be reproduced.
    """

    pair: str
    runs: list[str]
    systems: list[str]
    names: dict[str, dict[str, str]]
    items: int
    table: pd.DataFrame
    best: pd.DataFrame
    changes: pd.DataFrame
    not_compared: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    signature: Signature = field(default_factory=lambda: Signature(()))


def _matched(name: str, mapping: dict[str, str]) -> str:
    """The key a system is matched by, after applying the renaming map."""
    return canonical(mapping.get(canonical(name), name))


def compare(runs: Sequence[Run], pair: str, options: CompareOptions | None = None
            ) -> Comparison:
    """Compare saved runs (in any order; they are sorted by year) on one language pair.

    Raises:
        TestsuiteError: with fewer than two runs, no system in common or no common item.
    """
    import pandas as pd

    options = options or CompareOptions()
    if len(runs) < 2:
        raise TestsuiteError("compare needs at least two runs")
    ordered = sorted(runs, key=lambda r: (r.year is None, r.year or 0, r.name))
    labels = _labels(ordered)
    mapping = {canonical(k): v for k, v in options.mapping}
    notes: list[str] = []

    normalisations = {run.evaluation.normalise for run in ordered}
    if len(normalisations) > 1:
        raise TestsuiteError("the runs were matched under different normalisations ("
                             + ", ".join(sorted(n or "none" for n in normalisations))
                             + "): their numbers are not comparable")
    normalise = normalisations.pop()
    matrices: dict[str, OutcomeMatrix] = {}
    names: dict[str, dict[str, str]] = {}
    for label, run in zip(labels, ordered, strict=True):
        if pair not in run.evaluation.pairs:
            raise TestsuiteError(f"run {run.name} has no {pair} outputs (it has: "
                                 f"{', '.join(run.evaluation.pairs) or 'none'})")
        matrix = OutcomeMatrix.from_evaluation(run.evaluation, None, pair)
        keys = [_matched(s, mapping) for s in matrix.systems]
        for original, key in zip(matrix.systems, keys, strict=True):
            names.setdefault(key, {})[label] = original
        matrices[label] = matrix.renamed(keys)
        for what, ids in (("removed from the suite", run.removed.get(pair, [])),
                          ("whose source sentence changed", run.changed.get(pair, []))):
            if ids:
                notes.append(f"{run.name}: {len(ids)} items {what} since it was saved were "
                             f"left out (e.g. {', '.join(sorted(ids)[:3])})")
        if run.excluded:
            notes.append(f"{run.name}: left out (did not translate): {', '.join(run.excluded)}")
        notes.append(run.note)

    latest = labels[-1]
    everywhere = set.intersection(*(set(m.systems) for m in matrices.values()))
    display = {key: names[key][latest] for key in everywhere}
    chosen = sorted(everywhere, key=lambda k: display[k])
    if options.systems:
        wanted = set(pick([display[k] for k in chosen], options.systems,
                          "system (in every run)"))
        chosen = [k for k in chosen if display[k] in wanted]
    if not chosen:
        raise TestsuiteError("no system is in every run; match renamed systems with --map "
                             "OLD=NEW")
    not_compared = sorted({names[k].get(latest) or next(iter(names[k].values()))
                           for m in matrices.values() for k in m.systems} - set(display.values()))
    if not_compared:
        notes.append(f"not in every run, so not compared: {', '.join(not_compared)}")

    item_sets = [set(m.items) for m in matrices.values()]
    common = [i for i in matrices[labels[0]].items if all(i in found for found in item_sets)]
    located_somewhere = set().union(*item_sets)
    if len(located_somewhere) > len(common):
        notes.append(f"{len(located_somewhere) - len(common)} items are not in every run")
    aligned = {label: m.aligned(common, chosen) for label, m in matrices.items()}
    first = aligned[labels[0]].select(categories=options.categories)
    kept = set(first.items)
    aligned = {label: m.aligned([i for i in common if i in kept], chosen)
               for label, m in aligned.items()}
    side_by_side = OutcomeMatrix(pair, first.items, [f"{label}\0{s}" for label in labels
                                                     for s in chosen],
                                 np.hstack([aligned[label].codes for label in labels]),
                                 first.categories, first.phenomena, [])
    entered = side_by_side.entered(True)
    items = [i for i, keep in zip(first.items, entered, strict=True) if keep]
    notes.append(f"{len(items)} items compared: in every run and without a warning or "
                 f"missing output for any compared system ({len(first.items) - len(items)} "
                 "left out)")
    if not items:
        raise TestsuiteError(f"no item is in every run without a warning or missing output; "
                             f"{'; '.join(notes)}")
    scored = side_by_side.aligned(items, side_by_side.systems)
    shown = [display[k] for k in chosen]
    rows = _rows(scored, labels, shown, options)
    table = pd.DataFrame(rows)
    micro = table[(table["level"] == "micro") & (table["run"] == latest)]
    ranking = list(micro.sort_values(["accuracy", "system"], ascending=[False, True])["system"])
    runs_by_label = dict(zip(labels, ordered, strict=True))
    return Comparison(
        pair=pair, runs=labels, systems=ranking,
        names={display[k]: names[k] for k in chosen}, items=len(items), table=table,
        best=_best(scored, labels, shown, options),
        changes=_changes(labels, chosen, shown, items, names, runs_by_label, scored, pair),
        not_compared=not_compared, notes=notes,
        signature=Signature.of(
            ("testsuite", __version__), ("pair", pair), ("runs", labels),
            *options.signature_parts(normalise), ("categories", options.categories),
            ("systems", options.systems), ("n-systems", len(chosen)),
            ("n-items", len(items))))


def _labels(runs: list[Run]) -> list[str]:
    """How each run is named in the tables: its campaign, else its name, else its folder as
    given — the first of these that tells every run apart (a copied run keeps the name and
    campaign of the run it was copied from).

    Raises:
        TestsuiteError: when one run is given twice.
    """
    for labels in ([r.label for r in runs], [r.name for r in runs],
                   [str(r.path) for r in runs]):
        if len(set(labels)) == len(labels):
            return labels
    raise TestsuiteError("one saved run is given twice: compare needs different runs")


def _column(labels: list[str], systems: list[str], label: str, system: int) -> int:
    """Column of (run, system) in the side-by-side matrix."""
    return labels.index(label) * len(systems) + system


def _rows(scored: OutcomeMatrix, labels: list[str], systems: list[str],
          options: CompareOptions) -> list[dict[str, Any]]:
    """Accuracy per run and system, and the change from the previous run, per row."""
    passed = scored.passed
    rows: list[dict[str, Any]] = []
    by_category = scored.groups("category")
    for g, (category, _) in enumerate(by_category.keys):
        mask = by_category.codes == g
        rows += _level_rows("category", category, passed[mask], labels, systems,
                            options, None)
    rows += _level_rows("micro", "", passed, labels, systems, options, None)
    for level, by in (("category-macro", "category"), ("phenomenon-macro", "phenomenon")):
        groups = scored.groups(by)
        rows += _level_rows(level, "", passed, labels, systems, options, groups.codes)
    return rows


def _level_rows(level: str, category: str, passed: np.ndarray, labels: list[str],
                systems: list[str], options: CompareOptions, groups: np.ndarray | None
                ) -> list[dict[str, Any]]:
    """Rows of one level: all (run, system) columns tested against each other at once."""
    n = passed.shape[0]
    if groups is None:
        accuracy = passed.mean(axis=0)
        passes = passed.sum(axis=0)
        pvalues = two_sided(proportion_pvalues(options.test, passed))
    else:
        accuracy = macro_average(passed, groups)
        passes = np.rint(accuracy * n).astype(int)
        pvalues = two_sided(macro_pvalues(options.macro, passed, groups, options.resamples,
                                          options.seed)[0])
    rows = []
    for s, system in enumerate(systems):
        previous: int | None = None
        for label in labels:
            column = _column(labels, systems, label, s)
            row: dict[str, Any] = {
                "level": level, "category": category, "system": system, "run": label,
                "passes": int(passes[column]), "items": n,
                "accuracy": float(accuracy[column]), "delta": None, "p_value": None,
                "significant": None}
            if previous is not None:
                p = float(pvalues[column, previous])
                row.update(delta=float(accuracy[column] - accuracy[previous]), p_value=p,
                           significant=bool(p < options.alpha))
            previous = column
            rows.append(row)
    return rows


def _best(scored: OutcomeMatrix, labels: list[str], systems: list[str],
          options: CompareOptions) -> pd.DataFrame:
    """Each run's best system (micro-average) against the best of the earlier runs."""
    import pandas as pd

    passed = scored.passed
    accuracy = passed.mean(axis=0)
    pvalues = two_sided(proportion_pvalues(options.test, passed))
    rows = []
    champion: tuple[str, int] | None = None  # (run, column)
    for label in labels:
        columns = [_column(labels, systems, label, s) for s in range(len(systems))]
        column = max(columns, key=lambda c: (accuracy[c], -c))
        row: dict[str, Any] = {"run": label, "system": systems[columns.index(column)],
                               "accuracy": float(accuracy[column]), "previous_run": None,
                               "previous_system": None, "delta": None, "p_value": None,
                               "significant": None}
        if champion is not None:
            run, before = champion
            p = float(pvalues[column, before])
            row.update(previous_run=run,
                       previous_system=systems[before % len(systems)],
                       delta=float(accuracy[column] - accuracy[before]), p_value=p,
                       significant=bool(p < options.alpha))
        if champion is None or accuracy[column] >= accuracy[champion[1]]:
            champion = (label, column)
        rows.append(row)
    return pd.DataFrame(rows)


def _outputs(run: Run, pair: str) -> dict[tuple[str, str], str]:
    """(system, item) → output of one pair of a run."""
    columns = run.evaluation.columns
    return {(system, item): output for item, item_pair, system, output in zip(
        columns["item"], columns["pair"], columns["system"], columns["output"], strict=True)
        if item_pair == pair}


def _changes(labels: list[str], keys: list[str], systems: list[str], items: list[str],
             names: dict[str, dict[str, str]], runs: dict[str, Run],
             scored: OutcomeMatrix, pair: str) -> pd.DataFrame:
    """Items that changed from pass to fail (regressed) or back (improved)."""
    import pandas as pd

    outputs = {label: _outputs(runs[label], pair) for label in labels}
    sources = {label: runs[label].sources.get(pair, {}) for label in labels}
    passed = scored.passed
    rows = []
    for before, after in zip(labels, labels[1:], strict=False):
        for s, (key, system) in enumerate(zip(keys, systems, strict=True)):
            old = passed[:, _column(labels, systems, before, s)]
            new = passed[:, _column(labels, systems, after, s)]
            original = names[key]
            for index in np.flatnonzero(old != new):
                item = items[index]
                rows.append({
                    "system": system, "item": item, "category": scored.categories[index],
                    "phenomenon": scored.phenomena[index],
                    "source": sources[after].get(item) or sources[before].get(item, ""),
                    "from_run": before, "to_run": after,
                    "change": "regressed" if old[index] else "improved",
                    "before": outputs[before].get((original[before], item), ""),
                    "after": outputs[after].get((original[after], item), "")})
    return pd.DataFrame(rows, columns=["system", "item", "category", "phenomenon", "source",
                                       "from_run", "to_run", "change", "before", "after"])
