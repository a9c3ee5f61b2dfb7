"""The library's words in the reader's language: the English sentence where it is said, the Russian
from one catalogue (``ru.py``) keyed by that sentence.

    raise ToolError(say("{path} is a folder, not a file.", lang=self.lang, path=path))
    print(say("kept {count:,} chars", count=30000))     # "kept 30,000 chars" / "сохранено символов: 30 000"

The language is chosen once: ``set_language("ru")`` at the top of a notebook, which every call given
no ``lang=`` then reads (``Agent``, ``default_tools``, ``run_in_copy``, the shop's task and cassette,
the course's checks), or ``--lang`` for the CLI. An explicit ``lang=`` always wins. While an Agent
runs, ``lang=None`` means the run's language (``speaking``): a client made without one writes its
errors in the language of the run that asks. A run's record keeps its language, so the widgets draw
a run in the language it was made in.

A sentence fills its ``{fields}`` with ``str.format``; a number is written with the language's signs
(``decimal``). Both languages name the same fields; the conversion may differ: a value the model sent
is quoted ``{value!r}`` in English and «{value}» in Russian. A text made before any language is known
(a module constant) is marked ``translatable("...")`` and translated where it is used: ``say(TEXT)``.
tests/test_strings.py finds every literal sentence and checks the catalogue has it, with its fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from string import Formatter
from typing import Literal

from .ru import RUSSIAN

__all__ = [
    "LANGUAGES",
    "Language",
    "check_language",
    "current_language",
    "decimal",
    "resolve_language",
    "say",
    "set_language",
    "speaking",
    "translatable",
    "translate",
]

Language = Literal["en", "ru"]
LANGUAGES: tuple[Language, ...] = ("en", "ru")

_CATALOGUES: dict[str, dict[str, str]] = {"en": {}, "ru": RUSSIAN}
# The decimal sign (".") and the sign between thousands (",") of each language.
_SIGNS: dict[str, dict[str, str | int | None]] = {"en": {".": ".", ",": ","}, "ru": {".": ",", ",": "\u00a0"}}

_current: Language = "en"
_speaking: ContextVar[Language | None] = ContextVar("reactlab_speaking", default=None)


def say(text: str, /, lang: str | None = None, **values: object) -> str:
    """``text`` (an English sentence) in ``lang``: its translation from the language's catalogue, or
    ``text`` itself where there is none, filled by ``str.format`` (a brace of the text itself is
    written ``{{``). ``values`` fill its ``{fields}``, a number with the language's signs:
    ``say("cost: ${cost:.4f}", cost=0.0012)``."""
    language = resolve_language(lang)
    return _Numbers(language).format(translate(text, language), **values)


def translate(text: str, lang: str | None = None) -> str:
    """``text`` in ``lang``, not filled: for a caller that fills it its own way (a template escapes
    the sentence and its values first)."""
    return _CATALOGUES[resolve_language(lang)].get(text, text)


def translatable(text: str) -> str:
    """Marks an English sentence made before its language is known (a module constant), so that the
    check of the catalogue finds it; ``say(text)`` translates it where it is used."""
    return text


def check_language(lang: object) -> Language:
    """``lang`` itself when it is a language reactlab speaks, else a ValueError saying which are."""
    if isinstance(lang, str) and lang in LANGUAGES:
        return lang
    raise ValueError(f"lang must be 'en' or 'ru', not {lang!r}")


def set_language(lang: str) -> None:
    """Make ``lang`` the language of every later call that is not given one (``lang=None``).

    One setting for the whole process, English until set: a notebook sets it once, in its first cell.
    What is already made keeps its language (an Agent, a tool); what is made afterwards reads this."""
    global _current
    _current = check_language(lang)


def current_language() -> Language:
    """The language ``set_language`` set last; "en" if it was never called."""
    return _current


def resolve_language(lang: str | None) -> Language:
    """``lang`` when given (checked), else the language of the run under way (``speaking``), else
    ``current_language()``: what every ``lang=None`` means."""
    if lang is not None:
        return check_language(lang)
    return _speaking.get() or _current


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Within the block, ``lang=None`` means ``lang``: an Agent runs its loop inside one, so what the
    loop calls (the client, a script) answers in the run's language unless it was given its own."""
    token = _speaking.set(check_language(lang))
    try:
        yield
    finally:
        _speaking.reset(token)


def decimal(value: float, spec: str = "g", lang: str | None = None) -> str:
    """``value`` formatted by ``spec``, with the signs of ``lang``: 1.5 and 20,000 (spec ",") in English,
    1,5 and 20 000 in Russian."""
    return format(value, spec).translate(str.maketrans(_SIGNS[resolve_language(lang)]))


class _Numbers(Formatter):
    """str.format, but a number is written as ``decimal`` writes it in the given language."""

    def __init__(self, lang: Language) -> None:
        self.lang = lang

    def format_field(self, value: object, format_spec: str) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return decimal(value, format_spec, self.lang)
        return str(super().format_field(value, format_spec))
