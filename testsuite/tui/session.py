"""The state of a triage session, without a screen: queue, decisions, undo, rule edits.

The app (`testsuite.tui.app`) only draws this state and maps keys to its methods, so every
behaviour here is testable without a terminal. Decisions are written at once through
`testsuite.triage.decide` (locked, atomic) and mirrored in the in-memory suite, so that the
outcomes shown, the regex preview and a refreshed queue all see them without reloading.

The queue is the list of pending warnings computed when the session starts (and again after
a rule edit or a filter change). A decided entry stays in its place, marked, so that the
annotator can step back to it; it is gone from the next computed queue, as it is from the
queue of the next session.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import TestsuiteError
from ..matching import CompiledRule, Judgement, RegexCache
from ..model import Rule, Suite, Verdict
from ..rule_edit import RegexField, set_item_regex
from ..triage import Pending, decide, pending_warnings
from ..verdicts import record, remove
from .filters import Filters

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from ..outputs.model import Located, SystemOutputs
    from . import TriageOptions

#: An output to decide: (pair, item id, stripped output).
Key = tuple[str, str, str]


@dataclass
class Decision:
    """A verdict recorded in this session (what `undo` takes back).

    Attributes:
        entry: The pending entry decided.
        path: The verdicts file written.
        verdict: The verdict as stored.
        previous: The session's earlier decision on the same output that this one replaced.
    """

    entry: Pending
    path: Path
    verdict: Verdict
    previous: Decision | None = None


@dataclass(frozen=True)
class Change:
    """An output whose outcome a rule edit would change."""

    system: str
    output: str
    old: str
    new: str


@dataclass(frozen=True)
class Progress:
    """Resolved and remaining outputs, overall (all filters off) and per category."""

    resolved: int
    remaining: int
    by_category: dict[str, tuple[int, int]]


@dataclass(frozen=True)
class SystemOutcome:
    """One system's output for the item on screen, judged with the current rule."""

    system: str
    output: str
    outcome: str
    reason: str


def with_regex(rule: Rule, field_name: RegexField, pattern: str) -> Rule:
    """A copy of `rule` with `pattern` as its positive or negative regex."""
    if field_name == "positive_regex":
        return replace(rule, positive_regex=pattern)
    return replace(rule, negative_regex=pattern)


def key_of(entry: Pending) -> Key:
    """The identity of an entry: one distinct output of one item."""
    return (entry.pair, entry.item, entry.output)


class TriageSession:
    """Pending warnings of an evaluation and what an annotator does about them.

    Args:
        suite: The suite, with the rules and verdicts as loaded; the session keeps it in
            step with what it writes.
        systems: Every system's outputs.
        located: Where WMT inputs were located (passed on to `evaluate`).
        annotator: Name stored with each decision.
        filters: Which entries the queue shows.
        order: ``impact`` or ``suite``.
        cache: Compiled regexes (default: the persistent cache, as `evaluate` uses).

    Attributes:
        entries: The queue.
        position: Index of the entry on screen.
        history: This session's decisions, oldest first (undo pops the last).
        decided: The decision standing on each output decided in this session.
        notes: Notes waiting for the next decision of an output.
    """

    def __init__(self, suite: Suite, systems: list[SystemOutputs],
                 located: dict[str, Located], annotator: str, filters: Filters | None = None,
                 order: str = "impact", cache: RegexCache | None = None) -> None:
        self.suite = suite
        self.systems = systems
        self.located = located
        self.annotator = annotator
        self.filters = filters or Filters()
        self.order = order
        self.cache = cache if cache is not None else RegexCache.persistent()
        self.evaluation: Evaluation | None = None
        self.entries: list[Pending] = []
        self.position = 0
        self.history: list[Decision] = []
        self.decided: dict[Key, Decision] = {}
        self.notes: dict[Key, str] = {}
        self._seen: dict[Key, str] = {}  # every output pending in this session → category
        self._open: set[Key] = set()  # outputs pending now, all filters off

    @classmethod
    def load(cls, options: TriageOptions) -> TriageSession:
        """Load the suite and outputs as `testsuite evaluate` does, and compute the queue."""
        from ..inputs import load_outputs
        from ..loader import load_suite

        if options.order not in ("impact", "suite"):
            raise TestsuiteError(f"order must be 'impact' or 'suite', not {options.order!r}")
        suite = load_suite(options.suite_paths)
        systems, located = load_outputs(suite, options.outputs, pair=options.pair,
                                        source=options.source, ids=options.ids,
                                        encoding=options.encoding)
        session = cls(suite, systems, located, options.annotator,
                      Filters(options.categories, options.phenomena, options.systems),
                      options.order)
        session.check_filters(session.filters)
        session.refresh()
        return session

    @property
    def saved(self) -> int:
        """Outputs that have a verdict from this session (undone ones not counted)."""
        return len(self.decided)

    # --- the queue --------------------------------------------------------------------------

    @property
    def current(self) -> Pending | None:
        """The entry on screen, or None if the queue is empty."""
        return self.entries[self.position] if self.entries else None

    def is_decided(self, entry: Pending) -> bool:
        """Whether `entry` has a verdict from this session."""
        return key_of(entry) in self.decided

    def refresh(self, keep: Key | None = None) -> None:
        """Re-judge every output with the current rules and recompute the queue.

        Args:
            keep: Stay on this entry if it is still pending; else go to another pending
                output of its item (a rule edit resolved this one: the annotator is still
                on that item); else stay at the same place in the queue.
        """
        from ..evaluate import evaluate

        self.evaluation = evaluate(self.suite, self.systems, located=self.located,
                                   regex_cache=self.cache)
        everything = pending_warnings(self.evaluation, self.suite, order=self.order)
        self._open = {key_of(p) for p in everything}
        for entry in everything:
            self._seen.setdefault(key_of(entry), entry.category)
        f = self.filters
        self.entries = pending_warnings(self.evaluation, self.suite, categories=f.categories,
                                        phenomena=f.phenomena, systems=f.systems,
                                        order=self.order)
        keys = [key_of(p) for p in self.entries]
        same_item = [i for i, k in enumerate(keys) if keep is not None and k[:2] == keep[:2]]
        if keep is not None and keep in keys:
            self.position = keys.index(keep)
        elif same_item:
            self.position = same_item[0]
        else:
            self.position = min(self.position, max(len(self.entries) - 1, 0))

    def move(self, step: int) -> None:
        """Go `step` entries forward (negative: back), staying within the queue."""
        if self.entries:
            self.position = max(0, min(len(self.entries) - 1, self.position + step))

    def next_open(self) -> None:
        """Go to the next undecided entry after this one (wrapping); stay if there is none."""
        count = len(self.entries)
        for step in range(1, count + 1):
            index = (self.position + step) % count
            if not self.is_decided(self.entries[index]):
                self.position = index
                return

    def check_filters(self, filters: Filters) -> None:
        """Refuse filter values that name no category, phenomenon or system.

        Raises:
            TestsuiteError: naming the unknown values and the known ones.
        """
        known = {
            "category": {i.category.casefold(): i.category for i in self.suite},
            "phenomenon": {i.phenomenon.casefold(): i.phenomenon for i in self.suite},
            "system": {s.system.casefold(): s.system for s in self.systems},
        }
        chosen = (filters.categories, filters.phenomena, filters.systems)
        for (what, names), values in zip(known.items(), chosen, strict=True):
            unknown = [v for v in values if v.casefold() not in names]
            if unknown:
                raise TestsuiteError(f"no {what} {', '.join(map(repr, unknown))} (known: "
                                     f"{', '.join(sorted(set(names.values())))})")

    def set_filters(self, filters: Filters) -> None:
        """Show only the entries `filters` selects (the queue is recomputed)."""
        self.check_filters(filters)
        self.filters = filters
        current = self.current
        self.position = 0
        self.refresh(keep=key_of(current) if current else None)

    # --- decisions --------------------------------------------------------------------------

    def set_note(self, text: str) -> None:
        """Attach a note to the current entry; it is stored with its next pass or fail."""
        entry = self.current
        if entry is None:
            return
        if text.strip():
            self.notes[key_of(entry)] = text.strip()
        else:
            self.notes.pop(key_of(entry), None)

    def note(self, entry: Pending) -> str:
        """The note waiting for `entry`, if any."""
        return self.notes.get(key_of(entry), "")

    def decide(self, verdict: str) -> Decision | None:
        """Record `verdict` (pass or fail) on the current entry and go to the next open one.

        Deciding an entry again replaces this session's earlier verdict on it.
        """
        entry = self.current
        if entry is None:
            return None
        key = key_of(entry)
        previous = self.decided.get(key)
        if previous is not None:
            self._take_back(previous)
        path, stored = decide(self.suite, entry.pair, entry.item, entry.output, verdict,
                              annotator=self.annotator, note=self.notes.get(key))
        decision = Decision(entry, path, stored, previous)
        self._remember(entry, stored)
        self.history.append(decision)
        self.decided[key] = decision
        self._open.discard(key)
        self.next_open()
        return decision

    def undo(self) -> Decision | None:
        """Take back the last decision of this session and go back to its entry."""
        if not self.history:
            return None
        decision = self.history.pop()
        key = key_of(decision.entry)
        self._take_back(decision)
        if decision.previous is not None:
            old = decision.previous
            record(old.path, old.entry.pair, old.entry.item, old.verdict.output,
                   old.verdict.verdict, old.verdict.annotator, old.verdict.note, old.verdict.time)
            self._remember(old.entry, old.verdict)
            self.decided[key] = old
        else:
            del self.decided[key]
            self._open.add(key)
        keys = [key_of(p) for p in self.entries]
        if key in keys:
            self.position = keys.index(key)
        else:  # the queue was recomputed since: the entry comes back with the new one
            self.refresh(keep=key)
        return decision

    def _take_back(self, decision: Decision) -> None:
        if not remove(decision.path, decision.entry.item, decision.verdict):
            raise TestsuiteError(f"the verdict on {decision.entry.item} is no longer in "
                                 f"{decision.path} (edited meanwhile?)")
        self._forget(decision.entry, decision.verdict)

    def _rule(self, pair: str, item: str) -> Rule:
        return self.suite.rules.get((pair, item)) or Rule(item)

    def _remember(self, entry: Pending, verdict: Verdict) -> None:
        rule = self._rule(entry.pair, entry.item)
        self.suite.rules[(entry.pair, entry.item)] = replace(
            rule, verdicts=(*rule.verdicts, verdict))

    def _forget(self, entry: Pending, verdict: Verdict) -> None:
        rule = self._rule(entry.pair, entry.item)
        kept = list(rule.verdicts)
        if verdict in kept:
            kept.reverse()
            kept.remove(verdict)
            kept.reverse()
        self.suite.rules[(entry.pair, entry.item)] = replace(rule, verdicts=tuple(kept))

    # --- what is shown ----------------------------------------------------------------------

    def rule_of(self, entry: Pending) -> Rule | None:
        """The rule of the entry's item as it stands now (with this session's verdicts)."""
        return self.suite.rules.get((entry.pair, entry.item))

    def outcomes(self, entry: Pending) -> list[SystemOutcome]:
        """Every evaluated system's output for the entry's item, judged now."""
        compiled = CompiledRule(self.rule_of(entry), self.cache)
        kept = set(self.evaluation.systems) if self.evaluation is not None else None
        found = []
        for system in self.systems:
            if system.pair != entry.pair or (kept is not None and system.system not in kept):
                continue
            output = system.outputs.get(entry.item)
            if output is None:
                continue
            judgement = compiled.judge(output)
            found.append(SystemOutcome(system.system, output, judgement.outcome.value,
                                       judgement.reason))
        return found

    def progress(self) -> Progress:
        """Resolved (this session) and remaining outputs, all filters off."""
        resolved = Counter(c for k, c in self._seen.items() if k not in self._open)
        remaining = Counter(self._seen[k] for k in self._open if k in self._seen)
        categories = sorted(set(resolved) | set(remaining),
                            key=lambda c: (-remaining[c], c))
        return Progress(sum(resolved.values()), sum(remaining.values()),
                        {c: (resolved[c], remaining[c]) for c in categories})

    # --- rule edits -------------------------------------------------------------------------

    def regex_error(self, pattern: str) -> str | None:
        """Why `pattern` does not compile, or None (empty means: no regex)."""
        return RegexCache().error(pattern) if pattern else None

    def preview(self, entry: Pending, field_name: RegexField, pattern: str) -> list[Change]:
        """Outputs of every system whose outcome would change with `pattern` as the regex.

        Raises:
            TestsuiteError: if the pattern does not compile.
        """
        error = self.regex_error(pattern)
        if error:
            raise TestsuiteError(f"{field_name} does not compile: {error}")
        old_rule = self.rule_of(entry)
        new_rule = with_regex(old_rule or Rule(entry.item), field_name, pattern)
        new = CompiledRule(new_rule, RegexCache())
        changes = []
        for shown in self.outcomes(entry):
            judged: Judgement = new.judge(shown.output)
            if judged.outcome.value != shown.outcome:
                changes.append(Change(shown.system, shown.output, shown.outcome,
                                      judged.outcome.value))
        return changes

    def save_regex(self, entry: Pending, field_name: RegexField, pattern: str) -> Path:
        """Write the new regex into the item's rules file, re-judge and recompute the queue.

        Returns:
            The rules file written.
        """
        path = set_item_regex(self.suite, entry.pair, entry.item, field_name, pattern)
        rule = self._rule(entry.pair, entry.item)
        self.suite.rules[(entry.pair, entry.item)] = with_regex(rule, field_name, pattern)
        self.refresh(keep=key_of(entry))
        return path
