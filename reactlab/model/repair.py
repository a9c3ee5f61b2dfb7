"""Known server quirks in an assistant message: named in strict mode, mended on request.

Some servers answer in shapes close to the protocol but not in it (SERVERS.md lists where each was
seen): a tool call without ``id`` or with ``id: ""``, without ``type``, with ``arguments`` as a JSON
object, a flat ``{name, arguments}`` call without ``function``, ``finish_reason: "tool"``, or
``content`` as a list of text parts. ``examine`` finds them. In strict mode (the default) it raises
``RepairableAnswer`` naming every quirk; with ``repair=True`` it returns a mended copy and one
sentence per repair, which the run record keeps. The body received is never changed.

Valid shapes are not quirks and pass untouched: ``content`` missing or null, ``arguments: ""``
(LM Studio's "no arguments": the agent reads it as ``{}``), an extra ``index`` in a call, ids that
repeat across turns.
"""

from __future__ import annotations

import hashlib
import json
from copy import deepcopy
from typing import Any

from ..errors import RepairableAnswer, UnmendableToolCall

__all__ = ["examine"]


class _Findings:
    """Each quirk found: what is wrong (for the strict error) and what was done (for the record)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.repairs: list[str] = []

    def add(self, problem: str, repair: str) -> None:
        self.problems.append(problem)
        self.repairs.append(repair)


def examine(
    message: dict[str, Any], finish_reason: Any, response_id: str, *, repair: bool
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Return the message to use and the repairs made; raise in strict mode when a quirk is found."""
    mended = deepcopy(message)
    found = _Findings()
    _content_parts(mended, found)
    calls = mended.get("tool_calls")
    if isinstance(calls, list):
        for index, call in enumerate(calls):
            if isinstance(call, dict):  # anything else is the agent's to refuse
                _call(call, index, response_id, found)
    if finish_reason == "tool":
        found.add("finish_reason is 'tool', not 'tool_calls'", "finish_reason 'tool' read as 'tool_calls'")
    if not found.problems:
        return message, ()
    if not repair:
        raise RepairableAnswer(
            f"The server's answer has a known quirk: {'; '.join(found.problems)}. "
            "DeepSeekClient(..., repair=True) would mend it and record each repair in the run."
        )
    return mended, tuple(found.repairs)


def _content_parts(message: dict[str, Any], found: _Findings) -> None:
    parts = message.get("content")
    if not isinstance(parts, list) or not parts:
        return
    if all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in parts):
        message["content"] = "".join(p["text"] for p in parts)
        found.add(
            "'content' is a list of text parts, not a string",
            f"content was a list of {len(parts)} text part(s); joined into one string",
        )


def _call(call: dict[str, Any], index: int, response_id: str, found: _Findings) -> None:
    where = f"tool_calls[{index}]"
    if not isinstance(call.get("function"), dict):
        if not isinstance(call.get("name"), str):
            # LM Studio 0.3.21 sends {"id": "", "type": "function"}: nothing names a tool.
            raise UnmendableToolCall(
                f"{where} names no function (no 'function' object, no 'name'): there is nothing to call, "
                "and repair=True cannot mend that. Update the server, or try another model."
            )
        call["function"] = {"name": call.pop("name"), "arguments": call.pop("arguments", "")}
        found.add(
            f"{where} is a flat {{name, arguments}} call without 'function'",
            f"{where}: flat {{name, arguments}} call moved under 'function'",
        )
    function = call["function"]
    if isinstance(function.get("arguments"), dict):
        function["arguments"] = json.dumps(function["arguments"], ensure_ascii=False)
        found.add(
            f"{where}.function.arguments is an object, not a JSON string",
            f"{where}: arguments were an object; sent on as a JSON string",
        )
    if "type" not in call or call["type"] is None:
        call["type"] = "function"
        found.add(f"{where} has no type", f"{where}: type was missing; set to 'function'")
    if not isinstance(call.get("id"), str) or not call["id"]:
        state = "empty" if call.get("id") == "" else "missing"
        call["id"] = _made_up_id(response_id, index, function)
        found.add(f"{where} has no id (it is {state})", f"{where}: id was {state}; set to {call['id']!r}")


def _made_up_id(response_id: str, index: int, function: dict[str, Any]) -> str:
    """The same answer always gets the same id, so a replayed run matches its recording."""
    seed = json.dumps([response_id, index, function], sort_keys=True, ensure_ascii=False, default=str)
    return "call_" + hashlib.sha256(seed.encode()).hexdigest()[:24]
