"""What a model can make the host draw: a RunViewer of the worst run within the default limits.

Each request carries the whole history again, so a viewer that drew every request in full drew the
run's outputs once per later step, twice over (its pages and its static fallback): 8 model calls and
16 bash results at their 30,000 bytes per stream made up to 171 MiB of HTML, a megabyte-argument
cassette 665 MiB. Now each message is drawn on one page, a long value shows its first bytes and
"show more", and the bounds hold whatever the model said and the tools printed.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, RunRecord, Script, call, errors
from reactlab.core.sandbox import OUTPUT_LIMIT
from reactlab.core.tools.base import BaseTool
from reactlab.replay.scripted import ScriptTransport
from reactlab.widgets import RunViewer
from reactlab.widgets.markup import MORE, SHOWN
from reactlab.widgets.viewer import PAGE_LIMIT, SAVED_LIMIT

from .conftest import parse, text_of, with_class
from .hostile import problems

ARGUMENTS = 3_000  # characters of a command: about what a model's 800 tokens of an answer can hold
# Each costs the most somewhere: a quote is escaped twice in JSON and once in HTML, "&" takes five
# bytes in HTML, an emoji four in UTF-8, a control character six as a JSON escape.
CHARACTERS = ['"', "&", "<", "😀", "\x01"]


class LoudBash(BaseTool):
    """A real tool shaped like bash whose every stream is at bash's cap, of one character."""

    name = "bash"
    description = "Run a command."

    def __init__(self, character: str) -> None:
        self.output = character * (OUTPUT_LIMIT // len(character.encode()))

    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}

    def run(self, command: str) -> dict[str, Any]:  # type: ignore[override]
        return {"ok": True, "command": command, "cwd": "/work", "exit_code": 0, "truncated": True,
                "stdout": self.output, "stderr": self.output}  # fmt: skip


class Uncached(ScriptTransport):
    """A Script's answers without the estimate of cache hits, which compares each request with the one
    before character by character: seconds for requests of megabytes. The usage is not drawn large."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._previous = None
        return super().handle_request(request)


def _run(script: Script, character: str) -> RunRecord:
    client = DeepSeekClient(api_key="", transport=Uncached(script))
    agent = Agent(client, [LoudBash(character)])  # the default limits: 8 model calls, 16 tool calls
    try:
        agent.run("fill the page")
    except errors.ReactlabError:
        pass
    assert agent.record is not None
    return agent.record


def spread(character: str) -> RunRecord:
    """Every model call the limits allow, the results early: each later request carries them all again."""
    command = character * ARGUMENTS
    script = Script().tool_calls(*(call("bash", command=f"{command}{i}") for i in range(9)))
    for i in range(7):
        script.tool_call("bash", command=f"{command}-{i}")
    record = _run(script, character)
    assert (len(record.model_calls), len(record.tool_executions), record.stop_reason) == (8, 16, "step_limit")
    return record


def wide(character: str) -> RunRecord:
    """Every tool call the limits allow in one answer: the page of the next request is the fullest."""
    command = character * ARGUMENTS
    script = Script().tool_calls(*(call("bash", command=f"{command}{i}") for i in range(16)))
    record = _run(script.final_answer(character * ARGUMENTS), character)
    assert (len(record.model_calls), len(record.tool_executions), record.stop_reason) == (2, 16, "answer")
    return record


def beyond_what_a_model_can_say() -> RunRecord:
    """What only a cassette can hold: megabyte arguments, tool names of 200,000 characters,
    arguments nested 100,000 deep, and an answer of 3,000 calls that the tool-call limit refuses."""
    huge = "&" * 1_000_000
    script = Script().tool_calls(*(call("bash", command=f"{huge}{i}") for i in range(4)))
    script.tool_calls(*(call(f"{huge[:200_000]}{i}", {"x": 1}) for i in range(4)))
    script.tool_calls(call("bash", "[" * 100_000 + "}"))  # complete, wrong JSON: not a cut-off answer
    script.tool_calls(*(call("bash", command=str(i)) for i in range(3_000)))
    record = _run(script, "&")
    assert record.stop_reason == "tool_call_limit"
    return record


def sizes(viewer: RunViewer) -> tuple[list[int], int]:
    """The bytes of each page, and of all a notebook saves: the pages (widget state) and the fallback."""
    pages = [len(page.value.encode()) for page in viewer.stack.children]
    return pages, sum(pages) + len(viewer._repr_mimebundle_()["text/html"].encode())


RUNS = {
    **{f"spread {c!r}": (spread, c) for c in CHARACTERS},
    **{f"wide {c!r}": (wide, c) for c in CHARACTERS},
}


@pytest.mark.parametrize("name", RUNS)
def test_the_worst_run_within_the_limits_draws_within_the_bounds(name):
    make, character = RUNS[name]
    viewer = RunViewer(make(character))
    pages, saved = sizes(viewer)
    assert max(pages) <= PAGE_LIMIT and saved <= SAVED_LIMIT, f"pages {pages}, saved {saved}"
    for page in (*(p.value for p in viewer.stack.children), viewer.static_html()):
        assert problems(page) == []  # inert, cut where it was cut
        if character.isprintable():  # XML, unlike HTML, has no raw control characters
            parse(page)


def test_what_only_a_cassette_can_hold_is_bounded_too():
    viewer = RunViewer(beyond_what_a_model_can_say())
    pages, saved = sizes(viewer)
    assert max(pages) <= PAGE_LIMIT and saved <= SAVED_LIMIT, f"pages {pages}, saved {saved}"
    for page in viewer.stack.children:
        parse(page.value)


def test_drawing_the_worst_run_takes_little_memory():
    record = spread("&")
    tracemalloc.start()
    try:
        RunViewer(record)._repr_mimebundle_()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB"  # it took 593 MiB when every request was drawn whole


def test_each_message_is_drawn_on_one_page_and_named_on_the_others():
    record = spread("x")
    viewer = RunViewer(record)
    opened: dict[str, list[str]] = {}  # a message's index -> the steps whose Scheme 3 opens it to its JSON
    for page in viewer.stack.children:
        root = parse(page.value)
        (history,) = with_class(root, "rl-history")
        for entry in with_class(history, "rl-entry"):
            if entry.find("details") is not None:
                opened.setdefault(entry.get("data-index"), []).append(history.get("data-step"))
            else:
                assert "as in step" in text_of(entry)
        (request,) = [d for d in with_class(root, "rl-exchange")[0].iter("details")][:1]
        assert "rl-seen" in {c for e in request.iter() for c in (e.get("class") or "").split()}
    sent = len(record.model_calls[-1].messages)
    assert opened == {str(i): [opened[str(i)][0]] for i in range(sent)}  # every message, once
    last = parse(viewer.stack.children[-1].value)
    request = text_of(with_class(last, "rl-exchange")[0].find("details"))
    assert "messages [0]–[1]: as in step 1" in request and "messages [2]–[11]: as in step 2" in request
    assert '"tools": as in step 1' in request and "messages [22]–[23]: in Scheme 3 above" in request


def test_show_more_opens_without_a_kernel_and_says_what_is_left_out():
    record = spread("x")
    static = parse(RunViewer(record, step=2).static_html())
    tool_entry = next(e for e in with_class(static, "rl-entry") if e.get("data-role") == "tool")
    (block,) = tool_entry.iter("pre")
    (more,) = with_class(block, "rl-more")
    assert more.tag == "details" and "show more" in text_of(more.find("summary"))
    head, rest = block.text or "", more.find("summary").tail or ""
    message = record.model_calls[1].messages[int(tool_entry.get("data-index"))]
    assert json.dumps(message, ensure_ascii=False, indent=2).startswith(head + rest)  # cut, not changed
    assert len(head.encode()) <= SHOWN and 0 < len(rest.encode()) <= MORE
    assert with_class(block, "rl-left-out") and "the run record holds all of it" in text_of(block)
