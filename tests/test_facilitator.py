"""The facilitator guides (notebooks/FACILITATOR.md and the Russian notebooks/ru/FACILITATOR.md): plans
that add up and fit the measured pace, timings that are the measured ones, the setup failures a room
meets, replay mode, Run All, debugging a loop, model answers for every discussion exercise, honest
claims, and the mistakes they promise the loop check will name."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest

from reactlab.course.loop_check import check_loop

from .loop_catalogue import WRONG, loop_from
from .test_student_copies import GENERATOR, NOTEBOOKS

ROOT = Path(__file__).resolve().parent.parent
GUIDES = {
    "en": (ROOT / "notebooks" / "FACILITATOR.md").read_text(encoding="utf-8"),
    "ru": (ROOT / "notebooks" / "ru" / "FACILITATOR.md").read_text(encoding="utf-8"),
}
FOLDERS = {"en": ROOT / "notebooks", "ru": ROOT / "notebooks" / "ru"}
PACE = 39  # words a minute: 10,520 words in about 4.5 hours, the one measurement the guides quote
# Per language: the section titles (their start) and the words each section must hold.
WORDS = {
    "en": {
        "plan": ("The plan", ["build the loop", "optional", "homework"]),
        "timing": ("How long it takes", ["39 words a minute", "10,520 words", "4.5 hours", "scripts/course_time.py"]),
        "failures": ("Setup failures", ["replay mode", "'.[lab]'"]),
        "replay": ("A group in replay mode", ["cannot be checked on this machine", "04"]),
        "run all": ("Run All", ["show_beside_agent(my_loop, now=True)", "not solved yet"]),
        "debug": ("Running 04", ["run_loop(my_loop, case)", "%debug", "10 seconds"]),
        "sheet": ("Cheat-sheet", []),
        "scripted": "scripted, not recorded",
        "not": ["as DeepSeek did", "recorded answers"],
    },
    "ru": {
        "plan": ("План занятия", ["строим цикл", "по желанию", "домашнее задание"]),
        "timing": (
            "Сколько это занимает",
            ["39 слов в минуту", "10\u00a0520 слов", "4,5 часа", "scripts/course_time.py"],
        ),
        "failures": ("Сбои при установке", ["режим воспроизведения", "'.[lab]'"]),
        "replay": ("Группа в режиме воспроизведения", ["на этой машине не проверить", "04"]),
        "run all": ("Run All", ["show_beside_agent(my_loop, now=True)", "пока не решено"]),
        "debug": ("Как вести 04", ["run_loop(my_loop, case)", "%debug", "10 секунд"]),
        "sheet": ("Шпаргалка", []),
        "scripted": "сценарный, а не записанный",
        "not": ["как это сделал DeepSeek", "записанные ответы"],
    },
}


def _section(title: str, guide: str) -> str:
    start = guide.index(f"## {title}")
    end = guide.find("\n## ", start + 1)
    return guide[start : end if end != -1 else None]


def _tables(section: str) -> list[list[list[str]]]:
    """The markdown tables of a section: rows of cells, header and rule left out."""
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*section.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


def _course_time():
    spec = importlib.util.spec_from_file_location("course_time", ROOT / "scripts" / "course_time.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("course_time", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_each_plan_takes_two_hours_and_marks_optional_parts(lang):
    title, words = WORDS[lang]["plan"]
    plan = _section(title, GUIDES[lang])
    tables = _tables(plan)
    assert len(tables) == 3, "one 2-hour session, or two"
    for table in tables:
        assert sum(int(row[0]) for row in table) == 120, table
    assert all(word in plan for word in words), words


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_timings_are_the_measured_words_at_the_measured_pace(lang):
    title, words = WORDS[lang]["timing"]
    section = _section(title, GUIDES[lang])
    assert all(word in section for word in words), words
    (table,) = _tables(section)
    course_time = _course_time()
    counted = {path.stem: course_time.count(path) for path in sorted(FOLDERS[lang].glob("[0-9][0-9]_*.ipynb"))}
    assert [row[0] for row in table] == list(counted)
    for name, core, optional, core_minutes, optional_minutes, cells, wall in table:
        found = counted[name]
        assert (int(core), int(optional)) == (found.core_words, found.deeper_words), name
        assert int(core_minutes) == round(found.core_words / PACE) and int(optional_minutes) == round(
            found.deeper_words / PACE
        ), name
        assert 0 < float(cells) < float(wall) < 60, name  # seconds: measured, and never what takes the time


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_hands_on_rows_get_at_least_the_measured_minutes(lang):
    estimates = {row[0][:2]: int(row[3]) for row in _tables(_section(WORDS[lang]["timing"][0], GUIDES[lang]))[0]}
    for table in _tables(_section(WORDS[lang]["plan"][0], GUIDES[lang])):
        for row in table:
            number = re.match(r"(0[1-4]) · ", row[1])
            if number and AT_HOME[lang] not in row[1]:  # 01-04 are done in class, unless read at home
                assert int(row[0]) >= max(estimates[number.group(1)], MEASURED.get(number.group(1), 0)), row
        slack = [int(row[0]) for row in table if row[1] == SLACK[lang]]
        assert slack and slack[0] > 0, "each plan leaves minutes unplanned, and says how many"


MEASURED = {"04": 60}
"""Minutes measured for a notebook where its words say too little: a beginner needed 60-65 for 04 (issue 38)."""
AT_HOME = {"en": "(read at home)", "ru": "(дома)"}
SLACK = {"en": "slack", "ru": "запас"}


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_section_a_teacher_needs_is_there(lang):
    for key in ("failures", "replay", "run all", "debug"):
        title, words = WORDS[lang][key]
        section = _section(title, GUIDES[lang])
        assert all(word in section for word in words), (key, [w for w in words if w not in section])


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_setup_failure_of_a_workshop_room_has_a_fix(lang):
    title, words = WORDS[lang]["failures"]
    failures = _section(title, GUIDES[lang])
    for needle in (
        "sudo apt-get install bubblewrap",
        "sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0",
        "seccomp",
        "Binder",
        "Colab",
        "macOS",
        "Windows",
        "DEEPSEEK_API_KEY",
        *words,
    ):
        assert needle in failures, needle


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_guide_asks_for_the_setup_line_that_notebook_00_prints(lang):
    guide = GUIDES[lang]
    assert "`SETUP mode=replay sandbox=✗ widgets=✓ python=3.12.3 live=~`" in guide
    assert "git remote get-url origin" in guide  # the address: where the teacher cloned it from


def _discussion_exercises(path: Path) -> list[int]:
    """The numbers of the exercises of a notebook that no code checks (the bold one is checked)."""
    markdown = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    exercises = markdown.split("## Exercises", 1)[1].split("\n## ", 1)[0]
    return [int(n) for n, text in re.findall(r"^(\d)\. (.*)$", exercises, flags=re.MULTILINE) if "**" not in text]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_discussion_exercise_has_a_model_answer(lang):
    expected = [
        f"**{path.stem[:2]}, {number}.**"
        for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
        for number in _discussion_exercises(path)
    ]
    assert len(expected) >= 14
    answered = re.findall(r"^- (\*\*\d\d, \d\.\*\*)", GUIDES[lang], flags=re.MULTILINE)
    assert answered == expected


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_cheat_sheet_has_the_loop_and_the_message_shapes(lang):
    sheet = _section(WORDS[lang]["sheet"][0], GUIDES[lang])
    for needle in ('"tool_call_id"', '"tool_calls"', "json.loads", "StepLimitExceeded", "ToolCallLimitExceeded"):
        assert needle in sheet, needle
    assert len(sheet.splitlines()) < 60  # one page


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_guide_says_the_shop_run_is_scripted(lang):
    assert WORDS[lang]["scripted"] in GUIDES[lang]
    assert not any(claim in GUIDES[lang] for claim in WORDS[lang]["not"])


QUOTED = [
    "results appended before the assistant message",
    "tool-call limit off by one",
    "appended before it is validated",
]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_guide_quotes_what_the_check_prints_for_the_common_mistakes(lang):
    quoted = [line for line in GUIDES[lang].splitlines() if line.startswith("✗ ")]
    assert len(quoted) == len(QUOTED)
    for name, line in zip(QUOTED, quoted, strict=True):
        assert line in check_loop(loop_from(WRONG[name]), lang=lang).splitlines(), name
    catalogue = re.search(r"a catalogue\s+of (\d+) wrong loops|каталог из (\d+) неверн\w+ цикл", GUIDES[lang])
    assert catalogue and int(catalogue.group(1) or catalogue.group(2)) == len(WRONG)


def test_the_russian_guide_says_how_the_russian_quiz_reads_letters():
    guide = GUIDES["ru"]
    assert "латинские (a, b, c): кириллическая" not in guide  # the old claim, wrong: look-alikes were accepted
    assert "обозначены буквами а, б, в" in guide and "«до» и «после»" in guide


def test_the_solutions_command_prints_every_stored_solution(capsys):
    assert all("scripts/student_copies.py --solutions" in guide for guide in GUIDES.values())
    assert GENERATOR.main(["--solutions"]) == 0
    printed = capsys.readouterr().out
    solutions = [
        cell.metadata["reactlab"]["solution"]
        for path in NOTEBOOKS
        for cell in nbformat.read(path, as_version=4).cells
        if "solution" in cell.metadata.get("reactlab", {})
    ]
    assert len(solutions) >= len(NOTEBOOKS)
    assert [s for s in solutions if s not in printed] == []


CLASS_SERVER = {"en": ("A class server", "Not tested"), "ru": ("Сервер для класса", "Не проверено")}


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_class_server_section_sets_it_up_with_commands_the_script_has(lang):
    title, untested = CLASS_SERVER[lang]
    section = _section(title, GUIDES[lang])
    script = (ROOT / "classroom" / "class-server").read_text(encoding="utf-8")
    commands = set(re.findall(r"classroom/class-server ([a-z-]+)", section))
    assert {"install", "add-students", "start", "link"} <= commands
    assert all(re.search(rf"^  {command}\)", script, re.MULTILINE) for command in commands), commands
    for needle in ("http_timeout", "--KernelManager.transport=ipc", "/dev/shm", "0700", "limits()", untested):
        assert needle in section, needle
