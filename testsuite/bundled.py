"""Where the shipped suites, rules and illustrative sample outputs are.

In a wheel they are package data under ``testsuite/_bundled/`` (see pyproject.toml); in a
source checkout or an editable install they are the top-level ``suites/``, ``rules/`` and
``samples/`` folders that suite authors edit.
"""

from __future__ import annotations

from pathlib import Path

from .errors import TestsuiteError


def bundled_root() -> Path:
    """The folder holding ``suites/``, ``rules/`` and ``samples/``."""
    here = Path(__file__).resolve().parent
    for root in (here / "_bundled", here.parent):
        if (root / "suites").is_dir() and (root / "rules").is_dir():
            return root
    raise TestsuiteError("the bundled suites were not found; reinstall testsuite, or pass "
                         "--suite with your own suites and rules")


def bundled_suite_paths() -> list[Path]:
    """The paths to load for the default suite: its suites and rules folders."""
    root = bundled_root()
    return [root / "suites", root / "rules"]


def bundled_samples() -> Path:
    """The folder of illustrative sample outputs."""
    return bundled_root() / "samples"
