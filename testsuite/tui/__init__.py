"""`testsuite triage`: resolve warnings in a full-screen terminal UI.

Only the options and the entry point live here, so that the CLI can import them without
pulling in Textual or pandas (`testsuite --help` stays instant); the app and its session
are imported when triage starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..inputs import InputSpec

__all__ = ["TriageOptions", "run_triage"]


@dataclass(frozen=True)
class TriageOptions:
    """What to triage and how; the same inputs as `testsuite evaluate`.

    Attributes:
        inputs: The outputs, suite, pair, normalisation … (the one input specification).
        annotator: Name stored with each decision.
        categories: Only items of these categories (empty: all).
        phenomena: Only items of these phenomena (empty: all).
        systems: Only outputs of these systems (empty: all).
        order: ``impact`` (decisions that let items into the scores first) or ``suite``.
    """

    inputs: InputSpec
    annotator: str
    categories: tuple[str, ...]
    phenomena: tuple[str, ...]
    systems: tuple[str, ...]
    order: str


def run_triage(options: TriageOptions) -> int:
    """Load the suite and outputs, run the triage app until the annotator quits.

    The app opens at once with a loading indicator while the suite and outputs are read
    and judged (a few seconds on a full WMT campaign). A problem with the inputs closes it
    and is raised (as `TestsuiteError`).

    Returns:
        The number of decisions saved in this session (undone ones not counted).
    """
    from .app import TriageApp
    from .session import TriageSession

    app = TriageApp(loader=lambda say: TriageSession.load(options, say))
    app.run()
    if app.error is not None:
        raise app.error
    return app.session.saved if app.session is not None else 0
