"""The Bubblewrap sandbox that bash runs in. There is no fallback: no sandbox, no command.

Who a command is, to the kernel: uid 1000 inside, mapped to one host uid. For a non-root caller
that is the caller's own uid. For root (CI, Docker, Colab) it is never uid 0: bwrap is started as
the unprivileged host uid ``REACTLAB_SANDBOX_UID`` (default 59999, the same gid, no supplementary
groups), which owns the working copy; root only makes the cgroups and a private mount namespace
in which that uid can reach what bwrap binds (the Python prefix may be under /root, mode 0700).

What each command sees: the working copy at /work (writable), the project's read-only paths bound
from a snapshot taken when the Sandbox was made (the copy's own files at those paths are never
used, so hardlinking cannot replace them; every folder above one is bound onto itself, a mount
point no command can move or remove), /usr, a few /etc files and
the interpreter's prefix read-only, a fresh /proc with /proc/sys read-only, and two bounded
tmpfs, /tmp and /dev/shm. `/` and `/dev` are remounted read-only. No network, no host
processes, no host environment.

Per command: a new sandbox (namespaces, /proc, /tmp, /dev/shm), timeout, output cap, file size and
address space (ulimit). Per Sandbox (one run): the pids and memory cgroups and the launchers that
start every command's bwrap from inside them, made on the first command and removed by
``close()``.

Building a sandbox costs bwrap several milliseconds, so the next three are built in the background
while the model thinks (``prepare_ahead``): after each command, and before the first one when the
caller asks (``prepare_next``; the bash tool does). The bash of each waits for its command on a
pipe, then runs it as ``bash -c COMMAND`` would. Three, so that commands back to back (several in
one answer) find theirs built, or being built; the next command may start while one is still being
built, which is safe because no command can move a folder on the way to a read-only path. A
sandbox built ahead is used only if the copy's read-only targets and the folders above them are
still the ones it was built on, and all its mounts on them are still there (removing one on the
host takes them away); otherwise it is discarded.
"""

from __future__ import annotations

import functools
import grp
import json
import os
import pwd
import re
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import SandboxUnavailable
from .walk import Entry, remove_tree, walk

__all__ = [
    "BWRAP",
    "DEFAULT_SANDBOX_UID",
    "OUTPUT_LIMIT",
    "SANDBOX_ROOT",
    "SANDBOX_UID_VARIABLE",
    "Sandbox",
    "SandboxResult",
    "close_sandboxes_in",
    "give_back",
    "hand_over",
    "host_identity",
    "inside_project",
    "remove_tree",
    "strip_special_bits",
]

BWRAP = "/usr/bin/bwrap"
SANDBOX_ROOT = "/work"
INSIDE_UID = 1000  # what `id` says inside; the host uid behind it is host_identity()
SANDBOX_UID_VARIABLE = "REACTLAB_SANDBOX_UID"
DEFAULT_SANDBOX_UID = 59999  # Debian's range for local accounts, unlikely to belong to anyone
OUTPUT_LIMIT = 30_000  # bytes kept per stream; the rest is drained and dropped
TMP_SIZE = 64 * 1024 * 1024  # /tmp and /dev/shm are tmpfs of this size
FILE_SIZE_KB = 64 * 1024  # ulimit -f: no file over 64 MiB
MEMORY_KB = 4 * 1024 * 1024  # ulimit -v: 4 GiB of address space per process
PIDS_MAX = 256  # processes per run, where a pids cgroup can be made (RLIMIT_NPROC does not bind root)
MEMORY_MAX = 2 * 1024**3  # bytes for the whole run, where a memory cgroup can be made
_AHEAD = 3  # sandboxes built ahead; each waits on a launcher of its own, and the command runs on a fourth
_ETC = (  # copied into the snapshot folder when the Sandbox is made, and bound at /etc
    "passwd",
    "group",
    "nsswitch.conf",
    "ld.so.cache",
    "localtime",
    "hosts",
    "alternatives",
)
# bwrap's init keeps the env it was started with, visible in /proc/1/environ: start it with almost nothing.
_HOST_ENV = {"PATH": "/usr/bin:/bin"}
_SPECIAL_BITS = stat.S_ISUID | stat.S_ISGID
# With PYTHONSAFEPATH neither the current folder nor the script's is put first on sys.path; this
# (on PYTHONPATH, alone in a read-only folder) puts the copy back, but after the standard library.
_SAFE_PYTHON_DIR = "/.reactlab-python"
_SITECUSTOMIZE = f'import sys\n\nsys.path.append("{SANDBOX_ROOT}")\n'

_probed: dict[tuple[str, int], str | None] = {}
_probe_lock = threading.Lock()
_open: weakref.WeakSet[Sandbox] = weakref.WeakSet()  # for close_sandboxes_in
_open_lock = threading.RLock()  # a collection that runs a finalizer while it is held may call cleanup()


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool
    timed_out: bool
    duration: float
    setup_failed: bool = False  # bwrap itself failed before the command started (told by its status fd)


def python_prefix() -> str:
    return os.path.realpath(sys.base_prefix)


def acting_as_root() -> bool:
    """Root that can hand files to the sandbox uid: euid 0 with that uid mapped in this user
    namespace. Root inside `unshare --map-root-user` is one host user, and runs commands as itself."""
    if os.geteuid() != 0:
        return False
    text = os.environ.get(SANDBOX_UID_VARIABLE, str(DEFAULT_SANDBOX_UID))
    if not text.isdigit():
        return True  # host_identity says what is wrong with it
    lines = _uid_map()
    if lines is None:
        return True
    for line in lines:
        inside, _, count = (int(field) for field in line.split())
        if inside <= int(text) < inside + count:
            return True
    return False


@functools.cache
def _uid_map() -> list[str] | None:
    """This process's user namespace mapping (fixed for its life), or None if unreadable."""
    try:
        return Path("/proc/self/uid_map").read_text().splitlines()
    except OSError:
        return None


def host_identity() -> tuple[int, int]:
    """The host (uid, gid) that sandboxed commands run as: the caller's, or the sandbox uid for root."""
    if not acting_as_root():
        return os.getuid(), os.getgid()
    text = os.environ.get(SANDBOX_UID_VARIABLE, str(DEFAULT_SANDBOX_UID))
    if not text.isdigit() or not 0 < int(text) < 65534:
        raise SandboxUnavailable(
            f"{SANDBOX_UID_VARIABLE}={text[:20]!r} is not an unprivileged uid (1-65533); "
            "commands never run as host root."
        )
    uid = int(text)
    owner = _account_of(uid)
    if owner is not None:
        raise SandboxUnavailable(
            f"The sandbox uid {uid} belongs to {owner} on this machine, who could read and change every "
            f"working copy while a run uses it. Set {SANDBOX_UID_VARIABLE} to a uid no account or group uses."
        )
    return uid, uid


@functools.lru_cache(maxsize=16)  # every command line asks; the accounts file is read once per uid
def _account_of(uid: int) -> str | None:
    """Who already has ``uid`` (as a user) or the same number (as a group), if anyone."""
    try:
        return f"the user {pwd.getpwuid(uid).pw_name!r}"
    except KeyError:
        pass
    try:
        return f"the group {grp.getgrgid(uid).gr_name!r}"
    except KeyError:
        return None


def inside_project(path: str) -> bool:
    """Whether ``path`` names something inside a project folder: relative, no "..", not the folder itself."""
    relative = PurePosixPath(path)
    return not relative.is_absolute() and ".." not in relative.parts and str(relative) != "."


def hand_over(folder: Path) -> None:
    """Make ``folder`` private (0700) and owned by the uid commands run as, so only the sandbox writes it."""
    uid, gid = host_identity()
    if acting_as_root():
        walk(folder, lambda entry: entry.chown(uid, gid))
    folder.chmod(0o700)


def strip_special_bits(folder: Path) -> list[str]:
    """Clear setuid and setgid on everything under ``folder``; return what had them."""
    stripped = []

    def strip(entry: Entry) -> None:
        if entry.info.st_mode & _SPECIAL_BITS and not entry.is_link:
            entry.chmod(stat.S_IMODE(entry.info.st_mode) & ~_SPECIAL_BITS)
            stripped.append(entry.relative)

    walk(folder, strip)
    return stripped


def give_back(folder: Path) -> None:
    """As root, hand files the host side made in the copy (an edit writes a new file) back to the
    sandbox uid, so commands can change them too. Runs between commands, when nothing inside runs."""
    if not acting_as_root():
        return
    uid, gid = host_identity()

    def own(entry: Entry) -> None:
        if entry.info.st_uid != uid:
            entry.chown(uid, gid)

    walk(folder, own)


class Sandbox:
    """Runs ``bash -c COMMAND`` in ``root`` (seen as /work), with ``read_only`` paths bound read-only.

    ``environment`` adds variables inside. ``safe_python`` starts every Python inside in safe-path
    mode with /work last on sys.path, so no file in the copy can shadow the standard library
    (Python 3.11+; older versions ignore PYTHONSAFEPATH). ``pristine``: the original project, which
    the read-only paths are snapshotted from (by default the copy, which must then be untouched).
    ``prepare_ahead``: after each command, build the next commands' sandboxes at once (three), so
    they are ready when the commands come (a sandbox used for one command only can say False). Call
    ``close()`` (or use ``with``) to remove the run's cgroups and snapshot at once; otherwise that
    happens when the Sandbox is garbage-collected or the interpreter exits.
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
        prepare_ahead: bool = True,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        # Where the read-only paths are copied from: the original project when the caller has it (a
        # copy that commands already ran in may hold replaced ones), else the copy itself.
        self.pristine = Path(os.path.realpath(pristine)) if pristine is not None else self.root
        self.read_only = tuple(PurePosixPath(p).as_posix() for p in read_only)
        self._folders_above = _folders_above(self.read_only)
        self.bwrap = bwrap
        self.output_limit = output_limit
        self.environment = dict(environment or {})
        self.safe_python = safe_python
        self.prepare_ahead = prepare_ahead
        self._lock = threading.Lock()  # one command at a time: the mount targets are checked, then bound
        self._resources = _RunResources()
        self._finalizer = weakref.finalize(self, self._resources.release)
        self._problem = self._take_snapshot()
        with _open_lock:
            _open.add(self)

    # -- the pristine read-only paths ---------------------------------------------------------
    def _take_snapshot(self) -> str | None:
        for path in self.read_only:
            if not inside_project(path):
                return f"Read-only path {path!r} must be a path inside the project; refusing to run."
            source = self.pristine / path
            if not _plain_path(self.pristine, path) or not source.exists():
                return f"Read-only path {path!r} is missing or a symlink; refusing to run."
        folder = _private_folder("reactlab-read-only-")
        self._resources.folder = folder
        snapshot = folder / "read-only"
        snapshot.mkdir()
        (folder / "etc").mkdir()
        for name in _ETC:  # one bind of a copy costs bwrap less than a bind of each file
            source = Path("/etc", name)
            if source.is_dir() and not source.is_symlink():
                shutil.copytree(source, folder / "etc" / name, symlinks=True)
            elif os.path.lexists(source):
                shutil.copy2(source, folder / "etc" / name, follow_symlinks=False)
        if self.safe_python:
            (folder / "python").mkdir()
            (folder / "python" / "sitecustomize.py").write_text(_SITECUSTOMIZE)
        for path in self.read_only:
            source, target = self.pristine / path, snapshot / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():  # it may hold a read-only path listed before it, copied already
                shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
            else:
                shutil.copy2(source, target, follow_symlinks=False)
        _make_readable_only(folder)
        self._resources.jobs = _make_jobs_folder()
        return None

    @property
    def snapshot(self) -> Path | None:
        """The folder the read-only paths are bound from (outside the copy, out of the sandbox's reach)."""
        folder = self._resources.folder
        return None if folder is None else folder / "read-only"

    # -- the command line ---------------------------------------------------------------------
    def python(self) -> str | None:
        """The interpreter prefix bound inside (None if it is under /usr, bound anyway, or if a
        non-root caller cannot read it: then ``python3`` inside is /usr/bin/python3, if any)."""
        prefix = python_prefix()
        if prefix == "/usr" or prefix.startswith("/usr/"):  # Debian's own python3: /usr is bound anyway
            return None
        uid, gid = host_identity()
        return prefix if acting_as_root() or _reachable(prefix, uid, gid) else None

    def sources(self) -> dict[str, str]:
        """Where bwrap binds the working copy ("copy"), the read-only snapshot ("extra") and Python
        ("python", "" when not bound) from, as ``argv`` names them."""
        return self._sources()

    def _sources(self) -> dict[str, str]:
        """Where bwrap finds what it binds. For root, bwrap runs as the sandbox uid, which cannot
        enter folders like /root or pytest's 0700 temp folder: the launcher's private mount
        namespace shows them to it under one open folder instead."""
        sources = self._host_sources()
        cover = _cover_for(self._launcher_sources().values())
        return {name: f"{cover}/{name}" if cover else source for name, source in sources.items()}

    def _host_sources(self) -> dict[str, str]:
        return {"copy": str(self.root), "extra": str(self._resources.folder), "python": self.python() or ""}

    def _launcher_sources(self) -> dict[str, str]:
        """What a launcher reaches: what bwrap binds, and the jobs folder (see _Job)."""
        sources = {name: path for name, path in self._host_sources().items() if path and path != "None"}
        return {**sources, "jobs": str(self._resources.jobs)}

    def argv(self, command: str, *, status_fd: int | None = None) -> list[str]:
        py = self.python()
        sources = self._sources()
        path = f"{py}/bin:/usr/local/bin:/usr/bin:/bin" if py else "/usr/local/bin:/usr/bin:/bin"
        args = [
            self.bwrap,
            "--unshare-all", "--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID),
            "--cap-drop", "ALL", "--disable-userns", "--die-with-parent", "--new-session",
            "--clearenv",
            "--setenv", "PATH", path,
            "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        ]  # fmt: skip
        environment = dict(self.environment)
        if self.safe_python:
            # No user site either: its usercustomize would be imported from /work, once that is on sys.path.
            environment.update(PYTHONSAFEPATH="1", PYTHONPATH=_SAFE_PYTHON_DIR, PYTHONNOUSERSITE="1")
        for name, value in sorted(environment.items()):
            args += ["--setenv", name, value]
        args += ["--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
        args += ["--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"]
        args += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"]
        args += ["--ro-bind", f"{sources['extra']}/etc", "/etc"]
        if py:
            args += ["--ro-bind", sources["python"], py]
        args += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev"]
        args += ["--size", str(TMP_SIZE), "--tmpfs", "/tmp", "--size", str(TMP_SIZE), "--tmpfs", "/dev/shm"]
        args += ["--bind", sources["copy"], SANDBOX_ROOT]
        # Each folder above a read-only path is bound onto itself: a mount point cannot be renamed or
        # removed, so no command can move the way to a read-only path (while the next sandbox is built).
        for folder in self._folders_above:
            args += ["--bind", f"{sources['copy']}/{folder}", f"{SANDBOX_ROOT}/{folder}"]
        for relative in self.read_only:  # after the writable binds, or they would be hidden by them
            args += ["--ro-bind", f"{sources['extra']}/read-only/{relative}", f"{SANDBOX_ROOT}/{relative}"]
        if self.safe_python:
            args += ["--ro-bind", f"{sources['extra']}/python", _SAFE_PYTHON_DIR]
        args += ["--remount-ro", "/dev", "--remount-ro", "/"]  # not recursive: /tmp, /dev/shm, /work stay
        if status_fd is not None:
            args += ["--json-status-fd", str(status_fd)]
        limits = f"ulimit -f {FILE_SIZE_KB} -v {MEMORY_KB}; ulimit -u {PIDS_MAX * 4} 2>/dev/null"
        return args + ["--chdir", SANDBOX_ROOT, "--", "/bin/bash", "-c", f"{limits}; {command}"]

    # -- refusing ---------------------------------------------------------------------------
    def check(self) -> None:
        """Raise SandboxUnavailable unless bwrap is present and can really build this sandbox."""
        self._check(make_missing=True)

    def _check(self, *, make_missing: bool) -> None:
        if self._resources.closed:
            raise SandboxUnavailable("This sandbox was closed (its working copy removed, or close() called).")
        if not os.path.isabs(self.bwrap) or not os.access(self.bwrap, os.X_OK):
            raise SandboxUnavailable(
                f"Bubblewrap not found at {self.bwrap}, so bash will not run (there is no unsandboxed fallback). "
                "Install it: `sudo apt-get install bubblewrap` (Debian/Ubuntu) or `sudo dnf install bubblewrap`."
            )
        uid, _ = host_identity()
        with _probe_lock:
            if (self.bwrap, uid) not in _probed:
                _probed[(self.bwrap, uid)] = _probe(self.bwrap)
        failure = _probed[(self.bwrap, uid)]
        if failure is not None:
            raise SandboxUnavailable(
                f"{self.bwrap} is installed but could not build a sandbox here: {failure}. "
                "Unprivileged user namespaces are probably blocked: Ubuntu 23.10+ needs "
                "`sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`, and Docker's default seccomp "
                "profile forbids them. bash will not run without isolation."
            )
        if self._problem is not None:
            raise SandboxUnavailable(self._problem)
        self._check_mount_targets(make_missing)

    def _check_mount_targets(self, make_missing: bool) -> None:
        """Each read-only path is bound onto the copy; every folder on the way there must still be a
        real folder (a command may have swapped one for a symlink), and the target of the same kind.
        A folder removed on the host is made again (bwrap binds each onto itself), but only before
        a command: in the background the host may be removing the whole copy."""
        snapshot = self.snapshot
        for path in self.read_only:
            assert snapshot is not None
            if not _plain_path(self.root, path):
                raise SandboxUnavailable(
                    f"Read-only path {path!r}: a folder on its way was replaced by a symlink or a file "
                    "by an earlier command; refusing to run."
                )
            target, source = self.root / path, snapshot / path
            replaced = target.is_symlink() or (os.path.lexists(source) and target.is_dir() != source.is_dir())
            if os.path.lexists(target) and replaced:
                raise SandboxUnavailable(
                    f"Read-only path {path!r} was replaced by a different kind of file or a symlink by an "
                    "earlier command; refusing to run."
                )
        for folder in self._folders_above:
            missing = self.root / folder
            if not os.path.lexists(missing):
                if not make_missing:
                    raise SandboxUnavailable(f"The folder {folder!r} above a read-only path is missing.")
                try:
                    missing.mkdir(mode=0o755)
                except FileExistsError:
                    continue  # the background preparation made it just now
                if acting_as_root():
                    os.chown(missing, *host_identity())

    def limits(self) -> dict[str, int | None]:
        """The limits a command gets here (None: not available on this machine), and who it runs as:
        ``uid`` inside, and the ``host_uid`` behind it (never 0)."""
        groups = _cgroup_bases()
        uid, gid = host_identity()
        return {
            "processes": PIDS_MAX if "pids" in groups else None,
            "memory_bytes": MEMORY_MAX if "memory" in groups else None,
            "address_space_bytes": MEMORY_KB * 1024,
            "file_size_bytes": FILE_SIZE_KB * 1024,
            "tmp_bytes": TMP_SIZE,
            "output_bytes_per_stream": self.output_limit,
            "uid": INSIDE_UID,
            "host_uid": uid,
            "host_gid": gid,
        }

    # -- running ----------------------------------------------------------------------------
    def run(self, command: str, timeout: float) -> SandboxResult:
        if "\x00" in command:
            raise ValueError("The command contains a NUL byte.")
        try:
            command.encode()  # before a sandbox is taken for it: sending it would fail halfway
        except UnicodeEncodeError as error:
            raise ValueError(f"The command is not Unicode text: a lone surrogate at character {error.start}.") from None
        if threading.current_thread() is not threading.main_thread():
            return self._run_locked(command, timeout, _Stop())
        # Only the main thread gets KeyboardInterrupt (an interrupted notebook cell), and it lands
        # anywhere: between opening a descriptor and keeping it, or closing one and forgetting it
        # (a later close then hits a number another sandbox's pipe reuses), or a launcher and its
        # list. So the command runs in a thread of its own; an interrupt here ends the command,
        # waits until that thread has put everything away, and goes on.
        stop, done = _Stop(), threading.Event()
        outcome: list[SandboxResult | BaseException] = []

        def work() -> None:
            try:
                outcome.append(self._run_locked(command, timeout, stop))
            except BaseException as exc:  # noqa: BLE001 (raised below, in the caller's thread)
                outcome.append(exc)
            finally:
                done.set()

        replay = _start_uninterrupted(threading.Thread(target=work, name="reactlab-sandbox-run", daemon=True))
        try:
            replay()
            done.wait()
        except BaseException:
            stop.request()
            while not done.is_set():
                try:
                    done.wait()
                except KeyboardInterrupt:
                    stop.request()
            raise
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def _run_locked(self, command: str, timeout: float, stop: _Stop) -> SandboxResult:
        with self._lock:
            try:
                self.check()
            except SandboxUnavailable:
                self._resources.discard_prepared()
                raise
            give_back(self.root)
            try:
                return self._run(command, timeout, stop)
            finally:
                strip_special_bits(self.root)  # a setuid file made inside must not stay runnable on the host
                self.prepare_next()

    def _run(self, command: str, timeout: float, stop: _Stop) -> SandboxResult:
        started = time.monotonic()
        deadline = started + timeout
        prepared = self._resources.take_prepared(self._mount_targets())
        if prepared is not None and not prepared.intact(self._mount_points(), deadline):
            prepared.discard()
            prepared = None
        if prepared is None:  # none built ahead: build one now; the command goes down its pipe as to any
            prepared = self._prepare(in_background=False)
        try:
            report = prepared.built(deadline)
            if report and not stop.requested:  # bwrap runs, on every file of its job
                prepared.close_ours()
                prepared.send(command, deadline)
                stop.watch(prepared.pids())
                prepared.output.read(deadline)  # until the pipes end: they end with the sandbox
            else:  # interrupted before it began: at the end of its command pipe the bash exits
                prepared.send_nothing()
            code = prepared.wait_exit(deadline)
            stop.watch(())
        except BaseException:  # an error in our bookkeeping must not leave the sandbox running
            self._resources.drop_launcher(prepared.launcher)
            prepared.close_all()
            raise
        prepared.close_ours()  # the launcher is done with them (wait_exit), and bwrap has exited
        report += prepared.rest_of_status()
        prepared.output.read(time.monotonic() + 5)  # what is left in them, once bwrap has exited
        prepared.close_all()
        state = _status(report)
        _wait_gone(state.get("child-pid"))  # after a kill, the namespace's last processes take a moment
        if code is None and self._resources.closed:  # killed by close(), not by its timeout
            raise SandboxUnavailable("The sandbox was closed while the command ran (its working copy removed?).")
        stdout, stderr = prepared.output.texts()
        return SandboxResult(
            exit_code=code,
            stdout=stdout,
            stderr=stderr,
            truncated=prepared.output.truncated,
            timed_out=code is None,
            duration=time.monotonic() - started,
            setup_failed=code is not None and "exit-code" not in state,
        )

    def _prepare(self, *, in_background: bool) -> _Prepared:
        """Start bwrap, on a launcher that runs nothing else, around a bash that waits for the
        command on a pipe (see _WAITER)."""
        copy, sources = _identity(self.root.stat()), self._launcher_sources()
        launcher = self._resources.free_launcher(self.bwrap, sources, copy, may_start=not in_background)
        if launcher is None:
            # A new launcher is moved into the run's cgroups, and a move is not bound by pids.max: one
            # moved in while a command fills the pids cgroup would take the run past its bound. So the
            # background starts one only while no command runs (a command's own path runs none),
            # and stops waiting if the Sandbox is closed meanwhile.
            while not self._lock.acquire(timeout=0.05):
                if self._resources.closed:
                    raise SandboxUnavailable("The sandbox was closed.")
            try:
                launcher = self._resources.free_launcher(self.bwrap, sources, copy, may_start=True)
            finally:
                self._lock.release()
            assert launcher is not None
        argv = self.argv(_WAITER.format(fd=_COMMAND_FD, ready=_READY_FD), status_fd=_STATUS_FD)
        assert argv[-4:-1] == ["--", "/bin/bash", "-c"]
        assert self._resources.jobs is not None
        job = _Job(self._resources.jobs, str(next(_counter)))
        try:
            job.write("options", b"".join(a.encode() + b"\0" for a in argv[1:-4]))
            job.write("script", argv[-1].encode() + b"\0")  # the launcher reads up to the NUL
            out, out_end = job.pipe("out")
            err, err_end = job.pipe("err")
            status, status_end = job.pipe("status")
            command_end, wanted = job.pipe("wanted", ours_writes=True)
            ready, ready_end = job.pipe("ready")
            job.opened = []  # ours now
        except BaseException as problem:
            self._resources.drop_launcher(launcher)
            job.remove()
            if isinstance(problem, OSError):  # /dev/shm is anyone's to fill
                raise SandboxUnavailable(
                    f"Could not write the files that start a sandbox in {job.folder}: {problem.strerror}."
                ) from None
            raise
        output = _Output(out, err, self.output_limit)
        ours = [out_end, err_end, status_end, wanted, ready_end]
        targets = self._mount_targets()  # before bwrap binds them
        try:
            pid = launcher.start(job.name)
        except BaseException:
            self._resources.drop_launcher(launcher)
            for fd in [*ours, status, command_end, ready]:
                os.close(fd)
            output.close()
            job.remove()
            raise
        return _Prepared(pid, launcher, output, status, command_end, ready, ours, targets, job)

    def prepare_next(self) -> None:
        """Build the next commands' sandboxes now, in the background, while the model thinks (with
        ``prepare_ahead``; each command starts this for the next ones, and a caller that is about to
        ask a model for the first command may too): each command still gets a fresh one (new
        namespaces, /tmp and /dev/shm), but building it is off the command's path. Up to _AHEAD are
        kept, each on a launcher of its own, so that commands back to back (several in one answer)
        find theirs built. A command may start while one is being built; _folders_above says why
        that is safe."""
        if self.prepare_ahead and self._resources.start_filling():
            self._resources.preparing = threading.Thread(target=self._prepare_in_background, daemon=True)
            self._resources.preparing.start()

    def _prepare_in_background(self) -> None:
        try:
            while self._resources.wanted():
                self._check(make_missing=False)
                self._resources.keep_prepared(self._prepare(in_background=True))
        except (OSError, SandboxUnavailable):
            self._resources.stop_filling()  # the next run() builds its sandbox itself and reports what is wrong

    def wait_prepared(self, timeout: float = 10) -> bool:
        """Wait until the sandboxes prepared for the next commands are built and waiting (bwrap
        creates missing mount points in the copy while it builds); False if none is, or not in time."""
        self._resources.wait_for_preparing()
        with self._resources.lock:
            waiting = [p.ready for p in self._resources.prepared if p.ready >= 0]
        deadline = time.monotonic() + timeout
        for ready in waiting:
            if not select.select([ready], [], [], max(0.0, deadline - time.monotonic()))[0]:
                return False
        return bool(waiting)

    def _mount_targets(self) -> tuple[tuple[int, int, int] | None, ...]:
        """What the copy's read-only targets and every folder above them are (device, inode, type):
        a prepared sandbox bound them when it was built, and is used only if none has changed."""
        # The copy itself first: a root launcher binds it once, when it starts.
        seen: list[tuple[int, int, int] | None] = [_identity(self.root.stat())]
        for path in self.read_only:
            current = self.root
            for part in PurePosixPath(path).parts:
                current = current / part
                try:
                    seen.append(_identity(current.lstat()))
                except OSError:
                    seen.append(None)
                    break
        return tuple(seen)

    def _mount_points(self) -> list[str]:
        """Where a sandbox has the copy, the folders above the read-only paths and those paths bound."""
        inside = [*self._folders_above, *self.read_only]
        return [SANDBOX_ROOT, *(f"{SANDBOX_ROOT}/{relative}" for relative in inside)]

    def close(self) -> None:
        """Remove the run's cgroups and read-only snapshot now. A command still running is killed,
        and its ``run()`` raises SandboxUnavailable; so does every later one."""
        self._finalizer()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def close_sandboxes_in(folder: str | Path) -> None:
    """Close every Sandbox whose copy is ``folder`` or inside it, before the folder is removed: one
    that builds sandboxes ahead has bwrap make mount points in the copy, even while it is removed."""
    folder = Path(os.path.realpath(folder))
    with _open_lock:
        sandboxes = [s for s in _open if s.root == folder or folder in s.root.parents]
    with ExitStack() as closing:  # each is closed even if closing another fails
        for sandbox in sandboxes:
            closing.callback(sandbox.close)


def _identity(info: os.stat_result) -> tuple[int, int, int]:
    """Which file this is, and of what type: device, inode, S_IFMT."""
    return (info.st_dev, info.st_ino, stat.S_IFMT(info.st_mode))


def _folders_above(read_only: Sequence[str]) -> list[str]:
    """Every folder on the way to a read-only path (not in one), the shallowest first: each is bound
    onto itself, so no command can move the way to a read-only path (see Sandbox.argv)."""
    folders = {
        PurePosixPath(*PurePosixPath(path).parts[:depth]).as_posix()
        for path in read_only
        for depth in range(1, len(PurePosixPath(path).parts))
    }
    inside = [f for f in folders if any(f == r or f.startswith(r + "/") for r in read_only)]
    return sorted(set(folders) - set(inside), key=lambda f: (f.count("/"), f))


def _plain_path(root: Path, relative: str) -> bool:
    """True if every folder from ``root`` down to ``relative``'s parent is a real folder or missing."""
    current = root
    for part in PurePosixPath(relative).parts[:-1]:
        current = current / part
        if not os.path.lexists(current):
            return True
        if current.is_symlink() or not current.is_dir():
            return False
    return not (root / relative).is_symlink()


def _reachable(path: str, uid: int, gid: int) -> bool:
    """Whether ``uid``/``gid`` (no other groups) may search every folder down to ``path`` and read it."""
    current = "/"
    for part in [*PurePosixPath(path).parts[1:], ""]:
        info = os.stat(current)
        shift = 6 if info.st_uid == uid else 3 if info.st_gid == gid else 0
        if not (info.st_mode >> shift) & 0o5 == 0o5:
            return False
        current = os.path.join(current, part)
    return True


def _make_readable_only(snapshot: Path) -> None:
    """The snapshot is read by the sandbox uid (as group, where root made it) and written by nobody."""
    uid, gid = host_identity()

    def seal(entry: Entry) -> None:
        if entry.is_link:
            return
        mode = stat.S_IMODE(entry.info.st_mode) & ~_SPECIAL_BITS & ~0o222 & ~0o007
        readable = 0o550 if stat.S_ISDIR(entry.info.st_mode) else 0o440
        if acting_as_root():
            entry.chown(0, gid)
        entry.chmod(mode | readable)

    walk(snapshot, seal)


_STATUS_FD = 4
_COMMAND_FD, _READY_FD = 5, 6
# What bash runs in a freshly built sandbox: say it is ready on descriptor {ready}, wait for the
# command (NUL-terminated) on {fd}, close both, and run it with eval, in this very bash (a second
# one would cost an exec, a millisecond). The command is kept in BASH_EXECUTION_STRING, where
# `bash -c COMMAND` has it, so no variable of ours is left, and it runs as under `bash -c -- COMMAND`
# (a leading "-" is a command, $0 is /bin/bash, $# is 0, line numbers count from 1): only a syntax
# error says "eval:" where bash -c says "-c:". The ulimits come before, from argv().
_WAITER = (
    "printf . >&{ready}; exec {ready}>&-; "
    'IFS= read -r -d "" BASH_EXECUTION_STRING <&{fd} || exit 125; exec {fd}<&-; eval -- "$BASH_EXECUTION_STRING"'
)
# The launcher: a small bash that starts one bwrap at a time, up to _AHEAD + 1 per Sandbox, each
# started once, in the run's cgroups (so each command's processes are born there: moving a process
# into a cgroup costs the kernel milliseconds). It is also bwrap's parent, for every caller:
# --die-with-parent follows the parent *thread*, and the next command's sandbox is started from a
# background thread that ends at once. It runs as the sandbox uid. Per command it reads the name of
# a job: bwrap's options and the script bash runs are files, stdout, stderr, bwrap's status, the
# command and the ready signal named pipes, all in a folder only we write and only the sandbox uid
# (and root) can enter, which no sandbox has bound (see _Job). It opens them all before it answers.
_LAUNCHER = """
unset PWD OLDPWD
# The guard: when the Python process dies, its end of $alive closes and the guard kills the launcher's
# whole process group; bwrap (--die-with-parent) then takes every sandboxed process with it.
( read -r _; kill -KILL 0 ) <&"$1" >/dev/null 2>&1 &
eval "exec $1<&-"
bwrap=$2; jobs=$3
echo ready
while read -r job; do
  j=$jobs/$job
  # Every file is opened here, before the answer: once it says "started", Python may close its ends.
  if IFS= read -r -d '' command < "$j.script" &&
    exec 3<"$j.options" 4>"$j.status" 5<"$j.wanted" 6>"$j.ready" 7>"$j.out" 8>"$j.err"; then
    "$bwrap" --args 3 -- /bin/bash -c "$command" </dev/null >&7 2>&8 7>&- 8>&- &
    exec 3<&- 4>&- 5<&- 6>&- 7>&- 8>&-
    echo "started $!"
    wait $!
    echo "exit $?"
  else
    exec 3<&- 4>&- 5<&- 6>&- 7>&- 8>&-
    echo failed
  fi
done
"""
# For root the launcher starts in a private mount namespace: a tmpfs over $cover holds bind mounts
# of what bwrap binds (the sandbox uid cannot enter /root, say), then it becomes the sandbox uid,
# once: no bwrap is ever started as root, and none through setpriv (an exec per command).
_STAGE = """
cover=$1; uid=$2; gid=$3; launcher=$4; shift 4
mount -t tmpfs -o mode=0755,size=64k reactlab-staging "$cover" || exit 1
while [ "$1" != -- ]; do mkdir "$cover/$1" && mount --bind "$2" "$cover/$1" || exit 1; shift 2; done
shift
exec /usr/bin/setpriv --reuid="$uid" --regid="$gid" --clear-groups -- /bin/bash -c "$launcher" launcher "$@"
"""
_COVER_CANDIDATES = ("/mnt", "/media", "/srv", "/opt")


class _Launcher:
    """Starts each command's bwrap for one Sandbox; see _LAUNCHER. Nothing it mounts is seen
    outside its namespace, and it ends with the Sandbox (or with this process: its input closes)."""

    def __init__(self, bwrap: str, sources: Mapping[str, str], cgroups: list[Path]) -> None:
        stage: list[str] = []
        self.cover = _cover_for(sources.values())
        jobs = f"{self.cover}/jobs" if self.cover is not None else sources["jobs"]
        if self.cover is not None:
            uid, gid = host_identity()
            pairs = [item for pair in sources.items() for item in pair]
            stage = ["/usr/bin/unshare", "--mount", "--propagation", "private", "--", "/bin/bash", "-c", _STAGE]
            stage += ["stage", self.cover, str(uid), str(gid), _LAUNCHER, *pairs, "--"]
        self.busy = False  # a job started and not yet finished
        self.closing = threading.Lock()
        alive, self.alive = os.pipe()  # nothing is ever written: only its closing matters
        try:
            self.process = subprocess.Popen(
                [*(stage or ["/bin/bash", "-c", _LAUNCHER, "launcher"]), str(alive), bwrap, jobs],
                env=_HOST_ENV,
                cwd="/",
                close_fds=True,
                pass_fds=(alive,),
                start_new_session=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        finally:
            os.close(alive)
        self.buffer = b""
        if self._line(time.monotonic() + 30) != "ready":
            self.close()
            raise SandboxUnavailable("Could not start the sandbox launcher (as root: prepare its mounts).")
        for path in cgroups:
            (path / "cgroup.procs").write_text(str(self.process.pid))

    def exited(self) -> bool:
        """Whether it has ended, without reaping it: ``close()`` still kills its group by its pid."""
        if self.process.returncode is not None:
            return True
        try:
            return os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def start(self, job: str) -> int:
        """Start bwrap on the files of ``job`` (see _Job); return its pid."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(f"{job}\n".encode())
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError):  # ValueError: its input is closed, it was closed already
            raise SandboxUnavailable("The sandbox launcher stopped.") from None
        line = self._line(time.monotonic() + 30)
        if not line.startswith("started "):
            raise SandboxUnavailable("The sandbox launcher stopped answering.")
        return int(line.split()[1])

    def wait_for(self, status: int, deadline: float) -> bytes:
        """The first status bwrap writes, or nothing if the job ended (or the time ran out) first."""
        assert self.process.stdout is not None
        watched = [status, self.process.stdout.fileno()]
        ready, _, _ = select.select(watched, [], [], max(0.0, deadline - time.monotonic()))
        return os.read(status, 65536) if status in ready else b""

    def finished(self, deadline: float) -> int | None:
        line = self._line(deadline)
        if not line.startswith("exit "):
            return None
        self.busy = False
        return int(line.split()[1])

    def _line(self, deadline: float) -> str:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return ""
            chunk = os.read(fd, 4096)
            if not chunk:
                return ""
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def close(self) -> None:
        """Kill the launcher and everything it started (its process group), and wait until they
        are gone: then none of them holds an end of a pipe of ours."""
        # Sandbox.close() in one thread may meet a run's own close() in another: the second waits
        # for the first. Its output stays open (closed when collected): a run may be reading it,
        # and so reads its end, not whatever a reused descriptor number now is.
        with self.closing:
            if self.alive < 0:
                return  # closed already
            # Its pid is the group's id, and no one else's while it is not reaped (pid_max may be
            # 32768: a number freed is soon another process's). Reaped by someone else, the guard,
            # a member of the group, ends it when its pipe closes below.
            if self.process.returncode is None:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            os.close(self.alive)  # and the guard kills what is left of the group, itself last
            self.alive = -1
            assert self.process.stdin is not None
            try:
                self.process.stdin.close()
            except BrokenPipeError:
                pass
            self.process.wait()
            deadline = time.monotonic() + 5
            while _group_alive(self.process.pid) and time.monotonic() < deadline:
                time.sleep(0.001)


def _group_alive(group: int) -> bool:
    """Whether a process of the process group still runs (zombies do not count: they run nothing)."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] not in "ZX":
            return True
    return False


def _cover_for(sources: Iterable[str]) -> str | None:
    """Where a root launcher shows bwrap what it binds (None: bwrap reads the sources themselves)."""
    if not acting_as_root():
        return None
    uid, gid = host_identity()
    return _pick_cover(sources, uid, gid)


def _pick_cover(sources: Iterable[str], uid: int, gid: int) -> str:
    """An open folder to hide under the staging tmpfs: none of the sources may lie inside it."""
    for cover in _COVER_CANDIDATES:
        if os.path.isdir(cover) and _reachable(cover, uid, gid):
            if not any(s == cover or s.startswith(cover + "/") for s in sources):
                return cover
    raise SandboxUnavailable(f"No folder among {', '.join(_COVER_CANDIDATES)} can hold the sandbox's mounts.")


def _kill(*pids: int) -> None:
    # bwrap's init dies with it (PDEATHSIG), and with the init the whole PID namespace.
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


_CHILD_PID = re.compile(rb'"child-pid": *([0-9]+)')  # bwrap may not have written the rest of the line yet
_OCTAL_ESCAPE = re.compile(rb"\\([0-7]{3})")  # how /proc/*/mountinfo writes a space, tab, newline or backslash


def _status(text: bytes) -> dict[str, int]:
    """bwrap's --json-status-fd: {"child-pid": N} once the namespaces exist, {"exit-code": N} only if
    the command was really started (so a command printing 'bwrap: ...' is not a setup failure)."""
    report: dict[str, int] = {}
    for line in text.decode(errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            report.update({k: v for k, v in value.items() if isinstance(v, int)})
    return report


def _wait_gone(pid: int | None, timeout: float = 5.0) -> None:
    """Wait for the sandbox's init to be gone: with it, every process of the command is."""
    if pid is None:
        return
    try:
        handle = os.pidfd_open(pid)
    except OSError:
        return  # already gone
    try:
        select.select([handle], [], [], timeout)
    finally:
        os.close(handle)


@functools.cache
def _cgroup_bases() -> dict[str, tuple[Path, bool]]:
    """Where per-run cgroups can be made, under the caller's own cgroup (never above it): cgroup v1
    controllers, or a delegated v2 subtree. Maps each controller to (folder, is cgroup v1)."""
    found: dict[str, tuple[Path, bool]] = {}
    root = Path("/sys/fs/cgroup")
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
            base = root / controller / own[controller]
            if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
                found[controller] = (base, True)
    if "" in own:
        unified = root / own[""]
        try:
            delegated = (unified / "cgroup.subtree_control").read_text().split()
        except OSError:
            delegated = []
        for controller in ("pids", "memory"):
            if controller not in found and controller in delegated and os.access(unified, os.W_OK):
                found[controller] = (unified, False)
    return found


_LIMIT_FILES = {
    ("pids", True): ("pids.max", PIDS_MAX),
    ("memory", True): ("memory.limit_in_bytes", MEMORY_MAX),
    ("pids", False): ("pids.max", PIDS_MAX),
    ("memory", False): ("memory.max", MEMORY_MAX),
}
_counter = iter(range(1, 1 << 62))


def _make_jobs_folder() -> Path:
    """A folder for the files of each bwrap started (see _Job), in /dev/shm where there is one (a
    tmpfs: nothing on the command's path waits on a disk journal). For root it stays root's, mode
    0710 with the sandbox gid: the launcher opens the files in it by name, but no process of the
    sandbox uid can add, replace or rename anything there, so what root creates, chowns and opens
    by path in it is what root made (in sticky /dev/shm the owner of a folder may rename it away
    and put a symlink to any folder in its place)."""
    shm = "/dev/shm"
    folder = _private_folder("reactlab-jobs-", shm if os.access(shm, os.W_OK | os.X_OK) else None)
    if acting_as_root():
        os.chown(folder, 0, host_identity()[1])
        folder.chmod(0o710)
    return folder


def _private_folder(prefix: str, parent: str | None = None) -> Path:
    """A new folder (mode 0700) named after this process, its PID namespace and pid: the ones that
    processes of this namespace left when they died without cleaning up (SIGKILL) go first."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    for stale in Path(parent or tempfile.gettempdir()).glob(f"{prefix}{namespace}-*-*"):
        pid = stale.name[len(f"{prefix}{namespace}-") :].split("-")[0]
        try:
            info = stale.lstat()
        except OSError:
            continue
        # Only a real folder that is ours: a file, link or folder of that name (anyone may make one) stays.
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and pid.isdigit():
            if not os.path.exists(f"/proc/{pid}"):
                try:
                    remove_tree(stale)
                except OSError:  # a mount point in it, say: it stays, and must not stop this Sandbox
                    pass
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{namespace}-{os.getpid()}-", dir=parent))


class _Job:
    """The files one bwrap is started on, in the run's jobs folder (which only we write; outside
    every sandbox). Named pipes, because the launcher runs as the sandbox uid and cannot
    open our descriptors through /proc when we are root. Of each pipe we hold both ends until bwrap
    holds its own (``_Prepared.ours``), as with anonymous ones."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name
        self.made: list[Path] = []
        self.opened: list[int] = []  # both ends of each pipe: the caller keeps them once all are made

    def _make(self, kind: str) -> Path:
        path = self.folder / f"{self.name}.{kind}"
        self.made.append(path)
        return path

    def write(self, kind: str, data: bytes) -> None:
        path = self._make(kind)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), "wb") as file:
            file.write(data)
        if acting_as_root():
            os.chown(path, *host_identity())

    def pipe(self, kind: str, *, ours_writes: bool = False) -> tuple[int, int]:
        """Our end of a new named pipe, and its other end (to close once bwrap holds its own)."""
        path = self._make(kind)
        os.mkfifo(path, 0o600)
        if acting_as_root():
            os.chown(path, *host_identity())
        reading = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # needs no writer
        try:
            writing = os.open(path, os.O_WRONLY | os.O_CLOEXEC)  # does not wait: there is a reader
        except BaseException:
            os.close(reading)
            raise
        self.opened += [reading, writing]
        os.set_blocking(reading, True)
        return (writing, reading) if ours_writes else (reading, writing)

    def remove(self) -> None:
        """Remove its files, and close the descriptors of a job that was never made whole."""
        for fd in self.opened:
            os.close(fd)
        self.opened = []
        for path in self.made:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
        self.made = []


@dataclass
class _Prepared:
    """A sandbox built (or being built) for the next command, its bash waiting on ``command``."""

    pid: int
    launcher: _Launcher
    output: _Output
    status: int  # bwrap's reports
    command: int  # where the command goes
    ready: int  # one byte once the sandbox is built and waits
    ours: list[int]  # our copies of what bwrap takes: kept open until it holds its own
    targets: tuple[tuple[int, int, int] | None, ...]
    job: _Job

    report: bytes = b""

    def built(self, deadline: float) -> bytes:
        """bwrap's first report ("child-pid", written once it runs: by then the launcher has opened
        every descriptor of ours for it), or nothing if it failed or the time ran out first."""
        if not self.report:
            self.report = self.launcher.wait_for(self.status, deadline)
        return self.report

    def close_ours(self) -> None:
        for fd in self.ours:
            os.close(fd)
        self.ours = []

    def send(self, command: str, deadline: float) -> None:
        """Write the command to the waiting bash, then close the pipe. If the sandbox failed to
        start, or the time runs out first, the rest of run() reports that."""
        data = memoryview(command.encode() + b"\0")
        os.set_blocking(self.command, False)
        try:
            while data:
                if not select.select([], [self.command], [], max(0.0, deadline - time.monotonic()))[1]:
                    return
                try:
                    data = data[os.write(self.command, data) :]
                except BlockingIOError:
                    continue
                except BrokenPipeError:
                    return
        finally:
            os.close(self.command)
            self.command = -1

    def init_pid(self) -> int | None:
        """The sandbox's init, once bwrap has reported it (the rest of that line may still be coming)."""
        found = _CHILD_PID.search(self.report)
        return int(found[1]) if found else None

    def pids(self) -> tuple[int, ...]:
        """What to kill to end it: the sandbox's init (with it every process of the namespace), then
        bwrap. Never bwrap alone while it builds: the init ties itself to bwrap only at the end of
        the build, and would live on without it, running the command unsupervised."""
        init = self.init_pid()
        return (init, self.pid) if init is not None else (self.pid,)

    def intact(self, mount_points: Sequence[str], deadline: float) -> bool:
        """Whether it was built, and every mount it has at ``mount_points`` is still there, of a file
        not removed. Removing a file or folder on the host silently takes the mounts on it out of
        every namespace (a read-only bind among them), and the one made again in its place may get
        the same inode number (``_mount_targets`` then sees no change)."""
        if not self.built(deadline):
            return False
        self.close_ours()  # bwrap holds its own copies now: if the sandbox fails, the ready pipe closes
        ready = select.select([self.ready], [], [], max(0.0, deadline - time.monotonic()))[0]
        init = self.init_pid()
        if not ready or init is None:
            return False
        try:
            lines = Path(f"/proc/{init}/mountinfo").read_bytes().splitlines()
        except OSError:
            return False  # it is gone: it failed after all
        mounted = set()
        for line in lines:
            fields = line.split(b" ")
            if not fields[3].endswith(b"//deleted"):
                mounted.add(os.fsdecode(_OCTAL_ESCAPE.sub(lambda m: bytes([int(m[1], 8)]), fields[4])))
        return all(point in mounted for point in mount_points)

    def send_nothing(self) -> None:
        if self.command >= 0:
            os.close(self.command)
            self.command = -1

    def wait_exit(self, deadline: float) -> int | None:
        """bwrap's exit code, or None if it was still running at ``deadline`` (then it is killed).
        Either way the launcher is done with this job when it returns."""
        code = self.launcher.finished(deadline)
        if code is None:
            self.built(time.monotonic() + 5)  # its init's pid, if bwrap has made it (it does so at once)
            _kill(*self.pids())
            if self.launcher.finished(time.monotonic() + 10) is None:
                self.launcher.close()
        return code

    def rest_of_status(self) -> bytes:
        """What bwrap wrote on the status pipe after its first report (it has exited by now)."""
        chunks = []
        while chunk := os.read(self.status, 65536):
            chunks.append(chunk)
        return b"".join(chunks)

    def close_all(self) -> None:
        """Only once the launcher is done with this job (see wait_exit)."""
        self.close_ours()
        for fd in (self.command, self.status, self.ready):
            if fd >= 0:
                os.close(fd)
        self.command = self.status = self.ready = -1
        self.output.close()
        self.job.remove()

    def discard(self) -> None:
        """End it before it ran anything, and close everything it held: at the end of its command
        pipe its bash exits by itself (a kill while bwrap is still building the namespaces could
        leave its child orphaned, holding the output pipes)."""
        self.send_nothing()
        self.wait_exit(time.monotonic() + 5)
        self.close_all()


def _start_uninterrupted(thread: threading.Thread) -> Callable[[], None]:
    """Start ``thread`` from the main thread with Ctrl-C held back until it runs: a KeyboardInterrupt
    inside ``Thread.start()`` breaks the lock the new thread reports its start on (it then dies
    with "release unlocked lock", its work undone). Returns what replays a Ctrl-C held back."""
    held: list[tuple[int, Any]] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: held.append((number, frame)))
    try:
        thread.start()
    finally:
        signal.signal(signal.SIGINT, previous)

    def replay() -> None:
        if held and callable(previous):
            previous(*held[0])  # Python's own handler raises KeyboardInterrupt
        elif held and previous == signal.SIG_DFL:
            raise KeyboardInterrupt

    return replay


class _Stop:
    """An interrupt in the caller's thread, told to the thread that runs the command: before the
    command is sent, it is not sent; after, its sandbox is killed (as at its timeout). No lock: the
    caller may be interrupted again anywhere, and one of the two sides always sees the other."""

    def __init__(self) -> None:
        self.requested = False
        self.pids: tuple[int, ...] = ()

    def request(self) -> None:
        self.requested = True
        _kill(*self.pids)

    def watch(self, pids: tuple[int, ...]) -> None:
        """What ends the sandbox the command was sent to (see _Prepared.pids); () once it has exited."""
        self.pids = pids
        if self.requested:
            _kill(*pids)


class _RunResources:
    """What one Sandbox holds for its whole run: the snapshot, the cgroups and the launchers (made
    on first use), and the sandboxes prepared for the next commands. ``release`` removes them all;
    it runs from ``close()``, garbage collection or interpreter exit."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.jobs: Path | None = None
        self.paths: list[Path] | None = None
        self.launchers: list[_Launcher] = []
        self.prepared: list[_Prepared] = []  # the oldest first
        self.preparing: threading.Thread | None = None
        self.filling = False  # the background preparation runs and will check ``wanted`` again
        self.copy: tuple[int, int, int] | None = None  # the identity of the copy the launchers bind
        self.closed = False
        self.lock = threading.Lock()

    def start_filling(self) -> bool:
        """True if the caller is to start the background preparation (none runs, and one is wanted)."""
        with self.lock:
            if self.filling or self.closed or len(self.prepared) >= _AHEAD:
                return False
            self.filling = True
            return True

    def wanted(self) -> bool:
        """Whether the background preparation is to build another; if not, it stops."""
        with self.lock:
            self.filling = not self.closed and len(self.prepared) < _AHEAD
            return self.filling

    def stop_filling(self) -> None:
        with self.lock:
            self.filling = False

    def keep_prepared(self, prepared: _Prepared) -> None:
        with self.lock:
            if not self.closed:
                self.prepared.append(prepared)
                return
        prepared.discard()

    def wait_for_preparing(self, timeout: float | None = None) -> None:
        """Let the background preparation finish (it only starts bwraps, it does not wait for them)."""
        # One not started yet (prepare_next is between making and starting it) need not be waited
        # for: it starts by asking wanted(), and builds nothing once the Sandbox is closed.
        preparing = self.preparing
        if preparing is not None and preparing is not threading.current_thread() and preparing.is_alive():
            preparing.join(timeout)

    def take_prepared(self, targets: tuple[tuple[int, int, int] | None, ...]) -> _Prepared | None:
        """The oldest prepared sandbox, if it was built on the copy as it is now by a live launcher
        (the others are discarded if they were not)."""
        with self.lock:
            fresh = [
                p
                for p in self.prepared
                if p.launcher in self.launchers
                and not p.launcher.exited()  # a launcher killed since takes its jobs along
                and p.targets == targets
            ]
            stale = [p for p in self.prepared if p not in fresh]
            self.prepared = fresh[1:]
        for prepared in stale:
            prepared.discard()
        return fresh[0] if fresh else None

    def discard_prepared(self) -> None:
        with self.lock:
            prepared, self.prepared = self.prepared, []
        for each in prepared:
            each.discard()

    def free_launcher(
        self, bwrap: str, sources: Mapping[str, str], copy: tuple[int, int, int], *, may_start: bool
    ) -> _Launcher | None:
        """A launcher of this run that runs no job, started on the copy ``copy`` identifies (a root
        launcher binds the copy once: if the folder was replaced since, all are replaced). None if
        none is free and ``may_start`` is False (see Sandbox._prepare)."""
        with self.lock:
            if self.closed:
                raise SandboxUnavailable("The sandbox was closed.")
            if self.paths is None:
                self.paths = _make_cgroups()
            if self.copy != copy:
                stale, self.launchers = self.launchers, []
            else:
                stale = [launcher for launcher in self.launchers if launcher.exited()]
                self.launchers = [launcher for launcher in self.launchers if launcher not in stale]
            self.copy = copy
            for launcher in stale:
                launcher.close()  # it died (killed from outside), or binds a copy that is gone
            for launcher in self.launchers:
                if not launcher.busy:
                    launcher.busy = True
                    return launcher
            if len(self.launchers) > _AHEAD:
                raise SandboxUnavailable("Every sandbox launcher of this run is busy.")
            if not may_start:
                return None
            launcher = _Launcher(bwrap, sources, self.paths)
            launcher.busy = True
            self.launchers.append(launcher)
            return launcher

    def drop_launcher(self, launcher: _Launcher) -> None:
        """After an interruption a launcher's answers are out of step: kill it (and its command)."""
        with self.lock:
            if launcher in self.launchers:
                self.launchers.remove(launcher)
        launcher.close()

    def release(self) -> None:
        self.closed = True
        try:
            self.wait_for_preparing(15)
            self.discard_prepared()
            with self.lock:
                launchers, self.launchers = self.launchers, []
            for launcher in launchers:
                launcher.close()
        finally:  # the cgroups and the snapshot go even if ending the launchers failed
            with self.lock:
                for path in self.paths or []:
                    _remove_cgroup(path)
                self.paths = []
                for folder in (self.folder, self.jobs):
                    if folder is not None:
                        remove_tree(folder)
                self.folder = self.jobs = None


def _make_cgroups() -> list[Path]:
    paths = []
    name = f"reactlab-{os.getpid()}-{next(_counter)}"
    for controller, (base, v1) in _cgroup_bases().items():
        _sweep_stale(base)
        limit_file, value = _LIMIT_FILES[(controller, v1)]
        path = base / name
        try:
            path.mkdir()
        except OSError:
            continue
        try:
            (path / limit_file).write_text(str(value))
        except OSError:
            _remove_cgroup(path)
            continue
        paths.append(path)
    return paths


def _remove_cgroup(path: Path) -> None:
    for _ in range(4000):  # the last processes of a command take a moment to leave
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            try:
                for pid in (path / "cgroup.procs").read_text().split():
                    os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass
            time.sleep(0.0005)


def _sweep_stale(base: Path) -> None:
    """Remove the cgroups of reactlab processes that died without cleaning up (SIGKILL, a crash)."""
    for path in base.glob("reactlab-*-*"):
        pid = path.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _remove_cgroup(path)


class _Output:
    """A command's stdout and stderr, read by the thread that runs it, while it waits (no thread per
    stream): the first ``limit`` bytes of each are kept, the rest drained, so the writer never blocks."""

    def __init__(self, stdout: int, stderr: int, limit: int) -> None:
        self.kept = {stdout: bytearray(), stderr: bytearray()}  # in that order
        self.open = [stdout, stderr]
        self.limit = limit
        self.truncated = False
        # The command may open its own pipes for reading (/proc/self/fd/1) and take back what poll
        # saw before we read it: a blocking read would then wait as long as it likes, past its timeout.
        for fd in self.open:
            os.set_blocking(fd, False)

    def read(self, deadline: float) -> None:
        """Read until both pipes end or ``deadline`` passes (checked on every turn: a command that
        keeps its pipes full would otherwise never let poll time out)."""
        poller = select.poll()  # no limit on descriptor numbers, unlike select()
        for fd in self.open:
            poller.register(fd, select.POLLIN)
        while self.open and time.monotonic() < deadline:
            events = poller.poll(max(0.0, deadline - time.monotonic()) * 1000)
            if not events:
                return
            for fd, _ in events:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue  # taken back by the command
                if not chunk:
                    poller.unregister(fd)
                    self.open.remove(fd)
                    os.close(fd)
                    continue
                room = self.limit - len(self.kept[fd])
                if len(chunk) > room:
                    self.truncated = True
                if room > 0:
                    self.kept[fd] += chunk[:room]

    def texts(self) -> tuple[str, str]:
        """What was kept of stdout and of stderr."""
        stdout, stderr = (kept.decode("utf-8", errors="replace") for kept in self.kept.values())
        return stdout, stderr

    def close(self) -> None:
        for fd in self.open:
            os.close(fd)
        self.open = []


def _probe(bwrap: str) -> str | None:
    """Build the full sandbox once around `true`; return bwrap's complaint, or None if it works."""
    folder = Path(tempfile.mkdtemp(prefix="reactlab-probe-"))
    try:
        hand_over(folder)
        with Sandbox(folder, bwrap=bwrap, prepare_ahead=False) as sandbox:
            result = sandbox._run("true", 30, _Stop())
    except (OSError, SandboxUnavailable) as exc:
        return str(exc)
    finally:
        remove_tree(folder)
    if result.exit_code != 0:
        return result.stderr.strip()[:300] or f"exit code {result.exit_code}"
    return None
