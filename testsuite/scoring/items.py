"""Item analysis for suite maintainers: which items separate systems, which cannot."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import TestsuiteError
from .matrix import OutcomeMatrix

if TYPE_CHECKING:
    import pandas as pd

    from ..evaluate import Evaluation
    from ..model import Suite
    from .scores import ScoreOptions

COLUMNS = ["item", "category", "phenomenon", "passes", "systems", "pass_rate",
           "discrimination", "flag"]


def item_analysis(evaluation: Evaluation, suite: Suite, pair: str | None = None,
                  options: ScoreOptions | None = None) -> pd.DataFrame:
    """How each item behaves across systems, over the items that enter the scores.

    The items, systems and fairness rule are those of `score` with the same options (one
    implementation: `OutcomeMatrix`). Per item: how many systems pass it, whether every
    system or none does (such items cannot separate systems), and its *discrimination*:
    the corrected item–total correlation of classical test theory, i.e. the correlation over
    systems between passing this item and the system's accuracy on all other items. High
    values mean the item separates stronger from weaker systems; values near zero or
    negative flag items whose rule or source may need a look.

    Returns:
        One row per item: item, category, phenomenon, passes, systems, pass_rate,
        discrimination (NaN when every or no system passes), flag.

    Raises:
        TestsuiteError: for unknown names, or when no system is left to analyse.
    """
    import pandas as pd

    from .scores import ScoreOptions, refuse_left_out

    options = options or ScoreOptions()
    matrix = OutcomeMatrix.from_evaluation(evaluation, suite, pair)
    refuse_left_out(evaluation, matrix.pair, options.systems)
    matrix = matrix.select(options.categories, options.phenomena, options.systems)
    if not matrix.systems:
        raise TestsuiteError(f"{matrix.pair}: no system to analyse (every system was left "
                             "out: none translated the suite)")
    entered = matrix.entered(options.fair)
    passed = matrix.passed[entered].astype(float)  # items × systems
    ids = [i for i, keep in zip(matrix.items, entered, strict=True) if keep]
    categories = [c for c, keep in zip(matrix.categories, entered, strict=True) if keep]
    phenomena = [p for p, keep in zip(matrix.phenomena, entered, strict=True) if keep]
    totals = passed.sum(axis=0)
    systems = passed.shape[1]
    rows = []
    for index, item_id in enumerate(ids):
        vector = passed[index]
        rest = (totals - vector) / max(len(ids) - 1, 1)
        spread = vector.std() > 0 and rest.std() > 0
        discrimination = float(np.corrcoef(vector, rest)[0, 1]) if spread else float("nan")
        count = int(vector.sum())
        flag = ("all pass" if count == systems else "none pass" if count == 0
                else "negative discrimination" if discrimination < 0 else "")
        rows.append({"item": item_id, "category": categories[index],
                     "phenomenon": phenomena[index], "passes": count, "systems": systems,
                     "pass_rate": count / systems, "discrimination": discrimination,
                     "flag": flag})
    return pd.DataFrame(rows, columns=COLUMNS)
