"""The year-over-year comparison page, WMT21 → WMT22 de-en (runs built in memory), in Chromium.

At least what the terminal shows: every change with its p-value, best against earlier best,
regressed and improved counts per system (linked to their items), filterable changed items
with their source when the comparison has it, CSV of the filtered list, the address as the
filter state. Expected values come from the `Comparison` directly.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from testsuite.compare import Comparison, compare
from testsuite.reports.common import p_text
from testsuite.reports.escape import csv_cell
from testsuite.reports.html import comparison_html
from testsuite.runs import Run

from .browser import Chromium, Tab, chromium_fixture

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def comparison(wmt, tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    folder = tmp_path_factory.mktemp("runs")
    runs = [Run("wmt22", "wmt22", 2022, folder, wmt("wmt22", "de-en")),
            Run("wmt21", "wmt21", 2021, folder, wmt("wmt21", "de-en"))]
    return compare(runs, "de-en")


@pytest.fixture(scope="module")
def page_file(comparison: Comparison, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compare") / "compare.html"
    path.write_text(comparison_html(comparison), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def chromium():
    yield from chromium_fixture()


@pytest.fixture()
def tab(chromium: Chromium, page_file: Path):
    opened = chromium.tab()
    opened.page.goto(page_file.as_uri())
    opened.page.wait_for_selector("#changes-list tbody tr")
    yield opened
    opened.close()
    assert opened.errors == []
    assert opened.external(page_file) == []


def test_table_shows_every_change_with_its_p_value(tab: Tab, comparison: Comparison):
    page = tab.page
    assert "wmt21 → wmt22" in page.title()
    assert page.locator("meta[name=viewport]").count() == 1
    heads = page.locator("#comparison thead tr").first.locator("th[colspan]")
    assert heads.all_inner_texts() == comparison.systems
    table = comparison.table
    significant = table["significant"].fillna(False).astype(bool)
    assert page.locator("#comparison td.changed").count() == int(significant.sum())
    # Under each later run: the change in points and its p-value, as the table has them.
    later = table[table["delta"].notna()]
    extras = page.locator("#comparison td .extra").all_inner_texts()
    assert len(extras) == len(later)
    micro = later[(later["level"] == "micro")].set_index("system")
    row = page.locator("#comparison tr", has=page.locator("th", has_text="micro-average"))
    cells = row.locator("td.acc").evaluate_all("cells => cells.map(c => c.textContent)")
    for index, system in enumerate(comparison.systems):
        text = cells[2 * index + 1]
        record = micro.loc[system]
        assert f"{100 * record['delta']:+.1f} · {p_text(record['p_value'])}" in text
    # Hidden on request, and back.
    page.locator("input.show-details").uncheck()
    assert page.locator("#comparison td .extra").first.is_hidden()


def test_best_and_per_system_counts(tab: Tab, comparison: Comparison):
    page = tab.page
    best = page.locator("#best-systems tbody tr").all_inner_texts()
    assert len(best) == len(comparison.best)
    last = comparison.best.iloc[-1]
    assert last["system"] in best[-1] and p_text(last["p_value"]) in best[-1]
    changes = comparison.changes
    summary = page.locator("#change-summary tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))")
    for system, runs, regressed, improved, net in summary:
        part = changes[changes["system"] == system]
        assert int(regressed) == int((part["change"] == "regressed").sum())
        assert int(improved) == int((part["change"] == "improved").sum())
        assert int(net) == int(improved) - int(regressed)
        assert runs == "wmt21 → wmt22"
    # A count opens its items.
    system = summary[0][0]
    page.locator("#change-summary tbody tr").first.locator("td").nth(1).locator("a").click()
    expected = changes[(changes["system"] == system) & (changes["change"] == "regressed")]
    assert page.locator("#changes-list .status").inner_text().startswith(
        f"{len(expected):,} of {len(changes):,} changes")
    assert "system=" in page.url and "change=regressed" in page.url


def test_changed_items_filter_sort_and_export(tab: Tab, comparison: Comparison,
                                              chromium: Chromium, page_file: Path):
    page = tab.page
    listing = page.locator("#changes-list")
    changes = comparison.changes
    listing.locator("select[name=system]").select_option("Online-B")
    listing.locator("select[name=change]").select_option("regressed")
    expected = changes[(changes["system"] == "Online-B") & (changes["change"] == "regressed")]
    assert listing.locator(".status").inner_text().startswith(
        f"{len(expected)} of {len(changes):,} changes")
    shown = listing.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.system, r.dataset.change])")
    assert shown == [["Online-B", "regressed"]] * min(len(expected), 50)
    # By phenomenon, and by text (outputs, and the source when the comparison has it).
    phenomenon = str(expected["phenomenon"].iloc[0])
    listing.locator("select[name=phenomenon]").select_option(phenomenon)
    narrowed = expected[expected["phenomenon"] == phenomenon]
    assert listing.locator(".status").inner_text().startswith(f"{len(narrowed)} of")
    word = str(narrowed["after"].iloc[0]).split()[0]
    listing.locator("input[name=q]").fill(word)
    page.wait_for_function("() => location.hash.includes('q=')")
    columns = [c for c in ("item", "source", "before", "after") if c in narrowed.columns]
    hits = narrowed[narrowed[columns].astype(str).apply(
        lambda r: any(word.lower() in v.lower() for v in r), axis=1)]
    assert listing.locator(".status").inner_text().startswith(f"{len(hits)} of")
    # The permalink reopens the same list.
    other = chromium.tab()
    try:
        other.page.goto(page.url)
        other.page.wait_for_selector("#changes-list tbody tr")
        assert other.page.locator("#changes-list .status").inner_text() == \
            listing.locator(".status").inner_text()
        assert other.errors == []
    finally:
        other.close()
    # CSV of the filtered list, neutralised.
    with page.expect_download() as download:
        listing.locator("button[name=csv]").click()
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(
        encoding="utf-8-sig"))))
    assert len(rows) - 1 == len(hits)
    assert rows[0][:3] == ["system", "item", "category"]
    after = dict(zip(hits["item"].astype(str), hits["after"].astype(str), strict=True))
    for row in rows[1:]:
        assert row[-1] == csv_cell(after[row[1]])
    # Sorting sorts the data, not only the rows shown.
    listing.locator("button[name=reset]").click()
    listing.locator("thead th").nth(1).locator("button").click()
    items = listing.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.item)")
    assert items == sorted(changes["item"].astype(str))[:50]


def test_sources_and_systems_not_compared(tab: Tab, comparison: Comparison):
    """The changed items show their source; the systems not in every run are named."""
    page = tab.page
    assert comparison.not_compared  # WMT21 and WMT22 de-en share only some systems
    facts = page.locator("ul.facts").inner_text()
    assert all(name in facts for name in comparison.not_compared)
    first = comparison.changes.iloc[0]
    row = page.locator("#changes-list tbody tr").first
    assert row.get_attribute("data-item") == str(first["item"])
    assert row.locator("td.source").inner_text() == first["source"]
    assert page.locator("#changes-list thead th").nth(3).inner_text() == "source"


def test_an_item_id_opens_its_item_view(tab: Tab, comparison: Comparison):
    """A changed item's id shows every compared system's change on it, with the source."""
    page = tab.page
    changes = comparison.changes
    busiest = changes["item"].value_counts().index[0]
    expected = changes[changes["item"] == busiest]
    page.evaluate("history.pushState = history.replaceState = function () {}")
    page.locator("#changes-list select[name=system]").select_option(
        str(expected["system"].iloc[0]))
    page.locator(f"#changes-list a.id:text-is('{busiest}')").first.click()
    rows = page.locator("#changes-list tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.item, r.dataset.system, r.dataset.change])")
    assert {r[0] for r in rows} == {busiest}
    assert sorted((r[1], r[2]) for r in rows) == sorted(
        zip(expected["system"], expected["change"], strict=True))
    status = page.locator("#changes-list .status")
    assert status.inner_text().startswith(f"item view {busiest}: {len(expected)} of ")
    source = expected["source"].iloc[0]
    if source:
        assert source in page.locator("#changes-list tbody").inner_text()
    status.locator("a").click()
    assert int(status.get_attribute("data-items")) == len(changes)


def test_the_chart_downloads_as_svg_and_png(tab: Tab, tmp_path: Path):
    """The row shown, and only it, as a standalone SVG and as a PNG."""
    from xml.etree import ElementTree

    page = tab.page
    saved = {}
    for kind in ("svg", "png"):
        with page.expect_download() as download:
            page.locator(f".figure-tools button[data-format={kind}]").click()
        saved[kind] = tmp_path / download.value.suggested_filename
        download.value.save_as(saved[kind])
    root = ElementTree.parse(saved["svg"]).getroot()
    rows = root.findall(".//{http://www.w3.org/2000/svg}g[@class='chart-row']")
    assert len(rows) == 1  # the rows not chosen are not in the figure
    assert saved["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert saved["svg"].name == "testsuite-de-en-year-over-year.svg"
