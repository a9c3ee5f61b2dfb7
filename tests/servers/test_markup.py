"""Tool calls written into content as <tool_call> markup: refused by name in strict mode, run with repair=True."""

from __future__ import annotations

import json

import pytest

from reactlab import Agent, errors
from reactlab.core.slips.dialects import NOT_CLOSED, Unreadable, find_calls

from ..helpers import NoteTool
from .serving import NOTED, TASK_MESSAGES, completion, load, served_case, served_client

MENDABLE = {case["name"]: case for case in load("markup")["mendable"]}
UNMENDABLE = {case["name"]: case for case in load("markup")["unmendable"]}
NOTE = NoteTool().definition()
PARSER_FLAGS = ("--enable-auto-tool-choice --tool-call-parser hermes", "--jinja", "Ollama")


@pytest.mark.parametrize("name", MENDABLE)
def test_strict_mode_refuses_the_markup_and_names_the_server_flag(name):
    client, _ = served_case(MENDABLE[name])
    with pytest.raises(errors.RepairableAnswer) as caught:
        client.send(TASK_MESSAGES, [NOTE])
    said = str(caught.value)
    assert "<tool_call>" in said and "tool_calls is empty" in said and "repair=True" in said
    for flag in PARSER_FLAGS:
        assert flag in said


@pytest.mark.parametrize("name", MENDABLE)
def test_strict_mode_never_takes_the_markup_for_a_final_answer(name):
    note = NoteTool()
    client, served = served_case(MENDABLE[name], NOTED)
    with pytest.raises(errors.RepairableAnswer) as caught:
        Agent(client, [note]).run("Take a note.")
    record = caught.value.record
    assert record.answer is None and record.stop_reason == "invalid_message"
    assert note.notes == [] and len(served.requests) == 1


@pytest.mark.parametrize("name", MENDABLE)
def test_repair_mode_reads_the_calls_and_records_the_repair(name):
    case = MENDABLE[name]
    client, _ = served_case(case, repair=True)
    sent = client.send(TASK_MESSAGES, [NOTE])
    message = sent.message
    assert [
        {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
        for c in message["tool_calls"]
    ] == case["calls"]
    assert message["content"] == case["content_after"]
    assert all(c["type"] == "function" and c["id"].startswith("call_") for c in message["tool_calls"])
    (repair,) = sent.repairs
    assert f"content held {len(case['calls'])} tool call(s) as Hermes/Qwen <tool_call> markup" in repair
    assert sent.response["choices"][0]["message"] == case["message"]  # the body stays as it came


@pytest.mark.parametrize("name", MENDABLE)
def test_repair_mode_runs_the_calls_through_the_agent(name):
    case = MENDABLE[name]
    note = NoteTool()
    client, served = served_case(case, NOTED, repair=True)
    agent = Agent(client, [note])
    assert agent.run("Take a note.") == "Noted."
    assert note.notes == [c["arguments"]["text"] for c in case["calls"]]
    record = agent.record
    assert record.model_calls[0].repairs and record.model_calls[0].response["choices"][0]["message"] == case["message"]
    echoed, *results = served.requests[1]["messages"][2:]
    ids = [c["id"] for c in echoed["tool_calls"]]
    assert [r["tool_call_id"] for r in results] == ids == [e.call_id for e in record.tool_executions]
    assert "<tool_call>" not in (echoed.get("content") or "")  # the calls go back as calls, not as markup too


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("name", UNMENDABLE)
def test_markup_that_holds_no_readable_call_is_refused_in_both_modes(name, repair):
    case = UNMENDABLE[name]
    note = NoteTool()
    client, _ = served_case(case, NOTED, repair=repair)
    with pytest.raises(errors.UnmendableToolCall) as caught:
        Agent(client, [note]).run("Take a note.")
    said = str(caught.value)
    assert case["error"] in said and "cannot mend" in said and "--tool-call-parser" in said
    assert note.notes == [] and caught.value.record.answer is None


def test_the_same_markup_gets_the_same_ids_on_replay_and_new_ones_in_another_answer():
    case = MENDABLE["two calls after a sentence, on Ollama"]
    first = [served_case(case, repair=True)[0].send(TASK_MESSAGES, [NOTE]).message for _ in range(2)]
    other = dict(case, name=case["name"] + " again")  # another response id
    second = served_case(other, repair=True)[0].send(TASK_MESSAGES, [NOTE]).message
    ids = [[c["id"] for c in m["tool_calls"]] for m in (*first, second)]
    assert ids[0] == ids[1] and len(set(ids[0])) == 2 and not set(ids[0]) & set(ids[2])


def test_markup_is_text_when_no_tools_were_offered():
    # Without tools a request cannot have asked for a call: the text is the answer, in both modes.
    message = {"role": "assistant", "content": 'Hermes writes <tool_call>{"name": "f"}</tool_call>.'}
    for repair in (False, True):
        fixture = {"base_url": "http://localhost:8000/v1", "answers": [completion(message, "stop")]}
        sent = served_client(fixture, repair=repair)[0].send(TASK_MESSAGES, [])
        assert sent.message == message and sent.repairs == ()


def test_structured_calls_win_over_markup_in_content():
    message = {
        "role": "assistant",
        "content": '<tool_call>{"name": "note", "arguments": {"text": "echo"}}</tool_call>',
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "note", "arguments": '{"text": "a"}'}}
        ],
    }
    client, _ = served_client({"base_url": "http://localhost:8000/v1", "answers": [completion(message, "tool_calls")]})
    assert client.send(TASK_MESSAGES, [NOTE]).message == message


@pytest.mark.parametrize(
    "block, arguments",
    [
        ('{"name": "note", "arguments": "{\\"text\\": \\"a string\\"}"}', '{"text": "a string"}'),
        ('{"name": "note"}', "{}"),
        ('{"name": "note", "arguments": {"text": "naïve ✓"}}', '{"text": "naïve ✓"}'),
    ],
)
def test_arguments_in_markup_become_a_json_string(block, arguments):
    message = {"role": "assistant", "content": f"<tool_call>{block}</tool_call>"}
    client, _ = served_client(
        {"base_url": "http://localhost:8000/v1", "answers": [completion(message, "stop")]}, repair=True
    )
    assert client.send(TASK_MESSAGES, [NOTE]).message["tool_calls"][0]["function"]["arguments"] == arguments


@pytest.mark.parametrize(
    "block",
    ['{"name": 5, "arguments": {}}', '["note", {}]', '{"name": "note", "arguments": [1]}', "[" * 100_000],
)
def test_hostile_markup_is_refused_not_run(block):
    note = NoteTool()
    message = {"role": "assistant", "content": f"<tool_call>{block}</tool_call>"}
    client, _ = served_client(
        {"base_url": "http://localhost:8000/v1", "answers": [completion(message, "stop"), NOTED]}, repair=True
    )
    with pytest.raises(errors.UnmendableToolCall):
        Agent(client, [note]).run("Take a note.")
    assert note.notes == []


def test_the_scan_finds_each_block_and_the_first_opener_never_closed():
    call = '<tool_call>{"name": "note"}</tool_call>'
    found = find_calls(f"a{call}b{call}c", {"note"})
    assert (len(found.calls), found.outside) == (2, "abc")
    assert find_calls("no markup", {"note"}) is None
    for content, start in ((f"a{call}<tool_call>2", 1 + len(call)), (f"<tool_call>x{call}", 0)):
        with pytest.raises(Unreadable) as caught:  # its closer missing; the closer is the next one's
            find_calls(content, {"note"})
        assert caught.value.reason == NOT_CLOSED and caught.value.markup == content[start:]


@pytest.mark.parametrize("repair", [False, True])
def test_an_opener_inside_a_block_is_refused_as_never_closed(repair):
    content = 'I will.<tool_call><tool_call>{"name": "note", "arguments": {"text": "a"}}</tool_call>'
    answer = completion({"role": "assistant", "content": content}, "stop")
    client, _ = served_client({"base_url": "http://localhost:8000/v1", "answers": [answer]}, repair=repair)
    with pytest.raises(errors.UnmendableToolCall, match="a <tool_call> is never closed"):
        client.send(TASK_MESSAGES, [NOTE])
