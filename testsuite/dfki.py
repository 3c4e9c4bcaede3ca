"""Import and export of the DFKI public test-suite JSON (github.com/DFKI-NLP/mt-testsuite).

The JSON is ``{"items": [...]}`` with, per item, ``id``, ``langpair`` (``deen``),
``category``, ``phenomenon``, ``source_sentence``, ``positive_regex``, ``negative_regex``,
``positive_tokens`` and ``negative_tokens``. Import writes one suite file and one rules
file per category; export writes the JSON back byte for byte as the DFKI files are laid out
(two-space indent, sorted keys, ASCII escapes, no final newline), so a round trip is
lossless and `diff` shows any change a user made.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .errors import Problem, TestsuiteError
from .files import read_text, write_text
from .model import Item, Rule, Suite, pair_code
from .yamlio import dump_yaml

DFKI_KEYS = ("category", "id", "langpair", "negative_regex", "negative_tokens", "phenomenon",
             "positive_regex", "positive_tokens", "source_sentence")


def slug(text: str) -> str:
    """File-name form of a category: ``Coordination & ellipsis`` → ``coordination-ellipsis``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "category"


def read_dfki(path: Path) -> Suite:
    """Read a DFKI ``items.json`` into a suite (items and rules, in file order).

    Raises:
        TestsuiteError: for invalid JSON or items lacking fields, naming item and field.
    """
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise TestsuiteError(Problem(f"not valid JSON: {exc.msg}", str(path), exc.lineno)) from None
    entries = data.get("items") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise TestsuiteError(Problem("expected an object with an 'items' list", str(path)))
    suite = Suite()
    problems = []
    for number, entry in enumerate(entries, start=1):
        missing = [k for k in DFKI_KEYS if not isinstance(entry, dict) or k not in entry]
        if missing:
            known = str(entry["id"]) if isinstance(entry, dict) and "id" in entry else None
            problems.append(Problem(f"item #{number} lacks {', '.join(missing)}", str(path),
                                    item=known))
            continue
        item_id = str(entry["id"])
        pair = pair_code(entry["langpair"])
        key = (pair, item_id)
        if key in suite.items:
            problems.append(Problem("duplicate item id", str(path), item=item_id))
            continue
        suite.items[key] = Item(str(entry["id"]), pair, entry["category"], entry["phenomenon"],
                                entry["source_sentence"])
        suite.rules[key] = Rule(str(entry["id"]), entry["positive_regex"],
                                entry["negative_regex"], tuple(entry["positive_tokens"]),
                                tuple(entry["negative_tokens"]))
    if problems:
        raise TestsuiteError(problems)
    return suite


def suite_documents(suite: Suite) -> dict[Path, dict[str, Any]]:
    """The YAML documents of a suite: relative path → content, one file per category.

    Files are named so that reading them in name order gives back the items in suite order;
    if the categories do not come in alphabetical order, the names get a number prefix.
    """
    documents: dict[Path, dict[str, Any]] = {}
    for pair in suite.pairs:
        items = suite.items_of(pair)
        categories = list(dict.fromkeys(item.category for item in items))
        contiguous = sum(1 for a, b in zip(items, items[1:], strict=False)
                         if a.category != b.category) == len(categories) - 1
        names = [slug(c) for c in categories]
        if names != sorted(names) or len(set(names)) != len(names) or not contiguous:
            raise_if = not contiguous
            if raise_if:
                raise TestsuiteError(f"{pair}: items of a category are not contiguous; they "
                                     "cannot be written one file per category in order")
            names = [f"{n:02d}-{name}" for n, name in enumerate(names, start=1)]
        for category, name in zip(categories, names, strict=True):
            members = [i for i in items if i.category == category]
            documents[Path("suites", pair, f"{name}.yaml")] = {
                "pair": pair, "category": category,
                "items": [_item_document(i) for i in members]}
            documents[Path("rules", pair, f"{name}.yaml")] = {
                "pair": pair,
                "rules": [_rule_document(suite.rules[(pair, i.id)]) for i in members
                          if (pair, i.id) in suite.rules]}
    return documents


def _item_document(item: Item) -> dict[str, Any]:
    document: dict[str, Any] = {"id": item.id, "phenomenon": item.phenomenon,
                                "source": item.source}
    if item.description:
        document["description"] = item.description
    if item.notes:
        document["notes"] = item.notes
    return document


def _rule_document(rule: Rule) -> dict[str, Any]:
    """A rule as YAML; empty fields are left out to keep files short."""
    document: dict[str, Any] = {"item": rule.item}
    for key in ("positive_regex", "negative_regex"):
        if getattr(rule, key):
            document[key] = getattr(rule, key)
    for key in ("positive_tokens", "negative_tokens"):
        if getattr(rule, key):
            document[key] = list(getattr(rule, key))
    if rule.examples_pass or rule.examples_fail:
        document["examples"] = {"pass": list(rule.examples_pass),
                                "fail": list(rule.examples_fail)}
    if rule.verdicts:
        document["verdicts"] = [
            {k: v for k, v in (("output", v.output), ("verdict", v.verdict),
                               ("annotator", v.annotator), ("time", v.time), ("note", v.note))
             if v is not None}
            for v in rule.verdicts]
    return document


def write_suite(suite: Suite, out: Path) -> list[Path]:
    """Write a suite as YAML under ``out/suites/<pair>/`` and ``out/rules/<pair>/``."""
    written = []
    for relative, document in suite_documents(suite).items():
        path = out / relative
        write_text(path, dump_yaml(document))
        written.append(path)
    return written


def import_dfki(path: Path, out: Path) -> tuple[Suite, list[Path]]:
    """Convert a DFKI ``items.json`` into our YAML files under `out`."""
    suite = read_dfki(path)
    return suite, write_suite(suite, out)


def dfki_json(suite: Suite, pair: str) -> str:
    """The DFKI JSON text of one language pair of a suite, laid out like the DFKI files."""
    entries = []
    for item in suite.items_of(pair):
        rule = suite.rules.get((pair, item.id)) or Rule(item.id)
        entries.append({
            "category": item.category, "id": item.id, "langpair": pair.replace("-", ""),
            "negative_regex": rule.negative_regex, "negative_tokens": list(rule.negative_tokens),
            "phenomenon": item.phenomenon, "positive_regex": rule.positive_regex,
            "positive_tokens": list(rule.positive_tokens), "source_sentence": item.source})
    # The DFKI files were written by Python 2's json.dump(indent=2, sort_keys=True), whose
    # item separator keeps a space before the newline.
    return json.dumps({"items": entries}, indent=2, sort_keys=True, separators=(", ", ": "))
