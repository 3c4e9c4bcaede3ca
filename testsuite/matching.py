"""Judging one output against one rule, exactly as `../shared/SPEC.md` defines it.

The `regex` module is used instead of `re` because it can abandon a match after a time
limit (catastrophic backtracking in a hand-written pattern must not stop a run). With its
default VERSION0 flags it follows `re` semantics, which the DFKI rules were written for.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from .cache import cache_dir, read_pickle, write_pickle
from .model import DISAGREEMENT, Outcome, Rule, in_force, standing_verdicts
from .normalise import Profile
from .values import seconds

#: Default per-match time limit in seconds. Real rules match in microseconds; a pattern that
#: needs more than this is almost certainly backtracking catastrophically.
DEFAULT_TIMEOUT = 1.0
#: Most compiled patterns kept in the cache file (a few MB).
MAX_CACHED = 50_000

# Reasons, one word each, as they appear in the `reason` column.
REASON_MISSING = "empty-output"
REASON_VERDICT = "verdict"
REASON_PROPOSAL = "proposal"  # a verdict recorded from a proposal (a batch, a learned one)
#: The reasons of an outcome a person's verdict decided (by hand, or from a proposal).
VERDICT_REASONS = frozenset({REASON_VERDICT, REASON_PROPOSAL})
REASON_POS_REGEX = "positive-regex"
REASON_NEG_REGEX = "negative-regex"
REASON_BOTH_REGEX = "both-regexes"
REASON_POS_TOKEN = "positive-token"
REASON_NEG_TOKEN = "negative-token"
REASON_BOTH_TOKENS = "both-tokens"
REASON_NO_MATCH = "no-match"
REASON_INVALID = "invalid-regex"
REASON_TIMEOUT = "regex-timeout"
REASON_NO_RULE = "no-rule"
REASON_DISAGREE = "occurrences-disagree"  # a repeated source judged differently (--repeated agree)
REASON_DISAGREEMENT = DISAGREEMENT  # annotators' verdicts on the output contradict


class RegexCache:
    """Compiles each distinct pattern once, and remembers compiled patterns across runs.

    Compiling is the slowest step of an evaluation: `regex` parses patterns in Python
    (about 0.3 ms each, and the DFKI suite has 3,400 distinct ones), while judging an output
    takes microseconds. Compiled `regex` patterns pickle as their compiled code (the
    module registers `_regex.compile` as their pickle constructor), so a cache file loads
    in milliseconds. The file is keyed by the `regex` and Python versions; an unreadable or
    foreign file is ignored and rewritten.

    Loading a pickle runs code, so the file is read only if it and its folder belong to the
    user and nobody else can write them (`cache.trusted`, which warns why not); it is written
    with mode 0600 in a folder created 0700, and never into a folder others can write.

    Args:
        path: Cache file to load from and `save` to; None keeps the cache in memory.
    """

    def __init__(self, path: Path | None = None) -> None:
        self._compiled: dict[str, Any] = {}
        self._errors: dict[str, str] = {}
        self._path = path
        self._stored: dict[str, Any] = self._load(path) if path else {}
        self._new = 0

    @classmethod
    def persistent(cls) -> RegexCache:
        """A cache in the user's cache folder (see `cache_dir`), or in memory if disabled."""
        folder = cache_dir()
        if folder is None:
            return cls()
        name = f"regex-{regex.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.pickle"
        return cls(folder / name)

    @staticmethod
    def _load(path: Path) -> dict[str, Any]:
        stored = read_pickle(path)  # only the user's own private file: a pickle runs code
        if not isinstance(stored, dict) or not all(
                isinstance(k, str) and isinstance(v, regex.Pattern) for k, v in stored.items()):
            return {}
        return stored

    def get(self, pattern: str) -> Any:
        """Return the compiled pattern, or None if it does not compile (see `error`)."""
        compiled = self._compiled.get(pattern)
        if compiled is not None:
            return compiled
        if pattern in self._errors:
            return None
        compiled = self._stored.get(pattern)
        if compiled is None:
            try:
                compiled = regex.compile(pattern)
            except (regex.error, ValueError, OverflowError, RecursionError) as exc:
                self._errors[pattern] = str(exc)
                return None
            self._new += 1
        self._compiled[pattern] = compiled
        return compiled

    def error(self, pattern: str) -> str | None:
        """Why a pattern does not compile, or None if it does."""
        self.get(pattern)
        return self._errors.get(pattern)

    def save(self) -> None:
        """Write the patterns compiled so far to the cache file, if any are new.

        Patterns of earlier runs are kept up to `MAX_CACHED`; beyond that only this run's
        are. Failing to write a cache is not an error worth stopping for.
        """
        if self._path is None or not self._new:
            return
        merged = {**self._stored, **self._compiled}
        if len(merged) > MAX_CACHED:
            merged = dict(self._compiled)
        write_pickle(self._path, merged)
        self._stored, self._new = merged, 0


def regex_error(pattern: str) -> str | None:
    """Why `pattern` does not compile as a rule regex, or None if it does."""
    return RegexCache().error(pattern)


@dataclass(frozen=True, slots=True)
class Span:
    """Where a rule matches in an output: characters ``start:end`` (Python indices).

    ``positive`` tells the positive regex or token from the negative one; ``token`` tells a
    token match (SPEC step 4: only looked for when neither regex matches) from a regex one.
    """

    start: int
    end: int
    positive: bool
    token: bool = False


@dataclass(frozen=True, slots=True)
class Judgement:
    """An outcome and the one-word reason for it."""

    outcome: Outcome
    reason: str


class CompiledRule:
    """A rule prepared for judging many outputs quickly.

    Args:
        rule: The rule, or None for an item that has no rule (every output is a warning).
        cache: Shared compiled-pattern cache.
        timeout: Per-match time limit in seconds (above 0, at most `values.MAX_SECONDS`).
        normalise: A typographic-equivalence profile applied to outputs before matching and
            before comparing them with verdicts (`testsuite.normalise`); None, the published
            method, matches the output as written.

    Raises:
        values.BadValue: for a time limit out of range.
    """

    __slots__ = ("_pos", "_neg", "_pos_tokens", "_neg_tokens", "_verdicts", "_proposed",
                 "_broken", "_timeout", "_normalise")

    _broken: str | None  # why every unverdicted output is a warning, if it is

    def __init__(self, rule: Rule | None, cache: RegexCache, timeout: float = DEFAULT_TIMEOUT,
                 normalise: Profile | None = None):
        self._timeout = seconds(timeout)  # 0, negative, NaN or inf would judge wrongly
        self._normalise = normalise
        self._broken = REASON_NO_RULE if rule is None else None
        self._pos = self._neg = None
        self._pos_tokens: tuple[str, ...] = ()
        self._neg_tokens: tuple[str, ...] = ()
        self._verdicts: dict[str, str] = {}
        self._proposed: frozenset[str] = frozenset()
        if rule is None:
            return
        for pattern in (rule.positive_regex, rule.negative_regex):
            if pattern and cache.get(pattern) is None:
                self._broken = REASON_INVALID
        self._pos = cache.get(rule.positive_regex) if rule.positive_regex else None
        self._neg = cache.get(rule.negative_regex) if rule.negative_regex else None
        # SPEC step 4: tokens are stripped, and empty ones never match.
        self._pos_tokens = tuple(t.strip() for t in rule.positive_tokens if t.strip())
        self._neg_tokens = tuple(t.strip() for t in rule.negative_tokens if t.strip())
        # Each annotator's latest verdict; contradicting annotators are a disagreement. With
        # a normalisation, a verdict applies to every output equal to its output once both
        # are normalised.
        self._verdicts = standing_verdicts(rule.verdicts, key=self.key)
        # Outputs whose verdicts in force all came from proposals: decided "by a proposal"
        # (the reason says so, and reports count them apart from decisions by hand).
        self._proposed = frozenset(
            output for output, counted in in_force(rule.verdicts, key=self.key).items()
            if all(v.proposal for v in counted))

    def key(self, output: str) -> str:
        """What identifies an output for verdicts: stripped (and normalised, if asked)."""
        if self._normalise is not None:
            output = self._normalise.apply(output)
        return output.strip()

    def judge(self, output: str) -> Judgement:
        """Judge one output (one line, trailing newline already removed)."""
        # 1. Missing.
        if not output.strip():
            return Judgement(Outcome.MISSING, REASON_MISSING)
        if self._normalise is not None:
            output = self._normalise.apply(output)
        # 2. Manual verdict on exactly this output.
        verdict = self._verdicts.get(output.strip())
        if verdict == DISAGREEMENT:  # never settled silently: a person decides
            return Judgement(Outcome.WARNING, REASON_DISAGREEMENT)
        if verdict is not None:
            return Judgement(Outcome(verdict), REASON_PROPOSAL if output.strip() in self._proposed
                             else REASON_VERDICT)
        if self._broken:
            return Judgement(Outcome.WARNING, self._broken)
        # 3. Regexes: search anywhere, case-sensitive.
        timeout = self._timeout
        try:
            pos = self._pos is not None and self._pos.search(output, timeout=timeout) is not None
            neg = self._neg is not None and self._neg.search(output, timeout=timeout) is not None
        except TimeoutError:
            return Judgement(Outcome.WARNING, REASON_TIMEOUT)
        if pos or neg:
            kind = (REASON_POS_REGEX, REASON_NEG_REGEX, REASON_BOTH_REGEX)
        else:
            # 4. Tokens, only if neither regex matched.
            pos = any(token in output for token in self._pos_tokens)
            neg = any(token in output for token in self._neg_tokens)
            kind = (REASON_POS_TOKEN, REASON_NEG_TOKEN, REASON_BOTH_TOKENS)
        # 5. Combine.
        if pos and not neg:
            return Judgement(Outcome.PASS, kind[0])
        if neg and not pos:
            return Judgement(Outcome.FAIL, kind[1])
        return Judgement(Outcome.WARNING, kind[2] if pos else REASON_NO_MATCH)

    def spans(self, output: str) -> list[Span]:
        """Every match of the rule in an output, to show why it was judged so.

        The same compiled patterns and time limit as `judge`: each non-empty match of the
        positive and negative regex; if neither regex matches, each occurrence of a
        positive or negative token. A rule that does not compile, a regex that times out or
        a missing output gives no spans (the reason of the judgement says why). With a
        normalisation the rule is matched against the normalised output, as in `judge`, and
        the spans are given in the output as written.
        """
        if self._broken or not output.strip():
            return []
        if self._normalise is not None:
            normalised, origin = self._normalise.with_offsets(output)
            return [Span(origin[s.start], origin[s.end - 1] + 1, s.positive, s.token)
                    for s in self._spans(normalised)]
        return self._spans(output)

    def _spans(self, output: str) -> list[Span]:
        found: list[Span] = []
        matched = False  # an empty match counts as a match for `judge`, but shows nothing
        try:
            for pattern, positive in ((self._pos, True), (self._neg, False)):
                if pattern is None:
                    continue
                for match in pattern.finditer(output, timeout=self._timeout):
                    matched = True
                    if match.end() > match.start():
                        found.append(Span(match.start(), match.end(), positive))
        except TimeoutError:
            return []
        if matched:
            return found
        for tokens, positive in ((self._pos_tokens, True), (self._neg_tokens, False)):
            for token in tokens:
                start = output.find(token)
                while start >= 0:
                    found.append(Span(start, start + len(token), positive, token=True))
                    start = output.find(token, start + 1)
        return found


def judge(rule: Rule | None, output: str, timeout: float = DEFAULT_TIMEOUT,
          normalise: Profile | None = None) -> Judgement:
    """Judge a single output against a single rule (convenience for one-off use)."""
    return CompiledRule(rule, RegexCache(), timeout, normalise).judge(output)
