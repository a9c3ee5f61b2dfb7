"""Everything that reads what a model or a server sends takes time linear in its size.

Each test feeds about a megabyte of hostile input through a real entry point (the client reading a
body at the HTTP transport, a cassette loaded and replayed, the agent reading arguments, the viewer
and the CLI drawing a run) and bounds the CPU time this thread spends on it. The bound is above
what the linear readers need (0.8 s at most here, most under 0.1 s) and below what the quadratic
ones took: the regex that rescanned the rest of the content from every unclosed <tool_call> took
14.8 s on 100 KB and did not finish a megabyte in 4 minutes; the cut-off check that copied the rest
of the arguments at every number took 7.9 s on a megabyte of ``[1,1,...``. CPU time, not the
clock: the machine is shared, the work is not.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import pytest

from reactlab import Agent, Cassette, DeepSeekClient, RunRecord, errors
from reactlab.cli import route
from reactlab.core.tools.base import BaseTool
from reactlab.widgets import RunViewer

from .helpers import NoteTool
from .servers.serving import completion

SIZE = 1_000_000
"""Characters of each hostile input."""
BOUND = 2.0
"""Seconds of this thread's CPU each may take: the quadratic readers took from 20 s to many minutes."""
NOTE = NoteTool().definition()
ASK = [{"role": "user", "content": "Take a note."}]
Result = TypeVar("Result")


def within_bound(action: Callable[[], Result]) -> Result:
    started = time.thread_time()
    result = action()
    spent = time.thread_time() - started
    assert spent < BOUND, f"took {spent:.1f} s of CPU, bound {BOUND} s"
    return result


def repeated(unit: str, around: tuple[str, str] = ("", "")) -> str:
    """``unit`` repeated to about ``SIZE`` characters, between ``around``."""
    return around[0] + unit * (SIZE // len(unit)) + around[1]


def served(*bodies: Any, status: int = 200, repair: bool = False) -> DeepSeekClient:
    """A client whose requests get ``bodies`` in turn, each encoded before the clock starts."""
    encoded = [json.dumps(body).encode() if not isinstance(body, bytes) else body for body in bodies]
    answers = iter(encoded)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers={"content-type": "application/json"}, content=next(answers))

    transport = httpx.MockTransport(answer)
    return DeepSeekClient(api_key="", base_url="http://localhost:8000/v1", transport=transport, repair=repair)


def send(client: DeepSeekClient, tools: list[dict[str, Any]]) -> Any:
    """The completion, or the reactlab error the answer ended in (any other exception fails the test)."""
    try:
        return client.send(ASK, tools)
    except errors.APIError as error:
        return error


def tool_call(arguments: str, finish_reason: str = "tool_calls") -> dict[str, Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": "note", "arguments": arguments}}
    return completion({"role": "assistant", "content": None, "tool_calls": [call]}, finish_reason)


# --- <tool_call> markup in content (repair.py): refused in strict mode, read with repair=True ---

CLOSED_CALL = '<tool_call>{"name": "note", "arguments": {"text": "a"}}</tool_call>'
CALL_AROUND = ('<tool_call>{"name": "note", "arguments": {"text": "', '"}}</tool_call>')
MARKUP = {
    "unclosed openers": repeated("<tool_call>"),
    "openers, each with half a closer": repeated("<tool_call></tool_call"),
    "a closed call, then unclosed openers": repeated("<tool_call>", (CLOSED_CALL, "")),
    "one opener, then a megabyte without a closer": repeated("x", ("<tool_call>", "")),
    "nested openers and one closer": repeated("<tool_call>", ("", "</tool_call>")),
    "partial openers": repeated("<tool_cal", ("", "<tool_call>")),
    "closers only, then an opener": repeated("</tool_call>", ("", "<tool_call>")),
    "thousands of closed calls": repeated(CLOSED_CALL),
    "a closed call holding a megabyte": repeated("a", CALL_AROUND),
}  # fmt: skip


@pytest.mark.parametrize("repair", [False, True], ids=["strict", "repair"])
@pytest.mark.parametrize("name", MARKUP)
def test_markup_in_content_is_read_in_linear_time(name, repair):
    client = served(completion({"role": "assistant", "content": MARKUP[name]}, "stop"), repair=repair)
    outcome = within_bound(lambda: send(client, [NOTE]))
    if repair and not isinstance(outcome, errors.APIError):
        assert outcome.message["tool_calls"] and outcome.repairs  # read: the calls run
    else:
        assert isinstance(outcome, errors.MalformedResponse)  # RepairableAnswer or UnmendableToolCall
        assert len(str(outcome)) < 2_000  # the markup is quoted, not poured out


# --- arguments that stop mid-JSON under finish_reason "tool_calls" (truncation.py) ---

CUT_OFF = {
    "numbers": repeated("1,", ("[", "")),
    "negative exponents": repeated("-0.5e+7,", ("[", "")),
    "literals": repeated("true,", ("[", "")),
    "one long number": repeated("7", ("[", "")),
    "strings": repeated('"a",', ("[", "")),
    "escapes in one string": repeated("\\u0041\\n", ('"', "")),
    "nesting": repeated("["),
    "nested objects": repeated('{"a":'),
    "spaces": repeated(" \n", ("[", "")),
}


@pytest.mark.parametrize("name", CUT_OFF)
def test_arguments_cut_off_are_found_in_linear_time(name):
    outcome = within_bound(lambda: send(served(tool_call(CUT_OFF[name])), [NOTE]))
    assert isinstance(outcome, errors.TruncatedAnswer)


# --- the arguments the agent reads (agent.py, json_text.py): each an error result, the run goes on ---

ARGUMENTS = {
    "a megabyte of digits": repeated("1", ('{"text": ', "}")),
    "a float of a megabyte": repeated("5", ('{"text": 1.', "}")),
    "a megabyte of exponent": repeated("9", ('{"text": 1e', "}")),
    "nesting": '{"text": ' + "[" * (SIZE // 2) + "]" * (SIZE // 2) + "}",
    "the same key again and again": repeated('"a": 1, ', ("{", '"text": "x"}')),
    "halves of surrogate pairs": repeated("\\ud800", ('{"text": "', '"}')),
    "a complete list of numbers": repeated("1,", ('{"text": [', "1]}")),
    "NaN after a megabyte of spaces": repeated(" ", ('{"text": ', "NaN}")),
}


@pytest.mark.parametrize("name", ARGUMENTS)
def test_arguments_the_model_sent_are_read_in_linear_time(name):
    note = NoteTool()
    client = served(tool_call(ARGUMENTS[name]), completion({"role": "assistant", "content": "done"}, "stop"))
    agent = Agent(client, [note])
    assert within_bound(lambda: agent.run("Take a note.")) == "done"
    (execution,) = agent.record.tool_executions
    assert execution.result["ok"] is False and note.notes == []
    assert len(execution.result["error"]) < 2_000


# --- a cassette handed round: loaded, checked, replayed (cassette.py) ---


def cassette_file(tmp_path, response: Any) -> Any:
    path = tmp_path / "handed-round.json"
    data = {"format": "reactlab.cassette/1", "source": "recorded", "interactions": [{"response": response}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


CASSETTES = {
    "unclosed openers in an answer": completion({"role": "assistant", "content": MARKUP["unclosed openers"]}, "stop"),
    "arguments cut off after a megabyte of numbers": tool_call(CUT_OFF["numbers"]),
    "a megabyte of escaped quotes and backslashes": completion(
        {"role": "assistant", "content": repeated('\\"[{')}, "stop"
    ),
}


@pytest.mark.parametrize("name", CASSETTES)
def test_a_cassette_is_loaded_and_replayed_in_linear_time(tmp_path, name):
    path = cassette_file(tmp_path, CASSETTES[name])

    def load_and_replay() -> Any:
        return send(Cassette.load(path).client(), [NOTE])

    outcome = within_bound(load_and_replay)
    assert isinstance(outcome, errors.APIError) or outcome.message["content"] == repeated('\\"[{')


UNREADABLE_CASSETTES = {
    "nesting": repeated("[", ("", "")),
    "nesting inside strings' escapes": '{"a": "' + repeated('\\\\\\"') + '", "b": ' + repeated("[["),
    "a megabyte of digits": repeated("1", ('{"format": "reactlab.cassette/1", "n": ', "}")),
    "the same key again and again": repeated('"a": 1, ', ('{"format": "reactlab.cassette/1", ', '"a": 1}')),
}


@pytest.mark.parametrize("name", UNREADABLE_CASSETTES)
def test_an_unreadable_cassette_is_refused_in_linear_time(tmp_path, name):
    path = tmp_path / "unreadable.json"
    path.write_text(UNREADABLE_CASSETTES[name], encoding="utf-8")
    with pytest.raises(errors.CassetteError):
        within_bound(lambda: Cassette.load(path))


# --- an error body (http_errors.py) ---

ERROR_BODIES = {
    "nesting": repeated("[").encode(),
    "a megabyte of words": json.dumps({"error": {"message": repeated("word ")}}).encode(),
    "a router's raw reason, nested": json.dumps(
        {"error": {"message": "Provider returned error", "metadata": {"raw": repeated('{"error": ')}}}
    ).encode(),
    "an HTML page of openers": repeated("<b>").encode(),
    "options again and again": json.dumps({"error": {"message": repeated("--a-")}}).encode(),
}


@pytest.mark.parametrize("status", [400, 500])
@pytest.mark.parametrize("name", ERROR_BODIES)
def test_an_error_body_is_read_in_linear_time(name, status):
    outcome = within_bound(lambda: send(served(ERROR_BODIES[name], status=status), [NOTE]))
    assert isinstance(outcome, errors.APIError) and len(str(outcome)) < 2_000


# --- the viewer and the CLI drawing a run (widgets/, cli.py, summary.py) ---


class Echo(BaseTool):
    """Returns a bash-like result whose output is the given text."""

    name = "bash"
    description = "Run a command."

    def __init__(self, output: str) -> None:
        self.output = output

    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"command": {"type": "string"}}, "additionalProperties": False}

    def run(self, **arguments: Any) -> dict[str, Any]:
        return {"ok": True, "exit_code": 1, "stdout": self.output, "stderr": "", "truncated": False}


SHOWN_TEXTS = {
    "unclosed openers": MARKUP["unclosed openers"],
    "characters HTML escapes": repeated("<&>\"'"),
    "newlines": repeated("\n"),
    "spaces, then a word": repeated(" ", ("", "x")),
    "test summaries": repeated("1 passed 2 failed "),
    "one line of digits": repeated("1"),
    "digits and spaces": repeated("1 "),
    "lines of FAILED": repeated("FAILED x\n"),
}


def drawn_run(text: str) -> RunRecord:
    """A run whose final answer, one call's arguments and that call's output are all ``text``."""
    arguments = json.dumps({"command": text})
    bodies = [
        completion(
            {
                "role": "assistant",
                "content": text,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": arguments}}],
            },
            "tool_calls",
        ),
        completion({"role": "assistant", "content": text + "."}, "stop"),
    ]
    agent = Agent(served(*bodies), [Echo(text)])
    try:
        agent.run(text)
    except errors.MalformedResponse:  # the answer of unclosed openers: a failed run is drawn as well
        pass
    assert agent.record is not None
    return agent.record


@pytest.mark.parametrize("name", SHOWN_TEXTS)
def test_a_run_is_drawn_in_linear_time(name):
    record = drawn_run(SHOWN_TEXTS[name])

    def draw() -> tuple[str, list[str]]:
        return RunViewer(record).static_html(), route(record)

    html, lines = within_bound(draw)
    assert len(html) < 2 * 1024 * 1024 and lines
