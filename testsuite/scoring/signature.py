"""The signature of a result: everything needed to tell whether two numbers are comparable.

Like sacreBLEU's (``nrefs:1|case:mixed|tok:13a|version:2.x``): a line of ``key:value`` parts
printed under every report. It is built from the options by the scoring core and rendered
by the reports; nothing parses it back — reports read `Signature.fields`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..model import Rule, Suite


@dataclass(frozen=True)
class Signature:
    """An ordered set of ``key:value`` parts; ``str()`` gives the signature line."""

    parts: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, *parts: tuple[str, object]) -> Signature:
        """Build from (key, value) pairs; None values and empty lists are left out, and a
        list or tuple of names is joined with commas (``systems:A,B``)."""
        kept = []
        for key, value in parts:
            if isinstance(value, (list, tuple)):
                value = ",".join(map(str, value)) or None
            if value is not None:
                kept.append((key, str(value)))
        return cls(tuple(kept))

    @property
    def fields(self) -> dict[str, str]:
        """The parts as an ordered mapping."""
        return dict(self.parts)

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of one part."""
        return self.fields.get(key, default)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.parts)

    def __str__(self) -> str:
        return "|".join(f"{key}:{value}" for key, value in self.parts)


def _judging(rule: Rule | None) -> list[Any] | None:
    """What of a rule decides outcomes (regexes, tokens, verdicts), as plain data."""
    if rule is None:
        return None
    return [rule.positive_regex, rule.negative_regex, list(rule.positive_tokens),
            list(rule.negative_tokens), sorted([v.output.strip(), v.verdict]
                                               for v in rule.verdicts)]


def rule_hash(rule: Rule | None) -> str:
    """Short hash of what of a rule decides outcomes: equal hashes, same outcomes."""
    text = json.dumps(_judging(rule), ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


#: Suite hashes kept in the cache folder (the oldest half is removed beyond this).
MAX_SUITE_HASHES = 1000


def suite_hash(suite: Suite, pair: str) -> str:
    """Short hash of a pair's items and rules (verdicts included): equal hashes, same judging.

    Kept in the user's cache per loaded suite (`Suite.key`): hashing every rule of a large
    suite costs more than the rest of a score's signature. The files are ``hash-*.json``,
    pruned on their own (not ``suite-*.json``: those are the parsed suites of `loader.load`).
    """
    from ..cache import prune, read_json, write_json

    name = f"hash-{suite.key}-{pair}.json" if suite.key else None
    found = read_json(name) if name else None
    if isinstance(found, str):
        return found
    content = [[item.id, item.category, item.phenomenon, item.source,
                _judging(suite.rules.get((pair, item.id)))] for item in suite.items_of(pair)]
    digest = hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8"))
    if name:
        write_json(name, digest.hexdigest()[:12])
        prune("hash-*.json", MAX_SUITE_HASHES)
    return digest.hexdigest()[:12]
