"""Known server quirks in an assistant message: named in strict mode, mended on request.

Some servers answer in shapes close to the protocol but not in it (SERVERS.md lists where each was
seen): a tool call without ``id`` or with ``id: ""``, without ``type``, with ``arguments`` as a JSON
object, a flat ``{name, arguments}`` call without ``function``, ``finish_reason: "tool"`` or
``"eos"``, ``content`` as a list of text parts (with or without Magistral's thinking parts), or tool
calls written into ``content`` as ``<tool_call>{...}</tool_call>`` markup because the server's
tool-call parser is off. ``examine`` finds them. In strict mode (the default) it raises
``RepairableAnswer`` naming every quirk; with ``repair=True`` it returns a mended copy and one
sentence per repair, which the run record keeps. The body received is never changed.

Valid shapes are not quirks and pass untouched: ``content`` missing or null, ``arguments: ""``
(LM Studio's "no arguments": the agent reads it as ``{}``), an extra ``index`` in a call, ids that
repeat across turns.
"""

from __future__ import annotations

import hashlib
import json
import re
from copy import deepcopy
from typing import Any, NoReturn

from ..errors import RepairableAnswer, UnmendableToolCall

__all__ = ["FINISH_QUIRKS", "examine"]

FINISH_QUIRKS = {
    "tool": ("finish_reason is 'tool', not 'tool_calls'", "finish_reason 'tool' read as 'tool_calls'"),
    "eos": ("finish_reason is 'eos' (end of sequence), not 'stop'", "finish_reason 'eos' read as 'stop'"),
}
"""finish_reason values that mean a usable answer under another name: what is wrong, what was done."""

_PARSER_ADVICE = (
    "start the server with its tool-call parser on: vLLM with --enable-auto-tool-choice --tool-call-parser "
    "hermes (qwen3_coder for the <function=...> form), llama.cpp's llama-server with --jinja, Ollama with a "
    "model whose template supports tools"
)
_TOOL_CALL_MARKUP = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


class _Findings:
    """Each quirk found: what is wrong (for the strict error) and what was done (for the record)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.repairs: list[str] = []

    def add(self, problem: str, repair: str) -> None:
        self.problems.append(problem)
        self.repairs.append(repair)


def examine(
    message: dict[str, Any], finish_reason: Any, response_id: str, *, repair: bool, tools_offered: bool = True
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Return the message to use and the repairs made; raise in strict mode when a quirk is found.
    Markup in ``content`` is read as tool calls only when the request offered tools."""
    mended = deepcopy(message)
    found = _Findings()
    _content_parts(mended, found)
    if tools_offered:
        _calls_in_content(mended, response_id, found)
    calls = mended.get("tool_calls")
    if isinstance(calls, list):
        for index, call in enumerate(calls):
            if isinstance(call, dict):  # anything else is the agent's to refuse
                _call(call, index, response_id, found)
    if isinstance(finish_reason, str) and finish_reason in FINISH_QUIRKS:
        found.add(*FINISH_QUIRKS[finish_reason])
    if not found.problems:
        return message, ()
    if not repair:
        raise RepairableAnswer(
            f"The server's answer has a known quirk: {'; '.join(found.problems)}. "
            "DeepSeekClient(..., repair=True) would mend it and record each repair in the run."
        )
    return mended, tuple(found.repairs)


def _content_parts(message: dict[str, Any], found: _Findings) -> None:
    """Text parts joined into one string; Magistral's thinking parts (its reasoning) left out."""
    parts = message.get("content")
    if not isinstance(parts, list) or not parts:
        return
    texts = [p["text"] for p in parts if _kind(p) == "text" and isinstance(p.get("text"), str)]
    thoughts = [p for p in parts if _kind(p) == "thinking" and _is_thinking(p)]
    if len(texts) + len(thoughts) != len(parts):
        return  # a part of another kind: not a known quirk, the agent refuses it
    message["content"] = "".join(texts)
    if not thoughts:
        found.add(
            "'content' is a list of text parts, not a string",
            f"content was a list of {len(parts)} text part(s); joined into one string",
        )
        return
    found.add(
        f"'content' is a list of {len(thoughts)} thinking part(s) (the model's reasoning, Magistral's shape) "
        f"and {len(texts)} text part(s), not a string",
        f"content was a list of {len(thoughts)} thinking and {len(texts)} text part(s); the text joined into one "
        "string, the thinking left out (the response keeps it as received)",
    )


def _kind(part: Any) -> Any:
    return part.get("type") if isinstance(part, dict) else None


def _is_thinking(part: dict[str, Any]) -> bool:
    thinking = part.get("thinking")
    if isinstance(thinking, str):
        return True
    return isinstance(thinking, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in thinking)


def _calls_in_content(message: dict[str, Any], response_id: str, found: _Findings) -> None:
    """Hermes/Qwen tool calls left in ``content`` as ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``."""
    content = message.get("content")
    if not isinstance(content, str) or "<tool_call>" not in content or message.get("tool_calls"):
        return
    blocks = _TOOL_CALL_MARKUP.findall(content)
    if len(blocks) != content.count("<tool_call>"):
        _unreadable_markup("a <tool_call> is never closed", content[content.rindex("<tool_call>") :])
    calls = []
    for index, block in enumerate(blocks):
        function = _markup_call(block)
        calls.append({"id": _made_up_id(response_id, index, function), "type": "function", "function": function})
    message["tool_calls"] = calls
    message["content"] = _TOOL_CALL_MARKUP.sub("", content).strip() or None
    found.add(
        f"'content' holds {len(calls)} tool call(s) written as <tool_call>...</tool_call> markup (the Hermes/Qwen "
        f"template) and tool_calls is empty: the server did not parse them; {_PARSER_ADVICE}",
        f"content held {len(calls)} tool call(s) as <tool_call> markup; read into tool_calls with made-up id(s) "
        f"{', '.join(repr(c['id']) for c in calls)}",
    )


def _markup_call(block: str) -> dict[str, Any]:
    """``{"name": ..., "arguments": {...}}`` from inside one <tool_call> block, as a ``function`` object."""
    try:
        written = json.loads(block)
    except (ValueError, RecursionError):
        _unreadable_markup("its inside is not JSON", block)
    if not isinstance(written, dict) or not isinstance(written.get("name"), str):
        _unreadable_markup("its inside names no function", block)
    arguments = written.get("arguments", {})
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments, ensure_ascii=False)
    if not isinstance(arguments, str):
        _unreadable_markup("its arguments are neither an object nor a JSON string", block)
    return {"name": written["name"], "arguments": arguments}


def _unreadable_markup(reason: str, markup: str) -> NoReturn:
    raise UnmendableToolCall(
        f"'content' holds <tool_call> markup that cannot be read as a tool call ({reason}): {markup.strip()[:200]!r}. "
        f"repair=True cannot mend that: {_PARSER_ADVICE}."
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
