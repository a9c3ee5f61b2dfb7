"""Known server quirks in an assistant message: named in strict mode, mended on request.

Some servers answer in shapes close to the protocol but not in it (SERVERS.md lists where each was
seen): a tool call without ``id`` or with ``id: ""``, without ``type``, with ``arguments`` as a JSON
object, a flat ``{name, arguments}`` call without ``function``, ``finish_reason: "tool"`` or
``"eos"``, ``content`` as a list of text parts (with or without Magistral's thinking parts), a legacy
``function_call``, or tool calls written into ``content`` in the model's own markup because the
server's tool-call parser is off (dialects.py). ``examine`` finds them. In strict mode (the default)
it raises ``RepairableAnswer`` naming every quirk; with ``repair=True`` it returns a mended copy and one
sentence per repair, which the run record keeps. The body received is never changed. Both are
written in the language asked for.

Valid shapes are not quirks and pass untouched: ``content`` missing or null, ``arguments: ""``
(LM Studio's "no arguments": the agent reads it as ``{}``), an extra ``index`` in a call, ids that
repeat across turns.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from copy import deepcopy
from typing import Any

from ..errors import RepairableAnswer, UnmendableToolCall
from ..json_text import UnusableJSON
from ..language import Language, resolve_language, say, translatable
from .dialects import Unreadable, find_calls

__all__ = ["FINISH_QUIRKS", "examine"]

FINISH_QUIRKS = {
    "tool": (
        translatable("finish_reason is 'tool', not 'tool_calls'"),
        translatable("finish_reason 'tool' read as 'tool_calls'"),
    ),
    "eos": (
        translatable("finish_reason is 'eos' (end of sequence), not 'stop'"),
        translatable("finish_reason 'eos' read as 'stop'"),
    ),
    "function_call": (
        translatable("finish_reason is 'function_call' (the legacy name), not 'tool_calls'"),
        translatable("finish_reason 'function_call' read as 'tool_calls'"),
    ),
}
"""finish_reason values that mean a usable answer under another name: what is wrong, and what was done."""


class _Findings:
    """Each quirk found: what is wrong (for the strict error) and what was done (for the record)."""

    def __init__(self, lang: Language) -> None:
        self.lang = lang
        self.problems: list[str] = []
        self.repairs: list[str] = []

    def add(self, problem: str, repair: str) -> None:
        self.problems.append(problem)
        self.repairs.append(repair)


def examine(
    message: dict[str, Any],
    finish_reason: Any,
    response_id: str,
    *,
    repair: bool,
    tools_offered: bool = True,
    lang: Language | None = None,
    tool_names: Collection[str] = (),
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Return the message to use and the repairs made; raise in strict mode when a quirk is found.
    Markup in ``content`` is read as tool calls only when the request offered tools."""
    mended = deepcopy(message)
    found = _Findings(resolve_language(lang))
    _content_parts(mended, found)
    legacy = _legacy_call(mended, finish_reason, response_id, found)
    if tools_offered:
        _calls_in_content(mended, response_id, found, tool_names)
    calls = mended.get("tool_calls")
    if isinstance(calls, list):
        for index, call in enumerate(calls):
            if isinstance(call, dict):  # anything else is the agent's to refuse
                _call(call, index, response_id, found)
    if isinstance(finish_reason, str) and finish_reason in FINISH_QUIRKS and not legacy:
        problem, repaired = FINISH_QUIRKS[finish_reason]
        found.add(say(problem, lang=lang), say(repaired, lang=lang))
    if not found.problems:
        return message, ()
    if not repair:
        raise RepairableAnswer(
            say(
                "The server's answer has a known quirk: {problems}. "
                "DeepSeekClient(..., repair=True) would mend it and record each repair in the run.",
                lang=lang,
                problems="; ".join(found.problems),
            ),
            lang=found.lang,
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
            say("'content' is a list of text parts, not a string", lang=found.lang),
            say(
                "content was a list of {count} text part(s); joined into one string", lang=found.lang, count=len(parts)
            ),
        )
        return
    counts = {"thoughts": len(thoughts), "texts": len(texts)}
    found.add(
        say(
            "'content' is a list of {thoughts} thinking part(s) (the model's reasoning, Magistral's shape) "
            "and {texts} text part(s), not a string",
            lang=found.lang,
            **counts,
        ),
        say(
            "content was a list of {thoughts} thinking and {texts} text part(s); the text joined into one "
            "string, the thinking left out (the response keeps it as received)",
            lang=found.lang,
            **counts,
        ),
    )


def _kind(part: Any) -> Any:
    return part.get("type") if isinstance(part, dict) else None


def _is_thinking(part: dict[str, Any]) -> bool:
    thinking = part.get("thinking")
    if isinstance(thinking, str):
        return True
    return isinstance(thinking, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in thinking)


def _legacy_call(message: dict[str, Any], finish_reason: Any, response_id: str, found: _Findings) -> bool:
    """A legacy ``function_call: {name, arguments}`` (GigaChat's API, servers older than tool_calls) read as
    ``tool_calls[0]``; arguments given as an object go on as a JSON string. True when one was read."""
    call = message.get("function_call")
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or message.get("tool_calls"):
        return False
    arguments = call.get("arguments")
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    function = {"name": call["name"], "arguments": arguments}
    call_id = _made_up_id(response_id, 0, function)
    message["tool_calls"] = [{"id": call_id, "type": "function", "function": function}]
    del message["function_call"]
    name = call["name"][:64]
    found.add(
        say(
            "the answer holds a legacy function_call ({name!r}) and no tool_calls (finish_reason {finish!r}): the "
            "format OpenAI used before tool_calls, and GigaChat's own API. repair=True translates it, and sends "
            "the history back the same way; so does gpt2giga, an OpenAI-compatible proxy for GigaChat. Another "
            "server should be updated to answer with tool_calls",
            lang=found.lang,
            name=name,
            finish=str(finish_reason)[:40],
        ),
        say(
            "the legacy function_call {name!r} read as tool_calls[0] with made-up id {call_id!r}; the history goes "
            "back to this server as function_call and role 'function'",
            lang=found.lang,
            name=name,
            call_id=call_id,
        ),
    )
    return True


def _calls_in_content(message: dict[str, Any], response_id: str, found: _Findings, tool_names: Collection[str]) -> None:
    """Tool calls the server left in ``content`` in its model's markup (dialects.py), read into ``tool_calls``."""
    content = message.get("content")
    if not isinstance(content, str) or message.get("tool_calls"):
        return
    try:
        read = find_calls(content, tool_names)
    except Unreadable as exc:
        dialect, shown = exc.dialect, exc.markup.strip()[:200]
        if isinstance(exc.reason, UnusableJSON):  # NaN, a 5,000-digit number, "\ud800", a key twice, deep nesting
            reason = exc.reason.in_words(found.lang)
        else:
            reason = say(exc.reason, lang=found.lang, opener=dialect.opener)
        text = say(
            "'content' holds {dialect} markup that cannot be read as a tool call ({reason}): {markup!r}. "
            "repair=True cannot mend that: start the server with its tool-call parser on ({flags}).",
            lang=found.lang,
            dialect=dialect.name,
            reason=reason,
            markup=shown,
            flags=dialect.flags,
        )
        raise UnmendableToolCall(text, lang=found.lang) from None
    if read is None:
        return
    calls = [
        {"id": _made_up_id(response_id, index, function), "type": "function", "function": function}
        for index, function in enumerate(read.calls)
    ]
    message["tool_calls"] = calls
    message["content"] = read.outside or None
    ids = ", ".join(repr(c["id"]) for c in calls)
    name, count = read.dialect.name, len(calls)
    found.add(
        say(
            "'content' holds {count} tool call(s) written as {dialect} markup and tool_calls is empty: the "
            "server did not parse them; start it with its tool-call parser on ({flags})",
            lang=found.lang,
            count=count,
            dialect=name,
            flags=read.dialect.flags,
        ),
        say(
            "content held {count} tool call(s) as {dialect} markup; read into tool_calls with made-up id(s) {ids}",
            lang=found.lang,
            count=count,
            dialect=name,
            ids=ids,
        ),
    )


def _call(call: dict[str, Any], index: int, response_id: str, found: _Findings) -> None:
    where = f"tool_calls[{index}]"
    if not isinstance(call.get("function"), dict):
        if not isinstance(call.get("name"), str):
            # LM Studio 0.3.21 sends {"id": "", "type": "function"}: nothing names a tool.
            raise UnmendableToolCall(
                say(
                    "{where} names no function (no 'function' object, no 'name'): there is nothing to call, "
                    "and repair=True cannot mend that. Update the server, or try another model.",
                    lang=found.lang,
                    where=where,
                ),
                lang=found.lang,
            )
        call["function"] = {"name": call.pop("name"), "arguments": call.pop("arguments", "")}
        found.add(
            say("{where} is a flat {{name, arguments}} call without 'function'", lang=found.lang, where=where),
            say("{where}: flat {{name, arguments}} call moved under 'function'", lang=found.lang, where=where),
        )
    function = call["function"]
    if isinstance(function.get("arguments"), dict):
        function["arguments"] = json.dumps(function["arguments"], ensure_ascii=False)
        found.add(
            say("{where}.function.arguments is an object, not a JSON string", lang=found.lang, where=where),
            say("{where}: arguments were an object; sent on as a JSON string", lang=found.lang, where=where),
        )
    if "type" not in call or call["type"] is None:
        call["type"] = "function"
        found.add(
            say("{where} has no type", lang=found.lang, where=where),
            say("{where}: type was missing; set to 'function'", lang=found.lang, where=where),
        )
    if not isinstance(call.get("id"), str) or not call["id"]:
        state = say("empty", lang=found.lang) if call.get("id") == "" else say("missing", lang=found.lang)
        call["id"] = _made_up_id(response_id, index, function)
        problem = say("{where} has no id (it is {state})", lang=found.lang, where=where, state=state)
        found.add(
            problem,
            say(
                "{where}: id was {state}; set to {call_id!r}",
                lang=found.lang,
                where=where,
                state=state,
                call_id=call["id"],
            ),
        )


def _made_up_id(response_id: str, index: int, function: dict[str, Any]) -> str:
    """The same answer always gets the same id, so a replayed run matches its recording."""
    seed = json.dumps([response_id, index, function], sort_keys=True, ensure_ascii=False, default=str)
    return "call_" + hashlib.sha256(seed.encode()).hexdigest()[:24]
