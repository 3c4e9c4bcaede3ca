"""Every way into the drill-down of the real WMT21 de-en report, counted in Chromium.

One definition of "the items behind a number" (`testsuite.scoring.behind`) must hold for
every entry point: the 134 row names of both paper tables, their 2,484 cells, the 288 dots
of the category chart, the menu counts and the tooltips. Each list is compared with counts
made here independently from the evaluation's outcomes (pandas, not the scoring core): the
items of the row with a pass or a fail for every scored system, their number (the row's
``#``), a system's passes among them and its percentage as the table prints it. The items
left out are one click away and say why.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from testsuite.reports.common import p_text

from .browser import Tab
from .test_html_report import (  # fixtures are used by name (see pyproject: F811)
    chromium,
    load,
    records,
    report,
    tab,
    wmt21,
)

pytestmark = pytest.mark.realdata

#: Clicks every element of `selector` through the page's own handlers and reads the
#: drill-down's status (its data-* attributes and text) after each.
CLICK_ALL = """([selector, dispatch]) => {
  const drill = document.querySelector('#drilldown-de-en');
  const status = drill.querySelector('.status');
  const out = [];
  document.querySelectorAll(selector).forEach((node, index) => {
    if (dispatch) node.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));
    else node.click();
    const label = n => drill.querySelector('select[name=' + n + '] option:checked').textContent;
    out.push({index, text: node.textContent,
      title: (node.querySelector('title') || {}).textContent || '',
      row: node.closest('tr') ? [node.closest('tr').dataset.category || '',
                                 node.closest('tr').dataset.phenomenon || ''] : null,
      data: Object.assign({}, status.dataset), status: status.textContent,
      filters: [label('category'), label('phenomenon'), label('system'), label('scored')],
      cards: Array.from(drill.querySelectorAll('article.item')).map(a => [a.dataset.category,
        a.dataset.phenomenon, a.dataset.scored])});
  });
  return out;
}"""


@pytest.fixture(scope="module")
def truth(wmt21) -> dict[str, Any]:
    """Independent counts from the evaluation's outcomes (the scored systems only)."""
    _, evaluation, scores = wmt21
    results = evaluation.results
    results = results[results["system"].isin(scores.systems)].astype(
        {"item": str, "category": str, "phenomenon": str, "system": str, "outcome": str})
    per_item = results.groupby("item")["outcome"].agg(
        lambda o: len(o) == len(scores.systems) and set(o) <= {"pass", "fail"})
    scored = set(per_item[per_item].index)
    located = results.drop_duplicates("item").set_index("item")
    passes = results[(results["outcome"] == "pass") & results["item"].isin(scored)]

    def row(category: str = "", phenomenon: str = "") -> dict[str, Any]:
        items = located
        if category:
            items = items[items["category"] == category]
        if phenomenon:
            items = items[items["phenomenon"] == phenomenon]
        ids = set(items.index)
        mine = passes[passes["item"].isin(ids)]
        return {"located": len(ids), "scored": len(ids & scored),
                "passes": mine.groupby("system").size().to_dict()}

    return {"row": row, "systems": scores.systems}


def cell_percent(passes: int, items: int) -> str:
    return f"{100 * passes / items:.1f}"


def check_view(view: dict[str, Any], expected: dict[str, Any], system: str | None) -> None:
    """A view lists the scored items of its row (and the left-out ones one click away)."""
    data = view["data"]
    assert data["set"] == "scored", view
    assert int(data["items"]) == expected["scored"], view
    assert int(data["other"]) == expected["located"] - expected["scored"], view
    if system is not None:
        passes = expected["passes"].get(system, 0)
        assert (int(data["pass"]), int(data["fail"])) == (passes, expected["scored"] - passes)
        assert int(data["warning"]) == int(data["missing"]) == 0
        if expected["scored"]:
            assert (f"{system} passes {passes:,} of {expected['scored']:,}: "
                    f"{cell_percent(passes, expected['scored'])} %") in view["status"], view
    if expected["located"] > expected["scored"]:
        assert "left out of the scores" in view["status"]


def test_every_row_name_lists_the_items_of_its_number(tab: Tab, report: Path, truth):
    page = load(tab, report)
    page.evaluate("history.pushState = history.replaceState = function () {}")
    views = page.evaluate(CLICK_ALL, ["#categories-de-en tbody th.label a, "
                                      "#phenomena-de-en tbody th.label a", False])
    named = [v for v in views if "average" not in v["text"]]
    assert len(named) == 134  # 14 categories in each table, 106 phenomena
    wrong = 0
    for view in views:
        category, phenomenon = view["row"]
        expected = truth["row"](category, phenomenon)
        try:
            check_view(view, expected, None)
            assert {tuple(c) for c in view["cards"]} <= {
                (category or c[0], phenomenon or c[1], "yes") for c in view["cards"]}
        except AssertionError:
            wrong += 1
    assert wrong == 0


def test_every_paper_table_cell_lists_its_passes(tab: Tab, report: Path, wmt21, truth):
    """All 2,484 cells: the row's scored items, the system's passes, the cell's percentage."""
    _, _, scores = wmt21
    page = load(tab, report)
    page.evaluate("history.pushState = history.replaceState = function () {}")
    wrong = []
    total = 0
    for table in ("#categories-de-en", "#phenomena-de-en"):
        views = page.evaluate(CLICK_ALL, [f"{table} tbody td.acc", False])
        width = len(scores.systems)
        total += len(views)
        for view in views:
            category, phenomenon = view["row"]
            system = scores.systems[view["index"] % width]
            expected = truth["row"](category, phenomenon)
            assert view["filters"][2] == system
            try:
                check_view(view, expected, system)
                if category and expected["scored"]:  # a proportion row: passes / items
                    passes = expected["passes"].get(system, 0)
                    assert view["text"] == cell_percent(passes, expected["scored"])
            except AssertionError:
                wrong.append(view)
    assert total == (16 + 122) * 18
    assert [(w["row"], w["index"], w["text"], w["status"][:300]) for w in wrong][:3] == []


def test_every_chart_dot_lists_the_items_of_its_row(tab: Tab, report: Path, wmt21, truth):
    _, _, scores = wmt21
    page = load(tab, report)
    page.evaluate("history.pushState = history.replaceState = function () {}")
    views = page.evaluate(CLICK_ALL, ["#category-chart-de-en a.dot-link", True])
    assert len(views) == 16 * 18
    wrong = []
    for view in views:
        system, label = re.match(r"(.+?) · (.+?): ", view["title"]).groups()
        category = "" if "average" in label else label
        expected = truth["row"](category)
        assert view["filters"][2] == system
        try:
            check_view(view, expected, system)
            if "macro" in label:  # a mean of row accuracies: the list names it and its value
                value = re.match(r".+?: ([\d.]+) %", view["title"]).group(1)
                assert f"{system}'s {label}, {value} %, is the mean of its rows'" \
                    in view["status"], view["status"]
        except AssertionError:
            wrong.append(view)
    assert [(w["row"], w["index"], w["text"], w["status"][:300]) for w in wrong][:3] == []


def test_left_out_items_are_one_click_away_and_say_why(tab: Tab, report: Path, truth):
    row = "#de-en-items?category=Punctuation&phenomenon=Quotation%20marks"
    tab.page.goto(report.as_uri() + row)
    page = tab.page
    page.wait_for_selector("#drilldown-de-en .empty-state")
    status = page.locator("#drilldown-de-en .status")
    expected = truth["row"]("Punctuation", "Quotation marks")
    assert int(status.get_attribute("data-items")) == 0 == expected["scored"]
    status.locator("a.other").click()
    assert status.get_attribute("data-set") == "no"
    assert int(status.get_attribute("data-items")) == expected["located"] == 20
    whys = page.locator("#drilldown-de-en article.item .why").all_text_contents()
    assert whys and all(w.startswith("warning for ") for w in whys)


def test_menu_counts_are_the_counts_of_the_tables(tab: Tab, report: Path, wmt21, truth):
    _, _, scores = wmt21
    page = load(tab, report)
    options = page.evaluate("""() => {
      const drill = document.querySelector('#drilldown-de-en');
      const out = [];
      const category = drill.querySelector('select[name=category]');
      Array.from(category.options).slice(1).forEach(option => {
        category.value = option.value;
        category.dispatchEvent(new Event('change'));
        out.push([option.textContent, '']);
        Array.from(drill.querySelector('select[name=phenomenon]').options).slice(1)
          .forEach(p => out.push([option.textContent, p.textContent]));
      });
      return out;
    }""")
    assert len(options) == 14 + 106
    for category_label, phenomenon_label in options:
        category, count = re.match(r"(.+) \((\d+)\)$", category_label).groups()
        expected = truth["row"](category)
        if phenomenon_label:
            phenomenon, count = re.match(r"(.+) \((\d+)\)$", phenomenon_label).groups()
            expected = truth["row"](category, phenomenon)
        assert int(count) == expected["scored"], (category_label, phenomenon_label)


def test_no_tooltip_rounds_a_p_value_to_zero(tab: Tab, report: Path, wmt21):
    """Every cell's tooltip of both tables and the heatmap: p as scoring computed it."""
    _, _, scores = wmt21
    page = load(tab, report)
    titles = page.evaluate("""() => Array.from(document.querySelectorAll(
        '#pair-de-en table[data-stats] tbody td')).map(td => {
          td.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
          const row = td.closest('tr');
          return [row.closest('table').id, row.dataset.category || '',
                  row.dataset.phenomenon || '', row.querySelector('th').textContent,
                  td.cellIndex - 2, td.title];
        })""")
    table = records(scores)
    levels = {"micro-average": "micro", "category macro-average": "category-macro",
              "phenomenon macro-average": "phenomenon-macro"}
    checked = tiny = 0
    for _, category, phenomenon, label, column, title in titles:
        assert not re.search(r"p = 0(\.0*)?\b(?![.\d])", title), title
        if column < 0 or column >= len(scores.systems) or "p " not in title:
            continue
        level = levels.get(label) or ("phenomenon" if phenomenon else "category")
        record = table[(level, category if level in ("category", "phenomenon") else "",
                        phenomenon, scores.systems[column])]
        assert p_text(record["p_value"]) in title, (title, record["p_value"])
        tiny += record["p_value"] < 1e-6
        checked += 1
    assert checked > 1000 and tiny > 50  # the 74 tooltips that read "p = 0.0" before
