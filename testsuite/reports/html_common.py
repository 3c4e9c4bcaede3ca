"""What the two HTML pages share: the template environment, inline assets and safe JSON.

Both pages (`html.html_report`, `html_compare.comparison_html`) are one self-contained file:
CSS and JavaScript from ``templates/`` are inlined, data travels as JSON in
``<script type="application/json">`` elements, and a Content-Security-Policy forbids every
network request. Templates are autoescaped: every label, source and output is escaped.
Text from data is also shown as the terminal shows it: control characters, bidi overrides
and isolates are written as visible escapes (``\\u202e``, ``\\x1b``; `escape.printable`),
so that a name can neither reorder the text around it nor pass for another. This holds for
every value a template prints (`environment`'s ``finalize``), for the JSON the pages' script
reads (`json_script`) and for the names in permalinks (`state_link`), so all three agree.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from .common import finite, p_text, percent, sentence
from .escape import printable

if TYPE_CHECKING:
    import jinja2
    from markupsafe import Markup

TEMPLATES = Path(__file__).parent / "templates"
#: The scripts of every page, in order: shared helpers first.
COMMON_JS = ("common.js",)


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the HTML pages (autoescaped, strict)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html.j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, finalize=_shown)
    env.filters["pct"] = percent
    env.filters["p"] = p_text
    env.filters["options"] = options
    env.filters["sentence"] = sentence
    env.filters["thousands"] = lambda n: f"{n:,}"
    return env


def _shown(value: Any) -> Any:
    """A value as a template prints it: text with its controls made visible (our own
    markup, such as the inlined scripts, is left as it is)."""
    from markupsafe import Markup

    if isinstance(value, str) and not isinstance(value, Markup):
        return printable(value)
    return value


def _shown_data(data: Any) -> Any:
    """`data` with every string in it (dictionary keys too) made visible as by `_shown`."""
    if isinstance(data, str):
        return printable(data)
    if isinstance(data, dict):
        return {_shown_data(k): _shown_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_shown_data(v) for v in data]
    return data


def options(text: str) -> Markup:
    """Text with the command-line options in it (``--macro-test``) kept on one line: a
    browser would break them at their hyphens. Escaped: the text may come from data."""
    from markupsafe import Markup, escape

    return Markup(re.sub(r"(?<![\w-])(--[a-z][a-z-]*)", r'<span class="nowrap">\1</span>',
                         str(escape(printable(text)))))


def asset(*names: str) -> Markup:
    """Inline CSS or JS files; ours, so they are inserted as they are (not escaped)."""
    from markupsafe import Markup

    return Markup("\n".join(TEMPLATES.joinpath(name).read_text(encoding="utf-8")
                            for name in names))


def json_script(data: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``.

    The escapes are JSON string escapes, so ``JSON.parse`` returns the original text, and no
    output can close the script element (``</script>``) or open a comment. Control characters
    in its strings are made visible first, as everywhere on the page (module docs).
    """
    from markupsafe import Markup

    text = json.dumps(_shown_data(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e")
                  .replace("&", "\\u0026"))


def anchor(text: str) -> str:
    """An id-safe form of a name (language pairs: ``de-en``)."""
    return re.sub(r"[^0-9A-Za-z_-]+", "-", text).strip("-") or "x"


def state_link(target: str, **state: str | None) -> str:
    """A permalink to a filtered view: ``#<target>?name=value&…`` (names, never indices).

    The page's script reads the same form (``TS.readState``), so a link in a table, a link
    copied from the address bar and a link in an e-mail open the same view.
    """
    query = urlencode({k: printable(v) for k, v in state.items() if v}, quote_via=quote)
    return f"#{target}?{query}"


def number(value: float | None, digits: int = 4) -> float | None:
    """A float for the page's JSON: rounded, None for missing or NaN."""
    number = finite(value)
    return None if number is None else round(number, digits)


__all__ = ["anchor", "asset", "environment", "json_script", "number", "state_link"]
