"""Checks on whole systems: did it translate the suite at all, is it a copy of another?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .model import SystemOutputs

#: A system is "not translated" when more than this share of its outputs for the located
#: items is empty or one repeated line. Real systems repeat a line for a few percent of the
#: items at most (the DFKI suite has many near-identical short sentences); the WMT
#: placeholders (`####`, `NO TRANSLATION AVAILABLE`) fill 100 %.
NOT_TRANSLATED_SHARE = 0.5
#: A line is a placeholder only if it is repeated: a single output is not (a TSV of a
#: system that translated one item used to be left out as "one repeated placeholder").
MIN_PLACEHOLDER_REPEATS = 2


@dataclass(frozen=True, slots=True)
class NotTranslated:
    """Why a system is left out of the scores."""

    system: str
    placeholder: str | None
    count: int
    total: int
    pair: str = ""

    @property
    def what(self) -> str:
        """What its outputs are: "the placeholder '####'", or "empty"."""
        return f"the placeholder {self.placeholder!r}" if self.placeholder else "empty"

    def __str__(self) -> str:
        return (f"{self.system}: {self.count} of {self.total} outputs are {self.what}; "
                "the system did not translate this suite and is left out")


def not_translated(system: SystemOutputs, share: float = NOT_TRANSLATED_SHARE
                   ) -> NotTranslated | None:
    """Return why `system` did not translate the suite, or None if it did.

    It did not if more than `share` of its outputs are empty, or are empty or one line
    repeated for at least `MIN_PLACEHOLDER_REPEATS` items.
    """
    outputs = [o.strip() for o in system.outputs.values()]
    if not outputs:
        return None
    empty = sum(1 for o in outputs if not o)
    if empty > share * len(outputs):
        return NotTranslated(system.system, None, empty, len(outputs), system.pair)
    line, count = Counter(o for o in outputs if o).most_common(1)[0] if empty < len(outputs) \
        else ("", 0)
    if count + empty > share * len(outputs) and count > empty \
            and count >= MIN_PLACEHOLDER_REPEATS:
        return NotTranslated(system.system, line, count, len(outputs), system.pair)
    return None


def identical_systems(systems: Sequence[SystemOutputs]) -> list[tuple[str, ...]]:
    """Groups of systems whose outputs are identical for every item (white space ignored)."""
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for system in systems:
        key = tuple(sorted((i, o.strip()) for i, o in system.outputs.items()))
        groups.setdefault(key, []).append(system.system)
    return [tuple(names) for names in groups.values() if len(names) > 1]
