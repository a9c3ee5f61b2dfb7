"""Live mode against real server software, offline: llama.cpp's llama-server on a unix socket.

The model behind it is a tiny generated model, not a language model (scripts/local_server.py writes
it): offered tools it calls one, and once a tool result is in the history, or with no tools, it
answers "Done.". Everything else is the real server: its chat template, its grammar-constrained tool
calls, its ids, its extra fields, its streaming. ``make llama-server`` builds it (CI always does);
elsewhere, without the build, the tests that need it skip and say so. The first ones need no server.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from reactlab import (
    Agent,
    AuthenticationFailed,
    Cassette,
    DeepSeekClient,
    RecordingTransport,
    StreamedAnswer,
    Workspace,
    transport_for,
)
from reactlab.core.tools import BashTool, EditTool, ReadFileTool
from reactlab.llama_server import MODEL_FILE, MODEL_NAME, llama_server_problem, start_llama_server

from ..helpers import NoteTool
from ..test_student_copies import script
from .serving import live_run

PROBLEM = llama_server_problem()
LOCAL_SERVER = script("local_server")

MESSAGES = [{"role": "system", "content": "Use the tools."}, {"role": "user", "content": "Read the notes."}]
FILES = {"notes.txt": "Buy milk.\n", "todo.txt": "Fix the failing test.\n"}
SERVER_ID = re.compile(r"[A-Za-z0-9]{32}")  # llama.cpp's ids: 32 random letters and digits, no "call_"


@pytest.fixture(scope="module")
def server():
    if PROBLEM is not None and not os.environ.get("CI"):  # in CI it must run: starting it fails and says why
        pytest.skip(PROBLEM)
    with start_llama_server() as running:
        yield running


@pytest.fixture
def client(server, monkeypatch) -> DeepSeekClient:
    monkeypatch.delenv("REACTLAB_API_KEY", raising=False)  # no key: the server wants none
    return DeepSeekClient(base_url=server.base_url, model=server.model)


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


@pytest.fixture
def copy(project):
    workspace = Workspace(project)
    yield workspace
    workspace.cleanup()


def read_file(copy: Workspace) -> ReadFileTool:
    return ReadFileTool(copy, sorted(FILES))


def test_what_is_missing_is_said_with_the_command_that_makes_it(tmp_path):
    assert llama_server_problem("en", tmp_path) == (
        "llama-server is not built on this machine: run `make llama-server` once (about 10 minutes)."
    )
    (tmp_path / "bin").mkdir()
    binary = tmp_path / "bin" / "llama-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    assert "tiny test model is missing" in str(llama_server_problem("en", tmp_path))
    assert "крошечной тестовой модели нет" in str(llama_server_problem("ru", tmp_path))
    (tmp_path / MODEL_FILE).write_bytes(b"GGUF")
    assert llama_server_problem("en", tmp_path) is None
    with pytest.raises(RuntimeError, match="llama-server exited with code 0"):
        start_llama_server(tmp_path, timeout=10)  # a "server" that exits at once is reported, not waited for


def test_stop_by_pid_stops_only_a_llama_server(tmp_path):
    with pytest.raises(SystemExit, match="not stopped"):
        LOCAL_SERVER.stop(tmp_path, os.getpid())  # this very test process: refused
    ended = subprocess.Popen(["true"])
    ended.wait()
    LOCAL_SERVER.stop(tmp_path, ended.pid)  # a pid whose process has ended: nothing to stop, no error


def test_a_plain_answer(client):
    completion = client.send(MESSAGES, [])
    assert "tools" not in completion.request and "tool_choice" not in completion.request
    assert completion.message == {"role": "assistant", "content": "Done."}
    assert completion.response["choices"][0]["finish_reason"] == "stop"
    assert completion.response["model"] == MODEL_NAME


def test_tool_choice_auto_offered_tools_it_calls_one(client, copy):
    tools = [BashTool(copy), EditTool(copy), read_file(copy)]
    completion = client.send(MESSAGES, [t.definition() for t in tools])
    assert completion.request["tool_choice"] == "auto"
    (call,) = completion.message["tool_calls"]
    # The grammar allows only the offered names and, for read_file, only the listed paths; among
    # those the tiny model's weights prefer the latest letter: read_file, todo.txt.
    assert call["function"] == {"name": "read_file", "arguments": '{"path":"todo.txt"}'}
    assert completion.response["choices"][0]["finish_reason"] == "tool_calls"


def test_the_grammar_makes_arguments_valid_json_for_the_schema(client):
    completion = client.send(MESSAGES, [NoteTool().definition()])
    (call,) = completion.message["tool_calls"]
    assert call["function"]["name"] == "note"
    # "text" is required, so the grammar makes the model write it; this model closes a string at once.
    assert json.loads(call["function"]["arguments"]) == {"text": ""}


def test_tool_choice_required_is_enforced_by_the_server(server, client, copy):
    tool = read_file(copy)
    first = client.send(MESSAGES, [tool.definition()]).message
    answered = [
        *MESSAGES,
        first,
        {"role": "tool", "tool_call_id": first["tool_calls"][0]["id"], "content": json.dumps({"ok": True})},
    ]
    assert client.send(answered, [tool.definition()]).message == {"role": "assistant", "content": "Done."}

    required = DeepSeekClient(base_url=server.base_url, model=server.model, tool_choice="required")
    completion = required.send(answered, [tool.definition()])
    assert completion.request["tool_choice"] == "required"
    # The model would stop after "Done."; the server's grammar does not let it end without a call.
    assert completion.message["content"] == "Done."
    assert [c["function"]["name"] for c in completion.message["tool_calls"]] == ["read_file"]


def test_the_servers_answer_differs_from_deepseeks_where_expected(client, copy):
    """What this llama-server really sends, recorded: the client takes each of these as it is."""
    completion = client.send(MESSAGES, [read_file(copy).definition()])
    response, message = completion.response, completion.message
    (call,) = message["tool_calls"]
    assert message["content"] == ""  # an empty string beside the calls, not null
    assert set(call) == {"type", "function", "id"}  # no "index"
    assert SERVER_ID.fullmatch(call["id"])  # not "call_..."
    assert re.fullmatch(r"chatcmpl-[A-Za-z0-9]{32}", response["id"])
    assert set(response) == {"choices", "created", "model", "system_fingerprint", "object", "usage", "id", "timings"}
    assert response["system_fingerprint"].startswith("b")  # build number and commit of llama.cpp
    assert {"prompt_n", "predicted_n", "cache_n"} <= set(response["timings"])
    assert set(response["usage"]) == {"completion_tokens", "prompt_tokens", "total_tokens", "prompt_tokens_details"}
    assert completion.repairs == ()  # nothing here is a quirk that needed mending


def test_a_round_trip_through_the_agent_with_a_real_tool(client, copy):
    agent = Agent(client, [read_file(copy)])
    assert agent.run("Read the notes, then answer.") == "Done."

    record = agent.record
    assert [len(c.response["choices"][0]["message"].get("tool_calls", [])) for c in record.model_calls] == [1, 0]
    (execution,) = record.tool_executions
    assert (execution.name, execution.arguments) == ("read_file", '{"path":"todo.txt"}')  # as the server wrote it
    assert execution.result["content"] == FILES["todo.txt"]  # the file was really read
    call_id = record.model_calls[0].response["choices"][0]["message"]["tool_calls"][0]["id"]
    tool_message = record.model_calls[1].request["messages"][3]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == call_id
    assert json.loads(tool_message["content"])["content"] == FILES["todo.txt"]


class AsksForAStream(httpx.BaseTransport):
    """Sends the client's body with stream: true, as if a server had ignored stream: false."""

    def __init__(self, base_url: str) -> None:
        self.inner = transport_for(base_url)
        self.content_types: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.read())
        assert body["stream"] is False  # what the client sends, always
        body["stream"] = True
        changed = httpx.Request(request.method, request.url, json=body)  # the client sends no key here
        response = self.inner.handle_request(changed)
        self.content_types.append(response.headers["content-type"])
        return response


def test_a_streamed_answer_is_refused(server):
    transport = AsksForAStream(server.base_url)
    client = DeepSeekClient(base_url=server.base_url, model=server.model, api_key="", transport=transport)
    with pytest.raises(StreamedAnswer):
        client.send(MESSAGES, [])
    assert transport.content_types == ["text/event-stream"]  # the real server did stream


def test_a_key_travels_in_the_header_and_a_wrong_one_is_refused_without_showing_it(client):
    key, wrong = "sk-local-test-0123456789", "sk-local-wrong-9876543210"
    with start_llama_server(extra_args=["--api-key", key]) as guarded:
        right = DeepSeekClient(base_url=guarded.base_url, model=guarded.model, api_key=key)
        completion = right.send(MESSAGES, [])
        assert completion.message["content"] == "Done."
        assert key not in json.dumps([completion.request, completion.response])
        refused = DeepSeekClient(base_url=guarded.base_url, model=guarded.model, api_key=wrong)
        with pytest.raises(AuthenticationFailed) as error:
            refused.send(MESSAGES, [])
    text = str(error.value) + json.dumps([error.value.body, error.value.request, error.value.response])
    assert wrong not in text and key not in text


def listening_inodes(table: str) -> set[str]:
    """The inodes of the listening sockets in /proc/net/tcp, tcp6, ... (state 0A is LISTEN)."""
    rows = [line.split() for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]]
    return {row[9] for row in rows if row[3] == "0A"}


def test_it_listens_only_on_a_socket_in_a_folder_of_its_own(tmp_path):
    if PROBLEM is not None and not os.environ.get("CI"):
        pytest.skip(PROBLEM)
    with start_llama_server() as running:
        folder = running.folder
        assert (folder.stat().st_uid, stat.S_IMODE(folder.stat().st_mode)) == (os.getuid(), 0o700)
        assert stat.S_ISSOCK(running.socket.stat().st_mode) and running.socket.parent == folder
        assert running.base_url == f"unix:{running.socket}:/v1"
        fds = Path(f"/proc/{running.pid}/fd")
        sockets = {os.readlink(fds / fd)[len("socket:[") : -1] for fd in os.listdir(fds)}
        for table in ("tcp", "tcp6"):
            assert not sockets & listening_inodes(table), f"llama-server listens on a TCP port ({table})"
    assert not folder.exists()  # stopped: the folder, its socket and its log are gone


def test_no_key_from_the_environment_reaches_it(project, monkeypatch):
    """The server is started wanting the very key that is in the environment: had the client sent it,
    the server would answer. It refuses, in Python and on the CLI: the key did not reach it."""
    if PROBLEM is not None and not os.environ.get("CI"):
        pytest.skip(PROBLEM)
    key = "sk-provider-0123456789"
    for name in ("REACTLAB_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.setenv(name, key)
    with start_llama_server(extra_args=["--api-key", key]) as guarded:
        with pytest.raises(AuthenticationFailed):
            DeepSeekClient(base_url=guarded.base_url, model=guarded.model).send(MESSAGES, [])
        done = live_run(guarded.base_url, guarded.model, project)
    assert done.returncode == 1 and json.loads(done.stdout)["stop_reason"] == "api_authentication_failed"
    assert key not in done.stdout + done.stderr


def test_record_a_run_from_the_cli_then_replay_it_offline(server, project, tmp_path):
    cassette = tmp_path / "tiny.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DEEPSEEK_API_KEY", "REACTLAB_API_KEY")}
    env |= {"REACTLAB_BASE_URL": server.base_url, "REACTLAB_MODEL": server.model}
    task = ["--project", str(project), "--task", "Read the notes, then answer.", "--json", "--discard"]

    def run(*mode: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "reactlab", "run", *task, *mode], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        result: dict = json.loads(done.stdout)
        return result

    recorded = run("--live", "--record", str(cassette))
    assert (recorded["answer"], recorded["model_calls"], recorded["tool_calls"]) == ("Done.", 2, 1)
    assert recorded["steps"][0]["tool"] == "read_file"  # the CLI offers all three tools; the weights pick this

    saved = Cassette.load(cassette)
    assert saved.source == "recorded"
    assert [i["response"]["model"] for i in saved.interactions] == [MODEL_NAME, MODEL_NAME]
    assert SERVER_ID.fullmatch(saved.recorded_calls()[0].call_id)

    replayed = run("--cassette", str(cassette))
    for field in ("answer", "stop_reason", "model_calls", "tool_calls", "steps"):
        assert replayed[field] == recorded[field], field


def test_recording_in_python_keeps_the_bodies_and_replays_to_the_same_record(server, client, copy, project):
    recorder = RecordingTransport(transport_for(server.base_url))
    live_client = DeepSeekClient(base_url=server.base_url, model=server.model, transport=recorder)
    live = Agent(live_client, [read_file(copy)])
    live.run("Read the notes, then answer.")
    cassette = recorder.cassette("recorded from llama-server with a tiny test model")

    with Workspace(project) as again:
        replay = Agent(cassette.client(), [ReadFileTool(again, sorted(FILES))])
        assert replay.run("Read the notes, then answer.") == live.record.answer
    assert [c.response for c in replay.record.model_calls] == [c.response for c in live.record.model_calls]
    assert [e.result for e in replay.record.tool_executions] == [e.result for e in live.record.tool_executions]
