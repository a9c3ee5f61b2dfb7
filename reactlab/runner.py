"""One run on a fresh working copy: the piece the CLI, the notebooks and the tests share."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .changes import Manifest, compare
from .core.agent import Agent
from .core.browser import IN_BROWSER
from .core.errors import DiskBoundExceeded, DiskNearlyFull, ReactlabError
from .core.language import Language
from .core.protocols import ChatClient
from .core.record import RunRecord
from .core.sandbox import DISK_LIMIT, Sandbox, SandboxResult, available, hand_over
from .core.sandbox.walk import remove_tree
from .core.tools import BashTool, default_tools
from .core.workspace import Workspace
from .in_page import run_in_page
from .samples.project import SampleProject

__all__ = [
    "IndependentRun",
    "Outcome",
    "independent_run_problem",
    "independent_test_run",
    "run_in_copy",
    "unchanged_paths",
]


@dataclass
class Outcome:
    """How a run ended. ``error`` is set instead of ``answer`` when it did not reach one."""

    workspace: Workspace
    record: RunRecord
    answer: str | None = None
    error: ReactlabError | None = None


def run_in_copy(
    project: SampleProject | str | Path,
    client: ChatClient,
    *,
    task: str | None = None,
    read_only: Sequence[str] | None = None,
    files: Sequence[str] | None = None,
    lang: Language | None = None,
    max_steps: int = 8,
    max_tool_calls: int = 16,
    disk_limit: int = DISK_LIMIT,
) -> Outcome:
    """Copy ``project``, run the agent with read_file, bash and edit on the copy, and report.

        run_in_copy(SHOP, client)                                   # a sample project knows the rest
        run_in_copy("my_project", client, task="...", read_only=["tests"])

    A ``SampleProject`` brings its task (in ``lang``), read-only paths and files; an argument given
    here wins over the project's. A folder needs ``task``; nothing in it is read-only unless named, and
    read_file offers its text files unless ``files`` lists them. ``lang`` (``current_language()`` when
    None) is the language of the system prompt, the tools and the agent's errors. ``disk_limit``: the
    bytes the run's commands may add to the copy (reactlab/core/sandbox/disk.py).

    Agent errors are caught and returned (with the record); the caller owns ``workspace``, except
    after a disk bound (DiskBoundExceeded, DiskNearlyFull): that copy is removed at once, to give the
    disk back (``workspace.removed``). Any other error (a bug, Ctrl-C) removes the copy before it is
    raised: nobody would own it.
    """
    if isinstance(project, SampleProject):
        task = project.task(lang) if task is None else task
        read_only = project.read_only if read_only is None else read_only
        files = project.files if files is None else files
        project = project.path
    if task is None:
        raise TypeError("run_in_copy needs task= for a folder; only a SampleProject brings its own")
    workspace = Workspace(project, read_only or ())
    try:
        tools = default_tools(workspace, files, lang=lang, disk_limit=disk_limit)
        agent = Agent(client, tools, lang=lang, max_steps=max_steps, max_tool_calls=max_tool_calls)
        try:
            answer = agent.run(task)
        except ReactlabError as error:
            assert agent.record is not None
            if isinstance(error, (DiskBoundExceeded, DiskNearlyFull)):
                workspace.cleanup()
            return Outcome(workspace, agent.record, error=error)
        finally:
            for tool in tools:  # the run's cgroups and snapshot go with the run
                if isinstance(tool, BashTool):
                    tool.sandbox.close()
    except BaseException:
        workspace.cleanup()
        raise
    assert agent.record is not None
    return Outcome(workspace, agent.record, answer=answer)


@dataclass(frozen=True)
class IndependentRun(SandboxResult):
    """The tests' result, and beside it what the run changed (``manifest``): read both. ``in_page``:
    the tests ran in a browser tab's own Python (reactlab/in_page.py), not in the sandbox."""

    manifest: Manifest = field(default_factory=Manifest)
    in_page: bool = False


def independent_run_problem() -> str | None:
    """Why ``independent_test_run`` cannot run here, or None: it runs wherever bash is sandboxed, and
    in a browser tab, in the page's own Python (the browser is the sandbox there)."""
    return None if IN_BROWSER else available()


def independent_test_run(workspace: Workspace, command: str, timeout: int = 60) -> IndependentRun:
    """Run the tests again, outside the agent: a final answer proves nothing by itself.

    Nothing the run left behind decides the verdict: the tests run in the sandbox on a fresh copy
    of the original project plus the run's changes to paths that are not read-only (no bytecode
    caches, nothing that shadows the standard library), with Python in safe-path mode. What the
    run changed is in ``manifest``; the changed files themselves do run, so read them. In a browser
    tab, where no program can start, the tests run in the page's own Python instead (``in_page``;
    see reactlab/in_page.py for what that does and does not guard), with no timeout.
    """
    manifest = compare(workspace.source, workspace.root)
    with Workspace(workspace.source, workspace.read_only, prefix="reactlab-check-") as fresh:
        _apply(manifest, workspace, fresh)
        if IN_BROWSER:
            return IndependentRun(**vars(run_in_page(fresh.root, command)), manifest=manifest, in_page=True)
        with Sandbox(fresh.root, fresh.read_only, safe_python=True, pristine=fresh.source) as sandbox:
            result = sandbox.run(command, timeout=timeout)
    return IndependentRun(**vars(result), manifest=manifest)


def _apply(manifest: Manifest, run: Workspace, fresh: Workspace) -> None:
    """Copy the run's changes into ``fresh``, except to read-only paths (and the folders holding
    them), bytecode caches and names that shadow the standard library. The manifest's walk bounded
    what this copies (entries, path lengths, bytes); a file with several names is copied once and
    linked under the others, as in the run's copy."""
    copied: dict[tuple[int, int], Path] = {}

    def kept(path: str) -> bool:
        parts = PurePosixPath(path).parts
        return (
            run.is_read_only(run.root / path)
            or any(ro.startswith(path + "/") for ro in run.read_only)
            or any(path == s or path.startswith(s + "/") for s in manifest.shadowing)
            or "__pycache__" in parts
            or parts[-1].endswith((".pyc", ".pyo"))
        )

    for path in manifest.removed:
        if not kept(path):
            _remove(fresh.root / path)
    for path in (*manifest.changed, *manifest.added):  # sorted: a folder comes before what it holds
        if kept(path):
            continue
        source, target = run.root / path, fresh.root / path
        if source.is_symlink() or not source.is_dir() or not target.is_dir() or target.is_symlink():
            _remove(target)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        elif source.is_dir():
            target.mkdir(exist_ok=True)
        elif source.is_file():
            info = source.stat()
            first = copied.get((info.st_dev, info.st_ino))
            if first is not None:
                os.link(first, target)
            else:
                _copy_readable(source, target)
                copied[(info.st_dev, info.st_ino)] = target
    hand_over(fresh.root)


def _copy_readable(source: Path, target: Path) -> None:
    """Copy a file with its mode, also one a command made unreadable (mode 000) for its owner."""
    mode = stat.S_IMODE(source.stat().st_mode)
    closed = not os.access(source, os.R_OK)
    if closed:
        source.chmod(mode | stat.S_IRUSR)
    try:
        shutil.copyfile(source, target)
    finally:
        if closed:
            source.chmod(mode)
    target.chmod(mode)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        remove_tree(path)
    elif os.path.lexists(path):
        path.unlink()


def unchanged_paths(workspace: Workspace, paths: Sequence[str]) -> dict[str, bool]:
    """For each path (file or folder), whether the copy is exactly the original: same kinds, same
    bytes, no extra entries (caches included)."""
    manifest = compare(workspace.source, workspace.root)
    return {path: not manifest.touches(path) for path in paths}
