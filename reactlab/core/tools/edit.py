"""edit(path, old_text, new_text): replace one exact fragment of a file in the working copy."""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from ..browser import IN_BROWSER
from ..errors import ToolError
from ..language import Language, resolve_language, say
from ..workspace import TEXT_FILE_LIMIT, Workspace
from .base import BaseTool
from .read_file import read_text

__all__ = ["DIFF_CONTEXT", "DIFF_LIMIT", "EditTool", "unified_diff"]

DIFF_CONTEXT = 1
"""Unchanged lines shown before and after the change (as difflib's n=1 did before)."""
DIFF_LIMIT = 4000
"""Characters of diff returned; a longer one is cut and says so."""

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_BREAK = re.compile(r"\r\n|\r|\n")


class EditTool(BaseTool):
    """The fragment must occur exactly once. Read-only paths (settings, tests) are refused by code.

    Works on the same files read_file accepts (UTF-8, no NUL, at most ``TEXT_FILE_LIMIT`` bytes, also
    after the edit). Line endings are kept: in a file that uses only CRLF (or only CR), the line breaks
    of ``old_text`` and ``new_text`` are taken as that file's, so text copied either way matches.
    """

    name = "edit"

    def __init__(self, workspace: Workspace, *, lang: Language | None = None) -> None:
        self.lang = resolve_language(lang)
        self.description = say(
            "Replace one exact fragment of a project file. old_text must occur in the file exactly once; "
            "copy it with its indentation. The path is relative to the project root.",
            lang=self.lang,
        )
        self.workspace = workspace

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old_text": {"type": "string", "description": say("The exact text to replace.", lang=self.lang)},
                "new_text": {"type": "string", "description": say("The text to put in its place.", lang=self.lang)},
            },
            "required": ["path", "old_text", "new_text"],
            "additionalProperties": False,
        }

    def run(self, path: str, old_text: str, new_text: str) -> dict[str, Any]:  # type: ignore[override]
        real = self.workspace.resolve(path, self.lang)
        if self.workspace.is_read_only(real):
            raise ToolError(
                say("{path} is read-only for this run; change the implementation instead.", lang=self.lang, path=path)
            )
        if not real.is_file():
            raise ToolError(say("{path} is not an existing file.", lang=self.lang, path=path))
        if not old_text:
            raise ToolError(say("old_text is empty; give the exact fragment to replace.", lang=self.lang))
        if "\x00" in new_text:
            raise ToolError(say("new_text contains a NUL byte; the file must stay text.", lang=self.lang))
        text = read_text(real, path, self.lang)
        newline = _only_line_break(text)
        if newline is not None:
            old_text, new_text = _BREAK.sub(newline, old_text), _BREAK.sub(newline, new_text)
        count = text.count(old_text)
        if count == 0:
            raise ToolError(
                say(
                    "old_text does not occur in {path}; it must occur exactly once. "
                    "Read the file again and copy the fragment with enough lines around it to be unique.",
                    lang=self.lang,
                    path=path,
                )
            )
        if count > 1:
            raise ToolError(
                say(
                    "old_text occurs {count} times in {path}; it must occur exactly once. "
                    "Read the file again and copy the fragment with enough lines around it to be unique.",
                    lang=self.lang,
                    path=path,
                    count=count,
                )
            )
        start = text.index(old_text)
        updated = text[:start] + new_text + text[start + len(old_text) :]
        data = updated.encode("utf-8")
        if len(data) > TEXT_FILE_LIMIT:
            raise ToolError(
                say(
                    "The edit would make {path} {size} bytes; the limit is {limit}.",
                    lang=self.lang,
                    path=path,
                    size=len(data),
                    limit=TEXT_FILE_LIMIT,
                )
            )
        _write_atomically(real, data)
        return {"ok": True, "path": path, "diff": unified_diff(text, updated, path)}


def _only_line_break(text: str) -> str | None:
    """ "\\r\\n" or "\\r" when the file uses only that line break; None for LF, mixed or no breaks."""
    crlf = text.count("\r\n")
    lone_cr, lone_lf = text.count("\r") - crlf, text.count("\n") - crlf
    if crlf and not lone_cr and not lone_lf:
        return "\r\n"
    if lone_cr and not crlf and not lone_lf:
        return "\r"
    return None


def unified_diff(before: str, after: str, path: str) -> str:
    """One hunk around the lines that differ, in linear time.

    ``after`` differs from ``before`` in one span, so the hunk lies between the longest common run of
    leading lines and of trailing lines. (difflib compares every line with every other: quadratic on
    a long file of repeated lines.) Line endings are shown as stored.
    """
    old, new = _LINE.findall(before), _LINE.findall(after)
    shortest = min(len(old), len(new))
    head = 0
    while head < shortest and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if head == len(old) == len(new):
        return ""
    first = max(0, head - DIFF_CONTEXT)
    after_context = min(tail, DIFF_CONTEXT)
    old_end, new_end = len(old) - tail + after_context, len(new) - tail + after_context
    lines = [
        *(_line(" ", line) for line in old[first:head]),
        *(_line("-", line) for line in old[head : len(old) - tail]),
        *(_line("+", line) for line in new[head : len(new) - tail]),
        *(_line(" ", line) for line in old[len(old) - tail : old_end]),
    ]
    hunk = f"@@ -{_span(first, old_end)} +{_span(first, new_end)} @@\n"
    diff = f"--- a/{path}\n+++ b/{path}\n{hunk}{''.join(lines)}"
    if len(diff) > DIFF_LIMIT:
        return f"{diff[:DIFF_LIMIT]}\n… (diff cut at {DIFF_LIMIT} of {len(diff)} characters)\n"
    return diff


def _span(first: int, end: int) -> str:
    """Unified diff's "start,count"; an empty range names the line before it."""
    count = end - first
    return f"{first + 1 if count else first},{count}"


def _line(sign: str, line: str) -> str:
    if line.endswith(("\n", "\r")):
        return sign + line
    return f"{sign}{line}\n\\ No newline at end of file\n"


def _write_atomically(path: Path, data: bytes) -> None:
    """A crash mid-write leaves the old file, never half a new one. The rename also replaces a hard
    link's name rather than writing through it. The new file keeps the old one's mode and owner (as
    root, the sandbox uid's: the next command may change it too)."""
    old = path.stat()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            if not IN_BROWSER and old.st_uid != os.geteuid():  # a browser tab has no owners
                os.fchown(out.fileno(), old.st_uid, old.st_gid)
        os.chmod(temporary, stat.S_IMODE(old.st_mode))
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
