"""The facilitator guides (notebooks/FACILITATOR.md and the Russian notebooks/ru/FACILITATOR.md): a
plan that adds up, the setup failures a room meets, honest claims, and the mistakes they promise the
loop check will name."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from reactlab.course.loop_check import check_loop

from .test_build_the_loop import WRONG_LOOPS, _loop_from
from .test_student_copies import GENERATOR, NOTEBOOKS

ROOT = Path(__file__).resolve().parent.parent
GUIDES = {
    "en": (ROOT / "notebooks" / "FACILITATOR.md").read_text(encoding="utf-8"),
    "ru": (ROOT / "notebooks" / "ru" / "FACILITATOR.md").read_text(encoding="utf-8"),
}
GUIDE = GUIDES["en"]
# Per language: the section titles (their start) and the words each section must hold.
WORDS = {
    "en": {
        "plan": ("The plan", ["build the loop", "optional", "homework"]),
        "failures": ("Setup failures", ["replay mode"]),
        "sheet": ("Cheat-sheet", []),
        "scripted": "scripted, not recorded",
        "not": ["as DeepSeek did", "recorded answers"],
    },
    "ru": {
        "plan": ("План занятия", ["построить цикл", "по желанию", "домашн"]),
        "failures": ("Сбои при установке", ["режим воспроизведения"]),
        "sheet": ("Шпаргалка", []),
        "scripted": "сценарный, а не записанный",
        "not": ["как это сделал DeepSeek", "записанные ответы"],
    },
}


def _section(title: str, guide: str = GUIDE) -> str:
    start = guide.index(f"## {title}")
    end = guide.find("\n## ", start + 1)
    return guide[start : end if end != -1 else None]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_plan_takes_two_hours_and_marks_optional_parts(lang):
    title, words = WORDS[lang]["plan"]
    plan = _section(title, GUIDES[lang])
    minutes = [int(m) for m in re.findall(r"^\|\s*(\d+)\s*\|", plan, flags=re.MULTILINE)]
    assert sum(minutes) == 120, minutes
    assert all(word in plan for word in words), words


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
def test_the_cheat_sheet_has_the_loop_and_the_message_shapes(lang):
    sheet = _section(WORDS[lang]["sheet"][0], GUIDES[lang])
    for needle in ('"tool_call_id"', '"tool_calls"', "json.loads", "StepLimitExceeded", "ToolCallLimitExceeded"):
        assert needle in sheet, needle
    assert len(sheet.splitlines()) < 60  # one page


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_guide_says_the_shop_run_is_scripted(lang):
    assert WORDS[lang]["scripted"] in GUIDES[lang]
    assert not any(claim in GUIDES[lang] for claim in WORDS[lang]["not"])


def test_the_mistakes_the_guide_names_are_caught_where_it_says():
    promised = {
        "results appended before the assistant message": "✗ the shop run (scripted cassette, tool results "
        "replayed): first difference at message 2",
        "tool-call limit off by one": "✗ the tool-call limit",
        "appended before it is validated": "✗ an id used twice in one answer: first difference at message 4 "
        "(Agent's history has 4 messages, yours 5)",
    }
    for name, line in promised.items():
        assert line in check_loop(_loop_from(WRONG_LOOPS[name][0])), name


def test_the_russian_guide_quotes_what_the_russian_check_prints():
    quoted = [line.rstrip(" …") for line in GUIDES["ru"].splitlines() if line.startswith("✗ ")]
    mistakes = ["results appended before the assistant message", "tool-call limit off by one",
                "appended before it is validated"]  # fmt: skip
    assert len(quoted) == len(mistakes)
    for name, line in zip(mistakes, quoted, strict=True):
        assert line in check_loop(_loop_from(WRONG_LOOPS[name][0]), lang="ru"), name


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
