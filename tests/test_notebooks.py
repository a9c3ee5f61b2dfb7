"""Each notebook of both editions as Run All would run it, in a fresh kernel from a copy; each exercise
against its solution.

Run All stops at the first error outside a cell tagged ``raises-exception``; so does nbclient, and
so these tests do. They need no sandbox: without one, bash is replayed or refused, and the notebooks
must still run to the end (CI runs them that way too, see .ci/run). ``REACTLAB_KERNEL_PYTHON`` picks
the interpreter of the kernel, for example a fresh virtual environment with reactlab's wheel.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import SANDBOX_PROBLEM, needs_sandbox
from .test_student_copies import NOT_SOLVED, SOLVED

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RUSSIAN = sorted((ROOT / "notebooks" / "ru").glob("[0-9][0-9]_*.ipynb"))
BOTH = NOTEBOOKS + RUSSIAN


def in_notebooks(path: Path) -> str:
    """The notebook's place in notebooks/, as the tests' ids show it: 05_failing_test, ru/05_failing_test."""
    return path.relative_to(ROOT / "notebooks").with_suffix("").as_posix()


def edition(path: Path) -> str:
    return "ru" if path.parent.name == "ru" else "en"


MUST_RAISE = "raises-exception"  # the tag JupyterLab, nbclient and nbval all honour


@pytest.fixture
def this_python(tmp_path, monkeypatch):
    """A kernelspec for the chosen interpreter, found before any user-level 'python3'."""
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    python = os.environ.get("REACTLAB_KERNEL_PYTHON", sys.executable)
    argv = [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "reactlab", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PYTHONHASHSEED", "0")


def client_for(notebook: nbformat.NotebookNode, workdir: Path) -> NotebookClient:
    """A client that runs ``notebook`` in ``workdir`` as Run All would: it stops at the first error."""
    return NotebookClient(
        notebook,
        timeout=180,
        startup_timeout=180,  # under the full suite a kernel can take over a minute to start on 2 cores
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(workdir)}},
    )


def run_all(path: Path, workdir: Path) -> nbformat.NotebookNode:
    """Execute top to bottom; like Run All, stop at the first error outside a raises-exception cell."""
    notebook = nbformat.read(path, as_version=4)
    client_for(notebook, workdir).execute()
    return notebook


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.metadata.get("tags", []))


def _errors(notebook: nbformat.NotebookNode) -> list[int]:
    return [i for i, c in enumerate(notebook.cells) for o in c.get("outputs", []) if o.output_type == "error"]


@pytest.mark.parametrize("path", BOTH, ids=in_notebooks)
def test_run_all_goes_to_the_end_in_a_fresh_kernel_from_a_copy(path, tmp_path, this_python):
    copy = tmp_path / "copy" / "notebooks"
    shutil.copytree(ROOT / "notebooks", copy)  # outside the repository: reactlab comes from the kernel's own install
    copied = copy / path.relative_to(ROOT / "notebooks")
    notebook = run_all(copied, copied.parent)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "Run All stopped before the last cell"
    assert _errors(notebook) == [i for i, c in enumerate(notebook.cells) if MUST_RAISE in _tags(c)]


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


@needs_sandbox  # the checks of 05 and 06 run the sandbox; elsewhere they say they cannot check
@pytest.mark.parametrize("path", BOTH, ids=in_notebooks)
def test_exercise_checks_accept_the_solution_and_reject_the_stub(path, tmp_path, this_python):
    notebook = nbformat.read(path, as_version=4)
    exercises = [i for i, c in enumerate(notebook.cells) if "exercise" in _tags(c)]
    assert exercises, f"{path.name} has no exercise checked by code"
    for index in exercises:
        check = notebook.cells[index + 1]
        assert NOT_SOLVED[edition(path)] in _printed(check), "the stored stub output should show the check failing"
        notebook.cells[index].source = notebook.cells[index].metadata["reactlab"]["solution"]
    solved_path = tmp_path / path.name
    nbformat.write(notebook, solved_path)
    solved = run_all(solved_path, path.parent)
    for index in exercises:
        assert SOLVED[edition(path)] in _printed(solved.cells[index + 1]), _printed(solved.cells[index + 1])


CANNOT_CHECK = {"en": "? cannot be checked on this machine", "ru": "? на этой машине не проверить"}


@pytest.mark.parametrize("path", BOTH, ids=in_notebooks)
def test_after_run_all_each_exercise_can_still_be_solved_and_checked(path, tmp_path, this_python):
    """As a student works: Run All on the fresh notebook (every check says "not solved yet"), then
    write each exercise's solution into its cell and run that cell and its check again, in the same
    kernel. Nothing Run All did on the way (a copy removed, Agent._loop shown) may break that."""
    notebook = nbformat.read(path, as_version=4)
    exercises = [i for i, c in enumerate(notebook.cells) if "exercise" in _tags(c)]
    assert exercises, f"{path.name} has no exercise checked by code"
    client = client_for(notebook, path.parent)
    lang = edition(path)
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):  # Run All
            client.execute_cell(cell, index)
        assert all(NOT_SOLVED[lang] in _printed(notebook.cells[i + 1]) for i in exercises)
        for index in exercises:  # then each exercise, as the student writes it
            notebook.cells[index].source = notebook.cells[index].metadata["reactlab"]["solution"]
            client.execute_cell(notebook.cells[index], index)
            client.execute_cell(notebook.cells[index + 1], index + 1)
    assert _errors(notebook) == []
    for index in exercises:
        printed = _printed(notebook.cells[index + 1])
        assert SOLVED[lang] in printed or (SANDBOX_PROBLEM and CANNOT_CHECK[lang] in printed), printed


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_the_parts_of_a_lesson(path):
    notebook = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert re.search(r"^# \d\d · ", notebook.cells[0].source, re.MULTILINE), "the first cell holds the title"
    for heading in ("**What you will learn**", "## Summary", "## Exercises"):
        assert heading in text, heading
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "outputs must be stored for nbval"
    assert 'set_language("en")' in code[0].source


@pytest.mark.parametrize("path", BOTH, ids=in_notebooks)
def test_every_cell_that_must_raise_says_so_to_jupyterlab_too(path):
    """nbval's own tag alone makes JupyterLab's Run All halt there."""
    for cell in nbformat.read(path, as_version=4).cells:
        if "nbval-raises-exception" in _tags(cell):
            assert MUST_RAISE in _tags(cell), cell.source[:80]


HOST_SPECIFIC = [re.escape(str(ROOT)), re.escape(sys.prefix), r"/home/\w", r"/root/", r"ipykernel_\d+", r"\.venv/"]


@pytest.mark.parametrize("path", BOTH, ids=in_notebooks)
def test_stored_outputs_name_nothing_of_the_machine_they_ran_on(path):
    """Outputs compared by nbval must be the same for root and non-root, here and on a student's machine."""
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "code" or "nbval-ignore-output" in _tags(cell):
            continue
        for output in cell.outputs:
            text = json.dumps({k: v for k, v in output.items() if k in ("text", "data", "evalue", "traceback")})
            for pattern in HOST_SPECIFIC:
                assert not re.search(pattern, text), f"cell {index} stores {pattern!r}"
