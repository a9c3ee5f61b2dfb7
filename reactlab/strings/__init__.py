"""The library's words in the reader's language: one table per language, looked up by ``strings(lang)``.

    texts = strings("ru").tools
    raise ToolError(texts.is_folder.format(path=path))

``shape.py`` names every string; ``en.py`` and ``ru.py`` fill them. The language is chosen once
(``default_tools(..., lang=...)``, ``run_in_copy(..., lang=...)``, a widget's ``lang``, the CLI's
``--lang``) and passed on; a run's record keeps it, so the widgets draw it in the same language.
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
    "language_of",
    "strings",
]

Language = Literal["en", "ru"]

_TABLES: dict[str, Strings] = {"en": EN, "ru": RU}
LANGUAGES: tuple[Language, ...] = ("en", "ru")


def check_language(lang: object) -> Language:
    """``lang`` itself when it is a language reactlab speaks, else a ValueError saying which are."""
    if isinstance(lang, str) and lang in LANGUAGES:
        return lang
    raise ValueError(f"lang must be 'en' or 'ru', not {lang!r}")


def strings(lang: str = "en") -> Strings:
    """The table of ``lang``; ValueError for a language there is no table for."""
    return _TABLES[check_language(lang)]


def language_of(record: object, lang: str | None = None) -> Language:
    """The language to show a run in: ``lang`` when given (checked), else the one the run's record
    was made in, else English (a record from an older reactlab, or one naming no language we know)."""
    if lang is not None:
        return check_language(lang)
    made_in = getattr(record, "lang", "en")
    return made_in if isinstance(made_in, str) and made_in in LANGUAGES else "en"
