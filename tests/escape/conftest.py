"""What the escape suite shares: projects to attack, and ways to look at the host while it is attacked.

The suite tries, against real bwrap, as root and as an unprivileged user, every class of attack the
hostile reviews found, each with several variants; a file per class: filesystem, processes,
identity, resources, disk, races, host side, the kernel's system calls (seccomp), its keyrings,
terminals, a server's answers, the local server. The ``box`` fixture (tests/conftest.py)
byte-compares the original project and the read-only snapshot after each attempt; ``nested`` does
the same for a project whose read-only paths lie deep in it.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reactlab import Cassette, Sandbox, Script, Workspace
from reactlab.core.sandbox.walk import walk
from reactlab.replay.scripted import chat_completion

from ..conftest import fingerprint

READ_BACK = "cat pkg/conf.json pkg/data/x.txt deep/a/b/c.txt"
PRISTINE = '{"limit": 5}\npristine data\npristine deep\n'


def sandbox_on(project: Path, files: dict[str, str], read_only: list[str]) -> Iterator[tuple[Workspace, Sandbox]]:
    """A copy of ``project`` (made of ``files``) and its Sandbox; afterwards the project and the
    snapshot must be byte for byte what they were."""
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    workspace = Workspace(project, read_only)
    sandbox = Sandbox(workspace.root, workspace.read_only, pristine=workspace.source)
    original, snapshot = fingerprint(project), fingerprint(sandbox.snapshot)
    yield workspace, sandbox
    assert fingerprint(project) == original and fingerprint(sandbox.snapshot) == snapshot
    sandbox.close()
    workspace.cleanup()


@pytest.fixture
def nested(tmp_path: Path) -> Iterator[tuple[Workspace, Sandbox]]:
    files = {
        "pkg/conf.json": '{"limit": 5}\n',
        "pkg/data/x.txt": "pristine data\n",
        "pkg/code.py": "VALUE = 1\n",
        "deep/a/b/c.txt": "pristine deep\n",
        "tests/test_it.py": "assert True\n",
    }
    yield from sandbox_on(tmp_path / "project", files, ["pkg/conf.json", "pkg/data", "deep/a/b/c.txt", "tests"])


def processes_running(command_line: str) -> list[int]:
    """The pids of the processes whose whole command line is ``command_line``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip() == command_line.encode()
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def while_running(sandbox: Sandbox, seconds: str, look: Callable[[list[int]], Any]) -> Any:
    """Run `sleep SECONDS` in the sandbox and call ``look(pids)`` on the host while it sleeps."""
    worker = threading.Thread(target=sandbox.run, args=(f"sleep {seconds}", 10))
    worker.start()
    try:
        for _ in range(200):
            pids = processes_running(f"sleep {seconds}")
            if pids:
                return look(pids)
            time.sleep(0.02)
        raise AssertionError("the sandboxed sleep never showed up")
    finally:
        worker.join()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def descendants(roots: list[int]) -> set[int]:
    """``roots`` and every live process below them (by parent pid)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in found and alive(pid):
            found.add(pid)
            todo += [child for child, parent in parents.items() if parent == pid]
    return found


def children() -> set[int]:
    """This process's live children (the sandboxes it started and that still run)."""
    return descendants([os.getpid()]) - {os.getpid()}


def wait_until(condition: Callable[[], object], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def what_a_sandbox_holds(sandbox: Sandbox) -> tuple[set[int], list[Path], Path]:
    """The processes (its commands' sandboxes), cgroups and snapshot folder of a Sandbox."""
    return children(), list(sandbox._held.cgroups.paths or []), sandbox._held.snapshot


def assert_nothing_left(held: tuple[set[int], list[Path], Path], before: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    processes, cgroups, snapshot = held
    assert wait_until(lambda: not {pid for pid in processes - before if alive(pid)}, 5), "a process outlived close()"
    assert [path for path in cgroups if path.exists()] == [], "a cgroup of the run outlived close()"
    assert not snapshot.exists(), "the snapshot outlived close()"


def special_files(root: Path) -> list[str]:
    """What under ``root`` has a setuid or setgid bit, found by the host's own walk."""
    found: list[str] = []
    walk(root, lambda e: found.append(e.relative) if e.info.st_mode & (stat.S_ISUID | stat.S_ISGID) else None)
    return found


def in_a_private_tmpfs(folder: str, size: str, code: str, *args: str, temp: str) -> subprocess.CompletedProcess[str]:
    """Python ``code`` run (with ``args``) where a tmpfs of ``size`` is mounted over ``folder``, in a
    private mount namespace (the host's mounts are untouched), its temp folder at ``temp``."""
    mounted = f'mount -t tmpfs -o size={size},mode=1777 reactlab-small {folder} && exec "$@"'
    unshare = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--map-root-user", "--mount"]
    argv = [*unshare, "--propagation", "private", "sh", "-c", mounted, "sh", sys.executable, "-c", code, *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, env={**os.environ, "TMPDIR": temp})


def cli_run(folder: Path, command: str, output: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """`reactlab run` (``output`` "route" or "json") on a new project in ``folder``, replaying a model
    that asks for bash ``command`` once and then answers "done". Returns the project and the run."""
    project = folder / "project"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    script = Script().tool_call("bash", command=command).final_answer("done")
    interactions = [
        {"response": chat_completion(message, reason, {"model": "scripted"}, None, f"scripted-{number}")}
        for number, (message, reason) in enumerate(script.answers, 1)
    ]
    cassette = Cassette(interactions, "scripted", "one bash command").save(folder / "run.json")
    argv = ["run", "--project", str(project), "--task", "t", "--cassette", str(cassette)]
    done = subprocess.run(
        [sys.executable, "-m", "reactlab", *argv, *(["--json"] if output == "json" else [])],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return project, done
