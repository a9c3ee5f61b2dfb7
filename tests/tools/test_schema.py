"""Arguments are checked against the schema the model was sent, by a real JSON Schema validator."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema.exceptions import SchemaError

from reactlab import Agent, Script, ToolError
from reactlab.tools.base import MESSAGE_LIMIT, BaseTool


class PlanTool(BaseTool):
    """A student's tool with the parameter types the old hand-written checker did not know."""

    name = "plan"
    description = "Write a plan."

    def __init__(self) -> None:
        self.plans: list[dict[str, Any]] = []

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "steps": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 5},
                "options": {
                    "type": "object",
                    "properties": {
                        "depth": {"type": "integer", "minimum": 1},
                        "mode": {"enum": ["fast", "careful"]},
                    },
                    "required": ["depth"],
                    "additionalProperties": False,
                },
                "owner": {"type": ["string", "null"], "pattern": "^[a-z]+$"},
            },
            "required": ["steps"],
            "additionalProperties": False,
        }

    def run(self, steps: list[str], options: dict[str, Any] | None = None, owner: str | None = None) -> dict[str, Any]:  # type: ignore[override]
        self.plans.append({"steps": steps, "options": options, "owner": owner})
        return {"ok": True, "count": len(self.plans)}


def test_array_and_nested_object_parameters_work():
    tool = PlanTool()
    arguments = {"steps": ["read", "test"], "options": {"depth": 2, "mode": "careful"}, "owner": None}
    assert tool.execute(arguments) == {"ok": True, "count": 1}
    assert tool.execute({"steps": ["again"], "owner": "ann"}) == {"ok": True, "count": 2}
    assert tool.plans[0] == arguments


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ({}, "'steps' is a required property"),
        ({"steps": []}, "should be non-empty"),
        ({"steps": ["a"] * 6}, "is too long"),
        ({"steps": "read"}, "'read' is not of type 'array'"),
        ({"steps": ["read", 3]}, "3 is not of type 'string' (at $.steps[1])"),
        ({"steps": [""]}, "should be non-empty (at $.steps[0])"),
        ({"steps": ["a"], "options": {}}, "'depth' is a required property (at $.options)"),
        ({"steps": ["a"], "options": {"depth": 0}}, "0 is less than the minimum of 1 (at $.options.depth)"),
        ({"steps": ["a"], "options": {"depth": True}}, "True is not of type 'integer' (at $.options.depth)"),
        ({"steps": ["a"], "options": {"depth": 1, "mode": "yolo"}}, "'yolo' is not one of ['fast', 'careful']"),
        ({"steps": ["a"], "options": {"depth": 1, "rm": 1}}, "('rm' was unexpected) (at $.options)"),
        ({"steps": ["a"], "owner": "Robert'); DROP"}, "does not match '^[a-z]+$'"),
        ({"steps": ["a"], "extra": 1}, "('extra' was unexpected)"),
    ],
)
def test_the_validators_message_is_what_the_tool_raises(arguments, fragment):
    tool = PlanTool()
    with pytest.raises(ToolError) as raised:
        tool.execute(arguments)
    assert str(raised.value).startswith("plan: invalid arguments: ")
    assert fragment in str(raised.value)
    assert tool.plans == []


def test_several_problems_are_counted():
    with pytest.raises(ToolError, match=r"\(2 more problem\(s\)\)"):
        PlanTool().execute({"steps": [1, 2], "extra": True})


@pytest.mark.parametrize(
    "arguments",
    [
        {"steps": "x" * 200_000},  # the value is quoted in the message
        {"steps": ["a"], "options": {"depth": 1, "mode": "y" * 200_000}},
        {"steps": ["a"], **{f"key{i}": i for i in range(20_000)}},  # every unexpected name is listed
        {"steps": ["a"], "owner": "z" * 200_000 + "!"},
        {"steps": [["deep"] * 50_000]},
    ],
)
def test_the_message_is_bounded_and_keeps_both_ends(arguments):
    with pytest.raises(ToolError) as raised:
        PlanTool().execute(arguments)
    message = str(raised.value)
    assert len(message) < 2 * MESSAGE_LIMIT
    assert "characters cut" in message


def test_the_model_gets_the_message_and_the_run_goes_on():
    tool = PlanTool()
    script = Script().tool_call("plan", steps=["a", {"b": 1}]).tool_call("plan", steps=["a", "b"]).final_answer("done")
    agent = Agent(script.client(), [tool])
    assert agent.run("plan it") == "done"
    first, second = agent.record.tool_executions
    message = "plan: invalid arguments: {'b': 1} is not of type 'string' (at $.steps[1])"
    assert first.result == {"ok": False, "error": message}
    assert json.loads(agent.record.model_calls[1].messages[-1]["content"]) == first.result
    assert second.result == {"ok": True, "count": 1}
    assert agent.record.tools[0]["function"]["parameters"] == tool.parameters()  # the schema it was checked by


class BrokenSchemaTool(PlanTool):
    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"steps": {"type": "list"}}}


def test_a_schema_that_is_not_json_schema_fails_before_the_run():
    with pytest.raises(SchemaError, match="'list' is not valid"):
        BrokenSchemaTool().definition()
    agent = Agent(Script().final_answer("never").client(), [BrokenSchemaTool()])
    with pytest.raises(SchemaError):
        agent.run("plan it")
    assert agent.record is None  # nothing was sent


def test_importing_reactlab_skips_the_slow_iri_grammar_and_leaves_it_importable():
    """jsonschema would import rfc3987_syntax (over a second of grammar building) where Jupyter
    installed it; reactlab checks no formats, so a fresh interpreter must not pay for it."""
    import subprocess
    import sys

    probe = (
        "import sys, importlib.util, reactlab.tools\n"
        "print('rfc3987_syntax' in sys.modules, sys.modules.get('rfc3987_syntax', 'absent') is None)\n"
        "if importlib.util.find_spec('rfc3987_syntax'):\n"
        "    import rfc3987_syntax\n"
        "    print('importable', rfc3987_syntax.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "False False"  # neither imported nor left blocked
    assert lines[1:] in ([], ["importable rfc3987_syntax"])
