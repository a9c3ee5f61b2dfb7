"""notebooks/FACILITATOR.md: a plan that adds up, the setup failures a room meets, honest claims,
and the mistakes it promises the loop check will name."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from reactlab.loop_check import check_loop

from .test_build_the_loop import WRONG_LOOPS, _loop_from
from .test_student_copies import GENERATOR, NOTEBOOKS

ROOT = Path(__file__).resolve().parent.parent
GUIDE = (ROOT / "notebooks" / "FACILITATOR.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = GUIDE.index(f"## {title}")
    end = GUIDE.find("\n## ", start + 1)
    return GUIDE[start : end if end != -1 else None]


def test_the_plan_takes_two_hours_and_marks_optional_parts():
    plan = _section("The plan")
    minutes = [int(m) for m in re.findall(r"^\|\s*(\d+)\s*\|", plan, flags=re.MULTILINE)]
    assert sum(minutes) == 120, minutes
    assert "build the loop" in plan and "optional" in plan and "homework" in plan


def test_every_setup_failure_of_a_workshop_room_has_a_fix():
    failures = _section("Setup failures")
    for needle in (
        "sudo apt-get install bubblewrap",
        "sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0",
        "seccomp",
        "Binder",
        "Colab",
        "macOS",
        "Windows",
        "replay mode",
        "DEEPSEEK_API_KEY",
    ):
        assert needle in failures, needle


def test_the_cheat_sheet_has_the_loop_and_the_message_shapes():
    sheet = _section("Cheat-sheet")
    for needle in ('"tool_call_id"', '"tool_calls"', "json.loads", "StepLimitExceeded", "ToolCallLimitExceeded"):
        assert needle in sheet, needle
    assert len(sheet.splitlines()) < 60  # one page


def test_the_guide_says_the_shop_run_is_scripted():
    assert "scripted, not recorded" in GUIDE
    assert "as DeepSeek did" not in GUIDE and "recorded answers" not in GUIDE


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


def test_the_solutions_command_prints_every_stored_solution(capsys):
    assert "scripts/student_copies.py --solutions" in GUIDE
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
