"""Attacks on the host's disk: what a run's commands write there, in total.

Each file a command writes is capped (ulimit -f, 64 MiB), but their sum was not: 40 files of 60 MiB
went into the working copy (the host's temp folder, shared by every user) in 22 s. The host now
counts the blocks the copy takes (reactlab/core/sandbox/disk.py), while each command runs and exactly
after it: past the run's disk bound the command is stopped, and the run, with DiskBoundExceeded;
run_in_copy then removes the copy. Hard links and sparse files count what they take, and blocks
are taken only by writing them (fallocate is refused). A file deleted while still open, which no
walk sees, meets the free-space floor. Besides the copy, a command can write only /tmp and
/dev/shm, 64 MiB of memory each.
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactlab import DiskBoundExceeded, Sandbox, Script, Workspace, independent_test_run, run_in_copy
from reactlab.core.sandbox import DISK_LIMIT
from reactlab.core.sandbox.cleanup import namespace
from reactlab.core.sandbox.disk import FREE_FLOOR, room_taken
from reactlab.samples import SHOP, SHOP_TEST_COMMAND

from ..conftest import needs_sandbox, sh
from .conftest import cli_run, in_a_private_tmpfs

pytestmark = needs_sandbox

SMALL = 32 * 1024 * 1024  # a bound the variants pass quickly, with little written
# The reproduction: files of 60 MiB, each under the per-file cap, until the disk is gone.
FILL = "for n in $(seq {count}); do head -c 60M /dev/zero > f$n || exit; done; echo all written"


@pytest.fixture
def small(shop: Workspace) -> Iterator[tuple[Workspace, Sandbox]]:
    sandbox = Sandbox(shop.root, shop.read_only, pristine=shop.source, disk_limit=SMALL)
    yield shop, sandbox
    sandbox.close()


def test_files_under_the_per_file_cap_are_stopped_at_the_runs_disk_bound(box):
    workspace, sandbox = box
    assert sandbox.limits()["disk_bytes"] == DISK_LIMIT == 256 * 1024 * 1024
    with pytest.raises(DiskBoundExceeded, match=f"grew by more than {DISK_LIMIT:,} bytes"):
        sh(sandbox, FILL.format(count=40), timeout=120)
    written = sorted(workspace.root.glob("f*"))
    assert 4 <= len(written) < 40, "stopped while it ran, past the bound"
    assert sh(sandbox, "rm f*; echo room again").stdout == "room again\n", "the next command runs once there is room"


# Each passes the bound a different way; every command but the last stays under it.
PAST_THE_BOUND = {
    "many-files-in-one-command": ["for n in $(seq 100); do head -c 4M /dev/zero > f$n || exit; done"],
    "growth-across-commands": ["head -c 12M /dev/zero > a", "head -c 12M /dev/zero > b", "head -c 12M /dev/zero > c"],
    "one-file-grown-by-appends": ["for n in $(seq 48); do head -c 1M /dev/zero >> grown || exit; sleep 0.02; done"],
    "appends-across-commands": ["head -c 12M /dev/zero >> grown"] * 3,
    "blocks-reserved-by-posix-fallocate": [  # fallocate(2) is refused: glibc then writes the blocks
        "for n in 1 2 3 4 5; do fallocate --posix --length 60M reserved$n || exit; done"
    ],
    "in-folders-deep-and-closed": ["mkdir -p a/b/c && head -c 40M /dev/zero > a/b/c/f && chmod 000 a/b a"],
    "in-a-folder-moved-while-walked": [
        'mkdir -p a b && head -c 20M /dev/zero > a/f && head -c 20M /dev/zero > b/f && python3 -c "'
        "import os, time\nend = time.monotonic() + 2\nwhile time.monotonic() < end:\n"
        "    os.rename('a', 'b/a'); os.rename('b/a', 'a')\""
    ],
}


@pytest.mark.parametrize("commands", PAST_THE_BOUND.values(), ids=PAST_THE_BOUND.keys())
def test_what_a_run_writes_is_bounded_in_total_however_it_is_written(small, commands):
    workspace, sandbox = small
    for command in commands[:-1]:
        done = sh(sandbox, command)
        assert (done.exit_code, done.stderr) == (0, ""), done
    with pytest.raises(DiskBoundExceeded, match=f"grew by more than {SMALL:,} bytes"):
        sh(sandbox, commands[-1], timeout=60)
    assert room_taken(workspace.root) - sandbox._disk.start > SMALL


def test_the_bound_stops_a_command_while_it_runs_not_only_after(small):
    workspace, sandbox = small
    with pytest.raises(DiskBoundExceeded):
        sh(sandbox, "head -c 40M /dev/zero > f; sleep 5; touch late", timeout=20)
    assert (workspace.root / "f").exists() and not (workspace.root / "late").exists(), "killed while it slept"


# Blocks taken without writing them. fallocate took 60 MiB in about a millisecond (40 files of 60 MiB
# in 50 ms on this machine's disk, which took 12 s to write them), so between two checks of the bound
# a command took as much as the disk had, each file under the per-file cap. Some of its modes also
# reserve past a file's end or grow a file past the cap, and ioctls call it too. Now refused, each.
_TAKE = """
import ctypes, fcntl, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
MiB = 1 << 20
def fallocate(name, mode, length, files=1):
    for n in range(files):
        fd = os.open(f"{name}{n}", os.O_CREAT | os.O_RDWR, 0o644)
        os.write(fd, bytes(4096))
        if libc.fallocate(fd, mode, ctypes.c_long(0), ctypes.c_long(length)) != 0:
            return os.strerror(ctypes.get_errno())
    return "taken"
def by_ioctl(request, length):
    fd = os.open("reserved", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.ioctl(fd, request, struct.pack("hhqq", 0, 0, 0, length) + bytes(24))  # struct space_resv
    except OSError as error:
        return os.strerror(error.errno)
    return "taken"
print(eval(sys.argv[1]))
"""
TAKEN_WITHOUT_WRITING = {
    "plain-in-many-files": "fallocate('f', 0, 60 * MiB, files=8)",
    "past-the-end": "fallocate('f', 0x01, 200 * MiB)",  # FALLOC_FL_KEEP_SIZE
    "zero-range": "fallocate('f', 0x10, 60 * MiB)",
    "a-file-grown-past-the-cap": "fallocate('f', 0x20, 200 * MiB)",  # FALLOC_FL_INSERT_RANGE: no SIGXFSZ
    "ioctl-resvsp64": "by_ioctl(0x4030582A, 200 * MiB)",
    "ioctl-zero-range": "by_ioctl(0x40305839, 200 * MiB)",
}


@pytest.mark.parametrize("call", TAKEN_WITHOUT_WRITING.values(), ids=TAKEN_WITHOUT_WRITING.keys())
def test_blocks_are_never_taken_without_writing_them(small, call):
    workspace, sandbox = small
    done = sh(sandbox, f"python3 -c {shlex.quote(_TAKE)} {shlex.quote(call)}")
    assert (done.stdout, done.exit_code) == ("Operation not supported\n", 0), done
    assert room_taken(workspace.root) - sandbox._disk.start < 1024 * 1024
    assert all(f.stat().st_size <= 4096 for f in workspace.root.glob("f*")), "no file grown past what was written"


# Sparse files and hard links count the room they take: neither the names nor the apparent size.
FORTY = "head -c 40M /dev/zero > t"
COUNTED_AS_THEY_TAKE = {
    "sparse-files": (
        "for n in $(seq 40); do truncate -s 60M s$n; done",
        "dd if=/dev/zero of=s7 bs=1M count=40 conv=notrunc",
    ),
    "hard-links": ("head -c 20M /dev/zero > one && for n in $(seq 300); do ln one l$n; done", "cp one two"),
    "written-and-removed": ("for n in $(seq 10); do head -c 20M /dev/zero > t && rm t; done", FORTY),
    "tmp-and-shm": ("head -c 60M /dev/zero > /tmp/t && head -c 60M /dev/zero > /dev/shm/t", FORTY),
}


@pytest.mark.parametrize(("harmless", "past"), COUNTED_AS_THEY_TAKE.values(), ids=COUNTED_AS_THEY_TAKE.keys())
def test_sparse_files_and_hard_links_count_what_they_take(small, harmless, past):
    """2.4 GB of sparse files, 6 GB of names for one file, 200 MiB written and removed, 120 MiB in
    memory: none of it is on the disk, none of it stops the run. Then real blocks do."""
    _, sandbox = small
    done = sh(sandbox, harmless + "; echo kept", timeout=60)
    assert (done.stdout, done.exit_code) == ("kept\n", 0), done
    with pytest.raises(DiskBoundExceeded):
        sh(sandbox, past, timeout=60)


@pytest.mark.parametrize(
    ("limit", "command"),
    [(DISK_LIMIT, FILL.format(count=6)), (SMALL, "head -c 40M /dev/zero > f")],
    ids=["default", "disk_limit"],
)
def test_a_run_past_its_disk_bound_stops_keeps_its_record_and_removes_its_copy(limit, command):
    script = Script().tool_call("bash", command=command).final_answer("never reached")
    outcome = run_in_copy(SHOP, script.client(), **({} if limit == DISK_LIMIT else {"disk_limit": limit}))
    assert isinstance(outcome.error, DiskBoundExceeded)
    record = outcome.record
    assert record.stop_reason == "bound_exceeded" and f"more than {limit:,} bytes" in (record.error or "")
    assert len(record.model_calls) == 1 and record.answer is None
    assert outcome.workspace.removed and not outcome.workspace.folder.exists(), "the copy gives its disk back"


@pytest.mark.parametrize("output", ["route", "json"])
def test_the_cli_says_the_run_passed_its_disk_bound_and_its_copy_is_gone(tmp_path, output):
    project, done = cli_run(tmp_path, FILL.format(count=6), output)
    assert done.returncode == 1, done.stderr[-500:]
    if output == "json":
        summary = json.loads(done.stdout)
        assert (summary["stop_reason"], summary["workspace_kept"]) == ("bound_exceeded", False)
        copy = Path(summary["workspace"])
    else:
        assert f"grew by more than {DISK_LIMIT:,} bytes" in done.stdout
        copy = Path(done.stdout.split("working copy removed (it passed a disk bound): ")[1].split("\n")[0])
    assert copy.name == "project" and not copy.parent.exists()
    assert sorted(p.name for p in project.iterdir()) == ["notes.txt"], "the original is untouched"


def test_the_independent_check_is_bounded_too_and_removes_its_copy(shop):
    """The check runs the run's changed code on a fresh copy: that code fills the disk at import."""
    fill = "for n in range(6):\n    open(f'/work/f{n}', 'wb').write(bytes(60 << 20))\n"
    delivery = shop.root / "shop" / "delivery.py"
    delivery.write_text(fill + delivery.read_text())
    checks = f"reactlab-check-{namespace()}-{os.getpid()}-*"
    with pytest.raises(DiskBoundExceeded):
        independent_test_run(shop, SHOP_TEST_COMMAND)
    assert list(Path(tempfile.gettempdir()).glob(checks)) == [], "the check's copy was removed"


# A file deleted while still open takes room no walk sees, until the command's processes end.
_HELD_OPEN = """
import os, sys
import reactlab.core.sandbox.disk as disk
from reactlab import DiskNearlyFull, Sandbox, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
disk.FREE_FLOOR = int(sys.argv[1])
workspace = Workspace(shop_path(), SHOP_READ_ONLY)
sandbox = Sandbox(workspace.root, workspace.read_only, disk_limit=32 << 20)
try:
    print("ran:", " ".join(sandbox.run(sys.argv[2], 60).stdout.split()))
except DiskNearlyFull as stopped:
    print("stopped:", stopped)
info = os.statvfs(workspace.root)
print("free MiB:", info.f_bavail * info.f_frsize >> 20)
sandbox.close()
workspace.cleanup()
"""
# 12 files of 16 MiB, each deleted as soon as written and held open by the shell: 192 MiB.
HELD = (
    'for n in $(seq 3 14); do eval "exec $n>held$n" && head -c 16M /dev/zero >&$n && rm held$n || exit; done; '
    "echo written; sleep 2; echo done"
)


@pytest.mark.parametrize("floor", [0, 160], ids=["without-a-floor", "with-a-floor"])
def test_files_deleted_while_open_meet_the_free_space_floor(open_tmp, floor):
    """On a disk of 320 MiB: without the floor, the 192 MiB pass the 32 MiB bound unseen (no walk
    sees a deleted file); with a floor of 160 MiB the command is stopped when the disk falls below
    it. Either way the room comes back once the command's processes are gone."""
    assert FREE_FLOOR == 1024**3
    disk = open_tmp / "disk"
    disk.mkdir(mode=0o1777)
    disk.chmod(0o1777)
    done = in_a_private_tmpfs(str(disk), "320m", _HELD_OPEN, str(floor << 20), HELD, temp=str(disk))
    assert done.returncode == 0, done.stderr[-2000:]
    said, free = done.stdout.splitlines()
    if floor == 0:
        assert said == "ran: written done", done.stdout
    else:
        assert said.startswith("stopped: The disk holding the working copy has less than 167,772,160 bytes free")
    assert int(free.removeprefix("free MiB: ")) > 300, "the room came back"


# The floor is a fact about the whole disk: others write there too (a classmate, the notebook's own
# checkpoints), and a command may write a little. Below the floor, any fall in the free space stopped
# the command that ran, and its run with it: a classmate who kept the disk nearly full ended every
# other student's runs, and on a laptop with less than 1 GiB free, ordinary runs ended at random.
_BYSTANDER = """
import os, sys, threading, time
import reactlab.core.sandbox.disk as disk
from reactlab import DiskNearlyFull, Sandbox, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
disk.FREE_FLOOR = 160 << 20
workspace = Workspace(shop_path(), SHOP_READ_ONLY)
sandbox = Sandbox(workspace.root, workspace.read_only, disk_limit=32 << 20)
elsewhere = os.path.join(sys.argv[1], "classmate")
with open(elsewhere, "wb") as taken:
    taken.write(bytes(170 << 20))  # the disk is below the floor before the command starts
def write(churn):
    time.sleep(0.4)
    for n in range(5):
        with open(f"{elsewhere}{n}", "wb") as written:
            written.write(bytes(1 << 20))
            written.flush()
            os.fsync(written.fileno())
        time.sleep(0.3 if churn else 0.1)  # churn: each stays longer than a check takes to come
        if churn:
            os.unlink(f"{elsewhere}{n}")
if sys.argv[3] != "none":
    threading.Thread(target=write, args=(sys.argv[3] == "churn",)).start()
try:
    print("ran:", " ".join(sandbox.run(sys.argv[2], 60).stdout.split()))
except DiskNearlyFull as stopped:
    print("stopped:", stopped)
sandbox.close()
workspace.cleanup()
"""
BYSTANDERS = {
    "a-classmate-writes": ("sleep 2; echo done", "steady"),
    "a-classmate-writes-and-deletes": ("sleep 2; echo done", "churn"),
    "the-command-writes-a-little": ("head -c 4M /dev/zero > out; sleep 2; echo done", "none"),
}


@pytest.mark.parametrize(("command", "classmate"), BYSTANDERS.values(), ids=BYSTANDERS.keys())
def test_the_floor_stops_no_command_for_what_others_write(open_tmp, command, classmate):
    """On a disk of 320 MiB with 150 MiB free, under a floor of 160 MiB: the disk falls by a few
    MiB while the command runs, far less than the run's bound (32 MiB). The command runs to its end."""
    disk = open_tmp / "disk"
    disk.mkdir(mode=0o1777)
    disk.chmod(0o1777)
    done = in_a_private_tmpfs(str(disk), "320m", _BYSTANDER, str(disk), command, classmate, temp=str(disk))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "ran: done\n", done.stdout


def test_nothing_but_the_copy_tmp_and_shm_can_be_written_inside(box):
    """Every path a command may write, found from inside: apart from /work, /tmp and /dev/shm, only
    devices that keep nothing (and links to them), the terminal folder and the command's own pipes."""
    _, sandbox = box
    search = (
        "find / \\( -path /proc -o -path /sys -o -path /work -o -path /tmp -o -path /dev/shm \\) -prune "
        "-o -writable -printf '%y %Y %p\\n' 2>/dev/null"
    )
    found = [line.split(" ", 2) for line in sh(sandbox, search, timeout=60).stdout.splitlines()]
    devices = {path for kind, _, path in found if kind == "c"}
    assert devices <= {f"/dev/{name}" for name in ("null", "zero", "full", "random", "urandom", "tty", "pts/ptmx")}
    assert {path for kind, target, path in found if kind == "l" and target != "c"} <= {"/dev/fd", "/dev/stdout"}
    assert {path for kind, _, path in found if kind not in "cl"} == {"/dev/pts"}, found
    tries = sh(sandbox, "touch /dev/pts/x || mkdir /dev/pts/x || touch /dev/fd/x || echo refused")
    assert tries.stdout == "refused\n", tries
