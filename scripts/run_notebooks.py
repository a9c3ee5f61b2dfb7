"""Execute the notebooks in place, as nbval will, and store their outputs.

    python scripts/run_notebooks.py                  # every notebook in notebooks/
    python scripts/run_notebooks.py 02 06            # those whose names start so

Each runs in a fresh kernel from the notebooks folder. The timing metadata Jupyter adds to every
cell is dropped: it changes on every run and only makes merges conflict.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


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


def main(prefixes: list[str]) -> None:
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        if not prefixes or any(path.name.startswith(p) for p in prefixes):
            print(f"{path.name}: {run(path):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
