from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, RunRecord, Script, call, errors
from reactlab.replay.scripted import ScriptTransport

from .helpers import NoteTool


def agent_for(script: Script, **kwargs) -> tuple[Agent, NoteTool]:
    tool = NoteTool()
    return Agent(script.client(), [tool], **kwargs), tool


def test_final_answer_on_the_first_call():
    agent, _ = agent_for(Script().final_answer("42"))
    assert agent.run("question") == "42"
    record = agent.record
    assert record.stop_reason == "answer" and record.answer == "42"
    assert len(record.model_calls) == 1 and record.tool_executions == []
    assert [m["role"] for m in record.messages] == ["system", "user", "assistant"]
    assert record.model_calls[0].messages == record.messages[:2]


def test_message_order_and_tool_call_ids():
    script = Script().tool_calls(call("note", text="a"), call("note", text="b")).final_answer("done")
    agent, tool = agent_for(script)
    assert agent.run("write two notes") == "done"
    assert tool.notes == ["a", "b"]  # several calls in one answer run one after another
    messages = agent.record.messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    ids = [c["id"] for c in messages[2]["tool_calls"]]
    assert [messages[3]["tool_call_id"], messages[4]["tool_call_id"]] == ids
    assert json.loads(messages[3]["content"]) == {"ok": True, "count": 1}
    # the second request holds the first answer and both results: the history is append-only
    second = agent.record.model_calls[1].messages
    assert second == messages[:5]
    assert agent.record.model_calls[0].messages == second[:2]


def test_system_and_user_come_first():
    agent, _ = agent_for(Script().final_answer("ok"), system="RULES")
    agent.run("TASK")
    assert agent.record.messages[:2] == [{"role": "system", "content": "RULES"}, {"role": "user", "content": "TASK"}]


def test_returning_a_result_does_not_call_the_model():
    script = Script().tool_calls(call("note", text="a"), call("note", text="b")).final_answer("done")
    transport = ScriptTransport(script)
    tool = NoteTool()
    served_when_tool_ran: list[int] = []
    tool.observers.append(lambda text: served_when_tool_ran.append(transport.position))
    agent = Agent(DeepSeekClient(api_key="", transport=transport), [tool])
    agent.run("task")
    assert served_when_tool_ran == [1, 1]
    assert transport.position == 2


@pytest.mark.parametrize(
    "script, kind",
    [
        (Script().empty_answer(), errors.EmptyAnswer),
        (Script().final_answer("   \n"), errors.EmptyAnswer),
        (Script().message({"role": "assistant", "content": None}), errors.EmptyAnswer),
        (Script().message({"role": "assistant", "content": None, "tool_calls": []}), errors.EmptyAnswer),
        (Script().truncated_answer(), errors.TruncatedAnswer),
    ],
)
def test_empty_or_truncated_answer_is_an_error(script, kind):
    agent, _ = agent_for(script)
    with pytest.raises(kind) as caught:
        agent.run("task")
    assert caught.value.record is agent.record
    assert agent.record.stop_reason == kind.stop_reason
    assert agent.record.answer is None
    assert agent.record.model_calls[0].response is not None  # even the bad answer is kept


def _calls(n: int, start: int = 0):
    return [call("note", text=f"n{start + i}") for i in range(n)]


def test_step_limit_at_and_past_the_boundary():
    at = Script()
    for i in range(7):
        at.tool_calls(*_calls(1, i))
    agent, tool = agent_for(at.final_answer("made it"))
    assert agent.run("task") == "made it"
    assert len(agent.record.model_calls) == 8

    past = Script()
    for i in range(9):
        past.tool_calls(*_calls(1, i))
    agent, tool = agent_for(past)
    with pytest.raises(errors.StepLimitExceeded) as caught:
        agent.run("task")
    assert len(caught.value.record.model_calls) == 8
    assert len(tool.notes) == 8
    assert caught.value.record.stop_reason == "step_limit"


def test_tool_call_limit_at_and_past_the_boundary():
    agent, tool = agent_for(Script().tool_calls(*_calls(8)).tool_calls(*_calls(8, 8)).final_answer("16 done"))
    assert agent.run("task") == "16 done"
    assert len(tool.notes) == 16

    agent, tool = agent_for(Script().tool_calls(*_calls(8)).tool_calls(*_calls(9, 8)).final_answer("never"))
    with pytest.raises(errors.ToolCallLimitExceeded) as caught:
        agent.run("task")
    assert len(tool.notes) == 8  # none of the answer that would pass the limit ran
    record = caught.value.record
    assert record.messages[-1]["role"] == "assistant" and len(record.messages[-1]["tool_calls"]) == 9
    assert len(record.model_calls) == 2


def test_limits_are_configurable():
    agent, _ = agent_for(Script().tool_calls(*_calls(1)).tool_calls(*_calls(1, 1)), max_steps=1)
    with pytest.raises(errors.StepLimitExceeded):
        agent.run("task")
    agent, tool = agent_for(Script().tool_calls(*_calls(3)), max_tool_calls=2)
    with pytest.raises(errors.ToolCallLimitExceeded):
        agent.run("task")
    assert tool.notes == []


def _tool_call(id_, arguments='{"text": "x"}', type_="function", name="note"):
    return {"id": id_, "type": type_, "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize(
    "message, fragment",
    [
        ({"role": "assistant", "tool_calls": [_tool_call(None)]}, "has no id"),
        ({"role": "assistant", "tool_calls": [_tool_call("")]}, "has no id"),
        ({"role": "assistant", "tool_calls": [_tool_call("a"), _tool_call("a")]}, "repeats id"),
        ({"role": "assistant", "tool_calls": [_tool_call("a", arguments={"text": "x"})]}, "JSON string"),
        ({"role": "assistant", "tool_calls": [_tool_call("a", type_="code")]}, "type must be"),
        ({"role": "assistant", "tool_calls": [_tool_call("a", name=7)]}, "string name"),
        ({"role": "assistant", "tool_calls": "note"}, "must be a list"),
        ({"role": "assistant", "tool_calls": ["note"]}, "not an object"),
        ({"role": "user", "content": "hi"}, "role 'assistant'"),
        ({"role": "assistant", "content": ["hi"]}, "'content' must be"),
    ],
)
def test_invalid_messages_are_refused(message, fragment):
    tool = NoteTool()
    agent = Agent(Script().message(message).client(), [tool])
    with pytest.raises(errors.InvalidAssistantMessage, match=fragment) as caught:
        agent.run("task")
    assert tool.notes == []
    assert caught.value.record.stop_reason == "invalid_message"


def test_ids_may_repeat_across_answers():
    # Kimi on vLLM numbers calls afresh each turn ("functions.note:0"); the protocol needs ids unique
    # within one answer, each answered before the next request.
    first = {"role": "assistant", "content": "", "tool_calls": [_tool_call("functions.note:0")]}
    twice = {"role": "assistant", "content": "", "tool_calls": [_tool_call("functions.note:0"), _tool_call("b")]}
    script = Script().message(first, "tool_calls").message(twice, "tool_calls").final_answer("done")
    agent, tool = agent_for(script)
    assert agent.run("task") == "done"
    assert tool.notes == ["x", "x", "x"]
    roles_and_ids = [(m["role"], m.get("tool_call_id")) for m in agent.record.messages[2:]]
    assert roles_and_ids == [
        ("assistant", None), ("tool", "functions.note:0"),
        ("assistant", None), ("tool", "functions.note:0"), ("tool", "b"),
        ("assistant", None),
    ]  # fmt: skip
    second_request = agent.record.model_calls[1].messages
    result = {"role": "tool", "tool_call_id": "functions.note:0", "content": '{"ok": true, "count": 1}'}
    assert second_request[-1] == result


def test_repeated_ids_still_count_towards_the_tool_call_limit():
    same = {"role": "assistant", "content": "", "tool_calls": [_tool_call("0"), _tool_call("1")]}
    script = Script().message(same, "tool_calls").message(same, "tool_calls").message(same, "tool_calls")
    agent, tool = agent_for(script, max_tool_calls=5)
    with pytest.raises(errors.ToolCallLimitExceeded, match="4 done, 2 more asked, 5 allowed"):
        agent.run("task")
    assert len(tool.notes) == 4


def test_repairs_reach_the_record():
    class Mending:
        def __init__(self):
            self.inner = Script().final_answer("ok").client()

        def send(self, messages, tools):
            completion = self.inner.send(messages, tools)
            completion = type(completion)(completion.request, completion.response)
            object.__setattr__(completion, "repairs", ("id was missing", "type was missing"))
            return completion

    agent = Agent(Mending(), [NoteTool()])
    agent.run("task")
    assert agent.record.model_calls[0].repairs == ["id was missing", "type was missing"]
    again = RunRecord.from_dict(json.loads(agent.record.to_json()))
    assert again.model_calls[0].repairs == ["id was missing", "type was missing"]
    old = json.loads(agent.record.to_json())
    del old["model_calls"][0]["repairs"]  # a record saved before repairs existed
    assert RunRecord.from_dict(old).model_calls[0].repairs == []


@pytest.mark.parametrize(
    "arguments, name, fragment",
    [
        ("{not json", "note", "not valid JSON"),
        ("[1, 2]", "note", "JSON object, not list"),
        ('"text"', "note", "JSON object, not str"),
        ('{"text": "x"}', "rm_rf", "'rm_rf' is not offered. Offered: note"),
        ('{"text": "fail"}', "note", "refusing to write 'fail'"),
        ('{"text": "crash"}', "note", "The tool failed: RuntimeError: disk on fire"),
        ('{"text": 5}', "note", "5 is not of type 'string' (at $.text)"),
        ('{"text": "x", "mode": "w"}', "note", "('mode' was unexpected)"),
        ("{}", "note", "'text' is a required property"),
        ("[" * 100_000 + "}", "note", "nested deeper than 64 levels"),  # past the recursion limit, and broken
    ],
)
def test_bad_calls_become_results_the_model_sees(arguments, name, fragment):
    script = Script().tool_call(name, arguments).final_answer("recovered")
    agent, tool = agent_for(script)
    assert agent.run("task") == "recovered"
    assert tool.notes == []
    (execution,) = agent.record.tool_executions
    assert execution.result["ok"] is False and fragment in execution.result["error"]
    sent_back = agent.record.model_calls[1].messages[-1]
    assert sent_back["role"] == "tool" and json.loads(sent_back["content"]) == execution.result


def test_api_failure_mid_run_keeps_everything_so_far():
    script = Script().tool_call("note", text="kept")
    transport = ScriptTransport(script)

    def handler(request: httpx.Request) -> httpx.Response:
        if transport.position < len(script):
            return transport.handle_request(request)
        raise httpx.ConnectError("network went away")

    tool = NoteTool()
    agent = Agent(DeepSeekClient(api_key="", transport=httpx.MockTransport(handler)), [tool])
    with pytest.raises(errors.APIConnectionError) as caught:
        agent.run("task")
    record = caught.value.record
    assert record.stop_reason == "api_connection_error"
    assert len(record.model_calls) == 2 and record.model_calls[1].response is None
    assert record.model_calls[1].request["messages"] == record.messages
    assert [e.result for e in record.tool_executions] == [{"ok": True, "count": 1}]
    assert "network went away" in record.error


def test_a_client_cannot_change_the_history():
    class Meddling:
        def __init__(self):
            self.inner = Script().final_answer("ok").client()
            self.refused = []

        def send(self, messages, tools):
            completion = self.inner.send(messages, tools)
            for meddle in (
                lambda: messages.append({"role": "user", "content": "injected"}),
                lambda: tools.clear(),
                lambda: messages[1].update(content="changed"),
            ):
                with pytest.raises(TypeError, match="read-only snapshot") as refused:
                    meddle()
                self.refused.append(refused)
            return completion

    client = Meddling()
    agent = Agent(client, [NoteTool()])
    agent.run("task")
    assert len(client.refused) == 3
    assert [m["role"] for m in agent.record.messages] == ["system", "user", "assistant"]
    assert agent.record.messages[1] == {"role": "user", "content": "task"}
    assert [t["function"]["name"] for t in agent.record.model_calls[0].request["tools"]] == ["note"]


def test_reasoning_content_stays_in_the_history():
    message = {"role": "assistant", "content": "", "reasoning_content": "think", "tool_calls": [_tool_call("r1")]}
    agent, _ = agent_for(Script().message(message, "tool_calls").final_answer("ok"))
    agent.run("task")
    assert agent.record.model_calls[1].messages[2]["reasoning_content"] == "think"


def test_record_round_trips_through_json():
    agent, _ = agent_for(Script().tool_call("note", text="a").final_answer("ok"))
    agent.run("task")
    again = RunRecord.from_dict(json.loads(agent.record.to_json()))
    assert again == agent.record


def test_a_tool_that_returns_garbage_is_a_tool_failure():
    class Sloppy(NoteTool):
        name = "sloppy"

        def run(self, text):
            return {"path": Path("/x")} if text == "path" else ["not", "a", "dict"]

    script = Script().tool_call("sloppy", text="path").tool_call("sloppy", text="list").final_answer("ok")
    agent = Agent(script.client(), [Sloppy()])
    assert agent.run("task") == "ok"
    first, second = (e.result for e in agent.record.tool_executions)
    assert first == {"ok": False, "error": "The tool 'sloppy' returned a result that is not JSON."}
    assert second == {"ok": False, "error": "The tool 'sloppy' returned list, not an object."}
    assert json.loads(agent.record.messages[3]["content"]) == first
    agent.record.to_json()  # the record stays serialisable


def test_a_failed_call_keeps_what_the_provider_said():
    def refuse(request: httpx.Request) -> httpx.Response:
        body = {"error": {"message": "slow down", "type": "rate_limit", "code": "rpm"}}
        return httpx.Response(429, json=body, headers={"Retry-After": "7", "x-request-id": "req-42"})

    client = DeepSeekClient(api_key="", transport=httpx.MockTransport(refuse))
    agent = Agent(client, [])
    with pytest.raises(errors.RateLimited):
        agent.run("hi")
    error = agent.record.model_calls[0].error
    assert error["retry_after"] == 7 and error["request_id"] == "req-42" and error["provider_code"] == "rpm"
    assert json.loads(agent.record.to_json())["model_calls"][0]["error"]["status"] == 429
