"""Debian's chromium lays out Schemes 1 and 4 in each language: every label of a box fits inside it.

A translated label is longer or shorter than the English one; only a real layout engine can say
whether it still fits its box. Never `playwright install`: Playwright drives /usr/bin/chromium.
"""

from __future__ import annotations

import pytest

from reactlab import Agent, Workspace, default_tools
from reactlab.samples import SHOP_FILES, SHOP_READ_ONLY, shop_cassette, shop_path, shop_task
from reactlab.widgets import scheme1_loop, scheme4_stopping

from .jupyterlab import CHROMIUM, FLAGS, skip_without_chromium

skip_without_chromium()

pytestmark = pytest.mark.browser

# For each node of the schemes: the widest line of its label, and the width of its box.
MEASURE = """() => [...document.querySelectorAll("g.rl-node")].map(node => ({
    name: node.closest(".rl").className + " " + node.dataset.node,
    box: node.querySelector("rect").getBBox().width,
    text: Math.max(...[...node.querySelectorAll("text")].filter(t => !t.classList.contains("rl-times"))
        .map(t => t.getBBox().width)),
}))"""


def schemes(lang: str) -> str:
    with Workspace(shop_path(), SHOP_READ_ONLY) as shop:
        agent = Agent(shop_cassette(lang).client(), default_tools(shop, SHOP_FILES, lang=lang), lang=lang)
        agent.run(shop_task(lang))
    record = agent.record
    drawn = [scheme1_loop(record, step).value for step in range(1, len(record.model_calls) + 1)]
    return "<meta charset='utf-8'>" + "".join(drawn) + scheme4_stopping(record).value


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_label_fits_its_box(tmp_path, lang):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_content(schemes(lang))
            nodes = page.evaluate(MEASURE)
        finally:
            browser.close()
    assert len(nodes) == 4 * 5 + 12  # four boxes in the agent loop at each of the 5 steps, twelve stop nodes
    too_wide = [(n["name"], round(n["text"]), round(n["box"])) for n in nodes if n["text"] > n["box"]]
    assert too_wide == [], too_wide
