"""The tutorial shop: a project with one failing test, and the article's run of it as a cassette."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from ..model.cassette import Cassette
from ..model.scripted import Script, call
from ..prompts import fix_failing_test_task
from ..strings import Language, check_language

__all__ = [
    "SHOP_FILES",
    "SHOP_READ_ONLY",
    "SHOP_TEST_COMMAND",
    "shop_cassette",
    "shop_cassette_path",
    "shop_path",
    "shop_script",
    "shop_task",
]

SHOP_FILES = ["shop/delivery.py", "shop/settings.json", "tests/test_delivery.py"]
SHOP_READ_ONLY = ["shop/settings.json", "tests"]
SHOP_TEST_COMMAND = "python3 -m unittest discover -s tests -v"

OLD_LOADING = """    settings_path = Path("settings.json")
    if not settings_path.exists():
        return dict(DEFAULTS)
    values = json.loads(settings_path.read_text(encoding="utf-8"))
"""
NEW_LOADING = """    settings_path = Path(__file__).resolve().parent / "settings.json"
    values = json.loads(settings_path.read_text(encoding="utf-8"))
"""


def shop_path() -> Path:
    """The pristine shop project (package data). Runs work on a copy of it."""
    return Path(str(files(__name__) / "shop"))


def shop_cassette_path(lang: Language = "en") -> Path:
    """The shop run's cassette in ``lang``: shop_run.json (English) or shop_run_ru.json."""
    name = "shop_run.json" if check_language(lang) == "en" else f"shop_run_{lang}.json"
    return Path(str(files(__name__) / name))


def shop_cassette(lang: Language = "en") -> Cassette:
    """The article's run, scripted and recorded against the real tools, in ``lang`` from end to end:
    the system prompt, the task, the tool descriptions and the model's answers."""
    return Cassette.load(shop_cassette_path(lang))


def shop_task(lang: Language = "en") -> str:
    return fix_failing_test_task(SHOP_FILES, ["shop/settings.json", "tests/"], SHOP_TEST_COMMAND, lang)


_FINAL_ANSWER = {
    "en": (
        "Cause: load_settings() opened settings.json relative to the current folder. The tests run from "
        "the project root, where there is no settings.json, so the defaults applied and free delivery "
        "never started (300 instead of 0 for a 2500 order).\n"
        "Fix: shop/delivery.py now builds the path from the module's folder, "
        'Path(__file__).resolve().parent / "settings.json".\n'
        "Checked: the test run after the edit shows 3 tests, OK. settings.json and tests/ were not changed."
    ),
    "ru": (
        "Причина: load_settings() искала settings.json относительно текущей папки. Тесты запускаются из корня "
        "проекта, а там settings.json нет, поэтому брались значения по умолчанию и бесплатная доставка не "
        "включалась: за заказ на 2500 получалось 300 вместо 0.\n"
        "Исправление: в shop/delivery.py путь теперь строится от папки модуля — "
        'Path(__file__).resolve().parent / "settings.json".\n'
        "Проверено: после правки тесты прошли (Ran 3 tests, OK). settings.json и tests/ я не трогал."
    ),
}


def shop_script(lang: Language = "en") -> Script:
    """The article's route: 5 model calls, 6 tool executions. The answers are written (the final one
    in ``lang``); the tool results are not: they come from really running the tools on a working copy."""
    final_answer = _FINAL_ANSWER[check_language(lang)]
    return (
        Script()
        .tool_calls(*(call("read_file", path=path) for path in SHOP_FILES))
        .tool_call("bash", command=f"pwd && ls && ls shop tests && {SHOP_TEST_COMMAND} 2>&1 | tail -30")
        .tool_call("edit", path="shop/delivery.py", old_text=OLD_LOADING, new_text=NEW_LOADING)
        .tool_call("bash", command=f"{SHOP_TEST_COMMAND} 2>&1 | tail -30")
        .final_answer(final_answer)
    )
