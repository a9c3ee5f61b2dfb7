"""Each notebook run with ``LANG = "ru"``: the run it shows must be Russian from end to end.

The stored outputs are the English run (nbval compares them); this runs every notebook as Run All
would, with the first cell switched to Russian, and looks at what came out: the cells that show the
run (its requests, answers, tool results and schemes) carry Russian text, and nothing anywhere carries
the English system prompt, task or final answer of the shop run.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from reactlab.prompts import system_prompt
from reactlab.samples import shop_task

from .test_notebooks import MUST_RAISE, NOTEBOOKS, ROOT, _errors, _tags, run_all, this_python  # noqa: F401 (a fixture)

CYRILLIC = re.compile("[А-Яа-яЁё]")
ENGLISH_ONLY = [
    "Cause: load_settings()",  # the English shop run's final answer
    system_prompt("en").splitlines()[0],
    shop_task("en").splitlines()[0],
]

# Per notebook, parts of the code cells that show the run; each cell holding one must show Russian.
SHOWS_THE_RUN = {
    "00_setup": ["replayed.run(", "scripted.run("],
    "01_single_tool_call": [
        "print(json.dumps(body, indent=2",
        "SYSTEM = system_prompt(LANG)",
        "reader.run(",
        "scheme2_tool_call(agent.record)",
        "scheme1_loop(agent.record)",
        "refused.run(",
        "BeTheModel(",
    ],
    "02_history_growth": ["outcome = run_in_copy(", "scheme3_history(record", "RunViewer(record"],
    "03_stop_conditions": ["scheme4_stopping(agent.record)", "scheme5_route(agent.record)"],
    "04_build_the_loop": ["for entry in messages:"],
    "05_failing_test": ["print(shop_task(LANG))", "scheme5_route(record)", "print(outcome.answer)", "RunViewer(record"],
    "06_sandbox": ["agent.run(shop_task(LANG))", "scheme5_route(agent.record)"],
    "07_your_own_run": ["live = run_in_copy(", "scheme5_route(live.record)"],
}


def in_russian(path: Path, folder: Path) -> Path:
    """A copy of the notebook in ``folder`` whose first code cell says ``LANG = "ru"``."""
    notebook = nbformat.read(path, as_version=4)
    first = next(c for c in notebook.cells if c.cell_type == "code")
    assert first.source.count('LANG = "en"') == 1, f"{path.name}: the first code cell should set LANG once"
    first.source = first.source.replace('LANG = "en"', 'LANG = "ru"')
    switched = folder / path.name
    nbformat.write(notebook, switched)
    return switched


def _widget_states(notebook: nbformat.NotebookNode) -> dict[str, str]:
    state = notebook.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return {model: json.dumps(value, ensure_ascii=False) for model, value in state.get("state", {}).items()}


def shown_text(cell: nbformat.NotebookNode, states: dict[str, str]) -> str:
    """A cell's outputs, with the state of every widget model they display (children included)."""
    text = json.dumps(cell.get("outputs", []), ensure_ascii=False)
    pending = re.findall(r'"model_id": "(\w+)"', text)
    seen: set[str] = set()
    while pending:
        model = pending.pop()
        if model in seen or model not in states:
            continue
        seen.add(model)
        text += states[model]
        pending += re.findall(r"IPY_MODEL_(\w+)", states[model])
    return text


def check_russian_run(path: Path, tmp_path: Path) -> None:
    copy = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", copy)  # the notebooks' folder, as Run All has it
    notebook = run_all(in_russian(path, copy), copy)
    assert _errors(notebook) == [i for i, c in enumerate(notebook.cells) if MUST_RAISE in _tags(c)]

    states = _widget_states(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    for part in SHOWS_THE_RUN[path.stem]:
        showing = [c for c in code if part in c.source]
        assert showing, f"{path.name}: no code cell holds {part!r} any more"
        for cell in showing:
            assert CYRILLIC.search(shown_text(cell, states)), f"{path.name}: no Russian in the outputs of {part!r}"
    everything = "".join(shown_text(c, {}) for c in code) + "".join(states.values())
    for english in ENGLISH_ONLY:
        assert english not in everything, f"{path.name}: the Russian run shows {english!r}"


# Two classes, so that `--dist loadscope` runs the two halves on two workers.
FIRST_HALF, SECOND_HALF = NOTEBOOKS[:4], NOTEBOOKS[4:]


@pytest.mark.usefixtures("this_python")
class TestRussianRunFirstHalf:
    @pytest.mark.parametrize("path", FIRST_HALF, ids=lambda p: p.stem)
    def test_lang_ru_runs_the_notebook_in_russian(self, path, tmp_path):
        check_russian_run(path, tmp_path)


@pytest.mark.usefixtures("this_python")
class TestRussianRunSecondHalf:
    @pytest.mark.parametrize("path", SECOND_HALF, ids=lambda p: p.stem)
    def test_lang_ru_runs_the_notebook_in_russian(self, path, tmp_path):
        check_russian_run(path, tmp_path)


def test_every_notebook_says_which_cells_show_its_run():
    assert sorted(SHOWS_THE_RUN) == [p.stem for p in NOTEBOOKS]
