"""What a run changed in its working copy, compared with the original project: the manifest.

The independent check (runner.py) copies back exactly these changes onto a fresh copy; the CLI lists
them. Both walks go by descriptor and are bounded, and so is what is read of each (``MAX_READ_BYTES``,
a file with several names read once): a copy past a bound is a BoundExceeded, never read whole.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from .core.errors import BoundExceeded
from .core.language import decimal, say
from .core.sandbox.walk import MAX_READ_BYTES, Entry, walk
from .core.workspace import SKIPPED

__all__ = ["Manifest", "compare"]


@dataclass(frozen=True)
class Manifest:
    """Every path a run added, removed or changed in its copy, compared with the original project
    (caches, links and names whose kind changed included). ``shadowing``: added names that would
    shadow a standard-library module (a planted ``unittest/``) or that Python imports by itself
    (``usercustomize.py``), which the independent check leaves out."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    shadowing: tuple[str, ...] = ()

    def touches(self, path: str) -> bool:
        """Whether anything at ``path`` or under it differs from the original."""
        prefix = path.rstrip("/") + "/"
        return any(p == path or p.startswith(prefix) for p in (*self.added, *self.removed, *self.changed))

    def __str__(self) -> str:
        note = "   <- shadows the standard library or a startup hook (left out of the check)"
        lines = [f"+ {_shown(p)}" + (note if p in self.shadowing else "") for p in self.added]
        lines += [f"- {_shown(p)}" for p in self.removed] + [f"~ {_shown(p)}" for p in self.changed]
        return "\n".join(lines) or "(no changes)"


def _shown(path: str) -> str:
    """A name as one visible line: a name with a newline or a terminal control in it is quoted and
    escaped, so it can neither fake a line of the manifest nor hide one."""
    return path if path.isprintable() else repr(path)


def compare(original: Path, copy: Path) -> Manifest:
    """What differs between ``original`` (as a Workspace copies it) and ``copy`` (everything in it).
    Both walks are bounded; so is what is read of each (``MAX_READ_BYTES``, a hard-linked file once)."""
    before, after = _tree(original, skip=True), _tree(copy, skip=False)
    added = tuple(sorted(p for p in after if p not in before))
    shadowing = tuple(p for p in added if _shadows_stdlib(p))
    return Manifest(
        added=added,
        removed=tuple(sorted(p for p in before if p not in after)),
        changed=tuple(sorted(p for p in before if p in after and before[p] != after[p])),
        shadowing=shadowing,
    )


def _tree(folder: Path, *, skip: bool) -> dict[str, tuple[str, ...]]:
    """Relative path -> (kind, content) for everything under ``folder``, never following links
    (walked through descriptors: the copy may hold anything a command made)."""
    found: dict[str, tuple[str, ...]] = {}
    digests: dict[tuple[int, int], str] = {}  # a file with several names (hard links) is read once
    read = 0

    def record(entry: Entry) -> bool:
        nonlocal read
        if entry.relative == "":
            return True
        if skip and SKIPPED("", [entry.name]):
            return False  # neither it nor what it holds
        mode = entry.info.st_mode
        if stat.S_ISLNK(mode):
            found[entry.relative] = ("link", os.readlink(entry.name, dir_fd=entry.parent))
        elif stat.S_ISDIR(mode):
            found[entry.relative] = ("folder",)
        elif stat.S_ISREG(mode):
            inode = (entry.info.st_dev, entry.info.st_ino)
            if inode not in digests:
                read += entry.info.st_size  # a sparse file reads as its full size
                if read > MAX_READ_BYTES:
                    raise BoundExceeded(
                        say(
                            "Comparing {folder} with the original would read more than {limit} bytes, the most the "
                            "host reads for a comparison; the comparison stops here.",
                            folder=folder.name,
                            limit=decimal(MAX_READ_BYTES, ","),
                        )
                    )
                digests[inode] = _digest(entry)
            found[entry.relative] = ("file", digests[inode])
        else:
            found[entry.relative] = ("special", stat.filemode(mode))
        return True

    walk(folder, record, bounded=True)
    return found


def _digest(entry: Entry) -> str:
    try:
        with os.fdopen(entry.open_file(), "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return "unreadable"


# Modules Python imports by itself at startup, before any test: a planted one decides the verdict
# without the project ever importing it.
_STARTUP_HOOKS = frozenset({"sitecustomize", "usercustomize"})


def _shadows_stdlib(relative: str) -> bool:
    """A top-level name Python could import instead of a standard-library module, or on its own."""
    name = relative.split("/")[0].split(".")[0]
    return name in sys.stdlib_module_names or name in _STARTUP_HOOKS
