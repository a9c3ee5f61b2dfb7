"""A real JupyterLab, a real kernel, Debian's chromium driven by Playwright: the viewer renders and scrubs.

Never `playwright install`: Playwright drives /usr/bin/chromium. CI installs it and sets
REACTLAB_REQUIRE_BROWSER=1, so there this test fails rather than skips when chromium is missing.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import nbformat
import pytest

from ..conftest import needs_sandbox
from ..widgets.hostile import PAYLOADS, hostile_record
from .jupyterlab import (
    ARTIFACTS,
    CHROMIUM,
    FLAGS,
    kernel_idle,
    lab_server,
    open_notebook,
    run_all,
    skip_without_chromium,
)

skip_without_chromium()

pytestmark = [pytest.mark.browser, needs_sandbox]

NOTEBOOK_CELLS = [
    "import json\n"
    "from reactlab import run_in_copy\n"
    "from reactlab.samples import SHOP\n"
    "from reactlab.widgets import RunViewer, scheme4_stopping\n"
    "outcome = run_in_copy(SHOP, SHOP.cassette().client())\n"
    "viewer = RunViewer(outcome.record, step=1)\n"
    "viewer",
    "scheme4_stopping(outcome.record)",
    "from reactlab import Workspace, default_tools\n"
    "from reactlab.widgets import BeTheModel\n"
    "hostile_task = SHOP.task() + ' ' + ' '.join(json.load(open('hostile.json'))['repairs'])\n"
    "BeTheModel(default_tools(Workspace(SHOP.path, SHOP.read_only), SHOP.files), hostile_task)",
    # A run whose every string is hostile: shown in every scheme, none of it may run.
    "from reactlab import RunRecord\n"
    "from reactlab.widgets import scheme1_loop, scheme2_tool_call, scheme3_history, scheme5_route\n"
    "saved = json.load(open('hostile.json'))\n"
    "hostile = RunRecord.from_dict(saved['record'])\n"
    "for call in hostile.model_calls:\n"
    "    call.repairs = saved['repairs']\n"
    "display(RunViewer(hostile, step=1), scheme1_loop(hostile), scheme2_tool_call(hostile, 1),\n"
    "        scheme2_tool_call(hostile, 2), scheme3_history(hostile), scheme4_stopping(hostile),\n"
    "        scheme5_route(hostile))",
]


def write_hostile_record(path: Path) -> None:
    """Every string of the run is one of the payloads, in turn; the usage values too."""
    payloads = itertools.cycle(PAYLOADS)
    record = hostile_record(lambda: next(payloads), stop_reason="answer")
    path.write_text(json.dumps({"record": record.to_dict(), "repairs": PAYLOADS[:4]}))


@pytest.fixture
def jupyterlab(tmp_path):
    write_hostile_record(tmp_path / "hostile.json")
    (tmp_path / "viewer.ipynb").write_text(
        nbformat.writes(
            nbformat.v4.new_notebook(
                cells=[nbformat.v4.new_code_cell(source) for source in NOTEBOOK_CELLS],
                metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            )
        )
    )
    with lab_server(tmp_path) as base:
        yield base


def assert_nothing_ran(page, dialogs: list[str]) -> None:
    assert page.evaluate("() => window.__pwned") is None, "a payload's script ran"
    assert dialogs == [], f"a payload opened a dialog: {dialogs}"
    assert "pwned" not in page.title()
    smuggled = page.locator(
        ".rl img, .rl script, .rl iframe, .rl style, .rl foreignObject, .rl math, .rl [onerror], .rl [onload]"
    )
    assert smuggled.count() == 0, "an element from the data reached the page"


def test_viewer_renders_and_the_slider_moves_the_step(jupyterlab, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=FLAGS, viewport={"width": 1400, "height": 1000}
        )
        try:
            page = browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            open_notebook(page, jupyterlab, "viewer.ipynb")
            run_all(page)

            # The schemes render from the real run, as live widgets (the slider is there).
            viewer = page.locator(".jp-Cell").first
            step_one = viewer.locator('.rl-route[data-step="1"]')
            expect(step_one).to_be_visible(timeout=90_000)
            expect(viewer.locator('.rl-loop[data-step="1"]')).to_be_visible()
            expect(viewer.locator('.rl-history[data-step="1"]')).to_be_visible()
            expect(page.locator(".jp-Cell").nth(1).locator(".rl-stopping .rl-end")).to_have_attribute(
                "data-node", "final"
            )
            expect(step_one.locator('.rl-column.rl-current[data-call="1"]')).to_be_visible()
            expect(viewer.locator(".rl-verdict", has_text="FAIL · exit code 0").first).to_be_attached()
            page.screenshot(path=str(ARTIFACTS / "viewer-step-1.png"), full_page=True)

            # A long JSON value shows its head; "show more" opens the rest in the page itself.
            request = viewer.locator('.rl-step[data-step="1"] .rl-exchange > details').first
            request.locator("summary").first.click()
            more = request.locator(".rl-more")
            expect(more.locator("summary")).to_contain_text("show more", timeout=15_000)
            expect(request).to_contain_text("messages [0]–[1]: in Scheme 3 above")
            hidden = more.evaluate("e => e.lastChild.textContent")
            assert hidden.strip() and hidden.strip()[:40] not in more.inner_text()
            more.locator("summary").click()
            expect(more).to_contain_text(hidden.strip()[:40])
            request.locator("summary").first.click()  # closed again: the page looks as before

            # The slider moves the highlighted step (the link runs in the browser).
            handle = viewer.locator(".widget-slider .noUi-handle").first
            handle.focus()
            handle.press("ArrowRight")
            step_two = viewer.locator('.rl-route[data-step="2"]')
            expect(step_two).to_be_visible(timeout=15_000)
            expect(step_one).to_be_hidden()
            expect(step_two.locator('.rl-column.rl-current[data-call="2"]')).to_be_visible()
            handle.press("End")
            expect(viewer.locator('.rl-route[data-step="5"]')).to_be_visible(timeout=15_000)
            page.screenshot(path=str(ARTIFACTS / "viewer-step-5.png"), full_page=True)

            # Be the model: answer the first request from the browser; the real tool runs.
            student = page.locator(".widget-vbox", has=page.locator(".rl-status")).last
            expect(student.locator(".rl-status")).to_contain_text("Request 1 is waiting", timeout=30_000)
            student.locator("select").select_option("read_file")
            student.locator("button", has_text="send as the model").click()
            expect(student.locator(".rl-status")).to_contain_text("Request 2 is waiting", timeout=30_000)
            expect(student.locator(".rl-entry[data-role='tool']")).to_have_count(1)
            student.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "be-the-model.png"))

            # The hostile run is drawn, as text: no element, handler or URL of its strings exists, none ran.
            hostile = page.locator(".jp-Cell").nth(3)
            expect(hostile.locator(".rl-route").last).to_be_visible(timeout=30_000)
            expect(hostile.locator(".rl-sequence")).to_have_count(2)
            expect(hostile.locator(".rl-route").last).to_contain_text("onerror=")
            expect(hostile.locator(".rl-route").last).to_contain_text("repaired: <img src=x")
            page.wait_for_timeout(1_500)  # an image error or an SVG onload fires within this
            assert_nothing_ran(page, dialogs)
            page.screenshot(path=str(ARTIFACTS / "hostile.png"), full_page=True)

            # The buttons go through the kernel and back. Only now: until every cell has run, the
            # kernel holds the slider's last moves back (ipywidgets sends one update at a time), and
            # a click that overtakes them starts from an older step.
            kernel_idle(page).wait_for()
            viewer.locator("button", has_text="previous").first.click()
            expect(viewer.locator('.rl-route[data-step="4"]')).to_be_visible(timeout=15_000)

            # The same schemes on the dark theme: the text takes the theme's colour.
            page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
            page.locator(".lm-Menu-itemLabel", has_text="JupyterLab Dark").first.click()
            expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false", timeout=15_000)
            page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=15_000)
            colour = viewer.locator('.rl-route[data-step="4"] .rl-title').evaluate("e => getComputedStyle(e).color")
            assert colour != "rgb(0, 0, 0)", "scheme text stayed black on the dark theme"
            page.screenshot(path=str(ARTIFACTS / "viewer-dark.png"))
            assert_nothing_ran(page, dialogs)  # scrubbing and re-rendering ran nothing either
        except BaseException:
            page.screenshot(path=str(ARTIFACTS / "failure.png"))
            raise
        finally:
            browser.close()
