"""Short readings of tool results: the lines worth showing, and FAIL/OK from real test output."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Protocol

from ..json_text import read_json
from ..strings import Language, strings
from .record import ToolExecution

__all__ = ["CommandOutput", "badge", "describe_arguments", "key_lines", "verdict"]

# One search over the whole output, not one per line: a megabyte of empty lines is a million of them.
_FAILED = re.compile(r"^FAILED|\b\d+ failed\b", re.MULTILINE)
_PASSED = re.compile(r"^[^\S\n]*OK[^\S\n]*$|^OK \(|\b\d+ passed\b", re.MULTILINE)  # "OK" alone, "OK (...)", "3 passed"
_KEY = re.compile(r"^(FAIL|ERROR|OK\b|Ran \d+ tests?|FAILED|AssertionError|.*\b\d+ (passed|failed)\b)")


class CommandOutput(Protocol):
    """What a finished command has: ``SandboxResult`` and ``IndependentRun`` are ones."""

    @property
    def stdout(self) -> str: ...
    @property
    def stderr(self) -> str: ...


def verdict(result: Mapping[str, Any] | CommandOutput) -> str | None:
    """'FAIL' or 'OK' when a command's output holds a unittest/pytest summary, else None.

    ``result`` is a bash tool result (a dict with "stdout" and "stderr") or anything with ``stdout``
    and ``stderr`` attributes: a ``SandboxResult``, or the ``IndependentRun`` of independent_test_run.
    Only the output decides, never the exit code: ``... | tail`` exits 0 after failing tests."""
    if isinstance(result, Mapping):
        stdout, stderr = result.get("stdout", ""), result.get("stderr", "")
    else:
        stdout, stderr = result.stdout, result.stderr
    text = "\n".join(f"{stdout}\n{stderr}".splitlines())  # every line break as "\n", where ^ and $ match
    if _FAILED.search(text):
        return "FAIL"
    if _PASSED.search(text):
        return "OK"
    return None


def badge(result: dict[str, Any], lang: Language | None = None) -> str | None:
    """A plain note for a result that did not come from running the tool here."""
    texts = strings(lang).results
    if result.get("replayed") is True:
        return texts.replayed
    if result.get("sandbox_unavailable") is True:
        return texts.sandbox_unavailable
    return None


def key_lines(result: dict[str, Any], limit: int = 6, lang: Language | None = None) -> list[str]:
    """A few lines that tell what a tool result says, for printing a route."""
    texts = strings(lang).results
    if not result.get("ok", False):
        return [texts.error.format(error=result.get("error", texts.failed))]
    if "exit_code" in result:
        text = f"{result.get('stdout', '')}\n{result.get('stderr', '')}"
        picked = [line.rstrip() for line in text.splitlines() if _KEY.match(line)]
        flags = f" ({texts.truncated})" if result.get("truncated") else ""
        return [f"exit_code {result['exit_code']}{flags}", *picked[:limit]]
    if "diff" in result:
        changed = [line for line in result["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        return changed[:limit]
    if "content" in result:
        more = f", {texts.truncated}" if result.get("truncated") else ""
        return [texts.characters.format(count=len(result["content"])) + more]
    return [json.dumps(result, ensure_ascii=False)[:120]]


def describe_arguments(execution: ToolExecution, width: int = 100, *, first_only: bool = False) -> str:
    """The arguments as ``key=value`` pairs, shortened; the raw string when it is not an object."""
    try:
        arguments = read_json(execution.arguments)
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        return execution.arguments[:width]
    parts = []
    for key, value in list(arguments.items())[: 1 if first_only else None]:
        text = value if isinstance(value, str) else json.dumps(value)
        text = " ".join(str(text).split())
        parts.append(f"{key}={text[:width]}{'…' if len(text) > width else ''}")
    return ", ".join(parts)
