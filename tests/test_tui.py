"""The triage app, driven headlessly: every assertion is on app state or on files written.

The project below has three systems and four pending warnings (impact order):

1. idiom-02 "ein Klacks" (Online-A): completes its item;
2. neg-02 "noch nicht" (Online-A): completes its item;
3. idiom-01 "alles erzählt" (Online-A and Online-B: one decision for both);
4. idiom-01 "die Bohnen … ausgeplaudert" (Online-C, both regexes match).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from textual import events
from textual.widgets import DataTable, Footer, Input
from typer.testing import CliRunner

from testsuite.evaluate import evaluate
from testsuite.inputs import InputSpec, load_outputs
from testsuite.loader import lint, load_suite
from testsuite.matching import RegexCache
from testsuite.tui import TriageOptions, run_triage
from testsuite.tui.app import TriageApp
from testsuite.tui.filters import Filters
from testsuite.tui.render import NEGATIVE, POSITIVE, highlight
from testsuite.tui.screens import PromptScreen, RegexScreen
from testsuite.tui.session import TriageSession

MWE_SUITE = """\
pair: en-de
category: MWE
items:
  - id: idiom-01
    phenomenon: Idiom
    source: Tom finally spilled the beans.
  - id: 'idiom-02'
    phenomenon: Idiom
    source: The exam was a piece of cake.
  - id: idiom-03
    phenomenon: Idiom
    source: The repairs cost an arm and a leg.
"""
NEGATION_SUITE = """\
pair: en-de
category: Negation
items:
  - id: neg-01
    phenomenon: Negated subject
    source: Nobody came to the meeting.
  - id: neg-02
    phenomenon: Negative adverb
    source: I have never seen it.
"""
MWE_RULES = """\
pair: en-de
rules:
  # Idioms: the positive patterns are deliberately narrow
  - item: idiom-01
    positive_regex: 'ausgeplaudert|verraten'
    negative_regex: '\\bBohnen\\b'
  - item: 'idiom-02'
    positive_regex: 'kinderleicht'  # paraphrases need a person
    negative_regex: 'Stück Kuchen'
  - item: idiom-03
    positive_regex: 'ein Vermögen|sündhaft teuer'
    negative_regex: '\\bArm\\b'
"""
NEGATION_RULES = """\
pair: en-de
rules:
  - item: neg-01
    positive_regex: '\\b(Niemand|Keiner)\\b'
    negative_regex: '\\bJemand\\b'
  - item: neg-02
    positive_regex: '\\bnie(mals)?\\b'
"""
# One output per line, in suite order: idiom-01, idiom-02, idiom-03, neg-01, neg-02.
OUTPUTS = {
    "Online-A": ["Tom hat endlich alles erzählt.", "Die Prüfung war ein Klacks.",
                 "Die Reparaturen kosteten ein Vermögen.", "Niemand kam zu dem Treffen.",
                 "Ich habe es noch nicht gesehen."],
    "Online-B": ["Tom hat endlich alles erzählt.", "Die Prüfung war ein Stück Kuchen.",
                 "Die Reparaturen kosteten einen Arm und ein Bein.",
                 "Jemand kam nicht zu dem Treffen.", "Ich habe es nie gesehen."],
    "Online-C": ["Tom hat die Bohnen endlich ausgeplaudert.", "Die Prüfung war kinderleicht.",
                 "Die Reparaturen kosteten ein Vermögen.", "Niemand kam zum Treffen.",
                 "Ich sah es nie."],
}
KLACKS = ("en-de", "idiom-02", "Die Prüfung war ein Klacks.")
NICHT = ("en-de", "neg-02", "Ich habe es noch nicht gesehen.")
ERZAEHLT = ("en-de", "idiom-01", "Tom hat endlich alles erzählt.")
BOHNEN = ("en-de", "idiom-01", "Tom hat die Bohnen endlich ausgeplaudert.")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    files = {"suites/en-de/mwe.yaml": MWE_SUITE, "suites/en-de/negation.yaml": NEGATION_SUITE,
             "rules/en-de/mwe.yaml": MWE_RULES, "rules/en-de/negation.yaml": NEGATION_RULES}
    files.update({f"outputs/{name}.txt": "\n".join(lines) + "\n"
                  for name, lines in OUTPUTS.items()})
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def options(project: Path, **changes: object) -> TriageOptions:
    chosen = TriageOptions(
        inputs=InputSpec(outputs=(project / "outputs",),
                         suite=(project / "suites", project / "rules")),
        annotator="tester", categories=(), phenomena=(), systems=(), order="impact")
    return replace(chosen, **changes)  # type: ignore[arg-type]


Scenario = Callable[[TriageApp, object], Awaitable[None]]


def drive(project: Path, scenario: Scenario, **changes: object) -> TriageApp:
    """Run a fresh app on the project headlessly through `scenario(app, pilot)`."""
    app = TriageApp(TriageSession.load(options(project, **changes)))

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await scenario(app, pilot)

    asyncio.run(run())
    return app


def current(app: TriageApp) -> tuple[str, str, str] | None:
    entry = app.session.current
    return (entry.pair, entry.item, entry.output) if entry else None


def queue(app: TriageApp) -> list[tuple[str, str, str]]:
    return [(e.pair, e.item, e.output) for e in app.session.entries]


def verdicts(project: Path) -> list[tuple[str, str, str, str | None, str | None]]:
    """(item, output, verdict, annotator, note) of every verdict on disk, in file order."""
    path = project / "rules" / "en-de" / "verdicts.yaml"
    if not path.exists():
        return []
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [(str(rule["item"]), v["output"], v["verdict"], v.get("annotator"), v.get("note"))
            for rule in data["rules"] for v in rule["verdicts"]]


def outcome(project: Path, system: str, item: str) -> tuple[str, str]:
    """Outcome and reason of one output as `testsuite evaluate` now sees it."""
    suite = load_suite([project / "suites", project / "rules"])
    systems, located = load_outputs(suite, [project / "outputs"])
    results = evaluate(suite, systems, located=located).results
    row = results[(results["system"] == system) & (results["item"] == item)].iloc[0]
    return str(row["outcome"]), str(row["reason"])


def test_queue_is_one_entry_per_distinct_output_in_impact_order(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        assert queue(app) == [KLACKS, NICHT, ERZAEHLT, BOHNEN]
        assert app.session.entries[2].systems == ("Online-A", "Online-B")
        assert app.sub_title == "annotator: tester"
        table = app.query_one("#systems")
        assert table.row_count == 3  # every system's output of idiom-02, with its outcome
        assert app.session.progress().by_category == {"MWE": (0, 3), "Negation": (0, 1)}

    drive(project, scenario)


def test_suite_order(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        assert queue(app) == [ERZAEHLT, BOHNEN, KLACKS, NICHT]

    drive(project, scenario, order="suite")


def test_pass_and_fail_are_on_disk_after_each_key(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("p")  # type: ignore[attr-defined]
        assert verdicts(project) == [("idiom-02", KLACKS[2], "pass", "tester", None)]
        assert current(app) == NICHT
        await pilot.press("f")  # type: ignore[attr-defined]
        assert verdicts(project) == [("idiom-02", KLACKS[2], "pass", "tester", None),
                                     ("neg-02", NICHT[2], "fail", "tester", None)]
        assert current(app) == ERZAEHLT
        assert app.session.progress().resolved == 2

    drive(project, scenario)
    # evaluate and score use the verdicts
    assert outcome(project, "Online-A", "idiom-02") == ("pass", "verdict")
    assert outcome(project, "Online-A", "neg-02") == ("fail", "verdict")


def test_shared_output_is_decided_once_for_both_systems(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("j", "right")  # type: ignore[attr-defined]
        assert current(app) == ERZAEHLT
        await pilot.press("p")  # type: ignore[attr-defined]

    drive(project, scenario)
    assert verdicts(project) == [("idiom-01", ERZAEHLT[2], "pass", "tester", None)]
    assert outcome(project, "Online-A", "idiom-01") == ("pass", "verdict")
    assert outcome(project, "Online-B", "idiom-01") == ("pass", "verdict")


def test_skip_and_navigation(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("s")  # type: ignore[attr-defined]
        assert current(app) == NICHT
        await pilot.press("k", "left")  # type: ignore[attr-defined]  # stops at the first
        assert current(app) == KLACKS
        await pilot.press("j", "j", "j", "j")  # type: ignore[attr-defined]
        assert current(app) == BOHNEN  # stops at the last

    drive(project, scenario)
    assert verdicts(project) == []


def test_undo_removes_the_decision_and_returns_to_its_entry(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("p", "f")  # type: ignore[attr-defined]
        assert len(verdicts(project)) == 2
        await pilot.press("u")  # type: ignore[attr-defined]
        assert verdicts(project) == [("idiom-02", KLACKS[2], "pass", "tester", None)]
        assert current(app) == NICHT
        await pilot.press("u")  # type: ignore[attr-defined]
        assert verdicts(project) == []
        assert current(app) == KLACKS
        assert app.session.progress().resolved == 0
        await pilot.press("u")  # type: ignore[attr-defined]  # nothing left: no change

    drive(project, scenario)
    assert outcome(project, "Online-A", "idiom-02") == ("warning", "no-match")


def test_undo_takes_back_rule_edits_and_decisions_last_first(project: Path) -> None:
    rules = project / "rules" / "en-de" / "mwe.yaml"

    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("p", "j", "e", *"|erzählt", "enter")  # type: ignore[attr-defined]
        assert queue(app) == [BOHNEN, NICHT]  # recomputed: the decided entry is gone
        await pilot.press("u")  # type: ignore[attr-defined]  # the rule edit first
        assert rules.read_text(encoding="utf-8") == MWE_RULES  # byte for byte
        assert ERZAEHLT in queue(app)
        assert len(verdicts(project)) == 1
        await pilot.press("u")  # type: ignore[attr-defined]  # then the decision
        assert verdicts(project) == []
        assert current(app) == KLACKS  # back in the queue, on screen

    drive(project, scenario)


def test_empty_queue(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("p", "slash", "enter")  # type: ignore[attr-defined]
        assert app.session.current is None
        await pilot.press("p", "n", "e", "j", "u")  # type: ignore[attr-defined]
        assert verdicts(project) == []  # the undo worked; the other keys did nothing
        assert current(app) == NICHT

    drive(project, scenario, categories=("Negation",))


def test_deciding_again_replaces_the_sessions_verdict(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("p", "k")  # type: ignore[attr-defined]
        assert current(app) == KLACKS  # still listed, marked as decided
        assert app.session.is_decided(app.session.entries[0])
        await pilot.press("f")  # type: ignore[attr-defined]
        assert verdicts(project) == [("idiom-02", KLACKS[2], "fail", "tester", None)]
        await pilot.press("u")  # type: ignore[attr-defined]
        assert verdicts(project) == [("idiom-02", KLACKS[2], "pass", "tester", None)]

    drive(project, scenario)


def test_note_is_stored_with_the_next_decision(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        await pilot.press("n")  # type: ignore[attr-defined]
        assert isinstance(app.screen, PromptScreen)
        # typed letters go to the input, not to the pass/fail keys
        await pilot.press(*"paraphrase", "enter")  # type: ignore[attr-defined]
        assert verdicts(project) == []
        assert app.session.note(app.session.entries[0]) == "paraphrase"
        await pilot.press("p")  # type: ignore[attr-defined]

    drive(project, scenario)
    assert verdicts(project) == [("idiom-02", KLACKS[2], "pass", "tester", "paraphrase")]


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
        assert not isinstance(app.screen, RegexScreen)
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


def test_filter_from_the_options(project: Path) -> None:
    async def scenario(app: TriageApp, pilot: object) -> None:
        assert queue(app) == [KLACKS, ERZAEHLT]
        assert app.session.progress().remaining == 4  # progress counts everything

    drive(project, scenario, categories=("MWE",), systems=("Online-A",))


@pytest.mark.parametrize(("text", "expected"), [
    ("", Filters()),
    ("category=MWE phenomenon=Idiom system=Online-A",
     Filters(("MWE",), ("Idiom",), ("Online-A",))),
    ("systems=A,B category='Coordination & ellipsis'",
     Filters(("Coordination & ellipsis",), (), ("A", "B"))),
])
def test_filter_syntax(text: str, expected: Filters) -> None:
    assert Filters.parse(text) == expected
    assert Filters.parse(str(expected)) == expected


def test_quit_and_reopen_resumes_at_the_first_undecided_entry(project: Path) -> None:
    async def first(app: TriageApp, pilot: object) -> None:
        await pilot.press("p", "s", "p", "q")  # type: ignore[attr-defined]

    done = drive(project, first)
    assert done.return_value == 2
    assert [v[0] for v in verdicts(project)] == ["idiom-02", "idiom-01"]

    async def second(app: TriageApp, pilot: object) -> None:
        # idiom-01 now has one open output: deciding it lets the item in, so it comes first
        assert queue(app) == [BOHNEN, NICHT]
        assert current(app) == BOHNEN

    drive(project, second)


def test_run_triage_returns_the_number_of_decisions(project: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def run_headless(app: TriageApp, **_: object) -> int | None:
        async def scenario() -> None:
            async with app.run_test() as pilot:
                assert app.query_one("#loading").display  # loading in a thread
                while app.session is None:
                    await pilot.pause(0.05)
                await pilot.press("p", "f", "u", "p", "ctrl+c")

        asyncio.run(scenario())
        return app.return_value

    monkeypatch.setattr(TriageApp, "run", run_headless)
    assert run_triage(options(project)) == 2
    assert [v[2] for v in verdicts(project)] == ["pass", "pass"]

    from testsuite.cli import app as cli

    result = CliRunner().invoke(cli, ["triage", str(project / "outputs"), "--suite",
                                      str(project / "suites"), "--suite", str(project / "rules"),
                                      "--annotator", "cli"])
    assert result.exit_code == 0, result.output
    assert "2 decisions saved" in result.output
    assert {v[3] for v in verdicts(project)} == {"tester", "cli"}


def test_unknown_filter_value_is_refused_before_the_screen_opens(project: Path) -> None:
    from testsuite.errors import TestsuiteError

    with pytest.raises(TestsuiteError, match="no category 'Idioms'"):
        TriageSession.load(options(project, categories=("Idioms",)))


def test_output_highlights_positive_green_and_negative_red() -> None:
    from testsuite.model import Rule

    rule = Rule("idiom-01", positive_regex="ausgeplaudert", negative_regex=r"\bBohnen\b")
    output = "Tom hat die Bohnen endlich ausgeplaudert."
    spans = [(output[s.start:s.end], s.style) for s in highlight(output, rule,
                                                                  RegexCache()).spans]
    assert spans == [("ausgeplaudert", POSITIVE), ("Bohnen", NEGATIVE)]


# --- #14: notes, navigation, small terminals; #11: data shown literally --------------------


def drafts(project: Path) -> list[dict[str, str]]:
    import json

    path = project / "rules" / "en-de" / ".testsuite" / "notes-tester.json"
    return json.loads(path.read_text(encoding="utf-8"))["notes"] if path.exists() else []


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
        for name in ("entry", "rule-box", "systems", "progress"):
            region = app.query_one(f"#{name}").region
            assert region.height >= 2 and region.bottom <= 23, name
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


def test_accepting_a_suggestion_writes_pattern_and_examples_and_undo_restores(
        project: Path) -> None:
    (project / "outputs" / "Online-D.txt").write_text(
        "Tom hat endlich alles erzählt, sagt man.\nx\ny\nz\nw\n", encoding="utf-8")
    rules = project / "rules" / "en-de" / "mwe.yaml"
    paraphrase = ("en-de", "idiom-01", "Tom hat endlich alles erzählt, sagt man.")

    async def scenario(app: TriageApp, pilot: object) -> None:
        assert app.session is not None
        while current(app) != ERZAEHLT:
            await pilot.press("j")  # type: ignore[attr-defined]
        assert app.session.suggestions() == []  # nothing decided on the item yet
        await pilot.press("p")  # type: ignore[attr-defined]
        found = app.session.suggestions(next(e for e in app.session.entries
                                             if (e.pair, e.item, e.output) == paraphrase))
        assert found and [d.output for d in found[0].decides] == [paraphrase[2]]
        while current(app) != paraphrase:
            await pilot.press("j")  # type: ignore[attr-defined]
        assert "suggestion (a accepts)" in str(app.query_one("#suggestion").render())
        await pilot.press("a")  # type: ignore[attr-defined]
        assert paraphrase not in queue(app)
        text = rules.read_text(encoding="utf-8")
        assert text == MWE_RULES.replace(
            "'ausgeplaudert|verraten'", f"'ausgeplaudert|verraten|{found[0].learned}'").replace(
            "  - item: 'idiom-02'\n", "    examples:\n      pass:\n        - "
            "'Tom hat endlich alles erzählt.'\n  - item: 'idiom-02'\n")
        assert not [p for p in lint([project / "suites", project / "rules"]).problems
                    if p.fatal]
        await pilot.press("u")  # type: ignore[attr-defined]
        assert rules.read_text(encoding="utf-8") == MWE_RULES
        assert paraphrase in queue(app)

    drive(project, scenario)
    assert verdicts(project) == [("idiom-01", ERZAEHLT[2], "pass", "tester", None)]
