"""Text from data made inert in every output format: one escaper per format.

Names of systems, categories, phenomena and files, item ids and MT outputs come from files
that anyone may have written. Whatever they contain is shown as text, never obeyed:

* **Control characters** (ANSI escape sequences, carriage returns, bidi overrides that
  reorder a line) are shown as Python-style escapes (``\\x1b``, ``\\u202e``) in the terminal,
  Markdown and LaTeX (`visible`).
* **Terminal** (`terminal`): the text is also escaped as Rich markup, so ``[bold]`` or
  ``[/]`` is printed as it is. (Rich emoji codes such as ``:100:`` are turned off in the
  console itself: see ``cli._common._console``.)
* **CSV** (`csv_cell`, `csv_text`): a cell that starts with ``=``, ``+``, ``-``, ``@``, a
  tab or a carriage return is a formula to Excel, LibreOffice and Google Sheets ("CSV
  injection"). As the OWASP guidance recommends, such a cell gets a leading apostrophe
  (``'=1+1``), which spreadsheets show as text; strip it to get the value back. Numbers
  stay numbers: numeric columns are left alone, and so is text that is just a number
  (``-0.5``). Other characters are kept exactly (use JSON lines for byte-exact data).
* **Markdown** (`markdown`): characters with a meaning in (GitHub-flavoured) Markdown are
  backslash-escaped, so raw HTML (``<script>``), links (``[x](javascript:…)``), emphasis,
  math (``$x$``) and table cell breaks (``|``, newlines) are shown as text.
* **LaTeX** (`latex`): the special characters are escaped, brackets are braced (a ``[``
  after ``\\\\`` would be read as an option) and control characters made visible, so that
  any name compiles with pdflatex.

* **XLSX** (`formula_like`): the same cells as in CSV are formulas to a spreadsheet; the
  sheet writer stores every cell as text (never a formula) and marks those with Excel's own
  "quote prefix", the stored form of a typed leading apostrophe, so that editing the cell
  keeps it text while its value stays exactly the output.
* **JSON** (`json_text`): the controls above are written as JSON escapes (``\\u202e``), so
  that JSON lines printed to a terminal show them and still parse to the same text.

* **HTML** (`printable`): markup is escaped by Jinja2's autoescape; controls are made
  visible as in the terminal, in the page, its data and its links (``html_common``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: Characters that change what a terminal (or a reader of a file) shows instead of being
#: shown: C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional
#: controls that can reorder a line ("Trojan Source", CVE-2021-42574).
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                        "\u2066-\u2069]")


def _escape_one(match: re.Match[str]) -> str:
    code = ord(match.group())
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(match.group())
    return named or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: object) -> str:
    """The text with every control character written as an escape (``\\x1b``, ``\\n``)."""
    return _INVISIBLE.sub(_escape_one, str(text))


def terminal(text: object) -> str:
    """Text from data for a Rich console: controls made visible, markup escaped."""
    from rich.markup import escape

    return escape(visible(text))


def printable(text: str) -> str:
    """A whole report for the terminal, or text in an HTML page (`html_common`): controls
    made visible except newlines and tabs (white space there)."""
    return _INVISIBLE.sub(lambda m: m.group() if m.group() in "\n\t" else _escape_one(m), text)


# --------------------------------------------------------------------------------------------
# CSV

#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV Injection).
CSV_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def formula_like(value: object) -> bool:
    """Whether a spreadsheet would read this text cell as a formula (see the module docs):
    it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return and is not a plain
    number. The one test behind every spreadsheet writer (CSV and XLSX)."""
    return isinstance(value, str) and value.startswith(CSV_TRIGGERS) \
        and not _NUMBER.fullmatch(value)


def csv_cell(value: object) -> object:
    """A cell value that no spreadsheet reads as a formula (see the module docs).

    Text that is `formula_like` gets a leading apostrophe; anything else is returned
    unchanged.
    """
    if formula_like(value):
        return "'" + str(value)
    return value


def csv_text(frame: pd.DataFrame) -> str:
    """A DataFrame as CSV text with every text cell passed through `csv_cell`."""
    import pandas as pd

    safe = frame.copy()
    for column in safe.columns:
        series = safe[column]
        if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            continue
        if isinstance(series.dtype, pd.CategoricalDtype):  # names: a few categories
            renamed = [csv_cell(c) for c in series.cat.categories]
            if len(set(renamed)) == len(renamed):
                safe[column] = series.cat.rename_categories(renamed)
                continue
        safe[column] = series.astype(object).map(csv_cell)
    return str(safe.to_csv(index=False))


# --------------------------------------------------------------------------------------------
# JSON


def json_text(value: object, **options: Any) -> str:
    """`json.dumps` with Unicode kept readable but controls and bidi overrides escaped.

    ``\\u001b`` and ``\\u202e`` are JSON's own escapes: the text parses back exactly, and a
    terminal shows them instead of obeying them. Options go to `json.dumps` (``indent``).
    """
    import json

    return _INVISIBLE.sub(_json_escape, json.dumps(value, ensure_ascii=False, **options))


def _json_escape(match: re.Match[str]) -> str:
    # Outside strings json.dumps writes only the white space of `indent`: keep it.
    char = match.group()
    return char if char in "\n" else f"\\u{ord(char):04x}"


# --------------------------------------------------------------------------------------------
# Markdown

# Backslash-escapable ASCII punctuation with a meaning in a table cell: code, emphasis,
# links and images, raw HTML and autolinks, strikethrough, math, cell breaks.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~$])")
_ENTITY = re.compile(r"&(?=#?\w+;)")


def markdown(text: object) -> str:
    """Text from data for a Markdown table cell: shown as written, never as markup."""
    escaped = _MARKDOWN.sub(r"\\\1", visible(text))
    return _ENTITY.sub(r"\\&", escaped)


# --------------------------------------------------------------------------------------------
# LaTeX

_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", "[": "{[}", "]": "{]}", "<": r"\textless{}",
          ">": r"\textgreater{}"}


def latex(text: object) -> str:
    """Text from data for LaTeX: special characters escaped, control characters visible."""
    return "".join(_LATEX.get(ch, ch) for ch in visible(text))
