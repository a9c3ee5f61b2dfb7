from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import httpx
import pytest

from reactlab import Agent, DeepSeekClient, RunRecord, Script, call, errors, run_in_copy
from reactlab.samples import SHOP

from ..helpers import NoteTool


def parse(html: str) -> ET.Element:
    """The schemes are well-formed markup: parse them and assert on their structure."""
    return ET.fromstring(f"<root>{html}</root>")


def with_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in (e.get("class") or "").split()]


def text_of(element: ET.Element) -> str:
    return "".join(element.itertext())


def json_in(pre: ET.Element) -> Any:
    """The JSON a block shows: its head and what its "show more" opens to (none of it left out)."""
    assert not with_class(pre, "rl-left-out")
    more = pre.find("details/summary")
    return json.loads((pre.text or "") + ("" if more is None else more.tail or ""))


def without_show_more(element: ET.Element) -> str:
    """The text of ``element`` without the "show more" labels of its JSON blocks."""
    labels = [summary.text or "" for block in with_class(element, "rl-more") for summary in block.iter("summary")]
    text = text_of(element)
    for label in labels:
        text = text.replace(label, "", 1)
    return text


@pytest.fixture(scope="session")
def shop_record() -> RunRecord:
    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    outcome.workspace.cleanup()
    assert outcome.error is None
    return outcome.record


def _run(script: Script, **limits) -> RunRecord:
    agent = Agent(script.client(), [NoteTool()], **limits)
    try:
        agent.run("take notes")
    except errors.ReactlabError:
        pass
    return agent.record


def _api_failure() -> RunRecord:
    script = Script().tool_call("note", text="a")
    transport = script.transport()

    def handler(request):
        if transport.position < len(script):
            return transport.handle_request(request)
        raise httpx.ConnectError("gone")

    agent = Agent(DeepSeekClient(api_key="", transport=httpx.MockTransport(handler)), [NoteTool()])
    with pytest.raises(errors.APIConnectionError):
        agent.run("take notes")
    return agent.record


@pytest.fixture(scope="session")
def endings() -> dict[str, RunRecord]:
    """One recorded run per way a run can end."""
    many = Script()
    for i in range(8):
        many.tool_call("note", text=f"n{i}")
    return {
        "answer": _run(Script().tool_calls(call("note", text="a"), call("note", text="b")).final_answer("done")),
        "empty_answer": _run(Script().tool_call("note", text="a").empty_answer()),
        "truncated_answer": _run(Script().truncated_answer()),
        "step_limit": _run(many),
        "tool_call_limit": _run(Script().tool_calls(*(call("note", text=str(i)) for i in range(3))), max_tool_calls=2),
        "invalid_message": _run(Script().message({"role": "assistant", "tool_calls": [{"id": "x"}]})),
        "api_connection_error": _api_failure(),
    }


def long_record(steps: int = 200) -> RunRecord:
    script = Script()
    for i in range(steps - 1):
        script.tool_call("note", text=f"note {i}")
    agent = Agent(script.final_answer("done").client(), [NoteTool()], max_steps=steps, max_tool_calls=steps)
    agent.run("a long run")
    return agent.record


__all__ = ["json", "json_in", "long_record", "parse", "text_of", "with_class", "without_show_more"]
