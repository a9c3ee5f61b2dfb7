"""With a recognisable fake key set, run every path and look for the key everywhere."""

from __future__ import annotations

import json
import logging
import traceback
import urllib.parse
from pathlib import Path

import httpx
import pytest

from reactlab import Agent, Cassette, DeepSeekClient, RecordingTransport, Script, errors
from reactlab.cli import main

from .conftest import FAKE_KEY, needs_sandbox
from .helpers import NoteTool
from .servers.serving import answer_json, completion, local_server
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


# --- Keys at construction and on the wire, against a real local HTTP server (issue 11.6) ---------------

OTHER_KEY = "sk-local-9f8e7d6c5b4a3210"
STRAY = {
    "CR": "\r",
    "LF": "\n",
    "CRLF": "\r\n",
    "tab": "\t",
    "space": " ",
    "NUL": "\x00",
    "DEL": "\x7f",
    "NBSP": "\xa0",
}


def _answering():
    return local_server(answer_json(completion({"role": "assistant", "content": "ok"}, "stop")))


def _escaped_forms(key: str) -> list[str]:
    """The key as it could leak: raw, repr'd, JSON-escaped, URL-quoted, as bytes, and each half of it."""
    cut = len(key) // 2
    return [
        key,
        repr(key),
        repr(key)[1:-1],
        json.dumps(key)[1:-1],
        urllib.parse.quote(key),
        str(key.encode("utf-8", "backslashreplace")),
        key.encode("unicode_escape").decode(),
        key[:cut].strip(),
        key[cut:].strip(),
    ]


@pytest.mark.parametrize("where", ["inside", "inside twice"])
@pytest.mark.parametrize(
    "stray, given",
    [
        (stray, given)
        for stray in STRAY
        for given in ("api_key", "REACTLAB_API_KEY", "DEEPSEEK_API_KEY")
        if not (stray == "NUL" and given != "api_key")  # an environment variable cannot hold NUL at all
    ],
)
def test_a_key_with_a_stray_character_inside_is_refused_and_never_shown(monkeypatch, stray, where, given):
    key = OTHER_KEY[:9] + STRAY[stray] + OTHER_KEY[9:]
    if where == "inside twice":
        key = key[:5] + STRAY[stray] + key[5:]
    with _answering() as server:
        kwargs: dict = {"base_url": server.base_url}
        if given == "api_key":
            kwargs["api_key"] = key
        elif given == "DEEPSEEK_API_KEY":
            monkeypatch.setenv(given, key)
            kwargs = {}  # DeepSeek's own host: the key is checked before anything is sent
        else:
            monkeypatch.setenv(given, key)
        with pytest.raises(errors.APIKeyRefused) as caught:
            DeepSeekClient(**kwargs)
        assert server.arrivals == []
    error = caught.value
    said = "\n".join([str(error), repr(error), "".join(traceback.format_exception(error))])
    for form in _escaped_forms(key):
        assert form not in said
    assert isinstance(error, ValueError) and "cannot go in an HTTP header" in str(error)
    assert (given if given != "api_key" else "api_key") in str(error)


@pytest.mark.parametrize("around", ["\r\n", "\n", "\r", " ", "\t", " \r\n\t"])
def test_whitespace_around_a_key_is_cleaned_with_a_warning(monkeypatch, around):
    monkeypatch.setenv("REACTLAB_API_KEY", OTHER_KEY + around)
    with _answering() as server:
        with pytest.warns(UserWarning, match="were removed") as warned:
            client = DeepSeekClient(base_url=server.base_url)
        client.send([{"role": "user", "content": "hi"}], [])
    (arrival,) = server.arrivals
    assert arrival.headers["Authorization"] == f"Bearer {OTHER_KEY}"
    for message in warned:
        assert OTHER_KEY not in str(message.message)


def test_the_deepseek_key_never_goes_to_another_host(fake_key, monkeypatch):
    monkeypatch.delenv("REACTLAB_API_KEY", raising=False)
    with _answering() as server:
        client = DeepSeekClient(base_url=server.base_url)
        client.send([{"role": "user", "content": "hi"}], [])
        assert "not set" in repr(client)
    (arrival,) = server.arrivals
    assert "Authorization" not in arrival.headers
    assert FAKE_KEY not in json.dumps(arrival.headers) + arrival.body.decode()


def test_another_host_takes_its_key_from_reactlab_api_key_or_api_key(fake_key, monkeypatch):
    monkeypatch.setenv("REACTLAB_API_KEY", OTHER_KEY)
    with _answering() as server:
        DeepSeekClient(base_url=server.base_url).send([{"role": "user", "content": "hi"}], [])
        DeepSeekClient(api_key="sk-explicit-1234", base_url=server.base_url).send(
            [{"role": "user", "content": "hi"}], []
        )
        DeepSeekClient(api_key="", base_url=server.base_url).send([{"role": "user", "content": "hi"}], [])
    first, second, third = server.arrivals
    assert first.headers["Authorization"] == f"Bearer {OTHER_KEY}"
    assert second.headers["Authorization"] == "Bearer sk-explicit-1234"
    assert "Authorization" not in third.headers
    assert all(FAKE_KEY not in json.dumps(a.headers) for a in server.arrivals)


@pytest.mark.parametrize(
    "base_url, key_source",
    [
        ("https://api.deepseek.com", "DEEPSEEK_API_KEY"),
        ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
        ("https://deepseek.com.attacker.example/v1", "REACTLAB_API_KEY"),
        ("https://api-deepseek.com/v1", "REACTLAB_API_KEY"),
        ("https://api.openai.com/v1", "REACTLAB_API_KEY"),
    ],
)
def test_which_key_goes_where(fake_key, monkeypatch, base_url, key_source):
    monkeypatch.setenv("REACTLAB_API_KEY", OTHER_KEY)
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("Authorization", ""))
        return httpx.Response(200, json=completion({"role": "assistant", "content": "ok"}, "stop"))

    client = DeepSeekClient(base_url=base_url, transport=httpx.MockTransport(handler))
    client.send([{"role": "user", "content": "hi"}], [])
    assert client.key_source == key_source
    assert sent == [f"Bearer {FAKE_KEY if key_source == 'DEEPSEEK_API_KEY' else OTHER_KEY}"]


PLAIN_HTTP = ["http://192.168.1.20:11434/v1", "http://10.0.0.5:8000/v1", "http://gpu-box.lan:8080/v1"]


@pytest.mark.parametrize(
    "base_url, given",
    [(url, given) for url in PLAIN_HTTP for given in ("api_key", "REACTLAB_API_KEY")]
    + [("http://api.deepseek.com", "DEEPSEEK_API_KEY"), ("http://api.deepseek.com/v1", "api_key")],
)
def test_no_key_over_plain_http_except_to_this_machine(fake_key, monkeypatch, base_url, given):
    monkeypatch.setenv("REACTLAB_API_KEY", OTHER_KEY)
    kwargs = {"api_key": OTHER_KEY} if given == "api_key" else {}
    with pytest.raises(errors.APIKeyRefused, match="plain HTTP") as caught:
        DeepSeekClient(base_url=base_url, **kwargs)
    assert given in str(caught.value)
    assert OTHER_KEY not in str(caught.value) and FAKE_KEY not in str(caught.value)
    DeepSeekClient(api_key="", base_url=base_url)  # without a key, plain HTTP is the user's choice


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "localhost", "[::1]"])
def test_plain_http_to_this_machine_may_carry_a_key(host):
    client = DeepSeekClient(api_key=OTHER_KEY, base_url=f"http://{host}:8080/v1")
    assert "set from api_key" in repr(client)
