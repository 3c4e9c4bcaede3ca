"""Suggestions: the proposals the decided outputs carry, gathered from judged outputs.

What a phenomenon's items already say — every distinct output judged ``pass`` or ``fail``
by its rule or by a person — is what proposals are learned from
(`testsuite.verdicts.proposals.Phenomenon.learn`); the pending outputs are what they may
decide. `Suggestions` gathers both from judged rows (an evaluation's, or a triage session's)
and keeps one learner per phenomenon, since a learner remembers what it worked out of the
outputs (their templates, the changes between them), which do not change while the verdicts
do. The triage UI, ``testsuite suggest`` and ``testsuite export`` (its suggested verdicts)
all ask it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from ..model import Suite
from .proposals import DEFAULT, Phenomenon, PreviewRow, Proposal, Settings
from .queue import Pending, Row


class Suggestions:
    """Proposals per phenomenon from judged rows and pending entries.

    Args:
        suite: The suite (the items' phenomena and sources).
        settings: What carries a proposal (`proposals.Settings`).
    """

    def __init__(self, suite: Suite, settings: Settings = DEFAULT) -> None:
        self.suite = suite
        self.settings = settings
        self._learners: dict[tuple[str, str], Phenomenon] = {}

    def learner(self, pair: str, phenomenon: str, rows: Mapping[tuple[str, str], Sequence[Row]]
                ) -> Phenomenon:
        """The learner of one phenomenon, made once from every output of its items."""
        key = (pair, phenomenon)
        found = self._learners.get(key)
        if found is None:
            items = [item for item in self.suite.items_of(pair) if item.phenomenon == phenomenon]
            outputs = {item.id: [r[3].strip() for r in rows.get((pair, item.id), ())
                                 if r[3].strip()] for item in items}
            found = self._learners[key] = Phenomenon(
                pair, phenomenon, outputs, {item.id: item.source for item in items},
                self.settings)
        return found

    def learn(self, pair: str, phenomenon: str, rows: Mapping[tuple[str, str], Sequence[Row]],
              pending: Iterable[Pending], rejected: Collection[str] = ()) -> list[Proposal]:
        """The proposals of one phenomenon, most outcomes decided first.

        Args:
            pair: Language pair.
            phenomenon: The phenomenon, as the suite spells it.
            rows: (pair, item) → every judged output of the item (`queue.Row`); those judged
                pass or fail (by a rule or a verdict) are what is learned from.
            pending: Pending entries (`queue.Pending`); those of the phenomenon may be
                decided.
            rejected: Ids of proposals not to offer again.
        """
        learner = self.learner(pair, phenomenon, rows)
        judged: dict[str, dict[str, str]] = {}
        for item in learner.items:
            for row in rows.get((pair, item), ()):
                if row[4] in ("pass", "fail") and row[3].strip():
                    judged.setdefault(item, {})[row[3].strip()] = row[4]
        waiting: dict[str, dict[str, Sequence[str]]] = {}
        for entry in pending:
            if entry.pair == pair and entry.phenomenon == phenomenon:
                waiting.setdefault(entry.item, {})[entry.output] = entry.systems
        return learner.learn(judged, waiting, rejected)

    def every(self, rows: Mapping[tuple[str, str], Sequence[Row]], pending: Sequence[Pending]
              ) -> list[Proposal]:
        """The proposals of every phenomenon with pending outputs (`learn`), phenomenon by
        phenomenon in the order of `pending`, most outcomes decided first within each."""
        return [proposal for pair, name in dict.fromkeys((e.pair, e.phenomenon) for e in pending)
                for proposal in self.learn(pair, name, rows, pending)]

    def rows_of(self, proposal: Proposal, rows: Mapping[tuple[str, str], Sequence[Row]]
                ) -> list[PreviewRow]:
        """The preview rows of a proposal (`Phenomenon.rows`); a person's pattern is
        compared with the decided outputs of its verdict in its scope."""
        phenomenon = self._phenomenon_of(proposal)
        learner = self.learner(proposal.pair, phenomenon, rows)
        reference = [] if proposal.evidence else [
            r[3].strip() for item in proposal.items for r in rows.get((proposal.pair, item), ())
            if r[4] == proposal.verdict]
        return learner.rows(proposal, reference)

    def _phenomenon_of(self, proposal: Proposal) -> str:
        item = self.suite.items[(proposal.pair, proposal.decides[0][0])] if proposal.decides \
            else None
        return item.phenomenon if item is not None else proposal.scope.split(" ", 1)[-1]


def by_item(rows: Iterable[Row]) -> dict[tuple[str, str], list[Row]]:
    """Judged rows grouped by (pair, item), as `Suggestions` takes them."""
    found: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        found.setdefault((row[0], row[1]), []).append(row)
    return found
