"""The charts of a score report, as PNG or SVG files (matplotlib) and as shared colours.

Two charts per language pair, the same ones the HTML report draws:

* a **heatmap** of phenomenon accuracy × system (phenomena grouped by category, systems best
  first, every cell labelled with its accuracy in %);
* a **category chart**: a dot plot with one row per category (and the averages) and one dot
  per system; a filled dot is in the row's first performance cluster, a hollow one is not.

The colour scale and the system colours are defined here once, so that the HTML report
(`html.py`) and the files draw accuracy in the same colours. matplotlib is imported only
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

from .common import AVERAGE_LABELS, finite, shorten

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..scoring import Scores

#: ColorBrewer RdYlBu (11 classes, the darkest blue left out so that the many 100 % cells
#: stay light enough to read), red at 0 % to blue at 100 %: colour-blind safe.
ACCURACY_STOPS = ("#a50026", "#d73027", "#f46d43", "#fdae61", "#fee090", "#ffffbf",
                  "#e0f3f8", "#abd9e9", "#74add1", "#4575b4")
#: Colours of systems in the category chart (matplotlib's tab20, dark shades first).
SYSTEM_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                  "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
                  "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")
#: Marker shapes of systems in the PNG/SVG category chart (colours alone repeat after 20).
SYSTEM_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
MISSING_COLOUR = "#eeeeee"
#: Average rows of the category chart (labels as in the paper tables).
AVERAGE_LEVELS = ("micro", "category-macro")
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
    """The colour of the system at a position of `Scores.systems`."""
    return SYSTEM_COLOURS[index % len(SYSTEM_COLOURS)]


@dataclass(frozen=True)
class HeatmapRow:
    """One phenomenon of the heatmap: its category, name and accuracy per system."""

    category: str
    phenomenon: str
    items: int
    accuracies: tuple[float | None, ...]


@dataclass(frozen=True)
class DotRow:
    """One row of the category chart: accuracy and first-cluster flag per system."""

    label: str
    kind: str  # "category" or "average"
    items: int
    accuracies: tuple[float | None, ...]
    first_cluster: tuple[bool, ...]


def heatmap_rows(scores: Scores) -> list[HeatmapRow]:
    """Phenomenon rows in report order (grouped by category), systems best first."""
    return [HeatmapRow(category, phenomenon, items, accuracies)
            for category, phenomenon, items, accuracies, _ in _level_rows(scores, "phenomenon")]


def dot_rows(scores: Scores) -> list[DotRow]:
    """Category rows, then the micro- and category macro-average."""
    rows = [DotRow(category, "category", items, accuracies, flags)
            for category, _, items, accuracies, flags in _level_rows(scores, "category")]
    for level in AVERAGE_LEVELS:
        rows += [DotRow(AVERAGE_LABELS[level], "average", items, accuracies, flags)
                 for _, _, items, accuracies, flags in _level_rows(scores, level)]
    return rows


def _level_rows(scores: Scores, level: str
                ) -> list[tuple[str, str, int, tuple[float | None, ...], tuple[bool, ...]]]:
    return [(row.category, row.phenomenon, row.items,
             tuple(finite(a) for a in row.accuracy.tolist()),
             tuple(bool(f) for f in row.first_cluster.tolist()))
            for row in scores.level(level)]


def axis_start(rows: list[DotRow]) -> float:
    """Left end of the accuracy axis: 0, or the tens below the lowest dot minus 5 points.

    A dot plot (unlike a bar chart) may start above 0; most accuracies lie above 70 %.
    """
    values = [100 * a for row in rows for a in row.accuracies if a is not None]
    return max(0.0, 10 * ((min(values, default=0.0) - 5) // 10))


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
    systems = scores.systems
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
                    [f"{shorten(r.phenomenon, 44)} ({r.items})" for r in rows], fontsize=7)
    axes.tick_params(length=0)
    # Category bands: a line between categories, the category named on the right.
    starts = [i for i, r in enumerate(rows) if i == 0 or r.category != rows[i - 1].category]
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(rows)
        if start:
            axes.axhline(start - 0.5, color="black", linewidth=0.8)
        axes.text(len(systems) - 0.3, (start + end - 1) / 2, shorten(rows[start].category, 28),
                  ha="left", va="center", fontsize=7, fontweight="bold")
    for spine in axes.spines.values():
        spine.set_visible(False)
    bar = figure.colorbar(image, ax=axes, location="bottom", shrink=0.5, aspect=40, pad=0.01)
    bar.set_label("accuracy (%)", fontsize=8)
    bar.set_ticks([0, 0.25, 0.5, 0.75, 1], labels=["0", "25", "50", "75", "100"], fontsize=7)
    figure.suptitle(f"Accuracy per phenomenon ({scores.pair}); items in brackets",
                    fontsize=10)
    return figure


@_with_settings
def category_figure(scores: Scores) -> Figure:
    """Dot plot of the accuracy per category: one dot per system, filled if first cluster."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    rows = dot_rows(scores)
    systems = scores.systems
    figure = Figure(figsize=(11, 1.6 + 0.42 * len(rows)), layout="constrained")
    axes = figure.add_subplot()
    spread = 0.5 / max(len(systems), 1)  # systems side by side within a row, best on top
    for index in range(len(systems)):
        colour = system_colour(index)
        marker = SYSTEM_MARKERS[index % len(SYSTEM_MARKERS)]
        for y, row in enumerate(rows):
            accuracy = row.accuracies[index]
            if accuracy is None:
                continue
            offset = (index - (len(systems) - 1) / 2) * spread
            filled = row.first_cluster[index]
            axes.plot([100 * accuracy], [y + offset], marker=marker, markersize=5,
                      linestyle="none", markeredgecolor=colour, markeredgewidth=1,
                      markerfacecolor=colour if filled else "white")
    for y in range(len(rows)):
        axes.axhline(y, color="#dddddd", linewidth=0.6, zorder=0)
    averages = [i for i, r in enumerate(rows) if r.kind == "average"]
    if averages:
        axes.axhline(averages[0] - 0.5, color="black", linewidth=0.8)
    axes.set_yticks(range(len(rows)), [f"{shorten(r.label, 36)} ({r.items})" for r in rows],
                    fontsize=8)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlim(axis_start(rows), 101)
    axes.set_xlabel("accuracy (%)", fontsize=8)
    axes.tick_params(axis="x", labelsize=8)
    axes.grid(axis="x", color="#eeeeee")
    axes.set_axisbelow(True)
    handles = [Line2D([], [], marker=SYSTEM_MARKERS[i % len(SYSTEM_MARKERS)], linestyle="none",
                      color=system_colour(i), label=s) for i, s in enumerate(systems)]
    axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7,
                frameon=False, title="systems (best first)", title_fontsize=8)
    figure.suptitle(f"Accuracy per category ({scores.pair}); filled: first performance "
                    "cluster", fontsize=10)
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


__all__ = ["ACCURACY_STOPS", "SYSTEM_COLOURS", "accuracy_colour", "axis_start",
           "category_figure", "dot_rows", "heatmap_figure", "heatmap_rows", "system_colour",
           "text_colour", "write_plots"]
