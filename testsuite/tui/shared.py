"""What several triage sessions on one suite folder share: files on disk, presence, drafts.

`SharedFolder` keeps a triage session's suite in step with the folder:

* **Verdicts and rules written by others.** It remembers the modification time and size of
  every verdicts file and hand-written rules file of the suite; `poll` re-reads just the
  files that changed (another session's decisions or rule edits, or our own), puts their
  content into the suite's rules and returns the items whose rule changed, to re-judge.
  Verdicts of the verdicts files are kept apart from those written by hand in rules files,
  so that re-reading one never duplicates or drops the other.
* **Presence.** Each session keeps a small file in the ``.testsuite/presence/`` folder
  beside the verdicts saying which output it is on (rewritten when that changes and every
  `PRESENCE_REFRESH` s), and holds a lock on a second file beside it (``<id>.alive``)
  for as long as it runs. `look_around` reads the others' marks: a mark whose lock is free
  belongs to a session that is gone — killed, crashed, its terminal closed: the system
  releases the lock at once — and is removed; a mark without a lock file (a file system
  without locks) counts until it is `PRESENCE_TIMEOUT` s old.
* **Drafts of notes** typed on outputs not decided yet, in ``.testsuite/notes-<annotator>.json``
  (JSON, so that the loader, which reads every YAML file of a rules folder, never takes it
  for a rules file).

The ``.testsuite/`` folder is the one `testsuite.files.lock` keeps its locks in, ignored by
git.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import TestsuiteError
from ..files import LOCK_FOLDER, read_json, tool_folder, write_text
from ..model import Rule, Suite, Verdict
from ..verdicts.queue import verdicts_path
from ..verdicts.store import VERDICTS_FILE

if TYPE_CHECKING:
    from filelock import BaseFileLock

#: Seconds between rewrites of a session's presence mark while it stays on one output.
PRESENCE_REFRESH = 2.0
#: Seconds after which a presence mark that cannot be checked by its lock is gone.
PRESENCE_TIMEOUT = 8.0
#: Largest presence mark read (a mark is about 200 bytes).
PRESENCE_BYTES = 2**16
#: An output to decide: (pair, item id, stripped output).
Key = tuple[str, str, str]
ItemKey = tuple[str, str]


@dataclass
class Synced:
    """What `SharedFolder.poll` found changed on disk."""

    verdicts: int = 0
    rules: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    items: set[ItemKey] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.verdicts or self.rules or self.problems or self.items)


def _hold(path: Path) -> BaseFileLock | None:
    """Lock `path` for as long as this session runs (None where the file system has no
    locks: the mark's age tells then)."""
    from filelock import FileLock, Timeout

    held = FileLock(path, timeout=0, fallback_to_soft=False, preserve_lock_file=True)
    try:
        held.acquire()
    except (Timeout, OSError):
        return None
    return held


def _gone(alive: Path) -> bool | None:
    """Whether the session that locked `alive` is gone (its lock is free); None when
    the file system cannot tell."""
    from filelock import FileLock, Timeout

    probe = FileLock(alive, timeout=0, fallback_to_soft=False, preserve_lock_file=True)
    try:
        probe.acquire()
    except Timeout:
        return False  # held: the session runs
    except OSError:
        return None  # cannot tell: the mark's age will
    probe.release()
    return True


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size)


class SharedFolder:
    """The files a triage session shares with others (see the module docstring).

    Args:
        suite: The session's suite; `poll` updates its rules in place.
        annotator: Who this session is (presence, drafts).
    """

    def __init__(self, suite: Suite, annotator: str) -> None:
        from ..loader import read_verdicts

        self.suite = suite
        self.annotator = annotator
        self.hand: dict[ItemKey, tuple[Verdict, ...]] = {}  # verdicts in rules files
        self.in_files: dict[Path, dict[ItemKey, tuple[Verdict, ...]]] = {}
        self.signatures: dict[Path, tuple[int, int] | None] = {}
        paths: set[Path] = set()
        for (pair, item_id) in suite.items:
            with contextlib.suppress(TestsuiteError):
                paths.add(verdicts_path(suite, pair, item_id))
        for path in paths:
            found = read_verdicts(path)[0] if path.exists() else {}
            self.in_files[path] = dict(found)
            self.signatures[path] = _signature(path)
        counts: Counter[ItemKey] = Counter()
        for found in self.in_files.values():
            for key, verdicts in found.items():
                counts[key] += len(verdicts)
        for key, rule in suite.rules.items():
            # The loader appends the verdicts files' verdicts after the rule's own.
            self.hand[key] = rule.verdicts[:len(rule.verdicts) - counts.get(key, 0)]
            if rule.file and Path(rule.file).name != VERDICTS_FILE:
                self.signatures.setdefault(Path(rule.file), _signature(Path(rule.file)))
        self.presence: Path | None = None
        self._alive: BaseFileLock | None = None  # held while this session runs
        self._presence_written = 0.0
        self._presence_on: tuple[Path, Key] | None = None
        # One file per session (a process may run several, as the tests do).
        self._session_id = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"

    # --- verdicts and rules -----------------------------------------------------------------

    def added(self, pair: str, item: str, verdict: Verdict) -> None:
        """Mirror a verdict this session wrote (so that re-reading the file changes nothing)."""
        path = verdicts_path(self.suite, pair, item)
        found = self.in_files.setdefault(path, {})
        found[(pair, item)] = (*found.get((pair, item), ()), verdict)

    def removed(self, pair: str, item: str, verdict: Verdict) -> None:
        """Mirror a verdict this session took back."""
        path = verdicts_path(self.suite, pair, item)
        found = list(self.in_files.get(path, {}).get((pair, item), ()))
        if verdict in found:
            found.reverse()
            found.remove(verdict)
            found.reverse()
            self.in_files[path][(pair, item)] = tuple(found)

    def poll(self) -> Synced:
        """Re-read every file that changed since the last look; update the suite's rules.

        Returns:
            What changed, with the items whose rule changed (to re-judge).
        """
        from ..loader import read_verdicts

        synced = Synced()
        for path, old in list(self.signatures.items()):
            now = _signature(path)
            if now == old:
                continue
            self.signatures[path] = now
            if path.name != VERDICTS_FILE:
                keys = self.reload_rules(path, synced)
                if keys:
                    synced.items |= keys
                    synced.rules.append(str(path))
                continue
            try:
                found, problems = read_verdicts(path) if now else ({}, [])
            except TestsuiteError as exc:  # half-edited by hand: keep what we have
                synced.problems.append(str(exc))
                continue
            synced.problems.extend(str(p) for p in problems if p.fatal)
            before = self.in_files.get(path, {})
            for key in set(before) | set(found):
                if before.get(key, ()) == found.get(key, ()):
                    continue
                synced.items.add(key)
                synced.verdicts += abs(len(found.get(key, ())) - len(before.get(key, ())))
                rule = self.suite.rules.get(key) or Rule(key[1])
                self.suite.rules[key] = replace(
                    rule, verdicts=(*self.hand.get(key, ()), *found.get(key, ())))
            self.in_files[path] = dict(found)
        synced.items &= set(self.suite.items)
        return synced

    def reload_rules(self, path: Path, synced: Synced | None = None) -> set[ItemKey]:
        """Read one hand-written rules file again; returns the items whose rule changed.

        Items generated by templates keep their rule (it merges with the template's).
        """
        from ..loader import load

        result = load([path])
        fatal = [p for p in result.problems if p.fatal]
        if fatal:
            if synced is not None:
                synced.problems.extend(str(p) for p in fatal)
            return set()
        changed = set()
        for key, loaded in result.suite.rules.items():
            item = self.suite.items.get(key)
            if item is None or item.template:
                continue
            self.hand[key] = loaded.verdicts
            from_files = tuple(v for found in self.in_files.values()
                               for v in found.get(key, ()))
            new = replace(loaded, verdicts=(*loaded.verdicts, *from_files))
            if new != self.suite.rules.get(key):
                changed.add(key)
                self.suite.rules[key] = new
        return changed

    # --- presence ---------------------------------------------------------------------------

    def announce(self, on: Key | None, force: bool = False) -> None:
        """Say which output this session is on (rewritten when it changes, or every
        `PRESENCE_REFRESH` s)."""
        now = time.time()
        if on is None:
            self.leave()
            return
        folder = verdicts_path(self.suite, on[0], on[1]).parent / LOCK_FOLDER / "presence"
        path = folder / f"{self._session_id}.json"
        if not force and (path, on) == self._presence_on \
                and now - self._presence_written < PRESENCE_REFRESH:
            return
        if self.presence is not None and self.presence != path:
            self.leave()
        text = json.dumps({"annotator": self.annotator, "pair": on[0], "item": on[1],
                           "output": on[2], "time": now})
        with contextlib.suppress(TestsuiteError, OSError):
            tool_folder(folder.parent)
            folder.mkdir(exist_ok=True)
            if self._alive is None:
                # The lock before the mark: a mark is never seen without its lock held.
                self._alive = _hold(path.with_suffix(".alive"))
            write_text(path, text)
            self.presence, self._presence_written, self._presence_on = path, now, (path, on)

    def leave(self) -> None:
        """Remove this session's presence mark (on quit), then its lock."""
        if self.presence is not None:
            with contextlib.suppress(OSError):
                self.presence.unlink()
            if self._alive is not None:
                self._alive.release()
                with contextlib.suppress(OSError):
                    self.presence.with_suffix(".alive").unlink()
                self._alive = None
            self.presence, self._presence_on = None, None

    def look_around(self) -> dict[ItemKey, list[str]]:
        """Which items other sessions are on now: (pair, item) → annotators.

        Marks of sessions that are gone are removed (see the module docstring).
        """
        folders = {path.parent / LOCK_FOLDER / "presence" for path in self.in_files}
        others: dict[ItemKey, list[str]] = {}
        now = time.time()
        for folder in folders:
            if not folder.is_dir():
                continue
            for path in folder.glob("*.json"):
                if path == self.presence:
                    continue
                try:
                    # Through the I/O layer: a named pipe or a huge file someone put there
                    # must not block the screen (a pipe blocked it for good) or fill memory.
                    data: Any = read_json(path, limit=PRESENCE_BYTES)
                    stamp = float(data.get("time", 0))
                except (TestsuiteError, ValueError, TypeError, AttributeError):
                    continue  # half-written or foreign: not a session
                alive = path.with_suffix(".alive")
                gone = _gone(alive) if alive.exists() else None
                if gone:
                    with contextlib.suppress(OSError):
                        path.unlink()
                        alive.unlink()
                    continue
                # Without a lock to ask, a mark counts while it is recent: not one stamped
                # NaN or far in the future, which counted for ever (a mark anyone who can
                # write the folder may put there, or a clock gone wrong).
                if gone is None and not -PRESENCE_TIMEOUT <= now - stamp <= PRESENCE_TIMEOUT:
                    continue
                key = (str(data.get("pair")), str(data.get("item")))
                others.setdefault(key, []).append(str(data.get("annotator")))
        return others

    # --- drafts -----------------------------------------------------------------------------

    def drafts_path(self, pair: str, item: str) -> Path:
        """The drafts file of this annotator beside the item's verdicts."""
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.annotator)
        return verdicts_path(self.suite, pair, item).parent / LOCK_FOLDER / f"notes-{name}.json"

    def load_drafts(self) -> dict[Key, str]:
        """The notes this annotator typed on outputs not decided yet, in earlier sessions."""
        notes: dict[Key, str] = {}
        seen: set[Path] = set()
        for (pair, item) in self.suite.items:
            try:
                path = self.drafts_path(pair, item)
            except TestsuiteError:
                continue
            if path in seen:
                continue
            seen.add(path)
            if not path.exists():
                continue
            with contextlib.suppress(TestsuiteError):
                data = read_json(path)
                entries = data.get("notes", []) if isinstance(data, dict) else []
                for entry in entries:
                    if isinstance(entry, dict) and {"pair", "item", "output", "note"} <= set(entry):
                        notes[(str(entry["pair"]), str(entry["item"]),
                               str(entry["output"]))] = str(entry["note"])
        return notes

    def save_drafts(self, notes: dict[Key, str], pair: str, item: str) -> None:
        """Write the drafts file that holds the notes of `item` (at once: never lost)."""
        path = self.drafts_path(pair, item)
        entries = [{"pair": p, "item": i, "output": o, "note": n}
                   for (p, i, o), n in notes.items() if self.drafts_path(p, i) == path]
        tool_folder(path.parent)
        write_text(path, json.dumps({"notes": entries}, ensure_ascii=False, indent=1))
