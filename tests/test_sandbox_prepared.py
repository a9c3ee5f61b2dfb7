"""The next command's sandbox is built ahead, while the model thinks (``Sandbox(prepare_ahead=True)``,
the default). It must stay what a sandbox built on the command's path would be: fresh for every
command, built on the copy as it is when the command comes, and gone when the Sandbox is closed.
Against real bwrap, as root and as an unprivileged user (CI runs this file in both passes)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import threading
import time
from pathlib import Path

import pytest

from reactlab.errors import SandboxUnavailable
from reactlab.sandbox import _AHEAD, Sandbox, _group_alive, acting_as_root, host_identity

from .conftest import needs_sandbox, sh
from .test_escape_round_two import PRISTINE, READ_BACK, nested  # noqa: F401 (a fixture)

pytestmark = needs_sandbox


def _gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


def test_each_command_still_gets_a_fresh_sandbox(box):
    _, sandbox = box
    first = sh(sandbox, "echo left > /tmp/note; echo left > /dev/shm/note; sleep 654321 & echo $$")
    assert first.exit_code == 0
    assert sandbox.wait_prepared(), "the next command's sandbox is built after a command"
    second = sh(sandbox, "ls /tmp /dev/shm; ps -e -o comm= | sort | tr '\\n' ' '; echo; echo $$")
    assert "note" not in second.stdout, "/tmp and /dev/shm are new for every command"
    assert "sleep" not in second.stdout, "no process of the first command is left"
    assert second.stdout.split()[-1] == first.stdout.split()[-1], "a new PID namespace: the same pid again"


def test_the_command_and_ready_pipes_are_closed_before_the_command_runs(box):
    _, sandbox = box
    sh(sandbox, "true")
    assert sandbox.wait_prepared()
    assert sh(sandbox, "ls /proc/self/fd").stdout.split() == ["0", "1", "2", "3"]  # 3: ls's own directory


def _replace_folder(root: Path, folder: str) -> None:
    """On the host, between two commands: move ``folder`` aside and put a writable look-alike there."""
    (root / folder).rename(root / f"{folder}.host")
    shutil.copytree(root / f"{folder}.host", root / folder, symlinks=True)


@pytest.mark.parametrize(
    "change",
    [
        lambda root: _replace_folder(root, "pkg"),  # the parent of a read-only file and folder
        lambda root: _replace_folder(root, "deep/a"),  # a grandparent of a nested read-only file
        lambda root: _replace_folder(root, "tests"),  # a read-only folder itself
        lambda root: shutil.rmtree(root / "pkg"),  # gone: bwrap makes the mount points again
    ],
    ids=["parent", "grandparent", "read-only folder", "removed"],
)
def test_a_sandbox_built_ahead_is_not_used_once_the_copy_changed_under_it(nested, change):  # noqa: F811
    workspace, sandbox = nested
    sh(sandbox, "true")
    assert sandbox.wait_prepared()
    change(workspace.root)
    attempt = "echo FAKE > pkg/conf.json; echo FAKE > deep/a/b/c.txt; echo FAKE > tests/test_it.py; " + READ_BACK
    seen = sh(sandbox, attempt)
    assert seen.stdout == PRISTINE, seen.stderr
    assert (workspace.root / "tests/test_it.py").read_text() != "FAKE\n"


def test_a_symlink_put_there_after_it_was_built_is_refused(nested):  # noqa: F811
    workspace, sandbox = nested
    sh(sandbox, "true")
    assert sandbox.wait_prepared()
    prepared = list(sandbox._resources.prepared)
    assert len(prepared) == _AHEAD == 3, "three are built ahead, for several commands in one answer"
    (workspace.root / "pkg").rename(workspace.root / "pkg.host")
    os.symlink("/etc", workspace.root / "pkg")
    with pytest.raises(SandboxUnavailable, match="refusing to run"):
        sh(sandbox, READ_BACK)
    assert all(_gone(each.pid) for each in prepared), "the sandboxes built for the old copy were ended"
    assert sandbox._resources.prepared == []


def test_close_ends_the_sandbox_built_ahead(shop):
    sandbox = Sandbox(shop.root, shop.read_only)
    sh(sandbox, "true")
    assert sandbox.wait_prepared()
    prepared = list(sandbox._resources.prepared)
    assert prepared and not any(_gone(each.pid, timeout=0.1) for each in prepared)
    sandbox.close()
    assert all(_gone(each.pid) for each in prepared)
    assert sandbox._resources.prepared == [] and sandbox._resources.launchers == []


def test_bwrap_is_started_by_launchers_that_are_the_sandbox_uid_through_private_named_pipes(shop):
    """For root the launcher drops to the sandbox uid once, when it starts: no bwrap is ever started
    as root or through setpriv. What each bwrap is started on lies in a folder only that uid (and root) enters,
    emptied as each command ends and removed with the Sandbox."""
    uid, gid = host_identity()
    sandbox = Sandbox(shop.root, shop.read_only)
    jobs = sandbox._resources.jobs
    assert jobs is not None
    for number in range(3):
        assert sh(sandbox, f"echo {number}").stdout == f"{number}\n"
    assert sandbox.wait_prepared()
    info = jobs.stat()
    mine = (0, gid, 0o710) if acting_as_root() else (uid, gid, 0o700)  # root's: see _make_jobs_folder
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == mine
    names = sorted(path.name.split(".")[1] for path in jobs.iterdir())
    assert names == sorted(["options", "script", "out", "err", "status", "wanted", "ready"] * _AHEAD), (
        "those built ahead"
    )
    assert all(
        stat.S_ISFIFO(path.lstat().st_mode) for path in jobs.iterdir() if path.suffix not in (".options", ".script")
    )
    for launcher in sandbox._resources.launchers:
        status = Path(f"/proc/{launcher.process.pid}/status").read_text()
        assert f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}\n" in status and "CapEff:\t0000000000000000" in status
        assert re.search(r"^Groups:\s*$", status, re.M) or not acting_as_root(), "no supplementary group of root's"
        children = [
            int(name) for name in os.listdir("/proc") if name.isdigit() and _parent(int(name)) == launcher.process.pid
        ]
        programs = {os.path.basename(os.readlink(f"/proc/{pid}/exe")) for pid in children if not _gone(pid, 0)}
        assert programs <= {"bash", "bwrap"}, programs  # the guard, and a bwrap waiting for its command
    sandbox.close()
    assert not jobs.exists()


def test_a_launcher_reaped_by_someone_else_is_ended_by_its_guard_not_by_its_old_pid(shop):
    """Its pid, the group's id, may be a new process's once it is reaped (pid_max may be 32768):
    close() then leaves the killing to the guard, a member of the group that holds the number."""
    sandbox = Sandbox(shop.root, shop.read_only)
    sh(sandbox, "true")
    assert sandbox.wait_prepared()
    launchers = list(sandbox._resources.launchers)
    group = launchers[0].process.pid
    launchers[0].process.kill()
    launchers[0].process.wait()  # reaped here, as a caller might
    assert _group_alive(group), "the guard and the sandbox built on it are left in the group"
    sandbox.close()
    assert not _group_alive(group) and all(launcher.exited() for launcher in launchers)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return None


def test_a_sandbox_for_one_command_builds_nothing_ahead(shop):
    with Sandbox(shop.root, shop.read_only, prepare_ahead=False) as sandbox:
        assert sh(sandbox, "echo once").stdout == "once\n"
        assert not sandbox.wait_prepared(timeout=0.5)
        assert sandbox._resources.prepared == []


def test_ending_a_sandbox_just_built_never_writes_to_a_file_we_have_open(shop, tmp_path):
    """The launcher once opened our pipes through /proc by their numbers, some for writing
    (truncating): a number closed and reused for a file we read before it was done was written.
    It opens named pipes now; this stays as the guard of that class."""
    originals = []
    for number in range(64):
        path = tmp_path / f"original-{number}.txt"
        path.write_text(f"pristine {number}\n")
        originals.append(path)
    stop = threading.Event()

    def read_all_the_time() -> None:  # keeps taking the lowest free descriptor numbers
        while not stop.is_set():
            for path in originals:
                with open(path, "rb") as handle:
                    handle.read()

    readers = [threading.Thread(target=read_all_the_time) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        for _ in range(12):
            sandbox = Sandbox(shop.root, shop.read_only)
            assert sh(sandbox, "true").exit_code == 0
            sandbox.close()  # the next command's sandbox is being built right now
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    assert [p.read_text() for p in originals] == [f"pristine {n}\n" for n in range(64)]


def test_the_sandbox_built_while_a_command_runs_cannot_be_misled_by_it(nested, tmp_path):  # noqa: F811
    """Commands back to back: the next sandboxes are built while a command runs. The command cannot
    move any folder above a read-only path (each is a mount point inside), so it can neither get a
    bind onto a place of its choosing nor make bwrap create a mount point outside the copy."""
    workspace, sandbox = nested
    decoy = tmp_path / "decoy"
    decoy.mkdir(mode=0o777)
    decoy.chmod(0o777)  # the sandbox uid could write here, if bwrap were led here
    os.chmod(tmp_path, 0o755)
    swaps = (
        f"mv pkg pkg.x; ln -sfn {decoy} pkg; mv deep/a deep/a.x; ln -sfn {decoy} deep/a; "
        f"mv deep deep.x; ln -sfn {decoy} deep; rm -rf pkg deep/a; mkdir -p pkg deep/a/b"
    )
    attack = f"end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do {swaps}; done >/dev/null 2>&1; echo tried"
    for _ in range(3):
        sh(sandbox, "true")  # the two next sandboxes start building now, while the attack runs
        assert sh(sandbox, attack).stdout == "tried\n"
        for _ in range(3):  # the two built during the attack, and one built after it
            seen = sh(sandbox, READ_BACK)
            assert (seen.stdout, seen.exit_code) == (PRISTINE, 0), seen.stderr
    assert list(decoy.iterdir()) == [], "bwrap was led outside the copy"
    assert not any(workspace.root.glob("*.x")) and not any(workspace.root.glob("deep/*.x"))


def test_launchers_are_moved_into_the_cgroups_only_while_no_command_runs(shop):
    """A move into a cgroup is not bound by its pids.max: a launcher started in the background while
    a command fills the run's pids cgroup (a fork bomb) would take the run past its bound. So a build
    in the background that needs a new launcher waits until the command has ended."""
    sandbox = Sandbox(shop.root, shop.read_only)
    try:
        sandbox.prepare_next()
        assert sandbox.wait_prepared()
        running = threading.Thread(target=sh, args=(sandbox, "sleep 1.5"))
        running.start()
        deadline = time.monotonic() + 10
        while len(sandbox._resources.prepared) == _AHEAD and time.monotonic() < deadline:
            time.sleep(0.01)  # until the command has taken its sandbox
        assert sandbox._lock.locked(), "the command runs"
        sandbox._resources.drop_launcher(sandbox._resources.prepared[0].launcher)  # one died
        count = len(sandbox._resources.launchers)
        sandbox.prepare_next()  # a build that needs a new launcher
        time.sleep(0.5)
        assert sandbox._lock.locked(), "the command still runs"
        assert len(sandbox._resources.launchers) == count, "none was started beside the command"
        running.join()
        assert sandbox.wait_prepared(), "built once the command had ended"
        assert sh(sandbox, "echo after").stdout == "after\n"
    finally:
        sandbox.close()
