"""Proposals: one verdict on many pending outputs, offered only when the evidence carries it.

A *proposal* is what the triage offers instead of one decision at a time, and what a batch
records: a verdict, the pending outputs it decides (within one item or across the items of
one phenomenon), the pattern that says why, the decided outputs it was learned from (its
evidence), an estimate of how often such proposals are right, and a stable id that every
verdict recorded from it keeps (``proposal:`` in ``verdicts.yaml``; ``testsuite revoke ID``
takes them back together). A person's own batch (a pattern typed in the batch dialog or
given to ``testsuite batch``) is a proposal too, without evidence or estimate.

Proposals are learned from the decided outputs of a phenomenon's items (by a rule or by a
person) in three ways. Each carries a verdict to an item only through what its own outputs and
its own source show; templates and variants only to items whose source has every word the
sources of the items they were learned from share (their *frame*: learned where the source
says *sollen*, a verdict is never carried to *müssen*), siblings only along a change of the
source seen in other pairs of items:

* **template** (fails only) — the phenomenon's items are a paradigm: the same construction
  with each item's own words ("Ich hatte lesen sollen", "Du hattest es sagen sollen"). An
  item's *own words* are those most of its outputs contain (at least `Settings.own_share`
  of them) and few other items' outputs do (fewer than `Settings.word_share` of the items):
  its subject, its verb, its names. An output's template is the output with its item's own
  words as slots (``^\\w+ should have \\w+\\.$``), and must write out at least as many
  words as it leaves open. A
  template that failed in at least `Settings.support` items, and passed in no item of their
  frame, fails the pending outputs of that template in the items of the frame. A pass is
  never carried this way: whether an output is right depends on its own words too ("I
  would have washed" is wrong where "I would have hurried" is right, "It will fall" where
  "She will fall" is right), which its construction does not show. Nothing is proposed
  from what an output *lacks*: no "fail everything without X".
* **variant** — an output that differs from a decided output of its own item only by
  changes (a word or phrase for another: "Sie werden" for "Du wirst", "'ll" for "will") that
  kept the verdict between the decided outputs of at least `Settings.support` other items,
  and changed it in no item of their frame.
* **sibling** (off unless `Settings.sibling_changes` is set) — the items of a paradigm are
  *siblings* when their sources differ by one change of a word or two ("Er muss lesen."
  and "Er muss schlafen.", or "Ich muss lesen."). An output that is a sibling's decided
  output with a change ("He must sleep." for "He must read.") takes its verdict when that
  change of the output, with that change of the source ("read" ↔ "sleep" with "lesen" ↔
  "schlafen"), kept the verdict between the decided outputs of at least `Settings.support`
  other pairs of sibling items and changed it in none. This carries passes from item to
  item too, but only as far as the paradigm shows that the change does not matter; a change
  that changed a verdict once ("müssen" ↔ "sollen" with the output unchanged: "I must
  read." right for one, wrong for the other) carries nothing.

**Estimated precision** (`Proposal.precision`). Before a proposal is offered, the way it
was learned is tried on the phenomenon's decided outputs held out one item at a time: for
each decided output, the proposals learned from the *other* items' decisions (the same
kind, the same verdict) are asked for its verdict, and compared with the verdict it has.
Of `n` such held-out predictions `r` were right; the estimate is ``(r + w·p) / (n + w)``
with the prior `Settings.prior` (``p``) weighted as `Settings.prior_weight` (``w``)
predictions, so that a phenomenon whose held-out record is short is trusted only as much
as proposals in general. A proposal is offered only when its estimate reaches
`Settings.min_precision`. The settings are chosen by ``bench/triage_sim.py`` leaving one
WMT pair-year out at a time (see the README).

**Rows** (`rows`): a preview groups the outputs that are the same once each item's own
words are masked (one construction across the paradigm), shows for each group the output
least like the evidence (where an error would be), and lists the groups least like the
evidence first.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import regex

#: How a proposal was made: learned from templates, variants or siblings, or a person's
#: pattern.
HOW = ("template", "variant", "sibling", "pattern")
#: The ways proposals are learned (`HOW` but a person's pattern).
LEARNED = HOW[:-1]

_TOKEN = regex.compile(r"\w+|[^\w\s]")
_WORD = regex.compile(r"\w+")
_SPECIAL = frozenset(".^$*+?{}[]\\|()")
#: A change between the sources of siblings is at most this many words for as many (a
#: subject and its verb's ending: "ich muss" → "du musst"), never a clause.
_SIBLING_WORDS = 2


def escape(text: str) -> str:
    """`text` as a regex matching it literally, escaping only what is special (readable)."""
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


@dataclass(frozen=True)
class Settings:
    """What carries a proposal (chosen by ``bench/triage_sim.py``, see the module doc).

    Attributes:
        word_share: A word the outputs of at least this share of a phenomenon's items
            contain belongs to the phenomenon ("should", "have"), never to one item.
        own_share: A word at least this share of an item's distinct outputs contain is the
            item's own (unless it belongs to the phenomenon).
        support: Items whose decided outputs must carry a template or a change.
        min_precision: The estimated precision a proposal needs to be offered.
        prior: The precision assumed before anything was held out.
        prior_weight: How many held-out predictions the prior weighs.
        sibling_changes: Items whose sources differ by at most this many changes (a word
            or two for another, `_SIBLING_WORDS`) are siblings (0: no proposal from
            siblings — the default: with 1, proposals from siblings were right for 0.9893
            of their outputs on WMT21 en-de with the settings chosen without it, under
            `min_precision`; see the README).
        sibling_output_changes: A sibling's decided output is carried to an output that
            differs from it by at most this many changes.
    """

    word_share: float = 0.35
    own_share: float = 0.5
    support: int = 2
    min_precision: float = 0.99
    prior: float = 0.995
    prior_weight: float = 20.0
    sibling_changes: int = 0
    sibling_output_changes: int = 2


DEFAULT = Settings()


@dataclass(frozen=True)
class Decided:
    """A pending output a proposal decides."""

    output: str
    systems: tuple[str, ...]
    outcome: str


@dataclass(frozen=True)
class Evidence:
    """A decided output a proposal was learned from."""

    item: str
    output: str
    verdict: str


@dataclass(frozen=True)
class PreviewRow:
    """One line of a preview: outputs that are the same once their items' own words are
    masked.

    Attributes:
        shown: The output shown for them (the one least like the evidence).
        item: Its item.
        outputs: Every (item, output) of the row.
        likeness: How like the evidence the least like of them is (0 to 1).
    """

    shown: str
    item: str
    outputs: tuple[tuple[str, Decided], ...]
    likeness: float

    @property
    def items(self) -> int:
        """Items of the row."""
        return len({item for item, _ in self.outputs})


@dataclass(frozen=True)
class Proposal:
    """One verdict on pending outputs, with why (see the module doc).

    Attributes:
        pair: Language pair.
        verdict: ``pass`` or ``fail``.
        how: ``template``, ``variant``, ``sibling`` or ``pattern`` (`HOW`).
        scope: What it covers, in words ("item 00123", "phenomenon Gapping").
        pattern: What it looks for: a regex on the outputs (a template, a person's pattern)
            or, for a variant, the changes (``Sie werden ↔ Du wirst``), for a sibling, the
            change of the source and that of the output (``source “lesen” ↔ “schlafen”;
            output “read” ↔ “sleep”``).
        decides: (item id, output) pairs it decides, with their systems.
        evidence: The decided outputs it was learned from.
        source: The phenomenon's words its items' sources have, as a regex (empty: any).
        precision: Estimated precision (None for a person's pattern).
        checked: Held-out predictions the estimate rests on.
        right: Of which right.
        why: Why it is proposed, in words.
    """

    pair: str
    verdict: str
    how: str
    scope: str
    pattern: str
    decides: tuple[tuple[str, Decided], ...]
    evidence: tuple[Evidence, ...] = ()
    source: str = ""
    precision: float | None = None
    checked: int = 0
    right: int = 0
    why: str = ""

    @cached_property
    def id(self) -> str:
        """Stable id: the same proposal (pair, kind, scope, pattern, source, verdict) has the
        same id whenever it is learned again."""
        text = json.dumps([self.pair, self.how, self.scope, self.pattern, self.source,
                           self.verdict], ensure_ascii=False)
        return "p-" + hashlib.blake2b(text.encode("utf-8"), digest_size=5).hexdigest()

    @property
    def outcomes(self) -> int:
        """Outcomes (system outputs) it decides."""
        return sum(len(d.systems) for _, d in self.decides)

    @property
    def items(self) -> list[str]:
        """The items it decides outputs of, in order."""
        return list(dict.fromkeys(item for item, _ in self.decides))

    def within(self, item: str) -> Proposal:
        """The same proposal on one item's outputs only."""
        return replace(self, scope=f"item {item}",
                       decides=tuple((i, d) for i, d in self.decides if i == item))

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form (``testsuite suggest``): what it decides, why, its evidence and
        its estimate."""
        return {"id": self.id, "pair": self.pair, "scope": self.scope, "how": self.how,
                "verdict": self.verdict, "pattern": self.pattern, "source": self.source,
                "why": self.why, "precision": None if self.precision is None
                else round(self.precision, 4), "held_out": {"checked": self.checked,
                                                            "right": self.right},
                "evidence": [{"item": e.item, "output": e.output, "verdict": e.verdict}
                             for e in self.evidence],
                "decides": [{"item": i, "output": d.output, "systems": list(d.systems)}
                            for i, d in self.decides]}

    def estimate_text(self) -> str:
        """The estimate and what it rests on, in words ("" for a person's pattern)."""
        if self.precision is None:
            return ""
        return (f"estimated precision {self.precision:.3f} (held out: {self.right} of "
                f"{self.checked} right)")

    def evidence_text(self, most: int = 3) -> str:
        """What it was learned from, in words, with a few of the items."""
        if not self.evidence:
            return "a pattern given by a person"
        items = list(dict.fromkeys(e.item for e in self.evidence))
        shown = ", ".join(items[:most]) + (f", … ({len(items)} items)" if len(items) > most
                                             else "")
        return f"learned from {len(self.evidence)} decided outputs of {shown}"


# ------------------------------------------------------------------------------------------


def tokens(output: str) -> list[str]:
    """Words and marks of an output, as the learners compare them."""
    return _TOKEN.findall(output)


#: A change between two outputs: the two texts that differ (as written; "" for nothing).
Change = frozenset[str]
#: Changes in order, each from one text to another ("" for nothing).
Steps = tuple[tuple[str, str], ...]
#: What turns an output of one item into one of its sibling's: the changes of the source
#: and of the output (`Phenomenon.link`).
Link = tuple[Steps, Steps]


class Phenomenon:
    """What the outputs of one phenomenon's items share, learned once from all of them.

    Args:
        pair: Language pair.
        name: The phenomenon.
        outputs: Item id → every distinct output of the item (decided or not).
        sources: Item id → its source sentence.
        settings: What carries a proposal.
    """

    def __init__(self, pair: str, name: str, outputs: Mapping[str, Iterable[str]],
                 sources: Mapping[str, str], settings: Settings = DEFAULT) -> None:
        self.pair = pair
        self.name = name
        self.settings = settings
        self.sources = dict(sources)
        listed = {item: list(dict.fromkeys(o)) for item, o in outputs.items()}
        self.items = list(listed)
        self.outputs = listed
        count = max(len(listed), 1)
        words = Counter[str]()
        for found in listed.values():
            words.update({w.casefold() for o in found for w in _WORD.findall(o)})
        share = {w: n / count for w, n in words.items()}
        self.own: dict[str, frozenset[str]] = {}
        self._sources: dict[str, frozenset[str]] = {}
        for item, found in listed.items():
            seen = Counter[str]()
            for output in found:
                seen.update({w.casefold() for w in _WORD.findall(output)})
            self.own[item] = frozenset(
                w for w, n in seen.items()
                if n >= settings.own_share * len(found) and share[w] < settings.word_share)
        self._templates: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
        self._changes: dict[tuple[str, str], tuple[Change, ...] | None] = {}

    def source(self, item: str) -> frozenset[str]:
        """The words of an item's source (case-folded)."""
        found = self._sources.get(item)
        if found is None:
            found = self._sources[item] = frozenset(
                w.casefold() for w in _WORD.findall(self.sources.get(item, "")))
        return found

    def template(self, item: str, output: str) -> tuple[str, tuple[str, ...]]:
        """The output's template (its item's own words as ``\\w+`` slots, the rest literal,
        as a whole-output regex) and its slot words (case-folded), in order."""
        key = (item, output)
        found = self._templates.get(key)
        if found is None:
            own = self.own.get(item, frozenset())
            parts = ["^"]
            slots = []
            end = 0
            for word in _WORD.finditer(output):
                parts.append(escape(output[end:word.start()]))
                if word.group().casefold() in own:
                    parts.append(r"\w+")
                    slots.append(word.group().casefold())
                else:
                    parts.append(escape(word.group()))
                end = word.end()
            parts.append(escape(output[end:]) + "$")
            found = self._templates[key] = ("".join(parts), tuple(slots))
        return found

    def changes(self, first: str, second: str) -> tuple[Change, ...] | None:
        """The changes that turn one output into the other (each a word or phrase for
        another, unordered), or None if they are equal or differ in more than three."""
        key = (first, second) if first <= second else (second, first)
        if key not in self._changes:
            found = [frozenset(step) for step in _output_steps(*key)]
            self._changes[key] = tuple(found) if 0 < len(found) <= 3 else None
        return self._changes[key]

    @cached_property
    def siblings(self) -> dict[str, dict[str, Steps]]:
        """Item → its siblings (items whose sources differ from its own by at most
        `Settings.sibling_changes` changes) → the changes from its source to theirs
        (case-folded)."""
        found: dict[str, dict[str, Steps]] = {item: {} for item in self.items}
        most = self.settings.sibling_changes
        if most <= 0:
            return found
        words = {item: [w.casefold() for w in tokens(self.sources.get(item, ""))]
                 for item in self.items}
        for index, first in enumerate(self.items):
            for second in self.items[index + 1:]:
                a, b = words[first], words[second]
                if abs(len(a) - len(b)) > _SIBLING_WORDS * most:
                    continue
                steps = _steps(a, b)
                if 0 < len(steps) <= most and all(
                        len(x.split()) <= _SIBLING_WORDS and len(y.split()) <= _SIBLING_WORDS
                        for x, y in steps):
                    found[first][second] = steps
                    found[second][first] = tuple((y, x) for x, y in steps)
        return found

    def link(self, item: str, output: str, sibling: str, other: str) -> Link | None:
        """What turns an output of an item into an output of its sibling — the changes of
        the source and those of the output, oriented the same way and written the same
        way whichever of the two comes first — or None if they are not siblings or the
        outputs differ by more than `Settings.sibling_output_changes` changes."""
        source = self.siblings[item].get(sibling)
        if source is None:
            return None
        steps = _output_steps(output, other)
        if len(steps) > self.settings.sibling_output_changes:
            return None
        forth = (source, steps)
        back = (tuple((y, x) for x, y in source), tuple((y, x) for x, y in steps))
        return min(forth, back)

    def linked(self, item: str, output: str) -> list[tuple[str, str, Link]]:
        """The outputs of the item's siblings an output is linked to (`link`): (sibling,
        its output, the link), for the links that could ever carry a verdict (found between
        the outputs of more than `Settings.support` pairs of items)."""
        return self._linked.get((item, output), [])

    @cached_property
    def _linked(self) -> dict[tuple[str, str], list[tuple[str, str, Link]]]:
        """Every output's links (`linked`), worked out once for the whole phenomenon."""
        found: dict[tuple[str, str], list[tuple[str, str, Link]]] = {}
        pairs: dict[Link, set[tuple[str, str]]] = {}
        for item, siblings in self.siblings.items():
            for sibling in siblings:
                if sibling < item:
                    continue  # each pair once; the link is the same either way
                for output in self.outputs.get(item, ()):
                    for other in self.outputs.get(sibling, ()):
                        link = self.link(item, output, sibling, other)
                        if link is not None:
                            found.setdefault((item, output), []).append((sibling, other, link))
                            found.setdefault((sibling, other), []).append((item, output, link))
                            pairs.setdefault(link, set()).add((item, sibling))
        most = self.settings.support
        return {key: kept for key, links in found.items()
                if (kept := [f for f in links if len(pairs[f[2]]) > most])}

    def estimate(self, right: int, checked: int) -> float:
        """The estimated precision from a held-out record (see the module doc)."""
        s = self.settings
        return (right + s.prior_weight * s.prior) / (checked + s.prior_weight)

    # --- learning -------------------------------------------------------------------------

    def record(self, judged: Mapping[str, Mapping[str, str]]) -> Record:
        """The held-out record of each way of learning on the decided outputs: (how,
        verdict) → (right, checked) (see the module doc)."""
        return _Tables(self, judged).record()

    def learn(self, judged: Mapping[str, Mapping[str, str]],
              pending: Mapping[str, Mapping[str, Sequence[str]]],
              rejected: Collection[str] = ()) -> list[Proposal]:
        """The proposals the decided outputs carry, most outcomes decided first.

        Args:
            judged: Item id → its decided outputs → ``pass`` or ``fail`` (by a rule or a
                person).
            pending: Item id → its pending outputs → the systems that gave them.
            rejected: Ids of proposals a person turned down (not offered again).

        Returns:
            Proposals that decide at least two outputs and whose estimated precision
            reaches `Settings.min_precision`.
        """
        tables = _Tables(self, judged)
        record = tables.record()
        found = []
        for proposal in [*tables.templates(pending), *tables.variants(pending),
                         *tables.siblings(pending)]:
            right, checked = record[(proposal.how, proposal.verdict)]
            found.append(replace(proposal, precision=self.estimate(right, checked),
                                 checked=checked, right=right))
        offered = [p for p in found if len(p.decides) > 1 and p.id not in rejected
                   and (p.precision or 0) >= self.settings.min_precision]
        offered.sort(key=lambda p: (-p.outcomes, -(p.precision or 0), p.how, p.pattern,
                                    p.verdict))
        return offered

    # --- the preview ----------------------------------------------------------------------

    def rows(self, proposal: Proposal, reference: Iterable[str] = ()) -> list[PreviewRow]:
        """A proposal's preview: its outputs grouped by template (the same construction,
        each item's own words masked), each group shown by its output least like the
        evidence (or like `reference`, for a person's pattern), those least like it first.
        """
        seen = [tokens(e.output) for e in proposal.evidence] or \
            [tokens(o) for o in reference]
        groups: dict[str, list[tuple[float, str, Decided]]] = {}
        for item, decided in proposal.decides:
            words = tokens(decided.output)
            likeness = max((difflib.SequenceMatcher(a=words, b=other, autojunk=False).ratio()
                            for other in seen), default=0.0)
            groups.setdefault(self.template(item, decided.output)[0], []).append(
                (likeness, item, decided))
        rows = []
        for members in groups.values():
            members.sort(key=lambda m: (m[0], -len(m[2].systems), m[1], m[2].output))
            likeness, item, shown = members[0]
            rows.append(PreviewRow(shown.output, item, tuple((i, d) for _, i, d in members),
                            likeness))
        rows.sort(key=lambda r: (r.likeness, -len(r.outputs), r.item, r.shown))
        return rows


#: A held-out record: (how, verdict) → (right, checked).
Record = dict[tuple[str, str], tuple[int, int]]


class _Tables:
    """What a phenomenon's decided outputs say: templates by verdict and item, and the
    changes between decided outputs of one item that kept or changed the verdict."""

    def __init__(self, phenomenon: Phenomenon, judged: Mapping[str, Mapping[str, str]]
                 ) -> None:
        self.phenomenon = phenomenon
        self.judged = judged
        self.support = phenomenon.settings.support
        # template → verdict → item → its decided outputs of that template
        self.by_template: dict[str, dict[str, dict[str, list[str]]]] = {}
        # verdict → change → item → the pairs of its decided outputs it turns into each other
        self.kept: dict[str, dict[Change, dict[str, list[tuple[str, str]]]]] = {
            "pass": {}, "fail": {}}
        self.flipped: dict[Change, set[str]] = {}
        self._frames: dict[tuple[Change, str, str | None], frozenset[str] | None] = {}
        for item, decided in judged.items():
            for output, verdict in decided.items():
                self.by_template.setdefault(phenomenon.template(item, output)[0], {}) \
                    .setdefault(verdict, {}).setdefault(item, []).append(output)
            outputs = sorted(decided)
            for index, first in enumerate(outputs):
                for second in outputs[index + 1:]:
                    for change in phenomenon.changes(first, second) or ():
                        if decided[first] == decided[second]:
                            self.kept[decided[first]].setdefault(change, {}).setdefault(
                                item, []).append((first, second))
                        else:
                            self.flipped.setdefault(change, set()).add(item)
        # link → verdict it kept → pairs of sibling items → their decided outputs it links
        self.linked: dict[Link, dict[str, dict[frozenset[str], list[tuple[Evidence, ...]]]]] \
            = {}
        self.unlinked: dict[Link, set[frozenset[str]]] = {}  # link → pairs it changed
        self._pairs_of: dict[tuple[Link, str], Counter[str]] = {}
        # sibling's output → (verdict, link, decided output) it is linked to
        self.carries: dict[tuple[str, str], list[tuple[str, Link, Evidence]]] = {}
        for item, decided in judged.items():
            for output, verdict in decided.items():
                for sibling, other, link in phenomenon.linked(item, output):
                    self.carries.setdefault((sibling, other), []).append(
                        (verdict, link, Evidence(item, output, verdict)))
                    theirs = judged.get(sibling, {}).get(other)
                    if theirs is None or sibling < item:
                        continue  # undecided, or the pair seen from the other side
                    pair = frozenset((item, sibling))
                    if theirs == verdict:
                        self.linked.setdefault(link, {}).setdefault(verdict, {}).setdefault(
                            pair, []).append((Evidence(item, output, verdict),
                                              Evidence(sibling, other, verdict)))
                    else:
                        self.unlinked.setdefault(link, set()).add(pair)

    def record(self) -> Record:
        """Held out one item at a time: what the other items' decisions say of each decided
        output, and whether that is its verdict."""
        counts = {(how, v): [0, 0] for how in LEARNED for v in ("pass", "fail")}
        for item, decided in self.judged.items():
            for output, verdict in decided.items():
                anchors = {o: v for o, v in decided.items() if o != output}
                for how, said in (
                        ("template", self.shaped(item, output, without=item)),
                        ("variant", self.varied(item, output, anchors, without=item)),
                        ("sibling", self.sibling(item, output, without=item))):
                    if said is not None:
                        counts[(how, said[0])][0] += said[0] == verdict
                        counts[(how, said[0])][1] += 1
        return {key: (right, checked) for key, (right, checked) in counts.items()}

    # --- templates --------------------------------------------------------------------

    def shaped(self, item: str, output: str, without: str | None
               ) -> tuple[str, frozenset[str]] | None:
        """The fail the decided outputs of the output's template carry to it (with the
        source words it keeps to), or None.

        A fail is carried from the items (other than `without`) that decided the template
        so, when there are at least `Settings.support` of them, to an item whose source has
        every word their sources share (their *frame*: "sollen", not "müssen"), and only when
        no item with that frame passed the template; and only when the template writes out at
        least as many words as it leaves open (a construction, not mostly slots: a preview row
        stands for all the outputs of its template). A pass is never carried by a template:
        whether an output is right depends on its own words too ("I would have washed" is
        wrong where "I would have hurried" is right), what its construction does not show.
        """
        phenomenon = self.phenomenon
        pattern, slots = phenomenon.template(item, output)
        if 2 * len(slots) > len(_WORD.findall(output)):
            return None  # more left open than written out: too little of the construction
        seen = self.by_template.get(pattern)
        evidence = [i for i in (seen or {}).get("fail", {}) if i != without]
        if seen is None or len(evidence) < self.support:
            return None
        frame = frozenset.intersection(*(phenomenon.source(i) for i in evidence))
        if not frame <= phenomenon.source(item) or any(
                i != without and frame <= phenomenon.source(i) for i in seen.get("pass", ())):
            return None
        return "fail", frame

    def templates(self, pending: Mapping[str, Mapping[str, Sequence[str]]]
                  ) -> list[Proposal]:
        """Proposals of the outputs shaped like decided ones (one per template and verdict)."""
        phenomenon = self.phenomenon
        grouped: dict[tuple[str, str, frozenset[str]], list[tuple[str, Decided]]] = {}
        for item, outputs in pending.items():
            for output, systems in outputs.items():
                said = self.shaped(item, output, without=None)
                if said is not None:
                    grouped.setdefault((phenomenon.template(item, output)[0], *said), []) \
                        .append((item, Decided(output, tuple(systems), said[0])))
        proposals = []
        for (pattern, verdict, frame), decides in grouped.items():
            seen = self.by_template[pattern][verdict]
            evidence = tuple(Evidence(item, output, verdict)
                             for item, outputs in seen.items() for output in outputs)
            where = (" whose source has " + ", ".join(sorted(frame))) if frame else ""
            proposals.append(Proposal(
                phenomenon.pair, verdict, "template", f"phenomenon {phenomenon.name}",
                pattern, _ordered(decides), evidence, _frame_pattern(frame),
                why=f"every decided output of this shape, in {len(seen)} items of "
                f"{phenomenon.name}{where}, was {verdict}"))
        return proposals

    # --- variants ---------------------------------------------------------------------

    def safe(self, change: Change, verdict: str, item: str, without: str | None
             ) -> frozenset[str] | None:
        """The frame in which `change` keeps `verdict` for `item`, or None.

        The change must have kept the verdict between the decided outputs of at least
        `Settings.support` items (other than `without`); it is carried only to an item whose
        source has every word their sources share (its *frame*: "you", not "they"), and only
        if it never changed a verdict in an item with that frame.
        """
        key = (change, verdict, without)
        if key not in self._frames:
            supporters = [i for i in self.kept[verdict].get(change, {}) if i != without]
            frame = None
            if len(supporters) >= self.support:
                source = self.phenomenon.source
                frame = frozenset.intersection(*(source(i) for i in supporters))
                if any(i != without and frame <= source(i)
                       for i in self.flipped.get(change, ())):
                    frame = None
            self._frames[key] = frame
        frame = self._frames[key]
        return frame if frame is not None and frame <= self.phenomenon.source(item) else None

    def varied(self, item: str, output: str, anchors: Mapping[str, str],
               without: str | None
               ) -> tuple[str, tuple[Change, ...], frozenset[str]] | None:
        """The verdict of a decided output of the item (`anchors`) that `output` differs
        from only by safe changes, with those changes and their frames' words; None if there
        is none, or if decided outputs of both verdicts say so."""
        said = None
        for anchor, verdict in anchors.items():
            changes = self.phenomenon.changes(anchor, output)
            if not changes:
                continue
            frames = [self.safe(c, verdict, item, without) for c in changes]
            if all(f is not None for f in frames):
                if said is not None and said[0] != verdict:
                    return None
                words = frozenset(w for f in frames if f is not None for w in f)
                said = said or (verdict, changes, words)
        return said

    def variants(self, pending: Mapping[str, Mapping[str, Sequence[str]]]
                 ) -> list[Proposal]:
        """Proposals of the outputs that differ from a decided output of their own item only
        by safe changes (one per verdict and set of changes)."""
        phenomenon = self.phenomenon
        grouped: dict[tuple[str, frozenset[Change], frozenset[str]],
                      list[tuple[str, Decided]]] = {}
        for item, outputs in pending.items():
            anchors = self.judged.get(item, {})
            if not anchors:
                continue
            for output, systems in outputs.items():
                said = self.varied(item, output, anchors, without=None)
                if said is not None:
                    grouped.setdefault((said[0], frozenset(said[1]), said[2]), []).append(
                        (item, Decided(output, tuple(systems), said[0])))
        proposals = []
        for (verdict, changes, frame), decides in grouped.items():
            evidence = tuple(dict.fromkeys(
                Evidence(item, output, verdict) for change in changes
                for item, pairs in self.kept[verdict][change].items()
                for pair in pairs for output in pair))
            pattern = "; ".join(sorted(_change_text(c) for c in changes))
            items = len({e.item for e in evidence})
            where = (" whose source has " + ", ".join(sorted(frame))) if frame else ""
            proposals.append(Proposal(
                phenomenon.pair, verdict, "variant", f"phenomenon {phenomenon.name}",
                pattern, _ordered(decides), evidence, _frame_pattern(frame),
                why=f"each is a decided {verdict} of its own item with {pattern}: in "
                f"{items} other items of {phenomenon.name}{where}, that kept the verdict and "
                "never changed it"))
        return proposals

    # --- siblings -----------------------------------------------------------------------

    def safe_link(self, link: Link, verdict: str, without: str | None) -> bool:
        """Whether a link kept `verdict` between the decided outputs of at least
        `Settings.support` pairs of sibling items (neither of them `without`) and changed it
        in none."""
        kept = self.linked.get(link, {}).get(verdict)
        if not kept:
            return False
        changed = self.unlinked.get(link, ())
        if without is None:
            return len(kept) >= self.support and not changed
        counts = self._pairs_of.get((link, verdict))
        if counts is None:
            counts = self._pairs_of[(link, verdict)] = Counter(i for pair in kept for i in pair)
        return len(kept) - counts[without] >= self.support and all(
            without in pair for pair in changed)

    def sibling(self, item: str, output: str, without: str | None
                ) -> tuple[str, Link, Evidence] | None:
        """The verdict of a decided output of a sibling item that `output` is linked to by
        a safe link (`safe_link`), with the link and that output; the link with the most
        support if several; None if there is none, or if they say both verdicts."""
        found = [carry for carry in self.carries.get((item, output), ())
                 if self.safe_link(carry[1], carry[0], without)]
        if not found or len({f[0] for f in found}) > 1:
            return None
        return max(found, key=lambda f: (len(self.linked[f[1]][f[0]]), f[1], f[2].item))

    def siblings(self, pending: Mapping[str, Mapping[str, Sequence[str]]]) -> list[Proposal]:
        """Proposals of the outputs linked to a decided output of a sibling item by a safe
        link (one per verdict and link)."""
        phenomenon = self.phenomenon
        grouped: dict[tuple[str, Link], list[tuple[str, Decided]]] = {}
        anchors: dict[tuple[str, Link], list[Evidence]] = {}
        for item, outputs in pending.items():
            for output, systems in outputs.items():
                said = self.sibling(item, output, without=None)
                if said is not None:
                    grouped.setdefault(said[:2], []).append(
                        (item, Decided(output, tuple(systems), said[0])))
                    anchors.setdefault(said[:2], []).append(said[2])
        proposals = []
        for (verdict, link), decides in grouped.items():
            pairs = self.linked[link][verdict]
            evidence = tuple(dict.fromkeys([*anchors[(verdict, link)], *(
                e for found in pairs.values() for two in found for e in two)]))
            pattern = _link_text(link)
            proposals.append(Proposal(
                phenomenon.pair, verdict, "sibling", f"phenomenon {phenomenon.name}",
                pattern, _ordered(decides), evidence,
                why=f"each is a sibling item's decided {verdict} with "
                f"{_steps_text(link[1])}, where the two sources differ by "
                f"{_steps_text(link[0])}: in {len(pairs)} other pairs of sibling items of "
                f"{phenomenon.name}, that kept the verdict and never changed it"))
        return proposals


def _link_text(link: Link) -> str:
    return f"source {_steps_text(link[0])}; output {_steps_text(link[1])}"


def _steps_text(steps: Steps) -> str:
    """Changes in words, either way round ("“read” ↔ “sleep”"; "unchanged" for none)."""
    if not steps:
        return "unchanged"
    return ", ".join(" ↔ ".join(f"“{side}”" if side else "nothing" for side in step)
                     for step in steps)


def _ordered(decides: list[tuple[str, Decided]]) -> tuple[tuple[str, Decided], ...]:
    return tuple(sorted(decides, key=lambda d: (d[0], -len(d[1].systems), d[1].output)))


def _frame_pattern(frame: frozenset[str]) -> str:
    """A regex that finds a source with every word of `frame` (in any order, any case)."""
    if not frame:
        return ""
    return "(?i)" + "".join(f"(?=.*\\b{escape(w)}\\b)" for w in sorted(frame))


def _diff(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """Where two lists of words differ: (i1, i2, j1, j2) for each change of a[i1:i2] into
    b[j1:j2], in order."""
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        a=a, b=b, autojunk=False).get_opcodes() if tag != "equal"]


def _steps(a: Sequence[str], b: Sequence[str]) -> Steps:
    """The changes that turn one list of words into another, each as text."""
    return tuple((" ".join(a[i1:i2]), " ".join(b[j1:j2])) for i1, i2, j1, j2 in _diff(a, b))


def _output_steps(first: str, second: str) -> Steps:
    """The changes that turn one output into another, in order, each as written (a word or
    phrase for another; "" for nothing)."""
    a, b = list(_TOKEN.finditer(first)), list(_TOKEN.finditer(second))
    return tuple((_span(first, a[i1:i2]), _span(second, b[j1:j2])) for i1, i2, j1, j2
                 in _diff([t.group() for t in a], [t.group() for t in b]))


def _span(text: str, found: Sequence[regex.Match[str]]) -> str:
    """The text of consecutive tokens, as written ("" for none)."""
    return text[found[0].start():found[-1].end()] if found else ""


def _change_text(change: Change) -> str:
    sides = sorted(f"“{side}”" if side else "nothing" for side in change)
    return " ↔ ".join(sides)
