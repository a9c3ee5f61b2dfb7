"""Another user of the machine tries to take the local llama-server's place, or to talk to it.

A second process, running as ``nobody``, is given the server's address (``tests/servers/impostor.py``
says what it tries): before the server starts (bind the address first and answer the readiness check,
also while the server is slow to start, or put a link there to a socket of its own), once it is ready
(move or remove its socket and bind the address, or connect to it), or once it has stopped (make its
folder again and bind the address). Each attempt must fail, and the client, in Python and on the CLI,
with provider keys in the environment, must talk to the real server, or refuse, and send nothing and
no key to anyone else. Playing another uid needs root: as any other user these tests cannot run and
say so.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactlab import APIConnectionError, DeepSeekClient, llama_server
from reactlab.llama_server import MODEL_NAME, llama_server_problem, start_llama_server

from .serving import live_run

IMPOSTOR = Path(__file__).with_name("impostor.py")
PYTHON = "/usr/bin/python3"  # Debian's: the other user can run it, unlike a venv under /root
NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
KEYS = {"REACTLAB_API_KEY": "sk-reactlab-secret-0123456789", "DEEPSEEK_API_KEY": "sk-deepseek-secret-9876543210"}
MESSAGES = [{"role": "user", "content": "Who are you?"}]

PROBLEM = llama_server_problem()
pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="running a process as another uid needs root"),
    # in CI it must run: starting it fails and says why
    pytest.mark.skipif(PROBLEM is not None and not os.environ.get("CI"), reason=str(PROBLEM)),
]


class Impostor:
    """The other user's processes: one for each server start (or one, started by hand)."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.processes: list[subprocess.Popen[str]] = []
        self.said: list[dict] = []

    def start(self, address: str) -> None:
        """Run it against ``address`` and wait until it has tried (it may go on serving)."""
        process = subprocess.Popen(
            [*AS_NOBODY, PYTHON, "-c", IMPOSTOR.read_text(), self.variant, address],
            stdout=subprocess.PIPE,
            text=True,
            env={"PATH": "/usr/bin:/bin"},  # none of this process's keys
            cwd="/",
        )
        self.processes.append(process)
        assert process.stdout is not None
        for line in process.stdout:
            self.said.append(json.loads(line))
            if "listening" in self.said[-1]:
                return
        raise AssertionError(f"the impostor ended before trying: {self.said}")

    def end(self) -> None:
        while self.processes:
            process = self.processes.pop()
            process.terminate()
            out, _ = process.communicate(timeout=10)
            self.said += [json.loads(line) for line in out.splitlines()]
        for made in [Path(s["made"]) for s in self.said if "made" in s]:
            if made.is_dir() and not made.is_symlink() and made.stat().st_uid == NOBODY:  # its own, nothing else
                shutil.rmtree(made)

    def attempts(self) -> list[dict]:
        return [s for s in self.said if "try" in s]

    def arrivals(self) -> list[dict]:
        return [s for s in self.said if "arrived" in s]


def address_of(command: list[str]) -> str:
    """Where a llama-server command line says it listens (its own defaults: 127.0.0.1, port 8080)."""
    options = dict(zip(command, command[1:], strict=False))
    host = options.get("--host", "127.0.0.1")
    return f"unix:{host}" if host.endswith(".sock") else f"tcp:{host}:{options.get('--port', '8080')}"


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "notes.txt").write_text("Buy milk.\n")
    return tmp_path


@pytest.fixture
def keys_in_the_environment(monkeypatch) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(params=["bind-first", "bind-first, slow server", "symlink-first", "replace", "connect"])
def impostor(request, monkeypatch) -> Iterator[Impostor]:
    variant, _, slow = request.param.partition(", ")
    other = Impostor(variant)
    if variant.endswith("-first"):  # given the address the moment before each server starts
        real_popen = subprocess.Popen

        def popen(command, *args, **options):
            if not str(command[0]).endswith("llama-server"):
                return real_popen(command, *args, **options)
            other.start(address_of(command))
            started = real_popen(command, *args, **options)
            if slow:  # as on a loaded machine: the server reaches its bind a second late
                started.send_signal(signal.SIGSTOP)  # through Popen: never to a number reaped already
                threading.Timer(1.0, started.send_signal, (signal.SIGCONT,)).start()
            return started

        monkeypatch.setattr(llama_server.subprocess, "Popen", popen)
    yield other
    other.end()


def test_another_user_cannot_take_the_servers_place_or_talk_to_it(impostor, keys_in_the_environment, project):
    with start_llama_server() as server:
        if not impostor.variant.endswith("-first"):
            impostor.start(address_of(server.process.args))  # type: ignore[arg-type]
        answer = DeepSeekClient(base_url=server.base_url, model=server.model).send(MESSAGES, [])
        run = live_run(server.base_url, server.model, project)
    impostor.end()

    assert not any(key in json.dumps(impostor.said) for key in KEYS.values())
    assert impostor.arrivals() == []  # nothing reached it
    attempts = impostor.attempts()
    assert attempts and not [a for a in attempts if a["ok"]], attempts  # each attempt was refused
    assert (answer.response["model"], answer.message["content"]) == (MODEL_NAME, "Done.")  # the real server
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["answer"] == "Done."


def test_once_the_server_has_stopped_another_user_cannot_answer_at_its_address(keys_in_the_environment, project):
    """A client, or a shell's REACTLAB_BASE_URL, kept after the server stopped: its folder is gone, the
    other user makes one at the same path with a socket in it, and must not be talked to."""
    with start_llama_server() as server:
        client = DeepSeekClient(base_url=server.base_url, model=server.model)
        assert client.send(MESSAGES, []).message["content"] == "Done."
        address, base_url = address_of(server.process.args), server.base_url  # type: ignore[arg-type]
    impostor = Impostor("after-stop")
    try:
        impostor.start(address)
        assert impostor.said[-1] == {"listening": True}  # it did take the address: the server is gone
        with pytest.raises(APIConnectionError, match=f"belongs to uid {NOBODY}"):
            client.send(MESSAGES, [])
        run = live_run(base_url, MODEL_NAME, project)
    finally:
        impostor.end()
    assert impostor.arrivals() == []
    assert not any(key in json.dumps(impostor.said) for key in KEYS.values())
    assert run.returncode == 1 and json.loads(run.stdout)["stop_reason"] == "api_connection_error"
