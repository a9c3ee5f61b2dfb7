"""The shapes the agent depends on: a Tool, a ChatClient and the Completion a client returns.

Ignore this file unless you type-check or write your own tool or client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["ChatClient", "Completion", "Tool"]


@runtime_checkable
class Tool(Protocol):
    """A tool: a name, a description for the API, and an execute that validates and acts."""

    @property
    def name(self) -> str: ...

    def definition(self) -> dict[str, Any]: ...

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]: ...


class ChatClient(Protocol):
    """Anything that sends a history and tool definitions and returns the exchange."""

    def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion: ...


@dataclass(frozen=True)
class Completion:
    """The body sent and the chat.completion body received, exactly as it came."""

    request: dict[str, Any]
    response: dict[str, Any]
    repairs: tuple[str, ...] = ()
    """What ``repair=True`` mended in the message, one sentence each; empty in strict mode."""
    mended_message: dict[str, Any] | None = None
    """The message after those repairs (None when nothing was mended)."""

    @property
    def message(self) -> dict[str, Any]:
        if self.mended_message is not None:
            return self.mended_message
        message: dict[str, Any] = self.response["choices"][0]["message"]
        return message

    @property
    def finish_reason(self) -> str | None:
        reason: str | None = self.response["choices"][0].get("finish_reason")
        return reason

    @property
    def usage(self) -> dict[str, Any]:
        return dict(self.response.get("usage") or {})
