"""Recognising natural mistakes in what a user points the engine at, and saying the fix.

A newcomer forgets ``--suite`` after `import-dfki`, points at a ``system-outputs/`` folder
without the WMT source or at the folder above a ``txt-ts`` folder, passes `evaluate`'s
results file or a DFKI ``items.json`` as outputs, reads en-de outputs as de-en, or names a
pair the files do not have. Each of these used to end in a line-count error, in one line
per output, or in silence; here each is recognised and answered in one line with the
command that works.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Problem, TestsuiteError
from .readers import _WMT_HYP, _WMT_SRC, documentation, source_key, wmt_pair

if TYPE_CHECKING:
    from ..model import Suite

#: Header of the CSV that `testsuite evaluate --out FILE.csv` writes.
RESULTS_HEADER = "item,pair,category,phenomenon,system,output,outcome,reason"


def results_file(path: Path) -> bool:
    """Whether `path` is a results file written by ``testsuite evaluate --out``."""
    if path.suffix.lower() not in (".jsonl", ".csv") or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline(4096).strip()  # bounded: a file may have no newline
    except OSError:
        return False
    if path.suffix.lower() == ".csv":
        return first == RESULTS_HEADER
    return first.startswith("{") and '"outcome"' in first and '"item"' in first


def check_not_outputs(paths: Iterable[Path]) -> None:
    """Refuse files that are plainly not system outputs — `evaluate`'s results files and
    DFKI ``items.json`` suites — naming what to do instead.

    Raises:
        TestsuiteError: for every such file among `paths`.
    """
    problems = []
    for path in paths:
        if results_file(path):
            problems.append(Problem(
                "this is a results file written by `testsuite evaluate --out`, not system "
                "outputs: to score, report or compare an evaluation later, save it as a run "
                "(`testsuite evaluate OUTPUTS … --save DIR`) and pass DIR; or pass the system "
                "outputs again", file=str(path)))
        elif dfki_json(path):
            problems.append(Problem(
                "this is a DFKI test suite (items and rules), not system outputs: convert it "
                f"with `testsuite import-dfki {path} --out DIR`, then pass --suite DIR and the "
                "systems' outputs (such as a WMT txt-ts folder) as OUTPUTS", file=str(path)))
    if problems:
        raise TestsuiteError(problems)


def nothing_found(paths: Sequence[Path], pair: str | None) -> TestsuiteError:
    """The error when no output file is found in `paths`, naming the folders below them
    that hold outputs (the folder above a ``txt-ts`` folder was given, say)."""
    where = ", ".join(map(str, paths))
    below = _output_folders(paths, pair)
    if below:
        return TestsuiteError(
            f"no system output files in {where} itself; the folder{'s' if len(below) > 1 else ''}"
            f" below {'hold' if len(below) > 1 else 'holds'} them: pass "
            + " or ".join(map(str, below[:6])) + (" …" if len(below) > 6 else ""))
    return TestsuiteError(f"no system output files found in {where}")


def _output_folders(paths: Sequence[Path], pair: str | None, depth: int = 3) -> list[Path]:
    """Folders below the folders among `paths` that hold outputs: the WMT ``txt-ts``
    folders up to `depth` levels down (those with files of `pair`, given one), or else the
    folders right below that hold files (those named after `pair` first)."""
    def children(folder: Path) -> list[Path]:
        try:
            return sorted(c for c in folder.iterdir() if not c.name.startswith("."))
        except OSError:
            return []

    txt_ts: list[Path] = []
    with_files: list[Path] = []
    level = [p for p in paths if p.is_dir()]
    for step in range(depth):
        below = []
        for folder in level:
            for child in (c for c in children(folder) if c.is_dir()):
                outputs = child / "system-outputs"
                if outputs.is_dir():
                    if pair is None or pair in {wmt_pair(f) for f in children(outputs)}:
                        txt_ts.append(child)
                    continue
                if step == 0 and any(f.is_file() and not documentation(f)
                                     and not results_file(f) and not dfki_json(f)
                                     for f in children(child)):
                    with_files.append(child)
                below.append(child)
        level = below
    if txt_ts:
        return txt_ts
    return [f for f in with_files if f.name == pair] or with_files


def wmt_hypotheses_without_source(files: Sequence[Path], pair: str) -> None:
    """Refuse WMT hypothesis files read as aligned text: they need their WMT source.

    Raises:
        TestsuiteError: naming the WMT source or ``txt-ts`` folder to give instead.
    """
    named = [f for f in files if _WMT_HYP.match(f.name)]
    if not named:
        return
    example = named[0]
    hint = "give the WMT source file they translate with --source"
    outputs = example.parent
    sources = outputs.parent / "sources"
    if outputs.name == "system-outputs" and sources.is_dir():
        found = [s for s in sorted(sources.iterdir()) if _WMT_SRC.match(s.name)
                 and wmt_pair(s) == pair]
        hint = (f"give the whole txt-ts folder ({outputs.parent}) instead, or the source with "
                f"--source {found[0]}" if found else
                f"give the whole txt-ts folder ({outputs.parent}) instead, or --source")
    raise TestsuiteError(Problem(
        f"{len(named)} file(s) named like WMT hypotheses (e.g. {example.name}) would be read "
        f"as line-aligned with `testsuite sources`; they are aligned with a WMT source file: "
        f"{hint}", file=str(example)))


def missing_pair(paths: Sequence[Path], pair: str) -> TestsuiteError:
    """The error for a ``--pair`` no file has, listing the pairs that the files do have."""
    found: set[str] = set()
    for path in paths:
        candidates = [path] if path.is_file() else [
            p for folder in (path, path / "system-outputs", path / "sources") if folder.is_dir()
            for p in folder.iterdir()]
        found.update(p for p in map(wmt_pair, candidates) if p)
    where = ", ".join(map(str, paths))
    if found:
        return TestsuiteError(f"no {pair} outputs in {where}; its WMT files are for: "
                              f"{', '.join(sorted(found))} (choose one with --pair)")
    return nothing_found(paths, pair)


def other_pair(error: TestsuiteError, suite: Suite, pair: str) -> TestsuiteError:
    """`error` of reading outputs keyed by item, with its unknown items told in one line
    when they are all items of one other pair of the suite: the outputs are of that pair.

    A file of en-de outputs read with ``--pair de-en`` would otherwise get one "unknown
    item" line per output.
    """
    unknown = [p for p in error.problems if p.item is not None
               and (pair, p.item) not in suite.items]
    others = {other for other in suite.pairs if other != pair
              and all((other, p.item) in suite.items for p in unknown)}
    if not unknown or len(others) != 1:
        return error
    [other] = others
    first = unknown[0]
    files = sorted({p.file for p in unknown if p.file})
    where = "here" if len(files) == 1 else f"in {len(files)} files"
    summary = Problem(
        f"{len(unknown)} item ids {where} are {other} items and not {pair} ones (e.g. "
        f"{first.item!r} at {first.file}:{first.line}): these are {other} outputs, so pass "
        f"--pair {other}", file=files[0] if len(files) == 1 else None)
    return TestsuiteError([summary, *(p for p in error.problems if p not in unknown)])


def aligned_other_pair(error: TestsuiteError, path: Path, suite: Suite, pair: str,
                       suite_order: bool, encoding: str = "utf-8") -> TestsuiteError:
    """`error` of reading aligned text, told as what it is when the file has as many lines
    as another pair of the suite has sources: the outputs are of that pair."""
    from .text import read_lines

    if not suite_order:
        return error  # aligned with an --ids list: its length is the user's choice
    try:
        count = len(read_lines(path, encoding))
    except TestsuiteError:
        return error
    others = [other for other in suite.pairs
              if other != pair and count == len(suite.items_of(other)) != len(
                  suite.items_of(pair))]
    if len(others) != 1:
        return error
    return TestsuiteError(Problem(
        f"has {count} lines, as many as the {others[0]} sources, not the "
        f"{len(suite.items_of(pair))} {pair} ones: these are {others[0]} outputs, so pass "
        f"--pair {others[0]}", file=str(path)))


def nothing_located(source: Path, pair: str, items: int, suite_paths: Sequence[Path] | None,
                    encoding: str = "utf-8") -> TestsuiteError:
    """The error when not one item of the suite is in a WMT source: probably the wrong suite.

    Looks for suites in the current folder (such as the one `import-dfki` wrote) whose
    sources *are* in the file (read in `encoding`, as the outputs were), and names the best
    one.
    """
    where = ("the bundled suite" if not suite_paths else
             "the suite in " + ", ".join(map(str, suite_paths)))
    message = (f"none of the {items:,} {pair} items of {where} is in this WMT source: the "
               "outputs were made for another suite")
    best = best_suite(source, pair, exclude=suite_paths or (), encoding=encoding)
    if best is not None:
        folder, found, total = best
        message += (f"; they fit the suite in {folder} ({found:,} of {total:,} items found): "
                    f"pass --suite {folder}")
    else:
        message += "; pass --suite with the suite they were made for (for the DFKI suite: " \
                   "`testsuite import-dfki items.json --out DIR`, then --suite DIR)"
    return TestsuiteError(Problem(message, file=str(source)))


def best_suite(source: Path, pair: str, exclude: Iterable[Path] = (), encoding: str = "utf-8"
               ) -> tuple[Path, int, int] | None:
    """The suite folder near the current folder whose items are most often in `source`
    (read in `encoding`)."""
    from ..files import read_text
    from ..loader import load_suite

    excluded = {Path(p).resolve() for p in exclude}
    here = Path.cwd()
    candidates = sorted({p.parent for p in here.glob("*/suites") if p.is_dir()}
                        | {p.parent for p in here.glob("*/*/suites") if p.is_dir()})
    if not candidates:
        return None
    try:
        lines = {source_key(line) for line in read_text(source, encoding).split("\n")}
    except TestsuiteError:
        return None
    best: tuple[Path, int, int] | None = None
    for folder in candidates[:20]:
        if folder.resolve() in excluded:
            continue
        try:
            items = load_suite([folder]).items_of(pair)
        except TestsuiteError:
            continue
        found = sum(source_key(i.source) in lines for i in items)
        if found and (best is None or found > best[1]):
            best = (folder.relative_to(here) if folder.is_relative_to(here) else folder, found,
                    len(items))
    return best


def dfki_json(path: Path) -> bool:
    """Whether `path` is a DFKI ``items.json`` (given where a suite folder is expected)."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return '"items"' in head and '"source_sentence"' in head
