"""Triage as a team: two app instances on one suite folder, driven headlessly side by side.

Each scenario runs alice's and bob's apps in one event loop on the project of
`test_tui` (three systems, four pending warnings). `sync` is what the apps' one-second
timer calls; the tests call it (through `watch_files`) where a person would wait a second.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from textual import events

from testsuite.loader import lint
from testsuite.tui.app import TriageApp
from testsuite.tui.screens import BatchScreen, RegexScreen
from testsuite.tui.session import TriageSession

from .test_tui import (
    BOHNEN,
    ERZAEHLT,
    KLACKS,
    MWE_RULES,
    NICHT,
    current,
    options,
    outcome,
    project,  # noqa: F401  (the fixture)
    queue,
    saved,
    until,
    verdicts,
)

Pair = Callable[[TriageApp, object, TriageApp, object], Awaitable[None]]


def drive_two(folder: Path, scenario: Pair, size: tuple[int, int] = (120, 40), *,
              together: bool = True) -> tuple[TriageApp, TriageApp]:
    """Run alice's and bob's apps on the same folder at the same time.

    Bob's app begins after alice's and is given another item; with `together` bob then
    goes back to alice's (as when both begin in the same instant, before either has said
    where it is).
    """
    # The apps' one-second look at the folder is what the tests do by hand, where a person
    # would wait, so that the interleaving is the same on a slow machine.
    alice = TriageApp(TriageSession.load(options(folder, annotator="alice")), follow=False)
    bob = TriageApp(TriageSession.load(options(folder, annotator="bob")), follow=False)
    for app in (alice, bob):
        # However slow the machine, a key pressed after a colleague's decision replaced the
        # entry counts as pressed at once; `looked_at` is the person reading it.
        app.settle = 3600.0

    async def run() -> None:
        async with alice.run_test(size=size) as a, bob.run_test(size=size) as b:
            if together:
                while current(bob) != current(alice):
                    await b.press("k")
            await scenario(alice, a, bob, b)

    asyncio.run(run())
    return alice, bob


def looked_at(app: TriageApp) -> None:
    """The person has had the entry on the screen for `settle` seconds: its drawing is moved
    back in time rather than waited for, so that no test depends on the machine's speed."""
    app.shown = [replace(shown, since=shown.since - app.settle) for shown in app.shown]


def test_each_session_follows_the_others_decisions(project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        await a.press("p")  # type: ignore[attr-defined]  # alice: KLACKS pass
        assert current(bob) == KLACKS  # bob has not looked yet
        bob.watch_files()
        assert KLACKS not in queue(bob)  # resolved elsewhere: gone from bob's queue
        assert current(bob) == NICHT
        assert bob.session is not None and bob.session.progress().resolved == 1
        assert "alice decided it pass (idiom-02): you are now on neg-02" in bob.status
        looked_at(bob)
        await b.press("f")  # type: ignore[attr-defined]  # bob: NICHT fail
        alice.watch_files()
        assert NICHT not in queue(alice)
        assert KLACKS in queue(alice)  # alice's own decision stays listed, marked
        assert current(alice) == ERZAEHLT

    drive_two(project, scenario)
    assert [(v[0], v[2], v[3]) for v in verdicts(project)] == [
        ("idiom-02", "pass", "alice"), ("neg-02", "fail", "bob")]


def test_presence_marks_the_item_another_annotator_is_on(project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        assert alice.session is not None and bob.session is not None
        bob.watch_files()  # bob says where he is: KLACKS
        alice.watch_files()
        assert alice.session.others == {("en-de", "idiom-02"): ["bob"]}
        heading = alice.query_one("#heading").render()
        assert "bob on this item now" in str(heading)
        await b.press("j")  # type: ignore[attr-defined]
        bob.watch_files()
        alice.watch_files()
        assert alice.session.others == {("en-de", "neg-02"): ["bob"]}
        await b.press("q")  # type: ignore[attr-defined]  # bob leaves: his mark goes
        alice.watch_files()
        assert alice.session.others == {}

    drive_two(project, scenario)


def test_contradicting_verdicts_are_kept_as_a_disagreement_and_settled(
        project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        # Both decide KLACKS before either has seen the other's verdict.
        await a.press("p")  # type: ignore[attr-defined]
        await b.press("f")  # type: ignore[attr-defined]
        alice.watch_files()
        bob.watch_files()
        for app in (alice, bob):
            assert app.session is not None
            entry = next(e for e in app.session.entries if (e.pair, e.item, e.output) == KLACKS)
            assert entry.reason == "disagreement"  # open again, for both
        assert outcome(project, "Online-A", "idiom-02") == ("warning", "disagreement")
        problems = [p for p in lint([project / "suites", project / "rules"]).problems
                    if "disagree" in p.message]
        assert len(problems) == 1 and "alice: pass, bob: fail" in problems[0].message
        # Alice settles it with pass: on a disagreement, p or f settles.
        await a.press("k", "k", "k")  # type: ignore[attr-defined]
        assert alice.session is not None
        while current(alice) != KLACKS:
            await a.press("j")  # type: ignore[attr-defined]
        assert "disagreement: alice pass, bob fail" in str(alice.query_one("#heading").render())
        await a.press("p")  # type: ignore[attr-defined]

    drive_two(project, scenario)
    data = yaml.safe_load((project / "rules" / "en-de" / "verdicts.yaml").read_text("utf-8"))
    entries = data["rules"][0]["verdicts"]
    assert [(e["annotator"], e["verdict"], e.get("settles", False)) for e in entries] == [
        ("alice", "pass", False), ("bob", "fail", False), ("alice", "pass", True)]
    assert outcome(project, "Online-A", "idiom-02") == ("pass", "verdict")


def test_undo_takes_back_only_ones_own_verdict(project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        # The same verdict on the same output in the same second: only the annotator differs.
        await a.press("p")  # type: ignore[attr-defined]
        await b.press("p")  # type: ignore[attr-defined]
        assert [v[3] for v in verdicts(project)] == ["alice", "bob"]
        await a.press("u")  # type: ignore[attr-defined]
        assert [v[3] for v in verdicts(project)] == ["bob"]
        await a.press("u")  # type: ignore[attr-defined]  # nothing more of alice's
        assert [v[3] for v in verdicts(project)] == ["bob"]

    drive_two(project, scenario)


def test_a_rule_edit_on_a_stale_view_is_refused_with_the_change(
        project: Path) -> None:  # noqa: F811
    rules = project / "rules" / "en-de" / "mwe.yaml"

    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        await a.press("j", "j", "E")  # type: ignore[attr-defined]  # alice opens idiom-01
        screen = alice.screen
        assert isinstance(screen, RegexScreen) and screen.original == r"\bBohnen\b"
        await b.press("j", "j", "E", "ctrl+u", *"Bohnen|Erbsen", "enter")  # type: ignore[attr-defined]
        await until(b, saved(bob))
        assert "negative_regex: 'Bohnen|Erbsen'" in rules.read_text("utf-8")
        await a.press("ctrl+u", *"Bohne", "enter")  # type: ignore[attr-defined]
        await until(a, lambda: not screen.saving)
        assert alice.screen is screen  # refused: still open, showing what changed
        assert screen.error is not None and "changed" in screen.error
        shown = str(screen.query_one("#regex-error").render())
        assert "negative_regex: '\\\\bBohnen\\\\b' → 'Bohnen|Erbsen'" in shown
        assert "negative_regex: 'Bohnen|Erbsen'" in rules.read_text("utf-8")  # bob's stays
        await a.press("escape", "u")  # type: ignore[attr-defined]
        # alice's undo has nothing of hers to take back; bob's undo restores the file
        assert "Bohnen|Erbsen" in rules.read_text("utf-8")
        await b.press("u")  # type: ignore[attr-defined]
        assert rules.read_text("utf-8") == MWE_RULES
        alice.watch_files()  # alice sees the rule as it is again
        assert alice.session is not None
        rule = alice.session.suite.rules[("en-de", "idiom-01")]
        assert rule.negative_regex == r"\bBohnen\b"

    drive_two(project, scenario)


def test_a_rule_edit_by_another_session_re_judges_the_queue(
        project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        await b.press("j", "j", "e", "end", *"|erzählt", "enter")  # type: ignore[attr-defined]
        await until(b, saved(bob))
        assert ERZAEHLT not in queue(bob)
        assert ERZAEHLT in queue(alice)
        alice.watch_files()
        assert ERZAEHLT not in queue(alice)  # the new pattern passes it
        assert BOHNEN in queue(alice)

    drive_two(project, scenario)


def test_a_key_pressed_as_a_colleague_replaces_the_entry_is_dropped_and_said(
        project: Path) -> None:  # noqa: F811
    """The case reported: both on the same item; alice's p is saved, bob's view moves on to
    the next item and bob's f, meant for the item he was reading, lands on the next one."""

    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        assert current(alice) == current(bob) == KLACKS
        await a.press("p")  # type: ignore[attr-defined]
        bob.watch_files()  # bob's look at the folder replaces his entry
        assert current(bob) == NICHT
        await b.press("f")  # type: ignore[attr-defined]  # pressed as the entry changed
        assert [v[3] for v in verdicts(project)] == ["alice"]  # bob's f decided nothing
        assert "f dropped: alice decided it pass (idiom-02) just before you pressed it; " \
               "this is neg-02" in bob.status
        assert "f dropped" in str(bob.query_one("#status").render())  # on the screen
        assert current(bob) == NICHT
        looked_at(bob)  # bob reads the new entry, then decides it
        await b.press("f")  # type: ignore[attr-defined]
        assert [(v[0], v[2], v[3]) for v in verdicts(project)] == [
            ("idiom-02", "pass", "alice"), ("neg-02", "fail", "bob")]

    drive_two(project, scenario, size=(80, 24))


def test_a_key_acts_on_the_entry_on_screen_when_it_was_pressed_never_the_next(
        project: Path) -> None:  # noqa: F811
    """The root cause: the look at the folder is a timer, not a key, so it can run between
    the moment a key is pressed and the moment it is handled. The key was pressed on
    KLACKS; it must not decide what replaced KLACKS meanwhile."""

    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        await a.press("p")  # type: ignore[attr-defined]
        key = events.Key("f", "f")  # bob presses f on KLACKS …
        bob.watch_files()  # … and his app looks at the folder before handling it
        bob.settle = 0.0  # not the reaction time: the key came before the new entry
        bob.post_message(key)
        await until(b, lambda: "dropped" in bob.status)
        assert "f dropped: it was pressed on idiom-02, which is no longer on the screen; " \
               "this is neg-02" in bob.status
        assert [v[3] for v in verdicts(project)] == ["alice"]
        assert current(bob) == NICHT

    drive_two(project, scenario, size=(80, 24))


def test_a_batch_whose_outputs_changed_since_its_preview_is_refused_with_what_changed(
        project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        await a.press("j", "j", "b")  # type: ignore[attr-defined]  # alice: idiom-01, batch
        screen = alice.screen
        assert isinstance(screen, BatchScreen) and screen.chosen is not None
        shown = [decided.output for _, decided in screen.chosen.decides]
        assert shown == [ERZAEHLT[2], BOHNEN[2]]  # the preview: both pending outputs, pass
        await b.press("j", "j", "j")  # type: ignore[attr-defined]
        assert current(bob) == BOHNEN
        await b.press("f")  # type: ignore[attr-defined]  # bob decides one of them meanwhile
        await a.press("enter")  # type: ignore[attr-defined]
        assert alice.screen is screen  # refused: the dialog stays, saying what changed
        error = str(screen.query_one("#batch-error").render())
        assert "Not recorded: the outputs changed since the preview was shown" in error
        assert f"idiom-01 {BOHNEN[2]!r}: 'pending' → 'fail by bob'" in error
        assert [(v[1], v[3]) for v in verdicts(project)] == [(BOHNEN[2], "bob")]
        # The preview now shows the batch as it stands; a second enter records that.
        assert [d.output for _, d in screen.chosen.decides] == [ERZAEHLT[2]]
        await a.press("enter")  # type: ignore[attr-defined]
        assert alice.screen is not screen

    drive_two(project, scenario, size=(80, 24))
    assert sorted((v[1], v[2], v[3]) for v in verdicts(project)) == [
        (BOHNEN[2], "fail", "bob"), (ERZAEHLT[2], "pass", "alice")]


def test_two_annotators_are_given_different_items(project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        assert current(alice) == KLACKS
        assert current(bob) == NICHT  # alice is on idiom-02: bob begins on the next item
        assert "alice on this item now" not in str(bob.query_one("#heading").render())
        await a.press("p")  # type: ignore[attr-defined]
        assert current(alice) == ERZAEHLT  # the queue skips neg-02: bob is on it
        bob.watch_files()
        await b.press("s")  # type: ignore[attr-defined]  # bob skips: idiom-01 is alice's
        assert current(bob) == NICHT  # … and it is the only other item: he stays
        await a.press("q")  # type: ignore[attr-defined]  # alice leaves
        await b.press("s")  # type: ignore[attr-defined]
        assert current(bob) == ERZAEHLT  # free again

    drive_two(project, scenario, size=(80, 24), together=False)


#: The start of a program run in a child process: colleague carol's view of the shared folder
#: given as its first argument.
CAROL = ("import sys\n"
         "from pathlib import Path\n"
         "from testsuite.loader import load_suite\n"
         "from testsuite.tui.shared import SharedFolder\n"
         "root = Path(sys.argv[1])\n"
         "shared = SharedFolder(load_suite([root / 'suites', root / 'rules']), 'carol')\n")


def test_a_dead_sessions_presence_mark_goes_at_once(project: Path) -> None:  # noqa: F811
    """A session killed with SIGKILL cannot remove its mark; the others find its lock free
    (the system released it with the process) and remove the mark."""
    program = (
        CAROL +
        "shared.announce(('en-de', 'idiom-01', 'Tom hat endlich alles erzählt.'))\n"
        "print('on it', flush=True)\n"
        "sys.stdin.read()\n")
    carol = subprocess.Popen([sys.executable, "-c", program, str(project)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert carol.stdout is not None and carol.stdout.readline() == "on it\n"
        session = TriageSession.load(options(project, annotator="alice"))
        session.look_around()
        assert session.others == {("en-de", "idiom-01"): ["carol"]}
        presence = project / "rules" / "en-de" / ".testsuite" / "presence"
        assert len(list(presence.glob("*.json"))) == 1
    finally:
        carol.kill()  # SIGKILL: no clean-up of its own
        carol.wait()
    session.look_around()
    assert session.others == {}
    assert list(presence.iterdir()) == []  # mark and lock file removed


def test_a_named_pipe_among_the_presence_marks_does_not_block_the_screen(
        project: Path) -> None:  # noqa: F811
    """Anyone who can write the shared folder can put a pipe where marks are: reading it
    blocked `look_around` (and with it the triage screen) for good. Run in a child with a
    time limit, so that a hang fails the test instead of stopping the test run."""
    presence = project / "rules" / "en-de" / ".testsuite" / "presence"
    presence.mkdir(parents=True)
    os.mkfifo(presence / "pipe.json")
    (presence / "huge.json").write_bytes(b"{" + b" " * 2**20 + b"}")  # 1 MB: not read
    program = (
        CAROL +
        "print(shared.look_around(), flush=True)\n")
    done = subprocess.run([sys.executable, "-c", program, str(project)], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "{}\n"), done.stderr


def test_a_presence_mark_stamped_nan_or_in_the_future_does_not_count_for_ever(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A mark without a lock file counts while it is recent: one whose time was NaN or
    1e308 (written by anyone who can write the shared folder) showed "EVIL on this item" on
    every session for ever. Found by the issue 20 red team."""
    import json
    import time

    from testsuite.loader import load_suite
    from testsuite.tui import shared as module
    from testsuite.tui.shared import SharedFolder

    monkeypatch.setattr(module, "PRESENCE_TIMEOUT", 3600.0)  # "now" stays recent under load
    presence = project / "rules" / "en-de" / ".testsuite" / "presence"
    presence.mkdir(parents=True)
    for name, stamp in (("nan", float("nan")), ("future", 1e308), ("now", time.time())):
        (presence / f"{name}.json").write_text(json.dumps(
            {"annotator": name, "pair": "en-de", "item": "idiom-01", "output": "x",
             "time": stamp}), encoding="utf-8")
    shared = SharedFolder(load_suite([project / "suites", project / "rules"]), "alice")
    assert shared.look_around() == {("en-de", "idiom-01"): ["now"]}


def test_a_refused_batch_stays_on_its_item_when_a_colleague_resolved_it(
        project: Path) -> None:  # noqa: F811
    async def scenario(alice: TriageApp, a: object, bob: TriageApp, b: object) -> None:
        await a.press("b")  # type: ignore[attr-defined]  # on idiom-02: its one output
        screen = alice.screen
        assert isinstance(screen, BatchScreen)
        await b.press("p")  # type: ignore[attr-defined]  # bob decides it meanwhile
        await a.press("enter")  # type: ignore[attr-defined]
        assert alice.screen is screen and screen.chosen is not None
        assert screen.chosen.decides == () and "item idiom-02" in str(
            screen.query_one("#batch-title").render())  # not moved to another item
        await a.press("escape")  # type: ignore[attr-defined]
        # The entry went (bob is on neg-02 now: the next free one); the screen says why.
        assert current(alice) == ERZAEHLT
        assert alice.status == "bob decided it pass (idiom-02): you are now on idiom-01"
        await a.press("f")  # type: ignore[attr-defined]  # at once: dropped
        assert "f dropped" in alice.status
        assert [(v[0], v[3]) for v in verdicts(project)] == [("idiom-02", "bob")]

    drive_two(project, scenario, size=(80, 24))
