"""Sandbox: one run's bash, each command in a fresh Bubblewrap sandbox. No sandbox, no command.

Making a Sandbox measures the copy (disk.py) and takes the read-only snapshot (snapshot.py). Each
``run()`` checks that bwrap works here and that nothing on the way to a read-only path was replaced
by a link, starts bwrap on the command line of command_line.py with the seccomp filter (seccomp.py)
from a thread of its own (command_thread.py, running.py), with the disk bound watching, and tidies
and counts the copy afterwards (tidy.py, disk.py). The run's cgroups are made on its first command
(cgroups.py). ``close()`` kills a command still running and removes the cgroups and the snapshot; so
does garbage collection, or the end of the process.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from ..errors import SandboxUnavailable
from ..language import say
from .available import check_available
from .cgroups import MEMORY_MAX, PIDS_MAX, RunCgroups, cgroup_bases
from .command_line import (
    BWRAP,
    FILE_SIZE_KB,
    KEY_LIST,
    MEMORY_KB,
    TMP_SIZE,
    Binds,
    bwrap_command,
    fits_in_argv,
    folders_above,
)
from .command_thread import in_a_thread_of_its_own
from .disk import DISK_LIMIT, FREE_FLOOR, Blocks, DiskBound
from .identity import INSIDE_UID, acting_as_root, host_identity, reachable
from .running import OUTPUT_LIMIT, SandboxResult, above_stdio, interrupts_held, run_command
from .seccomp import filter_program
from .snapshot import plain_path, take_snapshot
from .tidy import tidy
from .walk import remove_tree

__all__ = ["Sandbox", "python_prefix"]


def python_prefix() -> str:
    """The folder this interpreter is installed in (a virtual environment's base, not the venv)."""
    return os.path.realpath(sys.base_prefix)


class Sandbox:
    """Runs ``bash -c COMMAND`` in ``root`` (seen as /work), with ``read_only`` paths bound read-only.

    ``pristine``: the original project, which the read-only paths are copied from (by default the
    copy itself, which must then be untouched). ``environment`` adds variables inside.
    ``safe_python`` starts every Python inside in safe-path mode with /work last on sys.path, so no
    file in the copy can shadow the standard library (Python 3.11+). ``disk_limit``: the bytes the
    copy may grow by over what it takes now (disk.py). Use ``with``, or ``close()``.
    """

    def __init__(
        self,
        root: str | Path,
        read_only: Sequence[str] = (),
        *,
        bwrap: str = BWRAP,
        output_limit: int = OUTPUT_LIMIT,
        environment: Mapping[str, str] | None = None,
        safe_python: bool = False,
        pristine: str | Path | None = None,
        disk_limit: int = DISK_LIMIT,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.read_only = tuple(PurePosixPath(p).as_posix() for p in read_only)
        self.bwrap = bwrap
        self.output_limit = output_limit
        self.environment = dict(environment or {})
        self.safe_python = safe_python
        self._disk = DiskBound(self.root, disk_limit)  # what the copy takes now, and may grow by
        pristine_path = Path(os.path.realpath(pristine)) if pristine is not None else self.root
        self._held = _Held(take_snapshot(pristine_path, self.read_only, safe_python=safe_python))
        self._finalizer = weakref.finalize(self, self._held.release)
        self._identity = host_identity()  # who runs the commands: fixed for the run
        self._as_root = acting_as_root()
        self._folders_above = folders_above(self.read_only)
        self._binds: Binds | None = None  # worked out on the first command, kept for the run

    @property
    def snapshot(self) -> Path:
        """The folder the read-only paths are bound from (outside the copy, out of the sandbox's reach)."""
        return self._held.snapshot / "read-only"

    def binds(self) -> Binds:
        """What bwrap binds from the host for this sandbox (see Binds)."""
        prefix = python_prefix()
        uid, gid = host_identity()
        outside_usr = prefix != "/usr" and not prefix.startswith("/usr/")
        return Binds(
            copy=str(self.root),
            snapshot=str(self._held.snapshot),
            read_only=self.read_only,
            python=prefix if outside_usr and reachable(f"{prefix}/lib", uid, gid) else None,
            alternatives=os.path.isdir("/etc/alternatives"),
            key_list=os.path.exists(KEY_LIST),
            safe_python=self.safe_python,
        )

    def argv(
        self, command: str, *, status_fd: int, block_fd: int, seccomp_fd: int, command_fd: int | None = None
    ) -> list[str]:
        """The bwrap command line ``run`` starts for ``command``, given the descriptors of its two
        pipes, of a file holding the seccomp filter (and, for a command too long for one argument, of
        a file holding it). As root, bwrap is started as the sandbox uid (``as_sandbox_uid``)."""
        return bwrap_command(
            command,
            self._binds or self.binds(),
            status_fd=status_fd,
            block_fd=block_fd,
            seccomp_fd=seccomp_fd,
            command_fd=command_fd,
            environment=self.environment,
            bwrap=self.bwrap,
        )

    def check(self) -> None:
        """Raise SandboxUnavailable unless a command can run here now."""
        if self._held.closed:
            raise SandboxUnavailable(say("This sandbox was closed (its working copy removed, or close() called)."))
        check_available(self.bwrap)
        uid, gid = self._identity
        if not reachable(str(self.root), uid, gid):
            raise SandboxUnavailable(
                say(
                    "The working copy {copy} is out of reach of uid {uid}, who runs the commands: a folder on the "
                    "way is closed to it. Make the copy with Workspace, which opens its folder to that uid alone.",
                    copy=self.root,
                    uid=uid,
                )
            )
        for path in self.read_only:
            if not plain_path(self.root, path):
                raise SandboxUnavailable(
                    say(
                        "Read-only path '{path}': a folder on its way was replaced by a symlink or a file by an "
                        "earlier command; refusing to run.",
                        path=path,
                    )
                )
        for folder in self._folders_above:  # bwrap binds each onto itself: it must exist
            missing = self.root / folder
            if not os.path.lexists(missing):
                missing.mkdir(mode=0o755)
                if self._as_root:  # the folder is the sandbox uid's, as the rest of the copy
                    os.chown(missing, uid, gid)

    def run(self, command: str, timeout: float) -> SandboxResult:
        """Run ``command``; its whole process tree is killed after ``timeout`` seconds."""
        if "\x00" in command:
            raise ValueError("The command contains a NUL byte.")
        try:
            command.encode()
        except UnicodeEncodeError as error:
            raise ValueError(f"The command is not Unicode text: a lone surrogate at character {error.start}.") from None
        # One at a time: the way to the read-only paths is checked, then bound. A Ctrl-C is held
        # back until the command is killed and the copy tidied (running.py, interrupts_held).
        with self._held.running, interrupts_held() as interrupted:
            self.check()
            program = filter_program()
            held = _file_holding(command.encode() + b"\0") if not fits_in_argv(command) else None
            seccomp = _file_holding(program)
            self._binds = self._binds or self.binds()
            blocks = Blocks()
            try:
                result = in_a_thread_of_its_own(
                    lambda: run_command(
                        lambda status, block: self.argv(
                            command, status_fd=status, block_fd=block, seccomp_fd=seccomp, command_fd=held
                        ),
                        timeout,
                        output_limit=self.output_limit,
                        cgroups=self._held.cgroups,
                        closing=self._held.closing,
                        interrupted=interrupted,
                        watch=self._disk.watch(),
                        passed=(seccomp,) if held is None else (seccomp, held),
                    )
                )
            finally:
                os.close(seccomp)
                if held is not None:
                    os.close(held)
                tidy(self.root, give_back_to=self._identity if self._as_root else None, also=blocks.add)
        if interrupted:
            raise KeyboardInterrupt
        self._disk.check(blocks.total)  # exactly, now that every process of the command is gone
        return result

    def limits(self) -> dict[str, int | None]:
        """The limits a command gets here (None: not available on this machine), and who it runs as:
        ``uid`` inside, and the ``host_uid`` behind it (never 0)."""
        groups = cgroup_bases()
        uid, gid = host_identity()
        return {
            "processes": PIDS_MAX if "pids" in groups else None,
            "memory_bytes": MEMORY_MAX if "memory" in groups else None,
            "address_space_bytes": MEMORY_KB * 1024,
            "file_size_bytes": FILE_SIZE_KB * 1024,
            "tmp_bytes": TMP_SIZE,
            "disk_bytes": self._disk.limit,
            "disk_free_floor_bytes": FREE_FLOOR,
            "output_bytes_per_stream": self.output_limit,
            "uid": INSIDE_UID,
            "host_uid": uid,
            "host_gid": gid,
        }

    def close(self) -> None:
        """Remove the run's cgroups and snapshot now. A command still running is killed, and its
        ``run()`` raises SandboxUnavailable; so does every later one."""
        self._finalizer()

    def closer(self) -> Callable[[], object]:
        """What closes this sandbox without keeping it alive (for a working copy to call on cleanup)."""
        return self._finalizer

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r}, read_only={list(self.read_only)})"


def _file_holding(data: bytes) -> int:
    """A descriptor of an unnamed file holding ``data``, read from its start (a command and a NUL, or
    the seccomp filter)."""
    fd = above_stdio(os.memfd_create("reactlab-command", os.MFD_CLOEXEC))  # never bwrap's stdin
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class _Held:
    """What a Sandbox holds for its run, released once by ``release`` (close, collection, exit)."""

    def __init__(self, snapshot: Path) -> None:
        self.snapshot = snapshot
        self.cgroups = RunCgroups()
        self.closing, self._close_now = os.pipe()  # readable once closed: a running command ends then
        self.closed = False
        self.running = threading.Lock()

    def release(self) -> None:
        self.closed = True
        os.write(self._close_now, b"x")
        with self.running:  # a command still running sees ``closing``, is killed, and lets go
            pass
        self.cgroups.close()
        remove_tree(self.snapshot)
        os.close(self.closing)
        os.close(self._close_now)
