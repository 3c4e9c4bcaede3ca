"""A newcomer's second hour (issue 23): no hang, no misleading hint, one set of option names.

Each natural mistake gets one line that names the fix, with the exit status the README
promises (1 an input it cannot use, 2 a wrong command line); nothing succeeds silently or
wrongly. On the bundled suites and samples, and on the real data where the mistake needs it.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
runner = CliRunner()


def run(*args: object) -> tuple[int, str]:
    """Exit status and output (stdout and stderr) of a command run in process."""
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def boxed(output: str) -> str:
    """The text of typer's error box (exit status 2) on one line."""
    return " ".join(output.replace("│", " ").split())


@pytest.fixture()
def mine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the bundled suites to decide on (as the README's work/mine), as cwd."""
    for folder in ("suites", "rules"):
        shutil.copytree(REPO / folder, tmp_path / "mine" / folder)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "mine"


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "testsuite", *args]


# --- 1. triage without a terminal ------------------------------------------------------------


def test_triage_without_a_terminal_says_so_and_exits_at_once(mine: Path, tmp_path: Path) -> None:
    """No stdin, stdout to a file, no controlling terminal: it used to hang for good and
    write control codes into the file."""
    out = tmp_path / "out.txt"
    with out.open("wb") as stdout:
        result = subprocess.run(
            command("triage", str(SAMPLES / "de-en"), "--pair", "de-en", "--suite", str(mine)),
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE,
            start_new_session=True, timeout=120, cwd=tmp_path)
    message = result.stderr.decode()
    assert result.returncode == 1, message
    assert errors(message) == [message.strip()]  # one line
    assert message.startswith("error: triage needs a terminal (standard input is not a "
                              "terminal): without one, list the open warnings with "
                              "`testsuite pending`")
    for named in ("testsuite pending", "testsuite export", "testsuite import",
                  "testsuite verdict"):
        assert named in message
    assert out.read_bytes() == b""
    assert b"\x1b" not in result.stderr


def test_triage_on_a_terminal_that_is_not_the_controlling_one_refuses_too(
        mine: Path, tmp_path: Path) -> None:
    """Every stream a pseudo-terminal, but a new session without a controlling terminal."""
    import pty

    leader, follower = pty.openpty()
    try:
        result = subprocess.run(
            command("triage", str(SAMPLES / "de-en"), "--pair", "de-en", "--suite", str(mine)),
            stdin=follower, stdout=follower, stderr=follower, start_new_session=True,
            timeout=120, cwd=tmp_path)
        os.close(follower)
        follower = -1
        written = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the other side is closed and everything was read
                break
            if not chunk:
                break
            written += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", written.decode())  # the error is in colour here
    assert result.returncode == 1, text
    assert "error: triage needs a terminal (there is no controlling terminal)" in text
    assert "\x1b[?1049h" not in text  # Textual never switched to its screen


def test_triage_help_says_it_needs_a_terminal_and_lists_its_keys() -> None:
    from testsuite.tui.app import TriageApp

    code, output = run("triage", "--help")
    assert code == 0
    text = " ".join(output.replace("│", " ").split())
    assert "It needs a terminal" in text and "testsuite pending" in text
    shown = [b for b in TriageApp.BINDINGS if getattr(b, "show", True)]
    assert shown
    for binding in shown:
        assert f"{binding.key} {binding.description}" in text, binding
    for key in ("e/E edit", "/ filter", "tab then"):
        assert key in text


@pytest.mark.parametrize("name", ["triage", "lint", "verdict", "compare"])
def test_help_paragraphs_are_reflowed(name: str) -> None:
    """Typer keeps the docstring's line breaks after the first paragraph; a narrow terminal
    then broke each source line once more ("… an item\\n id or a\\n text")."""
    output = run(name, "--help")[1]
    prose = output[:output.index("╭")].splitlines()
    for line, following in zip(prose, prose[1:], strict=False):
        if line.strip() and following.strip():  # a line inside a paragraph is a full one
            assert len(line.rstrip()) > 45, (line, following)


# --- 2. misleading answers --------------------------------------------------------------------


def test_the_dfki_items_json_given_as_outputs(data: Path, mine: Path) -> None:
    items = data / "dfki-mt-testsuite" / "de-en" / "items.json"
    code, output = run("score", items, "--pair", "de-en", "-q")
    assert code == 1
    assert errors(output) == [
        f"error: {items}: this is a DFKI test suite (items and rules), not system outputs: "
        f"convert it with `testsuite import-dfki {items} --out DIR`, then pass --suite DIR "
        "and the systems' outputs (such as a WMT txt-ts folder) as OUTPUTS"]


def test_outputs_of_the_other_pair_are_named_as_such(mine: Path) -> None:
    code, output = run("score", SAMPLES / "en-de", "--pair", "de-en", "-q")
    assert code == 1
    [line] = errors(output)  # not one "unknown de-en item" line per output
    assert "item ids here are en-de items and not de-en ones" in line
    assert line.endswith("these are en-de outputs, so pass --pair en-de")


def test_aligned_outputs_of_the_other_pair_are_named_as_such(mine: Path, tmp_path: Path
                                                            ) -> None:
    code, output = run("sources", "--pair", "en-de", "--out", tmp_path / "sources.en")
    assert code == 0, output
    outputs = tmp_path / "Mine.de"
    shutil.copy(tmp_path / "sources.en", outputs)  # 361 lines: one per en-de source
    code, output = run("score", outputs, "--pair", "de-en", "-q")
    assert code == 1
    assert errors(output) == [f"error: {outputs}: has 361 lines, as many as the en-de sources, "
                              "not the 373 de-en ones: these are en-de outputs, so pass "
                              "--pair en-de"]
    assert run("score", outputs, "--pair", "en-de", "-q")[0] == 0


def test_the_folder_above_txt_ts(data: Path, mine: Path) -> None:
    code, output = run("score", data / "wmt21", "--pair", "de-en", "-q")
    assert code == 1
    assert errors(output) == [f"error: no system output files in {data / 'wmt21'} itself; the "
                              f"folder below holds them: pass {data / 'wmt21' / 'txt-ts'}"]
    # The data folder has a README.md beside the years: never read as a system's outputs.
    code, output = run("score", data, "--pair", "de-en", "-q")
    assert code == 1
    [line] = errors(output)
    assert "README" not in line
    assert line.endswith(f"pass {data / 'wmt21' / 'txt-ts'} or {data / 'wmt22' / 'txt-ts'}")


def test_a_folder_of_folders_of_outputs_names_them(mine: Path) -> None:
    code, output = run("score", SAMPLES, "--pair", "de-en", "-q")
    assert code == 1
    assert errors(output) == [f"error: no system output files in {SAMPLES} itself; the folder "
                              f"below holds them: pass {SAMPLES / 'de-en'}"]


def test_a_readme_beside_the_outputs_is_not_a_system(mine: Path, tmp_path: Path) -> None:
    outputs = shutil.copytree(SAMPLES / "de-en", tmp_path / "outputs")
    (outputs / "README.md").write_text("# My outputs\n\nMade on Monday.\n", encoding="utf-8")
    code, output = run("evaluate", outputs, "--pair", "de-en", "-q")
    assert code == 0, output
    assert "README" not in output and "Sample-A" in output


@pytest.mark.parametrize(("name", "fix"), [
    ("sys.en", "it should hold the system's translations of the 373 de-en sources of "
               "`testsuite sources`, one per line"),
    ("sys.tsv", "it should hold item<TAB>output (or system<TAB>item<TAB>output) lines"),
])
def test_an_empty_output_file(mine: Path, tmp_path: Path, name: str, fix: str) -> None:
    empty = tmp_path / name
    empty.write_bytes(b"")
    code, output = run("score", empty, "--pair", "de-en", "-q")
    assert code == 1
    assert errors(output) == [f"error: {empty}: is empty: {fix}"]


def test_an_empty_wmt_hypothesis_file(data: Path, tmp_path: Path, dfki_dir: Path) -> None:
    txt_ts = tmp_path / "txt-ts"
    (txt_ts / "sources").mkdir(parents=True)
    (txt_ts / "system-outputs").mkdir()
    source = "newstest2021.de-en.src.de"
    shutil.copy(data / "wmt21" / "txt-ts" / "sources" / source, txt_ts / "sources" / source)
    empty = txt_ts / "system-outputs" / "newstest2021.de-en.hyp.Mine.en"
    empty.write_bytes(b"")
    code, output = run("score", txt_ts, "--suite", dfki_dir, "-q")
    assert code == 1
    [line] = errors(output)
    assert line.startswith(f"error: {empty}: is empty: it should hold the system's "
                           "translations of the ")


def test_one_broken_yaml_line_is_one_error_not_sixty(mine: Path) -> None:
    suite = mine / "suites" / "de-en" / "mwe.yaml"
    lines = suite.read_text(encoding="utf-8").splitlines(keepends=True)
    source = next(n for n, line in enumerate(lines) if line.strip().startswith("source: '"))
    lines[source] = lines[source].rstrip().rstrip("'") + "\n"  # an unclosed quote
    suite.write_text("".join(lines), encoding="utf-8")
    code, output = run("lint", mine)
    assert code == 1
    reported = [line for line in output.splitlines() if line.startswith(("error:", "problem:"))]
    assert len(reported) == 2, reported
    assert reported[0].startswith(f"error: {suite}:") and "malformed YAML" in reported[0]
    assert reported[1].startswith(f"problem: {mine / 'rules' / 'de-en' / 'mwe.yaml'}:")
    assert f"rules for items that were not read (e.g. 'idiom-01'): they follow from the error " \
           f"in {suite}; fix it first" in reported[1]
    code, output = run("score", SAMPLES / "de-en", "--pair", "de-en", "--suite", mine, "-q")
    assert code == 1 and len(errors(output)) == 1


def test_a_broken_rules_file_does_not_bury_its_error_under_its_items(mine: Path) -> None:
    rules = mine / "rules" / "de-en" / "negation.yaml"
    rules.write_text(rules.read_text(encoding="utf-8") + "  - [\n", encoding="utf-8")
    code, output = run("lint", mine)
    assert code == 1
    reported = [line for line in output.splitlines() if line.startswith(("error:", "problem:"))]
    assert len(reported) == 2, reported
    assert "items whose rules were not read" in reported[1] and str(rules) in reported[1]


def test_a_semicolon_separated_sheet(mine: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "pending.csv"
    code, output = run("export", SAMPLES / "de-en", "--pair", "de-en", "--suite", mine,
                       "--out", sheet)
    assert code == 0, output
    rows = list(csv.reader(sheet.open(encoding="utf-8-sig", newline="")))
    rows[1][rows[0].index("verdict")] = "pass"
    semicolons = tmp_path / "semicolons.csv"
    with semicolons.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter=";").writerows(rows)
    code, output = run("import", semicolons, "--pair", "de-en", "--suite", mine)
    assert code == 1
    assert errors(output) == [
        f"error: {semicolons}:1: missing column(s): item, output, verdict (its columns are "
        "separated by semicolons: save it as CSV with commas, or as .xlsx)"]


def test_a_system_left_out_is_named_with_the_reason(data: Path, dfki_dir: Path) -> None:
    for name in ("UF", "uf"):
        code, output = run("score", data / "wmt21" / "txt-ts", "--pair", "de-en", "--suite",
                           dfki_dir, "--system", name, "-q")
        assert code == 1
        assert errors(output) == [
            f"error: --system {name}: UF is left out of every score, because 2,748 of its "
            "2,748 outputs are the placeholder '####' (it did not translate this suite); "
            "choose another system"]


def test_the_library_says_why_a_system_is_left_out_as_the_commands_do(tmp_path: Path) -> None:
    """`score` and `item_analysis` themselves, not only the command line: a Python caller
    got "unknown system: Lazy (known: …)" for a system that is in the outputs."""
    from testsuite.errors import TestsuiteError
    from testsuite.evaluate import evaluate
    from testsuite.inputs import load_outputs
    from testsuite.loader import load_suite
    from testsuite.scoring import ScoreOptions, item_analysis, score

    outputs = shutil.copytree(SAMPLES / "de-en", tmp_path / "outputs")
    (outputs / "Lazy.txt").write_text("####\n" * 373, encoding="utf-8")
    suite = load_suite([REPO / "suites" / "de-en", REPO / "rules" / "de-en"])
    systems, located = load_outputs(suite, [outputs], pair="de-en")
    evaluation = evaluate(suite, systems, located=located)
    for analyse in (score, item_analysis):
        with pytest.raises(TestsuiteError) as refused:
            analyse(evaluation, suite, "de-en", ScoreOptions(systems=("lazy",)))
        assert [str(p) for p in refused.value.problems] == [
            "--system lazy: Lazy is left out of every score, because 373 of its 373 outputs "
            "are the placeholder '####' (it did not translate this suite); choose another "
            "system"]


# --- 3. silent or wrong success ---------------------------------------------------------------


def test_pending_for_a_system_left_out_says_why_there_is_nothing(mine: Path,
                                                                 tmp_path: Path) -> None:
    """It printed nothing and exited 0: the system did not translate the suite."""
    outputs = shutil.copytree(SAMPLES / "de-en", tmp_path / "outputs")
    (outputs / "Lazy.txt").write_text("####\n" * 373, encoding="utf-8")
    code, output = run("pending", outputs, "--pair", "de-en", "--suite", mine, "--system",
                       "lazy", "-q")
    assert code == 0
    assert output.strip() == ("nothing to decide (Lazy: 373 of 373 outputs are the placeholder "
                              "'####'; the system did not translate this suite and is left "
                              "out)")


def test_suggest_with_nothing_to_suggest_says_so(mine: Path) -> None:
    code, output = run("suggest", SAMPLES / "de-en", "--pair", "de-en", "--suite", mine)
    assert code == 0
    assert output.strip() == (
        "nothing to suggest: what was decided carries no pending output with an estimated "
        "precision of 0.99 (decide more outputs first: testsuite triage, or testsuite "
        "verdict)")


def pending_entry(mine: Path) -> dict[str, str]:
    code, output = run("pending", SAMPLES / "de-en", "--pair", "de-en", "--suite", mine)
    assert code == 0, output
    return json.loads(output.splitlines()[0])


def test_a_verdict_is_checked_against_the_outputs_when_they_are_given(mine: Path) -> None:
    entry = pending_entry(mine)
    code, output = run("verdict", entry["item"], "pass", SAMPLES / "de-en", "--pair", "de-en",
                       "--suite", mine, "--output", "xyz")
    assert code == 1
    assert f"no system produced the output 'xyz' for item {entry['item']} (a typo?)" in output
    code, output = run("verdict", entry["item"], "pass", SAMPLES / "de-en", "--pair", "de-en",
                       "--suite", mine, "--output", entry["output"])
    assert code == 0, output
    assert "changes 1 outcome" in output or "outcome" in output


def test_a_verdict_without_the_outputs_warns_that_it_was_not_checked(mine: Path) -> None:
    entry = pending_entry(mine)
    code, output = run("verdict", entry["item"], "pass", "--pair", "de-en", "--suite", mine,
                       "--output", "xyz")
    assert code == 0
    assert ("warning: the output was not checked against the systems' outputs (a typo would "
            "be recorded as typed): give them after the verdict, testsuite verdict ITEM "
            "VERDICT OUTPUTS... --output TEXT") in output


@pytest.fixture()
def runs(mine: Path) -> tuple[Path, Path]:
    made = []
    for name in ("y1", "y2"):
        code, output = run("evaluate", SAMPLES / "de-en", "--pair", "de-en", "--suite", mine,
                           "-q", "--save", f"runs/{name}", "--campaign", name)
        assert code == 0, output
        made.append(Path("runs") / name)
    return made[0], made[1]


def test_compare_refuses_the_same_run_twice(runs: tuple[Path, Path]) -> None:
    first, _ = runs
    code, output = run("compare", first, first)
    assert code == 2
    assert (f"Invalid value for RUNS: {first} is named twice: compare needs two different "
            "saved runs") in boxed(output)
    code, output = run("compare", first, f"{first}/")
    assert code == 2


def test_compare_counts_a_run_named_twice_once(runs: tuple[Path, Path]) -> None:
    first, second = runs
    code, twice = run("compare", first, second, first, "--format", "json")
    assert code == 0
    warning, _, document = twice.partition("\n")
    assert warning == f"warning: {first} is named twice (as {first} before): it is compared once"
    code, once = run("compare", first, second, "--format", "json")
    assert json.loads(document) == json.loads(once)


def test_agreement_without_verdicts_of_the_second_annotator(mine: Path) -> None:
    entry = pending_entry(mine)
    code, output = run("verdict", entry["item"], "pass", SAMPLES / "de-en", "--pair", "de-en",
                       "--suite", mine, "--output", entry["output"], "--annotator", "alice")
    assert code == 0, output
    code, output = run("agreement", "--first", "alice", "--second", "bob", "--suite", mine)
    assert code == 1
    assert "nan" not in output
    assert errors(output) == [
        "error: bob has no verdicts in this suite (annotators with verdicts: alice); have bob "
        "re-decide a blind sample of alice's decisions: testsuite agreement --first alice "
        "--second bob --sample 100 --out sample.csv, then testsuite import sample.csv "
        "--annotator bob --disagree"]


def test_a_batch_on_an_item_that_does_not_exist_says_so(mine: Path) -> None:
    """A typo in --item "decided 0 outputs" and succeeded."""
    code, output = run("batch", SAMPLES / "de-en", "--pair", "de-en", "--suite", mine,
                       "--item", "idiom-1", "--verdict", "pass", "--dry-run", "-q")
    assert code == 1
    assert errors(output) == ["error: no de-en item 'idiom-1' in the suite"]


# --- 4. one set of names -----------------------------------------------------------------------


def test_report_writes_with_out_and_still_with_html(mine: Path, tmp_path: Path) -> None:
    base = ["report", SAMPLES / "de-en", "--pair", "de-en", "-q"]
    code, output = run(*base, "--out", tmp_path / "page.html")
    assert code == 0, output
    assert output.strip() == f"wrote the report to {tmp_path / 'page.html'}"
    assert (tmp_path / "page.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, output = run(*base, "--html", tmp_path / "old.html")
    assert code == 0
    assert ("note: --html FILE is the old spelling of --out FILE; it still works for now, but "
            "will be removed in a later release") in output
    assert (tmp_path / "old.html").read_bytes() == (tmp_path / "page.html").read_bytes()
    code, output = run(*base)
    assert code == 2 and "Invalid value for --out: missing (give --out FILE)" in boxed(output)


def test_verdict_and_import_take_the_outputs_as_arguments_and_still_from(
        mine: Path, tmp_path: Path) -> None:
    entry = pending_entry(mine)
    code, output = run("verdict", entry["item"], "fail", "--from", SAMPLES / "de-en",
                       "--pair", "de-en", "--suite", mine, "--output", "xyz")
    assert code == 1  # checked against the outputs, as with the argument
    assert ("note: --from PATH is the old spelling of the outputs as arguments: testsuite "
            "verdict ITEM VERDICT OUTPUTS...") in output
    sheet = tmp_path / "pending.csv"
    assert run("export", SAMPLES / "de-en", "--pair", "de-en", "--suite", mine, "--out",
               sheet)[0] == 0
    rows = list(csv.DictReader(sheet.open(encoding="utf-8-sig", newline="")))
    rows[0]["verdict"] = "pass"
    rows[0]["output"] = "not an output of any system"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for outputs in (["--from", SAMPLES / "de-en"], [SAMPLES / "de-en"]):
        code, output = run("import", sheet, *outputs, "--pair", "de-en", "--suite", mine,
                           "--dry-run")
        assert code == 1, output
        assert "no system produced the output 'not an output of any system'" in output


@pytest.mark.parametrize("name", ["pending", "export", "triage", "batch", "suggest"])
def test_quiet_is_everywhere(name: str) -> None:
    code, output = run(name, "--help")
    assert code == 0 and "--quiet" in output and "-q" in output


@pytest.mark.parametrize(("line", "option"), [
    (["score", "--format", "xml"], "--format"), (["score", "--table", "rows"], "--table"),
    (["score", "--layout", "wide"], "--layout"), (["score", "--test", "t"], "--test"),
    (["score", "--correction", "sidak"], "--correction"),
    (["score", "--macro-test", "x"], "--macro-test"),
    (["score", "--normalise", "fancy"], "--normalise"),
    (["plot", "--format", "jpg", "--out", "charts"], "--format"),
    (["pending", "--order", "size"], "--order"),
])
def test_a_word_not_allowed_is_a_wrong_command_line(tmp_path: Path, line: list[str],
                                                    option: str) -> None:
    command_name, *options = line
    code, output = run(command_name, SAMPLES / "de-en", "--pair", "de-en", *options)
    assert code == 2
    assert f"Invalid value for '{option}'" in boxed(output) and "must be one of" in output


def test_out_without_format_writes_what_its_suffix_names(mine: Path, tmp_path: Path) -> None:
    """`--out scores.csv` wrote the terminal tables into scores.csv: the suffix decides, as
    for `evaluate --out`, unless --format says otherwise."""
    base = ["score", SAMPLES / "de-en", "--pair", "de-en", "-q", "--table", "categories"]
    code, output = run(*base, "--out", tmp_path / "scores.csv")
    assert code == 0 and output.strip() == f"wrote the csv report to {tmp_path / 'scores.csv'}"
    assert (tmp_path / "scores.csv").read_text(encoding="utf-8").startswith("pair,level,")
    code, output = run(*base, "--out", tmp_path / "scores.TEX")
    assert code == 0 and "\\begin{tabular}" in (tmp_path / "scores.TEX").read_text("utf-8")
    code, output = run(*base, "--out", tmp_path / "scores.csv", "--format", "json")
    assert code == 0 and json.loads((tmp_path / "scores.csv").read_text("utf-8"))
    code, output = run(*base, "--out", tmp_path / "scores.txt")
    assert code == 0 and output.strip().startswith("wrote the terminal report to")


def test_compare_out_html_writes_the_page(runs: tuple[Path, Path], tmp_path: Path) -> None:
    code, output = run("compare", *runs, "--out", tmp_path / "years.html")
    assert code == 0, output
    assert (tmp_path / "years.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_compare_refuses_a_bad_format_as_a_wrong_command_line(runs: tuple[Path, Path]) -> None:
    code, output = run("compare", *runs, "--format", "pdf")
    assert code == 2 and "Invalid value for '--format'" in boxed(output)


def test_a_word_is_read_in_any_case(mine: Path) -> None:
    code, output = run("score", SAMPLES / "de-en", "--pair", "de-en", "-q", "--format", "CSV",
                       "--table", "Categories")
    assert code == 0, output
    assert output.startswith("pair,level,")


def metavars() -> dict[str, dict[str, str]]:
    """The metavar of every option of every command: command → option → metavar."""
    from typer.main import get_command

    commands = get_command(app).commands  # type: ignore[attr-defined]
    return {name: {param.opts[0]: param.metavar for param in command.params
                   if param.param_type_name == "option"}
            for name, command in commands.items()}


def test_metavars_show_what_an_option_takes() -> None:
    shown = metavars()
    for name, options in shown.items():
        for option, metavar in options.items():
            # The parameter's Python name (MAP_, SOURCE_HAS, NORMALISE …) says nothing, but
            # for a few nouns that are what they take.
            assert metavar is not None, (name, option)
            assert metavar in ("PAIR", "ENCODING", "YEAR") or \
                metavar != option.lstrip("-").replace("-", "_").upper(), (name, option)
    assert shown["compare"]["--map"] == "OLD=NEW"
    assert shown["batch"]["--source-has"] == shown["batch"]["--pattern"] == "REGEX"
    assert shown["batch"]["--verdict"] == "pass|fail"
    assert shown["lint"]["--normalise"] == "none|typographic|nfkc"
    assert shown["compare"]["--format"] == "terminal|csv|json|latex|html"
    assert shown["plot"]["--format"] == "png|svg"
    text = run("score", "--help")[1]
    assert "terminal|csv|json|" in text and "markdown|latex" in text  # broken between words


def test_the_outputs_help_names_every_form() -> None:
    text = boxed(run("score", "--help")[1])
    for form in ("aligned with `testsuite sources`", "TSV keyed by item", "WMT txt-ts folder",
                 "a saved run"):
        assert form in text, form


def test_the_test_defaults_are_explained() -> None:
    assert "`compare` defaults to paired: there the same items are judged in every year" in \
        boxed(run("score", "--help")[1])
    assert "the default here, because every year judges the same items" in \
        boxed(run("compare", "--help")[1])


def test_the_allowed_words_are_the_librarys() -> None:
    """The CLI writes the words out (importing them would make --help slow): the same ones."""
    from testsuite.normalise import PROFILES
    from testsuite.outputs.readers import REPEATED
    from testsuite.reports.render import FORMATS, WHICH
    from testsuite.reports.terminal import LAYOUTS
    from testsuite.stats.clusters import CORRECTIONS
    from testsuite.stats.pvalues import MACRO_TESTS, TESTS

    shown = metavars()
    for command, option, words in (
            ("score", "--format", FORMATS), ("score", "--table", WHICH),
            ("score", "--layout", LAYOUTS), ("score", "--test", TESTS),
            ("compare", "--test", TESTS), ("score", "--macro-test", MACRO_TESTS),
            ("score", "--correction", ("none", *CORRECTIONS)),
            ("score", "--normalise", ("none", *PROFILES)), ("score", "--repeated", REPEATED)):
        assert shown[command][option] == "|".join(words), (command, option)


# --- 5. the demo and stderr ---------------------------------------------------------------------


def test_the_demo_explains_its_columns_in_two_lines() -> None:
    from testsuite.cli.evaluation import DEMO_LEGEND

    assert len(DEMO_LEGEND) == 2
    code, output = run("demo")
    assert code == 0
    legend = output[output.index("\n#: "):output.index("\nNext: ")].split()
    assert " ".join(legend) == (
        "#: the row's items in the scores (no warning or missing output for any system); "
        "warning rate: the share of outputs the rules left to a person (testsuite triage). "
        "signature (testsuite:…): what the numbers depend on (suite, tests, systems, items); "
        "quote it with them so that anyone can reproduce them.")
    # At 80 columns each line wraps between words, never inside one.
    region = output[output.index("\n#: "):output.index("\nNext: ")]
    assert all(len(line) <= 80 for line in region.splitlines())


@pytest.mark.parametrize("line", [
    ["evaluate", str(SAMPLES / "de-en"), "--pair", "de-en"],
    ["score", str(SAMPLES / "de-en"), "--pair", "de-en", "--table", "categories"],
    ["report", str(SAMPLES / "de-en"), "--pair", "de-en", "--out", "REPORT"],
])
def test_no_stray_blank_line_on_stderr(tmp_path: Path, line: list[str]) -> None:
    line = [str(tmp_path / "page.html") if part == "REPORT" else part for part in line]
    result = subprocess.run(command(*line), capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
