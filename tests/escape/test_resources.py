"""Attacks on the host's resources: output, processes, memory, and the space bwrap and the host side
need. Each command's output is capped as it is read; a run's processes and memory are bounded by
cgroups where the machine allows them; a full /dev/shm or temp folder is said as it is, and the next
try works once the space is back. (The faults through the agent: tests/test_resources.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reactlab import Sandbox
from reactlab.core.sandbox import OUTPUT_LIMIT
from reactlab.core.sandbox.cgroups import PIDS_MAX, cgroup_bases
from reactlab.core.sandbox.cleanup import namespace

from ..conftest import needs_sandbox, sh
from .conftest import in_a_private_tmpfs, while_running

pytestmark = needs_sandbox


def test_ten_megabytes_of_output_is_capped(box):
    _, sandbox = box
    result = sh(sandbox, "head -c 10000000 /dev/zero | tr '\\0' x")
    assert result.exit_code == 0 and result.truncated
    assert len(result.stdout) == OUTPUT_LIMIT and set(result.stdout) == {"x"}


def test_both_streams_are_drained_at_once(box):
    """A flood on either pipe, or on both at once, must not stall the other (a reader that waited
    for stdout's end first would hang here)."""
    _, sandbox = box
    flood = "head -c 300000 /dev/zero | tr '\\0' {letter}"
    quiet_stdout = sh(sandbox, f"{flood.format(letter='e')} >&2; echo done", timeout=10)
    assert (quiet_stdout.stdout, quiet_stdout.timed_out, quiet_stdout.truncated) == ("done\n", False, True)
    assert quiet_stdout.stderr == "e" * OUTPUT_LIMIT
    both = sh(sandbox, f"{flood.format(letter='o')} & {flood.format(letter='e')} >&2; wait", timeout=10)
    assert (both.exit_code, both.timed_out, both.truncated) == (0, False, True)
    assert (both.stdout, both.stderr) == ("o" * OUTPUT_LIMIT, "e" * OUTPUT_LIMIT)


def test_endless_output_ends_at_the_timeout(box):
    _, sandbox = box
    result = sandbox.run("cat /dev/zero", timeout=2)
    assert result.timed_out and result.truncated and len(result.stdout) == OUTPUT_LIMIT


def _own_cgroup(controller: str) -> str:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path.strip("/")
    return ""


@pytest.mark.skipif(not cgroup_bases(), reason="no cgroup can be made here (not root, no delegated subtree)")
def test_cgroups_are_per_run_nested_under_the_callers_swept_and_removed(shop):
    bases = cgroup_bases()
    stale = []
    for controller, (base, v1) in bases.items():
        if v1:
            assert base == Path("/sys/fs/cgroup", controller, _own_cgroup(controller))
        stale.append(base / f"reactlab_{namespace()}-999999999-1")  # left by a process that no longer exists
        stale[-1].mkdir(exist_ok=True)
    sandbox = Sandbox(shop.root, shop.read_only)
    sh(sandbox, "true")
    paths = sandbox._held.cgroups.paths
    assert paths and all(path.parent in [b for b, _ in bases.values()] for path in paths)
    assert not any(path.exists() for path in stale), "a dead process's cgroups were swept"

    def members(pids: list[int]) -> list[bool]:
        return [str(pids[0]) in (path / "cgroup.procs").read_text().split() for path in paths]

    assert while_running(sandbox, "6.5", members) == [True] * len(paths)
    sh(sandbox, "true")
    assert sandbox._held.cgroups.paths == paths, "one set of cgroups for the whole run"
    sandbox.close()
    assert not any(path.exists() for path in paths)


# A run in another PID namespace on the same cgroups (a kernel the class server starts in a namespace
# of its own, a container sharing the host's cgroup tree): "dead" is only ever said of its own pids.
_IN_ANOTHER_NAMESPACE = """
import sys
from reactlab import Sandbox, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
from reactlab.core.sandbox import cgroups
removing = cgroups._remove
def _remove(path):  # every cgroup the sweep tries to remove is named on stderr
    print("removing", path, file=sys.stderr)
    removing(path)
cgroups._remove = _remove
workspace = Workspace(shop_path(), SHOP_READ_ONLY)
sandbox = Sandbox(workspace.root, workspace.read_only)
print(sandbox.run("echo inner", 10).stdout, end="")
sandbox.close()
workspace.cleanup()
"""


@pytest.mark.skipif(not cgroup_bases() or os.geteuid() != 0, reason="needs cgroups and root (unshare --pid)")
@pytest.mark.parametrize("when", ["between-commands", "during-a-command"])
def test_a_run_in_another_pid_namespace_never_sweeps_a_living_runs_cgroups(shop, when):
    """The other run's sweep looked for this process's pid in its own /proc, did not find it, and
    removed this run's cgroups between two commands (the next one then failed: SandboxUnavailable)
    or, during one, spun two seconds on cgroups it could not empty."""
    sandbox = Sandbox(shop.root, shop.read_only)
    try:
        sh(sandbox, "true")
        paths = list(sandbox._held.cgroups.paths or [])
        other = ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", _IN_ANOTHER_NAMESPACE]
        if when == "between-commands":
            done = subprocess.run(other, capture_output=True, text=True, timeout=60, check=False)
            assert done.stdout == "inner\n", done.stderr[-500:]
            assert all(path.exists() for path in paths), "a living run's cgroups were swept"
            assert sh(sandbox, "echo next").stdout == "next\n"
        else:

            def sweep_meanwhile(pids: list[int]) -> str:
                done = subprocess.run(other, capture_output=True, text=True, timeout=60, check=False)
                assert done.stdout == "inner\n", done.stderr[-500:]
                return done.stderr

            swept = while_running(sandbox, "3.5", sweep_meanwhile)
            assert not [path for path in paths if str(path) in swept], f"the other run swept our cgroups: {swept}"
            assert all(path.exists() for path in paths)
    finally:
        sandbox.close()


def test_a_cgroup_that_lists_pid_0_never_has_the_sweeper_kill_its_own_process_group(tmp_path):
    """cgroup v2 lists a process outside the reader's PID namespace as 0, and os.kill(0, SIGKILL)
    kills the caller's own process group: a folder standing in for such a cgroup, in a child of its own
    session, which must live through _remove."""
    stand_in = tmp_path / "reactlab-stand-in"
    stand_in.mkdir()
    (stand_in / "cgroup.procs").write_text("0\n")  # rmdir fails (not empty), as on a busy cgroup
    code = (
        "from pathlib import Path\nfrom reactlab.core.sandbox.cgroups import _remove\n"
        f"_remove(Path({str(stand_in)!r}))\nprint('alive')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, start_new_session=True
    )
    assert (done.returncode, done.stdout) == (0, "alive\n"), done


@pytest.mark.skipif("pids" not in cgroup_bases(), reason="no pids cgroup here (root with cgroup v1, or delegation)")
def test_a_command_is_born_in_the_runs_pids_cgroup_and_never_takes_it_past_its_bound(shop):
    """A fork bomb fills the run's pids cgroup to PIDS_MAX and no further: its processes are born
    inside (moved before the command starts), and a move is never bound by pids.max."""
    sandbox = Sandbox(shop.root, shop.read_only)
    highest: list[int] = []
    try:
        sh(sandbox, "true")
        pids = next(path for path in sandbox._held.cgroups.paths or [] if (path / "pids.max").exists())
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                highest.append(int((pids / "pids.current").read_text()))
                time.sleep(0.005)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            bomb = sh(sandbox, ":(){ :|:& };: 2>/dev/null; sleep 2; echo held", timeout=6)
        finally:
            stop.set()
            watcher.join()
        assert bomb.timed_out or bomb.exit_code is not None
        assert max(highest) <= PIDS_MAX and max(highest) > PIDS_MAX // 2, max(highest)
        after = sh(sandbox, "echo after")
        assert (after.stdout, after.exit_code) == ("after\n", 0), "the run's commands go on"
    finally:
        sandbox.close()


@pytest.mark.skipif("pids" not in cgroup_bases(), reason="no pids cgroup here (root with cgroup v1, or delegation)")
def test_a_full_pids_cgroup_fails_a_command_clearly_and_never_weakens_it(shop):
    """The run's process limit exhausted (filled here from the host, as a fork bomb would) when a
    command starts: it fails and says so, or runs with every bind in place; never a weaker sandbox."""
    sandbox = Sandbox(shop.root, shop.read_only)
    fillers: list[subprocess.Popen[bytes]] = []
    attempt = "echo ran; echo FAKE > shop/settings.json; echo FAKE > tests/test_delivery.py"
    try:
        sh(sandbox, "true")
        pids = next(path for path in sandbox._held.cgroups.paths or [] if (path / "pids.max").exists())
        try:
            while int((pids / "pids.current").read_text()) < PIDS_MAX:
                fillers.append(subprocess.Popen(["sleep", "60"]))
                (pids / "cgroup.procs").write_text(str(fillers[-1].pid))
            for _ in range(2):
                seen = sh(sandbox, attempt, timeout=8)
                assert seen.setup_failed or seen.exit_code != 0 or seen.stdout == "", seen
                assert (shop.root / "tests/test_delivery.py").read_text() != "FAKE\n"
        finally:
            for filler in fillers:
                filler.kill()
                filler.wait()
        for _ in range(3):
            seen = sh(sandbox, attempt, timeout=8)
            assert (seen.stdout, seen.exit_code, seen.setup_failed, seen.timed_out) == ("ran\n", 1, False, False), seen
    finally:
        sandbox.close()
    assert (shop.root / "shop/settings.json").read_text() == (Path(shop.source) / "shop/settings.json").read_text()


# Space: anyone on the machine may fill /dev/shm or the temp folder.
_FULL = """
import os, sys
from reactlab import Sandbox, SandboxUnavailable, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
full = sys.argv[1]
workspace = Workspace(shop_path(), SHOP_READ_ONLY)
sandbox = Sandbox(workspace.root, workspace.read_only)
print(sandbox.run("echo before", 20).stdout.strip())
with open(os.path.join(full, "filler"), "wb", buffering=0) as filler:  # what any local user may do
    try:
        while filler.write(b"x" * 4096):
            pass
    except OSError:
        pass
descriptors = len(os.listdir("/proc/self/fd"))
print(sandbox.run("echo during; df -k --output=size /dev/shm | tail -1", 20).stdout.split())
for _ in range(2):
    try:
        print("made:", Sandbox(workspace.root, workspace.read_only).run("echo new", 20).stdout.strip())
    except SandboxUnavailable as refused:
        print("refused:", refused)
print("descriptors kept:", len(os.listdir("/proc/self/fd")) - descriptors)
os.unlink(os.path.join(full, "filler"))
again = Sandbox(workspace.root, workspace.read_only)
print(again.run("echo after", 20).stdout.strip())
again.close()
sandbox.close()
workspace.cleanup()
"""


def _in_a_small_tmpfs(folder: str, temp: str) -> subprocess.CompletedProcess[str]:
    """``_FULL`` run with a 512 KiB tmpfs mounted over ``folder``, its temp folder at ``temp``."""
    return in_a_private_tmpfs(folder, "512k", _FULL, folder, temp=temp)


def test_a_full_dev_shm_costs_no_sandbox_anything():
    """Each command's /dev/shm is a tmpfs of its own: the host's being full changes nothing."""
    done = _in_a_small_tmpfs("/dev/shm", "/tmp")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[:2] == ["before", "['during', '65536']"], done.stdout
    assert lines[2:4] == ["made: new", "made: new"] and lines[4] == "descriptors kept: 0" and lines[5] == "after"


def test_a_full_temp_folder_is_said_plainly_and_the_next_try_works(open_tmp):
    """The snapshot is written in the temp folder: full, a new Sandbox says so (not "user
    namespaces"), and keeps nothing of it; once there is room, the next one works (nothing kept)."""
    temp = open_tmp / "temp"
    temp.mkdir(mode=0o1777)
    temp.chmod(0o1777)
    done = _in_a_small_tmpfs(str(temp), str(temp))
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "before" and lines[1] == "['during', '65536']", done.stdout
    for refusal in lines[2:4]:
        assert refusal.startswith("refused:") and "No space left on device" in refusal and str(temp) in refusal
        assert "namespace" not in refusal
    assert lines[4] == "descriptors kept: 0" and lines[5] == "after", done.stdout
