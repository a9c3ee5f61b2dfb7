"""Tool calls left in content in another model's markup (dialects.py): named with the server flag that
fixes it in strict mode, read and run with repair=True, never returned as a final answer; read in linear time."""

from __future__ import annotations

import json
import time

import pytest

from reactlab import Agent, errors
from reactlab.core.slips.dialects import find_calls

from ..helpers import NoteTool
from .serving import NOTED, TASK_MESSAGES, completion, load, served_case, served_client

SHAPES = load("dialects")
MENDABLE = {case["name"]: case for case in SHAPES["mendable"]}
UNMENDABLE = {case["name"]: case for case in SHAPES["unmendable"]}
NOT_CALLS = {case["name"]: case for case in SHAPES["not_calls"]}
NOTE = NoteTool().definition()


@pytest.mark.parametrize("name", MENDABLE)
def test_strict_mode_names_the_dialect_and_the_flag_and_never_answers_with_markup(name):
    case = MENDABLE[name]
    note = NoteTool()
    client, served = served_case(case, NOTED)
    with pytest.raises(errors.RepairableAnswer) as caught:
        Agent(client, [note]).run("Take a note.")
    said = str(caught.value)
    assert case["flag"] in said and "tool_calls is empty" in said and "repair=True" in said
    assert caught.value.record.answer is None and note.notes == [] and len(served.requests) == 1


@pytest.mark.parametrize("name", MENDABLE)
def test_repair_reads_the_calls_and_records_the_repair(name):
    case = MENDABLE[name]
    sent = served_case(case, repair=True)[0].send(TASK_MESSAGES, [NOTE])
    calls = sent.message["tool_calls"]
    assert [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])} for c in calls] == (
        case["calls"]
    )
    assert sent.message["content"] == case["content_after"]
    (repair,) = sent.repairs
    assert f"content held {len(case['calls'])} tool call(s) as" in repair
    assert sent.response["choices"][0]["message"] == case["message"]  # the body stays as it came


@pytest.mark.parametrize("name", MENDABLE)
def test_repair_runs_the_calls_through_the_agent(name):
    case = MENDABLE[name]
    note = NoteTool()
    client, served = served_case(case, NOTED, repair=True)
    assert Agent(client, [note]).run("Take a note.") == "Noted."
    assert note.notes == [c["arguments"]["text"] for c in case["calls"]]
    echoed = served.requests[1]["messages"][2]
    assert len(echoed["tool_calls"]) == len(case["calls"])


@pytest.mark.parametrize("repair", [False, True], ids=["strict", "repair"])
@pytest.mark.parametrize("name", UNMENDABLE)
def test_markup_that_holds_no_readable_call_is_refused_in_both_modes(name, repair):
    case = UNMENDABLE[name]
    note = NoteTool()
    client, _ = served_case(case, NOTED, repair=repair)
    with pytest.raises(errors.UnmendableToolCall) as caught:
        Agent(client, [note]).run("Take a note.")
    said = str(caught.value)
    assert case["dialect"] in said and "cannot be read as a tool call" in said and "--jinja" in said
    assert note.notes == [] and caught.value.record.answer is None


@pytest.mark.parametrize("repair", [False, True], ids=["strict", "repair"])
@pytest.mark.parametrize("name", NOT_CALLS)
def test_content_that_is_no_call_stays_the_answer(name, repair):
    case = NOT_CALLS[name]
    client, _ = served_case(case, repair=repair)
    sent = client.send(TASK_MESSAGES, [NOTE])
    assert sent.message == case["message"] and sent.repairs == ()


def test_markup_is_text_when_no_tools_were_offered():
    message = {"role": "assistant", "content": '[TOOL_CALLS] [{"name": "note", "arguments": {}}]'}
    for repair in (False, True):
        fixture = {"base_url": "http://localhost:8000/v1", "answers": [completion(message, "stop")]}
        assert served_client(fixture, repair=repair)[0].send(TASK_MESSAGES, []).message == message


REFUSED_JSON = {  # what json_text.read_json refuses in a tool call's arguments, each in a note's text
    "NaN": "NaN",
    "1e999": "1e999",
    "a number of 5,000 digits": "1" * 5000,
    "a key twice": '{"a": 1, "a": 2}',
    "a lone surrogate": '"\\ud800"',
    "nested 100 deep": "[" * 100 + "]" * 100,
}
IN_MARKUP = {
    "Mistral's JSON list": '[TOOL_CALLS] [{"name": "note", "arguments": ARGUMENTS}]',
    "DeepSeek's name form": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>note<｜tool▁sep｜>ARGUMENTS<｜tool▁call▁end｜>"
    "<｜tool▁calls▁end｜>",
}


@pytest.mark.parametrize("repair", [False, True], ids=["strict", "repair"])
@pytest.mark.parametrize("dialect", IN_MARKUP)
@pytest.mark.parametrize("edge", REFUSED_JSON)
def test_json_in_markup_is_refused_for_the_reason_it_is_in_tool_calls(edge, dialect, repair):
    arguments = '{"text": ' + REFUSED_JSON[edge] + "}"
    call = {"id": "call_1", "type": "function", "function": {"name": "note", "arguments": arguments}}
    as_call = {"role": "assistant", "content": None, "tool_calls": [call]}
    agent = Agent(served_client({"base_url": "http://localhost:8000/v1", "answers": [
        completion(as_call, "tool_calls"), NOTED]})[0], [NoteTool()])  # fmt: skip
    agent.run("Take a note.")
    refusal = agent.record.tool_executions[0].result["error"]
    assert refusal.startswith("Arguments cannot be used: ")
    reason = refusal.removeprefix("Arguments cannot be used: ").removesuffix(".")
    note = NoteTool()
    content = IN_MARKUP[dialect].replace("ARGUMENTS", arguments)
    case = {"name": edge, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    with pytest.raises(errors.UnmendableToolCall) as caught:
        Agent(served_case(case, NOTED, repair=repair)[0], [note]).run("Take a note.")
    assert f"cannot be read as a tool call ({reason})" in str(caught.value) and note.notes == []


ADVERSARIAL = {
    "Mistral openers": "[TOOL_CALLS]" * 90_000,
    "Mistral name form, a million calls' worth": '[TOOL_CALLS]note[ARGS]{"text": "a"}' * 30_000,
    "Mistral name without [ARGS]": "[TOOL_CALLS]" + "n" * 1_000_000,
    "python_start openers": "<|python_start|>" * 70_000,
    "python_tag and deep nesting": "<|python_tag|>" + "[" * 1_000_000,
    "Granite openers": "<|tool_call|>" * 80_000,
    "DeepSeek call openers": "<｜tool▁calls▁begin｜>" + "<｜tool▁call▁begin｜>" * 50_000,
    "DeepSeek calls, many closed": '<｜tool▁call▁begin｜>note<｜tool▁sep｜>{"text": "a"}<｜tool▁call▁end｜>' * 15_000,
    "function openers": "<function=" * 100_000,
    "function calls, many closed": '<function=note>{"text": "a"}</function>' * 25_000,
    "harmony recipients": "to=functions." * 80_000,
    "harmony calls": 'to=functions.note<|message|>{"text": "a"}<|call|>' * 20_000,
    "bare JSON unclosed": '[{"name": "note", "parameters": {"text": "a"}},' * 20_000,
    "bare JSON nesting": '{"name": "note", "parameters": ' + "[" * 1_000_000,
}


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_about_a_megabyte_of_hostile_markup_is_read_in_linear_time(name):
    content = ADVERSARIAL[name]
    assert len(content) > 900_000
    started = time.perf_counter()
    try:
        find_calls(content, {"note"})
    except ValueError:
        pass  # refused as unreadable: what counts is how long it took
    elapsed = time.perf_counter() - started
    # A scan that restarts at each opener reads ~n²/2 characters: for 1 MB that is minutes, not seconds.
    assert elapsed < 3.0, f"{elapsed:.2f} s"
