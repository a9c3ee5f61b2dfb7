"""Short readings of tool results: the lines worth showing, and FAIL/OK from real test output."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Protocol

from .core.json_text import read_json
from .core.language import LANGUAGES, Language, check_language, current_language, say, translatable
from .core.record import ToolExecution

__all__ = [
    "CommandOutput",
    "STOP_PHRASES",
    "badge",
    "describe_arguments",
    "key_lines",
    "language_of",
    "stop_phrase",
    "verdict",
]

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
    if result.get("replayed") is True:
        return say("replayed, not run on this machine", lang=lang)
    if result.get("sandbox_unavailable") is True:
        return say("sandbox unavailable", lang=lang)
    return None


def key_lines(result: dict[str, Any], limit: int = 6, lang: Language | None = None) -> list[str]:
    """A few lines that tell what a tool result says, for printing a route."""
    if not result.get("ok", False):
        return [say("error: {error}", lang=lang, error=result.get("error", say("failed", lang=lang)))]
    if "exit_code" in result:
        text = f"{result.get('stdout', '')}\n{result.get('stderr', '')}"
        picked = [line.rstrip() for line in text.splitlines() if _KEY.match(line)]
        flags = f" ({say('truncated', lang=lang)})" if result.get("truncated") else ""
        return [f"exit_code {result['exit_code']}{flags}", *picked[:limit]]
    if "diff" in result:
        changed = [line for line in result["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        return changed[:limit]
    if "content" in result:
        more = f", {say('truncated', lang=lang)}" if result.get("truncated") else ""
        return [say("{count} characters", lang=lang, count=len(result["content"])) + more]
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


STOP_PHRASES = {
    "answer": translatable("a final answer"),
    "error": translatable("an error"),
    "agent_error": translatable("an error of the agent"),
    "empty_answer": translatable("an empty answer"),
    "invalid_message": translatable("an answer that breaks the protocol"),
    "tool_call_limit": translatable("the tool-call limit"),
    "step_limit": translatable("the model-call limit"),
    "api_error": translatable("an API error"),
    "api_connection_error": translatable("no connection to the server"),
    "api_timeout": translatable("no answer in time"),
    "api_bad_request": translatable("a request the server rejected"),
    "api_server_needs_option": translatable("a server that needs a start-up option"),
    "api_authentication_failed": translatable("a refused API key"),
    "api_insufficient_balance": translatable("an account with no balance left"),
    "api_temporarily_refused": translatable("a server that asked to send the request later"),
    "api_rate_limited": translatable("the server's rate limit"),
    "api_server_error": translatable("a server error"),
    "api_unexpected_status": translatable("an unexpected HTTP status"),
    "api_endpoint_not_found": translatable("no chat endpoint at base_url"),
    "api_model_not_found": translatable("a model the server does not know"),
    "api_malformed_response": translatable("an answer that is not a chat.completion"),
    "api_streamed_answer": translatable("a streamed answer"),
    "api_malformed_tool_call": translatable("a malformed tool call the server refused"),
    "truncated_answer": translatable("an answer cut off at max_tokens"),
    "content_filtered": translatable("the provider's content filter"),
    "model_refused": translatable("the model's refusal"),
    "api_resources_exhausted": translatable("a provider out of capacity"),
    "api_answer_aborted": translatable("an answer the server aborted"),
    "api_key_refused": translatable("an API key that was not sent"),
    "cassette_error": translatable("a cassette that cannot be replayed"),
    "cassette_exhausted": translatable("the end of the cassette"),
    "cassette_mismatch": translatable("a request the cassette did not record"),
    "sandbox_unavailable": translatable("no sandbox"),
    "bound_exceeded": translatable("a working copy past the host's bounds"),
    "api_context_too_long": translatable("a history longer than the model's context"),
    "api_tools_unsupported": translatable("a model that takes no tools"),
    "api_access_refused": translatable("a provider that refuses this region or account"),
    "api_untrusted_certificate": translatable("a certificate not trusted here"),
    "api_undecodable_body": translatable("an answer that cannot be decoded"),
}
"""How a run ended, by its ``stop_reason`` (errors.py), in a reader's words."""


def stop_phrase(stop_reason: object, lang: Language | None = None) -> str:
    """How a run ended, in words of ``lang``: ``"step_limit"`` is "the model-call limit"; a reason
    this table does not know (an exception's class name) is shown as it is."""
    if isinstance(stop_reason, str) and stop_reason in STOP_PHRASES:
        return say(STOP_PHRASES[stop_reason], lang=lang)
    return str(stop_reason)


def language_of(record: object, lang: str | None = None) -> Language:
    """The language to show a run in: ``lang`` when given (checked), else the one the run's record
    was made in, else ``current_language()`` (a record from an older reactlab, or one naming no
    language we know)."""
    if lang is not None:
        return check_language(lang)
    made_in = getattr(record, "lang", None)
    return made_in if isinstance(made_in, str) and made_in in LANGUAGES else current_language()
