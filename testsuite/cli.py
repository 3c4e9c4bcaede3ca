"""The `testsuite` command: a thin typer layer over the library.

Each command parses options, calls the library and prints. Heavy libraries (pandas, regex,
statsmodels, textual) are imported inside the commands so that `testsuite --help` is instant.
A `TestsuiteError` is printed as a list of problems (file:line (item …): message) with exit
status 1 — never a traceback.
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
        from .errors import TestsuiteError

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
    from .bundled import bundled_suite_paths
    from .loader import load_suite

    return load_suite(paths or bundled_suite_paths())


@app.command()
@friendly
def lint(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Suite and rules files or folders. Default: the bundled suites.",
        show_default=False)] = None,
) -> None:
    """Check suites and rules: YAML, fields, ids, regexes, and each rule's own examples."""
    from .bundled import bundled_suite_paths
    from .loader import lint as run_lint

    result = run_lint(paths or bundled_suite_paths())
    console = _console()
    for problem in result.problems:
        console.print(f"[red]{'error' if problem.fatal else 'problem'}:[/] "
                      f"{_escape(str(problem))}")
    suite = result.suite
    summary = (f"{len(result.files)} files, {len(suite.items)} items, {len(suite.rules)} rules, "
               f"{len(result.problems)} problems")
    console.print(("[green]ok:[/] " if not result.problems else "") + summary)
    if result.problems:
        raise typer.Exit(1)


@app.command()
@friendly
def expand(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Suite and rules files or folders. Default: the bundled suites.",
        show_default=False)] = None,
    template: Annotated[str | None, typer.Option(
        help="Only the items of this template id.", show_default=False)] = None,
) -> None:
    """Show the items and rules that paradigm templates generate."""
    from rich.table import Table

    from .bundled import bundled_suite_paths
    from .loader import load_suite

    suite = load_suite(paths or bundled_suite_paths())
    items = [i for i in suite if i.template and (template is None or i.template == template)]
    table = Table(title="Items generated by templates", title_justify="left")
    for column in ("pair", "id", "phenomenon"):
        table.add_column(column, no_wrap=True)
    for column in ("source", "positive regex", "negative regex"):
        table.add_column(column, overflow="fold")
    for item in items:
        rule = suite.rule_of(item)
        table.add_row(item.pair, _escape(item.id), _escape(item.phenomenon),
                      _escape(item.source), _escape(rule.positive_regex if rule else ""),
                      _escape(rule.negative_regex if rule else ""))
    console = _console()
    console.print(table)
    count = len(items)
    console.print(f"{count} generated items")


@app.command("import-dfki")
@friendly
def import_dfki(
    items_json: Annotated[Path, typer.Argument(help="A DFKI items.json file.")],
    out: Annotated[Path, typer.Option("--out", "-o",
                                      help="Folder to write suites/ and rules/ in.")],
) -> None:
    """Convert the DFKI public test suite JSON into suite and rules YAML files."""
    from .dfki import import_dfki as run_import

    suite, written = run_import(items_json, out)
    _console().print(f"wrote {len(suite.items)} items of {', '.join(suite.pairs)} in "
                     f"{len(written)} files under {out}")


@app.command("export-dfki")
@friendly
def export_dfki(
    out: Annotated[Path, typer.Option("--out", "-o", help="JSON file to write.")],
    pair: PairOption = None,
    suite: SuiteOption = None,
) -> None:
    """Write a suite back as DFKI items.json (the inverse of import-dfki)."""
    from .dfki import dfki_json
    from .model import pair_code
    from .yamlio import write_atomic

    loaded = _suite(suite)
    chosen = pair_code(pair) if pair else _only_pair(loaded.pairs)
    write_atomic(out, dfki_json(loaded, chosen))
    _console().print(f"wrote {len(loaded.items_of(chosen))} {chosen} items to {out}")


def _emit(text: str, out: Path | None, what: str) -> None:
    """Print a report, or write it atomically to `out` and say so."""
    from .yamlio import write_atomic

    if out is None:
        typer.echo(text, nl=False)
    else:
        write_atomic(out, text)
        _console().print(f"wrote {what} to {out}")


def _only_pair(pairs: list[str]) -> str:
    from .errors import TestsuiteError

    if len(pairs) != 1:
        raise TestsuiteError(f"the suite has several language pairs ({', '.join(pairs)}): "
                             "pass --pair")
    return pairs[0]


@app.command()
@friendly
def sources(
    pair: Annotated[str, typer.Option("--pair", "-p", help="Language pair, e.g. de-en.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="File to write; the item ids go "
                                      "to FILE.ids.")],
    suite: SuiteOption = None,
) -> None:
    """Write the source sentences to translate, one per line, with their item ids."""
    from .model import pair_code
    from .sources import write_sources

    loaded = _suite(suite)
    written, ids = write_sources(loaded, pair_code(pair), out)
    count = len(loaded.items_of(pair_code(pair)))
    _console().print(f"wrote {count} sources to {written} and their ids to {ids}")


@app.command()
@friendly
def evaluate(
    outputs: OutputsArgument,
    pair: PairOption = None,
    source: SourceOption = None,
    ids: IdsOption = None,
    suite: SuiteOption = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write every item × system outcome to FILE.jsonl or FILE.csv.",
        show_default=False)] = None,
    save: Annotated[Path | None, typer.Option(
        help="Save the run (outputs, outcomes, metadata) in this folder for `compare`.",
        show_default=False)] = None,
    campaign: Annotated[str | None, typer.Option(
        help="Campaign of a saved run, e.g. wmt21.", show_default=False)] = None,
    year: Annotated[int | None, typer.Option(
        help="Year of a saved run (default: from the campaign name).", show_default=False)
    ] = None,
    timeout: TimeoutOption = 1.0,
    encoding: EncodingOption = "utf-8",
    quiet: QuietOption = False,
) -> None:
    """Judge every item × system: pass, fail, warning or missing (SPEC.md)."""
    from .reports.terminal import print_evaluation
    from .results_io import write_results

    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, timeout, encoding,
                                         quiet)
    print_evaluation(evaluation, _console())
    if out:
        write_results(evaluation.results, out)
        _console().print(f"wrote {len(evaluation.results)} outcomes to {out}")
    if save:
        from .runs import save_run

        save_run(save, evaluation, loaded, campaign=campaign, year=year)
        _console().print(f"saved the run in {save}")


def _run_evaluation(outputs: list[Path], pair: str | None, source: Path | None,
                    ids: Path | None, suite: list[Path] | None, timeout: float, encoding: str,
                    quiet: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from .evaluate import evaluate as run_evaluate
    from .inputs import load_outputs

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


@app.command()
@friendly
def score(
    outputs: OutputsArgument,
    pair: PairOption = None,
    source: SourceOption = None,
    ids: IdsOption = None,
    suite: SuiteOption = None,
    format: Annotated[str, typer.Option(
        "--format", "-f", help="terminal, csv, json, markdown or latex.")] = "terminal",
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the report to FILE instead of the terminal.",
        show_default=False)] = None,
    table: Annotated[str, typer.Option(
        help="Which paper tables: categories, phenomena or both.")] = "both",
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    fair: Annotated[bool, typer.Option(
        "--fair/--no-fair", help="Fairness rule: only items without a warning or missing "
        "output for any system (the published method).")] = True,
    test: Annotated[str, typer.Option(
        help="ztest (published, default) or paired (McNemar; bootstrap for macro rows).")
    ] = "ztest",
    alpha: Annotated[float, typer.Option(help="One-tailed significance level.")] = 0.05,
    correction: Annotated[str, typer.Option(
        help="Multiple-comparison correction: none, holm, bonferroni or fdr_bh.")] = "none",
    clusters: Annotated[bool, typer.Option(
        "--clusters", help="Also compute full clusters and rank ranges.")] = False,
    bounds: Annotated[bool, typer.Option(
        "--bounds", help="Show how far open warnings could move each accuracy.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the paired bootstrap.")] = 12345,
    timeout: TimeoutOption = 1.0,
    encoding: EncodingOption = "utf-8",
    quiet: QuietOption = False,
) -> None:
    """Accuracy per category and phenomenon with significance clusters (paper tables)."""
    from .errors import TestsuiteError
    from .reports.render import FORMATS, render
    from .reports.tables import paper_tables
    from .reports.terminal import print_paper_table
    from .scores import ScoreOptions
    from .scores import score as run_score

    choices = {"format": (format, FORMATS), "table": (table, ("categories", "phenomena", "both")),
               "test": (test, ("ztest", "paired")),
               "correction": (correction, ("none", "holm", "bonferroni", "fdr_bh"))}
    for name, (value, allowed) in choices.items():
        if value not in allowed:
            raise TestsuiteError(f"--{name} must be one of {', '.join(allowed)}, not {value!r}")
    options = ScoreOptions(
        fair=fair, test=test, alpha=alpha,  # type: ignore[arg-type]
        correction=None if correction == "none" else correction,  # type: ignore[arg-type]
        clusters=clusters, categories=tuple(category or ()) or None,
        phenomena=tuple(phenomenon or ()) or None, systems=tuple(system or ()) or None,
        seed=seed)
    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, timeout, encoding,
                                         quiet)
    pairs = list(dict.fromkeys(evaluation.results["pair"].astype(str)))
    results = [run_score(evaluation, loaded, p, options) for p in pairs]
    console = _console()
    if format == "terminal" and out is None:
        for scores in results:
            for paper in paper_tables(scores, table):
                print_paper_table(paper, console, bounds=bounds)
        return
    text = render(results, "markdown" if format == "terminal" else format, table)
    _emit(text, out, f"the {format} report")


@app.command("item-analysis")
@friendly
def item_analysis(
    outputs: OutputsArgument,
    pair: PairOption = None,
    source: SourceOption = None,
    ids: IdsOption = None,
    suite: SuiteOption = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the analysis of every item to FILE.csv.",
        show_default=False)] = None,
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    fair: Annotated[bool, typer.Option("--fair/--no-fair", help="Fairness rule.")] = True,
    show: Annotated[int, typer.Option(help="How many items to list in each group.")] = 10,
    quiet: QuietOption = False,
) -> None:
    """Items every system passes, none passes, and how well each separates systems."""
    from rich.table import Table

    from .scores import ScoreOptions
    from .scores import item_analysis as run_analysis
    from .yamlio import write_atomic

    options = ScoreOptions(fair=fair, categories=tuple(category or ()) or None,
                           phenomena=tuple(phenomenon or ()) or None,
                           systems=tuple(system or ()) or None)
    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, 1.0, "utf-8", quiet)
    console = _console()
    for chosen in dict.fromkeys(evaluation.results["pair"].astype(str)):
        analysis = run_analysis(evaluation, loaded, chosen, options)
        counts = analysis["flag"].value_counts()
        console.print(f"{chosen}: {len(analysis)} items; every system passes "
                      f"{counts.get('all pass', 0)}, none passes {counts.get('none pass', 0)}, "
                      f"{counts.get('negative discrimination', 0)} separate systems the wrong way")
        ranked = analysis.dropna(subset=["discrimination"]).sort_values("discrimination")
        for title, part in (("least discriminating", ranked.head(show)),
                            ("most discriminating", ranked.tail(show).iloc[::-1])):
            table = Table(title=f"{chosen}: {title} items", title_justify="left")
            for column in ("item", "category", "phenomenon", "passes", "discrimination"):
                table.add_column(column, justify="right" if column in ("passes",
                                                                        "discrimination")
                                 else "left")
            for row in part.itertuples():
                table.add_row(_escape(str(row.item)), _escape(str(row.category)),
                              _escape(str(row.phenomenon)), f"{row.passes}/{row.systems}",
                              f"{row.discrimination:+.2f}")
            console.print(table)
        if out:
            path = out if len(evaluation.located) <= 1 else out.with_name(
                f"{out.stem}.{chosen}{out.suffix}")
            write_atomic(path, analysis.to_csv(index=False))
            console.print(f"wrote the analysis of {len(analysis)} items to {path}")


@app.command()
@friendly
def report(
    outputs: OutputsArgument,
    html: Annotated[Path, typer.Option(help="The HTML file to write (self-contained).")],
    pair: PairOption = None,
    source: SourceOption = None,
    ids: IdsOption = None,
    suite: SuiteOption = None,
    fair: Annotated[bool, typer.Option(
        "--fair/--no-fair", help="Fairness rule (the published method).")] = True,
    test: Annotated[str, typer.Option(help="ztest (default) or paired.")] = "ztest",
    alpha: Annotated[float, typer.Option(help="One-tailed significance level.")] = 0.05,
    title: Annotated[str | None, typer.Option(help="Title of the report.",
                                              show_default=False)] = None,
    quiet: QuietOption = False,
) -> None:
    """Write an offline HTML report: tables, heatmap, charts and every output, filterable."""
    from .errors import TestsuiteError
    from .reports.html import html_report
    from .scores import ScoreOptions
    from .scores import score as run_score
    from .yamlio import write_atomic

    if test not in ("ztest", "paired"):
        raise TestsuiteError(f"--test must be ztest or paired, not {test!r}")
    options = ScoreOptions(fair=fair, test=test, alpha=alpha)  # type: ignore[arg-type]
    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, 1.0, "utf-8", quiet)
    pairs = list(dict.fromkeys(evaluation.results["pair"].astype(str)))
    scores = [run_score(evaluation, loaded, p, options) for p in pairs]
    write_atomic(html, html_report(scores, evaluation, loaded, title=title))
    _console().print(f"wrote the report to {html}")


@app.command()
@friendly
def plot(
    outputs: OutputsArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the charts.")],
    pair: PairOption = None,
    source: SourceOption = None,
    ids: IdsOption = None,
    suite: SuiteOption = None,
    format: Annotated[str, typer.Option("--format", "-f", help="png or svg.")] = "png",
    fair: Annotated[bool, typer.Option(
        "--fair/--no-fair", help="Fairness rule (the published method).")] = True,
    quiet: QuietOption = False,
) -> None:
    """Write the report's charts (phenomenon heatmap, category chart) as PNG or SVG."""
    from .errors import TestsuiteError
    from .reports.plots import write_plots
    from .scores import ScoreOptions
    from .scores import score as run_score

    if format not in ("png", "svg"):
        raise TestsuiteError(f"--format must be png or svg, not {format!r}")
    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, 1.0, "utf-8", quiet)
    for chosen in dict.fromkeys(evaluation.results["pair"].astype(str)):
        scores = run_score(evaluation, loaded, chosen, ScoreOptions(fair=fair))
        for path in write_plots(scores, out, format):
            _console().print(f"wrote {path}")


@app.command()
@friendly
def compare(
    runs: Annotated[list[Path], typer.Argument(
        help="Saved runs (folders written by `evaluate --save`), any order.")],
    pair: PairOption = None,
    suite: SuiteOption = None,
    map_: Annotated[list[str] | None, typer.Option(
        "--map", help="Match a renamed system: OLD=NEW (repeatable).", show_default=False)
    ] = None,
    system: SystemOption = None,
    category: CategoryOption = None,
    test: Annotated[str, typer.Option(
        help="paired (McNemar / paired bootstrap; default) or ztest.")] = "paired",
    alpha: Annotated[float, typer.Option(help="Two-sided significance level.")] = 0.05,
    format: Annotated[str, typer.Option(
        "--format", "-f", help="terminal, csv, json, latex or html.")] = "terminal",
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the report to FILE.", show_default=False)] = None,
    regressions: Annotated[int, typer.Option(
        help="List up to N regressed items per system.")] = 0,
) -> None:
    """Compare saved runs of the same systems across years (current rules applied)."""
    from .compare import CompareOptions
    from .compare import compare as run_compare
    from .errors import TestsuiteError
    from .model import pair_code
    from .reports.compare_render import print_comparison, render_comparison
    from .runs import load_run

    if format not in ("terminal", "csv", "json", "latex", "html"):
        raise TestsuiteError(f"--format must be terminal, csv, json, latex or html, not "
                             f"{format!r}")
    if test not in ("paired", "ztest"):
        raise TestsuiteError(f"--test must be paired or ztest, not {test!r}")
    mapping = []
    for entry in map_ or ():
        old, sep, new = entry.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise TestsuiteError(f"--map takes OLD=NEW, not {entry!r}")
        mapping.append((old.strip(), new.strip()))
    loaded = _suite(suite)
    saved = [load_run(path, loaded) for path in runs]
    pairs = sorted(set.intersection(*(set(r.metadata.get("pairs") or []) for r in saved)))
    chosen = pair_code(pair) if pair else _only_pair(pairs) if pairs else None
    if chosen is None:
        raise TestsuiteError("the runs have no language pair in common")
    options = CompareOptions(test=test, alpha=alpha, mapping=tuple(mapping),  # type: ignore[arg-type]
                             systems=tuple(system or ()) or None,
                             categories=tuple(category or ()) or None)
    comparison = run_compare(saved, chosen, options)
    if format == "terminal" and out is None:
        print_comparison(comparison, _console(), regressions)
        return
    if format == "html":
        from .reports.html import comparison_html

        text = comparison_html(comparison)
    else:
        text = render_comparison(comparison, "json" if format == "terminal" else format)
    _emit(text, out, f"the {format} comparison")


@app.command()
@friendly
def pending(
    outputs: OutputsArgument,
    pair: PairOption = None,
    source: SourceOption = None,
    ids: IdsOption = None,
    suite: SuiteOption = None,
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    order: Annotated[str, typer.Option(help="impact (default) or suite.")] = "impact",
) -> None:
    """List the warnings still to decide, one JSON object per distinct output."""
    import json

    from .triage import pending_warnings

    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, 1.0, "utf-8", True)
    for entry in pending_warnings(evaluation, loaded, categories=category, phenomena=phenomenon,
                                  systems=system, order=order):
        typer.echo(json.dumps(entry.as_dict(), ensure_ascii=False))


@app.command()
@friendly
def verdict(
    item: Annotated[str, typer.Argument(help="Item id.")],
    decision: Annotated[str, typer.Argument(metavar="VERDICT", help="pass or fail.")],
    output: Annotated[str | None, typer.Option(
        help="The exact output decided on.", show_default=False)] = None,
    system: Annotated[str | None, typer.Option(
        help="Decide on this system's output instead (needs --from).", show_default=False)
    ] = None,
    from_: Annotated[list[Path] | None, typer.Option(
        "--from", help="System outputs to take --system's output from (as for evaluate).",
        show_default=False)] = None,
    pair: PairOption = None,
    source: SourceOption = None,
    suite: SuiteOption = None,
    annotator: Annotated[str | None, typer.Option(
        help="Who decides (default: your login name).", show_default=False)] = None,
    note: Annotated[str | None, typer.Option(help="A comment.", show_default=False)] = None,
) -> None:
    """Record a verdict on one exact output of one item (kept in rules/…/verdicts.yaml)."""
    from .errors import TestsuiteError
    from .model import pair_code
    from .triage import decide

    if (output is None) == (system is None):
        raise TestsuiteError("give either --output TEXT or --system NAME with --from PATH")
    loaded = _suite(suite)
    chosen = pair_code(pair) if pair else _only_pair(loaded.pairs)
    if system is not None:
        from .inputs import load_outputs

        if not from_:
            raise TestsuiteError("--system needs --from: where that system's outputs are")
        systems, _ = load_outputs(loaded, from_, pair=chosen, source=source)
        match = [s for s in systems if s.system.casefold() == system.casefold()]
        if not match:
            raise TestsuiteError(f"no system {system!r} in {', '.join(map(str, from_))} "
                                 f"(found: {', '.join(s.system for s in systems)})")
        if item not in match[0].outputs:
            raise TestsuiteError(f"{match[0].system} has no output for item {item!r}")
        output = match[0].outputs[item]
    assert output is not None
    path, stored = decide(loaded, chosen, item, output, decision, annotator=annotator,
                          note=note)
    _console().print(f"recorded {stored.verdict} for {chosen} item {item} on "
                     f"{stored.output!r} in {path}")


@app.command()
@friendly
def triage(
    outputs: OutputsArgument,
    pair: PairOption = None,
    source: SourceOption = None,
    ids: IdsOption = None,
    suite: SuiteOption = None,
    annotator: Annotated[str | None, typer.Option(
        help="Who decides (default: your login name).", show_default=False)] = None,
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    order: Annotated[str, typer.Option(help="impact (default) or suite.")] = "impact",
    encoding: EncodingOption = "utf-8",
) -> None:
    """Resolve warnings in a full-screen terminal UI; every decision is saved at once."""
    from .bundled import bundled_suite_paths
    from .tui import TriageOptions, run_triage
    from .verdicts import default_annotator

    options = TriageOptions(
        suite_paths=list(suite or bundled_suite_paths()), outputs=list(outputs), pair=pair,
        source=source, ids=ids, encoding=encoding, annotator=annotator or default_annotator(),
        categories=tuple(category or ()), phenomena=tuple(phenomenon or ()),
        systems=tuple(system or ()), order=order)
    decided = run_triage(options)
    _console().print(f"{decided} decisions saved")


@app.command()
@friendly
def demo(
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Also write the outcomes to FILE.jsonl or FILE.csv.",
        show_default=False)] = None,
) -> None:
    """Evaluate and score the bundled illustrative sample outputs on the bundled suites."""
    from .bundled import bundled_samples
    from .reports.tables import category_table
    from .reports.terminal import print_evaluation, print_paper_table
    from .results_io import write_results
    from .scores import score as run_score

    console = _console()
    samples = bundled_samples()
    for pair_dir in sorted(p for p in samples.iterdir() if p.is_dir()):
        console.rule(f"[bold]{pair_dir.name}[/]: illustrative sample outputs in {pair_dir}")
        suite, evaluation = _run_evaluation([pair_dir], pair_dir.name, None, None, None, 1.0,
                                            "utf-8", True)
        print_evaluation(evaluation, console)
        print_paper_table(category_table(run_score(evaluation, suite, pair_dir.name)), console)
        if out:
            path = out.with_name(f"{out.stem}.{pair_dir.name}{out.suffix}")
            write_results(evaluation.results, path)
            console.print(f"wrote {len(evaluation.results)} outcomes to {path}")
    console.print(f"Next: `testsuite score {samples / 'de-en'} --pair de-en` for the phenomenon "
                  "table; `testsuite --help` for everything else.")


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
