"""With a recognisable fake key set, run every path and look for the key everywhere."""

from __future__ import annotations

import json
import logging
import traceback
from pathlib import Path

import httpx
import pytest

from reactlab import Agent, Cassette, DeepSeekClient, RecordingTransport, Script, errors
from reactlab.cli import main

from .conftest import FAKE_KEY, needs_sandbox
from .helpers import NoteTool
from .test_faults import FAULTS

ROOT = Path(__file__).resolve().parent.parent


def echoing(handler):
    """A server that repeats the Authorization header back in everything it sends: the worst case."""

    def route(request: httpx.Request) -> httpx.Response:
        response = handler(request)
        secret = request.headers.get("Authorization", "")
        text = response.read().decode(errors="replace")
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            data["echo"] = secret
            if isinstance(data.get("error"), dict):
                data["error"]["message"] += f" (you sent {secret})"
            for choice in data.get("choices") or []:
                message = choice.get("message") if isinstance(choice, dict) else None
                if isinstance(message, dict) and message.get("content"):
                    message["content"] = f"{message['content']} {secret}"
            return httpx.Response(response.status_code, json=data)
        return httpx.Response(response.status_code, content=(text + secret).encode())

    return route


def everything_said(agent: Agent, error: BaseException | None, caplog) -> str:
    parts = [agent.record.to_json(), caplog.text]
    if error is not None:
        parts += [str(error), repr(error), "".join(traceback.format_exception(error))]
    return "\n".join(parts)


def test_success_path(fake_key, caplog):
    caplog.set_level(logging.DEBUG)
    script = Script().tool_call("note", text="a").final_answer("done")
    agent = Agent(
        DeepSeekClient(transport=httpx.MockTransport(echoing(script.transport().handle_request))), [NoteTool()]
    )
    agent.run("task")
    said = everything_said(agent, None, caplog)
    assert FAKE_KEY not in said and "[API key]" in said  # the echo was scrubbed, not just absent


@pytest.mark.parametrize("fault", FAULTS)
def test_error_paths(fake_key, caplog, fault):
    caplog.set_level(logging.DEBUG)
    handler, kind = FAULTS[fault]
    agent = Agent(DeepSeekClient(transport=httpx.MockTransport(echoing(handler))), [NoteTool()])
    with pytest.raises(errors.ReactlabError) as caught:
        agent.run("task")
    assert FAKE_KEY not in everything_said(agent, caught.value, caplog)


@pytest.mark.parametrize(
    "script",
    [Script().empty_answer(), Script().truncated_answer(), Script().message({"role": "assistant", "tool_calls": [{}]})],
)
def test_agent_error_paths(fake_key, caplog, script):
    agent = Agent(DeepSeekClient(transport=httpx.MockTransport(echoing(script.transport().handle_request))), [])
    with pytest.raises(errors.ReactlabError) as caught:
        agent.run("task")
    assert FAKE_KEY not in everything_said(agent, caught.value, caplog)


def test_record_mode(fake_key, tmp_path, caplog):
    script = Script().tool_call("note", text="a").final_answer("done")
    recorder = RecordingTransport(httpx.MockTransport(echoing(script.transport().handle_request)))
    agent = Agent(DeepSeekClient(transport=recorder), [NoteTool()])
    agent.run("task")
    path = recorder.cassette("echoing server").save(tmp_path / "run.json")
    text = path.read_text()
    assert FAKE_KEY not in text and "Authorization" not in text
    replayed = Agent(Cassette.load(path).client(), [NoteTool()])
    replayed.run("task")
    assert FAKE_KEY not in everything_said(replayed, None, caplog)


@needs_sandbox
def test_cli_output(fake_key, capsys):
    assert main(["demo", "--json"]) == 0
    assert main(["demo"]) == 0
    out = capsys.readouterr()
    assert FAKE_KEY not in out.out + out.err


def test_no_notebook_output_holds_a_key():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text())
        outputs = json.dumps([cell.get("outputs", []) for cell in notebook["cells"]])
        assert "sk-fake-key-for-this-demo" not in outputs, path.name
        assert FAKE_KEY not in outputs and "Bearer " not in outputs, path.name
