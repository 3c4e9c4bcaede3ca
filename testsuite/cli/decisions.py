"""Commands for resolving warnings: pending, verdict, triage."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._common import (
    CategoryOption,
    EncodingOption,
    IdsOption,
    OutputsArgument,
    PairOption,
    PhenomenonOption,
    SourceOption,
    SuiteOption,
    SystemOption,
    _console,
    _evaluate,
    _only_pair,
    _suite,
    app,
    friendly,
    with_inputs,
)

if TYPE_CHECKING:
    from ..inputs import InputSpec


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def pending(
    inputs: InputSpec,
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    order: Annotated[str, typer.Option(help="impact (default) or suite.")] = "impact",
) -> None:
    """List the warnings still to decide, one JSON object per distinct output."""
    import json

    from ..triage import pending_warnings

    loaded, evaluation = _evaluate(inputs, True)
    for entry in pending_warnings(evaluation, loaded, categories=category, phenomena=phenomenon,
                                  systems=system, order=order):
        typer.echo(json.dumps(entry.as_dict(), ensure_ascii=False))


@app.command(rich_help_panel="Resolve warnings")
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
    from ..errors import TestsuiteError
    from ..model import pair_code
    from ..triage import decide

    if (output is None) == (system is None):
        raise TestsuiteError("give either --output TEXT or --system NAME with --from PATH")
    loaded = _suite(suite)
    chosen = pair_code(pair) if pair else _only_pair(loaded.pairs)
    if system is not None:
        from ..inputs import load_outputs

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

@app.command(rich_help_panel="Resolve warnings")
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
    from ..bundled import bundled_suite_paths
    from ..tui import TriageOptions, run_triage
    from ..verdicts import default_annotator

    options = TriageOptions(
        suite_paths=list(suite or bundled_suite_paths()), outputs=list(outputs), pair=pair,
        source=source, ids=ids, encoding=encoding, annotator=annotator or default_annotator(),
        categories=tuple(category or ()), phenomena=tuple(phenomenon or ()),
        systems=tuple(system or ()), order=order)
    decided = run_triage(options)
    _console().print(f"{decided} decisions saved")
