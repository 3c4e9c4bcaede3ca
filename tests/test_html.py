"""The HTML reports without real data: escaping, the embedded data, hostile names.

Pages built from small constructed evaluations: their text and JSON are checked directly
(fast), and one page with hostile names and outputs is opened in Chromium to check that
names stay text at every sink (links by name, CSV cells neutralised). The real WMT21 report
is tested in ``test_html_report.py``, the comparison page in ``test_html_compare.py``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.evaluate import OUTCOMES, Evaluation
from testsuite.matching import CompiledRule, RegexCache
from testsuite.model import Item, Rule, Suite
from testsuite.reports.drilldown import ALPHABET, code, drilldown_data
from testsuite.reports.escape import csv_cell
from testsuite.reports.html import html_report
from testsuite.scoring import Scores, score

from .browser import Chromium, chromium_fixture

HOSTILE = "Er sagte </script><script>alert('x')</script> & <!-- nichts"
#: Outputs a spreadsheet would read as formulas (OWASP: CSV injection).
FORMULAS = ("=HYPERLINK(\"http://x\",\"ok\")", "+1+1", "-2+3 ok", "@SUM(A1)", "-0.5")
#: Names that are markup, mathtext, URL syntax or quotes.
CATEGORY = "Cat & <b>A</b> $x^$"
PHENOMENON = "P1 \"quoted\" ?a=1&b=2#frag"
SYSTEM = "S $\\alpha$ <i>"


def small_evaluation(pairs: tuple[str, ...] = ("de-en", "en-de")) -> tuple[Evaluation, Suite]:
    """Two categories (one with hostile names), three systems, outputs that are formulas."""
    items = {"a1": (CATEGORY, PHENOMENON), "a2": (CATEGORY, PHENOMENON),
             "a3": (CATEGORY, "P2"), "b1": ("Cat B", "P3"), "b2": ("Cat B", "P3")}
    table = {"S1": "ppppp", SYSTEM: "pffpf", "S3": "ffpwp"}
    suite = Suite()
    rows = []
    for pair in pairs:
        for item_id, (category, phenomenon) in items.items():
            suite.items[(pair, item_id)] = Item(item_id, pair, category, phenomenon,
                                                f"Quelle {item_id} <i>",
                                                description="tests <this>")
            suite.rules[(pair, item_id)] = Rule(item_id, positive_regex="ok|pass",
                                                negative_regex="fail")
        for number, (system, codes) in enumerate(table.items()):
            for index, (item_id, letter) in enumerate(zip(items, codes, strict=True)):
                outcome = {"p": "pass", "f": "fail", "w": "warning"}[letter]
                output = f"{outcome} {item_id}"
                if (system, item_id) == (SYSTEM, "a2"):
                    output = HOSTILE
                elif number == 0:
                    output = FORMULAS[index]
                rows.append({"item": item_id, "pair": pair, "category": items[item_id][0],
                             "phenomenon": items[item_id][1], "system": system,
                             "output": output, "outcome": outcome, "reason": "positive-regex"})
    frame = pd.DataFrame(rows)
    frame["outcome"] = pd.Categorical(frame["outcome"], categories=list(OUTCOMES))
    return Evaluation(frame, list(table)), suite


class Page(HTMLParser):
    """Script elements, resource links, text, and bold cells per table id."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.links: list[str] = []
        self.hrefs: list[str] = []
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
        self.hrefs += [value for name, value in attrs if name == "href" and value]

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


def parsed(text: str) -> Page:
    page = Page()
    page.feed(text)
    return page


def test_report_escapes_text_and_bolds_the_first_cluster():
    evaluation, suite = small_evaluation()
    scores = [score(evaluation, suite, pair) for pair in ("de-en", "en-de")]
    text = html_report(scores, evaluation, suite, cache=RegexCache())
    page = parsed(text)
    # The hostile output stays data: the page has only its own scripts (two JSON blocks
    # per pair and the code), and no markup of it survives outside the JSON.
    assert [s.get("type") for s in page.scripts] == ["application/json"] * 4 + [None]
    assert "<script>alert" not in text and "</script><script>" not in text
    assert "<b>A</b>" not in text and "Cat &amp; &lt;b&gt;A&lt;/b&gt; $x^$" in text
    assert "S $\\alpha$ &lt;i&gt;" in text
    # ... and comes back unchanged from the JSON the page reads.
    data = [json.loads(block) for block in page.data[::2]]
    assert HOSTILE in data[0]["strings"] and SYSTEM in data[0]["systems"]
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
    # Links to the drill-down are by name, percent-encoded (a name is never URL syntax).
    assert "#de-en-items?category=Cat%20%26%20%3Cb%3EA%3C%2Fb%3E%20%24x%5E%24&phenomenon=" \
        "P1%20%22quoted%22%20%3Fa%3D1%26b%3D2%23frag" in page.hrefs
    # The title says what was evaluated.
    assert "<title>Test-suite report: de-en (3 systems, 5 items), en-de (3 systems, 5 items)"\
        in text


def decode(data: dict) -> dict[tuple[str, str], tuple[str, str, str]]:
    letters = {letter: index for index, letter in enumerate(data["alphabet"])}
    decoded = {}
    for item in data["items"]:
        item_id, distinct, which, verdicts = item[0], item[4], item[5], item[6]
        for column, system in enumerate(data["systems"]):
            output = data["strings"][distinct[letters[which[column]]]]
            outcome, reason = data["verdicts"][letters[verdicts[column]]]
            decoded[(item_id, system)] = (output, data["outcomes"][outcome],
                                          data["strings"][reason])
    return decoded


def test_report_data_round_trips_every_output():
    """Decoding the compact drill-down data gives back every output, outcome and reason."""
    evaluation, suite = small_evaluation()
    one = score(evaluation, suite, "de-en")
    data = drilldown_data(one, evaluation, suite, RegexCache())
    assert data["alphabet"] == ALPHABET
    results = evaluation.results[evaluation.results["pair"] == "de-en"]
    assert decode(data) == {(r.item, r.system): (r.output, r.outcome, r.reason)
                            for r in results.itertuples()}
    # Entered: exactly the items without a warning for any system (b1 has one).
    assert {i[0]: i[7] for i in data["items"]} == {"a1": 1, "a2": 1, "a3": 1, "b1": 0,
                                                   "b2": 1}
    assert one.coverage.entered == 4
    # The rule of each item, as written.
    first = data["items"][0]
    assert [data["strings"][i] for i in first[8][:2]] == ["ok|pass", "fail"]


def test_spans_are_the_rule_matches_in_javascript_string_indices():
    """Match spans come from the evaluator's patterns, counted in UTF-16 code units."""
    evaluation, suite = small_evaluation(("de-en",))
    results = evaluation.results
    emoji = "😀 fail 😀 ok"  # characters beyond U+FFFF before and between the matches
    results["output"] = results["output"].astype(object)
    results.loc[(results["item"] == "b2") & (results["system"] == "S3"), "output"] = emoji
    data = drilldown_data(score(evaluation, suite, "de-en"), evaluation, suite, RegexCache())
    b2 = next(i for i in data["items"] if i[0] == "b2")
    position = [data["strings"][o] for o in b2[4]].index(emoji)
    utf16 = emoji.encode("utf-16-le")
    marks = [(utf16[2 * s:2 * e].decode("utf-16-le"), flags)
             for s, e, flags in zip(*[iter(b2[9][position])] * 3, strict=True)]
    assert sorted(marks) == [("fail", 0), ("ok", 1)]
    # The same spans as the evaluator's compiled rule gives in Python indices.
    rule = CompiledRule(suite.rules[("de-en", "b2")], RegexCache())
    assert sorted(emoji[s.start:s.end] for s in rule.spans(emoji)) == ["fail", "ok"]


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


def test_rows_without_scored_items_are_named(tmp_path):
    """A phenomenon whose items all carry a warning is not in the scores, and says why."""
    evaluation, suite = small_evaluation(("de-en",))
    results = evaluation.results
    results.loc[results["item"].isin(["a3"]) & (results["system"] == "S3"), "outcome"] = \
        "warning"
    one = score(evaluation, suite, "de-en")
    assert [(d.category, d.phenomenon) for d in one.dropped] == [(CATEGORY, "P2")]
    page = parsed(html_report([one], evaluation, suite, cache=RegexCache()))
    text = " ".join(page.text)
    assert "P2 (Cat & <b>A</b> $x^$): none of its 1 located items entered (1 with a warning)" \
        in text


# ---------------------------------------------------------------------------------------------
# In Chromium: hostile names and outputs stay text at every sink


@pytest.fixture(scope="module")
def chromium():
    yield from chromium_fixture()


def test_hostile_names_in_the_browser(chromium: Chromium, tmp_path: Path):
    evaluation, suite = small_evaluation(("de-en",))
    one = score(evaluation, suite, "de-en")
    path = tmp_path / "hostile.html"
    path.write_text(html_report([one], evaluation, suite, cache=RegexCache()),
                    encoding="utf-8")
    tab = chromium.tab()
    try:
        page = tab.page
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: dialogs.append(dialog.message))
        page.goto(path.as_uri())
        page.wait_for_selector("#drilldown-de-en article.item")
        # The output's script never runs: no dialog, and only the page's own script.
        assert page.locator("script:not([type])").count() == 1
        # The heatmap cell of the hostile phenomenon and system opens exactly them.
        column = one.systems.index(SYSTEM)
        row = page.locator("#heatmap-de-en tr", has=page.locator("th", has_text="quoted"))
        row.locator("td.cell").nth(column).click()
        drill = page.locator("#drilldown-de-en")
        checked = [drill.locator(f"select[name={n}] option:checked").inner_text()
                   for n in ("category", "phenomenon", "system")]
        assert [re.sub(r" \(\d+\)$", "", c) for c in checked] == [CATEGORY, PHENOMENON, SYSTEM]
        texts = drill.locator("td.text").all_inner_texts()
        assert HOSTILE in texts
        # The permalink reopens it (names survive the address).
        other = chromium.tab()
        other.page.goto(page.url)
        other.page.wait_for_selector("#drilldown-de-en article.item")
        assert HOSTILE in other.page.locator("#drilldown-de-en td.text").all_inner_texts()
        assert other.errors == []
        other.close()
        # CSV: formulas are neutralised by the project's one rule (reports/escape.py: a plain
        # number stays a number), everything else is as written.
        drill.locator("button[name=reset]").click()
        drill.locator("select[name=scored]").select_option("all")
        with page.expect_download() as download:
            drill.locator("button[name=csv]").click()
        rows = list(csv.reader(io.StringIO(
            Path(download.value.path()).read_text(encoding="utf-8-sig"))))
        outputs = {(r[1], r[5]): r[9] for r in rows[1:]}
        for index, formula in enumerate(FORMULAS):
            assert outputs[(f"{'aaabb'[index]}{'12312'[index]}", "S1")] == csv_cell(formula)
        assert csv_cell(FORMULAS[-1]) == FORMULAS[-1] and csv_cell(FORMULAS[0]) != FORMULAS[0]
        assert outputs[("a2", SYSTEM)] == HOSTILE
        assert {r[2] for r in rows[1:]} == {CATEGORY, "Cat B"}
        assert dialogs == []
        assert tab.errors == []
        assert tab.external(path) == []
    finally:
        tab.close()


def test_rank_ranges_when_computed():
    """With clusters asked for, each cell's rank range reaches the page's statistics."""
    from testsuite.scoring import ScoreOptions

    evaluation, suite = small_evaluation(("de-en",))
    one = score(evaluation, suite, "de-en", ScoreOptions(clusters=True))
    page = parsed(html_report([one], evaluation, suite, cache=RegexCache()))
    stats = json.loads(page.data[1])
    table = one.table.set_index(["level", "category", "system"])
    micro = next(entry for entry in stats["categories"] if entry[0] == one.coverage.entered
                 and len(entry[2][0]) > 8)
    ranks = [(cell[8], cell[9]) for cell in micro[2]]
    assert ranks == [(int(table.loc[("micro", "", s), "rank_best"]),
                      int(table.loc[("micro", "", s), "rank_worst"])) for s in one.systems]
    assert "rank ranges" in " ".join(page.text)


def test_comparison_page_escapes_names_and_outputs(tmp_path):
    """Hostile system names, categories and outputs in a comparison stay text."""
    from testsuite.compare import compare
    from testsuite.reports.html import comparison_html
    from testsuite.runs import Run

    before, suite = small_evaluation(("de-en",))
    after, _ = small_evaluation(("de-en",))
    frame = after.results
    flip = (frame["system"] == SYSTEM) & (frame["item"] == "a1")  # pass → fail
    frame.loc[flip, "outcome"] = "fail"
    frame.loc[flip, "output"] = "=cmd|' /C calc'!A0 </script>"
    sources = {"de-en": {i.id: i.source for i in suite.items_of("de-en")}}
    comparison = compare([Run("old", "wmt21", 2021, tmp_path, before, sources=sources),
                          Run("new", "wmt22", 2022, tmp_path, after, sources=sources)], "de-en")
    assert len(comparison.changes) == 1
    text = comparison_html(comparison)
    page = parsed(text)
    assert [s.get("type") for s in page.scripts] == ["application/json", None]
    assert "</script><script>" not in text and "<b>A</b>" not in text
    assert 'title="S $\\alpha$ &lt;i&gt;, wmt21"' in text
    data = json.loads(page.data[0])
    row = dict(zip(data["columns"], data["rows"][0], strict=True))
    assert (row["system"], row["after"], row["category"]) == (
        SYSTEM, "=cmd|' /C calc'!A0 </script>", CATEGORY)


#: A name that a bidi override would show reversed ("evilexe.txt"), an output with an ANSI
#: escape, and a category with a right-to-left isolate that would swallow the text after it.
BIDI_SYSTEM = "evil\u202etxt.exe"
BIDI_OUTPUT = "pass \x1b[31mred\x1b[0m \u2067isolated"
BIDI_CATEGORY = "Cat \u202bembedded"
#: Every character that reorders or hides text (what `escape.visible` writes as an escape).
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                      "\u202a-\u202e\u2066-\u2069]")


def _bidi_pages(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """The report and a comparison page with bidi controls and ESC in names and outputs,
    and the report's systems in their order."""
    from testsuite.compare import compare
    from testsuite.reports.html import comparison_html
    from testsuite.runs import Run

    def named(evaluation: Evaluation) -> Evaluation:
        frame = evaluation.results.copy()
        frame["system"] = frame["system"].replace({SYSTEM: BIDI_SYSTEM})
        frame["category"] = frame["category"].replace({"Cat B": BIDI_CATEGORY})
        frame.loc[(frame["system"] == BIDI_SYSTEM) & (frame["item"] == "a1"),
                  "output"] = BIDI_OUTPUT
        systems = [BIDI_SYSTEM if s == SYSTEM else s for s in evaluation.systems]
        return Evaluation(frame, systems)

    before, suite = small_evaluation(("de-en",))
    for key, item in list(suite.items.items()):
        if item.category == "Cat B":
            suite.items[key] = Item(item.id, item.pair, BIDI_CATEGORY, item.phenomenon,
                                    item.source, description=item.description)
    before = named(before)
    after = named(small_evaluation(("de-en",))[0])
    flip = (after.results["system"] == BIDI_SYSTEM) & (after.results["item"] == "a3")
    after.results.loc[flip, "outcome"] = "pass"
    after.results.loc[flip, "output"] = BIDI_OUTPUT
    report = tmp_path / "report.html"
    scores = score(before, suite, "de-en")
    report.write_text(html_report([scores], before, suite, cache=RegexCache()),
                      encoding="utf-8")
    sources = {"de-en": {i.id: i.source for i in suite.items_of("de-en")}}
    comparison = compare([Run("old", "wmt21", 2021, tmp_path, before, sources=sources),
                          Run("new", "wmt22", 2022, tmp_path, after, sources=sources)], "de-en")
    page = tmp_path / "compare.html"
    page.write_text(comparison_html(comparison), encoding="utf-8")
    return report, page, list(scores.systems)


def _strings(data: object) -> list[str]:
    """Every string in parsed JSON."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return []


def test_bidi_controls_and_escapes_are_shown_as_escapes(tmp_path):
    """Text from data cannot reorder or hide the text around it: every control character
    is written as the terminal writes it (``\\u202e``), in the page, its data and links."""
    for path in _bidi_pages(tmp_path)[:2]:
        text = path.read_text(encoding="utf-8")
        assert CONTROLS.findall(text) == [], path.name
        assert "evil\\u202etxt.exe" in text, path.name
        page = parsed(text)
        strings = _strings([json.loads(block) for block in page.data])
        assert "evil\\u202etxt.exe" in strings, path.name
        assert [s for s in strings if CONTROLS.search(s)] == []


def test_bidi_names_in_the_browser(chromium: Chromium, tmp_path: Path):
    report, comparison, systems = _bidi_pages(tmp_path)
    tab = chromium.tab()
    try:
        page = tab.page
        page.goto(report.as_uri())
        page.wait_for_selector("#drilldown-de-en article.item")
        body = page.locator("body").inner_text()
        assert "evil\\u202etxt.exe" in body and "Cat \\u202bembedded" in body
        assert CONTROLS.findall(body) == []
        # The name's cell opens its outputs by name (page, data and permalink agree).
        column = systems.index(BIDI_SYSTEM)
        row = page.locator("#heatmap-de-en tr", has=page.locator("th", has_text="quoted"))
        row.locator("td.cell").nth(column).click()
        drill = page.locator("#drilldown-de-en")
        chosen = drill.locator("select[name=system] option:checked").inner_text()
        assert re.sub(r" \(\d+\)$", "", chosen) == "evil\\u202etxt.exe"
        drill.locator("select[name=phenomenon]").select_option("")
        texts = drill.locator("td.text").all_inner_texts()
        assert "pass \\x1b[31mred\\x1b[0m \\u2067isolated" in texts
        page.screenshot(path=str(tmp_path / "bidi.png"), full_page=True)
        assert tab.errors == []
        page.goto(comparison.as_uri())
        page.wait_for_load_state("load")
        body = page.locator("body").inner_text()
        assert "evil\\u202etxt.exe" in body and CONTROLS.findall(body) == []
        assert tab.errors == []
    finally:
        tab.close()
