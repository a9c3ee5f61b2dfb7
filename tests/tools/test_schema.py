"""Arguments are checked against the schema the model was sent, by reactlab's own JSON Schema checker
(tools/schema.py), held against jsonschema itself as the oracle."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from reactlab import Agent, Script, ToolError
from reactlab.core.tools.base import MESSAGE_LIMIT, BaseTool
from reactlab.core.tools.schema import KEYWORDS, Schema, SchemaError
from reactlab.replay.cassette import SCHEMA


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
    with pytest.raises(SchemaError, match=r"\$.properties.steps.type: 'list' is not valid"):
        BrokenSchemaTool().definition()
    agent = Agent(Script().final_answer("never").client(), [BrokenSchemaTool()])
    with pytest.raises(SchemaError):
        agent.run("plan it")
    assert agent.record is None  # nothing was sent


def test_importing_reactlab_imports_no_jsonschema():
    """jsonschema needs rpds-py, which has no WebAssembly wheel: the browser build cannot hold it."""
    import subprocess
    import sys

    probe = (
        "import sys, reactlab, reactlab.core.tools, reactlab.replay.cassette, reactlab.widgets, reactlab.cli\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'rpds', 'referencing')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


@pytest.mark.parametrize(
    "schema, refused",
    [
        ({"anyOf": [{"type": "string"}]}, "'anyOf' is not a keyword reactlab checks"),
        ({"properties": {"a": {"format": "email"}}}, r"\$.properties.a: 'format' is not a keyword"),
        ({"required": "a"}, r"\$.required: 'a' is not valid here"),
        ({"minLength": -1}, r"\$.minLength: -1 is not valid here"),
        ({"pattern": "("}, "is not a regular expression"),
        ({"$ref": "#/$defs/nowhere"}, "points at nothing"),
        ({"$ref": "https://example.com/schema"}, "only references inside the schema"),
        ([], "a schema is an object"),
    ],
)
def test_a_keyword_it_cannot_check_is_refused_by_name(schema, refused):
    """A keyword passed over would let a model's arguments through unchecked: it is refused instead."""
    with pytest.raises(SchemaError, match=refused):
        Schema(schema)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-3, 3) | st.text("ab^$ ", max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["n", "e", "depth", "mode"]), inner),
    max_leaves=12,
)
PLAN_LIKE = st.dictionaries(st.sampled_from(["steps", "options", "owner", "extra"]), JSON | st.lists(JSON, max_size=6))
CHECKED = [
    PlanTool().parameters(),
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 2}, "e": {"const": [1, True]}}},
    {"enum": [0, 1, "1", None, [1.0], {"n": 0}]},
    {"type": ["number", "null"], "maximum": 1.5},
    {"items": {"type": "string", "maxLength": 2, "pattern": "b"}, "minItems": 1, "maxItems": 2},
]


@settings(max_examples=300, deadline=None)
@given(st.one_of(PLAN_LIKE, JSON))
@example({"n": 1.5}).via("an integer is a whole number")
@example({"n": 2.0}).via("2.0 is an integer")
@example(True).via("true is not 1")
@example(False).via("false is not 0")
@example([True]).via("[true] is not [1.0]")
@example({"e": [True, 1]}).via("nor inside a const")
@example(["ab"]).via("pattern matches anywhere")
def test_it_agrees_with_jsonschema(instance):
    """For schemas of every keyword it checks, it finds a problem exactly when jsonschema does."""
    for schema in CHECKED:
        assert (not list(Schema(schema).problems(instance))) == Draft202012Validator(schema).is_valid(instance)
    assert {keyword for schema in CHECKED for keyword in json.dumps(schema).split('"')} >= KEYWORDS - {"$ref"}


def test_the_cassette_format_is_checked_as_jsonschema_checks_it():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    shop = json.loads((SCHEMA.parent.parent / "samples" / "shop_run.json").read_text(encoding="utf-8"))
    broken = json.loads(json.dumps(shop))
    broken["interactions"][1]["response"]["usage"]["prompt_tokens"] = -1
    broken["interactions"][2]["request"]["messages"][0]["role"] = "boss"
    for data in (shop, broken, {"format": "x"}, []):
        found = [(p.path, p.keyword) for p in Schema(schema).problems(data)]
        expected = [(tuple(e.absolute_path), e.validator) for e in Draft202012Validator(schema).iter_errors(data)]
        assert sorted(found, key=str) == sorted(expected, key=str)
