from __future__ import annotations

import json

import httpx

from reactlab import Script, call
from reactlab.replay.scripted import estimate_usage


def serve(script: Script, bodies: list[dict]) -> list[dict]:
    transport = script.transport()
    return [
        json.loads(transport.handle_request(httpx.Request("POST", "http://x/chat/completions", json=b)).read())
        for b in bodies
    ]


def test_scripted_bodies_are_full_chat_completions_and_deterministic():
    script = Script().tool_calls(call("read_file", path="a.py"), call("bash", command="ls")).final_answer("done")
    bodies = [{"model": "m", "messages": [{"role": "user", "content": "x"}]}] * 2
    first, again = serve(script, bodies), serve(script, bodies)
    assert first == again
    tool_answer, final = first
    assert tool_answer["object"] == "chat.completion" and tool_answer["model"] == "m"
    choice = tool_answer["choices"][0]
    assert choice["index"] == 0 and choice["finish_reason"] == "tool_calls"
    calls = choice["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read_file", "bash"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"path": "a.py"}
    assert calls[0]["id"].startswith("call_00_") and calls[1]["id"].startswith("call_01_")
    assert final["choices"][0] == {
        "index": 0,
        "message": {"role": "assistant", "content": "done"},
        "finish_reason": "stop",
    }


def test_raw_argument_strings_are_sent_as_they_are():
    (body,) = serve(Script().tool_call("bash", '{"command": '), [{"messages": []}])
    assert body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == '{"command": '


def test_empty_and_truncated_answers():
    empty, cut = serve(Script().empty_answer().truncated_answer("The ca"), [{"messages": []}] * 2)
    assert empty["choices"][0]["message"]["content"] == "" and empty["choices"][0]["finish_reason"] == "stop"
    assert cut["choices"][0]["finish_reason"] == "length"


def test_usage_estimate_grows_and_counts_the_shared_prefix():
    first = {"messages": [{"role": "system", "content": "s" * 4000}]}
    second = {"messages": first["messages"] + [{"role": "user", "content": "u" * 400}]}
    unrelated = {"messages": [{"role": "system", "content": "t" * 4000}]}
    a = estimate_usage(first, None, {})
    b = estimate_usage(second, first, {})
    c = estimate_usage(unrelated, first, {})
    assert a["prompt_cache_hit_tokens"] == 0 and a["estimated"] is True
    assert b["prompt_tokens"] > a["prompt_tokens"]
    assert b["prompt_cache_hit_tokens"] >= 960 and b["prompt_cache_hit_tokens"] % 64 == 0
    assert b["prompt_tokens"] == b["prompt_cache_hit_tokens"] + b["prompt_cache_miss_tokens"]
    assert c["prompt_cache_hit_tokens"] == 0
