"""llama.cpp's llama-server on this machine, with a tiny generated model: a live run with no key and
no network.

``make llama-server`` builds the server once from the pinned llama-cpp-python source package on PyPI
(it holds the whole llama.cpp tree) into a cache folder, and writes the model beside it
(``scripts/local_server.py``). Then::

    with start_llama_server() as server:
        client = DeepSeekClient(base_url=server.base_url, model=server.model)

It listens on a unix socket in a folder of its own that only this user can enter (``unix_socket.py``
says why not a port on 127.0.0.1), so no other user of the machine can answer in its place or talk
to it; ``base_url`` names that socket, and no key from the environment is sent to it.

The model is a tiny generated model, not a language model: two layers whose weights were set by hand,
so its answers are whatever those weights force. Offered tools, it calls one, and the server's grammar
makes the arguments valid JSON for that tool's schema; once a tool result is in the history, or when
no tools are offered, it answers ``Done.``. Everything around it is real: the HTTP server, the chat
template, the tool-call parser, the ids and the extra fields of the answers.
"""

from __future__ import annotations

import os
import shutil
import signal
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
from .core.slips.unix_socket import open_to_others, request_url, transport_for

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


_SOCKET = "llama-server.sock"  # llama-server listens on a unix socket when --host ends in .sock
_LOG = "llama-server.log"


@dataclass
class LlamaServer:
    """A running llama-server that this process started, on a unix socket in a private folder.
    ``stop()`` (or leaving the ``with`` block) ends it and removes the folder; so does the end of the
    Python process, if nothing stopped it before."""

    process: subprocess.Popen[bytes]
    folder: Path
    """Made for this server alone (mode 0700): its socket and its log."""
    model: str = MODEL_NAME
    _finalizer: weakref.finalize[[subprocess.Popen[bytes], Path], LlamaServer] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._finalizer = weakref.finalize(self, _end, self.process, self.folder)

    @property
    def socket(self) -> Path:
        return self.folder / _SOCKET

    @property
    def log(self) -> Path:
        """Everything the server printed: read it when something goes wrong."""
        return self.folder / _LOG

    @property
    def base_url(self) -> str:
        return f"unix:{self.socket}:/v1"

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
    """Start llama-server with the tiny model on a unix socket in a new private folder; return when
    it is ready.

    ``extra_args`` go on its command line (``["--api-key", key]``, say). Raises RuntimeError, with the
    end of the server's log, if it exits or is not ready within ``timeout`` seconds."""
    folder = folder or llama_server_folder()
    problem = llama_server_problem("en", folder)
    if problem is not None:
        raise RuntimeError(problem)
    # mkdtemp makes a new folder, mode 0700, owned by this user: no one else can bind, plant or
    # replace a socket in it, or connect to ours.
    private = Path(tempfile.mkdtemp(prefix="reactlab-llama-server-"))
    refused = open_to_others(str(private))
    if refused is not None:  # a TMPDIR others may write in: the client would never talk to the server
        private.rmdir()
        raise RuntimeError(f"{refused}; set TMPDIR to a folder only you can write in")
    command = [
        str(folder / "bin" / "llama-server"),
        *("--model", str(folder / MODEL_FILE), "--alias", MODEL_NAME, "--jinja"),
        *("--host", str(private / _SOCKET), "--ctx-size", "16384", "--parallel", "1"),
        *("--threads", "1", "--no-webui", "--no-warmup", "--offline"),
        *extra_args,
    ]
    try:
        with open(private / _LOG, "wb") as log:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    except BaseException:
        shutil.rmtree(private)
        raise
    server = LlamaServer(process, private)
    try:
        _wait_until_ready(server, timeout)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_until_ready(server: LlamaServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    with httpx.Client(transport=transport_for(server.base_url), timeout=2.0) as http:
        while time.monotonic() < deadline:
            if not server.running():
                tail = _tail(server.log)
                raise RuntimeError(f"llama-server exited with code {server.process.returncode}:\n{tail}")
            try:
                if http.get(request_url(f"unix:{server.socket}:/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass  # not listening yet
            time.sleep(0.05)
    raise RuntimeError(f"llama-server was not ready within {timeout:g} s:\n{_tail(server.log)}")


def _tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _end(process: subprocess.Popen[bytes], folder: Path) -> None:
    """Stop the server this process started (by its own handle, so by its pid only), then remove its folder."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    shutil.rmtree(folder, ignore_errors=True)
