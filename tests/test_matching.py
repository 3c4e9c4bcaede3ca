"""SPEC.md, one output at a time: a case table of rule, output and expected outcome."""

from __future__ import annotations

import os
import pickle
import stat
import sys
import time
from pathlib import Path

import pytest
import regex

from testsuite.errors import TestsuiteWarning
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


SPAN_CASES = [
    # (rule, output, [(matched text, positive, token)])
    (HUSBAND, "Then she talks about her husband.", [("husband", True, False)]),
    (HUSBAND, "Her husband, a kind man, came.", [("husband", True, False),
                                                  ("man", False, False)]),
    (HUSBAND, "A man and a guy.", [("man", False, False), ("guy", False, False)]),
    (HUSBAND, "Then she talks about her partner.", []),
    # tokens only when neither regex matched (the regex decided here)
    (BOTH_KINDS, "He borrowed a flash drive, a USB stick.", [("flash drive", True, False)]),
    (BOTH_KINDS, "A USB stick and a USB stick.", [("USB stick", False, True)] * 2),
    (TOKENS, "You had to sleep, you should have slept.", [("had to sleep", True, True),
                                                           ("should have slept", False, True)]),
    # broken rules, no rule and missing outputs show nothing
    (Rule("bad", positive_regex="(unclosed"), "(unclosed", []),
    (None, "anything", []),
    (HUSBAND, "   ", []),
    # an empty match counts as a match (no token lookup) but has nothing to show
    (Rule("e", positive_regex="x*", positive_tokens=("y",)), "y", []),
]


@pytest.mark.parametrize(("rule", "output", "expected"), SPAN_CASES)
def test_spans_show_what_the_judgement_used(rule, output, expected):
    spans = CompiledRule(rule, RegexCache()).spans(output)
    assert sorted((output[s.start:s.end], s.positive, s.token) for s in spans) == \
        sorted(expected)


# --- the cache is a pickle: only the user's own, unwritable by others, is read (#11) --------


class _Evil:
    """Unpickling this runs code: it creates the folder named in its argument."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: D105
        return (os.mkdir, (self.marker,))


def _poisoned(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    folder.chmod(0o700)
    path = folder / "regex.pickle"
    marker = tmp_path / "code-ran"
    path.write_bytes(pickle.dumps({"x": _Evil(str(marker))}))
    path.chmod(0o600)
    return path, marker


@pytest.mark.parametrize("shared", ["file", "folder"])
def test_a_cache_others_can_write_is_not_read(tmp_path, shared):
    path, marker = _poisoned(tmp_path)
    (path if shared == "file" else path.parent).chmod(0o666 if shared == "file" else 0o777)
    with pytest.warns(TestsuiteWarning, match=f"cache not used: the {shared} "
                      f".*can be written by other users .a cache others can change"):
        cache = RegexCache(path)
    assert not marker.exists()
    assert cache.get("abc") is not None  # compiled instead


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a file to another user needs root")
def test_a_cache_of_another_user_is_not_read(tmp_path):
    path, marker = _poisoned(tmp_path)
    os.chown(path, 65534, 65534)
    with pytest.warns(TestsuiteWarning, match="belongs to another user .uid 65534."):
        RegexCache(path)
    assert not marker.exists()


def test_the_users_own_cache_is_read(tmp_path):
    # The check is what stands between a pickle and its code: the same file, private, runs.
    path, marker = _poisoned(tmp_path)
    RegexCache(path)
    assert marker.exists()


def test_the_cache_is_written_privately_whatever_the_umask(tmp_path):
    folder = tmp_path / "new-cache"
    old = os.umask(0o002)
    try:
        cache = RegexCache(folder / "regex.pickle")
        cache.get("abc")
        cache.save()
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "regex.pickle").stat().st_mode) == 0o600
    assert "abc" in RegexCache(folder / "regex.pickle")._stored  # and read back


def test_nothing_is_written_into_a_folder_others_can_write(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    cache = RegexCache(folder / "regex.pickle")
    cache.get("abc")
    cache.save()
    assert list(folder.iterdir()) == []


def test_the_command_line_says_why_in_one_line(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from testsuite.bundled import bundled_samples
    from testsuite.cli import app

    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(0o777)
    name = f"regex-{regex.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.pickle"
    (folder / name).write_bytes(pickle.dumps({}))
    monkeypatch.setenv("TESTSUITE_CACHE_DIR", str(folder))
    result = CliRunner().invoke(app, ["evaluate", str(bundled_samples() / "de-en"), "--pair",
                                      "de-en", "-q"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: cache not used: the folder {folder} can be written by "
                        "other users (a cache others can change could make the engine judge "
                        "with other rules or, being a pickle for regexes, run their code); "
                        "delete it or set TESTSUITE_CACHE_DIR to a folder of your own"]
