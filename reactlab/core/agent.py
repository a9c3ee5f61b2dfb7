"""Agent: the control loop. The model chooses the route; the order of the loop is fixed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from .errors import (
    EmptyAnswer,
    InvalidAssistantMessage,
    ReactlabError,
    StepLimitExceeded,
    ToolCallLimitExceeded,
    ToolError,
)
from .json_text import UnusableJSON, read_json, write_json
from .language import Language, resolve_language, say, speaking, translatable
from .prompts import system_prompt
from .protocols import ChatClient, Tool
from .record import FrozenList, ModelCall, RunRecord, ToolExecution, freeze

__all__ = ["Agent"]


class Agent:
    """Runs one task: ask the model, validate its answer, execute the tools it asked for, repeat."""

    def __init__(
        self,
        client: ChatClient,
        tools: Iterable[Tool],
        *,
        system: str | None = None,
        max_steps: int = 8,
        max_tool_calls: int = 16,
        lang: Language | None = None,
    ) -> None:
        self.client = client
        self.tools = {tool.name: tool for tool in tools}
        self.lang = resolve_language(lang)
        """The language of what the agent writes (the errors the model reads, the errors that end a run)
        and of the default system prompt: ``lang``, or ``current_language()`` when it is None. A client
        made without a language of its own writes its errors in this one while the agent runs."""
        self.system = system_prompt(self.lang) if system is None else system
        self.max_steps = max_steps
        """Model calls allowed per run."""
        self.max_tool_calls = max_tool_calls
        """Tool executions allowed per run."""
        self.record: RunRecord | None = None
        """The record of the last run, kept after success and failure alike."""

    def run(self, task: str) -> str:
        """Run the task to a final answer, or raise; ``self.record`` (and ``error.record``) keep the run."""
        definitions = freeze([tool.definition() for tool in self.tools.values()])
        self.record = record = RunRecord(
            task, self.system, definitions, max_steps=self.max_steps, max_tool_calls=self.max_tool_calls, lang=self.lang
        )
        record.add_message({"role": "system", "content": self.system})
        record.add_message({"role": "user", "content": task})
        try:
            with speaking(self.lang):
                record.answer = self._loop(record)
        except BaseException as error:
            record.stop_reason = getattr(error, "stop_reason", type(error).__name__)
            record.error = str(error)
            error.record = record  # type: ignore[attr-defined]
            raise
        record.stop_reason = "answer"
        return record.answer

    def _loop(self, record: RunRecord) -> str:
        # record.messages holds read-only snapshots: each request lists them, none is copied again.
        tool_calls_done, lang = 0, self.lang
        for step in range(1, self.max_steps + 1):
            message = self._ask_model(step, FrozenList(record.messages), record.tools)
            calls = self._validate(message)
            record.add_message(message)  # the request comes before its results

            if not calls:
                answer = message.get("content")
                if not isinstance(answer, str) or not answer.strip():
                    raise EmptyAnswer(say("The model returned neither a tool call nor an answer.", lang=lang))
                return answer

            if tool_calls_done + len(calls) > self.max_tool_calls:
                raise ToolCallLimitExceeded(
                    say("Tool-call limit reached: {done} done, {asked} more asked, {limit} allowed.", lang=lang,
                        done=tool_calls_done, asked=len(calls), limit=self.max_tool_calls)
                )  # fmt: skip

            for call in calls:  # every call is answered before the next request
                content = self._execute(call, step)  # the result as a JSON string
                record.add_message({"role": "tool", "tool_call_id": call["id"], "content": content})
                tool_calls_done += 1
            # Returning results does not call the model; the next iteration does.

        raise StepLimitExceeded(say("{limit} model calls without a final answer.", lang=lang, limit=self.max_steps))

    def _ask_model(self, step: int, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        """Send, and record a frozen copy of the exchange (the client keeps no say over the record)."""
        record = self.record
        assert record is not None
        started = time.perf_counter()
        try:
            completion = self.client.send(messages, tools)
        except ReactlabError as error:
            request = getattr(error, "request", None) or {"messages": messages, "tools": tools}
            response = getattr(error, "response", None)
            details = getattr(error, "details", None)  # an APIError's status, request id, Retry-After, body
            failed = ModelCall(step, freeze(request), freeze(response), time.perf_counter() - started)
            failed.error = freeze(details) if isinstance(details, dict) else None
            record.model_calls.append(failed)
            raise
        call = ModelCall(step, freeze(completion.request), freeze(completion.response), time.perf_counter() - started)
        repairs = getattr(completion, "repairs", ())  # from clients that mend known quirks
        if repairs:
            call.repairs, call.mended_message = list(repairs), freeze(completion.message)
        record.model_calls.append(call)
        return call.message

    def _validate(self, message: Any) -> list[dict[str, Any]]:
        """Check the protocol: an assistant message whose calls have ids unique within it and string arguments.

        Ids may repeat across answers (Kimi on vLLM numbers them afresh each turn): each call is
        answered before the next request, so a result always belongs to the latest call of its id.
        """
        if not isinstance(message, dict) or message.get("role") != "assistant":
            raise InvalidAssistantMessage(say("Expected an object with role 'assistant'.", lang=self.lang))
        if message.get("content") is not None and not isinstance(message["content"], str):
            raise InvalidAssistantMessage(say("'content' must be a string or null.", lang=self.lang))
        calls = message.get("tool_calls")
        if calls is None:
            return []
        if not isinstance(calls, list):
            raise InvalidAssistantMessage(say("'tool_calls' must be a list.", lang=self.lang))
        seen: set[str] = set()
        for index, call in enumerate(calls):
            problem = _call_problem(call, f"tool_calls[{index}]", seen, self.lang)
            if problem:
                raise InvalidAssistantMessage(problem)
            seen.add(call["id"])
        return calls

    def _execute(self, call: dict[str, Any], step: int) -> str:
        name, raw = call["function"]["name"], call["function"]["arguments"]
        started = time.perf_counter()
        result = self._run_tool(name, raw)
        try:
            content = write_json(result)  # no NaN, no lone surrogate: the next request must carry it
        except (TypeError, ValueError, RecursionError):
            result = {
                "ok": False,
                "error": say("The tool {name!r} returned a result that is not JSON.", lang=self.lang, name=name[:64]),
            }
            content = write_json(result)
        assert self.record is not None
        self.record.tool_executions.append(
            ToolExecution(step, call["id"], name, raw, freeze(json.loads(content)), time.perf_counter() - started)
        )
        return content

    def _run_tool(self, name: str, raw: str) -> dict[str, Any]:
        """Turn data into a Python call. Every expected failure becomes a result the model sees."""
        try:
            arguments = read_json(raw) if raw.strip() else {}  # LM Studio sends "" for "no arguments"
        except json.JSONDecodeError as exc:
            return {"ok": False, "error": _not_json(exc, self.lang)}
        except UnusableJSON as exc:  # NaN, 1e999, a 5,000-digit number, "\ud800", a key twice, deep nesting
            problem = exc.in_words(self.lang)
            return {"ok": False, "error": say("Arguments cannot be used: {problem}.", lang=self.lang, problem=problem)}
        if not isinstance(arguments, dict):
            return {
                "ok": False,
                "error": say(
                    "Arguments must be a JSON object, not {kind}.", lang=self.lang, kind=type(arguments).__name__
                ),
            }
        tool = self.tools.get(name)
        if tool is None:
            offered = ", ".join(sorted(self.tools)) or say("none", lang=self.lang)
            return {
                "ok": False,
                "error": say(
                    "Tool {name!r} is not offered. Offered: {offered}.", lang=self.lang, name=name[:64], offered=offered
                ),
            }
        try:
            result = tool.execute(arguments)
        except ToolError as exc:
            return {"ok": False, "error": str(exc)}
        except ReactlabError:
            raise  # e.g. SandboxUnavailable: the environment is wrong, not the model
        except Exception as exc:
            return {
                "ok": False,
                "error": say(
                    "The tool failed: {kind}: {detail}", lang=self.lang, kind=type(exc).__name__, detail=str(exc)[:500]
                ),
            }
        if not isinstance(result, dict):
            kind = type(result).__name__
            return {
                "ok": False,
                "error": say(
                    "The tool {name!r} returned {kind}, not an object.", lang=self.lang, name=name[:64], kind=kind
                ),
            }
        return result


def _call_problem(call: Any, where: str, seen: set[str], lang: Language | None) -> str | None:
    """What is wrong with one tool call of an answer, in the agent's words; None if nothing is."""
    if not isinstance(call, dict):
        return say("{where} is not an object.", lang=lang, where=where)
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        return say("{where} has no id.", lang=lang, where=where)
    if call_id in seen:
        return say("{where} repeats id {call_id!r} within one answer.", lang=lang, where=where, call_id=call_id[:80])
    if call.get("type") != "function":
        return say("{where}.type must be 'function'.", lang=lang, where=where)
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return say("{where}.function must have a string name.", lang=lang, where=where)
    if not isinstance(function.get("arguments"), str):
        return say("{where}.function.arguments must be a JSON string.", lang=lang, where=where)
    return None


# What Python's json module says, by the start of its message, and how we say it.
_JSON_PROBLEMS = {
    "Expecting value": translatable("Expecting value"),
    "Expecting property name": translatable("Expecting property name enclosed in double quotes"),
    "Expecting ':'": translatable("Expecting ':' delimiter"),
    "Expecting ',' delimiter": translatable("Expecting ',' delimiter"),
    "Unterminated string": translatable("Unterminated string starting at"),
    "Invalid control character": translatable("Invalid control character at"),
    "Invalid \\": translatable("Invalid \\escape"),
    "Extra data": translatable("Extra data"),
    "Illegal trailing comma": translatable("Illegal trailing comma"),
}
_OTHER_PROBLEM = translatable("Invalid JSON")


def _not_json(error: json.JSONDecodeError, lang: Language | None) -> str:
    """Where the parser stopped, what it expected there, and the text around that place."""
    problem = next((said for start, said in _JSON_PROBLEMS.items() if error.msg.startswith(start)), _OTHER_PROBLEM)
    near = error.doc[max(0, error.pos - 30) : error.pos + 10]
    return say(
        "Arguments are not valid JSON: {problem}: line {line} column {column} (char {position}), near {near!r}",
        lang=lang,
        problem=say(problem, lang=lang),
        line=error.lineno,
        column=error.colno,
        position=error.pos,
        near=near,
    )
