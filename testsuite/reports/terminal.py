"""Rich terminal rendering of an evaluation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from ..evaluate import Evaluation

OUTCOME_STYLES = {"pass": "green", "fail": "red", "warning": "yellow", "missing": "magenta"}


def print_evaluation(evaluation: Evaluation, console: Console) -> None:
    """Print the outcome counts per system and what was noticed about the inputs."""
    for located in evaluation.located.values():
        found = len(located.lines)
        total = found + len(located.not_found)
        console.print(f"{located.pair}: located {found} of {total} items in "
                      f"{escape(located.source_file)}"
                      + (f"; {len(located.not_found)} not found (not in this source file)"
                         if located.not_found else "")
                      + (f"; {len(located.repeated)} occur more than once (first occurrence "
                         "used)" if located.repeated else ""))
    for excluded in evaluation.excluded:
        console.print(f"[yellow]left out:[/] {escape(str(excluded))}")
    for group in evaluation.identical:
        console.print(f"[yellow]identical outputs:[/] {escape(' = '.join(group))} "
                      "(same output for every item)")
    summary = evaluation.summary()
    for pair in dict.fromkeys(summary.index.get_level_values("pair")):
        table = Table(title=f"Outcomes {pair}", title_justify="left")
        table.add_column("system")
        for outcome, style in OUTCOME_STYLES.items():
            table.add_column(outcome, justify="right", style=style)
        table.add_column("items", justify="right")
        table.add_column("warning rate", justify="right")
        rows = summary.xs(pair, level="pair")
        for system, row in rows.iterrows():
            table.add_row(escape(str(system)), *(str(int(row[o])) for o in OUTCOME_STYLES),
                          str(int(row["total"])), f"{row['warning_rate']:.1%}")
        console.print(table)
    if summary.empty:
        console.print("no outcomes: no system translated the suite")
