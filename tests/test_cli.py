"""The command line, in process: the user's path from sources to outcomes, and bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from textwrap import dedent

import pytest
from typer.testing import CliRunner

from testsuite.cli import app

runner = CliRunner()

SUITE = """
pair: en-de
category: MWE
items:
  - id: idiom-01
    phenomenon: Idiom
    source: After months of secrecy, Tom finally spilled the beans.
  - id: idiom-02
    phenomenon: Idiom
    source: The exam was a piece of cake.
  - id: idiom-03
    phenomenon: Idiom
    source: "She kept the whole project under wraps\\nuntil May."
"""
RULES = r"""
pair: en-de
rules:
  - item: idiom-01
    positive_regex: 'ausgeplaudert|plauderte\b.*\baus\b|verriet|verraten'
    negative_regex: 'Bohnen'
  - item: idiom-02
    positive_regex: '\b(kinderleicht|ein Kinderspiel|ganz einfach|sehr leicht)\b'
    negative_regex: '\bStück Kuchen\b'
  - item: idiom-03
    positive_regex: 'geheim|unter Verschluss'
    negative_regex: 'unter Hüllen|Verpackung'
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "suites").mkdir()
    (tmp_path / "rules").mkdir()
    (tmp_path / "suites" / "mwe.yaml").write_text(SUITE.lstrip(), encoding="utf-8")
    (tmp_path / "rules" / "mwe.yaml").write_text(RULES.lstrip(), encoding="utf-8")
    return tmp_path


def invoke(*args: str | Path) -> object:
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def test_sources_then_evaluate_aligned_text(project, tmp_path):
    src = tmp_path / "sources.en"
    result = invoke("sources", "--suite", project, "--pair", "en-de", "--out", src)
    assert result.exit_code == 0, result.output
    assert src.read_text(encoding="utf-8").splitlines() == [
        "After months of secrecy, Tom finally spilled the beans.",
        "The exam was a piece of cake.",
        "She kept the whole project under wraps until May.",  # the newline is folded
    ]
    assert (tmp_path / "sources.en.ids").read_text().split() == ["idiom-01", "idiom-02",
                                                                 "idiom-03"]
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "Literal.de").write_text(dedent("""\
        Nach monatelanger Geheimhaltung verschüttete Tom endlich die Bohnen.
        Die Prüfung war ein Stück Kuchen.
        Sie hielt das ganze Projekt bis Mai unter Hüllen.
        """), encoding="utf-8")
    (outputs / "Fluent.de").write_text(dedent("""\
        Nach Monaten der Geheimhaltung plauderte Tom endlich alles aus.
        Die Prüfung war kinderleicht.

        """), encoding="utf-8")
    jsonl = tmp_path / "results.jsonl"
    result = invoke("evaluate", outputs, "--suite", project, "--out", jsonl, "--quiet")
    assert result.exit_code == 0, result.output
    assert "Outcomes en-de" in result.output
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert {(r["system"], r["item"]): (r["outcome"], r["reason"]) for r in records} == {
        ("Fluent", "idiom-01"): ("pass", "positive-regex"),
        ("Fluent", "idiom-02"): ("pass", "positive-regex"),
        ("Fluent", "idiom-03"): ("missing", "empty-output"),
        ("Literal", "idiom-01"): ("fail", "negative-regex"),
        ("Literal", "idiom-02"): ("fail", "negative-regex"),
        ("Literal", "idiom-03"): ("fail", "negative-regex"),
    }
    assert set(records[0]) >= {"item", "system", "outcome", "reason", "output", "category"}
    csv_path = tmp_path / "results.csv"
    result = invoke("evaluate", outputs, "--suite", project, "--out", csv_path, "-q")
    assert result.exit_code == 0, result.output
    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["system"], r["item"], r["outcome"]) for r in rows] == [
        (r["system"], r["item"], r["outcome"]) for r in records]


def test_summary_table_counts_outcomes(project, tmp_path):
    out = tmp_path / "Sys.txt"
    out.write_text("Tom verriet es.\nDie Prüfung war ein Stück Kuchen.\nganz geheim\n")
    result = invoke("evaluate", out, "--suite", project, "-q")
    row = next(line for line in result.output.splitlines() if "Sys" in line)
    # system, pass, fail, warning, missing, items, warning rate
    assert row.split("│")[1:-1] == [" Sys    ", "    2 ", "    1 ", "       0 ", "       0 ",
                                    "     3 ", "         0.0% "]


@pytest.mark.parametrize(("content", "message"), [
    (b"Tom verriet es.\n", "has 1 lines but the en-de sources have 3"),
    (b"Tom verriet es.\nDie Pr\xfcfung.\nx\n", "line 2 is not valid UTF-8"),
])
def test_bad_output_files_give_clear_messages(project, tmp_path, content, message):
    out = tmp_path / "Sys.txt"
    out.write_bytes(content)
    result = invoke("evaluate", out, "--suite", project, "-q")
    assert result.exit_code == 1
    assert message in result.output
    assert str(out) in result.output


def test_missing_output_path(project, tmp_path):
    result = invoke("evaluate", tmp_path / "nowhere", "--suite", project)
    assert result.exit_code == 1
    assert "no such file or folder" in result.output


def test_unknown_results_format(project, tmp_path):
    out = tmp_path / "Sys.txt"
    out.write_text("a\nb\nc\n")
    result = invoke("evaluate", out, "--suite", project, "--out", tmp_path / "r.xlsx", "-q")
    assert result.exit_code == 1
    assert "unknown results format .xlsx; use .jsonl or .csv" in result.output


def test_lint_exit_status(project):
    result = invoke("lint", project)
    assert result.exit_code == 0, result.output
    assert "ok: 2 files, 3 items, 3 rules, 0 problems" in result.output
    rules = project / "rules" / "mwe.yaml"
    rules.write_text(rules.read_text().replace("'Bohnen'", "'(Bohnen'"))
    result = invoke("lint", project)
    assert result.exit_code == 1
    assert f"{rules}:3 (item idiom-01): negative_regex does not compile" in result.output


def test_lint_coverage_lists_rules_short_of_examples(project):
    assert invoke("lint", project, "--coverage", "--min-examples", "0").exit_code == 0
    result = invoke("lint", project, "--coverage")
    assert result.exit_code == 1
    assert "3 rules with fewer than 2 examples of a kind" in result.output
    rules = project / "rules" / "mwe.yaml"
    assert (f"short: {rules}:3: idiom-01: pass 0/2, fail 0/2, reworded 0/2, near_miss 0/2"
            in result.output)


def test_broken_suite_stops_evaluate_with_file_and_line(project, tmp_path):
    suite = project / "suites" / "mwe.yaml"
    suite.write_text(suite.read_text().replace("  - id: idiom-02\n", "  - id: idiom-01\n"))
    out = tmp_path / "Sys.txt"
    out.write_text("a\nb\n")
    result = invoke("evaluate", out, "--suite", project)
    assert result.exit_code == 1
    assert f"{suite}:7 (item idiom-01): duplicate item id (first defined at {suite}:4)" \
        in result.output


@pytest.mark.parametrize("command", ["evaluate", "score"])
def test_a_misspelt_repeated_policy_is_refused_for_any_outputs(project, tmp_path, command):
    # --repeated matters for WMT sources only, but a typo must not pass silently elsewhere.
    out = tmp_path / "Sys.txt"
    out.write_text("Tom verriet es.\nDie Prüfung war kinderleicht.\nganz geheim\n",
                   encoding="utf-8")
    result = invoke(command, out, "--suite", project, "--repeated", "lats", "-q")
    assert result.exit_code == 2  # a wrong command line
    assert "Invalid value for '--repeated': must be one of first, last, agree, not lats" \
        in " ".join(result.output.replace("│", " ").split())
    result = invoke(command, out, "--suite", project, "--repeated", "last", "-q")
    assert result.exit_code == 0, result.output
