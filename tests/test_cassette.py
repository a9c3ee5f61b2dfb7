from __future__ import annotations

import copy
import json
import re
import tempfile
from pathlib import Path

import httpx
import pytest

from reactlab import Agent, Cassette, DeepSeekClient, RecordingTransport, Script, call, errors
from reactlab.replay.cassette import FORMAT, MAX_BYTES

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


def test_a_replay_that_leaves_its_recording_says_so_in_the_run_language(tmp_path, fake_key):
    cassette, _ = record_run(tmp_path, fake_key)

    class OtherTool(NoteTool):
        name = "scribble"

    with pytest.raises(errors.CassetteMismatch) as caught:
        Agent(cassette.client(), [OtherTool()], lang="ru").run("take notes")
    assert str(caught.value).startswith("Запись 1 из 2: запрос сейчас не такой, как в записи: предложены другие")
    assert "scribble" in str(caught.value) and "differ" not in str(caught.value)
    cassette.interactions = cassette.interactions[:1]
    with pytest.raises(errors.CassetteExhausted, match="В кассете записей: 1, а агент запросил запись номер 2"):
        Agent(cassette.client(), [NoteTool()], lang="ru").run("take notes")
    with pytest.raises(errors.CassetteExhausted, match="В сценарии ответов: 0, а агент запросил ответ номер 1"):
        Agent(Script().client(), [NoteTool()], lang="ru").run("take notes")


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
        ({"format": FORMAT, "source": "made up", "interactions": []}, "source: must be 'recorded' or 'scripted'"),
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
    cassette = Cassette(  # made in code, so never checked against the schema as a loaded one is
        [
            {"response": {"choices": [{"message": {"tool_calls": "not a list"}}]}},
            {"response": {"choices": [{"message": {"tool_calls": [1, {"id": 2}, {"function": None}]}}]}},
            {"response": {"choices": [{"message": None}]}, "request": {"messages": "x"}},
            {"response": {"choices": []}, "request": [1]},
        ]
    )
    assert cassette.recorded_calls() == [] and cassette.missing_observations() == []


# --- A cassette is data from outside: every shape is checked when it is read (issue 24) ---


def _shop_with(change) -> dict:
    from reactlab.samples import shop_cassette

    data = copy.deepcopy(shop_cassette().to_dict())
    change(data["interactions"])
    return data


# (what is wrong, where the error says it is). Before the schema, each of these loaded, and the run
# then crashed in the replay (AttributeError), or the client stopped it as a malformed answer.
MALFORMED = {
    "a message that is a number": (
        lambda i: i[1]["request"].update(messages=[1, 2]), "interaction 2: request.messages[0]: must be an object"),
    "a call whose function is text": (
        lambda i: i[1]["request"]["messages"][2]["tool_calls"][0].update(function="read_file"),
        "interaction 2: request.messages[2].tool_calls[0].function: must be an object, not a string"),
    "a tool that is a name": (
        lambda i: i[0]["request"].update(tools=["read_file"]), "interaction 1: request.tools[0]: must be an object"),
    "tools that are text": (
        lambda i: i[4]["request"].update(tools="read_file"), "interaction 5: request.tools: must be a list"),
    "a request that is a list": (lambda i: i[2].update(request=[]), "interaction 3: request: must be an object"),
    "a role nobody has": (
        lambda i: i[0]["request"]["messages"][0].update(role="root"),
        "interaction 1: request.messages[0].role: must be 'system' or 'user' or 'assistant' or 'tool'"),
    "no choices": (lambda i: i[3]["response"].update(choices=[]), "interaction 4: response.choices: "),
    "a choice that is a number": (
        lambda i: i[0]["response"].update(choices=[1]), "interaction 1: response.choices[0]: must be an object"),
    "a message that is text": (
        lambda i: i[0]["response"]["choices"][0].update(message="hi"),
        "interaction 1: response.choices[0].message: must be an object, not a string"),
    "tool calls that are text": (
        lambda i: i[0]["response"]["choices"][0]["message"].update(tool_calls="read_file"),
        "interaction 1: response.choices[0].message.tool_calls: must be a list or null, not a string"),
    "a call that is a list": (
        lambda i: i[1]["response"]["choices"][0]["message"].update(tool_calls=[["bash"]]),
        "interaction 2: response.choices[0].message.tool_calls[0]: must be an object, not a list"),
    "token counts as text": (
        lambda i: i[2]["response"]["usage"].update(prompt_tokens="<b>610</b>"),
        "interaction 3: response.usage.prompt_tokens: must be an integer or null, not a string"),
    "no response": (lambda i: i[4].pop("response"), "interaction 5: 'response' is missing"),
    "a misspelt key": (
        lambda i: i[1].update(reponse=i[1]["response"]), "interaction 2: unexpected key 'reponse'"),
    "a call sent back without its id": (
        lambda i: i[1]["request"]["messages"][2]["tool_calls"][1].pop("id"),
        "interaction 2: request.messages[2].tool_calls[1]: 'id' is missing"),
}  # fmt: skip


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_cassette_is_refused_with_the_interaction_and_the_field(name, tmp_path):
    change, where = MALFORMED[name]
    data = _shop_with(change)
    with pytest.raises(errors.CassetteError) as caught:
        Cassette.from_dict(data)
    assert where in str(caught.value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(errors.CassetteError, match=re.escape(f"{path}: {where}")):
        Cassette.load(path)


def _nested(depth: int, inner: str = "0", before: str = '""') -> str:
    """A cassette whose first answer holds ``depth`` levels of lists and objects, around ``inner``, in a
    field the schema leaves open (the answer itself is five levels down), after the string ``before``."""
    opening = "".join('{"k": ' if level % 2 else "[" for level in range(depth))
    closing = "".join("}" if level % 2 else "]" for level in reversed(range(depth)))
    answer = f'{{"role": "assistant", "content": {before}, "extra": {opening}{inner}{closing}}}'
    interaction = f'{{"response": {{"choices": [{{"message": {answer}}}]}}}}'
    return f'{{"format": "{FORMAT}", "source": "recorded", "interactions": [{interaction}]}}'


@pytest.mark.parametrize("depth", [60, 500, 5_000, 200_000])
def test_deep_nesting_is_refused_before_it_is_parsed(tmp_path, depth):
    path = tmp_path / "deep.json"
    path.write_text(_nested(depth))
    with pytest.raises(errors.CassetteError, match="nests deeper than 64 levels"):  # never a RecursionError
        Cassette.load(path)
    with pytest.raises(errors.CassetteError, match="nests deeper than 64 levels"):
        Cassette.from_dict(json.loads(_nested(min(depth, 500))))


def test_brackets_and_escapes_inside_strings_are_not_nesting(tmp_path):
    text = '\\" [[[[{{{{ \\\\" ' * 1_000  # escaped quotes and backslashes around brackets, all in one string
    path = tmp_path / "flat.json"
    path.write_text(_nested(50, json.dumps(text)))
    loaded = Cassette.load(path)
    assert loaded.interactions[0]["response"]["choices"][0]["message"]["extra"]
    path.write_text(_nested(70, json.dumps(text)))
    with pytest.raises(errors.CassetteError, match="nests deeper than 64 levels"):
        Cassette.load(path)


@pytest.mark.parametrize("before", ["\\", '\\"', "[[[[", '"]]]]', '\\\\\\"{{', "}"])
def test_strings_before_deep_nesting_do_not_hide_it(tmp_path, before):
    path = tmp_path / "deep.json"
    path.write_text(_nested(200_000, before=json.dumps(before)))
    with pytest.raises(errors.CassetteError, match="nests deeper than 64 levels"):
        Cassette.load(path)


def test_a_cassette_that_holds_itself_is_refused():
    data = {"format": FORMAT, "source": "recorded", "interactions": []}
    data["interactions"].append(data)
    with pytest.raises(errors.CassetteError, match="nests deeper than 64 levels"):
        Cassette.from_dict(data)


def test_a_file_too_large_to_be_a_cassette_is_refused(tmp_path):
    path = tmp_path / "large.json"
    with path.open("wb") as file:
        file.truncate(MAX_BYTES + 1)  # sparse: no disk is used
    with pytest.raises(errors.CassetteError, match="over 64 MiB"):
        Cassette.load(path)


def test_what_real_servers_send_still_loads_and_replays():
    """The schema leaves to the client what the client judges: every recorded server shape, each
    known slip (which repair=True mends) and the one it cannot mend load as cassettes."""
    shapes = Path(__file__).parent / "servers" / "shapes"
    answers = []
    for server in ("deepseek", "openai", "vllm", "kimi_vllm", "ollama", "llamacpp", "lmstudio", "no_usage"):
        answers += json.loads((shapes / f"{server}.json").read_text())["answers"]
    slips = json.loads((shapes / "quirks.json").read_text())
    for slip in (*slips["quirks"], *slips["unmendable"]):
        choice = {"index": 0, "message": slip["message"], "finish_reason": slip["finish_reason"]}
        answers.append({"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]})
    cassette = Cassette.from_dict({"format": FORMAT, "source": "recorded", "interactions": [
        {"response": answer} for answer in answers]})  # fmt: skip
    assert len(cassette.interactions) == len(answers) > 20
    flat = next(s for s in slips["quirks"] if s["name"] == "flat call")
    replayed = Cassette.from_dict({"format": FORMAT, "source": "recorded", "interactions": [
        {"response": {"choices": [{"message": flat["message"], "finish_reason": flat["finish_reason"]}]}},
        {"response": {"choices": [{"message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}]}},
    ]})  # fmt: skip
    agent = Agent(replayed.client(repair=True), [NoteTool()])
    assert agent.run("take a note") == "done"
    assert agent.record.model_calls[0].repairs and agent.record.tool_executions[0].result["ok"] is True


def test_run_in_copy_removes_its_copy_when_the_run_raises(open_tmp, monkeypatch):
    from reactlab import run_in_copy
    from reactlab.samples import SHOP

    monkeypatch.setattr(tempfile, "tempdir", str(open_tmp))  # where the working copy goes
    interactions = copy.deepcopy(SHOP.cassette().interactions)
    interactions[0]["request"] = []  # made in code, so unchecked: the replay fails with an AttributeError
    with pytest.raises(AttributeError):
        run_in_copy(SHOP, Cassette(interactions).client())
    assert list(open_tmp.glob("reactlab-*/project")) == []


HALVES = {
    "a high half in an answer": ("interactions.0.response.choices.0.message.content", '"bad \\ud800 half"',
                                 "interaction 1: response.choices[0].message.content: holds half"),
    "a low half in a request": ("interactions.1.request.messages.1.content", '"\\udc80"',
                                "interaction 2: request.messages[1].content: holds half"),
    "a high half before another character": ("interactions.4.response.id", '"\\ud83dx"',
                                             "interaction 5: response.id: holds half"),
    "a half as a key": ("interactions.2.response.choices.0.message", '{"\\udfff": 1}',
                        "interaction 3: response.choices[0].message."),
}  # fmt: skip


@pytest.mark.parametrize("name", HALVES)
def test_half_of_a_surrogate_pair_is_refused_where_it_is(tmp_path, name):
    """JSON can write "\\ud800", which is not text: replaying it raised UnicodeEncodeError from httpx,
    and no request could carry it on."""
    where, value, says = HALVES[name]
    data = _shop_with(lambda interactions: None)
    *path, last = [int(step) if step.isdigit() else step for step in where.split(".")]
    holder = data
    for step in path:
        holder = holder[step]
    holder[last] = "PLACEHOLDER"
    path_ = tmp_path / "half.json"
    path_.write_text(json.dumps(data).replace('"PLACEHOLDER"', value))
    with pytest.raises(errors.CassetteError, match=re.escape(says)):
        Cassette.load(path_)
    with pytest.raises(errors.CassetteError, match="surrogate pair, which is not text"):
        Cassette.from_dict(json.loads(path_.read_text()))


def test_a_whole_pair_is_text_and_a_saved_half_is_refused_when_read(tmp_path):
    data = _shop_with(lambda i: i[0]["response"]["choices"][0]["message"].update(content="PLACEHOLDER"))
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(data).replace('"PLACEHOLDER"', '"\\ud83d\\ude00"'))  # a whole pair: an emoji
    cassette = Cassette.load(whole)
    message = cassette.interactions[0]["response"]["choices"][0]["message"]
    assert message["content"] == "\U0001f600"
    message["content"] = "half \ud800"
    saved = cassette.save(tmp_path / "saved.json")  # a recording may hold one: saving does not fail
    assert '"half \\ud800"' in saved.read_bytes().decode("utf-8")  # valid UTF-8, JSON's own escape
    with pytest.raises(errors.CassetteError, match=r"interaction 1: response\.choices\[0\]\.message\.content: holds"):
        Cassette.load(saved)
