"""Evaluation: every item × system gets an outcome and a reason (SPEC.md).

`evaluate` is the library entry point; the CLI only reads inputs and prints. The result is
an `Evaluation` whose `results` is a tidy DataFrame with one row per item × system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .matching import (
    DEFAULT_TIMEOUT,
    REASON_DISAGREE,
    VERDICT_REASONS,
    CompiledRule,
    RegexCache,
)
from .model import Outcome, Suite
from .normalise import Profile
from .outputs.checks import NotTranslated, identical_systems, not_translated
from .outputs.model import Located, SystemOutputs
from .values import seconds

if TYPE_CHECKING:
    import pandas as pd

#: Columns of the results DataFrame, in order.
COLUMNS = ("item", "pair", "category", "phenomenon", "system", "output", "outcome", "reason")
OUTCOMES = tuple(o.value for o in Outcome)


class Evaluation:
    """The outcome of every item × system, with what was noticed about the inputs.

    The outcomes are kept as columns (one list per column of `COLUMNS`); `results` is the
    same data as a tidy pandas DataFrame, built the first time it is asked for, so that
    commands that only score never pay for pandas.

    Attributes:
        systems: Names of the systems evaluated, in input order.
        excluded: Systems left out because they did not translate the suite.
        identical: Groups of evaluated systems with identical outputs on every item.
        located: For WMT inputs, where the items were found, per language pair.
        inputs: The system outputs evaluated, left-out systems included (for saving runs).
        normalise: The typographic normalisation outputs were matched under (its name), or
            None: the published method.
        notes: What every report of this evaluation must say about where it came from
            (a saved run, and how much of it was judged again).
    """

    def __init__(self, results: pd.DataFrame | Mapping[str, Sequence[str]],
                 systems: list[str] | None = None, excluded: list[NotTranslated] | None = None,
                 identical: list[tuple[str, ...]] | None = None,
                 located: dict[str, Located] | None = None,
                 inputs: list[SystemOutputs] | None = None,
                 normalise: str | None = None) -> None:
        """Args:
            results: The outcomes: a DataFrame with the columns `COLUMNS`, or the columns
                themselves (one sequence of text per column name).
            systems, excluded, identical, located, inputs, normalise: See the class
                attributes.
        """
        if isinstance(results, Mapping):
            self._columns: dict[str, Sequence[str]] | None = {
                name: results[name] for name in COLUMNS}
            self._frame: pd.DataFrame | None = None
        else:
            self._columns, self._frame = None, results
        self.systems = list(systems or [])
        self.excluded = list(excluded or [])
        self.identical = list(identical or [])
        self.located = dict(located or {})
        self.inputs = list(inputs or [])
        self.normalise = normalise
        self.notes: list[str] = []

    @property
    def results(self) -> pd.DataFrame:
        """Tidy DataFrame, one row per item × system, with the columns `COLUMNS`."""
        if self._frame is None:
            import pandas as pd

            assert self._columns is not None
            frame = pd.DataFrame({name: list(values) for name, values in self._columns.items()},
                                 columns=list(COLUMNS))
            for name in ("item", "pair", "category", "phenomenon", "system", "reason"):
                frame[name] = frame[name].astype("category")
            frame["outcome"] = pd.Categorical(frame["outcome"], categories=list(OUTCOMES))
            self._frame = frame
        return self._frame

    @property
    def columns(self) -> dict[str, Sequence[str]]:
        """The outcomes column by column (text values), without building a DataFrame."""
        if self._columns is None:
            assert self._frame is not None
            self._columns = {name: self._frame[name].astype(str).tolist() for name in COLUMNS}
        return self._columns

    @property
    def pairs(self) -> list[str]:
        """Language pairs with outcomes, in order of first appearance."""
        return list(dict.fromkeys(self.columns["pair"]))

    def cacheable(self) -> Evaluation:
        """This evaluation without its DataFrame (rebuilt on demand), for the cache."""
        return Evaluation(self.columns, self.systems, self.excluded, self.identical,
                          self.located, self.inputs, self.normalise)

    def counts(self) -> dict[tuple[str, str], dict[str, int]]:
        """Outcome counts per (pair, system), systems in evaluation order (no pandas)."""
        found: dict[tuple[str, str], dict[str, int]] = {}
        columns = self.columns
        for pair, system, outcome in zip(columns["pair"], columns["system"],
                                         columns["outcome"], strict=True):
            counts = found.get((pair, system))
            if counts is None:
                counts = found[(pair, system)] = dict.fromkeys(OUTCOMES, 0)
            counts[outcome] += 1
        order = {s: i for i, s in enumerate(self.systems)}
        return dict(sorted(found.items(), key=lambda kv: (self.pairs.index(kv[0][0]),
                                                          order.get(kv[0][1], len(order)))))

    def summary(self) -> pd.DataFrame:
        """Outcome counts per system, with the warning rate (warnings / outputs)."""
        import pandas as pd

        counts = self.counts()
        frame = pd.DataFrame(list(counts.values()), columns=list(OUTCOMES),
                             index=pd.MultiIndex.from_tuples(list(counts),
                                                             names=["pair", "system"]))
        frame["total"] = frame[list(OUTCOMES)].sum(axis=1)
        frame["warning_rate"] = frame["warning"] / frame["total"]
        return frame

    def __repr__(self) -> str:
        return (f"Evaluation({len(self.columns['item'])} outcomes, pairs {self.pairs}, "
                f"{len(self.systems)} systems)")


def evaluate(
    suite: Suite,
    systems: Sequence[SystemOutputs],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    located: dict[str, Located] | None = None,
    progress: Callable[[int], None] | None = None,
    regex_cache: RegexCache | None = None,
    known: Mapping[tuple[str, str, str], tuple[str, str]] | None = None,
    normalise: Profile | None = None,
) -> Evaluation:
    """Judge every output of every system against the suite's rules.

    Systems that did not translate the suite (mostly empty or one placeholder line) are
    reported in `Evaluation.excluded` and left out of the results, as SPEC.md requires.

    Args:
        suite: Items and rules.
        systems: Outputs per system; each knows its language pair.
        timeout: Per-match regex time limit in seconds (a timeout gives a warning); above 0
            and at most a day (`values.seconds`).
        located: Where WMT inputs were located, kept in the result for reporting.
        progress: Called with the number of outputs judged since the last call.
        regex_cache: Compiled patterns to use and extend; by default the persistent cache
            in the user's cache folder (`RegexCache.persistent`).
        known: Outcomes already judged with the same rules, as (outcome, reason) by
            (pair, item, output): a saved run reuses them for the items whose rules have not
            changed since, and only the others are judged again.
        normalise: A typographic-equivalence profile applied to outputs before matching
            (`testsuite.normalise`); off by default, as in the published method.

    Returns:
        The evaluation; `results` has one row per item × (translating) system.

    Raises:
        values.BadValue: for a time limit out of range.
    """
    timeout = seconds(timeout)  # before any work: a bad limit would judge every output wrongly
    excluded = [n for n in (not_translated(s) for s in systems) if n is not None]
    left_out = {n.system for n in excluded}
    kept = [s for s in systems if s.system not in left_out]

    cache = regex_cache if regex_cache is not None else RegexCache.persistent()
    compiled: dict[tuple[str, str], CompiledRule] = {}
    # Many systems produce the same output for an item; judge each distinct one once.
    judged: dict[tuple[str, str, str], tuple[str, str]] = dict(known or {})

    def judge(key: tuple[str, str, str]) -> tuple[str, str]:
        result = judged.get(key)
        if result is None:
            rule = compiled.get(key[:2])
            if rule is None:
                rule = compiled[key[:2]] = CompiledRule(suite.rules.get(key[:2]), cache,
                                                        timeout, normalise)
            judgement = rule.judge(key[2])
            result = judged[key] = (judgement.outcome.value, judgement.reason)
        return result

    columns: dict[str, list[str]] = {name: [] for name in COLUMNS}
    items = suite.items
    for system in kept:
        pair = system.pair
        # Column by column: list comprehensions over ~3,000 outputs per system are several
        # times faster than appending row by row.
        entries = [(item_id, output, items[(pair, item_id)])
                   for item_id, output in system.outputs.items() if (pair, item_id) in items]
        results = [judged.get((pair, item_id, output)) or judge((pair, item_id, output))
                   for item_id, output, _ in entries]
        for index, (item_id, _, _) in enumerate(entries):
            if item_id in system.occurrences and results[index][1] not in VERDICT_REASONS:
                # --repeated agree: every occurrence is judged; different outcomes need a
                # person (the outputs differ in what the rule looks at), whose verdict on
                # the item's output then decides.
                outcomes = {judge((pair, item_id, o))[0] for o in system.occurrences[item_id]}
                if len(outcomes) > 1:
                    results[index] = (Outcome.WARNING.value, REASON_DISAGREE)
        columns["item"] += [item_id for item_id, _, _ in entries]
        columns["pair"] += [pair] * len(entries)
        columns["category"] += [item.category for _, _, item in entries]
        columns["phenomenon"] += [item.phenomenon for _, _, item in entries]
        columns["system"] += [system.system] * len(entries)
        columns["output"] += [output for _, output, _ in entries]
        columns["outcome"] += [outcome for outcome, _ in results]
        columns["reason"] += [reason for _, reason in results]
        if progress:
            progress(len(entries))

    cache.save()
    by_pair: dict[str, list[SystemOutputs]] = {}
    for system in kept:
        by_pair.setdefault(system.pair, []).append(system)
    identical = [group for group_systems in by_pair.values()
                 for group in identical_systems(group_systems)]
    return Evaluation(columns, [s.system for s in kept], excluded, identical, dict(located or {}),
                      list(systems), normalise.name if normalise else None)
