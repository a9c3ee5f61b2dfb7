"""The two shapes the agent depends on. Ignore this file unless you type-check or write your own."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from .client import Completion

__all__ = ["ChatClient", "Tool"]


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
