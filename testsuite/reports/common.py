"""What every renderer shares: labels, number formats and outcome colours.

Small and free of heavy imports, so that the terminal renderer (on the start-up path of
every command) can use it without loading the scoring core.
"""

from __future__ import annotations

import math
import re
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


#: Below this a p-value is shown as a bound: further digits would only be rounding noise of
#: the tail computation (and an underflow to 0 must never read "p = 0").
P_FLOOR = 1e-9


def p_text(value: float | None) -> str:
    """A p-value as a reader sees it: ``p = 0.031``, ``p = 3.5e-7``, ``p < 1e-9``.

    Two significant digits, never rounded to zero (``templates/common.js`` has the same
    rule, ``TS.pText``); "" when there is no p-value (the row's best system).
    """
    number = finite(value)
    if number is None:
        return ""
    if number < P_FLOOR:
        return f"p < {P_FLOOR:.0e}".replace("e-0", "e-")
    rounded = float(f"{number:.2g}")
    if rounded >= 1e-3:
        return f"p = {rounded:g}"
    return "p = " + re.sub(r"e-0*", "e-", f"{rounded:.1e}".replace(".0e", "e"))


def sentence(text: str) -> str:
    """A note as a sentence of a paragraph (Markdown, a LaTeX caption, the HTML tables'
    notes): its first letter a capital. The notes are written to stand alone, in lower case
    where a terminal prints each on its own lines ("left out: UF: …")."""
    return text[:1].upper() + text[1:]


#: The longest note a LaTeX caption shows in full. pdflatex first sets a caption on one line
#: to measure it, and a line over 16,384 pt (about 3,500 characters of ``\\small`` text)
#: stops the run with "Dimension too large"; a longer note is summarised in the caption by
#: `caption_note` and printed whole in a small paragraph under it.
CAPTION_NOTE = 400


def caption_note(text: str, limit: int = CAPTION_NOTE) -> str:
    """A note as a caption can hold it: the note itself when at most `limit` characters,
    else a summary that says the whole note follows below the table.

    A note listing rows ("46 phenomenon rows have no score: A (C): why; B (C): why; …")
    keeps its count and the first few names; any other long note is cut.
    """
    if len(text) <= limit:
        return text
    head, colon, rest = text.partition(": ")
    items = rest.split("; ") if colon else []
    if len(items) > 1 and len(head) <= limit // 2:
        shown: list[str] = []
        for item in items[:3]:
            name = item.rsplit(": ", 1)[0]  # the name before its reason
            if len(head) + len(", ".join([*shown, name])) > limit // 2:
                break
            shown.append(name)
        listed = f": {', '.join(shown)}, …" if shown else ""
        return f"{head}{listed} (all {len(items)} listed below the table)"
    return text[:limit // 2].rstrip() + "… (in full below the table)"


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
