"""Recording verdicts: safely, at once, and without touching hand-written rules.

Decisions go to a machine-kept file ``verdicts.yaml`` in the rules folder of the item's
language pair (``rules/de-en/verdicts.yaml``), an ordinary rules file whose entries carry
only ``item`` and ``verdicts``; the loader adds them to the item's rule. Hand-written rule
files, with their comments, are never rewritten by a decision.

Every write holds an exclusive lock (`files.lock`) while it re-reads the file,
adds the decision and replaces the file atomically (temporary file, fsync, rename). So a
decision that `record` returned from is on disk; a process killed at any moment leaves
either the old or the new file, never half of one; and two annotators writing at the same
time both keep their decisions (each re-reads under the lock what the other wrote).
"""

from __future__ import annotations

import datetime as dt
import getpass
from pathlib import Path
from typing import Any

from .errors import Problem, TestsuiteError
from .files import lock, write_text
from .model import VERDICTS, Item, Rule, Verdict
from .yamlio import dump_yaml, load_yaml, strip_lines

VERDICTS_FILE = "verdicts.yaml"


def default_annotator() -> str:
    """The login name, as the default annotator of a decision."""
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return "unknown"


def now() -> str:
    """The current time as ISO 8601 in UTC, to the second."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def verdict_file(item: Item, rule: Rule | None) -> Path:
    """Where decisions on `item` are kept: ``verdicts.yaml`` beside the item's rules.

    The rules folder is the folder of the item's rule file; for an item without one (a
    template item, say) it is the ``rules/<pair>`` folder parallel to its ``suites/<pair>``
    folder, or else the folder of its suite file.
    """
    if rule is not None and rule.file and Path(rule.file).name != VERDICTS_FILE \
            and _is_rules_file(rule, item):
        return Path(rule.file).parent / VERDICTS_FILE
    if rule is not None and rule.file and Path(rule.file).name == VERDICTS_FILE:
        return Path(rule.file)
    if item.file is None:
        raise TestsuiteError(f"item {item.id} was not read from a file: nowhere to keep "
                             "its verdicts")
    folder = Path(item.file).parent
    parts = folder.parts
    if len(parts) >= 2 and parts[-2] == "suites":
        parallel = Path(*parts[:-2], "rules", parts[-1])
        return parallel / VERDICTS_FILE
    return folder / VERDICTS_FILE


def _is_rules_file(rule: Rule, item: Item) -> bool:
    # A template item's generated rule points at the suite file, not at a rules file.
    return rule.file != item.file


def _read(path: Path, pair: str) -> dict[str, Any]:
    if not path.exists():
        return {"pair": pair, "rules": []}
    data = strip_lines(load_yaml(path))
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise TestsuiteError(Problem("not a verdicts file (expected 'pair' and 'rules'); "
                                     "nothing was written", file=str(path)))
    return data


def record(path: Path, pair: str, item: str, output: str, verdict: str,
           annotator: str | None = None, note: str | None = None,
           time: str | None = None) -> Verdict:
    """Add one decision to a verdicts file, atomically and under a lock.

    Args:
        path: The verdicts file (see `verdict_file`); created if missing.
        pair: Language pair of the item.
        item: Item id.
        output: The exact output decided on (stored stripped of surrounding white space).
        verdict: ``pass`` or ``fail``.
        annotator: Who decided (default: the login name).
        note: Optional comment.
        time: When (default: now).

    Returns:
        The verdict as stored.
    """
    if verdict not in VERDICTS:
        raise TestsuiteError(f"a verdict is 'pass' or 'fail', not {verdict!r}")
    if not output.strip():
        raise TestsuiteError("an empty output is always 'missing'; it takes no verdict")
    stored = Verdict(output.strip(), verdict, annotator or default_annotator(), time or now(),
                     note or None)
    entry = {k: v for k, v in (("output", stored.output), ("verdict", stored.verdict),
                               ("annotator", stored.annotator), ("time", stored.time),
                               ("note", stored.note)) if v is not None}
    with lock(path):
        data = _read(path, pair)
        rules = data["rules"]
        for rule in rules:
            if isinstance(rule, dict) and str(rule.get("item")) == item:
                rule.setdefault("verdicts", []).append(entry)
                break
        else:
            rules.append({"item": item, "verdicts": [entry]})
        write_text(path, dump_yaml(data))
    return stored


def remove(path: Path, item: str, verdict: Verdict) -> bool:
    """Take back one recorded decision (undo). Returns False if it was not found."""
    with lock(path):
        if not path.exists():
            return False
        data = _read(path, "")
        for rule in data["rules"]:
            if not isinstance(rule, dict) or str(rule.get("item")) != item:
                continue
            entries = rule.get("verdicts") or []
            for index in range(len(entries) - 1, -1, -1):
                entry = entries[index]
                if (entry.get("output") == verdict.output and entry.get("verdict")
                        == verdict.verdict and str(entry.get("time")) == str(verdict.time)):
                    del entries[index]
                    if not entries:
                        data["rules"].remove(rule)
                    write_text(path, dump_yaml(data))
                    return True
    return False
