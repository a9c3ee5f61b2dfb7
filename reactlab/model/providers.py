"""Provider profiles: what each kind of server accepts in a request, chosen from the base URL.

Servers that all speak "OpenAI-compatible" still differ in the request bodies they accept:

- DeepSeek and Z.ai's GLM take ``thinking: {"type": ...}``; others reject or ignore it.
- DeepSeek needs an assistant message's ``reasoning_content`` sent back after tool calls in thinking
  mode; Groq and OpenAI reject unknown fields in an assistant message, so only the standard ones go back.
- OpenAI's reasoning models want ``max_completion_tokens`` instead of ``max_tokens``, and no
  ``temperature``.

``provider_for(base_url)`` picks a profile from the host; ``DeepSeekClient(provider=...)`` overrides it
with a name from ``PROVIDERS`` or a ``Provider`` of your own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

__all__ = ["PROVIDERS", "Provider", "provider_for"]

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

    def matches(self, host: str) -> bool:
        return any(host == h or (h.startswith(".") and host.endswith(h)) for h in self.hosts)

    def is_reasoning_model(self, model: str) -> bool:
        return model.startswith(self.reasoning_models) if self.reasoning_models else False

    def echo_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """The message as this provider accepts it back in the history."""
        if self.echo == "as_received" or message.get("role") != "assistant":
            return message
        if STANDARD_ASSISTANT_KEYS.issuperset(message):
            return message  # the history's own snapshot: a copy per request would grow with steps squared
        return {key: value for key, value in message.items() if key in STANDARD_ASSISTANT_KEYS}


PROVIDERS: dict[str, Provider] = {
    provider.name: provider
    for provider in (
        # Keeps reasoning_content: required back after tool calls in thinking mode (API.md).
        Provider("deepseek", ("deepseek.com", ".deepseek.com"), thinking_field=True),
        Provider("zai", ("api.z.ai", "open.bigmodel.cn"), thinking_field=True),
        Provider("openai", ("api.openai.com",), echo="standard", reasoning_models=("o1", "o3", "o4", "gpt-5")),
        # Groq answers 400 "property 'reasoning_content' is unsupported" (janhq/jan#8136, gptel#774).
        Provider("groq", ("api.groq.com",), echo="standard"),
        # Ollama, llama.cpp, vLLM, LM Studio, ...: each reads back the fields it wrote.
        Provider("openai-compatible"),
    )
}


def provider_for(base_url: str) -> Provider:
    host = (urlsplit(base_url).hostname or "").lower()
    for provider in PROVIDERS.values():
        if provider.matches(host):
            return provider
    return PROVIDERS["openai-compatible"]
