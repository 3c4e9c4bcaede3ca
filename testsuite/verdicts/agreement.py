"""Annotator agreement: a blind re-decision of a random sample, raw agreement and Cohen's κ.

The published method had several annotators; verdicts carry who decided. A second annotator
re-decides a random sample of outputs the first one decided, without seeing the first
verdict (`blind_sample`, exported as a spreadsheet by `testsuite export --sample`). Their
verdicts go into the same verdicts files, where a contradicting one is a disagreement to
settle, never a silent overwrite. `agreement` then compares the two annotators' latest
verdicts on every output both decided, per category: raw agreement and Cohen's κ (Cohen
1960: κ = (pₒ − pₑ) / (1 − pₑ), pₑ from each annotator's own pass/fail proportions).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..model import Suite, Verdict
from ..values import count
from .conflicts import with_verdicts


@dataclass(frozen=True)
class SampleEntry:
    """An output to re-decide blind (the first verdict is not part of it)."""

    pair: str
    item: str
    category: str
    phenomenon: str
    source: str
    output: str


def _latest(verdicts: Sequence[Verdict], annotator: str) -> dict[str, str]:
    """Each output's latest verdict by `annotator`: the one in force, or, on an output
    someone else settled since, the annotator's own last word."""
    return {v.output.strip(): v.verdict for v in verdicts if v.annotator == annotator}


def blind_sample(suite: Suite, second: str, size: int, seed: int, *,
                 first: str | None = None, pair: str | None = None) -> list[SampleEntry]:
    """A random sample of decided outputs for `second` to re-decide without seeing them.

    Args:
        suite: The suite with its verdicts.
        second: Who re-decides; outputs they decided already are left out.
        size: How many outputs (fewer if fewer were decided).
        seed: Seed of the random choice (the same seed gives the same sample).
        first: Only outputs decided by this annotator (default: anyone but `second`).
        pair: Only this language pair.
    """
    size = count(size, "size", 1)
    seed = count(seed, "seed")
    candidates = []
    for item, rule in with_verdicts(suite, pair):
        decided_by_second = {v.output.strip() for v in rule.verdicts if v.annotator == second}
        outputs = sorted({v.output.strip() for v in rule.verdicts
                          if v.annotator != second and (first is None or v.annotator == first)})
        for output in outputs:
            if output not in decided_by_second:
                candidates.append(SampleEntry(item.pair, item.id, item.category,
                                              item.phenomenon, item.source, output))
    chosen = random.Random(seed).sample(candidates, min(size, len(candidates)))
    return sorted(chosen, key=lambda e: (e.pair, e.item, e.output))


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float:
    """Cohen's κ of two annotators' labels on the same outputs (NaN when undefined:
    both gave one and the same label to everything, so chance agreement is 1)."""
    n = len(pairs)
    if not n:
        return float("nan")
    observed = sum(a == b for a, b in pairs) / n
    labels = {label for pair in pairs for label in pair}
    expected = sum((sum(a == label for a, _ in pairs) / n)
                   * (sum(b == label for _, b in pairs) / n) for label in labels)
    if expected >= 1.0:
        return float("nan")
    return (observed - expected) / (1.0 - expected)


@dataclass(frozen=True)
class AgreementRow:
    """Agreement on the outputs of one category (or ``all``)."""

    category: str
    outputs: int
    agreed: int
    kappa: float

    @property
    def raw(self) -> float:
        """Share of outputs both decided the same way."""
        return self.agreed / self.outputs if self.outputs else float("nan")


@dataclass
class Agreement:
    """Two annotators' agreement, per category and over all, with their disagreements."""

    first: str
    second: str
    rows: list[AgreementRow] = field(default_factory=list)
    disagreements: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    """(pair, item, output, first's verdict, second's verdict)."""


def agreement(suite: Suite, first: str, second: str, pair: str | None = None) -> Agreement:
    """Raw agreement and Cohen's κ between two annotators, per category and over all."""
    result = Agreement(first, second)
    by_category: dict[str, list[tuple[str, str]]] = {}
    everything: list[tuple[str, str]] = []
    for item, rule in with_verdicts(suite, pair):
        a, b = _latest(rule.verdicts, first), _latest(rule.verdicts, second)
        for output in sorted(a.keys() & b.keys()):
            labels = (a[output], b[output])
            by_category.setdefault(item.category, []).append(labels)
            everything.append(labels)
            if labels[0] != labels[1]:
                result.disagreements.append((item.pair, item.id, output, *labels))
    for category, pairs in sorted(by_category.items()):
        result.rows.append(AgreementRow(category, len(pairs), sum(x == y for x, y in pairs),
                                        cohen_kappa(pairs)))
    result.rows.append(AgreementRow("all", len(everything),
                                    sum(x == y for x, y in everything),
                                    cohen_kappa(everything)))
    return result
