"""The state of a triage session, without a screen: queue, decisions, undo, rule edits.

The app (`testsuite.tui.app`) only draws this state and maps keys to its methods, so every
behaviour here is testable without a terminal. Decisions are written at once (locked,
atomic) and mirrored in the in-memory suite.

**Shared state.** Several annotators may work on one suite folder at once. `sync` (called
every second by the app) takes in what changed on disk — another session's decisions or
rule edits — through `testsuite.tui.shared.SharedFolder`, re-judges the items concerned and
updates the queue in place; presence files mark what the others are on. Contradicting
verdicts are kept as a disagreement (`testsuite.model.standing_verdicts`); a rule edit
checks under the lock that the rule is still as the editor saw it, and a batch that the
outputs of its preview are all still pending (one check for both,
`testsuite.errors.check_view`).

**Undo** takes back this annotator's own last action only — a decision, a batch (as one) or
a rule edit (only while the rules file is as the edit left it).

**Notes** are saved when typed: on a decided output into its verdict, otherwise in the
annotator's drafts file (`SharedFolder.save_drafts`) until the output is decided.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import TestsuiteError, check_view
from ..matching import DEFAULT_TIMEOUT, CompiledRule, RegexCache, regex_error
from ..model import DISAGREEMENT, Rule, Suite, Verdict, in_force
from ..rule_edit import Edit, RegexField, set_item_regex, undo_edit, view_of, with_regex
from ..verdicts.batch import apply, select
from ..verdicts.batch import undo as undo_batch
from ..verdicts.proposals import PreviewRow, Proposal
from ..verdicts.queue import Pending, Row, filter_names, pending_rows
from ..verdicts.queue import decide as decide_output
from ..verdicts.store import record, remove, set_note
from ..verdicts.suggest import Suggestions, by_item
from .filters import Filters
from .shared import SharedFolder, Synced

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from ..outputs.model import SystemOutputs
    from . import TriageOptions

#: An output to decide: (pair, item id, stripped output).
Key = tuple[str, str, str]
#: A rule edit that changes more outcomes than this asks for confirmation.
CONFIRM_CHANGES = 10


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


@dataclass
class BatchDone:
    """A batch or proposal recorded in this session: its verdicts are undone as one.

    Attributes:
        batch: What was recorded.
        recorded: (file, item, verdict) of each verdict it recorded.
        queue: The queue's entries when it was recorded, in order (undo puts them back).
        at: The entry on the screen then (undo goes back to it).
    """

    batch: Proposal
    recorded: list[tuple[Path, str, Verdict]]
    queue: list[Key] = field(default_factory=list)
    at: Key | None = None


@dataclass
class RuleEdit:
    """A rule edit saved in this session (undone by restoring the file)."""

    pair: str
    item: str
    field: RegexField
    old: str
    new: str
    edit: Edit


Action = Decision | BatchDone | RuleEdit


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


def key_of(entry: Pending) -> Key:
    """The identity of an entry: one distinct output of one item."""
    return (entry.pair, entry.item, entry.output)


class TriageSession:
    """Pending warnings of an evaluation and what an annotator does about them.

    Args:
        suite: The suite, with the rules and verdicts as loaded; the session keeps it in
            step with what it and others write.
        evaluation: The evaluation of the outputs with that suite (its systems' outputs,
            outcomes and normalisation).
        annotator: Name stored with each decision.
        filters: Which entries the queue shows.
        order: ``impact`` or ``suite``.
        cache: Compiled regexes (default: the persistent cache, as `evaluate` uses).
        timeout: Per-match regex time limit, as the evaluation used.

    Attributes:
        entries: The queue.
        position: Index of the entry on screen.
        history: This annotator's actions in this session, oldest first (undo pops the last).
        decided: The decision standing on each output decided in this session.
        notes: Notes typed on outputs not decided yet (also kept in the drafts file).
    """

    def __init__(self, suite: Suite, evaluation: Evaluation, annotator: str,
                 filters: Filters | None = None, order: str = "impact",
                 cache: RegexCache | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
        from ..normalise import profile
        from ..verdicts.queue import evaluation_rows, known_systems, systems_per_pair

        self.suite = suite
        self.systems: list[SystemOutputs] = evaluation.inputs
        self.annotator = annotator
        self.filters = filters or Filters()
        self.order = order
        self.cache = cache if cache is not None else RegexCache.persistent()
        # Outputs are matched as the evaluation matched them (its normalisation, if any),
        # and shown raw.
        self.normalise = profile(evaluation.normalise)
        self.timeout = timeout
        self.why_cache = RegexCache()  # prefixes of patterns: never saved to the cache file
        self.entries: list[Pending] = []
        self.position = 0
        self.history: list[Action] = []
        self.decided: dict[Key, Decision] = {}
        self.notes: dict[Key, str] = {}
        self.others: dict[tuple[str, str], list[str]] = {}  # (pair, item) → annotators on it
        # What others did that took the current entry away (set by `sync`, until shown).
        self.replaced = ""
        self._seen: dict[Key, str] = {}  # every output pending in this session → category
        self._open: set[Key] = set()  # outputs pending now, all filters off
        self.suggestions = Suggestions(suite)
        self._proposals: dict[tuple[str, str], list[Proposal]] = {}  # until outcomes change
        self.rejected: set[str] = set()  # ids of proposals this annotator turned down
        self.kept = set(evaluation.systems)
        self.known_systems = known_systems(evaluation)  # what a system filter may name
        self.left_out = evaluation.excluded
        self.n_systems = systems_per_pair(evaluation)
        self.rows: dict[tuple[str, str], list[Row]] = by_item(evaluation_rows(evaluation))
        self._all_pending: list[Pending] | None = None  # `all_pending`, until rows change
        self.shared = SharedFolder(suite, annotator)
        self.notes.update(self.shared.load_drafts())

    @classmethod
    def load(cls, options: TriageOptions,
             progress: Callable[[str], None] | None = None) -> TriageSession:
        """Load and judge what the options name (`testsuite.inputs.load_evaluation`, as
        every evaluating command does), and compute the queue.

        Args:
            options: What to triage.
            progress: Told what is being done (for the loading screen).
        """
        from ..inputs import load_evaluation

        if options.order not in ("impact", "suite"):
            raise TestsuiteError(f"order must be 'impact' or 'suite', not {options.order!r}")
        if progress is not None:
            progress("reading and judging the outputs")
        suite, evaluation = load_evaluation(options.inputs)
        session = cls(suite, evaluation, options.annotator,
                      Filters(options.categories, options.phenomena, options.systems),
                      options.order, timeout=options.inputs.timeout)
        session.check_filters(session.filters)
        session.refresh()
        return session

    @property
    def saved(self) -> int:
        """Outputs that have a verdict from this session (undone ones not counted)."""
        return len(self.decided) + sum(len(a.recorded) for a in self.history
                                       if isinstance(a, BatchDone))

    # --- the queue --------------------------------------------------------------------------

    @property
    def current(self) -> Pending | None:
        """The entry on screen, or None if the queue is empty."""
        return self.entries[self.position] if self.entries else None

    def is_decided(self, entry: Pending) -> bool:
        """Whether `entry` has a verdict from this session."""
        return key_of(entry) in self.decided

    def rejudge(self, keys: set[tuple[str, str]]) -> None:
        """Judge every output of these items again with their current rules."""
        by_key: dict[tuple[str, str], list[Row]] = {key: [] for key in keys}
        compiled = {key: CompiledRule(self.suite.rules.get(key), self.cache, self.timeout,
                                      normalise=self.normalise) for key in keys}
        for system in self.systems:
            if system.system not in self.kept:
                continue
            for key in keys:
                if key[0] != system.pair or key[1] not in system.outputs:
                    continue
                output = system.outputs[key[1]]
                judged = compiled[key].judge(output)
                by_key[key].append((key[0], key[1], system.system, output,
                                    judged.outcome.value, judged.reason))
        self.rows.update(by_key)
        self._all_pending = None

    def _pending(self) -> list[Pending]:
        """The pending entries the filters select; counts every pending one for progress."""
        everything = self.all_pending()
        self._open = {key_of(p) for p in everything}
        for entry in everything:
            self._seen.setdefault(key_of(entry), entry.category)
        f = self.filters
        if not (f.categories or f.phenomena or f.systems):
            return everything
        rows = [row for rows in self.rows.values() for row in rows]
        return pending_rows(rows, self.suite, self.n_systems, categories=f.categories,
                            phenomena=f.phenomena, systems=f.systems, order=self.order,
                            systems_known=self.known_systems)

    def refresh(self, keep: Key | None = None) -> None:
        """Recompute the queue from the judged outputs.

        Args:
            keep: Stay on this entry if it is still pending; else go to another pending
                output of its item (a rule edit resolved this one: the annotator is still
                on that item); else stay at the same place in the queue.
        """
        self.entries = self._pending()
        keys = [key_of(p) for p in self.entries]
        same_item = [i for i, k in enumerate(keys) if keep is not None and k[:2] == keep[:2]]
        if keep is not None and keep in keys:
            self.position = keys.index(keep)
        elif same_item:
            self.position = same_item[0]
        else:
            self.position = min(self.position, max(len(self.entries) - 1, 0))

    def _update(self, keys: set[tuple[str, str]]) -> None:
        """Re-judge these items and update the queue in place.

        The queue keeps its order: entries still pending stay where they are (with their
        reason and impact updated), entries decided in this session stay marked, entries
        resolved elsewhere (another annotator, a rule edit) leave, and outputs that became
        pending (a disagreement, a changed rule) are added at the end.
        """
        current = self.current
        self.rejudge(keys)
        self._proposals.clear()  # outcomes changed: proposals are learned again when asked
        fresh = {key_of(p): p for p in self._pending()}
        entries = []
        for entry in self.entries:
            key = key_of(entry)
            if key in fresh:
                entries.append(fresh.pop(key))
            elif key in self.decided:
                entries.append(entry)
        entries.extend(fresh.values())
        old_position = self.position
        self.entries = entries
        keys_now = [key_of(e) for e in entries]
        if current is not None and key_of(current) in keys_now:
            self.position = keys_now.index(key_of(current))
        else:  # resolved: the next open entry from the same place nobody else is on
            self.position = min(old_position, max(len(entries) - 1, 0))
            found = self._open_from(self.position)
            if found is not None:
                self.position = found

    def move(self, step: int) -> None:
        """Go `step` entries forward (negative: back), staying within the queue."""
        if self.entries:
            self.position = max(0, min(len(self.entries) - 1, self.position + step))

    def next_open(self) -> None:
        """Go to the next undecided entry after this one (wrapping) that no other annotator
        is on; stay if there is none."""
        self.look_around()
        found = self._open_from(self.position + 1)
        if found is not None:
            self.position = found

    def begin(self) -> None:
        """Begin on the first undecided entry from here that no other annotator is on (two
        annotators starting at once are given different items), and say so."""
        self.look_around()
        found = self._open_from(self.position)
        if found is not None:
            self.position = found
        self.announce()

    def _open_from(self, first: int) -> int | None:
        """The first undecided entry from index `first` on (wrapping) whose item no other
        annotator is on, else the first undecided one; None if every entry is decided."""
        count = len(self.entries)
        undecided = [index % count for index in range(first, first + count)
                     if not self.is_decided(self.entries[index % count])] if count else []
        free = [i for i in undecided
                if (self.entries[i].pair, self.entries[i].item) not in self.others]
        chosen = free or undecided
        return chosen[0] if chosen else None

    def jump(self, text: str) -> bool:
        """Go to the first entry of item `text`, else the first whose output or source
        contains it (case-insensitive), searching from the next entry on.

        Returns:
            Whether one was found.
        """
        wanted = text.strip()
        if not wanted or not self.entries:
            return False
        count = len(self.entries)
        order = [(self.position + step) % count for step in range(1, count + 1)]
        for index in order:
            if self.entries[index].item == wanted:
                self.position = index
                return True
        folded = wanted.casefold()
        for index in order:
            entry = self.entries[index]
            if folded in entry.output.casefold() or folded in entry.source.casefold():
                self.position = index
                return True
        return False

    def check_filters(self, filters: Filters) -> None:
        """Refuse filter values that name no category, phenomenon or system.

        The names are those `pending_rows` selects from (`filter_names`): a system left out
        of the evaluation is known, and simply has nothing pending.

        Raises:
            TestsuiteError: naming the unknown values and the known ones.
        """
        filter_names(self.suite, self.known_systems, categories=filters.categories,
                     phenomena=filters.phenomena, systems=filters.systems)

    def left_out_filtered(self) -> list[str]:
        """Why systems the filter names were left out of the evaluation (they did not
        translate the suite, so they have nothing pending)."""
        chosen = filter_names(self.suite, self.known_systems,
                              systems=self.filters.systems)["system"]
        return [str(e) for e in self.left_out if e.system in chosen]

    def set_filters(self, filters: Filters) -> None:
        """Show only the entries `filters` selects (the queue is recomputed)."""
        self.check_filters(filters)
        self.filters = filters
        current = self.current
        self.position = 0
        self.refresh(keep=key_of(current) if current else None)

    # --- decisions --------------------------------------------------------------------------

    def note(self, entry: Pending) -> str:
        """The note of `entry`: on this session's verdict, else the draft typed for it."""
        decision = self.decided.get(key_of(entry))
        if decision is not None:
            return decision.verdict.note or ""
        return self.notes.get(key_of(entry), "")

    def set_note(self, text: str) -> str:
        """Save a note on the current entry at once.

        On an output decided in this session the note goes into that verdict in the
        verdicts file; otherwise it is kept in the drafts file and stored with the output's
        verdict when it is decided.

        Returns:
            Where it was saved, in words.
        """
        entry = self.current
        if entry is None:
            return "nowhere (no entry)"
        key = key_of(entry)
        text = text.strip()
        decision = self.decided.get(key)
        if decision is not None:
            changed = set_note(decision.path, entry.item, decision.verdict, text or None)
            self._forget(entry.pair, entry.item, decision.verdict)
            self._remember(entry.pair, entry.item, changed)
            decision.verdict = changed
            return f"with the {changed.verdict} in {decision.path}"
        if text:
            self.notes[key] = text
        else:
            self.notes.pop(key, None)
        self.shared.save_drafts(self.notes, entry.pair, entry.item)
        return "as a draft, stored with the verdict"

    def decide(self, verdict: str, entry: Pending | None = None, *,
               advance: bool | None = None) -> Decision | None:
        """Record `verdict` (pass or fail) on `entry` (default: the current entry).

        Deciding an entry again replaces this session's earlier verdict on it; deciding an
        entry in disagreement settles it (the verdict is marked ``settles``).

        Args:
            verdict: ``pass`` or ``fail``.
            entry: The entry decided. The app names the entry that was on the screen when
                the key was pressed, never whatever is current when the key is handled.
            advance: Go to the next open entry afterwards; by default only when `entry`
                is not given (an output a batch preview got wrong is decided in place).
        """
        advance = entry is None if advance is None else advance
        entry = entry or self.current
        if entry is None:
            return None
        key = key_of(entry)
        settles = entry.reason == DISAGREEMENT
        # Deciding again replaces one's own verdict; settling keeps every verdict given.
        previous = None if settles else self.decided.get(key)
        if previous is not None:
            self._take_back(previous)
        path, stored = decide_output(self.suite, entry.pair, entry.item, entry.output,
                                     verdict, annotator=self.annotator,
                                     note=self.notes.get(key), settles=settles)
        decision = Decision(entry, path, stored, previous)
        self._remember(entry.pair, entry.item, stored)
        self.history.append(decision)
        self.decided[key] = decision
        self._open.discard(key)
        if self.notes.pop(key, None) is not None:
            self.shared.save_drafts(self.notes, entry.pair, entry.item)
        self.rejudge({(entry.pair, entry.item)})
        if advance:
            self.next_open()
        return decision

    def undo(self) -> Action | None:
        """Take back this annotator's last action of the session and go back to it.

        Raises:
            TestsuiteError: if it can no longer be taken back (the file changed meanwhile).
        """
        if not self.history:
            return None
        action = self.history[-1]
        if isinstance(action, RuleEdit):
            undo_edit(action.edit)  # refuses if the file changed since
            self.history.pop()
            self.shared.reload_rules(action.edit.path)
            self._update({(action.pair, action.item)})
            return action
        if isinstance(action, BatchDone):
            self.history.pop()
            undo_batch(action.recorded)
            for _path, item, verdict in action.recorded:
                self._forget(action.batch.pair, item, verdict)
            self._update({(action.batch.pair, item) for _, item, _ in action.recorded})
            # Its outputs came back at the end of the queue: each goes back to its place
            # (what entered the queue since stays after them), and so does the annotator.
            place = {key: index for index, key in enumerate(action.queue)}
            self.entries.sort(key=lambda e: place.get(key_of(e), len(place)))
            keys = [key_of(e) for e in self.entries]
            if action.at in keys:
                self.position = keys.index(action.at)
            return action
        self.history.pop()
        decision = action
        key = key_of(decision.entry)
        self._take_back(decision)
        if decision.previous is not None:
            old = decision.previous
            record(old.path, old.entry.pair, old.entry.item, old.verdict.output,
                   old.verdict.verdict, old.verdict.annotator, old.verdict.note,
                   old.verdict.time, old.verdict.settles)
            self._remember(old.entry.pair, old.entry.item, old.verdict)
            self.decided[key] = old
        else:
            del self.decided[key]
            self._open.add(key)
        self.rejudge({key[:2]})
        keys = [key_of(p) for p in self.entries]
        if key in keys:
            self.position = keys.index(key)
        else:  # the queue was recomputed since: the entry comes back with the new one
            self.refresh(keep=key)
        return decision

    def _take_back(self, decision: Decision) -> None:
        if not remove(decision.path, decision.entry.item, decision.verdict):
            raise TestsuiteError(f"your verdict on {decision.entry.item} is no longer in "
                                 f"{decision.path} (edited meanwhile?)")
        self._forget(decision.entry.pair, decision.entry.item, decision.verdict)

    def _rule(self, pair: str, item: str) -> Rule:
        return self.suite.rules.get((pair, item)) or Rule(item)

    def _remember(self, pair: str, item: str, verdict: Verdict) -> None:
        """Mirror a verdict this session wrote in the in-memory suite."""
        rule = self._rule(pair, item)
        self.suite.rules[(pair, item)] = replace(rule, verdicts=(*rule.verdicts, verdict))
        self.shared.added(pair, item, verdict)

    def _forget(self, pair: str, item: str, verdict: Verdict) -> None:
        """Take a verdict this session removed out of the in-memory suite."""
        rule = self._rule(pair, item)
        kept = list(rule.verdicts)
        if verdict in kept:
            kept.reverse()
            kept.remove(verdict)
            kept.reverse()
        self.suite.rules[(pair, item)] = replace(rule, verdicts=tuple(kept))
        self.shared.removed(pair, item, verdict)

    # --- batches and proposals --------------------------------------------------------------

    def batch_preview(self, verdict: str, pattern: str, scope: str, *,
                      literal: bool = False, source: str = "",
                      entry: Pending | None = None) -> Proposal:
        """What a batch on the item (``item``) or phenomenon of `entry` (default: the
        current entry) would decide (for a phenomenon, of the items whose source `source`
        finds, if given).

        Only outputs pending now count; outputs decided in this session are left alone.
        """
        entry = entry or self.current
        if entry is None:
            raise TestsuiteError("no entry: nothing to decide")
        pending = [e for e in self.all_pending() if not self.is_decided(e)]
        if scope == "item":
            return select(pending, verdict, pattern, item=entry.item, literal=literal)
        return select([e for e in pending if e.pair == entry.pair], verdict, pattern,
                      phenomenon=entry.phenomenon, literal=literal, source=source)

    def all_pending(self) -> list[Pending]:
        """Every pending output, whatever the filter.

        Computed once until outputs are judged again (`rejudge`, the only place the rows
        change): the batch dialog asks for it on every keystroke.
        """
        if self._all_pending is None:
            rows = [row for rows in self.rows.values() for row in rows]
            self._all_pending = pending_rows(rows, self.suite, self.n_systems,
                                             order=self.order)
        return list(self._all_pending)

    def apply_batch(self, batch: Proposal) -> BatchDone:
        """Record a batch's verdicts (undo takes them back as one), unless its outputs
        changed since its preview was computed.

        What others wrote is taken in first, so that the batch is checked against the files
        as they are: every output the preview showed must still be pending, as a rule edit
        must still find the rule as the editor showed it (one check, `check_view`).

        Raises:
            Stale: naming each output decided or judged elsewhere since; nothing is written.
        """
        self.sync()
        shown = {f"{item} {decided.output!r}": "pending" for item, decided in batch.decides}
        check_view(shown, self._states(batch), "the outputs of the batch changed")
        queue = [key_of(e) for e in self.entries]
        at = key_of(self.current) if self.current is not None else None
        recorded = apply(self.suite, batch, self.annotator)
        done = BatchDone(batch, recorded, queue, at)
        for _path, item, verdict in recorded:
            self._remember(batch.pair, item, verdict)
        self.history.append(done)
        self._update({(batch.pair, item) for _, item, _ in recorded})
        return done

    def _states(self, batch: Proposal) -> dict[str, str]:
        """Each output of a batch: ``pending``, or what decides it now ("pass by alice",
        "fail by the rule")."""
        open_now = {(e.item, e.output) for e in self.all_pending()
                    if e.pair == batch.pair and not self.is_decided(e)}
        states = {}
        for item, decided in batch.decides:
            if (item, decided.output) in open_now:
                state = "pending"
            else:
                rule = self._rule(batch.pair, item)
                standing = in_force(rule.verdicts).get(decided.output, [])
                outcomes = {r[4] for r in self.rows.get((batch.pair, item), [])
                            if r[3].strip() == decided.output}
                state = ", ".join(f"{v.verdict} by {v.annotator or 'someone'}"
                                  for v in standing) \
                    or ", ".join(f"{o} by the rule" for o in sorted(outcomes)) or "gone"
            states[f"{item} {decided.output!r}"] = state
        return states

    def proposals(self, entry: Pending | None = None) -> list[Proposal]:
        """The proposals that decide the entry's output, best first (most outcomes): learned
        from the decided outputs of its phenomenon (`testsuite.verdicts.suggest`), none that
        this annotator rejected."""
        entry = entry or self.current
        if entry is None:
            return []
        key = (entry.pair, entry.phenomenon)
        if key not in self._proposals:
            self._proposals[key] = self.suggestions.learn(
                entry.pair, entry.phenomenon, self.rows,
                [e for e in self.all_pending() if not self.is_decided(e)])
        return [p for p in self._proposals[key] if p.id not in self.rejected
                and any(item == entry.item and d.output == entry.output
                        for item, d in p.decides)]

    def proposal(self, entry: Pending | None = None) -> Proposal | None:
        """The best proposal that decides the entry's output, or None."""
        found = self.proposals(entry)
        return found[0] if found else None

    def preview_rows(self, proposal: Proposal) -> list[PreviewRow]:
        """A proposal's preview rows: outputs grouped by construction, those least like its
        evidence first (`testsuite.verdicts.proposals.Phenomenon.rows`)."""
        return self.suggestions.rows_of(proposal, self.rows)

    def reject(self, proposal: Proposal) -> None:
        """Do not offer this proposal again in this session."""
        self.rejected.add(proposal.id)

    # --- what is shown ----------------------------------------------------------------------

    def rule_of(self, entry: Pending) -> Rule | None:
        """The rule of the entry's item as it stands now (with every verdict)."""
        return self.suite.rules.get((entry.pair, entry.item))

    def standing(self, entry: Pending) -> list[Verdict]:
        """The verdicts in force on the entry's output (several: a disagreement)."""
        rule = self.rule_of(entry)
        return in_force(rule.verdicts).get(entry.output, []) if rule else []

    def resolved_by(self, entry: Pending) -> str:
        """What took `entry` out of the queue elsewhere, in words ("alice decided it pass")."""
        standing = self.standing(entry)
        if standing:
            return ", ".join(f"{v.annotator or 'someone'} decided it {v.verdict}"
                             for v in standing)
        return "its rule was changed on disk"

    def outcomes(self, entry: Pending) -> list[SystemOutcome]:
        """Every evaluated system's output for the entry's item, judged now."""
        return [SystemOutcome(row[2], row[3], row[4], row[5])
                for row in self.rows.get((entry.pair, entry.item), [])]

    def progress(self) -> Progress:
        """Resolved (this session) and remaining outputs, all filters off."""
        resolved = Counter(c for k, c in self._seen.items() if k not in self._open)
        remaining = Counter(self._seen[k] for k in self._open if k in self._seen)
        categories = sorted(set(resolved) | set(remaining),
                            key=lambda c: (-remaining[c], c))
        return Progress(sum(resolved.values()), sum(remaining.values()),
                        {c: (resolved[c], remaining[c]) for c in categories})

    # --- rule edits -------------------------------------------------------------------------

    def preview(self, entry: Pending, field_name: RegexField, pattern: str) -> list[Change]:
        """Outputs of every system whose outcome would change with `pattern` as the regex.

        Raises:
            TestsuiteError: if the pattern does not compile.
        """
        error = regex_error(pattern)
        if error:
            raise TestsuiteError(f"{field_name} does not compile: {error}")
        old_rule = self.rule_of(entry)
        new_rule = with_regex(old_rule or Rule(entry.item), field_name, pattern)
        new = CompiledRule(new_rule, RegexCache(), self.timeout, normalise=self.normalise)
        changes = []
        for shown in self.outcomes(entry):
            judged = new.judge(shown.output)
            if judged.outcome.value != shown.outcome:
                changes.append(Change(shown.system, shown.output, shown.outcome,
                                      judged.outcome.value))
        return changes

    def save_regex(self, entry: Pending, field_name: RegexField, pattern: str,
                   seen: Rule | None) -> RuleEdit:
        """Write the new regex into the item's rules file, re-judge and recompute the queue.

        Args:
            entry: The entry whose item's rule is edited.
            field_name: Which regex.
            pattern: Its new value.
            seen: The rule as the editor showed it when it opened; if the file says
                otherwise now, nothing is written (`StaleRule`, with the diff).
        """
        pair, item = entry.pair, entry.item
        # After taking in what others wrote, so that the edit is checked against the file
        # as it is; kept for undo, and the item judged again.
        self.sync()
        old = getattr(self._rule(pair, item), field_name)
        edit = set_item_regex(self.suite, pair, item, field_name, pattern,
                              expected=view_of(seen))
        action = RuleEdit(pair, item, field_name, old, pattern, edit)
        self.history.append(action)
        self.shared.reload_rules(edit.path)
        current = self.current
        self._update({(pair, item)})
        if current is not None and current.item == item:
            self.refresh(keep=key_of(current))
        return action

    # --- shared state -----------------------------------------------------------------------

    def sync(self) -> Synced:
        """Take in what changed on disk since the last look (others' verdicts, rule edits).

        Returns:
            What changed; the outcomes of its items and the queue are updated.
        """
        before = self.current
        synced = self.shared.poll()
        if synced.items:
            self.look_around()  # where the entry on screen was resolved, move to a free one
            self._update(synced.items)
        now = self.current
        if before is not None and now is not None and key_of(now) != key_of(before):
            self.replaced = f"{self.resolved_by(before)} ({before.item})"
        return synced

    def announce(self) -> None:
        """Say which output this session is on (see `SharedFolder.announce`)."""
        entry = self.current
        self.shared.announce(key_of(entry) if entry else None)

    def look_around(self) -> None:
        """Read which items other sessions are on now (`others`)."""
        self.others = self.shared.look_around()

    def leave(self) -> None:
        """Say this session is gone (on quit)."""
        self.shared.leave()
