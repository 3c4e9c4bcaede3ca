"""The paper tables in a terminal, read as a newcomer reads them at 80 and 200 columns.

On the real WMT21 de-en scores with the DFKI suite (18 systems, 106 phenomena): no name is
cut (so no two rows read alike), every block of numbered columns has its key right above
it, every line fits the width, notes are wrapped between words, and each note is printed
once, not under every table.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from testsuite.reports.tables import paper_tables
from testsuite.reports.terminal import print_paper_tables, wrap_entries
from testsuite.scoring import score

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def scores(wmt, dfki_suite):
    return score(wmt("wmt21", "de-en"), dfki_suite, "de-en")


def drawn(scores, width: int, layout: str = "auto") -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=False, color_system=None,
                      soft_wrap=True)
    print_paper_tables(paper_tables(scores, "both"), console, layout=layout)  # type: ignore
    return out.getvalue()


@pytest.mark.parametrize("width", [80, 200])
def test_a_newcomer_can_read_it(scores, width):
    text = drawn(scores, width)
    lines = text.splitlines()
    signature = str(scores.signature)
    assert all(len(line) <= width for line in lines if line != signature)
    assert "…" not in text  # no name is cut
    # Every phenomenon and category appears whole, at the start of its line.
    names = {r.phenomenon or r.category for r in scores.table_rows if r.category}
    names.add("Quotation marks")
    starts = {line.strip() for line in lines}
    for name in names:
        assert any(line.startswith(name) or line == name for line in starts), name
    # Blocks of numbered columns: the key of exactly the block's columns right above its head.
    blocks = 0
    for index, line in enumerate(lines):
        head = re.findall(r"\bS(\d+)\b", line) if line.lstrip().startswith("#") else []
        if not head:
            continue
        blocks += 1
        key_lines = []
        for above in reversed(lines[:index]):
            if above.startswith("Accuracy per"):
                break
            key_lines.insert(0, above)
        key = " · ".join(key_lines)
        assert [int(n) for n in re.findall(r"\bS(\d+) ", key)] == [int(n) for n in head]
        for number in head:
            assert f"S{number} {scores.systems[int(number) - 1]}" in key
    assert blocks >= (2 if width == 200 else 4)
    # Notes: between words (every word of each note intact); those on the whole report once,
    # those on some rows under each table showing such rows.
    joined = " ".join(w for line in lines for w in line.split())
    for note in scores.notes:
        words = " ".join(str(note).split())
        expected = 1 if not note.levels else sum(
            note.concerns(levels) for levels in (("category", "micro", "category-macro"), (
                "category", "phenomenon", "micro", "phenomenon-macro")))
        assert joined.count(words) == expected, str(note)
    assert text.count(signature) == 1
    if width == 80:
        assert len(lines) < 650  # 726 lines before, with names cut and the key far away


def test_long_names_stand_on_their_own_line(scores):
    text = drawn(scores, 80)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines)
              if line.strip() == "Ditransitive - future I subjunctive II")
    numbers = lines[at + 1]
    assert numbers.startswith(" " * 20) and re.search(r"\s14\s+100\.0", numbers)


def test_key_entries_are_never_split():
    entries = [f"S{i} {name}" for i, name in enumerate(
        ["Online-W", "VolcTrans-GLAT", "Facebook-AI", "x" * 30, "NVIDIA-NeMo"], start=1)]
    lines = wrap_entries(entries, 30)
    assert all(len(line) <= 30 or line == entries[3] for line in lines)
    assert " · ".join(lines).split(" · ") == entries


def test_the_readme_shows_what_score_prints(dfki_dir, data, tmp_path):
    """The README's 80- and 200-column examples are the output of their commands."""
    import shlex

    from typer.testing import CliRunner

    from testsuite.cli import app

    from .test_readme import REPO, blocks

    found = blocks()
    shown = 0
    for (language, text), (next_language, output) in zip(found, found[1:], strict=False):
        if language != "bash" or next_language != "text":
            continue
        line = text.strip()
        assert line.startswith("COLUMNS=") and "\n" not in line
        width, command = line.split(" ", 1)
        words = shlex.split(command)[1:]
        words = [str(data / w.removeprefix("../shared/data/")) if w.startswith("../shared/data")
                 else str(dfki_dir) if w == "work/dfki" else w for w in words]
        result = CliRunner().invoke(app, words, env={"COLUMNS": width.split("=")[1]})
        assert result.exit_code == 0, result.output
        printed = result.output.rstrip("\n").splitlines()
        readme = output.rstrip("\n").splitlines()
        # The suite's hash names the imported folder's contents: the same, wherever it is.
        assert printed == readme, (line, [a for a in printed if a not in readme][:5])
        shown += 1
    assert shown == 2
    del REPO, tmp_path
