"""What a student's code did, read safely: any value as short text, and the lines of their own code
an error came through (never reactlab's, Python's or an installed package's)."""

from __future__ import annotations

import sysconfig
import traceback
from collections.abc import Callable
from pathlib import Path

__all__ = ["shown", "your_lines"]

_NOT_YOURS = tuple(
    {str(Path(__file__).resolve().parent.parent), *(sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib"))}
)


def shown(value: object, width: int = 300, how: Callable[[object], str] = str) -> str:
    """``how(value)`` cut to ``width``; an object whose __str__ or __repr__ raises shows by its type."""
    try:
        text = how(value)
    except Exception:  # a student's object: it must never crash the verdict
        return f"<{type(value).__name__}>"
    text = text if isinstance(text, str) else f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 1] + "…"


def your_lines(error: BaseException, last: int = 3) -> list[tuple[int, str, str]]:
    """The frames of ``error``'s traceback in the student's own code, as (line, function, code), the
    ``last`` ones at most: a crash inside pathlib or json is shown at the line of theirs that called it."""
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        filename = frame.filename or ""
        if filename.startswith(_NOT_YOURS) or filename.startswith("<frozen") or "-packages" in filename:
            continue
        frames.append((frame.lineno or 0, frame.name, (frame.line or "").strip()))
    return frames[-last:]
