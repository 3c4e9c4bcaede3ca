"""Saved runs: the outputs of an evaluation kept for later, and read by every command.

A run is a folder::

    runs/wmt21-de-en/
      run.json        metadata: name, campaign, year, pairs, the suite it was made with,
                      systems left out, hashes, …
      items.jsonl     the items as they were: id, pair, category, phenomenon, source, and a
                      hash of the rule that judged them
      outputs.jsonl   every located output: pair, system, item, output
      outcomes.jsonl  the outcomes at saving time
      manifest.json   the size and SHA-256 of each file above, written last

A run is whole or refused. It is written into a new folder beside the old one and swapped in
by renaming, so that an interrupted save (Ctrl-C, SIGTERM, a full disk) leaves the old run as
it was; a save killed outright in the middle of the swap is finished or undone by the next
command that reads or saves the run (`recover`). Every read checks the files against the
manifest, so a run edited by hand, truncated or mixed with another run's files is refused,
naming the file, and then every field and outcome is checked.

Loading a run *re-evaluates* it with the current suite and rules, so that a verdict recorded
this year also fixes last year's numbers. Every output is judged (that costs about as much
as reading the saved outcomes); the outcomes saved for items whose rule (regexes, tokens,
verdicts) is the same as when the run was saved are checked against that judgement, so that
outcomes altered after the save, the manifest rewritten to match, are refused instead of
scored. `Run.rejudged` counts the items whose rule changed since. Items of the run that the
current suite no longer has, or whose source sentence changed, are left out with a note.
"""

from __future__ import annotations

import datetime as dt
import errno
import glob
import hashlib
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .cache import PickleCache
from .errors import Problem, TestsuiteError, TestsuiteWarning, describe
from .files import (
    SURROGATE_ESCAPE,
    TEMP_SUFFIX,
    check_json_surrogates,
    decode,
    encode_text,
    host_tag,
    lock,
    parse_json,
    process_running,
    read_bytes,
    read_json,
    reason,
    remove_stale_temporaries,
    remove_tree,
    temporary_prefix,
    umask,
    write_bytes,
)
from .matching import DEFAULT_TIMEOUT
from .model import Outcome, Suite, pair_code
from .normalise import profile
from .outputs.model import SystemOutputs
from .outputs.readers import source_key
from .values import BadValue, seconds

if TYPE_CHECKING:
    from .evaluate import Evaluation

RUN_FILE = "run.json"
#: The outcomes a saved run may hold.
OUTCOMES = tuple(o.value for o in Outcome)


@dataclass
class Run:
    """A saved run, re-evaluated with the current suite.

    Attributes:
        name: The run's name (its folder name unless given).
        campaign: Campaign, e.g. ``wmt21``.
        year: Year of the campaign.
        path: The run folder.
        evaluation: Outcomes with the current rules.
        excluded: Systems that did not translate the suite (as noted when saved).
        removed: Ids of items of the run that the current suite does not have.
        changed: Ids of items whose source sentence differs from the run's.
        sources: The source sentence of every item, per pair.
        rejudged: Items judged again because their rule changed since the run was saved.
        metadata: Everything in run.json.
        suite: The suite the run was evaluated with now.
    """

    name: str
    campaign: str | None
    year: int | None
    path: Path
    evaluation: Evaluation
    excluded: list[str] = field(default_factory=list)
    removed: dict[str, list[str]] = field(default_factory=dict)
    changed: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, dict[str, str]] = field(default_factory=dict)
    rejudged: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    suite: Suite = field(default_factory=Suite)

    @property
    def label(self) -> str:
        """How the run is named in tables: its campaign, else its name."""
        return self.campaign or self.name

    @property
    def note(self) -> str:
        """Where the outcomes come from, for reports: the run and what was judged again."""
        saved = self.metadata.get("saved") or "?"
        again = (f"{self.rejudged} items judged again because their rules changed since"
                 if self.rejudged else "no rule changed since: outcomes as saved")
        return f"read from the saved run {self.name} (saved {saved}): {again}"


def _run_folder(path: Path) -> Path:
    """The folder of the run named `path`: through a link (``runs/latest``), the folder it
    points to, where `--save` writes and where a killed save leaves its temporaries."""
    path = Path(path)
    return path.resolve() if path.is_symlink() else path


def is_run(path: Path) -> bool:
    """Whether `path` is a saved-run folder (one whose save was killed in the middle of its
    swap is put back first, see `recover`)."""
    path = _run_folder(path)
    if not (path / RUN_FILE).is_file() and _stale_previous(path):
        for line in recover(path):
            warnings.warn(line, TestsuiteWarning, stacklevel=2)
    return (path / RUN_FILE).is_file()


def _records(path: Path, data: bytes, required: tuple[str, ...],
             checks: dict[str, Callable[[Any], str | None]] | None = None
             ) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file of a run, each with the `required` text fields.

    The lines are parsed as one JSON array (one call into the C parser instead of one per
    line: a run has ~50,000 lines per pair); only a file that does not parse is read again
    line by line, to name the line at fault.

    Args:
        path: The file (for messages).
        data: Its bytes, as checked against the manifest.
        required: Fields that must be text.
        checks: Further fields, each with a check that returns what is wrong, or None.

    Raises:
        TestsuiteError: naming file and line of every record that is not JSON, not an
            object, lacks a field or has a value it cannot have (a hand-edited or truncated
            run must not end in a KeyError, be judged with ``None`` as an output, or bring
            an outcome such as "hacked" into the scores).
    """
    # Split on "\n" only: outputs may hold U+2028, which json.dumps leaves as it is.
    text = decode(data, path)
    numbered = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    lines = [line for _, line in numbered]
    try:
        records = json.loads("[" + ",".join(lines) + "]")
    except (json.JSONDecodeError, RecursionError):
        records = None
    problems = []
    if records is None or len(records) != len(lines):
        records = []
        for number, line in numbered:
            try:
                records.append(json.loads(line))
            except (json.JSONDecodeError, RecursionError) as exc:
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
                problems.append(Problem(f"not a JSON line: {why}", str(path), number))
        if problems:
            raise TestsuiteError(problems)
    checks = checks or {}
    # The common case, checked in bulk: every record an object with text in every field, and
    # every other field among the values it may have.
    fine = {type(r) for r in records} <= {dict} and all(
        {type(r.get(key)) for r in records} <= {str} for key in required) and all(
        check(value) is None for key, check in checks.items()
        for value in {_hashable(r.get(key)) for r in records})
    if fine and not SURROGATE_ESCAPE.search(text):
        return records
    for (number, line), record in zip(numbered, records, strict=True):
        if fine:
            if SURROGATE_ESCAPE.search(line):  # rare: a "\\ud800" escape
                check_json_surrogates(record, path, number)
            continue
        if not isinstance(record, dict):
            problems.append(Problem(f"expected an object with {', '.join(required)}, not "
                                    f"{describe(record)}", str(path), number))
            continue
        wrong = [f"'{key}' must be text, not {describe(record[key])}" if key in record
                 else f"'{key}' is missing" for key in required
                 if not isinstance(record.get(key), str)]
        for key, check in checks.items():
            found = check(record.get(key))
            if found is not None:
                wrong.append(f"'{key}' {found}")
        if wrong:
            problems.append(Problem("; ".join(wrong), str(path), number))
        elif SURROGATE_ESCAPE.search(line):
            check_json_surrogates(record, path, number)
    if problems:
        raise TestsuiteError(problems)
    return records


def _hashable(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value


def _one_of(allowed: tuple[str, ...]) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if isinstance(value, str) and value in allowed:
            return None
        return f"must be one of {', '.join(allowed)}, not {describe(value)}"
    return check


def _optional_text(value: Any) -> str | None:
    return None if value is None or isinstance(value, str) else \
        f"must be text, not {describe(value)}"


def _occurrence(value: Any) -> str | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
        return None
    shown = repr(value) if isinstance(value, (int, float)) else describe(value)
    return f"must be a whole number from 1, not {shown}"


def _jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def save_run(path: Path, evaluation: Evaluation, suite: Suite, *,
             campaign: str | None = None, year: int | None = None,
             name: str | None = None, suite_paths: list[Path] | None = None,
             timeout: float = DEFAULT_TIMEOUT) -> Path:
    """Save an evaluation as a run folder (see the module docs).

    Args:
        path: Folder to create (or replace).
        evaluation: The evaluation to save (its `inputs`, left-out systems included).
        suite: The suite it was made with.
        campaign: Campaign name such as ``wmt21``.
        year: Year; by default the first four-digit number in `campaign` or the name.
        name: Run name (default: the folder name).
        suite_paths: The suite files and folders, recorded so that later commands need no
            ``--suite``.
        timeout: The regex time limit the outcomes were judged with.
    """
    from .scoring.signature import rule_hash, suite_hash

    name = name or path.name
    systems = evaluation.inputs
    if year is None:
        for text in (campaign or "", name):
            digits = "".join(ch if ch.isdigit() else " " for ch in text).split()
            years = [d for d in digits if len(d) == 4] or [f"20{d}" for d in digits
                                                              if len(d) == 2]
            if years:
                year = int(years[0])
                break
    pairs = sorted({s.pair for s in systems})
    items = [{"id": i.id, "pair": i.pair, "category": i.category, "phenomenon": i.phenomenon,
              "source": i.source, "rule": rule_hash(suite.rule_of(i))}
             for pair in pairs for i in suite.items_of(pair)]
    outputs: list[dict[str, Any]] = [
        {"pair": s.pair, "system": s.system, "item": item, "output": output}
        for s in systems for item, output in s.outputs.items()]
    # With --repeated agree, the other occurrences' outputs of repeated items too.
    outputs += [{"pair": s.pair, "system": s.system, "item": item, "output": text,
                 "occurrence": k}
                for s in systems for item, texts in s.occurrences.items()
                for k, text in enumerate(texts[1:], start=1)]
    columns = evaluation.columns
    outcomes = [dict(zip(columns, values, strict=True))
                for values in zip(*columns.values(), strict=True)]
    metadata = {
        "name": name, "campaign": campaign, "year": year, "pairs": pairs,
        "saved": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "engine": __version__, "suite_hashes": {p: suite_hash(suite, p) for p in pairs},
        "suite": [str(Path(p).resolve()) for p in suite_paths or []],
        "timeout": timeout, "normalise": evaluation.normalise,
        "systems": sorted({s.system for s in systems}),
        "excluded": [str(e) for e in evaluation.excluded],
        "excluded_systems": [e.system for e in evaluation.excluded],
        "located": {p: {"found": len(loc.lines), "not_found": len(loc.not_found),
                        "not_found_items": loc.not_found, "source": loc.source_file}
                    for p, loc in evaluation.located.items()},
    }
    contents = {"items.jsonl": _jsonl(items), "outputs.jsonl": _jsonl(outputs),
                "outcomes.jsonl": _jsonl(outcomes),
                RUN_FILE: json.dumps(metadata, indent=2, ensure_ascii=False) + "\n"}
    _write_run(Path(path), {name: encode_text(text, Path(path) / name)
                            for name, text in contents.items()})
    return path


#: The manifest of a run: each file's size and SHA-256, written last, checked on every read.
MANIFEST = "manifest.json"
#: The files of a run, all listed in its manifest.
RUN_FILES = (RUN_FILE, "items.jsonl", "outputs.jsonl", "outcomes.jsonl")
#: Ending of the name of a run set aside during a swap (see `recover`).
_PREVIOUS = ".previous"


def _manifest(contents: dict[str, bytes]) -> bytes:
    files = {name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
             for name, data in contents.items()}
    return (json.dumps({"format": 1, "files": files}, indent=2) + "\n").encode("utf-8")


def _write_run(path: Path, contents: dict[str, bytes]) -> None:
    """Write a run into a new folder beside `path`, its manifest last, then swap it in.

    The swap is two renames: the old run aside (``.<name>.<process>@<host>.….previous``),
    the new one in its place; then the old one is removed. Until the second rename the old
    run is whole (at its place or set aside), and `recover` puts it back if the process is
    killed in between; an interruption that Python sees (Ctrl-C, SIGTERM) puts it back at
    once. The run is locked meanwhile, so that two saves do not swap crosswise.
    """
    import os
    import tempfile

    # A link to a run folder (runs/latest -> runs/wmt22) is saved where it points, as any
    # tool writes into a linked folder; swapping the link itself aside left it behind.
    path = _run_folder(path)
    try:
        if path.exists() and not path.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "Not a directory", str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not is_run(path) and any(path.iterdir()):
            # A run replaces a run (or an empty folder), never a folder of other files.
            raise TestsuiteError(Problem(
                "cannot write: it is a folder that is not a saved run (a run replaces only a "
                "saved run or an empty folder; choose another --save folder)", file=str(path)))
    except OSError as exc:
        raise TestsuiteError(Problem(f"cannot write: {reason(exc)}", file=str(path))) from None
    with lock(path):
        recover(path)
        try:
            mode = 0o777 & ~umask()
            new = Path(tempfile.mkdtemp(prefix=temporary_prefix(path.name), suffix=TEMP_SUFFIX,
                                        dir=path.parent))
        except OSError as exc:
            raise TestsuiteError(Problem(f"cannot write: {reason(exc)}",
                                         file=str(path))) from None
        aside: Path | None = None
        try:
            os.chmod(new, mode)  # mkdtemp makes it private; a run is shared as any folder
            for name, data in [*contents.items(), (MANIFEST, _manifest(contents))]:
                try:
                    write_bytes(new / name, data)
                except TestsuiteError as exc:  # named as the user named the run
                    raise TestsuiteError([replace(p, file=str(path / name))
                                          for p in exc.problems]) from None
            if path.exists():
                aside = Path(tempfile.mkdtemp(prefix=temporary_prefix(path.name),
                                              suffix=_PREVIOUS, dir=path.parent))
                os.rmdir(aside)  # only its unique name is wanted
                os.rename(path, aside)
            os.rename(new, path)
        except BaseException as exc:
            if aside is not None and aside.exists() and not path.exists():
                os.rename(aside, path)  # the old run back in its place
                aside = None
            remove_tree(new)
            if isinstance(exc, OSError):
                raise TestsuiteError(Problem(f"cannot write: {reason(exc)}",
                                             file=str(path))) from None
            raise
        if aside is not None:
            remove_tree(aside)


def recover(path: Path) -> list[str]:
    """Finish or undo a save of the run at `path` that was killed outright.

    Left behind can be: a new run being written (``….tmp``: removed) and the old run set
    aside (``….previous``): put back if the run is missing (the save died between its two
    renames), else removed (the save finished). Only what the dead belong to processes
    that are no longer running (`files.stale_temporaries`) is touched.

    Returns:
        What was done, one line each (for messages).
    """
    path = _run_folder(path)
    done = []
    for stale in remove_stale_temporaries(path.parent, path.name):
        done.append(f"removed {stale}, a run whose saving was interrupted")
    for aside in sorted(_stale_previous(path)):
        if not path.exists():
            try:
                aside.rename(path)
            except OSError:
                continue
            done.append(f"put back the run {path} from {aside}, where an interrupted save "
                        "had set it aside")
        elif remove_tree(aside):
            done.append(f"removed {aside}, the previous run of a save that finished")
    return done


def _stale_previous(path: Path) -> list[Path]:
    """Runs set aside by saves of `path` whose process has ended."""
    found = []
    for candidate in path.parent.glob(f".{glob.escape(path.name)}.*{_PREVIOUS}"):
        owner = candidate.name[len(path.name) + 2:].split(".", 1)[0]
        pid, at, host = owner.partition("@")
        if at and pid.isdigit() and host == host_tag() and not process_running(int(pid)):
            found.append(candidate)
    return found


#: Fields of run.json, with the kind each must have when present (`evaluate --save` writes
#: them all; ``None`` is allowed where it writes ``null``).
METADATA: dict[str, tuple[type | tuple[type, ...], str]] = {
    "name": (str, "text"), "campaign": (str, "text"), "year": (int, "a number"),
    "pairs": (list, "a list of language pairs"), "suite": (list, "a list of paths"),
    "timeout": ((int, float), "a number of seconds"),
    "normalise": (str, "the name of a normalisation"), "saved": (str, "a time"),
    "engine": (str, "a version"), "suite_hashes": (dict, "a mapping of pairs to hashes"),
    "systems": (list, "a list of names"), "excluded": (list, "a list of notes"),
    "excluded_systems": (list, "a list of names"),
    "located": (dict, "a mapping of pairs to what was located")}
#: Fields whose lists hold text only.
_TEXT_LISTS = ("suite", "systems", "excluded", "excluded_systems")


def _verified(path: Path, names: tuple[str, ...] = RUN_FILES) -> dict[str, bytes]:
    """The bytes of the run's files, each checked against the run's manifest.

    Raises:
        TestsuiteError: naming the file that is missing, not in the manifest or not as it
            was saved (edited, truncated, or from another run).
    """
    where = path / MANIFEST
    if not where.is_file():
        raise TestsuiteError(Problem(
            f"not a whole saved run: no {MANIFEST} (the run was not saved to the end, or by a "
            "version before runs were checked); save it again with `testsuite evaluate … "
            "--save DIR`", file=str(path)))
    manifest = read_json(where, limit=2**20)
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(listed, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("sha256"), str)
            and isinstance(v.get("bytes"), int) for v in listed.values()):
        raise TestsuiteError(Problem("not a manifest of a saved run (expected 'files' with "
                                     "the size and sha256 of each file)", file=str(where)))
    contents = {}
    for name in names:
        entry = listed.get(name)
        if entry is None:
            raise TestsuiteError(Problem(f"refused: {name} is not in the run's {MANIFEST}",
                                         file=str(path / name)))
        data = read_bytes(path / name)
        if len(data) != entry["bytes"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise TestsuiteError(Problem(
                f"refused: the file changed since the run was saved (it does not match the "
                f"run's {MANIFEST}): edited by hand, truncated or taken from another run; "
                "save the run again with `testsuite evaluate … --save DIR`",
                file=str(path / name)))
        contents[name] = data
    return contents


def read_metadata(path: Path, data: bytes | None = None) -> dict[str, Any]:
    """The run.json of a run folder, checked against the manifest and field by field.

    Args:
        path: The run folder.
        data: The bytes of its run.json, if they were read and checked already.

    Raises:
        TestsuiteError: if the folder is not a run, or its run.json was changed since the
            run was saved, is not a JSON object or has a field of the wrong kind (naming the
            file, and the line of a syntax error).
    """
    path = Path(path)
    if not is_run(path):
        raise TestsuiteError(Problem(f"not a saved run: no {RUN_FILE} (save one with "
                                     "`testsuite evaluate … --save DIR`)", file=str(path)))
    where = path / RUN_FILE
    if data is None:
        data = _verified(path, (RUN_FILE,))[RUN_FILE]
    metadata = parse_json(decode(data, where), where)
    if not isinstance(metadata, dict):
        raise TestsuiteError(Problem(f"expected a JSON object (as `evaluate --save` writes), "
                                     f"not {describe(metadata)}", str(where)))
    problems = []
    for key, (kind, what) in METADATA.items():
        value = metadata.get(key)
        if value is None:
            continue
        if not isinstance(value, kind) or isinstance(value, bool):
            problems.append(Problem(f"'{key}' must be {what}, not {describe(value)}",
                                    str(where)))
        elif key == "pairs" and isinstance(value, list):
            for pair in value:
                try:
                    pair_code(pair)
                except TestsuiteError as exc:
                    problems.append(Problem(f"'pairs': {exc}", str(where)))
        elif key == "timeout":
            try:
                seconds(value)
            except BadValue as exc:
                problems.append(Problem(f"'timeout' {exc.requirement}, not {value!r}",
                                        str(where)))
        elif key == "normalise":
            try:
                profile(str(value))
            except TestsuiteError as exc:  # (its message names no file: this one)
                problems.append(Problem(f"'normalise': {exc}", str(where)))
        elif not _texts(key, value):
            problems.append(Problem(f"'{key}' must be {what}", str(where)))
    if problems:
        raise TestsuiteError(problems)
    return metadata


def _texts(key: str, value: Any) -> bool:
    """Whether the lists and mappings of run.json hold text where they must."""
    if key in _TEXT_LISTS:
        return all(isinstance(p, str) for p in value)
    if key == "suite_hashes":
        return all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    return True


def load_run(path: Path, suite: Suite | None = None, timeout: float | None = None,
             normalise: str | None = None, renormalise: bool = False,
             cache: bool = False) -> Run:
    """Load a run and bring its outcomes up to date with the current suite and rules.

    Args:
        path: The run folder.
        suite: The current suite; by default the one the run was saved with (its files as
            they are now).
        timeout: Regex time limit for outputs judged again (default: the run's).
        normalise: With `renormalise`, the normalisation to match under instead of the
            run's own (None: none); every output is then judged again.
        renormalise: Use `normalise` rather than the normalisation the run was saved with.
        cache: Keep the loaded run in the user's cache, keyed by the run's files and the
            suite's content (the commands do; a suite changed in memory after loading would
            not be seen, so the library does not by default).
    """
    from .loader import load_suite

    path = Path(path)
    contents: dict[str, bytes] = {}
    if is_run(path):  # (a run set aside by a killed save is put back by is_run)
        for line in recover(path):  # leftovers of a killed save of this run
            warnings.warn(line, TestsuiteWarning, stacklevel=2)
        contents = _verified(path)
    metadata = read_metadata(path, contents.get(RUN_FILE))
    matched_under = normalise if renormalise else metadata.get("normalise")
    if suite is None:
        paths = [Path(p) for p in metadata.get("suite") or []]
        if not paths:
            raise TestsuiteError(Problem("the run does not record its suite (saved by an "
                                         "older version): pass --suite", file=str(path)))
        suite = load_suite(paths)
    saved_timeout = metadata.get("timeout", DEFAULT_TIMEOUT)
    timeout = saved_timeout if timeout is None else timeout
    stored = _cache_file(contents, suite, timeout, matched_under) if cache else None
    found = _CACHE.read(stored)
    if isinstance(found, Run):
        found.suite = suite
        found.path = path
        return found
    run = _load(path, contents, suite, metadata, timeout, saved_timeout, matched_under)
    if stored is not None:
        _CACHE.write(stored, replace(run, suite=Suite(), evaluation=run.evaluation.cacheable()))
    return run


def _check_outcomes(where: Path, saved: list[dict[str, Any]], evaluation: Evaluation,
                    unchanged: set[tuple[str, str]]) -> None:
    """Refuse a run whose saved outcomes are not what their rules, unchanged since, give.

    An outcome depends only on the output and the rule (and the time limit and
    normalisation, which are part of "unchanged"), so a difference means that the run was
    altered after it was saved, its manifest rewritten to match. Outcomes cut short by the
    time limit are left aside: they depend on the machine's load.

    Raises:
        TestsuiteError: naming outcomes.jsonl, the items and systems concerned.
    """
    from .matching import REASON_TIMEOUT

    columns = evaluation.columns
    judged = {(pair, item, system): (output, outcome, reason)
              for pair, item, system, output, outcome, reason in zip(
                  columns["pair"], columns["item"], columns["system"], columns["output"],
                  columns["outcome"], columns["reason"], strict=True)}
    problems = []
    for record in saved:
        now = judged.get((record["pair"], record["item"], record.get("system")))
        if now is None or (record["pair"], record["item"]) not in unchanged \
                or REASON_TIMEOUT in (now[2], record["reason"]):
            continue
        if now != (record["output"], record["outcome"], record["reason"]):
            problems.append(Problem(
                f"refused: saved as {record['outcome']} ({record['reason']}) for "
                f"{record.get('system')}, but its rule, unchanged since the run was saved, "
                f"judges the output {now[1]} ({now[2]}): the run was altered after it was "
                "saved (its manifest.json rewritten to match); save it again with `testsuite "
                "evaluate … --save DIR`", str(where), item=record["item"]))
    if problems:
        raise TestsuiteError(problems)


#: Loaded runs kept in the cache folder (the oldest half is removed beyond this).
MAX_RUNS = 40
_CACHE = PickleCache("run", MAX_RUNS)


def _cache_file(contents: dict[str, bytes], suite: Suite, timeout: float,
                normalise: str | None) -> Path | None:
    """Where a loaded run is cached: keyed by its files' content (as checked against the
    manifest), the suite's content and options."""
    if suite.key is None or not contents:
        return None
    return _CACHE.file(suite.key, timeout, normalise, _manifest(contents).decode("utf-8"))


def _load(path: Path, contents: dict[str, bytes], suite: Suite, metadata: dict[str, Any],
          timeout: float, saved_timeout: float, matched_under: str | None) -> Run:
    """Read a run's files and re-judge what the rules changed (see `load_run`)."""
    from .evaluate import evaluate
    from .normalise import profile
    from .scoring.signature import rule_hash

    pairs = tuple(metadata.get("pairs") or ())
    pair_check = _one_of(pairs)
    saved_items = {(r["pair"], r["id"]): r for r in _records(
        path / "items.jsonl", contents["items.jsonl"],
        ("pair", "id", "category", "phenomenon", "source"),
        {"pair": pair_check, "rule": _optional_text})}
    removed: dict[str, list[str]] = {}
    changed: dict[str, list[str]] = {}
    sources: dict[str, dict[str, str]] = {}
    usable: set[tuple[str, str]] = set()
    unchanged: set[tuple[str, str]] = set()
    for key, record in saved_items.items():
        item = suite.items.get(key)
        if item is None:
            removed.setdefault(key[0], []).append(key[1])
        elif source_key(item.source) != source_key(record["source"]):
            changed.setdefault(key[0], []).append(key[1])
        else:
            usable.add(key)
            sources.setdefault(key[0], {})[key[1]] = item.source
            if record.get("rule") == rule_hash(suite.rule_of(item)) \
                    and timeout == saved_timeout and matched_under == metadata.get("normalise"):
                unchanged.add(key)
    by_system: dict[tuple[str, str], dict[str, str]] = {}
    others: dict[tuple[str, str], dict[str, list[tuple[int, str]]]] = {}
    if saved_items and not usable:
        raise TestsuiteError(Problem(
            f"none of the run's {len(saved_items):,} items is in the suite it is read with "
            f"(the run was made with {', '.join(metadata.get('suite') or ['another suite'])}"
            "): read it without --suite, or with the suite it was saved with",
            file=str(path)))
    for record in _records(path / "outputs.jsonl", contents["outputs.jsonl"],
                           ("pair", "system", "item", "output"),
                           {"pair": pair_check, "occurrence": _occurrence}):
        key = (record["pair"], record["item"])
        if key not in usable:
            continue
        system = (record["pair"], record["system"])
        if isinstance(record.get("occurrence"), int) and record["occurrence"] > 0:
            others.setdefault(system, {}).setdefault(record["item"], []).append(
                (record["occurrence"], record["output"]))
        else:
            by_system.setdefault(system, {})[record["item"]] = record["output"]
    outcomes = _records(path / "outcomes.jsonl", contents["outcomes.jsonl"],
                        ("pair", "item", "output", "reason"),
                        {"pair": pair_check, "outcome": _one_of(OUTCOMES),
                         "system": _optional_text})
    systems = [SystemOutputs(system, pair, outputs, str(path), {
        item: [outputs[item], *(text for _, text in sorted(extra))]
        for item, extra in others.get((pair, system), {}).items() if item in outputs})
        for (pair, system), outputs in by_system.items()]
    # Every output is judged, none taken from outcomes.jsonl: its outcomes are checked
    # instead, so that a run whose outcomes were altered and its manifest rewritten to
    # match never brings them into a score (judging costs about as much as reading them).
    evaluation = evaluate(suite, systems, timeout=timeout, normalise=profile(matched_under))
    if metadata.get("engine") == __version__:  # another version may judge differently
        _check_outcomes(path / "outcomes.jsonl", outcomes, evaluation, unchanged)
    with_outputs = {(pair, item) for (pair, _), outputs in by_system.items() for item in outputs}
    rejudged = len(with_outputs - unchanged)
    return Run(metadata.get("name") or path.name, metadata.get("campaign"),
               metadata.get("year"), path, evaluation,
               [e.system for e in evaluation.excluded], removed, changed, sources, rejudged,
               metadata, suite)
