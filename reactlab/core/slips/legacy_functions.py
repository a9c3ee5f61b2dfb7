"""The legacy ``functions`` dialect: what a request looks like to a server that predates ``tools``.

Before ``tools`` and ``tool_calls``, OpenAI's API took ``functions: [{name, description, parameters}]``
and ``function_call: "auto"``, answered with one ``message.function_call: {name, arguments}`` and
``finish_reason: "function_call"``, and read each result back as ``{"role": "function", "name": ...,
"content": ...}``. GigaChat's own API still works so, with ``arguments`` as a JSON object
(developers.sber.ru/docs/ru/gigachat/guides/functions/overview); some old OpenAI-compatible servers do too.

``to_functions`` rewrites a request body built for ``tools`` into that dialect: the agent's history keeps
``tool_calls`` and ``tool`` messages, and only what goes over the wire changes. An assistant message with
several calls becomes one ``function_call`` message per call, each followed by its result (the dialect
has one call per message). The answer's side is in repair.py (``repair=True`` reads a ``function_call``
as a tool call).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["to_functions"]


def to_functions(body: dict[str, Any], arguments_as_object: bool) -> dict[str, Any]:
    """``body`` with ``tools``/``tool_choice`` as ``functions``/``function_call`` and the history in the
    legacy dialect. The body given is not changed."""
    legacy = {key: value for key, value in body.items() if key not in ("tools", "tool_choice", "messages")}
    legacy["messages"] = _messages(body["messages"], arguments_as_object)
    if body.get("tools"):
        legacy["functions"] = [tool["function"] for tool in body["tools"] if isinstance(tool.get("function"), dict)]
        legacy["function_call"] = "auto"
    return legacy


def _messages(messages: list[dict[str, Any]], arguments_as_object: bool) -> list[dict[str, Any]]:
    results = {m.get("tool_call_id"): m for m in messages if m.get("role") == "tool"}
    converted: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "tool":
            continue  # placed right after its call below
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not calls:
            converted.append(message)
            continue
        for index, call in enumerate(calls):
            function = call.get("function") or {}
            arguments = function.get("arguments", "")
            said = {
                "role": "assistant",
                "content": (message.get("content") or "") if index == 0 else "",
                "function_call": {
                    "name": function.get("name"),
                    "arguments": _arguments(arguments, arguments_as_object),
                },
            }
            converted.append(said)
            result = results.get(call.get("id"))
            if result is not None:
                converted.append({"role": "function", "name": function.get("name"), "content": result.get("content")})
    return converted


def _arguments(arguments: Any, as_object: bool) -> Any:
    """The arguments as this dialect wants them: a JSON object (GigaChat), or OpenAI's JSON string."""
    if not as_object:
        return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    if isinstance(arguments, dict):
        return arguments
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else {}
    except (ValueError, RecursionError):
        return arguments  # what the model wrote: the server may say what is wrong with it
    return parsed if isinstance(parsed, dict) else arguments
