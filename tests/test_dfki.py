"""DFKI public JSON: import into our YAML and export back, losslessly."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.dfki import dfki_json, import_dfki, read_dfki
from testsuite.errors import TestsuiteError
from testsuite.loader import lint, load_suite

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
    ('{"items": [{"id": "1", "langpair": "deen"}]}', "item #1 lacks category, negative_regex"),
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
