from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def line_by_line(stdout: str, stderr: str) -> str | None:
    """What ``verdict`` means, one line at a time (as it was written before it read the whole output
    with one search: a megabyte of empty lines made a million searches)."""
    lines = f"{stdout}\n{stderr}".splitlines()
    if any(line.startswith("FAILED") or re.search(r"\b\d+ failed\b", line) for line in lines):
        return "FAIL"
    if any(line.strip() == "OK" or line.startswith("OK (") or re.search(r"\b\d+ passed\b", line) for line in lines):
        return "OK"
    return None


# Every line break splitlines() knows, the spaces strip() removes, and the words verdict looks for.
PIECES = ["OK", "OK (", "FAILED", " failed", " passed", "1", "12", "٣", " ", "\t", "\xa0", "\u3000", "\n",
          "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029", "a", "_", "(",
          "OKAY"]  # fmt: skip
outputs = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(stdout=outputs, stderr=outputs)
def test_verdict_means_what_it_meant_line_by_line(stdout, stderr):
    assert verdict({"stdout": stdout, "stderr": stderr}) == line_by_line(stdout, stderr)


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
