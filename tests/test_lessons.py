"""The course content of notebooks 01-03 and 05-07: predict-first questions, a quiz per notebook that
accepts its answers and nothing else, exercises whose checks hold no solution, 06's network proof,
and honest words about what is scripted and modelled.

Cells are run here in-process, from the notebooks' own sources, so a test sees exactly what a
student's kernel would run."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from reactlab.core.tools.bash import BashStandIn
from reactlab.course.quiz import QUIZZES, Quiz, check_quiz, read_answer

from .conftest import needs_sandbox

ROOT = Path(__file__).resolve().parent.parent
LESSONS = [
    "01_single_tool_call",
    "02_history_growth",
    "03_stop_conditions",
    "05_failing_test",
    "06_sandbox",
    "07_your_own_run",
]
SHOP_REPLAYED = ["01_single_tool_call", "02_history_growth", "05_failing_test"]  # they replay the shop cassette
EXERCISES = (ROOT / "reactlab" / "course" / "exercises.py").read_text(encoding="utf-8")  # where the checks' code lives


def _notebook(stem: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)


def _cell(notebook: nbformat.NotebookNode, prefix: str) -> nbformat.NotebookNode:
    found = [c for c in notebook.cells if c.source.startswith(prefix)]
    assert len(found) == 1, f"{len(found)} cells start with {prefix!r}"
    return found[0]


def _run(source: str, namespace: dict[str, Any]) -> str:
    """Execute a cell's source in ``namespace``; return what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, "<cell>", "exec"), namespace)
    return printed.getvalue()


def _markdown(notebook: nbformat.NotebookNode) -> str:
    return "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


# -- predict first -------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", LESSONS)
def test_at_least_two_cells_ask_for_a_prediction_with_the_answer_folded_away(stem):
    notebook = _notebook(stem)
    asked = 0
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "markdown" or "**Predict first.**" not in cell.source:
            continue
        after = cell.source.split("**Predict first.**", 1)[1]
        assert "<details><summary>Answer</summary>" in after and "</details>" in after, f"cell {index}"
        assert after.index("?") < after.index("<details>"), f"cell {index}: the question comes before the answer"
        following = notebook.cells[index + 1 :]
        assert any(c.cell_type == "code" for c in following), f"cell {index}: nothing to run after the question"
        asked += 1
    assert asked >= 2


# -- quizzes -------------------------------------------------------------------------------------


def _quiz(stem: str, edition: str = "") -> tuple[str, str, Quiz, str]:
    """The questions' markdown, the stub, the quiz and the reference answers of a notebook's quiz."""
    notebook = nbformat.read(ROOT / "notebooks" / edition / f"{stem}.ipynb", as_version=4)
    index = next(i for i, c in enumerate(notebook.cells) if c.source.startswith("quiz = "))
    cell = notebook.cells[index]
    assert "exercise" in cell.metadata.get("tags", []), "the quiz is an exercise: the student copy strips its answers"
    assert notebook.cells[index + 1].source.endswith(f'print(check_quiz(quiz, "{stem[:2]}"))')
    questions = notebook.cells[index - 1].source
    heading = "## Проверьте себя" if edition == "ru" else "## Quiz"
    assert heading in questions
    return questions.split(heading, 1)[1], cell.source, QUIZZES[stem[:2]], cell.metadata["reactlab"]["solution"]


def _answers(source: str) -> dict[int, object]:
    namespace: dict[str, Any] = {}
    _run(source, namespace)
    return dict(namespace["quiz"])


def _questions(markdown: str) -> dict[int, str]:
    parts = re.split(r"^(\d+)\. ", markdown, flags=re.MULTILINE)
    return {int(number): text for number, text in zip(parts[1::2], parts[2::2], strict=True)}


@pytest.mark.parametrize("edition", ["", "ru"])
@pytest.mark.parametrize("stem", LESSONS)
def test_the_quiz_asks_three_to_five_numbered_questions_lettered_as_the_edition_letters(stem, edition):
    questions, _, quiz, _ = _quiz(stem, edition)
    assert 3 <= len(quiz.questions) <= 5
    asked = _questions(questions)
    assert sorted(asked) == sorted(quiz.questions) == list(range(1, len(quiz.questions) + 1))
    letters = "абвгд" if edition == "ru" else "abcde"
    for number, question in quiz.questions.items():
        shown = re.findall(rf"(?<![\w`])([{letters}])\) ", asked[number])
        assert shown == list(letters[: question.options]), (number, shown)
    if edition == "ru":
        assert "латинск" not in questions


@pytest.mark.parametrize("stem", LESSONS)
def test_the_quiz_accepts_the_reference_answers_however_they_are_typed(stem):
    _, _, quiz, solution = _quiz(stem)
    answers = _answers(solution)
    count = len(quiz.questions)
    assert check_quiz(answers, quiz).endswith(f"✓ solved: all {count} answers are right")
    typed = {
        q: f"  {str(a).upper()})  " if quiz.questions[q].kind == "choice" else f" `{a}` " for q, a in answers.items()
    }
    assert check_quiz(typed, quiz).endswith(f"✓ solved: all {count} answers are right")
    russian = {
        q: "абвгд"["abcde".index(str(a))] if quiz.questions[q].kind == "choice" else a for q, a in answers.items()
    }
    assert check_quiz(russian, quiz, lang="ru").endswith(f"все ответы верны ({count} из {count})")
    assert check_quiz(answers, quiz, lang="ru").endswith(f"все ответы верны ({count} из {count})")


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("stem", LESSONS)
def test_the_quiz_rejects_the_stub_and_every_wrong_answer_saying_why(stem, lang):
    _, stub, quiz, solution = _quiz(stem)
    count = len(quiz.questions)
    assert check_quiz(_answers(stub), quiz).endswith(f"✗ not solved yet: 0 of {count} right")
    right = _answers(solution)
    tried = ("a", "b", "c", "d", "а", "б", "в", "0", "1", "5", "6", "8", "9", "10", "12", "str", "dict", "id")
    for question in right:
        for wrong in (*tried, "tool_call_id", "after", "before", "до", "после", "recorded", "scripted", "x"):
            read, problem = read_answer(wrong, quiz.questions[question], lang)
            if problem is not None or read == read_answer(right[question], quiz.questions[question], lang)[0]:
                continue
            lines = check_quiz({**right, question: wrong}, quiz, lang=lang).splitlines()
            assert lines[-1].endswith((f"{count - 1} of {count} right", f"{count - 1} из {count}")), (question, wrong)
            line = lines[question - 1]
            assert line.startswith(f"✗ {question}: ") and len(line) > 30, (question, wrong, line)


def test_no_right_answer_of_a_quiz_is_written_in_its_key_or_the_notebooks():
    library = repr(QUIZZES)  # the key: kinds, option counts and digests
    for stem in LESSONS:
        notebook = _notebook(stem)
        check = next(
            notebook.cells[i + 1].source for i, c in enumerate(notebook.cells) if c.source.startswith("quiz = ")
        )
        for answer in _answers(_quiz(stem)[3]).values():
            if len(str(answer)) > 2:
                assert not re.search(rf"\b{re.escape(str(answer))}\b", check + library), answer


# -- exercises -----------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", LESSONS)
def test_no_check_holds_a_line_of_its_solution(stem):
    notebook = _notebook(stem)
    for index, cell in enumerate(notebook.cells):
        if "exercise" not in cell.metadata.get("tags", []):
            continue
        solution = cell.metadata["reactlab"]["solution"]
        check = notebook.cells[index + 1].source
        if "reactlab.course.exercises" in check:
            check += "\n" + EXERCISES
        for line in solution.splitlines():
            line = line.strip()
            if len(line) < 12 or line in cell.source or line.startswith(("def ", '"""', "from ", "import ")):
                continue
            assert line not in check, f"cell {index + 1} holds the solution's line {line!r}"


def _history_length_namespace() -> tuple[dict[str, Any], str]:
    notebook = _notebook("02_history_growth")
    namespace: dict[str, Any] = {}
    _run(next(c.source for c in notebook.cells if c.cell_type == "code"), namespace)  # the shop run, replayed
    _run("from reactlab import Agent", namespace)
    check = _cell(notebook, "from reactlab.course.exercises import check_history_length").source
    return namespace, check


HISTORY_LENGTH_SLIPS = {
    "forgets the assistant message": "def history_length(calls, k):\n    return 2 + sum(calls[: k - 1])",
    "counts the answer being asked for": "def history_length(calls, k):\n    return 2 + sum(1 + n for n in calls[:k])",
    "forgets the user message": "def history_length(calls, k):\n    return 1 + sum(1 + n for n in calls[: k - 1])",
    "fits the shop run only": "def history_length(calls, k):\n    return [2, 6, 8, 10, 12][k - 1]",
}


def test_02_history_length_accepts_the_solution_and_rejects_the_stub_and_plausible_slips():
    namespace, check = _history_length_namespace()
    cell = _cell(_notebook("02_history_growth"), "def history_length(calls, k):")
    _run(cell.source, namespace)
    assert _run(check, namespace).startswith("✗ not solved yet")
    for name, slip in HISTORY_LENGTH_SLIPS.items():
        _run(slip, namespace)
        assert _run(check, namespace).startswith("✗ not solved yet"), name
    _run(cell.metadata["reactlab"]["solution"], namespace)
    assert _run(check, namespace).startswith("✓ solved")
    namespace["outcome"].workspace.cleanup()


def _sandbox_notebook() -> tuple[nbformat.NotebookNode, dict[str, Any]]:
    notebook = _notebook("06_sandbox")
    namespace: dict[str, Any] = {}
    _run(next(c.source for c in notebook.cells if c.cell_type == "code"), namespace)
    return notebook, namespace


@needs_sandbox
def test_06_file_unchanged_after_judges_effects_not_exit_codes():
    notebook, namespace = _sandbox_notebook()
    cell = _cell(notebook, "def file_unchanged_after(")
    check = _cell(notebook, "from reactlab.course.exercises import check_file_unchanged_after").source
    _run(cell.source, namespace)
    assert _run(check, namespace).startswith("✗ not solved yet")
    for wrong in ("return True", "return False", "return 'tests' in path"):
        _run(f"def file_unchanged_after(command, path):\n    {wrong}", namespace)
        assert _run(check, namespace).startswith("✗ not solved yet"), wrong
    _run(cell.metadata["reactlab"]["solution"], namespace)
    assert _run(check, namespace).startswith("✓ solved")
    namespace["workspace"].cleanup()


# -- 06: the network proof -----------------------------------------------------------------------


class _UnisolatedBash:
    """A bash with no sandbox at all, for the control: the proof must be able to fail. It runs only
    the probe this test builds (a python3 one-liner connecting to the notebook's own server)."""

    name = "bash"

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        command = arguments["command"]
        assert command.startswith("python3 -c \"import socket; socket.create_connection(('127.0.0.1', ")
        code = command[len('python3 -c "') : -1]
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=10)
        return {"ok": True, "exit_code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


PROOF = "if IN_BROWSER:  # a page opens no sockets"  # how the cell of the network proof starts


def _network_proof(bash: object | None, *, in_browser: bool = False) -> str:
    notebook, namespace = _sandbox_notebook()
    _run(_cell(notebook, "import socket\nimport threading").source, namespace)
    if bash is not None:
        namespace["bash"] = bash
    namespace["IN_BROWSER"] = in_browser
    try:
        return _run(_cell(notebook, PROOF).source, namespace)
    finally:
        namespace["workspace"].cleanup()


@needs_sandbox
def test_06_the_sandbox_cannot_reach_a_server_on_the_hosts_loopback():
    printed = _network_proof(None)
    assert "the sandbox's attempt: failed" in printed
    assert "connections received from the host: 2\n" in printed
    assert "connections received from the sandbox: 0\n" in printed


def test_06_the_proof_can_fail_a_process_outside_the_sandbox_is_counted():
    printed = _network_proof(_UnisolatedBash())
    assert "the sandbox's attempt: SUCCEEDED" in printed
    assert "connections received from the sandbox: 1\n" in printed
    assert "connections received from the host: 2\n" in printed


def test_06_without_a_sandbox_the_proof_says_it_ran_nothing_and_completes():
    printed = _network_proof(BashStandIn("bwrap cannot build a sandbox here (test)"))
    assert printed.startswith("not run: this machine has no sandbox, so the count below proves nothing here.")
    assert "connections received from the sandbox: 0\n" in printed


def test_06_in_a_browser_tab_the_proof_starts_no_server_and_says_why(monkeypatch):
    """A page has no sockets and no threads: the cell must say so, not fail, and make no server."""
    monkeypatch.setattr("socket.create_server", lambda *a, **k: pytest.fail("a server was started"))
    printed = _network_proof(BashStandIn("a browser tab (test)"), in_browser=True)
    assert printed == "not run: a browser tab opens no sockets, starts no threads and has no sandbox.\n"


def test_06_the_stored_proof_names_no_port():
    cell = _cell(_notebook("06_sandbox"), PROOF)
    printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    expected = ["connections received from the host: 2", "connections received from the sandbox: 0"]
    assert printed.splitlines()[1:] == expected
    assert not re.search(r"\d{4,}", printed)


# -- honest claims -------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", LESSONS)
def test_no_lesson_says_the_shop_run_was_recorded(stem):
    text = _markdown(_notebook(stem)).lower()
    for claim in ("as deepseek did", "recorded answers", "recorded run of the shop", "a recording of deepseek"):
        assert claim not in text, claim


@pytest.mark.parametrize("stem", SHOP_REPLAYED)
def test_a_lesson_that_replays_the_shop_run_says_it_is_scripted(stem):
    text = _markdown(_notebook(stem))
    assert "**scripted**" in text and "not recorded from DeepSeek" in text


def test_the_cost_is_called_a_model_with_the_prices_date_and_source():
    notebook = _notebook("02_history_growth")
    text = _markdown(notebook)
    assert "modelled" in text and "estimated" in text
    assert "https://api-docs.deepseek.com/quick_start/pricing" in text and "late 2026" in text
    cost = _cell(notebook, "HIT, MISS, OUTPUT = 0.003")
    assert "late 2026" in cost.source
    assert "".join(o.get("text", "") for o in cost.outputs).startswith("modelled cost")


def test_the_readme_calls_a_cassette_what_it_is():
    readme = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    assert "a cassette (a recording)" not in readme
    assert "scripted" in readme and "quiz" in readme.lower()
