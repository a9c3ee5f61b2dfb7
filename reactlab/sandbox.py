"""The Bubblewrap sandbox that bash runs in. There is no fallback: no sandbox, no command."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .errors import SandboxUnavailable

__all__ = ["BWRAP", "OUTPUT_LIMIT", "SANDBOX_ROOT", "Sandbox", "SandboxResult"]

BWRAP = "/usr/bin/bwrap"
SANDBOX_ROOT = "/work"
OUTPUT_LIMIT = 30_000  # bytes kept per stream; the rest is drained and dropped
TMP_SIZE = 64 * 1024 * 1024  # /tmp and /dev/shm are tmpfs of this size
FILE_SIZE_KB = 64 * 1024  # ulimit -f: no file over 64 MiB
MEMORY_KB = 4 * 1024 * 1024  # ulimit -v: 4 GiB of address space per process
PIDS_MAX = 256  # processes per sandbox, where a pids cgroup can be made (RLIMIT_NPROC does not bind root)
MEMORY_MAX = 2 * 1024**3  # bytes for the whole sandbox, where a memory cgroup can be made
_ETC = ("passwd", "group", "nsswitch.conf", "ld.so.cache", "localtime", "hosts", "alternatives")
# bwrap's init keeps the env it was started with, visible in /proc/1/environ: start it with almost nothing.
_HOST_ENV = {"PATH": "/usr/bin:/bin"}

_probed: dict[str, str | None] = {}
_probe_lock = threading.Lock()


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool
    timed_out: bool
    duration: float

    @property
    def setup_failed(self) -> bool:
        """bwrap exits 1 like a failing command; its own errors start with 'bwrap:'."""
        return self.exit_code == 1 and self.stderr.startswith("bwrap:")


def python_prefix() -> str:
    return os.path.realpath(sys.base_prefix)


class Sandbox:
    """Runs ``bash -c COMMAND`` in ``root`` (seen as /work), with ``read_only`` paths bound read-only.

    No network, no host home, no host environment (so no API key), uid 1000 with no capabilities,
    a private PID namespace, a 64 MiB /tmp. The interpreter's prefix is mounted read-only so the
    project's tests can run.
    """

    def __init__(
        self, root: str | Path, read_only: Sequence[str] = (), *, bwrap: str = BWRAP, output_limit: int = OUTPUT_LIMIT
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.read_only = tuple(read_only)
        self.bwrap = bwrap
        self.output_limit = output_limit

    def argv(self, command: str) -> list[str]:
        py = python_prefix()
        args = [
            self.bwrap,
            "--unshare-all", "--unshare-user", "--uid", "1000", "--gid", "1000",
            "--cap-drop", "ALL", "--disable-userns", "--die-with-parent", "--new-session",
            "--clearenv",
            "--setenv", "PATH", f"{py}/bin:/usr/local/bin:/usr/bin:/bin",
            "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
            "--hostname", "sandbox",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        ]  # fmt: skip
        for name in _ETC:
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        if not py.startswith("/usr/"):
            args += ["--ro-bind", py, py]
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--size", str(TMP_SIZE), "--tmpfs", "/tmp", "--size", str(TMP_SIZE), "--tmpfs", "/dev/shm"]
        args += ["--bind", str(self.root), SANDBOX_ROOT]
        for path in self.read_only:  # after the writable bind, or they would be hidden by it
            args += ["--ro-bind", str(self.root / path), f"{SANDBOX_ROOT}/{path}"]
        limits = f"ulimit -f {FILE_SIZE_KB} -v {MEMORY_KB}; ulimit -u {PIDS_MAX * 4} 2>/dev/null"
        return args + ["--chdir", SANDBOX_ROOT, "--", "/bin/bash", "-c", f"{limits}; {command}"]

    def check(self) -> None:
        """Raise SandboxUnavailable unless bwrap is present and can really build this sandbox."""
        if not os.path.isabs(self.bwrap) or not os.access(self.bwrap, os.X_OK):
            raise SandboxUnavailable(
                f"Bubblewrap not found at {self.bwrap}, so bash will not run (there is no unsandboxed fallback). "
                "Install it: `sudo apt-get install bubblewrap` (Debian/Ubuntu) or `sudo dnf install bubblewrap`."
            )
        with _probe_lock:
            if self.bwrap not in _probed:
                _probed[self.bwrap] = _probe(self.bwrap)
        failure = _probed[self.bwrap]
        if failure is not None:
            raise SandboxUnavailable(
                f"{self.bwrap} is installed but could not build a sandbox here: {failure}. "
                "Unprivileged user namespaces are probably blocked: Ubuntu 23.10+ needs "
                "`sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`, and Docker's default seccomp "
                "profile forbids them. bash will not run without isolation."
            )
        for path in self.read_only:
            source = self.root / path
            # A symlink anywhere on the way (a command may have swapped a parent folder for one)
            # would bind a host file into the sandbox instead.
            if not source.exists() or os.path.realpath(source) != str(source):
                raise SandboxUnavailable(f"Read-only path {path!r} is missing or a symlink; refusing to run.")

    def limits(self) -> dict[str, int | None]:
        """The resource limits a command gets here (None: not available on this machine)."""
        groups = _cgroup_bases()
        return {
            "processes": PIDS_MAX if "pids" in groups else None,
            "memory_bytes": MEMORY_MAX if "memory" in groups else None,
            "address_space_bytes": MEMORY_KB * 1024,
            "file_size_bytes": FILE_SIZE_KB * 1024,
            "tmp_bytes": TMP_SIZE,
            "output_bytes_per_stream": self.output_limit,
        }

    def run(self, command: str, timeout: float) -> SandboxResult:
        self.check()
        with _Cgroups() as cgroups:
            return self._run(cgroups.wrap(self.argv(command)), timeout)

    def _run(self, argv: list[str], timeout: float) -> SandboxResult:
        started = time.monotonic()
        process = subprocess.Popen(
            argv,
            env=_HOST_ENV,
            close_fds=True,  # an inherited descriptor would be readable through /proc/self/fd
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stderr is not None
        readers = [_Reader(process.stdout, self.output_limit), _Reader(process.stderr, self.output_limit)]
        timed_out = False
        deadline = started + timeout
        try:
            # Wait on the pipes first: their end is the sandbox's end, and joining a thread does not
            # poll, while Popen.wait(timeout) does (in sleeps of up to 50 ms).
            for reader in readers:
                reader.join(max(0.0, deadline - time.monotonic()))
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process)
        except BaseException:  # an interrupted notebook cell must not leave the sandbox running
            _kill_group(process)
            raise
        for reader in readers:
            reader.join()
        out, err = readers
        return SandboxResult(
            exit_code=None if timed_out else process.returncode,
            stdout=out.text(),
            stderr=err.text(),
            truncated=out.truncated or err.truncated,
            timed_out=timed_out,
            duration=time.monotonic() - started,
        )


@functools.cache
def _cgroup_bases() -> dict[str, Path]:
    """Where per-run cgroups can be made: cgroup v1 controllers, or a delegated v2 subtree."""
    found: dict[str, Path] = {}
    root = Path("/sys/fs/cgroup")
    for controller in ("pids", "memory"):
        base = root / controller
        if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
            found[controller] = base
    try:
        own = next(line[3:] for line in Path("/proc/self/cgroup").read_text().splitlines() if line.startswith("0::"))
        unified = root / own.strip().lstrip("/")
        delegated = (unified / "cgroup.subtree_control").read_text().split()
    except (OSError, StopIteration):
        delegated = []
    for controller in ("pids", "memory"):
        if controller not in found and controller in delegated and os.access(unified, os.W_OK):
            found[controller] = unified
    return found


_LIMIT_FILES = {
    ("pids", True): ("pids.max", PIDS_MAX),
    ("memory", True): ("memory.limit_in_bytes", MEMORY_MAX),
    ("pids", False): ("pids.max", PIDS_MAX),
    ("memory", False): ("memory.max", MEMORY_MAX),
}
# Joins the cgroups given as arguments, then becomes bwrap: so every process of the sandbox is inside.
_JOIN = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n-1)); done; exec "$@"'
)


class _Cgroups:
    """Per-run process and memory cgroups where the machine allows them; nothing otherwise."""

    def __enter__(self) -> _Cgroups:
        self.paths: list[Path] = []
        name = f"reactlab-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}"
        for controller, base in _cgroup_bases().items():
            limit_file, value = _LIMIT_FILES[(controller, base.name == controller)]
            try:
                path = base / name
                path.mkdir()
                self.paths.append(path)
                (path / limit_file).write_text(str(value))
            except OSError:
                continue
        return self

    def wrap(self, argv: list[str]) -> list[str]:
        if not self.paths:
            return argv
        return ["/bin/sh", "-c", _JOIN, "sh", str(len(self.paths)), *map(str, self.paths), *argv]

    def __exit__(self, *exc: object) -> None:
        for path in self.paths:
            for _ in range(2000):  # the last processes of the sandbox take a moment to leave the cgroup
                try:
                    path.rmdir()
                    break
                except OSError:
                    time.sleep(0.0005)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    # Killing bwrap's group takes its init with it (PDEATHSIG), and with the init the PID namespace.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


class _Reader(threading.Thread):
    """Keeps the first ``limit`` bytes of a pipe and drains the rest, so the writer never blocks."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.limit = stream, limit
        self.kept = bytearray()
        self.truncated = False
        self.start()

    def run(self) -> None:
        fd = self.stream.fileno()
        try:
            while chunk := os.read(fd, 65536):
                room = self.limit - len(self.kept)
                if len(chunk) > room:
                    self.truncated = True
                if room > 0:
                    self.kept += chunk[:room]
        finally:
            self.stream.close()

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")


def _probe(bwrap: str) -> str | None:
    """Build the full sandbox once around `true`; return bwrap's complaint, or None if it works."""
    folder = tempfile.mkdtemp(prefix="reactlab-probe-")
    try:
        probe = Sandbox(folder, bwrap=bwrap)
        done = subprocess.run(
            probe.argv("true"), env=_HOST_ENV, close_fds=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0:
        return done.stderr.decode(errors="replace").strip()[:300] or f"exit code {done.returncode}"
    return None
