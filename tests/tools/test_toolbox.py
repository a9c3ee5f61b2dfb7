"""Toolbox: default_tools' tools, found by name or by position, and still what Agent takes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reactlab import Agent, BashStandIn, Script, Toolbox, Workspace, default_tools
from reactlab.core.tools import EditTool, ReadFileTool
from reactlab.samples import SHOP


@pytest.fixture
def shop() -> Iterator[Workspace]:
    with Workspace(SHOP.path, SHOP.read_only) as workspace:
        yield workspace


def test_default_tools_are_found_by_name_and_by_position(shop):
    tools = default_tools(shop, SHOP.files)
    assert isinstance(tools, Toolbox) and tools.names == ["read_file", "bash", "edit"]
    assert tools["read_file"] is tools[0] and tools["bash"] is tools[1] and tools["edit"] is tools[-1]
    assert isinstance(tools["read_file"], ReadFileTool) and isinstance(tools["edit"], EditTool)
    assert "bash" in tools and tools[1] in tools and "delete_file" not in tools
    read, bash, edit = tools
    assert [read, bash, edit] == list(tools) and len(tools) == 3


def test_an_unknown_name_says_which_there_are(shop):
    with pytest.raises(KeyError, match="no tool named 'delete_file': there are read_file, bash, edit"):
        default_tools(shop, SHOP.files)["delete_file"]


def test_a_slice_is_a_toolbox_too_and_nothing_changes_the_original(shop):
    tools = default_tools(shop, SHOP.files)
    ends = tools[::2]
    assert isinstance(ends, Toolbox) and ends.names == ["read_file", "edit"]
    assert repr(ends) == "Toolbox(['read_file', 'edit'])"
    offered = [*ends, BashStandIn("built by hand")]
    assert [tool.name for tool in offered] == ["read_file", "edit", "bash"] and tools.names[1] == "bash"
    with pytest.raises(TypeError):
        tools[0] = tools[2]  # type: ignore[index]


def test_two_tools_with_one_name_are_refused(shop):
    with pytest.raises(ValueError, match="two tools share a name: edit"):
        Toolbox([EditTool(shop), ReadFileTool(shop, SHOP.files), EditTool(shop)])


def test_the_agent_takes_a_toolbox_as_it_takes_a_list(shop):
    script = Script().tool_call("read_file", path="shop/settings.json").final_answer("read")
    for tools in (default_tools(shop, SHOP.files), [*default_tools(shop, SHOP.files)]):
        agent = Agent(script.client(), tools)
        assert agent.run("read the settings") == "read"
        assert sorted(agent.tools) == ["bash", "edit", "read_file"]
        assert agent.record.tool_executions[0].result["ok"] is True
