from __future__ import annotations

import pytest

from reactlab import default_tools
from reactlab.samples import NEW_LOADING, OLD_LOADING, SHOP_FILES, shop_task
from reactlab.summary import verdict
from reactlab.widgets import BeTheModel
from reactlab.widgets.be_the_model import FINAL

from ..conftest import needs_sandbox
from .conftest import parse, with_class

pytestmark = needs_sandbox


@pytest.fixture
def session(shop):
    widget = BeTheModel(default_tools(shop, SHOP_FILES), shop_task())
    yield widget, shop
    widget.close()


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


def test_student_mistakes_go_back_as_tool_results(session):
    widget, _ = session
    widget.reply_with_tool("bash", '{"command": "ls"')  # broken JSON, as a model might send
    assert "not valid JSON" in widget.record.tool_executions[-1].result["error"]
    widget.reply_with_tool("edit", {"path": "tests/test_delivery.py", "old_text": "0)", "new_text": "300)"})
    assert "read-only" in widget.record.tool_executions[-1].result["error"]
    widget.reply_with_answer("")
    assert widget.finished and widget.error is not None and widget.record.stop_reason == "empty_answer"
    assert "empty_answer" in widget.status.value
