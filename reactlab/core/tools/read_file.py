"""read_file(path): read one text file of the working copy."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ToolError
from ..language import Language, resolve_language, say
from ..workspace import TEXT_FILE_LIMIT, Workspace
from .base import BaseTool

__all__ = ["ReadFileTool", "read_text"]


class ReadFileTool(BaseTool):
    """Reads only the files named for the run (by default the project's text files), inside the copy."""

    name = "read_file"

    def __init__(
        self,
        workspace: Workspace,
        files: Sequence[str] | None = None,
        *,
        max_chars: int = 20_000,
        lang: Language | None = None,
    ) -> None:
        self.lang = resolve_language(lang)
        self.description = say(
            "Read one text file of the project. The path is relative to the project root.", lang=self.lang
        )
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
        real = self.workspace.resolve(path, self.lang)  # resolves symlinks planted since the list was made
        if real.is_dir():
            raise ToolError(say("{path} is a folder, not a file.", lang=self.lang, path=path))
        if not real.is_file():
            raise ToolError(say("{path} does not exist.", lang=self.lang, path=path))
        text = read_text(real, path, self.lang)
        return {
            "ok": True,
            "path": path,
            "content": text[: self.max_chars],
            "truncated": len(text) > self.max_chars,
            "size": len(text.encode("utf-8")),
        }


def read_text(real: Path, path: str, lang: Language | None) -> str:
    """The text of a small UTF-8 file exactly as stored (line endings kept), else a ToolError.

    Shared with edit, so both tools accept the same files. Never reads more than the limit.
    """
    size = real.stat().st_size
    if size > TEXT_FILE_LIMIT:
        raise ToolError(
            say(
                "{path} is too large ({size} bytes; the limit is {limit}).",
                lang=lang,
                path=path,
                size=size,
                limit=TEXT_FILE_LIMIT,
            )
        )
    with open(real, "rb") as handle:
        data = handle.read(TEXT_FILE_LIMIT + 1)
    if len(data) > TEXT_FILE_LIMIT:
        raise ToolError(say("{path} is too large (over {limit} bytes).", lang=lang, path=path, limit=TEXT_FILE_LIMIT))
    if b"\x00" in data:
        raise ToolError(say("{path} is not a UTF-8 text file (it contains a NUL byte).", lang=lang, path=path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolError(
            say(
                "{path} is not a UTF-8 text file (invalid byte at offset {offset}).",
                lang=lang,
                path=path,
                offset=error.start,
            )
        ) from None
