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
from .queue import Pending, Row, decide_many
from .store import make_verdict, remove_many
from .suggest import Decided, contains, escape, phrase_pattern, phrases

#: A phrase must be shared by the passes (or fails) of at least this many other items.
#: Measured by `bench/triage_sim.py` on WMT21 de-en: 1 costs 0.143 decisions per resolved
#: output, 2 costs 0.148 and 3 costs 0.154 (more proposals are rejected with 1, but more
#: items are decided without a single manual decision).
MIN_ITEMS = 1


#: What identifies a batch proposal: scope, pattern, source pattern, verdict.
BatchKey = tuple[str, str, str, str]


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
        source: A regex the item's source must contain (empty: any item in scope).
    """

    pair: str
    verdict: str
    pattern: str
    scope: str
    decides: tuple[tuple[str, Decided], ...]
    learned: str = ""
    source: str = ""

    @property
    def key(self) -> BatchKey:
        """What identifies a proposal (to not propose a rejected one again)."""
        return (self.scope, self.pattern, self.source, self.verdict)

    @property
    def outcomes(self) -> int:
        """Outcomes (system outputs) it decides."""
        return sum(len(d.systems) for _, d in self.decides)


def compile_pattern(pattern: str, literal: bool, what: str = "batch pattern"
                    ) -> regex.Pattern[str] | None:
    """The pattern to search (None: everything).

    Raises:
        TestsuiteError: if a regex does not compile.
    """
    if not pattern:
        return None
    try:
        return regex.compile(escape(pattern) if literal else pattern)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise TestsuiteError(f"the {what} does not compile: {exc}") from None


def select(pending: Iterable[Pending], verdict: str, pattern: str = "", *,
           item: str | None = None, phenomenon: str | None = None,
           literal: bool = False, source: str = "") -> Batch:
    """The pending outputs a batch would decide (its preview).

    Args:
        pending: The pending decisions (a queue).
        verdict: ``pass`` or ``fail``.
        pattern: Regex (or, with `literal`, a phrase) the output must contain; empty: all.
        item: Only this item.
        phenomenon: Only items of this phenomenon (case-insensitive).
        literal: Take `pattern` as a phrase, not a regex.
        source: Only items whose source this regex finds (empty: any).

    Raises:
        TestsuiteError: for a bad verdict, a pattern that does not compile, or no scope.
    """
    if verdict not in VERDICTS:
        raise TestsuiteError(f"a verdict is 'pass' or 'fail', not {verdict!r}")
    if item is None and phenomenon is None:
        raise TestsuiteError("a batch needs a scope: an item or a phenomenon")
    compiled = compile_pattern(pattern, literal)
    in_source = compile_pattern(source, False, "source pattern")
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
        if in_source is not None and in_source.search(entry.source, timeout=1.0) is None:
            continue
        pair = entry.pair
        chosen.append((entry.item, Decided(entry.output, entry.systems, verdict)))
    scope = f"item {item}" if item is not None else f"phenomenon {phenomenon}"
    return Batch(pair, verdict, escape(pattern) if literal and pattern else pattern, scope,
                 tuple(chosen), source=source)


def apply(suite: Suite, batch: Batch, annotator: str | None = None,
          note: str | None = None) -> list[tuple[Path, str, Verdict]]:
    """Record every verdict of a batch (per verdicts file: one atomic write, all or none).

    Returns:
        (file, item, verdict) of each recorded verdict, for `undo`.
    """
    return decide_many(suite, ((batch.pair, item_id, make_verdict(
        decided.output, batch.verdict, annotator, note)) for item_id, decided in batch.decides))


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
                   rejected: Iterable[BatchKey] = (), limit: int = 1
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


# --------------------------------------------------------------------------------------------
# Batches across the items of a phenomenon, learned from the shape of decided outputs

#: A word is part of a phenomenon's shapes (kept as written) when the outputs of at least this
#: share of its items contain it; the other words are the slots (``\w+``). Measured by
#: `bench/triage_sim.py` on WMT21 de-en (mode ``phenomena``): 0.25 costs 0.105 decisions per
#: resolved output, 0.35 costs 0.098.
SHAPE_SHARE = 0.35
#: A phenomenon needs at least this many items with outputs for shapes to be learned.
SHAPE_MIN_ITEMS = 5
#: A shape is proposed once the decided outputs of this many items match it, all one way
#: (measured as above: 2 costs 0.098, 3 costs 0.105).
SHAPE_SUPPORT = 2


def shape_words(outputs_by_item: Iterable[Iterable[str]]) -> frozenset[str]:
    """The words (case-folded) that the outputs of at least `SHAPE_SHARE` of the items
    contain: what a phenomenon's translations share ("shouldn't", "had", "to"), not what
    each item's own sentence brings ("read", "I")."""
    seen = Counter[str]()
    items = 0
    for outputs in outputs_by_item:
        items += 1
        seen.update({t.casefold() for output in outputs for t in _WORD.findall(output)})
    if items < SHAPE_MIN_ITEMS:
        return frozenset()
    return frozenset(w for w, n in seen.items() if n >= SHAPE_SHARE * items)


_WORD = regex.compile(r"\w+")


def shape_pattern(output: str, kept: frozenset[str]) -> str:
    """The whole-output regex of `output`'s shape: its words not in `kept` become ``\\w+``,
    the rest is literal ("I shouldn't read." → ``^\\w+ shouldn't \\w+\\.$``)."""
    parts = ["^"]
    end = 0
    for word in _WORD.finditer(output):
        parts.append(escape(output[end:word.start()]))
        parts.append(escape(word.group()) if word.group().casefold() in kept else r"\w+")
        end = word.end()
    parts.append(escape(output[end:]) + "$")
    return "".join(parts)


def shape_batches(pair: str, phenomenon: str,
                  judged: Mapping[str, tuple[Sequence[str], Sequence[str]]],
                  pending: Mapping[str, Mapping[str, Sequence[str]]],
                  sources: Mapping[str, str],
                  rejected: Iterable[BatchKey] = (),
                  kept: frozenset[str] | None = None) -> list[Batch]:
    """Batches over every item of a phenomenon: "pass each pending output shaped like
    ``^\\w+ will have to \\w+\\.$`` (of the items whose source has *müssen*)", learned from
    the items decided so far.

    A shape is proposed when the decided outputs of at least `SHAPE_SUPPORT` items match it
    and all were decided the same way. When they were not, a word of the source that
    separates them is looked for ("will have to" passes for *müssen* and fails for
    *sollen*). It decides the pending outputs of the other items that match it.

    Args:
        pair: Language pair.
        phenomenon: The phenomenon (its items are the scope).
        judged: Item id → (outputs decided pass, outputs decided fail), for decided items.
        pending: Item id → its pending outputs → their systems.
        sources: Item id → its source sentence.
        rejected: Keys of batches rejected before (not proposed again).
        kept: The phenomenon's `shape_words` (computed from `judged` and `pending` if None).
    """
    if kept is None:
        kept = shape_words([*(list(p) + list(f) for p, f in judged.values()),
                            *(list(outputs) for outputs in pending.values())])
    if not kept:
        return []
    skip = set(rejected)
    decided = [(item, output, verdict) for item, (passed, failed) in judged.items()
               for verdict, outputs in (("pass", passed), ("fail", failed))
               for output in outputs]
    words = {item: {w.casefold() for w in _WORD.findall(sources.get(item, ""))}
             for item in {*judged, *pending}}
    # A shape can only match outputs with its words and punctuation in the same places.
    by_skeleton: dict[str, list[tuple[str, str, str]]] = {}
    for entry in decided:
        by_skeleton.setdefault(_WORD.sub("w", entry[1]), []).append(entry)
    pending_by_skeleton: dict[str, list[tuple[str, str, Sequence[str]]]] = {}
    for item, outputs in pending.items():
        for output, systems in outputs.items():
            pending_by_skeleton.setdefault(_WORD.sub("w", output), []).append(
                (item, output, systems))
    scope = f"phenomenon {phenomenon}"
    found: list[tuple[int, Batch]] = []
    shapes = {(shape_pattern(output, kept), _WORD.sub("w", output)) for _, output, _ in decided}
    for pattern, skeleton in shapes:
        compiled = regex.compile(pattern)
        matched = [(item, verdict) for item, output, verdict in by_skeleton[skeleton]
                   if compiled.search(output)]
        for word, support, verdict in _separating(matched, words):
            hits = tuple((item, Decided(output, tuple(systems), verdict))
                         for item, output, systems in pending_by_skeleton.get(skeleton, ())
                         if (not word or word in words[item]) and compiled.search(output))
            if len({item for item, _ in hits}) < 2:
                continue
            where = f" of the items whose source has {word!r}" if word else ""
            batch = Batch(pair, verdict, pattern, scope, hits,
                          f"every decided output of this shape{where}, in {support} "
                          f"{phenomenon} items, was {verdict}",
                          phrase_pattern(word) if word else "")
            if batch.key not in skip:
                found.append((support, batch))
    found.sort(key=lambda sb: (-sb[0], -sb[1].outcomes, sb[1].pattern, sb[1].source))
    return [batch for _, batch in found]


def _separating(matched: Sequence[tuple[str, str]], words: Mapping[str, set[str]]
                ) -> list[tuple[str, int, str]]:
    """(source word or "", items, verdict): the decided outputs of a shape, (item, verdict),
    all one way in at least `SHAPE_SUPPORT` items — all of them, or those of the items whose
    source has the word."""
    verdicts = {verdict for _, verdict in matched}
    support = len({item for item, _ in matched})
    if len(verdicts) == 1:
        return [("", support, next(iter(verdicts)))] if support >= SHAPE_SUPPORT else []
    found = []
    for word in sorted({w for item, _ in matched for w in words[item]}):
        chosen = [(item, verdict) for item, verdict in matched if word in words[item]]
        verdicts = {verdict for _, verdict in chosen}
        support = len({item for item, _ in chosen})
        rest = {verdict for item, verdict in matched if word not in words[item]}
        if len(verdicts) == 1 and support >= SHAPE_SUPPORT and len(rest) == 1 \
                and rest != verdicts:
            found.append((word, support, next(iter(verdicts))))
    return found


def learned_across(pair: str, phenomenon: str, rows: Iterable[Row], suite: Suite,
                   pending: Iterable[Pending]) -> list[Batch]:
    """`shape_batches` of one phenomenon, from every judged output and the pending ones.

    Args:
        pair: Language pair.
        phenomenon: The phenomenon, as the suite spells it.
        rows: Judged outputs (`queue.evaluation_rows`): those judged pass or fail, by a
            rule or a verdict, are what is learned from.
        suite: The suite (the items' phenomena and sources).
        pending: The pending outputs (`queue.pending_warnings`) a batch may decide.
    """
    outcomes: dict[str, dict[str, str]] = {}  # item → distinct output → pass or fail
    sources: dict[str, str] = {}
    for row_pair, item_id, _, output, outcome, _ in rows:
        item = suite.items.get((row_pair, item_id))
        if row_pair != pair or item is None or item.phenomenon != phenomenon:
            continue
        sources[item_id] = item.source
        if outcome in ("pass", "fail"):
            outcomes.setdefault(item_id, {})[output.strip()] = outcome
    judged = {item_id: ([o for o, v in decided.items() if v == "pass"],
                        [o for o, v in decided.items() if v == "fail"])
              for item_id, decided in outcomes.items()}
    open_: dict[str, dict[str, Sequence[str]]] = {}
    for entry in pending:
        if entry.pair == pair and entry.phenomenon == phenomenon:
            open_.setdefault(entry.item, {})[entry.output] = entry.systems
            sources.setdefault(entry.item, entry.source)
    return shape_batches(pair, phenomenon, judged, open_, sources)
