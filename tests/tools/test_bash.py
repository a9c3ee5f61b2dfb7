from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from reactlab import Agent, BashTool, Cassette, SandboxUnavailable, Script, ToolError, Workspace, default_tools
from reactlab.core.sandbox import walk
from reactlab.core.tools.bash import DEFAULT_TIMEOUT, MAX_TIMEOUT, REPLAYED_NOTE, BashStandIn
from reactlab.samples import SHOP_FILES, SHOP_READ_ONLY, shop_cassette, shop_path

from ..conftest import needs_sandbox, without_sandbox

NO_SANDBOX = "no sandbox in this test: the stand-in is built directly"


@needs_sandbox
def test_result_shape_and_pipeline_exit_code(shop):
    result = BashTool(shop).execute({"command": "python3 -m unittest discover -s tests -v 2>&1 | tail -30"})
    assert set(result) == {"ok", "exit_code", "truncated", "stdout", "stderr", "command", "cwd", "duration"}
    assert result["ok"] is True and result["exit_code"] == 0  # the exit code of `tail`, not of the tests
    assert "FAILED (failures=1)" in result["stdout"] and "AssertionError: 300 != 0" in result["stdout"]
    assert result["cwd"] == "/work" and result["truncated"] is False
    assert result["command"].startswith("python3 -m unittest")


def children() -> set[int]:
    """The pids of this process's children, from /proc (zombies included)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.add(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


@needs_sandbox
def test_nothing_is_built_ahead_and_nothing_outlives_a_command(shop):
    """One simple path: making the tool starts no process, and each command's sandbox ends with it."""
    before = children()
    tool = BashTool(shop)
    try:
        assert children() == before, "a process was started before any command"
        assert tool.run("echo first")["stdout"] == "first\n"
        assert children() == before, "a process of the command outlived it"
        assert tool.run("sleep 60 & echo second")["stdout"] == "second\n"
        assert children() == before
    finally:
        tool.sandbox.close()


@needs_sandbox
def test_failing_command_is_still_ok_true(shop):
    result = BashTool(shop).execute({"command": "echo out; echo err >&2; exit 3"})
    assert (result["ok"], result["exit_code"], result["stdout"], result["stderr"]) == (True, 3, "out\n", "err\n")


@needs_sandbox
def test_timeout_is_an_error_result(shop):
    result = BashTool(shop).execute({"command": "sleep 30", "timeout": 1})
    assert result["ok"] is False and result["timed_out"] is True and result["exit_code"] is None
    assert "Stopped after 1 s" in result["error"]


@needs_sandbox
def test_truncated_output_is_flagged(shop):
    result = BashTool(shop).execute({"command": "seq 1 100000"})
    assert result["truncated"] is True and result["exit_code"] == 0 and result["stdout"].startswith("1\n2\n")


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ({"command": ""}, "command is empty"),
        ({"command": "echo \ud800"}, "not Unicode text \\(a lone surrogate at character 5\\)"),
        ({"command": "\udfffls"}, "lone surrogate at character 0"),
        ({"command": "ls", "timeout": 0}, "0 is less than the minimum of 1"),
        ({"command": "ls", "timeout": MAX_TIMEOUT + 1}, "121 is greater than the maximum of 120"),
        ({"command": "ls", "timeout": "5"}, "'5' is not of type 'integer'"),
        ({"command": "ls", "timeout": True}, "True is not of type 'integer'"),
        ({"command": ["ls"]}, r"\['ls'\] is not of type 'string'"),
        ({"command": "ls", "cwd": "/"}, r"\('cwd' was unexpected\)"),
        ({}, "'command' is a required property"),
    ],
)
@pytest.mark.parametrize("real", [pytest.param(True, marks=needs_sandbox), False], ids=["sandboxed", "stand-in"])
def test_bad_arguments(shop, arguments, fragment, real):
    tool = BashTool(shop) if real else BashStandIn(NO_SANDBOX)
    with pytest.raises(ToolError, match=fragment):
        tool.execute(arguments)


@needs_sandbox
def test_definition(shop):
    parameters = BashTool(shop).definition()["function"]["parameters"]
    assert parameters["required"] == ["command"] and parameters["additionalProperties"] is False
    assert parameters["properties"]["timeout"]["maximum"] == MAX_TIMEOUT
    assert str(DEFAULT_TIMEOUT) in parameters["properties"]["timeout"]["description"]


def test_stand_in_offers_the_same_definition_as_bash():
    assert BashStandIn(NO_SANDBOX).definition() == BashTool.definition(BashStandIn(NO_SANDBOX))
    assert BashStandIn(NO_SANDBOX).name == "bash"


def _replay_shop(tools_for) -> Agent:
    agent = Agent(shop_cassette().client(), tools_for())
    agent.run("the shop task")  # the cassette checks structure only, so any task text replays
    return agent


def test_stand_in_replays_each_observation_the_cassette_recorded(shop):
    agent = _replay_shop(lambda: [*default_tools(shop, SHOP_FILES)[::2], BashStandIn(NO_SANDBOX)])
    recorded = {c.call_id: json.loads(c.observation) for c in shop_cassette().recorded_calls() if c.name == "bash"}
    bash = [e for e in agent.record.tool_executions if e.name == "bash"]
    assert [e.call_id for e in bash] == list(recorded)
    for execution in bash:
        assert execution.result == {**recorded[execution.call_id], "replayed": True, "note": REPLAYED_NOTE}
    assert "FAILED (failures=1)" in bash[0].result["stdout"] and bash[1].result["stdout"].rstrip().endswith("OK")
    edit = next(e for e in agent.record.tool_executions if e.name == "edit")
    assert edit.result["ok"] is True and "replayed" not in edit.result  # edit really ran on the copy
    assert 'Path(__file__).resolve().parent / "settings.json"' in (shop.root / "shop/delivery.py").read_text()


def _unavailable(result: dict) -> bool:
    refused = result["ok"] is False and result["sandbox_unavailable"] is True
    return refused and "never runs on the host" in result["error"]


def test_scripted_or_live_bash_without_a_sandbox_is_a_result_the_model_reads(tmp_path):
    marker = tmp_path / "ran"
    script = Script().tool_call("bash", command=f"touch {marker}").final_answer("I could not run it.")
    agent = Agent(script.client(), [BashStandIn(NO_SANDBOX)])
    assert agent.run("task") == "I could not run it."  # the run went on
    result = agent.record.tool_executions[0].result
    assert _unavailable(result) and NO_SANDBOX in result["error"]
    assert not marker.exists()
    assert json.loads(agent.record.messages[3]["content"]) == result  # the model saw it


def _cassette_with(observation: str | None, drop_request: bool = False) -> Cassette:
    cassette = shop_cassette()
    first_bash = next(c for c in cassette.recorded_calls() if c.name == "bash")
    following = cassette.interactions[first_bash.interaction]
    if drop_request:
        del following["request"]
    else:
        for message in following["request"]["messages"]:
            if message.get("tool_call_id") == first_bash.call_id:
                message["content"] = observation
    return cassette


@pytest.mark.parametrize(
    "observation, drop_request, fragment",
    [
        (None, True, "holds no observation for call"),
        ("not json {", False, "is not a JSON object"),
        ('["a", "list"]', False, "is not a JSON object"),
        ('"a string"', False, "is not a JSON object"),
        (json.dumps({"stdout": "x" * 200_000}), False, "over 100000"),
        ("[" * 100_000, False, "is not a JSON object"),
    ],
    ids=["request missing", "broken JSON", "array", "string", "too large", "deeply nested"],
)
def test_hostile_or_incomplete_cassettes_are_not_replayed(shop, observation, drop_request, fragment):
    cassette = _cassette_with(observation, drop_request)
    agent = Agent(cassette.client(), [*default_tools(shop, SHOP_FILES)[::2], BashStandIn(NO_SANDBOX)])
    agent.run("the shop task")
    first_bash = next(e for e in agent.record.tool_executions if e.name == "bash")
    assert _unavailable(first_bash.result) and fragment in first_bash.result["error"]
    assert "replayed" not in first_bash.result


def test_a_recorded_call_is_replayed_only_for_the_same_arguments():
    cassette = shop_cassette()
    client = cassette.client()
    recorded = next(c for c in cassette.recorded_calls() if c.name == "bash")
    for interaction in cassette.interactions[: recorded.interaction]:  # serve the answers up to the bash call
        client.send(interaction["request"]["messages"], interaction["request"]["tools"])
    stand_in = BashStandIn(NO_SANDBOX)
    assert _unavailable(stand_in.execute({"command": "rm -rf /"}))
    command = json.loads(recorded.arguments)["command"]
    assert _unavailable(stand_in.execute({"command": command, "timeout": 5}))  # other arguments
    assert stand_in.execute({"command": command})["replayed"] is True
    assert _unavailable(stand_in.execute({"command": command}))  # each recorded call is handed out once


def test_threads_replaying_side_by_side_each_get_their_own_observations():
    """Half the class replays a cassette whose bash results were changed: nobody gets another's."""

    def cassette_for(student: int) -> Cassette:
        cassette = shop_cassette()
        for interaction in cassette.interactions[1:]:
            for message in interaction["request"]["messages"]:
                if message["role"] == "tool" and '"command"' in message["content"]:
                    message["content"] = json.dumps({**json.loads(message["content"]), "stdout": f"student {student}"})
        return cassette

    def one_student(student: int) -> list[str]:
        with Workspace(shop_path(), SHOP_READ_ONLY) as copy:
            tools = [*default_tools(copy, SHOP_FILES)[::2], BashStandIn(NO_SANDBOX)]
            agent = Agent(cassette_for(student).client(), tools)
            agent.run("the shop task")
        return [e.result["stdout"] for e in agent.record.tool_executions if e.result.get("replayed")]

    with ThreadPoolExecutor(max_workers=8) as pool:
        runs = list(pool.map(one_student, range(16)))
    assert runs == [[f"student {student}"] * 2 for student in range(16)]


NO_SANDBOX_RUN = textwrap.dedent(
    """
    import json, sys
    from reactlab import Script, Agent, Workspace, default_tools, run_in_copy
    from reactlab.samples import SHOP, SHOP_FILES, SHOP_READ_ONLY, shop_path, shop_task

    replayed = run_in_copy(SHOP, SHOP.cassette().client())
    fixed = (replayed.workspace.root / "shop/delivery.py").read_text()
    replayed.workspace.cleanup()
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    script = Script().tool_call("bash", command="touch " + sys.argv[1]).final_answer("went on")
    scripted = Agent(script.client(), default_tools(workspace, SHOP_FILES))
    answer = scripted.run(shop_task())
    workspace.cleanup()
    print(json.dumps({
        "answer": replayed.answer, "fixed": fixed,
        "tools": [type(t).__name__ for t in default_tools(workspace, SHOP_FILES)],
        "results": [[e.name, e.result] for e in replayed.record.tool_executions],
        "scripted": [answer, scripted.record.tool_executions[0].result],
    }))
    """
)


def test_without_a_sandbox_for_real_bash_replays_or_refuses_and_nothing_runs_on_the_host(tmp_path):
    """bwrap installed but unable to build a sandbox (bound to /bin/false), as on Ubuntu 24.04 or Docker."""
    marker = tmp_path / "ran-on-the-host"
    argv = without_sandbox([sys.executable, "-c", NO_SANDBOX_RUN, str(marker)])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["tools"] == ["ReadFileTool", "BashStandIn", "EditTool"]
    bash = [result for name, result in seen["results"] if name == "bash"]
    assert len(bash) == 2 and all(r["replayed"] is True and r["note"] == REPLAYED_NOTE for r in bash)
    reads = [result for name, result in seen["results"] if name == "read_file"]
    assert all(r["ok"] and "replayed" not in r for r in reads) and "def delivery_price" in reads[0]["content"]
    assert 'Path(__file__).resolve().parent / "settings.json"' in seen["fixed"]  # edit really ran
    assert seen["answer"].startswith("Cause: load_settings()")
    answer, refused = seen["scripted"]
    assert answer == "went on" and _unavailable(refused) and "/usr/bin/bwrap" in refused["error"]
    assert not marker.exists()


@needs_sandbox
@pytest.mark.parametrize("ending", ["cleanup", "with", "after_a_command"])
def test_removing_the_copy_closes_the_bash_tools_sandbox_on_it(ending):
    """However the caller removes the copy, the bash tool's sandbox on it is closed first: its
    cgroups and snapshot go, and a later command says the sandbox was closed."""
    for _ in range(3):
        workspace = Workspace(shop_path(), SHOP_READ_ONLY)
        if ending == "with":
            with workspace:
                tool = BashTool(workspace)
        else:
            tool = BashTool(workspace)
            if ending == "after_a_command":
                assert tool.execute({"command": "true"})["ok"] is True
            assert workspace.cleanup() is True, "all of the copy could be removed"
        assert not workspace.folder.exists(), "the copy and its folder are gone"
        assert not tool.sandbox.snapshot.exists(), "the sandbox on the copy was closed with it"
        with pytest.raises(SandboxUnavailable, match="closed"):
            tool.run("true")


class _SlowRemoval:
    """The os module as reactlab.core.sandbox.walk sees it, but each folder's removal takes a little longer: it
    widens the window in which a sandbox still building could re-make a mount point in the copy."""

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    @staticmethod
    def rmdir(*args: object, **kwargs: object) -> None:
        time.sleep(0.03)
        os.rmdir(*args, **kwargs)


@needs_sandbox
def test_no_mount_point_is_made_again_while_the_copy_is_removed(monkeypatch):
    """Removing the copy slowly, right after the bash tool is made (or a command ran): no mount
    point is made again in it, as bwrap did when sandboxes were built in the background."""
    monkeypatch.setattr(walk, "os", _SlowRemoval())
    for attempt in range(8):
        workspace = Workspace(shop_path(), SHOP_READ_ONLY)
        tool = BashTool(workspace)
        if attempt % 2:
            tool.run("true")
        time.sleep(attempt * 0.01)
        removed = workspace.cleanup()
        left = sorted(str(p.relative_to(workspace.folder)) for p in workspace.folder.rglob("*"))
        tool.sandbox.close()
        walk.remove_tree(workspace.folder)
        assert removed is True and left == [], f"attempt {attempt}: left in the copy: {left}"


@needs_sandbox
def test_a_command_running_when_its_copy_is_removed_is_not_called_timed_out():
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    tool = BashTool(workspace)
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(tool.execute, {"command": "echo started > started; sleep 60", "timeout": 90})
        deadline = time.monotonic() + 20
        while not (workspace.root / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert workspace.cleanup() is True
        with pytest.raises(SandboxUnavailable, match="closed while the command ran"):
            running.result(timeout=30)


@needs_sandbox
def test_a_bash_tool_whose_copy_was_removed_says_so():
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    tool = BashTool(workspace)
    assert workspace.cleanup() is True
    with pytest.raises(SandboxUnavailable, match="closed"):
        tool.execute({"command": "true"})
