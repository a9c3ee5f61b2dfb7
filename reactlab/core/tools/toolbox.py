"""Toolbox: the tools of one run, in order, and found by name.

tools = default_tools(workspace, files)
tools["bash"].execute({"command": "ls"})
Agent(client, tools)                      # a Toolbox is a sequence of tools, like a list
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from .base import BaseTool

__all__ = ["Toolbox"]


class Toolbox(Sequence[BaseTool]):
    """Tools in the order the model is offered them; ``tools["bash"]`` is the one named bash.

    It reads like a tuple (``tools[0]``, slices, ``len``, iteration, unpacking) and cannot be changed:
    make a new one, or a list (``[*tools, my_tool]``), to offer other tools."""

    def __init__(self, tools: Iterable[BaseTool]) -> None:
        self._tools = tuple(tools)
        names = [tool.name for tool in self._tools]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"two tools share a name: {', '.join(repeated)}")

    @property
    def names(self) -> list[str]:
        """The tools' names, in order."""
        return [tool.name for tool in self._tools]

    @overload
    def __getitem__(self, key: int) -> BaseTool: ...
    @overload
    def __getitem__(self, key: str) -> BaseTool: ...
    @overload
    def __getitem__(self, key: slice) -> Toolbox: ...
    def __getitem__(self, key: int | str | slice) -> BaseTool | Toolbox:
        if isinstance(key, slice):
            return Toolbox(self._tools[key])
        if isinstance(key, str):
            for tool in self._tools:
                if tool.name == key:
                    return tool
            raise KeyError(f"no tool named {key!r}: there are {', '.join(self.names)}")
        return self._tools[key]

    def __contains__(self, item: object) -> bool:
        """A tool, or a tool's name: ``"bash" in tools``."""
        return item in self.names if isinstance(item, str) else item in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[BaseTool]:
        return iter(self._tools)

    def __repr__(self) -> str:
        return f"Toolbox({self.names})"
