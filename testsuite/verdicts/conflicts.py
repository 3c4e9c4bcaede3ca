"""Contradicting verdicts, and what a new verdict would change before it is recorded.

Two annotators who decide the same output differently are a *disagreement*: both verdicts
are kept, the output is a warning again (reason ``disagreement``) and it is listed by
`testsuite lint` and `testsuite disagreements` until someone settles it with a verdict
marked ``settles`` (`testsuite settle`, or pass/fail on it in the triage UI).

`check_verdict` is the one set of checks every way of recording a verdict goes through
(the `verdict` command, spreadsheet import): an output that no system produced, a verdict
that overrides what a rule decided, one that contradicts another annotator.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Problem, TestsuiteError
from ..matching import CompiledRule, RegexCache
from ..model import DISAGREEMENT, Item, Rule, Suite, Verdict, in_force, standing_verdicts
from ..words import counted
from .store import make_verdict, verdict_file

if TYPE_CHECKING:
    from ..outputs.model import SystemOutputs


@dataclass(frozen=True)
class Disagreement:
    """Contradicting verdicts in force on one output of one item.

    Attributes:
        pair: Language pair.
        item: Item id.
        output: The output (stripped).
        verdicts: Each annotator's latest verdict since the last settling one.
        file: The verdicts file where a settling verdict will go.
    """

    pair: str
    item: str
    output: str
    verdicts: tuple[Verdict, ...]
    file: Path | None

    def describe(self) -> str:
        """``alice: pass, bob: fail``."""
        return ", ".join(f"{v.annotator or 'unknown'}: {v.verdict}" for v in self.verdicts)


def with_verdicts(suite: Suite, pair: str | None = None) -> Iterator[tuple[Item, Rule]]:
    """The items (of one pair, or all) that have verdicts, with their rules, in suite order."""
    for key, item in suite.items.items():
        rule = suite.rules.get(key)
        if (pair is None or key[0] == pair) and rule is not None and rule.verdicts:
            yield item, rule


def disagreements(suite: Suite, pair: str | None = None) -> list[Disagreement]:
    """Every output whose verdicts contradict each other, in suite order."""
    found = []
    for item, rule in with_verdicts(suite, pair):
        counted = in_force(rule.verdicts)
        for output, standing in standing_verdicts(rule.verdicts).items():
            if standing != DISAGREEMENT:
                continue
            try:
                where: Path | None = verdict_file(item, rule)
            except TestsuiteError:
                where = None
            found.append(Disagreement(item.pair, item.id, output, tuple(counted[output]),
                                      where))
    return found


def disagreement_problems(suite: Suite) -> list[Problem]:
    """Disagreements as problems for `testsuite lint` (not fatal: they are warnings)."""
    return [Problem(f"annotators disagree on {d.output!r} ({d.describe()}); settle it with "
                    f"`testsuite settle {d.item} pass|fail --output …`",
                    str(d.file) if d.file else None, None, d.item, fatal=False)
            for d in disagreements(suite)]


@dataclass(frozen=True)
class Change:
    """One system whose outcome a verdict changes."""

    system: str
    old: str
    new: str
    reason: str  # why it had the old outcome (``positive-regex``, ``no-match``, …)
    by_rule: str | None = None  # what the rule alone decides (pass/fail), if it decides


@dataclass
class Impact:
    """What recording one verdict would change.

    Attributes:
        verdict: The verdict as it would be stored.
        before: The outcome of the output now, and why (without any system).
        after: Its outcome with the verdict.
        changes: Systems whose outcome changes (empty when no outputs were given).
        produced_by: Systems that produced the output (None: outputs not given).
        contradicts: Other annotators' verdicts in force that say otherwise.
        overrides_rule: Whether a rule decided the output (pass or fail) otherwise.
    """

    verdict: Verdict
    before: tuple[str, str]
    after: str
    changes: list[Change] = field(default_factory=list)
    produced_by: list[str] | None = None
    contradicts: list[Verdict] = field(default_factory=list)
    overrides_rule: bool = False
    rule_reason: str = ""

    def summary(self) -> str:
        """One line: how many outcomes change and which a rule had decided."""
        old, reason = self.before
        if self.produced_by is None:
            return f"the output was {old} ({reason}); with this verdict it is {self.after}"
        moved = self.changes
        ruled = [c for c in moved if c.by_rule is not None and c.by_rule != self.after
                 and self.after in ("pass", "fail")]
        text = (f"changes {counted(len(moved), 'outcome')}"
                + (f" ({', '.join(c.system for c in moved)})" if moved else ""))
        if ruled:
            text += (f"; {len(ruled)} of them the rule decides {ruled[0].by_rule} "
                     f"({self.rule_reason}), overridden")
        return text


def check_verdict(suite: Suite, pair: str, item_id: str, output: str, verdict: str, *,
                  annotator: str | None = None, note: str | None = None,
                  systems: Sequence[SystemOutputs] | None = None, force: bool = False,
                  settle: bool = False, disagree: bool = False,
                  cache: RegexCache | None = None) -> Impact:
    """Check a verdict before it is recorded, and say what it would change.

    Args:
        suite: The suite with its rules and verdicts.
        pair: Language pair.
        item_id: Item id.
        output: The output decided on.
        verdict: ``pass`` or ``fail``.
        annotator: Who decides (default: the login name).
        note: Optional comment.
        systems: The system outputs, when known: the verdict must then be on an output one
            of them produced, and the outcomes it changes are counted.
        force: Allow overriding what a rule decided, and an output no system produced.
        settle: The verdict settles a disagreement (or contradicts others on purpose).
        disagree: Record a contradicting verdict as a disagreement.
        cache: Compiled patterns (default: a fresh one; one rule compiles in microseconds,
            loading the persistent cache file would take longer).

    Returns:
        The impact (its `verdict` is what to record).

    Raises:
        TestsuiteError: for an unknown item, an output no system produced, a verdict that
            overrides a rule's pass or fail without `force`, or one that contradicts other
            annotators without `settle` or `disagree`.
    """
    item = suite.items.get((pair, item_id))
    if item is None:
        raise TestsuiteError(f"no {pair} item {item_id!r} in the suite")
    stored = make_verdict(output, verdict, annotator, note, settles=settle)
    rule = suite.rules.get((pair, item_id))
    cache = cache if cache is not None else RegexCache()
    now_rule = CompiledRule(rule, cache)
    before = now_rule.judge(stored.output)
    # What the rule alone decides, verdicts aside: a verdict may never override it silently.
    bare = CompiledRule(replace(rule, verdicts=()) if rule else None, cache).judge(stored.output)
    with_it = replace(rule or Rule(item_id), verdicts=(*(rule.verdicts if rule else ()), stored))
    after = CompiledRule(with_it, cache).judge(stored.output)
    impact = Impact(stored, (before.outcome.value, before.reason), after.outcome.value,
                    rule_reason=bare.reason)
    by_rule = bare.outcome.value if bare.outcome.value in ("pass", "fail") else None
    where = Problem("", item.file, item.line, item_id)
    if systems is not None:
        produced = [s for s in systems if s.pair == pair and item_id in s.outputs]
        impact.produced_by = [s.system for s in produced
                              if s.outputs[item_id].strip() == stored.output]
        if not impact.produced_by and not force:
            known = sorted({s.outputs[item_id].strip() for s in produced})
            shown = "; ".join(repr(o) for o in known[:5]) + (" …" if len(known) > 5 else "")
            raise TestsuiteError(replace(where, message=(
                f"no system produced the output {stored.output!r} for item {item_id} (a typo?); "
                f"its outputs are: {shown or 'none'}. --force records it anyway")))
        for system in produced:
            text = system.outputs[item_id]
            old = now_rule.judge(text)
            if text.strip() == stored.output and old.outcome.value != after.outcome.value:
                impact.changes.append(Change(system.system, old.outcome.value,
                                             after.outcome.value, old.reason, by_rule))
    impact.overrides_rule = by_rule is not None and by_rule != verdict
    if impact.overrides_rule and not force:
        count = len(impact.produced_by) if impact.produced_by is not None else None
        raise TestsuiteError(replace(where, message=(
            f"the rule decides this output {by_rule} ({bare.reason})"
            + (f" for {counted(count, 'system')}" if count else "")
            + f"; a {verdict} verdict would override it. --force records it anyway "
            "(or correct the rule)")))
    others = [v for v in in_force(rule.verdicts if rule else ()).get(stored.output, [])
              if v.annotator != stored.annotator and v.verdict != verdict]
    impact.contradicts = others
    if others and not (settle or disagree):
        who = ", ".join(f"{v.annotator or 'unknown'} ({v.verdict}, {v.time})" for v in others)
        raise TestsuiteError(replace(where, message=(
            f"{who} decided this output otherwise. --settle records your verdict as the one "
            "that settles it; --disagree keeps both as a disagreement to settle later")))
    return impact
