"""SPEC.md, one output at a time: a case table of rule, output and expected outcome."""

from __future__ import annotations

import time

import pytest

from testsuite.matching import CompiledRule, RegexCache, judge
from testsuite.model import Rule, Verdict

# A rule in the style of the DFKI suite (German 'Mann' as husband vs man).
HUSBAND = Rule("00001001", positive_regex=r"(husband|spouse|hubb(y|ies))",
               negative_regex=r"((gentle)?m[ae]n|guy)")
TOKENS = Rule("x", positive_tokens=("had to sleep", "  "), negative_tokens=(" should have slept ",))
BOTH_KINDS = Rule("y", positive_regex=r"\bflash drive\b", negative_tokens=("USB stick",))
VERDICTS = Rule("z", positive_regex="pass-me", verdicts=(
    Verdict("She talks about her man.", "pass", "ann", "2026-01-01T00:00:00+00:00"),
    Verdict("pass-me now", "fail"),
    Verdict("She talks about her man.", "fail", "ann", "2026-02-01T00:00:00+00:00"),
    Verdict("They argued.", "pass", "ann"),
    Verdict("They argued.", "fail", "bob"),  # two annotators contradict: a disagreement
    Verdict("It rained.", "pass", "ann"),
    Verdict("It rained.", "fail", "bob"),
    Verdict("It rained.", "fail", "cid", settles=True),  # … settled explicitly
))

CASES = [
    # 1. missing
    (HUSBAND, "", "missing", "empty-output"),
    (HUSBAND, "  \t ", "missing", "empty-output"),
    (VERDICTS, "   ", "missing", "empty-output"),
    # 3./5. regexes, searched anywhere, case-sensitive
    (HUSBAND, "Then she talks about her husband.", "pass", "positive-regex"),
    (HUSBAND, "Then she talks about her man.", "fail", "negative-regex"),
    (HUSBAND, "Her husband, a kind man, came.", "warning", "both-regexes"),
    (HUSBAND, "Then she talks about her HUSBAND.", "warning", "no-match"),
    (HUSBAND, "Then she talks about her partner.", "warning", "no-match"),
    # 4. tokens only when neither regex matched; stripped; empty tokens never match
    (TOKENS, "You had to sleep.", "pass", "positive-token"),
    (TOKENS, "You should have slept.", "fail", "negative-token"),
    (TOKENS, "You had to sleep, you should have slept.", "warning", "both-tokens"),
    (TOKENS, "You slept.", "warning", "no-match"),
    (BOTH_KINDS, "He borrowed a flash drive.", "pass", "positive-regex"),
    # the regex decided, so the negative token is not consulted
    (BOTH_KINDS, "He borrowed a flash drive, a USB stick.", "pass", "positive-regex"),
    (BOTH_KINDS, "He borrowed a USB stick.", "fail", "negative-token"),
    # 2. verdicts: exact output after stripping; an annotator's latest verdict wins; before
    # regexes; annotators who contradict each other leave a warning until it is settled
    (VERDICTS, "She talks about her man.", "fail", "verdict"),
    (VERDICTS, "  She talks about her man.\n", "fail", "verdict"),
    (VERDICTS, "pass-me now", "fail", "verdict"),
    (VERDICTS, "pass-me later", "pass", "positive-regex"),
    (VERDICTS, "She talks about her man", "warning", "no-match"),
    (VERDICTS, "They argued.", "warning", "disagreement"),
    (VERDICTS, "It rained.", "fail", "verdict"),
    # 6. regex that does not compile → warning, never an exception
    (Rule("bad", positive_regex="(unclosed", negative_regex="x"), "x marks it", "warning",
     "invalid-regex"),
    (Rule("bad", positive_regex="ok", negative_regex="[z-a]"), "ok", "warning", "invalid-regex"),
    # a verdict still decides an output of a broken rule
    (Rule("bad", positive_regex="(", verdicts=(Verdict("fine", "pass"),)), "fine", "pass",
     "verdict"),
    # no rule at all
    (None, "anything", "warning", "no-rule"),
    # an empty rule: neither regex nor tokens
    (Rule("empty"), "anything", "warning", "no-match"),
    # Unicode: German umlauts and ß in patterns and outputs
    (Rule("u", positive_regex=r"Schläger|Keule", negative_regex=r"Fledermäus"),
     "Einige Fledermäuse sind aus Holz.", "fail", "negative-regex"),
    (Rule("u", positive_regex=r"\bgroß\b"), "Das Haus ist groß.", "pass", "positive-regex"),
]


@pytest.mark.parametrize(("rule", "output", "outcome", "reason"), CASES)
def test_spec_case_table(rule, output, outcome, reason):
    judgement = judge(rule, output)
    assert (judgement.outcome.value, judgement.reason) == (outcome, reason)


def test_runaway_regex_times_out_as_a_warning():
    # ^(a|aa)+$ on a run of a's followed by b tries every split of the run into a's and
    # aa's (Fibonacci-many); `regex` optimises the textbook (a+)+$ but not this one.
    rule = Rule("slow", positive_regex=r"^(a|aa)+$", negative_regex="zzz")
    start = time.monotonic()
    judgement = CompiledRule(rule, RegexCache(), timeout=0.05).judge("a" * 60 + "b")
    assert (judgement.outcome.value, judgement.reason) == ("warning", "regex-timeout")
    assert time.monotonic() - start < 5  # the limit stopped it; unbounded it runs for hours


def test_cache_reports_why_a_pattern_does_not_compile():
    cache = RegexCache()
    assert cache.get("(a") is None
    assert "missing )" in cache.error("(a")
    assert cache.error("a+") is None


def test_compiled_patterns_persist_across_runs(tmp_path):
    path = tmp_path / "regex.pickle"
    first = RegexCache(path)
    assert first.get(r"\bgroß\b") is not None and first.get("(bad") is None
    first.save()
    second = RegexCache(path)
    assert r"\bgroß\b" in second._stored  # loaded, not recompiled
    assert second.get(r"\bgroß\b").search("Das Haus ist groß.") is not None
    assert second.error("(bad") is not None  # errors are never cached as patterns


def test_unreadable_cache_file_is_ignored_and_replaced(tmp_path):
    path = tmp_path / "regex.pickle"
    path.write_bytes(b"not a pickle")
    cache = RegexCache(path)
    assert cache.get("abc") is not None
    cache.save()
    assert "abc" in RegexCache(path)._stored


def test_empty_cache_dir_setting_disables_the_file(monkeypatch):
    monkeypatch.setenv("TESTSUITE_CACHE_DIR", "")
    assert RegexCache.persistent()._path is None
