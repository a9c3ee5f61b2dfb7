"""The course in a browser tab (`make lite`): what the site weighs, and how long a student waits.

Kernel ready is the time from loading the page to the first notebook's kernel being ready to run a
cell, in a fresh browser profile (a student's first visit: nothing cached); then, in the same page,
the time to open the next notebook with a kernel of its own (each later notebook). Beside them,
taking turns, a kernel of this machine's Python started as JupyterLab starts one (ipykernel
through jupyter_client), for the ratios.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the page is driven as tests/browser/ drives it

from tests.browser.lite_page import SITE, expose_the_app, open_another, open_notebook, served  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
PARTS = {  # what makes up the site, by where it lies
    "python (runtime and standard library)": ("static/pyodide/pyodide*", "static/pyodide/python_stdlib.zip"),
    "wheels": ("static/pyodide/*.whl",),
    "notebooks": ("files/**/*",),
}


def lite_site(rounds: int) -> dict[str, Any]:
    if not (SITE / "index.html").exists():
        return {"skipped": "the site is not built (make lite)"}
    if not Path(CHROMIUM).exists():
        return {"skipped": "Debian's chromium is not installed"}
    files = [path for path in SITE.rglob("*") if path.is_file()]
    figures: dict[str, Any] = {
        "site_mb": round(sum(path.stat().st_size for path in files) / 1e6, 1),
        "site_files": len(files),
    }
    counted = 0
    for part, patterns in PARTS.items():
        size = sum(path.stat().st_size for pattern in patterns for path in SITE.glob(pattern) if path.is_file())
        figures[f"{part}_mb"] = round(size / 1e6, 1)
        counted += size
    figures["jupyterlab_and_the_rest_mb"] = round(figures["site_mb"] - counted / 1e6, 1)
    cold, warm, native, loaded = [], [], [], []
    with served(SITE) as site:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for _ in range(rounds):
                context = browser.new_context()  # a fresh profile: nothing cached
                context.route(f"{site}/jupyter-lite.json", expose_the_app)
                sizes: list[int] = []
                context.on("response", lambda r, sizes=sizes: sizes.append(_over_the_network(r)))
                page = context.new_page()
                cold.append(open_notebook(page, site, "00_setup.ipynb", reset=False))
                loaded.append(sum(sizes) / 1e6)
                warm.append(open_another(page, "01_single_tool_call.ipynb"))  # the next notebook, same page
                context.close()
                native.append(native_kernel_ready())
            browser.close()
    figures.update(
        kernel_ready_cold_s=round(statistics.median(cold), 1),
        kernel_ready_warm_s=round(statistics.median(warm), 1),
        native_kernel_ready_s=round(statistics.median(native), 2),
        cold_ratio_to_native=round(statistics.median(cold) / statistics.median(native), 1),
        warm_ratio_to_native=round(statistics.median(warm) / statistics.median(native), 1),
        loaded_on_first_visit_mb=round(statistics.median(loaded), 1),
        rounds=rounds,
        samples_s={"cold": [round(s, 1) for s in cold], "warm": [round(s, 1) for s in warm]},
    )
    return figures


def native_kernel_ready() -> float:
    """A kernel of this Python, from start to its first answer, as JupyterLab starts one."""
    from jupyter_client.manager import start_new_kernel

    started = time.monotonic()
    manager, client = start_new_kernel(kernel_name="python3")
    ready = time.monotonic() - started
    client.stop_channels()
    manager.shutdown_kernel(now=True)
    return ready


def _over_the_network(response: Any) -> int:
    """The bytes a response brought from the server; the site's service worker hands the page what it
    fetched, which chromium reports a second time (from_service_worker)."""
    return 0 if response.from_service_worker else int(response.headers.get("content-length", 0))
