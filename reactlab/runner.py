"""One run on a fresh working copy: the piece the CLI, the notebooks and the tests share."""

from __future__ import annotations

import filecmp
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .agent import Agent
from .errors import ReactlabError
from .prompts import Language, system_prompt
from .protocols import ChatClient
from .record import RunRecord
from .sandbox import Sandbox, SandboxResult
from .tools import default_tools
from .workspace import Workspace

__all__ = ["Outcome", "independent_test_run", "run_in_copy", "unchanged_paths"]


@dataclass
class Outcome:
    """How a run ended. ``error`` is set instead of ``answer`` when it did not reach one."""

    workspace: Workspace
    record: RunRecord
    answer: str | None = None
    error: ReactlabError | None = None


def run_in_copy(
    project: str | Path,
    task: str,
    client: ChatClient,
    *,
    read_only: Sequence[str] = (),
    files: Sequence[str] | None = None,
    lang: Language = "en",
    max_steps: int = 8,
    max_tool_calls: int = 16,
) -> Outcome:
    """Copy ``project``, run the agent with read_file, bash and edit on the copy, and report.

    Agent errors are caught and returned (with the record); the caller owns ``workspace``.
    """
    workspace = Workspace(project, read_only)
    try:
        tools = default_tools(workspace, files, lang=lang)
    except BaseException:
        workspace.cleanup()
        raise
    agent = Agent(client, tools, system=system_prompt(lang), max_steps=max_steps, max_tool_calls=max_tool_calls)
    try:
        answer = agent.run(task)
    except ReactlabError as error:
        assert agent.record is not None
        return Outcome(workspace, agent.record, error=error)
    assert agent.record is not None
    return Outcome(workspace, agent.record, answer=answer)


def independent_test_run(workspace: Workspace, command: str, timeout: int = 60) -> SandboxResult:
    """Run the tests again, outside the agent: a final answer proves nothing by itself."""
    return Sandbox(workspace.root, workspace.read_only).run(command, timeout=timeout)


def unchanged_paths(workspace: Workspace, paths: Sequence[str]) -> dict[str, bool]:
    """For each path (file or folder), whether the copy is byte-identical to the original."""
    return {path: _same(workspace.source / path, workspace.root / path) for path in paths}


def _same(original: Path, copy: Path) -> bool:
    if original.is_file():
        return copy.is_file() and not copy.is_symlink() and filecmp.cmp(original, copy, shallow=False)
    if not copy.is_dir():
        return False
    compared = filecmp.dircmp(original, copy, ignore=["__pycache__"])
    if compared.left_only or compared.right_only or compared.funny_files:
        return False
    return all(_same(original / name, copy / name) for name in compared.common_files + compared.common_dirs)
