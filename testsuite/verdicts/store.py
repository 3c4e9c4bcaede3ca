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

import contextlib
import datetime as dt
import getpass
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import Problem, TestsuiteError
from ..files import encode_text, lock, write_all, write_text
from ..model import VERDICTS, Item, Rule, Verdict
from ..yamlio import dump_yaml, load_yaml, strip_lines

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


def entry_of(verdict: Verdict) -> dict[str, Any]:
    """The YAML mapping of one verdict (fields left out when empty)."""
    entry: dict[str, Any] = {"output": verdict.output, "verdict": verdict.verdict}
    for key in ("annotator", "time", "note"):
        value = getattr(verdict, key)
        if value is not None:
            entry[key] = value
    if verdict.settles:
        entry["settles"] = True
    if verdict.proposal is not None:
        entry["proposal"] = verdict.proposal
    return entry


def _same(entry: Any, verdict: Verdict) -> bool:
    # Every stored field must match, so that one annotator never takes back another's
    # verdict given on the same output in the same second.
    return isinstance(entry, dict) and entry_of(verdict) == {
        k: (str(v) if k == "time" else v) for k, v in entry.items()}


def record(path: Path, pair: str, item: str, output: str, verdict: str,
           annotator: str | None = None, note: str | None = None,
           time: str | None = None, settles: bool = False) -> Verdict:
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
        settles: Whether the verdict settles a disagreement on the output.

    Returns:
        The verdict as stored.
    """
    stored = make_verdict(output, verdict, annotator, note, time, settles)
    record_many(path, pair, [(item, stored)])
    return stored


def make_verdict(output: str, verdict: str, annotator: str | None = None,
                 note: str | None = None, time: str | None = None,
                 settles: bool = False, proposal: str | None = None) -> Verdict:
    """A checked verdict as it will be stored (output stripped, annotator and time filled;
    `proposal`: the id of the proposal it is recorded from).

    Raises:
        TestsuiteError: for a value other than pass or fail, or an empty output.
    """
    if verdict not in VERDICTS:
        raise TestsuiteError(f"a verdict is 'pass' or 'fail', not {verdict!r}")
    if not output.strip():
        raise TestsuiteError("an empty output is always 'missing'; it takes no verdict")
    return Verdict(output.strip(), verdict, annotator or default_annotator(), time or now(),
                   note or None, settles, proposal)


def record_many(path: Path, pair: str, decisions: list[tuple[str, Verdict]]) -> None:
    """Add several decisions (item id, verdict) in one locked, atomic write: all or none."""
    record_all({path: (pair, decisions)})


def record_all(by_file: dict[Path, tuple[str, list[tuple[str, Verdict]]]]) -> None:
    """Add decisions to several verdicts files, all or none.

    Every file is locked first (in sorted order, so that two writers never wait for each
    other crosswise), then each is re-read and its new text written aside, and only when
    all are written are they swapped in (`files.write_all`). A lock that is not free in
    time, a file that cannot be read or written: no file is changed.

    Args:
        by_file: For each verdicts file, its pair and the (item id, verdict) to add.

    Raises:
        TestsuiteError: naming the file at fault and saying that nothing was recorded.
    """
    wanted = {path: decisions for path, decisions in by_file.items() if decisions[1]}
    if not wanted:
        return
    try:
        with contextlib.ExitStack() as held:
            for path in sorted(wanted):
                held.enter_context(lock(path))
            contents = {}
            for path in sorted(wanted):
                pair, decisions = wanted[path]
                data = _read(path, pair)
                rules = data["rules"]
                by_item = {str(rule.get("item")): rule for rule in rules
                           if isinstance(rule, dict)}
                for item, stored in decisions:
                    rule = by_item.get(item)
                    if rule is None:
                        rule = by_item[item] = {"item": item, "verdicts": []}
                        rules.append(rule)
                    rule.setdefault("verdicts", []).append(entry_of(stored))
                contents[path] = encode_text(dump_yaml(data), path)
            write_all(contents)
    except TestsuiteError as exc:
        count = sum(len(decisions) for _, decisions in wanted.values())
        if count == 1:  # the message says what failed; one decision is all or none anyway
            raise
        files = f" in {len(wanted)} verdicts files" if len(wanted) > 1 else ""
        raise TestsuiteError([*exc.problems, Problem(
            f"nothing was recorded (the {count} decisions{files} are recorded all or "
            "none)")]) from None


def remove(path: Path, item: str, verdict: Verdict) -> bool:
    """Take back one recorded decision (undo). Returns False if it was not found."""
    return remove_many(path, [(item, verdict)]) == 1


def remove_many(path: Path, decisions: list[tuple[str, Verdict]]) -> int:
    """Take back several decisions in one locked, atomic write.

    Only entries equal in every field (annotator and time included) are removed, the latest
    such entry for each decision.

    Returns:
        How many were found and removed.
    """
    with lock(path):
        if not path.exists():
            return 0
        data = _read(path, "")
        removed = 0
        for item, verdict in decisions:
            for rule in data["rules"]:
                if not isinstance(rule, dict) or str(rule.get("item")) != item:
                    continue
                entries = rule.get("verdicts") or []
                found = next((i for i in range(len(entries) - 1, -1, -1)
                              if _same(entries[i], verdict)), None)
                if found is not None:
                    del entries[found]
                    removed += 1
                    if not entries:
                        data["rules"].remove(rule)
                    break
        if removed:
            write_text(path, dump_yaml(data))
        return removed


def set_note(path: Path, item: str, verdict: Verdict, note: str | None) -> Verdict:
    """Change the note of a recorded decision (annotator, time and verdict unchanged).

    Returns:
        The verdict with its new note.

    Raises:
        TestsuiteError: if the decision is no longer in the file.
    """
    changed = replace(verdict, note=note or None)
    with lock(path):
        data = _read(path, "") if path.exists() else {"rules": []}
        for rule in data["rules"]:
            if not isinstance(rule, dict) or str(rule.get("item")) != item:
                continue
            entries = rule.get("verdicts") or []
            for index in range(len(entries) - 1, -1, -1):
                if _same(entries[index], verdict):
                    entries[index] = entry_of(changed)
                    write_text(path, dump_yaml(data))
                    return changed
    raise TestsuiteError(Problem(f"the {verdict.verdict} on this output is no longer in the "
                                 "file (taken back meanwhile?); the note was not saved",
                                 file=str(path), item=item))


def revoke(paths: Iterable[Path], proposal: str, *, dry_run: bool = False
           ) -> list[tuple[Path, str, Verdict]]:
    """Take back every verdict recorded from one proposal, in every file given, together.

    Every file is locked (in a fixed order, so that two revocations cannot wait for each
    other) and read; then the files that hold such verdicts are swapped in together
    (`files.write_all`, as `record_all` does). A file that is not a verdicts file, or one
    that cannot be written, refuses the whole revocation: no file is changed.

    Args:
        paths: The verdicts files to look in (those that do not exist are skipped).
        proposal: The proposal's id (`Verdict.proposal`).
        dry_run: Only say what would be taken back.

    Returns:
        (file, item id, verdict) of each verdict taken back (or that would be).
    """
    found: list[tuple[Path, str, Verdict]] = []
    with contextlib.ExitStack() as stack:
        chosen = sorted({Path(p).resolve() for p in paths if Path(p).exists()})
        for path in chosen:
            stack.enter_context(lock(path))
        edits: dict[Path, bytes] = {}
        for path in chosen:
            if not path.exists():
                continue
            data = _read(path, "")
            before = len(found)
            for rule in data["rules"]:
                if not isinstance(rule, dict):
                    continue
                entries = rule.get("verdicts") or []
                kept = []
                for entry in entries:
                    if isinstance(entry, dict) and entry.get("proposal") == proposal:
                        found.append((path, str(rule.get("item")), _verdict_of(entry)))
                    else:
                        kept.append(entry)
                rule["verdicts"] = kept
            data["rules"] = [r for r in data["rules"]
                             if not (isinstance(r, dict) and "verdicts" in r and not r["verdicts"]
                                     and set(r) <= {"item", "verdicts"})]
            if len(found) > before:
                edits[path] = encode_text(dump_yaml(data), path)
        if not dry_run:
            write_all(edits)
    return found


def _verdict_of(entry: dict[str, Any]) -> Verdict:
    """A stored verdict entry as a `Verdict` (as `entry_of` wrote it)."""
    def text(key: str) -> str | None:
        value = entry.get(key)
        return None if value is None else str(value)

    return Verdict(str(entry.get("output", "")), str(entry.get("verdict", "")),
                   text("annotator"), text("time"), text("note"),
                   bool(entry.get("settles", False)), text("proposal"))
