"""The statistics of issue 22 on WMT21 and WMT22 de-en with the DFKI suite, every cell.

Each check recomputes the numbers independently (`tests/reference.py`: scipy, statsmodels,
plain loops) from the outcomes the scores were computed on, and asserts the definitions
the README states. Skips without ../shared/data.
"""

from __future__ import annotations

import numpy as np
import pytest

from testsuite.scoring import ScoreOptions, score

from .reference import decisions, family, mcnemar

pytestmark = pytest.mark.realdata
YEARS = ("wmt21", "wmt22")


@pytest.fixture(scope="module")
def runs(wmt, dfki_suite):
    return {year: (dfki_suite, wmt(year, "de-en")) for year in YEARS}


def rows_with_items(scores):
    """Each row with the outcomes (items × systems, in `scores.systems` order) it was
    scored on, and the group label of each item for macro rows (None otherwise)."""
    matrix, entered = scores.matrix, scores.entered
    order = [matrix.systems.index(s) for s in scores.systems]
    passed = matrix.passed[:, order]
    for row in scores.table_rows:
        if row.level == "micro":
            yield row, passed[entered], None
        elif row.level in ("category-macro", "phenomenon-macro"):
            by = row.level.removesuffix("-macro")
            yield row, passed[entered], matrix.groups(by).codes[entered]
        else:
            members = np.array([c == row.category and (row.level == "category"
                                                       or p == row.phenomenon)
                                for c, p in zip(matrix.categories, matrix.phenomena,
                                                strict=True)])
            yield row, passed[entered & members], None


@pytest.mark.parametrize("year", YEARS)
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh"])
def test_mcnemar_clusters_use_one_family(runs, year, correction):
    suite, evaluation = runs[year]
    scores = score(evaluation, suite, "de-en",
                   ScoreOptions(test="paired", correction=correction, clusters=True))
    assert f"correction:{correction}-pairs" in str(scores.signature)
    cells = 0
    for row, passed, groups in rows_with_items(scores):
        assert row.p_adjusted is not None and row.rank_best is not None
        if groups is not None:
            continue  # macro rows: the stratified test, checked on its own
        raw = mcnemar(passed)
        adjusted = family(list(row.accuracy), raw, correction)
        first, rank, deciding = decisions(list(row.accuracy), adjusted, 0.05)
        assert list(row.first_cluster) == first, row.key
        assert list(row.rank_best) == rank, row.key
        assert np.allclose(row.p_adjusted, deciding, equal_nan=True, rtol=1e-9), row.key
        for i in range(len(scores.systems)):
            cells += 1
            # Never out of the first cluster while the rank range starts at 1; the p-value
            # shown under a correction (the adjusted one) is below α exactly outside it.
            assert row.first_cluster[i] or row.rank_best[i] > 1, (row.key, i)
            if row.first_cluster[i]:
                assert not row.p_adjusted[i] < 0.05, (row.key, i)
            else:
                assert row.p_adjusted[i] < 0.05, (row.key, i)
    assert cells > 1000


def test_polar_question_keeps_no_0_of_6_system_among_6_of_6(runs):
    suite, evaluation = runs["wmt21"]
    scores = score(evaluation, suite, "de-en", ScoreOptions(test="paired", correction="holm",
                                                            clusters=True))
    row = next(r for r in scores.table_rows if r.phenomenon == "Polar question")
    passes = dict(zip(scores.systems, row.passes.tolist(), strict=True))
    assert row.items == 6 and sorted(passes.values()).count(6) == 16
    zero = [s for s, n in passes.items() if n == 0]
    assert zero == ["Manifold"]
    index = scores.systems.index("Manifold")
    assert not row.first_cluster[index]
    assert row.p_adjusted is not None and row.p_adjusted[index] == pytest.approx(3 / 64)
