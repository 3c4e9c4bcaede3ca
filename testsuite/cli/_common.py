"""Shared pieces of the command line: the typer app, option types and error handling.

Exit status of every command: 0 done, 1 an input the engine cannot use (each problem printed
as one ``error:`` line naming the file, line or item), 2 a wrong command line (an unknown
option, or a value out of range such as ``--alpha 1.5``), 130 interrupted. Never a traceback.
"""


from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


class Command(TyperCommand):
    """Help in the style of manual pages: ``--format FORMAT``, ``OUTPUTS...``, flags bare.

    Typer's default shows a type for every option (``<bool>``, ``<list[Path]>``) and wraps
    required arguments in braces; users read usage lines like those of other Unix tools.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            # Paragraphs of a docstring reflowed: Typer keeps the single line breaks of the
            # source after the first paragraph, which a narrow terminal then breaks again.
            self.help = "\n\n".join(" ".join(paragraph.split()) for paragraph
                                     in inspect.cleandoc(self.help).split("\n\n"))
        for param in self.params:
            if param.param_type_name == "argument":
                param.__class__ = _Argument
            elif param.param_type_name == "option":
                param.__class__ = _Option
            if param.metavar is None and getattr(param, "is_flag", False):
                param.metavar = ""
            elif param.metavar is None:
                kind = str(getattr(getattr(param, "type_descriptor", None), "annotation", ""))
                path = "Path" in kind and param.param_type_name == "option"
                param.metavar = "PATH" if path else str(param.name).upper()

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = str(param.metavar) + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
        return pieces


class _Argument(TyperArgument):
    """An argument whose help shows its name only (the name says what it takes)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


class _Option(TyperOption):
    """An option whose allowed words (``terminal|csv|json|markdown|latex``) break between
    words in the help's narrow type column, not in the middle of one."""

    WIDTH = 18

    def display_type_rich(self, ctx: Any) -> str | None:
        shown = super().display_type_rich(ctx)
        if not shown or "|" not in shown or len(shown) <= self.WIDTH:
            return shown
        lines = [""]
        for word in shown.split("|"):
            if lines[-1] and len(lines[-1]) + len(word) > self.WIDTH:
                lines.append("")
            lines[-1] += word + "|"
        return "\n".join(lines)[:-1]


class Group(TyperGroup):
    """The top-level help, with a bare ``--help`` as in `Command`."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


class App(typer.Typer):
    """The typer app whose commands all use `Command`."""

    def command(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs.setdefault("cls", Command)
        return super().command(*args, **kwargs)


app = App(
    cls=Group,
    name="testsuite",
    help="Linguistically motivated test suites for machine translation: evaluate MT outputs "
    "phenomenon by phenomenon (pass / fail / warning / missing).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])

SuiteOption = Annotated[list[Path] | None, typer.Option(
    "--suite", "-s", help="Suite and rules files or folders (repeatable). Default: the "
    "bundled suites.", show_default=False, rich_help_panel="Inputs")]
PairOption = Annotated[str | None, typer.Option(
    "--pair", "-p", help="Language pair, e.g. de-en.", show_default=False,
    rich_help_panel="Inputs")]
#: What OUTPUTS may be, for every command that reads system outputs.
OUTPUTS_HELP = ("System outputs: text files aligned with `testsuite sources` (one output per "
                "line), TSV keyed by item (item<TAB>output or system<TAB>item<TAB>output), "
                "WMT hypothesis files or a whole WMT txt-ts folder, or a saved run (a folder "
                "written by `evaluate --save`).")
OutputsArgument = Annotated[list[Path], typer.Argument(help=OUTPUTS_HELP)]
OptionalOutputsArgument = Annotated[list[Path] | None, typer.Argument(
    help=OUTPUTS_HELP + " When given, the output decided on must be one of theirs and the "
    "outcomes that change are counted.", show_default=False)]
SourceOption = Annotated[Path | None, typer.Option(
    help="WMT source file the hypotheses translate (items are located in it).",
    show_default=False, rich_help_panel="Inputs")]
IdsOption = Annotated[Path | None, typer.Option(
    help="Item ids of aligned text files (default: the order of `testsuite sources`).",
    show_default=False, rich_help_panel="Inputs")]
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


def one_of(*allowed: str) -> dict[str, Any]:
    """Settings of an option that takes one of a fixed set of words.

    The help shows the words themselves (``--format terminal|csv|json``) and any other
    word is a wrong command line (exit status 2, the option named), checked with the same
    `testsuite.values.choice` as the library. Case does not matter (``--format CSV``).

    The words are written here rather than imported from the library modules that use them
    (several import numpy), so that ``--help`` stays instant; `tests/test_second_hour.py`
    checks that each list is the library's.
    """
    def check(value: str) -> str:
        from ..values import choice

        return str(choice(value, allowed, "value"))

    return {"parser": _checked(check, lambda text: text.strip().lower(), "a word"),
            "metavar": "|".join(allowed)}

TimeoutOption = Annotated[float, typer.Option(
    help="Per-match regex time limit, seconds.", parser=parse_seconds, metavar="SECONDS",
    rich_help_panel="Inputs")]
EncodingOption = Annotated[str, typer.Option(
    help="Encoding of the output files.", rich_help_panel="Inputs")]
NormaliseOption = Annotated[str | None, typer.Option(
    "--normalise", help="Match outputs under a typographic equivalence: typographic "
    "(apostrophes, quotation marks, dashes, spaces, NFC) or nfkc. Off by default (none, the "
    "published method); named in every signature and report.", show_default=False,
    rich_help_panel="Inputs", **one_of("none", "typographic", "nfkc"))]
RepeatedOption = Annotated[str, typer.Option(
    help="An item whose source occurs several times in a WMT source: use the first "
    "occurrence's output (published), the last, or agree (outcomes must agree, else a "
    "warning).", rich_help_panel="Inputs", **one_of("first", "last", "agree"))]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
CategoryOption = Annotated[list[str] | None, typer.Option(
    help="Only this category (repeatable, any case).", show_default=False, metavar="NAME",
    rich_help_panel="Filters")]
PhenomenonOption = Annotated[list[str] | None, typer.Option(
    help="Only this phenomenon (repeatable, any case).", show_default=False, metavar="NAME",
    rich_help_panel="Filters")]
SystemOption = Annotated[list[str] | None, typer.Option(
    help="Only this system (repeatable, any case).", show_default=False, metavar="NAME",
    rich_help_panel="Filters")]
OrderOption = Annotated[str, typer.Option(
    help="impact (the decisions that let the most outcomes into the scores first) or suite "
    "(the suite's order).", **one_of("impact", "suite"))]
AnnotatorOption = Annotated[str | None, typer.Option(
    help="Who decides (default: your login name).", show_default=False, metavar="NAME")]


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    # soft_wrap: messages carry paths and sentences that must not be broken across lines.
    # emoji=False: Rich would turn "file:100:" into "file💯" (text from data is escaped with
    # `_escape`, but emoji codes are not markup and survive escaping).
    return Console(stderr=stderr, highlight=False, soft_wrap=True, emoji=False)


def friendly(command: F) -> F:
    """Print input problems, warnings and interruptions as messages, not tracebacks.

    A `TestsuiteError` is one ``error:`` line per problem (the first
    `errors.MAX_SHOWN_PROBLEMS`, then one counting the rest) and exit status 1; an `OSError`
    that no reader turned into one (a folder that cannot be listed, say) is named the same
    way. A warning (ours, or a library's) is one escaped ``warning:`` line and the command
    goes on.
    """

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import warnings

        from ..errors import TestsuiteError, TestsuiteWarning
        from ..errors import shown as first_problems
        from ..files import reason

        shown: set[str] = set()

        def show(message: Warning | str, category: type[Warning], *rest: Any,
                 **options: Any) -> None:
            # One line each, escaped: a library's warning may quote a name from the data
            # (matplotlib: "Glyph 27 (\x1b) missing"), and a source line helps no user.
            text = str(message) if issubclass(category, TestsuiteWarning) else \
                f"{category.__name__}: {message}"
            if text not in shown:  # two caches in one refused folder: say it once
                shown.add(text)
                _console(stderr=True).print(f"[yellow]warning:[/] {_escape(text)}")

        try:
            with warnings.catch_warnings():  # restores showwarning and the filters after
                warnings.showwarning = show
                warnings.simplefilter("always", TestsuiteWarning)
                return command(*args, **kwargs)
        except TestsuiteError as exc:
            console = _console(stderr=True)
            for problem in first_problems(exc.problems):
                console.print(f"[bold red]error:[/] {_escape(problem)}")
            raise typer.Exit(1) from None
        except BrokenPipeError:
            # The reader went away (`testsuite pending … | head`): stop quietly, as Unix tools
            # do; stdout is pointed at devnull so the interpreter's final flush cannot fail.
            import os
            import sys

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(0) from None
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


#: The report format a file's suffix names, for ``--out FILE`` without ``--format``.
FORMAT_OF_SUFFIX = {".csv": "csv", ".json": "json", ".md": "markdown", ".tex": "latex",
                    ".html": "html", ".htm": "html"}


def format_for(format: str | None, out: Path | None, allowed: tuple[str, ...]) -> str:
    """The format asked for with ``--format``, else the one the suffix of ``--out`` names
    (``--out scores.csv`` writes CSV, as `evaluate --out` does), else ``terminal``."""
    if format is not None:
        return format
    named = FORMAT_OF_SUFFIX.get(out.suffix.lower()) if out is not None else None
    return named if named in allowed else "terminal"


def note_old_name(old: str, new: str) -> None:
    """Say on stderr that an option was given by its old name (it still works, for now)."""
    _console(stderr=True).print(f"[yellow]note:[/] {_escape(old)} is the old spelling of "
                                f"{_escape(new)}; it still works for now, but will be removed "
                                "in a later release")


def renamed_option(value: Any, old_value: Any, new: str, old: str) -> Any:
    """The value of a required option given by its name or by its old name (with a note).

    Raises:
        typer.BadParameter: when neither or both are given (exit status 2).
    """
    if old_value is not None:
        if value is not None:
            raise typer.BadParameter(f"give {new} only ({old.split()[0]} is its old "
                                     "spelling)", param_hint=new.split()[0])
        note_old_name(old, new)
        return old_value
    if value is None:
        raise typer.BadParameter(f"missing (give {new})", param_hint=new.split()[0])
    return value


def _chosen_pair(pair: str | None, pairs: list[str]) -> str:
    """The language pair of ``--pair`` (normalised: ``deen`` → ``de-en``), or else the only
    one of `pairs`.

    Raises:
        TestsuiteError: without ``--pair`` when `pairs` is not exactly one pair.
    """
    from ..errors import TestsuiteError
    from ..model import pair_code

    if pair:
        return pair_code(pair)
    if len(pairs) != 1:
        raise TestsuiteError(f"the suite has several language pairs ({', '.join(pairs)}): "
                             "pass --pair")
    return pairs[0]


def _inject(command: F, name: str, first: list[inspect.Parameter],
            last: list[inspect.Parameter], build: Callable[[dict[str, Any]], Any]) -> F:
    """Replace a command's parameter `name` by options declared once elsewhere.

    Typer reads a command's parameters from its signature: the wrapper shows `first`, the
    command's other parameters, then `last`, and calls the command with `name` set to
    ``build(values of first and last)``.
    """
    own = inspect.signature(command)
    names = {p.name for p in first + last}
    namespace = getattr(inspect.unwrap(command), "__globals__", {})

    def resolved(parameter: inspect.Parameter) -> inspect.Parameter:
        # Evaluate string annotations (from __future__ import annotations) for typer. Types
        # that exist for type checkers only (the specs that decorators replace) stay text.
        annotation = parameter.annotation
        if isinstance(annotation, str):
            with contextlib.suppress(NameError):
                annotation = eval(annotation, namespace)  # noqa: S307 - our own source
        # Options keyword-only after injected positional ones (typer maps parameters by
        # name); the command's own arguments stay positional, before the injected ones.
        parameter = parameter.replace(annotation=annotation)
        if first and not _is_argument(parameter):
            parameter = parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        return parameter

    rest = [resolved(p) for p in own.parameters.values() if p.name != name]
    # The command's own arguments come first (`verdict ITEM VERDICT [OUTPUTS]...`).
    arguments = [p for p in rest if _is_argument(p)]
    options = [p for p in rest if not _is_argument(p)]

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {key: kwargs.pop(key) for key in list(kwargs) if key in names}
        return command(*args, **{name: build(values)}, **kwargs)

    wrapper.__signature__ = own.replace(  # type: ignore[attr-defined]
        parameters=[*arguments, *first, *options, *last])
    wrapper.__annotations__ = {}
    return wrapper  # type: ignore[return-value]


def _is_argument(parameter: inspect.Parameter) -> bool:
    """Whether a command's parameter is a positional argument (``typer.Argument``)."""
    from typing import get_args

    return any(isinstance(meta, typer.models.ArgumentInfo)
               for meta in get_args(parameter.annotation)[1:])


def _options(*specs: tuple[str, Any, Any]) -> list[inspect.Parameter]:
    return [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                              default=default) for name, annotation, default in specs]


def with_inputs(command: F) -> F:
    """Give a command the shared input options; it receives them as ``inputs: InputSpec``.

    The outputs argument and ``--pair``, ``--source``, ``--ids``, ``--suite``,
    ``--encoding``, ``--timeout``, ``--normalise``, ``--repeated`` are declared here once,
    so that every command that reads outputs (and the triage UI) takes the same inputs with
    the same help and checks.
    """
    return _with_inputs(command, OutputsArgument, inspect.Parameter.empty, judging=True)


def with_optional_inputs(command: F) -> F:
    """`with_inputs` for a command that also works without outputs and judges none itself
    (`verdict`, `import`): the outputs, when given, follow the command's own arguments, and
    ``--timeout`` and ``--normalise`` are not offered (they would change nothing)."""
    return _with_inputs(command, OptionalOutputsArgument, None, judging=False)


def _with_inputs(command: F, argument: Any, default: Any, judging: bool) -> F:
    def build(values: dict[str, Any]) -> Any:
        from ..inputs import InputSpec

        normalise = values.get("normalise")
        return InputSpec(outputs=tuple(values["outputs"] or ()), pair=values["pair"],
                         source=values["source"], ids=values["ids"],
                         suite=tuple(values["suite"] or ()), encoding=values["encoding"],
                         timeout=values.get("timeout", 1.0),
                         normalise=None if normalise == "none" else normalise,
                         repeated=values["repeated"])

    outputs = inspect.Parameter("outputs", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=argument, default=default)
    judged = [("timeout", TimeoutOption, 1.0), ("normalise", NormaliseOption, None)]
    return _inject(command, "inputs", [outputs], _options(
        ("pair", PairOption, None), ("source", SourceOption, None), ("ids", IdsOption, None),
        ("suite", SuiteOption, None), ("encoding", EncodingOption, "utf-8"),
        *(judged if judging else []), ("repeated", RepeatedOption, "first")), build)


#: pass or fail, as the argument of `verdict` and `settle`.
VerdictArgument = Annotated[str, typer.Argument(
    help="pass or fail.", **{**one_of("pass", "fail"), "metavar": "VERDICT"})]
#: The old way to name the outputs of `verdict` and `import` (now arguments, as everywhere).
OldFromOption = Annotated[list[Path] | None, typer.Option(
    "--from", help="The old way to give the OUTPUTS (still read, with a note).",
    show_default=False, hidden=True)]


def with_old_from(inputs: Any, old: list[Path] | None, usage: str) -> Any:
    """`inputs` (an `InputSpec`) with the outputs given by the old ``--from`` added, and a
    note that they are now arguments."""
    from dataclasses import replace

    if not old:
        return inputs
    note_old_name("--from PATH", f"the outputs as arguments: {usage}")
    return replace(inputs, outputs=(*inputs.outputs, *old))


def _suite_and_systems(inputs: Any) -> tuple[Any, list[Any] | None, str]:
    """The suite, the systems' outputs when `inputs` names any (else None), and the pair
    decided on (`--pair`, else the only one of the outputs, else of the suite)."""
    if inputs.outputs:
        from ..inputs import load_systems

        suite, systems = load_systems(inputs)
        return suite, systems, _chosen_pair(inputs.pair, sorted({s.pair for s in systems}))
    suite = _suite(list(inputs.suite))
    return suite, None, _chosen_pair(inputs.pair, suite.pairs)


FairOption = Annotated[bool, typer.Option(
    "--fair/--no-fair", help="Fairness rule: only items without a warning or missing output "
    "for any system (the published method).", rich_help_panel="Scoring")]
#: The tests of proportion rows (`testsuite.stats.pvalues.TESTS`).
TESTS = ("ztest", "paired")
TestOption = Annotated[str, typer.Option(
    help="Test of proportion rows: ztest (the two-proportion Z-test of the published "
    "tables, so that scores compare with the papers) or paired (exact McNemar). `compare` "
    "defaults to paired: there the same items are judged in every year.",
    rich_help_panel="Scoring", **one_of(*TESTS))]
MacroTestOption = Annotated[str | None, typer.Option(
    "--macro-test", help="Test of macro-average rows: published (default with ztest: the "
    "macro-average read as a proportion, approximate), stratified (paired Z-test with the "
    "stratified variance; default with paired) or bootstrap.", show_default=False,
    rich_help_panel="Scoring", **one_of("published", "stratified", "bootstrap"))]
AlphaOption = Annotated[float, typer.Option(
    help="One-tailed significance level.", parser=parse_probability, metavar="P",
    rich_help_panel="Scoring")]
CorrectionOption = Annotated[str, typer.Option(
    help="Multiple-comparison correction.", rich_help_panel="Scoring",
    **one_of("none", "holm", "bonferroni", "fdr_bh"))]
ClustersOption = Annotated[bool, typer.Option(
    "--clusters", help="Also compute full clusters and rank ranges.",
    rich_help_panel="Scoring")]
SeedOption = Annotated[int, typer.Option(
    help="Seed of the paired bootstrap.", parser=parse_count, metavar="N",
    rich_help_panel="Scoring")]
ResamplesOption = Annotated[int, typer.Option(
    help="Resamples of the paired bootstrap (its Monte Carlo error is reported).",
    parser=parse_positive, metavar="N", rich_help_panel="Scoring")]


def with_scoring(command: F) -> F:
    """Give a command the scoring options; it receives them as ``scoring: ScoreOptions``.

    ``--fair/--no-fair``, ``--test``, ``--macro-test``, ``--alpha``, ``--correction``,
    ``--clusters``, ``--seed``, ``--resamples`` and the ``--category``, ``--phenomenon``,
    ``--system`` filters, declared once for `score`, `report`, `plot` and item analysis.
    """
    def build(values: dict[str, Any]) -> Any:
        from ..scoring import ScoreOptions

        return ScoreOptions(
            fair=values["fair"], test=values["test"], macro_test=values["macro_test"],
            alpha=values["alpha"],
            correction=None if values["correction"] == "none" else values["correction"],
            clusters=values["clusters"], seed=values["seed"], resamples=values["resamples"],
            categories=tuple(values["category"] or ()) or None,
            phenomena=tuple(values["phenomenon"] or ()) or None,
            systems=tuple(values["system"] or ()) or None)

    return _inject(command, "scoring", [], _options(
        ("category", CategoryOption, None), ("phenomenon", PhenomenonOption, None),
        ("system", SystemOption, None), ("fair", FairOption, True),
        ("test", TestOption, "ztest"), ("macro_test", MacroTestOption, None),
        ("alpha", AlphaOption, 0.05), ("correction", CorrectionOption, "none"),
        ("clusters", ClustersOption, False), ("seed", SeedOption, 12345),
        ("resamples", ResamplesOption, 10_000)), build)


def _evaluate(inputs: Any, quiet: bool, regex_cache: Any = None) -> Any:
    """Load and judge what `inputs` (an `InputSpec`) names, with a progress bar on stderr.

    The bar is drawn only on a terminal: written to a file or a pipe it would be a stray
    blank line (Rich ends a live display with one) and nothing else.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ..inputs import load_evaluation

    console = _console(stderr=True)
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console,
                  disable=quiet or not console.is_terminal, transient=True) as bar:
        task = bar.add_task("evaluating", total=None)
        return load_evaluation(inputs, progress=lambda n: bar.advance(task, n),
                               total=lambda n: bar.update(task, total=n),
                               regex_cache=regex_cache)
