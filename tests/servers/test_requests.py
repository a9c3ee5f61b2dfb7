"""Request bodies real servers accept: chosen per provider and model from one small table."""

from __future__ import annotations

import json

import httpx
import pytest

from reactlab import DeepSeekClient
from reactlab.core.providers import PROVIDERS, Provider, provider_for

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, completion

NOTE = NoteTool().definition()
AFTER_A_TOOL_CALL = [
    *TASK_MESSAGES,
    {
        "role": "assistant",
        "content": "",
        "reasoning_content": "I should write the note.",
        "reasoning": "I should write the note.",
        "annotations": [],
        "refusal": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "note", "arguments": '{"text": "a"}'}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true, "count": 1}'},
]


def sent_body(base_url: str, messages=TASK_MESSAGES, tools=(NOTE,), **kwargs) -> dict:
    bodies: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=completion({"role": "assistant", "content": "ok"}, "stop"))

    kwargs.setdefault("api_key", "")
    DeepSeekClient(base_url=base_url, transport=httpx.MockTransport(handler), **kwargs).send(messages, list(tools))
    return bodies[0]


@pytest.mark.parametrize(
    "base_url, name",
    [
        ("https://api.deepseek.com", "deepseek"),
        ("https://api.deepseek.com/beta", "deepseek"),
        ("https://api.z.ai/api/paas/v4", "zai"),
        ("https://api.openai.com/v1", "openai"),
        ("https://api.groq.com/openai/v1", "groq"),
        ("https://reactlab-demo.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21", "azure"),
        ("https://reactlab-ai.cognitiveservices.azure.com/openai/v1", "azure"),
        ("https://openai.azure.com.example.net/v1", "openai-compatible"),  # a look-alike is not Azure
        ("https://openrouter.ai/api/v1", "openrouter"),
        ("https://generativelanguage.googleapis.com/v1beta/openai", "gemini"),
        ("https://api.mistral.ai/v1", "mistral"),
        ("https://api.together.xyz/v1", "openai-compatible"),
        ("http://localhost:11434/v1", "openai-compatible"),
        ("https://deepseek.com.example.net/v1", "openai-compatible"),  # a look-alike is not DeepSeek
        ("https://notdeepseek.com/v1", "openai-compatible"),
    ],
)
def test_the_profile_comes_from_the_host(base_url, name):
    assert provider_for(base_url).name == name


@pytest.mark.parametrize(
    "base_url", ["https://api.deepseek.com", "https://api.openai.com/v1", "http://localhost:8000/v1"]
)
def test_no_tools_means_no_tools_and_no_tool_choice(base_url):
    body = sent_body(base_url, tools=())
    assert "tools" not in body and "tool_choice" not in body
    with_tools = sent_body(base_url)
    assert with_tools["tools"] == [NOTE] and with_tools["tool_choice"] == "auto"


def test_deepseek_body_keeps_the_articles_field_order():
    body = sent_body("https://api.deepseek.com")
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
    assert body["thinking"] == {"type": "disabled"}


@pytest.mark.parametrize(
    "base_url, thinking, expected",
    [
        ("https://api.deepseek.com", True, {"type": "enabled"}),
        ("https://api.z.ai/api/paas/v4", False, {"type": "disabled"}),
        ("https://api.openai.com/v1", True, None),
        ("http://localhost:11434/v1", True, None),
    ],
)
def test_thinking_goes_only_to_providers_that_take_it(base_url, thinking, expected):
    assert sent_body(base_url, thinking=thinking).get("thinking") == expected


@pytest.mark.parametrize(
    "model, reasoning",
    [("o3-mini", True), ("o4-mini", True), ("gpt-5", True), ("gpt-4.1-mini", False), ("gpt-4o", False)],
)
def test_openai_reasoning_models_get_max_completion_tokens_and_no_temperature(model, reasoning):
    body = sent_body("https://api.openai.com/v1", model=model, max_tokens=2000)
    if reasoning:
        assert body["max_completion_tokens"] == 2000 and "max_tokens" not in body and "temperature" not in body
    else:
        assert body["max_tokens"] == 2000 and body["temperature"] == 0 and "max_completion_tokens" not in body


def test_the_same_model_name_elsewhere_is_not_an_openai_reasoning_model():
    body = sent_body("http://localhost:8000/v1", model="o3-mini")
    assert body["max_tokens"] == 800 and body["temperature"] == 0


@pytest.mark.parametrize(
    "base_url, kept",
    [
        ("https://api.deepseek.com", {"reasoning_content", "reasoning", "annotations", "refusal"}),  # as it came
        ("http://localhost:11434/v1", {"reasoning_content", "reasoning", "annotations", "refusal"}),
        ("https://api.groq.com/openai/v1", set()),
        ("https://api.openai.com/v1", set()),
    ],
)
def test_what_goes_back_of_an_earlier_answer(base_url, kept):
    body = sent_body(base_url, messages=AFTER_A_TOOL_CALL)
    echoed = body["messages"][2]
    assert set(echoed) == {"role", "content", "tool_calls"} | kept
    assert echoed["tool_calls"] == AFTER_A_TOOL_CALL[2]["tool_calls"]
    assert body["messages"][3] == AFTER_A_TOOL_CALL[3] and body["messages"][:2] == TASK_MESSAGES


def test_deepseek_gets_reasoning_content_back_even_empty_in_thinking_mode():
    messages = [*AFTER_A_TOOL_CALL[:2], {**AFTER_A_TOOL_CALL[2], "reasoning_content": ""}, AFTER_A_TOOL_CALL[3]]
    body = sent_body("https://api.deepseek.com", messages=messages, thinking=True)
    assert body["messages"][2]["reasoning_content"] == ""


def test_the_profile_can_be_overridden():
    proxy = "https://llm-gateway.example.org/v1"
    assert set(sent_body(proxy, messages=AFTER_A_TOOL_CALL, provider="groq")["messages"][2]) == {
        "role",
        "content",
        "tool_calls",
    }
    assert sent_body(proxy, provider="deepseek")["thinking"] == {"type": "disabled"}
    mine = Provider("mine", echo="standard", reasoning_models=("think-",))
    body = sent_body(proxy, provider=mine, model="think-large", messages=AFTER_A_TOOL_CALL)
    assert "temperature" not in body and "reasoning" not in body["messages"][2]


def test_an_unknown_profile_name_is_refused():
    with pytest.raises(ValueError, match="Unknown provider 'gorq'"):
        DeepSeekClient(api_key="", provider="gorq")
    assert "groq" in PROVIDERS
