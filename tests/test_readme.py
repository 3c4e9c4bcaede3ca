"""Every example of the README runs as written, in order, in a fresh copy of the repository.

The README's ```bash blocks are run line by line with bash, and its ```python block with the
interpreter, in a copy of the files git tracks, next to the real data (``../shared/data``)
as in a clone, with the ``testsuite`` command on the PATH. ```sh blocks are not run: the
set-up commands at the top (CI runs them: .ci/run), the interactive triage, and the
development commands (which would run these tests again). ```text blocks show what a
command prints (tests/test_terminal_tables.py checks them against the output). Afterwards no
file may have been written outside the ignored ``work/`` folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    """(language, text) of every fenced block of the README, in order."""
    return FENCE.findall((REPO / "README.md").read_text(encoding="utf-8"))


def commands(text: str) -> list[str]:
    """The command lines of a bash block (comments and blank lines left out)."""
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_the_readme_has_runnable_examples_and_the_two_set_up_commands() -> None:
    found = blocks()
    assert found[0] == ("sh", "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
                              ".venv/bin/testsuite demo\n.venv/bin/python -m pytest\n")
    languages = {language for language, _ in found}
    assert languages <= {"sh", "bash", "python", "text"}, languages
    assert sum(len(commands(text)) for language, text in found if language == "bash") >= 25
    # One set of names: the examples show the current spellings, not the old ones that
    # still work with a note (issue 23).
    examples = "\n".join(text for language, text in found if language in ("bash", "sh"))
    for old in ("--html", "--from"):
        assert old not in examples, old


def files_of(root: Path) -> set[str]:
    """Files below `root`, but Python's bytecode caches (ignored by git too)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_every_example_runs_in_order_in_a_fresh_copy(tmp_path: Path, data: Path) -> None:
    clone = tmp_path / "clone"
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.splitlines()
    for name in tracked:
        if (REPO / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, clone / name)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(data, target_is_directory=True)
    before = files_of(clone)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
           "COLUMNS": "100", "PYTHONPATH": str(clone)}
    ran = 0
    for language, text in blocks():
        if language == "bash":
            for line in commands(text):
                result = subprocess.run(["bash", "-c", f"set -o pipefail; {line}"], cwd=clone,
                                        env=env, capture_output=True, text=True, timeout=300)
                assert result.returncode == 0, (line, result.stdout[-2000:],
                                                result.stderr[-2000:])
                assert "Traceback" not in result.stderr, (line, result.stderr[-2000:])
                ran += 1
        elif language == "python":
            result = subprocess.run([sys.executable, "-c", text], cwd=clone, env=env,
                                    capture_output=True, text=True, timeout=300)
            assert result.returncode == 0, result.stderr[-3000:]
            ran += 1
    assert ran >= 26
    # What the examples wrote is in work/ (ignored by git), nowhere else in the clone.
    written = files_of(clone) - before
    assert written and all(name.startswith("work/") for name in written), sorted(
        n for n in written if not n.startswith("work/"))[:10]
    assert "/work/" in (clone / ".gitignore").read_text().splitlines()
    assert (clone / "work" / "dfki" / "rules" / "de-en" / "verdicts.yaml").is_file()
    assert (clone / "work" / "runs" / "wmt22-de-en" / "run.json").is_file()
