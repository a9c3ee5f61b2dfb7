"""What every tool shares: the API definition and argument checking against its own schema."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any, ClassVar

from ..errors import ToolError
from ..strings import Language, say, translatable

# jsonschema registers an "iri" format checker by importing rfc3987_syntax where it is installed
# (Jupyter's own dependencies install it), and that import builds a grammar for over a second: in
# every kernel and every CLI run. reactlab checks no formats, so it imports jsonschema without it.
_SKIP_IRI = "rfc3987_syntax" not in sys.modules
if _SKIP_IRI:
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import fails; jsonschema skips "iri"
try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError, best_match
finally:
    if _SKIP_IRI:
        del sys.modules["rfc3987_syntax"]

__all__ = [
    "BaseTool",
    "MESSAGE_LIMIT",
]

MESSAGE_LIMIT = 400
"""At most this many characters of a schema error reach the model: it quotes the input."""
VALUE_LIMIT = 160
"""At most this many characters of one value the message quotes."""


class BaseTool:
    """Subclasses set ``name`` and ``description``, return a JSON Schema (Draft 2020-12) from
    ``parameters()``, and do the work in ``run(**arguments)``. ``execute`` checks the arguments
    against that schema first; ``run`` keeps the checks a schema cannot say (allowed paths etc.).

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
        """What the model is sent. A schema that is not valid JSON Schema fails here, before any run."""
        schema = self.parameters()
        _validator(json.dumps(schema))
        function = {"name": self.name, "description": self.description, "parameters": schema}
        return {"type": "function", "function": function}

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.check(arguments)
        return self.run(**arguments)

    @functools.cached_property
    def _checker(self) -> Draft202012Validator:
        """A tool's schema is its own for its life: compiled on its first call, not on every one."""
        return _validator(json.dumps(self.parameters()))

    def check(self, arguments: dict[str, Any]) -> None:
        """The model is not bound by the schema it was sent, so the same schema is checked here."""
        errors = list(self._checker.iter_errors(arguments))
        if not errors:
            return
        error = best_match(errors)
        more = say(" ({count} more problem(s))", lang=self.lang, count=len(errors) - 1) if len(errors) > 1 else ""
        where = (
            say(" (at {path})", lang=self.lang, path=_elide(error.json_path, self.lang, 120))
            if error.json_path != "$"
            else ""
        )
        message = _elide(_schema_message(error, self.lang), self.lang)
        raise ToolError(
            say(
                "{tool}: invalid arguments: {message}{where}{more}",
                lang=self.lang,
                tool=self.name,
                message=message,
                where=where,
                more=more,
            )
        )


class _Shown:
    """A value for a message, written two ways: ``repr()`` as Python writes it (the English table's
    ``{value!r}``, as jsonschema says it) and ``str()`` as JSON (the Russian table's ``{value}``).
    Both are cut to VALUE_LIMIT characters, keeping their ends."""

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


def _schema_message(error: ValidationError, lang: Language | None) -> str:
    """What is wrong, in the table's words: the offending value quoted, then what the schema wanted."""
    keyword: Any = error.validator
    wanted: Any = error.validator_value
    instance: Any = error.instance
    schema: Any = error.schema  # the (sub)schema the keyword belongs to

    def value() -> _Shown:
        return _Shown.value(instance, lang)

    def limit() -> _Shown:
        return _Shown.value(wanted, lang)

    if keyword == "type":
        types = [wanted] if isinstance(wanted, str) else [str(t) for t in wanted]
        return say(
            "{value!r} is not of type {expected!r}", lang=lang, value=value(), expected=_Shown.names(types, lang)
        )
    if keyword == "enum":
        return say("{value!r} is not one of {allowed!r}", lang=lang, value=value(), allowed=limit())
    if keyword == "const":
        return say("{expected!r} was expected", lang=lang, expected=limit())
    if keyword == "required" and isinstance(instance, dict):
        missing = next((name for name in wanted if name not in instance), "")
        return say("{name!r} is a required property", lang=lang, name=_Shown.names([str(missing)], lang))
    if keyword == "additionalProperties" and "patternProperties" not in schema and isinstance(instance, dict):
        known = schema.get("properties", {})
        extras = sorted((str(name) for name in instance if name not in known), key=str)
        unexpected = (
            translatable("Additional properties are not allowed ({names!r} was unexpected)")
            if len(extras) == 1
            else translatable("Additional properties are not allowed ({names!r} were unexpected)")
        )
        return say(unexpected, lang=lang, names=_Shown.names(extras, lang))
    bounds = {
        "minimum": translatable("{value!r} is less than the minimum of {limit!r}"),
        "maximum": translatable("{value!r} is greater than the maximum of {limit!r}"),
        "exclusiveMinimum": translatable("{value!r} is less than or equal to the minimum of {limit!r}"),
        "exclusiveMaximum": translatable("{value!r} is greater than or equal to the maximum of {limit!r}"),
        "multipleOf": translatable("{value!r} is not a multiple of {limit!r}"),
    }
    if keyword in bounds:
        return say(bounds[keyword], lang=lang, value=value(), limit=limit())
    if keyword in ("minLength", "minItems", "minProperties") and wanted == 1:
        return say("{value!r} should be non-empty", lang=lang, value=value())
    if keyword in ("minLength", "minItems"):
        return say("{value!r} is too short (the minimum is {limit!r})", lang=lang, value=value(), limit=limit())
    if keyword in ("maxLength", "maxItems", "maxProperties") and wanted == 0:
        return say("{value!r} is expected to be empty", lang=lang, value=value())
    if keyword in ("maxLength", "maxItems"):
        return say("{value!r} is too long (the maximum is {limit!r})", lang=lang, value=value(), limit=limit())
    if keyword == "pattern":
        return say("{value!r} does not match {pattern!r}", lang=lang, value=value(), pattern=limit())
    if keyword == "uniqueItems":
        return say("{value!r} has non-unique elements", lang=lang, value=value())
    return say(
        "{value!r} does not pass the schema's {keyword!r} check",
        lang=lang,
        value=value(),
        keyword=_Shown.names([str(keyword)], lang),
    )


@functools.lru_cache(maxsize=256)
def _validator(schema_text: str) -> Draft202012Validator:
    """Checking a schema against the metaschema costs far more than a step of the loop: once per schema."""
    schema = json.loads(schema_text)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


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
