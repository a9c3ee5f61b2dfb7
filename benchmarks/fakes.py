"""reactlab's side of the loop benchmark: a model that answers instantly and a tool that does nothing."""

from __future__ import annotations

from typing import Any

from common import Stopwatch

from reactlab import Completion
from reactlab.core.tools.base import BaseTool
from reactlab.replay.scripted import call as tool_call
from reactlab.replay.scripted import tool_call_message


class NoOp(BaseTool):
    name = "noop"
    description = "Does nothing."

    def __init__(self, watch: Stopwatch | None = None) -> None:
        self.watch = watch or Stopwatch()

    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}, "additionalProperties": False}

    def run(self) -> dict[str, Any]:  # type: ignore[override]
        with self.watch.tool():
            return {"ok": True}


class StopwatchClient:
    """A model that answers instantly: a no-op tool call until ``steps``, then an answer.

    Like a real client it keeps nothing of what it was sent, unless ``keep_bodies`` asks (for the
    json.dumps floor): the bodies would otherwise count in what a long run keeps.
    """

    def __init__(self, steps: int, watch: Stopwatch | None = None, *, keep_bodies: bool = False) -> None:
        self.steps, self.watch, self.keep_bodies = steps, watch or Stopwatch(), keep_bodies
        self.bodies: list[dict[str, Any]] = []
        self.answered = 0

    def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        self.watch.enter_model(len(messages))
        self.answered += 1
        if self.answered < self.steps:
            message, reason = tool_call_message([tool_call("noop", "{}")], self.answered), "tool_calls"
        else:
            message, reason = {"role": "assistant", "content": "done"}, "stop"
        body = {"model": "m", "messages": messages, "tools": tools}
        if self.keep_bodies:
            self.bodies.append(body)
        response = {"choices": [{"index": 0, "message": message, "finish_reason": reason}], "usage": {}}
        self.watch.leave_model()
        return Completion(body, response)
