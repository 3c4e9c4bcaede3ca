"""The triage app, continued: rule edits, filters, notes, jumps, batches, hostile text, 80×24.

A second file so that the test runner can run it beside tests/test_tui.py (the two are the
slowest files of the suite); the project fixture and helpers are those of test_tui.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml
from textual import events
from textual.widgets import DataTable, Footer, Input
from typer.testing import CliRunner

from testsuite.loader import lint, load_suite
from testsuite.matching import RegexCache
from testsuite.tui import TriageOptions, run_triage
from testsuite.tui.app import PANELS, TriageApp
from testsuite.tui.filters import Filters
from testsuite.tui.render import NEGATIVE, POSITIVE, highlight
from testsuite.tui.screens import PromptScreen, RegexScreen
from testsuite.tui.session import TriageSession
from testsuite.verdicts.queue import decide

from .test_annotation import MODAL_OUTPUTS, modal  # noqa: F401  (the fixture)
from .test_tui import (  # the fixture is used by name (see pyproject: F811)
    BOHNEN,
    ERZAEHLT,
    KLACKS,
    MWE_RULES,
    NEGATION_RULES,
    NICHT,
    current,
    drafts,
    drive,
    options,
    outcome,
    project,
    queue,
    saved,
    until,
    verdicts,
)


def test_regex_edit_previews_then_saves(project: Path) -> None:
    rules = project / "rules" / "en-de" / "mwe.yaml"

    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("j", "j", "e")  # type: ignore[attr-defined]
        screen = app.screen
        assert isinstance(screen, RegexScreen)
        assert screen.changes == []  # the current pattern changes nothing
        await pilot.press(*"|(erzählt")  # type: ignore[attr-defined]
        assert screen.error is not None and "does not compile" in screen.error
        await pilot.press("enter")  # type: ignore[attr-defined]  # refused: still open
        assert app.screen is screen
        await pilot.press("backspace", "backspace", "backspace", "backspace",  # type: ignore[attr-defined]
                          "backspace", "backspace", "backspace", "backspace", *"erzählt")
        assert screen.error is None
        # the preview, before anything is saved: both systems' shared output would pass
        assert [(c.system, c.old, c.new) for c in screen.changes] == [
            ("Online-A", "warning", "pass"), ("Online-B", "warning", "pass")]
        assert screen.query_one("#regex-preview").row_count == 2
        assert rules.read_text(encoding="utf-8") == MWE_RULES
        await pilot.press("enter")  # type: ignore[attr-defined]
        await until(pilot, saved(app))
        assert queue(app) == [BOHNEN, KLACKS, NICHT]  # the resolved output left the queue
        assert current(app) == BOHNEN  # still on idiom-01
        assert app.session.progress().resolved == 1

    drive(project, scenario)
    text = rules.read_text(encoding="utf-8")
    assert text == MWE_RULES.replace("'ausgeplaudert|verraten'",
                                     "'ausgeplaudert|verraten|erzählt'")
    assert "# Idioms: the positive patterns are deliberately narrow" in text
    assert verdicts(project) == []  # a rule edit is not a verdict
    assert outcome(project, "Online-B", "idiom-01") == ("pass", "positive-regex")


def test_negative_regex_edit_and_cancel(project: Path) -> None:
    rules = project / "rules" / "en-de" / "negation.yaml"

    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("j", "E")  # type: ignore[attr-defined]
        screen = app.screen
        assert isinstance(screen, RegexScreen) and screen.field == "negative_regex"
        await pilot.press(*"noch nicht")  # type: ignore[attr-defined]
        assert [(c.system, c.new) for c in screen.changes] == [("Online-A", "fail")]
        await pilot.press("escape")  # type: ignore[attr-defined]
        assert rules.read_text(encoding="utf-8") == NEGATION_RULES
        assert len(queue(app)) == 4
        await pilot.press("E", *"noch nicht", "enter")  # type: ignore[attr-defined]
        await until(pilot, saved(app))
        assert queue(app) == [KLACKS, ERZAEHLT, BOHNEN]

    drive(project, scenario)
    assert rules.read_text(encoding="utf-8") == NEGATION_RULES + "    negative_regex: " \
        "'noch nicht'\n"
    assert outcome(project, "Online-A", "neg-02") == ("fail", "negative-regex")


async def submit(app: TriageApp, pilot: object, text: str) -> None:
    """Replace the text of the open prompt's input (as typing would) and press enter."""
    app.screen.query_one(Input).value = text
    await pilot.press("enter")  # type: ignore[attr-defined]


def test_filter_in_the_app(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("slash", *"category=negation", "enter")  # type: ignore[attr-defined]
        assert queue(app) == [NICHT]
        await pilot.press("slash")  # type: ignore[attr-defined]
        assert app.screen.query_one(Input).value == "category=negation"  # the current one
        await submit(app, pilot, "system=Online-C")
        assert queue(app) == [BOHNEN]
        await pilot.press("slash")  # type: ignore[attr-defined]
        await submit(app, pilot, "colour=red")
        assert isinstance(app.screen, PromptScreen)  # refused, with the message
        assert "category, phenomenon, system" in (app.screen.error or "")
        await submit(app, pilot, "phenomenon=Idiom system=Online-B")
        assert queue(app) == [ERZAEHLT]
        assert app.session.entries[0].systems == ("Online-B",)
        await pilot.press("slash", "ctrl+u", "enter")  # type: ignore[attr-defined]
        assert len(queue(app)) == 4  # empty clears

    drive(project, scenario)


def test_filter_on_a_left_out_system_shows_an_empty_queue_saying_why(project: Path) -> None:
    # Online-D did not translate the suite: it is loaded but left out, so it has no rows
    (project / "outputs" / "Online-D.txt").write_text("n/a\n" * 5, encoding="utf-8")

    async def scenario(app: TriageApp, pilot: object) -> None:
        assert len(queue(app)) == 4
        await pilot.press("slash")  # type: ignore[attr-defined]
        await submit(app, pilot, "system=online-d")  # any case, as everywhere
        assert not isinstance(app.screen, PromptScreen)  # accepted, and the app runs on
        assert queue(app) == []
        heading = str(app.query_one("#heading").render())
        assert "Nothing left to decide with the filter system=online-d" in heading
        assert "Online-D: 5 of 5 outputs are the placeholder 'n/a'" in heading
        await pilot.press("slash")  # type: ignore[attr-defined]
        await submit(app, pilot, "system=Online-C")
        assert queue(app) == [BOHNEN]

    drive(project, scenario)

    async def from_the_options(app: TriageApp, pilot: object) -> None:
        assert queue(app) == []
        assert "left out" in str(app.query_one("#heading").render())

    drive(project, from_the_options, systems=("Online-D",))


def test_filter_from_the_options(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        assert queue(app) == [KLACKS, ERZAEHLT]
        assert app.session.progress().remaining == 4  # progress counts everything

    drive(project, scenario, categories=("MWE",), systems=("Online-A",))


def test_a_note_is_saved_when_typed_and_kept_across_sessions(project: Path) -> None:
    async def first(app: TriageApp, pilot: object) -> None:
        await pilot.press("n", *"paraphrase", "enter", "right", "q")  # type: ignore[attr-defined]

    drive(project, first)
    assert [(d["item"], d["note"]) for d in drafts(project)] == [("idiom-02", "paraphrase")]
    assert verdicts(project) == []  # a draft is not a verdict

    async def second(app: TriageApp, pilot: object) -> None:
        assert app.session is not None and app.session.note(app.session.entries[0]) \
            == "paraphrase"
        await pilot.press("p")  # type: ignore[attr-defined]  # the note goes with the verdict
        assert drafts(project) == []
        # a note added to an existing decision goes into that verdict at once
        await pilot.press("k", "n", "ctrl+u", *"idiomatic", "enter")  # type: ignore[attr-defined]

    drive(project, second)
    assert verdicts(project) == [("idiom-02", KLACKS[2], "pass", "tester", "idiomatic")]


def test_keys_typed_right_after_a_prompt_key_are_not_lost(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        # The keys go to the app's queue one after the other with no pause in between: the
        # note's letters reach the note (the "f" of "fast" does not decide fail), and the
        # "p" typed after its enter decides pass once the prompt is closed.
        for key in ("n", *"fast", "enter", "p"):
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        for _ in range(100):  # however slow the machine: until the pass is saved
            await pilot.pause(0.05)  # type: ignore[attr-defined]
            if verdicts(project):
                break

    drive(project, scenario)
    assert verdicts(project) == [("idiom-02", KLACKS[2], "pass", "tester", "fast")]


def test_jump_by_item_id_or_text(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("g", *"neg-02", "enter")  # type: ignore[attr-defined]
        assert current(app) == NICHT
        await pilot.press("g", *"bohnen", "enter")  # type: ignore[attr-defined]
        assert current(app) == BOHNEN  # text of an output, any case
        await pilot.press("g", *"piece of cake", "enter")  # type: ignore[attr-defined]
        assert current(app) == KLACKS  # text of the source
        await pilot.press("g", *"nowhere", "enter")  # type: ignore[attr-defined]
        assert current(app) == KLACKS

    drive(project, scenario)


def test_batch_decides_matching_outputs_and_undo_takes_it_back_as_one(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("j", "j", "b")  # type: ignore[attr-defined]  # on idiom-01
        await pilot.press("ctrl+f")  # type: ignore[attr-defined]
        screen = app.screen
        assert [d.output for _, d in screen.chosen.decides] == [  # type: ignore[attr-defined]
            ERZAEHLT[2], BOHNEN[2]]
        await pilot.press(*"Bohnen", "enter")  # type: ignore[attr-defined]
        assert verdicts(project) == [("idiom-01", BOHNEN[2], "fail", "tester", None)]
        await pilot.press("b", "ctrl+s")  # type: ignore[attr-defined]  # the phenomenon Idiom
        assert {d.output for _, d in app.screen.chosen.decides} == {  # type: ignore[attr-defined]
            ERZAEHLT[2], KLACKS[2]}
        await pilot.press("enter")  # type: ignore[attr-defined]
        assert len(verdicts(project)) == 3
        await pilot.press("u")  # type: ignore[attr-defined]  # the whole second batch
        assert verdicts(project) == [("idiom-01", BOHNEN[2], "fail", "tester", None)]

    drive(project, scenario)


def test_every_pending_output_follows_what_changes_the_judged_outputs(project: Path) -> None:
    # What the batch dialog selects from: every pending output, whatever the filter, after
    # a rule edit, another annotator's verdict, a decision and an undo.
    session = TriageSession.load(options(project, phenomena=("Negative adverb",)))

    def pending() -> set[tuple[str, str, str]]:
        return {(e.pair, e.item, e.output) for e in session.all_pending()}

    assert pending() == {KLACKS, NICHT, ERZAEHLT, BOHNEN}
    assert [(e.pair, e.item, e.output) for e in session.entries] == [NICHT]
    entry = session.entries[0]
    session.save_regex(entry, "positive_regex", r"\bnie(mals)?\b|noch nicht",
                       session.rule_of(entry))
    assert pending() == {KLACKS, ERZAEHLT, BOHNEN}
    decide(load_suite([project / "suites", project / "rules"]), *KLACKS, "pass",
           annotator="other")
    session.sync()
    assert pending() == {ERZAEHLT, BOHNEN}
    session.undo()  # the rule edit
    assert pending() == {ERZAEHLT, BOHNEN, NICHT}
    session.decide("pass", next(e for e in session.all_pending()
                                if (e.pair, e.item, e.output) == ERZAEHLT))
    assert pending() == {BOHNEN, NICHT}


HOSTILE = {"[red]Sys": ["x one [/] two", "[bold red]boom[/bold red]", "a", "b", "c"]}


def test_outputs_and_names_are_shown_literally_never_as_markup(project: Path) -> None:
    for name, lines in HOSTILE.items():
        (project / "outputs" / f"{name}.txt").write_text("\n".join(lines) + "\n", "utf-8")

    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("g", *"x one", "enter")  # type: ignore[attr-defined]
        assert current(app) == ("en-de", "idiom-01", "x one [/] two")
        table = app.query_one("#systems", DataTable)
        cells = [str(c) for row in range(table.row_count) for c in table.get_row_at(row)]
        assert "x one [/] two" in cells and "[red]Sys" in cells
        await pilot.press("e", "end", *"|one")  # type: ignore[attr-defined]  # the preview
        preview = app.screen.query_one("#regex-preview", DataTable)
        assert [str(c) for c in preview.get_row_at(0)][0::3] == ["[red]Sys", "x one [/] two"]
        await pilot.press("escape", "g", *"boom", "enter", "n", *"[b]note", "enter")  # type: ignore[attr-defined]
        assert "[bold red]boom[/bold red]" in str(app.query_one("#heading").render()) or \
            current(app) == ("en-de", "idiom-02", "[bold red]boom[/bold red]")
        await pilot.press("p")  # type: ignore[attr-defined]

    drive(project, scenario)
    assert ("idiom-02", "[bold red]boom[/bold red]", "pass", "tester", "[b]note") \
        in verdicts(project)


def test_80_by_24_every_panel_is_on_screen_and_scrolls(project: Path) -> None:
    many = {f"Sys-{n:02d}": [f"Tom hat es {n} Mal erzählt.", "Die Prüfung war leicht.",
                             "x", "y", "z"] for n in range(12)}
    for name, lines in many.items():
        (project / "outputs" / f"{name}.txt").write_text("\n".join(lines) + "\n", "utf-8")

    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("g", *"idiom-01", "enter")  # type: ignore[attr-defined]
        for name in ("entry", "rule-box", "systems", "status", "progress"):
            region = app.query_one(f"#{name}").region
            assert region.height >= (2 if name in PANELS else 1), name
            assert region.bottom <= 23, name
        footer = app.query_one(Footer)
        assert footer.region.bottom == 24
        shown = [k.binding.description for k in app.active_bindings.values() if k.binding.show]
        assert "quit" in shown[:4]  # early in the footer, never cut off
        table = app.query_one("#systems", DataTable)
        assert table.row_count == 15 and table.max_scroll_y > 0
        assert app.panel == "systems"
        await pilot.press("down", "down", "pagedown")  # type: ignore[attr-defined]
        assert table.scroll_y > 0
        await pilot.press("tab")  # type: ignore[attr-defined]
        assert app.panel == "entry" and app.query_one("#entry").has_class("scrolling")
        await pilot.press("tab", "down")  # type: ignore[attr-defined]
        assert app.panel == "rule-box"
        assert current(app)[1] == "idiom-01"  # type: ignore[index]  # ↑/↓ never moved the queue

    app = TriageApp(TriageSession.load(options(project)))

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await scenario(app, pilot)

    asyncio.run(run())


def test_an_output_the_preview_got_wrong_is_decided_the_other_way_first(modal: Path) -> None:
    wrong = "Sie hatte laufen müssen."  # "arbeiten" is not "laufen"
    (modal / "outputs" / "C.txt").write_text(
        "\n".join([*MODAL_OUTPUTS["A"][:5], wrong]) + "\n", encoding="utf-8")

    async def scenario(app: TriageApp, pilot: object) -> None:
        # Every pending output of the phenomenon with "müssen": pass.
        await pilot.press("b", "ctrl+s", *"müssen")  # type: ignore[attr-defined]
        screen = app.screen
        outputs = [row.shown for row in screen.rows]  # type: ignore[attr-defined]
        assert wrong in outputs and screen.chosen.verdict == "pass"  # type: ignore[attr-defined]
        before = len(screen.chosen.decides)  # type: ignore[attr-defined]
        await pilot.press(*["down"] * outputs.index(wrong), "ctrl+o")  # type: ignore[attr-defined]
        # Decided fail at once; the batch goes on without it.
        assert verdicts(modal) == [("m6", wrong, "fail", "tester", None)]
        left = [d.output for _, d in screen.chosen.decides]  # type: ignore[attr-defined]
        assert wrong not in left and len(left) == before - 1
        await pilot.press("enter")  # type: ignore[attr-defined]
        assert app.screen is not screen

    drive(modal, scenario)
    decided = {output: verdict for _, output, verdict, _, _ in verdicts(modal)}
    assert decided == {wrong: "fail", **{o: "pass" for o in MODAL_OUTPUTS["A"][3:]}}


def test_an_output_decided_the_other_way_is_said_below_the_dialog(modal: Path) -> None:
    """Not in a notification over the preview (at 80×24 it covered the preview's last rows
    and the status line)."""
    wrong = "Sie hatte laufen müssen."
    (modal / "outputs" / "C.txt").write_text(
        "\n".join([*MODAL_OUTPUTS["A"][:5], wrong]) + "\n", encoding="utf-8")
    app = TriageApp(TriageSession.load(options(modal)), follow=False)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("b", "ctrl+s", *"müssen")
            screen = app.screen
            outputs = [row.shown for row in screen.rows]  # type: ignore[attr-defined]
            await pilot.press(*["down"] * outputs.index(wrong), "ctrl+o")
            assert verdicts(modal) == [("m6", wrong, "fail", "tester", None)]
            assert not app._notifications
            assert app.status == f"m6: {wrong!r} decided fail"
            status = app.query_one("#status")
            assert screen.query_one(".dialog").region.bottom <= status.region.y

    asyncio.run(run())


def test_80_by_24_the_batch_dialog_shows_its_keys_and_its_preview(modal: Path) -> None:
    app = TriageApp(TriageSession.load(options(modal)))

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("b")
            screen = app.screen
            for name in ("batch-title", "batch-input", "batch-summary", "batch-preview"):
                region = screen.query_one(f"#{name}").region
                assert region.height >= 1 and region.bottom <= 23, name
            help_ = [label for label in screen.query(".dialog-help")
                     if "ctrl+o" in str(label.render())]
            assert help_ and help_[0].region.bottom <= 23
            table = screen.query_one("#batch-preview", DataTable)
            assert table.region.height >= 3  # the header and at least two outputs
            assert not screen.query_one("#batch-error").display  # no empty error line

    asyncio.run(run())
