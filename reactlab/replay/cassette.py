"""Cassettes: model responses saved as JSON and replayed at the httpx transport.

A cassette is ``{"format": "reactlab.cassette/1", "source": "recorded" | "scripted",
"description": "...", "interactions": [{"request": {...}, "response": {...}}]}``. ``response`` is a
full chat.completion body; ``request`` (the body that was sent) is optional. When it is present,
replay checks that the live request has the same structure. A cassette comes from outside: ``load``
and ``from_dict`` check every part of it against ``cassette.schema.json`` before anything replays.

The requests also hold what the tools returned: each call in response *k* is answered by a ``tool``
message in request *k + 1*. Where bash cannot be sandboxed, it replays those observations instead of
running anything (``tools/replayed.py``: the transport announces each answer it serves).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import httpx

from ..core.client import DeepSeekClient
from ..core.errors import CassetteError, CassetteExhausted, CassetteMismatch
from ..core.json_text import MAX_DEPTH, UnusableJSON, find_unusable, read_json, write_json
from ..core.language import say
from ..core.tools.replayed import serving
from ..core.tools.schema import Problem, Schema

__all__ = [
    "Cassette",
    "FORMAT",
    "MAX_BYTES",
    "MAX_DEPTH",
    "OBSERVATION_LIMIT",
    "RecordedCall",
    "RecordingTransport",
    "ReplayTransport",
    "SCHEMA",
    "request_structure",
]

FORMAT = "reactlab.cassette/1"
SCHEMA = Path(__file__).with_name("cassette.schema.json")
"""The format as a JSON Schema: ``load`` and ``from_dict`` check every cassette against it."""
MAX_BYTES = 64 * 2**20
"""A cassette of the default limits is a few megabytes: each request holds the history so far."""
OBSERVATION_LIMIT = 100_000  # characters of one recorded tool message; a real bash result is far smaller
Source = Literal["recorded", "scripted"]


@dataclass(frozen=True)
class RecordedCall:
    """A tool call in a recorded answer, and what the recording says the tool returned."""

    interaction: int
    """The number (from 1) of the interaction whose response asked for the call."""
    call_id: str
    name: str
    arguments: str
    observation: str | None
    """The content of the ``tool`` message answering it in the next request; None if not recorded."""

    def result(self, lang: str | None) -> dict[str, Any] | str:
        """The recorded observation as a result object, or what is wrong with it (in ``lang``)."""
        text = self.observation
        call = say(
            "call {call_id} of interaction {interaction}",
            lang=lang,
            call_id=repr(self.call_id[:80]),
            interaction=self.interaction,
        )
        if text is None:
            return say(
                "it holds no observation for {call} (no tool message for it in the next request)", lang=lang, call=call
            )
        if len(text) > OBSERVATION_LIMIT:
            return say(
                "the observation recorded for {call} is {length} characters, over {limit}",
                lang=lang,
                call=call,
                length=len(text),
                limit=OBSERVATION_LIMIT,
            )
        try:
            observation = read_json(text)
        except ValueError:
            observation = None
        if not isinstance(observation, dict):
            return say("the observation recorded for {call} is not a JSON object", lang=lang, call=call)
        return observation


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
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n"
        path.write_bytes(text.encode("utf-8", "backslashreplace"))  # a lone "\ud800" kept as JSON writes it
        return path

    @classmethod
    def load(cls, path: str | Path) -> Cassette:
        """Read and check a cassette file: at most ``MAX_BYTES``, JSON as ``json_text.read_json`` reads
        it (nested at most ``MAX_DEPTH`` deep, no NaN, no key twice ...), and in the shape of
        ``cassette.schema.json``. Anything else is a ``CassetteError`` that says where."""
        try:
            with open(path, "rb") as file:
                raw = file.read(MAX_BYTES + 1)
            if len(raw) > MAX_BYTES:
                raise CassetteError(f"Cannot read cassette {path}: it is over {MAX_BYTES // 2**20} MiB.")
            data = read_json(raw.decode("utf-8"))
        except UnusableJSON as exc:
            raise CassetteError(f"Cannot read cassette {path}: {_where(exc.where)}{exc}.") from None
        except (OSError, ValueError) as exc:
            raise CassetteError(f"Cannot read cassette {path}: {exc}") from None
        return cls.from_dict(data, origin=str(path))

    @classmethod
    def from_dict(cls, data: Any, origin: str = "cassette") -> Cassette:
        """A cassette from its parsed JSON, checked against ``cassette.schema.json``: a problem is a
        ``CassetteError`` naming the interaction (from 1) and the field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CassetteError(f"{origin}: not a {FORMAT} cassette (missing or wrong 'format').")
        unusable = find_unusable(data, MAX_DEPTH)
        if unusable is not None:
            raise CassetteError(f"{origin}: {_where(unusable.where)}{unusable}.")
        problem = _first_problem(data)
        if problem is not None:
            raise CassetteError(f"{origin}: {_where(problem.path)}{_what(problem)}.")
        return cls(data["interactions"], data["source"], data.get("description", ""))

    def client(self, **kwargs: Any) -> DeepSeekClient:
        """A DeepSeekClient that replays this cassette instead of going to the network."""
        kwargs.setdefault("api_key", "")
        return DeepSeekClient(transport=ReplayTransport(self), **kwargs)

    def recorded_calls(self) -> list[RecordedCall]:
        """Every tool call the recorded answers asked for, in order, each with its recorded observation."""
        found = []
        for number, interaction in enumerate(self.interactions, 1):
            following = self.interactions[number].get("request") if number < len(self.interactions) else None
            answers = _tool_messages(following)
            for call in _tool_calls(interaction["response"]):
                found.append(RecordedCall(number, call[0], call[1], call[2], answers.get(call[0])))
        return found

    def missing_observations(self) -> list[str]:
        """One line for each recorded call whose observation this cassette does not hold."""
        return [
            f"interaction {c.interaction}: {c.name} call {c.call_id[:80]!r} (no tool message for it in request "
            f"{c.interaction + 1})"
            for c in self.recorded_calls()
            if c.observation is None
        ]


@cache
def _schema() -> Schema:
    return Schema(json.loads(SCHEMA.read_text(encoding="utf-8")))


def _first_problem(data: dict[str, Any]) -> Problem | None:
    """The first problem in the order the file is written: in the earliest interaction, its request
    before its response. The check stops there."""
    return next(_schema().problems(data), None)


_KINDS = {"array": "a list", "object": "an object", "string": "a string", "integer": "an integer",
          "number": "a number", "boolean": "true or false", "null": "null"}  # fmt: skip
_KIND_OF = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number",
            type(None): "null"}  # fmt: skip


def _where(at: Sequence[str | int]) -> str:
    """ "interaction 3: response.choices[0].message: " for a problem inside interaction 3 (from 1)."""
    path = list(at)
    interaction = ""
    if len(path) >= 2 and path[0] == "interactions" and isinstance(path[1], int):
        interaction, path = f"interaction {path[1] + 1}: ", path[2:]
    field = "".join(f"[{step}]" if isinstance(step, int) else f".{_clip(str(step), 40)}" for step in path)
    return f"{interaction}{field.lstrip('.')}: " if field else interaction


def _what(problem: Problem) -> str:
    """The problem in a few words; never the whole value, which may be megabytes."""
    rule, instance, value = problem.keyword, problem.value, problem.wanted
    if rule == "type":
        wanted = value if isinstance(value, list) else [value]
        found = _KINDS[_KIND_OF[type(instance)]]  # parsed JSON holds no other type
        return f"must be {' or '.join(_KINDS[kind] for kind in wanted)}, not {found}"
    if rule == "required":
        missing = next(name for name in value if name not in instance)
        return f"{_clip(repr(missing), 60)} is missing"
    if rule == "additionalProperties":
        extra = next(name for name in instance if name not in problem.schema.get("properties", {}))
        return f"unexpected key {_clip(repr(extra), 60)}"
    if rule in ("enum", "const"):
        allowed = value if rule == "enum" else [value]
        return f"must be {' or '.join(map(repr, allowed))}, not {_clip(repr(instance), 60)}"
    if rule == "minimum":
        return f"must be at least {value}, not {_clip(repr(instance), 60)}"
    if rule == "minItems":
        return f"must hold at least {value} item(s)"
    return f"breaks the format's {rule!r} rule"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _tool_calls(response: Any) -> list[tuple[str, str, str]]:
    """(id, name, arguments) of each well-formed call in a recorded response; the rest is skipped."""
    try:
        calls = response["choices"][0]["message"].get("tool_calls") or []
    except (KeyError, IndexError, TypeError, AttributeError):
        return []
    found = []
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and all(
            isinstance(v, str) for v in (call.get("id"), function.get("name"), function.get("arguments"))
        ):
            found.append((call["id"], function["name"], function["arguments"]))
    return found


def _tool_messages(request: Any) -> dict[str, str]:
    """tool_call_id -> content of each ``tool`` message in a recorded request."""
    messages = request.get("messages") if isinstance(request, dict) else None
    found = {}
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict) and message.get("role") == "tool":
            call_id, content = message.get("tool_call_id"), message.get("content")
            if isinstance(call_id, str) and isinstance(content, str):
                found[call_id] = content
    return found


@dataclass
class _Served:
    """An answer a ReplayTransport serves (``tools.replayed``: bash without a sandbox reads it), and
    which of its calls were handed out."""

    cassette: Cassette
    interaction: int
    replayed: set[str] = field(default_factory=set)

    def recorded_result(self, name: str, arguments: dict[str, Any], lang: str | None) -> dict[str, Any] | str | None:
        """What this answer's call ``name(arguments)`` returned, why it cannot be had, or None if
        there is no such call. Each call is handed out once, in order, matched by its arguments; its id
        leads to the observation in the next recorded request."""
        for call in self.cassette.recorded_calls():
            if call.interaction != self.interaction or call.name != name or call.call_id in self.replayed:
                continue
            try:
                matches = read_json(call.arguments) == arguments
            except ValueError:
                matches = False
            if matches:
                self.replayed.add(call.call_id)
                return call.result(lang)
        return None


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
    """How the live request leaves the recorded one, in the run's language; None if it does not."""
    want, got = request_structure(recorded), request_structure(live)
    if want["tools"] != got["tools"]:
        return say("tools offered differ: recorded {recorded}, live {live}", recorded=want["tools"], live=got["tools"])
    for index, (a, b) in enumerate(zip(want["messages"], got["messages"], strict=False)):
        for key in ("role", "tool_call_id", "tool_calls"):
            if a.get(key) != b.get(key):
                return say(
                    "messages[{index}].{key}: recorded {recorded!r}, live {live!r}",
                    index=index,
                    key=key,
                    recorded=a.get(key),
                    live=b.get(key),
                )
    if len(want["messages"]) != len(got["messages"]):
        return say(
            "recorded {recorded} messages, live {live}", recorded=len(want["messages"]), live=len(got["messages"])
        )
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
                say(
                    "The cassette has {total} interactions and the agent asked for number {number}. "
                    "The run went further than the recording: record a new cassette or use a script.",
                    total=total,
                    number=self.position + 1,
                )
            )
        interaction = self.cassette.interactions[self.position]
        recorded = interaction.get("request")
        if recorded is not None:
            live = json.loads(request.read())
            if "functions" in recorded and "functions" not in live:  # GigaChat's: see legacy_functions.py
                raise CassetteMismatch(
                    say(
                        "Interaction {number} of {total} was recorded in the legacy functions dialect (functions, "
                        "function_call, role 'function': GigaChat's own API), and this client sends tools. Replay it "
                        'the way it was recorded: cassette.client(provider="gigachat", repair=True), or reactlab '
                        "run --cassette ... --repair --base-url https://gigachat.devices.sberbank.ru/api/v1.",
                        number=self.position + 1,
                        total=total,
                    )
                )
            difference = _difference(recorded, live)
            if difference:
                raise CassetteMismatch(
                    say(
                        "Interaction {number} of {total}: the live request differs from the recording: {difference}. "
                        "The run has left the recorded route.",
                        number=self.position + 1,
                        total=total,
                        difference=difference,
                    )
                )
        self.position += 1
        serving(_Served(self.cassette, self.position))
        return httpx.Response(200, json=interaction["response"])


class RecordingTransport(httpx.BaseTransport):
    """Passes requests to a real transport and keeps each chat-completions exchange; any other request
    (GigaChat's token exchange, whose answer is a token) passes untouched and unkept. Headers are never kept."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self.inner = inner or httpx.HTTPTransport()
        self.interactions: list[dict[str, Any]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/chat/completions"):
            return self.inner.handle_request(request)
        secret = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        secret = secret or request.headers.get("api-key", "").strip()  # Azure's header
        response = self.inner.handle_request(request)
        response.read()
        if response.status_code == 200:
            try:  # read as the client reads it: a body it refuses is not kept (the run ends there)
                answer = read_json(response.content.decode("utf-8", errors="replace"))
                text = write_json({"request": json.loads(request.content), "response": answer})
            except ValueError:
                return response
            if secret:
                text = text.replace(secret, "[API key]")
            self.interactions.append(json.loads(text))
        return response

    def cassette(self, description: str = "", source: Source = "recorded") -> Cassette:
        return Cassette(list(self.interactions), source, description)

    def close(self) -> None:
        self.inner.close()
