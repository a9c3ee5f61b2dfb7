"""The article's run, offline, against the real tools in the real sandbox."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from reactlab import independent_test_run, run_in_copy, unchanged_paths
from reactlab.cli import main
from reactlab.samples import SHOP, SHOP_READ_ONLY, SHOP_TEST_COMMAND, shop_cassette, shop_path, shop_task
from reactlab.summary import verdict

from .conftest import needs_sandbox

pytestmark = needs_sandbox


def test_shop_run_end_to_end():
    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    try:
        record = outcome.record
        assert outcome.error is None and record.stop_reason == "answer"
        assert len(record.model_calls) == 5 and len(record.tool_executions) == 6
        route = [(e.model_call, e.name) for e in record.tool_executions]
        assert route == [(1, "read_file"), (1, "read_file"), (1, "read_file"), (2, "bash"), (3, "edit"), (4, "bash")]
        # FAIL and OK come from really running the tests, not from the cassette.
        first_run, second_run = record.tool_executions[3].result, record.tool_executions[5].result
        assert verdict(first_run) == "FAIL" and "300 != 0" in first_run["stdout"]
        assert first_run["exit_code"] == 0  # `| tail` hides the failure from the exit code
        assert verdict(second_run) == "OK" and "Ran 3 tests" in second_run["stdout"]
        assert record.tool_executions[4].result["ok"] is True

        check = independent_test_run(outcome.workspace, SHOP_TEST_COMMAND)
        assert check.exit_code == 0 and "OK" in check.stderr.splitlines()
        assert unchanged_paths(outcome.workspace, SHOP_READ_ONLY) == {"shop/settings.json": True, "tests": True}
        assert unchanged_paths(outcome.workspace, ["shop/delivery.py"]) == {"shop/delivery.py": False}
        assert 'Path("settings.json")' in (shop_path() / "shop/delivery.py").read_text()  # original untouched
    finally:
        outcome.workspace.cleanup()


def test_the_run_ends_its_sandbox_and_leaves_the_copy_to_the_caller():
    """The sandboxes built ahead for commands that never come end with the run: none is left
    binding the copy (or making mount points in it) while the caller inspects or removes it."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    ours = f"reactlab-jobs-{namespace}-{os.getpid()}-*"
    before = set(Path("/dev/shm").glob(ours)) | set(Path(tempfile.gettempdir()).glob(ours))
    client = shop_cassette().client()
    outcome = run_in_copy(SHOP, client)
    try:
        after = set(Path("/dev/shm").glob(ours)) | set(Path(tempfile.gettempdir()).glob(ours))
        assert after == before, "the run's jobs folder (its launchers' and built sandboxes' files) is gone"
        assert _processes_under(outcome.workspace.root) == [], "nothing runs in the copy"
    finally:
        outcome.workspace.cleanup()


def _processes_under(root: Path) -> list[str]:
    """Processes whose working folder is inside ``root`` (a bwrap that binds the copy chdirs into it)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == str(root) or cwd.startswith(f"{root}/"):
            found.append(pid)
    return found


def test_the_replayed_failure_is_real(tmp_path):
    """Break the sample differently: the cassette's edit no longer matches, and the run says so."""
    project = tmp_path / "shop"
    import shutil

    shutil.copytree(shop_path(), project)
    delivery = project / "shop/delivery.py"
    delivery.write_text(delivery.read_text().replace('Path("settings.json")', 'Path("./settings.json")'))
    outcome = run_in_copy(
        project, SHOP.cassette().client(), task=SHOP.task(), read_only=SHOP.read_only, files=SHOP.files
    )
    try:
        edit = outcome.record.tool_executions[4]
        assert edit.name == "edit" and edit.result["ok"] is False and "does not occur" in edit.result["error"]
        assert verdict(outcome.record.tool_executions[5].result) == "FAIL"
    finally:
        outcome.workspace.cleanup()


def test_demo_command(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "[model call 1] 3 tool call(s)" in out and "→ FAIL" in out and "→ OK" in out
    assert "5 model calls, 6 tool executions" in out
    assert "independent test run: OK (exit code 0)" in out
    assert "shop/settings.json: unchanged" in out and "tests: unchanged" in out


def test_run_command_json(capsys, tmp_path):
    cassette = shop_cassette().save(tmp_path / "shop.json")
    args = ["run", "--project", str(shop_path()), "--task", shop_task(), "--cassette", str(cassette), "--json"]
    for path in SHOP_READ_ONLY:
        args += ["--read-only", path]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["stop_reason"] == "answer" and data["answer"].startswith("Cause:")
    assert {"answer", "stop_reason", "model_calls", "tool_calls", "workspace", "steps"} <= set(data)
    assert (data["model_calls"], data["tool_calls"]) == (5, 6)
    # `run` keeps the working copy for inspection: the fix is there, the original is untouched.
    import shutil
    from pathlib import Path

    fixed = Path(data["workspace"]) / "shop/delivery.py"
    assert "Path(__file__).resolve().parent" in fixed.read_text()
    shutil.rmtree(data["workspace"])


def test_run_command_refuses_bad_input(capsys, tmp_path):
    assert main(["run", "--project", str(tmp_path / "nope"), "--task", "x", "--cassette", "c.json"]) == 2
    assert "reactlab:" in capsys.readouterr().err
    cassette = shop_cassette().save(tmp_path / "shop.json")
    args = ["run", "--project", str(shop_path()), "--task", "x", "--cassette", str(cassette), "--record", "o.json"]
    assert main(args) == 2
    assert "--record saves a live run" in capsys.readouterr().err


def test_demo_json(capsys):
    assert main(["demo", "--json", "--lang", "ru"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["stop_reason"] == "answer" and data["model_calls"] == 5 and data["tool_calls"] == 6
    assert [s["tool"] for s in data["steps"]] == ["read_file"] * 3 + ["bash", "edit", "bash"]
    assert set(data["steps"][0]) == {"model_call", "tool", "arguments", "result"}
    assert data["independent_test_run"] == {"verdict": "OK", "exit_code": 0, "changes": ["~ shop/delivery.py"]}
