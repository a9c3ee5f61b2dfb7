"""run_in_copy on a SampleProject (its task, read-only paths and files) or on a plain folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reactlab import Outcome, Script, run_in_copy
from reactlab.samples import SHOP


def edit_a_test() -> Script:
    """A model that edits a test, then says it is done."""
    edit = {"path": "tests/test_delivery.py", "old_text": "(2500), 0)", "new_text": "(2500), 300)"}
    return Script().tool_call("edit", **edit).final_answer("done")


@pytest.fixture
def outcomes() -> Iterator[list[Outcome]]:
    made: list[Outcome] = []
    yield made
    for outcome in made:
        outcome.workspace.cleanup()


def offered_files(outcome: Outcome) -> list[str]:
    read_file = next(d for d in outcome.record.tools if d["function"]["name"] == "read_file")
    return list(read_file["function"]["parameters"]["properties"]["path"]["enum"])


def test_a_sample_project_brings_its_task_read_only_paths_and_files(outcomes):
    outcome = run_in_copy(SHOP, edit_a_test().client())
    outcomes.append(outcome)
    assert outcome.answer == "done" and outcome.record.task == SHOP.task()
    assert outcome.workspace.read_only == SHOP.read_only
    assert offered_files(outcome) == sorted(SHOP.files)
    assert "is read-only for this run" in outcome.record.tool_executions[0].result["error"]


def test_what_the_call_says_wins_over_the_project(outcomes):
    outcome = run_in_copy(SHOP, edit_a_test().client(), task="Edit a test.", read_only=[], files=["shop/delivery.py"])
    outcomes.append(outcome)
    assert outcome.record.task == "Edit a test." and outcome.workspace.read_only == ()
    assert offered_files(outcome) == ["shop/delivery.py"]
    assert outcome.record.tool_executions[0].result["ok"] is True  # nothing was read-only this time


def test_a_folder_needs_a_task_and_protects_only_what_it_is_told(tmp_path: Path, outcomes):
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(TypeError, match="task="):
        run_in_copy(tmp_path, Script().final_answer("done").client())
    outcome = run_in_copy(tmp_path, Script().final_answer("done").client(), task="Say done.")
    outcomes.append(outcome)
    assert outcome.answer == "done" and outcome.record.task == "Say done."
    assert outcome.workspace.read_only == () and offered_files(outcome) == ["notes.txt"]
    protected = run_in_copy(tmp_path, Script().final_answer("done").client(), task="t", read_only=["notes.txt"])
    outcomes.append(protected)
    assert protected.workspace.read_only == ("notes.txt",)
