"""testsuite: linguistically motivated test suites for machine translation.

The library is the product; the `testsuite` command wraps it. Typical use::

    import testsuite
    suite = testsuite.load_suite(["suites/de-en", "rules/de-en"])
    systems, located = testsuite.load_outputs(suite, [Path("wmt21/txt-ts")], pair="de-en")
    evaluation = testsuite.evaluate(suite, systems, located=located)
    evaluation.results          # tidy DataFrame: item, pair, category, … outcome, reason

Names are imported on first use so that ``import testsuite`` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Item": "model",
    "Rule": "model",
    "Verdict": "model",
    "Suite": "model",
    "Outcome": "model",
    "TestsuiteError": "errors",
    "Problem": "errors",
    "load_suite": "loader",
    "lint": "loader",
    "judge": "matching",
    "evaluate": "evaluate",
    "Evaluation": "evaluate",
    "load_outputs": "inputs",
    "read_dfki": "dfki",
    "import_dfki": "dfki",
    "dfki_json": "dfki",
    "write_sources": "sources",
    "write_results": "results_io",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'testsuite' has no attribute {name!r}")
