# ruff: noqa: E501  (the template YAML below is easier to read unwrapped)
"""Paradigm templates: expansion, stable ids, rules alongside, and their problems."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.loader import lint

TEMPLATE = r"""
pair: de-en
category: Verb tense/aspect/mood
templates:
  - id: lesen
    phenomenon: '{{phenomenon}}'
    source: 'Lena {{finite}} das Buch {{infinite}}.'
    positive_regex: '{{right}}'
    negative_regex: '{{wrong}}'
    examples:
      pass: ['Lena {{ok}} the book.', 'Yes, Lena {{ok}} the book.']
      fail: ['Lena {{bad}} the book.', 'Yes, Lena {{bad}} the book.']
    slots:
      tense:
        present: {phenomenon: Present, finite: liest, infinite: ''}
        perfect: {phenomenon: Perfect, finite: hat, infinite: gelesen}
    cases:
      present: {right: '\breads\b', wrong: '\bread\b', ok: reads, bad: read}
      perfect: {right: '\bhas read\b', wrong: '\breads\b', ok: has read, bad: reads}
"""

GROWN = TEMPLATE.replace("das Buch {{infinite}}", "das Buch {{nicht}}{{infinite}}").replace(
    "        perfect: {phenomenon: Perfect, finite: hat, infinite: gelesen}\n",
    "        perfect: {phenomenon: Perfect, finite: hat, infinite: gelesen}\n"
    "        future: {phenomenon: Future I, finite: wird, infinite: lesen}\n"
    "      polarity:\n"
    "        default: affirmative\n"
    "        affirmative: {nicht: ''}\n"
    "        negated: {nicht: 'nicht '}\n",
).replace("""    cases:
      present: {right: '\\breads\\b', wrong: '\\bread\\b', ok: reads, bad: read}
      perfect: {right: '\\bhas read\\b', wrong: '\\breads\\b', ok: has read, bad: reads}
""", r"""    cases:
      present.affirmative: {right: '\breads\b', wrong: '\bread\b', ok: reads, bad: read}
      perfect.affirmative: {right: '\bhas read\b', wrong: '\breads\b', ok: has read, bad: reads}
      future.affirmative: {right: '\bwill read\b', wrong: '\breads\b', ok: will read, bad: reads}
      present.negated: {right: '\b(does not|doesn''t) read\b', wrong: '\breads\b', ok: does not read, bad: reads}
      perfect.negated: {right: '\b(has not|hasn''t) read\b', wrong: '\bhas read\b', ok: hasn't read, bad: has read}
      future.negated: {right: '\b(will not|won''t) read\b', wrong: '\bwill read\b', ok: won't read, bad: will read}
""")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suites" / "tam.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip(), encoding="utf-8")
    return path


def test_expansion_gives_items_and_rules(tmp_path):
    write(tmp_path, TEMPLATE)
    result = lint([tmp_path])
    assert result.problems == []  # every generated rule passes its generated examples
    suite = result.suite
    assert [(i.id, i.phenomenon, i.source) for i in suite] == [
        ("lesen.present", "Present", "Lena liest das Buch."),  # empty variable tidied away
        ("lesen.perfect", "Perfect", "Lena hat das Buch gelesen."),
    ]
    rule = suite.rules[("de-en", "lesen.perfect")]
    assert (rule.positive_regex, rule.negative_regex) == (r"\bhas read\b", r"\breads\b")
    assert rule.examples_pass == ("Lena has read the book.", "Yes, Lena has read the book.")


def test_ids_stay_stable_when_the_template_grows(tmp_path):
    write(tmp_path, TEMPLATE)
    before = {i.id: i.source for i in lint([tmp_path]).suite}
    write(tmp_path, GROWN)
    result = lint([tmp_path])
    assert result.problems == []
    after = {i.id: i.source for i in result.suite}
    assert len(after) == 6
    assert {k: after[k] for k in before} == before  # old ids, same sentences
    assert after["lesen.future.negated"] == "Lena wird das Buch nicht lesen."


def test_verdicts_for_generated_items_live_in_rules_files(tmp_path):
    write(tmp_path, TEMPLATE)
    rules = tmp_path / "rules" / "tam.yaml"
    rules.parent.mkdir()
    rules.write_text(dedent("""
        pair: de-en
        rules:
          - item: lesen.present
            verdicts:
              - {output: Lena is reading the book., verdict: pass}
    """), encoding="utf-8")
    result = lint([tmp_path])
    assert result.problems == []
    rule = result.suite.rules[("de-en", "lesen.present")]
    assert rule.positive_regex == r"\breads\b"  # still generated
    assert [v.output for v in rule.verdicts] == ["Lena is reading the book."]


def test_template_problems_are_named(tmp_path):
    path = write(tmp_path, TEMPLATE.replace("'{{right}}'", "'{{rigth}}'"))
    messages = {(p.line, p.item, p.message) for p in lint([tmp_path]).problems}
    assert messages == {
        (4, "lesen", "lesen.present: no value for {{rigth}} (give it in a slot value or "
         "in cases.present)"),
        (4, "lesen", "lesen.perfect: no value for {{rigth}} (give it in a slot value or "
         "in cases.perfect)")}
    write(tmp_path, TEMPLATE.replace("      present: {right", "      presnt: {right"))
    messages = {p.message for p in lint([tmp_path]).problems}
    assert "cases for combinations that do not exist: presnt" in messages
    assert all(p.file == str(path) for p in lint([tmp_path]).problems)


def test_expand_command_lists_generated_items(tmp_path):
    write(tmp_path, GROWN)
    result = CliRunner().invoke(app, ["expand", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "lesen.future.negated" in result.output
    assert "6 generated items" in result.output
