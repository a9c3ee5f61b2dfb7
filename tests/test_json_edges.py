"""JSON's edge cases in what a model, a server or a cassette sends: each ends as an error result the
model reads (the run goes on) or as a typed reactlab error, never a bare exception; what reactlab
writes back (requests, tool messages, the record, a cassette) stays JSON any reader takes; and a
failed run keeps its record, and its cassette when recording.

Before: a number of 4,301 digits in the arguments ended the run with a bare ValueError (Python's
int-to-str limit), NaN and "\\ud800" were read and then broke the next request inside httpx, and
`reactlab run --live --record` saved nothing of such a run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactlab import Agent, Cassette, DeepSeekClient, ReactlabError, errors
from reactlab.cli import main
from reactlab.core.tools.base import BaseTool

from .helpers import NoteTool
from .servers.serving import completion, local_server

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

EDGES = {
    "an int of 4,301 digits": "1" * 4301,
    "an int of 100,000 digits": "9" * 100_000,
    "a negative int of 5,000 digits": "-" + "8" * 5000,
    "an int of 4,300 digits": "7" * 4300,
    "1e999": "1e999",
    "-1e999": "-1e999",
    "1e-999": "1e-999",
    "a float of 5,000 digits": "1." + "5" * 5000,
    "NaN": "NaN",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "nested 65 deep": "[" * 65 + "]" * 65,
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "nested 100,000 deep, never closed": "[" * 100_000,
    "a lone high surrogate": '"\\ud800"',
    "a lone low surrogate": '"\\udc00"',
    "a high surrogate before a letter": '"\\ud83dx"',
    "a whole surrogate pair": '"\\ud83d\\ude00"',
    "an object with a surrogate key": '{"\\udfff": 1}',
    "the same key twice": '{"a": 1, "a": 2}',
    "a string of 200,000 characters": '"' + "a" * 200_000 + '"',
    "an escape JSON lacks": '"\\x41"',
    "a short unicode escape": '"\\u12"',
    "a raw control character": '"\x01"',
    "a byte order mark": "\ufeff{}",
    "a plain value": "5",
}
KEYS = st.sampled_from(['"text"', '"text"', '"a"', '"\\ud800"', '"\\u0000"'])


def _json_text(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    arrays = st.lists(children, max_size=3).map(lambda items: "[" + ", ".join(items) + "]")
    objects = st.lists(st.tuples(KEYS, children), max_size=3).map(
        lambda pairs: "{" + ", ".join(f"{key}: {value}" for key, value in pairs) + "}"
    )
    return arrays | objects


# JSON text with the edge cases among its values and keys (duplicates come when a key is drawn twice).
json_texts = st.recursive(
    st.sampled_from(list(EDGES.values())) | st.sampled_from(['"x"', "1", "true", "null", "-0.5e3"]),
    _json_text,
    max_leaves=4,
)
arguments = json_texts | json_texts.map(lambda value: '{"text": ' + value + "}")


def strict(text: str) -> Any:
    """``text`` read as a reader that takes only JSON would: UTF-8 text, no NaN or Infinity."""
    text.encode("utf-8")  # a lone surrogate cannot be written

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


class Served:
    """A transport that answers with ``bodies`` in turn and checks every request is JSON."""

    def __init__(self, *bodies: str | bytes) -> None:
        self.bodies = [body.encode() if isinstance(body, str) else body for body in bodies]
        self.requests: list[Any] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(strict(request.content.decode("utf-8")))
        body = self.bodies[len(self.requests) - 1]
        return httpx.Response(200, headers={"content-type": "application/json"}, content=body)

    def client(self, **options: Any) -> DeepSeekClient:
        transport = httpx.MockTransport(self)
        return DeepSeekClient(api_key="", base_url="http://localhost:8000/v1", transport=transport, **options)


def call_body(arguments: str) -> str:
    call = {"id": "call_1", "type": "function", "function": {"name": "note", "arguments": arguments}}
    return json.dumps(completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"))


FINAL = json.dumps(completion({"role": "assistant", "content": "done"}, "stop"))


def kept_as_json(agent: Agent) -> dict[str, Any]:
    """The run's record, written and read back strictly: whatever the model sent, it saves."""
    record = agent.record
    assert record is not None
    for message in record.messages:
        if message["role"] == "tool":
            strict(message["content"])  # what the model reads is JSON
    saved: dict[str, Any] = strict(record.to_json())
    return saved


@settings(max_examples=400, **SETTINGS)
@given(arguments=arguments)
def test_any_arguments_end_as_a_result_the_model_reads(arguments):
    served = Served(call_body(arguments), FINAL)
    note = NoteTool()
    agent = Agent(served.client(), [note])
    try:
        answer = agent.run("Take a note.")
    except errors.TruncatedAnswer:  # "[[[..." never closed reads as arguments cut off: nothing ran
        assert agent.record.tool_executions == [] and len(served.requests) == 1
    else:
        assert answer == "done" and len(served.requests) == 2
        (execution,) = agent.record.tool_executions
        result = execution.result
        assert result["ok"] is (note.notes != []), result
        assert result["ok"] or (isinstance(result["error"], str) and 0 < len(result["error"]) < 2_000)
    kept_as_json(agent)


@pytest.mark.parametrize("name", [name for name in EDGES if "never closed" not in name])
def test_each_edge_beside_the_arguments_ends_as_a_result(name):
    """The note tool takes only a text: each edge case beside it ends as an error the model reads."""
    served = Served(call_body('{"text": "x", "more": ' + EDGES[name] + "}"), FINAL)
    note = NoteTool()
    agent = Agent(served.client(), [note])
    assert agent.run("Take a note.") == "done"
    (execution,) = agent.record.tool_executions
    assert execution.result["ok"] is False and note.notes == []
    kept_as_json(agent)


def test_a_number_of_4301_digits_is_a_result_the_model_reads():
    served = Served(call_body('{"text": ' + "1" * 4301 + "}"), FINAL)
    agent = Agent(served.client(), [NoteTool()])
    assert agent.run("Take a note.") == "done"
    said = agent.record.tool_executions[0].result["error"]
    assert "4,300 digits" in said
    assert "4,300 digits" in strict(served.requests[1]["messages"][-1]["content"])["error"]


body_places = st.sampled_from(
    [
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "usage": {"completion_tokens": EDGE}, '
        '"choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}]}',
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, '
        '"message": {"role": "assistant", "content": null, "extra": EDGE, "tool_calls": [{"id": "c1", '
        '"type": "function", "function": {"name": "note", "arguments": "{\\"text\\": \\"a\\"}"}}]}, '
        '"finish_reason": "tool_calls"}]}',
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, '
        '"message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", '
        '"function": {"name": "note", "arguments": {"text": EDGE}}}]}, "finish_reason": "tool_calls"}]}',
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, '
        '"message": {"role": "assistant", "content": EDGE}, "finish_reason": "stop"}]}',
        '{"id": EDGE, "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, '
        '"message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}]}',
        "\ufeff" + FINAL.replace('"done"', "EDGE"),
    ]
)


@settings(max_examples=300, **SETTINGS)
@given(place=body_places, value=json_texts, repair=st.booleans())
def test_any_edge_in_a_body_is_an_answer_or_a_typed_error(place, value, repair):
    served = Served(place.replace("EDGE", value), FINAL)
    agent = Agent(served.client(repair=repair), [NoteTool()])
    try:
        agent.run("Take a note.")
    except ReactlabError as error:
        assert error.record is agent.record and str(error)
    kept_as_json(agent)


@settings(max_examples=300, **SETTINGS)
@given(value=json_texts)
def test_any_edge_in_markup_is_read_or_refused_by_name(value):
    block = '<tool_call>{"name": "note", "arguments": ' + value + "}</tool_call>"
    served = Served(json.dumps(completion({"role": "assistant", "content": block}, "stop")), FINAL)
    agent = Agent(served.client(repair=True), [NoteTool()])
    try:
        assert agent.run("Take a note.") == "done"
    except errors.UnmendableToolCall as error:
        assert "cannot mend" in str(error)
    kept_as_json(agent)


@settings(max_examples=200, **SETTINGS)
@given(place=body_places, value=json_texts)
def test_any_edge_in_a_cassette_is_replayed_or_refused(tmp_path_factory, place, value):
    response = place.replace("EDGE", value).removeprefix("\ufeff")
    text = '{"format": "reactlab.cassette/1", "source": "recorded", "interactions": [{"response": ' + response + "}]}"
    path = tmp_path_factory.mktemp("cassette") / "edge.json"
    path.write_text(text, encoding="utf-8")
    try:
        cassette = Cassette.load(path)
    except errors.CassetteError as error:
        assert str(error).startswith(f"Cannot read cassette {path}") or str(path) in str(error)
        return
    agent = Agent(cassette.client(), [NoteTool()])
    try:
        agent.run("Take a note.")
    except ReactlabError as error:
        assert error.record is agent.record
    kept_as_json(agent)


def _deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


def _cycle() -> dict[str, Any]:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    return looped


RETURNED = {
    "NaN": float("nan"),
    "infinity": float("inf"),
    "an int of 5,000 digits": 10**5000,
    "half of a surrogate pair": "\ud800",
    "a key that is half of a surrogate pair": {"\udc80": 1},
    "nesting 100,000 deep": _deep(100_000),
    "a dict that holds itself": _cycle(),
    "a set": {1, 2},
}


class Returns(BaseTool):
    """A tool whose result holds ``value``: what a student's tool may return."""

    name = "note"
    description = "Write a note."

    def __init__(self, value: Any) -> None:
        self.value = value

    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}}

    def run(self, **arguments: Any) -> dict[str, Any]:
        return {"ok": True, "value": self.value}


@pytest.mark.parametrize("name", RETURNED)
def test_a_result_that_is_not_json_is_an_error_the_model_reads(name):
    served = Served(call_body("{}"), FINAL)
    agent = Agent(served.client(), [Returns(RETURNED[name])])
    assert agent.run("Take a note.") == "done" and len(served.requests) == 2
    result = agent.record.tool_executions[0].result
    assert result == {"ok": False, "error": "The tool 'note' returned a result that is not JSON."}
    kept_as_json(agent)


# --- reactlab run --live --record: the run goes on, or ends typed, and its cassette is saved ---


@contextmanager
def live_model(*bodies: str) -> Iterator[Path]:
    """A real HTTP server on this machine playing the model: REACTLAB_BASE_URL points at it."""
    answers = iter(body.encode() for body in bodies)

    def respond(handler: Any) -> None:
        data = next(answers)
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    with local_server(respond) as server:
        yield server


def run_live(tmp_path: Path, server: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Path]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "notes.txt").write_text("a note\n")
    cassette = tmp_path / "recorded.json"
    monkeypatch.setenv("REACTLAB_BASE_URL", server.base_url)
    for name in ("DEEPSEEK_API_KEY", "REACTLAB_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    argv = ["run", "--project", str(project), "--task", "Read the notes.", "--live", "--record", str(cassette)]
    return main([*argv, "--json", "--discard"]), cassette


def read_file_call(arguments: str) -> str:
    call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": arguments}}
    return json.dumps(completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"))


def test_live_record_of_a_run_whose_arguments_hold_a_huge_number(tmp_path, monkeypatch, capsys):
    with live_model(read_file_call('{"path": ' + "1" * 5000 + "}"), FINAL) as server:
        code, cassette = run_live(tmp_path, server, monkeypatch)
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["answer"] == "done"
    assert "4,300 digits" in summary["steps"][0]["result"]["error"]
    assert len(Cassette.load(cassette).interactions) == 2


def test_live_record_of_a_run_the_server_broke_keeps_what_came_before(tmp_path, monkeypatch, capsys):
    broken = FINAL.replace('"done"', '"done", "logprob": NaN')
    with live_model(read_file_call('{"path": "notes.txt"}'), broken) as server:
        code, cassette = run_live(tmp_path, server, monkeypatch)
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["stop_reason"] == "api_malformed_response"
    assert "NaN" in summary["error"] and summary["model_calls"] == 2 and summary["tool_calls"] == 1
    (kept,) = Cassette.load(cassette).interactions  # the answer it could not read is not in it
    assert kept["response"]["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "read_file"


def test_live_record_is_saved_when_the_run_is_interrupted(tmp_path, monkeypatch):
    from reactlab.core.tools.read_file import ReadFileTool

    def interrupted(self: Any, **arguments: Any) -> Any:
        raise KeyboardInterrupt  # Ctrl-C while a tool runs, after a paid answer came

    monkeypatch.setattr(ReadFileTool, "run", interrupted)
    with live_model(read_file_call('{"path": "notes.txt"}'), FINAL) as server:
        with pytest.raises(KeyboardInterrupt):
            run_live(tmp_path, server, monkeypatch)
    assert len(Cassette.load(tmp_path / "recorded.json").interactions) == 1
