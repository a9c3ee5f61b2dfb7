"""The five schemes in a real JupyterLab, at 1280 px with the file browser open, as a laptop in a
classroom shows them: nothing is cut off, 04's side-by-side keeps its indentation, and a notebook
saved and opened again, on a new kernel, shows every scheme instead of "Error displaying widget".

Debian's chromium driven by Playwright, JupyterLab and the kernel from this environment (the server
fixture is the viewer test's). Never `playwright install`.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from .jupyterlab import ARTIFACTS, CHROMIUM, FLAGS, accept_dialogs, kernel_idle, open_notebook, run_all
from .test_viewer_in_jupyterlab import jupyterlab

__all__ = ["jupyterlab"]  # the fixture, imported to be used here

pytestmark = pytest.mark.browser

CELLS = [
    "from reactlab import Agent, DeepSeekClient, run_in_copy, set_language\n"
    "from reactlab.course.beside import show_beside_agent\n"
    "from reactlab.samples import SHOP\n"
    "from reactlab.widgets import scheme1_loop, scheme2_tool_call, scheme3_history, scheme4_stopping, scheme5_route\n"
    "set_language('ru')  # the longer labels\n"
    "outcome = run_in_copy(SHOP, SHOP.cassette().client())\n"
    "record = outcome.record\n"
    "offline = Agent(DeepSeekClient(api_key='', base_url='http://127.0.0.1:9'), [])\n"
    "try:\n"
    "    offline.run('x')\n"
    "except Exception:\n"
    "    pass",
    "scheme1_loop(record)",
    "scheme2_tool_call(record)",
    "scheme3_history(record, step=3)",
    "scheme4_stopping(record)",
    "scheme4_stopping(offline.record)",
    "scheme5_route(record, step=2)",
    "show_beside_agent(None, now=True)",
]
SCHEMES = ["rl-loop", "rl-sequence", "rl-history", "rl-stopping", "rl-stopping", "rl-route", "rl-beside"]

# For each scheme: how far it, or anything in it, reaches past the right edge of its output area, and
# whether a box of it scrolls sideways (a route too wide for the page would: a reader must not have to).
MEASURE = """(scheme) => {
    const area = scheme.closest(".jp-OutputArea-output").getBoundingClientRect();
    let over = scheme.getBoundingClientRect().right - area.right;
    for (const element of scheme.querySelectorAll("*")) {
        if (element.closest("details:not([open])") && element.tagName !== "SUMMARY") continue;
        const rect = element.getBoundingClientRect();
        if (rect.width > 0) over = Math.max(over, rect.right - area.right);
    }
    const scrolls = [...scheme.querySelectorAll(".rl-scroll")].some(e => e.scrollWidth > e.clientWidth + 1);
    return {over: Math.round(over), scrolls, width: Math.round(area.width)};
}"""


def _notebook(path) -> None:
    cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernel})))


def _open(page, base: str) -> None:
    open_notebook(page, base, "schemes.ipynb")
    browser = page.locator("#filebrowser")
    if not browser.is_visible():
        page.locator('.jp-SideBar [data-id="filebrowser"]').first.click()
    assert browser.is_visible(), "the file browser is open, as in class"


def test_the_schemes_fit_1280_px_and_survive_a_reopened_notebook(jupyterlab, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    _notebook(tmp_path / "schemes.ipynb")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=FLAGS, viewport={"width": 1280, "height": 900}
        )
        page = browser.new_page()
        try:
            _open(page, jupyterlab)
            run_all(page)
            cells = page.locator(".jp-Notebook .jp-Cell")
            expect(cells.nth(len(CELLS) - 1).locator(".rl-beside")).to_be_visible(timeout=120_000)
            kernel_idle(page).wait_for()
            page.screenshot(path=str(ARTIFACTS / "schemes-1280.png"), full_page=True)

            measured = {}
            for index, name in enumerate(SCHEMES, 1):
                scheme = cells.nth(index).locator(f".rl.{name}").first
                scheme.scroll_into_view_if_needed()
                measured[f"{index} {name}"] = scheme.evaluate(MEASURE)
                scheme.screenshot(path=str(ARTIFACTS / f"scheme-{index}-{name}.png"))
            assert all(m["width"] < 1000 for m in measured.values()), measured  # the file browser takes its share
            assert {k: m for k, m in measured.items() if m["over"] > 1 or m["scrolls"]} == {}, measured

            # Scheme 4's ending for a refused connection fits its box, in words, not as an internal name.
            broken = cells.nth(5).locator('g.rl-node[data-node="broken"]')
            fits = broken.evaluate(
                "g => Math.max(...[...g.querySelectorAll('tspan')].map(t => t.getComputedTextLength()))"
                " <= g.querySelector('rect').getBBox().width"
            )
            assert fits and "api_connection_error" not in (broken.text_content() or "")

            # 04's side-by-side: the code keeps its indentation, flush left, as the source has it.
            code = cells.nth(7).locator("pre.rl-code").first
            assert code.evaluate("e => getComputedStyle(e).textAlign") in ("left", "start")
            assert code.evaluate("e => getComputedStyle(e.parentElement).textAlign") in ("left", "start")
            # (the first block is the article's loop, quoted as the article prints it: the loop at the margin)
            loop_at_the_margin = "\nfor step in range(1, self.max_steps + 1):\n    message = self.client.complete("
            assert loop_at_the_margin in code.inner_text()
            assert code.evaluate("e => e.scrollWidth <= e.clientWidth"), "the loop is cut at the right"

            # Saved, closed, the kernel shut down, opened again: every scheme is still drawn.
            page.keyboard.press("Control+s")
            page.wait_for_timeout(1_500)
            accept_dialogs(page)
            page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Shut Down Kernel").first.click()
            accept_dialogs(page)
            page.wait_for_timeout(1_000)
            saved = json.loads((tmp_path / "schemes.ipynb").read_text())
            kinds = {kind for cell in saved["cells"] for output in cell["outputs"] for kind in output.get("data", {})}
            assert "application/vnd.jupyter.widget-view+json" not in kinds, "a scheme is saved as a widget view"
            _open(page, jupyterlab)
            for index, name in enumerate(SCHEMES, 1):
                expect(page.locator(".jp-Notebook .jp-Cell").nth(index).locator(f".rl.{name}")).to_be_visible()
            assert page.locator("text=Error displaying widget").count() == 0
            page.screenshot(path=str(ARTIFACTS / "schemes-reopened.png"), full_page=True)
        except BaseException:
            page.screenshot(path=str(ARTIFACTS / "schemes-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
