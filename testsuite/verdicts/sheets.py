"""Spreadsheets for annotators without a terminal: export pending decisions, import verdicts.

`export_rows` lists the pending decisions (item, category, phenomenon, source, the rule's
regexes, the distinct output, the systems that gave it, why it is open, a suggested verdict
from the proposals learned so far) with empty ``verdict`` and ``note`` columns;
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
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Problem, TestsuiteError
from ..files import decode, read_bytes, read_limited, read_text, write_bytes, write_text
from ..model import Suite
from ..words import counted
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


#: Limits of a sheet read back (`read_sheet`), far above any real sheet: a whole WMT
#: campaign's pending decisions are ~10,000 rows of 13 columns, a few MB.
MAX_SHEET_BYTES = 64 * 2**20
#: Rows (the header included) and columns of a sheet.
MAX_SHEET_ROWS = 100_000
MAX_SHEET_COLUMNS = 100
#: Characters in one cell (Excel itself holds at most 32,767).
MAX_CELL_CHARS = 100_000
#: Size of an XLSX's XML once unpacked, all parts together: a zip packs repetitive XML a
#: thousand to one, so its own size says little ("zip bombs").
MAX_SHEET_UNPACKED = 128 * 2**20
#: Parts of an XLSX archive (a workbook of one sheet has about ten).
MAX_SHEET_PARTS = 1_000
#: Characters in all the cells of an XLSX together: a cell may name one of the workbook's
#: shared strings, so 300 KB can put a string of 100,000 characters in every cell of
#: 100,000 rows (minutes of work, gigabytes of copies); a CSV is held by its size.
MAX_SHEET_CHARS = 128 * 2**20

#: Characters that XML 1.0, hence XLSX, cannot hold, and the carriage return (which XML
#: parsers turn into a line feed): written as OOXML's ``_xHHHH_`` escape (as Excel does), and
#: a literal ``_xHHHH_`` with its underscore escaped, so that every output is written exactly
#: and read back exactly (`_xlsx_text`, `_xlsx_value`).
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b-\x1f\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)")
_XLSX_ESCAPE = re.compile("_x([0-9A-Fa-f]{4})_")


def _xlsx_text(value: str) -> str:
    return _XML_ILLEGAL.sub(lambda m: f"_x{ord(m.group()):04X}_", value)


def _xlsx_value(value: object) -> str:
    """A cell value read from an XLSX as text, OOXML escapes decoded."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value)
    return _XLSX_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text) if "_x" in text else text


def _csv_cell(value: str) -> str:
    """A cell of a CSV sheet: neutralised as every CSV the engine writes (`csv_cell`), and a
    leading apostrophe doubled, so that reading strips exactly one (`_csv_value`)."""
    from ..reports.escape import csv_cell

    return "'" + value if value.startswith("'") else str(csv_cell(value))


def _csv_value(value: str) -> str:
    return value[1:] if value.startswith("'") else value


def write_sheet(path: Path, rows: Sequence[dict[str, str]]) -> Path:
    """Write rows as CSV, or XLSX if `path` ends in ``.xlsx`` (needs ``openpyxl``).

    No cell can run as a formula: in CSV a formula-like cell gets a leading apostrophe
    (`reports.escape.csv_cell`); in XLSX every cell is text, formula-like ones with Excel's
    quote prefix, and characters XML cannot hold (ESC, …) as ``_x001B_``.
    """
    from ..reports.escape import formula_like

    if path.suffix.lower() == ".xlsx":
        openpyxl = _openpyxl()
        from openpyxl.cell import WriteOnlyCell

        workbook = openpyxl.Workbook(write_only=True)
        sheet = workbook.create_sheet("decisions")

        def cell(value: str) -> object:
            # Text, never a formula; a spreadsheet must not turn "00123" into 123 either.
            written = WriteOnlyCell(sheet, value=_xlsx_text(value))
            written.data_type = "s"
            if formula_like(value):
                written.quotePrefix = True
            return written

        sheet.append([cell(c) for c in COLUMNS])
        for row in rows:
            sheet.append([cell(str(row.get(c, ""))) for c in COLUMNS])
        buffer = io.BytesIO()
        workbook.save(buffer)
        return write_bytes(path, buffer.getvalue())
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    writer.writerows([_csv_cell(str(row.get(c, ""))) for c in COLUMNS] for row in rows)
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


def _delimiter_hint(first: list[str]) -> str:
    """What to do about a header without the needed columns: a sheet saved with another
    delimiter (spreadsheets in many languages write CSV with ';') is named as such."""
    line = ",".join(first)
    for delimiter, name in ((";", "semicolons"), ("\t", "tabs"), ("|", "bars")):
        cells = {c.strip().strip('"').casefold() for c in line.split(delimiter)}
        if {"item", "output", "verdict"} <= cells:
            return (f"its columns are separated by {name}: save it as CSV with commas, or "
                    "as .xlsx")
    return "export one with testsuite export"


def read_sheet(path: Path) -> list[SheetRow]:
    """The rows of a filled sheet that carry a verdict (blank ones are skipped).

    A CSV (``-``: standard input) or an XLSX, read within the limits above: every sheet
    that is malformed, too large or not what its name says is one message naming the file
    (and the row), never a traceback, a hang or memory beyond the limits.

    Raises:
        TestsuiteError: for a sheet that cannot be read or lacks the ``item``, ``output``
            and ``verdict`` columns.
    """
    table = _read_xlsx(path) if path.suffix.lower() == ".xlsx" else _read_csv(path)
    if not table:
        raise TestsuiteError(Problem("empty sheet", file=str(path)))
    header = [h.strip().casefold() for h in table[0]]
    missing = _missing_columns(table[0])
    if missing:
        raise TestsuiteError(Problem(f"missing column(s): {', '.join(missing)} "
                                     f"({_delimiter_hint(table[0])})", file=str(path), line=1))
    csv_sheet = path.suffix.lower() != ".xlsx"
    rows = []
    for number, cells in enumerate(table[1:], start=2):
        values = dict(zip(header, cells, strict=False))
        verdict = values.get("verdict", "").strip().casefold()
        if not verdict:
            continue
        pair, item, output = (values.get(key, "") for key in ("pair", "item", "output"))
        if csv_sheet:  # the cells the export wrote, neutralised (`_csv_cell`)
            pair, item, output = _csv_value(pair), _csv_value(item), _csv_value(output)
        rows.append(SheetRow(number, pair.strip(), item.strip(), output, verdict,
                             values.get("note", "").strip()))
    return rows


def _missing_columns(first: list[str]) -> list[str]:
    """The columns an import needs that the header row `first` lacks."""
    header = [h.strip().casefold() for h in first]
    return [c for c in ("item", "output", "verdict") if c not in header]


def _too_many(what: str, limit: int, path: Path, line: int | None = None) -> TestsuiteError:
    return TestsuiteError(Problem(f"refused: the sheet has more than {limit:,} {what} (the "
                                  "limit of a sheet)", file=str(path), line=line))


def _check_row(cells: list[str], number: int, path: Path) -> list[str]:
    if number > MAX_SHEET_ROWS:
        raise _too_many("rows", MAX_SHEET_ROWS, path)
    while cells and not cells[-1]:
        cells.pop()
    if len(cells) > MAX_SHEET_COLUMNS:
        raise _too_many("columns", MAX_SHEET_COLUMNS, path, number)
    if any(len(cell) > MAX_CELL_CHARS for cell in cells):
        raise TestsuiteError(Problem(f"refused: a cell has more than {MAX_CELL_CHARS:,} "
                                     "characters (the limit of a cell)", file=str(path),
                                     line=number))
    return cells


def _read_csv(path: Path) -> list[list[str]]:
    import sys

    if str(path) == "-":
        text = decode(read_limited(sys.stdin.buffer, "standard input", MAX_SHEET_BYTES),
                      "standard input")
    else:
        text = read_text(path, limit=MAX_SHEET_BYTES)
    # Strict: a quote that does not close where a cell ends is an error. Lenient reading
    # took everything up to the next quote into one cell, rows of verdicts included, and
    # recorded the rest without a word.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    table = []
    saved = csv.field_size_limit()
    csv.field_size_limit(MAX_CELL_CHARS + 1)  # process-wide: set back below
    try:
        for cells in reader:
            table.append(_check_row(cells, reader.line_num, path))
    except csv.Error as exc:
        if table and _missing_columns(table[0]):
            return table  # not a sheet with our columns (';' separated…): `read_sheet` says so
        why = (f"a cell has more than {MAX_CELL_CHARS:,} characters (the limit of a cell)"
               if "field larger" in str(exc) else
               f"not a readable CSV ({exc}: a cell that starts with a quote must end with "
               "one, on this line or one above)" if '"' in str(exc) or "end of data" in str(exc)
               else f"not a readable CSV ({exc})")
        raise TestsuiteError(Problem(f"refused: {why}", file=str(path),
                                     line=reader.line_num)) from None
    finally:
        csv.field_size_limit(saved)
    return table


def _read_xlsx(path: Path) -> list[list[str]]:
    """The cells of the first sheet of an XLSX as text, read within the limits.

    The archive is checked before openpyxl parses it (a zip at all, its parts, their
    unpacked size: zip's own reader stops at the sizes it declares, so they bound what is
    unpacked); XML entities are refused (openpyxl parses with defusedxml, which the
    ``xlsx`` extra installs: no billion laughs, no external entity); the sheet's
    ``<dimension>`` is not trusted (it can claim one row of five, or a million), rows,
    columns and characters are counted as they are read.
    """
    import zipfile

    openpyxl = _openpyxl()
    if not getattr(openpyxl, "DEFUSEDXML", False):
        raise TestsuiteError("reading XLSX safely needs defusedxml (which refuses XML "
                             "entities): pip install 'testsuite[xlsx]' (or use a .csv file)")
    data = read_bytes(path, MAX_SHEET_BYTES)
    not_xlsx = "not an XLSX workbook ({}); save the sheet as .xlsx or .csv"
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        parts = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError):
        raise TestsuiteError(Problem(not_xlsx.format("not a zip archive"),
                                     file=str(path))) from None
    names = {part.filename for part in parts}
    if "[Content_Types].xml" not in names:
        raise TestsuiteError(Problem(not_xlsx.format("a zip archive without "
                                                     "[Content_Types].xml"), file=str(path)))
    if len(parts) > MAX_SHEET_PARTS or sum(p.file_size for p in parts) > MAX_SHEET_UNPACKED:
        raise TestsuiteError(Problem(
            f"refused: the XLSX unpacks to more than {MAX_SHEET_UNPACKED // 2**20} MB (the "
            "limit of a sheet)", file=str(path)))
    table: list[list[str]] = []
    characters = 0
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            sheet = workbook.worksheets[0] if workbook.worksheets else None
            if sheet is None or not hasattr(sheet, "iter_rows"):
                raise TestsuiteError(Problem("the XLSX has no sheet of cells", file=str(path)))
            if hasattr(sheet, "reset_dimensions"):
                sheet.reset_dimensions()  # read every row, whatever <dimension> claims
            for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
                if number > MAX_SHEET_ROWS:
                    raise _too_many("rows", MAX_SHEET_ROWS, path)
                if len(values) > MAX_SHEET_COLUMNS and any(
                        v is not None for v in values[MAX_SHEET_COLUMNS:]):
                    raise _too_many("columns", MAX_SHEET_COLUMNS, path, number)
                cells = _check_row([_xlsx_value(v) for v in values[:MAX_SHEET_COLUMNS]],
                                   number, path)
                characters += sum(map(len, cells))
                if characters > MAX_SHEET_CHARS:
                    raise TestsuiteError(Problem(
                        f"refused: the sheet's cells hold more than {MAX_SHEET_CHARS // 2**20} "
                        "million characters together (the limit of a sheet; a cell repeated "
                        "from the workbook's shared strings counts each time)", file=str(path),
                        line=number))
                table.append(cells)
        finally:
            workbook.close()
    except TestsuiteError:
        raise
    except Exception as exc:  # noqa: BLE001 - a third-party parser on untrusted input
        # openpyxl and the XML parser raise many kinds (KeyError for a missing part,
        # defusedxml's EntitiesForbidden, ParseError, BadZipFile for a lying size, …);
        # each is the same answer: this file is not a workbook we can read.
        chain: list[BaseException] = [exc]
        while len(chain) < 10 and (chain[-1].__cause__ or chain[-1].__context__):
            chain.append(chain[-1].__cause__ or chain[-1].__context__)  # type: ignore[arg-type]
        if any(type(e).__module__.startswith("defusedxml") for e in chain):
            raise TestsuiteError(Problem(
                "refused: the XLSX declares XML entities (no spreadsheet program writes them; "
                "they can expand without bound or read other files)", file=str(path))) from None
        innermost = chain[-1]
        what = type(innermost).__name__
        detail = str(innermost).splitlines()[0][:200] if str(innermost) else ""
        raise TestsuiteError(Problem(not_xlsx.format(f"{what}: {detail}" if detail else what),
                                     file=str(path))) from None
    return table


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
        return (f"{counted(count, 'verdict')} ({kinds['pass']} pass, "
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
