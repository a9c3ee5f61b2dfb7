"""The three tools, one file each: read_file, bash, edit; and the Toolbox that holds a run's tools.

base.py (BaseTool) checks a tool's arguments with schema.py; replayed.py is where bash without a
sandbox finds the result a replayed answer recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..language import Language, resolve_language
from ..sandbox import DISK_LIMIT, available
from ..workspace import Workspace
from .base import BaseTool
from .bash import BashStandIn, BashTool
from .edit import EditTool
from .read_file import ReadFileTool
from .toolbox import Toolbox

__all__ = ["BaseTool", "BashStandIn", "BashTool", "EditTool", "ReadFileTool", "Toolbox", "default_tools"]


def default_tools(
    workspace: Workspace,
    files: Sequence[str] | None = None,
    *,
    lang: Language | None = None,
    disk_limit: int = DISK_LIMIT,
) -> Toolbox:
    """read_file, bash and edit on one working copy, in a Toolbox (``tools["bash"]``); ``lang`` is the
    language of what the model reads about them (descriptions and errors), ``current_language()`` when None;
    ``disk_limit`` the bytes bash's commands may add to the copy in the run (``Sandbox``).

    Where this machine cannot build a sandbox, bash is a ``BashStandIn``: it runs nothing, replays
    what a cassette recorded, or says the sandbox is unavailable. read_file and edit always really run.
    """
    lang = resolve_language(lang)
    problem = available()  # can this machine isolate anything at all?
    if problem is not None:
        bash: BaseTool = BashStandIn(problem, lang=lang)
    else:
        # still raises if the read-only paths themselves are wrong
        bash = BashTool(workspace, lang=lang, disk_limit=disk_limit)
    return Toolbox([ReadFileTool(workspace, files, lang=lang), bash, EditTool(workspace, lang=lang)])
