"""What the two HTML pages share: the template environment, inline assets and safe JSON.

Both pages (`html.html_report`, `html_compare.comparison_html`) are one self-contained file:
CSS and JavaScript from ``templates/`` are inlined, data travels as JSON in
``<script type="application/json">`` elements, and a Content-Security-Policy forbids every
network request. Templates are autoescaped: every label, source and output is escaped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from .common import finite, p_text, percent, sentence

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
                             lstrip_blocks=True)
    env.filters["pct"] = percent
    env.filters["p"] = p_text
    env.filters["options"] = options
    env.filters["sentence"] = sentence
    env.filters["thousands"] = lambda n: f"{n:,}"
    return env


def options(text: str) -> Markup:
    """Text with the command-line options in it (``--macro-test``) kept on one line: a
    browser would break them at their hyphens. Escaped: the text may come from data."""
    from markupsafe import Markup, escape

    return Markup(re.sub(r"(?<![\w-])(--[a-z][a-z-]*)", r'<span class="nowrap">\1</span>',
                         str(escape(text))))


def asset(*names: str) -> Markup:
    """Inline CSS or JS files; ours, so they are inserted as they are (not escaped)."""
    from markupsafe import Markup

    return Markup("\n".join(TEMPLATES.joinpath(name).read_text(encoding="utf-8")
                            for name in names))


def json_script(data: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``.

    The escapes are JSON string escapes, so ``JSON.parse`` returns the original text, and no
    output can close the script element (``</script>``) or open a comment.
    """
    from markupsafe import Markup

    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
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
    query = urlencode({k: v for k, v in state.items() if v}, quote_via=quote)
    return f"#{target}?{query}"


def number(value: float | None, digits: int = 4) -> float | None:
    """A float for the page's JSON: rounded, None for missing or NaN."""
    number = finite(value)
    return None if number is None else round(number, digits)


__all__ = ["anchor", "asset", "environment", "json_script", "number", "state_link"]
