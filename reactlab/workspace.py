"""A working copy per run: the project is copied to a fresh folder, and only the copy is touched."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from types import TracebackType

from .errors import ToolError
from .strings import ToolTexts, strings

__all__ = ["Workspace"]

_SKIP = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".venv", ".ipynb_checkpoints", ".pytest_cache")
TEXT_FILE_LIMIT = 1_000_000


class Workspace:
    """A temporary copy of ``project``. ``read_only`` paths (relative) are protected for the run."""

    def __init__(self, project: str | Path, read_only: Sequence[str] = (), *, prefix: str = "reactlab-") -> None:
        source = Path(project).resolve()
        if not source.is_dir():
            raise ValueError(f"Project folder not found: {project}")
        self.source = source
        self.root = Path(os.path.realpath(tempfile.mkdtemp(prefix=prefix)))
        try:
            # symlinks=True copies links as links: a link to /etc must not pull /etc into the copy.
            shutil.copytree(source, self.root, symlinks=True, ignore=_SKIP, dirs_exist_ok=True)
            self.read_only = tuple(self._check_read_only(path) for path in read_only)
        except BaseException:
            self.cleanup()
            raise

    def _check_read_only(self, path: str) -> str:
        relative = PurePosixPath(path)
        if relative.is_absolute() or ".." in relative.parts or str(relative) in ("", "."):
            raise ValueError(f"Read-only path must be relative to the project: {path!r}")
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

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.cleanup()

    def __repr__(self) -> str:
        return f"Workspace({str(self.source)!r} -> {str(self.root)!r}, read_only={list(self.read_only)})"
