"""The year-over-year command: compare."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    TESTS,
    CategoryOption,
    MacroTestOption,
    PairOption,
    ResamplesOption,
    SeedOption,
    SuiteOption,
    SystemOption,
    _chosen_pair,
    _console,
    _emit,
    _suite,
    app,
    format_for,
    friendly,
    one_of,
    parse_count,
    parse_probability,
)


def distinct_runs(runs: list[Path]) -> list[Path]:
    """The runs named, each once (a run named twice would double every system), with a
    warning for each repeat.

    Raises:
        typer.BadParameter: when fewer than two different runs remain (exit status 2).
    """
    import warnings

    from ..errors import TestsuiteWarning

    seen: dict[Path, Path] = {}
    repeats = []
    for path in runs:
        key = path.resolve()
        if key in seen:
            repeats.append((path, seen[key]))
        else:
            seen[key] = path
    if len(seen) < 2:
        times = {2: "twice"}.get(len(runs), f"{len(runs)} times")
        named = f"{runs[0]} is named {times}: " if len(runs) > 1 else ""
        raise typer.BadParameter(f"{named}compare needs two different saved runs (save each "
                                 "year's with testsuite evaluate … --save DIR)",
                                 param_hint="RUNS")
    for path, first in repeats:
        warnings.warn(TestsuiteWarning(f"{path} is named twice (as {first} before): it is "
                                       "compared once"), stacklevel=2)
    return list(seen.values())


#: The formats of `compare`.
COMPARE_FORMATS = ("terminal", "csv", "json", "latex", "html")


@app.command(rich_help_panel="Compare years")
@friendly
def compare(
    runs: Annotated[list[Path], typer.Argument(
        help="Saved runs (folders written by `evaluate --save`), any order.")],
    pair: PairOption = None,
    suite: SuiteOption = None,
    map_: Annotated[list[str] | None, typer.Option(
        "--map", help="Match a renamed system (repeatable).", show_default=False,
        metavar="OLD=NEW")] = None,
    system: SystemOption = None,
    category: CategoryOption = None,
    test: Annotated[str, typer.Option(
        help="Test of the change in proportion rows: paired (exact McNemar; the default "
        "here, because every year judges the same items, unlike `score`, whose ztest "
        "default is the published method for comparing systems) or ztest.",
        **one_of(*TESTS))] = "paired",
    macro_test: MacroTestOption = None,
    alpha: Annotated[float, typer.Option(help="Two-sided significance level.",
                                         parser=parse_probability, metavar="P")] = 0.05,
    seed: SeedOption = 12345,
    resamples: ResamplesOption = 10_000,
    format: Annotated[str | None, typer.Option(
        "--format", "-f", help="The report's format (default: the one the suffix of --out "
        "names, .csv .json .tex .html; else terminal).", show_default=False,
        **one_of(*COMPARE_FORMATS))] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the report to FILE.", show_default=False,
        metavar="FILE")] = None,
    regressions: Annotated[int, typer.Option(
        help="List up to N regressed items per system.", parser=parse_count,
        metavar="N")] = 0,
) -> None:
    """Compare saved runs of the same systems across years (current rules applied).

    The suite is the one each run was saved with, as its files are now; --suite names
    another (for example after moving the suite folder).
    """
    from ..compare import CompareOptions
    from ..compare import compare as run_compare
    from ..errors import TestsuiteError
    from ..reports.compare_render import print_comparison, render_comparison
    from ..runs import load_run, read_metadata

    runs = distinct_runs(runs)
    format = format_for(format, out, COMPARE_FORMATS)
    mapping = []
    for entry in map_ or ():
        old, sep, new = entry.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise TestsuiteError(f"--map takes OLD=NEW, not {entry!r}")
        mapping.append((old.strip(), new.strip()))
    options = CompareOptions(test=test, macro_test=macro_test,  # type: ignore[arg-type]
                             alpha=alpha, mapping=tuple(mapping),
                             systems=tuple(system or ()) or None,
                             categories=tuple(category or ()) or None, seed=seed,
                             resamples=resamples)
    if suite:
        loaded = _suite(suite)
    else:  # runs saved with the same suite share one load of it
        recorded = {tuple(read_metadata(path).get("suite") or ()) for path in runs}
        loaded = _suite([Path(p) for p in recorded.pop()]) if len(recorded) == 1 \
            and () not in recorded else None
    saved = [load_run(path, loaded, cache=True) for path in runs]
    pairs = sorted(set.intersection(*(set(r.evaluation.pairs) for r in saved)))
    if not pair and not pairs:
        raise TestsuiteError("the runs have no language pair in common")
    chosen = _chosen_pair(pair, pairs)
    comparison = run_compare(saved, chosen, options)
    if format == "terminal" and out is None:
        print_comparison(comparison, _console(), regressions)
        return
    if format == "html":
        from ..reports.html import comparison_html

        text = comparison_html(comparison)
    else:
        text = render_comparison(comparison, "json" if format == "terminal" else format)
    _emit(text, out, f"the {format} comparison")
