"""Loading and linting suites: every problem at once, each with file, line and item."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from testsuite.errors import TestsuiteError
from testsuite.loader import lint, load_suite


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip(), encoding="utf-8")
    return path


GOOD_SUITE = """
    pair: de-en
    category: Coordination & ellipsis
    items:
      - id: 00123
        phenomenon: Gapping
        source: Lena bestellte eine Suppe und ihr Bruder einen Salat.
      - id: gapping-02
        phenomenon: Gapping
        source: "Der Vater las Zeitung und die Mutter ein Buch. "
        description: trailing space is part of the source
"""
GOOD_RULES = """
    pair: de-en
    rules:
      - item: 00123
        positive_regex: 'brother (ordered |had )?an? salad'
        negative_regex: 'brother\\s*\\.'
        examples:
          pass: [Lena ordered a soup and her brother a salad.]
          fail: [Lena ordered a soup and her brother.]
      - item: gapping-02
        positive_regex: 'mother (read )?a book'
        verdicts:
          - output: The father read the newspaper and the mother one book.
            verdict: pass
            annotator: mkl
            time: 2026-11-22T10:15:00Z
"""


def test_valid_suite_loads_with_ids_as_written(tmp_path):
    write(tmp_path, "suites/de-en/ce.yaml", GOOD_SUITE)
    write(tmp_path, "rules/de-en/ce.yaml", GOOD_RULES)
    result = lint([tmp_path])
    assert result.problems == []
    suite = result.suite
    # Unquoted 00123 is YAML 1.1 octal (83); ids keep their spelling.
    assert [item.id for item in suite] == ["00123", "gapping-02"]
    assert suite.items[("de-en", "gapping-02")].source.endswith("Buch. ")
    rule = suite.rules[("de-en", "00123")]
    assert rule.examples_pass == ("Lena ordered a soup and her brother a salad.",)
    verdict = suite.rules[("de-en", "gapping-02")].verdicts[0]
    assert (verdict.verdict, verdict.annotator, verdict.time) == (
        "pass", "mkl", "2026-11-22T10:15:00+00:00")


def test_every_problem_is_reported_at_once_with_file_and_line(tmp_path):
    suite = write(tmp_path, "suites/ce.yaml", """
        pair: de-en
        category: Coordination & ellipsis
        items:
          - id: a-1
            phenomenon: Gapping
            source: Anna trinkt Tee und Paul Kaffee.
          - id: a-1
            phenomenon: Gapping
            source: Doppelt.
          - id: a-3
            phenomenon: Gapping
          - id: a-4
            phenomenon: Sluicing
            sorce: Jemand hat angerufen, aber ich weiß nicht, wer.
          - id: a-5
            phenomenon: Stripping
            source: Mia mag Jazz, aber nicht Oper.
          - id: a-6
            phenomenon: Sluicing
            source: Jemand hat angerufen, aber ich weiß nicht, wer.
    """)
    rules = write(tmp_path, "rules/ce.yaml", """
        pair: de-en
        rules:
          - item: a-1
            positive_regex: 'Paul (drinks )?coffee'
            negative_regex: 'Paul\\.$|(('
          - item: ghost
            positive_regex: x
          - item: a-6
            positive_regex: '\\bwho\\b'
            negative_regex: '\\bwhom\\b'
            examples:
              pass: [Someone called but I do not know whom., Someone called; who?]
              fail: [Someone called but I do not know who.]
          - item: a-6
            positive_regex: again
    """)
    broken = write(tmp_path, "rules/broken.yaml", """
        pair: de-en
        rules:
          - item: x
            positive_regex: [unclosed
    """)
    result = lint([tmp_path])
    found = {(Path(p.file).name, p.line, p.item, p.message.split(" (")[0].split(":")[0])
             for p in result.problems}
    assert found == {
        ("ce.yaml", 7, "a-1", "duplicate item id"),
        ("ce.yaml", 10, "a-3", "missing field 'source'"),
        ("ce.yaml", 12, "a-4", "unknown key(s) in item"),
        ("ce.yaml", 12, "a-4", "missing field 'source'"),
        ("ce.yaml", 15, "a-5", "item has no rule"),
        ("ce.yaml", 3, "a-1", "negative_regex does not compile"),
        ("ce.yaml", 6, "ghost", "rule for unknown item 'ghost' in de-en"),
        ("ce.yaml", 8, "a-6", "example labelled pass is judged fail"),
        ("ce.yaml", 8, "a-6", "example labelled fail is judged pass"),
        ("ce.yaml", 14, "a-6", "duplicate rule"),
        ("broken.yaml", 5, None, "malformed YAML"),
    }
    assert {p.file for p in result.problems} == {str(suite), str(rules), str(broken)}


def test_malformed_yaml_names_the_line(tmp_path):
    path = write(tmp_path, "bad.yaml", "pair: de-en\nitems:\n  - id: x\n   phenomenon: y\n")
    with pytest.raises(TestsuiteError) as caught:
        load_suite([path])
    problem = caught.value.problems[0]
    assert (problem.file, problem.line) == (str(path), 4)
    assert "malformed YAML" in problem.message


@pytest.mark.parametrize(("text", "line", "column", "code"), [
    ("pair: de-en\nitems:\n  - id: a\x00b\n", 3, 10, "0000"),
    ("pair: de-en\ncategory: X\x1b\nitems: []\n", 2, 12, "001B")])
def test_a_character_yaml_does_not_allow_is_named_at_its_line(tmp_path, text, line, column,
                                                              code):
    """A NUL in a suite was "unacceptable character #x0000: … in "<unicode string>",
    position 40", without a line. Found by the issue 20 red team."""
    path = write(tmp_path, "nul.yaml", text)
    assert [(p.file, p.line, p.message) for p in lint([path]).problems] == [
        (str(path), line, f"malformed YAML: the character U+{code} is not allowed in YAML "
                          f"(column {column})")]


def test_file_that_is_neither_suite_nor_rules(tmp_path):
    path = write(tmp_path, "other.yaml", "name: something else\n")
    assert [p.message for p in lint([path]).problems] == [
        "not a suite or rules file: it has neither 'items' nor 'rules'"]


def test_yaml_in_another_encoding_is_named(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("pair: de-en\ncategory: Ambiguität\nitems: []\n".encode("latin-1"))
    problem = lint([path]).problems[0]
    assert (problem.line, problem.file) == (2, str(path))
    assert "not valid UTF-8" in problem.message


def test_missing_path_is_named(tmp_path):
    with pytest.raises(TestsuiteError, match="no such file or folder"):
        load_suite([tmp_path / "nope"])


def test_non_fatal_problems_do_not_stop_loading(tmp_path):
    write(tmp_path, "s.yaml", GOOD_SUITE)
    suite = load_suite([tmp_path])  # no rules at all: items without rules give warnings
    assert len(suite) == 2 and not suite.rules


# --- keys and pairs that cannot be used (#11) -----------------------------------------------


@pytest.mark.parametrize(("text", "line", "kind"), [
    ("pair: de-en\nrules:\n  - item: x\n    [a, b]: c\n", 4, "a list"),
    ("pair: de-en\n? [a, b]\n: x\nrules: []\n", 2, "a list"),
    ("pair: de-en\n{a: 1}: x\nrules: []\n", 2, "a mapping"),
    ("pair: de-en\nrules: []\n? !!set {a}\n: x\n", 3, "a mapping"),
])
def test_a_key_that_is_not_plain_text_names_file_and_line(tmp_path, text, line, kind):
    path = tmp_path / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    result = lint([path])
    assert [str(p) for p in result.problems] == [
        f"{path}:{line}: malformed YAML: a key must be plain text, not {kind}"]


@pytest.mark.parametrize(("pair", "message"), [
    ("../../x", "'pair': '../../x' is not a language pair"),
    ("[de, en]", "'pair': a language pair must be text such as de-en, not a list"),
    ("german", "'pair': 'german' is not a language pair"),
])
def test_a_pair_that_is_not_a_language_pair(tmp_path, pair, message):
    path = write(tmp_path, "s.yaml", f"""
        pair: {pair}
        category: C
        items:
          - id: a
            phenomenon: P
            source: S
    """)
    result = lint([path])
    assert any(str(p).startswith(f"{path}:1: {message}") for p in result.problems)


@pytest.mark.parametrize("verdicts", ["null", "[]"])
def test_a_rule_entry_with_no_verdicts(tmp_path, verdicts):
    # Found by tests/test_fuzz.py: it ended in an IndexError.
    write(tmp_path, "s.yaml", GOOD_SUITE)
    write(tmp_path, "r.yaml", GOOD_RULES)
    write(tmp_path, "verdicts.yaml", f"""
        pair: de-en
        rules:
          - item: gapping-02
            verdicts: {verdicts}
          - item: no-such-item
            verdicts: {verdicts}
    """)
    assert len(load_suite([tmp_path])) == 2


def test_parsed_files_are_cached_by_content_and_a_change_is_read(tmp_path, dfki_dir,
                                                                  monkeypatch):
    import shutil

    from testsuite.loader import load

    monkeypatch.setenv("TESTSUITE_CACHE_DIR", str(tmp_path / "cache"))
    suite = tmp_path / "dfki"
    shutil.copytree(dfki_dir, suite)
    fresh = load([suite], cache=False)
    first, again = load([suite]), load([suite])
    for loaded in (first, again):
        assert loaded.suite.items == fresh.suite.items
        assert loaded.suite.rules == fresh.suite.rules
        assert loaded.problems == fresh.problems
    assert len(list((tmp_path / "cache").glob("yaml-*.json"))) == len(fresh.files)
    # A verdict written since: that file is read again, the others come from the cache.
    (suite / "rules" / "de-en" / "verdicts.yaml").write_text(
        'pair: de-en\nrules:\n  - item: "00001001"\n    verdicts:\n'
        '      - {output: "It is raining.", verdict: pass, annotator: me}\n', encoding="utf-8")
    changed = load([suite])
    rule = changed.suite.rules[("de-en", "00001001")]
    assert [v.output for v in rule.verdicts] == ["It is raining."]
    assert changed.suite.rules == load([suite], cache=False).suite.rules


def test_pruning_parsed_suites_leaves_the_stored_suite_hashes_alone(tmp_path, monkeypatch):
    """Each kind of cache file is pruned on its own: loading other suites must neither delete
    the stored hash of a suite (the next score would hash all its rules again) nor count it
    as a parsed suite (crowding the parsed suites out)."""
    import json

    from testsuite import loader
    from testsuite.scoring import suite_hash

    cache = tmp_path / "cache"
    monkeypatch.setenv("TESTSUITE_CACHE_DIR", str(cache))
    monkeypatch.setattr(loader, "MAX_PARSED_FILES", 20)  # keep 2 parsed suites
    folders = [tmp_path / "this-year", tmp_path / "last-year"]
    for folder in folders:
        write(folder, "suites/de-en/ce.yaml", GOOD_SUITE)
        write(folder, "rules/de-en/ce.yaml", GOOD_RULES)
    first = load_suite([folders[0]])
    digest = suite_hash(first, "de-en")
    second = load_suite([folders[1]])
    assert first.key and second.key and first.key != second.key
    stored = [json.loads(f.read_text(encoding="utf-8")) for f in cache.glob("*.json")]
    assert digest in stored
    assert loader._from_cache(first.key) is not None  # both parsed suites are still there
    assert loader._from_cache(second.key) is not None


def test_reworded_and_near_miss_examples_are_checked_and_counted(tmp_path):
    write(tmp_path, "suites/de-en/ce.yaml", GOOD_SUITE)
    write(tmp_path, "rules/de-en/ce.yaml", GOOD_RULES.replace(
        "          fail: [Lena ordered a soup and her brother.]",
        "          fail: [Lena ordered a soup and her brother.]\n"
        "          reworded: [Lena had a soup and her brother a salad., "
        "'Lena ordered soup, her brother got a salad.']\n"
        "          near_miss: [Lena ordered a soup and her brother a salad too.]"))
    result = lint([tmp_path])
    # "got a salad" is a correct rewording the regex does not know; the near miss passes.
    assert [p.message for p in result.problems] == [
        "example labelled reworded (must pass) is judged warning (no-match): "
        "'Lena ordered soup, her brother got a salad.'",
        "example labelled near_miss (must fail) is judged pass (positive-regex): "
        "'Lena ordered a soup and her brother a salad too.'"]
    from testsuite.loader import example_coverage

    (row,) = example_coverage(result.suite, minimum=2)
    assert (row.phenomenon, row.items) == ("Gapping", 2)
    assert row.counts == {"pass": 1, "fail": 1, "reworded": 2, "near_miss": 1}
    assert [(item.id, lacking) for item, _, lacking in row.short] == [
        ("00123", {"pass": 1, "fail": 1, "near_miss": 1}),
        ("gapping-02", {"pass": 0, "fail": 0, "reworded": 0, "near_miss": 0})]
