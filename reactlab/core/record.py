"""The record of one run: what was sent, what came back, what ran, and how it ended.

The record holds read-only snapshots. Each message is copied once, when it enters the history, into
a ``FrozenDict`` (a dict that refuses changes); a request lists those same snapshots, so no one
holding a message can change what was sent, and a long run keeps each message once (520 steps, over
1,000 messages: about 3 MB, ``make bench``). ``copy.deepcopy`` (or ``thaw``) gives back plain,
editable dicts and lists.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, NoReturn

__all__ = ["FrozenDict", "FrozenList", "ModelCall", "RunRecord", "ToolExecution", "freeze", "thaw"]


def _read_only(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(
        f"This {type(self).__name__} is a read-only snapshot of the run. "
        "Take an editable copy with copy.deepcopy(...) or reactlab.core.record.thaw(...)."
    )


class FrozenDict(dict[str, Any]):
    """A dict that refuses every change. Reads, ``json.dumps`` and ``==`` work as on a dict."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _read_only

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        thawed: dict[str, Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A list that refuses every change. Reads, ``json.dumps`` and ``==`` work as on a list."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = pop = remove = clear = sort = reverse = _read_only

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        thawed: list[Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))


_SHARED = frozenset({str, int, float, bool, type(None), FrozenDict, FrozenList})  # kept as they are


def freeze(value: Any) -> Any:
    """A read-only deep copy of JSON-like data. Parts already frozen are shared, not copied again."""
    if type(value) in _SHARED:
        return value
    if isinstance(value, dict):
        copied = {}
        for key, item in value.items():  # a loop, not a comprehension: this runs several times a step
            copied[key] = item if type(item) in _SHARED else freeze(item)
        return FrozenDict(copied)
    if isinstance(value, (list, tuple)):
        return FrozenList([item if type(item) in _SHARED else freeze(item) for item in value])
    return copy.deepcopy(value)  # not JSON: keep a private copy all the same


def thaw(value: Any) -> Any:
    """Plain, editable dicts and lists from frozen data or a record's dataclasses."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: thaw(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value


@dataclass
class ModelCall:
    """One request to the model and its answer."""

    number: int
    request: dict[str, Any]
    """The exact JSON body that was sent (messages snapshot, tools, parameters)."""
    response: dict[str, Any] | None = None
    """The full chat.completion body, or None when the call failed."""
    duration: float = 0.0
    repairs: list[str] = field(default_factory=list)
    """What the client mended in the answer (``repair=True``), e.g. "id was missing"."""
    mended_message: dict[str, Any] | None = None
    """The message after those repairs, as it entered the history (``response`` stays as received)."""
    error: dict[str, Any] | None = None
    """For a failed call: what the provider said (status, request id, Retry-After, its code and body)."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.request.get("messages", []))

    @property
    def message(self) -> dict[str, Any]:
        """The assistant message as the agent took it: mended where the client repaired it."""
        if self.mended_message is not None:
            return self.mended_message
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
    """What the tool returned, as the model saw it."""
    duration: float = 0.0


@dataclass
class RunRecord:
    """Everything one ``Agent.run`` did. Kept after a success and attached to every error."""

    task: str
    system: str
    tools: list[dict[str, Any]] = field(default_factory=FrozenList)
    messages: list[dict[str, Any]] = field(default_factory=FrozenList)
    """The history as it stands (after the run: the whole of it). Read-only; only the agent adds to it."""
    model_calls: list[ModelCall] = field(default_factory=list)
    tool_executions: list[ToolExecution] = field(default_factory=list)
    max_steps: int = 8
    max_tool_calls: int = 16
    stop_reason: str | None = None
    """"answer" for a final answer, else the ``stop_reason`` of the error that ended the run."""
    answer: str | None = None
    error: str | None = None
    lang: str = "en"  # the language the run spoke (core/language.py): the widgets draw it in the same

    @property
    def succeeded(self) -> bool:
        return self.stop_reason == "answer"

    def executions_of(self, model_call: int) -> list[ToolExecution]:
        return [e for e in self.tool_executions if e.model_call == model_call]

    def add_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """Append a snapshot of ``message`` to the history and return the snapshot."""
        snapshot: dict[str, Any] = freeze(message)
        list.append(self.messages, snapshot)  # FrozenList refuses append from anyone else
        return snapshot

    def to_dict(self) -> dict[str, Any]:
        """Plain, editable dicts and lists (a deep copy)."""
        data: dict[str, Any] = thaw(self)
        return data

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        data = dict(data)
        data["tools"] = freeze(data.get("tools", []))
        data["messages"] = history = freeze(data.get("messages", []))

        def model_call(saved: dict[str, Any]) -> ModelCall:
            """A saved request whose messages are the history's first N lists the history's snapshots."""
            request = saved.get("request")
            sent = request.get("messages") if isinstance(request, dict) else None
            if isinstance(request, dict) and isinstance(sent, list) and sent == history[: len(sent)]:
                saved = {**saved, "request": {**request, "messages": FrozenList(history[: len(sent)])}}
            return ModelCall(**freeze(saved))

        data["model_calls"] = [model_call(c) for c in data.get("model_calls", [])]
        data["tool_executions"] = [ToolExecution(**freeze(e)) for e in data.get("tool_executions", [])]
        return cls(**data)
