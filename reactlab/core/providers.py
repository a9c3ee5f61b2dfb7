"""Provider profiles: what each kind of server accepts in a request, chosen from the base URL.

Servers that all speak "OpenAI-compatible" still differ in the request bodies they accept:

- DeepSeek and Z.ai's GLM take ``thinking: {"type": ...}``; others reject or ignore it.
- DeepSeek needs an assistant message's ``reasoning_content`` sent back after tool calls in thinking
  mode; Groq and OpenAI reject unknown fields in an assistant message, so only the standard ones go back.
  OpenRouter's ``reasoning_details`` and Gemini's thought signatures must go back exactly as they came.
- OpenAI's reasoning models want ``max_completion_tokens`` instead of ``max_tokens``, and no
  ``temperature``; so do the same models deployed on Azure.
- Azure OpenAI takes the key in an ``api-key`` header, and its base URL may carry the API version in
  its query (``.../openai/deployments/NAME?api-version=2024-10-21``): the path goes before the query.
- GigaChat's own API takes an access token exchanged for the authorization key (gigachat.py), and
  speaks the legacy ``functions``/``function_call`` dialect (legacy_functions.py) instead of tools.
- Yandex AI Studio takes ``Authorization: Api-Key KEY`` (an IAM token, ``t1.…``, as ``Bearer``) and a
  model named with its folder: ``gpt://<folder ID>/yandexgpt/latest``.

``provider_for(base_url)`` picks a profile from the host; ``DeepSeekClient(provider=...)`` overrides it
with a name from ``PROVIDERS`` or a ``Provider`` of your own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

__all__ = ["PROVIDERS", "Provider", "provider_for", "url_under"]

# The keys of an assistant message that every OpenAI-compatible server accepts back.
STANDARD_ASSISTANT_KEYS = frozenset({"role", "content", "name", "tool_calls"})


@dataclass(frozen=True)
class Provider:
    """One row of the table. ``hosts`` are host names (a leading dot matches any subdomain)."""

    name: str
    hosts: tuple[str, ...] = ()
    thinking_field: bool = False
    """Understands ``thinking: {"type": "enabled"|"disabled"}``."""
    echo: Literal["as_received", "standard"] = "as_received"
    """What of an earlier assistant message goes back: all of it, or only the standard keys."""
    reasoning_models: tuple[str, ...] = ()
    """Model-name prefixes that take ``max_completion_tokens`` and no ``temperature``."""
    key_header: Literal["authorization", "api-key", "yandex"] = "authorization"
    """Where the key goes: ``Authorization: Bearer KEY``, Azure's ``api-key: KEY``, or Yandex's
    ``Authorization: Api-Key KEY`` (``Bearer`` for an IAM token, which starts with ``t1.``)."""
    token_url: str | None = None
    """An OAuth server that exchanges the key for a short-lived access token (GigaChat's)."""
    functions: bool = False
    """Speaks the legacy dialect: ``functions`` in the request, ``function_call`` in the answer, tool
    results as ``role: "function"``, arguments as a JSON object."""
    model_in_folder: bool = False
    """Model names carry a folder: ``gpt://<folder ID>/<model>/<version>`` (Yandex)."""

    def matches(self, host: str) -> bool:
        return any(host == h or (h.startswith(".") and host.endswith(h)) for h in self.hosts)

    def is_reasoning_model(self, model: str) -> bool:
        return model.startswith(self.reasoning_models) if self.reasoning_models else False

    def key_headers(self, key: str) -> dict[str, str]:
        """The header that carries ``key`` to this provider (none for an empty key)."""
        if not key or self.token_url:
            return {}  # no key; or a key that only buys a token (gigachat.py)
        if self.key_header == "api-key":
            return {"api-key": key}
        if self.key_header == "yandex" and not key.startswith("t1."):
            return {"Authorization": f"Api-Key {key}"}
        return {"Authorization": f"Bearer {key}"}

    def echo_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """The message as this provider accepts it back in the history."""
        if self.echo == "as_received" or message.get("role") != "assistant":
            return message
        if STANDARD_ASSISTANT_KEYS.issuperset(message):
            return message  # the history's own snapshot: a copy per request would grow with steps squared
        return {key: value for key, value in message.items() if key in STANDARD_ASSISTANT_KEYS}


_OPENAI_REASONING = ("o1", "o3", "o4", "gpt-5")

PROVIDERS: dict[str, Provider] = {
    provider.name: provider
    for provider in (
        # Keeps reasoning_content: required back after tool calls in thinking mode (API.md).
        Provider("deepseek", ("deepseek.com", ".deepseek.com"), thinking_field=True),
        Provider("zai", ("api.z.ai", "open.bigmodel.cn"), thinking_field=True),
        Provider("openai", ("api.openai.com",), echo="standard", reasoning_models=_OPENAI_REASONING),
        # A deployment is usually named after its model; Azure's docs use the model names themselves.
        Provider(
            "azure",
            (".openai.azure.com", ".cognitiveservices.azure.com"),
            echo="standard",
            reasoning_models=_OPENAI_REASONING,
            key_header="api-key",
        ),
        # Groq answers 400 "property 'reasoning_content' is unsupported" (janhq/jan#8136, gptel#774).
        Provider("groq", ("api.groq.com",), echo="standard"),
        # reasoning_details go back unchanged: OpenRouter's docs, "preserving reasoning blocks".
        Provider("openrouter", ("openrouter.ai",)),
        # Thought signatures ride in tool_calls[].extra_content.google and must come back as they were.
        Provider("gemini", ("generativelanguage.googleapis.com",)),
        # Mistral's 9-character call ids must come back unchanged in tool_call_id.
        Provider("mistral", ("api.mistral.ai",)),
        # GigaChat's own API: a token for the authorization key, the legacy functions dialect (gigachat.py).
        Provider(
            "gigachat",
            ("gigachat.devices.sberbank.ru",),
            echo="standard",
            token_url="https://ngw.devices.sberbank.ru:9443/api/v2/oauth",
            functions=True,
        ),
        # Yandex AI Studio's OpenAI-compatible API: yandex.cloud/ru/docs/ai-studio/concepts/openai-compatibility
        Provider("yandex", ("llm.api.cloud.yandex.net",), echo="standard", key_header="yandex", model_in_folder=True),
        # Ollama, llama.cpp, vLLM, LM Studio, Together, ...: each reads back the fields it wrote.
        Provider("openai-compatible"),
    )
}


def provider_for(base_url: str) -> Provider:
    host = (urlsplit(base_url).hostname or "").lower()
    for provider in PROVIDERS.values():
        if provider.matches(host):
            return provider
    return PROVIDERS["openai-compatible"]


def url_under(base_url: str, path: str) -> str:
    """``base_url`` with ``path`` added to its path; a query (Azure's ``?api-version=``) stays after it."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + path))
