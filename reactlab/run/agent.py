"""Agent: the control loop. The model chooses the route; the order of the loop is fixed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from ..errors import (
    EmptyAnswer,
    InvalidAssistantMessage,
    ReactlabError,
    StepLimitExceeded,
    ToolCallLimitExceeded,
    ToolError,
)
from ..json_text import UnusableJSON, read_json, write_json
from ..prompts import system_prompt
from ..protocols import ChatClient, Tool
from ..strings import AgentTexts, Language, resolve_language, speaking, strings
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
        # record.messages holds read-only snapshots: each request lists them, none is copied again,
        # and the record keeps each request's messages as a prefix of the history (record.py).
        texts = strings(self.lang).agent
        tool_calls_done = 0
        for step in range(1, self.max_steps + 1):
            message = self._ask_model(step, FrozenList(record.messages), record.tools)
            calls = self._validate(message)
            record.add_message(message)  # the request comes before its results

            if not calls:
                answer = message.get("content")
                if not isinstance(answer, str) or not answer.strip():
                    raise EmptyAnswer(texts.empty_answer)
                return answer

            if tool_calls_done + len(calls) > self.max_tool_calls:
                counts = dict(done=tool_calls_done, asked=len(calls), limit=self.max_tool_calls)
                raise ToolCallLimitExceeded(texts.tool_call_limit.format(**counts))

            for call in calls:  # every call is answered before the next request
                content = self._execute(call, step)  # the result as a JSON string
                record.add_message({"role": "tool", "tool_call_id": call["id"], "content": content})
                tool_calls_done += 1
            # Returning results does not call the model; the next iteration does.

        raise StepLimitExceeded(texts.step_limit.format(limit=self.max_steps))

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
            sent = record.sent_request(request, messages)
            failed = ModelCall(step, sent, freeze(response), time.perf_counter() - started)
            failed.error = freeze(details) if isinstance(details, dict) else None
            record.model_calls.append(failed)
            raise
        request = record.sent_request(completion.request, messages)
        call = ModelCall(step, request, freeze(completion.response), time.perf_counter() - started)
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
        texts = strings(self.lang).agent
        if not isinstance(message, dict) or message.get("role") != "assistant":
            raise InvalidAssistantMessage(texts.not_assistant)
        if message.get("content") is not None and not isinstance(message["content"], str):
            raise InvalidAssistantMessage(texts.content_not_text)
        calls = message.get("tool_calls")
        if calls is None:
            return []
        if not isinstance(calls, list):
            raise InvalidAssistantMessage(texts.calls_not_list)
        seen: set[str] = set()
        for index, call in enumerate(calls):
            problem = _call_problem(call, f"tool_calls[{index}]", seen, texts)
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
            result = {"ok": False, "error": strings(self.lang).agent.result_not_json.format(name=name[:64])}
            content = write_json(result)
        assert self.record is not None
        self.record.tool_executions.append(
            ToolExecution(step, call["id"], name, raw, content, time.perf_counter() - started)
        )
        return content

    def _run_tool(self, name: str, raw: str) -> dict[str, Any]:
        """Turn data into a Python call. Every expected failure becomes a result the model sees."""
        texts = strings(self.lang).agent
        try:
            arguments = read_json(raw) if raw.strip() else {}  # LM Studio sends "" for "no arguments"
        except json.JSONDecodeError as exc:
            return {"ok": False, "error": _not_json(exc, texts)}
        except UnusableJSON as exc:  # NaN, 1e999, a 5,000-digit number, "\ud800", a key twice, deep nesting
            return {"ok": False, "error": texts.arguments_refused.format(problem=exc.in_words(self.lang))}
        if not isinstance(arguments, dict):
            return {"ok": False, "error": texts.arguments_not_object.format(kind=type(arguments).__name__)}
        tool = self.tools.get(name)
        if tool is None:
            offered = ", ".join(sorted(self.tools)) or texts.nothing_offered
            return {"ok": False, "error": texts.tool_not_offered.format(name=name[:64], offered=offered)}
        try:
            result = tool.execute(arguments)
        except ToolError as exc:
            return {"ok": False, "error": str(exc)}
        except ReactlabError:
            raise  # e.g. SandboxUnavailable: the environment is wrong, not the model
        except Exception as exc:
            return {"ok": False, "error": texts.tool_failed.format(kind=type(exc).__name__, detail=str(exc)[:500])}
        if not isinstance(result, dict):
            kind = type(result).__name__
            return {"ok": False, "error": texts.result_not_object.format(name=name[:64], kind=kind)}
        return result


def _call_problem(call: Any, where: str, seen: set[str], texts: AgentTexts) -> str | None:
    """What is wrong with one tool call of an answer, in the agent's words; None if nothing is."""
    if not isinstance(call, dict):
        return texts.call_not_object.format(where=where)
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        return texts.call_without_id.format(where=where)
    if call_id in seen:
        return texts.call_repeats_id.format(where=where, call_id=call_id[:80])
    if call.get("type") != "function":
        return texts.call_type.format(where=where)
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return texts.call_without_name.format(where=where)
    if not isinstance(function.get("arguments"), str):
        return texts.arguments_not_string.format(where=where)
    return None


# What Python's json module says, by the start of its message, and the table's name for it.
_JSON_PROBLEMS = {
    "Expecting value": "json_expecting_value",
    "Expecting property name": "json_expecting_name",
    "Expecting ':'": "json_expecting_colon",
    "Expecting ',' delimiter": "json_expecting_comma",
    "Unterminated string": "json_unterminated_string",
    "Invalid control character": "json_control_character",
    "Invalid \\": "json_bad_escape",
    "Extra data": "json_extra_data",
    "Illegal trailing comma": "json_trailing_comma",
}


def _not_json(error: json.JSONDecodeError, texts: AgentTexts) -> str:
    """Where the parser stopped, what it expected there, and the text around that place."""
    name = next((key for start, key in _JSON_PROBLEMS.items() if error.msg.startswith(start)), "json_other")
    near = error.doc[max(0, error.pos - 30) : error.pos + 10]
    return texts.arguments_not_json.format(
        problem=getattr(texts, name), line=error.lineno, column=error.colno, position=error.pos, near=near
    )
