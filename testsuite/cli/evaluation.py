"""Commands that evaluate outputs: evaluate, score, item-analysis, report, plot, demo."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import (
    QuietOption,
    _console,
    _emit,
    _escape,
    _evaluate,
    app,
    format_for,
    friendly,
    one_of,
    parse_count,
    parse_positive,
    renamed_option,
    with_inputs,
    with_scoring,
)

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from ..inputs import InputSpec
    from ..model import Suite
    from ..scoring import ScoreOptions, Scores


def _scores(suite: Suite, evaluation: Evaluation, scoring: ScoreOptions) -> list[Scores]:
    """The scores of every pair of an evaluation, with the same options."""
    from ..scoring import score

    return [score(evaluation, suite, pair, scoring) for pair in evaluation.pairs]


@app.command(rich_help_panel="Evaluate and score")
@friendly
@with_inputs
def evaluate(
    inputs: InputSpec,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write every item × system outcome to FILE.jsonl or FILE.csv.",
        show_default=False, metavar="FILE")] = None,
    save: Annotated[Path | None, typer.Option(
        help="Save the run (outputs, outcomes, metadata) in this folder for `compare`.",
        show_default=False, metavar="FOLDER")] = None,
    campaign: Annotated[str | None, typer.Option(
        help="Campaign of a saved run, e.g. wmt21.", show_default=False, metavar="NAME")
    ] = None,
    year: Annotated[int | None, typer.Option(
        help="Year of a saved run (default: from the campaign name).", show_default=False,
        parser=parse_positive)] = None,
    not_located: Annotated[bool, typer.Option(
        "--not-located", help="List the items not found in a WMT source.")] = False,
    quiet: QuietOption = False,
) -> None:
    """Judge every item × system: pass, fail, warning or missing (the DFKI method)."""
    from ..reports.terminal import print_evaluation
    from ..results_io import write_results

    suite, evaluation = _evaluate(inputs, quiet)
    print_evaluation(evaluation, _console(), not_located=not_located)
    if out:
        write_results(evaluation.results, out)
        _console().print(f"wrote {len(evaluation.results)} outcomes to {_escape(str(out))}")
    if save:
        from ..runs import save_run

        save_run(save, evaluation, suite, campaign=campaign, year=year,
                 suite_paths=inputs.suite_paths(), timeout=inputs.timeout)
        _console().print(f"saved the run in {_escape(str(save))}")


#: The formats of `score` (`testsuite.reports.render.FORMATS`).
SCORE_FORMATS = ("terminal", "csv", "json", "markdown", "latex")


@app.command(rich_help_panel="Evaluate and score")
@friendly
@with_inputs
@with_scoring
def score(
    inputs: InputSpec,
    scoring: ScoreOptions,
    format: Annotated[str | None, typer.Option(
        "--format", "-f", help="The report's format (default: the one the suffix of --out "
        "names, .csv .json .md .tex; else terminal).", show_default=False,
        **one_of(*SCORE_FORMATS))] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the report to FILE instead of the terminal.",
        show_default=False, metavar="FILE")] = None,
    table: Annotated[str, typer.Option(
        help="Which paper tables.", **one_of("categories", "phenomena", "both"))] = "both",
    bounds: Annotated[bool, typer.Option(
        "--bounds", help="Show how far deciding the open warnings could move each accuracy."
    )] = False,
    layout: Annotated[str, typer.Option(
        help="Terminal layout: auto, columns (systems as columns, as in the papers) or rows "
        "(systems as rows).", **one_of("auto", "columns", "rows"))] = "auto",
    quiet: QuietOption = False,
) -> None:
    """Accuracy per category and phenomenon with significance clusters (paper tables)."""
    from ..reports.render import render
    from ..reports.tables import paper_tables
    from ..reports.terminal import print_paper_tables

    format = format_for(format, out, SCORE_FORMATS)
    suite, evaluation = _evaluate(inputs, quiet)
    results = _scores(suite, evaluation, scoring)
    if format == "terminal" and out is None:
        console = _console()
        for scores in results:
            print_paper_tables(paper_tables(scores, table), console, bounds=bounds,
                               layout=layout)  # type: ignore[arg-type]
        return
    text = render(results, "markdown" if format == "terminal" else format, table)
    _emit(text, out, f"the {format} report")


@app.command("item-analysis", rich_help_panel="Evaluate and score")
@friendly
@with_inputs
@with_scoring
def item_analysis(
    inputs: InputSpec,
    scoring: ScoreOptions,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the analysis of every item to FILE.csv.",
        show_default=False, metavar="FILE")] = None,
    show: Annotated[int, typer.Option(help="How many items to list in each group.",
                                      parser=parse_count, metavar="N")] = 10,
    quiet: QuietOption = False,
) -> None:
    """Items every system passes, none passes, and how well each separates systems."""
    from rich.table import Table

    from ..files import write_text
    from ..reports.escape import csv_text
    from ..scoring import item_analysis as run_analysis

    suite, evaluation = _evaluate(inputs, quiet)
    console = _console()
    pairs = evaluation.pairs
    for chosen in pairs:
        analysis = run_analysis(evaluation, suite, chosen, scoring)
        counts = analysis["flag"].value_counts()
        console.print(f"{chosen}: {len(analysis)} items; every system passes "
                      f"{counts.get('all pass', 0)}, none passes {counts.get('none pass', 0)}, "
                      f"{counts.get('negative discrimination', 0)} separate systems the wrong way")
        ranked = analysis.dropna(subset=["discrimination"]).sort_values("discrimination")
        for title, part in (("least discriminating", ranked.head(show)),
                            ("most discriminating", ranked.tail(show).iloc[::-1])):
            grid = Table(title=f"{chosen}: {title} items", title_justify="left")
            for column in ("item", "category", "phenomenon", "passes", "discrimination"):
                grid.add_column(column, justify="right" if column in ("passes",
                                                                       "discrimination")
                                else "left")
            for row in part.itertuples():
                grid.add_row(_escape(str(row.item)), _escape(str(row.category)),
                             _escape(str(row.phenomenon)), f"{row.passes}/{row.systems}",
                             f"{row.discrimination:+.2f}")
            console.print(grid)
        if out:
            path = out if len(pairs) <= 1 else out.with_name(f"{out.stem}.{chosen}{out.suffix}")
            write_text(path, csv_text(analysis))  # formulas neutralised, as every CSV
            console.print(f"wrote the analysis of {len(analysis)} items to "
                          f"{_escape(str(path))}")


@app.command(rich_help_panel="Evaluate and score")
@friendly
@with_inputs
@with_scoring
def report(
    inputs: InputSpec,
    scoring: ScoreOptions,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The HTML file to write (self-contained).", show_default=False,
        metavar="FILE")] = None,
    html: Annotated[Path | None, typer.Option(
        help="The old name of --out (still read, with a note).", show_default=False,
        metavar="FILE", hidden=True)] = None,
    title: Annotated[str | None, typer.Option(help="Title of the report.",
                                              show_default=False, metavar="TEXT")] = None,
    quiet: QuietOption = False,
) -> None:
    """Write an offline HTML report: tables, heatmap, charts and every output, filterable."""
    from ..matching import RegexCache
    from ..reports.html import html_report

    target = renamed_option(out, html, "--out FILE", "--html FILE")
    cache = RegexCache.persistent()  # judging and the page's highlighted matches share it
    suite, evaluation = _evaluate(inputs, quiet, cache)
    _emit(html_report(_scores(suite, evaluation, scoring), evaluation, suite, title=title,
                      cache=cache), target, "the report")


@app.command(rich_help_panel="Evaluate and score")
@friendly
@with_inputs
@with_scoring
def plot(
    inputs: InputSpec,
    scoring: ScoreOptions,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the charts.",
                                       metavar="FOLDER")],
    format: Annotated[str, typer.Option("--format", "-f", help="The charts' format.",
                                        **one_of("png", "svg"))] = "png",
    quiet: QuietOption = False,
) -> None:
    """Write the report's charts (phenomenon heatmap, category chart) as PNG or SVG."""
    from ..reports.plots import write_plots

    suite, evaluation = _evaluate(inputs, quiet)
    for scores in _scores(suite, evaluation, scoring):
        for path in write_plots(scores, out, format):
            _console().print(f"wrote {_escape(str(path))}")


@app.command(rich_help_panel="Evaluate and score")
@friendly
def demo(
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Also write the outcomes to FILE.jsonl or FILE.csv.",
        show_default=False, metavar="FILE")] = None,
) -> None:
    """Evaluate and score the bundled illustrative sample outputs on the bundled suites."""
    from ..bundled import bundled_samples
    from ..inputs import InputSpec
    from ..reports.tables import category_table
    from ..reports.terminal import print_evaluation, print_paper_table
    from ..results_io import write_results
    from ..scoring import score as run_score

    console = _console()
    samples = bundled_samples()
    for pair_dir in sorted(p for p in samples.iterdir() if p.is_dir()):
        console.rule(f"[bold]{_escape(pair_dir.name)}[/]: illustrative sample outputs in "
                     f"{_escape(str(pair_dir))}")
        suite, evaluation = _evaluate(InputSpec((pair_dir,), pair=pair_dir.name), True)
        print_evaluation(evaluation, console)
        print_paper_table(category_table(run_score(evaluation, suite, pair_dir.name)), console)
        if out:
            path = out.with_name(f"{out.stem}.{pair_dir.name}{out.suffix}")
            write_results(evaluation.results, path)
            console.print(f"wrote {len(evaluation.results)} outcomes to {_escape(str(path))}")
    console.rule()
    for line in DEMO_LEGEND:  # our own words: wrapped between words in a narrow terminal
        console.print(line, soft_wrap=False)
    console.print(f"Next: `testsuite score {_escape(str(samples / 'de-en'))} --pair de-en` for "
                  "the phenomenon table; `testsuite --help` for everything else.")


#: What the demo's columns and last line mean, for someone who has never read a WMT paper.
DEMO_LEGEND = (
    "[bold]#[/]: the row's items in the scores (no warning or missing output for any "
    "system); [bold]warning rate[/]: the share of outputs the rules left to a person "
    "(testsuite triage).",
    "[bold]signature[/] (testsuite:…): what the numbers depend on (suite, tests, systems, "
    "items); quote it with them so that anyone can reproduce them.",
)
