"""Choosing categories, phenomena and systems by name: the one name filter.

Every command and the triage UI match the names a user types the same way: case-insensitive
(``mwe`` is ``MWE``), exact otherwise, and an unknown name is an error that lists the known
ones — never a silent empty selection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import TestsuiteError


def pick(available: Sequence[str], wanted: Iterable[str] | None, what: str) -> list[str]:
    """Apply a name filter: the names of `available` that `wanted` names, in their order.

    Without `wanted` (None or empty), everything.

    Raises:
        TestsuiteError: naming the unknown names and the known ones.
    """
    chosen = list(wanted or ())
    if not chosen:
        return list(available)
    by_key = {name.casefold(): name for name in available}
    unknown = [w for w in chosen if w.casefold() not in by_key]
    if unknown:
        raise TestsuiteError(f"unknown {what}: {', '.join(unknown)} (known: "
                             f"{', '.join(dict.fromkeys(available))})")
    keep = {by_key[w.casefold()] for w in chosen}
    return [name for name in available if name in keep]
