"""Scores on a constructed evaluation whose numbers are worked out by hand below."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from testsuite.errors import TestsuiteError
from testsuite.evaluate import OUTCOMES, Evaluation
from testsuite.model import Item, Rule, Suite
from testsuite.reports.render import render
from testsuite.scoring import ScoreOptions, item_analysis, score

GOLDEN = Path(__file__).parent / "golden"

#        P1 (Cat A)     P2 (Cat A)  P3 (Cat B)
ITEMS = {"a1": ("Cat A", "P1"), "a2": ("Cat A", "P1"), "a3": ("Cat A", "P1"),
         "a4": ("Cat A", "P1"), "a5": ("Cat A", "P2"), "a6": ("Cat A", "P2"),
         "b1": ("Cat B", "P3"), "b2": ("Cat B", "P3"), "b3": ("Cat B", "P3"),
         "b4": ("Cat B", "P3")}
OUTCOME_TABLE = {  # p pass, f fail, w warning, m missing
    "S1": "pppp pf ppfw",
    "S2": "pfpf pp fffp",
    "S3": "ppff mf pfpp",
}
CODES = {"p": "pass", "f": "fail", "w": "warning", "m": "missing"}


def make_suite(items: dict[str, tuple[str, str]]) -> Suite:
    suite = Suite()
    for item_id, (category, phenomenon) in items.items():
        suite.items[("de-en", item_id)] = Item(item_id, "de-en", category, phenomenon,
                                               f"Quelle {item_id}.")
        suite.rules[("de-en", item_id)] = Rule(item_id, positive_regex="ok")
    return suite


def make_evaluation(items: dict[str, tuple[str, str]], table: dict[str, str]) -> Evaluation:
    rows = []
    for system, codes in table.items():
        for item_id, code in zip(items, codes.replace(" ", ""), strict=True):
            category, phenomenon = items[item_id]
            rows.append({"item": item_id, "pair": "de-en", "category": category,
                         "phenomenon": phenomenon, "system": system, "output": f"{code}!",
                         "outcome": CODES[code], "reason": "test"})
    frame = pd.DataFrame(rows)
    frame["outcome"] = pd.Categorical(frame["outcome"], categories=list(OUTCOMES))
    return Evaluation(frame, list(table))


@pytest.fixture()
def scores():
    return score(make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS))


def value(scores, level, category="", phenomenon="", system="S1", column="accuracy"):
    table = scores.table
    row = table[(table["level"] == level) & (table["category"] == category)
                & (table["phenomenon"] == phenomenon) & (table["system"] == system)]
    assert len(row) == 1
    return row[column].iloc[0]


def test_fairness_rule_and_coverage(scores):
    # b4 has a warning (S1), a5 a missing output (S3): 8 of 10 items enter.
    coverage = scores.coverage
    assert (coverage.items, coverage.entered, coverage.with_warning, coverage.with_missing,
            coverage.not_located) == (10, 8, 1, 1, 0)
    assert coverage.warnings == {"S1": 1, "S2": 0, "S3": 0}
    assert coverage.missing == {"S1": 0, "S2": 0, "S3": 1}
    assert str(coverage) == ("8 of 10 items entered the scores (left out: 1 with a warning for "
                             "some system, 1 with a missing output (and no warning))")


@pytest.mark.parametrize(("level", "category", "phenomenon", "expected"), [
    # worked out by hand from OUTCOME_TABLE over the 8 items that enter
    ("phenomenon", "Cat A", "P1", {"S1": 4 / 4, "S2": 2 / 4, "S3": 2 / 4}),
    ("phenomenon", "Cat A", "P2", {"S1": 0 / 1, "S2": 1 / 1, "S3": 0 / 1}),  # only a6
    ("phenomenon", "Cat B", "P3", {"S1": 2 / 3, "S2": 0 / 3, "S3": 2 / 3}),
    ("category", "Cat A", "", {"S1": 4 / 5, "S2": 3 / 5, "S3": 2 / 5}),
    ("category", "Cat B", "", {"S1": 2 / 3, "S2": 0 / 3, "S3": 2 / 3}),
    ("micro", "", "", {"S1": 6 / 8, "S2": 3 / 8, "S3": 4 / 8}),
    ("category-macro", "", "", {"S1": (4 / 5 + 2 / 3) / 2, "S2": (3 / 5 + 0) / 2,
                                "S3": (2 / 5 + 2 / 3) / 2}),
    ("phenomenon-macro", "", "", {"S1": (1 + 0 + 2 / 3) / 3, "S2": (0.5 + 1 + 0) / 3,
                                  "S3": (0.5 + 0 + 2 / 3) / 3}),
])
def test_accuracies(scores, level, category, phenomenon, expected):
    for system, accuracy in expected.items():
        assert value(scores, level, category, phenomenon, system) == pytest.approx(accuracy)


def test_systems_ordered_by_category_macro_average(scores):
    assert scores.systems == ["S1", "S3", "S2"]


def test_bounds_say_how_far_deciding_open_warnings_could_move_the_accuracy(scores):
    # 8 items entered. b4 can still enter (S1's warning on it is open); a5 cannot (S3 has
    # no output). Deciding b4 adds it to every system's row; not deciding it keeps 8 items.
    # S1 passed 6 of 8; on b4 its warning may become pass or fail: 6/9 … 7/9 (6/8 inside).
    assert value(scores, "micro", column="lower") == pytest.approx(6 / 9)
    assert value(scores, "micro", column="upper") == pytest.approx(7 / 9)
    # S2 passed 3 of 8 and passes b4: b4 entering can only raise it, to 4/9.
    assert value(scores, "micro", system="S2", column="lower") == pytest.approx(3 / 8)
    assert value(scores, "micro", system="S2", column="upper") == pytest.approx(4 / 9)
    # Every bound contains its accuracy, in every row.
    table = scores.table
    assert ((table["lower"] <= table["accuracy"] + 1e-12)
            & (table["accuracy"] <= table["upper"] + 1e-12)).all()


def test_bounds_without_the_fairness_rule_are_over_the_same_items():
    unfair = score(make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS),
                   options=ScoreOptions(fair=False))
    # All 10 items, warnings and missing outputs counting as not passed: S1 7/10; its
    # warning (b4) may become a pass: 8/10. S3's missing output (a5) can never pass.
    assert value(unfair, "micro", column="lower") == pytest.approx(7 / 10)
    assert value(unfair, "micro", column="upper") == pytest.approx(8 / 10)
    assert value(unfair, "micro", system="S3", column="lower") == \
        value(unfair, "micro", system="S3", column="upper") == pytest.approx(5 / 10)


def test_without_fairness_rule_everything_located_enters():
    unfair = score(make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS),
                   options=ScoreOptions(fair=False))
    assert unfair.coverage.entered == 10
    # S1 passes a1-a5, b1, b2; its warning on b4 is not a pass
    assert value(unfair, "micro") == pytest.approx(7 / 10)
    assert unfair.signature.get("fair") == "no"
    assert "WITHOUT the fairness rule" in str(unfair.notes[0])


def test_filters_and_unknown_names():
    evaluation, suite = make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS)
    only_b = score(evaluation, suite, options=ScoreOptions(categories=("cat b",),
                                                            systems=("S2", "S3")))
    assert only_b.coverage.items == 4 and only_b.coverage.entered == 4  # b4's warning is S1's
    assert value(only_b, "micro", system="S2") == pytest.approx(1 / 4)
    assert "categories:cat b" in str(only_b.signature)
    # The fairness rule over two systems only lets b4 in; the report says so.
    assert any("over the 2 chosen systems only" in str(note) for note in only_b.notes)
    # item analysis filters names the same way (case-insensitively)
    analysis = item_analysis(evaluation, suite, options=ScoreOptions(categories=("CAT B",)))
    assert set(analysis["item"]) == {"b1", "b2", "b3"}
    with pytest.raises(TestsuiteError, match="unknown phenomenon: Idiom"):
        score(evaluation, suite, options=ScoreOptions(phenomena=("Idiom",)))


# A row large enough for the Z-test to separate systems: 40 items of one phenomenon.
BIG = {f"x{n:02d}": ("Cat", "Big") for n in range(40)}


def test_first_cluster_follows_the_one_tailed_ztest():
    table = {"A": "p" * 36 + "f" * 4, "B": "p" * 33 + "f" * 7, "C": "p" * 26 + "f" * 14}
    scores = score(make_evaluation(BIG, table), make_suite(BIG))

    # Hand computation (pooled two-proportion Z, one-tailed p = erfc(z/√2)/2):
    def p_value(x1: int, x2: int, n: int = 40) -> float:
        pooled = (x1 + x2) / (2 * n)
        z = (x1 / n - x2 / n) / math.sqrt(pooled * (1 - pooled) * 2 / n)
        return math.erfc(z / math.sqrt(2)) / 2

    # A vs B: z = 0.075 / sqrt(.8625 * .1375 * 2/40) = 0.974 → p = 0.165, not significant
    assert p_value(36, 33) == pytest.approx(0.1650, abs=1e-4)
    # A vs C: z = 0.25 / sqrt(.775 * .225 * 2/40) = 2.678 → p = 0.0037, significant
    assert p_value(36, 26) == pytest.approx(0.0037, abs=1e-4)
    first = {s for s in "ABC" if value(scores, "phenomenon", "Cat", "Big", s, "first_cluster")}
    assert first == {"A", "B"}


def test_full_clusters_and_rank_ranges_on_request():
    table = {"A": "p" * 36 + "f" * 4, "B": "p" * 33 + "f" * 7, "C": "p" * 26 + "f" * 14}
    scores = score(make_evaluation(BIG, table), make_suite(BIG),
                   options=ScoreOptions(clusters=True))
    micro = scores.table[scores.table["level"] == "micro"].set_index("system")
    # A vs B p = 0.165, A vs C p = 0.0037, B vs C p = 0.038 (computed as above):
    # clusters [[A, B], [C]]
    assert micro["cluster"].to_dict() == {"A": 1, "B": 1, "C": 2}
    assert {s: (r.rank_best, r.rank_worst) for s, r in micro.iterrows()} == {
        "A": (1, 2), "B": (1, 2), "C": (3, 3)}


def test_paired_test_uses_mcnemar_on_the_same_items():
    # B fails exactly the items A fails plus 4 more: 4 discordant pairs, all for A.
    table = {"A": "p" * 30 + "f" * 10, "B": "p" * 26 + "f" * 14}
    scores = score(make_evaluation(BIG, table), make_suite(BIG),
                   options=ScoreOptions(test="paired"))
    # McNemar exact one-tailed: P(X >= 4 | Bin(4, .5)) = 1/16 = 0.0625 → B stays in
    first = {s for s in "AB" if value(scores, "micro", system=s, column="first_cluster")}
    assert first == {"A", "B"}
    assert scores.signature.get("test") == "paired"


def test_no_item_enters_gives_a_clear_message():
    table = {"S1": "w" * 10, "S2": "p" * 10}
    with pytest.raises(TestsuiteError, match="no item entered the scores"):
        score(make_evaluation(ITEMS, table), make_suite(ITEMS))


def test_json_report(scores):
    document = json.loads(render([scores], "json"))
    assert document["systems"] == ["S1", "S3", "S2"]
    levels = {(r["level"], r["category"], r["phenomenon"]) for r in document["rows"]}
    assert ("micro", None, None) in levels and ("phenomenon", "Cat A", "P2") in levels
    micro = next(r for r in document["rows"] if r["level"] == "micro")
    assert micro["items"] == 8 and micro["located"] == 10
    entry = micro["systems"]["S1"]
    assert {k: entry[k] for k in ("accuracy", "passes", "first_cluster", "lower", "upper",
                                  "p_value")} == {
        "accuracy": 0.75, "passes": 6, "first_cluster": True, "lower": 6 / 9, "upper": 7 / 9,
        "p_value": None}  # S1 is the best: no p-value against itself
    assert entry["ci_low"] < 0.75 < entry["ci_high"]
    assert document["signature"] == str(scores.signature)
    assert document["options"]["macro"] == "published"


def test_adjusted_p_and_monte_carlo_error_in_json_and_csv():
    # Fields exist where the numbers do: p_adjusted with a correction (every row),
    # p_mc_error with the bootstrap (macro rows); JSON leaves them out otherwise, CSV leaves
    # the cell empty.
    import csv
    import io

    evaluation, suite = make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS)
    plain = json.loads(render([score(evaluation, suite)], "json"))
    assert all("p_adjusted" not in e and "p_mc_error" not in e
               for r in plain["rows"] for e in r["systems"].values())
    options = ScoreOptions(macro_test="bootstrap", correction="holm", resamples=200)
    scores = score(evaluation, suite, options=options)
    document = json.loads(render([scores], "json"))
    for row in document["rows"]:
        for entry in row["systems"].values():
            if entry["p_value"] is None:  # the best
                assert entry["p_adjusted"] is None
                continue
            assert entry["p_adjusted"] >= entry["p_value"]
            macro = row["level"].endswith("-macro")
            assert ("p_mc_error" in entry) == macro
            if macro:  # sqrt(p (1 − p) / B) of the p-value shown
                p = entry["p_value"]
                assert entry["p_mc_error"] == pytest.approx(math.sqrt(p * (1 - p) / 200))
    lines = list(csv.DictReader(io.StringIO(render([scores], "csv"))))
    macro = [line for line in lines if line["level"] == "category-macro"
             and line["p_value"]]
    assert macro and all(float(line["p_mc_error"]) > 0 and float(line["p_adjusted"]) >= 0
                         for line in macro)
    assert all(line["p_mc_error"] == "" for line in lines if line["level"] == "micro")
    assert scores.signature.get("correction") == "holm-pairs"


def test_the_published_label_measures_which_way_it_errs():
    # Two systems that agree on most items: the published reading (unpaired, pooled
    # proportion over all items) overstates the standard error of their difference; the
    # note on each macro row says so, with the ratio measured on the data. (It said
    # "understates" whatever the data.)
    rng = random.Random(5)
    items = {f"i{k}": (f"Cat {k % 4}", f"P{k % 12}") for k in range(240)}
    first = "".join(rng.choice("pppf") for _ in items)
    second = "".join(c if rng.random() < 0.9 else "f" for c in first)
    scores = score(make_evaluation(items, {"S1": first, "S2": second}), make_suite(items))
    notes = {n.levels: str(n) for n in scores.notes if "published reading" in str(n)}
    assert set(notes) == {("category-macro",), ("phenomenon-macro",)}
    for level, by in (("category-macro", "category"), ("phenomenon-macro", "phenomenon")):
        row = scores.row(level)
        assert row is not None
        n, (a, b) = row.items, row.accuracy
        pooled = (round(a * n) + round(b * n)) / (2 * n)
        published = math.sqrt(pooled * (1 - pooled) * 2 / n)
        matrix = scores.matrix
        labels = [c if by == "category" else (c, p)
                  for c, p in zip(matrix.categories, matrix.phenomena, strict=True)]
        variance, groups = 0.0, sorted(set(labels))
        for group in groups:  # the stratified variance, group by group
            d = [(x == "p") - (y == "p") for x, y, g in zip(first, second, labels, strict=True)
                 if g == group]
            mean = sum(d) / len(d)
            variance += sum((v - mean) ** 2 for v in d) / (len(d) - 1) / len(d)
        ratio = published / (math.sqrt(variance) / len(groups))
        assert ratio > 1.05
        assert f"overstates the standard error ({ratio:.2f}× the stratified one" in \
            notes[(level,)]


def test_no_fair_bounds_of_a_macro_row_are_its_accuracy_to_the_last_bit():
    # 9 phenomena (sizes and passes found by a search): summed along the groups axis the
    # third system's macro-average is 5.6e-17 below the sum of its column, so its lower
    # bound exceeded the accuracy shown. Now both are one exactly rounded sum (and clamped).
    from fractions import Fraction

    from testsuite.stats import macro_average, mean_of

    sizes = [7, 7, 2, 1, 1, 6, 7, 7, 5]
    passes = [[7, 6, 0], [0, 6, 0], [2, 2, 2], [0, 0, 1], [1, 0, 1], [2, 5, 1], [3, 2, 1],
              [7, 6, 1], [5, 5, 1]]
    items, table = {}, {"S1": "", "S2": "", "S3": ""}
    for g, (size, counts) in enumerate(zip(sizes, passes, strict=True)):
        for k in range(size):
            items[f"g{g}i{k}"] = ("Cat", f"P{g}")
            for system, count in zip(table, counts, strict=True):
                table[system] += "p" if k < count else "f"
    scores = score(make_evaluation(items, table), make_suite(items),
                   options=ScoreOptions(fair=False))
    row = scores.row("phenomenon-macro")
    assert row is not None
    for index, system in enumerate(scores.systems):
        column = [Fraction(c[int(system[1]) - 1], n) for c, n in zip(passes, sizes,
                                                                       strict=True)]
        exact = sum(column) / len(column)
        assert abs(row.accuracy[index] - float(exact)) <= 2e-16
        assert row.lower[index] == row.accuracy[index] == row.upper[index]
        assert row.ci_low[index] <= row.accuracy[index] <= row.ci_high[index]
    # The exactly rounded mean does not depend on the order of the groups.
    accuracies = np.array(passes) / np.array(sizes)[:, None]
    groups = np.repeat(np.arange(9), sizes)
    outcomes = np.concatenate([[[k < c for c in counts] for k in range(n)]
                               for n, counts in zip(sizes, passes, strict=True)])
    assert list(macro_average(outcomes, groups)) == [mean_of(accuracies[::-1, s])
                                                     for s in range(3)]


@pytest.mark.parametrize("kind", ["markdown", "latex"])
def test_golden_reports(scores, kind):
    """Re-baseline only on purpose: TESTSUITE_REBASELINE=1 pytest tests/test_scores.py."""
    import os

    text = render([scores], kind)
    golden = GOLDEN / f"scores.{ 'md' if kind == 'markdown' else 'tex'}"
    if os.environ.get("TESTSUITE_REBASELINE"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", ["markdown", "latex"])
def test_notes_read_as_sentences(scores, kind):
    # The notes under a Markdown table and in a LaTeX caption follow one another as
    # sentences, each with a capital: they read "(and no warning)). the category
    # macro-average: …" and "… tests it correctly; Of the 24 passes …".
    text = render([scores], kind)
    notes = [str(n) for n in scores.notes] + [str(scores.coverage)]
    assert any(n[0].islower() for n in notes)  # written in lower case for the terminal
    assert re.search(r"\. [a-z]", text) is None
    assert "; Of the" not in text
    assert "The category macro-average: first cluster by the published reading" in text


def test_latex_compiles(scores, tmp_path):
    text = render([scores], "latex")
    # Structural check, always: balanced environments and escaped specials.
    assert text.count(r"\begin{table*}") == text.count(r"\end{table*}") == 2
    assert text.count(r"\toprule") == text.count(r"\bottomrule") == 2
    assert r"\textbf{75.0}" in text and "Cat A" in text
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: structural check only")
    (tmp_path / "tables.tex").write_text(text, encoding="utf-8")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n"
        "\\usepackage{booktabs,graphicx,colortbl,xcolor}\n\\begin{document}\n"
        "\\input{tables.tex}\n\\end{document}\n", encoding="utf-8")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                             "doc.tex"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


def test_item_analysis():
    analysis = item_analysis(make_evaluation(ITEMS, OUTCOME_TABLE), make_suite(ITEMS))
    flags = dict(zip(analysis["item"], analysis["flag"], strict=True))
    assert flags["a1"] == "all pass"
    assert flags["b3"] == "" or flags["b3"].startswith("negative")
    assert set(analysis["item"]) == {"a1", "a2", "a3", "a4", "a6", "b1", "b2", "b3"}
    a2 = analysis.set_index("item").loc["a2"]
    # a2: S1 and S3 pass, S2 fails. Rest scores (other 7 items): S1 5/7, S2 3/7, S3 3/7.
    # corr([1,0,1], [5/7,3/7,3/7]) = 0.5 (worked out by hand)
    assert (a2["passes"], a2["systems"]) == (2, 3)
    assert a2["discrimination"] == pytest.approx(0.5)


def test_tall_tables_are_split_at_category_boundaries(scores):
    from testsuite.reports.tables import phenomenon_table, split_table

    table = phenomenon_table(scores)  # Cat A, P1, P2, Cat B, P3, micro, macro: 7 rows
    parts = split_table(table, max_rows=4)
    assert [[r.label for r in p.rows] for p in parts] == [
        ["Cat A", "P1", "P2"], ["Cat B", "P3", "micro-average", "phenomenon macro-average"]]
    assert parts[0].title == "Accuracy per phenomenon (de-en), part 1 of 2"
    assert split_table(table) == [table]
