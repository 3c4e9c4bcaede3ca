"""How counts are written in messages: "1 output", "2 outputs", never "1 outputs"."""

from __future__ import annotations


def counted(count: int, word: str, plural: str | None = None) -> str:
    """``count`` and the noun, singular for one.

    Args:
        count: How many.
        word: The noun in the singular ("output").
        plural: Its plural when it is not the word and an "s" ("the outcomes" is; a
            "phenomenon" is not).
    """
    return f"{count:,} {word if count == 1 else plural or word + 's'}"
