"""Batch decisions: one verdict on every pending output of an item or phenomenon that matches.

A batch is a person's own proposal (`testsuite.verdicts.proposals.Proposal`, made ``pattern``):
a scope (one item, or every item of a phenomenon), a pattern (a regex searched in the
output, or a literal phrase) and a verdict. `select` lists what it would decide (the
preview); `apply` records the verdicts of any proposal at once (one locked, atomic write per
verdicts file), each carrying the proposal's id, and the caller keeps them to take them back
as one (`undo`); ``testsuite revoke ID`` takes them back later.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import regex

from ..errors import TestsuiteError
from ..model import VERDICTS, Suite, Verdict
from ..names import pick
from .proposals import Decided, Proposal, escape
from .queue import Pending, decide_many
from .store import make_verdict, remove_many


def compile_pattern(pattern: str, literal: bool, what: str = "batch pattern"
                    ) -> regex.Pattern[str] | None:
    """The pattern to search (None: everything).

    Raises:
        TestsuiteError: if a regex does not compile.
    """
    if not pattern:
        return None
    try:
        return regex.compile(escape(pattern) if literal else pattern)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise TestsuiteError(f"the {what} does not compile: {exc}") from None


def select(pending: Iterable[Pending], verdict: str, pattern: str = "", *,
           item: str | None = None, phenomenon: str | None = None,
           literal: bool = False, source: str = "") -> Proposal:
    """The pending outputs a batch would decide (its preview).

    Args:
        pending: The pending decisions (a queue).
        verdict: ``pass`` or ``fail``.
        pattern: Regex (or, with `literal`, a phrase) the output must contain; empty: all.
        item: Only this item.
        phenomenon: Only items of this phenomenon (case-insensitive).
        literal: Take `pattern` as a phrase, not a regex.
        source: Only items whose source this regex finds (empty: any).

    Raises:
        TestsuiteError: for a bad verdict, a pattern that does not compile, or no scope.
    """
    if verdict not in VERDICTS:
        raise TestsuiteError(f"a verdict is 'pass' or 'fail', not {verdict!r}")
    if item is None and phenomenon is None:
        raise TestsuiteError("a batch needs a scope: an item or a phenomenon")
    compiled = compile_pattern(pattern, literal)
    in_source = compile_pattern(source, False, "source pattern")
    pending = list(pending)
    if phenomenon is not None:  # as the suite spells it (names.pick: any case)
        [phenomenon] = pick(list(dict.fromkeys(e.phenomenon for e in pending)) or [phenomenon],
                            [phenomenon], "phenomenon with pending outputs")
    chosen = []
    pair = ""
    for entry in pending:
        if item is not None and entry.item != item:
            continue
        if phenomenon is not None and entry.phenomenon != phenomenon:
            continue
        if compiled is not None and compiled.search(entry.output, timeout=1.0) is None:
            continue
        if in_source is not None and in_source.search(entry.source, timeout=1.0) is None:
            continue
        pair = entry.pair
        chosen.append((entry.item, Decided(entry.output, entry.systems, verdict)))
    scope = f"item {item}" if item is not None else f"phenomenon {phenomenon}"
    return Proposal(pair, verdict, "pattern", scope,
                    escape(pattern) if literal and pattern else pattern, tuple(chosen),
                    source=source)


def apply(suite: Suite, proposal: Proposal, annotator: str | None = None,
          note: str | None = None) -> list[tuple[Path, str, Verdict]]:
    """Record every verdict of a proposal, each with its id (per verdicts file: one atomic
    write, all or none).

    Returns:
        (file, item, verdict) of each recorded verdict, for `undo`.
    """
    return decide_many(suite, ((proposal.pair, item_id, make_verdict(
        decided.output, proposal.verdict, annotator, note, proposal=proposal.id))
        for item_id, decided in proposal.decides))


def undo(recorded: Sequence[tuple[Path, str, Verdict]]) -> int:
    """Take back the verdicts of a batch; returns how many were still there."""
    by_file: dict[Path, list[tuple[str, Verdict]]] = {}
    for path, item_id, verdict in recorded:
        by_file.setdefault(path, []).append((item_id, verdict))
    return sum(remove_many(path, decisions) for path, decisions in by_file.items())
