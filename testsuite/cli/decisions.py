"""Commands for resolving warnings: pending, verdict, disagreements, settle, suggest, triage."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..reports.escape import json_text
from ._common import (
    CategoryOption,
    PairOption,
    PhenomenonOption,
    SourceOption,
    SuiteOption,
    SystemOption,
    _chosen_pair,
    _console,
    _escape,
    _evaluate,
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
    from ..rule_edit import view_of
    from ..verdicts.queue import pending_warnings

    loaded, evaluation = _evaluate(inputs, True)
    for entry in pending_warnings(evaluation, loaded, categories=category, phenomena=phenomenon,
                                  systems=system, order=order):
        rule = loaded.rules.get((entry.pair, entry.item))
        line = {**entry.as_dict(), "rule": view_of(rule),
                "rule_file": rule.file if rule else None}
        typer.echo(json_text(line))


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
        "--from", help="System outputs (as for evaluate): --system's output is taken from "
        "them, an --output no system produced is refused, and the outcomes the verdict "
        "changes are counted.", show_default=False)] = None,
    pair: PairOption = None,
    source: SourceOption = None,
    suite: SuiteOption = None,
    annotator: Annotated[str | None, typer.Option(
        help="Who decides (default: your login name).", show_default=False)] = None,
    note: Annotated[str | None, typer.Option(help="A comment.", show_default=False)] = None,
    force: Annotated[bool, typer.Option(
        help="Override a rule's pass or fail; accept an output no system produced.")] = False,
    settle: Annotated[bool, typer.Option(
        help="Settle a disagreement: verdicts recorded before on the output no longer count."
    )] = False,
    disagree: Annotated[bool, typer.Option(
        help="Record a verdict that contradicts another annotator's, as a disagreement.")
    ] = False,
) -> None:
    """Record a verdict on one exact output of one item (kept in rules/…/verdicts.yaml)."""
    from ..errors import TestsuiteError
    from ..verdicts.conflicts import check_verdict
    from ..verdicts.queue import decide_many

    if (output is None) == (system is None):
        raise TestsuiteError("give either --output TEXT or --system NAME with --from PATH")
    loaded = _suite(suite)
    chosen = _chosen_pair(pair, loaded.pairs)
    systems = None
    if from_:
        from ..inputs import load_outputs

        systems, _ = load_outputs(loaded, from_, pair=chosen, source=source)
    if system is not None:
        if systems is None:
            raise TestsuiteError("--system needs --from: where that system's outputs are")
        from ..names import pick

        [name] = pick([s.system for s in systems], [system], "system")
        chosen_system = next(s for s in systems if s.system == name)
        if item not in chosen_system.outputs:
            raise TestsuiteError(f"{name} has no output for item {item!r}")
        output = chosen_system.outputs[item]
    assert output is not None
    impact = check_verdict(loaded, chosen, item, output, decision, annotator=annotator,
                           note=note, systems=systems, force=force, settle=settle,
                           disagree=disagree)
    [(path, _, stored)] = decide_many(loaded, [(chosen, item, impact.verdict)])
    console = _console()
    console.print(f"recorded {stored.verdict} for {chosen} item {_escape(item)} on "
                  f"{_escape(repr(stored.output))} in {_escape(str(path))}")
    console.print(_escape(impact.summary()))
    if impact.contradicts and not settle:
        console.print("annotators now disagree on this output: it is a warning until "
                      "settled (testsuite disagreements, testsuite settle)")


@app.command(rich_help_panel="Resolve warnings")
@friendly
def disagreements(
    pair: PairOption = None,
    suite: SuiteOption = None,
) -> None:
    """List outputs on which annotators' verdicts contradict each other (one JSON per line)."""
    from ..model import pair_code
    from ..verdicts.conflicts import disagreements as find

    loaded = _suite(suite)
    found = find(loaded, pair_code(pair) if pair else None)
    for d in found:
        typer.echo(json_text({"pair": d.pair, "item": d.item, "output": d.output,
                               "verdicts": [{"annotator": v.annotator, "verdict": v.verdict,
                                             "time": v.time, "note": v.note}
                                            for v in d.verdicts],
                               "file": str(d.file) if d.file else None}))
    _console(stderr=True).print(f"{len(found)} disagreement{'s' if len(found) != 1 else ''}")


@app.command(rich_help_panel="Resolve warnings")
@friendly
def settle(
    item: Annotated[str, typer.Argument(help="Item id.")],
    decision: Annotated[str, typer.Argument(metavar="VERDICT", help="pass or fail.")],
    output: Annotated[str, typer.Option(help="The exact output in disagreement.")],
    pair: PairOption = None,
    suite: SuiteOption = None,
    annotator: Annotated[str | None, typer.Option(
        help="Who settles (default: your login name).", show_default=False)] = None,
    note: Annotated[str | None, typer.Option(help="Why.", show_default=False)] = None,
) -> None:
    """Settle a disagreement: record the verdict that counts from now on."""
    from ..errors import TestsuiteError
    from ..model import DISAGREEMENT
    from ..verdicts.queue import decide

    loaded = _suite(suite)
    chosen = _chosen_pair(pair, loaded.pairs)
    rule = loaded.rules.get((chosen, item))
    if rule is None or rule.verdict_for(output) != DISAGREEMENT:
        raise TestsuiteError(f"no disagreement on that output of {chosen} item {item!r} "
                             "(testsuite disagreements lists them)")
    path, stored = decide(loaded, chosen, item, output, decision, annotator=annotator,
                          note=note, settles=True)
    _console().print(f"settled {_escape(item)} as {stored.verdict} in {_escape(str(path))}")


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def suggest(
    inputs: InputSpec,
    item: Annotated[list[str] | None, typer.Option(
        help="Only this item (repeatable).", show_default=False)] = None,
    accept: Annotated[bool, typer.Option(
        help="Write the best suggestion of each item into its rules file, with the decided "
        "outputs as examples.")] = False,
) -> None:
    """Rule suggestions learned from the verdicts, one JSON object per item."""
    from ..verdicts.queue import evaluation_rows, outputs_by_item
    from ..verdicts.suggest import accept as accept_suggestion
    from ..verdicts.suggest import suggest as learn

    loaded, evaluation = _evaluate(inputs, True)
    wanted = set(item or ())
    by_item = outputs_by_item(row for row in evaluation_rows(evaluation)
                              if not wanted or row[1] in wanted)
    accepted = 0
    for key, outputs_of in by_item.items():
        rule = loaded.rules.get(key)
        if rule is None or not rule.verdicts:
            continue
        found = learn(key[0], key[1], rule, outputs_of)
        if not found:
            continue
        best = found[0]
        line: dict[str, object] = {
            "pair": key[0], "item": key[1], "field": best.field, "learned": best.learned,
            "pattern": best.pattern, "examples": best.examples,
            "decides": [{"output": d.output, "systems": list(d.systems),
                         "outcome": d.outcome} for d in best.decides]}
        if accept and rule.file:
            accept_suggestion(loaded, best)
            line["accepted"] = True
            accepted += 1
        typer.echo(json_text(line))
    if accept:
        _console(stderr=True).print(f"{accepted} suggestions written into the rules files")


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def triage(
    inputs: InputSpec,
    annotator: Annotated[str | None, typer.Option(
        help="Who decides (default: your login name).", show_default=False)] = None,
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    order: Annotated[str, typer.Option(help="impact (default) or suite.")] = "impact",
) -> None:
    """Resolve warnings in a full-screen terminal UI; every decision is saved at once."""
    from ..tui import TriageOptions, run_triage
    from ..verdicts import default_annotator

    options = TriageOptions(
        inputs=inputs, annotator=annotator or default_annotator(),
        categories=tuple(category or ()), phenomena=tuple(phenomenon or ()),
        systems=tuple(system or ()), order=order)
    decided = run_triage(options)
    _console().print(f"{decided} decisions saved")
