"""A notebook opened again, no cell run, shows its widgets drawn, in both editions (issue 38 item 6):

- every stored teacher copy as a fresh clone has it (not trusted): each scheme and each live widget's
  output shows its static HTML;
- the same copies once trusted (saved in this JupyterLab before, or ``jupyter trust``): each live
  widget is drawn by the widgets' code from the state stored in the notebook (scripts/run_notebooks.py);
- a student copy with live widgets, Run All, saved and opened again with a new kernel: drawn from the
  state JupyterLab saved, which it does only with reactlab's setting (reactlab/widgets/overrides.d).
  Without it (main before this test) every live widget says "Error displaying widget: model not found".

Debian's chromium driven by Playwright, JupyterLab and the kernel from this environment.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from ..conftest import needs_sandbox
from .jupyterlab import (
    ARTIFACTS,
    CHROMIUM,
    FLAGS,
    TOKEN,
    lab_server,
    open_notebook,
    run_all,
    shut_down_kernels,
    skip_without_chromium,
)
from .test_every_widget import NOTEBOOKS

skip_without_chromium()

pytestmark = [pytest.mark.browser, needs_sandbox]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
BROKEN = ("Error displaying widget", "model not found")


def _drawn_cells(path: Path) -> dict[int, bool]:
    """Cell index -> whether its stored outputs hold a live widget (else they hold a scheme's HTML),
    for every cell that draws something."""
    drawn = {}
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        data = [output.get("data", {}) for output in cell.get("outputs", [])]
        if any(WIDGET_VIEW in bundle for bundle in data):
            drawn[index] = True
        elif any('class="rl ' in "".join(bundle.get("text/html", "")) for bundle in data):
            drawn[index] = False
    return drawn


def _live(path: Path) -> int:
    return sum(_drawn_cells(path).values())


def _teacher_copies(lang: str) -> list[Path]:
    folder = NOTEBOOKS / "ru" if lang == "ru" else NOTEBOOKS
    return [path for path in sorted(folder.glob("0*.ipynb")) if _drawn_cells(path)]


def _assert_drawn(page, path: Path, relative: str, trusted: bool) -> None:
    """Every drawing cell of ``path`` (opened at ``relative``) shows the scheme's markup; a live widget
    drawn by the widgets' code where the notebook is trusted, else as its static HTML; and no output
    says it cannot draw."""
    from playwright.sync_api import expect

    cells = page.locator(".jp-Notebook .jp-Cell")
    drawn = _drawn_cells(path)
    assert drawn, f"{relative}: no output to look at"
    for index, live in drawn.items():
        inside = ".jupyter-widgets .rl" if live and trusted else ".jp-RenderedHTMLCommon .rl"
        cell = cells.nth(index)
        cell.scroll_into_view_if_needed()
        output = cell.locator(".jp-OutputArea").first
        try:
            expect(output.locator(inside).first).to_be_attached(timeout=60_000)
        except AssertionError:
            page.screenshot(path=str(ARTIFACTS / f"reopened-{relative.replace('/', '-')}-{index}.png"))
            raise AssertionError(
                f"{relative} cell {index} not drawn ({inside}): {output.inner_text()[:300]!r}"
            ) from None
        said = output.inner_text()
        assert not any(text in said for text in BROKEN), f"{relative} cell {index}: {said[:300]!r}"


def _save(page, path: Path, widgets: int) -> None:
    """Save the notebook from JupyterLab and wait until the file holds its ``widgets`` live outputs."""
    page.locator(".jp-Notebook").first.click()
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 60
    while _live(path) < widgets:
        assert time.monotonic() < deadline, f"{path.name} was not saved with its widgets"
        page.wait_for_timeout(500)


def _saves_widget_state(base: str) -> object:
    """JupyterLab's "save widget state" setting, as this server gives it to the page."""
    url = f"{base}/lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin?token={TOKEN}"
    with urllib.request.urlopen(url, timeout=30) as answer:
        plugin = json.load(answer)  # the schema's defaults carry the overrides; a user's own setting wins
    return plugin["settings"].get("saveState", plugin["schema"]["properties"]["saveState"]["default"])


def reopen_everything(lang: str, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import sync_playwright

    teacher = _teacher_copies(lang)
    live = [path for path in teacher if _live(path)]
    assert len(teacher) >= 5 and len(live) >= 3, (teacher, live)  # 01-03, 05-07; live widgets in 01, 02, 05
    for folder in ("clone", "trusted", "student"):
        (root / folder).mkdir(parents=True)
    for path in teacher:
        shutil.copy(path, root / "clone")
        shutil.copy(path, root / "trusted")
    for path in live:
        shutil.copy(path.parent / "student" / path.name, root / "student")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(root / "data"))  # the server's key and signatures: our own
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with lab_server(root) as base, sync_playwright() as playwright:
        assert _saves_widget_state(base) is True, (
            "JupyterLab will not save the widgets' state: reactlab/widgets/overrides.d/reactlab.json is not in "
            f"{sys.prefix}/share/jupyter/lab/settings/overrides.d (make setup copies it there)"
        )
        browser = playwright.chromium.launch_persistent_context(
            str(root / "profile"), executable_path=CHROMIUM, args=FLAGS, viewport={"width": 1400, "height": 1000}
        )
        page = browser.new_page()
        try:
            for folder in ("clone", "trusted"):
                if folder == "trusted":  # as JupyterLab trusts a notebook it saved: signed with its key
                    # (a signature is of the content, so the clone's copies are trusted from now on too)
                    signed = [str(root / folder / path.name) for path in teacher]
                    subprocess.run([sys.executable, "-m", "jupyter", "trust", *signed], check=True, capture_output=True)
                for path in teacher:
                    open_notebook(page, base, f"{folder}/{path.name}")
                    _assert_drawn(page, root / folder / path.name, f"{lang}/{folder}/{path.name}", folder == "trusted")
                    shut_down_kernels(base)
            for path in live:
                copy = root / "student" / path.name
                open_notebook(page, base, f"student/{path.name}")
                run_all(page)
                _save(page, copy, _live(path))
                shut_down_kernels(base)
                page.goto("about:blank")
                open_notebook(page, base, f"student/{path.name}")  # a new kernel: the old models are gone
                _assert_drawn(page, copy, f"{lang}/student/{path.name}", trusted=True)  # JupyterLab signed it
                shut_down_kernels(base)
        finally:
            browser.close()


class TestEnglish:
    def test_stored_and_saved_notebooks_reopen_with_their_widgets_drawn(self, tmp_path, monkeypatch):
        reopen_everything("en", tmp_path, monkeypatch)


class TestRussian:
    def test_stored_and_saved_notebooks_reopen_with_their_widgets_drawn(self, tmp_path, monkeypatch):
        reopen_everything("ru", tmp_path, monkeypatch)
