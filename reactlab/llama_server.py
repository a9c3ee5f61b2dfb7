"""llama.cpp's llama-server on this machine, with a tiny generated model: a live run with no key and
no network.

``make llama-server`` builds the server once from the pinned llama-cpp-python source package on PyPI
(it holds the whole llama.cpp tree) into a cache folder, and writes the model beside it
(``scripts/local_server.py``). Then::

    with start_llama_server() as server:
        client = DeepSeekClient(base_url=server.base_url, model=server.model)

The model is a tiny generated model, not a language model: two layers whose weights were set by hand,
so its answers are whatever those weights force. Offered tools, it calls one, and the server's grammar
makes the arguments valid JSON for that tool's schema; once a tool result is in the history, or when
no tools are offered, it answers ``Done.``. Everything around it is real: the HTTP server, the chat
template, the tool-call parser, the ids and the extra fields of the answers.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import httpx

from .core.language import Language, say

__all__ = [
    "LLAMA_CPP_PYTHON",
    "LlamaServer",
    "MODEL_FILE",
    "MODEL_NAME",
    "llama_server_folder",
    "llama_server_problem",
    "start_llama_server",
]

LLAMA_CPP_PYTHON = "0.3.36"
"""The llama-cpp-python source package the server is built from; its version names the cache folder."""
MODEL_NAME = "tiny-tool-caller"
MODEL_FILE = f"{MODEL_NAME}-1.gguf"
"""The number goes up whenever scripts/local_server.py writes a different model, so an old one is not used."""


def llama_server_folder() -> Path:
    """Where the build and the model are kept: ``${XDG_CACHE_HOME:-~/.cache}/reactlab/llama-server-<version>``."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "reactlab" / f"llama-server-{LLAMA_CPP_PYTHON}"


def llama_server_problem(lang: Language | None = None, folder: Path | None = None) -> str | None:
    """Why the server cannot be started here, in the reader's language; None when it can."""
    folder = folder or llama_server_folder()
    if not os.access(folder / "bin" / "llama-server", os.X_OK):
        return say(
            "llama-server is not built on this machine: run `make llama-server` once (about 10 minutes).", lang=lang
        )
    if not (folder / MODEL_FILE).is_file():
        return say(
            "llama-server is built, but its tiny test model is missing or old: run `make llama-server`.", lang=lang
        )
    return None


@dataclass
class LlamaServer:
    """A running llama-server on 127.0.0.1 that this process started. ``stop()`` (or leaving the
    ``with`` block) ends it; so does the end of the Python process, if nothing stopped it before."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    """Everything the server printed: read it when something goes wrong."""
    model: str = MODEL_NAME
    _finalizer: weakref.finalize[[subprocess.Popen[bytes], Path], LlamaServer] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._finalizer = weakref.finalize(self, _end, self.process, self.log)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int:
        return self.process.pid

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self._finalizer()

    def detach(self) -> None:
        """Leave it running after this process ends (``scripts/local_server.py start``); stop it by its pid."""
        self._finalizer.detach()

    def __enter__(self) -> LlamaServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def start_llama_server(
    folder: Path | None = None, *, extra_args: Sequence[str] = (), timeout: float = 60.0
) -> LlamaServer:
    """Start llama-server with the tiny model on a free port of 127.0.0.1; return when it is ready.

    ``extra_args`` go on its command line (``["--api-key", key]``, say). Raises RuntimeError, with the
    end of the server's log, if it exits or is not ready within ``timeout`` seconds."""
    folder = folder or llama_server_folder()
    problem = llama_server_problem("en", folder)
    if problem is not None:
        raise RuntimeError(problem)
    last_error = ""
    for _ in range(3):  # another program may take the free port between our look and the server's bind
        port = _free_port()
        log = Path(tempfile.mkstemp(prefix="reactlab-llama-server-", suffix=".log")[1])
        command = [
            str(folder / "bin" / "llama-server"),
            *("--model", str(folder / MODEL_FILE), "--alias", MODEL_NAME, "--jinja"),
            *("--host", "127.0.0.1", "--port", str(port), "--ctx-size", "16384", "--parallel", "1"),
            *("--threads", "1", "--no-webui", "--no-warmup", "--offline"),
            *extra_args,
        ]
        with open(log, "wb") as out:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        server = LlamaServer(process, port, log)
        try:
            _wait_until_ready(server, timeout)
            return server
        except _PortTaken as taken:
            last_error = str(taken)
            server.stop()
        except BaseException:
            server.stop()
            raise
    raise RuntimeError(last_error)


class _PortTaken(RuntimeError):
    pass


def _wait_until_ready(server: LlamaServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2.0) as http:
        while time.monotonic() < deadline:
            if not server.running():
                tail = _tail(server.log)
                kind = _PortTaken if "bind" in tail.lower() else RuntimeError
                raise kind(f"llama-server exited with code {server.process.returncode}:\n{tail}")
            try:
                if http.get(f"http://127.0.0.1:{server.port}/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass  # not listening yet
            time.sleep(0.05)
    raise RuntimeError(f"llama-server was not ready within {timeout:g} s:\n{_tail(server.log)}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _end(process: subprocess.Popen[bytes], log: Path) -> None:
    """Stop the server this process started (by its own handle, so by its pid only), then remove its log."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    log.unlink(missing_ok=True)
