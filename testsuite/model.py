"""The data model: items, rules, verdicts and the suite that holds them.

One vocabulary everywhere: an *item* is a source sentence testing one *phenomenon* of a
*category*; its *rule* says how to judge a *system*'s output; a *verdict* is a person's
decision on one exact output; the result of judging is an *outcome*.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from .errors import TestsuiteError, describe


class Outcome(StrEnum):
    """The four outcomes of `../shared/SPEC.md`."""

    PASS = "pass"
    FAIL = "fail"
    WARNING = "warning"
    MISSING = "missing"


#: Verdict values a person can record (a verdict is never a warning).
VERDICTS = (Outcome.PASS.value, Outcome.FAIL.value)
#: What `standing_verdicts` gives for an output whose annotators contradict each other.
DISAGREEMENT = "disagreement"


@dataclass(frozen=True, slots=True)
class Item:
    """One test item: a source sentence for one phenomenon.

    Attributes:
        id: Identifier, unique within a language pair; always a string (leading zeros kept).
        pair: Language pair such as ``de-en``.
        category: Category name, e.g. ``Coordination & ellipsis``.
        phenomenon: Phenomenon name, e.g. ``Gapping``.
        source: The source sentence exactly as written (no white space is removed).
        description: Optional text saying what the item tests.
        notes: Optional free notes of the suite author.
        file: File the item was read from (for messages), if any.
        line: 1-based line of the item in that file, if known.
        template: Id of the paradigm template that generated the item, if one did.
    """

    id: str
    pair: str
    category: str
    phenomenon: str
    source: str
    description: str | None = None
    notes: str | None = None
    file: str | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)
    template: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A person's decision on one exact output of one item.

    Attributes:
        output: The output the decision is about (compared after stripping white space).
        verdict: ``pass`` or ``fail``.
        annotator: Who decided.
        time: When, as an ISO 8601 string.
        note: Optional comment.
        settles: Whether it settles a disagreement: the verdicts recorded on the output
            before it no longer count (see `standing_verdicts`).
        proposal: The id of the proposal it was recorded from (a batch or a learned
            proposal, `testsuite.verdicts.proposals`); None for a decision on this output
            alone.
    """

    output: str
    verdict: str
    annotator: str | None = None
    time: str | None = None
    note: str | None = None
    settles: bool = False
    proposal: str | None = None


#: The kinds of a rule's ``examples:`` and the outcome each must get (`lint` checks them;
#: `lint --coverage` counts them).
EXAMPLE_KINDS = {"pass": "pass", "fail": "fail", "reworded": "pass", "near_miss": "fail"}


@dataclass(frozen=True, slots=True)
class Rule:
    """How outputs of one item are judged.

    Attributes:
        item: Id of the item the rule belongs to.
        positive_regex: Pattern whose match anywhere in an output signals a correct one.
        negative_regex: Pattern whose match signals an error.
        positive_tokens: Substrings signalling a correct output (used only when no regex
            matched).
        negative_tokens: Substrings signalling an error (likewise).
        verdicts: Manual decisions on exact outputs.
        examples_pass: Translations the rule must classify as ``pass`` (regression cases):
            the main wording.
        examples_fail: Translations the rule must classify as ``fail``: typical errors.
        examples_reworded: Correct translations off the main path (another tense where it
            is valid, word order, synonyms, spelling variants); they must ``pass``.
        examples_near_miss: Errors that keep the expected words but break the construction
            the item tests; they must ``fail``.
        file: File the rule was read from, if any.
        line: 1-based line of the rule in that file, if known.
    """

    item: str
    positive_regex: str = ""
    negative_regex: str = ""
    positive_tokens: tuple[str, ...] = ()
    negative_tokens: tuple[str, ...] = ()
    verdicts: tuple[Verdict, ...] = ()
    examples_pass: tuple[str, ...] = ()
    examples_fail: tuple[str, ...] = ()
    examples_reworded: tuple[str, ...] = ()
    examples_near_miss: tuple[str, ...] = ()
    file: str | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)

    def examples(self) -> Iterator[tuple[str, str, str]]:
        """Every example as (kind, the outcome it must get, text), kinds in `EXAMPLE_KINDS`
        order."""
        for kind, expected in EXAMPLE_KINDS.items():
            for text in getattr(self, f"examples_{kind}"):
                yield kind, expected, text

    def verdict_for(self, output: str) -> str | None:
        """The verdict standing on exactly this output: ``pass``, ``fail``, `DISAGREEMENT`
        or None (see `standing_verdicts`)."""
        return standing_verdicts(self.verdicts).get(output.strip())


@dataclass(slots=True)
class Suite:
    """Items and rules of one or more language pairs, in a stable order.

    Items keep the order of the files they were read from (files sorted by name), which is
    the order of `testsuite sources` and of every report.

    ``key`` identifies the content of the files the suite was loaded from (set by the
    loader; None for a suite built in code): caches of work done with the suite use it.
    """

    items: dict[tuple[str, str], Item] = field(default_factory=dict)
    rules: dict[tuple[str, str], Rule] = field(default_factory=dict)
    key: str | None = field(default=None, compare=False)

    @property
    def pairs(self) -> list[str]:
        """Language pairs present, in order of first appearance."""
        return list(dict.fromkeys(pair for pair, _ in self.items))

    def items_of(self, pair: str) -> list[Item]:
        """Items of one language pair in suite order."""
        return [item for (p, _), item in self.items.items() if p == pair]

    def rule_of(self, item: Item) -> Rule | None:
        """The rule of an item, or None if it has none."""
        return self.rules.get((item.pair, item.id))

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items.values())

    def __len__(self) -> int:
        return len(self.items)


def standing_verdicts(verdicts: Iterable[Verdict],
                     key: Callable[[str], str] | None = None) -> dict[str, str]:
    """The verdict in force on each decided output (keys stripped of white space).

    Several annotators may decide the same output; their decisions are never merged
    silently. Per output, each annotator's latest verdict counts (an annotator may change
    their mind); if those agree, that is the verdict, otherwise the output is in
    `DISAGREEMENT` (evaluated as a warning) until someone records a verdict that
    ``settles`` it, after which only that verdict and later ones count.

    Args:
        verdicts: Verdicts in the order they were recorded.
        key: What identifies an output (default: the output stripped of white space; with
            a normalisation, the normalised output).

    Returns:
        Output (its key) → ``pass``, ``fail`` or `DISAGREEMENT`.
    """
    standing: dict[str, str] = {}
    for output, counted in in_force(verdicts, key).items():
        values = {verdict.verdict for verdict in counted}
        standing[output] = values.pop() if len(values) == 1 else DISAGREEMENT
    return standing


def in_force(verdicts: Iterable[Verdict],
             key: Callable[[str], str] | None = None) -> dict[str, list[Verdict]]:
    """The verdicts that count on each decided output, as `standing_verdicts` reads them:
    each annotator's latest since the last one that ``settles`` it (several that contradict
    each other: a disagreement), in the order they were given.

    Args:
        verdicts: Verdicts in the order they were recorded.
        key: What identifies an output (as for `standing_verdicts`).

    Returns:
        Output (its key) → its verdicts in force.
    """
    by_output: dict[str, dict[str | None, Verdict]] = {}
    for verdict in verdicts:
        output = key(verdict.output) if key is not None else verdict.output.strip()
        if verdict.settles:
            by_output[output] = {}
        latest = by_output.setdefault(output, {})
        latest.pop(verdict.annotator, None)  # keep the order of the latest decisions
        latest[verdict.annotator] = verdict
    return {output: list(latest.values()) for output, latest in by_output.items()}


#: A language pair: two ISO 639 codes (two or three letters) joined by a hyphen.
_PAIR = re.compile(r"[a-z]{2,3}-[a-z]{2,3}")


def pair_code(pair: object) -> str:
    """Normalise and check a language pair: ``deen``, ``de_en``, ``DE-EN`` → ``de-en``.

    A pair becomes a folder name (``suites/<pair>/``), so anything that is not two language
    codes is refused rather than passed on.

    Raises:
        TestsuiteError: if `pair` is not text of the form ``xx-yy`` (two or three letters
            each), ``xx_yy`` or ``xxyy``.
    """
    if not isinstance(pair, str):
        raise TestsuiteError(f"a language pair must be text such as de-en, not "
                             f"{describe(pair)}")
    text = pair.strip().lower().replace("_", "-")
    if "-" not in text and len(text) == 4:
        text = f"{text[:2]}-{text[2:]}"
    if not _PAIR.fullmatch(text):
        raise TestsuiteError(f"{pair!r} is not a language pair: expected two language codes "
                             "such as de-en (deen and de_en are accepted too)")
    return text
