"""The items behind a number (`scoring.behind`) and the contrast of two systems
(`scoring.contrast`), against counts made here from the outcomes and statsmodels' McNemar."""

from __future__ import annotations

import numpy as np
import pytest

from testsuite.scoring import score
from testsuite.scoring.behind import items_behind, left_out_reasons
from testsuite.scoring.contrast import contrast, pvalue_matrices, row_keys


@pytest.fixture(scope="module")
def wmt21(wmt, dfki_suite):
    evaluation = wmt("wmt21", "de-en")
    return evaluation, score(evaluation, dfki_suite, "de-en")


@pytest.mark.realdata
def test_every_row_stands_on_its_items_behind(wmt21):
    """Each row's #, passes and located count are those of its items behind, counted here."""
    evaluation, scores = wmt21
    results = evaluation.results
    results = results[results["system"].isin(scores.systems)]
    clean = results.groupby("item", observed=True)["outcome"].agg(
        lambda o: len(o) == len(scores.systems) and set(o) <= {"pass", "fail"})
    checked = 0
    for row in scores.table_rows:
        behind = items_behind(scores, row.level, row.category, row.phenomenon)
        part = results
        if row.category:
            part = part[part["category"] == row.category]
        if row.phenomenon:
            part = part[part["phenomenon"] == row.phenomenon]
        located = set(part["item"].astype(str))
        scored = {i for i in located if clean[i]}
        assert set(behind.scored) == scored and len(scored) == row.items
        assert {i for i, _ in behind.left_out} == located - scored
        passes = part[part["item"].isin(scored) & (part["outcome"] == "pass")]
        counted = passes.groupby("system", observed=True).size()
        assert list(behind.passes) == [int(counted.get(s, 0)) for s in scores.systems]
        if row.level in ("category", "phenomenon", "micro"):
            assert list(behind.passes) == row.passes.tolist()
        checked += 1
    assert checked == len(scores.table_rows)
    dropped = items_behind(scores, "phenomenon", "Punctuation", "Quotation marks")
    assert dropped.scored == () and len(dropped.left_out) == 20


@pytest.mark.realdata
def test_left_out_items_say_which_systems_kept_them_out(wmt21):
    evaluation, scores = wmt21
    reasons = left_out_reasons(scores)
    assert len(reasons) == 2748 - 1879
    results = evaluation.results.set_index(["item", "system"])["outcome"]
    for item, why in list(reasons.items())[:200]:
        named = {s for part in why.split("; ") for s in part.split(" ", 2)[-1].split(", ")}
        warned = {s for s in scores.systems if results[(item, s)] in ("warning", "missing")}
        assert named == warned, (item, why)


@pytest.mark.realdata
def test_contrast_counts_and_mcnemar_against_statsmodels(wmt21):
    from statsmodels.stats.contingency_tables import mcnemar

    evaluation, scores = wmt21
    a, b = "Online-W", "Online-B"
    rows = contrast(scores, a, b)
    assert [(r.level, r.category, r.phenomenon) for r in rows] == row_keys(scores)
    results = evaluation.results
    outcome = results.set_index(["item", "system"])["outcome"]
    matrices = pvalue_matrices(scores)
    i, j = scores.systems.index(a), scores.systems.index(b)
    for row, matrix in zip(rows, matrices, strict=True):
        behind = items_behind(scores, "micro" if row.level == "all" else row.level,
                              row.category, row.phenomenon)
        a_only = sum(outcome[(x, a)] == "pass" and outcome[(x, b)] == "fail"
                     for x in behind.scored)
        b_only = sum(outcome[(x, a)] == "fail" and outcome[(x, b)] == "pass"
                     for x in behind.scored)
        assert (row.items, row.a_only, row.b_only) == (len(behind.scored), a_only, b_only)
        if row.items:
            assert row.difference == pytest.approx(
                (behind.passes[i] - behind.passes[j]) / row.items)
            # statsmodels' exact McNemar (two-sided binomial test on the discordant items).
            expected = mcnemar([[0, a_only], [b_only, 0]], exact=True).pvalue
            assert row.p_value == pytest.approx(expected, rel=1e-9)
        assert matrix[i, j] == pytest.approx(row.p_value) and matrix[j, i] == matrix[i, j]
    assert np.isnan(next(r for r in rows if r.phenomenon == "Quotation marks").difference)
    with pytest.raises(ValueError):
        contrast(scores, a, a)
