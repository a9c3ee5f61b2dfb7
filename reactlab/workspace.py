"""A working copy per run: the project is copied to a fresh folder, and only the copy is touched.

What the host reads of a copy is bounded (reactlab/walk.py): a project or a copy with more entries,
longer paths, or more bytes to compare than the bounds is refused with BoundExceeded, never walked,
read or copied without limit. Hard links are read once and copied as links, in the copy of the project
as in the independent check's; a device, FIFO or socket in the project is refused, never read.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType

from .errors import BoundExceeded, ToolError
from .sandbox import hand_over, inside_project, share_with_sandbox
from .sandbox.cleanup import KEEP_MARK, private_folder
from .strings import ToolTexts, decimal, strings
from .walk import MAX_ENTRIES, MAX_READ_BYTES, Entry, bounded_copier, remove_tree, walk

__all__ = ["Manifest", "Workspace", "compare"]

SKIPPED = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".venv", ".ipynb_checkpoints", ".pytest_cache")
TEXT_FILE_LIMIT = 1_000_000


class Workspace:
    """A temporary copy of ``project``. ``read_only`` paths (relative) are protected for the run.

    ``root`` is where the copy is: owned by the uid sandboxed commands run as, mode 0700, and inside
    a folder of its own (``folder``) that commands never see and that only the caller (and, for root,
    the sandbox uid) may pass, so a command that opens ``root`` to everyone (``chmod 755 /work``)
    still leaves it private. Leaving the ``with`` block removes both unless ``keep`` is true;
    ``cleanup()`` always does. A copy not kept, left by a process that died (a notebook kernel
    killed mid-run), is removed by the next Workspace made on this machine.
    """

    def __init__(
        self, project: str | Path, read_only: Sequence[str] = (), *, prefix: str = "reactlab-", keep: bool = False
    ) -> None:
        source = Path(project).resolve()
        if not source.is_dir():
            raise ValueError(f"Project folder not found: {project}")
        self.source = source
        self.keep = keep
        self._on_cleanup: list[Callable[[], object]] = []
        self.folder = private_folder(prefix)
        self.root = self.folder / "project"
        try:
            if keep:
                self.keep_after_exit()
            share_with_sandbox(self.folder)
            # symlinks=True copies links as links: a link to /etc must not pull /etc into the copy.
            copy = bounded_copier(strings().sandbox.copy_of_project.format(name=source.name))
            shutil.copytree(source, self.root, symlinks=True, ignore=_counted(SKIPPED), copy_function=copy)
            self.read_only = tuple(self._check_read_only(path) for path in read_only)
            hand_over(self.root)
        except BaseException:
            self.cleanup()
            raise

    def keep_after_exit(self) -> None:
        """Keep the copy when this process ends (the sweep of dead processes' copies passes it by)."""
        (self.folder / KEEP_MARK).touch()

    @property
    def removed(self) -> bool:
        """Whether the copy is gone (``cleanup()``, or a run past a disk bound: see run_in_copy)."""
        return not os.path.lexists(self.folder)

    def on_cleanup(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` before the copy is removed (a bash tool closes its sandbox so)."""
        self._on_cleanup.append(callback)

    def _check_read_only(self, path: str) -> str:
        if not inside_project(path):
            raise ValueError(f"Read-only path must be relative to the project: {path!r}")
        relative = PurePosixPath(path)
        target = self.root / relative
        if target.is_symlink() or not target.exists():
            raise ValueError(f"Read-only path {path!r} must exist in the project and not be a symlink.")
        return relative.as_posix()

    def resolve(self, path: object, texts: ToolTexts | None = None) -> Path:
        """The real path of ``path`` inside the copy, after symlinks; ToolError (in the language of
        ``texts``, by default English) if it leaves the copy."""
        texts = texts or strings("en").tools
        if not isinstance(path, str) or not path.strip():
            raise ToolError(texts.path_empty)
        if "\x00" in path:
            raise ToolError(texts.path_nul)
        if PurePosixPath(path).is_absolute():
            raise ToolError(texts.path_absolute.format(path=repr(path[:200])))
        real = Path(os.path.realpath(self.root / path))
        if real != self.root and self.root not in real.parents:
            raise ToolError(texts.path_outside.format(path=repr(path[:200])))
        return real

    def is_read_only(self, real: Path) -> bool:
        protected = [self.root / p for p in self.read_only]
        return any(real == p or p in real.parents for p in protected)

    def relative(self, real: Path) -> str:
        return real.relative_to(self.root).as_posix()

    def text_files(self) -> list[str]:
        """The project's text files (UTF-8, no NUL, at most 1 MB), sorted, symlinks left out."""
        found = []
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d)))
            for name in files:
                path = Path(folder, name)
                if path.is_symlink() or name.startswith(".") or path.stat().st_size > TEXT_FILE_LIMIT:
                    continue
                data = path.read_bytes()
                if b"\x00" in data:
                    continue
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                found.append(self.relative(path))
        return sorted(found)

    def cleanup(self) -> bool:
        """End every sandbox on the copy, then remove it, also where a command took write permission
        away. False (and a warning naming the folder) if something could not be removed."""
        try:
            while self._on_cleanup:
                self._on_cleanup.pop()()
        finally:
            removed = remove_tree(self.folder)
        if removed:
            return True
        warnings.warn(f"Could not remove all of the working copy {self.folder}", ResourceWarning, stacklevel=2)
        return False

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        if not self.keep:
            self.cleanup()

    def __repr__(self) -> str:
        return f"Workspace({str(self.source)!r} -> {str(self.root)!r}, read_only={list(self.read_only)})"


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
                        strings().sandbox.bound_read.format(folder=folder.name, limit=decimal(MAX_READ_BYTES, ","))
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


def _counted(ignore: Callable[[str, list[str]], set[str]]) -> Callable[[str, list[str]], set[str]]:
    """``ignore`` for copytree, refusing a project of more than ``MAX_ENTRIES`` entries as it goes."""
    copied = 0

    def counting(folder: str, names: list[str]) -> set[str]:
        nonlocal copied
        ignored = ignore(folder, names)
        copied += len(names) - len(ignored)
        if copied > MAX_ENTRIES:
            raise BoundExceeded(strings().sandbox.bound_project.format(limit=decimal(MAX_ENTRIES, ",")))
        return ignored

    return counting


# Modules Python imports by itself at startup, before any test: a planted one decides the verdict
# without the project ever importing it.
_STARTUP_HOOKS = frozenset({"sitecustomize", "usercustomize"})


def _shadows_stdlib(relative: str) -> bool:
    """A top-level name Python could import instead of a standard-library module, or on its own."""
    name = relative.split("/")[0].split(".")[0]
    return name in sys.stdlib_module_names or name in _STARTUP_HOOKS
