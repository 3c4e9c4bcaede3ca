"""Typographic equivalence: named normalisations applied to outputs before matching.

Real systems write typographic apostrophes (doesn’t), quotation marks („…“, «…», “…”),
dashes (–, —), no-break and thin spaces, or characters in decomposed Unicode. The DFKI
rules are written with ASCII, so such outputs end as warnings that a person must decide,
though nothing about the phenomenon differs. A *profile* folds these differences away
before the rules are applied:

* ``typographic``: Unicode NFC; apostrophes and single quotation marks (’ ‘ ‚ ‛ ′ ʼ ´ ‹ ›)
  → ``'``; double quotation marks („ “ ” ‟ « » ″ 〝 〞) → ``"``; dashes and minus signs
  (‐ ‑ ‒ – — ― − ﹣ －) → ``-``; the ellipsis … → ``...``; no-break, thin and other spaces →
  a space; zero-width spaces, joiners and soft hyphens removed; runs of white space → one
  space.
* ``nfkc``: the same with Unicode NFKC instead of NFC (also folds ligatures, full-width
  forms, superscripts, …).

Normalisation is **off by default**: it changes outcomes, so the published numbers are
reproduced only without it. When it is on, its name is in every signature, in saved runs
and in every report. Outputs are always *shown* as the system wrote them; only matching
(and the comparison of an output with a recorded verdict) sees the normalised text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from .errors import TestsuiteError

_APOSTROPHES = "\u2019\u2018\u201a\u201b\u2032\u02bc\u00b4\u2039\u203a"
_QUOTES = "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033\u301d\u301e"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
          "\u202f\u205f\u3000\t\n\r\x0b\x0c\u0085\u2028\u2029"
_REMOVED = "\u200b\u200c\u200d\u2060\ufeff\u00ad"

#: Character → replacement, shared by every profile.
FOLDS: dict[str, str] = {
    **dict.fromkeys(_APOSTROPHES, "'"), **dict.fromkeys(_QUOTES, '"'),
    **dict.fromkeys(_DASHES, "-"), **dict.fromkeys(_SPACES, " "),
    **dict.fromkeys(_REMOVED, ""), "\u2026": "...",
}
_TABLE = str.maketrans(FOLDS)
_RUNS = re.compile(r" {2,}")


@dataclass(frozen=True)
class Profile:
    """A named normalisation of outputs before matching.

    Attributes:
        name: As given on the command line and written in signatures.
        form: The Unicode normal form applied first (``NFC`` or ``NFKC``).
    """

    name: str
    form: Literal["NFC", "NFKC"]

    def apply(self, text: str) -> str:
        """The normalised text (what the rules are matched against)."""
        if not text.isascii():
            text = unicodedata.normalize(self.form, text)
        text = text.translate(_TABLE)
        return _RUNS.sub(" ", text) if "  " in text else text

    def with_offsets(self, text: str) -> tuple[str, list[int]]:
        """The normalised text and, for each of its characters and its end, the index in
        `text` it comes from (to show a match found in the normalised text on the raw one).
        """
        out: list[str] = []
        origin: list[int] = []
        for index, char in enumerate(text):
            piece = unicodedata.normalize(self.form, char).translate(_TABLE)
            for produced in piece:
                if produced == " " and out and out[-1] == " ":
                    continue  # a run of white space is one space
                out.append(produced)
                origin.append(index)
        normalised = "".join(out)
        if normalised != self.apply(text):  # composition across characters (rare): no map
            whole = self.apply(text)
            return whole, [min(i, len(text)) for i in range(len(whole))] + [len(text)]
        return normalised, [*origin, len(text)]

    def folded(self, pattern: str) -> list[str]:
        """Characters of a rule pattern or token that this profile changes: after
        normalisation no output contains them, so that part of the rule can never match."""
        found = []
        for char in dict.fromkeys(pattern):
            if char in FOLDS or unicodedata.normalize(self.form, char) != char:
                found.append(char)
        return found


PROFILES = {"typographic": Profile("typographic", "NFC"),
            "nfkc": Profile("nfkc", "NFKC")}


def profile(name: str | None) -> Profile | None:
    """The profile of a name (None: no normalisation, the published method).

    Raises:
        TestsuiteError: for an unknown name, listing the known ones.
    """
    if name is None or name in ("", "none"):
        return None
    try:
        return PROFILES[name]
    except KeyError:
        raise TestsuiteError(f"unknown normalisation {name!r} (known: none, "
                             f"{', '.join(PROFILES)})") from None
