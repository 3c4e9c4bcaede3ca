"""Charts as files: the phenomenon heatmap and the category chart, PNG and SVG."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tests.test_scores import ITEMS, OUTCOME_TABLE, make_evaluation, make_suite
from testsuite.cli import app
from testsuite.reports.plots import accuracy_colour, write_plots
from testsuite.scores import score


@pytest.mark.parametrize("format", ["png", "svg"])
def test_write_plots(tmp_path, format):
    scores = score(make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS))
    paths = write_plots(scores, tmp_path / "charts", format)
    assert [p.name for p in paths] == [f"de-en.phenomena.{format}", f"de-en.categories.{format}"]
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 2000
        assert data.startswith(b"\x89PNG") if format == "png" else b"<svg" in data[:500]
    svg = paths[0].read_text() if format == "svg" else ""
    if svg:
        assert "P1" in svg and "S1" in svg  # labels stay text


def test_colour_scale_ends():
    assert accuracy_colour(0.0) == "#a50026" and accuracy_colour(1.0) == "#313695"
    assert accuracy_colour(None) == "#eeeeee"


def test_plot_command_on_the_samples(tmp_path):
    from testsuite.bundled import bundled_samples

    result = CliRunner().invoke(app, ["plot", str(bundled_samples() / "en-de"), "--pair",
                                      "en-de", "--out", str(tmp_path), "-q", "--format", "svg"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["en-de.categories.svg",
                                                          "en-de.phenomena.svg"]
