"""Server mistakes end in an error that says what to fix, and keeps what the user needs to act."""

from __future__ import annotations

import json

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, errors

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, load

MISTAKES = {m["name"]: m for m in load("mistakes")["mistakes"]}
NOTE = NoteTool().definition()


def server_making(mistake) -> httpx.MockTransport:
    content = json.dumps(mistake["json"]).encode() if "json" in mistake else mistake["text"].encode()
    headers = {"content-type": "application/json", **mistake.get("headers", {})}
    return httpx.MockTransport(lambda request: httpx.Response(mistake["status"], headers=headers, content=content))


def client_for(mistake, transport=None) -> DeepSeekClient:
    return DeepSeekClient(
        api_key=mistake.get("api_key", ""),
        base_url=mistake["base_url"],
        model=mistake.get("model"),
        transport=transport or server_making(mistake),
    )


@pytest.mark.parametrize("name", MISTAKES)
def test_each_mistake_says_what_to_fix(name):
    mistake = MISTAKES[name]
    with pytest.raises(errors.APIError) as caught:
        client_for(mistake).send(TASK_MESSAGES, [NOTE])
    error = caught.value
    assert type(error).__name__ == mistake["error"]
    for words in mistake["says"]:
        assert words in str(error)
    for words in mistake.get("never_says", []):  # no generic advice in place of the server's own words
        assert words not in str(error)
    assert error.retryable is mistake.get("retryable", False)
    assert error.request is not None and error.request["messages"] == TASK_MESSAGES
    for fact in ("retry_after", "request_id"):
        assert getattr(error, fact) == mistake.get(fact)
    assert (error.provider_code, error.provider_type) == (mistake.get("code"), mistake.get("type"))
    details = json.loads(json.dumps(error.details))  # plain JSON, ready for a run record
    assert details["type"] == mistake["error"] and details["status"] == error.status


@pytest.mark.parametrize("name", [n for n, m in MISTAKES.items() if m["status"] != 200])
def test_the_error_body_is_kept(name):
    mistake = MISTAKES[name]
    with pytest.raises(errors.APIError) as caught:
        client_for(mistake).send(TASK_MESSAGES, [NOTE])
    sent = json.dumps(mistake["json"]) if "json" in mistake else mistake["text"]
    assert caught.value.body == sent and caught.value.details["body"] == sent
    assert caught.value.response is None  # the record's response is a chat.completion or nothing


@pytest.mark.parametrize("name", MISTAKES)
def test_the_agent_ends_with_the_same_error_and_keeps_the_record(name):
    mistake = MISTAKES[name]
    agent = Agent(client_for(mistake), [NoteTool()])
    with pytest.raises(errors.APIError) as caught:
        agent.run("Take a note.")
    record = caught.value.record
    assert record.stop_reason == caught.value.stop_reason and record.error == str(caught.value)
    assert len(record.model_calls) == 1 and record.model_calls[0].request["messages"][:2] == agent.record.messages[:2]


def test_a_not_found_route_under_v1_does_not_say_add_v1():
    mistake = dict(MISTAKES["vLLM without /v1"], base_url="http://localhost:8000/v1")
    with pytest.raises(errors.EndpointNotFound) as caught:
        client_for(mistake).send(TASK_MESSAGES, [NOTE])
    assert "Add /v1" not in str(caught.value) and "Check base_url" in str(caught.value)


def test_a_retry_after_date_becomes_seconds():
    mistake = dict(MISTAKES["rate limited with Retry-After"], headers={"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"})
    with pytest.raises(errors.RateLimited) as caught:
        client_for(mistake).send(TASK_MESSAGES, [NOTE])
    assert caught.value.retry_after is not None and caught.value.retry_after > 1e9


@pytest.mark.parametrize("value", ["soon", "", "-5x", "1e999999"])
def test_a_bad_retry_after_is_dropped_not_fatal(value):
    mistake = dict(MISTAKES["rate limited with Retry-After"], headers={"retry-after": value})
    with pytest.raises(errors.RateLimited) as caught:
        client_for(mistake).send(TASK_MESSAGES, [NOTE])
    assert caught.value.retry_after is None


def test_a_hostile_request_id_is_bounded_and_printable():
    mistake = dict(
        MISTAKES["rate limited with Retry-After"], headers={"x-request-id": "id\x1b]52;c;AAAA\x07" + "z" * 500}
    )
    with pytest.raises(errors.RateLimited) as caught:
        client_for(mistake).send(TASK_MESSAGES, [NOTE])
    request_id = caught.value.request_id
    assert request_id is not None and len(request_id) <= 100 and all(32 < ord(c) < 127 for c in request_id)


def test_a_streamed_answer_is_not_read_to_its_end():
    class Endless(httpx.SyncByteStream):
        def __init__(self):
            self.sent = 0

        def __iter__(self):
            while True:
                self.sent += 1
                yield b"data: {}\n\n"

    stream = Endless()
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)
    )
    with pytest.raises(errors.StreamedAnswer):
        client_for(MISTAKES["streamed answer to stream false"], transport).send(TASK_MESSAGES, [NOTE])
    assert stream.sent == 0
