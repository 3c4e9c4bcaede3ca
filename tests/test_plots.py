"""Charts as files: the phenomenon heatmap and the category chart, PNG and SVG."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ElementTree

import pandas as pd
import pytest
from typer.testing import CliRunner

from tests.test_scores import ITEMS, OUTCOME_TABLE, make_evaluation, make_suite
from testsuite.cli import app
from testsuite.evaluate import OUTCOMES, Evaluation
from testsuite.reports.plots import (
    ACCURACY_STOPS,
    accuracy_colour,
    category_figure,
    heatmap_figure,
    text_colour,
    write_plots,
)
from testsuite.scoring import Scores, score


@pytest.fixture()
def scores() -> Scores:
    return score(make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS))


@pytest.mark.parametrize("format", ["png", "svg"])
def test_write_plots(scores, tmp_path, format):
    out = tmp_path / "charts" / "de-en"  # created with its parents
    paths = write_plots(scores, out, format)
    assert [p.name for p in paths] == [f"de-en.phenomena.{format}", f"de-en.categories.{format}"]
    assert sorted(out.iterdir()) == sorted(paths)
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 2000
        if format == "png":
            assert data.startswith(b"\x89PNG\r\n\x1a\n")
            width, height = struct.unpack(">II", data[16:24])
            assert width > 500 and height > 300
        else:
            root = ElementTree.fromstring(data)
            assert root.tag == "{http://www.w3.org/2000/svg}svg"
    if format == "svg":  # labels stay text: searchable, and the files stay small
        heatmap, categories = (p.read_text(encoding="utf-8") for p in paths)
        assert all(name in heatmap for name in ("P1", "P3", "S1", "S3", "Cat B"))
        assert "Cat A (5)" in categories and "micro-average" in categories


def test_write_plots_rejects_other_formats(scores, tmp_path):
    with pytest.raises(ValueError, match="png or svg"):
        write_plots(scores, tmp_path, "pdf")


def large_scores(phenomena: int = 100, systems: int = 20) -> Scores:
    """Two items per phenomenon, ten phenomena per category, outcomes varying by system."""
    items = {f"i{p}-{k}": (f"Category {p // 10}", f"A rather long phenomenon name {p}")
             for p in range(phenomena) for k in range(2)}
    rows = []
    for s in range(systems):
        for index, (item, (category, phenomenon)) in enumerate(items.items()):
            rows.append({"item": item, "pair": "de-en", "category": category,
                         "phenomenon": phenomenon, "system": f"System-name-{s}",
                         "output": "x", "outcome": "pass" if (index + s) % 3 else "fail",
                         "reason": "test"})
    frame = pd.DataFrame(rows)
    frame["outcome"] = pd.Categorical(frame["outcome"], categories=list(OUTCOMES))
    return score(Evaluation(frame, [f"System-name-{s}" for s in range(systems)]),
                 make_suite(items))


def overlapping(labels: list) -> list[str]:
    """Texts of neighbouring tick labels whose drawn boxes overlap."""
    boxes = [(label.get_text(), label.get_window_extent()) for label in labels
             if label.get_text()]
    return [f"{a} / {b}" for (a, first), (b, second) in zip(boxes, boxes[1:], strict=False)
            if first.overlaps(second)]


def test_labels_stay_readable_for_100_phenomena_and_20_systems():
    import matplotlib

    matplotlib.use("Agg")
    scores = large_scores()
    figure = heatmap_figure(scores)
    figure.canvas.draw()
    axes = figure.axes[0]
    assert len(axes.get_yticklabels()) == 100 and len(axes.get_xticklabels()) == 20
    assert overlapping(axes.get_yticklabels()) == []
    assert overlapping(axes.get_xticklabels()) == []
    for label in axes.get_yticklabels() + axes.get_xticklabels():
        assert label.get_fontsize() >= 7
    chart = category_figure(scores)
    chart.canvas.draw()
    assert overlapping(chart.axes[0].get_yticklabels()) == []


def test_colour_scale():
    assert accuracy_colour(0.0) == ACCURACY_STOPS[0] and accuracy_colour(1.0) == ACCURACY_STOPS[-1]
    assert accuracy_colour(None) == accuracy_colour(float("nan")) == "#eeeeee"
    assert accuracy_colour(-1) == accuracy_colour(0) and accuracy_colour(2) == accuracy_colour(1)
    # Cell labels: white on the dark ends, black on the light middle.
    assert text_colour(accuracy_colour(0.0)) == "#ffffff"
    assert text_colour(accuracy_colour(0.5)) == "#000000"
    assert text_colour(accuracy_colour(1.0)) == "#ffffff"


def test_plot_command_on_the_samples(tmp_path):
    from testsuite.bundled import bundled_samples

    result = CliRunner().invoke(app, ["plot", str(bundled_samples() / "en-de"), "--pair",
                                      "en-de", "--out", str(tmp_path), "-q", "--format", "svg"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["en-de.categories.svg",
                                                          "en-de.phenomena.svg"]


#: Names that matplotlib would read as mathtext: one raises, the others draw formulas.
MATH_NAMES = {"Cat $x^$": "P $\\frac{$", "Cat B": "cost $5 and $6 & <i>"}


def hostile_scores(pair: str = "de-en") -> Scores:
    items = {f"{c[:5]}{k}": (c, p) for c, p in MATH_NAMES.items() for k in range(3)}
    table = {"S $\\alpha$": "ppfppf", "S2": "pfppfp"}
    evaluation = make_evaluation(items, table)
    scores = score(evaluation, make_suite(items))
    if pair != "de-en":
        scores.pair = pair
    return scores


@pytest.mark.parametrize("format", ["png", "svg"])
def test_names_are_text_never_mathtext(tmp_path, format):
    """Category, phenomenon and system names with $…$ are drawn as they are written."""
    paths = write_plots(hostile_scores(), tmp_path, format)
    assert len(paths) == 2
    if format == "svg":
        heatmap, categories = (p.read_text(encoding="utf-8") for p in paths)
        # The literal text is in the SVG (escaped for XML), not a formula.
        for name in ("P $\\frac{$", "cost $5 and $6 &amp; &lt;i&gt;", "S $\\alpha$"):
            assert name in heatmap
        assert "Cat $x^$" in categories and "S $\\alpha$" in categories


def test_plots_never_write_outside_the_folder(tmp_path):
    from testsuite.errors import TestsuiteError

    out = tmp_path / "charts"
    with pytest.raises(TestsuiteError, match="file name"):
        write_plots(hostile_scores("../../p"), out, "svg")
    assert not any(tmp_path.rglob("*.svg"))


def test_control_characters_in_names_make_valid_svg(tmp_path):
    """ESC or a bidi override in a system, category or phenomenon name used to give an SVG
    that no XML parser (or browser) opens; they are drawn as escapes, as in the terminal."""
    items = {f"i{k}": ("Cat \x1b[31m", "Phen \u202e\x07") for k in range(3)}
    evaluation = make_evaluation(items, {"Sys\x1b]0;x\x07": "ppf", "S2": "pfp"})
    paths = write_plots(score(evaluation, make_suite(items)), tmp_path, "svg")
    for path in paths:
        text = path.read_text(encoding="utf-8")
        ElementTree.fromstring(text)  # well-formed
        assert "\x1b" not in text and "\u202e" not in text
    heatmap = paths[0].read_text(encoding="utf-8")
    assert "Sys\\x1b]0;x\\x07" in heatmap and "Phen \\u202e\\x07" in heatmap
