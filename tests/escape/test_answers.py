"""Attacks by what a server sends: every answer ends in a completion or a typed reactlab error.

A server (a hostile one, a misconfigured proxy) decides every byte of its answer, its headers too.
HTTP lets a header hold bytes past 127 (obs-text), and httpx hands them on as text; read back as
ASCII, they ended send() with a bare UnicodeEncodeError, which no caller expects (the agent's run
then kept no typed error). A finish_reason that was a list or an object ended it with a TypeError;
a tool call whose ``function`` was no object stopped the run rightly, but drawing it then failed.
Real sockets here: the headers are what matters, as they come off the wire. (A cassette is checked
against its schema when loaded: a finish_reason that is a list is refused there, naming the field.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, errors
from reactlab.cli import route
from reactlab.widgets import RunViewer

from ..helpers import NoteTool
from ..servers.serving import TASK_MESSAGES, completion, local_server

DONE = json.dumps(completion({"role": "assistant", "content": "Done."}, "stop")).encode()
ERROR = b'{"error": {"message": "refused"}}'


def raw_answer(status: str, headers: list[bytes], body: bytes) -> Callable[[BaseHTTPRequestHandler], None]:
    """An answer written byte for byte: the status line, ``headers``, then ``body``."""

    def respond(handler: BaseHTTPRequestHandler) -> None:
        lines = [f"HTTP/1.1 {status}".encode(), *headers, b"Content-Length: %d" % len(body), b"Connection: close"]
        handler.wfile.write(b"\r\n".join(lines) + b"\r\n\r\n" + body)
        handler.close_connection = True

    return respond


# (status line, headers, body, the error expected: None for the completion)
HEADERS_PAST_ASCII = {
    "an-error-page-in-a-charset-of-latin-1": ("400 Bad Request", [b"Content-Type: text/plain; charset=\xe9"], ERROR),
    "an-error-page-whose-type-is-one-byte": ("500 Oops", [b"Content-Type: \xff"], ERROR),
    "a-type-in-utf-8": ("503 Busy", ["Content-Type: application/json; charset=утф".encode()], ERROR),
    "an-encoding-past-ascii": ("200 OK", [b"Content-Type: application/json", b"Content-Encoding: gzip\xe9"], DONE),
    "an-error-in-an-encoding-past-ascii": ("429 Slow", [b"Content-Encoding: \xfe\xff", b"Retry-After: \xe9"], ERROR),
    "a-request-id-and-a-wait-past-ascii": (
        "429 Slow",
        [b"Content-Type: application/json", b"x-request-id: \xe9\x80", b"retry-after-ms: \xb9"],
        ERROR,
    ),
}


@pytest.mark.parametrize(("status", "headers", "body"), HEADERS_PAST_ASCII.values(), ids=HEADERS_PAST_ASCII.keys())
def test_header_bytes_past_ascii_end_in_a_typed_error_or_the_answer(status, headers, body):
    with local_server(raw_answer(status, headers, body)) as server:
        client = DeepSeekClient(base_url=server.base_url, model="m", api_key="")
        try:
            answer = client.send(TASK_MESSAGES, [])
        except errors.ReactlabError as error:
            assert not status.startswith("200"), error
            assert error.status == int(status.split()[0]) and "refused" in str(error), error
        else:
            assert status.startswith("200") and answer.message["content"] == "Done."


@pytest.mark.parametrize("reason", [[], ["stop"], {"type": "stop"}, 1, True, 1.5], ids=repr)
def test_a_finish_reason_of_any_json_type_ends_in_a_typed_error(reason):
    """A finish_reason that is a list or an object was looked up in a set: a bare TypeError."""
    answer = completion({"role": "assistant", "content": "Done."}, reason)
    body = json.dumps(answer).encode()
    with local_server(raw_answer("200 OK", [b"Content-Type: application/json"], body)) as server:
        client = DeepSeekClient(base_url=server.base_url, model="m", api_key="")
        with pytest.raises(errors.MalformedResponse, match="finish_reason"):
            client.send(TASK_MESSAGES, [])


@pytest.mark.parametrize("function", [1.0, "note", [{"name": "note"}], True], ids=repr)
def test_a_failed_run_whose_answer_holds_any_tool_call_is_still_drawn(function):
    """The run stops on an answer whose tool call's ``function`` is no object; drawing that run (the
    viewer's schemes, the CLI's route) read the call's name from it and ended in an AttributeError."""
    call = {"id": "c1", "type": "function", "function": function}
    answer = completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=answer))
    agent = Agent(DeepSeekClient(base_url="http://127.0.0.1:9/v1", api_key="", transport=transport), [NoteTool()])
    with pytest.raises(errors.ReactlabError):
        agent.run("Take a note.")
    assert "?" in RunViewer(agent.record).static_html() and route(agent.record)
