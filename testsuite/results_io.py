"""Writing evaluation results as JSON lines or CSV."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .errors import TestsuiteError
from .files import write_text

if TYPE_CHECKING:
    import pandas as pd

FORMATS = (".jsonl", ".csv")


def write_results(results: pd.DataFrame, path: Path) -> None:
    """Write one record per item × system; the format follows the suffix (.jsonl or .csv)."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        text = results.to_json(orient="records", lines=True, force_ascii=False)
    elif suffix == ".csv":
        from .reports.escape import csv_text

        text = csv_text(results)  # cells that a spreadsheet would run as formulas neutralised
    else:
        raise TestsuiteError(f"{path}: unknown results format {suffix or '(none)'}; use "
                             f"{' or '.join(FORMATS)}")
    write_text(path, text if text.endswith("\n") or not text else text + "\n")
