"""Saved runs that were edited by hand, truncated or written by something else (#11)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.errors import TestsuiteError
from testsuite.loader import load_suite
from testsuite.runs import load_run

runner = CliRunner()

SUITE = """pair: de-en
category: C
items:
  - {id: a, phenomenon: P, source: Eins.}
  - {id: b, phenomenon: P, source: Zwei.}
  - {id: c, phenomenon: P, source: Drei.}
"""
RULES = """pair: de-en
rules:
  - {item: a, positive_regex: one}
  - {item: b, positive_regex: two}
  - {item: c, positive_regex: three}
"""


@pytest.fixture()
def run(tmp_path: Path) -> tuple[Path, Path]:
    """(suite folder, a run saved with `evaluate --save`)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "s.yaml").write_text(SUITE, encoding="utf-8")
    (suite / "r.yaml").write_text(RULES, encoding="utf-8")
    outputs = tmp_path / "out"
    outputs.mkdir()
    (outputs / "Sys.en").write_text("one\ntwo\nfour\n", encoding="utf-8")
    saved = tmp_path / "runs" / "demo2021"
    result = runner.invoke(app, ["evaluate", str(outputs), "--suite", str(suite), "-q",
                                 "--save", str(saved)])
    assert result.exit_code == 0, result.output
    return suite, saved


def rewrite_line(path: Path, number: int, record: object) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def problems(suite: Path, saved: Path) -> list[str]:
    with pytest.raises(TestsuiteError) as caught:
        load_run(saved, load_suite([suite]))
    return [str(p) for p in caught.value.problems]


def test_a_saved_run_loads(run):
    suite, saved = run
    loaded = load_run(saved, load_suite([suite]))
    assert loaded.year == 2021 and len(loaded.evaluation.results) == 3


@pytest.mark.parametrize(("content", "message"), [
    ("[1, 2]", "expected a JSON object (as `evaluate --save` writes), not a list"),
    ('"x"', "expected a JSON object (as `evaluate --save` writes), not 'x'"),
    ('{"name": "x",\n "year": }', ":2: not valid JSON"),
    ('{"pairs": "de-en"}', "'pairs' must be a list of language pairs, not 'de-en'"),
    ('{"pairs": ["../x"]}', "'pairs': '../x' is not a language pair"),
    ('{"year": "2021"}', "'year' must be a number, not '2021'"),
    ('{"name": ["x"]}', "'name' must be text, not a list"),
])
def test_malformed_run_json(run, content, message):
    suite, saved = run
    (saved / "run.json").write_text(content, encoding="utf-8")
    found = problems(suite, saved)
    assert len(found) == 1 and found[0].startswith(str(saved / "run.json"))
    assert message in found[0]


@pytest.mark.parametrize(("file", "record", "message"), [
    ("items.jsonl", {"pair": "de-en", "category": "C", "phenomenon": "P", "source": "Zwei."},
     "'id' is missing"),
    ("items.jsonl", [1], "expected an object with pair, id, source, not a list"),
    ("items.jsonl", {"id": 2, "pair": "de-en", "category": "C", "phenomenon": "P",
                     "source": "Zwei."}, "'id' must be text, not a number"),
    ("outputs.jsonl", {"pair": "de-en", "system": "Sys", "item": "b", "output": None},
     "'output' must be text, not null"),
    ("outputs.jsonl", {"pair": "de-en", "item": "b"}, "'system' is missing; 'output' is missing"),
    ("outputs.jsonl", "two", "expected an object with pair, system, item, output, not 'two'"),
])
def test_malformed_records_name_file_and_line(run, file, record, message):
    suite, saved = run
    rewrite_line(saved / file, 2, record)
    assert problems(suite, saved) == [f"{saved / file}:2: {message}"]


def test_the_compare_command_reports_them_without_a_traceback(run):
    suite, saved = run
    other = shutil.copytree(saved, saved.with_name("other"))  # two runs: compare needs them
    (saved / "run.json").write_text("[]", encoding="utf-8")
    result = runner.invoke(app, ["compare", str(saved), str(other), "--suite", str(suite)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"{saved / 'run.json'}: expected a JSON object" in result.output
