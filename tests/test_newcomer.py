"""A newcomer's natural mistakes get the fix; the terminal says everything; runs are reused.

All on the real WMT21 data with the DFKI suite, through the command line as a user types it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.fixture()
def workspace(tmp_path: Path, dfki_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with the imported DFKI suite in ./dfki, as after the README."""
    (tmp_path / "dfki").symlink_to(dfki_dir, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_forgetting_the_suite_names_the_suite_that_fits(workspace: Path, data: Path) -> None:
    code, output = run("score", str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "-q")
    assert code == 1
    assert "none of the 373 de-en items of the bundled suite is in this WMT source" in output
    assert "they fit the suite in dfki (2,748 of 2,767 items found): pass --suite dfki" in output
    code, output = run("evaluate", str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "-q")
    assert code == 1 and "pass --suite dfki" in output


def test_a_pair_the_files_do_not_have_lists_those_they_have(workspace: Path, data: Path) -> None:
    code, output = run("score", str(data / "wmt21" / "txt-ts"), "--pair", "de-fr", "--suite",
                       "dfki", "-q")
    assert code == 1
    assert "no de-fr outputs" in output and "its WMT files are for: de-en, en-de" in output



def test_the_suite_that_fits_is_found_in_a_source_of_another_encoding(workspace: Path,
                                                                      data: Path) -> None:
    # A German WMT source kept in Latin-1: read with --encoding, and so is the suggestion.
    txt_ts = data / "wmt21" / "txt-ts"
    for part in ("sources/newstest2021.de-en.src.de",
                 "system-outputs/newstest2021.de-en.hyp.Online-A.en"):
        copy = workspace / "latin1" / part
        copy.parent.mkdir(parents=True, exist_ok=True)
        text = (txt_ts / part).read_text(encoding="utf-8")
        copy.write_bytes(text.encode("latin-1", errors="replace"))
    code, output = run("score", "latin1", "--pair", "de-en", "--encoding", "latin-1", "-q")
    assert code == 1
    assert "none of the 373 de-en items of the bundled suite is in this WMT source" in output
    assert re.search(r"they fit the suite in dfki \(2,7\d\d of 2,767 items found\): pass "
                     r"--suite dfki", output), output

@pytest.mark.parametrize("where", ["system-outputs",
                                   "system-outputs/newstest2021.de-en.hyp.Online-A.en"])
def test_wmt_hypotheses_without_their_source(workspace: Path, data: Path, where: str) -> None:
    txt_ts = data / "wmt21" / "txt-ts"
    code, output = run("score", str(txt_ts / where), "--pair", "de-en", "--suite", "dfki", "-q")
    assert code == 1
    assert "named like WMT hypotheses" in output
    assert f"give the whole txt-ts folder ({txt_ts})" in output
    assert "--source " + str(txt_ts / "sources" / "newstest2021.de-en.src.de") in output


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_results_files_are_not_outputs(workspace: Path, data: Path, suffix: str) -> None:
    code, _ = run("evaluate", str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "--suite",
                  "dfki", "-q", "--out", f"results{suffix}")
    assert code == 0
    code, output = run("score", f"results{suffix}", "--suite", "dfki", "-q")
    assert code == 1
    assert "results file written by `testsuite evaluate --out`" in output
    assert "--save DIR" in output


def test_the_dfki_json_as_suite_says_import_it(workspace: Path, data: Path) -> None:
    items = data / "dfki-mt-testsuite" / "de-en" / "items.json"
    code, output = run("score", str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "--suite",
                       str(items), "-q")
    assert code == 1
    assert len(output.strip().splitlines()) == 1  # one message, not 5,536
    assert f"testsuite import-dfki {items} --out DIR" in output


def test_help_reads_like_a_manual_page() -> None:
    for command in ([], ["score"], ["compare"], ["evaluate"], ["lint"]):
        code, output = run(*command, "--help")
        assert code == 0
        assert "<bool>" not in output and "{" not in output and "<list[" not in output
    assert "Usage: testsuite score [OPTIONS] OUTPUTS..." in run("score", "--help")[1]


def test_repeated_sources_are_reported_and_a_policy_chosen(workspace: Path, data: Path) -> None:
    base = ["evaluate", str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "--suite", "dfki",
            "-q"]
    code, output = run(*base)
    assert "355 items occur more than once in the source" in output
    assert "Online-W translated the occurrences of 164 of them differently" in output
    scores = {}
    for policy in ("first", "last", "agree"):
        code, output = run("score", *base[1:], "--repeated", policy, "--format", "json",
                           "--table", "categories")
        assert code == 0, output
        scores[policy] = json.loads(output)
    assert scores["first"]["coverage"]["entered"] == 1879  # the published number
    assert scores["last"]["coverage"]["entered"] != scores["first"]["coverage"]["entered"]
    # agree: occurrences judged differently become warnings, so fewer items enter
    assert scores["agree"]["coverage"]["entered"] < scores["first"]["coverage"]["entered"]
    assert any("an item whose occurrences got different outcomes is a warning" in n["text"]
               for n in scores["agree"]["notes"])


def test_items_not_located_are_listed(workspace: Path, data: Path) -> None:
    base = [str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "--suite", "dfki", "-q"]
    code, output = run("evaluate", *base, "--not-located")
    listed = re.search(r"not located: (.*)", output)
    assert listed is not None and len(listed.group(1).split(", ")) == 19
    code, output = run("score", *base, "--format", "json", "--table", "categories")
    document = json.loads(output)
    assert sorted(document["coverage"]["not_located_items"]) == sorted(
        listed.group(1).split(", "))


def test_terminal_shows_what_was_asked(workspace: Path, data: Path) -> None:
    base = ["score", str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "--suite", "dfki", "-q",
            "--table", "categories"]
    code, output = run(*base, "--clusters", "--bounds")
    assert code == 0
    # Not a terminal: the first cluster is marked with * too, and every mark is explained.
    assert re.search(r"\d+\.\d\*", output)
    assert "bold and *: first performance cluster" in output
    # (notes and legends are wrapped between words at the terminal's width)
    assert "(cN, a–b): full performance cluster N and rank range a–b" in " ".join(
        output.split())
    assert re.search(r"\d+\.\d\*? \[\d+\.\d–\d+\.\d\] \(c\d+, \d+(–\d+)?\)", output)
    assert "left out: UF" in output  # the system that did not translate is named
    code, markdown = run(*base, "--clusters", "--format", "markdown")
    assert re.search(r"\*\*\d+\.\d\*\* \(c1, 1(–\d+)?\)", markdown)
    code, latex = run(*base, "--clusters", "--format", "latex")
    assert r"\textsuperscript{c1, 1" in latex and "Left out: UF" in latex  # a sentence
    code, csv = run(*base, "--format", "csv")
    assert {line.split(",")[1] for line in csv.splitlines()[1:]} == {
        "category", "micro", "category-macro"}


def test_a_saved_run_is_read_by_every_command(workspace: Path, data: Path, wmt,
                                              dfki_suite) -> None:
    from testsuite.reports.render import render
    from testsuite.scoring import score

    code, _ = run("evaluate", str(data / "wmt21" / "txt-ts"), "--pair", "de-en", "--suite",
                  "dfki", "-q", "--save", "runs/wmt21-de-en", "--campaign", "wmt21")
    assert code == 0
    metadata = json.loads((workspace / "runs" / "wmt21-de-en" / "run.json").read_text())
    assert metadata["suite"] == [str((workspace / "dfki").resolve())]
    # Scored straight from the outputs (the shared evaluation) ...
    direct = json.loads(render([score(wmt("wmt21", "de-en"), dfki_suite, "de-en")], "json"))
    # ... and from the run, with no --suite: the run knows its suite.
    from_run = json.loads(run("score", "runs/wmt21-de-en", "-q", "--format", "json")[1])
    assert from_run["rows"] == direct["rows"] and from_run["signature"] == direct["signature"]
    for command in (["item-analysis", "runs/wmt21-de-en", "-q"],
                    ["report", "runs/wmt21-de-en", "-q", "--out", "r.html"],
                    ["plot", "runs/wmt21-de-en", "-q", "--out", "charts"]):
        code, output = run(*command)
        assert code == 0, output
    code, output = run("score", "runs/wmt21-de-en", str(data / "wmt21" / "txt-ts"))
    assert code == 1 and "a saved run is read on its own" in output


def test_an_unchanged_evaluation_is_not_judged_twice(tmp_path: Path, data: Path, dfki_dir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """score, then report, then plot on the same outputs: judged once; any change is seen."""
    import shutil

    from testsuite import evaluate as evaluate_module
    from testsuite.inputs import InputSpec, load_evaluation

    monkeypatch.setenv("TESTSUITE_CACHE_DIR", str(tmp_path / "cache"))
    suite_dir = tmp_path / "dfki"
    shutil.copytree(dfki_dir, suite_dir)
    outputs = tmp_path / "outputs"  # a copy of the de-en files only (one is changed below)
    txt_ts = data / "wmt21" / "txt-ts"
    for folder, pattern in (("sources", "*.de-en.src.*"), ("system-outputs", "*.de-en.hyp.*")):
        (outputs / folder).mkdir(parents=True)
        for file in (txt_ts / folder).glob(pattern):
            shutil.copy2(file, outputs / folder / file.name)
    spec = InputSpec((outputs,), pair="de-en", suite=(suite_dir,))
    calls = []
    real = evaluate_module.evaluate

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "evaluate", counting)
    _, first = load_evaluation(spec)
    _, again = load_evaluation(spec)
    assert len(calls) == 1  # the second came from the cache ...
    assert again.columns == first.columns and again.located["de-en"].lines == \
        first.located["de-en"].lines  # ... and is the same evaluation
    # Another option, a new verdict, or a changed output file: judged again.
    load_evaluation(InputSpec((outputs,), pair="de-en", suite=(suite_dir,),
                              normalise="typographic"))
    assert len(calls) == 2
    from testsuite.loader import load_suite
    from testsuite.verdicts.queue import decide

    columns = first.columns
    row = columns["outcome"].index("warning")
    decide(load_suite([suite_dir]), "de-en", columns["item"][row], columns["output"][row],
           "pass", annotator="test")
    _, decided = load_evaluation(spec)
    assert len(calls) == 3
    assert decided.columns["outcome"][row] == "pass"
    hypothesis = outputs / "system-outputs" / f"newstest2021.de-en.hyp.{columns['system'][row]}.en"
    text = hypothesis.read_text(encoding="utf-8")
    hypothesis.write_text(text.replace(columns["output"][row], "Something else entirely."),
                          encoding="utf-8")
    _, changed = load_evaluation(spec)
    assert len(calls) == 4
    assert changed.columns["output"][row] == "Something else entirely."
