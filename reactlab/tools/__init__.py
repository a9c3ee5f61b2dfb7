"""The three tools, one file each: read_file, bash, edit."""

from __future__ import annotations

from collections.abc import Sequence

from ..sandbox import available
from ..strings import Language, check_language
from ..workspace import Workspace
from .base import BaseTool
from .bash import BashStandIn, BashTool
from .edit import EditTool
from .read_file import ReadFileTool

__all__ = ["BaseTool", "BashStandIn", "BashTool", "EditTool", "ReadFileTool", "default_tools"]


def default_tools(workspace: Workspace, files: Sequence[str] | None = None, *, lang: Language = "en") -> list[BaseTool]:
    """read_file, bash and edit on one working copy; ``lang`` is the language of what the model reads
    about them (descriptions and errors).

    Where this machine cannot build a sandbox, bash is a ``BashStandIn``: it runs nothing, replays
    what a cassette recorded, or says the sandbox is unavailable. read_file and edit always really run.
    """
    check_language(lang)
    problem = available()  # can this machine isolate anything at all?
    if problem is not None:
        bash: BaseTool = BashStandIn(problem, lang=lang)
    else:
        bash = BashTool(workspace, lang=lang)  # still raises if the read-only paths themselves are wrong
    return [ReadFileTool(workspace, files, lang=lang), bash, EditTool(workspace, lang=lang)]
