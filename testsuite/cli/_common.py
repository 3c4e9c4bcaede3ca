"""Shared pieces of the command line: the typer app, option types and error handling.

Exit status of every command: 0 done, 1 an input the engine cannot use (each problem printed
as one ``error:`` line naming the file, line or item), 2 a wrong command line (an unknown
option, or a value out of range such as ``--alpha 1.5``), 130 interrupted. Never a traceback.
"""


from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

app = typer.Typer(
    name="testsuite",
    help="Linguistically motivated test suites for machine translation: evaluate MT outputs "
    "phenomenon by phenomenon (pass / fail / warning / missing).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])

SuiteOption = Annotated[
    list[Path] | None,
    typer.Option("--suite", "-s", help="Suite and rules files or folders (repeatable). "
                 "Default: the bundled suites.", show_default=False),
]
PairOption = Annotated[
    str | None, typer.Option("--pair", "-p", help="Language pair, e.g. de-en.", show_default=False)
]
OutputsArgument = Annotated[list[Path], typer.Argument(
    help="System outputs: files, folders of hypothesis files, or a WMT txt-ts folder.")]
SourceOption = Annotated[Path | None, typer.Option(
    help="WMT source file the hypotheses translate (items are located in it).",
    show_default=False)]
IdsOption = Annotated[Path | None, typer.Option(
    help="Item ids of aligned text files (default: the order of `testsuite sources`).",
    show_default=False)]
def _checked(check: Callable[[Any], Any], convert: Callable[[str], Any], kind: str
             ) -> Callable[[str], Any]:
    """An option parser that converts the text and checks it with a `values` check, so the
    command line refuses exactly what the library refuses (exit status 2, typer's message)."""

    def parse(text: str) -> Any:
        from ..values import BadValue

        if not isinstance(text, str):  # typer passes defaults through the parser too
            return text
        try:
            value = convert(text)
        except ValueError:
            raise typer.BadParameter(f"must be {kind}, not {text!r}") from None
        try:
            return check(value)
        except BadValue as exc:
            raise typer.BadParameter(f"{exc.requirement}, not {text}") from None

    return parse


def _seconds(value: float) -> float:
    from ..values import seconds

    return seconds(value)


def _probability(value: float) -> float:
    from ..values import probability

    return probability(value)


def _at_least(minimum: int) -> Callable[[int], int]:
    def check(value: int) -> int:
        from ..values import count

        return count(value, "value", minimum)

    return check


#: Option parsers for numbers, checked as the library checks them (`testsuite.values`).
parse_seconds = _checked(_seconds, float, "a number of seconds")
parse_probability = _checked(_probability, float, "a number between 0 and 1")
parse_count = _checked(_at_least(0), int, "a whole number")
parse_positive = _checked(_at_least(1), int, "a whole number")

TimeoutOption = Annotated[float, typer.Option(
    help="Per-match regex time limit, seconds.", parser=parse_seconds, metavar="SECONDS")]
EncodingOption = Annotated[str, typer.Option(help="Encoding of the output files.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
CategoryOption = Annotated[list[str] | None, typer.Option(
    help="Only this category (repeatable).", show_default=False)]
PhenomenonOption = Annotated[list[str] | None, typer.Option(
    help="Only this phenomenon (repeatable).", show_default=False)]
SystemOption = Annotated[list[str] | None, typer.Option(
    help="Only this system (repeatable).", show_default=False)]


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    # soft_wrap: messages carry paths and sentences that must not be broken across lines.
    # emoji=False: Rich would turn "file:100:" into "file💯" (text from data is escaped with
    # `_escape`, but emoji codes are not markup and survive escaping).
    return Console(stderr=stderr, highlight=False, soft_wrap=True, emoji=False)


def friendly(command: F) -> F:
    """Print input problems, warnings and interruptions as messages, not tracebacks.

    A `TestsuiteError` is one ``error:`` line per problem and exit status 1; an `OSError`
    that no reader turned into one (a folder that cannot be listed, say) is named the same
    way. A `TestsuiteWarning` is one ``warning:`` line and the command goes on.
    """

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import warnings

        from ..errors import TestsuiteError, TestsuiteWarning
        from ..files import reason

        python_show = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *rest: Any,
                 **options: Any) -> None:
            if issubclass(category, TestsuiteWarning):
                _console(stderr=True).print(f"[yellow]warning:[/] {_escape(message)}")
            else:
                python_show(message, category, *rest, **options)

        try:
            with warnings.catch_warnings():  # restores showwarning and the filters after
                warnings.showwarning = show
                warnings.simplefilter("always", TestsuiteWarning)
                return command(*args, **kwargs)
        except TestsuiteError as exc:
            console = _console(stderr=True)
            for problem in exc.problems:
                console.print(f"[bold red]error:[/] {_escape(problem)}")
            raise typer.Exit(1) from None
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            _console(stderr=True).print(f"[bold red]error:[/] {_escape(where + reason(exc))}")
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            _console(stderr=True).print("interrupted")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _escape(text: object) -> str:
    """Text from data (names, paths, outputs) for a Rich console: shown, never obeyed."""
    from ..reports.escape import terminal

    return terminal(text)


def _suite(paths: list[Path] | None) -> Any:
    from ..bundled import bundled_suite_paths
    from ..loader import load_suite

    return load_suite(paths or bundled_suite_paths())


def _emit(text: str, out: Path | None, what: str) -> None:
    """Print a report, or write it atomically to `out` and say so."""
    from ..files import write_text
    from ..reports.escape import printable

    if out is None:
        typer.echo(printable(text), nl=False)  # control characters of names shown, not obeyed
    else:
        write_text(out, text)
        _console().print(f"wrote {what} to {_escape(out)}")


def _only_pair(pairs: list[str]) -> str:
    from ..errors import TestsuiteError

    if len(pairs) != 1:
        raise TestsuiteError(f"the suite has several language pairs ({', '.join(pairs)}): "
                             "pass --pair")
    return pairs[0]


def _run_evaluation(outputs: list[Path], pair: str | None, source: Path | None,
                    ids: Path | None, suite: list[Path] | None, timeout: float, encoding: str,
                    quiet: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ..evaluate import evaluate as run_evaluate
    from ..inputs import load_outputs

    loaded = _suite(suite)
    systems, located = load_outputs(loaded, outputs, pair=pair, source=source, ids=ids,
                                    encoding=encoding)
    total = sum(len(s.outputs) for s in systems)
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=_console(stderr=True), disable=quiet,
                  transient=True) as bar:
        task = bar.add_task("evaluating", total=total)
        evaluation = run_evaluate(loaded, systems, timeout=timeout, located=located,
                                  progress=lambda n: bar.advance(task, n))
    return loaded, evaluation
