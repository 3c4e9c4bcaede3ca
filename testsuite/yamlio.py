"""YAML reading that remembers line numbers and keeps ids as written, and tidy writing.

PyYAML is imported when YAML is first read or written, not with this module: a command
whose suite comes from the parsed-suite cache never needs it.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from .errors import Problem, TestsuiteError
from .files import MAX_SUITE_BYTES, check_yaml, decode, read_text

#: Keys whose scalar values are identifiers: kept exactly as written, so that `id: 00123`
#: stays "00123" instead of becoming the (octal!) integer 83 under YAML 1.1.
ID_KEYS = frozenset({"id", "item"})

#: Key under which every mapping records its 1-based line in the file.
LINE = "__line__"


@functools.cache
def _loader() -> type:
    """The safe loader that records the line of every mapping and keeps ids as strings."""
    import yaml

    # libyaml's parser is several times faster; the constructor stays in Python to hook it.
    base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class LineLoader(base):  # type: ignore[misc, valid-type]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False
                              ) -> dict[Any, Any]:
            mapping: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    # A list or mapping as a key ('? [a, b]: x', '[a]: x') cannot be a dict
                    # key; no suite, rules or verdicts file has one.
                    kind = "a list" if isinstance(key_node, yaml.SequenceNode) else "a mapping"
                    raise yaml.constructor.ConstructorError(
                        None, None, f"a key must be plain text, not {kind}",
                        key_node.start_mark)
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, Hashable):  # a tagged scalar: '!!set', '!!omap'
                    raise yaml.constructor.ConstructorError(
                        None, None, "a key must be plain text", key_node.start_mark)
                if isinstance(key, str) and key in ID_KEYS \
                        and isinstance(value_node, yaml.ScalarNode):
                    value: Any = value_node.value
                else:
                    value = self.construct_object(value_node, deep=deep)
                if key in mapping:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r}", key_node.start_mark)
                mapping[key] = value
            mapping[LINE] = node.start_mark.line + 1
            return mapping

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                               LineLoader.construct_mapping)
    return LineLoader


def load_yaml(path: Path, content: bytes | None = None) -> Any:
    """Load one YAML file; mappings carry their line under `LINE`.

    Args:
        path: The file.
        content: Its bytes, if they were read already (they are decoded as the file is).

    Raises:
        TestsuiteError: naming the file and line of a syntax error or of a passed limit
            (`files.check_yaml`).
    """
    text = read_text(path, limit=MAX_SUITE_BYTES) if content is None else decode(content, path)
    return parse_yaml(text, path)


def parse_yaml(text: str, path: Path | str) -> Any:
    """Parse YAML text read from `path` (for messages); see `load_yaml`."""
    import yaml

    check_yaml(text, path)
    try:
        return yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = exc.problem or exc.context or "malformed YAML"
        problem = Problem(f"malformed YAML: {what}", file=str(path), line=line)
        raise TestsuiteError(problem) from None
    except yaml.reader.ReaderError as exc:
        # A character YAML does not allow (NUL, other controls): libyaml gives its position
        # in the text, which is named as an editor shows it, line and column.
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        character = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise TestsuiteError(Problem(
            f"malformed YAML: the character U+{character:04X} is not allowed in YAML "
            f"(column {column})", file=str(path), line=line)) from None
    except yaml.YAMLError as exc:
        raise TestsuiteError(Problem(f"malformed YAML: {exc}", file=str(path))) from None


def strip_lines(value: Any) -> Any:
    """Return a copy of loaded YAML without the `LINE` bookkeeping keys."""
    if isinstance(value, dict):
        return {k: strip_lines(v) for k, v in value.items() if k != LINE}
    if isinstance(value, list):
        return [strip_lines(v) for v in value]
    return value


def dump_yaml(data: Any) -> str:
    """Serialise to block-style YAML in the given key order, Unicode kept readable."""
    import yaml

    text: str = yaml.dump(
        data,
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=10_000,
    )
    return text
