"""The course in a browser tab (`make lite`): what the site weighs, and how long a student waits.

    python benchmarks/lite.py        # build/lite against build/lite-previous; the lite section of results.json
    python benchmarks/lite.py --against DIR --label "what DIR is"    # against another build of the site

Kernel ready is the time from loading the page to the first notebook's kernel being ready to run a
cell, in a fresh browser profile (a student's first visit: nothing cached), in four phases: JupyterLab
ready (its app restored), the notebook open and its kernel asked for (the kernel's worker asks for
Pyodide), Python in (pyodide.asm.wasm downloaded and compiled), and the kernel ready (Python started,
its packages unpacked, the kernel imported). Then, in the same page, the time to open the next
notebook with a kernel of its own. Beside them, taking turns, a kernel of this machine's Python
started as JupyterLab starts one (ipykernel through jupyter_client), for the ratios; and the site
`make lite` built before this one (build/lite-previous, which scripts/lite.py keeps), or another
given with --against, in the same browser, taking turns within each round.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the page is driven as tests/browser/ drives it

from tests.browser.lite_page import SITE, expose_the_app, open_another, served  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
PARTS = {  # what makes up the site, by where it lies
    "python runtime": ("static/pyodide/pyodide*",),
    "standard library": ("static/pyodide/python_stdlib.zip",),
    "wheels": ("static/pyodide/*.whl",),
    "notebooks": ("files/**/*",),
    "jupyterlab": ("build/**/*",),
    "extensions": ("extensions/**/*",),
}
PREVIOUS = SITE.parent / "lite-previous"
PREVIOUS_BUILT_FROM = SITE.parent / "lite-work" / "previous-built-from.txt"  # what git said when it was built
PHASES = ("jupyterlab_ready", "kernel_asked_for", "python_in", "kernel_ready")


def lite_site(rounds: int, against: Path | None = None, label: str = "") -> dict[str, Any]:
    if not (SITE / "index.html").exists():
        return {"skipped": "the site is not built (make lite)"}
    if not Path(CHROMIUM).exists():
        return {"skipped": "Debian's chromium is not installed"}
    if against is None and (PREVIOUS / "index.html").exists():
        against = PREVIOUS
        built_from = PREVIOUS_BUILT_FROM.read_text() if PREVIOUS_BUILT_FROM.exists() else "unknown"
        label = f"the site built before this one ({built_from})"
    sites = {"this": SITE, **({"against": against} if against else {})}
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in sites}
    native = []
    with served(SITE) as this_url, served(against or SITE) as against_url:
        urls = {"this": this_url, "against": against_url}
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for turn in range(rounds):
                for name in list(sites)[:: 1 if turn % 2 == 0 else -1]:  # each first in every other round
                    for figure, value in _first_visit(browser, sites[name], urls[name]).items():
                        samples[name].setdefault(figure, []).append(value)
                native.append(native_kernel_ready())
            browser.close()
    figures = _figures(SITE, samples["this"], statistics.median(native))
    if against:
        figures["against"] = {"site": label or str(against), **_figures(against, samples["against"], None)}
        for figure in ("site_mb", "loaded_on_first_visit_mb", "kernel_ready_cold_s", "kernel_ready_warm_s"):
            figures[f"{figure.removesuffix('_mb').removesuffix('_s')}_ratio_to_against"] = round(
                figures[figure] / figures["against"][figure], 2
            )
    figures["rounds"] = rounds
    return figures


def _first_visit(browser: Any, folder: Path, url: str) -> dict[str, float]:
    """A student's first visit (a fresh profile): the moment of each phase, from loading the page; the
    bytes it brought over the network; and the next notebook's wait."""
    context = browser.new_context()
    context.route(f"{url}/jupyter-lite.json", functools.partial(expose_the_app, site=folder))
    moments: dict[str, float] = {}
    sizes: list[int] = []
    started = time.monotonic()

    def asked(request: Any) -> None:
        if request.url.endswith("/pyodide.mjs"):
            moments.setdefault("kernel_asked_for", time.monotonic() - started)

    def finished(request: Any) -> None:
        if request.url.endswith("/pyodide.asm.wasm"):
            moments.setdefault("python_in", time.monotonic() - started)

    context.on("request", asked)
    context.on("requestfinished", finished)
    context.on("response", lambda response: sizes.append(_over_the_network(response)))
    page = context.new_page()
    page.goto(f"{url}/lab/index.html")
    page.wait_for_function("() => !!window.jupyterapp", timeout=120_000)
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    moments["jupyterlab_ready"] = time.monotonic() - started
    open_another(page, "00_setup.ipynb")
    moments["kernel_ready"] = time.monotonic() - started
    loaded = sum(sizes) / 1e6
    warm = open_another(page, "01_single_tool_call.ipynb")  # the next notebook, same page
    context.close()
    return {**{f"{phase}_s": moments[phase] for phase in PHASES}, "loaded_mb": loaded, "warm_s": warm}


def _figures(site: Path, samples: dict[str, list[float]], native: float | None) -> dict[str, Any]:
    files = [path for path in site.rglob("*") if path.is_file()]
    total = sum(path.stat().st_size for path in files)
    figures: dict[str, Any] = {"site_mb": round(total / 1e6, 1), "site_files": len(files)}
    counted = 0
    for part, patterns in PARTS.items():
        size = sum(path.stat().st_size for pattern in patterns for path in site.glob(pattern) if path.is_file())
        figures[f"{part}_mb"] = round(size / 1e6, 2)
        counted += size
    figures["the rest_mb"] = round((total - counted) / 1e6, 2)
    median = {name: statistics.median(values) for name, values in samples.items()}
    figures.update(
        kernel_ready_cold_s=round(median["kernel_ready_s"], 1),
        kernel_ready_warm_s=round(median["warm_s"], 1),
        loaded_on_first_visit_mb=round(median["loaded_mb"], 1),
        phases_s={phase: round(median[f"{phase}_s"], 1) for phase in PHASES},
        samples_s={"cold": [round(s, 1) for s in samples["kernel_ready_s"]],
                   "warm": [round(s, 1) for s in samples["warm_s"]]},
    )  # fmt: skip
    if native is not None:
        figures.update(
            native_kernel_ready_s=round(native, 2),
            cold_ratio_to_native=round(median["kernel_ready_s"] / native, 1),
            warm_ratio_to_native=round(median["warm_s"] / native, 1),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", type=Path, help="another build of the site, measured side by side")
    parser.add_argument("--label", default="", help="what that other build is (kept with its figures)")
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    load = os.getloadavg()[0]
    figures = lite_site(arguments.rounds, arguments.against, arguments.label)
    figures["measured"] = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": [round(load, 1), round(os.getloadavg()[0], 1)],  # at the start and at the end
    }
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    if "skipped" not in figures:
        path = ROOT / "benchmarks" / "results.json"
        results = json.loads(path.read_text())
        results["lite"] = figures
        path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
