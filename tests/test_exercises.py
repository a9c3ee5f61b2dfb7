"""The checks of reactlab.course.exercises, the quiz and the loop check, in both languages: each accepts a
right answer and rejects a wrong one, and says so in the reader's language.

Right and wrong answers are the notebooks' own solutions and stubs (from the cells' metadata), run
against the real agent, cassettes, tools and sandbox, as a student's kernel would run them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from reactlab import Sandbox, Script, call, default_tools, independent_test_run, run_in_copy, unchanged_paths
from reactlab.course.exercises import (
    FILE_UNCHANGED_CASES,
    check_file_unchanged_after,
    check_hand_made,
    check_history_length,
    check_limit_script,
    check_line_count_tool,
    check_mode,
    check_verified,
)
from reactlab.course.loop_check import LoopCase, TallyTool, check_loop, loop_cases
from reactlab.course.quiz import answer_digest, check_quiz, normalise
from reactlab.doctor import Check
from reactlab.prompts import system_prompt
from reactlab.samples import SHOP, SHOP_FILES, SHOP_READ_ONLY, shop_path
from reactlab.workspace import Workspace

from .conftest import needs_sandbox
from .test_build_the_loop import SOLUTION, STUB, WRONG_LOOPS, _loop_from

ROOT = Path(__file__).resolve().parent.parent
CYRILLIC = re.compile("[А-Яа-яЁё]")
LANGS = ["en", "ru"]

# The verdict's first words, written out here (not read from the tables) so the wording is tested too.
MARKS = {
    "en": {
        "solved": "✓ solved: ",
        "not_solved": "✗ not solved yet: ",
        "not_quite": "✗ not quite: ",
        "almost": "✗ almost: ",
        "cannot_check": "? cannot be checked on this machine: ",
    },
    "ru": {
        "solved": "✓ решено: ",
        "not_solved": "✗ пока не решено: ",
        "not_quite": "✗ почти: ",
        "almost": "✗ почти: ",
        "cannot_check": "? на этой машине не проверить: ",
    },
}


def assert_verdict(verdict: str, lang: str, kind: str) -> None:
    """``verdict`` is one line of ``kind`` in ``lang``; a Russian one has Russian words after its mark."""
    assert "\n" not in verdict, verdict
    mark = MARKS[lang][kind]
    assert verdict.startswith(mark), (lang, kind, verdict)
    assert len(verdict) > len(mark) + 5, verdict
    if lang == "ru":
        assert CYRILLIC.search(verdict[len(mark) :]), verdict
    else:
        assert not CYRILLIC.search(verdict), verdict


def _exercise(stem: str, prefix: str) -> nbformat.NotebookNode:
    """The exercise cell of notebook ``stem`` whose stub starts with ``prefix``."""
    cells = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4).cells
    found = [c for c in cells if "exercise" in c.metadata.get("tags", []) and c.source.startswith(prefix)]
    assert len(found) == 1, (stem, prefix)
    return found[0]


def _defined(source: str, name: str, **namespace: Any) -> Any:
    """What ``name`` is after running ``source`` (a stub or a solution) in ``namespace``."""
    exec(compile(source, name, "exec"), namespace)
    return namespace[name]


def _stub_and_solution(stem: str, prefix: str, name: str, **namespace: Any) -> tuple[Any, Any]:
    cell = _exercise(stem, prefix)
    stub = _defined(cell.source, name, **namespace)
    solution = _defined(cell.metadata["reactlab"]["solution"], name, **namespace)
    return stub, solution


# -- 00: the mode --------------------------------------------------------------------------------


def _checks(sandbox: str) -> list[Check]:
    return [Check("python", "ok", "3.12"), Check("sandbox", sandbox, "bwrap"), Check("widgets", "ok", "")]


@pytest.mark.parametrize("lang", LANGS)
def test_check_mode_in_both_languages(lang):
    assert_verdict(check_mode("sandbox", _checks("ok"), lang), lang, "solved")
    assert_verdict(check_mode("replay", _checks("failed"), lang), lang, "solved")
    assert_verdict(check_mode(None, _checks("ok"), lang), lang, "not_solved")
    assert_verdict(check_mode("replay", _checks("ok"), lang), lang, "not_quite")
    assert_verdict(check_mode("sandbox", _checks("limited"), lang), lang, "not_quite")


def test_check_mode_keeps_its_english_words():
    assert check_mode("sandbox", _checks("ok")) == "✓ solved: this machine runs the course in sandbox mode"
    assert check_mode(None, _checks("ok")) == "✗ not solved yet: set MODE"
    assert check_mode("replay", _checks("ok")) == "✗ not quite: read the sandbox line of the report again"


# -- 01: the line-count tool ---------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_check_line_count_tool_in_both_languages(lang):
    stub, solution = _stub_and_solution(
        "01_single_tool_call", "from reactlab.tools.base import BaseTool", "LineCountTool", SHOP=SHOP
    )
    solved = check_line_count_tool(solution, lang)
    assert_verdict(solved, lang, "solved")
    lines = len((shop_path() / "shop/delivery.py").read_text(encoding="utf-8").splitlines())
    assert str(lines) in solved
    assert_verdict(check_line_count_tool(stub, lang), lang, "not_solved")


def test_check_line_count_tool_runs_the_tool_and_does_not_trust_its_schema():
    _, solution = _stub_and_solution(
        "01_single_tool_call", "from reactlab.tools.base import BaseTool", "LineCountTool", SHOP=SHOP
    )

    class OffByOne(solution):  # type: ignore[misc,valid-type]
        def run(self, path: str) -> dict[str, Any]:
            return {"ok": True, "lines": super().run(path)["lines"] + 1}

    verdict = check_line_count_tool(OffByOne)
    assert verdict.startswith("✗ not solved yet: the agent got {'ok': True, 'lines': ")


# -- 02: the length of the history ---------------------------------------------------------------


@pytest.fixture(scope="module")
def shop_record() -> Iterator[Any]:
    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    yield outcome.record
    outcome.workspace.cleanup()


@pytest.mark.parametrize("lang", LANGS)
def test_check_history_length_in_both_languages(lang, shop_record):
    stub, solution = _stub_and_solution("02_history_growth", "def history_length(", "history_length")
    assert_verdict(check_history_length(solution, shop_record, lang), lang, "solved")
    wrong = check_history_length(stub, shop_record, lang)
    assert_verdict(wrong, lang, "not_solved")
    said = {"en": "request 1: you say 0, it sent 2", "ru": "запрос 1: по вашей формуле сообщений 0, а ушло 2"}
    assert wrong.endswith(said[lang])


def test_check_history_length_tries_a_run_with_other_answers_than_the_shops(shop_record):
    fits_the_shop = [len(m.messages) for m in shop_record.model_calls]
    verdict = check_history_length(lambda calls, k: fits_the_shop[k - 1], shop_record)
    assert verdict.startswith("✗ not solved yet: the scripted run [2, 1, 4, 0], request 2"), verdict


# -- 03: the limit script ------------------------------------------------------------------------


@pytest.fixture
def shop_tools() -> Iterator[Any]:
    with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
        yield default_tools(workspace, SHOP_FILES)


@pytest.mark.parametrize("lang", LANGS)
def test_check_limit_script_in_both_languages(lang, shop_tools):
    stub, solution = _stub_and_solution(
        "03_stop_conditions", "limit_script = Script()", "limit_script", Script=Script, call=call
    )
    assert_verdict(check_limit_script(solution, shop_tools, lang), lang, "solved")
    assert_verdict(check_limit_script(stub, shop_tools, lang), lang, "not_solved")
    answers = Script().final_answer("done")
    assert_verdict(check_limit_script(answers, shop_tools, lang), lang, "not_solved")
    two_calls = (
        Script()
        .tool_call("read_file", path="shop/settings.json")
        .tool_calls(*(call("read_file", path="shop/delivery.py") for _ in range(3)))
    )
    assert_verdict(check_limit_script(two_calls, shop_tools, lang), lang, "almost")


# -- 05: verified --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fixed_and_liar() -> Iterator[tuple[Workspace, Workspace]]:
    fixed = run_in_copy(SHOP, SHOP.cassette().client())
    claim = Script().final_answer("Fixed it, all tests pass.").client()
    liar = run_in_copy(SHOP, claim)
    yield fixed.workspace, liar.workspace
    fixed.workspace.cleanup()
    liar.workspace.cleanup()


@pytest.mark.parametrize("lang", LANGS)
def test_check_verified_says_it_cannot_check_without_a_sandbox(lang, fixed_and_liar):
    fixed, liar = fixed_and_liar
    asked: list[Workspace] = []
    verdict = check_verified(asked.append, fixed, liar, "bwrap cannot build a sandbox here (test)", lang)
    assert_verdict(verdict, lang, "cannot_check")
    assert asked == []  # nothing was run to reach it


@needs_sandbox
@pytest.mark.parametrize("lang", LANGS)
def test_check_verified_in_both_languages(lang, fixed_and_liar):
    fixed, liar = fixed_and_liar
    stub, solution = _stub_and_solution(
        "05_failing_test",
        "def verified(",
        "verified",
        independent_test_run=independent_test_run,
        unchanged_paths=unchanged_paths,
        SHOP=SHOP,
    )
    assert_verdict(check_verified(solution, fixed, liar, None, lang), lang, "solved")
    assert_verdict(check_verified(stub, fixed, liar, None, lang), lang, "not_solved")
    assert_verdict(check_verified(lambda workspace: False, fixed, liar, None, lang), lang, "not_solved")


# -- 06: file_unchanged_after --------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_check_file_unchanged_after_says_it_cannot_check_without_a_sandbox(lang):
    asked: list[tuple[str, str]] = []
    verdict = check_file_unchanged_after(lambda c, p: asked.append((c, p)), "no bwrap (test)", lang)
    assert_verdict(verdict, lang, "cannot_check")
    assert asked == []


@needs_sandbox
@pytest.mark.parametrize("lang", LANGS)
def test_check_file_unchanged_after_in_both_languages(lang):
    stub, solution = _stub_and_solution(
        "06_sandbox",
        "def file_unchanged_after(",
        "file_unchanged_after",
        Workspace=Workspace,
        Sandbox=Sandbox,
        SHOP=SHOP,
    )
    assert_verdict(check_file_unchanged_after(solution, None, lang), lang, "solved")
    wrong = check_file_unchanged_after(stub, None, lang)
    assert_verdict(wrong, lang, "not_solved")
    assert FILE_UNCHANGED_CASES[1][0] in wrong  # the first command whose exit code misleads


# -- 07: the hand-made cassette ------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_check_hand_made_in_both_languages(lang):
    stub, solution = _stub_and_solution("07_your_own_run", "hand_made = {", "hand_made")
    assert_verdict(check_hand_made(solution, lang), lang, "solved")
    assert_verdict(check_hand_made(stub, lang), lang, "not_solved")
    assert_verdict(check_hand_made("not a cassette", lang), lang, "not_solved")
    says_hi = {**solution, "interactions": [{"response": {**solution["interactions"][0]["response"]}}]}
    says_hi["interactions"][0]["response"]["choices"] = [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ]
    verdict = check_hand_made(says_hi, lang)
    assert_verdict(verdict, lang, "not_quite")
    assert verdict.endswith({"en": "the answer was 'hi'", "ru": "получен ответ «hi»"}[lang])


# -- the quiz ------------------------------------------------------------------------------------


QUIZ_KEY = {1: answer_digest(1, "b"), 2: answer_digest(2, "tool_call_id"), 3: answer_digest(3, 8)}


def test_check_quiz_in_russian():
    right = check_quiz({1: "B", 2: " tool_call_id ", 3: 8}, QUIZ_KEY, lang="ru")
    assert right.splitlines() == [
        "✓ 1: верно",
        "✓ 2: верно",
        "✓ 3: верно",
        "✓ решено: все ответы верны (3 из 3)",
    ]
    wrong = check_quiz({1: "c", 2: None, 3: 8}, QUIZ_KEY, lang="ru")
    assert wrong.splitlines() == [
        "✗ 1: не этот ответ («c»); перечитайте вопрос",
        "· 2: ответа пока нет",
        "✓ 3: верно",
        "✗ пока не решено: верных ответов: 1 из 3",
    ]


def test_check_quiz_keeps_its_english_lines():
    assert check_quiz({1: "c", 2: None, 3: 8}, QUIZ_KEY).splitlines() == [
        "✗ 1: not this one ('c'); read the question again",
        "· 2: no answer yet",
        "✓ 3: right",
        "✗ not solved yet: 1 of 3 right",
    ]


# -- the loop check ------------------------------------------------------------------------------


def test_check_loop_in_russian_names_the_cases_in_russian():
    verdict = check_loop(_loop_from(SOLUTION), lang="ru").splitlines()
    assert verdict[-1] == "✓ решено: ваш цикл и агент согласны во всех случаях (5 из 5)"
    assert len(verdict) == 6
    for line, case in zip(verdict, loop_cases("ru"), strict=False):
        assert line.startswith(f"✓ {case.name}: истории совпали (сообщений: ")
        assert CYRILLIC.search(case.name), case.name
    assert [case.name for case in loop_cases("ru")] != [case.name for case in loop_cases("en")]


def test_check_loop_in_russian_rejects_the_stub_and_a_wrong_loop():
    assert check_loop(_loop_from(STUB), lang="ru") == (
        "✗ пока не решено: ваш цикл бросает NotImplementedError (это заготовка). Напишите его в ячейке выше."
    )
    source, _ = WRONG_LOOPS["results appended before the assistant message"]
    lines = check_loop(_loop_from(source), lang="ru").splitlines()
    assert lines[0].startswith("✗ запуск на магазине (") and "первое расхождение\u00a0— в сообщении 2" in lines[0]
    assert lines[1].startswith('    у агента: {"role": "assistant"')
    assert lines[2].startswith('    у вас:    {"role": "tool"')
    assert lines[-1].startswith("✗ пока не решено: совпало случаев: ")


def test_check_loop_in_russian_names_a_different_ending():
    def crashes(client, tools, messages, max_steps, max_tool_calls):
        messages.append(client.send(messages, [t.definition() for t in tools]).message)
        raise KeyError("tool_calls")

    case = LoopCase("one answer", lambda: Script().final_answer("hi").client(), lambda: [TallyTool()], "t")
    lines = check_loop(crashes, [case], lang="ru").splitlines()
    assert lines[0] == "✗ one answer: сообщения совпали (их 3), но концовки разные: у агента answer, у вас KeyError"
    assert lines[-1] == "✗ пока не решено: совпало случаев: 0 из 1"


@pytest.mark.parametrize("typed", ["а", "А", " в ", "С", "е"])
def test_a_cyrillic_look_alike_of_an_option_letter_counts_as_that_letter(typed):
    latin = {"а": "a", "в": "b", "с": "c", "е": "e"}[typed.strip().lower()]
    key = {1: answer_digest(1, latin)}
    assert "✓ решено" in check_quiz({1: typed}, key, lang="ru")
    assert normalise("сам") == "сам", "only a single look-alike letter is mapped, not words"


def test_the_russian_loop_check_replays_the_russian_shop_run():
    shop, *tallies = loop_cases("ru")
    assert CYRILLIC.search(shop.task) and CYRILLIC.search(shop.system)
    assert all(CYRILLIC.search(case.task) and case.system == system_prompt("ru") for case in tallies)
