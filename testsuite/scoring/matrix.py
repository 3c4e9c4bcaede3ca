"""The outcome matrix: items × systems of one language pair, built once from an evaluation.

Everything that scores (the paper tables, item analysis, the year-over-year comparison, the
triage queue's impact order) reads outcomes through an `OutcomeMatrix`; it is the only
place that

* filters by category, phenomenon and system name (`names.pick`: case-insensitive, unknown
  names are an error listing the known ones);
* applies the fairness rule (`entered`);
* groups items into rows (`groups`: a phenomenon is always identified by its category *and*
  name, so two categories may share a phenomenon name without being merged);
* counts passes per row (`group_passes`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..errors import TestsuiteError
from ..matching import REASON_PROPOSAL, REASON_VERDICT
from ..names import pick

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from ..model import Suite

#: Outcome codes in the matrix (``MISSING`` also stands for "no output at all").
PASS, FAIL, WARNING, MISSING = 0, 1, 2, 3
CODES = {"pass": PASS, "fail": FAIL, "warning": WARNING, "missing": MISSING}
#: Who decided a pass or fail (`OutcomeMatrix.by`): the rule, a person's verdict on that
#: output, or a verdict recorded from a proposal (its reason, `matching.REASON_*`).
BY_RULE, BY_HAND, BY_PROPOSAL = 0, 1, 2
DECIDERS = ("rule", "hand", "proposal")


@dataclass(frozen=True)
class Groups:
    """Items grouped into the rows of one level.

    Attributes:
        keys: (category, phenomenon) of each group; phenomenon is "" for category groups.
        codes: Group index of each item.
    """

    keys: list[tuple[str, str]]
    codes: npt.NDArray[np.intp]

    def sizes(self, mask: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.int64]:
        """Items per group (only those where `mask` is true)."""
        codes = self.codes if mask is None else self.codes[mask]
        return np.bincount(codes, minlength=len(self.keys)).astype(np.int64)


@dataclass(frozen=True, eq=False)
class OutcomeMatrix:
    """Outcomes of the located items of one pair (rows) for each system (columns).

    Attributes:
        pair: Language pair.
        items: Ids of the located items, in suite order.
        systems: System names, in evaluation order.
        codes: Items × systems outcome codes (`PASS`, `FAIL`, `WARNING`, `MISSING`); a system
            with no output for a located item counts as `MISSING`.
        categories: Category of each item.
        phenomena: Phenomenon of each item.
        not_located: (id, category, phenomenon) of the suite's items (after the filters) that
            no system has an output for (not in that year's WMT source, say).
        suite_categories: Categories of the suite in order (for filter messages).
        suite_phenomena: Phenomena of the suite in order.
        normalise: The typographic normalisation the outcomes were judged under, if any.
        by: Items × systems: who decided each pass or fail (`BY_RULE`, `BY_HAND`,
            `BY_PROPOSAL`), from the outcomes' reasons; None when not known.
    """

    pair: str
    items: list[str]
    systems: list[str]
    codes: npt.NDArray[np.int8]
    categories: list[str]
    phenomena: list[str]
    not_located: list[tuple[str, str, str]]
    suite_categories: list[str] = field(default_factory=list)
    suite_phenomena: list[str] = field(default_factory=list)
    normalise: str | None = None
    by: npt.NDArray[np.int8] | None = None

    @classmethod
    def from_evaluation(cls, evaluation: Evaluation, suite: Suite | None,
                        pair: str | None = None) -> OutcomeMatrix:
        """The matrix of one pair of an evaluation (the only pair if `pair` is None).

        Items are in suite order; without a suite, in the order of the evaluation (then
        nothing is known of items no system has an output for).

        Raises:
            TestsuiteError: for an unknown pair or an evaluation with several and no choice.
        """
        pairs = evaluation.pairs
        if pair is None:
            if len(pairs) != 1:
                raise TestsuiteError(f"the evaluation has several pairs ({', '.join(pairs)}): "
                                     "choose one")
            pair = pairs[0]
        if pair not in pairs:
            raise TestsuiteError(f"no outcomes for {pair} (the evaluation has: "
                                 f"{', '.join(pairs) or 'none'})")
        columns = evaluation.columns
        if suite is not None:
            known = [(i.id, i.category, i.phenomenon) for i in suite.items_of(pair)]
        else:
            found: dict[str, tuple[str, str, str]] = {}
            for item, item_pair, category, phenomenon in zip(
                    columns["item"], columns["pair"], columns["category"],
                    columns["phenomenon"], strict=True):
                if item_pair == pair and item not in found:
                    found[item] = (item, category, phenomenon)
            known = list(found.values())
        position = {entry[0]: index for index, entry in enumerate(known)}
        order = {s: index for index, s in enumerate(evaluation.systems)}
        # Column by column (list comprehensions, not one Python loop over ~50,000 rows).
        same_pair = [p == pair for p in columns["pair"]]
        rows = np.array([position.get(i, -1) for i in columns["item"]], dtype=np.intp)
        seen: dict[str, int] = {}
        cols = np.array([seen.setdefault(s, len(seen)) for s in columns["system"]],
                        dtype=np.intp)
        values = np.array([CODES[o] for o in columns["outcome"]], dtype=np.int8)
        deciders = {REASON_VERDICT: BY_HAND, REASON_PROPOSAL: BY_PROPOSAL}
        by_values = np.array([deciders.get(r, BY_RULE) for r in columns["reason"]],
                             dtype=np.int8)
        use = (rows >= 0) & np.asarray(same_pair, dtype=bool)
        present = set(cols[use].tolist())
        names = sorted((s for s, k in seen.items() if k in present),
                       key=lambda s: (order.get(s, len(order)), seen[s]))
        where = np.full(len(seen), -1, dtype=np.intp)
        for index, name in enumerate(names):
            where[seen[name]] = index
        located = np.zeros(len(known), dtype=bool)
        full = np.full((len(known), len(names)), MISSING, dtype=np.int8)
        located[rows[use]] = True
        full[rows[use], where[cols[use]]] = values[use]
        by = np.full((len(known), len(names)), BY_RULE, dtype=np.int8)
        by[rows[use], where[cols[use]]] = by_values[use]
        keep = np.flatnonzero(located)
        return cls(pair, [known[i][0] for i in keep], names, full[keep],
                   [known[i][1] for i in keep], [known[i][2] for i in keep],
                   [entry for entry, found_ in zip(known, located, strict=True) if not found_],
                   list(dict.fromkeys(entry[1] for entry in known)),
                   list(dict.fromkeys(entry[2] for entry in known)), evaluation.normalise,
                   by[keep])

    def renamed(self, systems: list[str]) -> OutcomeMatrix:
        """The same matrix with other system names (one per column)."""
        return replace(self, systems=list(systems))

    def aligned(self, items: list[str], systems: list[str]) -> OutcomeMatrix:
        """The matrix on these items and systems (each must be in it), in this order."""
        position = {item: index for index, item in enumerate(self.items)}
        rows = [position[i] for i in items]
        columns = [self.systems.index(s) for s in systems]
        take = np.ix_(np.asarray(rows, dtype=np.intp), np.asarray(columns, dtype=np.intp))
        codes = self.codes[take]
        return replace(self, items=list(items), systems=list(systems), codes=codes,
                       by=self.by[take] if self.by is not None else None,
                       categories=[self.categories[r] for r in rows],
                       phenomena=[self.phenomena[r] for r in rows], not_located=[])

    def select(self, categories: Iterable[str] | None = None,
               phenomena: Iterable[str] | None = None,
               systems: Iterable[str] | None = None) -> OutcomeMatrix:
        """The matrix restricted to some categories, phenomena and systems (names matched
        case-insensitively; unknown names are an error)."""
        chosen_categories = set(pick(self.suite_categories, categories, "category"))
        chosen_phenomena = set(pick(self.suite_phenomena, phenomena, "phenomenon"))
        chosen_systems = pick(self.systems, systems, "system")
        rows = np.array([c in chosen_categories and p in chosen_phenomena
                         for c, p in zip(self.categories, self.phenomena, strict=True)],
                        dtype=bool)
        columns = [self.systems.index(s) for s in chosen_systems]
        return OutcomeMatrix(self.pair, [i for i, k in zip(self.items, rows, strict=True) if k],
                             chosen_systems, self.codes[rows][:, columns],
                             [c for c, k in zip(self.categories, rows, strict=True) if k],
                             [p for p, k in zip(self.phenomena, rows, strict=True) if k],
                             [entry for entry in self.not_located
                              if entry[1] in chosen_categories and entry[2] in chosen_phenomena],
                             self.suite_categories, self.suite_phenomena, self.normalise,
                             self.by[rows][:, columns] if self.by is not None else None)

    @property
    def suite_items(self) -> int:
        """Items of the suite (after the filters), located or not."""
        return len(self.items) + len(self.not_located)

    # --- what the fairness rule and the scores need -----------------------------------------

    def deciders(self, mask: npt.NDArray[np.bool_]) -> dict[str, int] | None:
        """How many passes and fails of the items where `mask` is true were decided by the
        rules, by hand and by proposals (`DECIDERS`); None when the matrix does not know."""
        if self.by is None:
            return None
        decided = np.isin(self.codes[mask], (PASS, FAIL))
        counts = np.bincount(self.by[mask][decided], minlength=len(DECIDERS))
        return {name: int(n) for name, n in zip(DECIDERS, counts, strict=True)}

    @property
    def passed(self) -> npt.NDArray[np.bool_]:
        """Items × systems: True where the system passed."""
        return np.asarray(self.codes == PASS)

    def has(self, code: int) -> npt.NDArray[np.bool_]:
        """Items × systems: True where the outcome is `code`."""
        return np.asarray(self.codes == code)

    def entered(self, fair: bool = True) -> npt.NDArray[np.bool_]:
        """Items that enter the scores: with the fairness rule (the published default) those
        without a warning or missing output for any system; without it, every located item."""
        if not fair:
            return np.ones(len(self.items), dtype=bool)
        return np.asarray(~np.isin(self.codes, (WARNING, MISSING)).any(axis=1))

    def groups(self, level: str) -> Groups:
        """Items grouped by ``category`` or by ``phenomenon`` (within its category)."""
        if level == "category":
            keys = [(c, "") for c in self.categories]
        elif level == "phenomenon":
            keys = list(zip(self.categories, self.phenomena, strict=True))
        else:
            raise ValueError(f"no groups at level {level!r}")
        index: dict[tuple[str, str], int] = {}
        codes = np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.intp)
        return Groups(list(index), codes)

    def group_passes(self, groups: Groups, mask: npt.NDArray[np.bool_]
                     ) -> npt.NDArray[np.int64]:
        """Groups × systems: passes over the items where `mask` is true."""
        passed = self.passed[mask].astype(np.int64)
        codes = groups.codes[mask]
        out = np.zeros((len(groups.keys), len(self.systems)), dtype=np.int64)
        np.add.at(out, codes, passed)
        return out
