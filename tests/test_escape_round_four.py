"""Round four of the escape suite: the next command's sandbox built ahead, in a background thread
(``Sandbox(prepare_ahead=True)``), attacked the way a hostile model or a careless caller would.
Against real bwrap, as root and as an unprivileged user. The original project and the read-only
snapshot are byte-compared after each attempt (the ``box`` fixture)."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time

import pytest

from reactlab.sandbox import Sandbox, SandboxResult, hand_over

from .conftest import needs_sandbox, sh
from .test_escape_round_two import processes_running

pytestmark = needs_sandbox


def _end(command_line: str) -> None:
    """Kill what a failing attempt left running (only processes with this exact command line)."""
    for pid in processes_running(command_line):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _run_into(sandbox: Sandbox, command: str, results: list[SandboxResult]) -> None:
    results.append(sandbox.run(command, timeout=1))


# 1. A sandbox built ahead must stay supervised by its bwrap until its command ends. Started from the
# short-lived background thread (a caller that is not root, without delegated cgroups, starts bwrap
# directly), bwrap's --die-with-parent is tied to that thread: when it ends, the outer bwrap is
# SIGKILLed, while the sandbox inside lives on, orphaned. Its command then reports exit -9 and
# "setup failed" though it ran, outlives its timeout, run() and close().
def test_every_command_in_a_sandbox_built_ahead_runs_and_reports_its_own_exit(box):
    _, sandbox = box
    sh(sandbox, "true")
    seen = []
    for number in range(12):
        assert sandbox.wait_prepared(), "the next command's sandbox is built after a command"
        result = sh(sandbox, f"echo ran {number}; exit 3")
        seen.append((result.exit_code, result.setup_failed, result.stdout))
    assert seen == [(3, False, f"ran {number}\n") for number in range(12)]


@pytest.mark.parametrize(
    "command",
    [
        "sleep 47001",  # holds stdout: run() waited forever on it
        "exec >&- 2>&-; sleep 47002",  # closes its output: run() returned, the sleep lived on
        "exec >/dev/null 2>&1 </dev/null; trap '' TERM HUP; sleep 47003",
        "setsid sleep 47004 >/dev/null 2>&1 & exec >&- 2>&-; sleep 47005",
    ],
    ids=["holds-output", "closes-output", "ignores-signals", "setsid-child"],
)
def test_a_command_in_a_sandbox_built_ahead_still_times_out_and_leaves_nothing(box, command):
    _, sandbox = box
    sleeps = [f"sleep {word}" for word in command.split() if word.startswith("470")]
    sh(sandbox, "true")
    try:
        for _ in range(6):  # the background thread and bwrap race: give the race several chances
            assert sandbox.wait_prepared()
            results: list[SandboxResult] = []
            worker = threading.Thread(target=_run_into, args=(sandbox, command, results))
            started = time.monotonic()
            worker.start()
            worker.join(15)
            assert not worker.is_alive(), "run() did not return long after its timeout"
            assert time.monotonic() - started < 8
            assert results[0].timed_out and results[0].exit_code is None, results[0]
            assert all(processes_running(s) == [] for s in sleeps), "the command outlived run()"
    finally:
        for line in sleeps:
            _end(line)
        worker.join(15)


# 2. Threads calling run() at once: the background preparations pile up, and the second one waits
# on a launcher still holding the first prepared sandbox (30 s for root's launcher, 10 s directly),
# holding the Sandbox's lock; every run() queued behind it blows far past its own timeout.
def test_concurrent_runs_return_within_their_timeouts_and_close_cleans_up(shop):
    sandbox = Sandbox(shop.root, shop.read_only)
    snapshot = sandbox.snapshot
    assert snapshot is not None
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
        # Nine commands of about a millisecond, run one at a time: each waits for at most eight others.
        assert len(durations) == 9 and max(durations) < 8 * 4 / 2, sorted(durations)
    finally:
        sandbox.close()  # raised OSError (EBADF) here: a kept sandbox's launcher was already closed
    assert not snapshot.parent.exists(), "close() stopped before removing the snapshot and cgroups"


# 3. The prepared bash runs the command with `eval "$command"`; it must behave as `bash -c` did.
@pytest.mark.parametrize(
    ("command", "exit_code", "stdout"),
    [
        ("--help", 127, ""),  # a program named --help: eval printed its own help, exit 2
        ("-x", 127, ""),  # eval: -x: invalid option, exit 2
        ("-- echo hi", 127, ""),
        ('echo "${command-unset}"', 0, "unset\n"),  # the waiter's variable held the command's own text
        ('set -u; echo "$command"', 127, ""),
    ],
)
def test_the_command_runs_as_bash_c_would(box, command, exit_code, stdout):
    _, sandbox = box
    sh(sandbox, "true")
    assert sandbox.wait_prepared()
    result = sh(sandbox, command)
    assert (result.exit_code, result.stdout) == (exit_code, stdout), result.stderr


# 4. The copy itself is bound too: a caller that replaces the whole working copy between commands (moves
# it aside and puts a new one at the same path) must have the next command run in the new one. The
# sandbox built ahead (and, for root, the launcher's staged bind) still holds the old folder.
@pytest.mark.parametrize("protect", [False, True], ids=["no-read-only-paths", "read-only-paths"])
def test_a_copy_replaced_between_commands_is_the_one_the_next_command_works_in(shop, protect):
    sandbox = Sandbox(shop.root, shop.read_only if protect else ())
    try:
        sh(sandbox, "true")
        assert sandbox.wait_prepared()
        old = shop.root.with_name("project.old")
        shop.root.rename(old)
        shutil.copytree(old, shop.root, symlinks=True)
        hand_over(shop.root)
        (shop.root / "marker.txt").write_text("new copy\n")
        result = sh(sandbox, "cat marker.txt; echo made > made.txt")
        assert result.stdout == "new copy\n", result.stderr
        assert (shop.root / "made.txt").exists() and not (old / "made.txt").exists()
    finally:
        sandbox.close()
