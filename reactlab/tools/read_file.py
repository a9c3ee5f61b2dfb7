"""read_file(path): read one text file of the working copy."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ToolError
from ..strings import Language, ToolTexts, resolve_language, strings
from ..workspace import TEXT_FILE_LIMIT, Workspace
from .base import BaseTool

__all__ = ["ReadFileTool", "read_text"]


class ReadFileTool(BaseTool):
    """Reads only the files named for the run (by default the project's text files), inside the copy."""

    name = "read_file"
    description = strings("en").tools.read_file_description  # until __init__ sets the language's

    def __init__(
        self,
        workspace: Workspace,
        files: Sequence[str] | None = None,
        *,
        max_chars: int = 20_000,
        lang: Language | None = None,
    ) -> None:
        self.lang = resolve_language(lang)
        self.description = self.texts.read_file_description
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
        texts = self.texts
        real = self.workspace.resolve(path, texts)  # resolves symlinks planted since the list was made
        if real.is_dir():
            raise ToolError(texts.is_folder.format(path=path))
        if not real.is_file():
            raise ToolError(texts.no_such_file.format(path=path))
        text = read_text(real, path, texts)
        return {
            "ok": True,
            "path": path,
            "content": text[: self.max_chars],
            "truncated": len(text) > self.max_chars,
            "size": len(text.encode("utf-8")),
        }


def read_text(real: Path, path: str, texts: ToolTexts) -> str:
    """The text of a small UTF-8 file exactly as stored (line endings kept), else a ToolError.

    Shared with edit, so both tools accept the same files. Never reads more than the limit.
    """
    size = real.stat().st_size
    if size > TEXT_FILE_LIMIT:
        raise ToolError(texts.too_large.format(path=path, size=size, limit=TEXT_FILE_LIMIT))
    with open(real, "rb") as handle:
        data = handle.read(TEXT_FILE_LIMIT + 1)
    if len(data) > TEXT_FILE_LIMIT:
        raise ToolError(texts.too_large_over.format(path=path, limit=TEXT_FILE_LIMIT))
    if b"\x00" in data:
        raise ToolError(texts.not_utf8_nul.format(path=path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolError(texts.not_utf8_byte.format(path=path, offset=error.start)) from None
