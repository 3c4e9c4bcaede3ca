"""The HTML report: self-contained, escaped, and usable in a real browser on real data."""

from __future__ import annotations

import os
import shutil
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.evaluate import evaluate
from testsuite.inputs import load_outputs
from testsuite.loader import load_suite
from testsuite.reports.html import html_report
from testsuite.scores import score

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
# Flags for a closed network (see the project's machine notes): no background requests.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def test_report_escapes_outputs_and_bolds_the_first_cluster(tmp_path):
    (tmp_path / "suite.yaml").write_text(
        "pair: en-de\ncategory: MWE\nitems:\n"
        "  - {id: i1, phenomenon: Idiom, source: It is a piece of cake.}\n"
        "  - {id: i2, phenomenon: Idiom, source: He spilled the beans.}\n", encoding="utf-8")
    (tmp_path / "rules.yaml").write_text(
        "pair: en-de\nrules:\n  - {item: i1, positive_regex: kinderleicht, negative_regex: "
        "Kuchen}\n  - {item: i2, positive_regex: verraten, negative_regex: Bohnen}\n",
        encoding="utf-8")
    outputs = tmp_path / "out"
    outputs.mkdir()
    (outputs / "A.txt").write_text("Das ist kinderleicht.\nEr hat es verraten.\n")
    (outputs / "B.txt").write_text("Das ist ein Stück Kuchen <script>alert(1)</script>.\n"
                                   "Er hat die Bohnen verschüttet.\n")
    suite = load_suite([tmp_path / "suite.yaml", tmp_path / "rules.yaml"])
    systems, _ = load_outputs(suite, [outputs])
    evaluation = evaluate(suite, systems)
    text = html_report([score(evaluation, suite)], evaluation, suite)
    tags = Tags()
    tags.feed(text)
    # the output's markup stays data: the page has exactly its own two scripts (data, code)
    assert tags.scripts == 2
    assert r"<\/script>" in text  # "</" inside the JSON block is escaped
    assert '<td class="first">100.0</td>' in text
    # nothing is loaded from elsewhere: no src, no stylesheet links, only in-page anchors
    assert tags.external == []


class Tags(HTMLParser):
    """Counts script elements and collects attributes that would load or link a resource."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts = 0
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.external.append(f"{tag} {name}={value}")


@pytest.fixture(scope="module")
def report(data: Path, dfki_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "wmt21-de-en.html"
    result = CliRunner().invoke(app, ["report", str(data / "wmt21" / "txt-ts"), "--pair",
                                      "de-en", "--suite", str(dfki_dir), "-q", "--html",
                                      str(path)])
    assert result.exit_code == 0, result.output
    return path


def browser():
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        message = "Debian's chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    return sync_api


def test_report_in_a_real_browser(report: Path):
    sync_api = browser()
    artifacts = REPO / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        requests: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report.as_uri())
        section = page.locator("section#pair-de-en")
        # the tables, with the first cluster in bold
        assert section.locator("table.paper").count() == 2
        assert section.locator("table.paper td.first").count() > 100
        assert "Accuracy per phenomenon (de-en)" in section.inner_text()
        # the heatmap: one cell per phenomenon × system (106 phenomena, 18 systems)
        rows = section.locator("table.heatmap tbody tr:not(.category)").count()
        assert section.locator("table.heatmap td.cell").count() == rows * 18
        assert section.locator(".chart svg").count() == 1
        # the drill-down starts with the first page of all located items
        count = section.locator(".count")
        assert count.inner_text() == "2748 of 2748 items (showing 100)"
        assert section.locator("table.outputs tbody tr").count() == 100
        # filtering by category, phenomenon and system
        started = time.monotonic()
        section.locator(".f-category").select_option(label="MWE")
        section.locator(".f-phenomenon").select_option(label="Idiom")
        section.locator(".f-system").select_option(label="Online-B")
        assert time.monotonic() - started < 5  # interactive, not seconds per click
        visible = section.locator("table.outputs tbody tr")
        assert visible.count() == int(count.inner_text().split()[0]) > 0
        for index in range(visible.count()):
            assert "MWE › Idiom" in visible.nth(index).inner_text()
        assert section.locator("table.outputs .out").count() == visible.count()  # one system
        section.locator(".f-outcome").select_option(label="fail")
        assert all(badge == "FAIL" or badge == "fail" for badge in
                   section.locator("table.outputs .badge").all_inner_texts())
        # a heatmap cell opens the drill-down on its phenomenon and system
        section.locator("table.heatmap td.cell").first.click()
        assert section.locator(".f-system").input_value() == "0"
        page.screenshot(path=str(artifacts / "report-wmt21-de-en.png"), full_page=False)
        chromium.close()
    assert errors == []
    assert [url for url in requests if not url.startswith("file://")] == []
    assert (artifacts / "report-wmt21-de-en.png").stat().st_size > 10_000
