"""Every command refuses bad values and names what it cannot write, in one line (#11)."""

from __future__ import annotations

import errno
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite import files
from testsuite.cli import app
from testsuite.errors import MAX_PROBLEM_CHARS, MAX_SHOWN_PROBLEMS, TestsuiteError
from testsuite.evaluate import evaluate
from testsuite.matching import CompiledRule, RegexCache, judge
from testsuite.model import Rule
from testsuite.outputs.readers import read_tsv
from testsuite.values import BadValue

runner = CliRunner()

SUITE = """pair: en-de
category: MWE
items:
  - {id: idiom-01, phenomenon: Idiom, source: Tom spilled the beans.}
  - {id: idiom-02, phenomenon: Idiom, source: The exam was a piece of cake.}
  - {id: idiom-03, phenomenon: Idiom, source: It is raining cats and dogs.}
"""
RULES = """pair: en-de
rules:
  - {item: idiom-01, positive_regex: verraten, negative_regex: Bohnen}
  - {item: idiom-02, positive_regex: kinderleicht, negative_regex: Kuchen}
  - {item: idiom-03, positive_regex: Strömen, negative_regex: Hunde}
"""
OUTPUTS = "Tom hat es verraten.\nDie Prüfung war ein Stück Kuchen.\nEs regnet in Strömen.\n"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A suite (suites/, rules/), one system's outputs (out/) and a saved run (run/)."""
    (tmp_path / "suites").mkdir()
    (tmp_path / "rules").mkdir()
    (tmp_path / "suites" / "mwe.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "rules" / "mwe.yaml").write_text(RULES, encoding="utf-8")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "Sys.de").write_text(OUTPUTS, encoding="utf-8")
    return tmp_path


def invoke(*args: object) -> object:
    result = runner.invoke(app, [str(a) for a in args])
    # CliRunner keeps an exception out of the output: check that none escaped the command.
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result


# --- bad values -----------------------------------------------------------------------------


BAD_VALUES = [
    ("evaluate", "--timeout", value) for value in ("0", "-1", "inf", "nan", "1e300", "x")
] + [
    ("score", "--timeout", "0"), ("score", "--alpha", "0"), ("score", "--alpha", "1.5"),
    ("score", "--alpha", "nan"), ("score", "--alpha", "-0.05"), ("score", "--seed", "-1"),
    ("report", "--alpha", "1"), ("item-analysis", "--show", "-1"),
    ("evaluate", "--year", "0"), ("compare", "--alpha", "0"), ("compare", "--regressions", "-3"),
    ("agreement", "--sample", "-5"), ("agreement", "--sample", "0"),
    ("agreement", "--seed", "-1"), ("agreement", "--seed", "x"),
]


@pytest.mark.parametrize(("command", "option", "value"), BAD_VALUES)
def test_bad_option_values_are_refused(project, command, option, value):
    out, html = project / "r.jsonl", project / "r.html"
    line = {"evaluate": ["evaluate", project / "out", "--out", out],
            "score": ["score", project / "out", "-q"],
            "report": ["report", project / "out", "-q", "--out", html],
            "item-analysis": ["item-analysis", project / "out", "-q"],
            "compare": ["compare", project / "run", project / "run"],
            "agreement": ["agreement", "--second", "bob", "--out", out,
                          *([] if option == "--sample" else ["--sample", "3"])]}[command]
    result = invoke(*line, "--suite", project, option, value)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output
    assert not out.exists() and not html.exists()


def test_the_library_refuses_a_bad_sample_size_or_seed_too():
    from testsuite.model import Suite
    from testsuite.verdicts.agreement import blind_sample

    with pytest.raises(BadValue, match="size must be a whole number of at least 1"):
        blind_sample(Suite(), "bob", -5, 1)
    with pytest.raises(BadValue, match="seed must be a whole number of at least 0"):
        blind_sample(Suite(), "bob", 3, -1)


@pytest.mark.parametrize("timeout", [0, -1.0, math.inf, math.nan, 1e300, "1"])
def test_the_library_refuses_bad_time_limits_too(timeout):
    with pytest.raises(BadValue, match="timeout must be"):
        judge(Rule("a", "x"), "x", timeout=timeout)
    with pytest.raises(ValueError, match="timeout must be"):  # BadValue is a ValueError
        CompiledRule(Rule("a", "x"), RegexCache(), timeout)
    with pytest.raises(TestsuiteError, match="timeout must be"):  # … and a TestsuiteError
        evaluate(None, [], timeout=timeout)  # type: ignore[arg-type]


def test_good_values_are_accepted(project):
    result = invoke("score", project / "out", "--suite", project, "--alpha", "0.01",
                    "--timeout", "0.5", "--seed", "0", "-q")
    assert result.exit_code == 0, result.output
    assert "alpha:0.01" in result.output


# --- write failures -------------------------------------------------------------------------


def dfki_json(project: Path) -> Path:
    path = project / "items.json"
    path.write_text(json.dumps({"items": [{
        "category": "MWE", "id": "1", "langpair": "ende", "negative_regex": "",
        "negative_tokens": [], "phenomenon": "Idiom", "positive_regex": "x",
        "positive_tokens": [], "source_sentence": "Tom spilled the beans."}]}))
    return path


def saved_run(project: Path) -> Path:
    result = invoke("evaluate", project / "out", "--suite", project, "-q", "--save",
                    project / "run")
    assert result.exit_code == 0, result.output
    return project / "run"


def another_run(project: Path) -> Path:
    """A second saved run (compare needs two different ones): a copy of the first."""
    import shutil

    return Path(shutil.copytree(project / "run", project / "run2"))


# (command line with T for the target, the file the target stands for)
COMMANDS = {
    "sources": (["sources", "--pair", "en-de", "--out", "T"], "T"),
    "import-dfki": (["import-dfki", "ITEMS", "--out", "T"], "T/suites/en-de/mwe.yaml"),
    "export-dfki": (["export-dfki", "--out", "T"], "T"),
    "evaluate --out": (["evaluate", "OUT", "-q", "--out", "T.jsonl"], "T.jsonl"),
    "evaluate --save": (["evaluate", "OUT", "-q", "--save", "T"], "T/items.jsonl"),
    "score --out": (["score", "OUT", "-q", "--format", "csv", "--out", "T"], "T"),
    "item-analysis --out": (["item-analysis", "OUT", "-q", "--out", "T.csv"], "T.csv"),
    "report --out": (["report", "OUT", "-q", "--out", "T"], "T"),
    "compare --out": (["compare", "RUN", "RUN2", "--format", "json", "--out", "T"], "T"),
    "demo --out": (["demo", "--out", "T.jsonl"], "T.de-en.jsonl"),
    "plot --out": (["plot", "OUT", "-q", "--out", "T"], "T/en-de.phenomena.png"),
}


def command_line(project: Path, name: str, target: Path) -> list[str]:
    """The command line of `name` writing to `target`, its inputs prepared."""
    args, _ = COMMANDS[name]
    inputs = {"ITEMS": lambda: dfki_json(project), "OUT": lambda: project / "out",
              "RUN": lambda: saved_run(project), "RUN2": lambda: another_run(project)}
    line = [str(inputs[arg]()) if arg in inputs else str(target) + arg[1:]
            if arg.startswith("T") else arg for arg in args]
    if args[0] not in ("import-dfki", "demo"):
        line += ["--suite", str(project)]
    return line


def named(name: str, target: Path) -> Path:
    return Path(str(target) + COMMANDS[name][1][1:])


def one_error(output: str, path: Path, reason: str) -> None:
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {path}: cannot write: {reason}"], output


@pytest.mark.parametrize("name", list(COMMANDS))
def test_writing_onto_a_folder(project, name):
    target = project / "target"
    named(name, target).mkdir(parents=True)
    result = invoke(*command_line(project, name, target))
    assert result.exit_code == 1
    if name == "evaluate --save":  # a run is one folder: it replaces only a run
        one_error(result.output, target, "it is a folder that is not a saved run (a run "
                  "replaces only a saved run or an empty folder; choose another --save folder)")
        assert named(name, target).is_dir()  # the folder in the way is left as it was
    else:
        one_error(result.output, named(name, target), "it is a folder")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_writing_below_a_file(project, name):
    (project / "file").write_text("x")
    target = project / "file" / "target"
    result = invoke(*command_line(project, name, target))
    assert result.exit_code == 1
    where = target if name == "evaluate --save" else named(name, target)
    one_error(result.output, where, "a part of the path is a file, not a folder")


@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.parametrize(("failure", "reason"), [
    (OSError(errno.ENOSPC, "No space left on device"), "the disk is full"),
    (PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
])
def test_a_full_disk_or_a_refused_permission(project, monkeypatch, name, failure, reason):
    # As root (CI containers) permissions cannot be taken away; fail where the write starts.
    target = project / "target"
    line = command_line(project, name, target)
    real = tempfile.mkstemp

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        fd, tmp = real(*args, **kwargs)  # type: ignore[call-overload]
        os.close(fd)
        os.unlink(tmp)
        raise failure

    monkeypatch.setattr(files.tempfile, "mkstemp", refuse)
    result = invoke(*line)
    assert result.exit_code == 1
    one_error(result.output, named(name, target), reason)


def test_verdict_names_a_full_disk(project, monkeypatch):
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = invoke("verdict", "idiom-01", "pass", "--output", "Tom plauderte.", "--suite",
                    project, "--pair", "en-de")
    assert result.exit_code == 1
    one_error(result.output, project / "rules" / "verdicts.yaml", "the disk is full")


# --- silent data errors ---------------------------------------------------------------------


def test_a_repeated_id_in_the_id_list(project):
    ids = project / "order.ids"
    ids.write_text("idiom-01\nidiom-02\nidiom-01\n")
    result = invoke("evaluate", project / "out", "--suite", project, "--ids", ids, "-q")
    assert result.exit_code == 1
    assert (f"error: {ids}:3 (item idiom-01): listed more than once (lines 1, 3); each item "
            "may have one line only") in result.output


def test_an_empty_id_list_is_named_not_the_outputs(project):
    # It was blamed on the outputs: "Sys.de: has 3 lines but the en-de sources have 0".
    ids = project / "order.ids"
    ids.write_text("")
    result = invoke("evaluate", project / "out", "--suite", project, "--ids", ids, "-q")
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"error: {ids}: the id list is empty: it should hold one item id per line, in the "
        "order of the sources (`testsuite sources --out FILE` writes it to FILE.ids)")


@pytest.mark.parametrize(("codec", "named"), [
    ("utf-16", "utf-16"), ("utf-16-le", "utf-16le"), ("utf-16-be", "utf-16be")])
def test_a_utf16_outputs_file_is_advised_its_encoding(project, codec, named):
    # With a BOM it was advised `iconv -f latin1`; without one its NUL bytes were read as
    # part of the ids and outputs ("unknown item '\x00i\x00d…'").
    for path in (project / "out" / "Sys.de", project / "sys.tsv"):
        text = OUTPUTS if path.suffix == ".de" else "".join(
            f"Sys\t{i}\t{line}\n" for i, line in zip(
                ("idiom-01", "idiom-02", "idiom-03"), OUTPUTS.splitlines(), strict=False))
        path.write_bytes(text.encode(codec))
        args = ["--pair", "en-de"] if path.suffix == ".tsv" else []
        result = invoke("evaluate", path, "--suite", project, "-q", *args)
        assert result.exit_code == 1
        assert result.output.strip() == (
            f"error: {path}:1: the file is {named.upper()}, not UTF-8: pass --encoding "
            f"{named}, or convert it with `iconv -f {named} -t utf-8`")
        # The advice works as written.
        result = invoke("evaluate", path, "--suite", project, "-q", "--encoding", named, *args)
        assert result.exit_code == 0, result.output


def test_an_id_repeated_on_every_line_is_named_with_a_few_lines(project):
    # One id on 30,000 lines: the message listed every line number (a 250 MB list gave an
    # error line of hundreds of MB after 40 s and 4.9 GB).
    ids = project / "order.ids"
    ids.write_text("idiom-01\n" * 30_000)
    result = invoke("evaluate", project / "out", "--suite", project, "--ids", ids, "-q")
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"error: {ids}:2 (item idiom-01): listed more than once (lines 1, 2, 3, 4, 5, 6, 7, "
        "8, 9, 10 and 29,990 more); each item may have one line only")


def test_an_id_list_is_held_to_the_limit_of_a_suite(project):
    ids = project / "order.ids"
    with ids.open("wb") as handle:
        handle.truncate(files.MAX_SUITE_BYTES + 1)
    result = invoke("evaluate", project / "out", "--suite", project, "--ids", ids, "-q")
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: {ids}: refused: the file is 67,108,865 bytes, "
                                     "more than the 67,108,864 bytes this kind of file may "
                                     "have")


def test_an_error_quoting_a_huge_line_stays_one_short_line(project):
    # An id of 300,000 characters was quoted whole: a 200 MB line gave a 200 MB error line.
    ids = project / "order.ids"
    ids.write_text("idiom-01\nidiom-02\n" + "x" * 300_000 + "\n")
    result = invoke("evaluate", project / "out", "--suite", project, "--ids", ids, "-q")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == 1 and len(lines[0]) <= len("error: ") + MAX_PROBLEM_CHARS
    assert lines[0].startswith(f"error: {ids}: 1 ids are not en-de items of the suite, e.g. "
                               "'xxx")
    assert "characters left out]…" in lines[0]


def test_a_problem_on_every_line_prints_the_first_ones_and_counts_the_rest(project):
    # A TSV of another suite: a line per problem printed 3.6 million error lines for a
    # 250 MB file (killed after 2 minutes); a sheet of 99,000 bad rows took 25 s to print.
    tsv = project / "out" / "Other.tsv"
    tsv.write_text("".join(f"other-{n}\tAusgabe {n}\n" for n in range(1, 1001)))
    result = invoke("evaluate", tsv, "--suite", project, "--pair", "en-de", "-q")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == MAX_SHOWN_PROBLEMS + 1
    assert lines[0] == f"error: {tsv}:1 (item other-1): unknown en-de item 'other-1'"
    assert lines[-1] == ("error: … and 980 more problems (fix these, then run again to see "
                         "the rest)")
    with pytest.raises(TestsuiteError) as caught:  # the library keeps every problem
        read_tsv(tsv, "en-de", known={"idiom-01"})
    assert len(caught.value.problems) == 1000


def test_a_one_line_tsv_system_is_evaluated(project):
    # Its one output is not "one placeholder repeated for most items".
    (project / "out" / "Sys.de").unlink()
    (project / "out" / "One.tsv").write_text("idiom-01\tTom hat es verraten.\n")
    result = invoke("evaluate", project / "out", "--suite", project, "-q")
    assert result.exit_code == 0, result.output
    assert "left out" not in result.output
    row = next(line for line in result.output.splitlines() if "One" in line)
    assert row.split("│")[2].strip() == "1"  # one pass


def test_verdict_gives_up_on_a_lock_held_by_a_hung_process(project, monkeypatch):
    target = project / "rules" / "verdicts.yaml"
    script = ("import sys, time; from pathlib import Path; from testsuite import files\n"
              "with files.lock(Path(sys.argv[1])):\n    print('held', flush=True)\n"
              "    time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", script, str(target)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        monkeypatch.setattr(files, "LOCK_TIMEOUT", 0.3)
        result = invoke("verdict", "idiom-01", "pass", "--output", "Tom plauderte.",
                        "--suite", project, "--pair", "en-de")
    finally:
        child.kill()
        child.wait()
    assert result.exit_code == 1
    assert f"error: {target}: waited 0.3 s for the lock, held by " in result.output
    assert f"(process {child.pid}, since " in result.output
    assert not target.exists()


@pytest.mark.parametrize("encoding", ["no-such-codec", "rot13"])
def test_an_unknown_encoding_is_named(project, encoding):
    # Found by tests/test_fuzz.py: with an empty WMT source it ended in a LookupError.
    txt_ts = project / "txt-ts"
    (txt_ts / "sources").mkdir(parents=True)
    (txt_ts / "system-outputs").mkdir()
    (txt_ts / "sources" / "newstest.en-de.src.en").write_bytes(b"")
    (txt_ts / "system-outputs" / "newstest.en-de.hyp.Sys.de").write_bytes(b"")
    result = invoke("evaluate", txt_ts, "--suite", project, "--encoding", encoding, "-q")
    assert result.exit_code == 1
    assert f"error: unknown encoding {encoding!r}" in result.output


@pytest.mark.parametrize("command", ["plot", "sources", "export-dfki", "evaluate"])
def test_a_pair_that_is_a_path_is_refused(project, command):
    # `plot --pair ../../p` wrote its charts two folders above --out.
    out = project / "deep" / "out"
    line = {"plot": ["plot", project / "out", "-q", "--out", out],
            "sources": ["sources", "--out", out / "src"],
            "export-dfki": ["export-dfki", "--out", out / "items.json"],
            "evaluate": ["evaluate", project / "out", "-q", "--out", out / "r.jsonl"]}[command]
    result = invoke(*line, "--suite", project, "--pair", "../../p")
    assert result.exit_code == 1
    assert "error: '../../p' is not a language pair" in result.output
    assert not (project / "p").exists() and not (project / "deep").exists()


# --- hostile input of issue 20 --------------------------------------------------------------


def run_bounded(*args: object) -> subprocess.CompletedProcess[str]:
    """The command in a child process with a time limit: a FIFO or a device that blocks or
    fills memory must fail the test, not hang the test run."""
    return subprocess.run([sys.executable, "-m", "testsuite", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("where", ["ids", "lint", "output"])
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_pipe_or_a_device_is_refused_at_once(project, where, kind):
    path = Path(kind)
    if kind == "fifo":
        path = project / ("order.ids" if where == "ids" else "pipe.yaml")
        os.mkfifo(path)
    line = {"ids": ["evaluate", project / "out" / "Sys.de", "--suite", project, "--ids", path,
                    "-q"],
            "lint": ["lint", project, path],
            "output": ["evaluate", path, "--suite", project, "--pair", "en-de", "-q"]}[where]
    done = run_bounded(*line)
    assert done.returncode == 1, done.stderr
    what = "a named pipe (FIFO)" if kind == "fifo" else "a device"
    assert f"error: {path}: cannot read: it is {what}, not a regular file" in \
        done.stdout + done.stderr


def test_a_sparse_output_file_is_refused_by_its_size(project):
    big = project / "out" / "Big.de"
    with big.open("wb") as handle:
        handle.truncate(2 * 2**30)  # 2 GB of nothing: used to take 4.2 GB before its error
    result = invoke("evaluate", big, "--suite", project, "-q")
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: {big}: refused: the file is 2,048 MB, more than "
                                     "the 256 MB this kind of file may have")


def test_lone_surrogates_from_utf7_are_one_line(project):
    (project / "out" / "Sys.de").write_bytes(b"Tom hat es verraten.\nDie +2AA- war.\n"
                                             b"Es regnet in Str+APY-men.\n")
    result = invoke("evaluate", project / "out", "--suite", project, "--encoding", "utf-7",
                    "--out", project / "r.jsonl", "-q")
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: {project / 'out' / 'Sys.de'}:2: holds a lone "
                                     "surrogate (U+D800), half of a character that no file can "
                                     "store; fix the text or its encoding")
    assert not (project / "r.jsonl").exists()


def test_lone_surrogates_in_a_dfki_json_are_one_line(tmp_path):
    items = tmp_path / "items.json"
    items.write_text('{"items": [{"id": "1", "langpair": "deen", "category": "C", '
                     '"phenomenon": "P", "source_sentence": "a \\ud800", "positive_regex": "",'
                     ' "negative_regex": "", "positive_tokens": [], "negative_tokens": []}]}',
                     encoding="utf-8")
    result = invoke("import-dfki", items, "--out", tmp_path / "out")
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: {items}: holds a lone surrogate (\\ud800), half "
                                     "of a character that no file can store")
    assert not (tmp_path / "out").exists()


def test_bidi_overrides_and_escapes_are_escaped_in_json_lines(project):
    """`pending` and `disagreements` print JSON lines: a U+202E or an ESC from an output is
    a JSON escape there (it used to reach the terminal raw), and the line parses back."""
    hostile = "Es regnet \u202e\x1b[2J stark."
    (project / "out" / "Sys.de").write_text(OUTPUTS.replace("Es regnet in Strömen.", hostile),
                                            encoding="utf-8")
    result = invoke("pending", project / "out", "--suite", project)
    assert result.exit_code == 0, result.output
    assert "\u202e" not in result.output and "\x1b" not in result.output
    assert "\\u202e\\u001b[2J" in result.output
    outputs = [json.loads(line)["output"] for line in result.output.splitlines()]
    assert hostile in outputs
    for annotator, verdict in (("ann", "pass"), ("bob", "fail")):
        result = invoke("verdict", "idiom-03", verdict, "--output", hostile, "--suite",
                        project, "--annotator", annotator, "--force", "--disagree")
        assert result.exit_code == 0, result.output
    result = invoke("disagreements", "--suite", project)
    assert "\u202e" not in result.output and "\x1b" not in result.output
    assert json.loads(result.output.splitlines()[0])["output"] == hostile
