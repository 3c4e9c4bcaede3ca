"""Rich terminal rendering of an evaluation and of the paper tables."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .common import CLUSTER_LEGEND, OUTCOME_STYLES, cluster_mark, percent
from .escape import terminal as esc
from .escape import visible

if TYPE_CHECKING:
    from ..evaluate import Evaluation
    from .tables import Cell, PaperTable



def print_evaluation(evaluation: Evaluation, console: Console, not_located: bool = False
                     ) -> None:
    """Print the outcome counts per system and what was noticed about the inputs.

    Args:
        evaluation: The evaluation.
        console: Where to print.
        not_located: Also list the ids of the items not found in a WMT source.
    """
    for located in evaluation.located.values():
        found = len(located.lines)
        total = found + len(located.not_found)
        console.print(f"{located.pair}: located {found} of {total} items in "
                      f"{esc(located.source_file)}"
                      + (f"; {len(located.not_found)} not found (not in this source file"
                         + ("" if not_located else "; --not-located lists them") + ")"
                         if located.not_found else ""))
        if not_located and located.not_found:
            console.print(f"  not located: {esc(', '.join(located.not_found))}")
        if located.repeated:
            policy = {"first": "the first occurrence's output used",
                      "last": "the last occurrence's output used",
                      "agree": "occurrences judged differently are warnings"}
            console.print(f"{located.pair}: {len(located.repeated)} items occur more than once "
                          f"in the source ({policy[located.repeated_policy]}; --repeated "
                          "first|last|agree chooses)")
            for name, items in sorted(located.differing.items(),
                                        key=lambda kv: (-len(kv[1]), kv[0])):
                console.print(f"  {esc(name)} translated the occurrences of "
                              f"{len(items)} of them differently, e.g. "
                              f"{esc(', '.join(items[:5]))}")
    for excluded in evaluation.excluded:
        console.print(f"[yellow]left out:[/] {esc(str(excluded))}")
    for group in evaluation.identical:
        console.print(f"[yellow]identical outputs:[/] {esc(' = '.join(group))} "
                      "(same output for every item)")
    counts = evaluation.counts()
    for pair in evaluation.pairs:
        table = Table(title=f"Outcomes {esc(pair)}", title_justify="left")
        table.add_column("system")
        for outcome, style in OUTCOME_STYLES.items():
            table.add_column(outcome, justify="right", style=style)
        table.add_column("items", justify="right")
        table.add_column("warning rate", justify="right")
        for (of, system), row in counts.items():
            if of != pair:
                continue
            total = sum(row.values())
            table.add_row(Text(visible(system)), *(str(row[o]) for o in OUTCOME_STYLES), str(total),
                          f"{row['warning'] / total:.1%}")
        console.print(table)
    if not counts:
        console.print("no outcomes: no system translated the suite")


Layout = Literal["auto", "columns", "rows"]
LAYOUTS = ("auto", "columns", "rows")


def cell_text(cell: Cell, bounds: bool, marker: bool) -> str:
    """A cell as plain text: accuracy, `*` for the first cluster when `marker`, the bounds
    and the cluster / rank range when present."""
    text = percent(cell.accuracy) + ("*" if marker and cell.bold else "")
    if bounds and cell.lower is not None and cell.upper is not None:
        text += f" [{percent(cell.lower)}–{percent(cell.upper)}]"
    mark = cluster_mark(cell)
    if mark:
        text += f" ({mark})"
    return text


def print_paper_table(table: PaperTable, console: Console, bounds: bool = False,
                      layout: Layout = "auto", general: bool = True) -> None:
    """Draw a paper table: first cluster in bold, category rows shaded, averages last.

    Off a terminal (a pipe, a log file) bold is invisible, so first-cluster cells also get a
    ``*``. A terminal is narrower than a paper page, so the table is drawn in blocks of as
    many columns as fit, each block with its row names and, when the columns are numbered,
    the key of its own columns right above it (never pages away). ``columns`` keeps the
    paper's layout (systems as columns); ``rows`` turns it (systems as rows, the table's
    rows as columns); ``auto`` takes whichever a reader reads in fewer lines, the paper's
    unless the turned table is much shorter. Names are never cut: a row name too long for
    the name column stands on a line of its own above its numbers, and the width of that
    column is the one that makes the table shortest. Notes are wrapped between words.

    Args:
        table: The table.
        console: Where to draw.
        bounds: Also show the bounds while warnings are open.
        layout: ``auto``, ``columns`` or ``rows``.
        general: Also print the notes on the whole report and the signature (after the
            last of several tables; `print_paper_tables` prints them once).
    """
    table = _shown(table)
    marker = not console.is_terminal
    texts = [[cell_text(c, bounds, marker) for c in row.cells] for row in table.rows]
    room = max(console.width - 1, 40)
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}")
    plans = []
    if layout in ("auto", "columns"):
        plans.append(_plan_columns(table, texts, room))
    if layout in ("auto", "rows"):
        plans.append(_plan_rows(table, texts, room))
    # The turned table reads less naturally (its columns are coded): it must be much shorter.
    plan = min(plans, key=lambda p: p.lines * (1.5 if p.what == "rows" else 1.0))
    for number, block in enumerate(plan.blocks, start=1):
        span = (f"{block[0] + 1}" if len(block) == 1 else f"{block[0] + 1}–{block[-1] + 1}")
        what = plan.what.removesuffix("s") if len(block) == 1 else plan.what
        title = table.title + (f" — {what} {span} of {len(plan.headers)}"
                               if len(plan.blocks) > 1 else "")
        _paragraph(console, title, room, "bold")
        for line in [*plan.key_lines(block), *plan.draw(block, number == len(plan.blocks))]:
            if not console.is_terminal:  # no shading to carry: no trailing spaces
                line.rstrip()
            console.print(line, no_wrap=True, crop=True)
        console.print()
    legend = "bold" + (" and *" if marker else "") + ": first performance cluster"
    if bounds:
        legend += "; [low–high]: how far deciding the open warnings could move the accuracy"
    if table.clusters:
        legend += "; " + CLUSTER_LEGEND
    _paragraph(console, legend, room)
    for note in table.notes if general else table.row_notes:
        _paragraph(console, str(note), room)
    if general:  # one token to copy: never broken by us
        console.print(Text(str(table.signature), style="dim"), no_wrap=True, crop=False,
                      soft_wrap=True)


def _paragraph(console: Console, text: str, width: int, style: str = "") -> None:
    """Text wrapped between words (never inside one, nor at a hyphen: ``--macro-test``)."""
    import textwrap

    for line in textwrap.wrap(text, width, break_long_words=False,
                              break_on_hyphens=False) or [""]:
        console.print(Text(line, style=style), no_wrap=True, crop=False, soft_wrap=True)


def print_paper_tables(tables: Sequence[PaperTable], console: Console, bounds: bool = False,
                       layout: Layout = "auto") -> None:
    """Draw several paper tables of one pair: each with the notes on its own rows, then the
    notes on the whole report and the signature once (not repeated under every table)."""
    for index, table in enumerate(tables):
        last = index == len(tables) - 1
        print_paper_table(table, console, bounds, layout, general=last)
        if not last:
            console.print()


def _shown(table: PaperTable) -> PaperTable:
    """The table with its names as the terminal must show them: control characters (ANSI
    escape sequences in a system or category name) made visible, so that widths are right
    and nothing is obeyed. Drawn as `Text`, the names need no markup escaping."""
    from dataclasses import replace

    return replace(table, title=visible(table.title),
                   systems=tuple(visible(s) for s in table.systems),
                   rows=tuple(replace(r, label=visible(r.label)) for r in table.rows),
                   notes=tuple(visible(n) for n in table.notes),
                   general=tuple(visible(n) for n in table.general))


#: Space between columns of a drawn grid.
GAP = 2
#: Space between the number columns of a paper table (right-aligned numbers need less).
CELL_GAP = 1


@dataclass
class _Plan:
    """One way of drawing a table: column headers, the blocks they fall into, the key of
    each block's numbered columns (empty when the headers are names), its length."""

    what: str
    headers: list[str]
    blocks: list[list[int]]
    key: list[str]
    draw: Callable[[list[int], bool], list[Text]]
    lines: int = 0
    room: int = 80

    def key_lines(self, block: list[int]) -> list[Text]:
        """The key of a block's numbered columns, wrapped between its entries."""
        if not self.key:
            return []
        return [Text(line, style="dim") for line in wrap_entries([self.key[i] for i in block],
                                                                 self.room)]


def wrap_entries(entries: list[str], width: int, separator: str = " · ") -> list[str]:
    """Entries joined by `separator` in lines of at most `width` characters, never broken
    inside an entry (an entry longer than a line stands alone)."""
    lines: list[str] = []
    for entry in entries:
        if lines and cell_len(lines[-1]) + len(separator) + cell_len(entry) <= width:
            lines[-1] += separator + entry
        else:
            lines.append(entry)
    return lines


#: A cell of a drawn grid: its plain text and its style ("" for none).
GridCell = tuple[str, str]


def grid_lines(head: list[str], rows: list[list[GridCell]], widths: list[int],
               styles: list[str | None], rules: set[int],
               groups: list[tuple[str, int]] | None = None, gaps: list[int] | None = None,
               alone: dict[int, GridCell] | None = None) -> list[Text]:
    """Lines of a plain grid: a bold header, a rule, the rows (right-aligned but the first
    column), a rule before each row in `rules`. Drawn as text, not as a `rich.table.Table`:
    a paper table has thousands of cells and measuring each costs more than the scoring.
    Cells are plain text (never markup); text wider than its column is cut with "…".

    Args:
        head: Column headers.
        rows: Cells of each row, as (text, style).
        widths: Width of each column.
        styles: Style of each row (None: plain).
        rules: Rows before which a rule is drawn.
        groups: A header line above `head`: (label, number of columns it spans), centred.
        gaps: Space before each column (the first's is not used; default `GAP`).
        alone: Rows whose first cell stands on a line of its own above the others (a name
            longer than its column), by row index.
    """
    spaces = gaps or [GAP] * len(widths)
    alone = alone or {}

    def fit(text: str, width: int) -> str:
        return text if cell_len(text) <= width else set_cell_size(text, width - 1) + "…"

    def line(cells: list[GridCell], style: str | None) -> Text:
        parts: list[tuple[str, str] | str] = []
        for index, ((text, cell_style), width) in enumerate(zip(cells, widths, strict=True)):
            text = fit(text, width)
            pad = " " * (width - cell_len(text))
            if index:
                parts += [" " * spaces[index], pad, (text, cell_style)]
            else:
                parts += [(text, cell_style), pad]
        return Text.assemble(*parts, style=style or "")

    total = sum(widths) + sum(spaces[1:len(widths)])
    rule = Text("─" * total, style="dim")
    lines = []
    if groups:
        top: list[tuple[str, str] | str] = []
        start = 0
        for index, (label, span) in enumerate(groups):
            width = sum(widths[start:start + span]) + sum(spaces[start + 1:start + span])
            top += ([" " * spaces[start]] if index else []) + [(fit(label, width).center(width),
                                                                 "bold")]
            start += span
        lines.append(Text.assemble(*top))
    lines += [line([(h, "bold") for h in head], None), rule]
    for index, (cells, style) in enumerate(zip(rows, styles, strict=True)):
        if index in rules:
            lines.append(rule)
        if index in alone:
            text, cell_style = alone[index]
            lines.append(Text.assemble((text, cell_style), " " * max(total - cell_len(text), 0),
                                       style=style or ""))
        lines.append(line(cells, style))
    return lines


def _headers(names: Sequence[str], width: int, room: int, prefix: str, gap: int
             ) -> tuple[list[str], list[str]]:
    """Column headers: the names, or numbers with a key when the names need more blocks."""
    def blocks(widths: list[int]) -> int:
        return len(column_blocks(widths, room))

    named = [max(len(n), width) + gap for n in names]
    numbered = [max(len(f"{prefix}{i + 1}"), width) + gap for i in range(len(names))]
    if blocks(named) <= max(1, blocks(numbered)):
        return list(names), []
    return ([f"{prefix}{i + 1}" for i in range(len(names))],
            [f"{prefix}{i + 1} {n}" for i, n in enumerate(names)])


def _plan_columns(table: PaperTable, texts: list[list[str]], room: int) -> _Plan:
    """Systems as columns, as in the papers, with the name column that makes it shortest."""
    names = [("  " if row.kind == "phenomenon" else "") + row.label for row in table.rows]
    count = max(1, *(len(str(r.items)) for r in table.rows))
    width = max((len(t) for row in texts for t in row), default=5)
    average = 5
    best: tuple[int, int, list[str], list[str], list[list[int]]] | None = None
    longest = max(len(n) for n in names)
    for label in sorted({min(len(n), longest) for n in names} | {min(longest, 12)}):
        fixed = label + GAP + count + CELL_GAP + average + CELL_GAP
        if fixed + width > room and label > 12:  # not even one system beside the names
            continue
        headers, key = _headers(table.systems, width, room - fixed, "S", CELL_GAP)
        widths = [max(len(h), width) for h in headers]
        blocks = column_blocks([w + CELL_GAP for w in widths], room - fixed)
        lines = sum(len(table.rows) + sum(len(n) > label for n in names) + 3
                    + (len(wrap_entries([key[i] for i in block], room)) if key else 0)
                    for block in blocks)
        if best is None or lines <= best[0]:
            best = (lines, label, headers, key, blocks)
    assert best is not None
    lines, label, headers, key, blocks = best
    widths = [max(len(h), width) for h in headers]
    shade = any(row.kind == "phenomenon" for row in table.rows)
    styles = [("on grey19" if row.kind == "category" and shade else
               "italic" if row.kind == "average" else None) for row in table.rows]
    rules = {i for i, row in enumerate(table.rows)
             if row.kind == "average" and i and table.rows[i - 1].kind != "average"}
    alone = {i: (name, "") for i, name in enumerate(names) if len(name) > label}

    def draw(block: list[int], last: bool) -> list[Text]:
        head = ["", "#", *(headers[i] for i in block)] + (["avg."] if last else [])
        sizes = [label, count, *(widths[i] for i in block)] + ([average] if last else [])
        gaps = [0, GAP] + [CELL_GAP] * (len(sizes) - 2)
        rows = []
        for position, row in enumerate(table.rows):
            name = "" if position in alone else names[position]
            cells = [(name, ""), (str(row.items), "dim")]
            cells += [(texts[position][i], "bold" if row.cells[i].bold else "") for i in block]
            if last:
                cells.append((percent(row.average), "dim"))
            rows.append(cells)
        return grid_lines(head, rows, sizes, styles, rules, gaps=gaps, alone=alone)

    return _Plan("systems", headers, blocks, key, draw, lines, room)


def _plan_rows(table: PaperTable, texts: list[list[str]], room: int) -> _Plan:
    """Systems as rows, the table's rows as columns (numbered, with a key per block)."""
    label = max(len(s) for s in table.systems)
    width = max((len(t) for row in texts for t in row), default=5)
    headers, key = _headers([row.label for row in table.rows], width, room - label - GAP,
                            "R", CELL_GAP)
    widths = [max(len(h), width) for h in headers]
    blocks = column_blocks([w + CELL_GAP for w in widths], room - label - GAP)
    lines = sum(len(table.systems) + 4 + (len(wrap_entries([key[i] for i in block], room))
                                          if key else 0) for block in blocks)

    def draw(block: list[int], last: bool) -> list[Text]:
        head = ["", *(headers[i] for i in block)]
        sizes = [label, *(widths[i] for i in block)]
        gaps = [0, GAP] + [CELL_GAP] * (len(sizes) - 2)
        rows: list[list[GridCell]] = [[("#", "dim"),
                                       *((str(table.rows[i].items), "dim") for i in block)]]
        for s, system in enumerate(table.systems):
            rows.append([(system, ""), *(
                (texts[i][s], "bold" if table.rows[i].cells[s].bold else "") for i in block)])
        return grid_lines(head, rows, sizes, [None] * len(rows), {1}, gaps=gaps)

    return _Plan("rows", headers, blocks, key, draw, lines, room)


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
