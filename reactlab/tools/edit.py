"""edit(path, old_text, new_text): replace one exact fragment of a file in the working copy."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import ToolError
from ..workspace import Workspace
from .base import BaseTool

__all__ = ["EditTool"]


class EditTool(BaseTool):
    """The fragment must occur exactly once. Read-only paths (settings, tests) are refused by code."""

    name = "edit"
    description = (
        "Replace one exact fragment of a project file. old_text must occur in the file exactly once; "
        "copy it with its indentation. The path is relative to the project root."
    )

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old_text": {"type": "string", "description": "The exact text to replace."},
                "new_text": {"type": "string", "description": "The text to put in its place."},
            },
            "required": ["path", "old_text", "new_text"],
            "additionalProperties": False,
        }

    def run(self, path: str, old_text: str, new_text: str) -> dict[str, Any]:  # type: ignore[override]
        real = self.workspace.resolve(path)
        if self.workspace.is_read_only(real):
            raise ToolError(f"{path} is read-only for this run; change the implementation instead.")
        if not real.is_file():
            raise ToolError(f"{path} is not an existing file.")
        try:
            text = real.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"{path} is not a UTF-8 text file.") from None
        if not old_text:
            raise ToolError("old_text is empty; give the exact fragment to replace.")
        count = text.count(old_text)
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            raise ToolError(f"old_text {where} in {path}; it must occur exactly once. Read the file again.")
        updated = text.replace(old_text, new_text, 1)
        _write_atomically(real, updated)
        diff = difflib.unified_diff(
            text.splitlines(keepends=True), updated.splitlines(keepends=True), f"a/{path}", f"b/{path}", n=1
        )
        return {"ok": True, "path": path, "diff": "".join(diff)[:4000]}


def _write_atomically(path: Path, text: str) -> None:
    """A crash mid-write leaves the old file, never half a new one."""
    mode = path.stat().st_mode
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
