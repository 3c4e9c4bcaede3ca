"""Errors and problems reported to users: each names the file, line or item concerned."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .words import counted

#: Most characters of one problem as printed: a message may quote text from the data (an id,
#: an output), and a file of one 200 MB line must not become a 200 MB error line.
MAX_PROBLEM_CHARS = 2_000
#: Most problems of one error printed by a command; the rest are counted in one more line
#: (a sheet or an output file for another suite can hold a problem on each of 100,000 lines).
MAX_SHOWN_PROBLEMS = 20


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem found in user input, located as precisely as possible.

    Attributes:
        message: What is wrong and, where it helps, what to do.
        file: The file concerned, if any.
        line: 1-based line in that file, if known.
        item: The item id concerned, if any.
        fatal: False for problems that `lint` reports but that do not stop an evaluation
            (an item without a rule, say: its outputs become warnings).
    """

    message: str
    file: str | None = None
    line: int | None = None
    item: str | None = None
    fatal: bool = True

    def __str__(self) -> str:
        where = self.file or ""
        if self.file and self.line:
            where += f":{self.line}"
        if self.item:
            where += f" (item {self.item})" if where else f"item {self.item}"
        return shorten(f"{where}: {self.message}" if where else self.message)


def shorten(text: str, limit: int = MAX_PROBLEM_CHARS) -> str:
    """`text`, or its start and end with what lies between counted, if longer than `limit`.

    The end is kept as well as the start: a message ends with what to do about it.
    """
    if len(text) <= limit:
        return text
    head, tail = limit * 3 // 4, limit // 5
    return f"{text[:head]}…[{len(text) - head - tail:,} characters left out]…{text[-tail:]}"


def shown(problems: Sequence[Problem], limit: int = MAX_SHOWN_PROBLEMS) -> list[Problem]:
    """The first `limit` problems, and one more that counts the others (if there are)."""
    if len(problems) <= limit:
        return list(problems)
    rest = len(problems) - limit
    return [*problems[:limit], Problem(f"… and {counted(rest, 'more problem')}"
                                       " (fix these, then run again to see the rest)")]


class TestsuiteError(Exception):
    """An input the engine cannot work with; the CLI prints it without a traceback.

    Args:
        problems: One or more problems, or a single message.
    """

    __test__ = False  # not a pytest test class despite the name

    def __init__(self, problems: str | Problem | list[Problem]) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = problems
        super().__init__(problems)

    def __str__(self) -> str:
        # Built when asked for, not when raised: a reader may collect a problem on each of a
        # million lines, and most errors are printed through `shown` instead.
        return "\n".join(str(p) for p in self.problems)


class Stale(TestsuiteError):
    """What an action was prepared on changed before it could be written (another annotator
    wrote meanwhile); nothing was written.

    Attributes:
        diff: One line per thing that changed: ``what: 'seen' → 'now'``.
    """

    def __init__(self, problem: Problem, diff: list[str]) -> None:
        super().__init__(problem)
        self.diff = diff


def check_view(seen: Mapping[str, object], now: Mapping[str, object], what: str, *,
               file: str | None = None, item: str | None = None) -> None:
    """Refuse an action prepared on a view that no longer holds.

    A person decides on what the screen showed (a rule, the outputs of a preview); if that
    changed on disk since, writing would apply the decision to something they never saw.
    Every such check (a rule edit, a batch) compares the view it was made on with the state
    now through this one function, so that all are refused alike, with what changed.

    Args:
        seen: The view as shown: one value per thing the action depends on.
        now: The same things as they are now.
        what: What changed, for the message ("the rule was changed in the file").
        file: The file concerned, if any.
        item: The item concerned, if any.

    Raises:
        Stale: with one line per key whose value differs (in the order of `seen`, then of
            the keys only `now` has).
    """
    missing = object()
    diff = [f"{key}: {_shown(seen.get(key, missing), missing)} → "
            f"{_shown(now.get(key, missing), missing)}"
            for key in dict.fromkeys([*seen, *now])
            if seen.get(key, missing) != now.get(key, missing)]
    if diff:
        raise Stale(Problem(f"{what} since you opened it (by another annotator?); nothing "
                            "was written. Changed: " + "; ".join(diff), file=file, item=item),
                    diff)


def _shown(value: object, missing: object) -> str:
    return "(none)" if value is missing else repr(value)


class TestsuiteWarning(UserWarning):
    """Something the user should know that does not stop the work (the CLI prints it as one
    ``warning:`` line)."""

    __test__ = False


def describe(value: object) -> str:
    """How a value of the wrong kind is named in a message: ``null``, ``a list``, ``'x'``."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true/false"
    names = {list: "a list", tuple: "a list", dict: "a mapping", int: "a number",
             float: "a number"}
    return names.get(type(value), type(value).__name__)
