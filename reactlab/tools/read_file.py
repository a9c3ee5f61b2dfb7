"""read_file(path): read one text file of the working copy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ToolError
from ..workspace import TEXT_FILE_LIMIT, Workspace
from .base import BaseTool

__all__ = ["ReadFileTool"]


class ReadFileTool(BaseTool):
    """Reads only the files named for the run (by default the project's text files), inside the copy."""

    name = "read_file"
    description = "Read one text file of the project. The path is relative to the project root."

    def __init__(self, workspace: Workspace, files: Sequence[str] | None = None, *, max_chars: int = 20_000) -> None:
        self.workspace = workspace
        self.files = sorted(files) if files is not None else workspace.text_files()
        self.max_chars = max_chars

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"path": {"type": "string", "enum": self.files}},
            "required": ["path"],
            "additionalProperties": False,
        }

    def run(self, path: str) -> dict[str, Any]:  # type: ignore[override]
        real = self.workspace.resolve(path)  # resolves symlinks planted since the list was made
        if real.is_dir():
            raise ToolError(f"{path} is a folder, not a file.")
        if not real.is_file():
            raise ToolError(f"{path} does not exist.")
        size = real.stat().st_size
        if size > TEXT_FILE_LIMIT:
            raise ToolError(f"{path} is too large to read ({size} bytes; the limit is {TEXT_FILE_LIMIT}).")
        data = real.read_bytes()
        try:
            if b"\x00" in data:
                raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL byte")
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"{path} is not a UTF-8 text file.") from None
        return {
            "ok": True,
            "path": path,
            "content": text[: self.max_chars],
            "truncated": len(text) > self.max_chars,
            "size": size,
        }
