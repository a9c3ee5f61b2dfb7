"""One language setting: ``set_language`` once, and every call given no ``lang=`` speaks it; an
explicit ``lang=`` wins; what was made before keeps the language it was made in."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from reactlab import (
    SYSTEM_EN,
    SYSTEM_RU,
    Agent,
    BashStandIn,
    Script,
    Workspace,
    current_language,
    default_tools,
    fix_failing_test_task,
    run_in_copy,
    set_language,
    system_prompt,
)
from reactlab.core.language import resolve_language, say
from reactlab.course.exercises import check_hand_made, check_mode
from reactlab.course.loop_check import loop_cases
from reactlab.course.quiz import Question, Quiz, answer_digest, check_quiz
from reactlab.samples import SHOP, shop_script
from reactlab.summary import badge, key_lines, language_of
from reactlab.widgets import BeTheModel


@pytest.fixture
def russian() -> Iterator[None]:
    set_language("ru")
    try:
        yield
    finally:
        set_language("en")


@pytest.fixture
def shop() -> Iterator[Workspace]:
    with Workspace(SHOP.path, SHOP.read_only) as workspace:
        yield workspace


def test_english_until_set_and_then_what_was_set():
    assert current_language() == "en" and resolve_language(None) == "en"
    set_language("ru")
    try:
        assert current_language() == "ru" and resolve_language(None) == "ru"
        assert resolve_language("en") == "en"
    finally:
        set_language("en")
    assert current_language() == "en"


def test_an_unknown_language_is_refused_and_changes_nothing(russian):
    with pytest.raises(ValueError, match="'en' or 'ru'"):
        set_language("de")
    assert current_language() == "ru"
    with pytest.raises(ValueError, match="'en' or 'ru'"):
        resolve_language("de")


def test_the_prompts_and_the_shop_read_the_setting(russian):
    assert system_prompt() == SYSTEM_RU and system_prompt("en") == SYSTEM_EN
    files, protected, command = ["a.py"], ["tests/"], "pytest"
    assert fix_failing_test_task(files, protected, command) == fix_failing_test_task(files, protected, command, "ru")
    assert SHOP.task() == SHOP.task("ru") != SHOP.task("en")
    assert SHOP.cassette_path().name == "shop_run_ru.json" and SHOP.cassette_path("en").name == "shop_run.json"
    assert SHOP.cassette().interactions == SHOP.cassette("ru").interactions
    assert shop_script().answers[-1][0]["content"].startswith("Причина")


def test_the_agent_and_the_tools_read_it_when_made(russian, shop):
    agent, english = Agent(Script().client(), []), Agent(Script().client(), [], lang="en")
    assert (agent.lang, agent.system) == ("ru", SYSTEM_RU)
    assert (english.lang, english.system) == ("en", SYSTEM_EN)
    tools = default_tools(shop, SHOP.files)
    assert [tool.lang for tool in tools] == ["ru", "ru", "ru"]
    assert tools["read_file"].description == say(
        "Read one text file of the project. The path is relative to the project root.", lang="ru"
    )
    assert [tool.lang for tool in default_tools(shop, SHOP.files, lang="en")] == ["en", "en", "en"]
    assert BashStandIn("no sandbox here").lang == "ru"
    set_language("en")
    assert agent.lang == "ru" and tools["edit"].lang == "ru"  # made in Russian, they stay Russian
    assert Agent(Script().client(), []).lang == "en"


def test_run_in_copy_reads_it(russian):
    outcome = run_in_copy(SHOP, Script().tool_call("read_file", path="shop/nowhere.py").final_answer("ок").client())
    outcome.workspace.cleanup()
    record = outcome.record
    assert record.lang == "ru" and record.system == SYSTEM_RU and record.task == SHOP.task("ru")
    refused = say(
        "{tool}: invalid arguments: {message}{where}{more}", lang="ru", tool="read_file", message="", where="", more=""
    )
    assert record.tool_executions[0].result["error"].startswith(refused)  # a path outside the enum
    english = run_in_copy(SHOP, Script().final_answer("done").client(), lang="en")
    english.workspace.cleanup()
    assert english.record.lang == "en" and english.record.task == SHOP.task("en")


def test_the_course_checks_and_readings_speak_it(russian):
    quiz = Quiz("test", {1: Question("choice", answer_digest(1, "b"), 3)})
    assert check_quiz({1: "б"}, quiz) == check_quiz({1: "б"}, quiz, lang="ru") != check_quiz({1: "b"}, quiz, lang="en")
    assert check_quiz({1: "б"}, quiz).startswith("✓ 1: верно")
    sandbox = SimpleNamespace(name="sandbox", status="ok")
    assert check_mode("sandbox", [sandbox]) == check_mode("sandbox", [sandbox], "ru")
    assert check_mode("sandbox", [sandbox]).startswith("✓ решено")
    assert check_hand_made("not a cassette").startswith("✗ пока не решено")
    assert loop_cases()[-1].name == say("the shop run (scripted cassette, tool results replayed)", lang="ru")
    assert badge({"replayed": True}) == say("replayed, not run on this machine", lang="ru")
    assert key_lines({"ok": False}) == [say("error: {error}", lang="ru", error=say("failed", lang="ru"))]


def test_a_run_is_drawn_in_its_own_language_and_anything_else_in_the_setting(russian):
    assert language_of(SimpleNamespace(lang="en")) == "en"  # a record keeps the language it was made in
    assert language_of(object()) == "ru"
    assert language_of(SimpleNamespace(lang="en"), "ru") == "ru"


def test_be_the_model_speaks_it(russian, shop):
    widget = BeTheModel(default_tools(shop, SHOP.files), SHOP.task())
    assert widget.lang == "ru" and widget.agent.system == SYSTEM_RU
    assert widget.final == say("(final answer)", lang="ru")
