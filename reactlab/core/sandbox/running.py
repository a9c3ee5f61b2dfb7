"""Running one command: start bwrap, bound its time and output, and end everything it started.

bwrap is started as a child of this process (for root as the sandbox uid, see identity.py), in a
session of its own, with an almost empty environment and no descriptor of ours but two pipes. On
the first it reports the pid of the sandbox's first process, then how the command ended; on the
second it waits. Once it has reported, that process is moved into the run's cgroups and let go, so
everything the command starts is born inside them. The output is read as it comes: the first
``output_limit`` bytes of each stream are kept, the rest drained, so the command never blocks on a
full pipe. At the timeout, on Ctrl-C, when the Sandbox is closed, or when the copy passes its disk
bound (disk.py, checked while the command runs), bwrap and the sandbox's first process are killed;
with that process the kernel ends every process of the sandbox, and the call returns only once
they are gone.

Why bwrap waits on the block pipe instead of being in the cgroups before it starts: the wait is what
lets a command be killed at every moment. bwrap's first process leaves bwrap's process group
(setsid, for --new-session) before it ties its life to bwrap's (its PR_SET_PDEATHSIG comes later, in
the init it forks: bubblewrap.c, 0.8 to 0.11). Killed in between, bwrap would leave it running with
nothing to end it; held on the pipe until the host holds a pidfd of it, it never runs unwatched.
Joining the cgroups at that same point costs nothing more; joining them before bwrap starts (bwrap
held on `--args FD` while the host moves it) would keep this wait and add one.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import SandboxUnavailable
from ..language import say
from .cgroups import RunCgroups
from .identity import as_sandbox_uid

__all__ = ["OUTPUT_LIMIT", "SandboxResult", "above_stdio", "interrupts_held", "run_command"]

OUTPUT_LIMIT = 30_000  # bytes kept per stream; the rest is drained and dropped
# bwrap's first process keeps the environment bwrap was started with (/proc/1/environ): almost none.
_HOST_ENV = {"PATH": "/usr/bin:/bin"}
_CHILD_PID = re.compile(rb'"child-pid": *([0-9]+)')  # the rest of the line may still be coming
_CTRL_C_CHECK = 0.2  # seconds a held Ctrl-C may wait before the command is killed


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool
    timed_out: bool
    duration: float
    setup_failed: bool = False  # bwrap itself failed before the command started (told by its status pipe)


def run_command(
    argv: Callable[[int, int], list[str]],
    timeout: float,
    *,
    output_limit: int,
    cgroups: RunCgroups,
    closing: int,
    interrupted: list[object],
    watch: Callable[[], float],
    passed: tuple[int, ...] = (),
) -> SandboxResult:
    """Run ``argv(status_fd, block_fd)``. ``closing`` is a descriptor that becomes readable when the
    Sandbox is closed: the command is then killed, and SandboxUnavailable raised. ``interrupted``
    is the list ``interrupts_held`` gives, held for the whole call: once a Ctrl-C is in it, the
    command is killed and the caller raises KeyboardInterrupt. ``passed``: more descriptors bwrap
    is given (they stay the caller's to close). ``watch`` is called while the command runs (disk.py):
    what it raises kills the command and is raised here; it returns the seconds until it wants to
    be called again."""
    started = time.monotonic()
    command = _start(argv, passed, output_limit)
    try:
        command.follow(started + timeout, cgroups, closing, interrupted, watch)
    except BaseException:
        command.kill()
        raise
    finally:
        command.finish()
    if command.closed:
        raise SandboxUnavailable(say("The sandbox was closed while the command ran (its working copy removed?)."))
    code = None if command.killed else command.process.returncode
    report = command.report()
    stdout, stderr = command.texts()
    return SandboxResult(
        exit_code=code,
        stdout=stdout,
        stderr=stderr,
        truncated=command.truncated,
        timed_out=code is None,
        duration=time.monotonic() - started,
        setup_failed=code is not None and "exit-code" not in report,
    )


def _start(argv: Callable[[int, int], list[str]], passed: tuple[int, ...], output_limit: int) -> _Command:
    status_read, status_write = _pipe()
    block_read, block_write = _pipe()
    try:
        command = argv(status_write, block_read)
        with as_sandbox_uid():  # for root: this thread, while it starts bwrap (identity.py)
            process = subprocess.Popen(
                command,
                env=_HOST_ENV,
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                close_fds=True,
                pass_fds=(status_write, block_read, *passed),
                start_new_session=True,
            )
    except OSError as error:
        os.close(status_read)
        os.close(block_write)
        raise SandboxUnavailable(say("Could not start bwrap: {reason}.", reason=error.strerror or error)) from None
    finally:
        os.close(status_write)
        os.close(block_read)
    return _Command(process, status_read, block_write, output_limit)


def _pipe() -> tuple[int, int]:
    """A pipe whose ends are numbered 3 or more. In a process whose standard streams are closed (a
    daemon, a service) os.pipe() returns 0, 1 or 2, which Popen makes bwrap's stdin, stdout and
    stderr: the block pipe was then bwrap's stderr, which it read nothing from and went on, so the
    command started outside the run's cgroups, and bwrap's status went to the command's stdout."""
    read, write = os.pipe()
    try:
        read = above_stdio(read)
    except BaseException:
        os.close(write)
        raise
    try:
        write = above_stdio(write)
    except BaseException:
        os.close(read)
        raise
    return read, write


def above_stdio(fd: int) -> int:
    """``fd`` if it is numbered 3 or more; else a close-on-exec copy that is, and ``fd`` is closed."""
    if fd > 2:
        return fd
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    finally:
        os.close(fd)


class _Command:
    """One bwrap and what it reports and prints, followed until every process of it is gone."""

    def __init__(self, process: subprocess.Popen[bytes], status: int, block: int, output_limit: int) -> None:
        assert process.stdout is not None and process.stderr is not None
        self.process, self.status, self.block = process, status, block
        self.streams = {process.stdout.fileno(): bytearray(), process.stderr.fileno(): bytearray()}
        self.open = [*self.streams, status]
        for fd in self.open:
            # A command can read its own output pipes back (/proc/self/fd/1), taking what poll saw
            # before we read it: a blocking read would then wait past the timeout.
            os.set_blocking(fd, False)
        self.limit = output_limit
        self.status_text = b""
        self.first: int | None = None  # a pidfd of the sandbox's first process, once reported
        self.truncated = self.killed = self.closed = False

    def follow(
        self, deadline: float, cgroups: RunCgroups, closing: int, interrupted: list[object], watch: Callable[[], float]
    ) -> None:
        """Read until the output pipes end and bwrap has exited, or until ``deadline`` (checked on
        every turn: a command that keeps both pipes full would otherwise never let poll time out),
        until ``closing`` is readable, or until a Ctrl-C is held in ``interrupted``; then kill what
        is left. A held Ctrl-C does not wake poll, so it waits at most ``_CTRL_C_CHECK`` at a time;
        ``watch`` is called on every turn too, and waited for no longer than it asks."""
        poller = select.poll()  # no limit on descriptor numbers, unlike select()
        for fd in [*self.open, closing]:
            poller.register(fd, select.POLLIN)
        while self._streams_open() and not self.closed and not interrupted:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for fd, _ in poller.poll(min(left, _CTRL_C_CHECK, watch()) * 1000):
                if fd == closing:
                    self.closed = True
                elif not self._read(fd):
                    poller.unregister(fd)
                elif fd == self.status and self.block >= 0:
                    self._let_go(cgroups)
        # A command that closed its output may still run: the deadline holds for it too.
        while not self._streams_open() and not self.closed and not interrupted:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                self.process.wait(min(left, _CTRL_C_CHECK, watch()))
                return
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def _streams_open(self) -> bool:
        return any(fd in self.open for fd in self.streams)

    def _read(self, fd: int) -> bool:
        """Take what is waiting on ``fd``; False once it has ended."""
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return True  # taken back by the command
        if not chunk:
            self.open.remove(fd)
            return False
        if fd == self.status:
            self.status_text += chunk
            return True
        kept = self.streams[fd]
        room = self.limit - len(kept)
        self.truncated = self.truncated or len(chunk) > room
        kept += chunk[: max(0, room)]
        return True

    def _let_go(self, cgroups: RunCgroups) -> None:
        """Once bwrap has reported its first process: into the run's cgroups with it, then let it run."""
        found = _CHILD_PID.search(self.status_text)
        if found is None:
            return
        pid = int(found[1])
        # The first process may die before we get here (its setup failed: bwrap reaps it), and its
        # pid may be another process's by then (pid_max is often 32768): only a process we hold a
        # pidfd of and whose parent is our bwrap is ever moved or signalled. Anything else and bwrap
        # is killed (its first process, blocked, is still in its process group), nothing let go.
        try:
            self.first = os.pidfd_open(pid)  # kept at once: finish() closes it whatever comes next
        except ProcessLookupError:
            pass  # it has ended already: bwrap reports how
        if self.first is not None and not _child_of(self.first, pid, self.process.pid):
            first, self.first = self.first, None
            os.close(first)
            self.kill()
        elif self.first is not None:
            try:
                cgroups.add(pid)
            except ProcessLookupError:
                pass  # its setup failed, and it has ended: bwrap reports how
            except OSError as error:
                self.kill()
                raise SandboxUnavailable(
                    say("Could not move the sandbox into the run's cgroups: {reason}.", reason=error.strerror)
                ) from None
        try:
            os.write(self.block, b"x")
        except BrokenPipeError:
            pass  # it has ended already
        os.close(self.block)
        self.block = -1

    def kill(self) -> None:
        """End bwrap and every process of the sandbox. Until bwrap lets its first process go, that
        process is in bwrap's process group; after, the pidfd reaches it, and its PID namespace, with
        every process of the command, ends with it."""
        self.killed = True
        if self.process.returncode is None:  # once reaped, its number may be another process's
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # not waited for yet: the group is still bwrap's
            except ProcessLookupError:
                pass
        if self.first is not None:
            try:
                signal.pidfd_send_signal(self.first, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def finish(self) -> None:
        """Wait until bwrap and the sandbox's first process are gone; close everything of ours."""
        deadline = time.monotonic() + 5
        while self._streams_open() and time.monotonic() < deadline:
            for fd, _ in _poll([fd for fd in self.open if fd in self.streams], deadline):
                self._read(fd)
        self.process.wait()
        if self.first is not None:
            select.select([self.first], [], [], 5)  # readable once it has exited
            os.close(self.first)
            self.first = None
        self.status_text += _read_all(self.status)
        os.close(self.status)
        if self.block >= 0:
            os.close(self.block)
        self.status = self.block = -1
        assert self.process.stdout is not None and self.process.stderr is not None
        self.process.stdout.close()
        self.process.stderr.close()
        self.open = []

    def report(self) -> dict[str, Any]:
        """bwrap's status: {"child-pid": N} once the namespaces exist, {"exit-code": N} only if the
        command was really started (so a command that prints 'bwrap: ...' is no setup failure)."""
        report: dict[str, Any] = {}
        for line in self.status_text.decode(errors="replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                report.update(value)
        return report

    def texts(self) -> tuple[str, str]:
        stdout, stderr = (kept.decode("utf-8", errors="replace") for kept in self.streams.values())
        return stdout, stderr


def _child_of(pidfd: int, pid: int, parent: int) -> bool:
    """Whether the process ``pidfd`` holds (number ``pid``) is a child of ``parent``. /proc is read
    by number, so the pidfd must still reach its process after the reading: a number passes to
    another process only once its own (a zombie included) is reaped."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            found = int(stat.read().rsplit(b")", 1)[1].split()[1])
        signal.pidfd_send_signal(pidfd, 0)
    except (OSError, IndexError, ValueError):
        return False
    return found == parent


def _read_all(fd: int) -> bytes:
    """What is waiting on ``fd`` now, without waiting for more."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _poll(fds: list[int], deadline: float) -> list[tuple[int, int]]:
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return poller.poll(max(0.0, deadline - time.monotonic()) * 1000) or []


@contextmanager
def interrupts_held() -> Iterator[list[object]]:
    """Hold a Ctrl-C back while the block runs; the list it gives is not empty if one came. A
    KeyboardInterrupt can otherwise land between any two steps: after a process started and before
    it is kept, after a descriptor opened and before it is remembered, and lose them. The caller
    raises it once everything is put away. Only the main thread gets a Ctrl-C."""
    held: list[object] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous = signal.signal(signal.SIGINT, lambda number, frame: held.append(number))
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous)
