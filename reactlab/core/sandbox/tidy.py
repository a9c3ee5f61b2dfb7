"""What the host does to the working copy after each command: one walk, bounded.

Inside, a command owns the copy and may ``chmod 4755`` a file; on the host that file belongs to the
caller (or to the sandbox uid), so a setuid or setgid bit left on it would let others run it as
them. Every such bit is cleared. The copy's own folder is opened to its owner again: a command that
closed /work (``chmod 000 /work``) would otherwise leave no later command a copy to start in. As root,
anything in the copy that is not the sandbox uid's (a file the host side wrote) is handed back to it,
so later commands may change it too. The walk goes by
descriptor (nothing a command planted can redirect it) and is bounded (reactlab/core/sandbox/walk.py): a copy
past the bounds stops the run with BoundExceeded instead of costing the host without limit.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

from .walk import Entry, walk

__all__ = ["tidy"]

_SPECIAL_BITS = stat.S_ISUID | stat.S_ISGID


def tidy(
    copy: Path, give_back_to: tuple[int, int] | None = None, also: Callable[[Entry], None] | None = None
) -> list[str]:
    """Clear every setuid and setgid bit under ``copy`` and hand to ``give_back_to`` (uid, gid: for
    root, the sandbox uid) whatever is not its; show every entry to ``also`` (the disk count, disk.py)
    on the way. Returns what had a bit cleared."""
    stripped: list[str] = []
    owner = give_back_to

    def visit(entry: Entry) -> None:
        if also is not None:
            also(entry)
        if owner is not None and entry.info.st_uid != owner[0]:
            entry.chown(*owner)
        if entry.is_link:
            return
        mode = stat.S_IMODE(entry.info.st_mode)
        wanted = mode & ~_SPECIAL_BITS
        if entry.relative == "":  # the copy itself (/work): its owner, the sandbox, must enter it
            wanted |= stat.S_IRWXU
        if wanted != mode:
            entry.chmod(wanted)
        if mode & _SPECIAL_BITS:
            stripped.append(entry.relative)

    walk(copy, visit, bounded=True)
    return stripped
