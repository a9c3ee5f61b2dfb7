"""The course in a browser tab: the JupyterLite site `make lite` built (build/lite), served by
`python -m http.server` as a teacher would, opened in Debian's chromium. Every notebook of both
editions runs top to bottom (Run All) in the page's Pyodide kernel; every cell that should succeed
does; each widget the notebook shows is a live view in the page (01's «Be the model» is answered to
the end of its run, as a student clicks it); and no request leaves the site:
every other address is aborted and listed (the page, its kernel's worker, its service worker, web
sockets), and chromium resolves no host name but 127.0.0.1, should anything slip by.

`make test` builds the site first (`make lite`); run by hand, this tests the site as last built.
Where it is not built, or chromium is missing, this skips, except in CI (REACTLAB_REQUIRE_BROWSER=1).
The page is instrumented in one way only: its jupyter-lite.json is served with exposeAppInBrowser,
so that the test can run the notebook's commands and read each cell's outputs from its model.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactlab.core.language import say

from .jupyterlab import ARTIFACTS, CHROMIUM, FLAGS
from .lite_page import SITE, expose_the_app, open_notebook, served
from .test_every_widget import WORDS, be_the_model

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p.relative_to(ROOT / "notebooks").as_posix() for p in ROOT.glob("notebooks/**/0*.ipynb"))
EDITIONS = [name for name in NOTEBOOKS if "student/" not in name]
if not (os.path.exists(CHROMIUM) and (SITE / "index.html").exists()) and not os.environ.get("REACTLAB_REQUIRE_BROWSER"):
    pytest.skip("needs Debian's chromium and the site (make lite)", allow_module_level=True)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    assert (SITE / "index.html").exists(), "the site is not built: make lite"
    with served(SITE) as url:
        yield url


# A school's web server, as the page sees it: a name that is not this machine's, over plain http (so
# not a "secure context": no service worker). Chromium resolves it, and no other name, to 127.0.0.1.
SCHOOL = "classroom.test"


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        rules = f"MAP {SCHOOL} 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*FLAGS, f"--host-resolver-rules={rules}"])
        yield browser
        browser.close()


def guarded(chromium, site: str) -> tuple[object, list[str]]:
    """A browser profile that lets the page reach ``site`` alone: every other address asked for (by the
    page, its workers, its web sockets) is aborted and listed."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    outside: list[str] = []

    def refuse(route) -> None:
        outside.append(route.request.url)
        route.abort()

    def refuse_socket(socket_route) -> None:
        outside.append(socket_route.url)
        socket_route.close()

    context.route(lambda url: not url.startswith(f"{site}/"), refuse)
    context.route_web_socket(lambda url: True, refuse_socket)
    context.route(f"{site}/jupyter-lite.json", expose_the_app)
    return context, outside


@pytest.fixture(scope="module")
def browser(chromium, site: str):
    """One browser profile for every notebook (as one student's, its cache warm after the first), and
    the list of every address outside the site that anything in it asked for."""
    context, outside = guarded(chromium, site)
    yield context, outside
    context.close()


@pytest.mark.parametrize("notebook", EDITIONS)
def test_the_notebook_runs_in_the_page(browser, site: str, notebook: str) -> None:
    context, outside = browser
    before = len(outside)
    page = context.new_page()
    missing: list[str] = []  # what the site lacks: a trimmed file that was needed after all
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 and "/build/" in r.url else None)
    try:
        ready = open_notebook(page, site, notebook, reset=True)
        started = time.monotonic()
        cells = run_all(page)
        print(f"{notebook}: kernel ready in {ready:.1f} s, Run All took {time.monotonic() - started:.1f} s")
        failed = []
        for cell in cells:
            errors = [o for o in cell["outputs"] if o["output_type"] == "error"]
            if errors:
                failed.append(f"cell {cell['index']}: {errors[0]['ename']}: {errors[0]['evalue'][:300]}")
            elif cell["execution_count"] is None:
                failed.append(f"cell {cell['index']} did not run")
            elif cell["widgets"] and not cell["views"]:
                failed.append(f"cell {cell['index']} shows a widget, but no view of it is in the page")
        assert not failed, "\n".join(failed)
        printed = "".join(cell["text"] for cell in cells)
        for text in in_the_page(notebook):
            assert text in printed, f"the notebook did not print {text!r}"
        assert outside[before:] == [], f"requests that would have left the site: {outside[before:]}"
        if notebook.endswith("01_single_tool_call.ipynb"):  # the student's clicks drive the run
            lang = "ru" if notebook.startswith("ru/") else "en"
            be_the_model(page.locator(".widget-vbox", has=page.locator(".rl-status")), WORDS[lang], "request")
        assert missing == [], f"files of the site that were not there: {missing}"
    except BaseException:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"lite-{notebook.replace('/', '-')}.png"), full_page=True)
        raise
    finally:
        page.close()


def in_the_page(notebook: str) -> list[str]:
    """What a notebook prints only in a browser tab: that it knows where it runs, and what is real there."""
    lang = "ru" if notebook.startswith("ru/") else "en"
    return {
        "00_setup": [
            say(", with the page's JupyterLab extension", lang=lang)
        ],  # and the doctor's browser case (test_browser_case)
        "05_failing_test": [
            f"{say('verdict:', lang)} OK",  # the independent check really ran the tests
            say("the tests ran in this page's own Python: the browser is their sandbox", lang),
        ],
        "06_sandbox": [say("not run: a browser tab opens no sockets, starts no threads and has no sandbox.", lang)],
    }.get(Path(notebook).stem, [])


# Run All (which stops at an error), then report every cell: what ran, its outputs, and whether a
# widget it shows has a view in the page.
RUN_ALL = """async () => {
  const app = window.jupyterapp;
  const notebook = app.shell.currentWidget.content;
  const ran = app.commands.execute('notebook:run-all-cells');
  const late = new Promise((_, reject) => setTimeout(() => reject(new Error('still running after 10 minutes')), 6e5));
  await Promise.race([ran, late]);
  const report = [];
  notebook.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const json = cell.model.toJSON();
    const outputs = json.outputs.map((o) => ({output_type: o.output_type, ename: o.ename || '',
      evalue: o.evalue || '', widget: !!(o.data && o.data['application/vnd.jupyter.widget-view+json'])}));
    const text = json.outputs.map((o) => [o.text, o.data && o.data['text/plain']].flat().join('')).join('');
    const views = cell.node.querySelectorAll('.jp-OutputArea-output .jupyter-widgets').length;
    const broken = /Error displaying widget|Loading widget/.test(cell.node.innerText);
    report.push({index, source: json.source, execution_count: json.execution_count, outputs, text,
      widgets: outputs.some((o) => o.widget), views: views > 0 && !broken});
  });
  return report;
}"""


def run_all(page) -> list[dict]:
    return page.evaluate(RUN_ALL)


SETTING = """async ([plugin, key]) => {
  const found = await window.jupyterapp.serviceManager.settings.fetch(plugin);
  return key in found.settings ? found.settings[key] : found.schema.properties[key].default;
}"""


def test_the_page_has_reactlabs_jupyterlab_settings(browser, site: str) -> None:
    """As an installed reactlab gives them to JupyterLab (reactlab/widgets/overrides.d): a notebook
    saved in the tab keeps its widgets' state, and every cell is drawn when it opens."""
    context, _ = browser
    page = context.new_page()
    try:
        page.goto(f"{site}/lab/index.html")
        page.wait_for_function("() => !!window.jupyterapp", timeout=120_000)
        page.evaluate("() => window.jupyterapp.restored")
        expected = json.loads((ROOT / "reactlab/widgets/overrides.d/reactlab.json").read_text())
        for plugin, settings in expected.items():
            for key, value in settings.items():
                assert page.evaluate(SETTING, [plugin, key]) == value, (plugin, key)
    finally:
        page.close()


def test_a_school_web_server_over_plain_http_is_enough(chromium, site: str) -> None:
    """Served from another name over http, the page is no secure context and gets no service worker;
    the course does not need one: 05 runs to its independent check's verdict."""
    school = site.replace("127.0.0.1", SCHOOL)
    context, outside = guarded(chromium, school)
    try:
        page = context.new_page()
        open_notebook(page, school, "05_failing_test.ipynb", reset=False)
        assert page.evaluate("() => [window.isSecureContext, !!navigator.serviceWorker]") == [False, False]
        cells = run_all(page)
        errors = [(c["index"], o["evalue"]) for c in cells for o in c["outputs"] if o["output_type"] == "error"]
        assert errors == [] and all(c["execution_count"] for c in cells)
        assert f"{say('verdict:', 'en')} OK" in "".join(c["text"] for c in cells)
        assert outside == []
    finally:
        context.close()
