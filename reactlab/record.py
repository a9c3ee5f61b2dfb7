"""The record of one run: what was sent, what came back, what ran, and how it ended."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["ModelCall", "RunRecord", "ToolExecution"]


@dataclass
class ModelCall:
    """One request to the model and its answer."""

    number: int
    request: dict[str, Any]
    """The exact JSON body that was sent (messages snapshot, tools, parameters)."""
    response: dict[str, Any] | None = None
    """The full chat.completion body, or None when the call failed."""
    duration: float = 0.0

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.request.get("messages", []))

    @property
    def message(self) -> dict[str, Any]:
        choices = (self.response or {}).get("choices") or [{}]
        message = choices[0].get("message")
        return message if isinstance(message, dict) else {}

    @property
    def finish_reason(self) -> str | None:
        choices = (self.response or {}).get("choices") or [{}]
        reason = choices[0].get("finish_reason")
        return reason if isinstance(reason, str) else None

    @property
    def usage(self) -> dict[str, Any]:
        return dict((self.response or {}).get("usage") or {})


@dataclass
class ToolExecution:
    """One tool call the agent executed (or refused) and the result the model saw."""

    model_call: int
    call_id: str
    name: str
    arguments: str
    """The arguments exactly as the model sent them: a JSON string."""
    result: dict[str, Any]
    duration: float = 0.0


@dataclass
class RunRecord:
    """Everything one ``Agent.run`` did. Kept after a success and attached to every error."""

    task: str
    system: str
    tools: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    """The history as it stands (after the run: the whole of it)."""
    model_calls: list[ModelCall] = field(default_factory=list)
    tool_executions: list[ToolExecution] = field(default_factory=list)
    max_steps: int = 8
    max_tool_calls: int = 16
    stop_reason: str | None = None
    """"answer" for a final answer, else the ``stop_reason`` of the error that ended the run."""
    answer: str | None = None
    error: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.stop_reason == "answer"

    def executions_of(self, model_call: int) -> list[ToolExecution]:
        return [e for e in self.tool_executions if e.model_call == model_call]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        data = dict(data)
        data["model_calls"] = [ModelCall(**c) for c in data.get("model_calls", [])]
        data["tool_executions"] = [ToolExecution(**e) for e in data.get("tool_executions", [])]
        return cls(**data)
