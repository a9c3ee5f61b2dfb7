"""Execute the notebooks of both editions in place, as nbval will, and store their outputs.

    python scripts/run_notebooks.py                  # every notebook in notebooks/ and notebooks/ru/
    python scripts/run_notebooks.py 02 06            # the English ones whose names start so
    python scripts/run_notebooks.py ru/05 05         # the Russian 05 and the English 05
    python scripts/run_notebooks.py ru/              # the whole Russian edition

A prefix is matched against the notebook's path inside notebooks/. Each notebook runs in a fresh
kernel from its own folder. The timing metadata Jupyter adds to every cell is dropped: it changes on
every run and only makes merges conflict. ``make notebooks`` first brings the Russian code cells in
step with the English ones (scripts/editions.py), so run that first if you call this by hand.
Where llama-server is not built (`make llama-server`), a notebook with cells tagged ``llama-server``
(07) is not re-executed: it says so and keeps the outputs it has.

Widgets drawn on reopening. A live widget's output (BeTheModel in 01, RunViewer in 02 and 05) names a
model in the kernel, which is gone when the notebook is opened again. Each such output also carries
the widget's static HTML (``text/html``), and a scheme shown alone is only that HTML. So:
- a notebook not trusted (a fresh clone) shows that HTML, sanitized;
- a trusted one (saved in this JupyterLab, or ``jupyter trust``) is drawn by the widgets' own code,
  from the state stored in its metadata (``application/vnd.jupyter.widget-state+json``, which nbclient
  writes and JupyterLab restores without running a cell). Without that state it would say "Error
  displaying widget: model not found": JupyterLab never falls back to the HTML once it trusts a notebook.
So the state is stored, but only of the models an output shows and those linked to them: every
scheme is an HTML widget in the kernel even when shown as plain HTML, and those models were a third
of the state (0.42 of 1.24 MB over both editions; 03, 06 and 07 now store none). What is left costs
20-25 KB in 01 and 180-210 KB in 02 and 05 (every step of the viewer). The price: where a view's
state is stored, nbconvert (nbviewer; GitHub's renderer uses it too, not checked here) exports the
live view, drawn by the widgets' JavaScript from a CDN, in place of the HTML beside it. The models are
renamed by their order (``_numbered_models``), so that running a notebook again changes no id.
A notebook run and saved in JupyterLab gets its state from JupyterLab, whose "save widget state"
setting (off by default) reactlab's install turns on: ``reactlab/widgets/overrides.d/reactlab.json``.
"""

from __future__ import annotations

import json
import re
import sys
import time
import uuid
from pathlib import Path

import nbformat
from editions import EDITIONS, NOTEBOOKS, numbered
from nbclient import NotebookClient

from reactlab.llama_server import llama_server_problem


def run(path: Path) -> float:
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(
        notebook,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    ).execute()
    elapsed = time.perf_counter() - started
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    keep_shown_widgets(notebook)
    path.write_text(_numbered_models(notebook, _name(path)), encoding="utf-8")
    return elapsed


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MODEL_REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]+)")  # how one model's state names another


def keep_shown_widgets(notebook: nbformat.NotebookNode) -> None:
    """Drop from the stored widget state every model that no output shows, directly or through a
    model linked to it either way (children, layout and style; a jslink names the two it joins)."""
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    linked: dict[str, set[str]] = {model: set() for model in state}
    for model, entry in state.items():
        for other in set(MODEL_REFERENCE.findall(json.dumps(entry.get("state", {})))) & state.keys():
            linked[model].add(other)
            linked[other].add(model)
    shown = [
        output["data"][WIDGET_VIEW]["model_id"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    ]
    kept: set[str] = set()
    while shown:
        model = shown.pop()
        if model in state and model not in kept:
            kept.add(model)
            shown.extend(linked[model])
    if kept:
        notebook.metadata.widgets[WIDGET_STATE]["state"] = {model: state[model] for model in state if model in kept}
    else:
        notebook.metadata.pop("widgets", None)


def _numbered_models(notebook: nbformat.NotebookNode, name: str) -> str:
    """The notebook as nbformat writes it, its models named by the notebook and the order the kernel
    made them in, not by the kernel's random ids: executed again without a change, it is the same file."""
    text = json.dumps(notebook, ensure_ascii=False)
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for number, model in enumerate(state):
        text = text.replace(model, uuid.uuid5(uuid.NAMESPACE_URL, f"reactlab/{name}/{number}").hex)
    return nbformat.writes(nbformat.from_dict(json.loads(text))).rstrip("\n") + "\n"  # as nbformat.write ends it


def chosen(prefixes: list[str]) -> list[Path]:
    """Every numbered notebook of both editions whose path inside notebooks/ starts with a prefix."""
    every = [path for folder in EDITIONS.values() for path in numbered(folder)]
    picked = [path for path in every if not prefixes or _name(path).startswith(tuple(prefixes))]
    if prefixes and not picked:
        raise SystemExit(f"no notebook matches {prefixes} (e.g. 05, ru/05, ru/)")
    return picked


def _name(path: Path) -> str:
    return path.relative_to(NOTEBOOKS).as_posix()  # 05_failing_test.ipynb, ru/05_failing_test.ipynb


def main(prefixes: list[str]) -> None:
    no_server = llama_server_problem()
    for path in chosen(prefixes):
        if no_server and _needs_llama_server(path):
            # Run here, its stored outputs would say only that the server is missing, and nbval would
            # then fail wherever it is built (CI). The notebook stays as it is.
            print(f"{_name(path)}: not re-executed, its cells tagged llama-server need it. {no_server}", flush=True)
            continue
        print(f"{_name(path)}: {run(path):.1f} s", flush=True)


def _needs_llama_server(path: Path) -> bool:
    cells = nbformat.read(path, as_version=4).cells
    return any("llama-server" in cell.metadata.get("tags", []) for cell in cells)


if __name__ == "__main__":
    main(sys.argv[1:])
