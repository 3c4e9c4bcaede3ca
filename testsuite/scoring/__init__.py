"""The scoring core: one outcome matrix, the fairness rule, accuracies, averages, clusters.

Every consumer (`testsuite score`, item analysis, `compare`, the reports) is a thin user of
this package: `OutcomeMatrix` holds the outcomes and owns name filters, the fairness rule
and grouping; `score` turns it into `Scores`; `Signature` says how.
"""

from ..names import pick
from ..stats import MACRO_TESTS, TESTS
from .items import item_analysis
from .matrix import OutcomeMatrix
from .scores import (
    LEVELS,
    Coverage,
    Dropped,
    Note,
    ScoreOptions,
    ScoreRow,
    Scores,
    score,
    score_matrix,
)
from .signature import Signature, suite_hash

__all__ = ["LEVELS", "MACRO_TESTS", "TESTS", "Coverage", "Dropped", "Note", "OutcomeMatrix",
           "ScoreOptions", "ScoreRow", "Scores", "Signature", "item_analysis", "pick", "score",
           "score_matrix", "suite_hash"]
