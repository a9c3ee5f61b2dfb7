"""The three tools, one file each: read_file, bash, edit."""

from __future__ import annotations

from collections.abc import Sequence

from ..workspace import Workspace
from .base import BaseTool
from .bash import BashTool
from .edit import EditTool
from .read_file import ReadFileTool

__all__ = ["BaseTool", "BashTool", "EditTool", "ReadFileTool", "default_tools"]


def default_tools(workspace: Workspace, files: Sequence[str] | None = None) -> list[BaseTool]:
    """read_file, bash and edit on one working copy. Raises SandboxUnavailable where bash can't be isolated."""
    return [ReadFileTool(workspace, files), BashTool(workspace), EditTool(workspace)]
