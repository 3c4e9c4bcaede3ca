"""Commands that evaluate outputs: evaluate, score, item-analysis, report, plot, demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    CategoryOption,
    EncodingOption,
    IdsOption,
    OutputsArgument,
    PairOption,
    PhenomenonOption,
    QuietOption,
    SourceOption,
    SuiteOption,
    SystemOption,
    TimeoutOption,
    _console,
    _emit,
    _escape,
    _run_evaluation,
    app,
    friendly,
    parse_count,
    parse_positive,
    parse_probability,
)


@app.command(rich_help_panel="Evaluate and score")
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
        help="Year of a saved run (default: from the campaign name).", show_default=False,
        parser=parse_positive)] = None,
    timeout: TimeoutOption = 1.0,
    encoding: EncodingOption = "utf-8",
    quiet: QuietOption = False,
) -> None:
    """Judge every item × system: pass, fail, warning or missing (the DFKI method)."""
    from ..reports.terminal import print_evaluation
    from ..results_io import write_results

    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, timeout, encoding,
                                         quiet)
    print_evaluation(evaluation, _console())
    if out:
        write_results(evaluation.results, out)
        _console().print(f"wrote {len(evaluation.results)} outcomes to {_escape(out)}")
    if save:
        from ..runs import save_run

        save_run(save, evaluation, loaded, campaign=campaign, year=year)
        _console().print(f"saved the run in {_escape(save)}")

@app.command(rich_help_panel="Evaluate and score")
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
    alpha: Annotated[float, typer.Option(help="One-tailed significance level.",
                                         parser=parse_probability)] = 0.05,
    correction: Annotated[str, typer.Option(
        help="Multiple-comparison correction: none, holm, bonferroni or fdr_bh.")] = "none",
    clusters: Annotated[bool, typer.Option(
        "--clusters", help="Also compute full clusters and rank ranges.")] = False,
    bounds: Annotated[bool, typer.Option(
        "--bounds", help="Show how far open warnings could move each accuracy.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the paired bootstrap.",
                                      parser=parse_count)] = 12345,
    timeout: TimeoutOption = 1.0,
    encoding: EncodingOption = "utf-8",
    quiet: QuietOption = False,
) -> None:
    """Accuracy per category and phenomenon with significance clusters (paper tables)."""
    from ..errors import TestsuiteError
    from ..reports.render import FORMATS, render
    from ..reports.tables import paper_tables
    from ..reports.terminal import print_paper_table
    from ..scores import ScoreOptions
    from ..scores import score as run_score

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

@app.command("item-analysis", rich_help_panel="Evaluate and score")
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
    show: Annotated[int, typer.Option(help="How many items to list in each group.",
                                      parser=parse_count)] = 10,
    quiet: QuietOption = False,
) -> None:
    """Items every system passes, none passes, and how well each separates systems."""
    from rich.table import Table

    from ..files import write_text
    from ..reports.escape import csv_text
    from ..scores import ScoreOptions
    from ..scores import item_analysis as run_analysis

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
            write_text(path, csv_text(analysis))
            console.print(f"wrote the analysis of {len(analysis)} items to {_escape(path)}")

@app.command(rich_help_panel="Evaluate and score")
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
    alpha: Annotated[float, typer.Option(help="One-tailed significance level.",
                                         parser=parse_probability)] = 0.05,
    title: Annotated[str | None, typer.Option(help="Title of the report.",
                                              show_default=False)] = None,
    quiet: QuietOption = False,
) -> None:
    """Write an offline HTML report: tables, heatmap, charts and every output, filterable."""
    from ..errors import TestsuiteError
    from ..files import write_text
    from ..reports.html import html_report
    from ..scores import ScoreOptions
    from ..scores import score as run_score

    if test not in ("ztest", "paired"):
        raise TestsuiteError(f"--test must be ztest or paired, not {test!r}")
    options = ScoreOptions(fair=fair, test=test, alpha=alpha)  # type: ignore[arg-type]
    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, 1.0, "utf-8", quiet)
    pairs = list(dict.fromkeys(evaluation.results["pair"].astype(str)))
    scores = [run_score(evaluation, loaded, p, options) for p in pairs]
    write_text(html, html_report(scores, evaluation, loaded, title=title))
    _console().print(f"wrote the report to {_escape(html)}")

@app.command(rich_help_panel="Evaluate and score")
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
    from ..errors import TestsuiteError
    from ..reports.plots import write_plots
    from ..scores import ScoreOptions
    from ..scores import score as run_score

    if format not in ("png", "svg"):
        raise TestsuiteError(f"--format must be png or svg, not {format!r}")
    loaded, evaluation = _run_evaluation(outputs, pair, source, ids, suite, 1.0, "utf-8", quiet)
    for chosen in dict.fromkeys(evaluation.results["pair"].astype(str)):
        scores = run_score(evaluation, loaded, chosen, ScoreOptions(fair=fair))
        for path in write_plots(scores, out, format):
            _console().print(f"wrote {_escape(path)}")

@app.command(rich_help_panel="Evaluate and score")
@friendly
def demo(
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Also write the outcomes to FILE.jsonl or FILE.csv.",
        show_default=False)] = None,
) -> None:
    """Evaluate and score the bundled illustrative sample outputs on the bundled suites."""
    from ..bundled import bundled_samples
    from ..reports.tables import category_table
    from ..reports.terminal import print_evaluation, print_paper_table
    from ..results_io import write_results
    from ..scores import score as run_score

    console = _console()
    samples = bundled_samples()
    for pair_dir in sorted(p for p in samples.iterdir() if p.is_dir()):
        console.rule(f"[bold]{_escape(pair_dir.name)}[/]: illustrative sample outputs in "
                     f"{_escape(pair_dir)}")
        suite, evaluation = _run_evaluation([pair_dir], pair_dir.name, None, None, None, 1.0,
                                            "utf-8", True)
        print_evaluation(evaluation, console)
        print_paper_table(category_table(run_score(evaluation, suite, pair_dir.name)), console)
        if out:
            path = out.with_name(f"{out.stem}.{pair_dir.name}{out.suffix}")
            write_results(evaluation.results, path)
            console.print(f"wrote {len(evaluation.results)} outcomes to {_escape(path)}")
    console.print(f"Next: `testsuite score {_escape(samples / 'de-en')} --pair de-en` for the "
                  "phenomenon table; `testsuite --help` for everything else.")
