"""Attacks in time: several threads, a Ctrl-C anywhere, a Sandbox closed mid-command, the host writing
between commands. One command runs at a time per Sandbox, each on its own path, so the races left
are the caller's: every one ends with nothing left behind and every descriptor of ours intact."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

import reactlab.core.sandbox.walk as walk_module
from reactlab import Sandbox, SandboxResult, SandboxUnavailable, Workspace
from reactlab.core.sandbox import hand_over
from reactlab.core.sandbox.running import interrupts_held
from reactlab.core.sandbox.tidy import tidy
from reactlab.core.sandbox.walk import remove_tree
from reactlab.core.tools import EditTool
from reactlab.samples import SHOP_READ_ONLY, shop_path

from ..conftest import needs_sandbox, sh
from .conftest import alive, assert_nothing_left, children, special_files, what_a_sandbox_holds

pytestmark = needs_sandbox


def test_concurrent_runs_return_within_their_timeouts_and_close_cleans_up(shop):
    sandbox = Sandbox(shop.root, shop.read_only)
    snapshot = sandbox._held.snapshot
    durations: list[float] = []
    failures: list[object] = []

    def worker(name: int) -> None:
        for number in range(3):
            started = time.monotonic()
            result = sandbox.run(f"echo {name}-{number}", timeout=4)
            durations.append(time.monotonic() - started)
            if result.stdout != f"{name}-{number}\n" or result.exit_code != 0:
                failures.append(result)

    workers = [threading.Thread(target=worker, args=(name,)) for name in range(3)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(120)
    try:
        assert failures == []
        # Nine short commands, one at a time: each waits for at most eight others.
        assert len(durations) == 9 and max(durations) < 8 * 4 / 2, sorted(durations)
    finally:
        sandbox.close()
    assert not snapshot.exists(), "close() stopped before removing the snapshot and cgroups"


def test_an_interrupt_anywhere_in_run_leaves_nothing_behind(shop):
    """An interrupted notebook cell: KeyboardInterrupt lands anywhere in run(), before a process is
    started, while it starts, while it runs, while it is put away."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("KeyboardInterrupt reaches only the main thread; this test runs in another one")
    before = children()
    sandbox = Sandbox(shop.root, shop.read_only)
    armed = threading.Event()
    stop = threading.Event()

    def interrupt(signum: int, frame: object) -> None:
        if armed.is_set():
            armed.clear()
            raise KeyboardInterrupt

    def pester() -> None:
        while not stop.is_set():
            time.sleep(random.uniform(0.0005, 0.01))
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    descriptors = len(os.listdir("/proc/self/fd"))
    previous = signal.signal(signal.SIGINT, interrupt)
    pesterer = threading.Thread(target=pester, daemon=True)
    interrupted, failures, end = 0, [], time.monotonic() + 3
    try:
        pesterer.start()
        while True:
            try:
                if time.monotonic() > end:
                    armed.clear()
                    break
                armed.set()
                sandbox.run("echo hi", 5)
                armed.clear()
            except KeyboardInterrupt:
                interrupted += 1
            except Exception as error:  # noqa: BLE001 (what the test is about)
                failures.append(repr(error))
    finally:
        armed.clear()
        stop.set()
        pesterer.join()
        signal.signal(signal.SIGINT, previous)
    assert interrupted > 20, "the interrupts did not land"
    assert failures == []
    assert sh(sandbox, "echo after; ls /proc/self/fd").stdout.split() == ["after", "0", "1", "2", "3"]
    held = what_a_sandbox_holds(sandbox)
    sandbox.close()
    assert_nothing_left(held, before)
    assert children() == before
    assert len(os.listdir("/proc/self/fd")) <= descriptors + 2, "descriptors leaked"


def test_a_ctrl_c_while_a_process_starts_is_held_until_it_is_kept():
    """A KeyboardInterrupt inside Popen would lose the process it started: Ctrl-C is held back while
    it starts, and the caller raises it once the process is in hand."""
    handler = signal.getsignal(signal.SIGINT)
    ran = []
    with interrupts_held() as interrupted:
        os.kill(os.getpid(), signal.SIGINT)  # handled at the next bytecode: inside the block
        ran.append("the rest of the block")
    assert ran == ["the rest of the block"] and interrupted == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is handler, "Ctrl-C is handled as before again"


@pytest.mark.parametrize(
    "plant",
    [
        "echo > run.sh && chmod 4755 run.sh",  # setuid, in the copy's top folder
        "mkdir -p deep/er && echo > deep/er/x && chmod 2755 deep/er/x",  # setgid, further down
        "echo > run.sh && chmod 6755 run.sh && ln run.sh again",  # both bits, and a second name
    ],
)
def test_a_ctrl_c_during_a_command_kills_it_soon_and_the_copy_is_still_tidied(shop, plant):
    """A Ctrl-C held back for a whole command must still stop it: the command is killed within a
    moment, and what it left is tidied before KeyboardInterrupt reaches the caller (a special bit
    left on a host file, because the walk was skipped, would outlive the interrupted cell)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("KeyboardInterrupt reaches only the main thread; this test runs in another one")
    before = children()
    sandbox = Sandbox(shop.root, shop.read_only)
    timer = threading.Timer(1.0, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sandbox.run(f"{plant} && sleep 60", 30)
    finally:
        timer.cancel()
    took = time.monotonic() - started
    assert took < 5, f"the command ran on for {took:.1f} s after the Ctrl-C"
    assert special_files(shop.root) == [], "a special bit outlived the interrupted command"
    held = what_a_sandbox_holds(sandbox)
    sandbox.close()
    assert_nothing_left(held, before)
    assert children() == before


@pytest.mark.parametrize("when", ["right-after-a-command", "during-a-command", "twice"])
def test_close_at_any_time_leaves_nothing_and_says_what_happened(shop, when):
    before = children()
    sandbox = Sandbox(shop.root, shop.read_only)
    sh(sandbox, "true")
    held = what_a_sandbox_holds(sandbox)
    if when == "during-a-command":
        results: list[SandboxResult | SandboxUnavailable] = []

        def run() -> None:
            try:
                results.append(sandbox.run("sleep 30", 20))
            except SandboxUnavailable as error:
                results.append(error)

        worker = threading.Thread(target=run)
        worker.start()
        time.sleep(0.3)
        held = what_a_sandbox_holds(sandbox)
        started = time.monotonic()
        sandbox.close()
        worker.join(10)
        assert not worker.is_alive() and time.monotonic() - started < 10
        # Said as it is: the sandbox was closed, not "timed out" after 20 seconds it never had.
        assert len(results) == 1 and isinstance(results[0], SandboxUnavailable), results
        assert "closed while the command ran" in str(results[0])
    else:
        sandbox.close()
    if when == "twice":
        sandbox.close()
    assert_nothing_left(held, before)
    with pytest.raises(SandboxUnavailable, match="closed"):
        sandbox.run("echo never", 5)


def test_many_sandboxes_in_threads_leave_nothing():
    before = children()
    workspaces = [Workspace(shop_path(), SHOP_READ_ONLY, prefix=f"reactlab-thread-{n}-") for n in range(6)]
    sandboxes = [Sandbox(w.root, w.read_only) for w in workspaces]
    failures: list[object] = []

    def student(number: int) -> None:
        for step in range(4):
            seen = sh(sandboxes[number], f"echo {number}-{step} > mine.txt; cat mine.txt; echo x > tests/t.py")
            if seen.stdout != f"{number}-{step}\n" or seen.exit_code == 0:
                failures.append(seen)

    threads = [threading.Thread(target=student, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    try:
        assert failures == []
        held = [what_a_sandbox_holds(sandbox) for sandbox in sandboxes]
        closers = [threading.Thread(target=sandbox.close) for sandbox in sandboxes]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join(30)
        for each in held:
            assert_nothing_left(each, before)
        assert [(w.root / "mine.txt").read_text() for w in workspaces] == [f"{n}-3\n" for n in range(6)]
    finally:
        for sandbox, workspace in zip(sandboxes, workspaces, strict=True):
            sandbox.close()
            workspace.cleanup()


def test_an_edit_between_commands_is_seen_and_changes_nothing_protected(box):
    workspace, sandbox = box
    edit = EditTool(workspace)
    (workspace.root / "shop/cart.py").write_text("TOTAL = 1\n")
    hand_over(workspace.root)
    for number in range(2, 5):
        sh(sandbox, "true")
        edit.run("shop/cart.py", f"TOTAL = {number - 1}", f"TOTAL = {number}")
        seen = sh(
            sandbox, "cat shop/cart.py; echo more >> shop/cart.py; echo FAKE > shop/settings.json || echo refused"
        )
        assert seen.stdout == f"TOTAL = {number}\nrefused\n", seen.stderr
        (workspace.root / "shop/cart.py").write_text(f"TOTAL = {number}\n")
        hand_over(workspace.root)


def test_ending_commands_at_any_moment_never_writes_to_a_descriptor_we_have_open(shop, tmp_path):
    """The host side once handed descriptors to the sandbox by number: a number closed and reused for
    a file being read was then written. Every command here is killed at once, while other threads
    keep taking the lowest free numbers: their files stay as they were."""
    originals = []
    for number in range(64):
        path = tmp_path / f"original-{number}.txt"
        path.write_text(f"pristine {number}\n")
        originals.append(path)
    stop = threading.Event()

    def read_all_the_time() -> None:
        while not stop.is_set():
            for path in originals:
                with open(path, "rb") as handle:
                    handle.read()

    readers = [threading.Thread(target=read_all_the_time) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        for number in range(12):
            sandbox = Sandbox(shop.root, shop.read_only)
            sandbox.run("head -c 100000 /dev/zero", timeout=0.001 * (number % 4))
            assert sh(sandbox, "true").exit_code == 0
            sandbox.close()
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    assert [p.read_text() for p in originals] == [f"pristine {n}\n" for n in range(64)]


def _bwrap_reporting(folder: Path, pid: int, then: str) -> str:
    """A bwrap whose first process ended in its setup and whose pid is now ``pid``'s, another
    process's (pids are reused, and pid_max is often 32768): it reports ``pid`` as its child on the
    status pipe, then does ``then``. The probe of available.py (no status pipe) passes."""
    fake = folder / "bwrap"
    fake.write_text(
        "#!/bin/bash\n"
        'fd=; while [ $# -gt 0 ]; do [ "$1" = --json-status-fd ] && fd=$2; shift; done\n'
        '[ -z "$fd" ] && exit 0\n'
        f'printf \'{{ "child-pid": %s }}\\n\' {pid} >&"$fd"\n'
        f"{then}\n"
    )
    fake.chmod(0o755)
    return str(fake)


@pytest.mark.parametrize("then", ["exit 1", "sleep 3; exit 1"], ids=["fails-at-once", "outlives-the-timeout"])
@pytest.mark.parametrize("victim_kind", ["host-process", "orphan"])
def test_a_reused_child_pid_on_the_status_pipe_is_never_moved_waited_for_or_killed(shop, then, victim_kind):
    """The pid bwrap reports is taken for its first process only while that process is bwrap's
    child: a pid reused by another process (a student's, root's) is neither moved into the run's
    cgroups (and killed with them at close), nor waited for, nor killed at the timeout."""
    if victim_kind == "host-process":
        victim = subprocess.Popen(["sleep", "4711.5"])
        pid = victim.pid
    else:  # its parent is gone: reparented, as a process that reuses a pid may be
        pid = int(
            subprocess.run(
                ["sh", "-c", "sleep 4711.6 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True
            ).stdout
        )
        victim = None
    folder = Path(tempfile.mkdtemp(prefix="reactlab-test-"))
    folder.chmod(0o755)
    cgroup_before = Path(f"/proc/{pid}/cgroup").read_text()
    sandbox = Sandbox(shop.root, shop.read_only, bwrap=_bwrap_reporting(folder, pid, then))
    try:
        started = time.monotonic()
        result = sandbox.run("echo never", timeout=1)
        assert time.monotonic() - started < 2.5, "run() waited on a process that is not the sandbox's"
        assert result.exit_code != 0 and result.stdout == ""
        assert Path(f"/proc/{pid}/cgroup").read_text() == cgroup_before, "moved into the run's cgroups"
        sandbox.close()
        time.sleep(0.1)
        assert alive(pid), "a process that only reused the reported pid was killed"
    finally:
        sandbox.close()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if victim is not None:
            victim.wait()
        remove_tree(folder)


@pytest.mark.parametrize("nth", range(1, 13))
def test_an_interrupt_right_after_the_walk_closes_a_folder_never_closes_it_twice(shop, monkeypatch, nth):
    """A Ctrl-C lands after each command in tidy's walk (seen under the interrupt test above: EBADF
    out of run()). Landing between closing a folder and forgetting it, the walk closed that number
    again on the way out: by then it may be another thread's descriptor (a kernel's socket, another
    sandbox's pipe). Here the nth close of the walk is followed by a KeyboardInterrupt."""
    (shop.root / "a" / "b" / "c").mkdir(parents=True)
    (shop.root / "a" / "b" / "c" / "f.txt").write_text("x\n")
    closes = 0
    real_close = os.close

    def close_then_interrupt(fd: int) -> None:
        nonlocal closes
        real_close(fd)
        closes += 1
        if closes == nth:
            raise KeyboardInterrupt

    monkeypatch.setattr(walk_module.os, "close", close_then_interrupt)
    try:
        # Closed twice, a number fails with EBADF (nothing here takes it again in between), and
        # that OSError replaces the interrupt.
        with pytest.raises(KeyboardInterrupt):
            tidy(shop.root)
    finally:
        monkeypatch.undo()
