"""TallyTool: the small tool notebook 04 teaches the loop with, and its check runs loops with.

It is not a BaseTool, just an object of the Tool shape (``reactlab/core/protocols.py``). It numbers the
texts it is given, so the order in which calls ran shows in the results; an empty text gets an error
result, as a tool's refusal does, which the loop hands back to the model like any other result.
"""

from __future__ import annotations

from typing import Any

from ..core.language import say

__all__ = ["TallyTool"]


class TallyTool:
    """A tiny tool with a memory: it numbers the texts it is given, so the order of execution shows."""

    name = "tally"

    def __init__(self, lang: str | None = None) -> None:
        self.count = 0
        self.description, self._nothing = (
            say("Number a text.", lang=lang),
            say("There is no text to number.", lang=lang),
        )

    def definition(self) -> dict[str, Any]:
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        text = str(arguments.get("text", ""))
        if not text:
            return {"ok": False, "error": self._nothing}
        self.count += 1
        return {"ok": True, "number": self.count, "text": text}
