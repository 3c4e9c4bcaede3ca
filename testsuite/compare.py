"""Year-over-year comparison of the same systems on the same items.

Runs (see `runs`) are re-evaluated with the current rules and compared on one language
pair:

* **Items**: only those present in every run (and in the current suite, with the same
  source) and with no `warning` or `missing` outcome for any included system in any run —
  the fairness rule across years.
* **Systems**: matched across runs by name, case and punctuation ignored (``Online-A`` =
  ``ONLINE-A``); a mapping renames systems that changed their name. By default the systems
  present in every run are compared.
* **Changes**: accuracy of every system in every run per category, micro-average, category
  and phenomenon macro-average; the change from the previous run and whether it is
  significant, two-sided at α. The items are the same in both runs, so by default the test
  is paired (exact McNemar; a paired bootstrap within categories or phenomena for the
  macro-averages); ``test="ztest"`` uses the two-proportion Z-test instead.
* **Best against best**: each run's best system (micro-average) against the best of the
  earlier runs.
* **Regressions**: the items a system passed in an earlier run and fails now, and the reverse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from . import __version__
from .errors import TestsuiteError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .runs import Run

LEVELS = ("category", "micro", "category-macro", "phenomenon-macro")


def canonical(name: str) -> str:
    """Name used to match systems across runs: lower case, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())


@dataclass(frozen=True)
class CompareOptions:
    """How runs are compared.

    Attributes:
        test: ``paired`` (McNemar / paired bootstrap; default) or ``ztest``.
        alpha: Two-sided significance level of a change.
        mapping: Renamed systems: a name in some run → the name to match it as.
        systems: Only these systems (matched names).
        categories: Only these categories.
        seed: Seed of the bootstrap.
        resamples: Bootstrap resamples.
    """

    test: Literal["paired", "ztest"] = "paired"
    alpha: float = 0.05
    mapping: tuple[tuple[str, str], ...] = ()
    systems: tuple[str, ...] | None = None
    categories: tuple[str, ...] | None = None
    seed: int = 12345
    resamples: int = 1000


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
            reverse (``improved``) between consecutive runs, with both outputs.
        notes: What was left out and why.
        signature: One line from which the numbers can be reproduced.
    """

    pair: str
    runs: list[str]
    systems: list[str]
    names: dict[str, dict[str, str]]
    items: int
    table: pd.DataFrame
    best: pd.DataFrame
    changes: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    signature: str = ""


def _matched(name: str, mapping: dict[str, str]) -> str:
    """The key a system is matched by, after applying the renaming map."""
    return canonical(mapping.get(canonical(name), name))


def _two_sided(one: float, other: float) -> float:
    """Two-sided p-value from the two one-tailed ones."""
    return min(1.0, 2 * min(one, other))


def compare(runs: Sequence[Run], pair: str, options: CompareOptions | None = None
            ) -> Comparison:
    """Compare saved runs (oldest first after sorting by year) on one language pair.

    Raises:
        TestsuiteError: with fewer than two runs, no system in common or no common item.
    """
    import numpy as np
    import pandas as pd

    options = options or CompareOptions()
    if len(runs) < 2:
        raise TestsuiteError("compare needs at least two runs")
    ordered = sorted(runs, key=lambda r: (r.year is None, r.year or 0, r.name))
    labels = [r.label for r in ordered]
    if len(set(labels)) != len(labels):
        labels = [r.name for r in ordered]
    mapping = {canonical(k): v for k, v in options.mapping}
    notes: list[str] = []

    # Outcomes per run as item × canonical system, and the display names.
    wide: dict[str, pd.DataFrame] = {}
    outputs: dict[str, pd.DataFrame] = {}
    names: dict[str, dict[str, str]] = {}
    info: dict[str, tuple[str, str]] = {}
    for label, run in zip(labels, ordered, strict=True):
        results = run.evaluation.results
        results = results[results["pair"] == pair]
        if results.empty:
            raise TestsuiteError(f"run {run.name} has no {pair} outputs")
        key = results["system"].astype(str).map(lambda s: _matched(s, mapping))
        frame = results.assign(key=key)
        for original, matched in zip(frame["system"].astype(str), frame["key"], strict=True):
            names.setdefault(matched, {})[label] = original
        wide[label] = frame.pivot(index="item", columns="key", values="outcome").astype(object)
        outputs[label] = frame.pivot(index="item", columns="key", values="output")
        for row in frame.drop_duplicates("item").itertuples():
            info[str(row.item)] = (str(row.category), str(row.phenomenon))
        for what, ids in (("removed from the suite", run.removed.get(pair, [])),
                          ("whose source sentence changed", run.changed.get(pair, []))):
            if ids:
                notes.append(f"{run.name}: {len(ids)} items {what} since it was saved were "
                             f"left out (e.g. {', '.join(sorted(ids)[:3])})")
        if run.excluded:
            notes.append(f"{run.name}: left out (did not translate): {', '.join(run.excluded)}")

    matched = set.intersection(*(set(w.columns) for w in wide.values()))
    if options.systems:
        wanted = {_matched(s, mapping) for s in options.systems}
        unknown = wanted - matched
        if unknown:
            everywhere = ", ".join(sorted(names[m][labels[-1]] for m in matched))
            raise TestsuiteError(f"not in every run: {', '.join(sorted(unknown))} (in every "
                                 f"run: {everywhere})")
        matched &= wanted
    if not matched:
        raise TestsuiteError("no system is in every run; match renamed systems with --map "
                             "OLD=NEW")
    systems = sorted(matched)
    only_some = sorted(set().union(*(set(w.columns) for w in wide.values())) - matched)
    if only_some and not options.systems:
        notes.append(f"not in every run, so not compared: {len(only_some)} systems")

    common = set.intersection(*(set(w.index) for w in wide.values()))
    located_somewhere = set().union(*(set(w.index) for w in wide.values()))
    if len(located_somewhere) > len(common):
        notes.append(f"{len(located_somewhere) - len(common)} items are not in every run")
    if options.categories:
        allowed = {c.casefold() for c in options.categories}
        common = {i for i in common if info[i][0].casefold() in allowed}
    order = sorted(common, key=lambda i: (info[i][0], info[i][1], i))
    decided = np.ones(len(order), dtype=bool)
    for label in labels:
        block = wide[label].reindex(index=order, columns=systems)
        decided &= block.isin(["pass", "fail"]).all(axis=1).to_numpy()
    items = [i for i, keep in zip(order, decided, strict=True) if keep]
    notes.append(f"{len(items)} items compared: in every run and without a warning or "
                 f"missing output for any compared system ({len(order) - len(items)} left out)")
    if not items:
        raise TestsuiteError(f"no item is in every run without a warning or missing output; "
                             f"{'; '.join(notes)}")
    passed = {label: (wide[label].reindex(index=items, columns=systems) == "pass")
              .to_numpy(dtype=int) for label in labels}
    categories = np.array([info[i][0] for i in items])
    phenomena = np.array([info[i][1] for i in items])
    display = {s: names[s][labels[-1]] for s in systems}

    rows = _rows(labels, systems, display, passed, categories, phenomena, options)
    table = pd.DataFrame(rows)
    micro = table[(table["level"] == "micro") & (table["run"] == labels[-1])]
    ranking = micro.sort_values(["accuracy", "system"], ascending=[False, True])["system"]
    return Comparison(
        pair=pair, runs=labels, systems=list(ranking),
        names={display[s]: names[s] for s in systems}, items=len(items), table=table,
        best=_best(labels, systems, display, passed, options),
        changes=_changes(labels, systems, display, items, info, wide, outputs),
        notes=notes,
        signature="|".join([f"testsuite:{__version__}", f"pair:{pair}",
                            f"runs:{','.join(labels)}", f"test:{options.test}",
                            f"alpha:{options.alpha:g}", f"n-systems:{len(systems)}",
                            f"n-items:{len(items)}"]))


def _rows(labels: list[str], systems: list[str], display: dict[str, str],
          passed: dict[str, np.ndarray], categories: np.ndarray, phenomena: np.ndarray,
          options: CompareOptions) -> list[dict[str, Any]]:

    groups: list[tuple[str, str, np.ndarray | None]] = [
        ("category", c, categories == c) for c in sorted(set(categories))]
    groups += [("micro", "", None), ("category-macro", "", None), ("phenomenon-macro", "", None)]
    rows = []
    for level, category, mask in groups:
        for index, system in enumerate(systems):
            previous = None
            for label in labels:
                column = passed[label][:, index]
                if mask is not None:
                    column = column[mask]
                accuracy = _statistic(level, column, categories, phenomena)
                row = {"level": level, "category": category, "system": display[system],
                       "run": label, "passes": int(column.sum()), "items": len(column),
                       "accuracy": accuracy, "delta": None, "p_value": None,
                       "significant": None}
                if previous is not None:
                    before, before_column = previous
                    p_value = _change_p(level, before_column, column, categories, phenomena,
                                        options)
                    row.update(delta=accuracy - before, p_value=p_value,
                               significant=bool(p_value < options.alpha))
                previous = (accuracy, column)
                rows.append(row)
    return rows


def _statistic(level: str, column: np.ndarray, categories: np.ndarray,
               phenomena: np.ndarray) -> float:
    if level in ("category", "micro"):
        return float(column.mean())
    labels = categories if level == "category-macro" else phenomena
    return float(sum(column[labels == g].mean() for g in set(labels)) / len(set(labels)))


def _change_p(level: str, before: np.ndarray, after: np.ndarray, categories: np.ndarray,
              phenomena: np.ndarray, options: CompareOptions) -> float:
    """Two-sided p-value of the change of one system between two runs on the same items."""
    from .significance import mcnemar_greater, paired_bootstrap_greater, ztest_greater

    if level in ("category", "micro"):
        if options.test == "paired":
            return _two_sided(mcnemar_greater(after, before), mcnemar_greater(before, after))
        n, a, b = len(after), int(after.sum()), int(before.sum())
        return _two_sided(ztest_greater(a, n, b, n), ztest_greater(b, n, a, n))
    groups = categories if level == "category-macro" else phenomena
    if options.test == "paired":
        return _two_sided(
            paired_bootstrap_greater(after, before, groups, options.resamples, options.seed),
            paired_bootstrap_greater(before, after, groups, options.resamples, options.seed))
    n = len(after)
    a = round(_statistic(level, after, categories, phenomena) * n)
    b = round(_statistic(level, before, categories, phenomena) * n)
    return _two_sided(ztest_greater(a, n, b, n), ztest_greater(b, n, a, n))


def _best(labels: list[str], systems: list[str], display: dict[str, str],
          passed: dict[str, np.ndarray], options: CompareOptions) -> pd.DataFrame:
    """Each run's best system (micro-average) against the best of the earlier runs."""
    import pandas as pd

    from .significance import mcnemar_greater, ztest_greater

    rows = []
    champion: tuple[str, str, np.ndarray] | None = None  # (run, system, outcomes)
    for label in labels:
        accuracies = passed[label].mean(axis=0)
        index = max(range(len(systems)), key=lambda i: (accuracies[i], -i))
        column = passed[label][:, index]
        row: dict[str, Any] = {"run": label, "system": display[systems[index]],
                               "accuracy": float(accuracies[index]), "previous_run": None,
                               "previous_system": None, "delta": None, "p_value": None,
                               "significant": None}
        if champion is not None:
            run, system, before = champion
            if options.test == "paired":
                p = _two_sided(mcnemar_greater(column, before), mcnemar_greater(before, column))
            else:
                n, a, b = len(column), int(column.sum()), int(before.sum())
                p = _two_sided(ztest_greater(a, n, b, n), ztest_greater(b, n, a, n))
            row.update(previous_run=run, previous_system=system,
                       delta=float(column.mean() - before.mean()), p_value=p,
                       significant=bool(p < options.alpha))
        if champion is None or column.mean() >= champion[2].mean():
            champion = (label, display[systems[index]], column)
        rows.append(row)
    return pd.DataFrame(rows)


def _changes(labels: list[str], systems: list[str], display: dict[str, str], items: list[str],
             info: dict[str, tuple[str, str]], wide: dict[str, pd.DataFrame],
             outputs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Items that changed from pass to fail (regressed) or back (improved)."""
    import pandas as pd

    rows = []
    for before, after in zip(labels, labels[1:], strict=False):
        old = wide[before].reindex(index=items, columns=systems)
        new = wide[after].reindex(index=items, columns=systems)
        for system in systems:
            for item in items:
                was, now = str(old.at[item, system]), str(new.at[item, system])
                if was == now:
                    continue
                rows.append({"system": display[system], "item": item,
                             "category": info[item][0], "phenomenon": info[item][1],
                             "from_run": before, "to_run": after,
                             "change": "regressed" if was == "pass" else "improved",
                             "before": outputs[before].at[item, system],
                             "after": outputs[after].at[item, system]})
    return pd.DataFrame(rows, columns=["system", "item", "category", "phenomenon", "from_run",
                                       "to_run", "change", "before", "after"])
