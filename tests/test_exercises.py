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
from reactlab.core.language import say
from reactlab.core.prompts import system_prompt
from reactlab.core.workspace import Workspace
from reactlab.course.exercises import (
    FILE_UNCHANGED_CASES,
    check_file_unchanged_after,
    check_hand_made,
    check_history_length,
    check_limit_script,
    check_line_count_tool,
    check_mode,
    check_verified,
    setup_line,
)
from reactlab.course.loop_check import check_loop, loop_cases
from reactlab.course.quiz import QUIZ_WHY, QUIZZES, Question, Quiz, answer_digest, check_quiz
from reactlab.doctor import Check
from reactlab.samples import SHOP, SHOP_FILES, SHOP_READ_ONLY, shop_path

from .conftest import needs_sandbox
from .loop_catalogue import SOLUTION, STUB, WRONG, loop_from

ROOT = Path(__file__).resolve().parent.parent
CYRILLIC = re.compile("[А-Яа-яЁё]")
LANGS = ["en", "ru"]

# The verdict's first words, written out here (not said through the catalogue) so the wording is tested too.
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


def _exercise(stem: str, prefix: str, lang: str = "en") -> nbformat.NotebookNode:
    """The exercise cell of notebook ``stem`` (of the ``lang`` edition) whose stub starts with ``prefix``."""
    edition = ROOT / "notebooks" / ("ru" if lang == "ru" else "")
    cells = nbformat.read(edition / f"{stem}.ipynb", as_version=4).cells
    found = [c for c in cells if "exercise" in c.metadata.get("tags", []) and c.source.startswith(prefix)]
    assert len(found) == 1, (stem, prefix)
    return found[0]


def _defined(source: str, name: str, **namespace: Any) -> Any:
    """What ``name`` is after running ``source`` (a stub or a solution) in ``namespace``."""
    exec(compile(source, name, "exec"), namespace)
    return namespace[name]


def _stub_and_solution(stem: str, prefix: str, name: str, lang: str = "en", **namespace: Any) -> tuple[Any, Any]:
    cell = _exercise(stem, prefix, lang)
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
        "01_single_tool_call", "from reactlab import BaseTool", "LineCountTool", SHOP=SHOP
    )
    solved = check_line_count_tool(solution, lang)
    assert_verdict(solved, lang, "solved")
    lines = len((shop_path() / "shop/delivery.py").read_text(encoding="utf-8").splitlines())
    assert str(lines) in solved
    assert_verdict(check_line_count_tool(stub, lang), lang, "not_solved")


def test_check_line_count_tool_runs_the_tool_and_does_not_trust_its_schema():
    _, solution = _stub_and_solution("01_single_tool_call", "from reactlab import BaseTool", "LineCountTool", SHOP=SHOP)

    class OffByOne(solution):  # type: ignore[misc,valid-type]
        def run(self, path: str) -> dict[str, Any]:
            return {"ok": True, "lines": super().run(path)["lines"] + 1}

    verdict = check_line_count_tool(OffByOne)
    assert verdict.startswith("✗ not solved yet: the agent got {'ok': True, 'lines': ")


def test_check_line_count_tool_takes_any_class_a_student_writes():
    class NotATool:
        def __init__(self, workspace):
            pass

    class OddSchema(NotATool):
        name = "count_lines"

        def definition(self):
            return {"function": {"parameters": {"required": ["path"], "additionalProperties": False,
                                                "properties": {"path": "a string"}}}}  # fmt: skip

    class Raises(NotATool):
        def __init__(self, workspace):
            raise ValueError("no workspace for me")

    assert check_line_count_tool(NotATool).startswith("✗ not solved yet: your LineCountTool raised AttributeError")
    assert check_line_count_tool(OddSchema) == "✗ not solved yet: 'path' should be an enum of SHOP.files"
    assert check_line_count_tool(Raises).startswith(
        "✗ not solved yet: your LineCountTool raised ValueError: no workspace for me (at line "
    )
    assert check_line_count_tool(42).startswith("✗ not solved yet: your LineCountTool raised TypeError")


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
    assert_verdict(check_limit_script(solution, lang=lang), lang, "solved")
    assert_verdict(check_limit_script(solution, shop_tools, lang), lang, "solved")
    assert_verdict(check_limit_script(stub, lang=lang), lang, "not_solved")
    answers = Script().final_answer("done")
    assert_verdict(check_limit_script(answers, lang=lang), lang, "not_solved")
    two_calls = (
        Script()
        .tool_call("read_file", path="shop/settings.json")
        .tool_calls(*(call("read_file", path="shop/delivery.py") for _ in range(3)))
    )
    assert_verdict(check_limit_script(two_calls, lang=lang), lang, "almost")


def test_check_limit_script_names_no_internal_stop_reason():
    assert check_limit_script(Script()) == (
        "✗ not solved yet: your script has no answers yet: add them with .tool_call(...) or .tool_calls(...)"
    )
    short = Script().tool_call("read_file", path="shop/settings.json")
    assert check_limit_script(short) == (
        "✗ not solved yet: the agent asked for model call 2, but your script has only 1 answer(s): the limit "
        "must stop the run before that"
    )
    empty = Script().empty_answer()
    assert check_limit_script(empty) == (
        "✗ not solved yet: the run ended with an empty answer, not with the tool-call limit"
    )
    assert check_limit_script(empty, lang="ru") == (
        "✗ пока не решено: запуск закончился так: пустой ответ\u00a0— а должен был остановиться по лимиту вызовов "
        "инструментов"
    )
    for thing in (None, "Script()", [call("read_file", path="x")]):
        assert check_limit_script(thing).startswith("✗ not solved yet: limit_script should be a Script")


# -- 05: verified --------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_check_verified_says_it_cannot_check_without_a_sandbox(lang):
    asked: list[Workspace] = []
    verdict = check_verified(asked.append, "bwrap cannot build a sandbox here (test)", lang)
    assert_verdict(verdict, lang, "cannot_check")
    assert asked == []  # nothing was run to reach it


def _verified() -> tuple[Any, Any]:
    return _stub_and_solution(
        "05_failing_test",
        "def verified(",
        "verified",
        independent_test_run=independent_test_run,
        unchanged_paths=unchanged_paths,
        SHOP=SHOP,
    )


@needs_sandbox
@pytest.mark.parametrize("lang", LANGS)
def test_check_verified_in_both_languages(lang):
    stub, solution = _verified()
    assert_verdict(check_verified(solution, None, lang), lang, "solved")
    assert_verdict(check_verified(stub, None, lang), lang, "not_solved")
    assert_verdict(check_verified(lambda workspace: False, None, lang), lang, "not_solved")


@needs_sandbox
def test_check_verified_rejects_a_verified_that_only_runs_the_tests():
    """Issue 30: a verified() that forgets "settings and tests unchanged" was accepted."""

    def tests_only(workspace):
        return independent_test_run(workspace, SHOP.test_command).exit_code == 0

    def settings_only(workspace):
        return tests_only(workspace) and unchanged_paths(workspace, ["shop/settings.json"])["shop/settings.json"]

    assert check_verified(tests_only, None) == (
        "✗ not solved yet: in this copy the tests pass but shop/settings.json was changed, and verified() said True"
    )
    assert check_verified(settings_only, None) == (
        "✗ not solved yet: in this copy the tests pass but tests/ was changed, and verified() said True"
    )


@needs_sandbox
def test_check_verified_takes_no_truthy_stand_in_for_a_bool():
    _, solution = _verified()
    as_text = check_verified(lambda workspace: "False", None)
    assert as_text == "✗ not solved yet: verified() should return True or False, not str 'False'"
    as_number = check_verified(lambda workspace: int(solution(workspace)), None)
    assert as_number.startswith("✗ not solved yet: verified() should return True or False, not int")


def test_check_verified_makes_its_own_copies_and_removes_them():
    seen: list[Path] = []

    def looks(workspace):
        seen.append(workspace.root)
        return False

    verdict = check_verified(looks, None)
    assert verdict == "✗ not solved yet: the real fix passes, but verified() said False"
    assert len(seen) == 4 and not any(root.exists() for root in seen)


def test_a_student_function_that_raises_is_a_verdict_with_its_line():
    def verified(workspace):
        return workspace.nothing

    verdict = check_verified(verified, None)
    assert verdict.startswith("✗ not solved yet: your verified() raised AttributeError: 'Workspace' object has no ")
    assert re.search(r" \(at line \d+, in verified: return workspace\.nothing\)$", verdict), verdict


@pytest.mark.parametrize("lang", LANGS)
def test_a_crash_inside_python_is_shown_at_the_students_own_line(lang):
    """Issue 38: a crash inside pathlib was shown at pathlib's line, and in Russian as «в строка 1044»."""

    def verified(workspace):
        return Path(workspace.root, None).exists()

    verdict = check_verified(verified, None, lang)
    where = {"en": r" \(at line \d+, in verified: return Path\(workspace\.root, None\)\.exists\(\)\)$",
             "ru": r" \(в verified, строка \d+: return Path\(workspace\.root, None\)\.exists\(\)\)$"}  # fmt: skip
    assert re.search(where[lang], verdict), verdict
    assert "pathlib" not in verdict and "в строка" not in verdict


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
    stub, solution = _stub_and_solution("07_your_own_run", "hand_made = {", "hand_made", lang, say=say)
    assert_verdict(check_hand_made(solution, lang), lang, "solved")
    assert check_hand_made(solution, lang).endswith({"en": "'hello'", "ru": "«привет»"}[lang])
    assert_verdict(check_hand_made(stub, lang), lang, "not_solved")
    assert_verdict(check_hand_made("not a cassette", lang), lang, "not_solved")
    assert "{{" not in check_hand_made(stub, lang) and '{"response": {...}}' in check_hand_made(stub, lang)
    says_hi = {**solution, "interactions": [{"response": {**solution["interactions"][0]["response"]}}]}
    says_hi["interactions"][0]["response"]["choices"] = [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ]
    verdict = check_hand_made(says_hi, lang)
    assert_verdict(verdict, lang, "not_quite")
    assert verdict.endswith({"en": "the answer was 'hi'", "ru": "получен ответ «hi»"}[lang])


# -- the quiz ------------------------------------------------------------------------------------


QUIZ = Quiz(
    "test",
    {
        1: Question("choice", answer_digest(1, "b"), 3),
        2: Question("word", answer_digest(2, "tool_call_id")),
        3: Question("number", answer_digest(3, "8")),
    },
)


def test_check_quiz_in_russian():
    right = check_quiz({1: "Б)", 2: " tool_call_id ", 3: 8}, QUIZ, lang="ru")
    assert right.splitlines() == [
        "✓ 1: верно",
        "✓ 2: верно",
        "✓ 3: верно",
        "✓ решено: все ответы верны (3 из 3)",
    ]
    wrong = check_quiz({1: "в", 2: None, 3: 8}, QUIZ, lang="ru")
    assert wrong.splitlines() == [
        "✗ 1: не в)\u00a0— перечитайте вопрос",
        "· 2: ответа пока нет",
        "✓ 3: верно",
        "✗ пока не решено: верных ответов: 1 из 3",
    ]


def test_check_quiz_keeps_its_english_lines():
    assert check_quiz({1: "c", 2: None, 3: "8.0"}, QUIZ).splitlines() == [
        "✗ 1: not c): read the question again",
        "· 2: no answer yet",
        "✓ 3: right",
        "✗ not solved yet: 1 of 3 right",
    ]


@pytest.mark.parametrize(
    ("typed", "lang"),
    [("b", "en"), ("B", "en"), ("b)", "en"), ("(b)", "en"), (" b. ", "en"), ("b) one after another", "en"),
     ("'b'", "en"), ("в", "en"), ("б", "ru"), ("Б", "ru"), ("б)", "ru"), ("b", "ru"), ("(б)", "ru")],
)  # fmt: skip
def test_an_option_is_read_however_it_is_typed(typed, lang):
    assert check_quiz({1: typed, 2: "tool_call_id", 3: 8}, QUIZ, lang=lang).splitlines()[0].startswith("✓ 1")


@pytest.mark.parametrize(
    ("typed", "lang", "line"),
    [
        ("в", "ru", "✗ 1: не в)\u00a0— перечитайте вопрос"),  # the third Russian option, never b
        ("c", "en", "✗ 1: not c): read the question again"),
        ("d", "en", "✗ 1: there is no option d) here: answer with a, b or c"),
        ("г", "ru", "✗ 1: варианта г) здесь нет: ответьте а, б или в"),
        ("the second", "en", "✗ 1: answer with the option's letter: a, b or c"),
        ("bb", "en", "✗ 1: answer with the option's letter: a, b or c"),
        ("b" * 300, "en", "✗ 1: this answer cannot be read: write a letter, a number or a word"),
    ],
)
def test_a_wrong_or_unreadable_option_is_named_as_typed(typed, lang, line):
    assert check_quiz({1: typed}, QUIZ, lang=lang).splitlines()[0] == line


def test_numbers_and_words_are_read_leniently_but_not_loosely():
    good = {1: "b", 2: "`tool_call_id`", 3: " 8 "}
    assert check_quiz(good, QUIZ).endswith("all 3 answers are right")
    assert check_quiz({**good, 3: "eight"}, QUIZ).splitlines()[2] == "✗ 3: answer with a number"
    assert check_quiz({**good, 3: 8.5}, QUIZ).splitlines()[2] == "✗ 3: answer with a number"
    assert check_quiz({**good, 3: True}, QUIZ).splitlines()[2] == "✗ 3: answer with a number"
    assert check_quiz({**good, 2: "tool_call"}, QUIZ).splitlines()[1] == "✗ 2: not tool_call: read the question again"


class Hostile:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    __hash__ = object.__hash__


class RaisingMapping(dict):  # type: ignore[type-arg]
    def __contains__(self, key: object) -> bool:
        raise RuntimeError("no contains")


@pytest.mark.parametrize("answers", [None, [1, 2, 3], "b", 42, Hostile(), RaisingMapping({1: "b"})])
def test_a_quiz_that_is_not_a_dict_of_answers_is_a_verdict(answers):
    verdict = check_quiz(answers, QUIZ)
    assert verdict.splitlines()[-1].startswith("✗ not solved yet: "), verdict


def test_an_unreadable_answer_is_a_verdict_and_string_keys_count():
    lines = check_quiz({1: Hostile(), "2": "tool_call_id", "3": 8}, QUIZ).splitlines()
    assert lines == [
        "✗ 1: this answer cannot be read: write a letter, a number or a word",
        "✓ 2: right",
        "✓ 3: right",
        "✗ not solved yet: 2 of 3 right",
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_every_wrong_option_of_every_notebook_quiz_has_its_reason(lang):
    reasons = QUIZ_WHY
    assert set(reasons) == set(QUIZZES)
    for name, quiz in QUIZZES.items():
        assert set(reasons[name]) == set(quiz.questions), name
        for number, question in quiz.questions.items():
            why = reasons[name][number]
            if question.kind != "choice":
                assert "*" in why, (name, number)
                continue
            letters = "abcdefgh"[: question.options]
            right = next(letter for letter in letters if answer_digest(number, letter) == question.digest)
            assert set(why) == set(letters) - {right}, (name, number)
    if lang != "en":  # each reason has its translation
        untranslated = [text for why in reasons.values() for text in (w for a in why.values() for w in a.values())]
        assert [text for text in untranslated if say(text, lang=lang) == text] == []


def test_the_russian_quiz_takes_russian_words_for_the_english_ones():
    before_after = Quiz("06", {5: QUIZZES["06"].questions[5]})
    assert check_quiz({5: "после"}, before_after, lang="ru").splitlines()[0] == "✓ 5: верно"
    assert check_quiz({5: "after"}, before_after, lang="ru").splitlines()[0] == "✓ 5: верно"
    assert check_quiz({5: "До"}, before_after, lang="ru").splitlines()[0].startswith("✗ 5: не до\u00a0— если ")
    assert check_quiz({5: "после"}, before_after, lang="en").splitlines()[0].startswith("✗ 5: not после: ")
    a_type = Quiz("01", {2: QUIZZES["01"].questions[2]})
    assert check_quiz({2: "строка"}, a_type, lang="ru").splitlines()[0] == "✓ 2: верно"
    assert check_quiz({2: "string"}, a_type).splitlines()[0] == "✓ 2: right"
    assert check_quiz({2: "dict"}, a_type).splitlines()[0] == (
        "✗ 2: not dict: a dict is what json.loads makes of it; it arrives as JSON text"
    )


# -- 00: the line to send ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_setup_line_is_one_unambiguous_line_after_its_lead(lang):
    python = Check("Python", "ok", say("{version} at {executable}", lang=lang, version="3.12.1", executable="/x"))
    checks = [python, Check("sandbox", "failed", "bwrap"), Check("widgets", "ok", "")]
    lead, line = setup_line(checks, lang).splitlines()
    assert line == "SETUP mode=replay sandbox=✗ widgets=✓ python=3.12.1 live=?"  # in Russian too: not «версия»
    assert bool(CYRILLIC.search(lead)) is (lang == "ru")
    ok = setup_line([Check("sandbox", "ok", "")], lang).splitlines()[1]
    assert ok == "SETUP mode=sandbox sandbox=✓ widgets=? python=? live=?"


# -- the loop check ------------------------------------------------------------------------------


def test_check_loop_in_russian_says_solved_in_russian():
    verdict = check_loop(loop_from(SOLUTION), lang="ru")
    assert verdict.startswith("✓ решено: ваш цикл и агент согласны во всех случаях (309 из 309: ")
    assert "\n" not in verdict


def test_check_loop_in_russian_rejects_the_stub_and_a_wrong_loop():
    assert check_loop(loop_from(STUB), lang="ru") == (
        "✗ пока не решено: ваш цикл бросает NotImplementedError (это заготовка). Напишите его в ячейке выше."
    )
    lines = check_loop(loop_from(WRONG["results appended before the assistant message"]), lang="ru").splitlines()
    assert lines[0].startswith("✗ пока не решено: сообщение assistant с tool_calls должно")
    assert lines[1] == "  наименьший случай, где они расходятся: max_steps=2, max_tool_calls=1, ответы модели"
    assert "  сообщение 3 в истории агента:" in lines and "  сообщение 3 в вашей:" in lines


def test_check_loop_in_russian_names_a_different_ending():
    def raises(client, tools, messages, max_steps, max_tool_calls):
        messages.append(client.send(messages, [t.definition() for t in tools]).message)
        raise KeyError("tool_calls")

    lines = check_loop(raises, lang="ru").splitlines()
    assert lines[0] == (
        "✗ пока не решено: ваш цикл выбросил KeyError: 'tool_calls'. В ответе без вызовов инструментов ключа "
        '«tool_calls» нет: читайте его так: message.get("tool_calls") or [].'
    )
    assert lines[1:3] == [
        "  наименьший случай, где они расходятся: max_steps=1, max_tool_calls=0, ответы модели",
        '    1. content "Готово."',
    ]


def test_the_russian_loop_check_replays_the_russian_shop_run():
    *tallies, shop = loop_cases("ru")
    assert CYRILLIC.search(shop.task) and CYRILLIC.search(shop.system)
    assert all(CYRILLIC.search(case.task) and case.system == system_prompt("ru") for case in tallies)
