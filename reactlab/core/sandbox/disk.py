"""What a run may add to the host's disk: the working copy's growth, counted by the host.

Inside, each file is capped (``ulimit -f``, command_line.py) but not their sum, and nothing inside
can be trusted to measure itself. So the host counts: it walks the copy by descriptor, bounded
(reactlab/core/sandbox/walk.py), and adds up the blocks each inode takes (``st_blocks``: a file with several
names once, a sparse file by the room it really takes). Blocks are taken only by writing them: the
seccomp filter refuses fallocate, which took a whole disk between two checks without writing it. The
copy may grow by ``DISK_LIMIT`` (a Sandbox's ``disk_limit``) over what it took when the Sandbox was
made; past that, the command is stopped, and the run with DiskBoundExceeded.

The count is exact after each command: it is taken in the walk that tidies the copy (tidy.py).
While a command runs it is taken every ``CHECK_INTERVAL`` seconds, or less often when the walk is
long (the checks take at most a tenth of the time), so a command passes the bound by at most what it
writes between two checks. Two things a walk misses while a command runs: a file deleted while
still open (its room comes back when the command's processes end, at the timeout at the latest),
and what lies in folders the command keeps moving while they are walked. For those the machine
itself is looked at: at each check the disk holding the copy must keep ``FREE_FLOOR`` free
(``os.statvfs``); below it, and more than the bound lower than when the command started, the
command is stopped with DiskNearlyFull. Not at any fall: the disk is everyone's, and a classmate who
kept it nearly full, or a laptop's own writes, stopped every command that ran (and its run).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import DiskBoundExceeded, DiskNearlyFull
from ..language import decimal, say
from .walk import Entry, walk

__all__ = ["Blocks", "CHECK_INTERVAL", "DISK_LIMIT", "DiskBound", "FREE_FLOOR", "room_taken"]

DISK_LIMIT = 256 * 1024 * 1024
"""What a run's commands may add to the copy: as much as the independent check reads of it
(walk.MAX_READ_BYTES), so nothing the check could compare is refused, and a class of 30 running at
once adds at most 7.5 GiB to the server's disk."""
FREE_FLOOR = 1024 * 1024 * 1024
"""The room the disk holding the copy must keep while a command runs (space for everyone else)."""
CHECK_INTERVAL = 0.2
"""Seconds between two checks while a command runs, at the least."""
_SHARE = 10  # the next check waits at least ten times as long as this one took


class Blocks:
    """The room the inodes shown to ``add`` take on disk, each inode counted once."""

    def __init__(self) -> None:
        self.seen: set[tuple[int, int]] = set()
        self.total = 0

    def add(self, entry: Entry) -> None:
        inode = (entry.info.st_dev, entry.info.st_ino)
        if inode not in self.seen:
            self.seen.add(inode)
            self.total += entry.info.st_blocks * 512  # st_blocks is in units of 512 bytes, whatever the disk


def room_taken(copy: Path) -> int:
    """The bytes ``copy`` takes on disk, by a bounded walk (BoundExceeded past its bounds)."""
    blocks = Blocks()
    walk(copy, blocks.add, bounded=True)
    return blocks.total


class DiskBound:
    """One Sandbox's copy may grow by ``limit`` bytes over what it takes now."""

    def __init__(self, copy: Path, limit: int) -> None:
        self.copy = copy
        self.limit = limit
        self.start = room_taken(copy)

    def check(self, taken: int) -> None:
        """Raise DiskBoundExceeded if the copy, taking ``taken`` bytes, has grown past the bound."""
        if taken - self.start > self.limit:
            raise DiskBoundExceeded(
                say(
                    "The working copy grew by more than {limit} bytes (a file with several names counted once, a "
                    "sparse file by the room it takes), the most a run may add to the host's disk; the command was "
                    "stopped and the run stops here.",
                    limit=decimal(self.limit, ","),
                )
            )

    def watch(self) -> Callable[[], float]:
        """A watch over one command, made as it starts. running.py calls it at every turn of its
        loop; it checks when a check is due (raising DiskBoundExceeded or DiskNearlyFull), and
        returns the seconds until the next one."""
        free_at_start = _free(self.copy)
        due = time.monotonic() + CHECK_INTERVAL

        def check_when_due() -> float:
            nonlocal due
            started = time.monotonic()
            if started < due:
                return due - started
            try:
                taken: int | None = room_taken(self.copy)
            except OSError:  # a folder moved while it was walked: the next check, and the floor, still hold
                taken = None
            due = time.monotonic() + max(CHECK_INTERVAL, (time.monotonic() - started) * _SHARE)
            if taken is not None:
                self.check(taken)
            free = _free(self.copy)
            if free < FREE_FLOOR and free_at_start - free > self.limit:
                raise DiskNearlyFull(
                    say(
                        "The disk holding the working copy has less than {floor} bytes free, and less than when the "
                        "command started (files deleted while still open count too); the command was stopped and the "
                        "run stops here. Free some space, then try again.",
                        floor=decimal(FREE_FLOOR, ","),
                    )
                )
            return max(0.0, due - time.monotonic())

        return check_when_due


def _free(path: Path) -> int:
    """The bytes an unprivileged user may still write on the disk holding ``path``."""
    info = os.statvfs(path)
    return info.f_bavail * info.f_frsize
