"""Round six of the escape suite: every bwrap is started on a "job", files and named pipes in a
per-Sandbox jobs folder, by a launcher that (for root) becomes the sandbox uid once (commit
aea9e60). Attacked from inside (a command that follows its own descriptors to the job files) and
from the host as the sandbox uid, which the launcher now is: no process of that uid may decide
what root creates, chowns or opens. Against real bwrap; the original project and the read-only
snapshot are byte-compared after each attempt (the ``box`` fixture)."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from reactlab.sandbox import Sandbox, _private_folder, acting_as_root, hand_over, host_identity, remove_tree

from .conftest import needs_sandbox, sh

pytestmark = needs_sandbox


def _as_sandbox_uid(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``script`` run on the host as the uid and gid sandboxed commands (and the launcher) run as."""
    uid, gid = host_identity()
    setpriv = ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    return subprocess.run([*setpriv, "/bin/sh", "-c", script, "attack", *args], capture_output=True, text=True)


_HOST_ATTACKS = {
    # /dev/shm is sticky: the owner of a folder in it may rename it, and leave a symlink in its place.
    "moved-and-linked": 'mv "$1" "$1.aside" && ln -s "$2" "$1"',
    # The next jobs' names are small numbers: taken first, each new job would open what they name.
    "names-planted": 'for n in $(seq "$3" "$(($3 + 40))"); do for k in options script out err status wanted ready; do '
    'ln -s "$2/$n.$k" "$1/$n.$k" || exit 1; done; done',
    "opened-to-all": 'chmod 0777 "$1"',
    "taken-over": 'mkdir "$1/x" && rm -rf "$1"/* && rmdir "$1"',
}


@pytest.mark.skipif(not acting_as_root(), reason="for a non-root caller the sandbox uid is the caller itself")
@pytest.mark.parametrize("attack", _HOST_ATTACKS.values(), ids=_HOST_ATTACKS.keys())
def test_the_sandbox_uid_cannot_steer_what_root_does_in_the_jobs_folder(box, tmp_path, attack):
    _, sandbox = box
    assert sh(sandbox, "echo first").stdout == "first\n"
    sandbox.wait_prepared()
    jobs = sandbox._resources.jobs
    victim = tmp_path / "victim"
    victim.mkdir()
    before = victim.stat().st_mtime_ns
    numbers = [int(name.split(".")[0]) for name in os.listdir(jobs)] or [0]
    done = _as_sandbox_uid(attack, str(jobs), str(victim), str(max(numbers) + 1))
    assert done.returncode != 0, "the sandbox uid changed the jobs folder"
    for round_ in range(3):  # a sandbox built ahead, then ones built on the command's path
        assert sh(sandbox, f"echo again {round_}").stdout == f"again {round_}\n"
    info = os.lstat(jobs)
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o710
    assert list(victim.iterdir()) == [] and victim.stat().st_mtime_ns == before


# A command knows where its output goes (readlink /proc/$$/fd/1: the launcher's view of the job's
# pipe) and the next jobs' names. Every way to that folder by name ends nowhere inside.
_INSIDE_ATTACKS = [
    'd=$(dirname "$(readlink /proc/$$/fd/1)"); ls -a "$d" "$d/.." 2>/dev/null; cd "$d" 2>/dev/null && pwd',
    'd=$(dirname "$(readlink /proc/$$/fd/1)"); n=$(basename "$(readlink /proc/$$/fd/1)" .out); '
    'for k in $(seq $((n + 1)) $((n + 9))); do echo "exit 0" > "$d/$k.wanted" 2>/dev/null && echo wrote $k; '
    'printf \'{"exit-code": 0}\\n\' > "$d/$k.status" 2>/dev/null && echo forged $k; done; true',
    "find / -xdev \\( -name '*.wanted' -o -name '*.status' -o -name 'reactlab-jobs-*' \\) 2>/dev/null; "
    "ls -A /dev/shm; ls -A /tmp",
    # the output pipe opened again by its magic link: for reading steals nothing from the next command
    "exec 9</proc/self/fd/1; (sleep 5 <&9 &) ; exec 8</proc/self/fd/2; (sleep 5 <&8 &)",
]


@pytest.mark.parametrize("attack", _INSIDE_ATTACKS, ids=["list", "forge-next", "find", "keep-pipe"])
def test_a_command_cannot_reach_the_job_files_by_name(box, attack):
    _, sandbox = box
    sh(sandbox, "true")
    sandbox.wait_prepared()
    seen = sh(sandbox, attack)
    assert seen.stdout == "" and not seen.setup_failed
    for number in range(3):
        result = sh(sandbox, f"echo own {number}; exit {number + 3}", timeout=10)
        assert (result.stdout, result.exit_code, result.setup_failed) == (f"own {number}\n", number + 3, False)


def _plant_stale(parent: Path, prefix: str, outside: Path) -> dict[str, bool]:
    """Names a new Sandbox's sweep meets in ``parent``, each with whether it is to go: our own folders
    of dead processes of this PID namespace go (what is in them is never followed), the rest stay
    (a link of such a name too; another user's folders: tests/test_escape_round_three.py)."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    dead = max(int(name) for name in os.listdir("/proc") if name.isdigit()) + 100_000
    planted = {
        f"{prefix}{namespace}-{dead}-link": False,  # a symlink to a folder outside: not followed, it stays
        f"{prefix}{namespace}-{dead}-full": True,  # a folder holding links to outside: the links go
        f"{prefix}{namespace}-{dead}-odd\n name": True,
        f"{prefix}{namespace}-{os.getpid()}-alive": False,  # a live process's
        f"{prefix}{namespace + 1}-{dead}-other": False,  # another PID namespace's
        f"{prefix}{namespace}-x{dead}-notapid": False,
    }
    link, full, *folders = (parent / name for name in planted)
    link.symlink_to(outside)
    for folder in [full, *folders]:
        folder.mkdir()
    (full / "inner").mkdir()
    (full / "folder").symlink_to(outside)
    (full / "file").symlink_to(outside / "kept")
    (full / "inner" / "up").symlink_to(outside)
    return planted


def test_the_sweep_of_dead_processes_folders_follows_nothing_and_spares_the_living(tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_text("precious")
    temp = tmp_path / "temp"  # not /tmp or /dev/shm: other users' runs sweep those
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    snapshots = _plant_stale(temp, "reactlab-read-only-", outside)
    jobs = _plant_stale(temp, "reactlab-jobs-", outside)
    copy = tmp_path / "copy"
    copy.mkdir()
    hand_over(copy)
    with Sandbox(copy) as sandbox:  # its snapshot folder is made in ``temp``
        assert sh(sandbox, "echo swept").stdout == "swept\n"
    remove_tree(_private_folder("reactlab-jobs-", str(temp)))  # as for the jobs folder, in /dev/shm
    assert (outside / "kept").read_text() == "precious" and sorted(os.listdir(outside)) == ["kept"]
    for name, goes in {**snapshots, **jobs}.items():
        assert os.path.lexists(temp / name) != goes, name


# Every sandbox's bash reads the command from a pipe and runs it with eval, whether it was built
# ahead or on the command's path; it must run as `bash -c -- COMMAND` would. Text that could bend
# the line it lands in (a leading dash, a trailing backslash or comment, a heredoc, a syntax error),
# or that looks for what the waiting bash left behind (its variables, descriptors, line numbers),
# must not change what runs, with which limits and descriptors.
_EDGES = [
    "--help",
    "-x",
    "echo a \\",
    "echo a # comment \\",
    "cat <<EOF\nbody $((6 * 7))\nEOF",
    "echo before; )",
    "echo before\nfi",
    "if true; then",
    "exit 7",
    "ulimit -f -v; ulimit -Hf",
    "ls /proc/$$/fd; readlink /proc/$$/fd/5 /proc/$$/fd/6 /proc/$$/fd/3; echo $0 $#",
    'echo "${command-unset}" "$-" "$BASH_EXECUTION_STRING"',
    "declare -p command c 2>&1; set | grep -c '^BASH_EXECUTION_STRING='",
    "echo $LINENO\necho $LINENO; f() { echo $FUNCNAME $LINENO; }; f",
    "return 3; echo after",
    "set -u; echo $nope; echo after",
    "alias x=echo\nx aliased",
    "trap 'echo trapped' EXIT; exit 3",
    "exec 1>&-; echo gone",
]


def test_a_command_runs_alike_on_a_sandbox_built_ahead_or_on_its_path_and_as_under_bash_c(shop):
    direct = Sandbox(shop.root, shop.read_only, prepare_ahead=False)
    ahead = Sandbox(shop.root, shop.read_only)
    try:
        sh(ahead, "true")
        for command in _EDGES:
            assert ahead.wait_prepared()
            on_path, built_ahead = sh(direct, command, timeout=10), sh(ahead, command, timeout=10)
            assert ahead.wait_prepared()
            bash_c = sh(ahead, f"exec /bin/bash -c -- {shlex.quote(command)}", timeout=10)
            assert built_ahead.exit_code is not None and not built_ahead.setup_failed
            assert (on_path.exit_code, on_path.stdout, on_path.stderr) == (
                built_ahead.exit_code,
                built_ahead.stdout,
                built_ahead.stderr,
            ), command
            # Only a syntax error's message differs from bash -c's: it names eval where bash names -c.
            assert (built_ahead.exit_code, built_ahead.stdout) == (bash_c.exit_code, bash_c.stdout), command
            assert built_ahead.stderr.replace(": eval: ", ": -c: ") == bash_c.stderr, command
    finally:
        direct.close()
        ahead.close()


@pytest.mark.skipif(not acting_as_root(), reason="bind-mounts a file: a name root itself cannot remove")
def test_a_stale_name_the_sweep_cannot_remove_does_not_stop_a_sandbox(tmp_path, monkeypatch):
    """Any local user may put a file named like a dead process's folder in /tmp or /dev/shm; no other
    user can remove it (EPERM in a sticky folder), nor root a mount point (EBUSY): it stays, and
    every Sandbox made there still works."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    dead = max(int(name) for name in os.listdir("/proc") if name.isdigit()) + 100_000
    temp = tmp_path / "temp"
    temp.mkdir()
    stuck = temp / f"reactlab-read-only-{namespace}-{dead}-stuck"
    stuck.write_text("")
    subprocess.run(["mount", "--bind", "/dev/null", str(stuck)], check=True)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    try:
        copy = tmp_path / "copy"
        copy.mkdir()
        hand_over(copy)
        with Sandbox(copy, prepare_ahead=False) as sandbox:
            assert sh(sandbox, "echo made").stdout == "made\n"
        assert stuck.exists()
    finally:
        subprocess.run(["umount", str(stuck)], check=True)


_FULL_SHM = """
import os, sys
from reactlab import Sandbox, SandboxUnavailable, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
workspace = Workspace(shop_path(), SHOP_READ_ONLY)
sandbox = Sandbox(workspace.root, workspace.read_only, prepare_ahead=False)
print(sandbox.run("echo before", 20).stdout.strip())
with open("/dev/shm/filler", "wb", buffering=0) as filler:  # what any local user may do to the host's /dev/shm
    try:
        while filler.write(b"x" * 4096):
            pass
    except OSError:
        pass
descriptors = len(os.listdir("/proc/self/fd"))
for _ in range(3):
    try:
        sandbox.run("echo never", 20)
    except SandboxUnavailable as refused:
        print("refused:", refused)
print("descriptors kept:", len(os.listdir("/proc/self/fd")) - descriptors)
os.unlink("/dev/shm/filler")
print(sandbox.run("echo after", 20).stdout.strip())
sandbox.close()
workspace.cleanup()
"""


def test_a_full_dev_shm_refuses_clearly_and_leaks_nothing():
    mounted = 'mount -t tmpfs -o size=256k reactlab-small /dev/shm && exec "$@"'
    unshare = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--map-root-user", "--mount"]
    argv = [*unshare, "--propagation", "private", "sh", "-c", mounted, "sh"]
    argv += [sys.executable, "-c", _FULL_SHM]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "before" and lines[-1] == "after", done.stdout
    assert lines[1:4] == [lines[1]] * 3 and "No space left on device" in lines[1] and "/dev/shm" in lines[1]
    assert lines[4] == "descriptors kept: 0"
