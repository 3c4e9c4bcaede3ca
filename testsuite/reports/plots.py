"""The charts of a score report, as PNG or SVG files (matplotlib) and as shared colours.

Two charts per language pair, the same ones the HTML report draws:

* a **heatmap** of phenomenon accuracy × system (phenomena grouped by category, systems best
  first, every cell labelled with its accuracy in %; a phenomenon none of whose items
  entered the scores is a grey row);
* a **category chart** as small multiples: one panel per category (and the averages), one
  line per system in every panel (best first, the same order everywhere), its accuracy as a
  dot with its 95 % interval as a whisker; a filled dot is in the panel's first performance
  cluster, a hollow one is not. Every system has a line of its own, so tied systems never
  hide each other, and no colour has to tell eighteen systems apart.

Both draw the numbers of the paper tables (`tables.PaperTable`): they compute nothing. The
colour scale and the series colours are defined here once, so that the HTML pages and the
files draw in the same colours. matplotlib is imported only
where a figure is drawn, with the Agg backend (no display needed).
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .common import finite, shorten
from .escape import visible

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..scoring import Scores
    from .tables import Row

#: ColorBrewer RdYlBu (11 classes, the darkest blue left out so that the many 100 % cells
#: stay light enough to read), red at 0 % to blue at 100 %: colour-blind safe.
ACCURACY_STOPS = ("#a50026", "#d73027", "#f46d43", "#fdae61", "#fee090", "#ffffbf",
                  "#e0f3f8", "#abd9e9", "#74add1", "#4575b4")
#: Colours of series that must be told apart (the systems of the year-over-year chart): Paul
#: Tol's "muted" scheme, made for many categorical series and colour-blind safe, in the
#: order that keeps neighbours distinct; beyond nine a series also gets a dash pattern.
SYSTEM_COLOURS = ("#332288", "#CC6677", "#117733", "#DDAA33", "#88CCEE", "#882255",
                  "#44AA99", "#999933", "#AA4499")
#: Dash patterns (SVG stroke-dasharray) of the 1st, 2nd, … round of colours.
SYSTEM_DASHES = ("", "6 3", "2 2", "8 3 2 3")
#: The category chart's ink: filled dots (first cluster), whiskers and hollow dots.
CHART_INK = "#1f4e79"
MISSING_COLOUR = "#eeeeee"
#: matplotlib settings for every chart. Names are data, never markup: ``text.parse_math``
#: off keeps a category or system name with ``$…$`` from being read as mathtext (which
#: draws it as a formula, or raises on ``$x^$``). It is read when a text is created, so the
#: figures are built inside these settings, not only saved.
RC: dict[str, Any] = {"text.parse_math": False, "svg.fonttype": "none",
                      "svg.hashsalt": "testsuite"}


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def accuracy_colour(accuracy: float | None) -> str:
    """The heatmap colour of an accuracy in [0, 1] (light grey when undefined)."""
    number = finite(accuracy)
    if number is None:
        return MISSING_COLOUR
    position = min(max(number, 0.0), 1.0) * (len(ACCURACY_STOPS) - 1)
    low = min(int(position), len(ACCURACY_STOPS) - 2)
    weight = position - low
    start, end = _rgb(ACCURACY_STOPS[low]), _rgb(ACCURACY_STOPS[low + 1])
    mixed = (round(a + (b - a) * weight) for a, b in zip(start, end, strict=True))
    return "#" + "".join(f"{channel:02x}" for channel in mixed)


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on a background colour (WCAG luminance)."""
    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(c) for c in _rgb(background))
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return "#000000" if luminance > 0.22 else "#ffffff"


def system_colour(index: int) -> str:
    """The colour of the series at a position (systems best first)."""
    return SYSTEM_COLOURS[index % len(SYSTEM_COLOURS)]


def system_dash(index: int) -> str:
    """The dash pattern of the series at a position ("" solid: the first nine)."""
    return SYSTEM_DASHES[(index // len(SYSTEM_COLOURS)) % len(SYSTEM_DASHES)]


@dataclass(frozen=True)
class HeatmapRow:
    """One phenomenon of the heatmap: its category, name, items and accuracy per system
    (all None when no item entered the scores; `dropped` then says why)."""

    category: str
    phenomenon: str
    items: int
    accuracies: tuple[float | None, ...]
    dropped: str = ""


def heatmap_rows(scores: Scores) -> list[HeatmapRow]:
    """Every phenomenon row of the phenomenon table, in its order; systems best first."""
    from .tables import phenomenon_table

    return [HeatmapRow(row.category, row.phenomenon, row.items,
                       tuple(cell.accuracy for cell in row.cells), row.dropped)
            for row in phenomenon_table(scores).rows if row.kind == "phenomenon"]


def category_panels(scores: Scores) -> list[Row]:
    """The panels of the category chart: the category table's rows (categories, then the
    micro- and category macro-average), each with every system's cell."""
    from .tables import category_table

    return list(category_table(scores).rows)


def axis_start(panels: list[Row]) -> float:
    """Left end of the accuracy axis: the tens below every dot and interval, at most 0.

    A dot plot (unlike a bar chart) may start above 0; most accuracies lie above 70 %.
    """
    values = [100 * value for row in panels for cell in row.cells
              for value in (cell.accuracy, cell.ci_low) if value is not None]
    return max(0.0, 10 * (min(values, default=0.0) // 10))


def _settings() -> contextlib.AbstractContextManager[None]:
    """matplotlib's settings for our charts (`RC`), restored on leaving."""
    import matplotlib

    return matplotlib.rc_context(cast(Any, RC))


def _with_settings(draw: Callable[[Scores], Figure]) -> Callable[[Scores], Figure]:
    """Build a figure inside `RC` (texts read ``text.parse_math`` when they are created)."""

    @functools.wraps(draw)
    def build(scores: Scores) -> Figure:
        with _settings():
            return draw(scores)

    return build


@_with_settings
def heatmap_figure(scores: Scores) -> Figure:
    """Phenomenon × system heatmap, each cell labelled with its accuracy in %."""
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.figure import Figure

    rows = heatmap_rows(scores)
    systems = [visible(s) for s in scores.systems]  # names are data: controls as escapes
    colormap = LinearSegmentedColormap.from_list("accuracy", list(ACCURACY_STOPS)
                                                 ).with_extremes(bad=MISSING_COLOUR)
    values = [[float("nan") if a is None else a for a in row.accuracies] for row in rows]
    # Sized so that ~100 phenomena × ~20 systems keep 7-pt labels apart.
    figure = Figure(figsize=(4.2 + 0.42 * len(systems), 1.9 + 0.19 * len(rows)),
                    layout="constrained")
    axes = figure.add_subplot()
    image = axes.imshow(values, cmap=colormap, vmin=0, vmax=1, aspect="auto",
                        interpolation="nearest")
    for y, row in enumerate(rows):
        for x, accuracy in enumerate(row.accuracies):
            if accuracy is not None:
                colour = text_colour(accuracy_colour(accuracy))
                axes.text(x, y, f"{100 * accuracy:.0f}", ha="center", va="center",
                          fontsize=6, color=colour)
    axes.set_xticks(range(len(systems)), systems, rotation=90, ha="center", va="bottom",
                    fontsize=7)
    axes.xaxis.tick_top()
    axes.set_yticks(range(len(rows)),
                    [f"{shorten(visible(r.phenomenon), 44)} ({r.items})"
                     + (" – none scored" if r.dropped else "") for r in rows], fontsize=7)
    axes.tick_params(length=0)
    # Category bands: a line between categories, the category named on the right.
    starts = [i for i, r in enumerate(rows) if i == 0 or r.category != rows[i - 1].category]
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(rows)
        if start:
            axes.axhline(start - 0.5, color="black", linewidth=0.8)
        axes.text(len(systems) - 0.3, (start + end - 1) / 2,
                  shorten(visible(rows[start].category), 28), ha="left", va="center",
                  fontsize=7, fontweight="bold")
    for spine in axes.spines.values():
        spine.set_visible(False)
    bar = figure.colorbar(image, ax=axes, location="bottom", shrink=0.5, aspect=40, pad=0.01)
    bar.set_label("accuracy (%)", fontsize=8)
    bar.set_ticks([0, 0.25, 0.5, 0.75, 1], labels=["0", "25", "50", "75", "100"], fontsize=7)
    figure.suptitle(f"Accuracy per phenomenon ({scores.pair}); items in brackets",
                    fontsize=10)
    return figure


#: Panels per line of the category chart.
PANEL_COLUMNS = 4


@_with_settings
def category_figure(scores: Scores) -> Figure:
    """The category chart as small multiples: a panel per category and average, a line per
    system (best first) with its accuracy and 95 % interval; filled: first cluster."""
    import math

    from matplotlib.figure import Figure

    panels = category_panels(scores)
    systems = [visible(s) for s in scores.systems]  # names are data: controls as escapes
    columns = min(PANEL_COLUMNS, len(panels))
    lines = math.ceil(len(panels) / columns)
    panel = max(1.3, 0.55 + 0.13 * len(systems))  # inches: a title, a line per system, ticks
    figure = Figure(figsize=(2.4 + 2.6 * columns, 1.0 + lines * panel), layout="constrained")
    grid = figure.subplots(lines, columns, sharex=True, sharey=True, squeeze=False)
    start = axis_start(panels)
    ys = list(range(len(systems)))
    for index, axes in enumerate(grid.flat):
        if index >= len(panels):
            axes.set_visible(False)
            continue
        row = panels[index]
        for y in ys[::2]:  # a band every other system, to follow a line across panels
            axes.axhspan(y - 0.5, y + 0.5, color="#f1f3f5", zorder=0, linewidth=0)
        for y, cell in zip(ys, row.cells, strict=True):
            if cell.accuracy is None:
                continue
            if cell.ci_low is not None and cell.ci_high is not None:
                axes.plot([100 * cell.ci_low, 100 * cell.ci_high], [y, y], color=CHART_INK,
                          linewidth=0.9, alpha=0.55, solid_capstyle="butt")
            axes.plot([100 * cell.accuracy], [y], marker="o", markersize=4.2,
                      linestyle="none", markeredgecolor=CHART_INK, markeredgewidth=1,
                      markerfacecolor=CHART_INK if cell.bold else "white")
        title = f"{shorten(visible(row.label), 30)} ({row.items})"
        if row.dropped:
            title += " – none scored"
        axes.set_title(title, fontsize=8, loc="left",
                       fontstyle="italic" if row.kind == "average" else "normal")
        axes.grid(axis="x", color="#dddddd", linewidth=0.6)
        axes.set_axisbelow(True)
        axes.tick_params(labelsize=7, length=2)
        for side in ("top", "right"):
            axes.spines[side].set_visible(False)
    first = grid[0][0]
    first.set_yticks(ys, list(systems))
    first.set_ylim(len(systems) - 0.5, -0.5)
    first.set_xlim(start, 100.5)
    for axes in grid[-1]:
        axes.set_xlabel("accuracy (%)", fontsize=7)
    figure.suptitle(f"Accuracy per category ({scores.pair}): dot = accuracy, line = 95 % "
                    "interval; filled: first performance cluster; systems best first",
                    fontsize=9)
    return figure


def write_plots(scores: Scores, out: Path, format: str) -> list[Path]:
    """Write the heatmap and the category chart of one language pair.

    Args:
        scores: Scores of one pair.
        out: Folder to write to (created if needed).
        format: ``png`` or ``svg``.

    Returns:
        The files written: ``<pair>.phenomena.<format>`` and ``<pair>.categories.<format>``.

    Raises:
        ValueError: for another format.
        TestsuiteError: when the pair is not a plain file name (``../x``) or a file cannot be
            written; nothing is written outside `out`.
    """
    from ..files import join, write_bytes

    if format not in ("png", "svg"):
        raise ValueError(f"format must be png or svg, not {format!r}")
    charts: tuple[tuple[str, Callable[[Scores], Figure]], ...] = (
        ("phenomena", heatmap_figure), ("categories", category_figure))
    # Every path is checked before anything is drawn or written.
    paths = [join(out, f"{scores.pair}.{name}.{format}", what="language pair")
             for name, _ in charts]
    written = []
    for path, (_, draw) in zip(paths, charts, strict=True):
        buffer = io.BytesIO()
        # A fixed hash salt and no date keep SVG output byte-stable between runs;
        # svg.fonttype none: labels stay text (searchable, small files), not outlines.
        metadata: dict[str, Any] | None = {"Date": None} if format == "svg" else None
        with _settings():
            draw(scores).savefig(buffer, format=format, dpi=150, metadata=metadata)
        written.append(write_bytes(path, buffer.getvalue(), inside_of=out))
    return written


__all__ = ["ACCURACY_STOPS", "CHART_INK", "SYSTEM_COLOURS", "accuracy_colour", "axis_start",
           "category_figure", "category_panels", "heatmap_figure", "heatmap_rows",
           "system_colour", "system_dash", "text_colour", "write_plots"]
