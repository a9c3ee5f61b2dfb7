"""What every tool shares: the API definition and argument checking against its own schema."""

from __future__ import annotations

from typing import Any, ClassVar

from ..errors import ToolError

__all__ = ["BaseTool"]

_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float)}


class BaseTool:
    """Subclasses set ``name`` and ``description``, return a JSON Schema from ``parameters()``,
    and do the work in ``run(**arguments)``. ``execute`` checks the arguments first."""

    name: ClassVar[str]
    description: ClassVar[str]

    def parameters(self) -> dict[str, Any]:
        raise NotImplementedError

    def run(self, **arguments: Any) -> dict[str, Any]:
        raise NotImplementedError

    def definition(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters()},
        }

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.check(arguments)
        return self.run(**arguments)

    def check(self, arguments: dict[str, Any]) -> None:
        """The model is not bound by the schema, so the tool checks it again."""
        schema = self.parameters()
        properties: dict[str, Any] = schema["properties"]
        extra = sorted(set(arguments) - set(properties))
        if extra:
            raise ToolError(f"{self.name}: unknown argument(s) {', '.join(repr(e[:40]) for e in extra[:5])}.")
        for key in schema.get("required", []):
            if key not in arguments:
                raise ToolError(f"{self.name}: missing required argument {key!r}.")
        for key, value in arguments.items():
            rule = properties[key]
            allowed = _TYPES[rule["type"]]
            if not isinstance(value, allowed) or isinstance(value, bool):
                raise ToolError(f"{self.name}: {key!r} must be of type {rule['type']}, not {type(value).__name__}.")
            if "enum" in rule and value not in rule["enum"]:
                shown = ", ".join(rule["enum"][:20]) + (", ..." if len(rule["enum"]) > 20 else "")
                raise ToolError(f"{self.name}: {key!r} must be one of: {shown}.")
            if "minimum" in rule and value < rule["minimum"] or "maximum" in rule and value > rule["maximum"]:
                raise ToolError(f"{self.name}: {key!r} must be between {rule['minimum']} and {rule['maximum']}.")
