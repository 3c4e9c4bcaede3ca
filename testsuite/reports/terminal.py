"""Rich terminal rendering of an evaluation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from .escape import terminal as esc

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from .tables import PaperTable

OUTCOME_STYLES = {"pass": "green", "fail": "red", "warning": "yellow", "missing": "magenta"}


def print_evaluation(evaluation: Evaluation, console: Console) -> None:
    """Print the outcome counts per system and what was noticed about the inputs."""
    for located in evaluation.located.values():
        found = len(located.lines)
        total = found + len(located.not_found)
        console.print(f"{located.pair}: located {found} of {total} items in "
                      f"{esc(located.source_file)}"
                      + (f"; {len(located.not_found)} not found (not in this source file)"
                         if located.not_found else "")
                      + (f"; {len(located.repeated)} occur more than once (first occurrence "
                         "used)" if located.repeated else ""))
    for excluded in evaluation.excluded:
        console.print(f"[yellow]left out:[/] {esc(str(excluded))}")
    for group in evaluation.identical:
        console.print(f"[yellow]identical outputs:[/] {esc(' = '.join(group))} "
                      "(same output for every item)")
    summary = evaluation.summary()
    for pair in dict.fromkeys(summary.index.get_level_values("pair")):
        table = Table(title=f"Outcomes {esc(pair)}", title_justify="left")
        table.add_column("system")
        for outcome, style in OUTCOME_STYLES.items():
            table.add_column(outcome, justify="right", style=style)
        table.add_column("items", justify="right")
        table.add_column("warning rate", justify="right")
        rows = summary.xs(pair, level="pair")
        for system, row in rows.iterrows():
            table.add_row(esc(str(system)), *(str(int(row[o])) for o in OUTCOME_STYLES),
                          str(int(row["total"])), f"{row['warning_rate']:.1%}")
        console.print(table)
    if summary.empty:
        console.print("no outcomes: no system translated the suite")


def print_paper_table(table: PaperTable, console: Console, bounds: bool = False) -> None:
    """Draw a paper table: bold first cluster, shaded category rows, averages at the bottom.

    A terminal is narrower than a paper page: when the systems do not fit side by side they
    are shown in several blocks (best systems first), each with the row labels.
    """
    label_width = min(34, max(len(row.label) + 2 for row in table.rows))
    cell_width = 13 if bounds else 5
    widths = [max(len(s), cell_width) + 3 for s in table.systems]
    blocks = column_blocks(widths, console.width - label_width - 3 - 7 - 8 - 1)
    for number, block in enumerate(blocks, start=1):
        title = esc(table.title) + (f" — systems {block[0] + 1}–{block[-1] + 1} of "
                               f"{len(table.systems)}" if len(blocks) > 1 else "")
        console.print(_grid(table, block, title, label_width, bounds,
                            with_average=number == len(blocks)))
    console.print(esc(table.note))
    console.print(f"[dim]{esc(table.signature)}[/]")


def column_blocks(widths: list[int], room: int) -> list[list[int]]:
    """Split columns (by index) into consecutive blocks that each fit in `room` characters."""
    blocks: list[list[int]] = [[]]
    used = 0
    for index, width in enumerate(widths):
        if blocks[-1] and used + width > room:
            blocks.append([])
            used = 0
        blocks[-1].append(index)
        used += width
    return blocks


def _grid(table: PaperTable, block: list[int], title: str, label_width: int, bounds: bool,
          with_average: bool) -> Table:
    from .render import percent

    grid = Table(title=title, title_justify="left", header_style="bold")
    grid.add_column("", no_wrap=True, max_width=label_width, overflow="ellipsis")
    grid.add_column("#", justify="right", style="dim")
    for index in block:
        grid.add_column(esc(table.systems[index]), justify="right", no_wrap=True)
    if with_average:
        grid.add_column("avg.", justify="right", style="dim")
    shade = any(row.kind == "phenomenon" for row in table.rows)
    kinds = [row.kind for row in table.rows]
    for position, row in enumerate(table.rows):
        cells = []
        for index in block:
            cell = row.cells[index]
            text = percent(cell.accuracy)
            if bounds and cell.lower is not None and cell.upper is not None:
                text += f" ({percent(cell.lower)}–{percent(cell.upper)})"
            cells.append(f"[bold]{text}[/]" if cell.bold else text)
        if with_average:
            cells.append(percent(row.average))
        label = esc(row.label)
        style = None
        if row.kind == "category" and shade:
            style = "on grey19"
        elif row.kind == "phenomenon":
            label = "  " + label
        elif row.kind == "average":
            style = "italic"
        before_averages = (row.kind != "average" and position + 1 < len(kinds)
                           and kinds[position + 1] == "average")
        grid.add_row(label, str(row.items), *cells, style=style, end_section=before_averages)
    return grid
