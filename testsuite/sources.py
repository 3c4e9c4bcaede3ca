"""Source sentences for translation: one per line, with a companion list of item ids."""

from __future__ import annotations

from pathlib import Path

from .errors import TestsuiteError
from .files import write_text
from .model import Suite
from .outputs.readers import source_key


def source_lines(suite: Suite, pair: str) -> list[tuple[str, str]]:
    """(item id, source line) for each item of `pair`, in suite order.

    A source that spans lines (a few DFKI sources end in a newline) is folded to one line:
    a line break inside a source would misalign every later output.
    """
    items = suite.items_of(pair)
    if not items:
        raise TestsuiteError(f"the suite has no {pair} items (it has: "
                             f"{', '.join(suite.pairs) or 'none'})")
    return [(item.id, source_key(item.source)) for item in items]


def write_sources(suite: Suite, pair: str, out: Path) -> tuple[Path, Path]:
    """Write ``out`` (one source per line) and ``out.ids`` (the item id of each line).

    Returns:
        The paths of the sources file and the id list.
    """
    lines = source_lines(suite, pair)
    ids_path = out.with_name(out.name + ".ids")
    write_text(out, "".join(f"{line}\n" for _, line in lines))
    write_text(ids_path, "".join(f"{item_id}\n" for item_id, _ in lines))
    return out, ids_path
