"""Why did the rule miss? The closest partial match of each regex and token in an output.

Almost every open warning is ``no-match``: nothing is highlighted and the annotator has to
find out alone which part of the expected phrase the translation lacks. For each regex
(each top-level alternative of it) `partial_matches` finds the longest prefix of the pattern
that still matches somewhere in the output, so the annotator sees how far it got — "I had
been supposed to" matched, "read\\." did not because the output goes on with "sleep." — and
for each token the longest prefix of it that the output contains.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..matching import DEFAULT_TIMEOUT, RegexCache
from ..model import Item, Rule

#: Alternatives of one regex explained (the closest ones).
MAX_ALTERNATIVES = 2
#: Characters of the output shown after the point where the pattern stopped matching.
CONTEXT = 24


@dataclass(frozen=True)
class Partial:
    """How far one pattern (or token) got in an output.

    Attributes:
        kind: ``positive regex``, ``negative regex``, ``positive token``, ``negative token``.
        pattern: The alternative or token explained.
        matched: The part of the pattern that matched (a prefix of it; empty if none).
        missing: The rest of the pattern, which did not match.
        span: Where the matched part is in the output (start, end), or None.
        found: What the output has where the missing part was expected.
    """

    kind: str
    pattern: str
    matched: str
    missing: str
    span: tuple[int, int] | None
    found: str


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a regex (split at ``|`` outside groups and classes)."""
    parts, depth, start, index = [], 0, 0, 0
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1:index + 2] == "]":  # "[]…]" starts with a literal ]
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    parts.append(pattern[start:])
    return parts


def _prefix_match(pattern: str, output: str, cache: RegexCache) -> tuple[str, tuple[int, int]]:
    """The longest prefix of `pattern` that compiles and matches (a non-empty match)."""
    # A scan from the longest prefix down finds the exact answer; rule patterns are short
    # (and the matched prefixes compile once, in the caller's cache).
    for end in range(len(pattern), 0, -1):
        prefix = pattern[:end]
        compiled = cache.get(prefix)
        if compiled is None:
            continue
        try:
            match = compiled.search(output, timeout=DEFAULT_TIMEOUT)
        except TimeoutError:
            continue
        if match is not None and match.end() > match.start():
            return prefix, match.span()
    return "", (0, 0)


def partial_matches(rule: Rule | None, output: str, cache: RegexCache | None = None
                    ) -> list[Partial]:
    """The closest partial match of each regex alternative and token of `rule` in `output`.

    Only what did *not* match fully is explained (a full match is already highlighted).
    """
    if rule is None:
        return []
    cache = cache or RegexCache()
    found: list[Partial] = []
    for kind, pattern in (("positive regex", rule.positive_regex),
                          ("negative regex", rule.negative_regex)):
        if not pattern or cache.get(pattern) is None:
            continue
        try:
            if cache.get(pattern).search(output, timeout=DEFAULT_TIMEOUT):
                continue
        except TimeoutError:
            continue
        tried = []
        for alternative in alternatives(pattern):
            if not alternative:
                continue
            matched, span = _prefix_match(alternative, output, cache)
            tried.append(Partial(kind, alternative, matched, alternative[len(matched):],
                                 span if matched else None,
                                 output[span[1]:span[1] + CONTEXT] if matched else ""))
        tried.sort(key=lambda p: -len(p.matched))
        found.extend(tried[:MAX_ALTERNATIVES])
    for kind, tokens in (("positive token", rule.positive_tokens),
                         ("negative token", rule.negative_tokens)):
        closest: Partial | None = None
        for token in (t.strip() for t in tokens):
            if not token or token in output:
                continue
            length = next((n for n in range(len(token), 0, -1) if token[:n] in output), 0)
            start = output.find(token[:length]) if length else -1
            partial = Partial(kind, token, token[:length], token[length:],
                              (start, start + length) if length else None,
                              output[start + length:start + length + CONTEXT] if length else "")
            if closest is None or len(partial.matched) > len(closest.matched):
                closest = partial
        if closest is not None:
            found.append(closest)
    return found


def what_to_judge(item: Item) -> str:
    """One line saying what to judge: the phenomenon, not the whole translation."""
    if item.description:
        return f"Judge only this: {item.description}"
    return (f"Judge only the {item.phenomenon.lower()} ({item.category}); other errors in the "
            "translation do not matter.")
