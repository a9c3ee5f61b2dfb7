"""A real JupyterLab for the browser tests: the server, and a notebook opened, run and closed in it.

A notebook counts as open when the status bar says its kernel is idle ("Python 3 | Idle"), not when
the notebook's execution indicator does: that one says "idle" from the start, while the status bar
still says "No Kernel | Initializing". A cell run before the kernel is connected makes JupyterLab start
a second kernel for the notebook, or ask "Select Kernel" when that fails. On a loaded machine that
happened to these tests; it is also the likely cause of the one run in which a reopened notebook said
"Error displaying widget: model not found" (its widget manager restores the saved state for a kernel).

Debian's chromium driven by Playwright (never `playwright install`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "browser"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TOKEN = "reactlab-browser-test"
KERNEL = "python3"
DISPLAY_NAME = "Python 3"


def skip_without_chromium() -> None:
    """Skip the calling module where chromium is missing, except in CI (REACTLAB_REQUIRE_BROWSER=1),
    which installs it: there the tests fail instead."""
    if not os.path.exists(CHROMIUM) and not os.environ.get("REACTLAB_REQUIRE_BROWSER"):
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _api(base: str, path: str, method: str = "GET") -> object:
    request = urllib.request.Request(f"{base}/api/{path}?token={TOKEN}", method=method)
    with urllib.request.urlopen(request, timeout=60) as answer:
        text = answer.read()
    return json.loads(text) if text else None


@contextmanager
def lab_server(root: Path) -> Iterator[str]:
    """A JupyterLab serving ``root`` on 127.0.0.1, with a kernel of this interpreter; its address."""
    spec = root / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": DISPLAY_NAME, "language": "python"}))
    port = _free_port()
    env = {**os.environ, "JUPYTER_PATH": str(root / "jupyter"), "JUPYTER_CONFIG_DIR": str(root / "config")}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],  # fmt: skip
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(root / "server.log", "w"),  # noqa: SIM115
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                _api(base, "status")
                break
            except OSError:
                time.sleep(0.3)
        else:
            pytest.fail("JupyterLab did not start: " + (root / "server.log").read_text()[-2000:])
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def shut_down_kernels(base: str) -> None:
    for session in _api(base, "sessions"):  # type: ignore[union-attr]
        _api(base, f"sessions/{session['id']}", "DELETE")
    for kernel in _api(base, "kernels"):  # type: ignore[union-attr]
        _api(base, f"kernels/{kernel['id']}", "DELETE")


def kernel_idle(page):
    """The status bar's kernel item while it says the notebook's kernel is connected and idle."""
    return page.locator("#jp-main-statusbar .jp-StatusBar-Item", has_text=f"{DISPLAY_NAME} | Idle").first


def open_notebook(page, base: str, path: str) -> None:
    """Open ``path`` (relative to the server's root) in a fresh JupyterLab page, and wait until its
    kernel is connected and idle."""
    page.goto(f"{base}/lab/tree/{path}?reset&token={TOKEN}")
    kernel_idle(page).wait_for(timeout=120_000)
    news = page.locator(".jp-toast-button", has_text="No")
    if news.count():
        news.first.click()


def accept_dialogs(page) -> None:
    """Accept a dialog JupyterLab opens (a save or shutdown confirmation), until none is left."""
    for _ in range(10):
        dialog = page.locator(".jp-Dialog button.jp-mod-accept")
        if not dialog.count():
            return
        try:
            dialog.first.click(timeout=5_000)
        except Exception:  # it closed by itself in the meantime  # noqa: BLE001
            pass
        page.wait_for_timeout(500)
    raise AssertionError("JupyterLab kept opening dialogs: " + page.locator(".jp-Dialog").first.inner_text())


PROMPTS = "() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent)"


def run_all(page, timeout: float = 300) -> None:
    """Run → Run All Cells, and wait until every code cell has run and the kernel is idle."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(f"() => ({PROMPTS})().some(p => /[0-9*]/.test(p))", timeout=30_000)
    wait_until_run(page, timeout)
    not_run = [prompt for prompt in page.evaluate(PROMPTS) if not re.search(r"[0-9]", prompt)]
    assert not not_run, f"Run All Cells left {len(not_run)} cells not run"


def wait_until_run(page, timeout: float = 300) -> None:
    """Until no cell is queued or running, and the kernel is idle."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.locator(".jp-Dialog").count():
            raise AssertionError("JupyterLab asks: " + page.locator(".jp-Dialog").first.inner_text())
        if kernel_idle(page).count() and not any("*" in prompt for prompt in page.evaluate(PROMPTS)):
            return
        page.wait_for_timeout(300)
    raise AssertionError("the notebook did not finish running")
