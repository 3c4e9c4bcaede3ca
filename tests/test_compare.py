"""Year-over-year comparison: real WMT21 → WMT22 runs, verdicts after saving, suite changes.

Expected deltas are recomputed here from the two runs' saved `outcomes.jsonl` with plain
Python (common items, passes), independently of testsuite/compare.py.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path
from textwrap import dedent

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.compare import CompareOptions, canonical, compare
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import load_suite
from testsuite.reports.compare_render import render_comparison
from testsuite.reports.html import comparison_html
from testsuite.runs import load_run, save_run
from testsuite.verdicts.queue import decide

runner = CliRunner()
ONLINE = {"Online-A", "Online-B", "Online-G", "Online-W", "Online-Y"}


@pytest.fixture(scope="module")
def saved_runs(wmt, dfki_suite, dfki_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """WMT21 and WMT22 runs, both directions, saved from the shared evaluations (the CLI's
    `evaluate --save` is the same `save_run`; tests/test_newcomer.py drives it)."""
    root = tmp_path_factory.mktemp("runs")
    for campaign in ("wmt21", "wmt22"):
        for pair in ("de-en", "en-de"):
            save_run(root / f"{campaign}-{pair}", wmt(campaign, pair), dfki_suite,
                     campaign=campaign, suite_paths=[dfki_dir])
    return root


def by_hand(root: Path, pair: str):
    """Common items and passes per (run, system) from the saved outcomes of both years."""
    outcomes = {}
    for campaign in ("wmt21", "wmt22"):
        table = defaultdict(dict)
        for line in (root / f"{campaign}-{pair}" / "outcomes.jsonl").read_text().splitlines():
            record = json.loads(line)
            if record["system"] in ONLINE:
                table[record["item"]][record["system"]] = record["outcome"]
        outcomes[campaign] = table
    common = [item for item in outcomes["wmt21"] if item in outcomes["wmt22"]
              and all(set(outcomes[c][item].values()) <= {"pass", "fail"}
                      and len(outcomes[c][item]) == len(ONLINE) for c in outcomes)]
    passes = {(c, s): sum(outcomes[c][i][s] == "pass" for i in common)
              for c in outcomes for s in ONLINE}
    return common, passes


@pytest.mark.parametrize("pair", ["de-en", "en-de"])
def test_real_wmt21_to_wmt22(saved_runs, dfki_dir, pair):
    suite = load_suite([dfki_dir])
    runs = [load_run(saved_runs / f"{c}-{pair}", suite) for c in ("wmt22", "wmt21")]
    comparison = compare(runs, pair)
    assert comparison.runs == ["wmt21", "wmt22"]  # ordered by year, not by argument
    assert set(comparison.systems) == ONLINE  # the online systems are in both years
    common, passes = by_hand(saved_runs, pair)
    assert comparison.items == len(common)
    table = comparison.table
    for system in ("Online-B", "Online-Y", "Online-W"):
        micro = table[(table["level"] == "micro") & (table["system"] == system)]
        by_run = micro.set_index("run")
        expected = (passes[("wmt22", system)] - passes[("wmt21", system)]) / len(common)
        assert by_run.at["wmt22", "delta"] == pytest.approx(expected)
        assert by_run.at["wmt21", "passes"] == passes[("wmt21", system)]
    # regressions + improvements explain every change of passes
    for system in ONLINE:
        part = comparison.changes[comparison.changes["system"] == system]
        counted = (part["change"] == "improved").sum() - (part["change"] == "regressed").sum()
        assert counted == passes[("wmt22", system)] - passes[("wmt21", system)]


def test_compare_command_every_format(saved_runs, dfki_dir, tmp_path):
    base = ["compare", str(saved_runs / "wmt21-en-de"), str(saved_runs / "wmt22-en-de"),
            "--suite", str(dfki_dir)]
    result = runner.invoke(app, base)
    assert result.exit_code == 0, result.output
    assert "Year over year (en-de): wmt21 → wmt22" in result.output
    assert "Best system of each run" in result.output
    assert "left out (did not translate): UF, WeChat-AI" in result.output
    result = runner.invoke(app, [*base, "--format", "json", "--out", str(tmp_path / "c.json")])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "c.json").read_text())
    assert document["runs"] == ["wmt21", "wmt22"] and set(document["systems"]) == ONLINE
    # The other formats render the same comparison (the command only picks the renderer).
    suite = load_suite([dfki_dir])
    comparison = compare([load_run(saved_runs / f"{c}-en-de", suite) for c in ("wmt21",
                                                                               "wmt22")],
                         "en-de")
    assert render_comparison(comparison, "csv").startswith("level,category,system,run")
    latex = render_comparison(comparison, "latex")
    assert r"\multicolumn{2}{c}{Online-B}" in latex and "wmt21 & wmt22" in latex
    page = comparison_html(comparison)
    assert '<th colspan="2" scope="colgroup">Online-B</th>' in page and "<svg" in page
    assert "regressed" in page and "improved" in page


def test_a_verdict_recorded_after_saving_changes_the_old_run(saved_runs, dfki_dir, tmp_path):
    suite_dir = tmp_path / "dfki"
    shutil.copytree(dfki_dir, suite_dir)
    suite = load_suite([suite_dir])
    before = compare([load_run(saved_runs / f"{c}-de-en", suite) for c in ("wmt21", "wmt22")],
                     "de-en")
    # A wmt21 warning shared by online systems: deciding it lets the item in (or changes it).
    old = load_run(saved_runs / "wmt21-de-en", suite).evaluation.results
    warning = old[(old["outcome"] == "warning") & old["system"].isin(ONLINE)].iloc[0]
    decide(suite, "de-en", warning["item"], warning["output"], "pass", annotator="test")
    suite = load_suite([suite_dir])
    rerun = load_run(saved_runs / "wmt21-de-en", suite)
    assert rerun.rejudged == 1  # only the item whose rule (its verdicts) changed
    assert "1 items judged again because their rules changed since" in rerun.note
    assert rerun.evaluation.results.set_index(["system", "item"]).at[
        (warning["system"], warning["item"]), "outcome"] == "pass"
    after = compare([rerun, load_run(saved_runs / "wmt22-de-en", suite)], "de-en")
    assert after.table.to_dict() != before.table.to_dict()


def test_run_saved_by_an_older_suite(tmp_path):
    suite_v1 = tmp_path / "v1"
    (suite_v1 / "suites").mkdir(parents=True)
    (suite_v1 / "rules").mkdir()
    items = "\n".join(f"  - {{id: i{n}, phenomenon: P, source: Satz {n}.}}" for n in range(6))
    (suite_v1 / "suites" / "s.yaml").write_text(f"pair: de-en\ncategory: C\nitems:\n{items}\n")
    rules = "\n".join(f"  - {{item: i{n}, positive_regex: good, negative_regex: bad}}"
                      for n in range(6))
    (suite_v1 / "rules" / "r.yaml").write_text(f"pair: de-en\nrules:\n{rules}\n")
    outputs = tmp_path / "out"
    outputs.mkdir()
    def write(name: str, words: str) -> None:
        # distinct sentences: a system repeating one line would count as not translating
        lines = [f"Sentence {n} is {word}." for n, word in enumerate(words.split())]
        (outputs / f"{name}.txt").write_text("\n".join(lines) + "\n")

    write("ONLINE-A", "good good bad good good good")
    write("Other", "bad bad bad bad bad good")
    suite = load_suite([suite_v1])
    systems, _ = load_outputs(suite, [outputs])
    save_run(tmp_path / "old", evaluate(suite, systems), suite, campaign="demo2021")
    # The suite moves on: i5 is removed, i6 added, i4's source is reworded.
    suite_v2 = tmp_path / "v2"
    shutil.copytree(suite_v1, suite_v2)
    text = (suite_v2 / "suites" / "s.yaml").read_text()
    text = text.replace("  - {id: i5, phenomenon: P, source: Satz 5.}\n",
                        "  - {id: i6, phenomenon: P, source: Satz 6.}\n")
    text = text.replace("Satz 4.", "Ein anderer Satz 4.")
    (suite_v2 / "suites" / "s.yaml").write_text(text)
    (suite_v2 / "rules" / "r.yaml").write_text(
        (suite_v2 / "rules" / "r.yaml").read_text().replace("item: i5", "item: i6"))
    (outputs / "ONLINE-A.txt").unlink()
    suite = load_suite([suite_v2])
    # the new year's outputs cover i0–i4 (i4 with its new source) and i6; no i5
    write("Online-A", "good good good good good good")
    write("Other", "bad bad bad bad bad good")
    systems, _ = load_outputs(suite, [outputs])
    save_run(tmp_path / "new", evaluate(suite, systems), suite, campaign="demo2022")
    runs = [load_run(tmp_path / "old", suite), load_run(tmp_path / "new", suite)]
    assert runs[0].removed == {"de-en": ["i5"]} and runs[0].changed == {"de-en": ["i4"]}
    comparison = compare(runs, "de-en")
    assert comparison.systems[0] == "Online-A"  # matched with ONLINE-A of the old run
    assert comparison.names["Online-A"] == {"demo2021": "ONLINE-A", "demo2022": "Online-A"}
    assert comparison.items == 4  # i0–i3: i4 changed, i5 removed, i6 new
    notes = " ".join(comparison.notes)
    assert "1 items removed from the suite since it was saved were left out (e.g. i5)" in notes
    assert "1 items whose source sentence changed since it was saved" in notes
    micro = comparison.table[(comparison.table["level"] == "micro")
                             & (comparison.table["system"] == "Online-A")].set_index("run")
    # i2 was "bad" (fail) in the old run and "good" (pass) now: 3/4 → 4/4
    assert micro.at["demo2022", "delta"] == pytest.approx(0.25)


def two_item_suite(tmp_path: Path):
    """A de-en suite of two items whose outputs pass on 'good' and fail on 'bad'."""
    suite_dir = tmp_path / "suite"
    (suite_dir / "suites").mkdir(parents=True)
    (suite_dir / "suites" / "s.yaml").write_text(dedent("""
        pair: de-en
        category: C
        items:
          - {id: a, phenomenon: P, source: Eins.}
          - {id: b, phenomenon: P, source: Zwei.}
    """))
    (suite_dir / "suites" / "r.yaml").write_text(dedent("""
        pair: de-en
        rules:
          - {item: a, positive_regex: good, negative_regex: bad}
          - {item: b, positive_regex: good, negative_regex: bad}
    """))
    return load_suite([suite_dir])


def test_renamed_systems_are_matched_with_a_map(tmp_path):
    assert canonical("Online-A") == canonical("ONLINE-A") == canonical("online_a")
    suite = two_item_suite(tmp_path)
    for campaign, name in (("y2021", "OldName"), ("y2022", "NewName")):
        folder = tmp_path / campaign
        folder.mkdir()
        (folder / f"{name}.txt").write_text("It is good.\nIt is bad.\n")
        systems, _ = load_outputs(suite, [folder])
        save_run(tmp_path / f"run-{campaign}", evaluate(suite, systems), suite,
                 campaign=campaign)
    runs = [load_run(tmp_path / f"run-{c}", suite) for c in ("y2021", "y2022")]
    with pytest.raises(Exception, match="no system is in every run"):
        compare(runs, "de-en")
    comparison = compare(runs, "de-en", CompareOptions(mapping=(("OldName", "NewName"),)))
    assert comparison.systems == ["NewName"]


def test_a_copied_run_is_told_apart_by_its_folder(tmp_path):
    """A run copied to another folder keeps its campaign and name: the comparison names
    each by its folder (both were one column, the copy's systems counted twice)."""
    suite = two_item_suite(tmp_path)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "Sys.txt").write_text("It is good.\nIt is bad.\n")
    systems, _ = load_outputs(suite, [outputs])
    save_run(tmp_path / "run", evaluate(suite, systems), suite, campaign="wmt21")
    shutil.copytree(tmp_path / "run", tmp_path / "copy")
    first, copy = (load_run(tmp_path / name, suite) for name in ("run", "copy"))
    assert first.label == copy.label == "wmt21"
    comparison = compare([first, copy], "de-en")
    assert comparison.runs == [str(tmp_path / "run"), str(tmp_path / "copy")]
    assert comparison.systems == ["Sys"]
    with pytest.raises(Exception, match="given twice"):
        compare([first, first], "de-en")
