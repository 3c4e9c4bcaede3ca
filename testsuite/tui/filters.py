"""Which pending warnings the triage queue shows: ``category=… phenomenon=… system=…``."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ..errors import TestsuiteError

FILTER_KEYS = ("category", "phenomenon", "system")


@dataclass(frozen=True)
class Filters:
    """Which entries the queue shows; an empty tuple means no restriction.

    Values are compared case-insensitively, as `pending_warnings` does.
    """

    categories: tuple[str, ...] = ()
    phenomena: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Filters:
        """Read ``category=MWE phenomenon=Idiom system=Online-A,Online-B``.

        A key may be repeated or take comma-separated values; values with spaces are quoted
        (``category="Coordination & ellipsis"``). Empty text clears every filter.

        Raises:
            TestsuiteError: for a word that is not ``key=value`` with a known key.
        """
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise TestsuiteError(f"filter: {exc}") from None
        values: dict[str, list[str]] = {key: [] for key in FILTER_KEYS}
        for word in words:
            key, equals, value = word.partition("=")
            key = key.strip().casefold()
            if not equals or key.rstrip("s") not in values:
                raise TestsuiteError(f"filter: expected key=value with a key among "
                                     f"{', '.join(FILTER_KEYS)}, not {word!r}")
            values[key.rstrip("s")].extend(v.strip() for v in value.split(",") if v.strip())
        return cls(tuple(values["category"]), tuple(values["phenomenon"]),
                   tuple(values["system"]))

    def __str__(self) -> str:
        parts = []
        for key, chosen in zip(FILTER_KEYS, (self.categories, self.phenomena, self.systems),
                               strict=True):
            if chosen:
                parts.append(f"{key}={shlex.quote(','.join(chosen))}")
        return " ".join(parts)
