"""Fewer human decisions (#15 parts 2-5): suggestions, batches, why a rule missed,
spreadsheets, annotator agreement, and the triage simulation on the real data."""

from __future__ import annotations

import csv
import importlib.util
import math
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.loader import lint, load_suite
from testsuite.model import Rule, Verdict
from testsuite.rule_edit import StaleRule, set_regex, undo_edit, view_of
from testsuite.verdicts.agreement import agreement, blind_sample, cohen_kappa
from testsuite.verdicts.why import alternatives, partial_matches

from .test_verdicts import add_de_en_pair, project  # noqa: F401  (the fixture)

runner = CliRunner()
REPO = Path(__file__).resolve().parent.parent

# --- a paradigm some of whose items have rules (the TUI tests use it too) -------------

MODAL_SUITE = """\
pair: en-de
category: Verb tense/aspect/mood
items:
""" + "".join(f"  - id: m{n}\n    phenomenon: Modal pluperfect\n    source: {source}\n"
              for n, source in enumerate(["I had had to read.", "You had had to sleep.",
                                          "He had had to go.", "We had had to wait.",
                                          "They had had to eat.", "She had had to work."], 1))
# The first three items have rules that decide both outputs; the others have none yet.
MODAL_RULES = """\
pair: en-de
rules:
  - {item: m1, positive_regex: 'hatte lesen müssen', negative_regex: 'musste'}
  - {item: m2, positive_regex: 'hattest schlafen müssen', negative_regex: 'musstest'}
  - {item: m3, positive_regex: 'hatte gehen müssen', negative_regex: 'musste'}
"""
MODAL_OUTPUTS = {
    "A": ["Ich hatte lesen müssen.", "Du hattest schlafen müssen.", "Er hatte gehen müssen.",
          "Wir hatten warten müssen.", "Sie hatten essen müssen.", "Sie hatte arbeiten müssen."],
    "B": ["Ich musste lesen.", "Du musstest schlafen.", "Er musste gehen.",
          "Wir mussten warten.", "Sie mussten essen.", "Sie musste arbeiten."]}


@pytest.fixture
def modal(tmp_path: Path) -> Path:
    files = {"suites/en-de/verbs.yaml": MODAL_SUITE, "rules/en-de/verbs.yaml": MODAL_RULES,
             **{f"outputs/{name}.txt": "\n".join(lines) + "\n"
                for name, lines in MODAL_OUTPUTS.items()}}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


# --- a rule edit on a stale view is refused; undo only while the file is as it left it ----

RULES = """\
pair: en-de
rules:
  # modal pluperfect: keep this comment
  - item: v1
    positive_regex: 'had been sleeping'   # the old paraphrase
  - item: v2
    positive_regex: 'x'
"""
SUITE = """\
pair: en-de
category: Verbs
items:
  - id: v1
    phenomenon: Modal pluperfect
    source: Ich hatte schlafen müssen.
  - id: v2
    phenomenon: Modal pluperfect
    source: Ich hatte gehen müssen.
"""


def test_a_stale_rule_edit_is_refused_and_undo_only_restores_its_own_edit(
        tmp_path: Path) -> None:
    rules = tmp_path / "rules" / "en-de" / "verbs.yaml"
    rules.parent.mkdir(parents=True)
    rules.write_text(RULES, encoding="utf-8")
    (tmp_path / "suites" / "en-de").mkdir(parents=True)
    (tmp_path / "suites" / "en-de" / "verbs.yaml").write_text(SUITE, encoding="utf-8")
    suite = load_suite([tmp_path])
    rule = suite.rules[("en-de", "v1")]
    edit = set_regex(rules, "en-de", "v1", "positive_regex", r"had been sleeping|\bhad had\b",
                     expected=view_of(rule))
    assert rules.read_text(encoding="utf-8") == RULES.replace(
        "'had been sleeping'", r"'had been sleeping|\bhad had\b'")
    assert not lint([tmp_path]).problems
    set_regex(rules, "en-de", "v1", "positive_regex", "had been sleep")
    with pytest.raises(StaleRule) as stale:  # an edit on the first view is stale now
        set_regex(rules, "en-de", "v1", "positive_regex", "y", expected=view_of(rule))
    assert stale.value.diff == ["positive_regex: 'had been sleeping' → 'had been sleep'"]
    with pytest.raises(Exception, match="changed since your edit"):
        undo_edit(edit)  # the file moved on: undo is refused, nothing written


# --- why did the rule miss ------------------------------------------------------------------


def test_closest_partial_match_of_each_regex_alternative_and_token() -> None:
    rule = Rule("x", positive_regex=r"I('d| had) been supposed to read\.|If I (found|find)",
                positive_tokens=("I was supposed to stand.",))
    found = partial_matches(rule, "I had been supposed to sleep.")
    assert (found[0].matched, found[0].missing, found[0].found) == (
        "I('d| had) been supposed to ", r"read\.", "sleep.")
    token = next(p for p in found if p.kind == "positive token")
    assert (token.matched, token.missing) == ("I ", "was supposed to stand.")
    assert alternatives(r"a(b|c)|[|]d|e\|f") == ["a(b|c)", "[|]d", r"e\|f"]
    assert partial_matches(Rule("y", positive_regex="sleep"), "I sleep.") == []  # matched


# --- spreadsheets ---------------------------------------------------------------------------


def _fill(sheet: Path, verdicts: dict[str, str], out: Path) -> None:
    with sheet.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["verdict"] = verdicts.get(row["output"], "")
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_spreadsheet_export_and_import_with_the_checks_of_verdict(project: Path) -> None:  # noqa: F811,E501
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    sheet = project / "pending.csv"
    result = runner.invoke(app, ["export", str(project / "outputs"), *base, "--out", str(sheet)])
    assert result.exit_code == 0, result.output
    assert sheet.read_bytes().startswith(b"\xef\xbb\xbf")  # spreadsheet programs need the BOM
    with sheet.open(encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["item"], r["output"], r["systems"], r["verdict"]) for r in rows] == [
        ("idiom-01", "Tom hat endlich alles verraten.", "A, B", ""),
        ("idiom-02", "Die Prüfung war leicht.", "A", "")]
    bad = project / "bad.csv"
    _fill(sheet, {"Tom hat endlich alles verraten.": "pass", "Die Prüfung war leicht.": "ok"},
          bad)
    with bad.open("a", encoding="utf-8") as handle:  # a second row, contradicting the first
        handle.write("en-de,idiom-01,,,,,,Tom hat endlich alles verraten.,,,,fail,\n")
        handle.write("en-de,nope,,,,,,x,,,,pass,\n")
    result = runner.invoke(app, ["import", str(bad), *base, "--from", str(project / "outputs")])
    assert result.exit_code == 1
    assert "bad.csv:3 (item idiom-02): verdict must be pass or fail, not 'ok'" in result.output
    assert "bad.csv:4 (item idiom-01): row 2 says pass for the same output" in result.output
    assert "bad.csv:5 (item nope): no en-de item 'nope'" in result.output
    assert not (project / "rules" / "en-de" / "verdicts.yaml").exists()  # all or nothing
    good = project / "good.csv"
    _fill(sheet, {"Tom hat endlich alles verraten.": "pass", "Die Prüfung war leicht.": "fail"},
          good)
    result = runner.invoke(app, ["import", str(good), *base, "--from", str(project / "outputs"),
                                 "--annotator", "linguist"])
    assert result.exit_code == 0, result.output
    assert "recorded 2 verdicts (1 pass, 1 fail), 3 outcomes changed" in result.output
    result = runner.invoke(app, ["import", str(good), *base, "--annotator", "linguist"])
    assert "0 verdicts" in result.output and "2 rows already recorded" in result.output


def test_import_records_each_row_for_the_pair_of_its_sheet_row(project: Path) -> None:  # noqa: F811,E501
    # A second pair with the same item id: --pair is needed, and a row's pair column wins.
    add_de_en_pair(project)
    sheet = project / "sheet.csv"
    sheet.write_text("pair,item,output,verdict\nen-de,idiom-01,Tom hat endlich alles "
                     "verraten.,pass\nde-en,idiom-01,Tom finally told.,fail\n", encoding="utf-8")
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    result = runner.invoke(app, ["import", str(sheet), *base, "--pair", "de-en"])
    assert result.exit_code == 0, result.output
    rules = load_suite([project / "suites", project / "rules"]).rules
    assert [(v.output, v.verdict) for v in rules[("en-de", "idiom-01")].verdicts] == [
        ("Tom hat endlich alles verraten.", "pass")]
    assert [(v.output, v.verdict) for v in rules[("de-en", "idiom-01")].verdicts] == [
        ("Tom finally told.", "fail")]


@pytest.mark.skipif(importlib.util.find_spec("openpyxl") is None,
                    reason="openpyxl (the optional xlsx extra) is not installed")
def test_xlsx_round_trip_keeps_ids_as_text(project: Path) -> None:  # noqa: F811
    from testsuite.verdicts.sheets import read_sheet, write_sheet

    path = project / "s.xlsx"
    write_sheet(path, [{"pair": "en-de", "item": "00123", "output": "x [/] y",
                        "verdict": "pass"}])
    rows = read_sheet(path)
    assert [(r.item, r.output, r.verdict, r.line) for r in rows] == [
        ("00123", "x [/] y", "pass", 2)]


# --- annotator agreement --------------------------------------------------------------------


@pytest.mark.parametrize("table", [[[20, 5], [10, 15]], [[45, 2], [3, 0]], [[7, 1], [2, 30]]])
def test_cohens_kappa_matches_statsmodels(table: list[list[int]]) -> None:
    from statsmodels.stats.inter_rater import cohens_kappa as reference

    labels = ("pass", "fail")
    pairs = [(labels[i], labels[j]) for i in range(2) for j in range(2)
             for _ in range(table[i][j])]
    assert math.isclose(cohen_kappa(pairs), reference(table).kappa, abs_tol=1e-12)


def test_blind_sample_and_agreement_per_category(dfki_dir: Path, wmt, tmp_path: Path) -> None:
    suite_dir = tmp_path / "dfki"
    shutil.copytree(dfki_dir, suite_dir)
    suite = load_suite([suite_dir])
    results = wmt("wmt21", "de-en").results
    # alice decided 300 outputs as the rules judge them; bob re-decides a blind sample and
    # disagrees on every fifth.
    decided = results[results["outcome"].isin(["pass", "fail"])].drop_duplicates(
        ["item", "output"]).head(300)
    for row in decided.itertuples():
        key = ("de-en", str(row.item))
        rule = suite.rules[key]
        suite.rules[key] = Rule(rule.item, rule.positive_regex, rule.negative_regex, verdicts=(
            *rule.verdicts, Verdict(str(row.output).strip(), str(row.outcome), "alice")))
    sample = blind_sample(suite, "bob", 40, seed=7, pair="de-en")
    assert len(sample) == 40 and sample == blind_sample(suite, "bob", 40, seed=7, pair="de-en")
    assert sample != blind_sample(suite, "bob", 40, seed=8, pair="de-en")
    truth = {(str(r.item), str(r.output).strip()): str(r.outcome) for r in decided.itertuples()}
    pairs = []
    for n, entry in enumerate(sample):
        first = truth[(entry.item, entry.output)]
        second = first if n % 5 else {"pass": "fail", "fail": "pass"}[first]
        pairs.append((first, second))
        key = ("de-en", entry.item)
        rule = suite.rules[key]
        suite.rules[key] = Rule(rule.item, rule.positive_regex, rule.negative_regex,
                                verdicts=(*rule.verdicts, Verdict(entry.output, second, "bob")))
    result = agreement(suite, "alice", "bob", "de-en")
    overall = result.rows[-1]
    assert (overall.category, overall.outputs, overall.agreed) == ("all", 40, 32)
    assert math.isclose(overall.kappa, cohen_kappa(pairs))
    assert sum(r.outputs for r in result.rows[:-1]) == 40
    assert len(result.disagreements) == 8


# --- the simulation of #19 ------------------------------------------------------------------


def test_triage_simulation_counts_reading_and_never_decides_against_the_oracle(
        data: Path) -> None:
    import importlib

    spec = importlib.util.spec_from_file_location("triage_sim", REPO / "bench" / "triage_sim.py")
    assert spec is not None and spec.loader is not None
    sim = importlib.util.module_from_spec(spec)
    import sys

    sys.modules["triage_sim"] = sim  # its dataclasses look their module up
    spec.loader.exec_module(sim)
    loaded = sim.load(data / "dfki-mt-testsuite" / "de-en" / "items.json",
                      [data / "wmt21" / "txt-ts"], "de-en",
                      ["Modal - pluperfect", "Modal negated - future I", "Gapping"])
    items = loaded[0]
    (none, _), (across, hurried) = sim.simulate(loaded, "de-en", ["none", "phenomenon"])
    assert none.resolved == across.resolved > 0
    distinct = sum(len([o for o, (_, v) in outputs.items() if v in ("pass", "fail")])
                   for outputs in items.values())
    # Asked once per distinct output: one decision and one output read each.
    assert none.decisions == none.reads == none.manual == distinct
    # With proposals: fewer decisions, every preview row counted as read, none against the
    # oracle for the careful annotator; the hurried one read only what fits at 80×24.
    assert across.accepted > 0 and across.decisions < none.decisions
    assert across.reads >= across.manual + across.accepted
    assert across.against_oracle == 0
    assert across.offered_outputs >= across.right_outputs > 0
    assert hurried.resolved == across.resolved and hurried.decisions > 0
    row = sim.summary(across, hurried)
    assert set(row) >= {"mode", "decisions_per_output", "reads_per_output",
                        "proposal_precision", "skim_against_oracle", "against_oracle",
                        "resolved_outputs"}


def test_agreement_commands_sample_blind_then_report(project: Path) -> None:  # noqa: F811
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    for output, verdict in (("Tom hat endlich alles verraten.", "pass"),
                            ("Die Prüfung war leicht.", "fail")):
        item = "idiom-01" if "Tom" in output else "idiom-02"
        assert runner.invoke(app, ["verdict", item, verdict, "--output", output, "--annotator",
                                   "alice", *base]).exit_code == 0
    sheet = project / "sample.csv"
    result = runner.invoke(app, ["agreement", "--second", "bob", "--sample", "5", "--seed", "3",
                                 "--out", str(sheet), *base])
    assert result.exit_code == 0, result.output
    text = sheet.read_text(encoding="utf-8-sig")
    assert "Tom hat endlich alles verraten." in text and "pass" not in text.split("\n", 1)[1]
    _fill(sheet, {"Tom hat endlich alles verraten.": "pass", "Die Prüfung war leicht.": "pass"},
          sheet)
    result = runner.invoke(app, ["import", str(sheet), "--annotator", "bob", *base])
    assert result.exit_code == 1 and "--disagree" in result.output  # never silently
    result = runner.invoke(app, ["import", str(sheet), "--annotator", "bob", "--disagree",
                                 *base])
    assert "1 disagreeing with another annotator" in result.output
    result = runner.invoke(app, ["agreement", "--first", "alice", "--second", "bob", *base])
    assert result.exit_code == 0, result.output
    assert "1 disagreements to settle" in result.output
    assert "0.500" in result.output  # raw agreement over both outputs


def test_agreement_shows_annotator_names_as_text(project: Path) -> None:  # noqa: F811
    """Annotator names come from verdicts files anyone sharing the folder writes: the
    table's title printed an ESC sequence and a bidi override raw (found by the issue 20 red
    team)."""
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    hostile = "\x1b[31mbob\u202e"
    for annotator, verdict in (("alice", "pass"), (hostile, "fail")):
        result = runner.invoke(app, ["verdict", "idiom-01", verdict, "--output",
                                     "Tom hat endlich alles verraten.", "--annotator",
                                     annotator, "--disagree", *base])
        assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["agreement", "--first", "alice", "--second", hostile, *base])
    assert result.exit_code == 0, result.output
    assert "Agreement of alice and \\x1b[31mbob\\u202e" in result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output


def test_batch_command(project: Path) -> None:  # noqa: F811
    base = ["--suite", str(project / "suites"), "--suite", str(project / "rules")]
    outputs = str(project / "outputs")
    result = runner.invoke(app, ["batch", outputs, "--verdict", "pass", "--phenomenon", "idiom",
                                 "--pattern", "verraten|leicht", "--dry-run", *base])
    assert result.exit_code == 0, result.output
    assert "would decide 2 outputs (3 outcomes) of phenomenon Idiom pass" in result.output
    assert not (project / "rules" / "en-de" / "verdicts.yaml").exists()
    result = runner.invoke(app, ["batch", outputs, "--verdict", "pass", "--phenomenon", "idiom",
                                 "--source-has", "exam", "--dry-run", *base])
    assert "would decide 1 output (1 outcome) of phenomenon Idiom pass" in result.output
    assert "Die Prüfung war leicht." in result.output and "verraten" not in result.output
    result = runner.invoke(app, ["batch", outputs, "--verdict", "fail", "--item", "idiom-02",
                                 *base])
    assert "decided 1 output (1 outcome) of item idiom-02 fail" in result.output
    result = runner.invoke(app, ["batch", outputs, "--verdict", "pass", "--item", "idiom-01",
                                 "--pattern", "(", *base])
    assert result.exit_code == 1 and "does not compile" in result.output
