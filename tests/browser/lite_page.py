"""Serving the browser-tab site (build/lite) and driving its page: shared by tests/browser/test_lite.py
and the benchmark (benchmarks/lite.py)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SITE = Path(__file__).resolve().parents[2] / "build" / "lite"


@contextmanager
def served(site: Path = SITE) -> Iterator[str]:
    """``site`` served by `python -m http.server` on a free port of 127.0.0.1, as a teacher would; its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(site), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=15)


def expose_the_app(route: Any, *, site: Path = SITE) -> None:
    """Serve the site's jupyter-lite.json with exposeAppInBrowser (window.jupyterapp): the one change
    made to what the page gets, so that its commands can be run and each cell's outputs read."""
    settings = json.loads((site / "jupyter-lite.json").read_text())
    settings["jupyter-config-data"]["exposeAppInBrowser"] = True
    route.fulfill(body=json.dumps(settings), content_type="application/json")


def open_notebook(page: Any, site: str, path: str, *, reset: bool) -> float:
    """Load the page, open the notebook at ``path`` (as a click in the file browser does), and wait
    until its kernel is ready to run a cell; the seconds that took. ``reset``: close any tab a
    notebook before left open in this browser (JupyterLab restores them, each with a kernel)."""
    started = time.monotonic()
    if reset:
        page.goto(f"{site}/lab/index.html?reset")
        page.wait_for_url(lambda url: "reset" not in url, timeout=120_000)  # the page loads again without it
    else:
        page.goto(f"{site}/lab/index.html")
    page.wait_for_function("() => !!window.jupyterapp", timeout=120_000)
    page.evaluate(_OPENED, path)
    return time.monotonic() - started


def open_another(page: Any, path: str) -> float:
    """In a page already loaded, open the notebook at ``path``: the seconds until its kernel is ready."""
    started = time.monotonic()
    page.evaluate(_OPENED, path)
    return time.monotonic() - started


_OPENED = """async (path) => {
  const app = window.jupyterapp;
  await app.restored;
  app.commands.execute('docmanager:open', {path});
  for (let i = 0; i < 1500; i++) {
    const panel = app.shell.currentWidget;
    if (panel && panel.context && panel.context.path === path && panel.sessionContext) {
      await panel.context.ready;
      await panel.sessionContext.ready;
      const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
      if (kernel && kernel.status === 'idle') return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the notebook did not open with a ready kernel in 5 minutes: ' + path);
}"""
