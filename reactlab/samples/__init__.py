"""The tutorial shop: a project with one failing test, and the article's run of it as a cassette.

from reactlab.samples import SHOP
outcome = run_in_copy(SHOP, SHOP.cassette().client())
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from ..core.language import Language, say
from ..replay.cassette import Cassette
from ..replay.scripted import Script, call
from .project import SampleProject

__all__ = [
    "SHOP",
    "SHOP_FILES",
    "SHOP_READ_ONLY",
    "SHOP_TEST_COMMAND",
    "SampleProject",
    "shop_cassette",
    "shop_cassette_path",
    "shop_path",
    "shop_script",
    "shop_task",
]

SHOP = SampleProject(
    path=Path(str(files(__name__) / "shop")),
    files=("shop/delivery.py", "shop/settings.json", "tests/test_delivery.py"),
    read_only=("shop/settings.json", "tests"),
    test_command="python3 -m unittest discover -s tests -v",
    cassette_stem="shop_run",
)
"""The shop: ``SHOP.path``, ``.files``, ``.read_only``, ``.test_command``, ``.task()``, ``.cassette()``."""

# The same values one by one, as the CLI and older code name them.
SHOP_FILES = list(SHOP.files)
SHOP_READ_ONLY = list(SHOP.read_only)
SHOP_TEST_COMMAND = SHOP.test_command

OLD_LOADING = """    settings_path = Path("settings.json")
    if not settings_path.exists():
        return dict(DEFAULTS)
    values = json.loads(settings_path.read_text(encoding="utf-8"))
"""
NEW_LOADING = """    settings_path = Path(__file__).resolve().parent / "settings.json"
    values = json.loads(settings_path.read_text(encoding="utf-8"))
"""


def shop_path() -> Path:
    """``SHOP.path``: the pristine shop project (package data). Runs work on a copy of it."""
    return SHOP.path


def shop_cassette_path(lang: Language | None = None) -> Path:
    """``SHOP.cassette_path(lang)``: shop_run.json (English) or shop_run_ru.json."""
    return SHOP.cassette_path(lang)


def shop_cassette(lang: Language | None = None) -> Cassette:
    """``SHOP.cassette(lang)``: the article's run, scripted and recorded against the real tools."""
    return SHOP.cassette(lang)


def shop_task(lang: Language | None = None) -> str:
    """``SHOP.task(lang)``: fix the failing test; settings.json and tests/ are read-only."""
    return SHOP.task(lang)


def shop_script(lang: Language | None = None) -> Script:
    """The article's route: 5 model calls, 6 tool executions. The answers are written (the final one
    in ``lang``, ``current_language()`` when None); the tool results are not: they come from really
    running the tools on a working copy."""
    final_answer = say(
        "Cause: load_settings() opened settings.json relative to the current folder. The tests run from "
        "the project root, where there is no settings.json, so the defaults applied and free delivery "
        "never started (300 instead of 0 for a 2500 order).\n"
        "Fix: shop/delivery.py now builds the path from the module's folder, "
        'Path(__file__).resolve().parent / "settings.json".\n'
        "Checked: the test run after the edit shows 3 tests, OK. settings.json and tests/ were not changed.",
        lang=lang,
    )
    return (
        Script()
        .tool_calls(*(call("read_file", path=path) for path in SHOP.files))
        .tool_call("bash", command=f"pwd && ls && ls shop tests && {SHOP.test_command} 2>&1 | tail -30")
        .tool_call("edit", path="shop/delivery.py", old_text=OLD_LOADING, new_text=NEW_LOADING)
        .tool_call("bash", command=f"{SHOP.test_command} 2>&1 | tail -30")
        .final_answer(final_answer)
    )
