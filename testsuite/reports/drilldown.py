"""The data behind the HTML report's drill-down: every item with every system's output.

One compact JSON document per language pair, embedded in the page and drawn on demand by
``templates/drilldown.js``. It holds what the page shows and nothing it would have to work
out itself: outcomes and their reasons, which items entered the scores, each item's rule,
and where the rule matches each output (computed here with the evaluator's own compiled
patterns and normalisation, `matching.CompiledRule.spans`, never re-implemented in
JavaScript).

Layout (every string is stored once in ``strings``; -1 means none)::

    items[k] = [id, phenomenon, source, description, outputs, which, verdicts, entered,
                rule, spans, why]

* ``phenomenon`` indexes ``phenomena`` (``[name, category index]``);
* ``outputs`` are the string indices of the item's distinct outputs; ``which`` has one
  letter per system (``code``) naming its output among them, ``-`` for no output;
* ``verdicts`` has one letter per system naming a pair ``[outcome index, reason string]``
  in ``verdicts``;
* ``entered`` is 1 if the item entered the scores, 0 if the fairness rule (or a filter)
  left it out (`Scores.entered`): the items behind the tables' numbers are those of a row
  with ``entered`` 1 (`scoring.behind`, the one definition every link of the page uses);
* ``why`` is the string index of why a left-out item was left out
  (`scoring.behind.left_out_reasons`), -1 for an item that entered;
* ``rule`` is ``[positive regex, negative regex]``, followed by ``[positive tokens],
  [negative tokens], verdict count`` when it has any of them, or 0 for an item without a
  rule;
* ``spans`` has, per distinct output, a flat list ``start, end, flags, …`` in UTF-16 code
  units (JavaScript string indices; flags: 1 positive, 2 token), or is 0 when no output of
  the item has a match.

Most systems give one of a few outputs per item, so this is about half the size of one
string index per item and system (WMT21 de-en: 2.8 distinct outputs per 18 systems).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..matching import (
    REASON_BOTH_REGEX,
    REASON_BOTH_TOKENS,
    REASON_INVALID,
    REASON_MISSING,
    REASON_NEG_REGEX,
    REASON_NEG_TOKEN,
    REASON_NO_MATCH,
    REASON_NO_RULE,
    REASON_POS_REGEX,
    REASON_POS_TOKEN,
    REASON_PROPOSAL,
    REASON_TIMEOUT,
    REASON_VERDICT,
    CompiledRule,
    RegexCache,
)
from ..normalise import profile
from ..scoring.behind import left_out_reasons, scored_ids

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from ..model import Suite
    from ..scoring import Scores

OUTCOMES = ("pass", "fail", "warning", "missing")
#: Letters of `code` (printable ASCII without '-', quotes, backslash and HTML specials).
ALPHABET = "".join(chr(c) for c in range(33, 127) if chr(c) not in "-\"\\<>&'")
#: What each reason of an outcome means, in words (the reasons are `matching.REASON_*`).
REASON_LABELS = {
    REASON_POS_REGEX: "the positive regex matches",
    REASON_NEG_REGEX: "the negative regex matches",
    REASON_BOTH_REGEX: "both regexes match",
    REASON_POS_TOKEN: "no regex matches; a positive token occurs",
    REASON_NEG_TOKEN: "no regex matches; a negative token occurs",
    REASON_BOTH_TOKENS: "no regex matches; positive and negative tokens occur",
    REASON_NO_MATCH: "neither regex nor token matches",
    REASON_VERDICT: "a person's verdict on exactly this output",
    REASON_PROPOSAL: "a person's verdict on exactly this output, recorded from a proposal",
    REASON_MISSING: "the output is empty",
    REASON_INVALID: "a regex of the rule does not compile",
    REASON_TIMEOUT: "the regex match exceeded the time limit",
    REASON_NO_RULE: "the item has no rule",
}
#: Reasons for which the rule is not matched again to show spans (nothing to show, or a
#: match that would only time out again).
_NO_SPANS = {REASON_MISSING, REASON_INVALID, REASON_TIMEOUT, REASON_NO_RULE}


def code(number: int) -> str:
    """One letter for a small number: `ALPHABET`, then characters from U+0100 on."""
    return ALPHABET[number] if number < len(ALPHABET) else chr(0x100 + number)


def drilldown_data(scores: Scores, evaluation: Evaluation, suite: Suite,
                   cache: RegexCache | None = None) -> dict[str, Any]:
    """Every located item of the pair with each system's output, outcome and reason.

    Args:
        scores: Scores of the pair (systems in their order, best first; options).
        evaluation: The outcomes scored.
        suite: The suite evaluated (item order, sources, descriptions, rules).
        cache: Compiled patterns for the match spans (default: the persistent cache).

    Returns:
        The document described in the module docstring.
    """
    columns = evaluation.columns
    strings: dict[str, int] = {}

    def intern(text: str) -> int:
        return strings.setdefault(text, len(strings))

    verdict_index: dict[tuple[int, int], int] = {}
    column = {s: i for i, s in enumerate(scores.systems)}
    width = len(scores.systems)
    cells: dict[str, tuple[list[int], list[int]]] = {}
    places: dict[str, tuple[str, str]] = {}
    reason_of: dict[tuple[str, int], str] = {}
    outcome_index = {name: index for index, name in enumerate(OUTCOMES)}
    for item, pair, system, output, outcome, reason, category, phenomenon in zip(
            columns["item"], columns["pair"], columns["system"], columns["output"],
            columns["outcome"], columns["reason"], columns["category"], columns["phenomenon"],
            strict=True):
        at = column.get(system)
        if at is None or pair != scores.pair:
            continue
        outputs, verdicts = cells.get(item) or cells.setdefault(item, ([-1] * width,
                                                                       [-1] * width))
        if item not in places:
            places[item] = (category, phenomenon)
        text = intern(output)
        reason_of[(item, text)] = reason
        outputs[at] = text
        key = (outcome_index[outcome], intern(reason))
        verdicts[at] = verdict_index.setdefault(key, len(verdict_index))

    cache = cache if cache is not None else RegexCache.persistent()
    normalise = profile(evaluation.normalise)
    entered = scored_ids(scores)
    why = left_out_reasons(scores)
    texts = list(strings)
    # Suite order (the order of every report); items only in the results come last.
    known = {item.id: item for item in suite.items_of(scores.pair)}
    order = [i for i in known if i in cells] + [i for i in cells if i not in known]
    categories: dict[str, int] = {}
    phenomena: dict[tuple[str, str], int] = {}
    items = []
    for item_id in order:
        found = known.get(item_id)
        category, phenomenon = ((found.category, found.phenomenon) if found
                                else places[item_id])
        categories.setdefault(category, len(categories))
        phenomenon_index = phenomena.setdefault((category, phenomenon), len(phenomena))
        outputs, verdicts = cells[item_id]
        distinct = list(dict.fromkeys(o for o in outputs if o >= 0))
        local = {index: position for position, index in enumerate(distinct)}
        rule = suite.rules.get((scores.pair, item_id))
        compiled = CompiledRule(rule, cache, normalise=normalise) if rule is not None else None
        spans: list[list[int]] | int = [_spans(compiled, texts[o], reason_of[(item_id, o)])
                                         for o in distinct]
        if not any(spans):  # type: ignore[arg-type]
            spans = 0
        items.append([
            item_id, phenomenon_index,
            intern(found.source) if found else -1,
            intern(found.description) if found and found.description else -1,
            distinct,
            "".join(code(local[o]) if o >= 0 else "-" for o in outputs),
            "".join(code(v) if v >= 0 else "-" for v in verdicts),
            1 if item_id in entered else 0,
            _rule(rule, intern) if rule is not None else 0,
            spans, intern(why[item_id]) if item_id in why else -1])
    return {
        "pair": scores.pair, "fair": scores.options.fair, "systems": scores.systems,
        "outcomes": list(OUTCOMES), "categories": list(categories),
        "phenomena": [[name, categories[category]] for category, name in phenomena],
        "verdicts": [list(key) for key in verdict_index], "strings": list(strings),
        "reasons": REASON_LABELS, "alphabet": ALPHABET, "items": items,
    }


def _rule(rule: Any, intern: Any) -> list[Any]:
    def text(pattern: str) -> int:
        return intern(pattern) if pattern else -1

    positive = [intern(t) for t in rule.positive_tokens if t.strip()]
    negative = [intern(t) for t in rule.negative_tokens if t.strip()]
    compact: list[Any] = [text(rule.positive_regex), text(rule.negative_regex)]
    if positive or negative or rule.verdicts:
        compact += [positive, negative, len(rule.verdicts)]
    return compact


def _spans(rule: CompiledRule | None, output: str, reason: str) -> list[int]:
    """Flat ``start, end, flags`` triples of the rule's matches, in UTF-16 code units."""
    if rule is None or reason in _NO_SPANS:
        return []
    flat: list[int] = []
    wide = len(output.encode("utf-16-le")) != 2 * len(output)  # characters beyond U+FFFF
    for span in rule.spans(output):
        start, end = span.start, span.end
        if wide:
            start = len(output[:start].encode("utf-16-le")) // 2
            end = len(output[:end].encode("utf-16-le")) // 2
        flat += [start, end, (1 if span.positive else 0) | (2 if span.token else 0)]
    return flat


__all__ = ["ALPHABET", "OUTCOMES", "REASON_LABELS", "code", "drilldown_data"]
