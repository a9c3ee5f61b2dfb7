"""Timing helpers and chat.completion bodies both benchmark scripts use. It imports reactlab only in
run_as_sandbox_uid, so a peer's process measured with it loads only what that peer loads."""

from __future__ import annotations

import atexit
import json
import os
import resource
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SIZES = (10, 100, 1000)
LONG_RUN = 520  # steps: the history passes 1,000 messages
BURST = 8  # sandboxed commands back to back: more bash calls than a model sends in one answer
MODEL_TIME = 0.02  # seconds of idle before a command, as when the model thinks between commands


def median_time(function: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def interleaved(
    contenders: dict[str, Callable[[], object]],
    repeat: int,
    before: dict[str, Callable[[], object]] | None = None,
) -> dict[str, float]:
    """Median seconds of each contender, taking turns so that the machine's noise falls on all.
    ``before[name]``, if given, runs untimed before each of that contender's samples."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, function in contenders.items():
            if before and name in before:
                before[name]()
            samples[name].append(median_time(function, 1))
    return {name: statistics.median(times) for name, times in samples.items()}


def cpu_seconds() -> float:
    """CPU time (user and system) of this process and of everything it starts, wherever they end.

    As root with cgroup v1's cpuacct (this machine, CI), from a cpuacct cgroup this process moves
    into once: its count includes every descendant, also a sandbox's init, which bwrap does not
    wait for (bwrap reports the exit code, then exits; the init is reaped by the host's pid 1, so
    getrusage would never see it, nor the command it ran). Elsewhere getrusage of this process and
    the children it reaped: a lower bound for commands in a PID namespace."""
    if _CPUACCT is not None:
        return int((_CPUACCT / "cpuacct.usage").read_text()) / 1e9
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cpuacct_of_this_process() -> Path | None:
    """A cpuacct cgroup of its own that this process (and so all it starts) is moved into, or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            base = Path("/sys/fs/cgroup", ",".join(sorted(controllers.split(","))), path.strip("/"))
            if not base.exists():
                base = Path("/sys/fs/cgroup/cpuacct", path.strip("/"))
            folder = base / f"reactlab-bench-{os.getpid()}"
            try:
                folder.mkdir(exist_ok=True)
                (folder / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                return None
            atexit.register(_leave, base, folder)
            return folder
    return None


def _leave(base: Path, folder: Path) -> None:
    try:
        (base / "cgroup.procs").write_text(str(os.getpid()))
        folder.rmdir()
    except OSError:
        pass


_CPUACCT = _cpuacct_of_this_process() if os.geteuid() == 0 else None
CPU_MEASURED_BY = "cgroup v1 cpuacct (every descendant)" if _CPUACCT is not None else "getrusage (reaped children only)"


def cpu_and_wall(
    contenders: dict[str, Callable[[], object]], repeat: int, pause: float = MODEL_TIME, per_call: int = 1
) -> dict[str, tuple[float, float]]:
    """Median (CPU seconds, wall seconds) of each contender's call, taking turns, each call after
    ``pause`` seconds of idle (the model's turn). getrusage counts in microseconds but the kernel
    in scheduler ticks on some machines: so each sample is the mean of ``per_call`` calls, and the
    medians of many samples are what to compare."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, function in contenders.items():
            cpu = wall = 0.0
            for _ in range(per_call):
                time.sleep(pause)
                cpu_before, wall_before = cpu_seconds(), time.perf_counter()
                function()
                wall += time.perf_counter() - wall_before
                cpu += cpu_seconds() - cpu_before
            samples[name].append((cpu / per_call, wall / per_call))
    return {
        name: (statistics.median(s[0] for s in values), statistics.median(s[1] for s in values))
        for name, values in samples.items()
    }


def side_by_side(a: Callable[[], object], b: Callable[[], object], repeat: int) -> tuple[float, float]:
    both = interleaved({"a": a, "b": b}, repeat)
    return both["a"], both["b"]


class Stopwatch:
    """The agent's own time per step: from the model's answer to the next request, less the tools' time."""

    def __init__(self) -> None:
        self.gaps: list[tuple[int, float]] = []  # (messages in the next request, seconds)
        self._left_model: float | None = None
        self._in_tools = 0.0
        self._tool_started = 0.0

    def enter_model(self, messages: int, now: float | None = None) -> None:
        now = time.perf_counter() if now is None else now
        if self._left_model is not None:
            self.gaps.append((messages, now - self._left_model - self._in_tools))

    def leave_model(self) -> None:
        self._left_model, self._in_tools = time.perf_counter(), 0.0

    def tool(self) -> Stopwatch:
        """``with watch.tool():`` around a tool's own work. A plain context manager: contextlib's
        generator costs about a microsecond, part of it outside the window, counted as the agent's."""
        return self

    def __enter__(self) -> None:
        self._tool_started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self._in_tools += time.perf_counter() - self._tool_started

    def at(self, size: int) -> list[float]:
        return [gap for messages, gap in self.gaps if near(messages, size)]


def near(messages: int, size: int) -> bool:
    """The steps a figure "at ``size`` messages" takes: a step adds two, so no size is hit exactly."""
    return abs(messages - size) <= 2


def dumps_floor(bodies: list[dict[str, Any]], size: int) -> list[float]:
    """One ``json.dumps`` of each request near ``size`` messages (the very requests whose steps
    ``Stopwatch.at(size)`` gives): the floor of those steps, each the median of three."""
    return [
        median_time(lambda body=body: json.dumps(body, ensure_ascii=False), 3)
        for body in bodies
        if near(len(body["messages"]), size)
    ]


def completion_body(message: dict[str, Any], reason: str, number: int) -> dict[str, Any]:
    """A chat.completion body, as an OpenAI-compatible server sends it."""
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_767_225_600,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def function_call(number: int, name: str, arguments: str) -> dict[str, Any]:
    call_id = f"call_{number}"
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]}  # fmt: skip


def run_as_sandbox_uid(argv: list[str]) -> None:
    """Run ``argv`` (output captured) as reactlab starts bwrap: for root, from a thread that is the
    sandbox uid for the moment (reactlab/core/sandbox/identity.py, as_sandbox_uid); as the caller otherwise."""
    from reactlab.core.sandbox.identity import as_sandbox_uid

    def run() -> None:
        with as_sandbox_uid():
            subprocess.run(argv, check=True, capture_output=True)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
