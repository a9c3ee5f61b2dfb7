from __future__ import annotations

import json

import httpx
import pytest

from reactlab import Agent, Cassette, DeepSeekClient, RecordingTransport, Script, call, errors
from reactlab.model.cassette import FORMAT

from .conftest import FAKE_KEY
from .helpers import NoteTool


def live_server(script: Script) -> httpx.MockTransport:
    """A stand-in for the provider at the HTTP edge: it checks the key like a real server would."""
    transport = script.transport()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers.get("Authorization") != f"Bearer {FAKE_KEY}":
            return httpx.Response(401, json={"error": {"message": "bad key"}})
        response = transport.handle_request(request)
        data = json.loads(response.read())
        data["choices"][0]["message"]["content"] = data["choices"][0]["message"]["content"] + f" (key {FAKE_KEY})"
        return httpx.Response(200, json=data)

    return httpx.MockTransport(handler)


def record_run(tmp_path, fake_key) -> tuple[Cassette, Agent]:
    script = Script().tool_calls(call("note", text="a"), call("note", text="b")).final_answer("done")
    recorder = RecordingTransport(live_server(script))
    agent = Agent(DeepSeekClient(transport=recorder), [NoteTool()])
    agent.run("take notes")
    path = recorder.cassette("two notes").save(tmp_path / "run.json")
    return Cassette.load(path), agent


def test_record_then_replay_round_trip(tmp_path, fake_key):
    cassette, live = record_run(tmp_path, fake_key)
    text = (tmp_path / "run.json").read_text()
    assert FAKE_KEY not in text and "Authorization" not in text and "Bearer" not in text
    data = json.loads(text)
    assert data["format"] == FORMAT and data["source"] == "recorded" and data["description"] == "two notes"
    assert len(data["interactions"]) == 2
    first = data["interactions"][0]["response"]
    assert set(first) >= {"id", "object", "created", "model", "choices", "usage"}
    assert set(first["choices"][0]) >= {"index", "message", "finish_reason"}

    replayed = Agent(cassette.client(), [NoteTool()])
    answer = replayed.run("take notes")
    assert answer == live.record.answer.replace(FAKE_KEY, "[API key]")
    assert [m.get("role") for m in replayed.record.messages] == [m.get("role") for m in live.record.messages]
    assert replayed.record.tool_executions[1].result == {"ok": True, "count": 2}


def test_replay_refuses_a_run_that_left_the_recorded_route(tmp_path, fake_key):
    cassette, _ = record_run(tmp_path, fake_key)

    class OtherTool(NoteTool):
        name = "scribble"

    agent = Agent(cassette.client(), [OtherTool()])
    with pytest.raises(errors.CassetteMismatch) as caught:
        agent.run("take notes")
    assert "Interaction 1 of 2" in str(caught.value)
    assert "tools offered differ" in str(caught.value) and "scribble" in str(caught.value)
    assert caught.value.record.stop_reason == "cassette_mismatch"


def test_replay_names_the_message_that_differs(tmp_path, fake_key):
    cassette, _ = record_run(tmp_path, fake_key)
    # Change a recorded tool_call_id: the live run will answer with the real one.
    recorded = cassette.interactions[1]["request"]["messages"]
    recorded[3]["tool_call_id"] = "call_99_other"
    with pytest.raises(errors.CassetteMismatch, match=r"Interaction 2 of 2.*messages\[3\]\.tool_call_id"):
        Agent(cassette.client(), [NoteTool()]).run("take notes")


def test_running_out_of_interactions(tmp_path, fake_key):
    cassette, _ = record_run(tmp_path, fake_key)
    cassette.interactions = cassette.interactions[:1]
    with pytest.raises(errors.CassetteExhausted, match="has 1 interactions and the agent asked for number 2"):
        Agent(cassette.client(), [NoteTool()]).run("take notes")


def test_a_cassette_without_requests_replays_blind():
    body = (
        Script()
        .final_answer("hello")
        .transport()
        .handle_request(httpx.Request("POST", "http://x/chat/completions", json={"messages": []}))
    )
    cassette = Cassette([{"response": json.loads(body.read())}], "scripted", "no requests")
    assert Agent(cassette.client(), []).run("anything") == "hello"


@pytest.mark.parametrize(
    "data, fragment",
    [
        ({"format": "other"}, "not a reactlab.cassette/1"),
        ({"format": FORMAT, "source": "made up", "interactions": []}, "'source'"),
        ({"format": FORMAT, "source": "recorded", "interactions": {}}, "must be a list"),
        ({"format": FORMAT, "source": "recorded", "interactions": [{"request": {}}]}, "interaction 1"),
    ],
)
def test_bad_cassettes_are_refused_clearly(data, fragment):
    with pytest.raises(errors.CassetteError, match=fragment):
        Cassette.from_dict(data)


def test_unreadable_cassette_file(tmp_path):
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(errors.CassetteError, match="Cannot read cassette"):
        Cassette.load(tmp_path / "broken.json")


def test_failed_live_calls_are_not_recorded(fake_key):
    recorder = RecordingTransport(httpx.MockTransport(lambda r: httpx.Response(429, json={"error": {"message": "x"}})))
    agent = Agent(DeepSeekClient(transport=recorder), [])
    with pytest.raises(errors.RateLimited):
        agent.run("task")
    assert recorder.cassette().interactions == []


def test_the_shipped_shop_cassette_holds_every_observation():
    from reactlab.samples import shop_cassette

    cassette = shop_cassette()
    calls = cassette.recorded_calls()
    assert [c.name for c in calls] == ["read_file"] * 3 + ["bash", "edit", "bash"]
    assert [c.interaction for c in calls] == [1, 1, 1, 2, 3, 4]
    assert cassette.missing_observations() == []
    assert all(json.loads(c.observation)["ok"] is True for c in calls)


def test_a_cassette_without_requests_says_which_observations_are_missing():
    from reactlab.samples import shop_cassette

    cassette = shop_cassette()
    del cassette.interactions[2]["request"]  # the request answering interaction 2's bash call
    cassette.interactions[4]["request"]["messages"].pop()  # the tool message answering interaction 4's bash
    missing = cassette.missing_observations()
    assert len(missing) == 2
    assert missing[0].startswith("interaction 2: bash call 'call_00_") and "request 3" in missing[0]
    assert missing[1].startswith("interaction 4: bash call 'call_00_") and "request 5" in missing[1]


def test_recorded_calls_skip_malformed_answers_instead_of_failing():
    cassette = Cassette.from_dict(
        {
            "format": FORMAT,
            "source": "recorded",
            "interactions": [
                {"response": {"choices": [{"message": {"tool_calls": "not a list"}}]}},
                {"response": {"choices": [{"message": {"tool_calls": [1, {"id": 2}, {"function": None}]}}]}},
                {"response": {"choices": [{"message": None}]}, "request": {"messages": "x"}},
                {"response": {"choices": []}, "request": [1]},
            ],
        }
    )
    assert cassette.recorded_calls() == [] and cassette.missing_observations() == []
