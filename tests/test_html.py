"""The HTML reports: escaping and structure (fast), then the real WMT21 report in Chromium.

The browser tests drive Debian's chromium (``apt-get install chromium``) with Playwright for
Python, never a browser that Playwright downloads. Expected counts and outcomes are taken
from the evaluation and the scores directly, not from the page's own code.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.evaluate import OUTCOMES, Evaluation
from testsuite.model import Item, Rule, Suite
from testsuite.reports.html import ALPHABET, code, comparison_html, html_report
from testsuite.scoring import Scores, score

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
# A closed network: no background, update, sync or QUIC traffic from the browser itself.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
HOSTILE = "Er sagte </script><script>alert('x')</script> & <!-- nichts"


# ---------------------------------------------------------------------------------------------
# Without a browser


def small_evaluation() -> tuple[Evaluation, Suite]:
    """Two pairs, two categories (one with '&' and markup in its name), three systems."""
    items = {"a1": ("Cat & <b>A</b>", "P1"), "a2": ("Cat & <b>A</b>", "P1"),
             "a3": ("Cat & <b>A</b>", "P2"), "b1": ("Cat B", "P3"), "b2": ("Cat B", "P3")}
    table = {"S1": "ppppp", "S2": "pffpf", "S3": "ffpwp"}
    suite = Suite()
    rows = []
    for pair in ("de-en", "en-de"):
        for item_id, (category, phenomenon) in items.items():
            suite.items[(pair, item_id)] = Item(item_id, pair, category, phenomenon,
                                                f"Quelle {item_id} <i>",
                                                description="tests <this>")
            suite.rules[(pair, item_id)] = Rule(item_id, positive_regex="ok")
        for system, codes in table.items():
            for item_id, letter in zip(items, codes, strict=True):
                outcome = {"p": "pass", "f": "fail", "w": "warning"}[letter]
                output = HOSTILE if (system, item_id) == ("S2", "a2") else f"{outcome} {item_id}"
                rows.append({"item": item_id, "pair": pair, "category": items[item_id][0],
                             "phenomenon": items[item_id][1], "system": system,
                             "output": output, "outcome": outcome, "reason": "test"})
    frame = pd.DataFrame(rows)
    frame["outcome"] = pd.Categorical(frame["outcome"], categories=list(OUTCOMES))
    return Evaluation(frame, list(table)), suite


class Page(HTMLParser):
    """Script elements, resource links, text, and bold cells per table id."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.bold: Counter[str] = Counter()
        self._table = ""
        self._script: dict[str, str | None] | None = None
        self.data: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "script":
            self.scripts.append(found)
            self._script = found
        if tag == "table":
            self._table = found.get("id") or ""
        if tag == "td" and "first" in (found.get("class") or "").split():
            self.bold[self._table] += 1
        self.links += [f"{tag} {name}={value}" for name, value in attrs
                       if name in ("src", "href", "srcset", "action") and value
                       and not value.startswith("#")]

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None and self._script.get("type") == "application/json":
            self.data.append(data)
        elif self._script is None:
            self.text.append(data)


def expected_bold(scores: Scores, levels: tuple[str, ...]) -> int:
    table = scores.table
    return int(table.loc[table["level"].isin(levels), "first_cluster"].sum())


def test_report_escapes_text_and_bolds_the_first_cluster():
    evaluation, suite = small_evaluation()
    scores = [score(evaluation, suite, pair) for pair in ("de-en", "en-de")]
    text = html_report(scores, evaluation, suite)
    page = Page()
    page.feed(text)
    # The hostile output stays data: the page has only its own scripts (one JSON block per
    # pair and the code), and no markup of it survives outside the JSON.
    assert [s.get("type") for s in page.scripts] == ["application/json"] * 2 + [None]
    assert "<script>alert" not in text and "</script><script>" not in text
    assert "<b>A</b>" not in text and "Cat &amp; &lt;b&gt;A&lt;/b&gt;" in text
    # ... and comes back unchanged from the JSON the page reads.
    data = [json.loads(block) for block in page.data]
    assert HOSTILE in data[0]["strings"]
    assert [d["pair"] for d in data] == ["de-en", "en-de"]
    # Bold cells: exactly the first-cluster cells of each table.
    for pair, one in zip(("de-en", "en-de"), scores, strict=True):
        assert page.bold[f"categories-{pair}"] == expected_bold(
            one, ("category", "micro", "category-macro"))
        assert page.bold[f"phenomena-{pair}"] == expected_bold(
            one, ("category", "phenomenon", "micro", "phenomenon-macro"))
    # Self-contained: no resource is linked, and the page forbids network requests.
    assert page.links == []
    assert "default-src 'none'" in text
    # The title says what was evaluated.
    assert "<title>Test-suite report: de-en (3 systems, 5 items), en-de (3 systems, 5 items)"\
        in text


def test_report_data_round_trips_every_output():
    """Decoding the compact drill-down data gives back every output and outcome."""
    evaluation, suite = small_evaluation()
    one = score(evaluation, suite, "de-en")
    page = Page()
    page.feed(html_report([one], evaluation, suite, title="T"))
    data = json.loads(page.data[0])
    assert data["alphabet"] == ALPHABET
    letters = {letter: index for index, letter in enumerate(ALPHABET)}
    decoded = {}
    for item_id, _, _, _, distinct, which, verdicts in data["items"]:
        for column, system in enumerate(data["systems"]):
            output = data["strings"][distinct[letters[which[column]]]]
            outcome, reason = data["verdicts"][letters[verdicts[column]]]
            decoded[(item_id, system)] = (output, data["outcomes"][outcome],
                                          data["strings"][reason])
    results = evaluation.results[evaluation.results["pair"] == "de-en"]
    assert decoded == {(r.item, r.system): (r.output, r.outcome, r.reason)
                       for r in results.itertuples()}


def test_letters_beyond_the_alphabet():
    assert [code(n) for n in (0, len(ALPHABET) - 1)] == [ALPHABET[0], ALPHABET[-1]]
    assert ord(code(len(ALPHABET))) - 256 == len(ALPHABET)
    assert not set(ALPHABET) & set("-\"\\<>&'")


def test_report_command_on_the_samples(tmp_path):
    from testsuite.bundled import bundled_samples

    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(bundled_samples() / "en-de"), "--pair",
                                      "en-de", "--html", str(out), "-q"])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'id="heatmap-en-de"' in text


# ---------------------------------------------------------------------------------------------
# In Chromium, on the real WMT21 de-en evaluation


def playwright_api() -> Any:
    """Playwright's sync API with Debian's chromium, or skip (fail under CI) saying why."""
    missing = None
    if not Path(CHROMIUM).exists():
        missing = f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            from playwright import sync_api
        except ImportError:
            missing = "Playwright for Python is not installed (pip install playwright)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; CI must run the browser tests")
        pytest.skip(missing)
    return sync_api


class Browser:
    """A page in headless Chromium that records console errors and every request."""

    def __init__(self, playwright: Any) -> None:
        self.browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        self.page = self.browser.new_page(viewport={"width": 1400, "height": 1000})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console",
                     lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def external(self, own: Path) -> list[str]:
        return [url for url in self.requests if url != own.as_uri()
                and not url.startswith("data:")]


@pytest.fixture(scope="module")
def wmt21(data: Path, dfki_dir: Path) -> tuple[Suite, Evaluation, Scores]:
    from testsuite.evaluate import evaluate
    from testsuite.inputs import load_outputs
    from testsuite.loader import load_suite

    suite = load_suite([dfki_dir])
    systems, located = load_outputs(suite, [data / "wmt21" / "txt-ts"], pair="de-en")
    evaluation = evaluate(suite, systems, located=located)
    return suite, evaluation, score(evaluation, suite, "de-en")


@pytest.fixture(scope="module")
def report(wmt21, tmp_path_factory: pytest.TempPathFactory) -> Path:
    suite, evaluation, scores = wmt21
    path = tmp_path_factory.mktemp("report") / "wmt21-de-en.html"
    path.write_text(html_report([scores], evaluation, suite), encoding="utf-8")
    return path


def test_report_size(report: Path):
    # 49,464 outputs; each distinct string once (measured: 0.85 MB).
    assert report.stat().st_size < 1_500_000


def choose(select: Any, name: str) -> None:
    """Select the option named `name` (option labels end with an item count: "MWE (29)")."""
    value = select.evaluate("(s, name) => Array.from(s.options).find(o => o.textContent"
                            ".replace(/ \\(\\d+\\)$/, '') === name).value", name)
    select.select_option(value)


def outputs_of(evaluation: Evaluation) -> dict[tuple[str, str], tuple[str, str]]:
    results = evaluation.results
    return {(str(i), str(s)): (str(o), str(c)) for i, s, o, c in zip(
        results["item"], results["system"], results["output"], results["outcome"], strict=True)}


def test_report_in_chromium(report: Path, wmt21):
    sync_api = playwright_api()
    suite, evaluation, scores = wmt21
    results = evaluation.results
    truth = outputs_of(evaluation)
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = Browser(playwright)
        page = browser.page
        started = time.monotonic()
        page.goto(report.as_uri())
        drill = page.locator("#drilldown-de-en")
        status = drill.locator(".status")
        sync_api.expect(drill.locator("article.item")).to_have_count(20)
        loaded = time.monotonic() - started
        page.screenshot(path=str(ARTIFACTS / "report-wmt21-de-en.png"))

        # Tables: 14 categories and 2 averages; bold exactly where the first cluster is.
        assert page.locator("#categories-de-en tbody tr").count() == 16
        assert page.locator("#categories-de-en td.first").count() == expected_bold(
            scores, ("category", "micro", "category-macro"))
        assert page.locator("#phenomena-de-en td.first").count() == expected_bold(
            scores, ("category", "phenomenon", "micro", "phenomenon-macro"))
        assert "pair:de-en" in page.locator("#pair-de-en .signature").first.inner_text()
        # Heatmap: a cell per scored phenomenon (105 of 106: one has no item without a
        # warning) and system, with the scores' rounded accuracy.
        table = scores.table
        phenomena = table[table["level"] == "phenomenon"]
        heat = page.locator("#heatmap-de-en")
        assert heat.locator("td.cell").count() == len(phenomena) == 105 * 18
        idiom = phenomena[(phenomena["phenomenon"] == "Idiom")].set_index("system")["accuracy"]
        row = heat.locator("tr", has=page.locator("th", has_text=re.compile("^Idiom$")))
        assert row.locator("td.cell").all_inner_texts() == [
            str(round(100 * idiom[s])) for s in scores.systems]
        # Category chart: a dot per category (and average) and system.
        assert page.locator("#category-chart-de-en .dot").count() == 16 * 18

        # Drill-down: every located item, 20 per page.
        assert status.inner_text().startswith("1–20 of 2,748 items")
        drill.locator(".pager").first.get_by_role("button", name="next ›").click()
        assert status.inner_text().startswith("21–40 of 2,748 items")

        # Filter by category, phenomenon and system: the rows follow, and are the truth.
        timed = time.monotonic()
        choose(drill.locator("select[name=category]"), "MWE")
        sync_api.expect(status).to_contain_text(
            f"of {results[results['category'] == 'MWE']['item'].nunique()} items")
        filtered = time.monotonic() - timed
        assert set(drill.locator("article.item").evaluate_all(
            "nodes => nodes.map(n => n.dataset.category)")) == {"MWE"}
        choose(drill.locator("select[name=phenomenon]"), "Idiom")
        idioms = sorted(set(results.loc[results["phenomenon"] == "Idiom", "item"]))
        sync_api.expect(status).to_contain_text(f"of {len(idioms)} items")
        drill.locator("select[name=system]").select_option(label="Online-B")
        rows = drill.locator("tr.output").evaluate_all(
            "rows => rows.map(r => [r.closest('article').dataset.item, r.dataset.systems, "
            "r.dataset.outcome, r.querySelector('td.text').textContent])")
        assert sorted(r[0] for r in rows) == idioms  # one row per item: Online-B's
        for item, systems, outcome, output in rows:
            assert systems == "Online-B"
            assert (output, outcome) == truth[(item, "Online-B")]
        # ... and by outcome: only Online-B's failed idioms remain.
        drill.locator("select[name=outcome]").select_option(label="fail")
        failed = [i for i in idioms if truth[(i, "Online-B")][1] == "fail"]
        sync_api.expect(status).to_contain_text(f"of {len(failed)} items")
        assert sorted(drill.locator("article.item").evaluate_all(
            "nodes => nodes.map(n => n.dataset.item)")) == failed

        # Search (with the other filters reset): every shown item contains the word.
        drill.locator("button[name=reset]").click()
        sync_api.expect(status).to_contain_text("of 2,748 items")
        word = "husband"
        sources = {i.id: i.source for i in suite.items_of("de-en")}
        hits = {item for (item, _), (output, _) in truth.items()
                if word in output.lower() or word in sources[item].lower()}
        drill.locator("input[name=search]").fill(word.upper())
        sync_api.expect(status).to_contain_text(f"of {len(hits):,} items")
        texts = drill.locator("article.item").all_inner_texts()
        assert texts and all(word in t.lower() for t in texts)

        # A heatmap cell opens its phenomenon and system.
        drill.locator("button[name=reset]").click()
        row.locator("td.cell").nth(2).click()
        assert drill.locator("select[name=system] option:checked").inner_text() == \
            scores.systems[2]
        sync_api.expect(status).to_contain_text(f"of {len(idioms)} items")
        assert set(drill.locator("tr.output").evaluate_all(
            "rows => rows.map(r => r.dataset.systems)")) == {scores.systems[2]}
        drill.screenshot(path=str(ARTIFACTS / "report-wmt21-de-en-items.png"))
        browser.browser.close()
    assert browser.errors == []
    assert browser.external(report) == []
    # Interactive on 49,464 outputs; the bounds are generous on purpose (CI machines vary).
    assert loaded < 10 and filtered < 2


def test_comparison_in_chromium(wmt21, data: Path, tmp_path: Path):
    """WMT21 → WMT22 de-en (runs built in memory): table, chart, changed items."""
    sync_api = playwright_api()
    from testsuite.compare import compare
    from testsuite.evaluate import evaluate
    from testsuite.inputs import load_outputs
    from testsuite.runs import Run

    suite, evaluation, _ = wmt21
    systems, located = load_outputs(suite, [data / "wmt22" / "txt-ts"], pair="de-en")
    later = evaluate(suite, systems, located=located)
    runs = [Run("wmt22", "wmt22", 2022, tmp_path, later),
            Run("wmt21", "wmt21", 2021, tmp_path, evaluation)]
    comparison = compare(runs, "de-en")
    path = tmp_path / "compare.html"
    path.write_text(comparison_html(comparison), encoding="utf-8")
    changes = comparison.changes
    with sync_api.sync_playwright() as playwright:
        browser = Browser(playwright)
        page = browser.page
        page.goto(path.as_uri())
        assert "wmt21 → wmt22" in page.title()
        heads = page.locator("#comparison thead tr").first.locator("th[colspan]")
        assert heads.all_inner_texts() == comparison.systems
        significant = comparison.table["significant"].fillna(False).astype(bool)
        assert page.locator("#comparison td.changed").count() == int(significant.sum())
        # The chart shows one row at a time.
        chart = page.locator("#slope-chart")
        assert chart.locator(".chart-row:not(.off)").count() == 1
        page.locator("#chart-row").select_option(label="category macro-average")
        assert chart.locator(".chart-row:not(.off) .line").count() == len(comparison.systems)
        # Changed items, filtered by system and kind of change.
        listing = page.locator("#changes-list")
        listing.locator("select[name=system]").select_option("Online-B")
        listing.locator("select[name=change]").select_option("regressed")
        expected = changes[(changes["system"] == "Online-B")
                           & (changes["change"] == "regressed")]
        sync_api.expect(listing.locator(".status")).to_have_text(
            f"{len(expected)} of {len(changes)} changes")
        shown = listing.locator("tbody tr").evaluate_all(
            "rows => rows.map(r => [r.dataset.system, r.dataset.change])")
        assert shown == [["Online-B", "regressed"]] * min(len(expected), 50)
        browser.browser.close()
    assert browser.errors == []
    assert browser.external(path) == []

