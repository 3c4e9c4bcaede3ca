"""Rule suggestions learned from verdicts: a pattern that decides the item's other outputs.

After an annotator has decided a few outputs of an item, the words that every output
decided *pass* shares and no output decided *fail* contains (or the reverse) are likely what
the item tests: "had had to sleep" where the rule wanted "had to sleep" but missed a
paraphrase. `suggest` turns such word n-grams into a positive or negative regex added to
the item's rule as an alternative (``old|new``) and keeps only candidates that

* contradict no verdict (judged without verdicts, a pass-decided output is never a fail
  and the reverse),
* change no outcome the rule already decides (only warnings are decided; published numbers
  stay as they are),
* decide at least one pending output.

Each suggestion lists every pending outcome it decides (the preview) and the decided outputs
it judges as their verdicts say, which become the rule's ``examples:`` when it is accepted
(`accept`), so that `testsuite lint` guards the pattern from then on.

Ranking prefers the candidate that decides the most pending outcomes and, among those that
decide the same outputs, the longest phrase (a longer phrase is less likely to pass an output
for the wrong reason). Measured by `bench/triage_sim.py`: on WMT21 de-en, preferring the
most specific phrase instead (fewest outputs decided) cost 10 % more decisions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import regex

from ..matching import CompiledRule, RegexCache
from ..model import DISAGREEMENT, Rule, Suite, standing_verdicts
from ..rule_edit import Edit, RegexField, set_item_regex, view_of, with_regex

#: Longest n-gram (in words and punctuation marks) considered.
MAX_WORDS = 6
#: Most suggestions returned.
LIMIT = 3

_TOKEN = regex.compile(r"\w+|[^\w\s]")
_SPECIAL = frozenset(".^$*+?{}[]\\|()")


@dataclass(frozen=True)
class Decided:
    """A pending output a suggestion decides."""

    output: str
    systems: tuple[str, ...]
    outcome: str


@dataclass(frozen=True)
class Suggestion:
    """A pattern to add to an item's rule, with everything it would decide.

    Attributes:
        pair: Language pair.
        item: Item id.
        field: ``positive_regex`` or ``negative_regex``.
        learned: The new alternative (an escaped phrase with word boundaries).
        pattern: The field's whole new value (``old|learned``, or `learned`).
        rule: The item's rule with the new pattern (verdicts kept).
        decides: Pending outputs it decides, most systems first.
        examples_pass: Outputs decided pass that the new rule passes (become examples).
        examples_fail: Outputs decided fail that the new rule fails.
    """

    pair: str
    item: str
    field: RegexField
    learned: str
    pattern: str
    rule: Rule
    decides: tuple[Decided, ...]
    examples_pass: tuple[str, ...]
    examples_fail: tuple[str, ...]

    @property
    def outcomes(self) -> int:
        """Outcomes (system outputs) it decides."""
        return sum(len(d.systems) for d in self.decides)

    @property
    def examples(self) -> dict[str, list[str]]:
        """The rule's new ``examples:`` when it is accepted (``pass`` and ``fail``)."""
        return {"pass": list(self.examples_pass), "fail": list(self.examples_fail)}


def accept(suite: Suite, suggestion: Suggestion) -> Edit:
    """Write a suggestion into its item's rules file: its pattern, and the decided outputs
    as ``examples:`` (`testsuite.rule_edit.set_item_regex`).

    Returns:
        The rules file before and after.

    Raises:
        StaleRule: if the rule in the file is no longer the one the suggestion was learned
            from (nothing is written).
        TestsuiteError: as `set_item_regex`.
    """
    learned, pattern = suggestion.learned, suggestion.pattern
    old = pattern[:-len(learned) - 1] if pattern != learned else ""
    seen = with_regex(suggestion.rule, suggestion.field, old)  # what it was learned on
    return set_item_regex(suite, suggestion.pair, suggestion.item, suggestion.field, pattern,
                          expected=view_of(seen), examples=suggestion.examples)


def escape(text: str) -> str:
    """`text` as a regex matching it literally, escaping only what is special (readable)."""
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def phrase_pattern(text: str) -> str:
    """A literal phrase with word boundaries where it starts or ends with a word character."""
    start = r"\b" if regex.match(r"\w", text[0]) else ""
    end = r"\b" if regex.match(r"\w", text[-1]) else ""
    return f"{start}{escape(text)}{end}"


def contains(text: str, phrase: str) -> bool:
    """Whether `text` contains `phrase` as `phrase_pattern` matches it: not inside a word."""
    word_start = phrase[0].isalnum() or phrase[0] == "_"
    word_end = phrase[-1].isalnum() or phrase[-1] == "_"
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (word_start and (before.isalnum() or before == "_")) \
                and not (word_end and (after.isalnum() or after == "_")):
            return True
        start = text.find(phrase, start + 1)
    return False


def phrases(output: str, max_words: int = MAX_WORDS) -> list[str]:
    """Every run of 1 to `max_words` consecutive words or marks in `output`, as written."""
    spans = [m.span() for m in _TOKEN.finditer(output)]
    found = []
    for first in range(len(spans)):
        for last in range(first, min(first + max_words, len(spans))):
            found.append(output[spans[first][0]:spans[last][1]])
    return list(dict.fromkeys(found))


def suggest(pair: str, item: str, rule: Rule | None, outputs: Mapping[str, Sequence[str]],
            cache: RegexCache | None = None, limit: int = LIMIT) -> list[Suggestion]:
    """Patterns learned from the verdicts of one item, best first.

    Args:
        pair: Language pair.
        item: Item id.
        rule: The item's rule with its verdicts (None: no rule yet).
        outputs: Every distinct output of the item (stripped) → the systems that gave it.
        cache: Compiled patterns.
        limit: Most suggestions returned.

    Returns:
        Suggestions that contradict no verdict and change only pending outcomes.
    """
    cache = cache or RegexCache()
    base = rule or Rule(item)
    standing = standing_verdicts(base.verdicts)
    decided = {o: v for o, v in standing.items() if v != DISAGREEMENT}
    passed = [o for o, v in decided.items() if v == "pass"]
    failed = [o for o, v in decided.items() if v == "fail"]
    bare = replace(base, verdicts=())
    judge_now = CompiledRule(bare, cache)
    now = {o: judge_now.judge(o).outcome.value for o in set(outputs) | set(decided)}
    pending = [o for o in outputs if o not in standing and now[o] == "warning"]
    if not pending or not decided:
        return []
    found: dict[tuple[str, str], Suggestion] = {}
    sides: tuple[tuple[RegexField, list[str], list[str]], ...] = (
        ("positive_regex", passed, failed), ("negative_regex", failed, passed))
    for field, side, other in sides:
        if not side:
            continue
        # Phrases of the decided output most systems gave, shared by every output decided
        # the same way and absent from every output decided the other way.
        first = max(side, key=lambda o: (len(outputs.get(o, ())), o))
        for text in phrases(first):
            if not all(contains(o, text) for o in side) or any(contains(o, text) for o in other):
                continue
            learned = phrase_pattern(text)
            if cache.get(learned) is None:
                continue
            candidate = _candidate(pair, item, base, field, learned, outputs, now, decided,
                                   pending, cache)
            if candidate is not None:
                found.setdefault((field, learned), candidate)
    ranked = sorted(found.values(), key=_rank)
    # Of candidates that decide the same outputs the same way, only the best is shown.
    shown: list[Suggestion] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    for suggestion in ranked:
        signature = tuple(sorted((d.output, d.outcome) for d in suggestion.decides))
        if signature not in seen:
            seen.add(signature)
            shown.append(suggestion)
    return shown[:limit]


def _rank(suggestion: Suggestion) -> tuple[int, int, int, str]:
    # Most outcomes decided first, then the longest phrase; positive patterns before
    # negative ones (a pass needs the phrase, a fail is one error of many).
    return (-suggestion.outcomes, -len(suggestion.learned),
            suggestion.field != "positive_regex", suggestion.learned)


def _candidate(pair: str, item: str, base: Rule, field: RegexField, learned: str,
               outputs: Mapping[str, Sequence[str]], now: Mapping[str, str],
               decided: Mapping[str, str], pending: Sequence[str],
               cache: RegexCache) -> Suggestion | None:
    old = getattr(base, field)
    pattern = f"{old}|{learned}" if old else learned
    rule = with_regex(base, field, pattern)
    judge_new = CompiledRule(replace(rule, verdicts=()), cache)
    examples: dict[str, list[str]] = {"pass": [], "fail": []}
    for output, verdict in decided.items():
        outcome = judge_new.judge(output).outcome.value
        if outcome in ("pass", "fail") and outcome != verdict:
            return None  # contradicts a verdict
        if outcome == verdict:
            examples[verdict].append(output)
        elif now[output] in ("pass", "fail"):
            return None  # would change what the rule decided
    for output, before in now.items():
        if output not in decided and before != "warning" \
                and judge_new.judge(output).outcome.value != before:
            return None  # changes an outcome the rule decides: not ours to change
    decides = []
    for output in pending:
        outcome = judge_new.judge(output).outcome.value
        if outcome in ("pass", "fail"):
            decides.append(Decided(output, tuple(outputs[output]), outcome))
    if not decides:
        return None
    decides.sort(key=lambda d: (-len(d.systems), d.output))
    return Suggestion(pair, item, field, learned, pattern, rule, tuple(decides),
                      tuple(examples["pass"]), tuple(examples["fail"]))
