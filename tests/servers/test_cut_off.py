"""Tool-call arguments cut off mid-JSON under a finish_reason other than 'length': a truncation, and nothing runs."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab import Agent, errors
from reactlab.core.slips.truncation import ends_early

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, TickTool, completion, error_from, load, served_client

CUT_OFF = {case["name"]: case for case in load("cut_off")["cut_off"]}
NOT_CUT_OFF = {case["name"]: case for case in load("cut_off")["not_cut_off"]}
NOTE = NoteTool().definition()
FINAL = completion({"role": "assistant", "content": "Done."}, "stop", id_="chatcmpl-final")


def answer(case) -> dict:
    calls = [
        {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
        for c in case["calls"]
    ]
    body = completion({"role": "assistant", "content": None, "tool_calls": calls}, case["finish_reason"])
    if "usage" in case:
        body["usage"] = case["usage"]
    return body


def serving(case, *more, **kwargs):
    return served_client({"base_url": "http://localhost:8000/v1", "answers": [answer(case), *more]}, **kwargs)


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("name", CUT_OFF)
def test_arguments_that_break_off_are_a_truncation(name, repair):
    case = CUT_OFF[name]
    error = error_from(serving(case, repair=repair)[0], errors.TruncatedAnswer, [NOTE])
    said = str(error)
    assert "break off before their JSON ends" in said and "Raise max_tokens" in said and "Nothing was run" in said
    assert repr(case["calls"][-1]["arguments"][-40:]) in said  # where it broke off
    assert error.response == answer(case) and not error.retryable


@pytest.mark.parametrize("name", CUT_OFF)
def test_a_truncated_answer_runs_none_of_its_calls(name):
    case = CUT_OFF[name]
    note = NoteTool()
    client, served = serving(case, FINAL)
    with pytest.raises(errors.TruncatedAnswer) as caught:
        Agent(client, [note]).run("Take a note.")
    record = caught.value.record
    assert note.notes == [] and record.tool_executions == [] and len(served.requests) == 1
    assert record.stop_reason == "truncated_answer" and record.model_calls[0].response == answer(case)


@pytest.mark.parametrize("name", NOT_CUT_OFF)
def test_broken_arguments_the_model_wrote_go_back_to_the_model(name):
    case = NOT_CUT_OFF[name]
    note = NoteTool()
    client, served = serving(case, FINAL)
    agent = Agent(client, [note])
    assert agent.run("Take a note.") == "Done."
    (execution,) = agent.record.tool_executions
    assert note.notes == [] and case["agent_error"] in execution.result["error"]
    assert json.loads(served.requests[1]["messages"][3]["content"]) == execution.result


def test_no_arguments_are_not_a_cut_off():
    # LM Studio's "" (and blank space) means "no arguments": the tool runs.
    tick = TickTool()
    for arguments in ("", "  "):
        case = {"finish_reason": "tool_calls", "calls": [{"id": "1", "name": "tick", "arguments": arguments}]}
        client, _ = serving(case, FINAL)
        Agent(client, [tick]).run("Tick.")
    assert tick.ticks == 2


def test_the_limit_named_is_the_one_sent():
    case = CUT_OFF["a router rewrote 'length', and sent no usage"]
    client, served = serving(case, max_tokens=2000)
    with pytest.raises(errors.TruncatedAnswer, match=r"max_tokens \(2000\)"):
        client.send(TASK_MESSAGES, [NOTE])
    assert served.requests[0]["max_tokens"] == 2000


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(value=json_values, indent=st.sampled_from([None, 1]), ascii_only=st.booleans(), data=st.data())
def test_every_beginning_of_json_is_seen_as_cut_off_and_no_whole_value_is(value, indent, ascii_only, data):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert not ends_early(text) and not ends_early(text + " ")
    cut = data.draw(st.integers(min_value=1, max_value=len(text)))
    beginning = text[:cut]
    try:
        json.loads(beginning)
        whole = True
    except ValueError:
        whole = False
    assert ends_early(beginning) is (not whole and bool(beginning.strip())), beginning


@settings(max_examples=500, deadline=None, derandomize=True)
@given(text=st.text(alphabet='{}[]":,.-+0123456789eEtrufalsn\\ u\n', max_size=30))
def test_nothing_that_parses_is_called_cut_off(text):
    try:
        json.loads(text)
    except ValueError:
        return
    assert not ends_early(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"text": listt"}',
        '{"a": 1}}',
        '{"a" 1}',
        "{a: 1}",
        "[1,,2]",
        '{"a": "x\\q"}',
        '{"a": tru}',
        '{"a":1,}',
        '"a\nb"',
        '{"a": 01',
        '{"a": "\\u12"}',
        "[" * 100_000 + "}",
    ],
)
def test_broken_json_is_not_called_cut_off(text):
    assert not ends_early(text)


def test_a_deep_beginning_is_walked_without_recursion():
    assert ends_early("[" * 100_000) and ends_early('{"a": ' * 50_000)
