"""ReplayedTool: the shop run's tools for notebook 04's check, which replay the results its (scripted)
cassette stored instead of running anything, so the check needs no sandbox."""

from __future__ import annotations

import json
from copy import deepcopy
from typing import Any

from ..core.errors import CassetteError
from ..core.language import say
from ..core.protocols import Tool
from ..core.tools.bash import REPLAYED_NOTE
from ..replay.cassette import Cassette

__all__ = ["ReplayedTool"]


class ReplayedTool:
    """A tool that returns the result a cassette stored for the same name and arguments. Nothing runs."""

    def __init__(self, definition: dict[str, Any], results: dict[str, list[dict[str, Any]]]) -> None:
        self._definition = definition
        self._results = {key: list(values) for key, values in results.items()}

    @property
    def name(self) -> str:
        name: str = self._definition["function"]["name"]
        return name

    def definition(self) -> dict[str, Any]:
        return deepcopy(self._definition)

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        waiting = self._results.get(_key(arguments))
        if not waiting:
            return {"ok": False, "error": say("The cassette holds no result for these arguments."), "replayed": True}
        return {**waiting.pop(0), "replayed": True, "note": REPLAYED_NOTE}

    @classmethod
    def from_cassette(cls, cassette: Cassette) -> list[Tool]:
        """One replayed tool per tool the cassette offered, fed from the results in its last request."""
        try:
            return cls._from_request(cassette.interactions[-1]["request"])
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            raise CassetteError(
                f"Cannot replay tool results from this cassette: its last request is not a complete history "
                f"({type(exc).__name__}: {str(exc)[:120]})."
            ) from None

    @classmethod
    def _from_request(cls, request: dict[str, Any]) -> list[Tool]:
        arguments_of: dict[str, tuple[str, str]] = {}
        results: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for message in request["messages"]:
            for tool_call in message.get("tool_calls") or []:
                function = tool_call["function"]
                arguments_of[tool_call["id"]] = (function["name"], _key(json.loads(function["arguments"])))
            if message.get("role") == "tool":
                name, key = arguments_of[message["tool_call_id"]]
                result = json.loads(message["content"])
                if not isinstance(result, dict):
                    raise TypeError(f"the result for {message['tool_call_id'][:40]!r} is not an object")
                results.setdefault(name, {}).setdefault(key, []).append(result)
        return [cls(definition, results.get(definition["function"]["name"], {})) for definition in request["tools"]]


def _key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)
