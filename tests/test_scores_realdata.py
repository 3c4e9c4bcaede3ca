"""`testsuite score` on the real WMT21 data, both directions, every format.

Expected numbers are recomputed here straight from the outcomes with plain Python (which
items have only pass/fail for every system, and counting passes), independently of the
pandas code in testsuite/scores.py.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import load_suite
from testsuite.scores import score

runner = CliRunner()
PAIRS = ("de-en", "en-de")


@pytest.fixture(scope="module")
def wmt21(data: Path, dfki_dir: Path):
    suite = load_suite([dfki_dir])
    result = {}
    for pair in PAIRS:
        systems, located = load_outputs(suite, [data / "wmt21" / "txt-ts"], pair=pair)
        result[pair] = (suite, evaluate(suite, systems, located=located))
    return result


def by_hand(evaluation):
    """Items entering under the fairness rule, and passes per (system, category)."""
    outcomes = defaultdict(dict)
    category = {}
    for row in evaluation.results.itertuples():
        outcomes[row.item][row.system] = row.outcome
        category[row.item] = row.category
    entered = [i for i, o in outcomes.items() if set(o.values()) <= {"pass", "fail"}]
    passes = defaultdict(int)
    items = defaultdict(int)
    for item in entered:
        items[category[item]] += 1
        for system, outcome in outcomes[item].items():
            passes[(system, category[item])] += outcome == "pass"
    return entered, passes, items


@pytest.mark.parametrize("pair", PAIRS)
def test_counts_and_accuracies_match_a_hand_count(wmt21, pair):
    suite, evaluation = wmt21[pair]
    scores = score(evaluation, suite, pair)
    entered, passes, items = by_hand(evaluation)
    assert scores.coverage.entered == len(entered)
    assert scores.coverage.not_located == {"de-en": 19, "en-de": 159}[pair]
    assert (scores.coverage.entered + scores.coverage.with_warning + scores.coverage.with_missing
            + scores.coverage.not_located) == scores.coverage.items
    table = scores.table
    for system in ("Online-A", "Online-B", evaluation.systems[0]):
        for category in ("MWE", "Verb tense/aspect/mood", "Negation"):
            row = table[(table["level"] == "category") & (table["category"] == category)
                        & (table["system"] == system)].iloc[0]
            assert (row["passes"], row["items"]) == (passes[(system, category)], items[category])
        micro = table[(table["level"] == "micro") & (table["system"] == system)].iloc[0]
        total = sum(v for (s, _), v in passes.items() if s == system)
        assert micro["accuracy"] == pytest.approx(total / len(entered))


@pytest.mark.parametrize("pair", PAIRS)
def test_score_command_writes_every_format(data, dfki_dir, tmp_path, pair):
    outputs = data / "wmt21" / "txt-ts"
    base = ["score", str(outputs), "--pair", pair, "--suite", str(dfki_dir), "-q"]
    result = runner.invoke(app, base)
    assert result.exit_code == 0, result.output
    assert f"Accuracy per category ({pair})" in result.output
    assert f"Accuracy per phenomenon ({pair})" in result.output
    assert "testsuite:0.1.0|pair:" in result.output
    for kind, suffix in (("csv", "csv"), ("json", "json"), ("markdown", "md"),
                         ("latex", "tex")):
        path = tmp_path / f"report.{suffix}"
        result = runner.invoke(app, [*base, "--format", kind, "--out", str(path)])
        assert result.exit_code == 0, result.output
        text = path.read_text(encoding="utf-8")
        if kind == "json":
            document = json.loads(text)
            levels = {row["level"] for row in document["rows"]}
            assert levels == {"phenomenon", "category", "micro", "category-macro",
                              "phenomenon-macro"}
            assert "UF" not in document["systems"]  # did not translate: never scored
        elif kind == "csv":
            assert text.splitlines()[0].startswith("level,category,phenomenon,system,passes")
        else:
            assert "Accuracy per phenomenon" in text and "micro-average" in text
    assert r"Coordination \& ellipsis" in (tmp_path / "report.tex").read_text(encoding="utf-8")


def test_filters_on_real_data(data, dfki_dir):
    result = runner.invoke(app, ["score", str(data / "wmt21" / "txt-ts"), "--pair", "en-de",
                                 "--suite", str(dfki_dir), "-q", "--category", "MWE",
                                 "--phenomenon", "Idiom", "--system", "Online-A",
                                 "--system", "Online-B", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert sorted(document["systems"]) == ["Online-A", "Online-B"]
    assert {(r["category"], r["phenomenon"]) for r in document["rows"]
            if r["level"] == "phenomenon"} == {("MWE", "Idiom")}
