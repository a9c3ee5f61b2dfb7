"""Who a sandboxed command is on the host: never root.

Inside, a command is uid 1000. To the kernel it is one host uid: the caller's own for a non-root
caller (bwrap maps it), and for root the unprivileged uid ``REACTLAB_SANDBOX_UID`` (default 59999,
the same gid, no supplementary groups). Root starts bwrap from a thread that is that uid for the
moment (``as_sandbox_uid``), and lets it reach what bwrap binds (the working copy, the read-only
snapshot) through that gid alone.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..browser import IN_BROWSER
from ..errors import SandboxUnavailable
from ..language import say
from .seccomp import raw_syscall
from .walk import walk

__all__ = [
    "DEFAULT_SANDBOX_UID",
    "INSIDE_UID",
    "SANDBOX_UID_VARIABLE",
    "acting_as_root",
    "as_sandbox_uid",
    "hand_over",
    "host_identity",
    "reachable",
    "share_with_sandbox",
]

INSIDE_UID = 1000  # what `id` says inside
SANDBOX_UID_VARIABLE = "REACTLAB_SANDBOX_UID"
DEFAULT_SANDBOX_UID = 59999  # Debian's range for local accounts, unlikely to belong to anyone


def acting_as_root() -> bool:
    """Root that can hand files to the sandbox uid: euid 0 with that uid mapped in this user
    namespace. Root inside `unshare --map-root-user` is one host user, and runs commands as itself.
    Never in a browser tab, which has no users."""
    if IN_BROWSER or os.geteuid() != 0:
        return False
    text = os.environ.get(SANDBOX_UID_VARIABLE, str(DEFAULT_SANDBOX_UID))
    lines = _uid_map()
    if not text.isdigit() or lines is None:
        return True  # host_identity says what is wrong with the number
    for line in lines:
        inside, _, count = (int(field) for field in line.split())
        if inside <= int(text) < inside + count:
            return True
    return False


def host_identity() -> tuple[int, int]:
    """The host (uid, gid) that sandboxed commands run as: the caller's, or the sandbox uid for root."""
    if not acting_as_root():
        return os.getuid(), os.getgid()
    text = os.environ.get(SANDBOX_UID_VARIABLE, str(DEFAULT_SANDBOX_UID))
    if not text.isdigit() or not 0 < int(text) < 65534:
        raise SandboxUnavailable(
            say(
                "{variable}='{value}' is not an unprivileged uid (1-65533); commands never run as host root.",
                variable=SANDBOX_UID_VARIABLE,
                value=text[:20],
            )
        )
    uid = int(text)
    owner = _account_of(uid)
    if owner is not None:
        raise SandboxUnavailable(
            say(
                "The sandbox uid {uid} belongs to {owner} on this machine, who could read and change every working "
                "copy while a run uses it. Set {variable} to a uid no account or group uses.",
                uid=uid,
                owner=owner,
                variable=SANDBOX_UID_VARIABLE,
            )
        )
    return uid, uid


@contextmanager
def as_sandbox_uid() -> Iterator[None]:
    """For root: within the block, this thread is the sandbox uid, with its gid and no other group,
    and so is every process it starts; nothing changes for anyone else. Only this thread: Linux keeps
    credentials per thread, and these calls go to the kernel itself (libc's setresuid would change
    every thread of the process). The saved uid stays 0: the way back at the end of the block, which
    the kernel always allows (a process started meanwhile loses it at its exec). Never in the main
    thread, in case: use a thread of its own (command_thread.py).

    No garbage is collected meanwhile: a collection runs the finalizers of what it frees in the
    thread it comes in, and so as the sandbox uid (a Sandbox's or a LlamaServer's, which then failed
    and left its cgroups, snapshot or server behind). One thread at a time, so that collection is
    turned back on only at the end of the last.

    Cheaper than starting bwrap through setpriv (one exec less) or Popen(user=...) (which forks
    instead of vfork, copying a Jupyter kernel's page tables): see benchmarks/README.md."""
    if not acting_as_root():
        yield
        return
    if threading.current_thread() is threading.main_thread():
        raise RuntimeError("as_sandbox_uid() changes the calling thread: use a thread of its own")
    uid, gid = host_identity()
    uids, gids, groups = os.getresuid(), os.getresgid(), os.getgroups()
    with _one_at_a_time:
        collecting = gc.isenabled()
        gc.disable()
        try:
            raw_syscall("setgroups", 0, None)
            raw_syscall("setresgid", gid, gid, gid)
            raw_syscall("setresuid", uid, uid, uids[2])
            yield
        finally:  # back to root, then root's groups (which need root's capabilities again)
            raw_syscall("setresuid", *uids)
            raw_syscall("setresgid", *gids)
            raw_syscall("setgroups", len(groups), (ctypes.c_uint * len(groups))(*groups))
            if collecting:
                gc.enable()


_one_at_a_time = threading.Lock()


def hand_over(folder: Path) -> None:
    """Make ``folder`` private (0700) and, as root, the sandbox uid's, everything in it included."""
    if acting_as_root():
        uid, gid = host_identity()
        walk(folder, lambda entry: entry.chown(uid, gid), bounded=True)
    folder.chmod(0o700)


def share_with_sandbox(folder: Path) -> None:
    """Let the sandbox uid pass through ``folder`` and no one else: for root, root's with the sandbox
    gid, mode 0710; for anyone else (bwrap runs as them) 0700."""
    if acting_as_root():
        os.chown(folder, 0, host_identity()[1])
        folder.chmod(0o710)
    else:
        folder.chmod(0o700)


def reachable(path: str, uid: int, gid: int) -> bool:
    """Whether ``uid``/``gid`` (no other groups) may pass every folder down to ``path`` and read it."""
    parts = path.strip("/").split("/")
    folders = ["/", *("/" + "/".join(parts[:depth]) for depth in range(1, len(parts)))]
    for folder, needed in [*((f, 0o1) for f in folders), (path, 0o5)]:
        try:
            info = os.stat(folder)
        except OSError:
            return False
        shift = 6 if info.st_uid == uid else 3 if info.st_gid == gid else 0
        if (info.st_mode >> shift) & needed != needed:
            return False
    return True


@functools.cache
def _uid_map() -> list[str] | None:
    """This process's user namespace mapping (fixed for its life), or None if unreadable."""
    try:
        return Path("/proc/self/uid_map").read_text().splitlines()
    except OSError:
        return None


@functools.lru_cache(maxsize=16)  # every command asks; the accounts files are read once per uid
def _account_of(uid: int) -> str | None:
    """Who already has ``uid`` (as a user) or the same number (as a group), if anyone."""
    import grp  # here: a browser tab has no accounts, nor these modules
    import pwd

    try:
        return say("the user '{name}'", name=pwd.getpwuid(uid).pw_name)
    except KeyError:
        pass
    try:
        return say("the group '{name}'", name=grp.getgrgid(uid).gr_name)
    except KeyError:
        return None
