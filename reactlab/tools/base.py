"""What every tool shares: the API definition and argument checking against its own schema."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any, ClassVar

from ..errors import ToolError
from ..strings import Language, ToolTexts, strings

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

    ``lang`` is the language of what the model reads: the description and the errors (``texts``).
    A tool that sets none (a student's) answers in the language of the run that calls it."""

    name: ClassVar[str]
    description: str
    lang: Language | None = None

    @property
    def texts(self) -> ToolTexts:
        return strings(self.lang).tools

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
        error, texts = best_match(errors), self.texts
        more = texts.more_problems.format(count=len(errors) - 1) if len(errors) > 1 else ""
        where = texts.invalid_at.format(path=_elide(error.json_path, texts, 120)) if error.json_path != "$" else ""
        message = _elide(_schema_message(error, texts), texts)
        raise ToolError(texts.invalid_arguments.format(tool=self.name, message=message, where=where, more=more))


class _Shown:
    """A value for a message, written two ways: ``repr()`` as Python writes it (the English table's
    ``{value!r}``, as jsonschema says it) and ``str()`` as JSON (the Russian table's ``{value}``).
    Both are cut to VALUE_LIMIT characters, keeping their ends."""

    def __init__(self, python: str, json_text: str, texts: ToolTexts) -> None:
        self.python, self.json = _elide(python, texts, VALUE_LIMIT), _elide(json_text, texts, VALUE_LIMIT)

    @classmethod
    def value(cls, value: Any, texts: ToolTexts) -> _Shown:
        try:
            as_json = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            as_json = repr(value)
        return cls(repr(value), as_json, texts)

    @classmethod
    def names(cls, names: list[str], texts: ToolTexts) -> _Shown:
        """Names of properties or types: 'a', 'b' in Python's way; a, b as they are."""
        return cls(", ".join(repr(name) for name in names), ", ".join(names), texts)

    def __repr__(self) -> str:
        return self.python

    def __str__(self) -> str:
        return self.json


def _schema_message(error: ValidationError, texts: ToolTexts) -> str:
    """What is wrong, in the table's words: the offending value quoted, then what the schema wanted."""
    keyword: Any = error.validator
    wanted: Any = error.validator_value
    instance: Any = error.instance
    schema: Any = error.schema  # the (sub)schema the keyword belongs to

    def value() -> _Shown:
        return _Shown.value(instance, texts)

    def limit() -> _Shown:
        return _Shown.value(wanted, texts)

    if keyword == "type":
        types = [wanted] if isinstance(wanted, str) else [str(t) for t in wanted]
        return texts.schema_type.format(value=value(), expected=_Shown.names(types, texts))
    if keyword == "enum":
        return texts.schema_enum.format(value=value(), allowed=limit())
    if keyword == "const":
        return texts.schema_const.format(expected=limit())
    if keyword == "required" and isinstance(instance, dict):
        missing = next((name for name in wanted if name not in instance), "")
        return texts.schema_required.format(name=_Shown.names([str(missing)], texts))
    if keyword == "additionalProperties" and "patternProperties" not in schema and isinstance(instance, dict):
        known = schema.get("properties", {})
        extras = sorted((str(name) for name in instance if name not in known), key=str)
        unexpected = texts.schema_unexpected_one if len(extras) == 1 else texts.schema_unexpected_many
        return unexpected.format(names=_Shown.names(extras, texts))
    bounds = {
        "minimum": texts.schema_minimum,
        "maximum": texts.schema_maximum,
        "exclusiveMinimum": texts.schema_exclusive_minimum,
        "exclusiveMaximum": texts.schema_exclusive_maximum,
        "multipleOf": texts.schema_multiple_of,
    }
    if keyword in bounds:
        return bounds[keyword].format(value=value(), limit=limit())
    if keyword in ("minLength", "minItems", "minProperties") and wanted == 1:
        return texts.schema_non_empty.format(value=value())
    if keyword in ("minLength", "minItems"):
        return texts.schema_too_short.format(value=value(), limit=limit())
    if keyword in ("maxLength", "maxItems", "maxProperties") and wanted == 0:
        return texts.schema_must_be_empty.format(value=value())
    if keyword in ("maxLength", "maxItems"):
        return texts.schema_too_long.format(value=value(), limit=limit())
    if keyword == "pattern":
        return texts.schema_pattern.format(value=value(), pattern=limit())
    if keyword == "uniqueItems":
        return texts.schema_unique.format(value=value())
    return texts.schema_other.format(value=value(), keyword=_Shown.names([str(keyword)], texts))


@functools.lru_cache(maxsize=256)
def _validator(schema_text: str) -> Draft202012Validator:
    """Checking a schema against the metaschema costs far more than a step of the loop: once per schema."""
    schema = json.loads(schema_text)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _elide(text: str, texts: ToolTexts, limit: int = MESSAGE_LIMIT) -> str:
    """Keep both ends: a message starts with the offending value and ends with what was expected."""
    if len(text) <= limit:
        return text
    half = (limit - 25) // 2
    return texts.elided.format(head=text[:half], count=len(text) - 2 * half, tail=text[-half:])
