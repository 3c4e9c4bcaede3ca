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
from .errors import Problem, TestsuiteError
from .files import read_text, write_text
from .model import Suite
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


def _lines(path: Path) -> list[dict[str, Any]]:
    problems = []
    records = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"not a JSON line: {exc.msg}", str(path), number))
    if problems:
        raise TestsuiteError(problems)
    return records


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
    path.mkdir(parents=True, exist_ok=True)
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
    try:
        metadata = json.loads(read_text(path / RUN_FILE))
    except json.JSONDecodeError as exc:
        raise TestsuiteError(Problem(f"not valid JSON: {exc.msg}", str(path / RUN_FILE),
                                     exc.lineno)) from None
    saved_items = {(r["pair"], r["id"]): r for r in _lines(path / "items.jsonl")}
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
    for record in _lines(path / "outputs.jsonl"):
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
