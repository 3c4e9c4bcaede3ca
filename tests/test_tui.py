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
from typer.testing import CliRunner

from testsuite.evaluate import evaluate
from testsuite.inputs import InputSpec, load_outputs
from testsuite.loader import load_suite
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


async def until(pilot: object, condition: Callable[[], object]) -> None:
    """Let the app work until `condition` holds: a bound, not a fixed wait (a rule edit is
    saved beside the screen, and the machine may be slow)."""
    for _ in range(600):
        if condition():
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError("the app did not get there")


def saved(app: TriageApp) -> Callable[[], bool]:
    """Whether the regex editor is closed (its save is done)."""
    return lambda: not isinstance(app.screen, RegexScreen)


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
        await until(pilot, saved(app))
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
    # CliRunner's streams are not a terminal: the command would refuse to start (issue 23).
    monkeypatch.setattr("testsuite.cli.decisions.terminal_missing", lambda: None)
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

    with pytest.raises(TestsuiteError,
                       match=r"unknown category: Idioms \(known: MWE, Negation\)"):
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
