"""The library's words in the reader's language: one table per language, looked up by ``strings(lang)``.

    texts = strings("ru").tools
    raise ToolError(texts.is_folder.format(path=path))

``shape.py`` names every string; ``en.py`` and ``ru.py`` fill them. The language is chosen once:
``set_language("ru")`` at the top of a notebook, which every call given no ``lang=`` then reads
(``Agent``, ``default_tools``, ``run_in_copy``, the shop's task and cassette, the course's checks), or
``--lang`` for the CLI. An explicit ``lang=`` always wins. A run's record keeps its language, so the
widgets draw a run in the language it was made in.
"""

from __future__ import annotations

from typing import Literal

from .en import EN
from .ru import RU
from .shape import AgentTexts, CliTexts, ExerciseTexts, LocalServerTexts, ResultTexts, SchemeTexts, Strings, ToolTexts

__all__ = [
    "AgentTexts",
    "CliTexts",
    "ExerciseTexts",
    "LANGUAGES",
    "Language",
    "LocalServerTexts",
    "ResultTexts",
    "SchemeTexts",
    "Strings",
    "ToolTexts",
    "check_language",
    "current_language",
    "language_of",
    "resolve_language",
    "set_language",
    "strings",
]

Language = Literal["en", "ru"]

_TABLES: dict[str, Strings] = {"en": EN, "ru": RU}
LANGUAGES: tuple[Language, ...] = ("en", "ru")

_current: Language = "en"


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
    """``lang`` when given (checked), else ``current_language()``: what every ``lang=None`` means."""
    return _current if lang is None else check_language(lang)


def strings(lang: str | None = None) -> Strings:
    """The table of ``lang`` (of ``current_language()`` when None); ValueError for a language there is
    no table for."""
    return _TABLES[resolve_language(lang)]


def language_of(record: object, lang: str | None = None) -> Language:
    """The language to show a run in: ``lang`` when given (checked), else the one the run's record
    was made in, else ``current_language()`` (a record from an older reactlab, or one naming no
    language we know)."""
    if lang is not None:
        return check_language(lang)
    made_in = getattr(record, "lang", None)
    return made_in if isinstance(made_in, str) and made_in in LANGUAGES else _current
