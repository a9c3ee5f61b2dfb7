"""The student copies in notebooks/student/: in step with the notebooks, free of outputs and
solutions, and runnable top to bottom (an intended error never halts Run All)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import needs_sandbox

ROOT = Path(__file__).resolve().parent.parent
STUDENT = ROOT / "notebooks" / "student"
SANDBOX_FREE = {"04_build_the_loop"}  # notebooks that never run bash


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("student_copies", ROOT / "scripts" / "student_copies.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
NOTEBOOKS = GENERATOR.notebooks()


def test_the_checked_in_copies_are_in_step_with_the_notebooks(tmp_path):
    GENERATOR.write_copies(tmp_path)
    fresh = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    checked_in = {p.name: p.read_bytes() for p in STUDENT.iterdir()}
    assert sorted(checked_in) == sorted(fresh), "run `make student`"
    stale = [name for name in fresh if fresh[name] != checked_in[name]]
    assert stale == [], f"out of step: {stale}; run `make student`"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_copy_keeps_the_lesson_and_drops_outputs_and_solutions(path):
    original = nbformat.read(path, as_version=4)
    copy = nbformat.read(STUDENT / path.name, as_version=4)
    assert len(copy.cells) == len(original.cells)
    for before, after in zip(original.cells, copy.cells, strict=True):
        if "solution" not in before.metadata.get("tags", []):
            assert after.source == before.source
        if after.cell_type == "code":
            assert after.outputs == [] and after.execution_count is None
        assert "solution" not in after.metadata.get("reactlab", {})
        assert "execution" not in after.metadata
    assert "widgets" not in copy.metadata
    solutions = [
        c.metadata["reactlab"]["solution"] for c in original.cells if "solution" in c.metadata.get("reactlab", {})
    ]
    text = json.dumps(copy)
    assert all(json.dumps(solution)[1:-1] not in text for solution in solutions)


def _cell(source: str, **metadata: object) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, metadata=metadata)
    cell.outputs = [nbformat.v4.new_output("stream", text="kept?\n")]
    cell.execution_count = 3
    return cell


def test_the_generator_follows_the_cell_tags():
    notebook = nbformat.v4.new_notebook(
        cells=[
            _cell("answer = 42", tags=["solution"], reactlab={"stub": "answer = None  # TODO"}),
            _cell("x = None  # TODO", tags=["exercise"], reactlab={"solution": "x = 1"}),
            _cell("1 / 0", tags=["nbval-raises-exception"], execution={"iopub.status.idle": "t"}),
            _cell("print('plain')", reactlab={"other": 1}),
        ],
        metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {}}},
    )
    copy = GENERATOR.student_copy(notebook)
    assert [c.source for c in copy.cells] == ["answer = None  # TODO", "x = None  # TODO", "1 / 0", "print('plain')"]
    assert [c.metadata for c in copy.cells] == [
        {},
        {"tags": ["exercise"]},
        {"tags": ["nbval-raises-exception", "raises-exception"]},
        {"reactlab": {"other": 1}},
    ]
    assert all(c.outputs == [] and c.execution_count is None for c in copy.cells)
    assert "widgets" not in copy.metadata
    assert notebook.cells[0].source == "answer = 42" and notebook.cells[1].outputs  # the original is untouched


def test_a_solution_cell_without_a_stub_is_an_error_not_a_leak():
    notebook = nbformat.v4.new_notebook(cells=[_cell("answer = 42", tags=["solution"])])
    with pytest.raises(GENERATOR.StudentCopyError, match="cell 0 is tagged 'solution' but has no"):
        GENERATOR.student_copy(notebook)


def test_stale_copies_are_removed(tmp_path):
    (tmp_path / "99_renamed.ipynb").write_text("{}")
    GENERATOR.write_copies(tmp_path)
    assert not (tmp_path / "99_renamed.ipynb").exists()
    assert sorted(p.name for p in tmp_path.glob("*.ipynb")) == [p.name for p in NOTEBOOKS]


@pytest.fixture
def this_python(tmp_path, monkeypatch):
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "reactlab", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PYTHONHASHSEED", "0")


def _marks(path: Path) -> list[pytest.MarkDecorator]:
    return [] if path.stem in SANDBOX_FREE else [needs_sandbox]


@pytest.mark.parametrize("path", [pytest.param(p, marks=_marks(p), id=p.stem) for p in NOTEBOOKS])
def test_a_copy_runs_top_to_bottom(path, this_python, tmp_path):
    """As Run All does: nbclient stops at the first error unless the cell is tagged raises-exception."""
    copy = nbformat.read(STUDENT / path.name, as_version=4)
    NotebookClient(
        copy,
        timeout=180,
        startup_timeout=180,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(STUDENT)}},
    ).execute()
    assert all(c.execution_count is not None for c in copy.cells if c.cell_type == "code")
    checks = [
        "".join(o.get("text", "") for o in copy.cells[i + 1].outputs if o.output_type == "stream")
        for i, c in enumerate(copy.cells)
        if "exercise" in c.metadata.get("tags", [])
    ]
    assert all("✗ not solved yet" in printed for printed in checks), checks
