"""Readers for each form of system output, and discovery of output files."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import Problem, TestsuiteError
from ..files import MAX_SUITE_BYTES
from ..model import Item
from ..values import choice
from .model import Located, SystemOutputs
from .text import read_lines, read_selected_lines

# newstest2021.de-en.hyp.Online-A.en, generaltest2022.en-de.hyp.JDExploreAcademy.de
_WMT_HYP = re.compile(
    r"^(?P<test>.+?)\.(?P<pair>[a-z]{2,3}-[a-z]{2,3})\.hyp\.(?P<system>.+)\.(?P<lang>[a-z]{2,3})$"
)
_WMT_SRC = re.compile(
    r"^(?P<test>.+?)\.(?P<pair>[a-z]{2,3}-[a-z]{2,3})\.src\.(?P<lang>[a-z]{2,3})$"
)


def source_key(text: str) -> str:
    """Normalise a sentence for locating it: Unicode NFC and white space folded to one space.

    NFC (not NFKC) so that only encodings of the same characters are merged; runs of any
    Unicode white space (no-break spaces, tabs, newlines inside DFKI sources) become one space.
    """
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def system_name(path: Path) -> str:
    """System name from a file name: ``newstest2021.de-en.hyp.Online-A.en`` → ``Online-A``.

    Files not named in the WMT way are named by their stem (``my-system.txt`` → ``my-system``).
    """
    match = _WMT_HYP.match(path.name)
    return match["system"] if match else path.stem


def wmt_pair(path: Path) -> str | None:
    """The language pair in a WMT file name, if there is one."""
    match = _WMT_HYP.match(path.name) or _WMT_SRC.match(path.name)
    return match["pair"] if match else None


def discover(paths: Iterable[Path], pair: str | None = None) -> tuple[list[Path], list[Path]]:
    """Expand files and folders into hypothesis files and WMT source files.

    A folder may be a folder of hypothesis files or a WMT ``txt-ts`` folder (with
    ``sources/`` and ``system-outputs/``). Hidden files, ``*.ids`` lists and documentation
    (README, LICENSE, ``*.md``) are skipped;
    with `pair`, WMT-named files of other pairs are skipped.

    Returns:
        (hypothesis files, WMT source files found in ``sources/`` folders), each sorted.
    """
    hyps: list[Path] = []
    sources: list[Path] = []
    for path in paths:
        if not path.exists():
            raise TestsuiteError(Problem("no such file or folder", file=str(path)))
        if not path.is_dir():  # a file (a pipe or device too: reading it says what it is)
            hyps.append(path)
            continue
        if (path / "system-outputs").is_dir():
            sources.extend(_files(path / "sources"))
            path = path / "system-outputs"
        hyps.extend(p for p in _files(path) if _WMT_SRC.match(p.name) is None)
    if pair:
        hyps = [p for p in hyps if wmt_pair(p) in (None, pair)]
        sources = [p for p in sources if wmt_pair(p) in (None, pair)]
    return sorted(dict.fromkeys(hyps)), sorted(dict.fromkeys(sources))


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                  and p.suffix != ".ids" and not documentation(p))


#: Files in a folder of outputs that are documentation, not a system's outputs (a
#: ``README.md`` beside the outputs is not read as a system). A file named on its own is
#: read whatever its name.
_DOCUMENTATION = re.compile(r"^(readme|licen[cs]e|copying|notice|changelog|authors)\b|"
                            r"\.(md|rst|pdf|html?)$", re.IGNORECASE)


def documentation(path: Path) -> bool:
    """Whether a file found in a folder of outputs is documentation (README, LICENSE, *.md)."""
    return _DOCUMENTATION.search(path.name) is not None


def read_ids(path: Path) -> list[str]:
    """Read an id list written by `testsuite sources` (one item id per line)."""
    # An id list is shorter than the suite it lists: held to a suite's limit.
    ids = [line.strip() for line in read_lines(path, limit=MAX_SUITE_BYTES)]
    if not ids:  # else every outputs file is blamed for not having 0 lines
        raise TestsuiteError(Problem(
            "the id list is empty: it should hold one item id per line, in the order of the "
            "sources (`testsuite sources --out FILE` writes it to FILE.ids)", file=str(path)))
    if any(not i for i in ids):
        raise TestsuiteError(Problem("empty line in the id list", file=str(path),
                                     line=ids.index("") + 1))
    # A repeated id would map two output lines to one item and silently drop one of them.
    lines: dict[str, list[int]] = {}
    for number, item in enumerate(ids, start=1):
        lines.setdefault(item, []).append(number)
    problems = [Problem(f"listed more than once (lines {', '.join(map(str, numbers[:10]))}"
                        f"{f' and {len(numbers) - 10:,} more' if len(numbers) > 10 else ''}); "
                        "each item may have one line only", file=str(path), line=numbers[1],
                        item=item)
                for item, numbers in lines.items() if len(numbers) > 1]
    if problems:
        raise TestsuiteError(problems)
    return ids


def read_aligned(path: Path, ids: Sequence[str], pair: str, system: str | None = None,
                 encoding: str = "utf-8") -> SystemOutputs:
    """Read a plain text file whose line *k* translates the *k*-th line of the sources.

    Args:
        path: One output per line.
        ids: Item id of each line, in order (as written by `testsuite sources`).
        pair: Language pair.
        system: System name; by default derived from the file name.
        encoding: File encoding.

    Raises:
        TestsuiteError: if the line count differs from the number of ids.
    """
    lines = read_lines(path, encoding)
    if not lines:
        raise TestsuiteError(Problem(
            f"is empty: it should hold the system's translations of the {len(ids)} {pair} "
            "sources of `testsuite sources`, one per line", file=str(path)))
    if len(lines) != len(ids):
        raise TestsuiteError(Problem(
            f"has {len(lines)} lines but the {pair} sources have {len(ids)}: the file must have "
            "exactly one line per source line of `testsuite sources` (was it made from another "
            "version of the suite, or did the MT system merge or split lines?)",
            file=str(path)))
    return SystemOutputs(system or system_name(path), pair, dict(zip(ids, lines, strict=True)),
                         str(path))


def read_tsv(path: Path, pair: str, known: set[str] | None = None, encoding: str = "utf-8"
             ) -> list[SystemOutputs]:
    """Read outputs keyed by item id: ``item<TAB>output`` or ``system<TAB>item<TAB>output``.

    With two columns the system is named after the file; with three, after the first column
    (one file may then hold several systems).

    Args:
        path: The TSV file (no header).
        pair: Language pair.
        known: Ids of the suite's items; unknown ids are reported with their line.
        encoding: File encoding.
    """
    by_system: dict[str, dict[str, str]] = {}
    problems = []
    lines = read_lines(path, encoding)
    if not any(line.strip() for line in lines):
        raise TestsuiteError(Problem("is empty: it should hold item<TAB>output (or "
                                     "system<TAB>item<TAB>output) lines", file=str(path)))
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) == 2:
            system, (item, output) = system_name(path), fields
        elif len(fields) == 3:
            system, item, output = fields
        else:
            problems.append(Problem(f"expected 2 or 3 tab-separated fields, found {len(fields)}",
                                    str(path), number))
            continue
        if known is not None and item not in known:
            problems.append(Problem(f"unknown {pair} item {item!r}", str(path), number, item))
            continue
        outputs = by_system.setdefault(system, {})
        if item in outputs:
            problems.append(Problem(f"second output of {system} for this item", str(path), number,
                                    item))
            continue
        outputs[item] = output
    if problems:
        raise TestsuiteError(problems)
    return [SystemOutputs(s, pair, o, str(path)) for s, o in by_system.items()]


def locate(items: Sequence[Item], source: Path, pair: str, encoding: str = "utf-8") -> Located:
    """Find each item's source sentence in a WMT source file (normalised comparison)."""
    lines = read_lines(source, encoding)
    where: dict[str, list[int]] = {}
    for index, line in enumerate(lines):
        where.setdefault(source_key(line), []).append(index)
    located = Located(str(source), pair, total_lines=len(lines))
    for item in items:
        found = where.get(source_key(item.source))
        if found:
            located.lines[item.id] = found[0]
            if len(found) > 1:
                located.repeated.append(item.id)
                located.occurrences[item.id] = list(found)
        else:
            located.not_found.append(item.id)
    return located


#: What to do with an item whose source occurs more than once in a WMT source file.
REPEATED = ("first", "last", "agree")


def read_wmt(items: Sequence[Item], source: Path, hyps: Sequence[Path], pair: str,
             encoding: str = "utf-8", repeated: str = "first"
             ) -> tuple[Located, list[SystemOutputs]]:
    """Read WMT ``txt-ts`` hypotheses: locate the items in the source, take those lines.

    An item whose source sentence occurs more than once was translated once per occurrence,
    not always the same way; `Located.differing` names the systems and items where the
    translations differ. `repeated` chooses which one is the item's output: ``first`` (the
    published method), ``last``, or ``agree`` (every occurrence is judged, and an item whose
    occurrences get different outcomes is a warning for a person to decide).

    Args:
        items: The suite's items of this pair.
        source: The full WMT source file the systems translated.
        hyps: Hypothesis files, line-aligned with `source`.
        pair: Language pair.
        encoding: Encoding of all files.
        repeated: ``first``, ``last`` or ``agree``.

    Raises:
        TestsuiteError: for hypothesis files whose line count differs from the source's.
    """
    choice(repeated, REPEATED, "repeated")
    located = locate(items, source, pair, encoding)
    located.repeated_policy = repeated
    wanted = dict(located.lines)
    for item, lines in located.occurrences.items():
        wanted.update({f"{item}\0{k}": line for k, line in enumerate(lines[1:], start=1)})
    systems = []
    problems = []
    for hyp in hyps:
        count, outputs = read_selected_lines(hyp, wanted, located.total_lines, encoding)
        if count == 0 < located.total_lines:
            problems.append(Problem(
                f"is empty: it should hold the system's translations of the "
                f"{located.total_lines:,} lines of the source {source.name}, one per line",
                file=str(hyp)))
            continue
        if count != located.total_lines:
            problems.append(Problem(
                f"has {count} lines but the source {source.name} has {located.total_lines}: "
                "hypothesis files must be line-aligned with the source they translate",
                file=str(hyp)))
            continue
        system = SystemOutputs(system_name(hyp), pair, {}, str(hyp))
        for item, lines in located.occurrences.items():
            texts = [outputs.pop(f"{item}\0{k}") if k else outputs[item]
                     for k in range(len(lines))]
            if len({t.strip() for t in texts}) > 1:
                located.differing.setdefault(system.system, []).append(item)
            if repeated == "last":
                outputs[item] = texts[-1]
            elif repeated == "agree":
                system.occurrences[item] = texts
        system.outputs = outputs
        systems.append(system)
    if problems:
        raise TestsuiteError(problems)
    return located, systems
