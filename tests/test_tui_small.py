"""The triage app at 80×24 and in its dialogs, driven headlessly as a person uses it.

Each test is one defect seen in a terminal of 80 columns and 24 lines: a panel scrolled
down on the next item, notifications piled over the table, an enter that seemed ignored,
keys lost when typing fast, counts that read wrong, a cut list that did not say so. The
project fixture and helpers are those of `test_tui`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from testsuite.tui.app import TriageApp
from testsuite.tui.render import progress_text
from testsuite.tui.screens import BatchScreen, RegexScreen
from testsuite.tui.session import Progress, TriageSession

from .test_tui import (  # the fixture is used by name (see pyproject: F811)
    BOHNEN,
    ERZAEHLT,
    current,
    options,
    project,  # noqa: F401  (the fixture)
    until,
    verdicts,
)

Scenario = Callable[[TriageApp, object], Awaitable[None]]


def small(folder: Path, scenario: Scenario) -> TriageApp:
    """Run the app on an 80×24 terminal through `scenario(app, pilot)`."""
    app = TriageApp(TriageSession.load(options(folder)), follow=False)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await scenario(app, pilot)

    asyncio.run(run())
    return app


def type_fast(app: TriageApp, *keys: str) -> None:
    """Keys in the app's queue one after the other, with no pause: as a fast typist's."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


def many_systems(folder: Path) -> None:
    """Twelve more systems: the table and the entry no longer fit at 80×24."""
    for n in range(12):
        lines = [f"Tom hat es {n} Mal erzählt.", "Die Prüfung war leicht.", "x", "y", "z"]
        (folder / "outputs" / f"Sys-{n:02d}.txt").write_text("\n".join(lines) + "\n", "utf-8")


def test_the_next_item_is_shown_from_its_top(project: Path) -> None:  # noqa: F811
    many_systems(project)

    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("g", *"idiom-01", "enter")  # type: ignore[attr-defined]
        await pilot.press("pagedown", "tab", "pagedown")  # type: ignore[attr-defined]
        entry, table = app.query_one("#entry"), app.query_one("#systems")
        assert entry.scroll_y > 0 and table.scroll_y > 0  # the source is out of sight
        await pilot.press("f")  # type: ignore[attr-defined]
        assert current(app) != ERZAEHLT
        await until(pilot, lambda: entry.scroll_y == 0 and table.scroll_y == 0)
        assert current(app)[1] in str(app.query_one("#heading").render())  # type: ignore[index]

    small(project, scenario)


def test_messages_go_to_the_status_line_never_over_the_table(project: Path) -> None:  # noqa: F811
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("p", "u", "p", "f", "u", "g", *"nothing like it", "enter")  # type: ignore[attr-defined]
        assert not app._notifications  # no toast at all
        status, table, progress = (app.query_one(f"#{name}") for name in
                                   ("status", "systems", "progress"))
        assert app.status == "no entry in the queue for 'nothing like it'"
        assert "no entry in the queue" in str(status.render())
        assert table.region.bottom <= status.region.y < progress.region.y
        assert status.region.bottom <= 23

    small(project, scenario)


def test_one_enter_saves_a_rule_edit_and_says_so_at_once(project: Path) -> None:  # noqa: F811
    seen_while_saving: list[str] = []

    async def scenario(app: TriageApp, pilot: object) -> None:
        assert app.session is not None
        session = app.session
        save = session.save_regex

        def watched(*args: object, **kwargs: object) -> object:
            seen_while_saving.append(str(app.screen.query_one("#regex-error").render()))
            return save(*args, **kwargs)  # type: ignore[arg-type]

        session.save_regex = watched  # type: ignore[method-assign]
        await pilot.press("j", "j", "e", "end", *"|erzählt")  # type: ignore[attr-defined]
        assert isinstance(app.screen, RegexScreen)
        type_fast(app, "enter", "p")  # p typed while the file is written
        await until(pilot, lambda: len(verdicts(project)) == 1)
        assert not isinstance(app.screen, RegexScreen)  # one enter closed it

    small(project, scenario)
    rules = (project / "rules" / "en-de" / "mwe.yaml").read_text("utf-8")
    assert "positive_regex: 'ausgeplaudert|verraten|erzählt'" in rules
    assert len(seen_while_saving) == 1 and "saving to" in seen_while_saving[0]
    assert "mwe.yaml" in seen_while_saving[0]
    # The p typed during the save decided the entry on screen after it: Bohnen, idiom-01.
    assert [(v[1], v[2]) for v in verdicts(project)] == [(BOHNEN[2], "pass")]


def test_a_pattern_typed_fast_and_corrected_comes_out_as_typed(project: Path) -> None:  # noqa: F811
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("j", "j")  # type: ignore[attr-defined]  # idiom-01
        type_fast(app, "b", "ctrl+u", *"Bohnex", "backspace", "n", "left", "left",
                  "backspace", "e", "end", "ctrl+f")
        await until(pilot, lambda: isinstance(app.screen, BatchScreen)
                    and app.screen.ready and app.screen.verdict == "fail")
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        # Bohnex, Bohne, Bohnen, Bohn|en, Boh|en, Bohe|en: every key where it was typed.
        await until(pilot, lambda: screen.query_one("#batch-input", Input).value == "Boheen")
        assert screen.chosen is not None and screen.chosen.decides == ()
        type_fast(app, "left", "left", "backspace", "n", "end")  # Bohnen
        await until(pilot, lambda: screen.query_one("#batch-input", Input).value == "Bohnen")
        await until(pilot, lambda: screen.chosen is not None and len(screen.chosen.decides) == 1)

    small(project, scenario)


def test_counts_read_as_what_they_are() -> None:
    progress = Progress(24, 20, {"MWE": (24, 20), "Negation": (0, 3)})
    text = progress_text(progress, 44, 24, "", first="MWE", width=78, lines=1).plain
    assert text.startswith("resolved 24 of 44  │ MWE 24 of 44 · Negation 0 of 3")
    assert "24/20" not in text and "/" not in text
    filtered = progress_text(progress, 3, 0, "category=Negation", width=200).plain
    assert "filter category=Negation: queue 3 (0 decided here)" in filtered


def test_one_output_is_one_output(project: Path) -> None:  # noqa: F811
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("j", "b")  # type: ignore[attr-defined]  # neg-02: one output
        summary = str(app.screen.query_one("#batch-summary").render())
        assert summary.startswith("1 output (1 outcome) would be")
        await pilot.press("escape", "j", "b")  # type: ignore[attr-defined]  # idiom-01
        summary = str(app.screen.query_one("#batch-summary").render())
        assert summary.startswith("2 outputs (3 outcomes) would be")

    small(project, scenario)


LONG_TOKENS = """\
pair: en-de
rules:
  - item: neg-01
    positive_regex: '\\\\b(Niemand|Keiner)\\\\b'
    negative_tokens: [Jemand kam, Einer kam, Alle kamen, Viele kamen, Manche kamen,
      Ein paar kamen, Die meisten kamen, Jeder kam, Irgendwer kam, Mehrere kamen]
  - item: neg-02
    positive_regex: '\\\\bnie(mals)?\\\\b'
"""


def test_a_panel_cut_at_80_by_24_says_how_much_is_below(project: Path) -> None:  # noqa: F811
    (project / "rules" / "en-de" / "negation.yaml").write_text(LONG_TOKENS, "utf-8")
    many_systems(project)

    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("g", *"neg-01", "enter")  # type: ignore[attr-defined]
        assert current(app)[1] == "neg-01"  # type: ignore[index]
        box = app.query_one("#rule-box")
        await until(pilot, lambda: bool(box.border_subtitle))
        hidden = round(box.max_scroll_y)
        assert hidden > 0 and box.border_subtitle == f"▼ {hidden} more lines (tab, ↓)"
        await pilot.press("tab", "tab")  # type: ignore[attr-defined]  # the rule panel
        assert app.panel == "rule-box" and box.border_subtitle.endswith("(↓)")
        await pilot.press("pagedown", "pagedown")  # type: ignore[attr-defined]
        await until(pilot, lambda: box.border_subtitle == "")  # its end is shown
        assert "Mehrere kamen" in str(app.query_one("#rule").render())
        table = app.query_one("#systems")
        assert table.max_scroll_y > 0 and "more line" in str(table.border_subtitle)

    small(project, scenario)



def test_a_panel_that_shows_everything_says_nothing_more(project: Path) -> None:  # noqa: F811
    app = TriageApp(TriageSession.load(options(project)), follow=False)

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            entry = app.query_one("#entry")
            await until(pilot, lambda: bool(entry.border_subtitle))  # cut at 80×24
            await pilot.resize_terminal(160, 50)
            await until(pilot, lambda: not any(app.query_one(f"#{name}").border_subtitle
                                               for name in ("entry", "rule-box", "systems")))

    asyncio.run(run())


def test_a_resized_terminal_is_drawn_at_its_new_size(project: Path) -> None:  # noqa: F811
    """From 160×50 to 80×24 (a pane split, a window made smaller): the table's output column
    and the progress line follow the new size, not the one before (the app's own resize
    handler ran before Textual had taken the new size in)."""
    app = TriageApp(TriageSession.load(options(project)), follow=False)

    async def run() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            table = app.query_one("#systems")
            output = table.ordered_columns[-1]  # type: ignore[attr-defined]
            assert output.width > 80
            await pilot.resize_terminal(80, 24)
            await until(pilot, lambda: table.ordered_columns[-1] is not output)  # type: ignore[attr-defined]
            # The whole table in the panel: no output cut at the right edge.
            assert table.virtual_size.width <= table.scrollable_content_region.width

    asyncio.run(run())



def test_a_panel_cut_by_a_smaller_terminal_says_so(project: Path) -> None:  # noqa: F811
    """From 160×50 to 80×24 the table shows 3 of its rows: its border must say so (it said
    so only when the entry changed)."""
    many_systems(project)
    app = TriageApp(TriageSession.load(options(project)), follow=False)

    async def run() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.press("g", *"idiom-01", "enter")
            table = app.query_one("#systems")
            await pilot.pause()
            assert not table.border_subtitle
            await pilot.resize_terminal(80, 24)
            await until(pilot, lambda: "more line" in str(table.border_subtitle))

    asyncio.run(run())

#: Categories of a big suite, as many and as long as the DFKI suite's.
MANY_CATEGORIES = {name: (0, count) for name, count in (
    ("Verb tense/aspect/mood", 1372), ("LDD & interrogatives", 87), ("Subordination", 59),
    ("Verb valency", 32), ("MWE", 28), ("Function word", 27),
    ("Named entity & terminology", 18), ("Coordination & ellipsis", 12), ("Ambiguity", 9),
    ("Negation", 7), ("Composition", 6), ("False friends", 5), ("Non-verbal agreement", 4),
    ("Punctuation", 3))}


@pytest.mark.parametrize(("width", "lines"), [(78, 1), (158, 2), (100, 2), (60, 3)])
def test_the_progress_keeps_to_its_lines(width: int, lines: int) -> None:
    """At 160×50 the categories were counted in characters against two lines, and the
    line broken between words took a third ("… · +3" and "more" below)."""
    from rich.console import Console

    progress = Progress(0, 1670, MANY_CATEGORIES)
    text = progress_text(progress, 1670, 0, "", first="Verb tense/aspect/mood", width=width,
                         lines=lines)
    wrapped = text.wrap(Console(width=width), width)
    assert len(wrapped) <= lines, [line.plain for line in wrapped]
    assert text.plain.rstrip().endswith("more")  # what did not fit is counted
    assert "Verb tense/aspect/mood 0 of 1,372" in text.plain
