"""Proposals: provenance of the verdicts they record, revoking them, and what they offer."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from testsuite.errors import TestsuiteError
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import load_suite
from testsuite.scoring import score
from testsuite.verdicts import VERDICTS_FILE, make_verdict, record_many
from testsuite.verdicts.store import revoke

SUITE = """
pair: de-en
category: Verb tense/aspect/mood
items:
  - {id: m1, phenomenon: Modal - pluperfect, source: Ich hatte lesen sollen.}
  - {id: m2, phenomenon: Modal - pluperfect, source: Du hattest lesen sollen.}
  - {id: m3, phenomenon: Modal - pluperfect, source: Er hatte lesen sollen.}
"""
RULES = """
pair: de-en
rules:
  - {item: m1, positive_regex: 'been supposed to read'}
  - {item: m2, positive_regex: 'been supposed to read'}
  - {item: m3, positive_regex: 'been supposed to read'}
"""
#: Per system: the outputs of m1, m2, m3.
OUTPUTS = {
    "A": ["I had been supposed to read.", "You should have read.", "He should have read."],
    "B": ["I should have read.", "You should have read.", "He had been supposed to read."],
    "C": ["I had to read.", "You had been supposed to read.", "He should have read."],
}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for folder, text in (("suites", SUITE), ("rules", RULES)):
        (tmp_path / folder / "de-en").mkdir(parents=True)
        (tmp_path / folder / "de-en" / "verbs.yaml").write_text(text.lstrip(), encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    for system, lines in OUTPUTS.items():
        (outputs / f"{system}.tsv").write_text("".join(f"m{n}\t{o}\n" for n, o in
                                                        enumerate(lines, 1)), encoding="utf-8")
    return tmp_path


def judge(project: Path):
    suite = load_suite([project / "suites", project / "rules"])
    systems, _ = load_outputs(suite, [project / "outputs"], pair="de-en")
    return suite, evaluate(suite, systems)


def verdicts_file(project: Path) -> Path:
    return project / "rules" / "de-en" / VERDICTS_FILE


def test_verdicts_say_which_proposal_they_came_from(project):
    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape")),
        ("m1", make_verdict("I had to read.", "fail", "bob")),
    ])
    stored = yaml.safe_load(path.read_text(encoding="utf-8"))
    entries = {(r["item"], v["output"]): v for r in stored["rules"] for v in r["verdicts"]}
    assert entries[("m1", "I should have read.")]["proposal"] == "p-shape"
    assert "proposal" not in entries[("m1", "I had to read.")]
    suite, evaluation = judge(project)
    assert [v.proposal for v in suite.rules[("de-en", "m1")].verdicts] == ["p-shape", None]
    reasons = {(row.item, row.system): row.reason for row in evaluation.results.itertuples()}
    assert reasons[("m1", "B")] == "proposal"  # "I should have read."
    assert reasons[("m2", "A")] == reasons[("m2", "B")] == "proposal"
    assert reasons[("m1", "C")] == "verdict"  # by hand
    assert reasons[("m1", "A")] == "positive-regex"
    # The same output decided by hand as well: a person decided it.
    record_many(path, "de-en", [("m2", make_verdict("You should have read.", "fail", "cat"))])
    _, evaluation = judge(project)
    assert set(evaluation.results.query("item == 'm2' and system != 'C'").reason) == {"verdict"}


def test_scores_count_who_decided(project):
    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape")),
        ("m3", make_verdict("He should have read.", "fail", "ann", proposal="p-shape")),
    ])
    suite, evaluation = judge(project)
    scores = score(evaluation, suite, "de-en")
    # m1's "I had to read." (C) is still a warning: only m2 and m3 enter, 6 outcomes, all
    # passes and fails: counted from the rows themselves.
    rows = evaluation.results.query("item in ['m2', 'm3']")
    expected = {"rule": int(rows.reason.isin(["positive-regex"]).sum()),
                "hand": int((rows.reason == "verdict").sum()),
                "proposal": int((rows.reason == "proposal").sum())}
    assert expected == {"rule": 2, "hand": 0, "proposal": 4}
    fields = scores.signature.fields
    assert {k: int(fields[f"by-{k}"]) for k in expected} == expected
    assert any("2 were decided by the rules, 0 by hand and 4 by proposals" in str(n)
               for n in scores.notes)


def test_revoke_takes_back_a_proposals_verdicts_together(project, tmp_path):
    path = verdicts_file(project)
    other = tmp_path / "elsewhere" / VERDICTS_FILE
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m1", make_verdict("I had to read.", "fail", "bob")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape")),
        ("m3", make_verdict("He should have read.", "fail", "ann", proposal="p-other")),
    ])
    record_many(other, "de-en", [("m3", make_verdict("x", "pass", "ann", proposal="p-shape"))])
    before = path.read_text(encoding="utf-8")
    listed = revoke([path, other], "p-shape", dry_run=True)
    assert path.read_text(encoding="utf-8") == before  # a dry run writes nothing
    assert sorted((p.name, item, v.output) for p, item, v in listed) == [
        (VERDICTS_FILE, "m1", "I should have read."),
        (VERDICTS_FILE, "m2", "You should have read."), (VERDICTS_FILE, "m3", "x")]
    taken = revoke([path, other], "p-shape")
    assert len(taken) == 3
    suite, _ = judge(project)
    left = {(item, v.output, v.proposal) for (_, item), rule in suite.rules.items()
            for v in rule.verdicts}
    assert left == {("m1", "I had to read.", None), ("m3", "He should have read.", "p-other")}
    assert "m2" not in path.read_text(encoding="utf-8")  # its entry went with its verdict
    assert revoke([path, other], "p-shape") == []


def test_revoke_is_whole_or_refused(project, tmp_path):
    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape"))])
    broken = tmp_path / "broken" / VERDICTS_FILE
    broken.parent.mkdir()
    broken.write_text("just: text\n", encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    with pytest.raises(TestsuiteError, match="not a verdicts file"):
        revoke([path, broken], "p-shape")
    assert path.read_text(encoding="utf-8") == before


def test_revoke_command(project):
    import json

    from typer.testing import CliRunner

    from testsuite.cli import app

    path = verdicts_file(project)
    record_many(path, "de-en", [
        ("m1", make_verdict("I should have read.", "fail", "ann", proposal="p-shape")),
        ("m2", make_verdict("You should have read.", "fail", "ann", proposal="p-shape"))])
    suite = str(project / "suites"), str(project / "rules")
    args = ["revoke", "p-shape", "--suite", suite[0], "--suite", suite[1]]
    runner = CliRunner()
    listed = runner.invoke(app, [*args, "--dry-run"])
    assert listed.exit_code == 0, listed.output
    lines = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(d["item"], d["output"]) for d in lines] == [
        ("m1", "I should have read."), ("m2", "You should have read.")]
    assert "would take back 2 verdicts recorded from p-shape" in listed.stderr
    done = runner.invoke(app, args)
    assert done.exit_code == 0 and "took back 2 verdicts" in done.stderr
    again = runner.invoke(app, args)
    assert again.exit_code == 1 and "no verdict was recorded from proposal 'p-shape'" in \
        again.stderr
