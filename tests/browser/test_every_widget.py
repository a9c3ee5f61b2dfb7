"""Both editions, clicked through in a real JupyterLab as a student meets them: each student copy opened
and run with Run All (every exercise's check says "not solved yet"), then each exercise and each quiz
answered (its check says "solved"), «Be the model» driven to the end of its run in both its views, the
run viewer moved step by step. A widget whose work fails shows the error; a frozen one fails here.

Debian's chromium driven by Playwright, JupyterLab and the kernel from this environment. Never
`playwright install`. Each edition is a class of its own, so that `--dist loadscope` runs them side by
side.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import nbformat
import pytest

from ..conftest import needs_sandbox
from .jupyterlab import (
    ARTIFACTS,
    CHROMIUM,
    FLAGS,
    lab_server,
    open_notebook,
    run_all,
    shut_down_kernels,
    skip_without_chromium,
)

skip_without_chromium()

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
        page.wait_for_timeout(300)


def be_the_model(widget, words: dict[str, str], view: str) -> None:
    """Answer «Be the model» to the end: a read, the tests run by bash (in the sandbox; in a browser tab
    the stand-in says why it runs nothing), a final answer."""
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
                open_notebook(page, base, f"{lang}/{copy.name}")
                run_all(page)
                cells = page.locator(".jp-Notebook .jp-Cell")
                solutions = _solutions(copy, lang)
                for index in solutions:  # after Run All every check says: not yet
                    assert words["not yet"] in _output(cells.nth(index + 1)), (copy.name, index)
                assert page.locator("text=Error displaying widget").count() == 0
                if copy.name.startswith("01_"):
                    widgets = page.locator(".widget-vbox", has=page.locator(".rl-status"))
                    expect(widgets).to_have_count(2)
                    be_the_model(widgets.first, words, "request")
                    be_the_model(widgets.last, words, "schemes")
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
                shut_down_kernels(base)
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
