from __future__ import annotations

import pytest

from reactlab import BashTool, ToolError
from reactlab.tools.bash import DEFAULT_TIMEOUT, MAX_TIMEOUT

from ..conftest import needs_sandbox

pytestmark = needs_sandbox


def test_result_shape_and_pipeline_exit_code(shop):
    result = BashTool(shop).execute({"command": "python3 -m unittest discover -s tests -v 2>&1 | tail -30"})
    assert set(result) == {"ok", "exit_code", "truncated", "stdout", "stderr", "command", "cwd", "duration"}
    assert result["ok"] is True and result["exit_code"] == 0  # the exit code of `tail`, not of the tests
    assert "FAILED (failures=1)" in result["stdout"] and "AssertionError: 300 != 0" in result["stdout"]
    assert result["cwd"] == "/work" and result["truncated"] is False
    assert result["command"].startswith("python3 -m unittest")


def test_failing_command_is_still_ok_true(shop):
    result = BashTool(shop).execute({"command": "echo out; echo err >&2; exit 3"})
    assert (result["ok"], result["exit_code"], result["stdout"], result["stderr"]) == (True, 3, "out\n", "err\n")


def test_timeout_is_an_error_result(shop):
    result = BashTool(shop).execute({"command": "sleep 30", "timeout": 1})
    assert result["ok"] is False and result["timed_out"] is True and result["exit_code"] is None
    assert "Stopped after 1 s" in result["error"]


def test_truncated_output_is_flagged(shop):
    result = BashTool(shop).execute({"command": "seq 1 100000"})
    assert result["truncated"] is True and result["exit_code"] == 0 and result["stdout"].startswith("1\n2\n")


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ({"command": ""}, "command is empty"),
        ({"command": "ls", "timeout": 0}, "0 is less than the minimum of 1"),
        ({"command": "ls", "timeout": MAX_TIMEOUT + 1}, "121 is greater than the maximum of 120"),
        ({"command": "ls", "timeout": "5"}, "'5' is not of type 'integer'"),
        ({"command": "ls", "timeout": True}, "True is not of type 'integer'"),
        ({"command": ["ls"]}, r"\['ls'\] is not of type 'string'"),
        ({"command": "ls", "cwd": "/"}, r"\('cwd' was unexpected\)"),
        ({}, "'command' is a required property"),
    ],
)
def test_bad_arguments(shop, arguments, fragment):
    with pytest.raises(ToolError, match=fragment):
        BashTool(shop).execute(arguments)


def test_definition(shop):
    parameters = BashTool(shop).definition()["function"]["parameters"]
    assert parameters["required"] == ["command"] and parameters["additionalProperties"] is False
    assert parameters["properties"]["timeout"]["maximum"] == MAX_TIMEOUT
    assert str(DEFAULT_TIMEOUT) in parameters["properties"]["timeout"]["description"]
