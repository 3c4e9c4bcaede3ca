"""Recording verdicts: immediate, atomic, lossless under kills and concurrent annotators."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.errors import TestsuiteError
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import load_suite
from testsuite.model import Verdict
from testsuite.verdicts import record, remove, verdict_file
from testsuite.verdicts.queue import decide, pending_warnings

runner = CliRunner()

SUITE = """
pair: en-de
category: MWE
items:
  - id: idiom-01
    phenomenon: Idiom
    source: Tom finally spilled the beans.
  - id: idiom-02
    phenomenon: Idiom
    source: The exam was a piece of cake.
"""
RULES = """
pair: en-de
rules:
  # the positive pattern is deliberately narrow: paraphrases become warnings
  - item: idiom-01
    positive_regex: 'ausgeplaudert'
    negative_regex: 'Bohnen'
  - item: idiom-02
    positive_regex: 'kinderleicht'
    negative_regex: 'Stück Kuchen'
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for folder, text in (("suites", SUITE), ("rules", RULES)):
        (tmp_path / folder / "en-de").mkdir(parents=True)
        (tmp_path / folder / "en-de" / "mwe.yaml").write_text(text.lstrip(), encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "A.txt").write_text("Tom hat endlich alles verraten.\nDie Prüfung war leicht.\n")
    (outputs / "B.txt").write_text("Tom hat endlich alles verraten.\nDie Prüfung war ein "
                                   "Stück Kuchen.\n")
    return tmp_path


def add_de_en_pair(project: Path) -> None:
    """A second pair with the same item id (idiom-01), so that one sheet's rows can go to
    two verdicts files."""
    for folder, text in (("suites", "pair: de-en\ncategory: MWE\nitems:\n  - id: idiom-01\n"
                                    "    phenomenon: Idiom\n    source: Tom packte aus.\n"),
                         ("rules", "pair: de-en\nrules:\n  - item: idiom-01\n"
                                   "    positive_regex: 'spilled the beans'\n")):
        (project / folder / "de-en").mkdir()
        (project / folder / "de-en" / "mwe.yaml").write_text(text, encoding="utf-8")


def run(project: Path):
    suite = load_suite([project / "suites", project / "rules"])
    systems, _ = load_outputs(suite, [project / "outputs"])
    return suite, evaluate(suite, systems)


def test_identical_outputs_are_one_decision_and_verdicts_apply(project):
    suite, evaluation = run(project)
    pending = pending_warnings(evaluation, suite)
    assert [(p.item, p.output, p.systems, p.completes) for p in pending] == [
        ("idiom-01", "Tom hat endlich alles verraten.", ("A", "B"), True),
        ("idiom-02", "Die Prüfung war leicht.", ("A",), True),
    ]
    path, stored = decide(suite, "en-de", "idiom-01", pending[0].output, "pass",
                          annotator="ann", note="verraten is fine")
    assert path == project / "rules" / "en-de" / "verdicts.yaml"
    assert (stored.annotator, stored.note) == ("ann", "verraten is fine")
    # the hand-written rules file is untouched (its comment is still there)
    assert "# the positive pattern" in (project / "rules/en-de/mwe.yaml").read_text()
    suite, evaluation = run(project)
    outcomes = evaluation.results.set_index(["system", "item"])["outcome"].to_dict()
    assert outcomes[("A", "idiom-01")] == outcomes[("B", "idiom-01")] == "pass"
    assert [p.item for p in pending_warnings(evaluation, suite)] == ["idiom-02"]


def test_a_left_out_system_is_a_known_filter_value_with_nothing_pending(project):
    (project / "outputs" / "C.txt").write_text("n/a\nn/a\n")  # did not translate the suite
    suite, evaluation = run(project)
    assert [e.system for e in evaluation.excluded] == ["C"]
    assert pending_warnings(evaluation, suite, systems=["c"]) == []
    with pytest.raises(TestsuiteError, match=r"unknown system: D \(known: A, B, C\)"):
        pending_warnings(evaluation, suite, systems=["D"])


def test_undo_removes_exactly_that_decision(project):
    suite, _ = run(project)
    item = suite.items[("en-de", "idiom-01")]
    path = verdict_file(item, suite.rule_of(item))
    first = record(path, "en-de", "idiom-01", "x", "pass", "ann", time="2026-01-01T00:00:00")
    second = record(path, "en-de", "idiom-01", "y", "fail", "ann", time="2026-01-01T00:00:01")
    assert remove(path, "idiom-01", second)
    assert not remove(path, "idiom-01", Verdict("z", "pass", time="never"))
    rule = load_suite([project / "suites", project / "rules"]).rules[("en-de", "idiom-01")]
    assert [v.output for v in rule.verdicts] == [first.output]


def test_verdict_command_by_output_and_by_system(project):
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    result = runner.invoke(app, ["verdict", "idiom-02", "pass", str(project / "outputs"),
                                 "--system", "A", *base])
    assert result.exit_code == 0, result.output
    assert "recorded pass for en-de item idiom-02 on 'Die Prüfung war leicht.'" in result.output
    result = runner.invoke(app, ["verdict", "idiom-02", "maybe", "--output", "x", *base])
    assert result.exit_code == 2  # a wrong command line
    assert "must be one of pass, fail, not maybe" in result.output
    result = runner.invoke(app, ["verdict", "nope", "pass", "--output", "x", *base])
    assert "no en-de item 'nope' in the suite" in result.output
    result = runner.invoke(app, ["pending", str(project / "outputs"), *base])
    assert result.exit_code == 0
    assert '"item": "idiom-01"' in result.output and '"idiom-02"' not in result.output


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from testsuite.verdicts import record
    path, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    for n in range(count):
        record(path, "en-de", f"item-{n % 7}", f"{name} output {n}", "pass", name)
        print(f"ack {n}", flush=True)
""")


def test_killed_writer_never_corrupts_and_keeps_acknowledged_decisions(tmp_path):
    path = tmp_path / "rules" / "verdicts.yaml"
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "killed", "100000"],
                               stdout=subprocess.PIPE, text=True)
    acknowledged = []
    assert process.stdout is not None
    for line in process.stdout:
        acknowledged.append(int(line.split()[1]))
        if len(acknowledged) == 40:
            process.send_signal(signal.SIGKILL)  # in the middle of the next save
            break
    process.wait()
    rest = process.stdout.read().split()
    acknowledged += [int(n) for n in rest[1::2]]
    from testsuite.yamlio import load_yaml

    data = load_yaml(path)  # parses: never half-written
    stored = {v["output"] for rule in data["rules"] for v in rule["verdicts"]}
    assert {f"killed output {n}" for n in acknowledged} <= stored


def test_two_annotators_at_once_lose_nothing(tmp_path):
    path = tmp_path / "rules" / "verdicts.yaml"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, "60"],
                                stdout=subprocess.DEVNULL) for name in ("ann", "bob")]
    for writer in writers:
        assert writer.wait(timeout=120) == 0
    from testsuite.yamlio import load_yaml

    data = load_yaml(path)
    stored = {v["output"] for rule in data["rules"] for v in rule["verdicts"]}
    assert stored == {f"{name} output {n}" for name in ("ann", "bob") for n in range(60)}


def test_resolving_warnings_on_wmt21_lowers_the_count_exactly(data, dfki_dir, tmp_path):
    suite_dir = tmp_path / "dfki"
    shutil.copytree(dfki_dir, suite_dir)
    outputs = data / "wmt21" / "txt-ts"

    def warnings() -> tuple[int, list]:
        suite = load_suite([suite_dir])
        systems, located = load_outputs(suite, [outputs], pair="de-en")
        evaluation = evaluate(suite, systems, located=located)
        count = int((evaluation.results["outcome"] == "warning").sum())
        return count, pending_warnings(evaluation, suite)

    before, pending = warnings()
    chosen = pending[:12]
    for n, entry in enumerate(chosen):
        result = runner.invoke(app, ["verdict", entry.item, "pass" if n % 2 else "fail",
                                     "--output", entry.output, "--pair", "de-en",
                                     "--suite", str(suite_dir), "--annotator", "test"])
        assert result.exit_code == 0, result.output
    after, pending_after = warnings()
    decided = sum(len(entry.systems) for entry in chosen)
    assert decided > len(chosen)  # shared outputs: one decision, several systems
    assert before - after == decided
    assert len(pending_after) == len(pending) - len(chosen)


# --- #13 and #14.4: a verdict says what it changes, and refuses what it should -------------


def _copy_dfki(dfki_dir: Path, tmp_path: Path) -> Path:
    suite_dir = tmp_path / "dfki"
    shutil.copytree(dfki_dir, suite_dir)
    return suite_dir


def test_a_verdict_that_overrides_the_rule_needs_force_and_says_what_it_flips(
        data, dfki_dir, wmt, tmp_path):
    results = wmt("wmt21", "de-en").results
    rows = results[(results["system"] == "Online-A") & (results["reason"] == "positive-regex")]
    shared = results.groupby(["item", "output"], observed=True)["system"].nunique()
    row = next(r for r in rows.itertuples() if shared[(r.item, r.output)] >= 3)
    systems = int(shared[(row.item, row.output)])
    suite_dir = _copy_dfki(dfki_dir, tmp_path)
    base = ["--pair", "de-en", "--suite", str(suite_dir), "--from",
            str(data / "wmt21" / "txt-ts"), "--annotator", "ann"]
    result = runner.invoke(app, ["verdict", str(row.item), "fail", "--system", "Online-A",
                                 *base])
    assert result.exit_code == 1
    assert f"the rule decides this output pass (positive-regex) for {systems} systems" \
        in result.output and "--force" in result.output
    assert not (suite_dir / "rules" / "de-en" / "verdicts.yaml").exists()
    result = runner.invoke(app, ["verdict", str(row.item), "fail", "--system", "Online-A",
                                 "--force", *base])
    assert result.exit_code == 0, result.output
    assert f"changes {systems} outcomes" in result.output
    assert f"{systems} of them the rule decides pass (positive-regex), overridden" \
        in result.output


def test_a_verdict_on_an_output_no_system_produced_is_refused(data, dfki_dir, tmp_path):
    suite_dir = _copy_dfki(dfki_dir, tmp_path)
    result = runner.invoke(app, ["verdict", "00419002", "pass", "--output",
                                 "I didn't want to say anythin.", "--pair", "de-en", "--suite",
                                 str(suite_dir), "--from", str(data / "wmt21" / "txt-ts")])
    assert result.exit_code == 1
    assert "no system produced the output" in result.output and "a typo?" in result.output
    assert "I didn't want to say anything." in result.output  # what the systems did say


def test_contradicting_verdicts_are_refused_kept_as_disagreement_listed_and_settled(project):
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    decide_as = ["verdict", "idiom-02", "--output", "Die Prüfung war leicht.", *base]
    assert runner.invoke(app, [*decide_as[:2], "pass", *decide_as[2:], "--annotator",
                               "ann"]).exit_code == 0
    refused = runner.invoke(app, [*decide_as[:2], "fail", *decide_as[2:], "--annotator", "bob"])
    assert refused.exit_code == 1 and "ann (pass" in refused.output
    kept = runner.invoke(app, [*decide_as[:2], "fail", *decide_as[2:], "--annotator", "bob",
                               "--disagree"])
    assert kept.exit_code == 0 and "disagree" in kept.output
    listed = runner.invoke(app, ["disagreements", *base])
    assert '"item": "idiom-02"' in listed.output and '"annotator": "bob"' in listed.output
    suite, evaluation = run(project)
    outcomes = evaluation.results.set_index(["system", "item"])
    assert outcomes.loc[("A", "idiom-02"), "reason"] == "disagreement"
    linted = runner.invoke(app, ["lint", *[str(project / f) for f in ("suites", "rules")]])
    assert "annotators disagree on 'Die Prüfung war leicht.' (ann: pass, bob: fail)" \
        in linted.output
    settled = runner.invoke(app, ["settle", "idiom-02", "fail", "--output",
                                  "Die Prüfung war leicht.", "--annotator", "cid", *base])
    assert settled.exit_code == 0, settled.output
    suite, evaluation = run(project)
    outcomes = evaluation.results.set_index(["system", "item"])
    assert tuple(outcomes.loc[("A", "idiom-02"), ["outcome", "reason"]]) == ("fail", "verdict")
    assert '"item"' not in runner.invoke(app, ["disagreements", *base]).output
    again = runner.invoke(app, ["settle", "idiom-02", "fail", "--output",
                                "Die Prüfung war leicht.", *base])
    assert again.exit_code == 1 and "no disagreement" in again.output


def test_an_annotator_may_change_their_own_mind(project):
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules"),
            "--annotator", "ann", "--output", "Die Prüfung war leicht."]
    assert runner.invoke(app, ["verdict", "idiom-02", "pass", *base]).exit_code == 0
    assert runner.invoke(app, ["verdict", "idiom-02", "fail", *base]).exit_code == 0
    suite, evaluation = run(project)
    outcomes = evaluation.results.set_index(["system", "item"])
    assert outcomes.loc[("A", "idiom-02"), "outcome"] == "fail"


def test_pending_lists_the_rule_of_each_item(project):
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    result = runner.invoke(app, ["pending", str(project / "outputs"), *base])
    import json

    line = json.loads(result.output.splitlines()[0])
    assert line["rule"] == {"positive_regex": "ausgeplaudert", "negative_regex": "Bohnen",
                            "positive_tokens": [], "negative_tokens": []}
    assert line["rule_file"].endswith("mwe.yaml")
