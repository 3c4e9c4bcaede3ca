"""The user's cache folder, and what may be trusted in it.

Two caches make a fresh process fast: compiled regexes (`matching.RegexCache`) and parsed
suites (`loader.load`, as JSON keyed by the content of every suite file). Either may be
deleted at any time; a missing, foreign or damaged cache file is ignored and rewritten.

A cache folder someone else can write (a shared or restored ``$TESTSUITE_CACHE_DIR``) could
make the engine judge with other rules or, for the regex pickle, run their code: a cache
file is only used if it is owned by the user and neither group- nor world-writable, and the
same holds for its folder (`trusted`).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from .errors import TestsuiteError
from .files import write_text


def cache_dir() -> Path | None:
    """Folder for caches: $TESTSUITE_CACHE_DIR, else $XDG_CACHE_HOME/testsuite, else
    ~/.cache/testsuite. Setting TESTSUITE_CACHE_DIR to an empty string disables caching."""
    configured = os.environ.get("TESTSUITE_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "testsuite"


def trusted(path: Path) -> bool:
    """Whether a cache file and its folder are the user's own and writable by no one else."""
    if not hasattr(os, "getuid"):  # Windows: no owner bits to check
        return path.is_file()
    for target in (path.parent, path):
        try:
            info = target.stat()
        except OSError:
            return False
        if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
    return True


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
    with contextlib.suppress(OSError, TestsuiteError):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_text(folder / name, json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                   private=True)
