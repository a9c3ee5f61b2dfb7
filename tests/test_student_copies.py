"""The student copies of both editions (notebooks/student/, notebooks/ru/student/): in step with the
notebooks, free of outputs and solutions, and runnable top to bottom (an intended error never halts
Run All)."""

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
from .test_russian_edition import allowed_by, english, output_lines

ROOT = Path(__file__).resolve().parent.parent
SANDBOX_FREE = {"04_build_the_loop"}  # notebooks that never run bash
# What an exercise's check prints before it is solved, and after, in each edition.
NOT_SOLVED = {"en": "✗ not solved yet", "ru": "✗ пока не решено"}
SOLVED = {"en": "✓ solved", "ru": "✓ решено"}


def script(name: str) -> ModuleType:
    """scripts/<name>.py, loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # where dataclasses look up the module's annotations
    spec.loader.exec_module(module)
    return module


GENERATOR = script("student_copies")
NOTEBOOKS = GENERATOR.notebooks()
EDITIONS = list(GENERATOR.EDITIONS.values())
# Every numbered notebook of both editions, with its edition; ids like 05_failing_test, ru/05_failing_test.
BOTH = [
    pytest.param(edition, path, id=f"{'' if edition.lang == 'en' else edition.lang + '/'}{path.stem}")
    for edition in EDITIONS
    for path in GENERATOR.notebooks(edition.source)
]


@pytest.mark.parametrize("edition", EDITIONS, ids=lambda e: e.lang)
def test_the_checked_in_copies_are_in_step_with_the_notebooks(edition, tmp_path):
    assert GENERATOR.notebooks(edition.source), f"no notebooks in {edition.source}"
    GENERATOR.write_copies(tmp_path, edition)
    fresh = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    checked_in = {p.name: p.read_bytes() for p in edition.student.iterdir()}
    assert sorted(checked_in) == sorted(fresh), "run `make student`"
    stale = [name for name in fresh if fresh[name] != checked_in[name]]
    assert stale == [], f"out of step: {stale}; run `make student`"


@pytest.mark.parametrize("edition, path", BOTH)
def test_a_copy_keeps_the_lesson_and_drops_outputs_and_solutions(edition, path):
    original = nbformat.read(path, as_version=4)
    copy = nbformat.read(edition.student / path.name, as_version=4)
    assert len(copy.cells) == len(original.cells)
    for before, after in zip(original.cells, copy.cells, strict=True):
        if "solution" not in before.metadata.get("tags", []):  # links aside (tests/test_links.py)
            assert GENERATOR.LINK.sub("", after.source) == GENERATOR.LINK.sub("", before.source)
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


@pytest.mark.parametrize("edition, path", [pytest.param(*p.values, marks=_marks(p.values[1]), id=p.id) for p in BOTH])
def test_a_copy_runs_top_to_bottom(edition, path, this_python, tmp_path):
    """As Run All does: nbclient stops at the first error unless the cell is tagged raises-exception."""
    copy = nbformat.read(edition.student / path.name, as_version=4)
    NotebookClient(
        copy,
        timeout=180,
        startup_timeout=180,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(edition.student)}},
    ).execute()
    assert all(c.execution_count is not None for c in copy.cells if c.cell_type == "code")
    checks = [
        "".join(o.get("text", "") for o in copy.cells[i + 1].outputs if o.output_type == "stream")
        for i, c in enumerate(copy.cells)
        if "exercise" in c.metadata.get("tags", [])
    ]
    assert all(NOT_SOLVED[edition.lang] in printed for printed in checks), checks
    if edition.lang == "ru":  # what Run All shows a Russian student before any exercise is solved
        shown = [line for cell in copy.cells if cell.cell_type == "code" for line in output_lines(cell)]
        assert [line for line in english(shown) if not allowed_by(path.name, line)] == [], path.name
