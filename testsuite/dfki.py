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

from .errors import Problem, TestsuiteError, describe
from .files import MAX_SUITE_BYTES, encode_text, join, read_json, write_all
from .model import EXAMPLE_KINDS, Item, Rule, Suite, pair_code
from .verdicts.store import entry_of
from .yamlio import dump_yaml

DFKI_KEYS = ("category", "id", "langpair", "negative_regex", "negative_tokens", "phenomenon",
             "positive_regex", "positive_tokens", "source_sentence")


#: Longest file name made from a category (file systems allow 255 bytes in a name).
MAX_SLUG = 80


def slug(text: str) -> str:
    """File-name form of a category: ``Coordination & ellipsis`` → ``coordination-ellipsis``
    (cut to `MAX_SLUG` characters: a longer category was a write error)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower())[:MAX_SLUG].strip("-") or "category"


def read_dfki(path: Path) -> Suite:
    """Read a DFKI ``items.json`` into a suite (items and rules, in file order).

    Every field is checked before it is used: the language pair becomes a folder name, and
    a string where a token list belongs would otherwise become one-letter tokens.

    Raises:
        TestsuiteError: for invalid JSON or items lacking fields or with fields of the wrong
            kind, naming the item (number and id) and the field.
    """
    data = read_json(path, limit=MAX_SUITE_BYTES)
    entries = data.get("items") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise TestsuiteError(Problem("expected an object with an 'items' list", str(path)))
    suite = Suite()
    problems: list[Problem] = []
    for number, entry in enumerate(entries, start=1):
        checked = _entry(entry, number, path)
        if isinstance(checked, list):
            problems.extend(checked)
            continue
        item, rule = checked
        key = (item.pair, item.id)
        if key in suite.items:
            problems.append(Problem(f"duplicate item id (item #{number})", str(path),
                                    item=item.id))
            continue
        suite.items[key] = item
        suite.rules[key] = rule
    if problems:
        raise TestsuiteError(problems)
    return suite


def _entry(entry: object, number: int, path: Path) -> tuple[Item, Rule] | list[Problem]:
    """One DFKI item as an item and its rule, or the problems that stop it."""
    known = None
    if isinstance(entry, dict) and isinstance(entry.get("id"), (str, int)) \
            and not isinstance(entry.get("id"), bool):
        known = str(entry["id"])

    def problem(message: str) -> Problem:
        # The id names the item; without a usable id, its position in the list does.
        return Problem(message if known else f"item #{number}: {message}", str(path),
                       item=known)

    if not isinstance(entry, dict):
        return [problem(f"an item must be an object with {', '.join(DFKI_KEYS)}, "
                        f"not {describe(entry)}")]
    missing = [k for k in DFKI_KEYS if k not in entry]
    if missing:
        return [problem(f"lacks {', '.join(missing)}")]
    problems = []
    if known is None or not known.strip():
        problems.append(problem(f"'id' must be a non-empty string or number, not "
                                f"{describe(entry['id'])}"))
    pair = ""
    try:
        pair = pair_code(entry["langpair"])
    except TestsuiteError as exc:
        problems.append(problem(f"'langpair': {exc}"))
    for key in ("category", "phenomenon", "source_sentence"):
        value = entry[key]
        if not isinstance(value, str) or not value.strip():
            problems.append(problem(f"'{key}' must be non-empty text, not {describe(value)}"))
    for key in ("positive_regex", "negative_regex"):
        if not isinstance(entry[key], str):
            problems.append(problem(f"'{key}' must be text (empty for none), not "
                                    f"{describe(entry[key])}"))
    for key in ("positive_tokens", "negative_tokens"):
        value = entry[key]
        odd = [t for t in value if not isinstance(t, str)] if isinstance(value, list) else []
        if not isinstance(value, list) or odd:
            what = f"a list holding {describe(odd[0])}" if odd else describe(value)
            problems.append(problem(f"'{key}' must be a list of strings, not {what}"))
    if problems:
        return problems
    assert known is not None
    item = Item(known, pair, entry["category"], entry["phenomenon"], entry["source_sentence"])
    rule = Rule(known, entry["positive_regex"], entry["negative_regex"],
                tuple(entry["positive_tokens"]), tuple(entry["negative_tokens"]))
    return item, rule


def suite_documents(suite: Suite) -> dict[Path, dict[str, Any]]:
    """The YAML documents of a suite: relative path → content, one file per category.

    Files are named so that reading them in name order gives back the items in suite order;
    if the categories do not come in alphabetical order, the names get a number prefix.
    """
    documents: dict[Path, dict[str, Any]] = {}
    for pair in suite.pairs:
        if pair_code(pair) != pair:  # the pair becomes a folder name
            raise TestsuiteError(f"language pair {pair!r} is not written as xx-yy")
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
    examples = {kind: list(getattr(rule, f"examples_{kind}")) for kind in EXAMPLE_KINDS}
    if any(examples.values()):
        document["examples"] = {kind: texts for kind, texts in examples.items() if texts}
    if rule.verdicts:
        document["verdicts"] = [entry_of(v) for v in rule.verdicts]
    return document


def write_suite(suite: Suite, out: Path) -> list[Path]:
    """Write a suite as YAML under ``out/suites/<pair>/`` and ``out/rules/<pair>/``.

    Every path is built with `files.join` (each part one plain name, the result inside
    `out`), and no two documents may share a path, so a rules file can never replace the
    suite file it belongs to. The files are written all or none (`files.write_all`).

    Raises:
        TestsuiteError: if a name cannot be a file name or a path would leave `out`.
    """
    documents = suite_documents(suite)
    paths = {relative: join(out, *relative.parts, what="name") for relative in documents}
    if len(set(paths.values())) != len(paths):
        raise TestsuiteError("two suite or rules files would have the same path; nothing "
                             "was written")
    # All or none, as every import: a full disk or a folder in the way leaves no half suite.
    write_all({paths[relative]: encode_text(dump_yaml(document), paths[relative])
               for relative, document in documents.items()})
    return list(paths.values())


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
