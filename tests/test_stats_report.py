"""What a reader sees of the statistics of issue 22 on WMT21 de-en: the adjusted p-value
under a correction and the bootstrap's Monte Carlo error, in JSON, CSV, the notes and the
HTML tooltips (opened in Chromium).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest

from testsuite.reports.html import html_report
from testsuite.reports.render import render
from testsuite.scoring import ScoreOptions, score

from .browser import Chromium, chromium_fixture

pytestmark = pytest.mark.realdata
RESAMPLES = 2000


@pytest.fixture(scope="module")
def corrected(wmt, dfki_suite):
    """WMT21 de-en, paired tests, Holm, the bootstrap on macro rows."""
    evaluation = wmt("wmt21", "de-en")
    options = ScoreOptions(test="paired", macro_test="bootstrap", correction="holm",
                           resamples=RESAMPLES, clusters=True)
    return dfki_suite, evaluation, score(evaluation, dfki_suite, "de-en", options)


def test_monte_carlo_error_in_json_csv_and_the_notes(corrected):
    _, _, scores = corrected
    document = json.loads(render([scores], "json"))
    lines = list(csv.DictReader(io.StringIO(render([scores], "csv"))))
    for level in ("category-macro", "phenomenon-macro"):
        row = next(r for r in document["rows"] if r["level"] == level)
        errors = []
        for system, entry in row["systems"].items():
            if entry["p_value"] is None:
                continue
            p = entry["p_value"]
            assert entry["p_mc_error"] == pytest.approx(math.sqrt(p * (1 - p) / RESAMPLES))
            line = next(x for x in lines if x["level"] == level and x["system"] == system)
            assert float(line["p_mc_error"]) == entry["p_mc_error"]
            errors.append(entry["p_mc_error"])
        note = next(n["text"] for n in document["notes"] if n["levels"] == [level]
                    and "paired bootstrap resamples" in n["text"])
        assert f"{RESAMPLES:,} paired bootstrap resamples (seed 12345)" in note
        assert f"reach {max(errors):.2g}" in note
    assert all(x["p_mc_error"] == "" for x in lines if not x["level"].endswith("-macro"))


@pytest.fixture(scope="module")
def chromium():
    yield from chromium_fixture()


def test_tooltips_show_the_adjusted_p_and_the_monte_carlo_error(corrected, chromium: Chromium,
                                                                 tmp_path_factory):
    suite, evaluation, scores = corrected
    path: Path = tmp_path_factory.mktemp("stats") / "report.html"
    path.write_text(html_report([scores], evaluation, suite), encoding="utf-8")
    tab = chromium.tab()
    try:
        tab.page.goto(path.as_uri())
        titles = tab.page.evaluate("""() => Array.from(
            document.querySelectorAll("table.paper tr[data-row] td.acc")).map(td => {
              td.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
              return [td.closest("table").id, td.closest("tr").querySelector("th")
                      .textContent, td.classList.contains("first"), td.title];
            })""")
        assert tab.errors == []
    finally:
        tab.close()
    shown = 0
    for table, label, first, title in titles:
        if "no item entered the scores" in title:  # a dropped row
            continue
        assert ("not in the first" in title) != first, (table, label, title)
        assert "(p = " not in title  # under a correction only the adjusted p is shown
        # Two significant digits, never a rounded zero: "p = 3.5e-7" or "p < 1e-9".
        found = re.search(r"adjusted p [=<] ([0-9.e+-]+)", title)
        if found:
            shown += 1
            # In the first cluster exactly when the adjusted p-value is at least α.
            assert (float(found.group(1)) >= 0.05) == first or \
                float(found.group(1)) == pytest.approx(0.05, abs=5e-4), (label, title)
        macro = "macro-average" in label
        assert ("Monte Carlo standard error" in title) == (macro and bool(found)), title
    assert shown > 1000
