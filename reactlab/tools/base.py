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
    from jsonschema.exceptions import best_match
finally:
    if _SKIP_IRI:
        del sys.modules["rfc3987_syntax"]

__all__ = [
    "BaseTool",
    "MESSAGE_LIMIT",
]

MESSAGE_LIMIT = 400
"""At most this many characters of the validator's message reach the model: it may quote the input."""


class BaseTool:
    """Subclasses set ``name`` and ``description``, return a JSON Schema (Draft 2020-12) from
    ``parameters()``, and do the work in ``run(**arguments)``. ``execute`` checks the arguments
    against that schema first; ``run`` keeps the checks a schema cannot say (allowed paths etc.).

    ``lang`` is the language of what the model reads: the description and the errors (``texts``)."""

    name: ClassVar[str]
    description: str
    lang: Language = "en"

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
        message = _elide(error.message, texts)  # jsonschema's own words, in English
        raise ToolError(texts.invalid_arguments.format(tool=self.name, message=message, where=where, more=more))


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
