"""Hostile names and outputs are shown as text in every format, never obeyed (#11).

A suite whose category and phenomenon names, and a system whose file name, carry ANSI
escape sequences, Rich markup and emoji codes, HTML, Markdown links, spreadsheet formulas
and LaTeX specials, evaluated and scored through the command line as a user would.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from testsuite.cli import app
from testsuite.reports import escape

runner = CliRunner()

ESC = "\x1b"
#: Everything at once: an ANSI colour, Rich markup, an emoji code, HTML, a Markdown link to
#: javascript:, a cell break, math, LaTeX specials, a bidi override and a newline.
HOSTILE = (f"{ESC}[31mred{ESC}[0m [bold]b[/] :100: <script>alert(1)</script> "
           "[x](javascript:alert(1)) a|b $x^2$ 100% #1 _u_ {b} ~ \\ &amp; \u202e\n[y]")
SYSTEM = f"=1+2{ESC}[31m[bold]:100:<b>|x"  # a file name: no '/' possible


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar for any text (escapes as in JSON, which YAML accepts)."""
    import json

    return json.dumps(text)


@pytest.fixture()
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "s.yaml").write_text(f"""pair: en-de
category: {yaml_string(HOSTILE)}
items:
  - {{id: a, phenomenon: {yaml_string("P " + HOSTILE)}, source: One.}}
  - {{id: b, phenomenon: Plain, source: Two.}}
  - {{id: c, phenomenon: Plain, source: Three.}}
""", encoding="utf-8")
    (suite / "r.yaml").write_text("""pair: en-de
rules:
  - {item: a, positive_regex: good, negative_regex: bad}
  - {item: b, positive_regex: good, negative_regex: bad}
  - {item: c, positive_regex: good, negative_regex: bad}
""", encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / f"{SYSTEM}.de").write_text("good\n=1+1 bad\n-2 good\n", encoding="utf-8")
    (outputs / "Plain.de").write_text("good\n@SUM(A1) good\n-0.5 bad\n", encoding="utf-8")
    return suite, outputs


def invoke(*args: object) -> object:
    result = runner.invoke(app, [str(a) for a in args])
    # CliRunner keeps an exception out of the output: check that none escaped the command.
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    assert result.exit_code == 0, result.output
    return result


# --- the escapers ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "shown"), [
    (f"{ESC}[31m", "\\x1b[31m"), ("a\nb\r\tc", "a\\nb\\r\\tc"), ("\x7f\x85", "\\x7f\\x85"),
    ("\u202eabc", "\\u202eabc"), ("\u2028", "\\u2028"), ("plain – ü ✓", "plain – ü ✓"),
])
def test_control_characters_are_made_visible(text, shown):
    assert escape.visible(text) == shown


def test_terminal_escapes_markup_and_controls():
    assert escape.terminal(f"[bold]x[/] {ESC}[2J") == "\\[bold]x\\[/] \\x1b[2J"
    assert escape.printable(f"a\tb\nc{ESC}") == "a\tb\nc\\x1b"


@pytest.mark.parametrize(("value", "cell"), [
    ("=1+1", "'=1+1"), ("+SUM(A1)", "'+SUM(A1)"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("\r=1", "'\r=1"), ("-0.5", "-0.5"), ("+3", "+3"), ("-1e-3", "-1e-3"),
    ("a=1", "a=1"), ("", ""), (-0.25, -0.25), (3, 3), (None, None),
])
def test_csv_cells_that_spreadsheets_would_run(value, cell):
    assert escape.csv_cell(value) == cell


def test_csv_keeps_numbers_numeric():
    frame = pd.DataFrame({"system": ["=cmd", "B"], "delta": [-0.25, 0.5], "items": [3, 4],
                          "pair": pd.Categorical(["-x", "de-en"])})
    rows = list(csv.reader(escape.csv_text(frame).splitlines()))
    assert rows == [["system", "delta", "items", "pair"], ["'=cmd", "-0.25", "3", "'-x"],
                    ["B", "0.5", "4", "de-en"]]


def test_markdown_and_latex_escapers():
    assert escape.markdown("<b>|*x*|[a](javascript:b) &lt;") == \
        "\\<b\\>\\|\\*x\\*\\|\\[a\\](javascript:b) \\&lt;"
    assert escape.markdown("Coordination & ellipsis") == "Coordination & ellipsis"
    assert escape.latex(f"[a] & 50% {ESC}") == "{[}a{]} \\& 50\\% \\textbackslash{}x1b"


# --- the terminal ---------------------------------------------------------------------------


def test_terminal_reports_show_hostile_names_literally(hostile):
    suite, outputs = hostile
    for command in ("evaluate", "score"):
        output = invoke(command, outputs, "--suite", suite, "-q").output
        assert ESC not in output and "\u202e" not in output
        assert "\\x1b[31m" in output
        assert "[bold]" in output  # markup shown, not applied
    # Rich turned ':100:' into an emoji in the very location the message promised.
    assert ":100:" in output and "\U0001f4af" not in output


def test_error_messages_keep_file_names_as_written(hostile, tmp_path):
    suite, _ = hostile
    odd = tmp_path / f"out:100:{ESC}[2J[red]"
    result = runner.invoke(app, ["evaluate", str(odd), "--suite", str(suite)])
    assert result.exit_code == 1
    assert f"{tmp_path}/out:100:\\x1b[2J[red]: no such file or folder" in result.output


def test_warnings_of_libraries_are_one_escaped_line(hostile, tmp_path):
    # matplotlib warns "Glyph 27 (\x1b) missing", quoting the name with its escape raw.
    suite, outputs = hostile
    output = invoke("plot", outputs, "--suite", suite, "-q", "--out", tmp_path / "p").output
    assert ESC not in output
    assert all(line.startswith(("warning: ", "wrote ")) for line in output.splitlines())


def test_reports_printed_to_the_terminal_show_control_characters(hostile):
    suite, outputs = hostile
    for kind in ("markdown", "csv", "latex"):
        output = invoke("score", outputs, "--suite", suite, "-q", "--format", kind).output
        assert ESC not in output and "\u202e" not in output


# --- files ----------------------------------------------------------------------------------


def test_csv_results_and_scores_are_neutralised(hostile, tmp_path):
    suite, outputs = hostile
    invoke("evaluate", outputs, "--suite", suite, "-q", "--out", tmp_path / "r.csv")
    with (tmp_path / "r.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["system"] for r in rows} == {"'" + SYSTEM, "Plain"}
    assert {r["output"] for r in rows} == {"good", "'=1+1 bad", "'-2 good", "'@SUM(A1) good",
                                           "'-0.5 bad"}
    invoke("score", outputs, "--suite", suite, "-q", "--format", "csv", "--out",
           tmp_path / "s.csv")
    with (tmp_path / "s.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["system"] for r in rows} == {"'" + SYSTEM, "Plain"}
    for row in rows:
        float(row["accuracy"]), int(row["items"])  # numbers stay numbers
        assert not any(value.startswith(("=", "+", "@")) for value in row.values())


def test_markdown_shows_names_as_text(hostile, tmp_path):
    from markdown_it import MarkdownIt

    suite, outputs = hostile
    out = tmp_path / "s.md"
    invoke("score", outputs, "--suite", suite, "-q", "--format", "markdown", "--out", out)
    text = out.read_text(encoding="utf-8")
    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    assert "<script" not in html and "<b>" not in html
    assert 'href="javascript' not in html and "<a " not in html and "<em>u" not in html
    assert "&lt;script&gt;" in html  # shown as text
    # every row of every table has as many cells as its header (no '|' or newline broke it)
    for table in re.findall(r"<table>.*?</table>", html, flags=re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        counts = {len(re.findall(r"<t[hd][ >]", row)) for row in rows}
        assert len(counts) == 1, table


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_latex_with_hostile_names_compiles(hostile, tmp_path):
    suite, outputs = hostile
    invoke("score", outputs, "--suite", suite, "-q", "--format", "latex", "--out",
           tmp_path / "tables.tex")
    # The preamble the README gives (default OT1 font encoding).
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs,graphicx,colortbl,xcolor}\n"
        "\\begin{document}\n\\input{tables.tex}\n\\end{document}\n", encoding="utf-8")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                             "doc.tex"], cwd=tmp_path, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:].decode("utf-8", "replace")


@pytest.mark.parametrize("output", ["x [/] y", "[bold red]loud[/]"])
def test_verdict_prints_the_output_as_written(hostile, output):
    suite, _ = hostile
    result = invoke("verdict", "b", "pass", "--output", output, "--suite", suite)
    assert repr(output) in result.output


def _compile_latex(folder: Path, tex: str) -> subprocess.CompletedProcess[bytes]:
    """pdflatex on a document holding `tex` with the README's preamble."""
    (folder / "tables.tex").write_text(tex, encoding="utf-8")
    (folder / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs,graphicx,colortbl,xcolor}\n"
        "\\begin{document}\n\\input{tables.tex}\n\\end{document}\n", encoding="utf-8")
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "doc.tex"], cwd=folder, capture_output=True, timeout=120)


def test_latex_with_many_unscored_rows_compiles(tmp_path):
    # Outputs that no rule decides: nearly every row has no score, and its note lists them
    # all. A caption is first set on one line, and one over 16,384 pt stopped pdflatex with
    # "Dimension too large".
    suite = tmp_path / "suite"
    suite.mkdir()
    phenomena = [f"Phenomenon {n} with a long descriptive name & {HOSTILE[:40]}"
                 for n in range(60)]
    items = "\n".join(f"  - {{id: i{n}, phenomenon: {yaml_string(p)}, source: S{n}.}}"
                      for n, p in enumerate(phenomena))
    (suite / "s.yaml").write_text(f"pair: en-de\ncategory: Cat\nitems:\n{items}\n"
                                  "  - {id: ok, phenomenon: Decided, source: OK.}\n",
                                  encoding="utf-8")
    rules = "\n".join(f"  - {{item: {i}, positive_regex: good, negative_regex: bad}}"
                      for i in [*(f"i{n}" for n in range(60)), "ok"])
    (suite / "r.yaml").write_text(f"pair: en-de\nrules:\n{rules}\n", encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    for system in ("A", "B"):
        (outputs / f"{system}.de").write_text(
            "".join(f"{system} says {n}\n" for n in range(60)) + "good\n", encoding="utf-8")
    invoke("score", outputs, "--suite", suite, "-q", "--format", "latex", "--out",
           tmp_path / "tables.tex")
    tex = (tmp_path / "tables.tex").read_text(encoding="utf-8")
    captions = re.findall(r"\\caption\{.*", tex)
    assert captions and all(len(c) < 2000 for c in captions), [len(c) for c in captions]
    # The caption names the first rows and the count; the whole list follows the table.
    assert "60 phenomenon rows have no score: Phenomenon 0 with" in captions[-1]
    assert "(all 60 listed below the table)" in captions[-1]
    below = tex.split(captions[-1], 1)[1].split(r"\end{table*}", 1)[0]
    assert below.count("none of its 1 located items entered") == 60
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: structural check only")
    result = _compile_latex(tmp_path, tex)
    assert result.returncode == 0, result.stdout[-3000:].decode("utf-8", "replace")
