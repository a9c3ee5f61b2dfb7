"""Text from a run, made safe to print: terminal control characters become visible escapes.

A model, a cassette or a command's output can carry ESC sequences that clear the screen, move the
cursor, make hyperlinks (OSC 8) or write the clipboard (OSC 52); CR and backspace overwrite what
was printed; bidi overrides (U+202E ...) show text in another order than it runs. ``visible``
replaces each with an escape a reader can see, and keeps newline and tab.

Escapes from U+007F up are written ``\\u007f`` rather than ``\\x7f``: JSON from ``json.dumps``
(which escapes C0 itself) stays valid JSON and reads back exactly after ``visible``.
"""

from __future__ import annotations

__all__ = ["visible"]

_C0 = [code for code in range(0x20) if chr(code) not in "\n\t"]
_DEL_AND_C1 = range(0x7F, 0xA0)
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]  # embeddings, overrides, isolates
_SURROGATES = range(0xD800, 0xE000)  # lone ones come from JSON like "\ud800"; print() cannot encode them

_ESCAPES = {
    **{code: f"\\x{code:02x}" for code in _C0},
    **{code: f"\\u{code:04x}" for code in [*_DEL_AND_C1, *_BIDI, *_SURROGATES]},
}


def visible(text: str) -> str:
    """``text`` with every terminal control but newline and tab written as a visible escape."""
    return text.translate(_ESCAPES)
