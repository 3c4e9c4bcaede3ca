"""`testsuite score` on the real WMT21 data, both directions, every format.

Expected numbers are recomputed here straight from the outcomes with plain Python (which
items have only pass/fail for every system, and counting passes), and every first cluster
with statsmodels' `proportions_ztest`, independently of the vectorised scoring core.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.scoring import ScoreOptions, score

runner = CliRunner()
PAIRS = ("de-en", "en-de")


@pytest.fixture(scope="module")
def wmt21(dfki_suite, wmt):
    return {pair: (dfki_suite, wmt("wmt21", pair)) for pair in PAIRS}


def by_hand(evaluation):
    """Items entering under the fairness rule, and passes per (system, category)."""
    outcomes = defaultdict(dict)
    category = {}
    for row in evaluation.results.itertuples():
        outcomes[row.item][row.system] = row.outcome
        category[row.item] = row.category
    entered = [i for i, o in outcomes.items() if set(o.values()) <= {"pass", "fail"}]
    passes = defaultdict(int)
    items = defaultdict(int)
    for item in entered:
        items[category[item]] += 1
        for system, outcome in outcomes[item].items():
            passes[(system, category[item])] += outcome == "pass"
    return entered, passes, items


@pytest.mark.parametrize("pair", PAIRS)
def test_counts_and_accuracies_match_a_hand_count(wmt21, pair):
    suite, evaluation = wmt21[pair]
    scores = score(evaluation, suite, pair)
    entered, passes, items = by_hand(evaluation)
    assert scores.coverage.entered == len(entered)
    assert scores.coverage.not_located == {"de-en": 19, "en-de": 159}[pair]
    assert (scores.coverage.entered + scores.coverage.with_warning + scores.coverage.with_missing
            + scores.coverage.not_located) == scores.coverage.items
    table = scores.table
    for system in ("Online-A", "Online-B", evaluation.systems[0]):
        for category in ("MWE", "Verb tense/aspect/mood", "Negation"):
            row = table[(table["level"] == "category") & (table["category"] == category)
                        & (table["system"] == system)].iloc[0]
            assert (row["passes"], row["items"]) == (passes[(system, category)], items[category])
        micro = table[(table["level"] == "micro") & (table["system"] == system)].iloc[0]
        total = sum(v for (s, _), v in passes.items() if s == system)
        assert micro["accuracy"] == pytest.approx(total / len(entered))


@pytest.mark.parametrize("pair", PAIRS)
def test_score_command_writes_every_format(wmt21, data, dfki_dir, tmp_path, pair):
    from testsuite.reports.render import render

    outputs = data / "wmt21" / "txt-ts"
    base = ["score", str(outputs), "--pair", pair, "--suite", str(dfki_dir), "-q"]
    result = runner.invoke(app, base)
    assert result.exit_code == 0, result.output
    assert f"Accuracy per category ({pair})" in result.output
    assert f"Accuracy per phenomenon ({pair})" in result.output
    assert "testsuite:0.1.0|pair:" in result.output
    path = tmp_path / "report.json"
    result = runner.invoke(app, [*base, "--format", "json", "--out", str(path)])
    assert result.exit_code == 0, result.output
    document = json.loads(path.read_text(encoding="utf-8"))
    assert {row["level"] for row in document["rows"]} == {
        "phenomenon", "category", "micro", "category-macro", "phenomenon-macro"}
    assert "UF" not in document["systems"]  # did not translate: never scored
    # The other formats render the same scores (the command only picks the renderer).
    suite, evaluation = wmt21[pair]
    scores = [score(evaluation, suite, pair)]
    assert json.loads(render(scores, "json")) == document
    assert render(scores, "csv").splitlines()[0].startswith(
        "pair,level,category,phenomenon,system,passes")
    for kind in ("markdown", "latex"):
        text = render(scores, kind)
        assert "Accuracy per phenomenon" in text and "micro-average" in text
    assert r"Coordination \& ellipsis" in render(scores, "latex")


def test_filters_on_real_data(data, dfki_dir):
    result = runner.invoke(app, ["score", str(data / "wmt21" / "txt-ts"), "--pair", "en-de",
                                 "--suite", str(dfki_dir), "-q", "--category", "MWE",
                                 "--phenomenon", "Idiom", "--system", "Online-A",
                                 "--system", "Online-B", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert sorted(document["systems"]) == ["Online-A", "Online-B"]
    assert {(r["category"], r["phenomenon"]) for r in document["rows"]
            if r["level"] == "phenomenon"} == {("MWE", "Idiom")}


def statsmodels_first_cluster(passes: dict[str, int], n: int, alpha: float = 0.05) -> set[str]:
    """The published first cluster, one `proportions_ztest` call per comparison."""
    import numpy as np
    from statsmodels.stats.proportion import proportions_ztest

    best = max(passes.values())
    kept = set()
    for system, x in passes.items():
        if x == best or best + x in (0, 2 * n):
            kept.add(system)
            continue
        _, p = proportions_ztest(np.array([best, x]), np.array([n, n]), alternative="larger",
                                 prop_var=False)
        if p >= alpha:
            kept.add(system)
    return kept


@pytest.mark.parametrize("pair", PAIRS)
def test_every_first_cluster_agrees_with_statsmodels(wmt21, pair):
    suite, evaluation = wmt21[pair]
    scores = score(evaluation, suite, pair)
    checked = 0
    for row in scores.table_rows:
        # Macro rows: `passes` is the macro-average as the published reading takes it
        # (rounded to whole items of the row).
        passes = dict(zip(scores.systems, map(int, row.passes), strict=True))
        expected = statsmodels_first_cluster(passes, row.items)
        assert {s for s, f in zip(scores.systems, row.first_cluster, strict=True) if f} == \
            expected, row.key
        checked += 1
    assert checked == len(scores.table_rows) >= 120


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("fair", [True, False])
def test_bounds_contain_the_accuracy_in_every_cell(wmt21, pair, fair):
    suite, evaluation = wmt21[pair]
    scores = score(evaluation, suite, pair, ScoreOptions(fair=fair))
    for row in scores.table_rows:  # exactly: no rounding apart (issue 22)
        assert (row.lower <= row.accuracy).all(), row.key
        assert (row.accuracy <= row.upper).all(), row.key
        assert (row.ci_low <= row.accuracy).all() and (row.accuracy <= row.ci_high).all(), \
            row.key
    if fair:  # open warnings: somewhere the bounds are an interval, not a point
        micro = scores.row("micro")
        assert micro is not None and (micro.upper > micro.lower).all()


def test_rows_without_scored_items_are_reported(wmt21):
    # WMT21 de-en: every "Quotation marks" item has a warning for some system.
    suite, evaluation = wmt21["de-en"]
    scores = score(evaluation, suite, "de-en")
    assert [(d.level, d.category, d.phenomenon) for d in scores.dropped] == [
        ("phenomenon", "Punctuation", "Quotation marks")]
    assert scores.row("phenomenon", "Punctuation", "Quotation marks") is None
    macro = scores.row("phenomenon-macro")
    assert macro is not None and macro.groups == 105 and macro.located == 106
    assert any("over 105 of 106 phenomenon rows" in str(n) for n in scores.notes)
    # WMT21 en-de loses a whole category.
    suite, evaluation = wmt21["en-de"]
    scores = score(evaluation, suite, "en-de")
    categories = [d for d in scores.dropped if d.level == "category"]
    assert len(categories) == 1
    assert any(f"{categories[0].category}: none of its" in str(n) for n in scores.notes)


def test_the_published_macro_reading_understates_the_standard_error(wmt21):
    # The category macro-average is a mean of 14 accuracies; its stratified standard error
    # is about twice the one the published reading (a proportion over all items) implies.
    import math

    suite, evaluation = wmt21["de-en"]
    scores = score(evaluation, suite, "de-en")
    macro = scores.row("category-macro")
    assert macro is not None
    n = macro.items
    reading = [math.sqrt(a * (1 - a) / n) for a in macro.accuracy]
    stratified = [(high - low) / (2 * 1.959963984540054)
                  for low, high in zip(macro.ci_low, macro.ci_high, strict=True)]
    ratios = [s / r for s, r in zip(stratified, reading, strict=True)]
    assert 1.5 < sum(ratios) / len(ratios) < 3.5
    # The bootstrap and the stratified Z-test agree; the published reading is bolder.
    strat = score(evaluation, suite, "de-en", ScoreOptions(macro_test="stratified"))
    boot = score(evaluation, suite, "de-en", ScoreOptions(macro_test="bootstrap"))
    a, b = strat.row("category-macro"), boot.row("category-macro")
    assert a is not None and b is not None
    assert abs(a.p_value[1:] - b.p_value[1:]).max() < 0.02
    assert macro.first_cluster.sum() <= a.first_cluster.sum()
    assert any("published reading" in str(n) for n in scores.notes)


def test_bootstrap_decisions_near_alpha_are_noted_for_every_report(wmt21):
    # With few resamples the Monte Carlo error is large; every first-cluster decision whose
    # p-value lies within three of its standard errors of α gets a note on its macro row.
    from testsuite.reports.tables import category_table

    suite, evaluation = wmt21["de-en"]
    resamples = 60
    scores = score(evaluation, suite, "de-en",
                   ScoreOptions(macro_test="bootstrap", resamples=resamples, seed=3))
    expected = set()
    for level in ("category-macro", "phenomenon-macro"):
        row = scores.row(level)
        assert row is not None
        for system, p in zip(scores.systems, row.p_value, strict=True):
            if p == p and abs(p - 0.05) < 3 * (p * (1 - p) / resamples) ** 0.5:
                expected.add((level, system))
    noted = {(n.levels[0], name) for n in scores.notes if "Monte Carlo" in str(n)
             for name in re.findall(r"([^ ,]+) \(p = 0\.\d{3}\)", str(n))}
    assert expected and noted == expected
    assert all(str(n).startswith(f"the {n.levels[0].removesuffix('-macro')} macro-average: ")
               for n in scores.notes if "Monte Carlo" in str(n))
    # The table of categories carries the note for its macro row.
    table = category_table(scores)
    assert any("Monte Carlo" in note for note in table.notes)
    # With the default 10,000 resamples far fewer decisions are that close.
    default = score(evaluation, suite, "de-en", ScoreOptions(macro_test="bootstrap"))
    assert len(default.stability) < len(scores.stability) == len(noted)
