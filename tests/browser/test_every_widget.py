"""Both editions, clicked through in a real JupyterLab as a student meets them: each student copy opened
and run with Run All (every exercise's check says "not solved yet"), then each exercise and each quiz
answered (its check says "solved"), «Be the model» driven to the end of its run in both its views, the
run viewer moved step by step. A widget whose work fails shows the error; a frozen one fails here.

Debian's chromium driven by Playwright, JupyterLab and the kernel from this environment. Never
`playwright install`. Each edition is a class of its own, so that `--dist loadscope` runs them side by
side.
"""

from __future__ import annotations

import json
import re
import shutil
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from ..conftest import needs_sandbox
from .test_viewer_in_jupyterlab import ARTIFACTS, CHROMIUM, FLAGS, TOKEN, accept_dialogs, lab_server

pytestmark = [pytest.mark.browser, needs_sandbox]

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SCHEMES_VIEW = (
    "from reactlab import Workspace, default_tools\n"
    "from reactlab.samples import SHOP\n"
    "from reactlab.widgets import BeTheModel\n"
    "BeTheModel(default_tools(Workspace(SHOP.path, SHOP.read_only), SHOP.files), SHOP.task())"
)
WORDS = {
    "en": {"solved": "✓ solved", "not yet": "✗ not solved yet", "waiting": "Request {} is waiting",
           "final": "(final answer)", "send": "send as the model", "done": "Finished with a final answer after 3",
           "more": "show more", "next": "next ▶", "previous": "◀ previous"},
    "ru": {"solved": "✓ решено", "not yet": "✗ пока не решено", "waiting": "Запрос {} ждёт вас",
           "final": "(финальный ответ)", "send": "отправить как модель",
           "done": "Готово: финальный ответ получен, обращений к модели: 3", "more": "показать ещё",
           "next": "вперёд ▶", "previous": "◀ назад"},
}  # fmt: skip


def _copies(root: Path, lang: str) -> list[Path]:
    """The edition's student copies in ``root``, 01 with one more cell: «Be the model» in its schemes view."""
    source = NOTEBOOKS / ("ru/student" if lang == "ru" else "student")
    root.mkdir()
    copies = [Path(shutil.copy(path, root)) for path in sorted(source.glob("0*.ipynb"))]
    first = next(path for path in copies if path.name.startswith("01_"))
    notebook = nbformat.read(first, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(SCHEMES_VIEW))
    nbformat.write(notebook, first)
    return copies


def _solutions(copy: Path, lang: str) -> dict[int, str]:
    """Cell index -> the stored solution, from the teacher's copy (the student's has none)."""
    teacher = nbformat.read(NOTEBOOKS / ("ru" if lang == "ru" else "") / copy.name, as_version=4)
    return {
        i: c.metadata["reactlab"]["solution"]
        for i, c in enumerate(teacher.cells)
        if "exercise" in c.metadata.get("tags", [])
    }  # noqa: E501


def _open(page, base: str, path: str) -> None:
    page.goto(f"{base}/lab/tree/{path}?reset&token={TOKEN}")
    page.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]').wait_for(state="attached", timeout=120_000)
    news = page.locator(".jp-toast-button", has_text="No")
    if news.count():
        news.first.click()


PROMPTS = "[...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent)"


def _run_all(page) -> None:
    """Run → Run All Cells, until every code cell has run. Under load JupyterLab sometimes drops the
    command while the kernel connection settles, or replaces the kernel half-way through the run."""
    for _ in range(4):
        accept_dialogs(page)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        for _ in range(40):
            if any(re.search(r"[0-9*]", prompt) for prompt in page.evaluate(f"() => {PROMPTS}")):
                break
            accept_dialogs(page)
            page.wait_for_timeout(250)
        _wait_until_run(page)
        if all(re.search(r"[0-9]", prompt) for prompt in page.evaluate(f"() => {PROMPTS}")):
            return
    raise AssertionError("Run All Cells did not run every cell")


def _wait_until_run(page, timeout: float = 300) -> None:
    """Until no cell is queued or running, and the kernel is idle."""
    deadline = time.monotonic() + timeout
    busy = "() => [...document.querySelectorAll('.jp-InputArea-prompt')].some(p => p.textContent.includes('*'))"
    while time.monotonic() < deadline:
        accept_dialogs(page)
        idle = page.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]').count()
        if idle and not page.evaluate(busy):
            return
        page.wait_for_timeout(300)
    raise AssertionError("the notebook did not finish running")


def _output(cell) -> str:
    return cell.locator(".jp-OutputArea").inner_text()


def _answer(page, cells, index: int, solution: str, words: dict[str, str]) -> None:
    """Type the solution into exercise cell ``index``, run it and its check, and see "solved"."""
    editor = cells.nth(index).locator(".jp-InputArea-editor .cm-content")
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(solution)
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    check = cells.nth(index + 1)
    deadline = time.monotonic() + 180
    while words["solved"] not in _output(check):
        assert time.monotonic() < deadline, f"cell {index}: {_output(check)[:600]}"
        accept_dialogs(page)
        page.wait_for_timeout(300)


def _be_the_model(page, widget, words: dict[str, str], view: str) -> None:
    """Answer «Be the model» to the end: a read, the tests run in the sandbox, a final answer."""
    from playwright.sync_api import expect

    status = widget.locator(".rl-status")
    expect(status).to_contain_text(words["waiting"].format(1), timeout=60_000)
    replies = [
        ("read_file", '{"path": "shop/delivery.py"}'),
        ("bash", '{"command": "python3 -m unittest discover -s tests 2>&1 | tail -3"}'),
    ]
    for number, (tool, arguments) in enumerate(replies, 2):
        widget.locator("select").select_option(tool)
        widget.locator("textarea").first.fill(arguments)
        widget.locator("button", has_text=words["send"]).click()
        expect(status).to_contain_text(words["waiting"].format(number), timeout=60_000)
        if view == "request":  # the whole history as JSON, its long part behind "show more"
            expect(widget.locator(".rl-request .rl-more summary").first).to_contain_text(words["more"])
        else:
            expect(widget.locator(f'.rl-route[data-step="{number}"]').first).to_be_attached()
    widget.locator("select").select_option(words["final"])
    widget.locator("textarea").last.fill("Done.")
    widget.locator("button", has_text=words["send"]).click()
    expect(status).to_contain_text(words["done"], timeout=60_000)
    expect(widget.locator("button", has_text=words["send"])).to_be_disabled()
    if view == "schemes":
        expect(widget.locator(".rl-route .rl-column")).to_have_count(3)


def _viewer(page, cell, words: dict[str, str]) -> None:
    """The run viewer's buttons move the step: next, next, previous."""
    from playwright.sync_api import expect

    cell.scroll_into_view_if_needed()
    expect(cell.locator('.rl-route[data-step="2"]').first).to_be_visible(timeout=30_000)
    cell.locator("button", has_text=words["next"]).click()
    expect(cell.locator('.rl-route[data-step="3"]').first).to_be_visible(timeout=15_000)
    cell.locator("button", has_text=words["previous"]).click()
    expect(cell.locator('.rl-route[data-step="2"]').first).to_be_visible(timeout=15_000)


def _shut_down_kernels(base: str) -> None:
    with urllib.request.urlopen(f"{base}/api/kernels?token={TOKEN}", timeout=30) as answer:
        kernels = json.load(answer)
    for kernel in kernels:
        request = urllib.request.Request(f"{base}/api/kernels/{kernel['id']}?token={TOKEN}", method="DELETE")
        urllib.request.urlopen(request, timeout=30).read()


def click_through(lang: str, root: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    words = WORDS[lang]
    copies = _copies(root / lang, lang)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with lab_server(root) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(root / "profile"), executable_path=CHROMIUM, args=FLAGS, viewport={"width": 1400, "height": 1000}
        )
        page = browser.new_page()
        try:
            for copy in copies:
                started = time.monotonic()
                _open(page, base, f"{lang}/{copy.name}")
                _run_all(page)
                cells = page.locator(".jp-Notebook .jp-Cell")
                solutions = _solutions(copy, lang)
                for index in solutions:  # after Run All every check says: not yet
                    assert words["not yet"] in _output(cells.nth(index + 1)), (copy.name, index)
                assert page.locator("text=Error displaying widget").count() == 0
                if copy.name.startswith("01_"):
                    widgets = page.locator(".widget-vbox", has=page.locator(".rl-status"))
                    expect(widgets).to_have_count(2)
                    _be_the_model(page, widgets.first, words, "request")
                    _be_the_model(page, widgets.last, words, "schemes")
                for viewer in ("02_", "05_"):
                    if copy.name.startswith(viewer):
                        _viewer(page, page.locator(".jp-Cell", has=page.locator(".widget-slider")).first, words)
                for index, solution in solutions.items():
                    _answer(page, cells, index, solution, words)
                if copy.name.startswith("04_"):  # solved: Agent._loop appears beside the article's loop
                    beside = page.locator(".jp-Cell", has_text="show_beside_agent(my_loop)").last
                    beside.locator(".jp-InputArea-editor").click()
                    page.keyboard.press("Shift+Enter")
                    expect(beside.locator("pre.rl-code").first).to_be_visible(timeout=60_000)
                page.screenshot(path=str(ARTIFACTS / f"every-widget-{lang}-{copy.stem}.png"), full_page=True)
                _shut_down_kernels(base)
                print(f"{lang}/{copy.name}: {time.monotonic() - started:.1f} s")
        except BaseException:
            page.screenshot(path=str(ARTIFACTS / f"every-widget-{lang}-failure.png"), full_page=True)
            raise
        finally:
            browser.close()


class TestEnglish:
    def test_every_exercise_quiz_and_widget(self, tmp_path):
        click_through("en", tmp_path)


class TestRussian:
    def test_every_exercise_quiz_and_widget(self, tmp_path):
        click_through("ru", tmp_path)
