"""Each notebook from a fresh kernel in a temporary copy; each exercise against its reference solution."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import needs_sandbox

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

pytestmark = needs_sandbox


@pytest.fixture
def this_python(tmp_path, monkeypatch):
    """A kernelspec for the interpreter running the tests, found before any user-level 'python3'."""
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "reactlab", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PYTHONHASHSEED", "0")


def execute(path: Path, workdir: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=180,
        startup_timeout=180,  # under the full suite a kernel can take over a minute to start on 2 cores
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(workdir)}},
    ).execute()
    return notebook


def errors_of(notebook: nbformat.NotebookNode) -> list[tuple[int, bool, str]]:
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                expected = "nbval-raises-exception" in cell.metadata.get("tags", [])
                found.append((index, expected, output.ename))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_in_a_fresh_kernel_from_a_copy(path, tmp_path, this_python):
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "notebooks", copy / "notebooks")
    notebook = execute(copy / "notebooks" / path.name, copy / "notebooks")
    unexpected = [(index, name) for index, expected, name in errors_of(notebook) if not expected]
    assert unexpected == []
    tagged = [i for i, c in enumerate(notebook.cells) if "nbval-raises-exception" in c.metadata.get("tags", [])]
    assert [index for index, expected, _ in errors_of(notebook) if expected] == tagged  # each raised


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_exercise_checks_accept_the_solution_and_reject_the_stub(path, tmp_path, this_python):
    notebook = nbformat.read(path, as_version=4)
    exercises = [i for i, c in enumerate(notebook.cells) if "exercise" in c.metadata.get("tags", [])]
    assert exercises, f"{path.name} has no exercise checked by code"
    for index in exercises:
        check = notebook.cells[index + 1]
        assert "✗ not solved yet" in _printed(check), "the stored stub output should show the check failing"
        notebook.cells[index].source = notebook.cells[index].metadata["reactlab"]["solution"]
    solved_path = tmp_path / path.name
    nbformat.write(notebook, solved_path)
    solved = execute(solved_path, ROOT / "notebooks")
    for index in exercises:
        assert "✓ solved" in _printed(solved.cells[index + 1]), _printed(solved.cells[index + 1])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_the_parts_of_a_lesson(path):
    notebook = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert notebook.cells[0].source.startswith("# ")
    for heading in ("**What you will learn**", "## Summary", "## Exercises"):
        assert heading in text, heading
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "outputs must be stored for nbval"
    assert 'LANG = "en"' in code[0].source
