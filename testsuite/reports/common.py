"""What every renderer shares: labels, number formats and outcome colours.

Small and free of heavy imports, so that the terminal renderer (on the start-up path of
every command) can use it without loading the scoring core.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tables import Cell

#: Labels of the average rows, by level.
AVERAGE_LABELS = {"micro": "micro-average", "category-macro": "category macro-average",
                  "phenomenon-macro": "phenomenon macro-average"}
#: Terminal colour of each outcome.
OUTCOME_STYLES = {"pass": "green", "fail": "red", "warning": "yellow", "missing": "magenta"}
#: What the cluster marks mean, for the legends of every rendering.
CLUSTER_LEGEND = ("(cN, a–b): full performance cluster N and rank range a–b from "
                  "head-to-head tests")


def finite(value: Any) -> float | None:
    """A number as a float, None when it has no value: None, NaN or infinite.

    pandas and numpy write NaN where a value is missing; JSON has no NaN, and a cell shows
    none. Takes numpy scalars too.
    """
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def percent(value: float | None) -> str:
    """Accuracy as a percentage with one decimal, as in the papers ('–' when undefined)."""
    number = finite(value)
    return "–" if number is None else f"{100 * number:.1f}"


def shorten(text: str, width: int) -> str:
    """A name cut to `width` characters, ending in "…" when cut (charts' label columns)."""
    return text if len(text) <= width else text[:width - 1] + "…"


def cluster_mark(cell: Cell) -> str:
    """Full cluster and rank range of a cell, e.g. ``c1, 1–3`` (empty if not computed)."""
    if cell.ranks is None or cell.cluster is None:
        return ""
    best, worst = cell.ranks
    ranks = str(best) if best == worst else f"{best}–{worst}"
    return f"c{cell.cluster}, {ranks}"
