"""Paradigm templates: one item family written once, expanded over slots.

A suite file may hold ``templates:`` beside (or instead of) ``items:``. A template has
*slots* — for example ``tense`` and ``polarity`` — whose values carry variables; every
combination of slot values becomes one item, and the template's rule fields become that
item's rule. ``{{name}}`` in the source, phenomenon, description, regexes, tokens and
examples is replaced by the variable of that name (double braces, because regexes use
single ones). Variables come from the slot values and from ``cases``, which gives
variables for particular combinations (``present.negated``) where the pieces do not
compose — English negation is "doesn't read", not "not reads".

Ids are ``<template id>.<value>.<value>…`` in slot order, so adding a value to a slot only
adds items. A slot added later can name a ``default`` value: combinations with that value
leave it out of the id, so the items that existed before keep their ids.

Example::

    templates:
      - id: lesen
        phenomenon: '{{phenomenon}}'
        source: 'Lena {{finite}} das Buch {{nicht}}{{infinite}}.'
        positive_regex: '{{right}}'
        negative_regex: '{{wrong}}'
        examples: {pass: ['{{pass1}}', '{{pass2}}'], fail: ['{{fail1}}', '{{fail2}}']}
        slots:
          tense:
            present: {phenomenon: Present, finite: liest, infinite: ''}
            perfect: {phenomenon: Perfect, finite: hat, infinite: gelesen}
          polarity:
            default: affirmative
            affirmative: {nicht: ''}
            negated: {nicht: 'nicht '}
        cases:
          present.affirmative: {right: '\\breads\\b', wrong: ..., pass1: ..., ...}
          ...
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import Problem
from .model import Item, Rule
from .yamlio import LINE

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
TEMPLATE_KEYS = {"id", "phenomenon", "source", "description", "notes", "positive_regex",
                 "negative_regex", "positive_tokens", "negative_tokens", "examples", "slots",
                 "cases"}
_SPACES = re.compile(r" {2,}")
_SPACE_BEFORE_PUNCTUATION = re.compile(r" +([.,;:!?])")


@dataclass
class Expansion:
    """Items and rules generated from templates, with problems found on the way."""

    items: list[Item] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _tidy(text: str) -> str:
    """Remove the double spaces and spaces before punctuation left by empty variables."""
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", _SPACES.sub(" ", text)).strip()


def expand(raw: dict[str, Any], pair: str, category: str, file: Path) -> Expansion:
    """Expand one template mapping (as loaded from YAML) into items and rules."""
    result = Expansion()
    line = raw.get(LINE)
    template_id = str(raw.get("id") or "").strip()

    def problem(message: str) -> None:
        result.problems.append(Problem(message, str(file), line, template_id or None))

    extra = sorted(str(k) for k in raw if k != LINE and k not in TEMPLATE_KEYS)
    if extra:
        problem(f"unknown key(s) in template: {', '.join(extra)}")
    if not template_id:
        problem("template without an 'id'")
        return result
    for key in ("phenomenon", "source"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            problem(f"template lacks '{key}'")
    slots = raw.get("slots")
    if not isinstance(slots, dict) or not any(k != LINE for k in slots):
        problem("template needs 'slots': a mapping of slot name → values")
        return result
    if result.problems:
        return result

    dimensions: list[tuple[str, str | None, list[tuple[str, dict[str, Any]]]]] = []
    for name, values in ((k, v) for k, v in slots.items() if k != LINE):
        if not isinstance(values, dict):
            problem(f"slot '{name}' must map value names to their variables")
            return result
        default = values.get("default")
        options = [(str(k), v or {}) for k, v in values.items() if k not in (LINE, "default")]
        if not options or not all(isinstance(v, dict) for _, v in options):
            problem(f"slot '{name}' needs values, each a mapping of variables")
            return result
        if default is not None and str(default) not in {k for k, _ in options}:
            problem(f"slot '{name}': default {default!r} is not one of its values")
        dimensions.append((str(name), None if default is None else str(default), options))

    cases = raw.get("cases") or {}
    known_cases: set[str] = set()
    for combination in itertools.product(*(options for _, _, options in dimensions)):
        keys = [key for key, _ in combination]
        case_key = ".".join(keys)
        known_cases.add(case_key)
        variables: dict[str, Any] = {}
        for _, values in combination:
            variables.update({k: v for k, v in values.items() if k != LINE})
        case = cases.get(case_key) or {}
        variables.update({k: v for k, v in case.items() if k != LINE})
        id_parts = [key for (name, default, _), key in zip(dimensions, keys, strict=True)
                    if key != default]
        item_id = ".".join([template_id, *id_parts])
        missing: set[str] = set()

        def fill(text: Any, variables: dict[str, Any] = variables,
                 missing: set[str] = missing) -> str:
            def replace(match: re.Match[str]) -> str:
                name = match.group(1)
                if name not in variables:
                    missing.add(name)
                    return ""
                return str(variables[name] if variables[name] is not None else "")
            return PLACEHOLDER.sub(replace, str(text))

        def fill_all(values: Any) -> tuple[str, ...]:
            if values is None:
                return ()
            values = [values] if isinstance(values, str) else values
            return tuple(_tidy(fill(v)) for v in values if _tidy(fill(v)))

        examples = raw.get("examples") or {}
        item = Item(item_id, pair, category, _tidy(fill(raw["phenomenon"])),
                    _tidy(fill(raw["source"])),
                    _tidy(fill(raw["description"])) if raw.get("description") else None,
                    raw.get("notes"), str(file), line, template_id)
        rule = Rule(item_id, fill(raw.get("positive_regex") or ""),
                    fill(raw.get("negative_regex") or ""),
                    fill_all(raw.get("positive_tokens")), fill_all(raw.get("negative_tokens")),
                    (), examples_pass=fill_all(examples.get("pass")),
                    examples_fail=fill_all(examples.get("fail")),
                    examples_reworded=fill_all(examples.get("reworded")),
                    examples_near_miss=fill_all(examples.get("near_miss")),
                    file=str(file), line=line)
        if missing:
            problem(f"{item_id}: no value for {', '.join('{{' + m + '}}' for m in sorted(missing))}"
                    f" (give it in a slot value or in cases.{case_key})")
            continue
        result.items.append(item)
        result.rules.append(rule)
    unknown = sorted(str(k) for k in cases if k != LINE and str(k) not in known_cases)
    if unknown:
        problem(f"cases for combinations that do not exist: {', '.join(unknown)}")
    return result
