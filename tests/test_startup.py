"""`testsuite --help` must stay instant: the CLI module may not import heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "numpy", "statsmodels", "textual", "matplotlib", "regex", "yaml")


def test_cli_import_does_not_pull_heavy_libraries():
    code = ("import json, sys, testsuite.cli; "
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                       capture_output=True, text=True).stdout)
    assert loaded == []


def test_help_runs_as_a_module():
    result = subprocess.run([sys.executable, "-m", "testsuite", "--help"], capture_output=True,
                            text=True, check=True)
    for command in ("lint", "expand", "import-dfki", "export-dfki", "sources", "evaluate",
                    "score", "item-analysis", "report", "plot", "demo", "pending", "verdict",
                    "triage", "compare"):
        assert command in result.stdout
