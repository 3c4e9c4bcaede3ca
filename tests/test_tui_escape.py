"""Text from data on the triage screen is shown as the terminal shows it (issue 20).

A system name with a bidi override, an output with an ANSI escape and a colleague whose
presence name reverses the line are drawn with visible escapes (``\\u202e``, ``\\x1b``,
`reports.escape.visible`), never raw: raw, they reorder the line and break the box around it.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from testsuite.tui.app import TriageApp
from testsuite.tui.session import TriageSession

from .test_tui import (  # the fixture is used by name (see pyproject: F811)
    OUTPUTS,
    options,
    project,  # noqa: F401  (the fixture)
)

SYSTEM = "Evil\u202etxt.exe"
COLLEAGUE = "bob\u202eevil"
#: What a terminal obeys instead of showing: C0/C1 controls and bidi controls (white space
#: apart: the screenshot's own SVG has lines).
CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                      "\u202a-\u202e\u2066-\u2069]")


def test_bidi_and_escapes_in_names_and_outputs_are_shown_as_escapes(
        project: Path) -> None:  # noqa: F811
    lines = [f"\x1b[31m{line}\u202e rot" for line in OUTPUTS["Online-A"]]
    (project / "outputs" / f"{SYSTEM}.txt").write_text("\n".join(lines) + "\n", "utf-8")
    app = TriageApp(TriageSession.load(options(project, systems=(SYSTEM,))), follow=False)
    shots: list[str] = []

    async def run() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            session = app.session
            assert session is not None
            entry = session.entries[session.position]
            session.others[(entry.pair, entry.item)] = [COLLEAGUE]
            app.show()
            await pilot.pause()
            shots.append(app.export_screenshot())
            # Every entry of the evil system: its output and name as escapes.
            mine = [i for i, e in enumerate(session.entries) if SYSTEM in e.systems]
            assert mine
            session.position = mine[0]
            app.show()
            await pilot.pause()
            shots.append(app.export_screenshot())

    asyncio.run(run())
    import html

    texts = [html.unescape(re.sub(r"<[^>]+>", "", shot)).replace("\xa0", " ")
             for shot in shots]
    assert [CONTROLS.findall(text) for text in texts] == [[], []]
    assert "bob\\u202eevil on this item now" in texts[0]
    assert "Evil\\u202etxt.exe" in texts[1]
    assert "filter system='Evil\\u202etxt.exe'" in texts[0]  # the filter asked for
    assert "\\x1b[31m" in texts[1] and "\\u202e rot" in texts[1]
