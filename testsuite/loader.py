"""Loading suites and rules from YAML, and checking them (`testsuite lint`).

A *suite file* has the top-level keys ``pair``, ``category`` and ``items``; a *rules file*
has ``pair`` and ``rules``. Files are recognised by these keys, not by their folder, so a
user can point the loader at any mix of files and folders. Every problem is collected with
its file, line and item id; nothing stops at the first one.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from .cache import CACHE_VERSION, prune, read_json, write_json
from .errors import Problem, TestsuiteError
from .files import MAX_SUITE_BYTES, read_bytes
from .matching import CompiledRule, RegexCache
from .model import EXAMPLE_KINDS, VERDICTS, Item, Rule, Suite, Verdict, pair_code
from .normalise import Profile
from .outputs.advice import dfki_json
from .templates import Expansion, expand
from .yamlio import LINE, load_yaml

SUITE_KEYS = {"pair", "category", "description", "items", "templates"}
ITEM_KEYS = {"id", "phenomenon", "source", "description", "notes"}
RULES_KEYS = {"pair", "rules"}
RULE_KEYS = {
    "item",
    "positive_regex",
    "negative_regex",
    "positive_tokens",
    "negative_tokens",
    "examples",
    "verdicts",
}
VERDICT_KEYS = {"output", "verdict", "annotator", "time", "note", "settles", "proposal"}
YAML_SUFFIXES = (".yaml", ".yml")


@dataclass
class LoadResult:
    """A suite as far as it could be read, with every problem found."""

    suite: Suite
    problems: list[Problem] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    #: Temporary files of writes that were killed, found and removed by `lint`.
    removed: list[Path] = field(default_factory=list)

    @property
    def fatal(self) -> list[Problem]:
        """Problems that make the suite unusable for evaluation."""
        return [p for p in self.problems if p.fatal]


def yaml_files(paths: Iterable[Path]) -> list[Path]:
    """All YAML files named or below the given folders, sorted within each folder."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*")
                                if p.suffix in YAML_SUFFIXES and p.is_file()))
        else:
            found.append(path)
    return found


class _Reader:
    """Turns loaded YAML into items and rules, collecting problems."""

    def __init__(self, cache: bool = False) -> None:
        self.cache = cache  # read parsed files from the user's cache (see `_parsed`)
        self.suite = Suite()
        self.problems: list[Problem] = []
        self.generated: dict[tuple[str, str], Rule] = {}
        # Entries with only `item` and `verdicts` (as in verdicts.yaml) add to a rule.
        self.added_verdicts: dict[tuple[str, str], list[tuple[Verdict, str, int | None]]] = {}
        # Files that could not be read at all, with their text: the items or rules in them
        # are missing, and the rules and items that name them follow from that one error.
        self.unread: dict[str, str] = {}

    def problem(self, message: str, file: Path, node: Any = None, item: str | None = None,
                fatal: bool = True) -> None:
        line = node.get(LINE) if isinstance(node, dict) else None
        self.problems.append(Problem(message, str(file), line, item, fatal))

    def unknown_keys(self, node: dict[str, Any], allowed: set[str], file: Path, what: str,
                     item: str | None = None) -> None:
        extra = sorted(str(k) for k in node if k != LINE and k not in allowed)
        if extra:
            allowed_keys = ", ".join(sorted(allowed))
            self.problem(f"unknown key(s) in {what}: {', '.join(extra)} (allowed: {allowed_keys})",
                         file, node, item)

    def text(self, node: dict[str, Any], key: str, file: Path, item: str | None,
             required: bool = False) -> str | None:
        value = node.get(key)
        if value is None:
            if required:
                self.problem(f"missing field '{key}'", file, node, item)
            return None
        if not isinstance(value, str):
            if isinstance(value, (int, float, bool)):
                return str(value)
            self.problem(f"'{key}' must be text, not {type(value).__name__}", file, node, item)
            return None
        if required and not value.strip():
            self.problem(f"field '{key}' is empty", file, node, item)
            return None
        return value

    def texts(self, node: dict[str, Any], key: str, file: Path, item: str) -> tuple[str, ...]:
        value = node.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.problem(f"'{key}' must be a list of strings", file, node, item)
            return ()
        return tuple(value)

    def pair(self, data: dict[str, Any], file: Path) -> str | None:
        pair = data.get("pair")
        if pair is None or (isinstance(pair, str) and not pair.strip()):
            self.problem("missing field 'pair' (a language pair such as de-en)", file, data)
            return None
        try:
            return pair_code(pair)
        except TestsuiteError as exc:
            self.problem(f"'pair': {exc}", file, data)
            return None

    def read(self, file: Path, content: bytes | None = None) -> None:
        """Read one suite or rules file; `content` is its bytes if they were read already."""
        try:
            data = _parsed(file, content) if self.cache else load_yaml(file, content)
        except TestsuiteError as exc:
            self.problems.extend(exc.problems)
            self.not_read(file, content)
            return
        if not isinstance(data, dict):
            self.problem("not a suite or rules file (expected a mapping with 'items' or "
                         "'rules')", file)
            self.not_read(file, content)
            return
        if "items" in data or "templates" in data:
            self.read_suite(data, file)
        elif "rules" in data:
            self.read_rules(data, file)
        else:
            self.problem("not a suite or rules file: it has neither 'items' nor 'rules'",
                         file, data)

    def not_read(self, file: Path, content: bytes | None) -> None:
        """Remember a file that could not be read, with its text as far as it decodes."""
        if content is None:
            try:  # through the I/O layer: a FIFO or /dev/zero is refused, not waited on
                content = read_bytes(file, MAX_SUITE_BYTES)
            except TestsuiteError:
                content = b""
        self.unread[str(file)] = content.decode("utf-8", errors="replace")

    def read_suite(self, data: dict[str, Any], file: Path) -> None:
        self.unknown_keys(data, SUITE_KEYS, file, "suite file")
        pair = self.pair(data, file)
        category = self.text(data, "category", file, None, required=True)
        entries = data.get("items") or []
        if not isinstance(entries, list):
            self.problem("'items' must be a list", file, data)
            return
        templates = data.get("templates") or []
        if not isinstance(templates, list):
            self.problem("'templates' must be a list", file, data)
            templates = []
        for entry in entries:
            if not isinstance(entry, dict):
                self.problem("an item must be a mapping with id, phenomenon and source", file, data)
                continue
            item_id = self.text(entry, "id", file, None, required=True)
            self.unknown_keys(entry, ITEM_KEYS, file, "item", item_id)
            phenomenon = self.text(entry, "phenomenon", file, item_id, required=True)
            source = self.text(entry, "source", file, item_id, required=True)
            description = self.text(entry, "description", file, item_id)
            notes = self.text(entry, "notes", file, item_id)
            if not (item_id and pair and category and phenomenon and source):
                continue
            key = (pair, item_id)
            if key in self.suite.items:
                first = self.suite.items[key]
                self.problem(f"duplicate item id (first defined at {first.file}:{first.line})",
                             file, entry, item_id)
                continue
            self.suite.items[key] = Item(item_id, pair, category, phenomenon, source,
                                         description, notes, str(file), entry.get(LINE))
        for raw in templates:
            if not isinstance(raw, dict):
                self.problem("a template must be a mapping", file, data)
                continue
            if pair and category:
                self.add_expansion(expand(raw, pair, category, file))

    def add_expansion(self, expansion: Expansion) -> None:
        """Add the items and rules a template generated (see `templates`)."""
        self.problems.extend(expansion.problems)
        for item, rule in zip(expansion.items, expansion.rules, strict=True):
            key = (item.pair, item.id)
            if key in self.suite.items:
                first = self.suite.items[key]
                self.problems.append(Problem(
                    f"duplicate item id (generated by a template; first defined at "
                    f"{first.file}:{first.line})", item.file, item.line, item.id))
                continue
            self.suite.items[key] = item
            self.generated[key] = rule

    def merge_generated(self) -> None:
        """Generated rules, completed by entries of rules files for the same items.

        A rules-file entry for a generated item keeps its verdicts (what `triage` records)
        and overrides the generated fields it sets.
        """
        for key, rule in self.generated.items():
            written = self.suite.rules.get(key)
            if written is None:
                self.suite.rules[key] = rule
                continue
            self.suite.rules[key] = Rule(
                rule.item,
                written.positive_regex or rule.positive_regex,
                written.negative_regex or rule.negative_regex,
                written.positive_tokens or rule.positive_tokens,
                written.negative_tokens or rule.negative_tokens,
                written.verdicts,
                examples_pass=rule.examples_pass + written.examples_pass,
                examples_fail=rule.examples_fail + written.examples_fail,
                examples_reworded=rule.examples_reworded + written.examples_reworded,
                examples_near_miss=rule.examples_near_miss + written.examples_near_miss,
                file=written.file, line=written.line)

    def read_rules(self, data: dict[str, Any], file: Path) -> None:
        self.unknown_keys(data, RULES_KEYS, file, "rules file")
        pair = self.pair(data, file)
        entries = data.get("rules")
        if not isinstance(entries, list):
            self.problem("'rules' must be a list", file, data)
            return
        for entry in entries:
            if not isinstance(entry, dict):
                self.problem("a rule must be a mapping with an 'item' key", file, data)
                continue
            item_id = self.text(entry, "item", file, None, required=True)
            if not item_id or not pair:
                continue
            rule = self.read_rule(entry, item_id, file)
            key = (pair, item_id)
            if "verdicts" in entry and set(entry) <= {"item", "verdicts", LINE}:
                self.added_verdicts.setdefault(key, []).extend(
                    (v, str(file), entry.get(LINE)) for v in rule.verdicts)
                continue
            if key in self.suite.rules:
                first = self.suite.rules[key]
                self.problem(f"duplicate rule (first defined at {first.file}:{first.line})",
                             file, entry, item_id)
                continue
            self.suite.rules[key] = rule

    def read_rule(self, entry: dict[str, Any], item_id: str, file: Path) -> Rule:
        self.unknown_keys(entry, RULE_KEYS, file, "rule", item_id)
        regexes = {}
        for key in ("positive_regex", "negative_regex"):
            regexes[key] = self.text(entry, key, file, item_id) or ""
        examples = entry.get("examples") or {}
        if not isinstance(examples, dict):
            self.problem("'examples' must be a mapping with 'pass', 'fail', 'reworded' and "
                         "'near_miss' lists", file, entry, item_id)
            examples = {}
        else:
            self.unknown_keys(examples, set(EXAMPLE_KINDS), file, "examples", item_id)
        verdicts = []
        raw_verdicts = entry.get("verdicts") or []
        if not isinstance(raw_verdicts, list):
            self.problem("'verdicts' must be a list", file, entry, item_id)
            raw_verdicts = []
        for raw in raw_verdicts:
            verdict = self.read_verdict(raw, item_id, file, entry)
            if verdict:
                verdicts.append(verdict)
        return Rule(
            item=item_id,
            positive_regex=regexes["positive_regex"],
            negative_regex=regexes["negative_regex"],
            positive_tokens=self.texts(entry, "positive_tokens", file, item_id),
            negative_tokens=self.texts(entry, "negative_tokens", file, item_id),
            verdicts=tuple(verdicts),
            **{f"examples_{kind}": self.texts(examples, kind, file, item_id)
               for kind in EXAMPLE_KINDS},
            file=str(file),
            line=entry.get(LINE),
        )

    def read_verdict(self, raw: Any, item_id: str, file: Path, entry: dict[str, Any]
                     ) -> Verdict | None:
        if not isinstance(raw, dict):
            self.problem("a verdict must be a mapping with 'output' and 'verdict'", file, entry,
                         item_id)
            return None
        self.unknown_keys(raw, VERDICT_KEYS, file, "verdict", item_id)
        output = self.text(raw, "output", file, item_id, required=True)
        value = self.text(raw, "verdict", file, item_id, required=True)
        if value is not None and value not in VERDICTS:
            self.problem(f"verdict must be 'pass' or 'fail', not {value!r}", file, raw, item_id)
            return None
        if output is None or value is None:
            return None
        time = raw.get("time")
        # YAML reads an unquoted timestamp as a datetime; keep it as ISO 8601 text.
        when = time.isoformat() if isinstance(time, (dt.date, dt.datetime)) else \
            self.text(raw, "time", file, item_id)
        settles = raw.get("settles", False)
        if not isinstance(settles, bool):
            self.problem("'settles' must be true or false", file, raw, item_id)
            settles = False
        return Verdict(output=output, verdict=value,
                       annotator=self.text(raw, "annotator", file, item_id), time=when,
                       note=self.text(raw, "note", file, item_id), settles=settles,
                       proposal=self.text(raw, "proposal", file, item_id))

    def merge_verdicts(self) -> None:
        """Add the verdicts of verdict-only entries to the rules of their items."""
        for key, added in self.added_verdicts.items():
            if not added:  # 'verdicts: []' or 'verdicts: null': nothing to add
                continue
            verdicts = tuple(v for v, _, _ in added)
            rule = self.suite.rules.get(key)
            if rule is not None:
                self.suite.rules[key] = replace(rule, verdicts=rule.verdicts + verdicts)
            elif key in self.suite.items:
                _, file, line = added[0]
                self.suite.rules[key] = Rule(key[1], verdicts=verdicts, file=file, line=line)
            else:
                _, file, line = added[0]
                self.problems.append(Problem(f"verdicts for unknown item {key[1]!r} in {key[0]}",
                                             file, line, key[1], fatal=False))

    def cross_check(self) -> None:
        """Problems between files: rules without items, items without rules."""
        self.merge_generated()
        self.merge_verdicts()
        orphans = [Problem(f"rule for unknown item {item_id!r} in {pair}", rule.file, rule.line,
                           item_id, fatal=False)
                   for (pair, item_id), rule in self.suite.rules.items()
                   if (pair, item_id) not in self.suite.items]
        bare = [Problem("item has no rule (its outputs will be warnings)", item.file,
                        item.line, item.id, fatal=False)
                for key, item in self.suite.items.items() if key not in self.suite.rules]
        self.problems.extend(self.consequences(orphans, "rules for items that were not read")
                             + self.consequences(bare, "items whose rules were not read"))

    def consequences(self, problems: list[Problem], what: str) -> list[Problem]:
        """`problems` (about one item each), but those about an item named in a file that
        could not be read told in one line per file and cause: one broken line of YAML must
        not bury its own error under a line for every rule of the items it hid."""
        kept: list[Problem] = []
        followed: dict[tuple[str | None, str], list[Problem]] = {}
        for problem in problems:
            cause = next((file for file, text in self.unread.items()
                          if problem.item and problem.item in text), None)
            if cause is None:
                kept.append(problem)
            else:
                followed.setdefault((problem.file, cause), []).append(problem)
        for (file, cause), found in followed.items():
            if len(found) == 1:
                kept.extend(found)
                continue
            kept.append(Problem(f"{len(found)} {what} (e.g. {found[0].item!r}): they follow "
                                f"from the error in {cause}; fix it first", file,
                                found[0].line, fatal=False))
        return kept


def load(paths: Iterable[Path | str], *, cache: bool = True) -> LoadResult:
    """Load every suite and rules file named or below `paths`, collecting all problems.

    Parsing YAML is the slowest part of a run's start; the result is kept in the user's
    cache folder (`testsuite.cache`), keyed by the content of every file read, so an
    unchanged suite loads from JSON in a fraction of the time and any edit (a new verdict
    included) is read afresh.

    Args:
        paths: Files and folders; folders are searched recursively for ``*.yaml``/``*.yml``.
        cache: Use and fill the parsed-suite cache.

    Returns:
        The suite (whatever could be read) with the list of problems.
    """
    checked = [Path(p) for p in paths]
    missing = [Problem("no such file or folder", str(p)) for p in checked if not p.exists()]
    dfki = [p for p in checked if dfki_json(p)]
    missing += [Problem("this is a DFKI items.json, not a suite: convert it with `testsuite "
                        f"import-dfki {p} --out DIR`, then pass --suite DIR", str(p))
                for p in dfki]
    checked = [p for p in checked if p not in dfki]
    files = yaml_files(p for p in checked if p.exists())
    contents = [_content(file) for file in files]  # each file is read once
    key = _content_key(files, contents) if cache and not missing else None
    if key is not None:
        cached = _from_cache(key)
        if cached is not None:
            cached.suite.key = key
            return cached
    reader = _Reader(cache)
    reader.problems.extend(missing)
    for file, content in zip(files, contents, strict=True):
        reader.read(file, content)
    reader.cross_check()
    result = LoadResult(reader.suite, reader.problems, files)
    if key is not None:
        write_json(f"suite-{key}.json", _to_json(result))
        prune("suite-*.json", MAX_PARSED_FILES // 10)
        result.suite.key = key
    return result


#: Bumped whenever what the loader produces changes, so that old cache entries are not used.
_CACHE_FORMAT = 4  # 2: rules carry reworded and near-miss examples; 3: problems that
#                   follow from an unreadable file are told in one line; 4: a character
#                   YAML does not allow, and a YAML too large, are named anew
#: Parsed files kept in the cache folder (the oldest half is removed beyond this).
MAX_PARSED_FILES = 4000


def _content(file: Path) -> bytes | None:
    """The bytes of a file, or None if it cannot be read (the reader reports why)."""
    try:
        return read_bytes(file, MAX_SUITE_BYTES)
    except TestsuiteError:
        return None


def _parsed(file: Path, content: bytes | None) -> Any:
    """A YAML file as loaded (`yamlio.load_yaml`), from the cache when its bytes are known.

    The whole-suite cache misses as soon as any file changes (each verdict rewrites
    ``verdicts.yaml``); then only the changed files are parsed again and the others come
    from here, keyed by their content alone. Files holding values JSON cannot keep as they
    are (dates, non-text keys) are always parsed.

    Args:
        file: The file.
        content: Its bytes, or None if it could not be read.
    """
    if content is None:
        return load_yaml(file)  # reports the problem
    key = hashlib.blake2b(content + f"|{_CACHE_FORMAT}|{CACHE_VERSION}".encode(),
                          digest_size=16).hexdigest()
    name = f"yaml-{key}.json"
    found = read_json(name)
    if found is not None:
        return found
    loaded = load_yaml(file, content)
    if _plain(loaded):
        write_json(name, loaded)
        prune("yaml-*.json", MAX_PARSED_FILES)
    return loaded


def _plain(value: Any) -> bool:
    """Whether JSON keeps `value` exactly: text keys, and only JSON's own value types."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            if not all(isinstance(k, str) for k in current):
                return False
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
        elif not (current is None or isinstance(current, (str, int, float, bool))):
            return False
    return True


def _content_key(files: list[Path], contents: list[bytes | None]) -> str | None:
    """Hash of the names and bytes of every file (None if one could not be read)."""
    from . import __version__

    digest = hashlib.blake2b(f"{_CACHE_FORMAT}|{CACHE_VERSION}|{__version__}".encode(),
                             digest_size=16)
    for file, data in zip(files, contents, strict=True):
        if data is None:
            return None  # let the loader report it
        digest.update(str(file.resolve()).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def _to_json(result: LoadResult) -> dict[str, Any]:
    def rule(r: Rule) -> dict[str, Any]:
        record = asdict(r)
        record["verdicts"] = [asdict(v) for v in r.verdicts]
        return record

    return {"items": [asdict(i) for i in result.suite.items.values()],
            "rules": [[pair, rule(r)] for (pair, _), r in result.suite.rules.items()],
            "problems": [asdict(p) for p in result.problems],
            "files": [str(f) for f in result.files]}


def _from_cache(key: str) -> LoadResult | None:
    data = read_json(f"suite-{key}.json")
    if not isinstance(data, dict):
        return None
    try:
        suite = Suite()
        for record in data["items"]:
            item = Item(**record)
            suite.items[(item.pair, item.id)] = item
        for pair, record in data["rules"]:
            verdicts = tuple(Verdict(**v) for v in record.pop("verdicts"))
            fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                                      for k, v in record.items()}
            suite.rules[(pair, record["item"])] = Rule(**fields, verdicts=verdicts)
        problems = [Problem(**p) for p in data["problems"]]
        return LoadResult(suite, problems, [Path(f) for f in data["files"]])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def load_suite(paths: Iterable[Path | str]) -> Suite:
    """Load a suite for evaluation; raise on problems that make it unusable.

    Problems that only degrade results (an item without a rule, a regex that does not
    compile) are left to `testsuite lint`; such items give warnings, as SPEC.md says.

    Raises:
        TestsuiteError: listing every fatal problem with file and line.
    """
    paths = [Path(p) for p in paths]
    result = load(paths)
    if result.fatal:
        raise TestsuiteError(result.fatal)
    if not result.suite.items:
        raise TestsuiteError(f"no test items found in {', '.join(map(str, paths))}")
    return result.suite


def regex_problems(suite: Suite, cache: RegexCache) -> list[Problem]:
    """Regexes that do not compile (evaluation turns their outputs into warnings)."""
    problems = []
    for rule in suite.rules.values():
        for key in ("positive_regex", "negative_regex"):
            pattern = getattr(rule, key)
            error = cache.error(pattern) if pattern else None
            if error:
                problems.append(Problem(f"{key} does not compile: {error}", rule.file,
                                        rule.line, rule.item, fatal=False))
    return problems


def example_problems(suite: Suite, cache: RegexCache, normalise: Profile | None = None
                     ) -> list[Problem]:
    """Rule regression cases: each example must get the outcome its kind asks for
    (`EXAMPLE_KINDS`: pass and reworded must pass, fail and near_miss must fail)."""
    problems = []
    for rule in suite.rules.values():
        # The examples guard the patterns: a verdict on an example must not hide a pattern
        # that no longer judges it as labelled.
        compiled = CompiledRule(replace(rule, verdicts=()), cache, normalise=normalise)
        for kind, expected, example in rule.examples():
            got = compiled.judge(example)
            if got.outcome != expected:
                label = expected if kind == expected else f"{kind} (must {expected})"
                problems.append(Problem(
                    f"example labelled {label} is judged {got.outcome} ({got.reason}): "
                    f"{example!r}", rule.file, rule.line, rule.item))
    return problems


@dataclass
class Coverage:
    """How many examples of each kind the rules of one phenomenon carry.

    Attributes:
        pair, category, phenomenon: The row.
        items: Items of the phenomenon.
        counts: Examples per kind (`EXAMPLE_KINDS`) over all its rules.
        short: Items whose rule carries fewer than the minimum of some kind, with the kinds
            and how many it has of each.
    """

    pair: str
    category: str
    phenomenon: str
    items: int
    counts: dict[str, int]
    short: list[tuple[Item, Rule | None, dict[str, int]]]


def example_coverage(suite: Suite, minimum: int = 2) -> list[Coverage]:
    """Examples per kind and phenomenon, and the rules carrying fewer than `minimum` of a
    kind (``lint --coverage``), phenomena in suite order."""
    rows: dict[tuple[str, str, str], Coverage] = {}
    for item in suite:
        key = (item.pair, item.category, item.phenomenon)
        row = rows.setdefault(key, Coverage(*key, 0, dict.fromkeys(EXAMPLE_KINDS, 0), []))
        rule = suite.rule_of(item)
        have = {kind: len(getattr(rule, f"examples_{kind}")) if rule else 0
                for kind in EXAMPLE_KINDS}
        row.items += 1
        for kind, n in have.items():
            row.counts[kind] += n
        lacking = {kind: n for kind, n in have.items() if n < minimum}
        if lacking:
            row.short.append((item, rule, lacking))
    return list(rows.values())


def folded_problems(suite: Suite, normalise: Profile) -> list[Problem]:
    """Rule parts a normalisation makes unmatchable: characters it folds away."""
    problems = []
    for rule in suite.rules.values():
        parts = [("positive_regex", rule.positive_regex), ("negative_regex", rule.negative_regex)]
        parts += [("positive token", t) for t in rule.positive_tokens]
        parts += [("negative token", t) for t in rule.negative_tokens]
        for what, text in parts:
            chars = normalise.folded(text)
            if chars:
                shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in chars)
                problems.append(Problem(
                    f"{what} contains {shown}, which the {normalise.name} normalisation "
                    "folds away: with it, that part can never match", rule.file, rule.line,
                    rule.item, fatal=False))
    return problems


def lint(paths: Iterable[Path | str], normalise: Profile | None = None) -> LoadResult:
    """Everything `testsuite lint` checks: loading problems and the rules' own examples.

    With a normalisation, the examples are judged under it and rule parts it makes
    unmatchable are reported too.
    """
    paths = list(paths)
    result = load(paths)
    # A write killed outright (SIGKILL, a power cut) cannot remove its temporary file; the
    # next write of the same file does, and lint does for every folder it reads.
    from .files import remove_stale_temporaries

    folders = {Path(p) for p in paths if Path(p).is_dir()} | {f.parent for f in result.files}
    for folder in sorted(folders):
        result.removed.extend(remove_stale_temporaries(folder))
    cache = RegexCache()
    result.problems.extend(regex_problems(result.suite, cache))
    result.problems.extend(example_problems(result.suite, cache, normalise))
    if normalise is not None:
        result.problems.extend(folded_problems(result.suite, normalise))
    from .verdicts.conflicts import disagreement_problems

    result.problems.extend(disagreement_problems(result.suite))
    return result


def read_verdicts(path: Path) -> tuple[dict[tuple[str, str], tuple[Verdict, ...]], list[Problem]]:
    """The verdict-only entries of one file (``verdicts.yaml``), read as `load` reads them.

    For a triage session that follows what other annotators write, without reloading the
    whole suite.

    Returns:
        (pair, item) → verdicts in file order, and the problems found.
    """
    reader = _Reader()
    reader.read(path)
    verdicts = {key: tuple(v for v, _, _ in added) for key, added in reader.added_verdicts.items()}
    return verdicts, reader.problems
