"""The user's cache folder, and what may be trusted in it.

Caches make a fresh process fast: compiled regexes (`matching.RegexCache`), parsed suites
(`loader.load`, as JSON keyed by the content of the suite files), and evaluations of
unchanged inputs (`inputs.load_evaluation`, `runs.load_run`, each a `PickleCache`: keyed by
the suite's content, the size and time of every input file, and every option that changes an
outcome). Any may
be deleted at any time; a missing, foreign or damaged cache file is ignored and rewritten.

A cache folder someone else can write (a shared or restored ``$TESTSUITE_CACHE_DIR``) could
make the engine judge with other rules or, for the regex pickle, run their code: a cache
file is only used if it is owned by the user and neither group- nor world-writable, and the
same holds for its folder (`trusted`, which says why in a warning). Caches are written
with mode 0600 in a folder created 0700, and never into a folder others can write.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import TestsuiteError, TestsuiteWarning
from .files import write_bytes, write_text

#: Part of every cache key: bumped when what a cache holds changes shape (a cached object of
#: an older shape must never be loaded into newer code), or when a reader refuses what it
#: used to accept (3: lone surrogates in WMT lines read with --encoding utf-7, which an
#: evaluation cached before would still bring back).
CACHE_VERSION = 3


def cache_dir() -> Path | None:
    """Folder for caches: $TESTSUITE_CACHE_DIR, else $XDG_CACHE_HOME/testsuite, else
    ~/.cache/testsuite. Setting TESTSUITE_CACHE_DIR to an empty string disables caching."""
    configured = os.environ.get("TESTSUITE_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "testsuite"


def trusted(path: Path) -> bool:
    """Whether a cache file and its folder are the user's own and writable by no one else.

    A cache file that exists but is not trusted is named, with the reason, in a
    `TestsuiteWarning` (the CLI prints it as one line): the user should know why every run
    is slow, and that someone may have tried to plant a file.
    """
    if not path.is_file():
        return False
    why = distrust(path.parent) or distrust(path)
    if why:
        warnings.warn(TestsuiteWarning(
            f"cache not used: {why} (a cache others can change could make the engine judge "
            "with other rules or, being a pickle for regexes, run their code); delete it or "
            "set TESTSUITE_CACHE_DIR to a folder of your own"), stacklevel=2)
    return why is None


def distrust(path: Path) -> str | None:
    """Why a cache file or folder must not be used, or None if it may (or does not exist).

    Without user ids (Windows) nothing is checked.
    """
    if not hasattr(os, "getuid"):
        return None
    try:
        info = path.stat()
    except OSError:
        return None
    what = "folder" if stat.S_ISDIR(info.st_mode) else "file"
    if info.st_uid != os.getuid():
        return f"the {what} {path} belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"the {what} {path} can be written by other users"
    return None


def read_json(name: str) -> Any | None:
    """A JSON cache entry, or None if absent, untrusted or unreadable."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / name
    if not trusted(path):
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def write_json(name: str, data: Any) -> None:
    """Store a JSON cache entry; failing to write a cache is not worth stopping for."""
    folder = cache_dir()
    if folder is None:
        return
    if distrust(folder):
        return  # others could change what we write; `trusted` says so when reading
    with contextlib.suppress(OSError, TestsuiteError):
        write_text(folder / name, json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                   private=True)


def prune(pattern: str, keep: int) -> None:
    """Keep at most `keep` cache files matching `pattern`: beyond that, drop the older half."""
    folder = cache_dir()
    if folder is None:
        return
    with contextlib.suppress(OSError):
        files = list(folder.glob(pattern))
        if len(files) <= keep:
            return
        files.sort(key=lambda f: f.stat().st_mtime)
        for old in files[: len(files) - keep // 2]:
            old.unlink(missing_ok=True)


def read_pickle(path: Path) -> Any | None:
    """A pickled cache entry, or None if absent, untrusted (loading a pickle runs code, so
    only the user's own private file is loaded) or unreadable."""
    if not trusted(path):
        return None
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)  # noqa: S301 - the user's own private cache file
    except Exception:  # a truncated or foreign file is simply not used
        return None


def write_pickle(path: Path, value: Any) -> None:
    """Store a pickled cache entry, privately; failing to write a cache is not worth stopping
    for, and nothing is written into a folder others can write."""
    if distrust(path.parent):
        return
    with contextlib.suppress(OSError, TestsuiteError, pickle.PicklingError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_bytes(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), private=True)


@dataclass(frozen=True)
class PickleCache:
    """One kind of pickled cache entry (loaded runs, evaluations): files
    ``<kind>-<hash>.pickle`` in `cache_dir`, read only when trusted (`read_pickle`), written
    privately (`write_pickle`), and at most `keep` of them kept (`prune`).

    Attributes:
        kind: The file name's prefix; each kind has its own, so that pruning one kind never
            removes another.
        keep: Files of this kind kept (the oldest half is removed beyond this).
    """

    kind: str
    keep: int

    def file(self, *parts: object) -> Path | None:
        """The cache file of the entry keyed by `parts` (every part that changes what is
        cached, by `repr`; the engine's version and `CACHE_VERSION` are added), or None when
        caching is off."""
        from . import __version__

        folder = cache_dir()
        if folder is None:
            return None
        key = repr([__version__, CACHE_VERSION, *parts])
        digest = hashlib.blake2b(key.encode("utf-8", "surrogateescape"), digest_size=16)
        return folder / f"{self.kind}-{digest.hexdigest()}.pickle"

    def read(self, path: Path | None) -> Any | None:
        """The entry stored in `path` (see `read_pickle`), or None."""
        return read_pickle(path) if path is not None else None

    def write(self, path: Path, value: Any) -> None:
        """Store an entry in `path` (see `write_pickle`) and prune the older ones."""
        write_pickle(path, value)
        prune(f"{self.kind}-*.pickle", self.keep)


def file_stamp(path: Path) -> str:
    """What identifies a file's version for a cache key: its path, size and times."""
    try:
        info = Path(path).stat()
    except OSError:
        return f"{path}:missing"
    return f"{Path(path).resolve()}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}"
