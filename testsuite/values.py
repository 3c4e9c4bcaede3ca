"""Checks of the numbers a user sets: time limits, significance levels, counts, seeds.

One check per kind of value, used by the library where the value is used (so that Python
callers are protected too) and by the command line's option parsers (``cli._common``), so
that both refuse the same values with the same words. A wrong value is never clamped or
ignored: ``timeout=0`` would silently turn almost every outcome into a warning, and a
negative or NaN time limit would remove the limit.
"""

from __future__ import annotations

import math

from .errors import TestsuiteError

#: Longest per-match regex time limit accepted, in seconds. The `regex` module overflows
#: on huge limits (1e300 times out at once); a day is far beyond any useful limit.
MAX_SECONDS = 86_400.0


class BadValue(TestsuiteError, ValueError):
    """A setting outside its range. Also a `ValueError`, as Python callers expect.

    Args:
        name: The setting, as the caller knows it (``timeout``, ``alpha``).
        requirement: What it must be, e.g. ``must be between 0 and 1``.
        value: The value given.
    """

    def __init__(self, name: str, requirement: str, value: object) -> None:
        self.name = name
        self.requirement = requirement
        super().__init__(f"{name} {requirement}, not {value!r}")


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadValue(name, "must be a number", value)
    return float(value)


def seconds(value: object, name: str = "timeout") -> float:
    """A time limit: more than 0 and at most `MAX_SECONDS` seconds (so not NaN or inf).

    Raises:
        BadValue: otherwise.
    """
    number = _number(value, name)
    if not 0 < number <= MAX_SECONDS:  # False for NaN as well
        raise BadValue(name, f"must be a number of seconds above 0 and at most "
                       f"{MAX_SECONDS:,.0f}", value)
    return number


def probability(value: object, name: str = "alpha") -> float:
    """A significance level: strictly between 0 and 1 (0 finds nothing, 1 everything).

    Raises:
        BadValue: otherwise (NaN included).
    """
    number = _number(value, name)
    if not 0 < number < 1:
        raise BadValue(name, "must be between 0 and 1 (exclusive)", value)
    return number


def count(value: object, name: str, minimum: int = 0) -> int:
    """A whole number of at least `minimum` (resamples, items to list, a seed).

    Raises:
        BadValue: otherwise.
    """
    whole: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        whole = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        whole = int(value)
    if whole is None:
        raise BadValue(name, "must be a whole number", value)
    if whole < minimum:
        raise BadValue(name, f"must be a whole number of at least {minimum}", value)
    return whole


def choice(value: object, allowed: tuple[object, ...], name: str) -> object:
    """One of a fixed set of values (a test, a correction, a format).

    Raises:
        BadValue: naming the allowed ones.
    """
    if value not in allowed:
        names = ", ".join(str(a) for a in allowed if a is not None)
        raise BadValue(name, f"must be one of {names}", value)
    return value
