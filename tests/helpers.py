"""Small real tools for loop tests: they do real (in-memory) work, nothing is mocked."""

from __future__ import annotations

from typing import Any

from reactlab.errors import ToolError
from reactlab.tools.base import BaseTool


class NoteTool(BaseTool):
    """Appends a note to a list; 'fail' raises an expected error, 'crash' an unexpected one."""

    name = "note"
    description = "Write a note."

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.observers: list[Any] = []

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        }

    def run(self, text: str) -> dict[str, Any]:  # type: ignore[override]
        for observe in self.observers:
            observe(text)
        if text == "fail":
            raise ToolError("note: refusing to write 'fail'")
        if text == "crash":
            raise RuntimeError("disk on fire")
        self.notes.append(text)
        return {"ok": True, "count": len(self.notes)}
