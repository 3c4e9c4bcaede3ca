"""What the output readers return."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class SystemOutputs:
    """One MT system's outputs for the items of one language pair.

    Attributes:
        system: System name, e.g. ``Online-A``.
        pair: Language pair, e.g. ``de-en``.
        outputs: Output per item id (one line, no trailing newline). Items the system was
            not given (not located in its input) are absent; an empty string is an output
            the system left empty (`missing`).
        file: The file the outputs were read from.
        occurrences: For items whose source occurs several times in a WMT source, with the
            ``agree`` policy, the output of every occurrence (see `readers.read_wmt`).
    """

    system: str
    pair: str
    outputs: dict[str, str]
    file: str | None = None
    occurrences: dict[str, list[str]] = field(default_factory=dict)


@dataclass(slots=True)
class Located:
    """Where the items of a suite stand in a WMT source file.

    Attributes:
        source_file: The WMT source file searched.
        pair: Language pair.
        lines: 0-based line of each located item (the first occurrence of its source).
        not_found: Ids of items whose source sentence is not in the file.
        repeated: Ids of items whose source occurs more than once.
        occurrences: Every 0-based line of each repeated item.
        differing: Per system, the repeated items whose occurrences it translated
            differently.
        repeated_policy: Which occurrence was used: ``first``, ``last`` or ``agree``.
        total_lines: Number of lines of the source file.
    """

    source_file: str
    pair: str
    lines: dict[str, int] = field(default_factory=dict)
    not_found: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)
    occurrences: dict[str, list[int]] = field(default_factory=dict)
    differing: dict[str, list[str]] = field(default_factory=dict)
    repeated_policy: str = "first"
    total_lines: int = 0
