"""The record is exactly what was sent and received, and nothing anyone holds can change it.

Each message is copied once into a read-only snapshot; later requests list the same snapshots.
These tests mutate every object the run hands out and compare the serialised record before/after,
and measure that a long run keeps each message once (its requests' lists of them stay small).
"""

from __future__ import annotations

import copy
import gc
import json
import pickle
import tracemalloc
from typing import Any

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, Script, call
from reactlab.core.record import FrozenDict, FrozenList, RunRecord, freeze, thaw
from reactlab.core.tools.base import BaseTool

from .helpers import NoteTool


def _mutations(value: dict | list) -> list[Any]:
    """Every way to change a dict or list in place, each as a zero-argument function."""
    if isinstance(value, dict):
        key = next(iter(value), "role")

        def merge() -> None:
            value_ = value
            value_ |= {"injected": True}

        return [
            lambda: value.__setitem__("injected", True),
            lambda: value.__setitem__(key, "changed"),
            lambda: value.__delitem__(key),
            lambda: value.update(injected=True),
            lambda: value.setdefault("injected", True),
            lambda: value.pop(key),
            lambda: value.popitem(),
            merge,
            lambda: value.clear(),
        ]

    def grow() -> None:
        value_ = value
        value_ += [{"role": "user", "content": "injected"}]

    def repeat() -> None:
        value_ = value
        value_ *= 2

    return [
        lambda: value.append({"role": "user", "content": "injected"}),
        lambda: value.extend([{"role": "user", "content": "injected"}]),
        lambda: value.insert(0, {"role": "user", "content": "injected"}),
        lambda: value.__setitem__(0, "changed"),
        lambda: value.__setitem__(slice(0, 1), []),
        lambda: value.__delitem__(0),
        lambda: value.remove(value[0]) if value else value.remove(None),
        lambda: value.sort(key=str),
        lambda: value.reverse(),
        grow,
        repeat,
        lambda: value.pop(),
        lambda: value.clear(),
    ]


def vandalise(value: Any) -> tuple[int, int]:
    """Try every mutation on every dict and list inside ``value``; return (refused, done)."""
    refused = done = 0
    if isinstance(value, dict):
        children = list(value.values())
    elif isinstance(value, list):
        children = list(value)
    else:
        return 0, 0
    for child in children:  # the children first: the parent may be emptied below
        r, d = vandalise(child)
        refused, done = refused + r, done + d
    for mutate in _mutations(value):
        try:
            mutate()
        except TypeError as error:
            assert "read-only snapshot" in str(error)
            refused += 1
        except (KeyError, IndexError, ValueError):
            pass  # a plain object already emptied by an earlier mutation
        else:
            done += 1
    return refused, done


class Keeper(BaseTool):
    """Returns a result it keeps, then changes it: as a careless tool might."""

    name = "keeper"
    description = "Returns a result it keeps."

    def __init__(self) -> None:
        self.results: list[dict[str, Any]] = []

    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}, "additionalProperties": False}

    def run(self) -> dict[str, Any]:  # type: ignore[override]
        result = {"ok": True, "items": [1, {"nested": "x"}]}
        self.results.append(result)
        return result


class Hoarder:
    """A real DeepSeekClient behind a client that keeps everything it was given and everything it returned."""

    def __init__(self, script: Script) -> None:
        self.inner = script.client()
        self.received: list[tuple[list, list]] = []
        self.completions: list[Any] = []

    def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        self.received.append((messages, tools))
        completion = self.inner.send(messages, tools)
        self.completions.append(completion)
        return completion


def _run() -> tuple[Agent, Hoarder, Keeper, NoteTool]:
    keep = {"id": "k1", "type": "function", "function": {"name": "keeper", "arguments": "{}"}}
    reasoning = {"role": "assistant", "content": "", "reasoning_content": "think", "tool_calls": [keep]}
    script = (
        Script()
        .message(reasoning, "tool_calls")
        .tool_calls(call("note", text="a"), call("keeper"))
        .final_answer("done")
    )
    client, keeper, note = Hoarder(script), Keeper(), NoteTool()
    agent = Agent(client, [keeper, note])
    assert agent.run("task") == "done"
    return agent, client, keeper, note


def test_nothing_handed_out_can_change_the_record():
    agent, client, keeper, _ = _run()
    record = agent.record
    before = record.to_json()
    requests_before = [json.dumps(c.request) for c in record.model_calls]

    # What the record hands out refuses every change.
    for handed_out in (
        record.messages,
        record.tools,
        *(c.request for c in record.model_calls),
        *(c.request["messages"] for c in record.model_calls),
        *(c.request["tools"] for c in record.model_calls),
        *(c.response for c in record.model_calls),
        *(c.message for c in record.model_calls),
        *(e.result for e in record.tool_executions),
    ):
        refused, done = vandalise(handed_out)
        assert refused > 0 and done == 0

    # What the client received refuses every change, even long after the run.
    for messages, tools in client.received:
        assert vandalise(messages)[1] == 0 and vandalise(tools)[1] == 0

    # What the client and the tool kept of their own may change; the record does not follow.
    for completion in client.completions:
        for own in (completion.message, completion.response, completion.request):
            vandalise(own)
    for result in keeper.results:
        assert vandalise(result)[1] > 0  # the tool's own dict really changed

    assert record.to_json() == before
    assert [json.dumps(c.request) for c in record.model_calls] == requests_before
    assert record.model_calls[1].messages[2]["reasoning_content"] == "think"
    assert record.tool_executions[0].result == {"ok": True, "items": [1, {"nested": "x"}]}


def test_a_tool_result_is_kept_as_the_model_saw_it_read_only():
    agent, _, _, _ = _run()
    record = agent.record
    seen = [m["content"] for m in record.messages if m["role"] == "tool"]
    assert len(seen) == len(record.tool_executions) == 3
    for execution, text in zip(record.tool_executions, seen, strict=True):
        assert execution.result == json.loads(text) and type(execution.result) is FrozenDict
        assert json.dumps(execution.result, ensure_ascii=False) == text, "what the model read, not the tool's dict"
    copied = copy.deepcopy(record).tool_executions[0]  # a deep copy is plain and editable, as everywhere
    assert type(copied.result) is dict
    copied.result["ok"] = "edited"
    assert copied.result["ok"] == "edited" and record.tool_executions[0].result["ok"] is True


def test_each_request_keeps_its_own_parameters_as_they_were_sent():
    class Seeded:
        """Adds a parameter to the requests: the same one to the first two, another to the third."""

        def __init__(self) -> None:
            self.inner, self.sent = (
                Script().tool_call("note", text="a").tool_call("note", text="b").final_answer("done").client(),
                0,
            )

        def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
            completion = self.inner.send(messages, tools)
            self.sent += 1
            request = {"seed": 1 if self.sent < 3 else 2, **completion.request}
            return type(completion)(request, completion.response)

    agent = Agent(Seeded(), [NoteTool()])  # type: ignore[arg-type]
    assert agent.run("task") == "done"
    calls = agent.record.model_calls
    assert [c.request["seed"] for c in calls] == [1, 1, 2] and list(calls[2].request)[:2] == ["seed", "model"]
    assert all(type(c.request) is FrozenDict for c in calls)
    assert [len(c.request["messages"]) for c in calls] == [2, 4, 6]


def test_requests_share_snapshots_instead_of_copying_the_history():
    agent, client, _, _ = _run()
    record = agent.record
    first, second, third = (c.request["messages"] for c in record.model_calls)
    assert all(a is b for a, b in zip(third, record.messages, strict=False))
    assert all(a is b for a, b in zip(second, third, strict=False))
    assert first is not second and len(first) < len(second) < len(third)
    assert record.model_calls[0].request["tools"] is record.tools is record.model_calls[2].request["tools"]
    # What was sent is what the client was given (the same snapshots: the record names them as a
    # prefix of the history instead of keeping the list), and the serialised request matches it.
    for (messages, tools), model_call, completion in zip(
        client.received, record.model_calls, client.completions, strict=True
    ):
        recorded = model_call.request["messages"]
        assert len(recorded) == len(messages) and all(a is b for a, b in zip(recorded, messages, strict=True))
        assert tools is model_call.request["tools"]
        assert json.dumps(model_call.request) == json.dumps(completion.request)


def test_copies_are_plain_and_editable_and_the_original_stays():
    agent, _, _, _ = _run()
    record = agent.record
    before = record.to_json()
    for copied in (copy.deepcopy(record.messages), thaw(record.messages), record.to_dict()["messages"]):
        assert type(copied) is list and all(type(m) is dict for m in copied)
        copied[2]["tool_calls"][0]["function"]["name"] = "edited"
        copied.append({"role": "user", "content": "more"})
    shallow = copy.copy(record.messages[0])
    shallow["content"] = "edited"
    assert type(shallow) is dict
    assert record.to_json() == before
    assert pickle.loads(pickle.dumps(record.messages)) == record.messages
    assert type(pickle.loads(pickle.dumps(record.messages[2]))) is FrozenDict
    again = RunRecord.from_dict(json.loads(before))
    assert again == record and isinstance(again.messages, FrozenList)


class Wiretap(httpx.BaseTransport):
    """The script's transport, keeping the bytes of every request body as they went out."""

    def __init__(self, script: Script) -> None:
        self.inner, self.sent = script.transport(), []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request.content)
        return self.inner.handle_request(request)


def _wiretapped_run(provider: str = "deepseek") -> tuple[RunRecord, list[bytes]]:
    reasoning = {"role": "assistant", "content": "", "reasoning_content": "think", "tool_calls": [
        {"id": "r1", "type": "function", "function": {"name": "note", "arguments": '{"text": "ü"}'}}]}  # fmt: skip
    script = Script().message(reasoning, "tool_calls").tool_calls(call("note", text="a"), call("note", text="b"))
    wire = Wiretap(script.final_answer("done"))
    agent = Agent(DeepSeekClient(api_key="", transport=wire, provider=provider), [NoteTool()])
    assert agent.run("task") == "done"
    assert agent.record is not None and len(wire.sent) == len(agent.record.model_calls) == 3
    return agent.record, wire.sent


@pytest.mark.parametrize("provider", ["deepseek", "openai"])  # openai: the client drops reasoning_content
def test_a_recorded_request_serialises_to_the_very_bytes_that_were_sent(provider):
    record, sent = _wiretapped_run(provider)
    for model_call, body in zip(record.model_calls, sent, strict=True):
        # Encoded as httpx encodes a body: the bytes on the wire, key order and every message included.
        assert httpx.Request("POST", "http://x", json=model_call.request).content == body
        posted = json.loads(body)
        assert model_call.request == posted and list(model_call.request) == list(posted)
        # The C encoder (no indent) and the pure-Python one (indent) both see every message, not an empty list.
        assert json.loads(json.dumps(model_call.request["messages"])) == posted["messages"] != []
        assert json.loads(json.dumps(model_call.request, indent=1)) == posted
    reasoning_echoed = "reasoning_content" in record.model_calls[1].request["messages"][2]
    assert reasoning_echoed == (provider == "deepseek") and "reasoning_content" in record.messages[2]


def test_a_recorded_requests_messages_read_as_the_list_that_was_sent():
    record, _ = _wiretapped_run()
    messages = record.model_calls[-1].request["messages"]
    assert type(messages) is FrozenList and isinstance(messages, list)
    assert len(messages) == len(record.messages) - 1 and bool(messages)
    assert messages == record.messages[:-1] and messages != record.messages
    assert messages[0] is record.messages[0] and messages[-1] is record.messages[-2]
    assert messages[1:3] == record.messages[1:3] and list(reversed(messages))[0] is record.messages[-2]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant", "tool", "tool"]
    assert record.messages[2] in messages and messages.index(record.messages[2]) == 2
    assert record.model_calls[-1].messages == list(messages)
    # Each read lists the snapshots afresh: the first request still holds only what it sent.
    assert record.model_calls[0].request["messages"] == record.messages[:2]


def test_copies_of_a_request_are_plain_and_the_record_stays():
    record, _ = _wiretapped_run()
    before = record.to_json()
    last = record.model_calls[-1]
    for copied in (
        copy.deepcopy(last.request),
        thaw(last.request),
        thaw(last)["request"],
        copy.deepcopy(last).request,
        copy.deepcopy(record).model_calls[-1].request,
        record.to_dict()["model_calls"][-1]["request"],
    ):
        assert type(copied) is dict and type(copied["messages"]) is list
        assert all(type(m) is dict for m in copied["messages"]) and copied == last.request
        copied["messages"][0]["content"] = "edited"
        copied["messages"].append({"role": "user", "content": "more"})
    assert record.to_json() == before


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_pickled_record_reads_the_same_and_its_requests_share_one_history(protocol):
    record, _ = _wiretapped_run()
    again = pickle.loads(pickle.dumps(record, protocol))
    assert again == record and again.to_json() == record.to_json()
    for model_call in again.model_calls:
        sent = model_call.request["messages"]
        assert type(sent) is FrozenList and all(a is b for a, b in zip(sent, again.messages, strict=False))
    assert pickle.loads(pickle.dumps(record.model_calls[-1].request, protocol)) == record.model_calls[-1].request


def test_a_request_the_client_already_froze_stays_as_the_client_has_it():
    class Freezer:
        """Hands back its request already frozen: the record must not edit that shared object."""

        def __init__(self) -> None:
            self.inner, self.requests = Script().tool_call("note", text="a").final_answer("done").client(), []

        def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
            completion = self.inner.send(messages, tools)
            request = freeze(completion.request)
            self.requests.append((request, messages))
            return type(completion)(request, completion.response)

    client = Freezer()
    agent = Agent(client, [NoteTool()])  # type: ignore[arg-type]
    assert agent.run("task") == "done"
    for (request, messages), model_call in zip(client.requests, agent.record.model_calls, strict=True):
        assert type(request) is FrozenDict and request["messages"] is messages
        assert model_call.request == request and json.dumps(model_call.request) == json.dumps(request)


@pytest.mark.parametrize("provider", ["deepseek", "openai"])  # openai: later requests hold the client's copies
def test_a_saved_and_loaded_record_keeps_read_only_requests_that_share_its_history(provider):
    record, _ = _wiretapped_run(provider)
    again = RunRecord.from_dict(json.loads(record.to_json()))
    assert again == record and again.to_json() == record.to_json()
    shared = []
    for model_call in again.model_calls:
        refused, done = vandalise(model_call.request)
        assert refused > 0 and done == 0
        sent = model_call.request["messages"]
        shared.append(all(a is b for a, b in zip(sent, again.messages, strict=False)))
    # A request whose messages are the history's first N names the loaded snapshots; one the client
    # rewrote (reasoning_content dropped) is kept as it was sent.
    assert shared == ([True, True, True] if provider == "deepseek" else [True, False, False])
    assert again.to_json() == record.to_json()


@pytest.mark.parametrize(
    "value",
    [{"a": [1, {"b": [2, 3]}]}, [[], {}, "s", 1, 1.5, True, None], ({"t": (1, 2)},), {"deep": [[[[{"x": "y"}]]]]}],
)
def test_freeze_is_a_read_only_deep_copy(value):
    frozen = freeze(value)
    text = json.dumps(frozen)
    assert text == json.dumps(value)
    assert freeze(frozen) is frozen  # already frozen: shared, not copied
    assert vandalise(frozen)[1] == 0
    vandalise(value)  # the original stays editable; the copy does not follow it
    assert json.dumps(frozen) == text


def _noop_answers(steps: int) -> httpx.MockTransport:
    """A server that asks for a no-op tool call ``steps - 1`` times, then answers."""
    answered = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal answered
        answered += 1
        if answered < steps:
            calls = [
                {"id": f"c{answered}", "type": "function", "function": {"name": "note", "arguments": '{"text": "x"}'}}
            ]
            message, reason = {"role": "assistant", "content": "", "tool_calls": calls}, "tool_calls"
        else:
            message, reason = {"role": "assistant", "content": "done"}, "stop"
        body = {"id": f"r{answered}", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": reason}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}  # fmt: skip
        return httpx.Response(200, json=body)

    return httpx.MockTransport(handler)


def _kept_by_a_run(steps: int) -> tuple[Agent, int]:
    """A scripted run of ``steps`` model calls, and the bytes it keeps (its agent and record alive)."""
    agent = Agent(
        DeepSeekClient(api_key="", transport=_noop_answers(steps)), [NoteTool()], max_steps=steps, max_tool_calls=steps
    )
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        assert agent.run("a long run") == "done"
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(agent.record.messages) == 2 * steps + 1
    return agent, grown


def test_a_long_run_keeps_each_message_once():
    steps = 520  # the history passes 1,000 messages
    _kept_by_a_run(8)  # first-use caches (httpx, json schema checks) are not the run's growth
    _, half = _kept_by_a_run(steps // 2)
    _, grown = _kept_by_a_run(steps)
    print(f"a {steps // 2}-step run keeps {half / 1e6:.2f} MB, a {steps}-step run {grown / 1e6:.2f} MB")
    assert grown < 10e6, f"a {steps}-step run kept {grown / 1e6:.1f} MB"
    # Twice the steps: the messages twice the memory, each request's list of them (references) four
    # times; measured 2.65x here. A copy of the history per request would make all of it about 4x.
    assert grown / half < 3.2, f"{steps} steps kept {grown / half:.2f} times what {steps // 2} steps kept"
