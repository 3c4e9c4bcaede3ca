"""Scores: accuracies per phenomenon and category, averages, and performance clusters.

Definitions follow `../shared/SPEC.md`:

* **Fairness rule** (on by default): an item enters the scores only if no included system
  has a `warning` or `missing` outcome for it (an item a system has no output for at all
  counts as missing). Without it (``fair=False``, labelled in every report) all located
  items enter and a warning or missing output simply does not count as a pass.
* **Accuracy** of a phenomenon or category = passes / items entering. **Micro-average** over
  all items entering; **category macro-average** = mean of the category accuracies;
  **phenomenon macro-average** = mean of the phenomenon accuracies.
* **First performance cluster** of a row: the best system and every system not significantly
  worse in a one-tailed two-proportion Z-test at α = 0.05 (bold in reports).

Macro-average rows are not one proportion. With the default Z-test they are tested the way
the published tables are read: the macro-average is taken as a proportion over the row's
items (its count rounded to whole items). With ``test="paired"``, proportion rows use the
exact McNemar test and macro rows a paired bootstrap resampling items within each category
(or phenomenon), which respects what a macro-average is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from . import __version__
from .errors import TestsuiteError
from .model import Suite

if TYPE_CHECKING:
    import pandas as pd

    from .evaluate import Evaluation
    from .significance import Comparison

#: Row levels, in report order.
LEVELS = ("phenomenon", "category", "micro", "category-macro", "phenomenon-macro")
Test = Literal["ztest", "paired"]


@dataclass(frozen=True)
class ScoreOptions:
    """How scores are computed; every field appears in the signature.

    Attributes:
        fair: Apply the fairness rule (the published default).
        test: ``ztest`` (published) or ``paired`` (McNemar; bootstrap for macro rows).
        alpha: One-tailed significance level.
        correction: Multiple-comparison correction (``holm``, ``bonferroni``, ``fdr_bh``).
        clusters: Also compute full WMT-style clusters and rank ranges.
        categories: Only these categories (None: all).
        phenomena: Only these phenomena (None: all).
        systems: Only these systems (None: all).
        seed: Seed of the bootstrap (paired test, macro rows).
        resamples: Bootstrap resamples.
    """

    fair: bool = True
    test: Test = "ztest"
    alpha: float = 0.05
    correction: Literal["holm", "bonferroni", "fdr_bh"] | None = None
    clusters: bool = False
    categories: tuple[str, ...] | None = None
    phenomena: tuple[str, ...] | None = None
    systems: tuple[str, ...] | None = None
    seed: int = 12345
    resamples: int = 1000


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
        text = f"{self.entered} of {self.items} items entered the scores"
        reasons = [f"{n} {why}" for n, why in (
            (self.not_located, "not located"),
            (self.with_warning, "with a warning for some system"),
            (self.with_missing, "with a missing output (and no warning)")) if n]
        return text + (f" (left out: {', '.join(reasons)})" if reasons else "")


@dataclass
class Scores:
    """Scores of the systems on one language pair.

    Attributes:
        pair: Language pair.
        table: Long DataFrame, one row per (level, category, phenomenon, system) with
            ``passes``, ``items``, ``accuracy``, ``first_cluster``, ``lower`` and ``upper``
            (accuracy bounds counting every open warning as fail or as pass), and with
            ``cluster``, ``rank_best``, ``rank_worst`` when clusters were asked for.
        systems: Systems, best first (by category macro-average, as in the papers).
        coverage: What entered the scores.
        options: The options used.
        signature: One line from which the numbers can be reproduced.
    """

    pair: str
    table: pd.DataFrame
    systems: list[str]
    coverage: Coverage
    options: ScoreOptions
    signature: str

    def rows(self, level: str) -> pd.DataFrame:
        """The rows of one level as a wide table: accuracy per system (columns, best first)."""
        part = self.table[self.table["level"] == level]
        wide = part.pivot_table(index=["category", "phenomenon"], columns="system",
                                values="accuracy", sort=False, dropna=False, observed=True)
        return wide.reindex(columns=self.systems)


def suite_hash(suite: Suite, pair: str) -> str:
    """Short hash of a pair's items and rules (verdicts included): equal hashes, same judging."""
    content = []
    for item in suite.items_of(pair):
        rule = suite.rules.get((pair, item.id))
        content.append([
            item.id, item.category, item.phenomenon, item.source,
            None if rule is None else [
                rule.positive_regex, rule.negative_regex, list(rule.positive_tokens),
                list(rule.negative_tokens), sorted([v.output.strip(), v.verdict]
                                                   for v in rule.verdicts)]])
    digest = hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:12]


def signature(suite: Suite, pair: str, options: ScoreOptions, systems: int, items: int) -> str:
    """The sacrebleu-style signature line of a score report."""
    parts = [f"testsuite:{__version__}", f"pair:{pair}", f"suite:{suite_hash(suite, pair)}",
             f"fair:{'yes' if options.fair else 'no'}", f"test:{options.test}",
             f"alpha:{options.alpha:g}", f"correction:{options.correction or 'none'}"]
    if options.test == "paired":
        parts.append(f"bootstrap:{options.resamples}@{options.seed}")
    for name, values in (("categories", options.categories), ("phenomena", options.phenomena),
                         ("systems", options.systems)):
        if values:
            parts.append(f"{name}:{','.join(values)}")
    parts += [f"n-systems:{systems}", f"n-items:{items}"]
    return "|".join(parts)


def _pick(available: Sequence[str], wanted: tuple[str, ...] | None, what: str) -> list[str]:
    """Apply a filter, matching names case-insensitively; unknown names are an error."""
    if not wanted:
        return list(available)
    by_key = {name.casefold(): name for name in available}
    unknown = [w for w in wanted if w.casefold() not in by_key]
    if unknown:
        raise TestsuiteError(f"unknown {what}: {', '.join(unknown)} (known: "
                             f"{', '.join(available)})")
    chosen = {by_key[w.casefold()] for w in wanted}
    return [name for name in available if name in chosen]


def score(evaluation: Evaluation, suite: Suite, pair: str | None = None,
          options: ScoreOptions | None = None) -> Scores:
    """Score the systems of an evaluation on one language pair.

    Args:
        evaluation: Outcomes of every item × system.
        suite: The suite evaluated (for item lists, order and the signature).
        pair: Language pair; may be omitted when the evaluation has only one.
        options: How to score; the published method by default.

    Returns:
        The scores with their coverage and signature.

    Raises:
        TestsuiteError: for an unknown pair, category, phenomenon or system, or when no item
            enters the scores.
    """
    import pandas as pd

    options = options or ScoreOptions()
    results = evaluation.results
    pairs = list(dict.fromkeys(results["pair"].astype(str)))
    if pair is None:
        if len(pairs) != 1:
            raise TestsuiteError(f"the evaluation has several pairs ({', '.join(pairs)}): "
                                 "choose one")
        pair = pairs[0]
    if pair not in pairs:
        raise TestsuiteError(f"no outcomes for {pair} (the evaluation has: {', '.join(pairs)})")
    results = results[results["pair"] == pair]

    items = suite.items_of(pair)
    categories = _pick(list(dict.fromkeys(i.category for i in items)), options.categories,
                       "category")
    phenomena = _pick(list(dict.fromkeys(i.phenomenon for i in items)), options.phenomena,
                      "phenomenon")
    systems = _pick(list(dict.fromkeys(results["system"].astype(str))), options.systems,
                    "system")
    universe = [i for i in items if i.category in categories and i.phenomenon in phenomena]
    info = pd.DataFrame({"category": [i.category for i in universe],
                         "phenomenon": [i.phenomenon for i in universe]},
                        index=pd.Index([i.id for i in universe], name="item"))

    chosen = results[results["system"].isin(systems) & results["item"].isin(info.index)]
    wide = chosen.pivot(index="item", columns="system", values="outcome")
    present = set(wide.index)
    wide = wide.astype(object).reindex(index=[i for i in info.index if i in present],
                                       columns=systems)
    located = wide.index
    absent = wide.isna()  # a system with no output for a located item: missing
    warning = wide == "warning"
    missing = (wide == "missing") | absent
    passed = wide == "pass"
    any_warning = warning.any(axis=1)
    any_missing = missing.any(axis=1)
    entered = ~(any_warning | any_missing) if options.fair else pd.Series(True, index=located)
    coverage = Coverage(
        items=len(info), not_located=len(info) - len(located),
        with_warning=int(any_warning.sum()) if options.fair else 0,
        with_missing=int((any_missing & ~any_warning).sum()) if options.fair else 0,
        entered=int(entered.sum()),
        warnings={s: int(warning[s].sum()) for s in systems},
        missing={s: int(missing[s].sum()) for s in systems})
    if coverage.entered == 0:
        raise TestsuiteError(f"{pair}: no item entered the scores ({coverage}); resolve "
                             "warnings with `testsuite triage`, or score without the fairness "
                             "rule (--no-fair)")

    rows = _rows(info.loc[located], passed, warning, missing, entered, systems, options)
    table = pd.DataFrame(rows)
    macro = table[table["level"] == "category-macro"].set_index("system")["accuracy"]
    order = sorted(systems, key=lambda s: (-macro.get(s, 0.0), s))
    return Scores(pair, table, order, coverage, options,
                  signature(suite, pair, options, len(systems), coverage.entered))


def _rows(info: pd.DataFrame, passed: pd.DataFrame, warning: pd.DataFrame,
          missing: pd.DataFrame, entered: pd.Series, systems: list[str],
          options: ScoreOptions) -> list[dict[str, object]]:
    """Every row of every level, with clusters and bounds."""
    scored = passed[entered].astype(int)
    # Bounds: over items no system is missing, an open warning counted as fail / as pass.
    complete = ~missing.any(axis=1)
    low = passed[complete].astype(int)
    high = (passed | warning)[complete].astype(int)
    rows: list[dict[str, object]] = []
    groups: dict[str, str | list[str]] = {"phenomenon": ["category", "phenomenon"],
                                          "category": "category"}
    accuracies: dict[str, dict[tuple[str, str], dict[str, float]]] = {}
    for level, keys in groups.items():
        accuracies[level] = {}
        for key, members in info.groupby(keys, sort=False).groups.items():
            key = key if isinstance(key, tuple) else (key,)
            category, phenomenon = key[0], key[1] if len(key) > 1 else ""
            ids = [i for i in members if entered.get(i, False)]
            if not ids:
                continue
            sub = scored.loc[ids]
            comparison = _proportion_comparison(sub, systems, options)
            accuracies[level][(category, phenomenon)] = comparison.scores
            rows += _cluster_rows(level, category, phenomenon, comparison, sub,
                                  _bounds(low, high, members), options)
    # Micro-average: every item that entered.
    comparison = _proportion_comparison(scored, systems, options)
    rows += _cluster_rows("micro", "", "", comparison, scored,
                          _bounds(low, high, info.index), options)
    for level, source, label in (("category-macro", "category", "category"),
                                 ("phenomenon-macro", "phenomenon", "phenomenon")):
        parts = accuracies[source]
        macro = {s: sum(acc[s] for acc in parts.values()) / len(parts) for s in systems}
        labels = info.loc[scored.index, label].to_numpy()
        comparison = _macro_comparison(macro, scored, labels, systems, options)
        rows += _cluster_rows(level, "", "", comparison, scored,
                              _macro_bounds(low, high, info, label), options)
    return rows


def _proportion_comparison(sub: pd.DataFrame, systems: list[str], options: ScoreOptions
                           ) -> Comparison:
    from .significance import mcnemar_comparison, ztest_comparison

    if options.test == "paired":
        return mcnemar_comparison({s: sub[s].to_numpy() for s in systems})
    n, sums = len(sub), sub.sum()
    return ztest_comparison({s: int(sums[s]) for s in systems}, dict.fromkeys(systems, n))


def _macro_comparison(macro: dict[str, float], scored: pd.DataFrame, labels: Any,
                      systems: list[str], options: ScoreOptions) -> Comparison:
    from .significance import Comparison, bootstrap_comparison, ztest_greater

    if options.test == "paired":
        compared = bootstrap_comparison({s: scored[s].to_numpy() for s in systems}, labels,
                                        n_resamples=options.resamples, seed=options.seed)
        # The bootstrap's own scores are the same macro-averages; keep ours for exactness.
        return Comparison(macro, compared.test)
    n = len(scored)

    def test(better: str, worse: str) -> float:
        # The macro-average read as a proportion over the row's items (see module docs).
        return ztest_greater(round(macro[better] * n), n, round(macro[worse] * n), n)

    return Comparison(macro, test)


def _bounds(low: pd.DataFrame, high: pd.DataFrame, members: object
            ) -> dict[str, tuple[float, float]]:
    ids = low.index.intersection(members)  # type: ignore[arg-type]
    if not len(ids):
        return {}
    lows, highs = low.loc[ids].mean(), high.loc[ids].mean()
    return {s: (float(lows[s]), float(highs[s])) for s in low.columns}


def _macro_bounds(low: pd.DataFrame, high: pd.DataFrame, info: pd.DataFrame, label: str
                  ) -> dict[str, tuple[float, float]]:
    labels = info.loc[low.index, label]
    lows = low.groupby(labels, sort=False).mean().mean()
    highs = high.groupby(labels, sort=False).mean().mean()
    return {s: (float(lows[s]), float(highs[s])) for s in low.columns}


def _cluster_rows(level: str, category: str, phenomenon: str, comparison: Comparison,
                  sub: pd.DataFrame, bounds: dict[str, tuple[float, float]],
                  options: ScoreOptions) -> list[dict[str, object]]:
    from .significance import clusters, first_cluster, rank_ranges

    scores, test = comparison
    passes = sub.sum()
    first = first_cluster(scores, test, alpha=options.alpha, correction=options.correction)
    extra: dict[str, dict[str, object]] = {s: {} for s in scores}
    if options.clusters:
        for number, members in enumerate(clusters(scores, test, alpha=options.alpha,
                                                  correction=options.correction), start=1):
            for system in members:
                extra[system]["cluster"] = number
        for system, (best, worst) in rank_ranges(scores, test, alpha=options.alpha,
                                                 correction=options.correction).items():
            extra[system].update(rank_best=best, rank_worst=worst)
    return [{"level": level, "category": category, "phenomenon": phenomenon, "system": system,
             "passes": int(passes[system]), "items": len(sub), "accuracy": accuracy,
             "first_cluster": system in first,
             "lower": bounds.get(system, (float("nan"),) * 2)[0],
             "upper": bounds.get(system, (float("nan"),) * 2)[1], **extra[system]}
            for system, accuracy in scores.items()]


def item_analysis(evaluation: Evaluation, suite: Suite, pair: str | None = None,
                  options: ScoreOptions | None = None) -> pd.DataFrame:
    """How each item behaves across systems, for suite maintainers.

    Over the items that enter the scores (same options as `score`): how many systems pass
    each item, whether every system or none does (such items cannot separate systems), and
    its *discrimination*: the corrected item–total correlation of classical test theory, i.e.
    the correlation over systems between passing this item and the system's accuracy on all
    other items. High values mean the item separates stronger from weaker systems; values
    near zero or negative flag items whose rule or source may need a look.

    Returns:
        One row per item: item, category, phenomenon, passes, systems, pass_rate,
        discrimination (NaN when every or no system passes), flag.
    """
    import numpy as np
    import pandas as pd

    scores = score(evaluation, suite, pair, options)
    options = scores.options
    results = evaluation.results
    results = results[(results["pair"] == scores.pair)
                      & results["system"].isin(scores.systems)]
    wide = results.pivot(index="item", columns="system", values="outcome").astype(object)
    wide = wide.reindex(columns=scores.systems)
    if options.fair:
        wide = wide[~(wide.isin(["warning", "missing"]) | wide.isna()).any(axis=1)]
    info = {item.id: item for item in suite.items_of(scores.pair)}
    wanted = [i for i in info if i in set(wide.index)
              and (not options.categories or info[i].category in options.categories)
              and (not options.phenomena or info[i].phenomenon in options.phenomena)]
    passed = (wide.loc[wanted] == "pass").to_numpy(dtype=float)  # items × systems
    totals = passed.sum(axis=0)
    rows = []
    for index, item_id in enumerate(wanted):
        vector = passed[index]
        rest = (totals - vector) / max(len(wanted) - 1, 1)
        spread = vector.std() > 0 and rest.std() > 0
        discrimination = float(np.corrcoef(vector, rest)[0, 1]) if spread else float("nan")
        count = int(vector.sum())
        flag = ("all pass" if count == len(vector) else "none pass" if count == 0
                else "negative discrimination" if discrimination < 0 else "")
        rows.append({"item": item_id, "category": info[item_id].category,
                     "phenomenon": info[item_id].phenomenon, "passes": count,
                     "systems": len(vector), "pass_rate": count / len(vector) if len(vector)
                     else float("nan"), "discrimination": discrimination, "flag": flag})
    return pd.DataFrame(rows, columns=["item", "category", "phenomenon", "passes", "systems",
                                       "pass_rate", "discrimination", "flag"])
