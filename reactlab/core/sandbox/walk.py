"""Walking a working copy as its owner or as root, safely: the copy is written by the sandbox.

Everything is reached through descriptors, never by a path string, so nothing a command planted
can redirect the walk: a symlink is never followed (each entry is opened with ``O_PATH |
O_NOFOLLOW`` and changed through that descriptor, which pins the inode), a FIFO or device is never
opened for reading, and a tree nested deeper than ``PATH_MAX`` (or Python's recursion limit) is
walked like any other. A folder a command closed (mode 000) is opened for the owner while it is read.

Where descriptors cannot be reopened through ``/proc/self/fd`` (a browser tab: Pyodide has no /proc,
and opens no link with ``O_NOFOLLOW | O_PATH``), each entry is reached by its name in its folder's
descriptor instead, checked with lstat and never followed. That is sound there because nothing else
runs: no command, no other process that could swap a name mid-walk. No sandbox runs there either:
Bubblewrap itself needs /proc.

A walk of what a command left (``bounded=True``) costs the host at most ``MAX_ENTRIES`` entries (also
in what it reads of folders: it never holds more names than that), and refuses a path longer than
``MAX_PATH_BYTES``: past either it raises ``BoundExceeded`` naming the bound. Removing a tree is
never bounded: what is there must go.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import BoundExceeded
from ..language import decimal, say

__all__ = [
    "Entry",
    "MAX_ENTRIES",
    "MAX_PATH_BYTES",
    "MAX_READ_BYTES",
    "REOPEN",
    "bounded_copier",
    "remove_tree",
    "walk",
]

MAX_ENTRIES = 20_000
"""Entries (files, folders, links) a bounded walk visits before it refuses."""
MAX_PATH_BYTES = 3_000
"""The longest path below the walked folder a bounded walk accepts: with the folder's own path in
front, every path the host side uses stays under the kernel's PATH_MAX (4,096 bytes)."""

MAX_READ_BYTES = 256 * 1024 * 1024
"""The most the host reads of one tree to compare it with another (a hard-linked file counted once,
a sparse file at its full size): what the independent check reads, and so what it may copy."""

_PATH = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
REOPEN = os.path.isdir("/proc/self/fd")
"""Whether a descriptor can be reopened through /proc/self/fd: the walk then holds each inode it checks."""
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Entry:
    """One file, folder, link or special file met by ``walk``; valid only during ``visit``."""

    parent: int  # descriptor of the folder holding it
    name: str
    handle: int  # O_PATH descriptor of this very inode (-1 where descriptors cannot be reopened)
    info: os.stat_result  # its fstat
    relative: str  # its path below the walked folder ("" for the folder itself)

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.info.st_mode)

    def chmod(self, mode: int) -> None:
        """chmod this inode (never a link's target: a link is left alone)."""
        if self.is_link:
            return
        if REOPEN:
            os.chmod(f"/proc/self/fd/{self.handle}", mode)
        else:
            os.chmod(self.name, mode, dir_fd=self.parent)

    def chown(self, uid: int, gid: int) -> None:
        """lchown: a link itself, never its target."""
        os.chown(self.name, uid, gid, dir_fd=self.parent, follow_symlinks=False)

    def open_file(self) -> int:
        """A read descriptor of this regular file (the same inode), or -1 for anything else."""
        if not stat.S_ISREG(self.info.st_mode):
            return -1
        if not REOPEN:
            return os.open(self.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.parent)
        return os.open(f"/proc/self/fd/{self.handle}", os.O_RDONLY | os.O_CLOEXEC)


@dataclass
class _Folder:
    name: str
    relative: str
    identity: tuple[int, int]  # (st_dev, st_ino): going back up through ".." must land here
    names: Iterator[str]
    restore: int | None  # the mode to put back after reading it, if it had to be opened


Visit = Callable[[Entry], "bool | None"]


def walk(
    folder: Path,
    visit: Visit | None = None,
    *,
    give_access: bool = False,
    remove: bool = False,
    bounded: bool = False,
) -> None:
    """Call ``visit`` on ``folder`` and everything under it, a folder before what it holds (a
    folder for which it returns False is not entered).

    ``give_access`` leaves every folder open to its owner (rwx), as removal needs; ``remove``
    deletes everything after visiting it, ``folder`` included. ``bounded`` refuses (BoundExceeded)
    past ``MAX_ENTRIES`` entries or a path over ``MAX_PATH_BYTES``. Two descriptors are open at any
    depth: the walk goes back up through ".." and checks it arrives where it came from.
    """
    give_access = give_access or remove
    listed: list[int] | None = None  # names read from folders so far, for a bounded walk
    if bounded:
        visit = _bounded(visit)
        listed = [0]
    top = os.open(folder.parent, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    here = top  # the folder whose names are being visited
    stack: list[_Folder] = []
    try:
        here = _enter(top, folder.name, "", visit, give_access, remove, stack, listed) or top
        while stack:
            current = stack[-1]
            name = next(current.names, None)
            if name is not None:
                relative = f"{current.relative}/{name}".lstrip("/")
                below = _enter(here, name, relative, visit, give_access, remove, stack, listed)
                if below is not None:
                    leaving, here = here, below  # first: an interrupt between the two never closes twice
                    os.close(leaving)
                continue
            stack.pop()
            leaving, here = here, top  # _leave closes it, also when it fails
            here = _leave(current, leaving, stack[-1].identity if stack else None, top, remove)
    finally:
        if here != top:
            os.close(here)
        os.close(top)


def _bounded(visit: Visit | None) -> Visit:
    """``visit``, counting what it is shown and refusing past the bounds."""
    seen = 0

    def counting(entry: Entry) -> bool | None:
        nonlocal seen
        seen += 1
        if seen > MAX_ENTRIES:
            raise _too_many()
        if len(os.fsencode(entry.relative)) > MAX_PATH_BYTES:
            shown = repr(entry.relative[:60])
            raise BoundExceeded(
                say(
                    "The working copy holds a path longer than {limit} bytes ({start}…), the longest the host side "
                    "accepts; the run stops here.",
                    limit=decimal(MAX_PATH_BYTES, ","),
                    start=shown,
                )
            )
        return None if visit is None else visit(entry)

    return counting


def _too_many() -> BoundExceeded:
    return BoundExceeded(
        say(
            "The working copy holds more than {limit} files and folders, the most the host side walks during and "
            "after a command or for the independent check; the run stops here.",
            limit=decimal(MAX_ENTRIES, ","),
        )
    )


def _names(listing: int, listed: list[int] | None) -> list[str]:
    """The names in the folder open as ``listing``, sorted. For a bounded walk (``listed`` counts the
    names read so far) they are read one by one, and past ``MAX_ENTRIES`` in all the walk is refused
    before more are read: a folder of a million names would otherwise be held whole, and sorted."""
    if listed is None:
        return sorted(os.listdir(listing))
    names = []
    with os.scandir(listing) as entries:
        for entry in entries:
            listed[0] += 1
            if listed[0] > MAX_ENTRIES:
                raise _too_many()
            names.append(entry.name)
    return sorted(names)


def _enter(
    parent: int,
    name: str,
    relative: str,
    visit: Visit | None,
    give_access: bool,
    remove: bool,
    stack: list[_Folder],
    listed: list[int] | None = None,
) -> int | None:
    """Visit ``name``; for a folder, push it and return a descriptor to read it (else None)."""
    try:
        handle = os.open(name, _PATH, dir_fd=parent) if REOPEN else -1
        info = os.fstat(handle) if REOPEN else os.lstat(name, dir_fd=parent)
    except FileNotFoundError:
        return None
    try:
        entry = Entry(parent, name, handle, info, relative)
        if not stat.S_ISDIR(entry.info.st_mode):
            if visit is not None:
                visit(entry)
            if remove:
                os.unlink(name, dir_fd=parent)
            return None
        if visit is not None and visit(entry) is False:
            return None
        # the mode as visit left it
        mode = stat.S_IMODE(os.fstat(handle).st_mode if REOPEN else os.lstat(name, dir_fd=parent).st_mode)
        needed = stat.S_IRWXU if give_access else stat.S_IRUSR | stat.S_IXUSR
        opened = mode & needed != needed
        if opened:
            entry.chmod(mode | needed)
        if REOPEN:
            listing = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        else:
            listing = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    finally:
        if handle >= 0:
            os.close(handle)
    try:
        # The names are read at once: removing entries while a directory stream is open may skip some.
        names = _names(listing, listed)
    except BaseException:
        os.close(listing)
        raise
    identity = (entry.info.st_dev, entry.info.st_ino)
    stack.append(_Folder(name, relative, identity, iter(names), mode if opened and not give_access else None))
    return listing


def _leave(folder: _Folder, here: int, above: tuple[int, int] | None, top: int, remove: bool) -> int:
    """Close ``folder`` again (or remove it); return a descriptor of the folder holding it."""
    try:
        if above is None:
            parent = top
        else:
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=here)
            info = os.fstat(parent)
            if (info.st_dev, info.st_ino) != above:
                os.close(parent)
                raise OSError(f"{folder.relative!r} moved while it was walked")
        if folder.restore is not None:
            os.chmod(f"/proc/self/fd/{here}" if REOPEN else here, folder.restore)
    finally:
        os.close(here)
    if remove:
        try:
            os.rmdir(folder.name, dir_fd=parent)
        except OSError:
            if parent != top:
                os.close(parent)
            raise
    return parent


def remove_tree(folder: Path) -> bool:
    """Remove ``folder`` even where a command took write or search permission away, however deep.
    False if some of it is left."""
    if not os.path.lexists(folder):
        return True
    if os.path.islink(folder) or not os.path.isdir(folder):
        os.unlink(folder)
        return True
    try:
        walk(folder, remove=True)
    except OSError:
        pass
    return not os.path.lexists(folder)


def bounded_copier(what: str) -> Callable[[str, str], str]:
    """A ``copy_function`` for ``shutil.copytree`` (or a call of its own) that copies regular files
    only (a device would be read without end; a FIFO, a socket are refused as copy2 refuses a FIFO),
    a file with several names once (its other names become hard links to the copy), and at most
    ``MAX_READ_BYTES`` in all (a sparse file counted at its full size, which the copy writes): past
    that it raises ``BoundExceeded``. ``what`` names the tree in that message."""
    copied: dict[tuple[int, int], str] = {}
    total = 0

    def copy(source: str, target: str) -> str:
        nonlocal total
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO must not block the open
        with open(source, "rb", buffering=0, opener=lambda path, _: os.open(path, flags)) as reading:
            info = os.fstat(reading.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise shutil.SpecialFileError(f"{source!r} is not a regular file ({stat.filemode(info.st_mode)})")
            inode = (info.st_dev, info.st_ino)
            if inode in copied:
                os.link(copied[inode], target)
                return target
            total += info.st_size
            if total > MAX_READ_BYTES:
                limit = decimal(MAX_READ_BYTES, ",")
                raise BoundExceeded(
                    say(
                        "Copying {what} would write more than {limit} bytes (a file with several names counted once, "
                        "a sparse file at its full size), the most the host copies; nothing runs.",
                        what=what,
                        limit=limit,
                    )
                )
            with open(target, "xb") as writing:
                left = info.st_size  # never more than it held when opened, should it grow
                while left > 0:
                    chunk = reading.read(min(_CHUNK, left))
                    if not chunk:
                        break
                    writing.write(chunk)
                    left -= len(chunk)
        shutil.copystat(source, target, follow_symlinks=False)
        copied[inode] = target
        return target

    return copy
