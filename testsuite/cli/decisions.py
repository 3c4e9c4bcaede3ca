"""Commands for resolving warnings: pending, verdict, disagreements, settle, suggest, triage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ..reports.escape import json_text
from ..words import counted
from ._common import (
    AnnotatorOption,
    CategoryOption,
    OldFromOption,
    OrderOption,
    PairOption,
    PhenomenonOption,
    QuietOption,
    SuiteOption,
    SystemOption,
    VerdictArgument,
    _chosen_pair,
    _console,
    _escape,
    _evaluate,
    _suite,
    _suite_and_systems,
    app,
    friendly,
    with_inputs,
    with_old_from,
    with_optional_inputs,
)

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from ..inputs import InputSpec


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def pending(
    inputs: InputSpec,
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    order: OrderOption = "impact",
    quiet: QuietOption = False,
) -> None:
    """List the warnings still to decide, one JSON object per distinct output."""
    from ..rule_edit import view_of
    from ..verdicts.queue import pending_warnings

    loaded, evaluation = _evaluate(inputs, quiet)
    found = pending_warnings(evaluation, loaded, categories=category, phenomena=phenomenon,
                             systems=system, order=order)
    for entry in found:
        rule = loaded.rules.get((entry.pair, entry.item))
        line = {**entry.as_dict(), "rule": view_of(rule),
                "rule_file": rule.file if rule else None}
        typer.echo(json_text(line))
    if not found:
        _console(stderr=True).print(_escape(nothing_to_decide(evaluation, system)))


def nothing_to_decide(evaluation: Evaluation, systems: list[str] | None) -> str:
    """The line for an empty list of pending outputs, saying why when the filter names a
    system left out of the evaluation (it did not translate the suite)."""
    named = {name.casefold() for name in systems or ()}
    why = [str(e) for e in evaluation.excluded if e.system.casefold() in named]
    return "nothing to decide" + (f" ({'; '.join(why)})" if why else "")


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_optional_inputs
def verdict(
    item: Annotated[str, typer.Argument(help="Item id.")],
    decision: VerdictArgument,
    inputs: InputSpec,
    output: Annotated[str | None, typer.Option(
        help="The exact output decided on.", show_default=False, metavar="TEXT")] = None,
    system: Annotated[str | None, typer.Option(
        help="Decide on this system's output instead (needs OUTPUTS).", show_default=False,
        metavar="NAME")] = None,
    from_: OldFromOption = None,
    annotator: AnnotatorOption = None,
    note: Annotated[str | None, typer.Option(help="A comment.", show_default=False,
                                             metavar="TEXT")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Override a rule's pass or fail; accept an output no system "
        "produced.")] = False,
    settle: Annotated[bool, typer.Option(
        "--settle", help="Settle a disagreement: verdicts recorded before on the output no "
        "longer count.")] = False,
    disagree: Annotated[bool, typer.Option(
        "--disagree", help="Record a verdict that contradicts another annotator's, as a "
        "disagreement.")] = False,
) -> None:
    """Record a verdict on one exact output of one item (kept in rules/…/verdicts.yaml).

    With the system OUTPUTS, an --output no system produced is refused (a typo) and the
    outcomes the verdict changes are counted; without them the text is recorded as typed.
    """
    import warnings

    from ..errors import TestsuiteError, TestsuiteWarning
    from ..verdicts.conflicts import check_verdict
    from ..verdicts.queue import decide_many

    inputs = with_old_from(inputs, from_, "testsuite verdict ITEM VERDICT OUTPUTS...")
    if (output is None) == (system is None):
        raise TestsuiteError("give either --output TEXT or --system NAME (with the OUTPUTS "
                             "it is in)")
    loaded, systems, chosen = _suite_and_systems(inputs)
    if system is not None:
        if systems is None:
            raise TestsuiteError("--system needs the system outputs: testsuite verdict ITEM "
                                 "VERDICT OUTPUTS... --system NAME")
        from ..names import pick

        [name] = pick([s.system for s in systems if s.pair == chosen], [system], "system")
        chosen_system = next(s for s in systems if s.system == name and s.pair == chosen)
        if item not in chosen_system.outputs:
            raise TestsuiteError(f"{name} has no output for item {item!r}")
        output = chosen_system.outputs[item]
    assert output is not None
    impact = check_verdict(loaded, chosen, item, output, decision, annotator=annotator,
                           note=note, systems=systems, force=force, settle=settle,
                           disagree=disagree)
    if systems is None:
        warnings.warn(TestsuiteWarning(
            "the output was not checked against the systems' outputs (a typo would be "
            "recorded as typed): give them after the verdict, testsuite verdict ITEM VERDICT "
            "OUTPUTS... --output TEXT"), stacklevel=1)
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
    _console(stderr=True).print(counted(len(found), 'disagreement'))


@app.command(rich_help_panel="Resolve warnings")
@friendly
def settle(
    item: Annotated[str, typer.Argument(help="Item id.")],
    decision: VerdictArgument,
    output: Annotated[str, typer.Option(help="The exact output in disagreement.",
                                        metavar="TEXT")],
    pair: PairOption = None,
    suite: SuiteOption = None,
    annotator: Annotated[str | None, typer.Option(
        help="Who settles (default: your login name).", show_default=False,
        metavar="NAME")] = None,
    note: Annotated[str | None, typer.Option(help="Why.", show_default=False,
                                             metavar="TEXT")] = None,
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
def revoke(
    proposal: Annotated[str, typer.Argument(help="The proposal's id (p-…).")],
    pair: PairOption = None,
    suite: SuiteOption = None,
    dry_run: Annotated[bool, typer.Option(help="Only list the verdicts.")] = False,
) -> None:
    """List the verdicts recorded from one proposal and take them back together."""
    from ..errors import TestsuiteError
    from ..model import pair_code
    from ..verdicts.queue import verdicts_files
    from ..verdicts.store import revoke as take_back

    loaded = _suite(suite)
    found = take_back(verdicts_files(loaded, pair_code(pair) if pair else None), proposal,
                      dry_run=dry_run)
    if not found:
        raise TestsuiteError(f"no verdict was recorded from proposal {proposal!r} (its id is "
                             "in verdicts.yaml as 'proposal:')")
    for path, item, stored in found:
        typer.echo(json_text({"item": item, "output": stored.output,
                              "verdict": stored.verdict, "annotator": stored.annotator,
                              "time": stored.time, "file": str(path)}))
    what = f"{counted(len(found), 'verdict')} recorded from {proposal}"
    _console(stderr=True).print(_escape(f"would take back {what}" if dry_run
                                        else f"took back {what}"))


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def suggest(
    inputs: InputSpec,
    phenomenon: PhenomenonOption = None,
    item: Annotated[list[str] | None, typer.Option(
        help="Only what the proposals decide of this item (repeatable).", show_default=False,
        metavar="ID")] = None,
    accept: Annotated[list[str] | None, typer.Option(
        "--accept", help="Record the proposal with this id, as listed (repeatable): its "
        "verdicts carry the id (testsuite revoke ID takes them back).", show_default=False,
        metavar="ID")] = None,
    annotator: AnnotatorOption = None,
    quiet: QuietOption = False,
) -> None:
    """Proposals learned from the decided outputs, one JSON object each: the verdict, what it
    decides, what it was learned from, its estimated precision and its id."""
    from ..errors import TestsuiteError
    from ..verdicts.batch import apply
    from ..verdicts.queue import evaluation_rows, pending_warnings
    from ..verdicts.suggest import Suggestions, by_item

    loaded, evaluation = _evaluate(inputs, quiet)
    pending = pending_warnings(evaluation, loaded, phenomena=phenomenon)
    wanted = list(dict.fromkeys(item or ()))
    found = []
    for proposal in Suggestions(loaded).every(by_item(evaluation_rows(evaluation)), pending):
        if not wanted:
            found.append(proposal)
        found += [proposal.within(i) for i in wanted if i in proposal.items]
    chosen = {p.id: p for p in found}
    unknown = [i for i in accept or () if i not in chosen]
    if unknown:
        raise TestsuiteError(f"no proposal {', '.join(unknown)} among those listed now "
                             "(nothing was recorded): list them again without --accept")
    for proposal in found:
        line = proposal.as_dict()
        if proposal.id in (accept or ()):
            apply(loaded, proposal, annotator)
            line["accepted"] = True
        typer.echo(json_text(line))
    console = _console(stderr=True)
    if accept:
        console.print(f"{counted(len(set(accept)), 'proposal')} recorded (testsuite revoke ID "
                      "takes one back)")
    elif not found:
        from ..verdicts.proposals import DEFAULT

        console.print("nothing to suggest: what was decided carries no pending output with "
                      f"an estimated precision of {DEFAULT.min_precision} (decide more "
                      "outputs first: testsuite triage, or testsuite verdict)")
    else:
        console.print(f"{counted(len(found), 'proposal')} (--accept ID records one)")


def terminal_missing() -> str | None:
    """Why the full-screen triage cannot run here, or None when it can.

    Textual reads keys from standard input and draws on standard error, and it needs the
    controlling terminal for its size and signals. Without one it waits for keys that never
    come and writes its control codes into whatever file the streams go to.
    """
    import os
    import sys

    for name, stream in (("standard input", sys.stdin), ("standard output", sys.stdout),
                         ("standard error", sys.stderr)):
        try:
            if stream is None or not os.isatty(stream.fileno()):
                return f"{name} is not a terminal"
        except (AttributeError, OSError, ValueError):  # a stream without a file descriptor
            return f"{name} is not a terminal"
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return "there is no controlling terminal"
    return None


#: What to use instead of the full-screen triage, named by its refusal and its help.
WITHOUT_A_TERMINAL = ("without one, list the open warnings with `testsuite pending`, decide "
                      "them in a spreadsheet with `testsuite export` and `testsuite import`, "
                      "or one by one with `testsuite verdict`")


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def triage(
    inputs: InputSpec,
    annotator: AnnotatorOption = None,
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    order: OrderOption = "impact",
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No summary line after quitting.")] = False,
) -> None:
    """Resolve warnings in a full-screen terminal UI; every decision is saved at once.

    It needs a terminal (standard input and output, and a controlling terminal);
    without one, list the open warnings with `testsuite pending`, decide them in a
    spreadsheet with `testsuite export` and `testsuite import`, or one by one with
    `testsuite verdict`.

    Keys: p pass, f fail, s skip, u undo your last action, n note, g go to an item id or a
    text, ←/→ (or j/k) move, e/E edit the positive/negative regex, a proposal: review the
    one shown (enter accepts it), b batch, / filter, tab then ↑/↓/PgUp/PgDn scroll a
    panel, q quit (or Ctrl-C).
    """
    from ..errors import TestsuiteError

    missing = terminal_missing()
    if missing is not None:  # before Textual is imported or writes a single control code
        raise TestsuiteError(f"triage needs a terminal ({missing}): {WITHOUT_A_TERMINAL}")
    from ..tui import TriageOptions, run_triage
    from ..verdicts import default_annotator

    options = TriageOptions(
        inputs=inputs, annotator=annotator or default_annotator(),
        categories=tuple(category or ()), phenomena=tuple(phenomenon or ()),
        systems=tuple(system or ()), order=order)
    decided = run_triage(options)
    if not quiet:
        _console().print(f"{decided} decisions saved")
