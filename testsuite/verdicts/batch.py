"""Batch decisions: one verdict on every pending output of an item or phenomenon that matches.

A batch is chosen by scope (one item, or every item of a phenomenon), a pattern (a regex
searched in the output, or a literal phrase) and a verdict. `select` lists what it would
decide (the preview); `apply` records all its verdicts at once (one locked, atomic write per
verdicts file), and the caller keeps the verdicts to take them back as one (`undo`).

`phrase_batches` proposes batches learned from the phenomenon: a phrase that, in another
item of the same phenomenon, every output judged pass contains, and that no output of the
phenomenon judged fail contains — "had had to" for the modal pluperfect — is proposed as
"pass the pending outputs of this item that contain it" (and the reverse for fail).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import regex

from ..errors import TestsuiteError
from ..model import VERDICTS, Suite, Verdict
from ..names import pick
from .queue import Pending, verdicts_path
from .store import make_verdict, record_many, remove_many
from .suggest import Decided, contains, escape, phrase_pattern, phrases

#: A phrase must be shared by the passes (or fails) of at least this many other items.
#: Measured by `bench/triage_sim.py` on WMT21 de-en: 1 costs 0.143 decisions per resolved
#: output, 2 costs 0.148 and 3 costs 0.154 (more proposals are rejected with 1, but more
#: items are decided without a single manual decision).
MIN_ITEMS = 1


@dataclass(frozen=True)
class Batch:
    """One verdict on many pending outputs.

    Attributes:
        pair: Language pair.
        verdict: ``pass`` or ``fail``.
        pattern: The regex searched in each output (empty: every pending output in scope).
        scope: What it covers, in words ("item 00123", "phenomenon Gapping").
        decides: (item id, output) pairs it decides, with their systems.
        learned: Why it is proposed, for a learned batch ("shared by 5 items' passes").
    """

    pair: str
    verdict: str
    pattern: str
    scope: str
    decides: tuple[tuple[str, Decided], ...]
    learned: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies a proposal (to not propose a rejected one again)."""
        return (self.scope, self.pattern, self.verdict)

    @property
    def outcomes(self) -> int:
        """Outcomes (system outputs) it decides."""
        return sum(len(d.systems) for _, d in self.decides)


def compile_pattern(pattern: str, literal: bool) -> regex.Pattern[str] | None:
    """The pattern to search (None: everything).

    Raises:
        TestsuiteError: if a regex does not compile.
    """
    if not pattern:
        return None
    try:
        return regex.compile(escape(pattern) if literal else pattern)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise TestsuiteError(f"the batch pattern does not compile: {exc}") from None


def select(pending: Iterable[Pending], verdict: str, pattern: str = "", *,
           item: str | None = None, phenomenon: str | None = None,
           literal: bool = False) -> Batch:
    """The pending outputs a batch would decide (its preview).

    Args:
        pending: The pending decisions (a queue).
        verdict: ``pass`` or ``fail``.
        pattern: Regex (or, with `literal`, a phrase) the output must contain; empty: all.
        item: Only this item.
        phenomenon: Only items of this phenomenon (case-insensitive).
        literal: Take `pattern` as a phrase, not a regex.

    Raises:
        TestsuiteError: for a bad verdict, a pattern that does not compile, or no scope.
    """
    if verdict not in VERDICTS:
        raise TestsuiteError(f"a verdict is 'pass' or 'fail', not {verdict!r}")
    if item is None and phenomenon is None:
        raise TestsuiteError("a batch needs a scope: an item or a phenomenon")
    compiled = compile_pattern(pattern, literal)
    pending = list(pending)
    if phenomenon is not None:  # as the suite spells it (names.pick: any case)
        [phenomenon] = pick(list(dict.fromkeys(e.phenomenon for e in pending)) or [phenomenon],
                            [phenomenon], "phenomenon with pending outputs")
    chosen = []
    pair = ""
    for entry in pending:
        if item is not None and entry.item != item:
            continue
        if phenomenon is not None and entry.phenomenon != phenomenon:
            continue
        if compiled is not None and compiled.search(entry.output, timeout=1.0) is None:
            continue
        pair = entry.pair
        chosen.append((entry.item, Decided(entry.output, entry.systems, verdict)))
    scope = f"item {item}" if item is not None else f"phenomenon {phenomenon}"
    return Batch(pair, verdict, escape(pattern) if literal and pattern else pattern, scope,
                 tuple(chosen))


def apply(suite: Suite, batch: Batch, annotator: str | None = None,
          note: str | None = None) -> list[tuple[Path, str, Verdict]]:
    """Record every verdict of a batch (per verdicts file: one atomic write, all or none).

    Returns:
        (file, item, verdict) of each recorded verdict, for `undo`.
    """
    by_file: dict[Path, list[tuple[str, Verdict]]] = {}
    for item_id, decided in batch.decides:
        path = verdicts_path(suite, batch.pair, item_id)
        by_file.setdefault(path, []).append(
            (item_id, make_verdict(decided.output, batch.verdict, annotator, note)))
    done: list[tuple[Path, str, Verdict]] = []
    for path, decisions in by_file.items():
        record_many(path, batch.pair, decisions)
        done.extend((path, item_id, verdict) for item_id, verdict in decisions)
    return done


def undo(recorded: Sequence[tuple[Path, str, Verdict]]) -> int:
    """Take back the verdicts of a batch; returns how many were still there."""
    by_file: dict[Path, list[tuple[str, Verdict]]] = {}
    for path, item_id, verdict in recorded:
        by_file.setdefault(path, []).append((item_id, verdict))
    return sum(remove_many(path, decisions) for path, decisions in by_file.items())


# --------------------------------------------------------------------------------------------
# Batches learned from the phenomenon


def shared_phrases(judged: Iterable[tuple[Sequence[str], Sequence[str]]]
                   ) -> dict[str, list[tuple[str, int]]]:
    """Phrases that separate pass from fail across the items of a phenomenon.

    Args:
        judged: Per other item of the phenomenon: (outputs judged pass, outputs judged fail).

    Returns:
        ``pass``: phrases that every pass of at least `MIN_ITEMS` items contains and no fail
        contains, with their item counts, most items (then longest) first; ``fail`` the
        reverse. ``fail-without``: those ``pass`` phrases also seen missing from the fails
        of at least `MIN_ITEMS` items (an output without them fails); ``pass-without``
        the reverse.
    """
    judged = list(judged)
    counts = {"pass": Counter[str](), "fail": Counter[str]()}
    seen_in: dict[str, list[str]] = {"pass": [], "fail": []}
    for passed, failed in judged:
        for verdict, outputs in (("pass", passed), ("fail", failed)):
            if not outputs:
                continue
            common = set(phrases(outputs[0]))
            for output in outputs[1:]:
                common = {p for p in common if contains(output, p)}
            counts[verdict].update(common)
            seen_in[verdict].extend(outputs)
    found: dict[str, list[tuple[str, int]]] = {}
    for verdict, other in (("pass", "fail"), ("fail", "pass")):
        kept = [(p, n) for p, n in counts[verdict].items() if n >= MIN_ITEMS
                and not any(contains(output, p) for output in seen_in[other])]
        kept.sort(key=lambda pn: (-pn[1], -len(pn[0]), pn[0]))
        found[verdict] = kept
        # "Without the phrase, the other verdict": items judged both ways in which every
        # `verdict` output has the phrase (and, as kept, no other output has it).
        both = []
        for phrase, _ in kept:
            sides = [(passed, failed) if verdict == "pass" else (failed, passed)
                     for passed, failed in judged]
            support = sum(1 for same, rest in sides
                          if same and rest and all(contains(o, phrase) for o in same))
            if support >= MIN_ITEMS:
                both.append((phrase, support))
        found[f"{other}-without"] = both
    return found


def without(phrase: str) -> str:
    """A regex matching outputs that do not contain `phrase` (as `phrase_pattern` reads it)."""
    return f"^(?!.*{phrase_pattern(phrase)})"


def phrase_batches(pair: str, item: str, phenomenon: str, pending: Mapping[str, Sequence[str]],
                   decided: Mapping[str, str],
                   learned: Mapping[str, list[tuple[str, int]]],
                   rejected: Iterable[tuple[str, str, str]] = (), limit: int = 1
                   ) -> list[Batch]:
    """Batches for one item from phrases learned on its phenomenon (`shared_phrases`).

    A phrase is proposed only if the item's decided outputs agree with it (none decided
    the other way contains it; for a "without" batch, every output decided the other way
    lacks... and every one decided this way lacks it).

    Args:
        pair: Language pair.
        item: Item id.
        phenomenon: Its phenomenon (for the message).
        pending: The item's pending outputs → their systems.
        decided: The item's decided outputs → pass or fail.
        learned: `shared_phrases` of the phenomenon's other items.
        rejected: Keys of batches rejected before (not proposed again).
        limit: Most batches returned.
    """
    skip = set(rejected)
    found: list[Batch] = []
    kinds = (("pass", "pass", True), ("fail", "fail", True),
             ("fail-without", "fail", False), ("pass-without", "pass", False))
    for kind, verdict, present in kinds:
        for phrase, count in learned.get(kind, ()):
            if present:
                agrees = not any(contains(o, phrase) for o, v in decided.items()
                                 if v != verdict)
            else:
                # The phrase must be this item's key: an output decided the other way has
                # it, and every output decided either way agrees.
                agrees = any(v != verdict and contains(o, phrase) for o, v in decided.items()) \
                    and all(contains(o, phrase) == (v != verdict) for o, v in decided.items())
            if not agrees:
                continue
            hits = [o for o in pending if contains(o, phrase) == present]
            if not hits:
                continue
            pattern = phrase_pattern(phrase) if present else without(phrase)
            reason = (f"every {verdict} of {count} other {phenomenon} items contains it"
                      if present else f"in {count} other {phenomenon} items, every output "
                      f"without {phrase!r} was {verdict}")
            batch = Batch(pair, verdict, pattern, f"item {item}", tuple(
                (item, Decided(o, tuple(pending[o]), verdict))
                for o in sorted(hits, key=lambda o: (-len(pending[o]), o))), reason)
            if batch.key in skip:
                continue
            found.append(batch)
            break
    return found[:limit]
