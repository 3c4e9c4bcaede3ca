"""The I/O layer: YAML limits, atomic writes that keep modes, clear write errors, locks, paths."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from testsuite import files
from testsuite.errors import TestsuiteError
from testsuite.yamlio import load_yaml


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- YAML limits ---------------------------------------------------------------------------


def test_deeply_nested_yaml_is_refused_without_crashing(tmp_path):
    # 50,000 levels (~100 KB) crash libyaml's recursive composer; run it in a child process
    # so that a crash would fail this test instead of killing the test run.
    path = tmp_path / "deep.yaml"
    path.write_text("pair: de-en\ndescription: " + "[" * 50_000 + "]" * 50_000 + "\n")
    child = subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path\n"
         "from testsuite.yamlio import load_yaml\nfrom testsuite.errors import TestsuiteError\n"
         "try:\n    load_yaml(Path(sys.argv[1]))\nexcept TestsuiteError as e:\n"
         "    print(e); sys.exit(1)\n", str(path)],
        capture_output=True, text=True, timeout=60)
    assert child.returncode == 1, child.stderr
    assert f"{path}:2: refused: the YAML is nested more than 64 levels deep" in child.stdout


def test_nesting_of_real_suites_is_accepted(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("a:\n  b:\n    c: [[1, 2], {d: [3]}]\n")
    assert load_yaml(path)["a"]["b"]["c"][1]["d"] == [3]


def test_alias_bomb_is_refused(tmp_path):
    # Nine levels of ten aliases each: 10^9 values once expanded, from under 1 KB.
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 10):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    started = time.monotonic()
    with pytest.raises(TestsuiteError, match="expands to more than 2,000,000 values"):
        load_yaml(path)
    assert time.monotonic() - started < 5


def test_a_few_aliases_are_fine(tmp_path):
    path = tmp_path / "alias.yaml"
    path.write_text("base: &b {x: 1}\nother: *b\n")
    assert load_yaml(path)["other"]["x"] == 1


# --- writing -------------------------------------------------------------------------------


def test_new_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        written = files.write_text(tmp_path / "a" / "report.html", "<p>hi</p>")
        assert mode(written) == 0o644
        os.umask(0o002)
        assert mode(files.write_text(tmp_path / "shared.yaml", "x: 1\n")) == 0o664
    finally:
        os.umask(old)


def test_a_rewritten_file_keeps_its_mode(tmp_path):
    path = tmp_path / "verdicts.yaml"
    path.write_text("old\n")
    path.chmod(0o660)
    files.write_text(path, "new\n")
    assert path.read_text() == "new\n"
    assert mode(path) == 0o660


def test_write_onto_a_folder_names_it(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(TestsuiteError) as caught:
        files.write_text(tmp_path / "out", "x")
    assert str(caught.value) == f"{tmp_path / 'out'}: cannot write: it is a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_write_into_an_unwritable_folder_names_it(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(TestsuiteError, match="cannot write: permission denied"):
            files.write_text(folder / "x.txt", "x")
    finally:
        folder.chmod(0o700)


def test_a_full_disk_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "run.json"
    path.write_text("old")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(TestsuiteError) as caught:
        files.write_text(path, "new")
    assert str(caught.value) == f"{path}: cannot write: the disk is full"
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left


def test_writes_stay_inside_the_named_folder(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(TestsuiteError, match="refused to write outside"):
        files.write_text(out / ".." / "escaped.txt", "x", inside_of=out)
    assert not (tmp_path / "escaped.txt").exists()


# --- names and paths -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../../x", "/etc", "a/b", "a\\b", "..", ".", "", " ",
                                  "x\x1b[31m", "nul\0"])
def test_unsafe_names_are_refused(name):
    with pytest.raises(TestsuiteError, match="cannot be used as a file name"):
        files.safe_name(name, "language pair")


def test_join_keeps_plain_names(tmp_path):
    assert files.join(tmp_path, "de-en", "Coordination & ellipsis.yaml") == \
        tmp_path / "de-en" / "Coordination & ellipsis.yaml"


def test_join_refuses_a_link_out_of_the_folder(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "link").symlink_to(tmp_path)
    with pytest.raises(TestsuiteError, match="refused to write outside"):
        files.join(tmp_path / "out", "link", "x.yaml")


# --- locks ---------------------------------------------------------------------------------


def test_lock_lives_in_an_ignored_folder(tmp_path):
    target = tmp_path / "rules" / "verdicts.yaml"
    with files.lock(target):
        holder = files.lock_path(target).read_text()
        assert f"process {os.getpid()}" in holder
    folder = tmp_path / "rules" / ".testsuite"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert sorted(p.name for p in (tmp_path / "rules").iterdir()) == [".testsuite"]


def test_a_held_lock_times_out_naming_its_holder(tmp_path):
    target = tmp_path / "verdicts.yaml"
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        # filelock is re-entrant per thread and object; a child process holds it for real.
        script = ("import sys, time; from pathlib import Path; from testsuite import files\n"
                  "with files.lock(Path(sys.argv[1])):\n    print('held', flush=True)\n"
                  "    time.sleep(30)\n")
        child = subprocess.Popen([sys.executable, "-c", script, str(target)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        child.stdout.readline()
        holding.set()
        release.wait(30)
        child.kill()
        child.wait()

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert holding.wait(30)
        started = time.monotonic()
        with pytest.raises(TestsuiteError) as caught, files.lock(target, timeout=0.5):
            pass
        assert time.monotonic() - started < 5
        message = str(caught.value)
        assert message.startswith(f"{target}: waited 0.5 s for the lock, held by ")
        assert "(process " in message and "delete" in message
    finally:
        release.set()
        thread.join()
    with files.lock(target, timeout=5):  # free again once the holder is gone
        pass
