"""Known quirks: strict mode names each one and says repair=True mends it; repair mode mends and records it."""

from __future__ import annotations

import json
from copy import deepcopy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab import Agent, DeepSeekClient, errors

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, Served, completion, load

QUIRKS = {q["name"]: q for q in load("quirks")["quirks"]}
UNMENDABLE = {q["name"]: q for q in load("quirks")["unmendable"]}
NOTE = NoteTool().definition()


def client_serving(answers, **kwargs) -> tuple[DeepSeekClient, Served]:
    served = Served(answers)
    return DeepSeekClient(api_key="", base_url="http://127.0.0.1:8080/v1", transport=served, **kwargs), served


def quirky_body(quirk) -> dict:
    return completion(deepcopy(quirk["message"]), quirk["finish_reason"], id_=f"chatcmpl-{len(quirk['name'])}")


@pytest.mark.parametrize("name", QUIRKS)
def test_strict_mode_names_the_quirk(name):
    quirk = QUIRKS[name]
    body = quirky_body(quirk)
    client, _ = client_serving([body])
    with pytest.raises(errors.RepairableAnswer) as caught:
        client.send(TASK_MESSAGES, [NOTE])
    error = caught.value
    assert quirk["strict"] in str(error) and "repair=True" in str(error)
    assert isinstance(error, errors.InvalidAssistantMessage) and isinstance(error, errors.MalformedResponse)
    assert error.response == body and error.request is not None and not error.retryable


@pytest.mark.parametrize("name", QUIRKS)
def test_strict_mode_stops_the_agent_before_any_tool_runs(name):
    quirk = QUIRKS[name]
    note = NoteTool()
    client, _ = client_serving([quirky_body(quirk)])
    with pytest.raises(errors.RepairableAnswer) as caught:
        Agent(client, [note]).run("Take a note.")
    record = caught.value.record
    assert note.notes == [] and record.stop_reason == "invalid_message"
    assert record.model_calls[0].response == quirky_body(quirk)  # the body that broke the run is kept


@pytest.mark.parametrize("name", QUIRKS)
def test_repair_mode_mends_and_says_what_it_did(name):
    quirk = QUIRKS[name]
    body = quirky_body(quirk)
    client, _ = client_serving([body], repair=True)
    completion_ = client.send(TASK_MESSAGES, [NOTE])
    assert any(r.startswith(quirk["repair"]) for r in completion_.repairs), completion_.repairs
    assert completion_.response == body  # what came is kept as it came; only the message handed on is mended
    message = completion_.message
    assert isinstance(message.get("content"), (str, type(None)))
    for call in message.get("tool_calls") or []:
        assert call["type"] == "function" and call["id"] and isinstance(call["function"]["arguments"], str)
        assert set(call) <= {"id", "type", "function", "index"}


@pytest.mark.parametrize("name", QUIRKS)
def test_repair_mode_runs_the_agent_to_an_answer(name):
    quirk = QUIRKS[name]
    note = NoteTool()
    client, served = client_serving(
        [quirky_body(quirk), completion({"role": "assistant", "content": "ok"}, "stop")], repair=True
    )
    agent = Agent(client, [note])
    answer = agent.run("Take a note.")
    if quirk["message"].get("tool_calls"):
        expected = quirk["message"]["tool_calls"][0].get("function", quirk["message"]["tool_calls"][0])["arguments"]
        expected = expected if isinstance(expected, dict) else json.loads(expected)
        assert note.notes == [expected["text"]] and answer == "ok"
        sent_back = served.requests[1]["messages"]
        call_id = sent_back[2]["tool_calls"][0]["id"]
        assert sent_back[3]["tool_call_id"] == call_id == agent.record.tool_executions[0].call_id
    else:
        assert answer == "All done." and note.notes == []


def test_a_made_up_id_is_the_same_on_replay_and_differs_between_answers():
    quirk = QUIRKS["id missing"]
    first, second = quirky_body(quirk), quirky_body(quirk)
    second["id"] = "chatcmpl-other"
    ids = []
    for body in (first, first, second):
        client, _ = client_serving([body], repair=True)
        ids.append(client.send(TASK_MESSAGES, [NOTE]).message["tool_calls"][0]["id"])
    assert ids[0] == ids[1] != ids[2]


def test_several_quirks_in_one_answer_are_all_named():
    message = {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "note", "arguments": {}}}]}
    client, _ = client_serving([completion(message, "tool_calls")])
    with pytest.raises(errors.RepairableAnswer) as caught:
        client.send(TASK_MESSAGES, [NOTE])
    for part in ("has no id", "has no type", "arguments is an object"):
        assert part in str(caught.value)
    client, _ = client_serving([completion(message, "tool_calls")], repair=True)
    assert len(client.send(TASK_MESSAGES, [NOTE]).repairs) == 3


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("name", UNMENDABLE)
def test_a_call_naming_no_function_cannot_be_mended(name, repair):
    quirk = UNMENDABLE[name]
    client, _ = client_serving([completion(quirk["message"], quirk["finish_reason"])], repair=repair)
    with pytest.raises(errors.UnmendableToolCall, match=quirk["error"]) as caught:
        client.send(TASK_MESSAGES, [NOTE])
    assert not isinstance(caught.value, errors.RepairableAnswer) and "cannot mend" in str(caught.value)
    assert isinstance(caught.value, errors.InvalidAssistantMessage) and caught.value.response is not None


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": ["hi"]},  # not text parts: the agent refuses it with its own words
        {"role": "assistant", "content": []},
        {"role": "assistant", "tool_calls": ["note"]},
        {
            "role": "assistant",
            "tool_calls": [{"id": "a", "type": "code", "function": {"name": "note", "arguments": "{}"}}],
        },
    ],
)
def test_what_is_no_known_quirk_is_left_for_the_agent(message):
    client, _ = client_serving([completion(message, "stop")], repair=True)
    completion_ = client.send(TASK_MESSAGES, [NOTE])
    assert completion_.repairs == () and completion_.message == message
    with pytest.raises(errors.InvalidAssistantMessage):
        Agent(client_serving([completion(message, "stop")], repair=True)[0], [NoteTool()]).run("x")


ids = st.sampled_from([{}, {"id": ""}, {"id": None}, {"id": "call_a"}])
types = st.sampled_from([{}, {"type": None}, {"type": "function"}])
arguments = st.sampled_from(['{"text": "x"}', "", {"text": "x"}, {}])
calls = st.builds(
    lambda id_, type_, args, flat: (
        {**id_, **type_, "name": "note", "arguments": args}
        if flat
        else {**id_, **type_, "function": {"name": "note", "arguments": args}}
    ),
    ids,
    types,
    arguments,
    st.booleans(),
)
contents = st.sampled_from(
    [
        None,
        "",
        "text",
        [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]}, {"type": "text", "text": "a"}],
        [{"type": "thinking", "thinking": "hm", "closed": True}],
    ]
)
finishes = st.sampled_from(["stop", "tool_calls", "tool", "eos"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(content=contents, tool_calls=st.lists(calls, max_size=4), finish=finishes)
def test_any_mix_of_quirks_is_named_in_strict_mode_and_mended_in_repair_mode(content, tool_calls, finish):
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    body = completion(deepcopy(message), finish)
    quirky = (
        isinstance(content, list)
        or finish in ("tool", "eos")
        or any(
            "function" not in c
            or not c.get("id")
            or c.get("type") is None
            or isinstance(c["function"]["arguments"], dict)
            for c in tool_calls
        )
    )
    strict, _ = client_serving([body])
    if quirky:
        with pytest.raises(errors.RepairableAnswer):
            strict.send(TASK_MESSAGES, [NOTE])
    else:
        assert strict.send(TASK_MESSAGES, [NOTE]).message == message
    mended = client_serving([body], repair=True)[0].send(TASK_MESSAGES, [NOTE])
    assert bool(mended.repairs) is quirky and mended.response == body
    assert isinstance(mended.message["content"], (str, type(None)))
    made = [c["id"] for c in mended.message["tool_calls"]]
    assert all(isinstance(i, str) and i for i in made)
    assert len(set(made) - {"call_a"}) == len([i for i in made if i != "call_a"])  # made-up ids never collide
    for call in mended.message["tool_calls"]:
        assert call["type"] == "function" and isinstance(call["function"]["arguments"], str)
