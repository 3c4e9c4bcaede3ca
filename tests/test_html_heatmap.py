"""Every heatmap cell of the real WMT21 de-en report, clicked in Chromium.

A file of its own (1,890 clicks take the longest of the browser tests), so that the test
runner can run it beside the other browser tests; fixtures and helpers are those of
tests/test_html_report.py.
"""

from __future__ import annotations

import re
from pathlib import Path

from testsuite.reports.tables import phenomenon_table

from .browser import Tab
from .test_html_report import (  # fixtures are used by name (see pyproject: F811)
    chromium,
    load,
    plain,
    records,
    report,
    tab,
    wmt21,
)


def test_every_heatmap_cell_opens_its_phenomenon_and_system(tab: Tab, report: Path, wmt21):
    """All 1,908 cells: the right phenomenon and system, and exactly the scored outputs.

    The row none of whose items entered the scores ("Quotation marks") is in the heatmap
    too, its cells "–", and opens its (no) scored items with its 20 left-out ones a click
    away.

    Each cell is clicked (a click event through the page's own handler); history entries
    are tested on their own below, so here the browser's history API is stubbed to keep
    1,890 clicks fast (each pushState is a synchronous round trip in Chromium).
    """
    _, _, scores = wmt21
    page = load(tab, report)
    page.evaluate("history.pushState = history.replaceState = function () {}")
    keys = [(r.category, r.phenomenon) for r in phenomenon_table(scores).rows
            if r.kind == "phenomenon"]
    table = records(scores)
    shown = page.evaluate("""() => {
      const rows = Array.from(document.querySelectorAll('#heatmap-de-en tbody tr'))
        .filter(r => r.querySelector('td.cell'));
      const drill = document.querySelector('#drilldown-de-en');
      const label = n => drill.querySelector('select[name=' + n + '] option:checked').textContent;
      const out = [];
      rows.forEach((row, r) => row.querySelectorAll('td.cell').forEach((cell, c) => {
        cell.click();
        out.push([r, c, row.querySelector('th').textContent, cell.textContent, label('category'),
          label('phenomenon'), label('system'), label('scored'),
          drill.querySelector('.status').dataset.items, drill.querySelector('.status').textContent,
          Array.from(drill.querySelectorAll('article.item'))
            .map(a => [a.dataset.category, a.dataset.phenomenon, a.dataset.scored])]);
      }));
      return out;
    }""")
    assert len(shown) == len(keys) * len(scores.systems) == 106 * 18
    reached = set()
    for r, c, head, value, category, phenomenon, system, scored, items, line, cards in shown:
        key = keys[r]
        assert head == key[1]
        assert (re.sub(r" \(\d+\)$", "", category), re.sub(r" \(\d+\)$", "", phenomenon),
                system, scored) == (*key, scores.systems[c], "scored (as in the tables)"), (r, c)
        reached.add(key)
        if ("phenomenon", *key, scores.systems[c]) not in table:  # no item entered
            assert key == ("Punctuation", "Quotation marks") and value == "–"
            assert int(items) == 0 and cards == []
            continue
        expected = table[("phenomenon", *key, scores.systems[c])]
        assert value == str(round(100 * expected['accuracy']))
        counts = [int(n) for n in re.findall(r"(\d+) (?:pass|fail|warning|missing)",
                                             plain(line))]
        # Exactly the scored items of the row: its passes and fails are the score's.
        assert int(items) == expected['items']
        assert counts == [expected['passes'], expected["items"] - expected['passes'], 0, 0]
        assert {tuple(card) for card in cards} == {(*key, "yes")}
    assert reached == set(keys)
