from __future__ import annotations

import pytest

from reactlab import SandboxResult, ToolExecution
from reactlab.changes import Manifest
from reactlab.runner import IndependentRun
from reactlab.summary import describe_arguments, key_lines, verdict


@pytest.mark.parametrize(
    "stdout, expected",
    [
        ("Ran 3 tests in 0.001s\n\nFAILED (failures=1)\n", "FAIL"),
        ("Ran 3 tests in 0.001s\n\nOK\n", "OK"),
        ("Ran 3 tests in 0.001s\n\nOK (skipped=1)\n", "OK"),
        ("===== 2 failed, 1 passed in 0.1s =====", "FAIL"),
        ("===== 3 passed in 0.1s =====", "OK"),
        ("total 0\nshop tests\n", None),
        ("Looks OK to me", None),
    ],
)
def test_verdict_is_read_from_the_output(stdout, expected):
    assert verdict({"stdout": stdout, "stderr": ""}) == expected
    assert verdict({"stdout": "", "stderr": stdout}) == expected  # unittest writes to stderr


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_verdict_reads_a_finished_command_as_well_as_a_bash_result(stream):
    failed = "Ran 3 tests in 0.001s\n\nFAILED (failures=1)\n"
    streams = {"stdout": "", "stderr": ""} | {stream: failed}
    result = SandboxResult(exit_code=0, truncated=False, timed_out=False, duration=0.1, **streams)
    assert verdict(result) == "FAIL"  # exit code 0 (a pipe into tail): the output decides
    passed = {"stdout": "", "stderr": ""} | {stream: "Ran 3 tests in 0.001s\n\nOK\n"}
    rerun = IndependentRun(exit_code=0, truncated=False, timed_out=False, duration=0.1, manifest=Manifest(), **passed)
    assert verdict(rerun) == "OK"
    assert verdict({stream: "total 0\n"}) is None  # a bash result may lack the other stream


def test_key_lines():
    bash = {"ok": True, "exit_code": 0, "truncated": True, "stdout": "x\nFAIL: test_a\nAssertionError: 1 != 2\n"}
    assert key_lines(bash) == ["exit_code 0 (truncated)", "FAIL: test_a", "AssertionError: 1 != 2"]
    assert key_lines({"ok": False, "error": "nope"}) == ["error: nope"]
    assert key_lines({"ok": True, "content": "abc", "truncated": False}) == ["3 characters"]
    diff = {"ok": True, "diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"}
    assert key_lines(diff) == ["-old", "+new"]


def test_describe_arguments():
    execution = ToolExecution(1, "c", "edit", '{"path": "a.py", "old_text": "x\\n  y", "new_text": "z"}', {})
    assert describe_arguments(execution) == "path=a.py, old_text=x y, new_text=z"
    assert describe_arguments(execution, first_only=True) == "path=a.py"
    assert describe_arguments(ToolExecution(1, "c", "bash", "{broken", {})) == "{broken"
