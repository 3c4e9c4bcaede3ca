"""The triage UI's proposals: shown with their evidence and estimate, reviewed in a preview
that fills the dialog and scrolls, accepted only from what was on the screen (``a``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml

from testsuite.inputs import InputSpec
from testsuite.tui import TriageOptions
from testsuite.tui.app import TriageApp
from testsuite.tui.render import preview_room, row_text, rows_that_fit, wrapped
from testsuite.tui.screens import BatchScreen, PreviewTable, ProposalScreen
from testsuite.tui.session import TriageSession
from testsuite.verdicts.proposals import Settings
from testsuite.verdicts.suggest import Suggestions
from testsuite.words import counted

VERBS = ["lesen", "schlafen", "gehen", "warten", "essen", "arbeiten", "tanzen", "singen",
         "laufen", "schreiben", "kochen", "malen", "rechnen", "turnen", "zeichnen", "baden",
         "beten", "fasten", "jagen", "kämpfen", "lachen", "lernen", "nähen", "packen",
         "putzen", "reisen", "rudern", "sparen", "spielen", "stricken"]
ENGLISH = ["read", "sleep", "go", "wait", "eat", "work", "dance", "sing", "run", "write",
           "cook", "paint", "count", "exercise", "draw", "bathe", "pray", "fast", "hunt",
           "fight", "laugh", "learn", "sew", "pack", "clean", "travel", "row", "save", "play",
           "knit"]
NAMES = ["Anna", "Ben", "Clara", "David", "Emil", "Frida", "Greta", "Hanno", "Ida", "Jonas",
         "Karla", "Lukas", "Mia", "Nils", "Olga", "Paul", "Quirin", "Rosa", "Sven", "Tilda",
         "Ulla", "Vera", "Willi", "Xaver", "Yara", "Zoe", "Arne", "Bea", "Cem", "Dora"]
#: Items with rules (they decide the outputs of A and B); the others have none yet.
RULED = 6
#: Settings under which this small paradigm carries proposals (the defaults need more).
EAGER = Settings(support=2, min_precision=0.9, prior=0.95, prior_weight=2)


@pytest.fixture()
def paradigm(tmp_path: Path) -> Path:
    """30 items of the modal pluperfect (en-de): A translates right, B with the preterite
    (wrong), C right with a long clause that names someone (one construction per item)."""
    items = [{"id": f"p{n:02d}", "phenomenon": "Modal pluperfect",
              "source": f"I had had to {english}."}
             for n, english in enumerate(ENGLISH, 1)]
    rules = [{"item": f"p{n:02d}", "positive_regex": "hatte .*müssen", "negative_regex": "musste"}
             for n in range(1, RULED + 1)]
    outputs = {"A": [f"Ich hatte {v} müssen." for v in VERBS],
               "B": [f"Ich musste {v}." for v in VERBS],
               "C": [f"Ich hatte {v} müssen, und {name} wusste das schon seit dem frühen "
                     "Morgen." for v, name in zip(VERBS, NAMES, strict=True)]}
    files = {"suites/en-de/verbs.yaml": {"pair": "en-de", "category": "Verb tense",
                                         "items": items},
             "rules/en-de/verbs.yaml": {"pair": "en-de", "rules": rules}}
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(yaml.safe_dump(data, allow_unicode=True),
                                     encoding="utf-8")
    (tmp_path / "outputs").mkdir()
    for system, lines in outputs.items():
        (tmp_path / "outputs" / f"{system}.tsv").write_text(
            "".join(f"p{n:02d}\t{line}\n" for n, line in enumerate(lines, 1)),
            encoding="utf-8")
    return tmp_path


def session_of(project: Path) -> TriageSession:
    session = TriageSession.load(TriageOptions(
        inputs=InputSpec(outputs=(project / "outputs",),
                         suite=(project / "suites", project / "rules")),
        annotator="tester", categories=(), phenomena=(), systems=(), order="suite"))
    session.suggestions = Suggestions(session.suite, EAGER)
    return session


def on_preterite(session: TriageSession) -> None:
    """Move the session to the first output in the preterite ("Ich musste …")."""
    while session.current is not None and not session.current.output.startswith("Ich musste"):
        session.move(1)


def verdicts(project: Path) -> list[dict[str, object]]:
    path = project / "rules" / "en-de" / "verdicts.yaml"
    if not path.exists():
        return []
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [{"item": r["item"], **v} for r in data["rules"] for v in r["verdicts"]]


async def laid_out(pilot, screen) -> None:  # type: ignore[no-untyped-def]
    """Wait until the screen was laid out with the rows its preview shows last: what it
    counts as seen is only known then, and under load that takes more than one pause."""
    table = screen.query_one(PreviewTable)
    for _ in range(200):
        if table.laid_out == table.shown:
            await pilot.pause()  # the callback that follows the layout has run too
            return
        await pilot.pause()
    raise AssertionError("the preview was never laid out")


def run(app: TriageApp, scenario, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def go() -> None:
        async with app.run_test(size=size) as pilot:
            await scenario(pilot)

    asyncio.run(go())


def test_a_reviews_the_proposal_shown_with_its_evidence_and_estimate(paradigm: Path) -> None:
    session = session_of(paradigm)
    # The preterite ("Ich musste tanzen.") failed in the six items with rules: a fail is
    # proposed for the others, with what it was learned from and its estimate.
    on_preterite(session)
    proposal = session.proposal()
    assert proposal is not None and proposal.how == "template" and proposal.verdict == "fail"
    assert proposal.pattern == r"^Ich musste \w+\.$"
    assert sorted(i for i, _ in proposal.decides) == [f"p{n:02d}" for n in range(7, 31)]
    assert {e.item for e in proposal.evidence} == {f"p{n:02d}" for n in range(1, 7)}
    app = TriageApp(session, follow=False)

    async def scenario(pilot) -> None:  # type: ignore[no-untyped-def]
        shown = str(app.query_one("#proposal").render())
        assert "proposal (a reviews it): fail 24 pending outputs of 24 items" in shown
        assert "learned from 6 decided outputs of p01, p02, p03, … (6 items)" in shown
        assert f"estimated precision {proposal.precision:.3f}" in shown
        await pilot.press("a")
        screen = app.screen
        assert isinstance(screen, ProposalScreen) and screen.proposal.id == proposal.id
        assert len(screen.rows) == 1  # one construction: one row, 24 outputs
        assert verdicts(paradigm) == []  # nothing is applied before enter
        await pilot.press("enter")
        assert not isinstance(app.screen, ProposalScreen)
        assert "24 outputs decided fail by proposal" in str(app.query_one("#status").render())
        await pilot.press("u")  # undone as one
        assert verdicts(paradigm) == []
        await pilot.press("a", "r")  # rejected: not proposed again here
        assert session.proposal() is None or session.proposal().id != proposal.id

    run(app, scenario, (120, 40))


def test_a_preview_longer_than_the_dialog_scrolls_counts_and_asks_again(
        paradigm: Path) -> None:
    session = session_of(paradigm)
    # A batch of the 24 long outputs of C (one construction each: 24 rows of two lines).
    batch = session.batch_preview("pass", "wusste", "phenomenon")
    assert len(batch.decides) == 24
    app = TriageApp(session, follow=False)

    async def scenario(pilot) -> None:  # type: ignore[no-untyped-def]
        app.push_screen(ProposalScreen(session, batch))
        await pilot.pause()
        screen = app.screen
        await laid_out(pilot, screen)
        table = screen.query_one(PreviewTable)
        assert len(screen.rows) == 24
        fit = rows_that_fit(screen.rows, *preview_room(batch, 80, 24))
        assert 1 < fit < 24 and table.seen() == fit
        status = str(screen.query_one("#proposal-status").render())
        assert f"{24 - fit} of 24 rows not shown yet ({24 - fit} outputs)" in status
        # Enter before every row was shown asks again; nothing is recorded.
        await pilot.press("enter")
        assert app.screen is screen and verdicts(paradigm) == []
        assert "enter again accepts them unseen" in str(
            screen.query_one("#proposal-status").render())
        # Scrolling shows the rest; the count follows.
        await pilot.press("pagedown")
        await pilot.pause()
        assert fit < table.seen() < 24
        for _ in range(6):
            await pilot.press("pagedown")
        await pilot.pause()
        assert table.seen() == 24
        assert "all 24 rows shown (24 outputs)" in str(
            screen.query_one("#proposal-status").render())
        await pilot.press("enter")
        assert not isinstance(app.screen, ProposalScreen)

    run(app, scenario, (80, 24))
    recorded = verdicts(paradigm)
    assert len(recorded) == 24 and {v["proposal"] for v in recorded} == {batch.id}
    assert {v["verdict"] for v in recorded} == {"pass"}


def test_a_at_80_by_24_shows_every_line_it_applies(paradigm: Path) -> None:
    session = session_of(paradigm)
    batch = session.batch_preview("pass", "wusste", "phenomenon")
    app = TriageApp(session, follow=False)

    async def scenario(pilot) -> None:  # type: ignore[no-untyped-def]
        app.push_screen(ProposalScreen(session, batch))
        await pilot.pause()
        screen = app.screen
        await laid_out(pilot, screen)
        width, lines = preview_room(batch, 80, 24)
        table = screen.query_one(PreviewTable)
        # The room the simulation's hurried annotator reads is the room on the screen.
        assert table.columns[list(table.columns)[2]].width == width
        assert table.scrollable_content_region.height - table.header_height == lines
        for name in ("proposal-head", "proposal-status", "proposal-help"):
            region = screen.query_one(f"#{name}").region
            assert region.height >= 1 and region.bottom <= 24, name
        head = str(screen.query_one("#proposal-head").render())
        assert batch.id in head and "a pattern given by a person" in head
        # Each row is drawn whole in the lines it was counted with.
        shown = [len(wrapped(row_text(r), width)) for r in screen.rows]
        assert sum(shown[:table.seen()]) <= lines < sum(shown[:table.seen() + 1])

    run(app, scenario, (80, 24))


def test_the_batch_dialog_counts_the_rows_that_are_on_the_screen(paradigm: Path) -> None:
    session = session_of(paradigm)
    app = TriageApp(session, follow=False)

    def not_shown(screen: BatchScreen) -> tuple[str, int]:
        """The summary, and the rows not on the screen counted from the table's lines."""
        table = screen.query_one(PreviewTable)
        lines = table.scrollable_content_region.height - table.header_height
        width = table.columns[list(table.columns)[2]].width
        return (str(screen.query_one("#batch-summary").render()),
                len(screen.rows) - rows_that_fit(screen.rows, width, lines))

    async def scenario(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchScreen) and len(screen.rows) == 3
        await laid_out(pilot, screen)
        summary, unseen = not_shown(screen)
        assert unseen == 0 and "not shown" not in summary  # every row is on the screen
        await pilot.press("enter")  # so one enter records them
        assert not isinstance(app.screen, BatchScreen)
        await pilot.press("u", "b", "ctrl+s")  # the phenomenon: the title takes two lines
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchScreen) and len(screen.rows) > 3
        await laid_out(pilot, screen)
        summary, unseen = not_shown(screen)
        assert unseen > 0 and f"{unseen} of {counted(len(screen.rows), 'row')} not shown yet" \
            in summary
        await pilot.press("enter")  # asks again, as the proposal dialog does
        assert isinstance(app.screen, BatchScreen)
        assert f"{unseen} of {counted(len(screen.rows), 'row')} (" in str(
            screen.query_one("#batch-summary").render())
        assert "enter again records them unseen" in str(
            screen.query_one("#batch-summary").render())

    run(app, scenario, (80, 24))


def test_a_proposal_whose_outputs_a_colleague_decided_meanwhile_is_refused_readably(
        paradigm: Path) -> None:
    session = session_of(paradigm)
    on_preterite(session)
    proposal = session.proposal()
    assert proposal is not None and len(proposal.decides) == 24
    app = TriageApp(session, follow=False)
    bob = TriageSession.load(TriageOptions(
        inputs=InputSpec(outputs=(paradigm / "outputs",),
                         suite=(paradigm / "suites", paradigm / "rules")),
        annotator="bob", categories=(), phenomena=(), systems=(), order="suite"))
    item, decided = proposal.decides[-1]
    taken = next(e for e in bob.all_pending() if (e.item, e.output) == (item, decided.output))

    async def scenario(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("a")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProposalScreen)
        bob.decide("pass", taken)  # bob decides one of its outputs while it is open
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and verdicts(paradigm) == [
            {"item": item, "output": decided.output, "verdict": "pass", "annotator": "bob",
             "time": verdicts(paradigm)[0]["time"]}]  # refused: nothing of the proposal
        status = screen.query_one("#proposal-status")
        said = str(status.render())
        assert "Not recorded: the outputs changed since the proposal was shown" in said
        assert f"{item} {decided.output!r}: 'pending' → 'pass by bob'" in said
        # Every line of it is on the screen: what changed, and what to do.
        assert status.region.height == len(said.splitlines()) and status.region.bottom < 40
        assert "Escape, and look at it again." in said

    run(app, scenario, (120, 40))


def test_undo_of_an_accepted_proposal_puts_its_outputs_back_where_they_were(
        paradigm: Path) -> None:
    session = session_of(paradigm)
    on_preterite(session)
    assert session.current is not None
    on = (session.current.item, session.current.output)
    queue = [(e.item, e.output) for e in session.entries]
    app = TriageApp(session, follow=False)

    async def scenario(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("a", "enter")
        assert len(verdicts(paradigm)) == 24 and session.current is not None
        assert (session.current.item, session.current.output) != on
        await pilot.press("u")
        assert verdicts(paradigm) == []
        # Back on the entry the proposal was accepted from, every output in its place.
        assert session.current is not None
        assert (session.current.item, session.current.output) == on
        assert [(e.item, e.output) for e in session.entries] == queue
        assert "undid proposal p-" in str(app.query_one("#status").render())

    run(app, scenario, (120, 40))
