"""Cassettes: model responses saved as JSON and replayed at the httpx transport.

A cassette is ``{"format": "reactlab.cassette/1", "source": "recorded" | "scripted",
"description": "...", "interactions": [{"request": {...}, "response": {...}}]}``. ``response`` is a
full chat.completion body; ``request`` (the body that was sent) is optional. When it is present,
replay checks that the live request has the same structure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from .client import DeepSeekClient
from .errors import CassetteError, CassetteExhausted, CassetteMismatch

__all__ = ["Cassette", "FORMAT", "RecordingTransport", "ReplayTransport", "request_structure"]

FORMAT = "reactlab.cassette/1"
Source = Literal["recorded", "scripted"]


@dataclass
class Cassette:
    interactions: list[dict[str, Any]] = field(default_factory=list)
    source: Source = "recorded"
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "source": self.source,
            "description": self.description,
            "interactions": self.interactions,
        }

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CassetteError(f"Cannot read cassette {path}: {exc}") from None
        return cls.from_dict(data, origin=str(path))

    @classmethod
    def from_dict(cls, data: Any, origin: str = "cassette") -> Cassette:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CassetteError(f"{origin}: not a {FORMAT} cassette (missing or wrong 'format').")
        if data.get("source") not in ("recorded", "scripted"):
            raise CassetteError(f"{origin}: 'source' must be 'recorded' or 'scripted'.")
        interactions = data.get("interactions")
        if not isinstance(interactions, list):
            raise CassetteError(f"{origin}: 'interactions' must be a list.")
        for number, interaction in enumerate(interactions, 1):
            response = interaction.get("response") if isinstance(interaction, dict) else None
            if not isinstance(response, dict) or not isinstance(response.get("choices"), list):
                raise CassetteError(f"{origin}: interaction {number} has no chat.completion 'response'.")
        return cls(interactions, data["source"], str(data.get("description", "")))

    def client(self, **kwargs: Any) -> DeepSeekClient:
        """A DeepSeekClient that replays this cassette instead of going to the network."""
        kwargs.setdefault("api_key", "")
        return DeepSeekClient(transport=ReplayTransport(self), **kwargs)


def request_structure(body: dict[str, Any]) -> dict[str, Any]:
    """What replay compares: roles, tool-call ids and tool names; never the text."""
    messages = []
    for message in body.get("messages", []):
        entry: dict[str, Any] = {"role": message.get("role")}
        if message.get("tool_call_id") is not None:
            entry["tool_call_id"] = message["tool_call_id"]
        if message.get("tool_calls"):
            entry["tool_calls"] = [(c.get("id"), c.get("function", {}).get("name")) for c in message["tool_calls"]]
        messages.append(entry)
    tools = sorted(t.get("function", {}).get("name", "") for t in body.get("tools") or [])
    return {"tools": tools, "messages": messages}


def _difference(recorded: dict[str, Any], live: dict[str, Any]) -> str | None:
    want, got = request_structure(recorded), request_structure(live)
    if want["tools"] != got["tools"]:
        return f"tools offered differ: recorded {want['tools']}, live {got['tools']}"
    for index, (a, b) in enumerate(zip(want["messages"], got["messages"], strict=False)):
        for key in ("role", "tool_call_id", "tool_calls"):
            if a.get(key) != b.get(key):
                return f"messages[{index}].{key}: recorded {a.get(key)!r}, live {b.get(key)!r}"
    if len(want["messages"]) != len(got["messages"]):
        return f"recorded {len(want['messages'])} messages, live {len(got['messages'])}"
    return None


class ReplayTransport(httpx.BaseTransport):
    """Answers each chat-completions request with the cassette's next response, in order."""

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette
        self.position = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        total = len(self.cassette.interactions)
        if self.position >= total:
            raise CassetteExhausted(
                f"The cassette has {total} interactions and the agent asked for number {self.position + 1}. "
                "The run went further than the recording: record a new cassette or use a script."
            )
        interaction = self.cassette.interactions[self.position]
        recorded = interaction.get("request")
        if recorded is not None:
            difference = _difference(recorded, json.loads(request.read()))
            if difference:
                raise CassetteMismatch(
                    f"Interaction {self.position + 1} of {total}: the live request differs from the recording: "
                    f"{difference}. The run has left the recorded route."
                )
        self.position += 1
        return httpx.Response(200, json=interaction["response"])


class RecordingTransport(httpx.BaseTransport):
    """Passes requests to a real transport and keeps each exchange. Headers are never kept."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self.inner = inner or httpx.HTTPTransport()
        self.interactions: list[dict[str, Any]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        secret = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        response = self.inner.handle_request(request)
        response.read()
        if response.status_code == 200:
            try:
                exchange = {"request": json.loads(request.content), "response": response.json()}
            except ValueError:
                return response
            text = json.dumps(exchange, ensure_ascii=False)
            if secret:
                text = text.replace(secret, "[API key]")
            self.interactions.append(json.loads(text))
        return response

    def cassette(self, description: str = "", source: Source = "recorded") -> Cassette:
        return Cassette(list(self.interactions), source, description)

    def close(self) -> None:
        self.inner.close()
