"""BaseTool: what every tool shares, its API definition and a check of its arguments against its own schema."""

from __future__ import annotations

import functools
import json
from typing import Any, ClassVar

from ..errors import ToolError
from ..language import Language, say, translatable
from .schema import Problem, Schema

__all__ = ["BaseTool", "MESSAGE_LIMIT"]


class BaseTool:
    """Subclasses set ``name`` and ``description``, return a JSON Schema from ``parameters()`` (the
    keywords of ``schema.KEYWORDS``), and do the work in ``run(**arguments)``. ``execute`` checks the
    arguments against that schema first; ``run`` keeps the checks a schema cannot say (allowed paths etc.).

    ``lang`` is the language of what the model reads: the description and the errors.
    A tool that sets none (a student's) answers in the language of the run that calls it."""

    name: ClassVar[str]
    description: str
    lang: Language | None = None

    def parameters(self) -> dict[str, Any]:
        raise NotImplementedError

    def run(self, **arguments: Any) -> dict[str, Any]:
        raise NotImplementedError

    def definition(self) -> dict[str, Any]:
        """What the model is sent. A schema reactlab cannot check fails here (SchemaError), before any run."""
        schema = self.parameters()
        Schema(schema)
        function = {"name": self.name, "description": self.description, "parameters": schema}
        return {"type": "function", "function": function}

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.check(arguments)
        return self.run(**arguments)

    def check(self, arguments: dict[str, Any]) -> None:
        """The model is not bound by the schema it was sent, so the same schema is checked here."""
        problems = list(self._schema.problems(arguments))
        if problems:
            raise ToolError(invalid_arguments(self.name, problems, self.lang))

    @functools.cached_property
    def _schema(self) -> Schema:
        """A tool's schema is its own for its life: checked on its first call, not on every one."""
        return Schema(self.parameters())


MESSAGE_LIMIT = 400
"""At most this many characters of a schema error reach the model: it quotes the input."""
VALUE_LIMIT = 160
"""At most this many characters of one value the message quotes."""


def invalid_arguments(tool: str, problems: list[Problem], lang: Language | None) -> str:
    """What the model reads: the shallowest problem (it says the most about what is wrong), where it
    is, and how many more there are."""
    problem = min(problems, key=lambda found: len(found.path))
    more = say(" ({count} more problem(s))", lang=lang, count=len(problems) - 1) if len(problems) > 1 else ""
    where = say(" (at {path})", lang=lang, path=_elide(problem.json_path, lang, 120)) if problem.path else ""
    message = _elide(_what(problem, lang), lang)
    return say(
        "{tool}: invalid arguments: {message}{where}{more}",
        lang=lang,
        tool=tool,
        message=message,
        where=where,
        more=more,
    )


_BREAKS = {
    "minimum": translatable("{value!r} is less than the minimum of {limit!r}"),
    "maximum": translatable("{value!r} is greater than the maximum of {limit!r}"),
    "minLength": translatable("{value!r} is too short (the minimum is {limit!r})"),
    "minItems": translatable("{value!r} is too short (the minimum is {limit!r})"),
    "maxLength": translatable("{value!r} is too long (the maximum is {limit!r})"),
    "maxItems": translatable("{value!r} is too long (the maximum is {limit!r})"),
}


def _what(problem: Problem, lang: Language | None) -> str:
    """What is wrong, in ``lang``: the offending value quoted, then what the schema wanted."""
    keyword, wanted, instance = problem.keyword, problem.wanted, problem.value
    value, limit = _Shown.value(instance, lang), _Shown.value(wanted, lang)
    if keyword == "type":
        types = _Shown.names([wanted] if isinstance(wanted, str) else wanted, lang)
        return say("{value!r} is not of type {expected!r}", lang=lang, value=value, expected=types)
    if keyword == "enum":
        return say("{value!r} is not one of {allowed!r}", lang=lang, value=value, allowed=limit)
    if keyword == "const":
        return say("{expected!r} was expected", lang=lang, expected=limit)
    if keyword == "required":
        missing = next(name for name in wanted if name not in instance)
        return say("{name!r} is a required property", lang=lang, name=_Shown.names([missing], lang))
    if keyword == "additionalProperties":
        extras = sorted(name for name in instance if name not in problem.schema.get("properties", {}))
        if len(extras) == 1:
            said = translatable("Additional properties are not allowed ({names!r} was unexpected)")
        else:
            said = translatable("Additional properties are not allowed ({names!r} were unexpected)")
        return say(said, lang=lang, names=_Shown.names(extras, lang))
    if keyword in ("minLength", "minItems") and wanted == 1:
        return say("{value!r} should be non-empty", lang=lang, value=value)
    if keyword in ("maxLength", "maxItems") and wanted == 0:
        return say("{value!r} is expected to be empty", lang=lang, value=value)
    if keyword == "pattern":
        return say("{value!r} does not match {pattern!r}", lang=lang, value=value, pattern=limit)
    if keyword in _BREAKS:
        return say(_BREAKS[keyword], lang=lang, value=value, limit=limit)
    return say(
        "{value!r} does not pass the schema's {keyword!r} check",
        lang=lang,
        value=value,
        keyword=_Shown.names([keyword], lang),
    )


class _Shown:
    """A value for a message, written two ways: ``repr()`` as Python writes it (the English
    ``{value!r}``) and ``str()`` as JSON (the Russian ``«{value}»``). Both are cut to VALUE_LIMIT
    characters, keeping their ends."""

    def __init__(self, python: str, json_text: str, lang: Language | None) -> None:
        self.python, self.json = _elide(python, lang, VALUE_LIMIT), _elide(json_text, lang, VALUE_LIMIT)

    @classmethod
    def value(cls, value: Any, lang: Language | None) -> _Shown:
        try:
            as_json = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            as_json = repr(value)
        return cls(repr(value), as_json, lang)

    @classmethod
    def names(cls, names: list[str], lang: Language | None) -> _Shown:
        """Names of properties or types: 'a', 'b' in Python's way; a, b as they are."""
        return cls(", ".join(repr(name) for name in names), ", ".join(names), lang)

    def __repr__(self) -> str:
        return self.python

    def __str__(self) -> str:
        return self.json


def _elide(text: str, lang: Language | None, limit: int = MESSAGE_LIMIT) -> str:
    """Keep both ends: a message starts with the offending value and ends with what was expected."""
    if len(text) <= limit:
        return text
    half = (limit - 25) // 2
    return say(
        "{head} … ({count} characters cut) … {tail}",
        lang=lang,
        head=text[:half],
        count=len(text) - 2 * half,
        tail=text[-half:],
    )
