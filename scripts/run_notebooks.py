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
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from editions import EDITIONS, NOTEBOOKS, numbered
from nbclient import NotebookClient

from reactlab.llama_server import llama_server_problem


def run(path: Path) -> float:
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    NotebookClient(
        notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    elapsed = time.perf_counter() - started
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(notebook, path)
    return elapsed


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
