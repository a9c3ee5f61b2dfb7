"""Azure OpenAI: the api-key header, a base URL whose query stays at the end, reasoning deployments."""

from __future__ import annotations

import json

import httpx
import pytest

from reactlab import DeepSeekClient, RecordingTransport, errors

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, answer_json, completion, local_server

NOTE = NoteTool().definition()
KEY = "azure-key-5f0c2a9e1b7d4c3e9a610d4f"
OK = completion({"role": "assistant", "content": "ok"}, "stop")
AZURE = "https://reactlab-demo.openai.azure.com/openai/deployments/gpt-4o-mini?api-version=2024-10-21"


def requests_to(base_url: str, **kwargs) -> list[httpx.Request]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=OK)

    DeepSeekClient(base_url=base_url, transport=httpx.MockTransport(handler), **kwargs).send(TASK_MESSAGES, [NOTE])
    return seen


@pytest.mark.parametrize(
    "base_url, url",
    [
        (
            AZURE,
            "https://reactlab-demo.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21",
        ),
        (
            "https://reactlab-demo.openai.azure.com/openai/deployments/gpt-4o-mini/?api-version=2024-10-21",
            "https://reactlab-demo.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21",
        ),
        (
            "https://reactlab-ai.cognitiveservices.azure.com/openai/deployments/o4-mini?api-version=2025-04-01-preview",
            "https://reactlab-ai.cognitiveservices.azure.com/openai/deployments/o4-mini/chat/completions?api-version=2025-04-01-preview",
        ),
        (
            "https://reactlab-demo.openai.azure.com/openai/v1/",
            "https://reactlab-demo.openai.azure.com/openai/v1/chat/completions",
        ),
        ("http://localhost:8000/v1?tenant=a&x=1", "http://localhost:8000/v1/chat/completions?tenant=a&x=1"),
    ],
)
def test_the_path_goes_before_the_query(base_url, url):
    (request,) = requests_to(base_url, api_key="")
    assert str(request.url) == url
    assert DeepSeekClient(api_key="", base_url=base_url).url == url


@pytest.mark.parametrize(
    "base_url",
    [
        AZURE,
        "https://reactlab-ai.cognitiveservices.azure.com/openai/deployments/o4-mini?api-version=2025-04-01-preview",
    ],
)
def test_the_key_goes_in_the_api_key_header_only(base_url):
    (request,) = requests_to(base_url, api_key=KEY)
    assert request.headers["api-key"] == KEY and "authorization" not in request.headers
    assert KEY not in str(request.url) and KEY not in request.content.decode()


def test_the_azure_key_comes_from_reactlab_api_key_never_from_deepseek_api_key(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek-only-0000")
    monkeypatch.delenv("REACTLAB_API_KEY", raising=False)
    (request,) = requests_to(AZURE)
    assert "api-key" not in request.headers and "authorization" not in request.headers
    monkeypatch.setenv("REACTLAB_API_KEY", KEY)
    (request,) = requests_to(AZURE)
    assert request.headers["api-key"] == KEY and "sk-deepseek-only" not in str(request.headers)


def test_a_look_alike_host_is_not_azure():
    (request,) = requests_to("https://openai.azure.com.example.net/v1", api_key=KEY)
    assert request.headers["authorization"] == f"Bearer {KEY}" and "api-key" not in request.headers


def test_the_api_key_header_and_the_query_on_a_real_socket():
    with local_server(answer_json(OK)) as server:
        base_url = f"http://127.0.0.1:{server.port}/openai/deployments/gpt-4o-mini?api-version=2024-10-21"
        client = DeepSeekClient(api_key=KEY, base_url=base_url, provider="azure")
        assert client.send(TASK_MESSAGES, [NOTE]).message == {"role": "assistant", "content": "ok"}
    (arrival,) = server.arrivals
    headers = {name.lower(): value for name, value in arrival.headers.items()}
    assert arrival.path == "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21"
    assert headers["api-key"] == KEY and "authorization" not in headers
    assert KEY not in arrival.body.decode() and json.loads(arrival.body)["messages"] == TASK_MESSAGES


@pytest.mark.parametrize(
    "model, reasoning",
    [("o4-mini", True), ("o3", True), ("gpt-5-mini", True), ("gpt-4o-mini", False), ("gpt-4.1", False)],
)
def test_reasoning_deployments_get_max_completion_tokens_and_no_temperature(model, reasoning):
    (request,) = requests_to(AZURE, api_key="", model=model, max_tokens=1500)
    body = json.loads(request.content)
    assert "thinking" not in body
    if reasoning:
        assert body["max_completion_tokens"] == 1500 and "max_tokens" not in body and "temperature" not in body
    else:
        assert body["max_tokens"] == 1500 and body["temperature"] == 0 and "max_completion_tokens" not in body


def test_an_error_names_urls_with_the_query_at_the_end():
    body = {"error": {"code": "model_not_found", "message": "The model `gpt-9` does not exist."}}
    transport = httpx.MockTransport(lambda request: httpx.Response(404, json=body))
    client = DeepSeekClient(api_key="", base_url=AZURE, model="gpt-9", transport=transport)
    with pytest.raises(errors.ModelNotFound) as caught:
        client.send(TASK_MESSAGES, [NOTE])
    assert "gpt-4o-mini/models?api-version=2024-10-21" in str(caught.value)


def test_a_recording_never_keeps_an_azure_key_the_server_echoed():
    echoing = completion({"role": "assistant", "content": f"your key is {KEY}"}, "stop")
    recording = RecordingTransport(httpx.MockTransport(lambda request: httpx.Response(200, json=echoing)))
    client = DeepSeekClient(api_key=KEY, base_url=AZURE, transport=recording)
    client.send(TASK_MESSAGES, [NOTE])
    kept = json.dumps(recording.cassette().to_dict())
    assert KEY not in kept and "[API key]" in kept
