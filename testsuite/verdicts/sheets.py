"""Spreadsheets for annotators without a terminal: export pending decisions, import verdicts.

`export_rows` lists the pending decisions (item, category, phenomenon, source, the rule's
regexes, the distinct output, the systems that gave it, why it is open, a suggested verdict
from the rule suggestions learned so far) with empty ``verdict`` and ``note`` columns;
`write_sheet` writes them as CSV (UTF-8 with a byte-order mark, which spreadsheet programs
need to read UTF-8) or, with the optional ``openpyxl`` (``pip install testsuite[xlsx]``), as
XLSX. `read_sheet` reads a filled file back, and `check_rows` checks every filled row as the
`verdict` command does (`testsuite.verdicts.conflicts.check_verdict`) plus what only a sheet
can get wrong (conflicting rows for one output, a verdict that is neither pass nor fail).
Every problem names the row; nothing is recorded unless every row is fine.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Problem, TestsuiteError
from ..files import read_bytes, read_text, write_bytes, write_text
from ..model import Suite
from .conflicts import Impact, check_verdict
from .queue import Pending

if TYPE_CHECKING:
    from ..outputs.model import SystemOutputs
    from .agreement import SampleEntry

#: Columns of an exported sheet, in order; `verdict` and `note` are for the annotator.
COLUMNS = ("pair", "item", "category", "phenomenon", "source", "positive_regex",
           "negative_regex", "output", "systems", "reason", "suggested", "verdict", "note")


def export_rows(pending: Sequence[Pending], suite: Suite,
                suggested: dict[tuple[str, str, str], str] | None = None
                ) -> list[dict[str, str]]:
    """One row per pending decision (see `COLUMNS`)."""
    rows = []
    for entry in pending:
        rule = suite.rules.get((entry.pair, entry.item))
        rows.append({
            "pair": entry.pair, "item": entry.item, "category": entry.category,
            "phenomenon": entry.phenomenon, "source": entry.source,
            "positive_regex": rule.positive_regex if rule else "",
            "negative_regex": rule.negative_regex if rule else "",
            "output": entry.output, "systems": ", ".join(entry.systems),
            "reason": entry.reason,
            "suggested": (suggested or {}).get((entry.pair, entry.item, entry.output), ""),
            "verdict": "", "note": ""})
    return rows


def sample_rows(sample: Sequence[SampleEntry]) -> list[dict[str, str]]:
    """Rows of a blind re-decision sample: no verdict, suggestion or rule is shown."""
    return [{"pair": e.pair, "item": e.item, "category": e.category,
             "phenomenon": e.phenomenon, "source": e.source, "positive_regex": "",
             "negative_regex": "", "output": e.output, "systems": "", "reason": "sample",
             "suggested": "", "verdict": "", "note": ""} for e in sample]


def write_sheet(path: Path, rows: Sequence[dict[str, str]]) -> Path:
    """Write rows as CSV, or XLSX if `path` ends in ``.xlsx`` (needs ``openpyxl``)."""
    if path.suffix.lower() == ".xlsx":
        workbook = _openpyxl().Workbook()
        sheet = workbook.active
        sheet.title = "decisions"
        sheet.append(list(COLUMNS))
        for row in rows:
            # Written as strings: a spreadsheet must not turn "00123" into 123.
            sheet.append([row.get(c, "") for c in COLUMNS])
        buffer = io.BytesIO()
        workbook.save(buffer)
        return write_bytes(path, buffer.getvalue())
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return write_text(path, "\ufeff" + out.getvalue())


def _openpyxl():  # type: ignore[no-untyped-def]
    try:
        import openpyxl
    except ImportError:
        raise TestsuiteError("XLSX needs the optional openpyxl: pip install 'testsuite[xlsx]' "
                             "(or use a .csv file)") from None
    return openpyxl


@dataclass(frozen=True)
class SheetRow:
    """A filled row: where it is, and the decision it asks for."""

    line: int
    pair: str
    item: str
    output: str
    verdict: str
    note: str


def read_sheet(path: Path) -> list[SheetRow]:
    """The rows of a filled sheet that carry a verdict (blank ones are skipped).

    Raises:
        TestsuiteError: for a file without the ``item``, ``output`` and ``verdict`` columns.
    """
    if path.suffix.lower() == ".xlsx":
        workbook = _openpyxl().load_workbook(io.BytesIO(read_bytes(path)), read_only=True)
        table = [["" if c is None else str(c) for c in row]
                 for row in workbook.active.iter_rows(values_only=True)]
    else:
        table = list(csv.reader(io.StringIO(read_text(path), newline="")))
    if not table:
        raise TestsuiteError(Problem("empty sheet", file=str(path)))
    header = [h.strip().casefold() for h in table[0]]
    missing = [c for c in ("item", "output", "verdict") if c not in header]
    if missing:
        raise TestsuiteError(Problem(f"missing column(s): {', '.join(missing)} (export one "
                                     "with testsuite export)", file=str(path), line=1))
    rows = []
    for number, cells in enumerate(table[1:], start=2):
        values = dict(zip(header, cells, strict=False))
        verdict = values.get("verdict", "").strip().casefold()
        if not verdict:
            continue
        rows.append(SheetRow(number, values.get("pair", "").strip(),
                             values.get("item", "").strip(), values.get("output", ""), verdict,
                             values.get("note", "").strip()))
    return rows


@dataclass
class Checked:
    """Rows of a sheet checked and ready to record, with what they change."""

    impacts: list[tuple[SheetRow, Impact]] = field(default_factory=list)
    skipped: int = 0  # rows that repeat a verdict already recorded

    def summary(self) -> str:
        """What importing would record and change, in one line."""
        count = len(self.impacts)
        kinds = {v: sum(i.verdict.verdict == v for _, i in self.impacts)
                 for v in ("pass", "fail")}
        changed = sum(len(i.changes) for _, i in self.impacts)
        disagree = sum(bool(i.contradicts) for _, i in self.impacts)
        return (f"{count} verdict{'s' if count != 1 else ''} ({kinds['pass']} pass, "
                f"{kinds['fail']} fail), {changed} outcomes changed"
                + (f", {disagree} disagreeing with another annotator" if disagree else "")
                + (f"; {self.skipped} rows already recorded" if self.skipped else ""))


def check_rows(suite: Suite, rows: Sequence[SheetRow], path: Path, *, pair: str,
               annotator: str | None, systems: Sequence[SystemOutputs] | None,
               force: bool = False, disagree: bool = False) -> Checked:
    """Check every row as `testsuite verdict` does; collect every problem with its row.

    Raises:
        TestsuiteError: listing every problem (nothing is to be recorded then).
    """
    from ..matching import RegexCache

    problems: list[Problem] = []
    checked = Checked()
    cache = RegexCache()
    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for row in rows:
        where = Problem("", str(path), row.line, row.item or None)
        row_pair = row.pair or pair
        if row.verdict not in ("pass", "fail"):
            problems.append(Problem(f"verdict must be pass or fail, not {row.verdict!r}",
                                    where.file, where.line, where.item))
            continue
        key = (row.item, row.output.strip())
        if key in seen and seen[key][0] != row.verdict:
            problems.append(Problem(f"row {seen[key][1]} says {seen[key][0]} for the same "
                                    "output", where.file, where.line, where.item))
            continue
        if key in seen:
            checked.skipped += 1
            continue
        seen[key] = (row.verdict, row.line)
        rule = suite.rules.get((row_pair, row.item))
        if rule is not None and any(v.annotator == annotator and v.verdict == row.verdict
                                    and v.output.strip() == row.output.strip()
                                    for v in rule.verdicts):
            checked.skipped += 1  # imported before
            continue
        try:
            impact = check_verdict(suite, row_pair, row.item, row.output, row.verdict,
                                   annotator=annotator, note=row.note or None,
                                   systems=systems, force=force, disagree=disagree,
                                   cache=cache)
        except TestsuiteError as exc:
            problems.extend(Problem(p.message, where.file, where.line, where.item)
                            for p in exc.problems)
            continue
        checked.impacts.append((row, impact))
    if problems:
        raise TestsuiteError(problems)
    return checked
