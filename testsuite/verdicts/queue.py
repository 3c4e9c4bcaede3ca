"""Warning triage without a screen: what is pending, in which order, and deciding it.

A *pending decision* is one distinct output of one item that is a `warning` for at least
one system. Identical outputs of different systems (compared without surrounding white
space) are decided once: a verdict is recorded on the exact output, so it applies to every
system that produced it, and to next year's outputs too.

Order by *impact*: a decision that resolves an item's last open warning lets that item into
the scores for every system (the fairness rule), which is what can move a row's first
cluster or a system's rank; such decisions come first, those shared by more systems
before others. Decisions that leave other warnings of the item open come after.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import TestsuiteError
from ..model import Suite, Verdict
from ..names import pick
from .store import record, record_all, verdict_file

if TYPE_CHECKING:
    from ..evaluate import Evaluation


@dataclass(frozen=True)
class Pending:
    """One decision to make.

    Attributes:
        pair: Language pair.
        item: Item id.
        category: The item's category.
        phenomenon: The item's phenomenon.
        source: The source sentence.
        output: The output to decide on (stripped).
        systems: Systems that produced this output and got a warning for it.
        reason: Why it is a warning (``no-match``, ``both-regexes``, …).
        completes: Whether deciding it resolves the item's last open warning.
        impact: Outcomes that enter the scores when it is decided (0 if others remain).
    """

    pair: str
    item: str
    category: str
    phenomenon: str
    source: str
    output: str
    systems: tuple[str, ...]
    reason: str
    completes: bool
    impact: int

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form (for `testsuite pending`)."""
        return {"pair": self.pair, "item": self.item, "category": self.category,
                "phenomenon": self.phenomenon, "source": self.source, "output": self.output,
                "systems": list(self.systems), "reason": self.reason,
                "completes": self.completes, "impact": self.impact}


#: One judged output: (pair, item, system, output, outcome, reason).
Row = tuple[str, str, str, str, str, str]


def evaluation_rows(evaluation: Evaluation) -> Iterable[Row]:
    """The rows of an evaluation's results, as `pending_rows` reads them (no pandas)."""
    columns = evaluation.columns
    return zip(*(columns[name] for name in ("pair", "item", "system", "output", "outcome",
                                            "reason")), strict=True)


def known_systems(evaluation: Evaluation) -> list[str]:
    """The systems a filter may name: every system loaded, in input order.

    Systems left out because they did not translate the suite are known too: they have no
    judged rows, so filtering to one selects nothing pending, which is not an error.
    """
    return list(dict.fromkeys([*evaluation.systems, *(e.system for e in evaluation.excluded)]))


def filter_names(suite: Suite, systems_known: Sequence[str], *,
                 categories: Sequence[str] | None = None,
                 phenomena: Sequence[str] | None = None,
                 systems: Sequence[str] | None = None) -> dict[str, set[str]]:
    """What a filter selects, by field, as the suite and the outputs spell the names
    (`names.pick`: any case); an empty set where that field is not filtered.

    Args:
        suite: The suite (its categories and phenomena).
        systems_known: The system names a filter may take (`known_systems`).
        categories, phenomena, systems: The filter's values.

    Raises:
        TestsuiteError: naming the unknown values and the known ones.
    """
    items = list(suite)
    return {
        "category": set(pick(list(dict.fromkeys(i.category for i in items)), categories,
                             "category")) if categories else set(),
        "phenomenon": set(pick(list(dict.fromkeys(i.phenomenon for i in items)), phenomena,
                               "phenomenon")) if phenomena else set(),
        "system": set(pick(systems_known, systems, "system")) if systems else set(),
    }


def systems_per_pair(evaluation: Evaluation) -> dict[str, int]:
    """How many systems were evaluated per language pair (the impact of an item)."""
    columns = evaluation.columns
    seen: dict[str, set[str]] = {}
    for pair, system in zip(columns["pair"], columns["system"], strict=True):
        seen.setdefault(pair, set()).add(system)
    return {pair: len(systems) for pair, systems in seen.items()}


def pending_warnings(evaluation: Evaluation, suite: Suite, *,
                     categories: Sequence[str] | None = None,
                     phenomena: Sequence[str] | None = None,
                     systems: Sequence[str] | None = None,
                     order: str = "impact") -> list[Pending]:
    """The distinct warning outputs still to decide, most useful first (or suite order).

    Args:
        evaluation: An evaluation with the current rules and verdicts.
        suite: The suite evaluated (for sources and the suite order).
        categories: Only items of these categories (case-insensitive).
        phenomena: Only items of these phenomena (case-insensitive).
        systems: Only outputs of these systems.
        order: ``impact`` (default) or ``suite``.
    """
    return pending_rows(evaluation_rows(evaluation), suite, systems_per_pair(evaluation),
                        categories=categories, phenomena=phenomena, systems=systems,
                        order=order, systems_known=known_systems(evaluation))


def pending_rows(rows: Iterable[Row], suite: Suite, n_systems: dict[str, int], *,
                 categories: Sequence[str] | None = None,
                 phenomena: Sequence[str] | None = None,
                 systems: Sequence[str] | None = None,
                 order: str = "impact",
                 systems_known: Sequence[str] | None = None) -> list[Pending]:
    """`pending_warnings` over judged rows (a triage session keeps its own, updated per item).

    Args:
        rows: Every judged output.
        suite: The suite (for sources and the suite order).
        n_systems: Systems evaluated per language pair (the impact of completing an item).
        categories: Only items of these categories (case-insensitive).
        phenomena: Only items of these phenomena (case-insensitive).
        systems: Only outputs of these systems.
        order: ``impact`` (default) or ``suite``.
        systems_known: The system names `systems` may take (`known_systems`; default: those
            of the rows).

    Raises:
        TestsuiteError: for an unknown order or filter value (`filter_names`).
    """
    if order not in ("impact", "suite"):
        raise TestsuiteError(f"order must be 'impact' or 'suite', not {order!r}")
    rows = list(rows)
    if systems_known is None:
        systems_known = list(dict.fromkeys(row[2] for row in rows))
    wanted = filter_names(suite, systems_known, categories=categories, phenomena=phenomena,
                          systems=systems)
    position = {key: index for index, key in enumerate(suite.items)}
    open_outputs: dict[tuple[str, str], set[str]] = {}
    blocked: set[tuple[str, str]] = set()  # items with a missing output never enter
    groups: dict[tuple[str, str, str], tuple[list[str], str]] = {}
    for pair, item_id, system, raw, outcome, reason in rows:
        key = (pair, item_id)
        if outcome == "missing":
            blocked.add(key)
        if outcome != "warning":
            continue
        output = raw.strip()
        open_outputs.setdefault(key, set()).add(output)
        if wanted["system"] and system not in wanted["system"]:
            continue
        systems_of, _ = groups.setdefault((*key, output), ([], reason))
        systems_of.append(system)
    found = []
    for (pair, item_id, output), (systems_of, reason) in groups.items():
        item = suite.items.get((pair, item_id))
        if item is None:
            continue
        if wanted["category"] and item.category not in wanted["category"]:
            continue
        if wanted["phenomenon"] and item.phenomenon not in wanted["phenomenon"]:
            continue
        completes = len(open_outputs[(pair, item_id)]) == 1 and (pair, item_id) not in blocked
        found.append(Pending(pair, item_id, item.category, item.phenomenon, item.source,
                             output, tuple(systems_of), reason, completes,
                             n_systems[pair] if completes else 0))
    if order == "impact":
        found.sort(key=lambda p: (-p.impact, -len(p.systems), position[(p.pair, p.item)]))
    else:
        found.sort(key=lambda p: position[(p.pair, p.item)])
    return found


def decide(suite: Suite, pair: str, item_id: str, output: str, verdict: str, *,
           annotator: str | None = None, note: str | None = None,
           settles: bool = False) -> tuple[Path, Verdict]:
    """Record a verdict on one exact output of one item, where the suite keeps it.

    Returns:
        The verdicts file written and the verdict as stored.
    """
    path = verdicts_path(suite, pair, item_id)
    return path, record(path, pair, item_id, output, verdict, annotator, note,
                        settles=settles)


def decide_many(suite: Suite, decisions: Iterable[tuple[str, str, Verdict]]
                ) -> list[tuple[Path, str, Verdict]]:
    """Record verdicts (pair, item id, verdict as `store.make_verdict` makes it) where the
    suite keeps them: all or none, however many verdicts files they go to
    (`store.record_all`).

    Returns:
        (file, item id, verdict) of each, as written (what `batch.undo` takes back).
    """
    by_file: dict[Path, tuple[str, list[tuple[str, Verdict]]]] = {}
    for pair, item_id, verdict in decisions:
        path = verdicts_path(suite, pair, item_id)
        by_file.setdefault(path, (pair, []))[1].append((item_id, verdict))
    record_all(by_file)  # every file or none
    return [(path, item_id, verdict) for path, (_, written) in by_file.items()
            for item_id, verdict in written]


def verdicts_files(suite: Suite, pair: str | None = None) -> list[Path]:
    """Every verdicts file the suite's items keep their decisions in (of one pair, if
    given), existing or not, in a fixed order."""
    found = {verdict_file(item, suite.rule_of(item)) for item in suite
             if pair is None or item.pair == pair}
    return sorted(found)


def verdicts_path(suite: Suite, pair: str, item_id: str) -> Path:
    """The verdicts file of an item of the suite (see `verdict_file`).

    Raises:
        TestsuiteError: for an unknown item.
    """
    item = suite.items.get((pair, item_id))
    if item is None:
        raise TestsuiteError(f"no {pair} item {item_id!r} in the suite")
    return verdict_file(item, suite.rule_of(item))
