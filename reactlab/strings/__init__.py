"""The library's words in the reader's language: one table per language, looked up by ``strings(lang)``.

    texts = strings("ru").tools
    raise ToolError(texts.is_folder.format(path=path))

``shape.py`` names every string; ``en.py`` and ``ru.py`` fill them. The language is chosen once:
``set_language("ru")`` at the top of a notebook, which every call given no ``lang=`` then reads
(``Agent``, ``default_tools``, ``run_in_copy``, the shop's task and cassette, the course's checks), or
``--lang`` for the CLI. An explicit ``lang=`` always wins. While an Agent runs, ``lang=None`` means the
run's language (``speaking``): a client made without one writes its errors in the language of the run
that asks. A run's record keeps its language, so the widgets draw a run in the language it was made in.

A notebook's code cells, which both editions share, print their labels through ``say``: the English
wording is in the code, and the language's table (``labels``) gives its translation.

    print(say("files unchanged:"), before == after)           # "файлы не изменились: True" in Russian
    print(say("kept {count:,} chars", count=30000))          # "kept 30,000 chars" / "сохранено символов: 30 000"
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields
from string import Formatter
from typing import Literal

from .en import EN
from .ru import RU
from .shape import (
    AgentTexts,
    ApiTexts,
    CliTexts,
    DoctorTexts,
    ExerciseTexts,
    LocalServerTexts,
    ResultTexts,
    SchemeTexts,
    ScriptedTexts,
    Strings,
    ToolTexts,
)

__all__ = [
    "AgentTexts",
    "ApiTexts",
    "CliTexts",
    "DoctorTexts",
    "ExerciseTexts",
    "LANGUAGES",
    "Language",
    "LocalServerTexts",
    "ResultTexts",
    "SchemeTexts",
    "ScriptedTexts",
    "Strings",
    "ToolTexts",
    "check_language",
    "current_language",
    "decimal",
    "language_of",
    "resolve_language",
    "say",
    "set_language",
    "speaking",
    "stop_phrase",
    "strings",
]

Language = Literal["en", "ru"]

_TABLES: dict[str, Strings] = {"en": EN, "ru": RU}
LANGUAGES: tuple[Language, ...] = ("en", "ru")

_current: Language = "en"
_speaking: ContextVar[Language | None] = ContextVar("reactlab_speaking", default=None)


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


def strings(lang: str | None = None) -> Strings:
    """The table of ``lang`` (of ``current_language()`` when None); ValueError for a language there is
    no table for."""
    return _TABLES[resolve_language(lang)]


def decimal(value: float, spec: str = "g", lang: str | None = None) -> str:
    """``value`` formatted by ``spec``, with the signs of ``lang``: 1.5 and 20,000 (spec ",") in English,
    1,5 and 20 000 in Russian."""
    api = strings(lang).api
    signs: dict[str, str | int | None] = {".": api.decimal_sign, ",": api.thousands_sign}
    return format(value, spec).translate(str.maketrans(signs))


def say(text: str, /, lang: str | None = None, **values: object) -> str:
    """A notebook's label in ``lang`` (the current language when None): ``text`` is its English wording
    and the key of the language's ``labels``; a text the table lacks is shown as it is. ``values`` fill
    its ``{fields}``, a number with the language's signs: ``say("cost: ${cost:.4f}", cost=0.0012)``."""
    language = resolve_language(lang)
    wording = strings(language).labels.get(text, text)
    return _Numbers(language).format(wording, **values) if values else wording


class _Numbers(Formatter):
    """str.format, but a number is written as ``decimal`` writes it in the given language."""

    def __init__(self, lang: Language) -> None:
        self.lang = lang

    def format_field(self, value: object, format_spec: str) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return decimal(value, format_spec, self.lang)
        return str(super().format_field(value, format_spec))


def stop_phrase(stop_reason: object, lang: str | None = None) -> str:
    """How a run ended, in words of ``lang``: ``"step_limit"`` is "the model-call limit"; a reason
    the table does not know (an exception's class name) is shown as it is."""
    if isinstance(stop_reason, str) and f"stop_{stop_reason}" in _STOP_PHRASES:
        phrase: str = getattr(strings(lang).schemes, f"stop_{stop_reason}")
        return phrase
    return str(stop_reason)


_STOP_PHRASES = frozenset(field.name for field in fields(SchemeTexts) if field.name.startswith("stop_"))


def language_of(record: object, lang: str | None = None) -> Language:
    """The language to show a run in: ``lang`` when given (checked), else the one the run's record
    was made in, else ``current_language()`` (a record from an older reactlab, or one naming no
    language we know)."""
    if lang is not None:
        return check_language(lang)
    made_in = getattr(record, "lang", None)
    return made_in if isinstance(made_in, str) and made_in in LANGUAGES else _current
