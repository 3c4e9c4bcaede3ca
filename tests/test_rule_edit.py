"""Editing one regex in a hand-written rules file: everything else is kept byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testsuite.errors import TestsuiteError
from testsuite.loader import load_suite
from testsuite.rule_edit import quote, set_item_regex, set_regex

RULES = """\
pair: en-de
rules:
  # --- Idioms: keep this comment ---------------------------------------
  - item: 'idiom-01'
    positive_regex: 'ausgeplaudert'   # the usual paraphrase
    negative_regex: '\\bBohnen\\b'
    examples:
      pass:
        - Tom hat alles ausgeplaudert.
  - item: idiom-02
    negative_regex: "Stück Kuchen"
  # a comment between entries
  - item: "00123"
    positive_regex: 'kinderleicht'
  - positive_regex: 'Eis'
    item: idiom-04
"""


@pytest.fixture()
def rules(tmp_path: Path) -> Path:
    path = tmp_path / "mwe.yaml"
    path.write_text(RULES, encoding="utf-8")
    return path


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """Pairs of differing lines (both texts must have the same number of lines)."""
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def read_rule(path: Path, item: str) -> dict[str, object]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return next(r for r in data["rules"] if str(r["item"]) == item)


def test_replacing_a_value_keeps_comments_and_everything_else(rules: Path) -> None:
    set_regex(rules, "en-de", "idiom-01", "positive_regex", "ausgeplaudert|verraten")
    after = rules.read_text(encoding="utf-8")
    assert changed_lines(RULES, after) == [
        ("    positive_regex: 'ausgeplaudert'   # the usual paraphrase",
         "    positive_regex: 'ausgeplaudert|verraten'   # the usual paraphrase")]
    assert "# --- Idioms: keep this comment" in after


@pytest.mark.parametrize(("item", "field"), [
    ("idiom-01", "negative_regex"),   # single-quoted id, single-quoted value
    ("idiom-02", "negative_regex"),   # plain id, double-quoted value
    ("00123", "positive_regex"),      # double-quoted id that YAML would read as a number
])
def test_quoted_and_unquoted_ids(rules: Path, item: str, field: str) -> None:
    set_regex(rules, "en-de", item, field, "neu")  # type: ignore[arg-type]
    assert read_rule(rules, item)[field] == "neu"
    assert len(changed_lines(RULES, rules.read_text(encoding="utf-8"))) == 1


def test_absent_key_is_inserted_after_the_item_line(rules: Path) -> None:
    set_regex(rules, "en-de", "idiom-02", "positive_regex", "kinderleicht|ein Klacks")
    after = rules.read_text(encoding="utf-8")
    assert "  - item: idiom-02\n    positive_regex: 'kinderleicht|ein Klacks'\n" \
           "    negative_regex: \"Stück Kuchen\"\n" in after
    assert after.replace("    positive_regex: 'kinderleicht|ein Klacks'\n", "", 1) == RULES


def test_absent_negative_regex_goes_after_the_positive_one(rules: Path) -> None:
    set_regex(rules, "en-de", "00123", "negative_regex", "Stück")
    assert "    positive_regex: 'kinderleicht'\n    negative_regex: 'Stück'\n" in \
        rules.read_text(encoding="utf-8")
    assert load_suite_rule(rules, "00123") == ("kinderleicht", "Stück")


def test_empty_pattern_removes_the_key(rules: Path) -> None:
    set_regex(rules, "en-de", "idiom-01", "positive_regex", "")
    after = rules.read_text(encoding="utf-8")
    assert after == RULES.replace(
        "    positive_regex: 'ausgeplaudert'   # the usual paraphrase\n", "")
    assert "positive_regex" not in read_rule(rules, "idiom-01")


def test_removing_the_key_on_the_dash_line_moves_the_next_key_up(rules: Path) -> None:
    set_regex(rules, "en-de", "idiom-04", "positive_regex", "")
    assert rules.read_text(encoding="utf-8").endswith("  - item: idiom-04\n")


def test_removing_an_absent_key_changes_nothing(rules: Path) -> None:
    set_regex(rules, "en-de", "idiom-02", "positive_regex", "")
    assert rules.read_text(encoding="utf-8") == RULES


@pytest.mark.parametrize("pattern", [
    r"it's (a|the) \bKinderspiel\b",
    r"''\\'\"\d+ \.",
    "Straße|Größe  ",
    r"^\s*(?i:leicht)$",
])
def test_quotes_and_backslashes_round_trip_exactly(rules: Path, pattern: str) -> None:
    set_regex(rules, "en-de", "idiom-01", "negative_regex", pattern)
    assert read_rule(rules, "idiom-01")["negative_regex"] == pattern
    assert load_suite_rule(rules, "idiom-01")[1] == pattern


def test_quote_doubles_single_quotes_only() -> None:
    assert quote(r"a'b\d") == r"'a''b\d'"


def test_crlf_and_byte_order_mark_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mwe.yaml"
    original = ("\ufeff" + RULES.replace("\n", "\r\n")).encode("utf-8")
    path.write_bytes(original)
    set_regex(path, "en-de", "idiom-02", "positive_regex", "leicht")
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.replace(b"    positive_regex: 'leicht'\r\n", b"", 1) == original


def test_block_scalar_value_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("pair: en-de\nrules:\n  - item: a\n    positive_regex: >-\n      foo\n"
                    "    negative_regex: bar\n", encoding="utf-8")
    set_regex(path, "en-de", "a", "positive_regex", "neu")
    assert path.read_text(encoding="utf-8") == (
        "pair: en-de\nrules:\n  - item: a\n    positive_regex: 'neu'\n    negative_regex: bar\n")


def test_file_permissions_are_kept(rules: Path) -> None:
    os.chmod(rules, 0o644)
    set_regex(rules, "en-de", "idiom-01", "positive_regex", "x")
    assert rules.stat().st_mode & 0o777 == 0o644


def load_suite_rule(rules: Path, item: str) -> tuple[str, str]:
    """The item's regexes as the engine's loader reads them (with a suite beside)."""
    suite_file = rules.parent / "suite.yaml"
    items = "".join(f"  - id: '{i}'\n    phenomenon: Idiom\n    source: S {i}.\n"
                    for i in ("idiom-01", "idiom-02", "00123", "idiom-04"))
    suite_file.write_text(f"pair: en-de\ncategory: MWE\nitems:\n{items}", encoding="utf-8")
    rule = load_suite([suite_file, rules]).rules[("en-de", item)]
    return rule.positive_regex, rule.negative_regex


@pytest.mark.parametrize(("item", "field", "pattern", "message"), [
    ("idiom-01", "positive_regex", "(unclosed", "does not compile"),
    ("idiom-01", "positive_regex", "a\nb", "line break"),
    ("idiom-09", "positive_regex", "x", "no rule for item 'idiom-09'"),
    ("idiom-01", "examples", "x", "can be edited"),
])
def test_refused_edits_leave_the_file_alone(rules: Path, item: str, field: str, pattern: str,
                                            message: str) -> None:
    with pytest.raises(TestsuiteError, match=message):
        set_regex(rules, "en-de", item, field, pattern)  # type: ignore[arg-type]
    assert rules.read_text(encoding="utf-8") == RULES


def test_wrong_pair_is_refused(rules: Path) -> None:
    with pytest.raises(TestsuiteError, match="for en-de, not de-en"):
        set_regex(rules, "de-en", "idiom-01", "positive_regex", "x")


def test_verdicts_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.yaml"
    text = "pair: en-de\nrules:\n  - item: idiom-01\n    verdicts: []\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TestsuiteError, match="verdicts.yaml keeps only verdicts"):
        set_regex(path, "en-de", "idiom-01", "positive_regex", "x")
    assert path.read_text(encoding="utf-8") == text


def test_flow_style_rule_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    text = "pair: en-de\nrules:\n  - {item: a, positive_regex: b}\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TestsuiteError, match="flow style"):
        set_regex(path, "en-de", "a", "positive_regex", "x")
    assert path.read_text(encoding="utf-8") == text


TEMPLATE_SUITE = """\
pair: en-de
category: Verb tense/aspect/mood
templates:
  - id: go
    phenomenon: Future I
    source: '{{subject}} will go.'
    positive_regex: '{{verb}}'
    slots:
      person:
        first: {subject: I, verb: werde}
        second: {subject: You, verb: wirst}
"""


def test_template_items_are_refused(tmp_path: Path) -> None:
    (tmp_path / "verbs.yaml").write_text(TEMPLATE_SUITE, encoding="utf-8")
    suite = load_suite([tmp_path])
    item = next(iter(suite))
    assert item.template == "go"
    with pytest.raises(TestsuiteError, match=r"edit the template in .*verbs\.yaml"):
        set_item_regex(suite, "en-de", item.id, "positive_regex", "x")


def test_set_item_regex_writes_the_rules_file_of_the_item(rules: Path) -> None:
    load_suite_rule(rules, "idiom-01")  # writes the suite beside the rules
    suite = load_suite([rules.parent])
    written = set_item_regex(suite, "en-de", "idiom-02", "negative_regex", "Kuchen")
    assert written.path == rules and written.before == RULES
    assert read_rule(rules, "idiom-02")["negative_regex"] == "Kuchen"


@pytest.mark.parametrize("line", ["positive_regex: one\t# the number",
                                  "positive_regex: 'one'\t# quoted, then a tab",
                                  "positive_regex:\tone"])
def test_the_editor_takes_every_file_lint_takes_tabs_included(tmp_path, line):
    """Tabs where libyaml (lint, every command) accepts them and PyYAML's pure-Python reader
    (the editor's) does not: `suggest --accept` used to refuse every item of such a file."""
    from testsuite.loader import lint as check

    (tmp_path / "s.yaml").write_text("pair: de-en\ncategory: C\nitems:\n  - id: a\n"
                                     "    phenomenon: P\n    source: Eins.\n", encoding="utf-8")
    rules = tmp_path / "r.yaml"
    text = f"pair: de-en\nrules:\n  - item: a\n    {line}\n    negative_regex: 'x'\n"
    rules.write_text(text, encoding="utf-8")
    assert check([tmp_path]).problems == []
    set_regex(rules, "de-en", "a", "negative_regex", "two")
    assert rules.read_text(encoding="utf-8") == text.replace("'x'", "'two'")
    assert check([tmp_path]).problems == []
