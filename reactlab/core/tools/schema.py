"""JSON Schema, the keywords reactlab's tools and cassettes use, checked without a dependency.

    schema = Schema({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    [problem.json_path for problem in schema.problems({"path": 3})]      # ["$.path"]

``KEYWORDS`` are checked as JSON Schema (2020-12) defines them; ``ANNOTATIONS`` are read by people and
models, not checked. A schema with any other keyword (``anyOf``, ``format``, ...) or a keyword of the
wrong shape is a ``SchemaError`` when it is made: a keyword that went unchecked would let a model's
arguments through unread. (jsonschema would check them all, but it needs rpds-py, which has no
WebAssembly wheel for the browser build.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["ANNOTATIONS", "KEYWORDS", "Problem", "Schema", "SchemaError"]

TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int, float),  # 1.0 is an integer in JSON Schema
    "boolean": (bool,),
    "null": (type(None),),
}
COUNTS = ("minItems", "maxItems", "minLength", "maxLength")
KEYWORDS = frozenset(
    {"type", "enum", "const", "properties", "required", "additionalProperties", "items", "$ref"}
    | {"minimum", "maximum", "pattern", *COUNTS}
)
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples"})


class SchemaError(ValueError):
    """A schema that is not JSON Schema, or uses a keyword this module does not check."""


@dataclass(frozen=True)
class Problem:
    """One way an instance breaks its schema: where (``path``), which ``keyword``, the instance's
    ``value`` there, what the keyword ``wanted``, and the (sub)schema it belongs to."""

    path: tuple[str | int, ...]
    keyword: str
    value: Any
    wanted: Any
    schema: dict[str, Any]

    @property
    def json_path(self) -> str:
        """The place as JSONPath: ``$`` for the whole, ``$.steps[1]`` inside it."""
        return "$" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in self.path)


class Schema:
    """A schema checked once, when made; ``problems(instance)`` lists what breaks it."""

    def __init__(self, schema: Any) -> None:
        try:  # as the model receives it: a tuple becomes a list; a set is no JSON at all
            self.root = json.loads(json.dumps(schema))
        except (TypeError, ValueError) as error:
            raise SchemaError(f"a schema is JSON: {error}") from None
        _check(self.root, self.root, "$")

    def problems(self, instance: Any) -> Iterator[Problem]:
        """Every problem, in the order the schema's keywords are written; none when the instance fits."""
        return _problems(instance, self.root, self.root, ())


def _is(value: Any, kind: str) -> bool:
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, TYPES[kind]) and not (isinstance(value, bool) and kind in ("number", "integer"))


def _same(a: Any, b: Any) -> bool:
    """JSON's equality: true is not 1, and 1 is 1.0."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(type(a) is type(b) or {type(a), type(b)} <= {int, float}) and a == b


def _resolve(root: dict[str, Any], reference: str) -> Any:
    """The subschema a local ``$ref`` (``#/$defs/name``) points at."""
    if not reference.startswith("#"):
        raise SchemaError(f"only references inside the schema (#/...) are checked, not {reference!r}")
    target: Any = root
    for step in filter(None, reference[1:].split("/")):
        step = step.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or step not in target:
            raise SchemaError(f"{reference!r} points at nothing in the schema")
        target = target[step]
    return target


def _problems(value: Any, schema: Any, root: dict[str, Any], path: tuple[str | int, ...]) -> Iterator[Problem]:
    if schema is True:
        return
    if schema is False:
        yield Problem(path, "false", value, False, {})
        return
    for keyword, wanted in schema.items():
        if keyword == "$ref":
            yield from _problems(value, _resolve(root, wanted), root, path)
            continue
        if keyword == "required" and isinstance(value, dict):  # a problem per name missing, as jsonschema says it
            yield from (Problem(path, keyword, value, [name], schema) for name in wanted if name not in value)
        elif _breaks(keyword, wanted, value, schema):
            yield Problem(path, keyword, value, wanted, schema)
        if keyword == "properties" and isinstance(value, dict):
            for name, subschema in wanted.items():
                if name in value:
                    yield from _problems(value[name], subschema, root, (*path, name))
        elif keyword == "additionalProperties" and isinstance(value, dict) and wanted is not False:
            for name in _additional(value, schema):
                yield from _problems(value[name], wanted, root, (*path, name))
        elif keyword == "items" and isinstance(value, list):
            for index, item in enumerate(value):
                yield from _problems(item, wanted, root, (*path, index))


def _additional(value: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    return [name for name in value if name not in schema.get("properties", {})]


def _breaks(keyword: str, wanted: Any, value: Any, schema: dict[str, Any]) -> bool:
    """Whether ``value`` breaks the one keyword (a keyword about another type of value holds)."""
    if keyword == "type":
        return not any(_is(value, kind) for kind in ([wanted] if isinstance(wanted, str) else wanted))
    if keyword == "enum":
        return not any(_same(value, allowed) for allowed in wanted)
    if keyword == "const":
        return not _same(value, wanted)
    if keyword == "additionalProperties" and isinstance(value, dict):
        return wanted is False and bool(_additional(value, schema))
    if keyword == "pattern" and isinstance(value, str):
        return re.search(wanted, value) is None
    sized = isinstance(value, list) if keyword.endswith("Items") else isinstance(value, str)
    if keyword in COUNTS and sized:
        return bool(len(value) < wanted if keyword.startswith("min") else len(value) > wanted)
    if keyword in ("minimum", "maximum") and _is(value, "number"):
        return bool(value < wanted if keyword == "minimum" else value > wanted)
    return False


def _check(schema: Any, root: Any, where: str) -> None:
    """Raise SchemaError unless ``schema`` is JSON Schema made of KEYWORDS and ANNOTATIONS alone."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise SchemaError(f"{where}: a schema is an object or true/false, not {schema!r}")
    for keyword, wanted in schema.items():
        if keyword not in KEYWORDS | ANNOTATIONS:
            raise SchemaError(f"{where}: {keyword!r} is not a keyword reactlab checks (it checks {sorted(KEYWORDS)})")
        place = f"{where}.{keyword}"
        kinds = [wanted] if isinstance(wanted, str) else wanted
        shapes = {
            "type": isinstance(kinds, list) and kinds and all(kind in TYPES for kind in kinds),
            "enum": isinstance(wanted, list),
            "required": isinstance(wanted, list) and all(isinstance(name, str) for name in wanted),
            "properties": isinstance(wanted, dict),
            "pattern": isinstance(wanted, str),
            "$ref": isinstance(wanted, str),
            "$defs": isinstance(wanted, dict),
            "minimum": _is(wanted, "number"),
            "maximum": _is(wanted, "number"),
        }
        shapes |= {name: type(wanted) is int and wanted >= 0 for name in COUNTS}
        if not shapes.get(keyword, True):
            raise SchemaError(f"{place}: {wanted!r} is not valid here")
        if keyword == "pattern":
            try:
                re.compile(wanted)
            except re.error as error:
                raise SchemaError(f"{place}: {wanted!r} is not a regular expression ({error})") from None
        if keyword == "$ref":
            _resolve(root, wanted)
        for name, subschema in wanted.items() if keyword in ("properties", "$defs") else ():
            _check(subschema, root, f"{place}.{name}")
        if keyword in ("items", "additionalProperties"):
            _check(wanted, root, place)
