"""Folders a run makes on the host, and what is left of them when a process dies without cleaning up.

Each is named after the PID namespace and the pid of the process that made it
(``PREFIX<namespace>-<pid>-<random>``), so that a new one can tell which of the older ones belong to
processes of this namespace that no longer exist (a notebook kernel killed mid-run, a crash) and
remove them. Only real folders the caller owns go: a file, link or another user's folder of that
name (anyone may make one in /tmp) stays and is never followed, and a folder holding ``KEEP_MARK``
(a working copy the user asked to keep) stays too.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ..browser import IN_BROWSER
from .walk import remove_tree

__all__ = ["KEEP_MARK", "namespace", "private_folder", "sweep_dead"]

KEEP_MARK = "KEPT"


def private_folder(prefix: str) -> Path:
    """A new folder (mode 0700) in the temp folder, named after this process; the ones that dead
    processes of this namespace left with the same prefix are removed first."""
    sweep_dead(prefix)
    return Path(os.path.realpath(tempfile.mkdtemp(prefix=f"{prefix}{namespace()}-{os.getpid()}-")))


def sweep_dead(prefix: str) -> None:
    """Remove the folders named ``prefix...`` that processes of this PID namespace left when they died.
    In a browser tab there is one process, and its temp folder goes with the tab: nothing to sweep."""
    if IN_BROWSER:
        return
    named = f"{prefix}{namespace()}-"
    for stale in Path(tempfile.gettempdir()).glob(f"{named}*-*"):
        pid = stale.name[len(named) :].split("-")[0]
        try:
            info = stale.lstat()
        except OSError:
            continue
        ours = stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
        if ours and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            if os.path.lexists(stale / KEEP_MARK):
                continue
            try:
                remove_tree(stale)
            except OSError:  # a mount point in it, say: it stays, and must not stop this run
                pass


def namespace() -> int:
    return 0 if IN_BROWSER else os.stat("/proc/self/ns/pid").st_ino
