"""Every valid answer shape of the servers people use works in the default, strict mode."""

from __future__ import annotations

import json

import pytest

from reactlab import Agent

from ..helpers import NoteTool
from .serving import TASK_MESSAGES, TickTool, load, served_client, shape_names

SHAPES = shape_names()
NOTE = NoteTool().definition()


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("repair", [False, True])
def test_the_client_hands_each_answer_on_untouched(name, repair):
    fixture = load(name)
    client, _ = served_client(fixture, repair=repair)
    for answer in fixture["answers"]:
        completion = client.send(TASK_MESSAGES, [NOTE])
        assert completion.response == answer  # the record keeps the body exactly as it came
        assert completion.message == answer["choices"][0]["message"]
        assert completion.repairs == ()  # a valid shape is never "repaired", not even on request
        assert completion.usage == answer.get("usage", {})


AGENT_SHAPES = [n for n in SHAPES if n not in ("lmstudio", "kimi_vllm")]


@pytest.mark.parametrize("name", AGENT_SHAPES)
def test_each_shape_runs_through_the_agent(name):
    fixture = load(name)
    client, served = served_client(fixture)
    note = NoteTool()
    agent = Agent(client, [note, TickTool()])
    first, final = fixture["answers"]
    call = first["choices"][0]["message"]["tool_calls"][0]

    assert agent.run("Take a note.") == final["choices"][0]["message"]["content"]
    assert note.notes == [json.loads(call["function"]["arguments"])["text"]]
    record = agent.record
    assert [c.response for c in record.model_calls] == fixture["answers"]
    assert record.tool_executions[0].call_id == call["id"]
    tool_message = record.messages[3]
    assert tool_message == {"role": "tool", "tool_call_id": call["id"], "content": '{"ok": true, "count": 1}'}
    # The second request carries the first answer back the way this provider accepts it.
    echoed = served.requests[1]["messages"][2]
    assert echoed == client.provider.echo_message(first["choices"][0]["message"])
    assert echoed["tool_calls"] == first["choices"][0]["message"]["tool_calls"]


def test_openai_gets_back_only_the_standard_keys():
    fixture = load("openai")
    client, served = served_client(fixture)
    Agent(client, [NoteTool()]).run("Take a note.")
    echoed = served.requests[1]["messages"][2]
    assert set(echoed) == {"role", "content", "tool_calls"}  # not annotations, refusal, audio, function_call


@pytest.mark.parametrize("name, field", [("ollama", "reasoning"), ("llamacpp", "reasoning_content")])
def test_local_servers_get_their_own_reasoning_back(name, field):
    fixture = load(name)
    client, served = served_client(fixture)
    Agent(client, [NoteTool()]).run("Take a note.")
    assert served.requests[1]["messages"][2][field] == fixture["answers"][0]["choices"][0]["message"][field]


def test_lm_studio_shape_through_the_agent():
    fixture = load("lmstudio")
    client, served = served_client(fixture)
    note, tick = NoteTool(), TickTool()
    agent = Agent(client, [note, tick])
    assert agent.run("Take a note.") == "Noted and ticked."
    assert note.notes == ["lm studio"]
    assert "content" not in served.requests[1]["messages"][2]  # sent back as it came
    tick_run = agent.record.tool_executions[1]
    assert (tick_run.call_id, tick_run.arguments) == ("902716354", "")  # the client passed "" on untouched


def test_lm_studio_empty_arguments_mean_no_arguments():
    fixture = load("lmstudio")
    client, _ = served_client(fixture)
    tick = TickTool()
    agent = Agent(client, [NoteTool(), tick])
    agent.run("Take a note.")
    assert tick.ticks == 1 and agent.record.tool_executions[1].result == {"ok": True, "ticks": 1}


def test_ids_repeating_across_turns_reach_the_agent_unchanged():
    fixture = load("kimi_vllm")
    client, _ = served_client(fixture)
    ids = [client.send(TASK_MESSAGES, [NOTE]).message.get("tool_calls", [{}])[0].get("id") for _ in range(3)]
    assert ids == ["functions.note:0", "functions.note:0", None]


def test_ids_repeating_across_turns_run_through_the_agent():
    fixture = load("kimi_vllm")
    client, _ = served_client(fixture)
    note = NoteTool()
    assert Agent(client, [note]).run("Take two notes.") == "Two notes."
    assert note.notes == ["first", "second"]


def test_deepseek_thinking_gets_its_reasoning_content_back_after_a_tool_call():
    fixture = load("deepseek_thinking")
    client, served = served_client(fixture, thinking=True)
    Agent(client, [NoteTool()]).run("Take a note.")
    first = fixture["answers"][0]["choices"][0]["message"]
    assert served.requests[0]["thinking"] == {"type": "enabled"}
    assert served.requests[1]["messages"][2]["reasoning_content"] == first["reasoning_content"]


def test_openrouter_gets_its_reasoning_details_back_unchanged():
    fixture = load("openrouter")
    client, served = served_client(fixture)
    Agent(client, [NoteTool()]).run("Take a note.")
    first = fixture["answers"][0]["choices"][0]["message"]
    echoed = served.requests[1]["messages"][2]
    assert client.provider.name == "openrouter"
    assert echoed["reasoning_details"] == first["reasoning_details"] and echoed["reasoning"] == first["reasoning"]


def test_gemini_gets_its_thought_signature_back_unchanged():
    fixture = load("gemini")
    client, served = served_client(fixture)
    Agent(client, [NoteTool()]).run("Take a note.")
    sent_call = served.requests[1]["messages"][2]["tool_calls"][0]
    first_call = fixture["answers"][0]["choices"][0]["message"]["tool_calls"][0]
    assert client.provider.name == "gemini"
    assert first_call["extra_content"]["google"]["thought_signature"]
    assert sent_call == first_call  # the signature, and the call around it, exactly as received


def test_mistral_nine_character_ids_are_kept():
    fixture = load("mistral")
    client, served = served_client(fixture)
    agent = Agent(client, [NoteTool()])
    agent.run("Take a note.")
    call_id = fixture["answers"][0]["choices"][0]["message"]["tool_calls"][0]["id"]
    assert len(call_id) == 9 and call_id.isalnum()
    assert served.requests[1]["messages"][2]["tool_calls"][0]["id"] == call_id
    assert served.requests[1]["messages"][3]["tool_call_id"] == call_id == agent.record.tool_executions[0].call_id


def test_azure_gets_back_only_the_standard_keys():
    fixture = load("azure")
    client, served = served_client(fixture)
    Agent(client, [NoteTool()]).run("Take a note.")
    assert client.provider.name == "azure"
    assert set(served.requests[1]["messages"][2]) == {"role", "content", "tool_calls"}  # not refusal, annotations
