from __future__ import annotations

import json

import httpx
import pytest

from reactlab import DeepSeekClient, errors
from reactlab.core.prompts import SYSTEM_RU

ARTICLE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Прочитать один файл учебного проекта. Путь от корня проекта.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "enum": ["shop/delivery.py", "shop/settings.json", "tests/test_delivery.py"],
                }
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}
MESSAGES = [
    {"role": "system", "content": SYSTEM_RU},
    {"role": "user", "content": "Найди причину падения теста, исправь реализацию и проверь результат тестами."},
]


def completion(message: dict, finish_reason: str | None = "stop") -> dict:
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "deepseek-flash",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }


def client_answering(handler, **kwargs) -> DeepSeekClient:
    return DeepSeekClient(transport=httpx.MockTransport(handler), **kwargs)


def test_first_request_is_the_articles(fake_key):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=completion({"role": "assistant", "content": "hi"}))

    message = client_answering(handler).complete(MESSAGES, [ARTICLE_TOOL])
    assert message == {"role": "assistant", "content": "hi"}
    (request,) = seen
    assert request.method == "POST"
    assert str(request.url) == "https://api.deepseek.com/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {fake_key}"
    assert request.headers["Content-Type"] == "application/json"
    body = json.loads(request.content)
    assert body == {
        "model": "deepseek-flash",
        "messages": MESSAGES,
        "tools": [ARTICLE_TOOL],
        "thinking": {"type": "disabled"},
        "tool_choice": "auto",
        "temperature": 0,
        "max_tokens": 800,
        "stream": False,
    }
    assert list(body) == [
        "model",
        "messages",
        "tools",
        "thinking",
        "tool_choice",
        "temperature",
        "max_tokens",
        "stream",
    ]
    assert fake_key not in request.content.decode()


def test_tool_choice_required_is_sent_only_when_asked_for(fake_key):
    bodies: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=completion({"role": "assistant", "content": "hi"}))

    client_answering(handler, tool_choice="required").complete(MESSAGES, [ARTICLE_TOOL])
    client_answering(handler, tool_choice="required").complete(MESSAGES, [])
    assert bodies[0]["tool_choice"] == "required"
    assert list(bodies[0]) == list(DeepSeekClient().request_body(MESSAGES, [ARTICLE_TOOL]))  # only the value differs
    assert "tool_choice" not in bodies[1]  # no tools, no tool_choice, as with "auto"


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ({"tool_choice": "none"}, 'tool_choice must be "auto" or "required", not \'none\''),
        ({"tool_choice": "required", "thinking": True}, 'DeepSeek refuses tool_choice "required" in thinking mode'),
    ],
)
def test_tool_choice_refuses_what_the_server_would_refuse(options, refusal):
    with pytest.raises(ValueError) as refused:
        DeepSeekClient(api_key="", **options)
    assert str(refused.value).startswith(refusal)


def test_explicit_key_wins_and_no_key_sends_no_header(fake_key):
    headers: list[httpx.Headers] = []

    def handler(request: httpx.Request) -> httpx.Response:
        headers.append(request.headers)
        return httpx.Response(200, json=completion({"role": "assistant", "content": "ok"}))

    client_answering(handler, api_key="sk-other").complete(MESSAGES, [])
    client_answering(handler, api_key="").complete(MESSAGES, [])
    assert headers[0]["Authorization"] == "Bearer sk-other"
    assert "Authorization" not in headers[1]


@pytest.mark.parametrize(
    "base_url, url, thinking",
    [
        ("https://api.deepseek.com/v1", "https://api.deepseek.com/v1/chat/completions", True),
        ("http://localhost:11434/v1/", "http://localhost:11434/v1/chat/completions", False),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/chat/completions", False),
    ],
)
def test_base_url_and_thinking_only_for_deepseek(base_url, url, thinking):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=completion({"role": "assistant", "content": "ok"}))

    client_answering(handler, base_url=base_url, model="qwen3", api_key="").complete(MESSAGES, [])
    body = json.loads(seen[0].content)
    assert str(seen[0].url) == url
    assert body["model"] == "qwen3"
    assert ("thinking" in body) is thinking


def _status(status: int, message: str = "boom"):
    return lambda request: httpx.Response(status, json={"error": {"message": message, "type": "x"}})


def _raise(exc: Exception):
    def handler(request):
        raise exc

    return handler


FAILURES = [
    (_raise(httpx.ConnectError("connection refused")), errors.APIConnectionError, True, "Could not reach"),
    (_raise(httpx.ReadTimeout("timed out")), errors.APITimeout, True, "within 60 s"),
    (_status(400), errors.BadRequest, False, "(400)"),
    (_status(422), errors.BadRequest, False, "(422)"),
    (_status(401), errors.AuthenticationFailed, False, "DEEPSEEK_API_KEY"),
    (_status(402), errors.InsufficientBalance, False, "Top up"),
    (_status(429), errors.RateLimited, True, "Wait"),
    (_status(500), errors.ServerError, True, "(500)"),
    (_status(503), errors.ServerError, True, "(503)"),
    (_status(404), errors.UnexpectedStatus, False, "answered 404: boom"),  # the status alone names no cause
    (lambda r: httpx.Response(200, content=b"<html>gateway</html>"), errors.MalformedResponse, False, "not JSON"),
    (lambda r: httpx.Response(200, json={"id": "x"}), errors.MalformedResponse, False, "no choices"),
    (lambda r: httpx.Response(200, json={"choices": [{"index": 0}]}), errors.MalformedResponse, False, "message"),
    (
        lambda r: httpx.Response(200, json=completion({"role": "assistant", "content": "The cau"}, "length")),
        errors.TruncatedAnswer,
        False,
        "max_tokens",
    ),
    (
        lambda r: httpx.Response(200, json=completion({"role": "assistant", "content": ""}, "content_filter")),
        errors.ContentFiltered,
        False,
        "content_filter",
    ),
    (
        lambda r: httpx.Response(
            200, json=completion({"role": "assistant", "content": ""}, "insufficient_system_resource")
        ),
        errors.ResourcesExhausted,
        True,
        "capacity",
    ),
    (
        lambda r: httpx.Response(200, json=completion({"role": "assistant", "content": "x"}, "weird")),
        errors.MalformedResponse,
        False,
        "Unknown finish_reason",
    ),
]


@pytest.mark.parametrize("handler, kind, retryable, hint", FAILURES)
def test_each_failure_is_typed_and_says_what_to_do(fake_key, handler, kind, retryable, hint):
    client = client_answering(handler)
    with pytest.raises(kind) as caught:
        client.complete(MESSAGES, [])
    error = caught.value
    assert type(error) is kind
    assert error.retryable is retryable
    assert hint in str(error)
    assert ("Retrying later may help." in str(error)) is retryable
    assert error.request is not None and error.request["messages"] == MESSAGES
    assert fake_key not in str(error) and fake_key not in repr(error)


def test_echoed_key_is_scrubbed_from_error_text(fake_key):
    client = client_answering(_status(401, f"Incorrect API key provided: {fake_key}"))
    with pytest.raises(errors.AuthenticationFailed) as caught:
        client.complete(MESSAGES, [])
    assert fake_key not in str(caught.value)
    assert "[API key]" in str(caught.value)


def test_truncated_answer_keeps_the_body():
    body = completion({"role": "assistant", "content": "The cau"}, "length")
    client = client_answering(lambda r: httpx.Response(200, json=body))
    with pytest.raises(errors.TruncatedAnswer) as caught:
        client.complete(MESSAGES, [])
    assert caught.value.response == body


def test_no_automatic_retry():
    calls = []

    def handler(request):
        calls.append(request)
        return httpx.Response(503, json={"error": {"message": "overloaded"}})

    with pytest.raises(errors.ServerError):
        client_answering(handler).complete(MESSAGES, [])
    assert len(calls) == 1


def test_key_not_in_repr(fake_key):
    client = DeepSeekClient()
    assert fake_key not in repr(client) and fake_key not in str(vars(client))
    assert "api_key=set" in repr(client)


def test_no_tools_sends_neither_tools_nor_tool_choice(fake_key):
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json=completion({"role": "assistant", "content": "hi"}))

    completion_ = client_answering(handler).send(MESSAGES, [])
    assert list(seen[0]) == ["model", "messages", "thinking", "temperature", "max_tokens", "stream"]
    assert completion_.repairs == () and completion_.message == {"role": "assistant", "content": "hi"}


def test_the_401_names_the_key_that_was_used(monkeypatch):
    monkeypatch.setenv("REACTLAB_API_KEY", "sk-local-abc")
    client = DeepSeekClient(base_url="http://localhost:8000/v1", transport=httpx.MockTransport(_status(401)))
    with pytest.raises(errors.AuthenticationFailed, match="Check REACTLAB_API_KEY"):
        client.complete(MESSAGES, [])
    explicit = DeepSeekClient(api_key="sk-x", transport=httpx.MockTransport(_status(401)))
    with pytest.raises(errors.AuthenticationFailed, match="Check the api_key you passed"):
        explicit.complete(MESSAGES, [])


def test_an_echoed_key_is_scrubbed_from_every_fact_kept(fake_key):
    def handler(request):
        return httpx.Response(
            429,
            headers={"x-request-id": fake_key},
            json={"error": {"message": f"slow down {fake_key}", "code": fake_key, "type": fake_key}},
        )

    with pytest.raises(errors.RateLimited) as caught:
        client_answering(handler).complete(MESSAGES, [])
    kept = json.dumps([caught.value.details, str(caught.value)])
    assert fake_key not in kept and "[API key]" in kept


def test_a_200_carrying_some_other_error_is_malformed():
    handler = lambda r: httpx.Response(200, json={"error": {"message": "model is loading"}})  # noqa: E731
    with pytest.raises(errors.MalformedResponse, match="answered 200 with an error.*model is loading"):
        client_answering(handler, api_key="").complete(MESSAGES, [])


def test_an_endless_body_is_cut_off():
    class Endless(httpx.SyncByteStream):
        def __iter__(self):
            while True:
                yield b" " * 65536

    handler = lambda r: httpx.Response(200, stream=Endless())  # noqa: E731
    with pytest.raises(errors.MalformedResponse, match="larger than"):
        client_answering(handler, api_key="").complete(MESSAGES, [])
