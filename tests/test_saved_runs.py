"""Saved runs that were edited by hand, truncated or written by something else (#11)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite import __version__, files
from testsuite.cli import app
from testsuite.errors import TestsuiteError
from testsuite.loader import load_suite
from testsuite.runs import MANIFEST, RUN_FILES, _manifest, load_run

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
    resign(path.parent)


def resign(saved: Path) -> None:
    """Sign a run's files anew, as someone forging a run would: then every field must still
    be checked for what it may hold."""
    contents = {name: (saved / name).read_bytes() for name in RUN_FILES}
    (saved / MANIFEST).write_bytes(_manifest(contents))


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
    # Named no file (found by the issue 20 red team):
    ('{"normalise": "evil"}', "'normalise': unknown normalisation 'evil' (known: none, "),
])
def test_malformed_run_json(run, content, message):
    suite, saved = run
    (saved / "run.json").write_text(content, encoding="utf-8")
    resign(saved)
    found = problems(suite, saved)
    assert len(found) == 1 and found[0].startswith(str(saved / "run.json"))
    assert message in found[0]


@pytest.mark.parametrize(("file", "record", "message"), [
    ("items.jsonl", {"pair": "de-en", "category": "C", "phenomenon": "P", "source": "Zwei."},
     "'id' is missing"),
    ("items.jsonl", [1], "expected an object with pair, id, category, phenomenon, source, not "
                         "a list"),
    ("items.jsonl", {"id": 2, "pair": "de-en", "category": "C", "phenomenon": "P",
                     "source": "Zwei."}, "'id' must be text, not a number"),
    ("items.jsonl", {"id": "b", "pair": "xx-yy", "category": "C", "phenomenon": "P",
                     "source": "Zwei."}, "'pair' must be one of de-en, not 'xx-yy'"),
    ("outcomes.jsonl", {"pair": "de-en", "item": "b", "output": "two", "outcome":
                        "hacked<script>", "reason": ""}, "'outcome' must be one of pass, "
                        "fail, warning, missing, not 'hacked<script>'"),
    ("outputs.jsonl", {"pair": "de-en", "system": "Sys", "item": "b", "output": "two",
                       "occurrence": -1}, "'occurrence' must be a whole number from 1, not -1"),
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
    resign(saved)
    result = runner.invoke(app, ["compare", str(saved), str(other), "--suite", str(suite)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"{saved / 'run.json'}: expected a JSON object" in result.output


# --- saved whole or refused (#20) ------------------------------------------------------------


def outcomes_of(suite: Path, saved: Path) -> list[tuple[str, str, str]]:
    results = load_run(saved, load_suite([suite])).evaluation.results
    return sorted(zip(results["system"], results["item"], results["outcome"], strict=True))


def second_campaign(tmp_path: Path) -> Path:
    outputs = tmp_path / "out2"
    outputs.mkdir()
    for name in ("New1.en", "New2.en"):
        (outputs / name).write_text("four\nfive\nthree\n", encoding="utf-8")
    return outputs


def test_an_interrupted_save_leaves_the_old_run_as_it_was(run, tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM, handled alike) after two of the new run's files: the old run is
    read as it was, and no half-written folder is left beside it."""
    suite, saved = run
    before = outcomes_of(suite, saved)
    from testsuite import runs

    written: list[Path] = []
    real = runs.write_bytes

    def interrupted(path: Path, data: bytes, **options: object) -> Path:
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(path)
        return real(path, data)

    monkeypatch.setattr(runs, "write_bytes", interrupted)
    result = runner.invoke(app, ["evaluate", str(second_campaign(tmp_path)), "--suite",
                                 str(suite), "-q", "--save", str(saved)])
    assert result.exit_code == 130 and "interrupted" in result.output
    assert outcomes_of(suite, saved) == before
    assert sorted(p.name for p in saved.parent.iterdir()) == [".testsuite", "demo2021"]


def test_sigterm_during_a_save_leaves_the_old_run(run, tmp_path):
    """The real thing, in a child process: SIGTERM while the new run is half written."""
    import signal
    import subprocess
    import sys

    suite, saved = run
    before = outcomes_of(suite, saved)
    script = ("import sys\nfrom testsuite import runs\nfrom testsuite.cli import main\n"
              "real, count = runs.write_bytes, []\n"
              "def slow(path, data, **kw):\n    count.append(path)\n"
              "    if len(count) == 3:\n        print('half', flush=True)\n"
              "        sys.stdin.readline()\n    return real(path, data)\n"
              "runs.write_bytes = slow\nsys.argv = ['testsuite', *sys.argv[1:]]\nmain()\n")
    child = subprocess.Popen([sys.executable, "-c", script, "evaluate",
                              str(second_campaign(tmp_path)), "--suite", str(suite), "-q",
                              "--save", str(saved)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        while child.stdout.readline() not in ("half\n", ""):  # after the outcome table
            pass
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130 and "interrupted" in err
    assert outcomes_of(suite, saved) == before
    assert sorted(p.name for p in saved.parent.iterdir()) == [".testsuite", "demo2021"]


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_save_killed_between_its_renames_is_undone_by_the_next_read(run):
    """SIGKILL after the old run was set aside and before the new one was renamed: the next
    command puts the old run back (and removes the half-written one), saying so."""
    suite, saved = run
    before = outcomes_of(suite, saved)
    owner = f"{_dead_pid()}@{files.host_tag()}"
    aside = saved.parent / f".demo2021.{owner}.ab12cd.previous"
    saved.rename(aside)
    half = saved.parent / f".demo2021.{owner}.ef34gh.tmp"
    half.mkdir()
    (half / "items.jsonl").write_text('{"pair": "de-en"', encoding="utf-8")
    result = runner.invoke(app, ["score", str(saved), "--suite", str(suite), "--format",
                                 "csv"])
    assert result.exit_code == 0, result.output
    assert f"warning: put back the run {saved} from {aside}" in result.output
    assert outcomes_of(suite, saved) == before
    assert sorted(p.name for p in saved.parent.iterdir()) == [".testsuite", "demo2021"]


def test_a_save_through_a_link_killed_between_its_renames_is_undone_by_a_read_of_the_link(
        run):
    """`--save runs/latest` writes where the link points: killed between its renames, the
    run was missing and reading `runs/latest` said only "no such file or folder" (the
    leftovers were looked for beside the link). Found by the issue 20 red team."""
    suite, saved = run
    before = outcomes_of(suite, saved)
    latest = saved.with_name("latest")
    latest.symlink_to(saved.name)
    owner = f"{_dead_pid()}@{files.host_tag()}"
    aside = saved.parent / f".demo2021.{owner}.ab12cd.previous"
    saved.rename(aside)
    result = runner.invoke(app, ["score", str(latest), "--suite", str(suite), "--format",
                                 "csv"])
    assert result.exit_code == 0, result.output
    assert f"warning: put back the run {saved.resolve()} from {aside.resolve()}" in \
        result.output
    assert outcomes_of(suite, latest) == before
    assert sorted(p.name for p in saved.parent.iterdir()) == [".testsuite", "demo2021",
                                                              "latest"]


def test_a_save_killed_after_its_swap_is_tidied_by_the_next_save(run, tmp_path):
    suite, saved = run
    owner = f"{_dead_pid()}@{files.host_tag()}"
    old = saved.parent / f".demo2021.{owner}.ab12cd.previous"
    shutil.copytree(saved, old)
    result = runner.invoke(app, ["evaluate", str(second_campaign(tmp_path)), "--suite",
                                 str(suite), "-q", "--save", str(saved)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in saved.parent.iterdir()) == [".testsuite", "demo2021"]
    assert {s for s, _, _ in outcomes_of(suite, saved)} == {"New1", "New2"}


def flip(text: str) -> str:
    return text.replace('"outcome": "pass"', '"outcome": "fail"')


@pytest.mark.parametrize(("file", "spoil"), [
    ("outcomes.jsonl", flip),  # still valid JSON, still valid outcomes: only the hash tells
    ("outcomes.jsonl", lambda t: t.replace('"outcome": "pass"', '"outcome": "hacked<script>"')),
    ("outputs.jsonl", lambda t: t[: len(t) // 2]),  # truncated
    ("run.json", lambda t: t.replace('"year": 2021', '"year": 2022')),
    ("items.jsonl", lambda t: t.replace("Zwei.", "Zwei!")),
])
def test_a_run_edited_by_hand_is_refused_naming_the_file(run, file, spoil):
    suite, saved = run
    path = saved / file
    text = path.read_text(encoding="utf-8")
    assert spoil(text) != text
    path.write_text(spoil(text), encoding="utf-8")
    result = runner.invoke(app, ["score", str(saved), "--suite", str(suite)])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith(
        f"error: {path}: refused: the file changed since the run was saved"), result.output


def test_outcomes_flipped_with_the_manifest_rewritten_are_refused(run):
    """Anyone who can edit a run can rewrite its manifest too (`resign`): the outcomes of
    items whose rule has not changed are checked against what the rule gives. Flipped ones
    used to be taken as saved: `score` printed their numbers with exit 0."""
    suite, saved = run
    path = saved / "outcomes.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace(
        '"output": "two", "outcome": "pass"', '"output": "two", "outcome": "fail"'),
        encoding="utf-8")
    resign(saved)
    result = runner.invoke(app, ["score", str(saved), "--suite", str(suite), "--no-fair"])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == (
        f"error: {path} (item b): refused: saved as fail (positive-regex) for Sys, but its "
        "rule, unchanged since the run was saved, judges the output pass (positive-regex): "
        "the run was "
        "altered after it was saved (its manifest.json rewritten to match); save it again with "
        "`testsuite evaluate … --save DIR`")


def test_a_run_judges_every_output_whatever_its_outcomes_say(run):
    """Saved by another version (which may judge differently), a run's outcomes are not
    checked, and not used either: every output is judged by the rules as they are."""
    suite, saved = run
    path = saved / "outcomes.jsonl"
    path.write_text(flip(path.read_text(encoding="utf-8")), encoding="utf-8")
    (saved / "run.json").write_text((saved / "run.json").read_text(encoding="utf-8").replace(
        f'"engine": "{__version__}"', '"engine": "0.0.1"'), encoding="utf-8")
    resign(saved)
    assert outcomes_of(suite, saved) == [("Sys", "a", "pass"), ("Sys", "b", "pass"),
                                         ("Sys", "c", "warning")]


def test_a_save_through_a_link_to_a_run_replaces_the_run_it_points_to(run, tmp_path):
    """`--save runs/latest` with latest -> demo2021: the link was set aside as the old run
    and never removed (a link is no folder to remove), so that every later read warned
    "removed …" again, and the run it pointed to was left as it was."""
    suite, saved = run
    latest = saved.with_name("latest")
    latest.symlink_to(saved.name)
    result = runner.invoke(app, ["evaluate", str(second_campaign(tmp_path)), "--suite",
                                 str(suite), "-q", "--save", str(latest)])
    assert result.exit_code == 0, result.output
    assert latest.is_symlink() and sorted(p.name for p in saved.parent.iterdir()) == [
        ".testsuite", "demo2021", "latest"]
    for _ in range(2):
        result = runner.invoke(app, ["score", str(latest), "--suite", str(suite), "--no-fair",
                                     "--format", "csv"])
        assert result.exit_code == 0 and "warning" not in result.output, result.output
    assert outcomes_of(suite, saved) == outcomes_of(suite, latest) != []
    assert ("New1", "c", "pass") in outcomes_of(suite, saved)  # the second campaign's


def test_a_run_mixed_from_two_saves_is_refused(run, tmp_path):
    """The outputs of one campaign with the outcomes and metadata of another."""
    suite, saved = run
    other = tmp_path / "runs" / "other"
    result = runner.invoke(app, ["evaluate", str(second_campaign(tmp_path)), "--suite",
                                 str(suite), "-q", "--save", str(other)])
    assert result.exit_code == 0
    for name in ("items.jsonl", "outputs.jsonl"):
        shutil.copy(other / name, saved / name)
    result = runner.invoke(app, ["score", str(saved), "--suite", str(suite)])
    assert result.exit_code == 1
    assert "outputs.jsonl: refused: the file changed" in result.output or \
        "items.jsonl: refused: the file changed" in result.output


def test_a_run_without_its_manifest_is_refused(run):
    suite, saved = run
    (saved / MANIFEST).unlink()
    result = runner.invoke(app, ["score", str(saved), "--suite", str(suite)])
    assert result.exit_code == 1
    assert result.output.strip().startswith(f"error: {saved}: not a whole saved run: no "
                                            f"{MANIFEST}")


def test_a_lone_surrogate_in_a_saved_run_is_named_on_reading(run):
    suite, saved = run
    rewrite_line(saved / "outputs.jsonl", 2, {"pair": "de-en", "system": "Sys", "item": "b",
                                              "output": "two \ud800"})
    assert problems(suite, saved) == [f"{saved / 'outputs.jsonl'}:2: holds a lone surrogate "
                                      "(\\ud800), half of a character that no file can store"]


def test_a_run_read_with_another_suite_says_so(run, tmp_path):
    """It used to print `[]` (score --format json) or write an empty sheet (export)."""
    suite, saved = run
    other = tmp_path / "other"
    other.mkdir()
    (other / "s.yaml").write_text(SUITE.replace("id: ", "id: x"), encoding="utf-8")
    (other / "r.yaml").write_text(RULES.replace("item: ", "item: x"), encoding="utf-8")
    for command in (["score", "--format", "json"], ["export", "--out", str(tmp_path / "e.csv")]):
        result = runner.invoke(app, [command[0], str(saved), "--suite", str(other),
                                     *command[1:]])
        assert result.exit_code == 1, result.output
        assert result.output.strip().startswith(
            f"error: {saved}: none of the run's 3 items is in the suite it is read with"), \
            result.output
    assert not (tmp_path / "e.csv").exists()
