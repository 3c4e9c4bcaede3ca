"""System outputs in the forms users have them: aligned text, WMT txt-ts files, TSV.

Every reader returns `SystemOutputs`: one system's output for each item it translated.
"""

from .model import Located, SystemOutputs
from .readers import (
    discover,
    read_aligned,
    read_ids,
    read_tsv,
    read_wmt,
    system_name,
    wmt_pair,
)
from .text import read_lines

__all__ = [
    "Located",
    "SystemOutputs",
    "discover",
    "read_aligned",
    "read_ids",
    "read_lines",
    "read_tsv",
    "read_wmt",
    "system_name",
    "wmt_pair",
]
