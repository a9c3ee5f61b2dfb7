"""The bwrap command line: read this first. Everything a command can see and do is on it.

Inside, a command runs as uid 1000 with no capabilities, in new namespaces (no network but its own
loopback, a private PID space), with a cleared environment and a seccomp filter (seccomp.py). It
sees /usr and a small /etc read-only, the working copy at /work (writable) with the read-only paths
bound over it from the snapshot, a fresh /proc with /proc/sys read-only and /proc/keys empty, and
two 64 MiB tmpfs, /tmp and /dev/shm. `/` and `/dev` are read-only. Before it runs the command, its
bash reads ``LIMITS_FILE`` (named by BASH_ENV, as bash does for every non-interactive shell): the
per-process limits on file size, address space and processes, which everything the command starts
inherits. So the command itself is run exactly as ``bash -c COMMAND`` runs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = [
    "BWRAP",
    "Binds",
    "EMPTY_FILE",
    "FILE_SIZE_KB",
    "KEY_LIST",
    "LIMITS",
    "LIMITS_FILE",
    "MEMORY_KB",
    "NPROC",
    "SAFE_PYTHON",
    "SANDBOX_ROOT",
    "TMP_SIZE",
    "bwrap_command",
    "fits_in_argv",
    "folders_above",
]

BWRAP = "/usr/bin/bwrap"
SANDBOX_ROOT = "/work"
TMP_SIZE = 64 * 1024 * 1024  # /tmp and /dev/shm
FILE_SIZE_KB = 64 * 1024  # ulimit -f: no file over 64 MiB
MEMORY_KB = 4 * 1024 * 1024  # ulimit -v: 4 GiB of address space per process
SAFE_PYTHON = "/.reactlab-python"
NPROC = 1024  # counts every process of the host uid (the run's cgroup bounds a run tighter)
LIMITS_FILE = "/etc/reactlab-limits.sh"
EMPTY_FILE = "empty"  # in the snapshot
KEY_LIST = "/proc/keys"
LIMITS = f"ulimit -f {FILE_SIZE_KB} -v {MEMORY_KB}; ulimit -u {NPROC} 2>/dev/null; unset BASH_ENV\n"
_ARGUMENT_MAX = 128 * 1024


@dataclass(frozen=True)
class Binds:
    """What bwrap binds from the host: host paths, each bound at the place the command line says."""

    copy: str
    """The working copy, bound writable at /work."""
    snapshot: str
    """The read-only snapshot (see snapshot.py): its etc/ at /etc, its read-only/ over /work."""
    read_only: tuple[str, ...]
    """Paths inside the project, bound read-only from the snapshot."""
    python: str | None
    """An interpreter's prefix outside /usr (pyenv, conda): its bin/ and lib/ are bound read-only at
    their own paths (its libraries are found by absolute paths), and nothing else of it."""
    alternatives: bool
    """Whether the host has Debian's /etc/alternatives (links to programs in /usr), bound read-only."""
    key_list: bool = False
    """Whether /proc/keys exists (it does where the kernel has keyrings). It lists the caller's keys
    (for a non-root caller: their names and sizes, and the caller's host uid); the snapshot's empty
    file is bound over it. (/proc/key-users, left, counts the caller's keys and nobody else's.)"""
    safe_python: bool = False
    """Start every Python in safe-path mode, with /work last on sys.path: no file in the copy can
    shadow the standard library (the snapshot's python/ puts /work back, after it)."""


def bwrap_command(
    command: str,
    binds: Binds,
    *,
    status_fd: int,
    block_fd: int,
    seccomp_fd: int,
    command_fd: int | None = None,
    environment: Mapping[str, str] = {},  # noqa: B006 (never changed)
    bwrap: str = BWRAP,
) -> list[str]:
    """``bash -c COMMAND`` in the sandbox. bwrap reports on ``status_fd`` (the pid of the sandbox's
    first process, then the command's exit code) and waits for one byte on ``block_fd`` before it
    starts the command: by then the run's cgroups hold that process (see running.py). It reads the
    seccomp filter from ``seccomp_fd`` (seccomp.filter_program).

    A command too long for one argument (``fits_in_argv``) is read from ``command_fd`` instead (a
    file holding it) and run with ``eval``, as ``bash -c`` would run it; then only a syntax error's
    message differs (it names eval)."""
    path = "/usr/local/bin:/usr/bin:/bin"
    if binds.python:
        path = f"{binds.python}/bin:{path}"
    args = [
        bwrap,
        "--unshare-all", "--unshare-user", "--uid", "1000", "--gid", "1000",
        "--cap-drop", "ALL", "--disable-userns", "--die-with-parent", "--new-session",
        "--clearenv",
        "--setenv", "PATH", path,
        "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "BASH_ENV", LIMITS_FILE,
    ]  # fmt: skip
    if binds.safe_python:  # no user site either: its usercustomize would be imported from /work
        environment = {**environment, "PYTHONSAFEPATH": "1", "PYTHONPATH": SAFE_PYTHON, "PYTHONNOUSERSITE": "1"}
    for name, value in sorted(environment.items()):
        args += ["--setenv", name, value]
    args += ["--hostname", "sandbox"]
    args += ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"]
    args += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"]
    args += ["--ro-bind", f"{binds.snapshot}/etc", "/etc"]
    if binds.alternatives:
        args += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    args += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev"]
    if binds.key_list:
        args += ["--ro-bind", f"{binds.snapshot}/{EMPTY_FILE}", KEY_LIST]
    args += ["--size", str(TMP_SIZE), "--tmpfs", "/tmp", "--size", str(TMP_SIZE), "--tmpfs", "/dev/shm"]
    if binds.python:  # after /tmp: a prefix may lie in it
        for part in ("bin", "lib"):
            args += ["--ro-bind", f"{binds.python}/{part}", f"{binds.python}/{part}"]
    args += ["--bind", binds.copy, SANDBOX_ROOT]
    # Each folder above a read-only path is bound onto itself: a mount point cannot be renamed or
    # removed, so the copy's own files at the read-only paths stay where they are.
    for folder in folders_above(binds.read_only):
        args += ["--bind", f"{binds.copy}/{folder}", f"{SANDBOX_ROOT}/{folder}"]
    for relative in binds.read_only:  # after the copy, or it would hide them
        args += ["--ro-bind", f"{binds.snapshot}/read-only/{relative}", f"{SANDBOX_ROOT}/{relative}"]
    if binds.safe_python:
        args += ["--ro-bind", f"{binds.snapshot}/python", SAFE_PYTHON]
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]  # not recursive: /tmp, /dev/shm, /work stay
    args += ["--json-status-fd", str(status_fd), "--block-fd", str(block_fd), "--seccomp", str(seccomp_fd)]
    if command_fd is not None:  # kept where bash -c keeps it, so no variable of ours is left
        command = (
            f'IFS= read -r -d "" BASH_EXECUTION_STRING <&{command_fd}; exec {command_fd}<&-; '
            'eval -- "$BASH_EXECUTION_STRING"'
        )
    return [*args, "--chdir", SANDBOX_ROOT, "--", "/bin/bash", "-c", "--", command]


def fits_in_argv(command: str) -> bool:
    """Whether ``command`` fits in one argument: the kernel refuses one over 128 KiB (MAX_ARG_STRLEN)."""
    return len(command.encode()) < _ARGUMENT_MAX


def folders_above(read_only: Sequence[str]) -> list[str]:
    """Every folder on the way to a read-only path (not inside one), the shallowest first."""
    folders = {
        PurePosixPath(*PurePosixPath(path).parts[:depth]).as_posix()
        for path in read_only
        for depth in range(1, len(PurePosixPath(path).parts))
    }
    inside = {f for f in folders if any(f == r or f.startswith(r + "/") for r in read_only)}
    return sorted(folders - inside, key=lambda f: (f.count("/"), f))
