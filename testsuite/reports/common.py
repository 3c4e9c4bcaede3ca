"""What every renderer shares: labels, number formats and outcome colours.

Small and free of heavy imports, so that the terminal renderer (on the start-up path of
every command) can use it without loading the scoring core.
"""

from __future__ import annotations

import math

#: Labels of the average rows, by level.
AVERAGE_LABELS = {"micro": "micro-average", "category-macro": "category macro-average",
                  "phenomenon-macro": "phenomenon macro-average"}
#: Terminal colour of each outcome.
OUTCOME_STYLES = {"pass": "green", "fail": "red", "warning": "yellow", "missing": "magenta"}


def percent(value: float | None) -> str:
    """Accuracy as a percentage with one decimal, as in the papers ('–' when undefined)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.1f}"
