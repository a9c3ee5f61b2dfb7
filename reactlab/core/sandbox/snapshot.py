"""The read-only snapshot: what every command of a run sees read-only, copied once, outside the copy.

``read-only/`` holds the project's read-only paths (tests, settings), copied from the original
project when the Sandbox is made: the copy's own files at those paths are never bound, so nothing a
command does to them (rename the folder above, hardlink, replace) reaches the next command.
``etc/`` is the sandbox's whole /etc: generated account files with the lines a command needs and
nothing of the host's accounts, the limits every command's bash reads first (command_line.py), a
copy of the loader's cache, and an empty folder where Debian's /etc/alternatives is bound.
``python/`` holds the hook of safe-path mode (see command_line.Binds). ``empty`` is an empty file,
bound over /proc/keys.

The snapshot is readable by the sandbox and by no one else: for a non-root caller it is the
caller's, folders 0500 and files 0400; for root it is root's with the sandbox gid, 0550 and 0440.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from ..errors import SandboxUnavailable
from ..language import say
from .cleanup import private_folder
from .command_line import EMPTY_FILE, LIMITS, LIMITS_FILE
from .identity import INSIDE_UID, acting_as_root, host_identity
from .walk import Entry, bounded_copier, remove_tree, walk

__all__ = [
    "ETC_FILES",
    "inside_project",
    "plain_path",
    "take_snapshot",
]

# With PYTHONSAFEPATH neither the current folder nor the script's is put first on sys.path; this
# (on PYTHONPATH, alone in a read-only folder) puts the copy back, after the standard library.
_SITECUSTOMIZE = 'import sys\n\nsys.path.append("/work")\n'
ETC_FILES = {
    "passwd": (
        "root:x:0:0:root:/root:/usr/sbin/nologin\n"
        f"sandbox:x:{INSIDE_UID}:{INSIDE_UID}:sandbox:/tmp:/bin/bash\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    ),
    "group": f"root:x:0:\nsandbox:x:{INSIDE_UID}:\nnogroup:x:65534:\n",
    "hosts": "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n",
    "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files\n",
}
_ETC_COPIED = ("ld.so.cache", "localtime")  # the loader finds /usr/lib's libraries through the cache


def inside_project(path: str) -> bool:
    """Whether ``path`` names something inside a project folder: relative, no "..", not the folder itself."""
    relative = PurePosixPath(path)
    return not relative.is_absolute() and ".." not in relative.parts and str(relative) != "."


def take_snapshot(pristine: Path, read_only: Sequence[str], *, safe_python: bool) -> Path:
    """Copy the read-only paths of ``pristine`` and the sandbox's /etc into a new private folder."""
    for path in read_only:
        if not inside_project(path):
            raise SandboxUnavailable(
                say("Read-only path '{path}' must be a path inside the project; refusing to run.", path=path)
            )
        if not plain_path(pristine, path) or not (pristine / path).exists():
            raise SandboxUnavailable(
                say("Read-only path '{path}' is missing or a symlink; refusing to run.", path=path)
            )
    folder = private_folder("reactlab-read-only-")
    try:
        _fill(folder, pristine, read_only, safe_python)
        _seal(folder)
    except BaseException as error:
        remove_tree(folder)
        if not isinstance(error, OSError):
            raise  # BoundExceeded (reactlab/core/sandbox/walk.py), an interrupt
        raise SandboxUnavailable(
            say(
                "Could not write the sandbox's read-only snapshot in {folder}: {reason}. Free some space there (or "
                "set TMPDIR to a folder with room), then try again.",
                folder=folder.parent,
                reason=error.strerror,
            )
        ) from None
    return folder


def _fill(folder: Path, pristine: Path, read_only: Sequence[str], safe_python: bool) -> None:
    (folder / EMPTY_FILE).write_text("")
    etc = folder / "etc"
    etc.mkdir()
    for name, text in ETC_FILES.items():
        (etc / name).write_text(text)
    (etc / PurePosixPath(LIMITS_FILE).name).write_text(LIMITS)
    for name in _ETC_COPIED:
        if os.path.lexists(f"/etc/{name}"):
            shutil.copy2(f"/etc/{name}", etc / name, follow_symlinks=False)
    if os.path.isdir("/etc/alternatives"):
        (etc / "alternatives").mkdir()  # where the host's is bound: links to programs in /usr
    if safe_python:
        (folder / "python").mkdir()
        (folder / "python" / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    snapshot = folder / "read-only"
    snapshot.mkdir()
    copy = bounded_copier(say("the read-only paths"))  # one bound for them all, hard links kept
    for path in read_only:
        source, target = pristine / path, snapshot / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():  # it may hold a read-only path listed before it, copied already
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True, copy_function=_once(copy))
        elif not os.path.lexists(target):
            copy(str(source), str(target))


def _once(copy: Callable[[str, str], str]) -> Callable[[str, str], str]:
    """``copy``, passing by a file copied already (a read-only path inside another, listed first)."""

    def copy_new(source: str, target: str) -> str:
        return target if os.path.lexists(target) else copy(source, target)

    return copy_new


def _seal(folder: Path) -> None:
    """Readable by the sandbox only, written by nobody (no setuid or setgid bit either)."""
    root = acting_as_root()
    gid = host_identity()[1]

    def seal(entry: Entry) -> None:
        if entry.is_link:
            return
        folder_or_file = 0o550 if stat.S_ISDIR(entry.info.st_mode) else 0o440
        if root:
            entry.chown(0, gid)
        entry.chmod(folder_or_file if root else folder_or_file & 0o700)

    walk(folder, seal)


def plain_path(root: Path, relative: str) -> bool:
    """True if every folder from ``root`` down to ``relative``'s parent is a real folder or missing."""
    current = root
    for part in PurePosixPath(relative).parts[:-1]:
        current = current / part
        if not os.path.lexists(current):
            return True
        if current.is_symlink() or not current.is_dir():
            return False
    return not (root / relative).is_symlink()
