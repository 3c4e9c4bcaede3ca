"""Shared pieces of the command line: the typer app, option types and error handling."""


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
TimeoutOption = Annotated[float, typer.Option(help="Per-match regex time limit, seconds.")]
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
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def friendly(command: F) -> F:
    """Print input problems (and interruptions) as messages, not tracebacks."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..errors import TestsuiteError

        try:
            return command(*args, **kwargs)
        except TestsuiteError as exc:
            console = _console(stderr=True)
            for problem in exc.problems:
                console.print(f"[bold red]error:[/] {_escape(str(problem))}")
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            _console(stderr=True).print("interrupted")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _suite(paths: list[Path] | None) -> Any:
    from ..bundled import bundled_suite_paths
    from ..loader import load_suite

    return load_suite(paths or bundled_suite_paths())


def _emit(text: str, out: Path | None, what: str) -> None:
    """Print a report, or write it atomically to `out` and say so."""
    from ..files import write_text

    if out is None:
        typer.echo(text, nl=False)
    else:
        write_text(out, text)
        _console().print(f"wrote {what} to {out}")


def _only_pair(pairs: list[str]) -> str:
    from ..errors import TestsuiteError

    if len(pairs) != 1:
        raise TestsuiteError(f"the suite has several language pairs ({', '.join(pairs)}): "
                             "pass --pair")
    return pairs[0]


def _run_evaluation(outputs: list[Path], pair: str | None, source: Path | None,
                    ids: Path | None, suite: list[Path] | None, timeout: float, encoding: str,
                    quiet: bool, regex_cache: Any = None) -> Any:
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
                                  progress=lambda n: bar.advance(task, n),
                                  regex_cache=regex_cache)
    return loaded, evaluation
