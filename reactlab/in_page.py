"""The independent test run in a browser tab, where no program can start: the tests run in the page's
own Python, on the fresh copy in the page's memory. The browser is the sandbox there.

Only ``python3 -m unittest ...`` can run so (the page has no pytest, and no shell). As in the
sandbox, the copy is fresh (the original project plus the run's changes, with no bytecode caches
and nothing that shadows the standard library), it comes last on ``sys.path``, after the standard
library and the installed packages (as Python's safe-path mode puts it there), the environment is
empty, and at most ``OUTPUT_LIMIT`` bytes of each stream are kept. The project's modules are
forgotten afterwards, and ``sys.path``, the folder and the environment are put back.

What it cannot do: the code under test runs in the same Python as the notebook, so it could change
the notebook's state (in the sandbox it can reach nothing of it), and nothing stops a test that never
ends (restart the kernel). Like anywhere, it could print a false result: the manifest lists every
file the run changed, and those files are what ran.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
import time
import traceback
import unittest
from collections.abc import Iterator
from pathlib import Path

from .core.language import say
from .core.sandbox import OUTPUT_LIMIT, SandboxResult

__all__ = ["run_in_page"]

_UNITTEST = (["python3", "-m", "unittest"], ["python", "-m", "unittest"])


def run_in_page(root: Path, command: str) -> SandboxResult:
    """Run ``command`` (``python3 -m unittest ARGS``) in this Python, from ``root``."""
    argv = shlex.split(command)
    if argv[:3] not in _UNITTEST:
        problem = say(
            "In a browser tab only `python3 -m unittest ...` can run, in the page's own Python; not {command!r}.",
            command=command[:200],
        )
        return SandboxResult(None, "", problem, truncated=False, timed_out=False, duration=0.0, setup_failed=True)
    stdout, stderr = _Capped(), _Capped()
    started = time.monotonic()
    with _borrowed(root), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:  # a loader of its own: unittest's default one keeps the folder of the run before
            program = unittest.main(
                module=None, argv=[" ".join(argv[:3]), *argv[3:]], exit=False, testLoader=unittest.TestLoader()
            )
            exit_code = 0 if program.result.wasSuccessful() else 1
        except SystemExit as stopped:  # unittest's own usage errors, or a test that called sys.exit
            exit_code = stopped.code if isinstance(stopped.code, int) else 1
        except Exception:  # as Python itself would end: the traceback, and exit code 1
            traceback.print_exc()
            exit_code = 1
    return SandboxResult(
        exit_code,
        stdout.getvalue(),
        stderr.getvalue(),
        truncated=stdout.truncated or stderr.truncated,
        timed_out=False,
        duration=time.monotonic() - started,
    )


@contextlib.contextmanager
def _borrowed(root: Path) -> Iterator[None]:
    """This Python, set up for the tests of ``root`` and given back afterwards."""
    path, folder, environment = list(sys.path), os.getcwd(), dict(os.environ)
    no_bytecode, modules = sys.dont_write_bytecode, set(sys.modules)
    sys.path.append(str(root))
    os.chdir(root)
    os.environ.clear()
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.path[:], sys.dont_write_bytecode = path, no_bytecode
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environment)
        for name in set(sys.modules) - modules:
            if _inside(sys.modules[name], root):
                del sys.modules[name]


def _inside(module: object, root: Path) -> bool:
    """Whether ``module`` was imported from ``root`` (a namespace package by its folders)."""
    places = [getattr(module, "__file__", None) or "", *getattr(module, "__path__", [])]
    return any(str(place).startswith(f"{root}{os.sep}") for place in places)


class _Capped(io.StringIO):
    """A stream that keeps its first ``OUTPUT_LIMIT`` bytes (UTF-8) and notes that more came."""

    def __init__(self) -> None:
        super().__init__()
        self.room = OUTPUT_LIMIT
        self.truncated = False

    def write(self, text: str) -> int:
        data = text.encode("utf-8", errors="replace")
        if len(data) > self.room:
            self.truncated = True
            text = data[: self.room].decode("utf-8", errors="ignore")
            data = text.encode()
        self.room -= len(data)
        super().write(text)
        return len(text)
