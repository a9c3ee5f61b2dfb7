"""Nothing a model, a cassette or a server sends reaches the page as markup.

ipywidgets' HTML puts its value into JupyterLab unsanitized, so a tool name such as
``<img src=x onerror=...>`` would run JavaScript there, and JavaScript in JupyterLab can start a
kernel and run Python on the host. Every scheme, the viewer and BeTheModel render records whose every
string is hostile; the output must hold no element, attribute, handler or URL the data chose.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactlab import RunRecord
from reactlab.widgets import (
    BeTheModel,
    RunViewer,
    scheme1_loop,
    scheme2_tool_call,
    scheme3_history,
    scheme4_stopping,
    scheme5_route,
)
from reactlab.widgets.markup import number

from .hostile import PAYLOADS, EchoTool, hostile_record, problems, visible_text


def every_rendering(record: RunRecord) -> dict[str, str]:
    """Each scheme at each step, the viewer's live pages and its static HTML."""
    html = {"scheme4": scheme4_stopping(record).value}
    for step in range(1, len(record.model_calls) + 1):
        html[f"scheme1 step {step}"] = scheme1_loop(record, step).value
        html[f"scheme3 step {step}"] = scheme3_history(record, step).value
        html[f"scheme5 step {step}"] = scheme5_route(record, step).value
        if record.executions_of(step):
            html[f"scheme2 step {step}"] = scheme2_tool_call(record, step).value
    viewer = RunViewer(record, step=1)
    html["viewer static"] = viewer._repr_mimebundle_()["text/html"]
    html.update({f"viewer page {k}": page.value for k, page in enumerate(viewer.stack.children, 1)})
    long_viewer = RunViewer(record, step=2, prerender=False)
    html["viewer on demand"] = long_viewer.page() + long_viewer.static_html()
    return html


def assert_inert(renderings: dict[str, str]) -> None:
    found = {name: problems(html) for name, html in renderings.items()}
    assert {name: found for name, found in found.items() if found} == {}


hostile_text = st.builds(
    lambda before, payload, after: before + payload + after,
    st.text(max_size=4),
    st.sampled_from(PAYLOADS),
    st.text(max_size=4),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    stop_reason=st.one_of(st.none(), st.sampled_from(["answer", "step_limit", "tool_call_limit", "empty_answer"])),
    numbers_are_text=st.booleans(),
)
def test_no_string_from_a_run_reaches_the_page_as_markup(data, stop_reason, numbers_are_text):
    record = hostile_record(lambda: data.draw(hostile_text), stop_reason=stop_reason, numbers_are_text=numbers_are_text)
    assert_inert(every_rendering(record))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_each_payload_everywhere_is_shown_as_text(payload):
    """Escaped, not dropped: the reader sees what the model sent."""
    record = hostile_record(lambda: payload)
    renderings = every_rendering(record)
    assert_inert(renderings)
    route = visible_text(renderings["scheme5 step 3"])
    assert payload[:40] in route  # the tool name, in plain sight
    history = visible_text(renderings["scheme3 step 3"])
    assert payload[:16] in history and json.dumps(payload, ensure_ascii=False)[1:-1][:40] in history


def test_templates_are_not_evaluated_twice():
    record = hostile_record(lambda: "{{ 7*7 }}")
    text = visible_text(scheme5_route(record).value)
    assert "{{ 7*7 }}" in text and "49" not in text


@pytest.mark.parametrize(
    "value",
    ["<img src=x onerror=alert(1)>", "12<script>", "1e3", True, False, None, float("nan"), float("inf"), [1], {"a": 1}],
)
def test_usage_that_is_not_a_number_is_not_drawn(endings, value):
    record = copy.deepcopy(endings["answer"])
    for call in record.model_calls:
        assert call.response is not None
        call.response["usage"] = {
            key: value
            for key in ("prompt_tokens", "completion_tokens", "prompt_cache_hit_tokens", "prompt_cache_miss_tokens")
        }
    html = scheme3_history(record, 2).value
    assert problems(html) == []
    (usage,) = [line for line in visible_text(html).splitlines() if "prompt_tokens" in line]
    cache = "" if value is None else " (cache hit ?, miss ?)"  # no cache figures: none drawn
    assert usage.strip() == f"prompt_tokens ?{cache} · completion_tokens ?"


@pytest.mark.parametrize(
    ("value", "shown"), [(3, "3"), (0, "0"), (2.5, "2.5"), (True, "?"), ("3", "?"), (float("-inf"), "?"), (None, "?")]
)
def test_a_number_is_drawn_only_when_it_is_one(value: Any, shown: str):
    assert number(value) == shown


@pytest.mark.parametrize(
    ("field", "value"),
    list(itertools.product(["exit_code", "size"], ['"><img src=x onerror=alert(1)>', "3</td><script>"])),
)
def test_counts_in_tool_results_are_not_drawn_raw(endings, field, value):
    record = copy.deepcopy(endings["answer"])
    result = record.tool_executions[0].result
    result.clear()
    result.update({"ok": True, field: value, "content": "x"} if field == "size" else {"ok": True, field: value})
    assert problems(scheme2_tool_call(record).value) == []  # scheme 2 shows the result's JSON, escaped
    route = scheme5_route(record).value
    assert problems(route) == [] and value not in visible_text(route)
    assert "exit code ?" in visible_text(route) if field == "exit_code" else "? bytes read" in visible_text(route)


def be_the_model_renderings(text: Callable[[], str]) -> dict[str, str]:
    widget = BeTheModel([EchoTool(text)], text(), system=text())
    try:
        seen = {"waiting": widget._repr_mimebundle_()["text/html"]}
        widget.reply_with_tool(widget.tool.options[0], {"text": text()})
        seen["after a tool"] = widget._repr_mimebundle_()["text/html"]
        widget.reply_with_tool(text(), text())  # an unknown tool, arguments that are not JSON
        seen["after a refusal"] = widget.status.value + widget.view.value
        widget.reply_with_answer(text())
        assert widget.finished
        seen["finished"] = widget._repr_mimebundle_()["text/html"]
    finally:
        widget.close()
    return seen


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_be_the_model_draws_no_markup_from_the_task_the_tools_or_the_replies(data):
    assert_inert(be_the_model_renderings(lambda: data.draw(hostile_text)))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_be_the_model_shows_each_payload_as_text(payload):
    seen = be_the_model_renderings(lambda: payload)
    assert_inert(seen)
    assert payload[:16] in visible_text(seen["after a tool"])


def test_be_the_model_reports_a_hostile_error_as_text():
    widget = BeTheModel([EchoTool(lambda: "note")], "<b>task</b>")
    try:
        widget.reply_with_answer("")  # an empty answer ends the run with an error
        assert widget.finished and widget.error is not None
        assert problems(widget.status.value) == [] and "empty_answer" in visible_text(widget.status.value)
    finally:
        widget.close()
