"""How the schemes become HTML: Jinja2 templates that escape every value by default.

Every string in a run came from outside (the model, a cassette, a server, a file in the project), so
no scheme builds HTML by joining strings. The templates in ``templates/`` receive plain data and
autoescape it wherever it lands (text, attributes, SVG text); ``clipped_json`` escapes a long JSON
text itself, with the same ``escape``, to cut it at a number of bytes. A rendered template is
returned as a plain ``str`` (a ``Markup`` would escape any plain string added to it); the viewer
marks its schemes safe where it places them inside its own template.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context, select_autoescape
from jinja2.runtime import Context
from markupsafe import Markup, escape

from ..core.language import translate

__all__ = [
    "COLOURS",
    "Clipped",
    "MORE",
    "Markup",
    "SHOWN",
    "arrow_head",
    "clipped_json",
    "fill",
    "json_head",
    "number",
    "pretty_json",
    "render",
    "shorten",
]

_TEMPLATES = Path(__file__).with_name("templates")

# One palette for every scheme: (fill, line). Translucent fills read on light and dark themes alike.
COLOURS = {
    "model": ("rgba(250, 204, 21, 0.28)", "#ca8a04"),  # yellow: what the model returned, final answer included
    "tool": ("rgba(59, 130, 246, 0.20)", "#2563eb"),  # blue: tool executions and results
    "ok": ("rgba(34, 197, 94, 0.22)", "#16a34a"),  # green: OK in the tests' output
    "error": ("rgba(239, 68, 68, 0.22)", "#dc2626"),  # red: FAIL and errors
    "limit": ("rgba(168, 85, 247, 0.20)", "#9333ea"),  # violet: a stop by a limit, which is not a failure
    "plain": ("rgba(127, 127, 127, 0.10)", "rgba(127, 127, 127, 0.55)"),
}
# The same few fragments thousands of times in a long run: made once from the constants above.
BOX = {
    kind: f"background: {fill}; border: 1px solid {line}; border-radius: 6px; padding: 4px 8px"
    for kind, (fill, line) in COLOURS.items()
}
# A small square in a colour: SVG fill survives where inline styles are stripped (GitHub).
SWATCH = {
    kind: Markup(
        '<svg class="rl-swatch" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true">'
        f'<rect width="10" height="10" rx="2" fill="{line}"/></svg>'
    )
    for kind, (_, line) in COLOURS.items()
}
FONT = "font-family: var(--jp-ui-font-family, system-ui, -apple-system, sans-serif)"
MONO = "font-family: var(--jp-code-font-family, ui-monospace, Menlo, Consolas, monospace)"


def number(value: object, fallback: str = "?") -> str:
    """A count as text, only when it really is a number: a string of markup in ``usage`` stays out."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return fallback
    if isinstance(value, float) and not math.isfinite(value):
        return fallback
    return f"{value:g}" if isinstance(value, float) else str(value)


def fill(template: str, **fields: Any) -> Markup:
    """A sentence with its ``{fields}`` filled, for a template: the sentence and every field are
    escaped, except fields that are already markup (a swatch, a span)."""
    return escape(template).format(**fields)


@pass_context
def _say(context: Context, text: str, **fields: Any) -> Markup:
    """A template's ``say("English", field=...)``: the sentence in the language of the ``lang`` the
    template was rendered with, filled by ``fill``."""
    return fill(translate(text, context.get("lang")), **fields)


def pretty_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


SHOWN = 2 * 1024
"""Bytes of HTML one JSON block (a message, a request, a response) shows at once."""
MORE = 6 * 1024
"""Bytes of HTML, at most, behind its "show more"; the rest stays in the run record, off the page."""

_PRETTY = json.JSONEncoder(ensure_ascii=False, indent=2, default=str)


@dataclass(frozen=True)
class Clipped:
    """A JSON text, escaped and cut to what a page holds: ``head`` shown at once, ``more`` behind
    "show more" (``more_characters`` of the text), ``left_out`` when the rest is not drawn at all."""

    head: Markup
    more: Markup
    more_characters: int
    left_out: bool


def json_head(value: Any, limit: int, indent: str = "") -> tuple[str, bool]:
    """The first ``limit`` characters of ``value`` as indented JSON, and whether they are all of it.
    The encoding stops there, so megabytes from a model cost no more than their first kilobytes.
    Every line after the first is indented by ``indent`` (a value drawn inside a larger one)."""
    chunks, size = [], 0
    try:
        for chunk in _PRETTY.iterencode(value):
            chunks.append(chunk.replace("\n", "\n" + indent) if indent else chunk)
            size += len(chunks[-1])
            if size > limit:
                break
    except (RecursionError, ValueError):  # nested deeper than Python recurses, or a cycle
        size = limit + 1
    text = "".join(chunks)[:limit].encode("utf-8", "backslashreplace").decode()  # a lone "\ud800" as JSON writes it
    return text, size <= limit


def clipped_json(value: Any, indent: str = "") -> Clipped:
    """``value`` as indented JSON, escaped, at most ``SHOWN + MORE`` bytes of it. It is cut after
    escaping, so the bound holds in bytes whatever the characters (``&`` takes five)."""
    text, whole = json_head(value, SHOWN + MORE, indent)  # a character takes a byte at least
    head, rest = _cut(escape(text), SHOWN)
    more, rest = _cut(rest, MORE)
    return Clipped(head, more, len(more.unescape()), bool(rest) or not whole)


def _cut(html: Markup, limit: int) -> tuple[Markup, Markup]:
    """``html`` split after at most ``limit`` bytes of UTF-8: at the end of a line where one ends in
    the second half, and never inside a character or an entity."""
    if len(html.encode()) <= limit:
        return html, Markup()
    kept = html.encode()[:limit].decode(errors="ignore")
    entity = kept.rfind("&")
    if entity > kept.rfind(";"):  # "&am" of a cut "&amp;": keep it whole for the next part
        kept = kept[:entity]
    line_end = kept.rfind("\n")
    if line_end >= len(kept) // 2:
        kept = kept[: line_end + 1]
    return Markup(kept), Markup(html[len(kept) :])


def shorten(text: object, width: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@cache
def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(_TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,  # a misspelt name fails loudly instead of drawing nothing
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    environment.filters.update(
        clipped_json=clipped_json, fill=fill, number=number, pretty_json=pretty_json, shorten=shorten
    )
    environment.globals.update(BOX=BOX, COLOURS=COLOURS, FONT=FONT, MONO=MONO, SWATCH=SWATCH, say=_say)
    return environment


def arrow_head(tip: tuple[float, float], before: tuple[float, float], size: float = 9) -> str:
    """The points of a filled triangle at ``tip``, pointing away from ``before``. Drawn as a polygon,
    not an SVG marker: a marker needs a document-wide id, and ids collide when a page shows a scheme
    twice or hides the first copy (a closed fold, another step), and then every arrowhead vanishes."""
    (x, y), (bx, by) = tip, before
    length = math.hypot(x - bx, y - by) or 1.0
    ux, uy = (x - bx) / length, (y - by) / length
    back_x, back_y = x - ux * size, y - uy * size
    half = size * 0.45
    corners = [(x, y), (back_x - uy * half, back_y + ux * half), (back_x + uy * half, back_y - ux * half)]
    return " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in corners)


def render(template: str, **context: Any) -> str:
    """Render ``templates/<template>``: every value in the result was escaped. Its sentences are in
    the language of ``lang`` (a context value; the current language when it is not given)."""
    return _environment().get_template(template).render(**context)
