"""Saved runs: the outputs of an evaluation kept for later, and read by every command.

A run is a folder::

    runs/wmt21-de-en/
      run.json        metadata: name, campaign, year, pairs, the suite it was made with,
                      systems left out, hashes, …
      items.jsonl     the items as they were: id, pair, category, phenomenon, source, and a
                      hash of the rule that judged them
      outputs.jsonl   every located output: pair, system, item, output
      outcomes.jsonl  the outcomes at saving time

Loading a run *re-evaluates* it with the current suite and rules, so that a verdict recorded
this year also fixes last year's numbers — but only where something changed: the outcomes of
items whose rule (regexes, tokens, verdicts) is the same as when the run was saved are
taken as saved, and only the others are judged again (`Run.rejudged` counts them). Items of
the run that the current suite no longer has, or whose source sentence changed, are left
out with a note.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .cache import PickleCache, file_stamp
from .errors import Problem, TestsuiteError, describe
from .files import read_json, read_text, write_text
from .matching import DEFAULT_TIMEOUT
from .model import Suite, pair_code
from .outputs.model import SystemOutputs
from .outputs.readers import source_key
from .values import BadValue, seconds

if TYPE_CHECKING:
    from .evaluate import Evaluation

RUN_FILE = "run.json"


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


def is_run(path: Path) -> bool:
    """Whether `path` is a saved-run folder."""
    return (Path(path) / RUN_FILE).is_file()


def _records(path: Path, required: tuple[str, ...]) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file of a run, each with the `required` text fields.

    The lines are parsed as one JSON array (one call into the C parser instead of one per
    line: a run has ~50,000 lines per pair); only a file that does not parse is read again
    line by line, to name the line at fault.

    Raises:
        TestsuiteError: naming file and line of every record that is not JSON, not an
            object, or lacks a field (a hand-edited or truncated run must not end in a
            KeyError or be judged with ``None`` as an output).
    """
    numbered = [(n, line) for n, line in enumerate(read_text(path).splitlines(), start=1)
                if line.strip()]
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
    # The common case, checked in bulk: every record an object with text in every field.
    if {type(r) for r in records} <= {dict} and all(
            {type(r.get(key)) for r in records} <= {str} for key in required):
        return records
    for (number, _), record in zip(numbered, records, strict=True):
        if not isinstance(record, dict):
            problems.append(Problem(f"expected an object with {', '.join(required)}, not "
                                    f"{describe(record)}", str(path), number))
            continue
        wrong = [f"'{key}' must be text, not {describe(record[key])}" if key in record
                 else f"'{key}' is missing" for key in required
                 if not isinstance(record.get(key), str)]
        if wrong:
            problems.append(Problem("; ".join(wrong), str(path), number))
    if problems:
        raise TestsuiteError(problems[:20] + ([Problem(f"… and {len(problems) - 20} more",
                                                       str(path))] if len(problems) > 20
                                              else []))
    return records


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
    write_text(path / "items.jsonl", _jsonl(items))
    write_text(path / "outputs.jsonl", _jsonl(outputs))
    write_text(path / "outcomes.jsonl", _jsonl(outcomes))
    write_text(path / RUN_FILE, json.dumps(metadata, indent=2, ensure_ascii=False) + "\n")
    return path


#: Fields of run.json that commands use, with the kind each must have when present.
METADATA: dict[str, tuple[type | tuple[type, ...], str]] = {
    "name": (str, "text"), "campaign": (str, "text"), "year": (int, "a number"),
    "pairs": (list, "a list of language pairs"), "suite": (list, "a list of paths"),
    "timeout": ((int, float), "a number of seconds"),
    "normalise": (str, "the name of a normalisation")}


def read_metadata(path: Path) -> dict[str, Any]:
    """The run.json of a run folder, checked where commands use it.

    Raises:
        TestsuiteError: if the folder is not a run, or its run.json is not a JSON object or
            has a field of the wrong kind (naming the file, and the line of a syntax error).
    """
    if not is_run(path):
        raise TestsuiteError(Problem(f"not a saved run: no {RUN_FILE} (save one with "
                                     "`testsuite evaluate … --save DIR`)", file=str(path)))
    where = path / RUN_FILE
    metadata = read_json(where)
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
        elif key == "suite" and isinstance(value, list) \
                and not all(isinstance(p, str) for p in value):
            problems.append(Problem(f"'{key}' must be {what}", str(where)))
    if problems:
        raise TestsuiteError(problems)
    return metadata


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

    metadata = read_metadata(path)
    matched_under = normalise if renormalise else metadata.get("normalise")
    if suite is None:
        paths = [Path(p) for p in metadata.get("suite") or []]
        if not paths:
            raise TestsuiteError(Problem("the run does not record its suite (saved by an "
                                         "older version): pass --suite", file=str(path)))
        suite = load_suite(paths)
    saved_timeout = metadata.get("timeout", DEFAULT_TIMEOUT)
    timeout = saved_timeout if timeout is None else timeout
    stored = _cache_file(path, suite, timeout, matched_under) if cache else None
    found = _CACHE.read(stored)
    if isinstance(found, Run):
        found.suite = suite
        return found
    run = _load(path, suite, metadata, timeout, saved_timeout, matched_under)
    if stored is not None:
        _CACHE.write(stored, replace(run, suite=Suite(), evaluation=run.evaluation.cacheable()))
    return run


#: Loaded runs kept in the cache folder (the oldest half is removed beyond this).
MAX_RUNS = 40
_CACHE = PickleCache("run", MAX_RUNS)


def _cache_file(path: Path, suite: Suite, timeout: float, normalise: str | None
                ) -> Path | None:
    """Where a loaded run is cached: keyed by its files, the suite's content and options."""
    if suite.key is None:
        return None
    return _CACHE.file(suite.key, timeout, normalise,
                       *(file_stamp(path / name) for name in (RUN_FILE, "items.jsonl",
                                                              "outputs.jsonl", "outcomes.jsonl")))


def _load(path: Path, suite: Suite, metadata: dict[str, Any], timeout: float,
          saved_timeout: float, matched_under: str | None) -> Run:
    """Read a run's files and re-judge what the rules changed (see `load_run`)."""
    from .evaluate import evaluate
    from .normalise import profile
    from .scoring.signature import rule_hash

    saved_items = {(r["pair"], r["id"]): r for r in _records(
        path / "items.jsonl", ("pair", "id", "source"))}
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
    for record in _records(path / "outputs.jsonl", ("pair", "system", "item", "output")):
        key = (record["pair"], record["item"])
        if key not in usable:
            continue
        system = (record["pair"], record["system"])
        if isinstance(record.get("occurrence"), int) and record["occurrence"] > 0:
            others.setdefault(system, {}).setdefault(record["item"], []).append(
                (record["occurrence"], record["output"]))
        else:
            by_system.setdefault(system, {})[record["item"]] = record["output"]
    known = {}
    outcomes = path / "outcomes.jsonl"
    if unchanged and outcomes.is_file():
        for record in _records(outcomes, ("pair", "item", "output", "outcome", "reason")):
            if (record["pair"], record["item"]) in unchanged:
                known[(record["pair"], record["item"], record["output"])] = (
                    record["outcome"], record["reason"])
    systems = [SystemOutputs(system, pair, outputs, str(path), {
        item: [outputs[item], *(text for _, text in sorted(extra))]
        for item, extra in others.get((pair, system), {}).items() if item in outputs})
        for (pair, system), outputs in by_system.items()]
    evaluation = evaluate(suite, systems, timeout=timeout, known=known,
                          normalise=profile(matched_under))
    with_outputs = {(pair, item) for (pair, _), outputs in by_system.items() for item in outputs}
    rejudged = len(with_outputs - {(p, i) for p, i, _ in known})
    return Run(metadata.get("name") or path.name, metadata.get("campaign"),
               metadata.get("year"), path, evaluation,
               [e.system for e in evaluation.excluded], removed, changed, sources, rejudged,
               metadata, suite)
