"""The two editions in step: every notebook of notebooks/ has a Russian twin in notebooks/ru/ with the
same cells (types, ids, order) and the same code, apart from the one line that sets the language
(``set_language("ru")`` where the English has ``set_language("en")``) and what the code says
(``say("...")``, in Russian in the twin);
the twin's prose is Russian, and so is the run its stored outputs show (nbval re-runs them and
compares). Also scripts/editions.py, which copies the code cells from English into the twins.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from reactlab.core.prompts import system_prompt
from reactlab.samples import shop_task

from .test_student_copies import script

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RUSSIAN = ROOT / "notebooks" / "ru"
LANG_LINE = re.compile(r'^set_language\("(en|ru)"\).*$', re.MULTILINE)
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
        "SYSTEM = system_prompt()",
        "reader.run(",
        "scheme2_tool_call(agent.record)",
        "scheme1_loop(agent.record)",
        "refused.run(",
        "BeTheModel(",
    ],
    "02_history_growth": ["outcome = run_in_copy(", "scheme3_history(record", "RunViewer(record"],
    "03_stop_conditions": ["scheme4_stopping(agent.record)", "scheme5_route(agent.record)"],
    "04_build_the_loop": ["for entry in messages:"],
    "05_failing_test": ["print(SHOP.task())", "scheme5_route(record)", "print(outcome.answer)", "RunViewer(record"],
    "06_sandbox": ["agent.run(SHOP.task())", "scheme5_route(agent.record)"],
    "07_your_own_run": ["live = run_in_copy(", "scheme5_route(live.record)"],
}


def twin(path: Path) -> nbformat.NotebookNode:
    russian = RUSSIAN / path.name
    assert russian.exists(), f"no Russian twin of {path.name}: write notebooks/ru/{path.name}"
    return nbformat.read(russian, as_version=4)


def test_both_editions_hold_the_same_notebooks():
    russian = sorted(p.name for p in RUSSIAN.glob("[0-9][0-9]_*.ipynb"))
    assert russian == [p.name for p in ENGLISH]


def _code(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def _languages(source: str) -> list[str]:
    return [match.group(1) for match in LANG_LINE.finditer(source)]


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_the_twin_has_the_same_cells_and_code(path):
    english, russian = nbformat.read(path, as_version=4), twin(path)
    assert [(c.cell_type, c.get("id")) for c in russian.cells] == [(c.cell_type, c.get("id")) for c in english.cells]
    assert _languages(_code(english)[0].source) == ["en"] and _languages(_code(russian)[0].source) == ["ru"]
    for index, (before, after) in enumerate(zip(_code(english), _code(russian), strict=True)):
        assert _languages(after.source) == ["ru"] * len(_languages(before.source)), f"code cell {index}"
        in_russian = EDITIONS.in_russian(LANG_LINE.sub("", before.source), "")
        assert LANG_LINE.sub("", after.source) == in_russian, f"code cell {index}"
        assert after.metadata.get("tags") == before.metadata.get("tags"), f"code cell {index}"
        assert after.metadata.get("reactlab") == before.metadata.get("reactlab"), f"code cell {index}"
    english_prose = [c for c in russian.cells if c.cell_type == "markdown" and not CYRILLIC.search(c.source)]
    assert english_prose == [], "every markdown cell of the Russian edition is written in Russian"


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


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_the_twin_stores_a_russian_run(path):
    """What `make notebooks` stored for the twin: the cells showing the run are Russian, none English."""
    notebook = twin(path)
    code = _code(notebook)
    assert all(c.execution_count is not None for c in code), "outputs must be stored for nbval: `make notebooks`"
    states = _widget_states(notebook)
    for part in SHOWS_THE_RUN[path.stem]:
        showing = [c for c in code if part in c.source]
        assert showing, f"no code cell holds {part!r} any more"
        for cell in showing:
            assert CYRILLIC.search(shown_text(cell, states)), f"no Russian in the outputs of {part!r}"
    everything = "".join(shown_text(c, {}) for c in code) + "".join(states.values())
    for english in ENGLISH_ONLY:
        assert english not in everything, f"the Russian edition shows {english!r}"


def test_every_notebook_says_which_cells_show_its_run():
    assert sorted(SHOWS_THE_RUN) == [p.stem for p in ENGLISH]


# scripts/editions.py: the code cells copied from English into the twin, by position.

EDITIONS = script("editions")
RU_LINE = 'set_language("ru")  # язык всех вызовов ниже'


def _notebook(*cells: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=list(cells))


def _pair() -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    english = _notebook(
        nbformat.v4.new_markdown_cell("# Title", id="title"),
        nbformat.v4.new_code_cell('import x\nset_language("en")  # "ru": Russian\nprint(1)', id="setup"),
        nbformat.v4.new_code_cell("x = 2", id="ex", metadata={"tags": ["exercise"], "reactlab": {"solution": "x=1"}}),
    )
    russian = _notebook(
        nbformat.v4.new_markdown_cell("# Заголовок", id="old-title"),
        nbformat.v4.new_code_cell(f"import x\n{RU_LINE}\nprint(1)", id="old-setup"),
        nbformat.v4.new_code_cell("x = 1", id="old-ex", metadata={"tags": ["old"]}),
    )
    russian.cells[1].outputs = [nbformat.v4.new_output("stream", text="ru\n")]
    return english, russian


def test_the_sync_copies_code_and_ids_and_keeps_the_prose_outputs_and_lang_line():
    english, russian = _pair()
    synced = EDITIONS.synced(english, russian, "ru/99.ipynb")
    assert [c.id for c in synced.cells] == ["title", "setup", "ex"]
    assert [c.source for c in synced.cells] == ["# Заголовок", f"import x\n{RU_LINE}\nprint(1)", "x = 2"]
    assert synced.cells[2].metadata == {"tags": ["exercise"], "reactlab": {"solution": "x=1"}}
    assert synced.cells[1].outputs == russian.cells[1].outputs
    assert russian.cells[2].source == "x = 1"  # the twin it was given is untouched
    assert EDITIONS.synced(english, synced, "ru/99.ipynb") == synced


def test_the_sync_says_the_cells_sentences_in_russian():
    english = 'print(say("files unchanged:"), x)\nprint(f"{say(\'kept:\'):20} {y}")\nsay(name)\nsay("not in it")'
    assert EDITIONS.in_russian(english, "here") == (
        'print(say("файлы не изменились:"), x)\nprint(f"{say(\'оставлено:\'):20} {y}")\nsay(name)\nsay("not in it")'
    )
    with pytest.raises(EDITIONS.EditionError, match="here: the Russian words break the code"):
        EDITIONS.in_russian("f\"{say('files unchanged:')}\"\nprint(", "here")


@pytest.mark.parametrize(
    "change",
    [
        lambda cells: cells.append(nbformat.v4.new_markdown_cell("ещё")),  # one more cell
        lambda cells: cells.pop(0),  # one cell fewer
        lambda cells: cells.reverse(),  # the same cells in another order
        lambda cells: cells.__setitem__(0, nbformat.v4.new_raw_cell("# Заголовок")),  # another type
    ],
    ids=["added", "dropped", "moved", "retyped"],
)
def test_the_sync_refuses_twins_whose_cells_differ(change):
    english, russian = _pair()
    change(russian.cells)
    with pytest.raises(EDITIONS.EditionError, match="ru/99.ipynb: the editions differ in their cells.*by hand"):
        EDITIONS.synced(english, russian, "ru/99.ipynb")


@pytest.mark.parametrize(
    "twin_setup",
    ["import x\nprint(1)", 'import x\nset_language("en")\nprint(1)', f"{RU_LINE}\n{RU_LINE}"],
    ids=["no language line", "set_language en", "set_language twice"],
)
def test_the_sync_refuses_a_twin_without_its_own_lang_line(twin_setup):
    english, russian = _pair()
    russian.cells[1].source = twin_setup
    with pytest.raises(EDITIONS.EditionError, match="ru/99.ipynb cell 1"):
        EDITIONS.synced(english, russian, "ru/99.ipynb")


def _folders(tmp_path: Path, *names: str) -> tuple[Path, Path]:
    english, russian = tmp_path / "notebooks", tmp_path / "notebooks" / "ru"
    russian.mkdir(parents=True)
    for name in names:
        pair = _pair()
        nbformat.write(pair[0], english / name)
        nbformat.write(pair[1], russian / name)
    return english, russian


def test_the_sync_writes_the_twins_once_and_then_finds_them_in_step(tmp_path):
    english, russian = _folders(tmp_path, "01_a.ipynb", "02_b.ipynb")
    assert EDITIONS.sync(english, russian, write=False) == [russian / "01_a.ipynb", russian / "02_b.ipynb"]
    assert nbformat.read(russian / "01_a.ipynb", as_version=4).cells[2].source == "x = 1"  # --check wrote nothing
    assert EDITIONS.sync(english, russian) == [russian / "01_a.ipynb", russian / "02_b.ipynb"]
    assert nbformat.read(russian / "01_a.ipynb", as_version=4).cells[2].source == "x = 2"
    assert EDITIONS.sync(english, russian) == []


def test_one_bad_twin_stops_the_sync_before_anything_is_written(tmp_path):
    english, russian = _folders(tmp_path, "01_a.ipynb", "02_b.ipynb")
    bad = nbformat.read(russian / "02_b.ipynb", as_version=4)
    bad.cells.pop()
    nbformat.write(bad, russian / "02_b.ipynb")
    before = (russian / "01_a.ipynb").read_bytes()
    with pytest.raises(EDITIONS.EditionError, match="02_b.ipynb"):
        EDITIONS.sync(english, russian)
    assert (russian / "01_a.ipynb").read_bytes() == before


@pytest.mark.parametrize("side", ["english", "russian"])
def test_the_sync_refuses_a_notebook_without_its_twin(tmp_path, side):
    english, russian = _folders(tmp_path, "01_a.ipynb")
    nbformat.write(_pair()[0], (english if side == "english" else russian) / "02_b.ipynb")
    with pytest.raises(EDITIONS.EditionError, match="the editions hold different notebooks.*02_b.ipynb"):
        EDITIONS.sync(english, russian)


def test_the_checked_in_twins_need_no_sync():
    assert EDITIONS.sync(write=False) == [], "run `python scripts/editions.py`, then `make notebooks`"
