"""Editing one regex of one rule in a hand-written rules file, keeping everything else.

Rules files are written by people: they carry comments, blank lines, quoting and key
orders that matter to their authors. Loading and re-dumping the YAML would lose all of
that, so `set_regex` edits the *text*: it locates the rule's value with the positions
PyYAML's composer reports for every node (quoted ids, CRLF line ends and a byte-order mark
are handled by the parser, not by guessing), replaces exactly that span, and leaves every
other byte as it was. Before the file is replaced, the new text is parsed again and must
differ from the old one only in the edited key.

The write holds the same lock as the verdicts store (`testsuite.files.lock`) and
replaces the file atomically, so a concurrent editor or a kill never leaves half a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from .errors import Problem, Stale, TestsuiteError, check_view
from .files import lock, read_text, write_text
from .matching import regex_error
from .model import Rule, Suite
from .verdicts.store import VERDICTS_FILE
from .yamlio import parse_yaml, strip_lines

RegexField = Literal["positive_regex", "negative_regex"]
FIELDS: tuple[RegexField, ...] = ("positive_regex", "negative_regex")
#: The fields of a rule a person judges by; a view of them is checked before an edit.
VIEW_FIELDS = ("positive_regex", "negative_regex", "positive_tokens", "negative_tokens")


@dataclass(frozen=True)
class Edit:
    """A rules file before and after one edit (what undoing it restores)."""

    path: Path
    before: str
    after: str


def undo_edit(edit: Edit) -> None:
    """Put a rules file back as it was before `edit`, if nobody changed it since.

    Raises:
        TestsuiteError: if the file is no longer as the edit left it (nothing is written).
    """
    with lock(edit.path):
        if _read(edit.path) != edit.after:
            raise TestsuiteError(Problem("the rules file was changed since your edit (by "
                                         "another edit or annotator); undo it by editing "
                                         "the rule", file=str(edit.path)))
        write_text(edit.path, edit.before)


#: The rule changed in its file since the editor's view of it was taken (`check_view`).
StaleRule = Stale


def with_regex(rule: Rule, field: RegexField, pattern: str) -> Rule:
    """A copy of `rule` with `pattern` as its positive or negative regex."""
    if field == "positive_regex":
        return replace(rule, positive_regex=pattern)
    return replace(rule, negative_regex=pattern)


def view_of(rule: Rule | None) -> dict[str, object]:
    """The judged fields of a rule as a view to check an edit against (see `set_regex`)."""
    if rule is None:
        return {"positive_regex": "", "negative_regex": "", "positive_tokens": [],
                "negative_tokens": []}
    return {"positive_regex": rule.positive_regex, "negative_regex": rule.negative_regex,
            "positive_tokens": list(rule.positive_tokens),
            "negative_tokens": list(rule.negative_tokens)}


def _view_in(entry: Mapping[str, Any]) -> dict[str, object]:
    def tokens(value: Any) -> list[str]:
        if value is None:
            return []
        return [value] if isinstance(value, str) else [str(v) for v in value]

    return {"positive_regex": str(entry.get("positive_regex") or ""),
            "negative_regex": str(entry.get("negative_regex") or ""),
            "positive_tokens": tokens(entry.get("positive_tokens")),
            "negative_tokens": tokens(entry.get("negative_tokens"))}


def quote(pattern: str) -> str:
    """A YAML single-quoted scalar for `pattern` (a quote is written twice, nothing else
    is escaped, so backslashes stay exactly as in the regex)."""
    return "'" + pattern.replace("'", "''") + "'"


def set_regex(rule_file: Path, pair: str, item: str, field: RegexField, pattern: str, *,
              expected: Mapping[str, object] | None = None) -> Edit:
    """Set (or, with an empty pattern, remove) one regex of one rule in a rules file.

    Only the value of `field` in the rule entry of `item` changes; comments, formatting
    and every other entry are kept byte for byte. A missing key is inserted on its own line
    with the entry's indentation: ``positive_regex`` after the ``item`` line,
    ``negative_regex`` after the positive regex if there is one, else after ``item``.

    Args:
        rule_file: The hand-written rules file holding the item's rule.
        pair: Language pair of the item (the file's ``pair`` must be the same).
        item: Item id.
        field: ``positive_regex`` or ``negative_regex``.
        pattern: The new pattern; empty removes the key.
        expected: The rule as the editor saw it (`view_of`); checked under the lock, so that
            an edit made on a stale view never overwrites someone else's newer one.

    Returns:
        The file before and after (for `undo_edit`).

    Raises:
        StaleRule: if the rule in the file differs from `expected` (with the diff).
        TestsuiteError: if the file is ``verdicts.yaml``, the pattern does not compile or
            spans lines, the file has no block-style rule for the item, or the edited text
            would not read back as exactly the intended rule.
    """
    where = str(rule_file)
    if field not in FIELDS:
        raise TestsuiteError(f"only {' and '.join(FIELDS)} can be edited, not {field!r}")
    if rule_file.name == VERDICTS_FILE:
        raise TestsuiteError(Problem(
            f"{VERDICTS_FILE} keeps only verdicts; the rule of item {item} must be written in "
            "a hand-written rules file", file=where, item=item))
    if "\n" in pattern or "\r" in pattern:
        raise TestsuiteError(Problem("a rule regex is one line; it may not contain a line "
                                     "break", file=where, item=item))
    error = regex_error(pattern)
    if error:
        raise TestsuiteError(Problem(f"{field} does not compile: {error}", file=where,
                                     item=item))
    with lock(rule_file):
        text = _read(rule_file)
        before = _parse(text, where)
        entry = next((r for r in before.get("rules") or [] if isinstance(r, dict)
                      and str(r.get("item")) == item), None)
        if expected is not None and entry is not None:
            check_view({key: expected.get(key) for key in VIEW_FIELDS}, _view_in(entry),
                       "the rule was changed in the file", file=where, item=item)
        # A byte-order mark belongs to the file, not to the YAML: edited around.
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        edited = bom + _edit(text[len(bom):], pair, item, field, pattern, where)
        _check(before, edited, item, field, pattern, where)
        write_text(rule_file, edited)  # keeps the author's permissions
    return Edit(rule_file, text, edited)


def set_item_regex(suite: Suite, pair: str, item_id: str, field: RegexField,
                   pattern: str, *, expected: Mapping[str, object] | None = None) -> Edit:
    """Set one regex of an item's rule where the suite keeps it (see `set_regex`).

    Returns:
        The rules file before and after.

    Raises:
        TestsuiteError: for an unknown item, an item generated by a template (its rule is
            the template's), or an item without a rule in a hand-written rules file.
    """
    item = suite.items.get((pair, item_id))
    if item is None:
        raise TestsuiteError(f"no {pair} item {item_id!r} in the suite")
    if item.template:
        raise TestsuiteError(Problem(
            f"item {item_id} is generated by template {item.template!r}: edit the template "
            f"in {item.file}", file=item.file, line=item.line, item=item_id))
    rule = suite.rule_of(item)
    if rule is None or not rule.file:
        raise TestsuiteError(Problem(
            f"item {item_id} has no rule in a rules file; add one under rules/{pair}/ first",
            file=item.file, line=item.line, item=item_id))
    return set_regex(Path(rule.file), pair, item_id, field, pattern, expected=expected)


def _read(path: Path) -> str:
    # A byte-order mark is kept as the character it is, so the file is rewritten as it was.
    return read_text(path, keep_bom=True)


@dataclass(frozen=True)
class _Entry:
    """A rule entry's nodes as PyYAML composed them (positions index the text)."""

    node: Any  # yaml.MappingNode
    pairs: list[tuple[Any, Any]]  # (key node, value node)

    def find(self, key: str) -> int | None:
        for index, (key_node, _) in enumerate(self.pairs):
            if getattr(key_node, "value", None) == key:
                return index
        return None


def _compose(text: str, where: str) -> Any:
    import yaml

    # Marks index the characters of `text` (a text without a byte-order mark: libyaml
    # counts from after one). libyaml composes a 20,000-line rules file (the DFKI
    # suite's verb tenses) in 0.16 s where the pure-Python loader takes 0.7 s, while the
    # annotator waits for the edit to be saved.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.compose(text, Loader=loader)
    except yaml.YAMLError as exc:
        raise TestsuiteError(Problem(f"malformed YAML, nothing was changed: {exc}",
                                     file=where)) from None


def _find_entry(text: str, pair: str, item: str, where: str) -> _Entry:
    import yaml

    root = _compose(text, where)
    if not isinstance(root, yaml.MappingNode):
        raise TestsuiteError(Problem("not a rules file", file=where))
    top = {k.value: v for k, v in root.value if isinstance(k, yaml.ScalarNode)}
    rules = top.get("rules")
    if not isinstance(rules, yaml.SequenceNode):
        raise TestsuiteError(Problem("not a rules file (no 'rules' list)", file=where))
    file_pair = top.get("pair")
    if isinstance(file_pair, yaml.ScalarNode) and file_pair.value.strip().lower() != pair:
        raise TestsuiteError(Problem(f"the file is for {file_pair.value}, not {pair}",
                                     file=where))
    for node in rules.value:
        if not isinstance(node, yaml.MappingNode):
            continue
        entry = _Entry(node, list(node.value))
        index = entry.find("item")
        if index is None or entry.pairs[index][1].value != item:
            continue
        if node.flow_style:
            raise TestsuiteError(Problem(
                "the rule is written in flow style ({…}); edit it by hand",
                file=where, line=node.start_mark.line + 1, item=item))
        return entry
    raise TestsuiteError(Problem(f"no rule for item {item!r} in this file", file=where,
                                 item=item))


def _edit(text: str, pair: str, item: str, field: RegexField, pattern: str,
          where: str) -> str:
    entry = _find_entry(text, pair, item, where)
    index = entry.find(field)
    if index is not None:
        value_node = entry.pairs[index][1]
        start, end = value_node.start_mark.index, value_node.end_mark.index
        # Block scalars end after their line break; keep the break (and what follows).
        end = start + len(text[start:end].rstrip())
        if pattern:
            return text[:start] + quote(pattern) + text[end:]
        return _remove(text, entry, index, end)
    if not pattern:
        return text
    anchor = entry.find("positive_regex") if field == "negative_regex" else None
    if anchor is None:
        anchor = entry.find("item")
    item_index = entry.find("item")
    assert anchor is not None and item_index is not None  # _find_entry found the item key
    indent = " " * entry.pairs[item_index][0].start_mark.column
    anchor_value = entry.pairs[anchor][1]
    after = anchor_value.start_mark.index + len(
        text[anchor_value.start_mark.index:anchor_value.end_mark.index].rstrip())
    line_end = text.find("\n", after)
    newline = "\r\n" if line_end > 0 and text[line_end - 1] == "\r" else "\n"
    inserted = f"{indent}{field}: {quote(pattern)}{newline}"
    if line_end < 0:  # the anchor is on the last line, which has no line break
        return text + newline + inserted.removesuffix(newline)
    return text[:line_end + 1] + inserted + text[line_end + 1:]


def _remove(text: str, entry: _Entry, index: int, value_end: int) -> str:
    key_node = entry.pairs[index][0]
    key_start = key_node.start_mark.index
    line_start = text.rfind("\n", 0, key_start) + 1
    if text[line_start:key_start].strip():
        # The key follows the entry's dash (`- positive_regex: …`): the next key moves up.
        if index + 1 < len(entry.pairs):
            return text[:key_start] + text[entry.pairs[index + 1][0].start_mark.index:]
        return text[:key_start].rstrip(" ") + text[value_end:]
    line_end = text.find("\n", value_end)
    return text[:line_start] + (text[line_end + 1:] if line_end >= 0 else "")


def _check(before: Any, new: str, item: str, field: RegexField, pattern: str,
           where: str) -> None:
    """The new text must read back as the old data (`before`, as `_parse` read it) with only
    `field` of `item` changed."""
    after = _parse(new, where)
    expected = _with_field(before, item, field, pattern)
    if after != expected:
        raise TestsuiteError(Problem(
            f"editing {field} of item {item} would not give the intended rule; nothing was "
            "changed (edit the file by hand)", file=where, item=item))


def _parse(text: str, where: str) -> Any:
    # Parse with the loader itself (ids kept as written, same errors and limits).
    try:
        return strip_lines(parse_yaml(text.removeprefix("\ufeff"), where))
    except TestsuiteError as exc:
        raise TestsuiteError(Problem(f"the edit would break the file, nothing was "
                                     f"changed: {exc}", file=where)) from None


def _with_field(data: Any, item: str, field: RegexField, pattern: str) -> Any:
    rules = []
    for rule in data.get("rules") or []:
        if isinstance(rule, dict) and str(rule.get("item")) == item:
            rule = dict(rule)
            if pattern:
                rule[field] = pattern
            else:
                rule.pop(field, None)
        rules.append(rule)
    return {**data, "rules": rules}
