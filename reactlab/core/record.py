"""The record of one run: what was sent, what came back, what ran, and how it ended.

The record holds read-only snapshots. Each message is copied once, when it enters the history, into
a ``FrozenDict`` (a dict that refuses changes), and no request copies it again. The history only
grows, so the messages of each request are always its first N entries: a recorded request keeps
just that (a ``HistoryPrefix``) beside its other keys, which it shares with the request before
while they are the same, and lists the messages again when it is read. A tool's result is kept
once, as the JSON text of its message in the history. So a request in the record stays exactly
what was sent, no one holding a message can change it, and a run's memory grows with its length,
not its square (a request whose messages the client rewrote, e.g. for a provider that takes fewer
keys back, is kept as a full read-only copy instead).
``copy.deepcopy`` (or ``thaw``) gives back plain, editable dicts and lists.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, fields, is_dataclass
from itertools import islice
from typing import Any, Generic, NoReturn, TypeVar, overload

__all__ = [
    "FrozenDict",
    "FrozenList",
    "HistoryPrefix",
    "ModelCall",
    "RunRecord",
    "ToolExecution",
    "freeze",
    "thaw",
]


_Stored = TypeVar("_Stored")


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


class HistoryPrefix:
    """The first ``length`` messages of a run's history: how a recorded request keeps its messages.

    Only the record appends to the history and nothing removes from it, so these two references name
    exactly the messages that were sent, however long the history grows afterwards.
    """

    __slots__ = ("history", "length")

    def __init__(self, history: list[dict[str, Any]], length: int) -> None:
        self.history, self.length = history, length

    def messages(self) -> FrozenList:
        """The messages themselves, as the read-only list that was sent (built afresh on each call)."""
        return FrozenList(islice(self.history, self.length))

    def __reduce__(self) -> tuple[Any, ...]:
        return (HistoryPrefix, (self.history, self.length))

    def __repr__(self) -> str:
        return f"HistoryPrefix(<history of {len(self.history)}>, {self.length})"


class _PrefixedRequest(HistoryPrefix):
    """How the record keeps a request whose messages are the history's first ``length``: its other
    keys (``rest``, with "messages" held in its place as None), shared with the previous call's
    when they are the same (the model, the tools, the parameters rarely change within a run)."""

    __slots__ = ("rest",)

    def __init__(self, rest: FrozenDict, history: list[dict[str, Any]], length: int) -> None:
        super().__init__(history, length)
        self.rest = rest

    def request(self) -> FrozenDict:
        """The read-only body that was sent: same keys, same order (built afresh on each call)."""
        return FrozenDict({**self.rest, "messages": self.messages()})

    def __reduce__(self) -> tuple[Any, ...]:
        return (_PrefixedRequest, (self.rest, self.history, self.length))

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        thawed: dict[str, Any] = thaw(self.request())
        return thawed


_SHARED = frozenset({str, int, float, bool, type(None), FrozenDict, FrozenList, HistoryPrefix})  # kept as they are


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
    if isinstance(value, HistoryPrefix):
        return thaw(value.messages())
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value


class _KeptCompact(Generic[_Stored]):
    """A field of the record kept in a compact form (``_Stored``) and read back as a dict.

    The value lives in an attribute named after the field with a leading underscore, set as an
    attribute: ``__dict__[...]`` would make the instance a dict of its own.
    """

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name, self.attribute = name, f"_{name}"

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> NoReturn: ...
    @overload
    def __get__(self, instance: object, owner: type[Any]) -> dict[str, Any]: ...
    def __get__(self, instance: object | None, owner: type[Any]) -> dict[str, Any]:
        if instance is None:
            raise AttributeError(self.name)  # read on the class: tells dataclasses there is no default
        stored: _Stored = object.__getattribute__(instance, self.attribute)
        return self.read_back(stored)

    def __set__(self, instance: object, value: _Stored) -> None:
        object.__setattr__(instance, self.attribute, value)

    def read_back(self, stored: _Stored) -> dict[str, Any]:
        raise NotImplementedError


class _SentRequest(_KeptCompact["dict[str, Any] | _PrefixedRequest"]):
    """``ModelCall.request``: stored with its messages as a ``HistoryPrefix``, read back whole.

    Each read lists the messages afresh (references to the shared snapshots, freed when the reader
    lets go), so a reader gets the read-only body that was sent and the record keeps no list per call.
    """

    def read_back(self, stored: dict[str, Any] | _PrefixedRequest) -> dict[str, Any]:
        return stored.request() if isinstance(stored, _PrefixedRequest) else stored


class _ResultSeen(_KeptCompact["dict[str, Any] | str"]):
    """``ToolExecution.result``: the agent stores the JSON text the model saw (the very string its
    tool message in the history holds, so the record keeps no second copy), decoded afresh into a
    read-only dict on each read. A dict given instead (a loaded record) is kept as it is."""

    def read_back(self, stored: dict[str, Any] | str) -> dict[str, Any]:
        if isinstance(stored, str):
            decoded: dict[str, Any] = freeze(json.loads(stored))
            return decoded
        return stored


@dataclass
class ModelCall:
    """One request to the model and its answer."""

    number: int
    request: _SentRequest = _SentRequest()
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
    result: _ResultSeen = _ResultSeen()
    """What the tool returned, as the model saw it (the agent gives the JSON text it sent)."""
    duration: float = 0.0

    def __deepcopy__(self, memo: dict[int, Any]) -> ToolExecution:
        """A copy whose result is a plain, editable dict, as every deep copy of the record gives."""
        return ToolExecution(**{f.name: copy.deepcopy(getattr(self, f.name), memo) for f in fields(self)})


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

    def sent_request(
        self, request: dict[str, Any], history_sent: list[dict[str, Any]]
    ) -> dict[str, Any] | _PrefixedRequest:
        """A read-only copy of ``request`` for a ``ModelCall``, its messages kept as a prefix of the history.

        ``history_sent`` is the list of the whole history the agent handed the client. When the request
        carries that very list (the client changed nothing), the prefix names it, and the other keys
        are shared with the previous call's if they are the same; else the request is copied as it stands.
        """
        frozen: dict[str, Any] = freeze(request)
        if (
            isinstance(frozen, dict)
            and frozen.get("messages") is history_sent  # freeze shares a FrozenList: the very list sent
            and len(history_sent) == len(self.messages)
        ):
            rest = FrozenDict({**frozen, "messages": None})  # a dict of our own: the client's may be shared
            previous = object.__getattribute__(self.model_calls[-1], "_request") if self.model_calls else None
            if isinstance(previous, _PrefixedRequest) and previous.rest == rest:
                rest = previous.rest
            return _PrefixedRequest(rest, self.messages, len(history_sent))
        return frozen

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
        data["model_calls"] = [ModelCall(**_as_prefix(c, history)) for c in data.get("model_calls", [])]
        data["tool_executions"] = [ToolExecution(**e) for e in data.get("tool_executions", [])]
        return cls(**data)


def _as_prefix(call: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
    """A saved model call with a read-only request; messages that are the first N of ``history`` become a prefix."""
    request = call.get("request")
    if not isinstance(request, dict):
        return call
    sent = request.get("messages")
    if isinstance(sent, list) and sent == history[: len(sent)]:
        return {**call, "request": _PrefixedRequest(freeze({**request, "messages": None}), history, len(sent))}
    return {**call, "request": freeze(request)}
