"""Commands for annotating in a team: spreadsheets (export, import) and agreement."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..reports.escape import json_text
from ..words import counted
from ._common import (
    AnnotatorOption,
    CategoryOption,
    OldFromOption,
    PairOption,
    PhenomenonOption,
    QuietOption,
    SuiteOption,
    SystemOption,
    _chosen_pair,
    _console,
    _escape,
    _evaluate,
    _suite,
    _suite_and_systems,
    app,
    friendly,
    one_of,
    parse_count,
    parse_positive,
    with_inputs,
    with_old_from,
    with_optional_inputs,
)

if TYPE_CHECKING:
    from ..inputs import InputSpec
    from ..model import Suite


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def export(
    inputs: InputSpec,
    out: Annotated[Path, typer.Option("--out", "-o", help="The sheet: FILE.csv or FILE.xlsx.",
                                      metavar="FILE")],
    category: CategoryOption = None,
    phenomenon: PhenomenonOption = None,
    system: SystemOption = None,
    quiet: QuietOption = False,
) -> None:
    """Write the pending decisions as a spreadsheet to fill in (verdict, note columns)."""
    from ..verdicts.queue import evaluation_rows, pending_warnings
    from ..verdicts.sheets import export_rows, write_sheet
    from ..verdicts.suggest import Suggestions, by_item

    loaded, evaluation = _evaluate(inputs, quiet)
    pending = pending_warnings(evaluation, loaded, categories=category, phenomena=phenomenon,
                               systems=system)
    # The suggested verdict of an output: that of the proposal deciding it, learned from the
    # decided outputs of its phenomenon (most outcomes decided first).
    judged = by_item(evaluation_rows(evaluation))
    suggested: dict[tuple[str, str, str], str] = {}
    for proposal in Suggestions(loaded).every(judged, pending):
        for item_id, decided in proposal.decides:
            suggested.setdefault((proposal.pair, item_id, decided.output), decided.outcome)
    rows = export_rows(pending, loaded, suggested)
    write_sheet(out, rows)
    _console().print(f"wrote {len(rows)} pending decisions to {_escape(str(out))}; fill in "
                     "the verdict column (pass or fail) and import it with testsuite import")


@app.command("import", rich_help_panel="Resolve warnings")
@friendly
@with_optional_inputs
def import_sheet(
    sheet: Annotated[Path, typer.Argument(help="A filled sheet (CSV or XLSX).")],
    inputs: InputSpec,
    from_: OldFromOption = None,
    annotator: Annotated[str | None, typer.Option(
        help="Who decided (default: your login name).", show_default=False,
        metavar="NAME")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Allow overriding a rule's pass or fail.")] = False,
    disagree: Annotated[bool, typer.Option(
        "--disagree", help="Record verdicts that contradict another annotator's, as "
        "disagreements (for a blind re-decision).")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Check and summarise; record nothing.")] = False,
) -> None:
    """Record the verdicts of a filled sheet, with the same checks as `verdict`.

    With the system OUTPUTS, rows on an output no system produced are refused and the
    outcomes that change are counted.
    """
    from ..verdicts.queue import decide_many
    from ..verdicts.sheets import check_rows, read_sheet
    from ..verdicts.store import default_annotator

    inputs = with_old_from(inputs, from_, "testsuite import SHEET OUTPUTS...")
    loaded, systems, chosen = _suite_and_systems(inputs)
    who = annotator or default_annotator()
    rows = read_sheet(sheet)
    checked = check_rows(loaded, rows, sheet, pair=chosen, annotator=who, systems=systems,
                         force=force, disagree=disagree)
    console = _console()
    if dry_run:
        console.print("would record " + _escape(checked.summary()))
        return
    decide_many(loaded, ((row.pair or chosen, row.item, impact.verdict)
                         for row, impact in checked.impacts))
    console.print("recorded " + _escape(checked.summary()))


@app.command(rich_help_panel="Resolve warnings")
@friendly
def agreement(
    second: Annotated[str, typer.Option(help="The second annotator.", metavar="NAME")],
    first: Annotated[str | None, typer.Option(
        help="The first annotator (for --sample: default anyone else).", show_default=False,
        metavar="NAME")] = None,
    pair: PairOption = None,
    suite: SuiteOption = None,
    sample: Annotated[int | None, typer.Option(
        help="Instead of the report: write a blind sample of this many decided outputs "
        "(without their verdicts) for --second to re-decide, to --out.", show_default=False,
        parser=parse_positive, metavar="N")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the random sample.", metavar="N",
                                      parser=parse_count)] = 1,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The sample sheet: FILE.csv or FILE.xlsx.", show_default=False,
        metavar="FILE")] = None,
) -> None:
    """Agreement of two annotators: a blind sample to re-decide, then raw agreement and
    Cohen's kappa per category, and the disagreements."""
    from rich.table import Table

    from ..errors import TestsuiteError
    from ..model import pair_code
    from ..verdicts.agreement import agreement as measure
    from ..verdicts.agreement import blind_sample
    from ..verdicts.sheets import sample_rows, write_sheet

    loaded = _suite(suite)
    if sample is not None:
        if out is None:
            raise TestsuiteError("--sample needs --out: the sheet to write")
        chosen = _chosen_pair(pair, loaded.pairs)
        rows = sample_rows(blind_sample(loaded, second, sample, seed, first=first,
                                        pair=chosen))
        write_sheet(out, rows)
        _console().print(f"wrote a blind sample of {len(rows)} decided outputs for "
                         f"{_escape(second)} to {_escape(str(out))}; import it with "
                         f"testsuite import {_escape(str(out))} --annotator "
                         f"{_escape(second)} --disagree")
        return
    if first is None:
        raise TestsuiteError("--first: whose verdicts to compare with --second's")
    chosen_pair = pair_code(pair) if pair else None
    result = measure(loaded, first, second, chosen_pair)
    if not result.rows[-1].outputs:
        raise TestsuiteError(_nothing_in_common(loaded, first, second, chosen_pair))
    table = Table(title=f"Agreement of {_escape(first)} and {_escape(second)}",
                  title_justify="left")
    for column in ("category", "outputs", "agreed", "raw", "kappa"):
        table.add_column(column, justify="left" if column == "category" else "right")
    for row in result.rows:
        table.add_row(_escape(row.category), str(row.outputs), str(row.agreed),
                      f"{row.raw:.3f}", "–" if math.isnan(row.kappa) else f"{row.kappa:.3f}")
    console = _console()
    console.print(table)
    if any(math.isnan(row.kappa) for row in result.rows):
        console.print("kappa –: undefined where both annotators gave every output the same "
                      "verdict (agreement by chance would be certain)")
    console.print(f"{len(result.disagreements)} disagreements to settle "
                  "(testsuite disagreements lists them, testsuite settle settles one)")


def _nothing_in_common(suite: Suite, first: str, second: str, pair: str | None) -> str:
    """Why two annotators have no decided output in common, and what to do about it."""
    from ..verdicts.conflicts import with_verdicts

    who = {v.annotator for _, rule in with_verdicts(suite, pair) for v in rule.verdicts}
    missing = [name for name in (first, second) if name not in who]
    sample = (f"have {second} re-decide a blind sample of {first}'s decisions: testsuite "
              f"agreement --first {first} --second {second} --sample 100 --out sample.csv, "
              f"then testsuite import sample.csv --annotator {second} --disagree")
    where = f" for {pair}" if pair else ""
    if missing:
        known = ", ".join(sorted(a for a in who if a)) or "none"
        return (f"{' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} no verdicts "
                f"in this suite{where} (annotators with verdicts: {known}); {sample}")
    return f"{first} and {second} have decided no output in common{where}; {sample}"


@app.command(rich_help_panel="Resolve warnings")
@friendly
@with_inputs
def batch(
    inputs: InputSpec,
    decision: Annotated[str | None, typer.Option(
        "--verdict", help="The verdict to record.", show_default=False,
        **one_of("pass", "fail"))] = None,
    item: Annotated[str | None, typer.Option(
        help="Every pending output of this item…", show_default=False, metavar="ID")] = None,
    phenomenon: Annotated[str | None, typer.Option(
        help="…or of every item of this phenomenon…", show_default=False, metavar="NAME")
    ] = None,
    pattern: Annotated[str, typer.Option(
        help="…that this regex finds (default: all of them).", show_default=False,
        metavar="REGEX")] = "",
    source_has: Annotated[str, typer.Option(
        help="Only items whose source sentence this regex finds (default: any).",
        show_default=False, metavar="REGEX")] = "",
    annotator: AnnotatorOption = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Only show what would be decided.")] = False,
    quiet: QuietOption = False,
) -> None:
    """Decide many pending outputs at once: those of an item or phenomenon that match (the
    proposals learned from decided outputs: testsuite suggest)."""
    from ..errors import TestsuiteError
    from ..verdicts.batch import apply, select
    from ..verdicts.queue import pending_warnings

    if decision is None:
        raise TestsuiteError("--verdict is needed: pass or fail")
    loaded, evaluation = _evaluate(inputs, quiet)
    assert decision is not None
    if item is not None and not any((pair, item) in loaded.items for pair in evaluation.pairs):
        # A typo would otherwise "decide 0 outputs" and succeed.
        raise TestsuiteError(f"no {' or '.join(evaluation.pairs)} item {item!r} in the suite")
    chosen = select(pending_warnings(evaluation, loaded), decision, pattern, item=item,
                    phenomenon=phenomenon, source=source_has)
    for item_id, decided in chosen.decides:
        typer.echo(json_text({"item": item_id, "output": decided.output,
                               "systems": list(decided.systems), "verdict": decision}))
    console = _console(stderr=True)
    what = (f"{counted(len(chosen.decides), 'output')} ({counted(chosen.outcomes, 'outcome')}) "
            f"of {chosen.scope}")
    if dry_run or not chosen.decides:
        console.print(f"would decide {_escape(what)} {decision}")
        return
    apply(loaded, chosen, annotator)
    console.print(f"decided {_escape(what)} {decision}: proposal {chosen.id} (testsuite "
                  f"revoke {chosen.id} takes them back)")
