"""Be the model: the student's replies drive the real Agent, with no thread and nothing that waits,
in both languages and both views; a failure of the widget is shown, never a frozen form."""

from __future__ import annotations

import threading

import pytest

import reactlab.widgets.be_the_model as be_the_model
from reactlab import default_tools
from reactlab.samples import NEW_LOADING, OLD_LOADING, SHOP_FILES, shop_task
from reactlab.summary import verdict
from reactlab.widgets import BeTheModel
from reactlab.widgets.be_the_model import FINAL

from ..conftest import needs_sandbox
from ..helpers import NoteTool
from .conftest import parse, text_of, with_class


@pytest.fixture
def session(shop):
    widget = BeTheModel(default_tools(shop, SHOP_FILES), shop_task())
    yield widget, shop
    widget.close()


@needs_sandbox
def test_the_student_drives_the_real_loop(session):
    widget, shop = session
    # The first request is waiting, and the widget shows it as the model would see it.
    assert "Request 1 is waiting" in widget.status.value
    assert [e.get("data-role") for e in with_class(parse(widget.view.value), "rl-entry")] == ["system", "user"]

    widget.tool.value = "read_file"
    assert widget.arguments.value == '{"path": "shop/delivery.py"}'  # a template from the schema
    widget.send.click()
    (read,) = widget.record.tool_executions
    assert read.result["ok"] and "def load_settings" in read.result["content"]
    assert "Request 2 is waiting" in widget.status.value

    widget.tool.value = "bash"
    widget.arguments.value = '{"command": "python3 -m unittest discover -s tests 2>&1 | tail -3"}'
    widget.send.click()
    assert verdict(widget.record.tool_executions[-1].result) == "FAIL"  # the tests really ran

    widget.reply_with_tool("edit", {"path": "shop/delivery.py", "old_text": OLD_LOADING, "new_text": NEW_LOADING})
    assert "Path(__file__)" in (shop.root / "shop/delivery.py").read_text()
    widget.reply_with_tool("bash", '{"command": "python3 -m unittest discover -s tests"}')
    assert widget.record.tool_executions[-1].result["exit_code"] == 0

    widget.tool.value = FINAL
    widget.text.value = "Fixed the settings path."
    widget.send.click()
    assert widget.finished and widget.answer == "Fixed the settings path."
    assert widget.send.disabled and "Finished with a final answer after 5 model calls" in widget.status.value
    assert widget.record.stop_reason == "answer" and len(widget.record.tool_executions) == 4
    assert [c.get("data-call") for c in with_class(parse(widget.view.value), "rl-column")][:5] == list("12345")


@needs_sandbox
def test_student_mistakes_go_back_as_tool_results(session):
    widget, _ = session
    widget.reply_with_tool("bash", '{"command": "ls"')  # broken JSON, as a model might send
    assert "not valid JSON" in widget.record.tool_executions[-1].result["error"]
    widget.reply_with_tool("edit", {"path": "tests/test_delivery.py", "old_text": "0)", "new_text": "300)"})
    assert "read-only" in widget.record.tool_executions[-1].result["error"]
    widget.reply_with_answer("")
    assert widget.finished and widget.error is not None and widget.record.stop_reason == "empty_answer"
    assert "empty_answer" in widget.status.value


def test_a_long_russian_request_is_clipped_and_the_run_goes_on():
    """Issue 38: only Russian text was long enough to be clipped behind "show more", which the request
    view could not draw; the widget's thread died and the form froze after the first reply."""
    widget = BeTheModel([NoteTool()], "Запишите заметку «а», затем ответьте. " * 80, lang="ru", view="request")
    assert "Запрос 1 ждёт вас" in widget.status.value
    assert "показать ещё" in text_of(parse(widget.view.value))
    widget.reply_with_tool("note", {"text": "а"})
    assert "Запрос 2 ждёт вас" in widget.status.value and widget.record.tool_executions[0].result["ok"]
    widget.reply_with_answer("Готово.")
    assert widget.finished and widget.answer == "Готово." and widget.send.disabled


@pytest.mark.parametrize("view", ["request", "schemes"])
def test_no_thread_is_started_and_each_call_runs_once(monkeypatch, view):
    """JupyterLite's Pyodide raises on Thread.start: the clicks drive the loop, each tool call runs once."""

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    note = NoteTool()
    widget = BeTheModel([note], "take notes", view=view)
    widget.reply_with_tool("note", {"text": "a"})
    first = widget.record.tool_executions[0].duration
    widget.reply_with_tool("note", '{"text": "b"}')
    widget.reply_with_tool("note", "{broken")  # goes back to the model as a result, as before
    assert "Request 4 is waiting" in widget.status.value
    widget.tool.value = FINAL
    widget.text.value = "Noted a and b."
    widget.send.click()
    assert note.notes == ["a", "b"], "a replayed run gives back the results: no tool runs twice"
    assert widget.finished and widget.answer == "Noted a and b." and widget.record.stop_reason == "answer"
    assert widget.record.tool_executions[0].duration == first, "the first run's time is kept"
    assert [m["role"] for m in widget.record.messages].count("tool") == 3


def test_a_failure_of_the_widget_is_shown_and_nothing_waits(monkeypatch):
    widget = BeTheModel([NoteTool()], "take notes")
    threads_before = set(threading.enumerate())

    def broken(*args, **kwargs):
        raise RuntimeError("cannot draw")

    monkeypatch.setattr(be_the_model, "history_html", broken)
    widget.reply_with_tool("note", {"text": "a"})
    assert "This widget failed (RuntimeError: cannot draw). Run its cell again" in widget.status.value
    assert widget.send.disabled and widget.finished
    widget.send.click()  # a click on the stopped form returns at once, and changes nothing
    assert "This widget failed" in widget.status.value
    # other tests in this worker may leave threads of their own: only a new one would be this widget's
    assert set(threading.enumerate()) <= threads_before, "the stopped widget started no thread"
