"""Saved runs: the outputs of an evaluation kept for later years' comparisons.

A run is a folder::

    runs/wmt21-de-en/
      run.json        metadata: name, campaign, year, pairs, systems left out, hashes, …
      items.jsonl     the items as they were: id, pair, category, phenomenon, source
      outputs.jsonl   every located output: pair, system, item, output
      outcomes.jsonl  the outcomes at saving time (for the record)

Loading a run *re-evaluates* its outputs with the current suite and rules, so that a
verdict recorded this year also fixes last year's numbers. Items of the run that the
current suite no longer has, or whose source sentence changed, are left out with a note.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .errors import Problem, TestsuiteError, describe
from .files import read_json, read_text, write_text
from .model import Suite, pair_code
from .outputs.model import SystemOutputs
from .outputs.readers import normalise

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
        metadata: Everything in run.json.
    """

    name: str
    campaign: str | None
    year: int | None
    path: Path
    evaluation: Evaluation
    excluded: list[str] = field(default_factory=list)
    removed: dict[str, list[str]] = field(default_factory=dict)
    changed: dict[str, list[str]] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """How the run is named in tables: its campaign, else its name."""
        return self.campaign or self.name


#: Text fields every record of a run's JSON-lines files must have.
ITEM_FIELDS = ("id", "pair", "category", "phenomenon", "source")
OUTPUT_FIELDS = ("pair", "system", "item", "output")


def _lines(path: Path, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The records of a JSON-lines file of a run, each checked to have `fields` as text.

    Raises:
        TestsuiteError: naming file and line of every record that is not JSON, not an
            object, or lacks a field (a hand-edited or truncated run must not end in a
            KeyError or be judged with ``None`` as an output).
    """
    problems = []
    records = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            problems.append(Problem(f"not a JSON line: {why}", str(path), number))
            continue
        if not isinstance(record, dict):
            problems.append(Problem(f"expected an object with {', '.join(fields)}, not "
                                    f"{describe(record)}", str(path), number))
            continue
        wrong = [f"'{f}' must be text, not {describe(record[f])}" if f in record
                 else f"'{f}' is missing" for f in fields
                 if not isinstance(record.get(f), str)]
        if wrong:
            problems.append(Problem("; ".join(wrong), str(path), number))
            continue
        records.append(record)
    if problems:
        raise TestsuiteError(problems)
    return records


def _metadata(path: Path) -> dict[str, Any]:
    """The metadata of a run (run.json), checked where `load_run` and `compare` use it.

    Raises:
        TestsuiteError: naming the file (and line of a syntax error) and the bad field.
    """
    data = read_json(path)
    if not isinstance(data, dict):
        raise TestsuiteError(Problem(f"expected a JSON object (as `evaluate --save` writes), "
                                     f"not {describe(data)}", str(path)))
    expected = {"name": (str, "text"), "campaign": (str, "text"), "year": (int, "a number"),
                "pairs": (list, "a list of language pairs")}
    problems = []
    for key, (kind, what) in expected.items():
        value = data.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            problems.append(Problem(f"'{key}' must be {what}, not {describe(value)}",
                                    str(path)))
        elif key == "pairs" and isinstance(value, list):
            for pair in value:
                try:
                    pair_code(pair)
                except TestsuiteError as exc:
                    problems.append(Problem(f"'pairs': {exc}", str(path)))
    if problems:
        raise TestsuiteError(problems)
    return data


def _jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def save_run(path: Path, evaluation: Evaluation, suite: Suite, *,
             campaign: str | None = None, year: int | None = None,
             name: str | None = None) -> Path:
    """Save an evaluation as a run folder (see the module docs).

    Args:
        path: Folder to create (or replace).
        evaluation: The evaluation to save (its `inputs`, left-out systems included).
        suite: The suite it was made with.
        campaign: Campaign name such as ``wmt21``.
        year: Year; by default the first four-digit number in `campaign` or the name.
        name: Run name (default: the folder name).
    """
    from .scores import suite_hash

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
              "source": i.source} for pair in pairs for i in suite.items_of(pair)]
    outputs = [{"pair": s.pair, "system": s.system, "item": item, "output": output}
               for s in systems for item, output in s.outputs.items()]
    metadata = {
        "name": name, "campaign": campaign, "year": year, "pairs": pairs,
        "saved": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "engine": __version__, "suite_hashes": {p: suite_hash(suite, p) for p in pairs},
        "systems": sorted({s.system for s in systems}),
        "excluded": [str(e) for e in evaluation.excluded],
        "excluded_systems": [e.system for e in evaluation.excluded],
        "located": {p: {"found": len(loc.lines), "not_found": len(loc.not_found),
                        "source": loc.source_file} for p, loc in evaluation.located.items()},
    }
    # write_text creates the folder, and names it if it cannot.
    write_text(path / "items.jsonl", _jsonl(items))
    write_text(path / "outputs.jsonl", _jsonl(outputs))
    write_text(path / "outcomes.jsonl",
                 evaluation.results.to_json(orient="records", lines=True, force_ascii=False))
    write_text(path / RUN_FILE, json.dumps(metadata, indent=2, ensure_ascii=False) + "\n")
    return path


def load_run(path: Path, suite: Suite) -> Run:
    """Load a run and re-evaluate its outputs with the current suite and rules."""
    from .evaluate import evaluate

    if not (path / RUN_FILE).is_file():
        raise TestsuiteError(Problem(f"not a saved run: no {RUN_FILE} (save one with "
                                     "`testsuite evaluate … --save DIR`)", file=str(path)))
    metadata = _metadata(path / RUN_FILE)
    saved_items = {(r["pair"], r["id"]): r for r in _lines(path / "items.jsonl", ITEM_FIELDS)}
    removed: dict[str, list[str]] = {}
    changed: dict[str, list[str]] = {}
    usable: set[tuple[str, str]] = set()
    for key, record in saved_items.items():
        item = suite.items.get(key)
        if item is None:
            removed.setdefault(key[0], []).append(key[1])
        elif normalise(item.source) != normalise(record["source"]):
            changed.setdefault(key[0], []).append(key[1])
        else:
            usable.add(key)
    by_system: dict[tuple[str, str], dict[str, str]] = {}
    for record in _lines(path / "outputs.jsonl", OUTPUT_FIELDS):
        key = (record["pair"], record["item"])
        if key in usable:
            by_system.setdefault((record["pair"], record["system"]), {})[record["item"]] = \
                record["output"]
    systems = [SystemOutputs(system, pair, outputs, str(path))
               for (pair, system), outputs in by_system.items()]
    evaluation = evaluate(suite, systems)
    return Run(metadata.get("name") or path.name, metadata.get("campaign"),
               metadata.get("year"), path, evaluation,
               [e.system for e in evaluation.excluded], removed, changed, metadata)
