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
    with pytest.raises(TestsuiteError, match="holds more than 2,000,000 values"):
        load_yaml(path)
    assert time.monotonic() - started < 5


def test_a_yaml_too_large_without_aliases_is_named_for_what_it_is(tmp_path):
    """A suite of 700,000 items (no alias at all) was refused as "the YAML is expands to
    more than 2,000,000 values (aliases repeating aliases)": wrong and ungrammatical. Found
    by the issue 20 red team."""
    path = tmp_path / "big.yaml"
    path.write_text("items:\n" + "- [a, b, c]\n" * 700_000, encoding="utf-8")
    with pytest.raises(TestsuiteError) as caught:
        files.check_yaml(path.read_text(encoding="utf-8"), path)
    assert str(caught.value).startswith(
        f"{path}:500001: refused: the YAML holds more than 2,000,000 values (an alias "
        "counting as every value it repeats)")


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


def test_a_write_through_a_link_changes_the_file_it_points_to(tmp_path):
    """A verdicts.yaml linked to a team's shared copy: the decisions go there (the link was
    replaced by a file of its own, and the team's file never got them). Found by the
    issue 20 red team."""
    team = tmp_path / "team" / "verdicts.yaml"
    team.parent.mkdir()
    team.write_text("old\n")
    link = tmp_path / "rules" / "verdicts.yaml"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "team" / "verdicts.yaml")
    files.write_text(link, "new\n")
    assert link.is_symlink() and team.read_text() == "new\n"
    files.write_all({link: b"newer\n"})
    assert link.is_symlink() and team.read_text() == "newer\n"
    assert sorted(p.name for p in team.parent.iterdir()) == ["verdicts.yaml"]


def test_a_link_made_by_another_user_is_not_written_through(tmp_path, monkeypatch):
    """Whoever can write a shared suite folder can put a link there: written through, it
    would make your next decision overwrite any file of yours it points to."""
    yours = tmp_path / "private.txt"
    yours.write_text("keep me\n")
    link = tmp_path / "verdicts.yaml"
    link.symlink_to(yours)
    if os.geteuid() == 0:
        os.lchown(link, 4243, 4243)  # made by someone else
    monkeypatch.setattr(files.os, "geteuid", lambda: 4242)
    with pytest.raises(TestsuiteError, match="is a link made by another user"):
        files.write_text(link, "decisions")
    assert yours.read_text() == "keep me\n" and link.is_symlink()


@pytest.mark.parametrize("through_a_link", [False, True])
def test_a_write_onto_what_is_not_a_regular_file_is_refused(tmp_path, through_a_link):
    """`--out /dev/null` run as root replaced the device with a regular file (the new file
    is renamed over its target); a named pipe stands for any such target here. Found by the
    issue 20 red team."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    target = fifo
    if through_a_link:
        target = tmp_path / "out.html"
        target.symlink_to(fifo)
    for write in (lambda: files.write_text(target, "report"),
                  lambda: files.write_all({target: b"report"})):
        with pytest.raises(TestsuiteError, match=r"cannot write: it is a named pipe \(FIFO\), "
                                                 "not a regular file") as caught:
            write()
        assert caught.value.problems[0].file == str(target)
        assert stat.S_ISFIFO(fifo.stat().st_mode)
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            {"pipe", target.name})


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


def test_a_link_in_the_lock_folder_is_never_written_through(tmp_path):
    """Anyone who can write a shared folder can put links in its `.testsuite/`: the
    `.gitignore` pointing nowhere made every lock create a file where it pointed, and a lock
    file pointing at a file must not empty it."""
    target = tmp_path / "verdicts.yaml"
    tools = tmp_path / files.LOCK_FOLDER
    tools.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tools / ".gitignore").symlink_to(elsewhere / "created")
    precious = elsewhere / "precious.txt"
    precious.write_text("keep me\n")
    (tools / "verdicts.yaml.lock").symlink_to(precious)
    with pytest.raises(TestsuiteError, match=r"verdicts.yaml.lock: cannot lock"), \
            files.lock(target, timeout=1):
        pass
    assert sorted(p.name for p in elsewhere.iterdir()) == ["precious.txt"]
    assert precious.read_text() == "keep me\n"


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
        assert "(process " in message and "delete" not in message and "freed" in message
    finally:
        release.set()
        thread.join()
    with files.lock(target, timeout=5):  # free again once the holder is gone
        pass


def test_an_unsigned_lock_names_no_finished_holder(tmp_path):
    """The lock file is emptied when released; a holder that did not sign it (another tool,
    `flock` from a shell) is "another process", never the last holder who finished."""
    import fcntl

    target = tmp_path / "verdicts.yaml"
    with files.lock(target):
        pass
    where = files.lock_path(target)
    assert where.read_text() == ""
    where.write_text(f"alice@{__import__('socket').gethostname()} (process 999999999, "
                     "since 2020-01-01T00:00:00+00:00)")
    with where.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        with pytest.raises(TestsuiteError) as caught, files.lock(target, timeout=0.2):
            pass
    message = str(caught.value)
    assert "held by another process" in message and "alice" not in message
    assert "delete" not in message


# --- reading only regular files, within limits ----------------------------------------------

# Run in a child process with a time limit: a regression must fail, not hang the suite.
_READ = ("import sys; from pathlib import Path; from testsuite import files\n"
         "from testsuite.errors import TestsuiteError\n"
         "try:\n    files.read_bytes(Path(sys.argv[1]))\n"
         "except TestsuiteError as exc:\n    print(exc)\n")


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    path = tmp_path / "sheet.csv"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path = Path("/dev/zero")
    done = subprocess.run([sys.executable, "-c", _READ, str(path)], capture_output=True,
                          text=True, timeout=60)
    expected = {"fifo": "a named pipe (FIFO)", "device": "a device", "folder": "a folder"}
    assert done.stdout.strip() == (f"{path}: cannot read: it is {expected[kind]}, not a "
                                   "regular file"), done.stderr


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "sparse.en"
    with path.open("wb") as handle:
        handle.truncate(3 * files.MAX_FILE_BYTES)  # sparse: its size alone tells
    with pytest.raises(TestsuiteError, match=r"sparse.en: refused: the file is 768 MB, more "
                       r"than the 256 MB this kind of file may have"):
        files.read_bytes(path)


def test_a_file_just_over_the_limit_says_by_how_much(tmp_path):
    """A manifest.json of a run just over its 1 MB was "1 MB, more than the 1 MB" (found by
    the issue 20 red team)."""
    path = tmp_path / "manifest.json"
    path.write_bytes(b" " * (2**20 + 100))
    with pytest.raises(TestsuiteError, match=r"manifest.json: refused: the file is 1,048,676 "
                       r"bytes, more than the 1,048,576 bytes this kind of file may have"):
        files.read_bytes(path, 2**20)


def test_a_bad_byte_after_a_byte_order_mark_is_named_as_an_editor_shows_it(tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_bytes(b"\xef\xbb\xbfitem,output\n1,ab\xffc\n")
    with pytest.raises(TestsuiteError) as caught:
        files.read_text(path)
    assert "line 2 is not valid UTF-8 (byte 0xff at column 5)" in str(caught.value)
    path.write_bytes(b"\xef\xbb\xbfab\xfe")
    with pytest.raises(TestsuiteError, match=r"line 1 is not valid UTF-8 \(byte 0xfe at "
                       r"column 3\)"):
        files.read_text(path)


# --- lone surrogates ------------------------------------------------------------------------


def test_utf7_that_decodes_to_a_lone_surrogate_is_refused_on_reading(tmp_path):
    path = tmp_path / "Sys.en"
    path.write_bytes(b"fine\nbad +2AA- here\n")
    with pytest.raises(TestsuiteError, match=r"Sys.en:2: holds a lone surrogate \(U\+D800\)"):
        files.read_text(path, encoding="utf-7")


def test_json_escapes_of_a_lone_surrogate_are_refused_paired_ones_kept(tmp_path):
    path = tmp_path / "items.json"
    path.write_text('{"items": [{"id": "1", "source": "a \\ud83d\\ude00"}]}')
    assert files.read_json(path) == {"items": [{"id": "1", "source": "a \U0001f600"}]}
    path.write_text('{"items": [{"id": "1", "source": "a \\ud800 b"}]}')
    with pytest.raises(TestsuiteError, match=r"items.json: holds a lone surrogate"):
        files.read_json(path)


def test_writing_a_lone_surrogate_is_a_message_and_writes_nothing(tmp_path):
    path = tmp_path / "out.yaml"
    with pytest.raises(TestsuiteError, match=r"out.yaml:2: holds a lone surrogate"):
        files.write_text(path, "ok\nbad \ud800\n")
    assert list(tmp_path.iterdir()) == []


# --- temporary files of killed writes --------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_write_leaves_a_temporary_the_next_write_removes(tmp_path):
    target = tmp_path / "verdicts.yaml"
    files.write_text(target, "old\n")
    host = files.host_tag()
    stale = tmp_path / f".verdicts.yaml.{_dead_pid()}@{host}.abc123{files.TEMP_SUFFIX}"
    stale.write_text("half of a fi")
    live = tmp_path / f".verdicts.yaml.{os.getpid()}@{host}.def456{files.TEMP_SUFFIX}"
    live.write_text("being written")
    other = tmp_path / f".other.yaml.{_dead_pid()}@{host}.ghi789{files.TEMP_SUFFIX}"
    other.write_text("x")
    assert files.stale_temporaries(tmp_path, "verdicts.yaml") == [stale]
    files.write_text(target, "new\n")
    assert not stale.exists() and live.exists() and other.exists()
    assert target.read_text() == "new\n"


def test_lint_names_and_removes_temporaries_of_killed_writes(tmp_path):
    from typer.testing import CliRunner

    from testsuite.cli import app

    rules = tmp_path / "rules" / "de-en"
    rules.mkdir(parents=True)
    (rules / "r.yaml").write_text("pair: de-en\nrules: []\n")
    stale = rules / f".verdicts.yaml.{_dead_pid()}@{files.host_tag()}.x1y2z3{files.TEMP_SUFFIX}"
    stale.write_text("rules:\n- item: '0")
    result = CliRunner().invoke(app, ["lint", str(tmp_path / "rules")])
    assert f"removed {stale}: the temporary file of a write that was killed" in result.output
    assert not stale.exists()
