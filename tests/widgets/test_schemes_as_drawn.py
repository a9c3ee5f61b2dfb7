"""The schemes as the article draws them: the defects a review found in the static output stay fixed."""

from __future__ import annotations

import copy
import re

import pytest

from reactlab.widgets import (
    BeTheModel,
    RunViewer,
    scheme1_loop,
    scheme2_tool_call,
    scheme3_history,
    scheme4_stopping,
    scheme5_route,
)
from reactlab.widgets.base import COLOURS

from ..conftest import needs_sandbox
from .conftest import parse, text_of, with_class, without_show_more
from .hostile import EchoTool, hostile_record

YELLOW, VIOLET, RED, GREEN = (COLOURS[k][1] for k in ("model", "limit", "error", "ok"))


def swatch(element) -> str:
    """The colour of the first swatch inside ``element``."""
    rect = element.findall(".//{*}rect")[0]
    return rect.get("fill")


def test_every_id_on_a_page_is_unique_and_arrowheads_need_none(endings):
    record = endings["step_limit"]
    viewer = RunViewer(record, step=2)
    page = "".join(
        [viewer._repr_mimebundle_()["text/html"], *(p.value for p in viewer.stack.children),
         scheme1_loop(record, 2).value, scheme3_history(record, 2).value, scheme5_route(record, 2).value,
         scheme2_tool_call(record, 2).value, scheme4_stopping(record).value]
    )  # fmt: skip
    ids = [e.get("id") for e in parse(page).iter() if e.get("id")]
    assert len(ids) > 50 and len(ids) == len(set(ids))
    assert "<marker" not in page and "url(#" not in page  # no SVG id to collide: heads are polygons
    for scheme in (scheme1_loop(record, 2), scheme4_stopping(record)):
        edges = with_class(parse(scheme.value), "rl-edge")
        assert edges and all(len(edge.findall("{*}polygon")) == 1 for edge in edges)


@pytest.mark.parametrize("asked", [1, 2, 5])
def test_the_static_fallback_opens_the_step_the_code_asked_for(endings, asked):
    viewer = RunViewer(endings["step_limit"], step=asked)
    static = parse(viewer._repr_mimebundle_()["text/html"])
    opened = [d for d in static.iter("details") if d.get("open") and with_class(d, "rl-step")]
    assert [with_class(d, "rl-step")[0].get("data-step") for d in opened] == [str(asked)]


def test_the_final_answer_is_the_models_yellow(endings):
    record = endings["answer"]
    route = parse(scheme5_route(record).value)
    last = with_class(route, "rl-column")[-1]
    (answer,) = with_class(last, "rl-model")
    assert "final answer: done" in text_of(answer) and swatch(answer) == YELLOW
    assert COLOURS["ok"][0] not in scheme5_route(record).value  # green is for OK in test output only
    loop = parse(scheme1_loop(record).value)
    (node,) = [n for n in with_class(loop, "rl-node") if n.get("data-node") == "answer"]
    assert node.find("{*}rect").get("stroke") == YELLOW
    stopping = parse(scheme4_stopping(record).value)
    (end,) = with_class(stopping, "rl-end")
    assert end.get("data-node") == "final" and end.find("{*}rect").get("stroke") == YELLOW


@pytest.mark.parametrize(("reason", "node"), [("step_limit", "step_limit"), ("tool_call_limit", "tool_limit")])
def test_a_limit_stop_has_a_colour_of_its_own(endings, reason, node):
    record = endings[reason]
    (end,) = with_class(parse(scheme4_stopping(record).value), "rl-end")
    assert end.get("data-node") == node and end.find("{*}rect").get("stroke") == VIOLET != RED
    ending = {"step_limit": "the model-call limit", "tool_call_limit": "the tool-call limit"}[reason]
    assert f"it ended with a stop by {ending}." in text_of(parse(scheme4_stopping(record).value))
    (stop,) = with_class(parse(scheme5_route(record).value), "rl-end")
    assert swatch(stop) == VIOLET and COLOURS["limit"][0] in stop.get("style")
    loop = parse(scheme1_loop(record).value)
    (agent,) = with_class(loop, "rl-frame")  # the agent, the whole system, is the frame
    assert agent.get("data-node") == "agent" and agent.find("{*}rect").get("stroke") == VIOLET
    # an error still ends in red
    (broken,) = with_class(parse(scheme5_route(endings["invalid_message"]).value), "rl-end")
    assert swatch(broken) == RED


FLAGS = {
    "truncated": "truncated",
    "timed_out": "timed out",
    "replayed": "replayed, not run on this machine",
    "sandbox_unavailable": "sandbox unavailable",
}


@pytest.mark.parametrize("flag", FLAGS)
def test_a_flagged_tool_result_gets_a_badge(endings, flag):
    record = copy.deepcopy(endings["answer"])
    record.tool_executions[1].result[flag] = True
    for html in (scheme5_route(record).value, scheme2_tool_call(record, 1).value):
        badges = [text_of(b).strip() for b in with_class(parse(html), "rl-badge")]
        assert badges == [FLAGS[flag]]
    record.tool_executions[1].result[flag] = "yes"  # only a real true counts
    assert not with_class(parse(scheme5_route(record).value), "rl-badge")


def test_a_repaired_answer_says_what_was_repaired(endings):
    record = copy.deepcopy(endings["answer"])
    assert not with_class(parse(scheme5_route(record).value), "rl-badge")  # a record without the field
    record.model_calls[0].repairs = ["id was missing"]  # type: ignore[attr-defined]
    (column,) = [c for c in with_class(parse(scheme5_route(record).value), "rl-column") if c.get("data-call") == "1"]
    assert [text_of(b).strip() for b in with_class(column, "rl-badge")] == ["repaired: id was missing"]
    arrows = with_class(parse(scheme2_tool_call(record, 1).value), "rl-arrow")
    assert "repaired: id was missing" in text_of(arrows[1].find(".//summary"))


def test_scheme2_draws_every_step_an_edit_included():
    record = hostile_record(lambda: "x", stop_reason="answer", numbers_are_text=False)
    assert record.tool_executions[-1].result.get("diff")
    (edit,) = [
        a for a in with_class(parse(scheme2_tool_call(record, 2).value), "rl-arrow") if a.get("data-from") == "tool"
    ]
    assert "result: edited" in text_of(edit.find(".//summary"))


@needs_sandbox
def test_scheme2_is_the_single_bash_call_by_default_and_shows_the_id_both_ways(shop_record):
    root = parse(scheme2_tool_call(shop_record).value)
    assert root[0].get("data-step") == "2" and "One tool call, model call 2" in text_of(root)
    (execution,) = shop_record.executions_of(2)
    assert execution.name == "bash"
    arrows = with_class(root, "rl-arrow")
    assert [[text_of(c) for c in with_class(a, "rl-id")] for a in arrows] == [
        [], [execution.call_id], [], [], [execution.call_id]
    ]  # fmt: skip
    assert "tool_call_id" in text_of(arrows[-1].find(".//summary"))
    for step in (1, 2, 3, 4):  # every step that ran a tool, the edit (3) included
        parse(scheme2_tool_call(shop_record, step).value)


@needs_sandbox
def test_sizes_are_in_one_unit(shop_record):
    html = scheme2_tool_call(shop_record, 1).value + scheme5_route(shop_record).value
    sizes = [e.result["size"] for e in shop_record.executions_of(1)]
    for size in sizes:
        assert len(re.findall(rf"\b{size} bytes read\b", text_of(parse(html)))) == 2
    assert "characters" not in without_show_more(parse(html))  # a JSON block's "show more" counts its own


def test_be_the_model_says_it_needs_a_kernel():
    widget = BeTheModel([EchoTool(lambda: "note")], "take notes")
    try:
        fallback = widget._repr_mimebundle_()["text/html"]
        (note,) = with_class(parse(fallback), "rl-needs-kernel")
        assert "needs a running kernel" in text_of(note)
        widget.reply_with_answer("done")
        assert "needs a running kernel" not in widget.status.value  # nothing waits any more
    finally:
        widget.close()
