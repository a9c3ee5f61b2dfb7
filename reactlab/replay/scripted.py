"""A scripted model: write the model's answers in Python, serve them at the HTTP transport.

    script = Script().tool_call("read_file", path="shop/delivery.py").final_answer("Done.")
    agent = Agent(script.client(), tools)

Each request is answered with a full chat.completion body built from the next scripted answer.
Usage is *estimated* from the request (about four characters per token; the cache-hit part is
the prefix shared with the previous request, in DeepSeek's 64-token units) and marked
``"estimated": true``, so token lessons work offline without pretending to be real counts.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import httpx

from ..core.client import DeepSeekClient
from ..core.errors import CassetteExhausted
from ..core.language import say

__all__ = ["Script", "ScriptTransport", "call", "chat_completion", "estimate_usage", "tool_call_message"]

CREATED = 1_767_225_600  # a fixed timestamp keeps scripted bodies byte-identical between runs
CACHE_UNIT = 64


@dataclass(frozen=True)
class _Call:
    name: str
    arguments: str


def call(name: str, arguments: dict[str, Any] | str | None = None, /, **kwargs: Any) -> _Call:
    """One tool call. ``arguments`` may be a dict (sent as JSON) or a raw string (sent as is)."""
    if isinstance(arguments, str):
        return _Call(name, arguments)
    return _Call(name, json.dumps({**(arguments or {}), **kwargs}, ensure_ascii=False))


class Script:
    """The model's answers, in order. Every method appends one answer and returns the script."""

    def __init__(self) -> None:
        self.answers: list[tuple[dict[str, Any], str]] = []

    def __len__(self) -> int:
        return len(self.answers)

    def tool_call(self, name: str, arguments: dict[str, Any] | str | None = None, /, **kwargs: Any) -> Script:
        return self.tool_calls(call(name, arguments, **kwargs))

    def tool_calls(self, *calls: _Call, content: str | None = None) -> Script:
        return self.message(tool_call_message(list(calls), len(self.answers) + 1, content or ""), "tool_calls")

    def final_answer(self, text: str) -> Script:
        return self.message({"role": "assistant", "content": text}, "stop")

    def empty_answer(self) -> Script:
        return self.message({"role": "assistant", "content": ""}, "stop")

    def truncated_answer(self, text: str = "The cause is that the settings") -> Script:
        return self.message({"role": "assistant", "content": text}, "length")

    def message(self, message: Any, finish_reason: str | None = "stop") -> Script:
        """Any assistant message, valid or not: for lessons and adversarial tests."""
        self.answers.append((message, finish_reason))  # type: ignore[arg-type]
        return self

    def transport(self) -> ScriptTransport:
        return ScriptTransport(self)

    def client(self, **kwargs: Any) -> DeepSeekClient:
        """A DeepSeekClient whose every request is answered by this script."""
        kwargs.setdefault("api_key", "")
        return DeepSeekClient(transport=self.transport(), **kwargs)


def _call_id(number: int, index: int, c: _Call) -> str:
    digest = hashlib.sha256(f"{number}/{index}/{c.name}/{c.arguments}".encode()).hexdigest()[:24]
    return f"call_{index:02d}_{digest}"


def _prompt_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("tools", []), ensure_ascii=False) + json.dumps(
        body.get("messages", []), ensure_ascii=False
    )


def estimate_usage(body: dict[str, Any], previous: dict[str, Any] | None, answer: Any) -> dict[str, Any]:
    """Usage fields in DeepSeek's shape, estimated at four characters a token."""
    text = _prompt_text(body)
    prompt = max(1, len(text) // 4)
    hit = 0
    if previous is not None:
        before = _prompt_text(previous)
        shared = 0
        for a, b in zip(before, text, strict=False):
            if a != b:
                break
            shared += 1
        hit = min(prompt, (shared // 4) // CACHE_UNIT * CACHE_UNIT)
    completion = max(1, len(json.dumps(answer, ensure_ascii=False)) // 4)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_cache_hit_tokens": hit,
        "prompt_cache_miss_tokens": prompt - hit,
        "estimated": True,
    }


class ScriptTransport(httpx.BaseTransport):
    """Serves a Script's answers as chat.completion bodies, one per request."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.position = 0
        self._previous: dict[str, Any] | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.position >= len(self.script.answers):
            raise CassetteExhausted(
                say(
                    "The script has {total} answers and the agent asked for number {number}. Add an answer to the "
                    "script.",
                    total=len(self.script.answers),
                    number=self.position + 1,
                )
            )
        body = json.loads(request.read())
        message, finish_reason = self.script.answers[self.position]
        self.position += 1
        response = chat_completion(message, finish_reason, body, self._previous, f"scripted-{self.position}")
        self._previous = body
        return httpx.Response(200, json=response)


def chat_completion(
    message: Any, finish_reason: str | None, request: dict[str, Any], previous: dict[str, Any] | None, id_: str
) -> dict[str, Any]:
    """A full chat.completion body around ``message``, as the provider would send it."""
    return {
        "id": id_,
        "object": "chat.completion",
        "created": CREATED,
        "model": request.get("model", ""),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": estimate_usage(request, previous, message),
    }


def tool_call_message(calls: list[_Call], number: int, content: str = "") -> dict[str, Any]:
    """An assistant message asking for ``calls``, with ids in DeepSeek's style."""
    tool_calls = [
        {"id": _call_id(number, index, c), "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for index, c in enumerate(calls)
    ]
    return {"role": "assistant", "content": content, "tool_calls": tool_calls}
