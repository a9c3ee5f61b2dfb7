"""API faults at the transport, through the whole agent: a typed error, a useful message, the record kept."""

from __future__ import annotations

import socket

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, Script, errors

from .helpers import NoteTool


class CutOff(httpx.SyncByteStream):
    """A body that stops half-way, as when the connection drops mid-response."""

    def __iter__(self):
        yield b'{"id": "x", "choices": [{"index": 0, "mess'
        raise httpx.ReadError("connection reset by peer")


def _status(code: int):
    return lambda request: httpx.Response(code, json={"error": {"message": f"status {code}"}})


def _raise(exc: Exception):
    def handler(request):
        raise exc

    return handler


def _body(content: bytes):
    return lambda request: httpx.Response(200, content=content)


def _completion(finish_reason):
    return lambda request: httpx.Response(
        200,
        json={
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": finish_reason}]
        },
    )


FAULTS = {
    "204": (_status(204), errors.UnexpectedStatus),
    "302": (_status(302), errors.UnexpectedStatus),
    "400": (_status(400), errors.BadRequest),
    "401": (_status(401), errors.AuthenticationFailed),
    "402": (_status(402), errors.InsufficientBalance),
    "403": (_status(403), errors.UnexpectedStatus),
    "404": (_status(404), errors.UnexpectedStatus),
    "422": (_status(422), errors.BadRequest),
    "429": (_status(429), errors.RateLimited),
    "500": (_status(500), errors.ServerError),
    "502": (_status(502), errors.ServerError),
    "503": (_status(503), errors.ServerError),
    "504": (_status(504), errors.ServerError),
    "connect timeout": (_raise(httpx.ConnectTimeout("slow")), errors.APITimeout),
    "read timeout": (_raise(httpx.ReadTimeout("slow")), errors.APITimeout),
    "write timeout": (_raise(httpx.WriteTimeout("slow")), errors.APITimeout),
    "pool timeout": (_raise(httpx.PoolTimeout("busy")), errors.APITimeout),
    "connect error": (_raise(httpx.ConnectError("refused")), errors.APIConnectionError),
    "protocol error": (_raise(httpx.RemoteProtocolError("garbage")), errors.APIConnectionError),
    "cut-off body": (lambda r: httpx.Response(200, stream=CutOff()), errors.APIConnectionError),
    "truncated JSON": (_body(b'{"choices": [{"index": 0, "message": {"role": '), errors.UndecodableBody),
    "HTML instead of JSON": (_body(b"<html><body>502 Bad Gateway</body></html>"), errors.MalformedResponse),
    "empty body": (_body(b""), errors.MalformedResponse),
    "JSON list": (_body(b"[1, 2, 3]"), errors.MalformedResponse),
    "no choices": (_body(b'{"id": "x", "object": "chat.completion"}'), errors.MalformedResponse),
    "empty choices": (_body(b'{"choices": []}'), errors.MalformedResponse),
    "unknown finish_reason": (_completion("paused"), errors.MalformedResponse),
    "legacy function_call": (_completion("function_call"), errors.RepairableAnswer),
    "length": (_completion("length"), errors.TruncatedAnswer),
    "content_filter": (_completion("content_filter"), errors.ContentFiltered),
    "insufficient_system_resource": (_completion("insufficient_system_resource"), errors.ResourcesExhausted),
}


def agent_failing_on_second_call(handler) -> tuple[Agent, NoteTool]:
    script = Script().tool_call("note", text="before the fault")
    transport = script.transport()

    def route(request: httpx.Request) -> httpx.Response:
        if transport.position < len(script):
            return transport.handle_request(request)
        return handler(request)

    tool = NoteTool()
    return Agent(DeepSeekClient(api_key="", transport=httpx.MockTransport(route)), [tool]), tool


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_typed_and_the_record_is_kept(fault):
    handler, kind = FAULTS[fault]
    agent, tool = agent_failing_on_second_call(handler)
    with pytest.raises(kind) as caught:
        agent.run("take a note")
    error = caught.value
    assert type(error) is kind
    assert len(str(error)) > 40 and ("Retrying later may help." in str(error)) is error.retryable
    record = error.record
    assert record is agent.record and record.stop_reason == kind.stop_reason and record.error == str(error)
    assert tool.notes == ["before the fault"] and len(record.tool_executions) == 1
    assert len(record.model_calls) == 2 and record.model_calls[1].request["messages"] == record.messages
    assert [m["role"] for m in record.messages] == ["system", "user", "assistant", "tool"]


def test_connection_refused_for_real():
    with socket.socket() as probe:  # a port that was free a moment ago and has no listener now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    agent = Agent(DeepSeekClient(api_key="", base_url=f"http://127.0.0.1:{port}", timeout=5), [NoteTool()])
    with pytest.raises(errors.APIConnectionError, match="Connection refused") as caught:
        agent.run("anything")
    assert caught.value.record.stop_reason == "api_connection_error"
    assert caught.value.record.model_calls[0].response is None
