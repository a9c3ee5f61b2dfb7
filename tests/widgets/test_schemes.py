from __future__ import annotations

import copy
import json

import pytest

import reactlab.widgets.viewer as viewer_module
from reactlab.summary import stop_phrase
from reactlab.widgets import (
    RunViewer,
    scheme1_loop,
    scheme2_tool_call,
    scheme3_history,
    scheme4_stopping,
    scheme5_route,
)
from reactlab.widgets.base import COLOURS

from ..conftest import needs_sandbox
from .conftest import json_in, long_record, parse, text_of, with_class


@needs_sandbox
def test_route_has_a_column_per_model_call_and_real_verdicts(shop_record):
    root = parse(scheme5_route(shop_record, step=2).value)
    columns = with_class(root, "rl-column")
    assert [c.get("data-call") for c in columns] == ["1", "2", "3", "4", "5"]
    assert [len(with_class(c, "rl-tool")) for c in columns] == [3, 1, 1, 1, 0]
    assert [len(with_class(c, "rl-model")) for c in columns] == [1, 1, 1, 1, 1]
    assert "final answer" in text_of(with_class(columns[4], "rl-model")[0])
    assert [c.get("data-call") for c in with_class(root, "rl-current")] == ["2"]
    badges = [text_of(b) for b in with_class(root, "rl-verdict")]
    assert badges[3] == "FAIL · exit code 0" and badges[5] == "OK · exit code 0"
    assert "rl-is-error" in with_class(root, "rl-verdict")[3].get("class")
    (end,) = with_class(root, "rl-end")  # the last column: "final answer" is not repeated outside it
    assert end.get("data-stop") == "answer" and end.get("data-call") == "5"
    assert text_of(root).count("final answer") == 1
    assert "5 model calls · 6 tool executions" in text_of(root)


@needs_sandbox
def test_route_reads_fail_and_ok_from_the_output_not_the_cassette(shop_record):
    altered = copy.deepcopy(shop_record)
    altered.tool_executions[5].result["stdout"] = "Ran 3 tests\n\nFAILED (errors=1)\n"
    badges = [text_of(b) for b in with_class(parse(scheme5_route(altered).value), "rl-verdict")]
    assert badges[5] == "FAIL · exit code 0"


@needs_sandbox
def test_history_highlights_what_is_new_and_links_ids(shop_record):
    root = parse(scheme3_history(shop_record, step=3).value)
    entries = with_class(root, "rl-entry")
    assert [e.get("data-role") for e in entries] == [
        "system", "user", "assistant", "tool", "tool", "tool", "assistant", "tool"
    ]  # fmt: skip
    assert [e.get("data-index") for e in with_class(root, "rl-new")] == ["6", "7"]
    targets = {e.get("id") for e in root.iter() if e.get("id")}
    links = [a.get("href")[1:] for a in with_class(root, "rl-link")]
    assert len(links) == 4 and all(link in targets for link in links)
    (usage,) = with_class(root, "rl-usage")
    expected = shop_record.model_calls[2].usage["prompt_tokens"]
    assert f"prompt_tokens ≈ {expected}" in text_of(usage) and "estimated offline" in text_of(usage)
    first = parse(scheme3_history(shop_record, step=1).value)
    assert [e.get("data-index") for e in with_class(first, "rl-new")] == ["0", "1"]
    for scheme in (scheme1_loop, scheme3_history, scheme5_route):
        with pytest.raises(ValueError, match="between 1 and 5"):
            scheme(shop_record, step=6)
        with pytest.raises(ValueError, match="between 1 and 5"):
            scheme(shop_record, step=0)


@needs_sandbox
def test_history_shows_full_content_on_expanding(shop_record):
    root = parse(scheme3_history(shop_record, step=2).value)
    tool_entry = with_class(root, "rl-entry")[3]
    full = json.loads(json_in(tool_entry.find(".//pre"))["content"])
    assert full["path"] == "shop/delivery.py" and "def load_settings" in full["content"]


@needs_sandbox
def test_loop_highlights_the_current_phase(shop_record):
    def hot(step):
        root = parse(scheme1_loop(shop_record, step).value)
        return sorted(e.get("data-edge") for e in with_class(root, "rl-hot")), text_of(root)

    edges, text = hot(1)
    assert edges == ["model-tools", "task-model", "tools-model"]
    assert "call 1 of 5 (limit 8)" in text and "3 run (limit 16)" in text
    edges, text = hot(3)
    assert edges == ["model-tools", "tools-model"]
    edges, text = hot(5)
    assert edges == ["model-answer"]
    assert "6 run (limit 16)" in text and "final answer" in text


@needs_sandbox
def test_loop_draws_the_agent_as_the_whole_system_as_the_article_does(shop_record):
    """Scheme 1: "Agent" is the frame around the model, the tools and the loop, not a box beside them."""
    root = parse(scheme1_loop(shop_record, 2).value)
    (frame,) = with_class(root, "rl-frame")
    assert frame.get("data-node") == "agent" and text_of(frame).strip().startswith("Agent")
    assert "the whole system" in text_of(frame)
    x, y = float(frame.find("{*}rect").get("x")), float(frame.find("{*}rect").get("y"))
    width, height = float(frame.find("{*}rect").get("width")), float(frame.find("{*}rect").get("height"))
    inside = {n.get("data-node"): n.find("{*}rect") for n in with_class(root, "rl-node")}
    assert sorted(inside) == ["answer", "model", "task", "tools"]

    def within(rect) -> bool:
        left, top = float(rect.get("x")), float(rect.get("y"))
        return x <= left and left + float(rect.get("width")) <= x + width and y <= top <= y + height

    assert within(inside["model"]) and within(inside["tools"])
    assert not within(inside["task"]) and not within(inside["answer"])


@needs_sandbox
def test_sequence_draws_each_arrow_with_its_json(shop_record):
    root = parse(scheme2_tool_call(shop_record, step=1).value)
    arrows = with_class(root, "rl-arrow")
    there_and_back = [("agent", "tool"), ("tool", "agent")]
    expected = [("agent", "model"), ("model", "agent"), *there_and_back * 3, ("agent", "model")]
    assert [(a.get("data-from"), a.get("data-to")) for a in arrows] == expected
    assert "3 tool calls in one answer, model call 1" in text_of(with_class(root, "rl-title")[0])
    sent = json_in(arrows[0].find(".//pre"))
    assert sent == shop_record.model_calls[0].request
    back = json_in(arrows[-1].find(".//pre"))
    ids = [c["id"] for c in shop_record.model_calls[0].message["tool_calls"]]
    assert [m["tool_call_id"] for m in back] == ids and all(m["role"] == "tool" for m in back)
    with pytest.raises(ValueError, match="asked for no tool"):
        scheme2_tool_call(shop_record, step=5)
    with pytest.raises(ValueError, match="between 1 and 5"):
        scheme2_tool_call(shop_record, step=6)


ENDS = {
    "answer": "final",
    "empty_answer": "empty",
    "truncated_answer": "broken",
    "step_limit": "step_limit",
    "tool_call_limit": "tool_limit",
    "invalid_message": "broken",
    "api_connection_error": "broken",
}


@pytest.mark.parametrize("reason", ENDS)
def test_stopping_marks_where_each_run_ended(endings, reason):
    record = endings[reason]
    assert record.stop_reason == reason
    root = parse(scheme4_stopping(record).value)
    (end,) = with_class(root, "rl-end")
    assert end.get("data-node") == ENDS[reason]
    taken = {e.get("data-edge"): int(e.get("data-count")) for e in with_class(root, "rl-taken")}
    runs = sum(1 for c in record.model_calls if record.executions_of(c.number))
    assert taken.get("within-run_tools", 0) == runs
    if reason in ("truncated_answer", "invalid_message", "api_connection_error"):
        words = stop_phrase(reason, "en")
        assert words.split()[0] in text_of(end) and reason not in text_of(end)


def test_stopping_counts_each_model_call_once(endings):
    record = endings["step_limit"]
    root = parse(scheme4_stopping(record).value)
    times = {n.get("data-node"): text_of(n) for n in with_class(root, "rl-node")}
    assert len(record.model_calls) == 8
    assert "×8" in times["answered"] and "×8" in times["steps_left"] and "×9" not in "".join(times.values())


def test_a_refused_connection_lights_the_call_but_not_an_answer(endings):
    record = endings["api_connection_error"]
    root = parse(scheme4_stopping(record).value)
    nodes = {n.get("data-node"): n for n in with_class(root, "rl-node")}
    assert text_of(nodes["answered"]).split() == ["model", "call", "k", f"×{len(record.model_calls)}"]
    assert "no connection" in text_of(nodes["broken"]) and "rl-end" in nodes["broken"].get("class")
    taken = {e.get("data-edge"): e.get("data-count") for e in with_class(root, "rl-taken")}
    assert taken["usable-broken"] == "1" and taken["answered-usable"] == str(len(record.model_calls))


@pytest.mark.parametrize("reason", ENDS)
def test_every_scheme_draws_every_ending(endings, reason):
    record = endings[reason]
    for step in range(1, len(record.model_calls) + 1):
        parse(scheme1_loop(record, step).value)
        parse(scheme3_history(record, step).value)
        if record.executions_of(step):
            parse(scheme2_tool_call(record, step).value)
        route = parse(scheme5_route(record, step).value)
    (end,) = with_class(route, "rl-end")
    assert end.get("data-stop") == reason
    colour = {"answer": COLOURS["model"], "step_limit": COLOURS["limit"], "tool_call_limit": COLOURS["limit"]}
    fill, line = colour.get(reason, COLOURS["error"])
    swatches = [rect.get("fill") for rect in end.iter("rect")]
    assert swatches and swatches[-1] == line and (fill in end.get("style")) is (reason != "answer")


def test_error_cells_are_red(endings):
    root = parse(scheme5_route(endings["truncated_answer"]).value)
    assert "cut off" in text_of(with_class(root, "rl-error")[0])
    root = parse(scheme5_route(endings["empty_answer"]).value)
    assert "empty answer" in text_of(with_class(root, "rl-error")[0])


def test_mimebundle_carries_the_full_html_and_a_short_repr(endings):
    view = scheme5_route(endings["answer"])
    bundle = view._repr_mimebundle_()
    assert bundle["text/html"] == view.value and len(view.value) > 1000
    assert bundle["text/plain"] == "<Scheme 5: route, 2 model calls>"
    assert "<script" not in view.value and "http" not in view.value.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_rendering_is_deterministic_and_ids_are_unique(endings):
    record = endings["answer"]
    html = "".join(
        [scheme1_loop(record).value, scheme2_tool_call(record).value, scheme3_history(record).value,
         scheme4_stopping(record).value, scheme5_route(record).value]
    )  # fmt: skip
    again = "".join(
        [scheme1_loop(record).value, scheme2_tool_call(record).value, scheme3_history(record).value,
         scheme4_stopping(record).value, scheme5_route(record).value]
    )  # fmt: skip
    assert html == again
    ids = [e.get("id") for e in parse(html).iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    other = endings["empty_answer"]
    assert parse(scheme5_route(other).value)[0].get("id") != parse(scheme5_route(record).value)[0].get("id")


def test_viewer_steps_through_the_run(endings):
    record = endings["step_limit"]
    viewer = RunViewer(record)
    assert len(viewer.stack.children) == 8 and viewer.step == 8 and viewer.stack.selected_index == 7
    viewer.previous.click()
    assert viewer.step == 7 and viewer.stack.selected_index == 6
    viewer.show(1)
    viewer.previous.click()
    assert viewer.step == 1 and viewer.stack.selected_index == 0
    viewer.next.click()
    page = parse(viewer.stack.children[viewer.stack.selected_index].value)
    assert [e.get("data-step") for e in with_class(page, "rl-route")] == ["2"]
    assert [c.get("data-call") for c in with_class(page, "rl-current")] == ["2"]
    assert {e.get("data-step") for e in with_class(page, "rl-history")} == {"2"}
    bundle = viewer._repr_mimebundle_()
    static = parse(bundle["text/html"])
    assert len(with_class(static, "rl-step")) == 8 and bundle["text/plain"].startswith("<RunViewer: 8 steps")
    assert viewer.link.source == (viewer.slider, "index") and viewer.link.target == (viewer.stack, "selected_index")


def test_a_long_run_scrolls_instead_of_overflowing():
    record = long_record(200)
    root = parse(scheme5_route(record).value)
    (strip,) = with_class(root, "rl-scroll")
    assert "overflow-x: auto" in strip.get("style")
    assert len(with_class(root, "rl-column")) == 200 and with_class(root, "rl-end")[0].get("data-call") == "200"
    history = parse(scheme3_history(record).value)
    (messages,) = with_class(history, "rl-messages")
    assert "overflow-y: auto" in messages.get("style") and len(with_class(history, "rl-entry")) == 400


def test_a_long_run_renders_each_step_on_demand():
    record = long_record(200)
    viewer = RunViewer(record)
    assert not viewer.prerendered and viewer.link is None and len(viewer.stack.children) == 1
    viewer.show(3)
    page = parse(viewer.page())
    assert [e.get("data-step") for e in with_class(page, "rl-route")] == ["3"]
    viewer.next.click()
    assert [e.get("data-step") for e in with_class(parse(viewer.page()), "rl-history")] == ["4"]
    static = parse(viewer._repr_mimebundle_()["text/html"])
    assert [e.get("data-step") for e in with_class(static, "rl-step")] == ["4"]  # the step being shown


def test_a_step_that_cannot_be_drawn_says_so_on_the_page(monkeypatch, endings):
    """A callback's error goes to the kernel's log, which a student never sees: the page says it instead."""
    viewer = RunViewer(endings["step_limit"], prerender=False)

    def broken(*args, **kwargs):
        raise RuntimeError("cannot draw")

    monkeypatch.setattr(viewer_module, "step_html", broken)
    viewer.previous.click()  # from the last step, one back: drawn when the slider gets there
    assert "This widget failed (RuntimeError: cannot draw)" in viewer.page()
