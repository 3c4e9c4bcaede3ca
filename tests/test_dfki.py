"""DFKI public JSON: import into our YAML and export back, losslessly."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.dfki import dfki_json, import_dfki, read_dfki, write_suite
from testsuite.errors import TestsuiteError
from testsuite.loader import lint, load_suite
from testsuite.model import Item, Rule, Suite, Verdict, pair_code

runner = CliRunner()


@pytest.mark.parametrize(("pair", "items", "categories"), [("de-en", 2767, 14),
                                                           ("en-de", 2324, 13)])
def test_round_trip_is_byte_identical(data, tmp_path, pair, items, categories):
    original = data / "dfki-mt-testsuite" / pair / "items.json"
    result = runner.invoke(app, ["import-dfki", str(original), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"wrote {items} items of {pair}" in result.output
    assert len(list((tmp_path / "suites" / pair).glob("*.yaml"))) == categories
    exported = tmp_path / "items.json"
    result = runner.invoke(app, ["export-dfki", "--suite", str(tmp_path), "--pair", pair,
                                 "--out", str(exported)])
    assert result.exit_code == 0, result.output
    assert exported.read_bytes() == original.read_bytes()


def test_imported_suite_keeps_ids_order_and_odd_sources(dfki_dir):
    suite = load_suite([dfki_dir])
    de_en = suite.items_of("de-en")
    assert de_en[0].id == "00001001"  # leading zeros kept
    # JSON order is by category, not by id: 00651014 is followed by 00483001
    ids = [item.id for item in de_en]
    assert ids[ids.index("00651014") + 1] == "00483001"
    # sources with a trailing newline or trailing spaces survive the YAML round trip
    assert any(item.source.endswith("\n") for item in de_en)
    assert any(item.source.endswith(" ") for item in suite.items_of("en-de"))


def test_lint_of_the_dfki_suite_reports_only_item_level_problems(dfki_dir):
    result = lint([dfki_dir])
    assert not result.fatal
    # Every item has a rule and every regex of the public suite compiles.
    assert result.problems == []


def test_lossless_after_an_edit(dfki_dir, data, tmp_path):
    """A change made in YAML shows up in the export and nowhere else."""
    suite = read_dfki(data / "dfki-mt-testsuite/en-de/items.json")
    _, files = import_dfki(data / "dfki-mt-testsuite/en-de/items.json", tmp_path)
    negation = tmp_path / "rules/en-de/negation.yaml"
    text = negation.read_text(encoding="utf-8")
    negation.write_text(text.replace("positive_regex: keine Wette",
                                     "positive_regex: keine (Wette|Einsatz)"), encoding="utf-8")
    exported = dfki_json(load_suite([tmp_path]), "en-de").splitlines()
    original = dfki_json(suite, "en-de").splitlines()
    changed = [(a, b) for a, b in zip(original, exported, strict=True) if a != b]
    assert changed == [('      "positive_regex": "keine Wette", ',
                        '      "positive_regex": "keine (Wette|Einsatz)", ')]


@pytest.mark.parametrize(("text", "message"), [
    ('{"items": [', "not valid JSON"),
    ('{"things": []}', "expected an object with an 'items' list"),
    ('{"items": [{"id": "1", "langpair": "deen"}]}', "lacks category, negative_regex"),
])
def test_bad_dfki_json(tmp_path, text, message):
    path = tmp_path / "items.json"
    path.write_text(text)
    with pytest.raises(TestsuiteError, match=message):
        read_dfki(path)
    result = runner.invoke(app, ["import-dfki", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert message.split(",")[0] in result.output
    assert "Traceback" not in result.output


# --- hostile or malformed items (#11) -------------------------------------------------------

ITEM = {"category": "Ambiguity", "id": "00001", "langpair": "deen", "negative_regex": "",
        "negative_tokens": [], "phenomenon": "Lexical ambiguity", "positive_regex": "Bank",
        "positive_tokens": ["Ufer"], "source_sentence": "Er sitzt auf der Bank."}


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(("change", "message"), [
    ({"langpair": "../../x"}, "(item 00001): 'langpair': '../../x' is not a language pair"),
    ({"langpair": "/tmp/elsewhere"}, "'langpair': '/tmp/elsewhere' is not a language pair"),
    ({"langpair": None}, "(item 00001): 'langpair': a language pair must be text such as "
                         "de-en, not null"),
    ({"langpair": "de-en-fr"}, "is not a language pair"),
    ({"category": ["Ambiguity"]}, "(item 00001): 'category' must be non-empty text, not a list"),
    ({"category": ""}, "'category' must be non-empty text, not ''"),
    ({"phenomenon": 3}, "'phenomenon' must be non-empty text, not a number"),
    ({"positive_tokens": "notalist"}, "(item 00001): 'positive_tokens' must be a list of "
                                      "strings, not 'notalist'"),
    ({"negative_tokens": ["ok", None]}, "'negative_tokens' must be a list of strings, not a "
                                        "list holding null"),
    ({"positive_regex": None}, "'positive_regex' must be text (empty for none), not null"),
    ({"id": None}, "items.json: item #1: 'id' must be a non-empty string or number, not null"),
    ({"id": ["1"]}, "item #1: 'id' must be a non-empty string or number, not a list"),
])
def test_bad_fields_are_refused_naming_the_item(tmp_path, change, message):
    path = tmp_path / "items.json"
    path.write_text(json.dumps({"items": [dict(ITEM, **change)]}), encoding="utf-8")
    out = tmp_path / "deep" / "out"
    result = runner.invoke(app, ["import-dfki", str(path), "--out", str(out)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert message in result.output
    assert files_under(tmp_path) == ["items.json"]  # nothing written anywhere


def test_an_item_that_is_not_an_object(tmp_path):
    path = tmp_path / "items.json"
    path.write_text(json.dumps({"items": [ITEM, "x", None]}), encoding="utf-8")
    with pytest.raises(TestsuiteError) as caught:
        read_dfki(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: item #2: an item must be an object with category, id, langpair, "
        "negative_regex, negative_tokens, phenomenon, positive_regex, positive_tokens, "
        "source_sentence, not 'x'",
        f"{path}: item #3: an item must be an object with category, id, langpair, "
        "negative_regex, negative_tokens, phenomenon, positive_regex, positive_tokens, "
        "source_sentence, not null"]


@pytest.mark.parametrize("spelling", ["deen", "de_en", "DE-EN", "de-en", " De_En "])
def test_pair_spellings_are_normalised(tmp_path, spelling):
    assert pair_code(spelling) == "de-en"
    path = tmp_path / "items.json"
    path.write_text(json.dumps({"items": [dict(ITEM, langpair=spelling)]}), encoding="utf-8")
    suite, written = import_dfki(path, tmp_path / "out")
    assert suite.pairs == ["de-en"]
    assert files_under(tmp_path / "out") == ["rules/de-en/ambiguity.yaml",
                                             "suites/de-en/ambiguity.yaml"]


@pytest.mark.parametrize("pair", ["../x", "ABSOLUTE", "de", "", "d-e", "de/en", "de-en\x1b"])
def test_a_suite_with_a_bad_pair_is_not_written(tmp_path, pair):
    # A suite built in Python bypasses read_dfki; writing it checks the pair again, so
    # that the rules file can never land on the suite file (both were <pair>/ambiguity.yaml
    # for an absolute pair).
    pair = str(tmp_path / "abs") if pair == "ABSOLUTE" else pair
    suite = Suite({(pair, "1"): Item("1", pair, "Ambiguity", "Lexical", "Satz.")},
                  {(pair, "1"): Rule("1", "x")})
    with pytest.raises(TestsuiteError, match="language pair"):
        write_suite(suite, tmp_path / "out")
    assert not any(tmp_path.rglob("*.yaml"))


def test_an_import_writes_every_file_or_none(tmp_path):
    """A file that cannot be written (here a folder in its way) left the files before it
    written: half a suite. A category too long for a file name is cut (it failed)."""
    path = tmp_path / "items.json"
    long = "Very long category " * 20
    path.write_text(json.dumps({"items": [ITEM, dict(ITEM, id="2", category=long)]}),
                    encoding="utf-8")
    out = tmp_path / "out"
    (out / "rules" / "de-en" / "ambiguity.yaml").mkdir(parents=True)  # in the way
    result = runner.invoke(app, ["import-dfki", str(path), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == (f"error: {out / 'rules' / 'de-en' / 'ambiguity.yaml'}: "
                                     "cannot write: it is a folder")
    assert files_under(out) == []
    (out / "rules" / "de-en" / "ambiguity.yaml").rmdir()
    suite, written = import_dfki(path, out)
    assert files_under(out) == sorted(str(p.relative_to(out)) for p in written)
    assert f"rules/de-en/{('very-long-category-' * 5)[:80]}.yaml" in files_under(out)
    assert load_suite([out]).items[("de-en", "2")].category == long


def test_written_rules_keep_every_field_of_their_verdicts(dfki_dir, tmp_path):
    # A disagreement settled by a third annotator: written and read back, the settling
    # verdict must still settle it (it was written without 'settles', a disagreement again).
    loaded = load_suite([dfki_dir])
    items = loaded.items_of("de-en")[:3]
    rules = {(i.pair, i.id): loaded.rules[(i.pair, i.id)] for i in items}
    key, rule = next(iter(rules.items()))
    output = "The dog bit the man."
    rules[key] = replace(rule, verdicts=(
        Verdict(output, "pass", "anna", "2024-05-01T10:00:00+00:00"),
        Verdict(output, "fail", "ben", "2024-05-02T10:00:00+00:00", "wrong sense"),
        Verdict(output, "pass", "cleo", "2024-05-03T10:00:00+00:00", "checked", settles=True)))
    suite = Suite({(i.pair, i.id): i for i in items}, rules)
    write_suite(suite, tmp_path / "out")
    again = load_suite([tmp_path / "out"])
    assert again.rules[key].verdicts == rules[key].verdicts
    assert again.rules[key].verdict_for(output) == "pass"
