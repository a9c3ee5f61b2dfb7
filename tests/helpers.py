"""Small real tools for loop tests: they do real (in-memory) work, nothing is mocked."""

from __future__ import annotations

from typing import Any

from reactlab.core.errors import ToolError
from reactlab.core.tools.base import BaseTool


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


def classroom_run(tmpdir: str | None = None) -> dict[str, Any]:
    """One student's offline shop run, checked independently. Top level, so processes can import it."""
    import hashlib
    import os
    import tempfile

    if tmpdir is not None:
        tempfile.tempdir = tmpdir
    from reactlab import independent_test_run, run_in_copy, unchanged_paths
    from reactlab.samples import (
        SHOP,
        SHOP_READ_ONLY,
        SHOP_TEST_COMMAND,
    )

    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    try:
        check = independent_test_run(outcome.workspace, SHOP_TEST_COMMAND)
        fixed = (outcome.workspace.root / "shop/delivery.py").read_bytes()
        return {
            "pid": os.getpid(),
            "root": str(outcome.workspace.root),
            "stop_reason": outcome.record.stop_reason,
            "executions": len(outcome.record.tool_executions),
            "first_test_run": outcome.record.tool_executions[3].result["stdout"].count("FAIL:"),
            "independent_exit_code": check.exit_code,
            "unchanged": unchanged_paths(outcome.workspace, SHOP_READ_ONLY),
            "fixed": hashlib.sha256(fixed).hexdigest(),
        }
    finally:
        outcome.workspace.cleanup()
