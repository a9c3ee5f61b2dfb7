"""What the server tests share: the fixtures, a transport that serves them, a real local HTTP server."""

from __future__ import annotations

import json
import os
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from reactlab import DeepSeekClient
from reactlab.core.tools.base import BaseTool

SHAPES = Path(__file__).parent / "shapes"
Raised = TypeVar("Raised", bound=BaseException)
TASK_MESSAGES = [{"role": "system", "content": "Use the tools."}, {"role": "user", "content": "Take a note."}]


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SHAPES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def shape_names() -> list[str]:
    """The fixtures of valid answer shapes: those that hold a run's ``answers`` (the others hold cases)."""
    return sorted(p.stem for p in SHAPES.glob("*.json") if "answers" in load(p.stem))


class TickTool(BaseTool):
    """A tool without arguments: counts how often it ran."""

    name = "tick"
    description = "Count one tick."

    def __init__(self) -> None:
        self.ticks = 0

    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}, "additionalProperties": False}

    def run(self) -> dict[str, Any]:  # type: ignore[override]
        self.ticks += 1
        return {"ok": True, "ticks": self.ticks}


class Served(httpx.BaseTransport):
    """Answers each request with the next fixture body, exactly as written (plus any prefix)."""

    def __init__(self, answers: list[Any], prefix: str = "") -> None:
        self.answers = answers
        self.prefix = prefix
        self.requests: list[dict[str, Any]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.read()))
        body = self.prefix + json.dumps(self.answers[len(self.requests) - 1], ensure_ascii=False)
        return httpx.Response(200, headers={"content-type": "application/json"}, content=body.encode())


def served_client(fixture: dict[str, Any], **kwargs: Any) -> tuple[DeepSeekClient, Served]:
    transport = Served(fixture["answers"], fixture.get("body_prefix", ""))
    kwargs.setdefault("api_key", "")
    client = DeepSeekClient(base_url=fixture["base_url"], model=fixture.get("model"), transport=transport, **kwargs)
    return client, transport


def served_case(case: dict[str, Any], *answers: Any, **kwargs: Any) -> tuple[DeepSeekClient, Served]:
    """A client whose server first answers with a shape file's ``case`` (its message and finish_reason,
    an id of its own), then with ``answers``."""
    body = completion(deepcopy(case["message"]), case["finish_reason"], id_=f"chatcmpl-{len(case['name'])}")
    fixture = {"base_url": case.get("base_url", "http://localhost:8000/v1"), "answers": [body, *answers]}
    return served_client(fixture, **kwargs)


def error_from(client: DeepSeekClient, kind: type[Raised], tools: list[dict[str, Any]]) -> Raised:
    """The error of type ``kind`` that one request with ``tools`` ends in (the test fails on any other end)."""
    with pytest.raises(kind) as caught:
        client.send(TASK_MESSAGES, tools)
    return caught.value


def live_run(base_url: str, model: str, project: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``python -m reactlab run --live --json --discard`` on ``project`` against ``base_url``, with this
    process's environment (and the keys in it)."""
    env = os.environ | {"REACTLAB_BASE_URL": base_url, "REACTLAB_MODEL": model}
    task = ["--project", str(project), "--task", "Read the notes, then answer.", "--live", "--json", "--discard"]
    command = [sys.executable, "-m", "reactlab", "run", *task, *options]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def completion(message: dict[str, Any], finish_reason: str | None, id_: str = "chatcmpl-q") -> dict[str, Any]:
    return {
        "id": id_,
        "object": "chat.completion",
        "created": 1796000900,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }


@dataclass
class Arrival:
    """One request as it arrived on the socket."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class LocalServer:
    """A real HTTP server on 127.0.0.1 (or on a unix socket), in a thread. ``respond`` writes each
    answer on the socket."""

    respond: Callable[[BaseHTTPRequestHandler], None]
    arrivals: list[Arrival] = field(default_factory=list)
    port: int = 0
    unix_socket: Path | None = None

    @property
    def base_url(self) -> str:
        return f"unix:{self.unix_socket}:/v1" if self.unix_socket else f"http://127.0.0.1:{self.port}/v1"


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


NOTED = completion({"role": "assistant", "content": "Noted."}, "stop", id_="chatcmpl-final")
"""The final answer a run ends with once the note is taken."""


def answer_json(body: dict[str, Any]) -> Callable[[BaseHTTPRequestHandler], None]:
    data = json.dumps(body).encode()

    def respond(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return respond


def trickle(interval: float, lasting: float, then: bytes = b"") -> Callable[[BaseHTTPRequestHandler], None]:
    """Headers at once, then one blank line every ``interval`` s for ``lasting`` s, then ``then``."""

    def respond(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()  # no Content-Length: the body ends when the connection closes
        handler.wfile.flush()
        stop = time.monotonic() + lasting
        try:
            while time.monotonic() < stop:
                handler.wfile.write(b"\n")
                handler.wfile.flush()
                time.sleep(interval)
            handler.wfile.write(then)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: that is what the deadline test wants

    return respond


@contextmanager
def local_server(
    respond: Callable[[BaseHTTPRequestHandler], None], unix_socket: Path | None = None
) -> Iterator[LocalServer]:
    server = LocalServer(respond, unix_socket=unix_socket)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the name http.server looks for)
            length = int(self.headers.get("Content-Length", "0"))
            server.arrivals.append(Arrival(self.path, dict(self.headers.items()), self.rfile.read(length)))
            server.respond(self)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    http: socketserver.BaseServer
    if unix_socket is not None:
        http = _UnixHTTPServer(str(unix_socket), Handler)
    else:
        http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        http.daemon_threads = True
        server.port = http.server_address[1]
    thread = threading.Thread(target=http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        http.shutdown()
        http.server_close()
