"""Write the student copies of the notebooks: outputs and solutions stripped, stubs in place.

    python scripts/student_copies.py                 # into notebooks/student/
    python scripts/student_copies.py --out DIR       # anywhere else (the test compares the two)
    python scripts/student_copies.py --solutions     # print every stored solution (for the facilitator)

What a copy keeps and drops is decided by cell metadata, so the script knows no notebook by name:
- every code cell loses its outputs, execution count and timing metadata;
- a cell's ``metadata.reactlab.solution`` (the reference solution of an exercise whose cell holds
  the stub) is removed;
- a cell tagged ``solution`` is replaced by its ``metadata.reactlab.stub``;
- a cell tagged ``nbval-raises-exception`` also gets ``raises-exception``, the tag JupyterLab and
  nbclient honour, so Run All goes past an intended error;
- the notebook's stored widget state is removed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = NOTEBOOKS / "student"
README = """# Student copies (generated: do not edit)

These are the notebooks of `notebooks/` with outputs and solutions removed, so you predict and
write before you see. Each exercise's check prints "not solved yet" until you have done it, so Run
All goes through. Regenerate them with `make student` after changing a notebook; a test checks
that they are in step. Facilitators: see `../FACILITATOR.md`.
"""


class StudentCopyError(ValueError):
    """A notebook asks for something the generator cannot do (e.g. a solution cell without a stub)."""


def notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    return sorted(folder.glob("[0-9][0-9]_*.ipynb"))


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.metadata.get("tags", []))


def student_cell(cell: nbformat.NotebookNode, where: str) -> nbformat.NotebookNode:
    cell = nbformat.from_dict(cell)  # a deep copy
    tags = _tags(cell)
    own = dict(cell.metadata.get("reactlab", {}))
    if "solution" in tags:
        stub = own.pop("stub", None)
        if not isinstance(stub, str):
            raise StudentCopyError(f"{where} is tagged 'solution' but has no metadata.reactlab.stub")
        cell.source = stub
        tags.remove("solution")
    own.pop("solution", None)
    if "nbval-raises-exception" in tags and "raises-exception" not in tags:
        tags.append("raises-exception")
    cell.metadata.pop("execution", None)
    cell.metadata.pop("reactlab", None)
    cell.metadata.pop("tags", None)
    if own:
        cell.metadata["reactlab"] = own
    if tags:
        cell.metadata["tags"] = tags
    if cell.cell_type == "code":
        cell.outputs = []
        cell.execution_count = None
    return cell


def student_copy(notebook: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    copy = nbformat.from_dict(notebook)
    copy.cells = [student_cell(cell, f"{name} cell {index}") for index, cell in enumerate(notebook.cells)]
    copy.metadata.pop("widgets", None)
    return copy


def write_copies(out: Path, source: Path = NOTEBOOKS) -> list[Path]:
    """Write a student copy of every numbered notebook in ``source`` into ``out``; return the files."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks(source):
        notebook = nbformat.read(path, as_version=4)
        target = out / path.name
        nbformat.write(student_copy(notebook, path.name), target)
        written.append(target)
    readme = out / "README.md"
    readme.write_text(README, encoding="utf-8")
    written.append(readme)
    stale = [p for p in out.glob("*.ipynb") if p not in written]
    for path in stale:  # a notebook renamed or removed upstream
        path.unlink()
    return written


def solutions(source: Path = NOTEBOOKS) -> str:
    """Every stored solution, by notebook and cell number, as the facilitator's key."""
    parts = []
    for path in notebooks(source):
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if "solution" in cell.metadata.get("tags", []):
                parts.append(f"# {path.name}, cell {index} (tagged solution)\n{cell.source}")
            elif "solution" in cell.metadata.get("reactlab", {}):
                parts.append(
                    f"# {path.name}, cell {index} (the solution of the stub there)\n{cell.metadata.reactlab.solution}"
                )
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the copies (default: %(default)s)")
    parser.add_argument("--solutions", action="store_true", help="print every stored solution instead")
    args = parser.parse_args(argv)
    if args.solutions:
        print(solutions())
        return 0
    try:
        written = write_copies(args.out)
    except StudentCopyError as error:
        print(f"student copies: {error}", file=sys.stderr)
        return 1
    print(f"{len(written) - 1} student copies in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
