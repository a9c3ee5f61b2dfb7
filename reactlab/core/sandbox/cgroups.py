"""The run's cgroups: at most PIDS_MAX processes and MEMORY_MAX bytes for all of a run's commands.

Where reactlab may make cgroups (as root with cgroup v1 controllers, or in a delegated cgroup v2
subtree), a run gets one per controller, nested under the caller's own cgroup (never above it, so
a command never escapes the caller's limits), made on the first command and removed by
``close()``. Each command's sandbox is moved in before it runs anything (see running.py). Those
left by a process that died are removed, with whatever still runs in them, by the next run.
"""

from __future__ import annotations

import functools
import os
import signal
import time
from itertools import count
from pathlib import Path

from .cleanup import namespace

__all__ = [
    "MEMORY_MAX",
    "PIDS_MAX",
    "RunCgroups",
    "cgroup_bases",
]

PIDS_MAX = 256  # RLIMIT_NPROC does not bind a process that is root to the kernel
MEMORY_MAX = 2 * 1024**3
_ROOT = Path("/sys/fs/cgroup")
# Not "reactlab-": older versions sweep "reactlab-*-*" and would read the namespace as a dead pid.
_PREFIX = "reactlab_"
_LIMIT_FILES = {
    ("pids", True): ("pids.max", PIDS_MAX),
    ("memory", True): ("memory.limit_in_bytes", MEMORY_MAX),
    ("pids", False): ("pids.max", PIDS_MAX),
    ("memory", False): ("memory.max", MEMORY_MAX),
}
_numbers = count(1)


class RunCgroups:
    """The cgroups of one run (none where the machine allows none)."""

    def __init__(self) -> None:
        self.paths: list[Path] | None = None  # made on first use

    def add(self, pid: int) -> None:
        """Move a process in: it, and all it starts from then on, count against the run's limits."""
        if self.paths is None:
            self.paths = _make()
        for path in self.paths:
            with open(path / "cgroup.procs", "wb", buffering=0) as procs:
                procs.write(str(pid).encode())

    def close(self) -> None:
        """Kill whatever still runs in them, and remove them."""
        for path in self.paths or []:
            _remove(path)
        self.paths = []


@functools.cache
def cgroup_bases() -> dict[str, tuple[Path, bool]]:
    """Where per-run cgroups can be made, under the caller's own cgroup: each controller (pids,
    memory) mapped to (folder, is cgroup v1)."""
    found: dict[str, tuple[Path, bool]] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    own: dict[str, str] = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            own[controller] = path.strip().lstrip("/")
    for controller in ("pids", "memory"):
        if controller in own:
            base = _ROOT / controller / own[controller]
            if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
                found[controller] = (base, True)
    if "" in own:
        unified = _ROOT / own[""]
        try:
            delegated = (unified / "cgroup.subtree_control").read_text().split()
        except OSError:
            delegated = []
        for controller in ("pids", "memory"):
            if controller not in found and controller in delegated and os.access(unified, os.W_OK):
                found[controller] = (unified, False)
    return found


def _make() -> list[Path]:
    paths = []
    name = f"{_PREFIX}{namespace()}-{os.getpid()}-{next(_numbers)}"
    for controller, (base, v1) in cgroup_bases().items():
        _sweep_dead(base)
        limit_file, value = _LIMIT_FILES[(controller, v1)]
        path = base / name
        try:
            path.mkdir()
        except OSError:
            continue
        try:
            (path / limit_file).write_text(str(value))
        except OSError:
            _remove(path)
            continue
        paths.append(path)
    return paths


def _remove(path: Path) -> None:
    for _ in range(4000):  # the last processes of a killed command take a moment to leave
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            try:
                for pid in (path / "cgroup.procs").read_text().split():
                    if int(pid) > 0:  # cgroup v2 shows 0 for a process outside our PID namespace: kill(0) is us
                        os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass
            time.sleep(0.0005)


def _sweep_dead(base: Path) -> None:
    """Remove the cgroups of reactlab processes of this PID namespace that died without cleaning up
    (SIGKILL, a crash). A cgroup is named after the namespace too (as the folders of cleanup.py): a
    pid is only dead in the namespace it was given in, and a run in another one (a kernel in a PID
    namespace of its own, on the same cgroups) found a living run's cgroups "dead" and removed them."""
    prefix = f"{_PREFIX}{namespace()}-"
    for path in base.glob(f"{prefix}*-*"):
        pid = path.name[len(prefix) :].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _remove(path)
