"""A working copy per run: the project is copied to a fresh folder, and only the copy is touched.

What the host reads of a project is bounded (reactlab/core/sandbox/walk.py): a project with more
entries or bytes than the bounds is refused with BoundExceeded, never copied without limit. Hard
links are copied as links; a device, FIFO or socket in the project is refused, never read.
"""

from __future__ import annotations

import os
import shutil
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from types import TracebackType

from .errors import BoundExceeded, ToolError
from .language import Language, decimal, say
from .sandbox import hand_over, inside_project, share_with_sandbox
from .sandbox.cleanup import KEEP_MARK, private_folder
from .sandbox.walk import MAX_ENTRIES, bounded_copier, remove_tree

__all__ = ["SKIPPED", "TEXT_FILE_LIMIT", "Workspace"]

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
            copy = bounded_copier(say("the project {name}", name=source.name))
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

    def resolve(self, path: object, lang: Language | None = "en") -> Path:
        """The real path of ``path`` inside the copy, after symlinks; ToolError (in ``lang``) if it
        leaves the copy."""
        if not isinstance(path, str) or not path.strip():
            raise ToolError(say("The path must be a non-empty string.", lang=lang))
        if "\x00" in path:
            raise ToolError(say("The path contains a NUL byte.", lang=lang))
        if PurePosixPath(path).is_absolute():
            raise ToolError(
                say("Use a path relative to the project root, not {path}.", lang=lang, path=repr(path[:200]))
            )
        real = Path(os.path.realpath(self.root / path))
        if real != self.root and self.root not in real.parents:
            raise ToolError(say("{path} leads outside the project.", lang=lang, path=repr(path[:200])))
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


def _counted(ignore: Callable[[str, list[str]], set[str]]) -> Callable[[str, list[str]], set[str]]:
    """``ignore`` for copytree, refusing a project of more than ``MAX_ENTRIES`` entries as it goes."""
    copied = 0

    def counting(folder: str, names: list[str]) -> set[str]:
        nonlocal copied
        ignored = ignore(folder, names)
        copied += len(names) - len(ignored)
        if copied > MAX_ENTRIES:
            raise BoundExceeded(
                say(
                    "The project holds more than {limit} files and folders, the most a working copy may hold; copy a "
                    "smaller project (or one without its data and build folders).",
                    limit=decimal(MAX_ENTRIES, ","),
                )
            )
        return ignored

    return counting
