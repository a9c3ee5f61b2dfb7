"""Write the student copies of both editions: outputs and solutions stripped, stubs in place.

    python scripts/student_copies.py                 # notebooks/student/ and notebooks/ru/student/
    python scripts/student_copies.py --edition ru    # only the Russian edition's copies
    python scripts/student_copies.py --edition en --out DIR   # anywhere else (the test compares the two)
    python scripts/student_copies.py --solutions     # print every stored solution (for the facilitator)

Each edition's copies go into the ``student/`` folder beside its notebooks, with a README in its
language. What a copy keeps and drops is decided by cell metadata, so the script knows no notebook by
name:
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
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
README_EN = """# Student copies (generated: do not edit)

These are the notebooks of `notebooks/` with outputs and solutions removed, so you predict and
write before you see. Each exercise's check prints "not solved yet" until you have done it, so Run
All goes through. Regenerate them with `make student` after changing a notebook; a test checks
that they are in step. Facilitators: see `../FACILITATOR.md`.
"""
README_RU = """# Блокноты для студентов (созданы автоматически, не правьте их)

Здесь блокноты из `notebooks/ru/` без выводов и без решений: сначала предскажите результат и
напишите код сами, потом смотрите. Пока упражнение не решено, проверка после него печатает
«пока не решено», поэтому Run All проходит до конца. Если блокнот изменился, пересоздайте копии
командой `make student` — тест следит, чтобы они не отставали. Преподавателю: см. `../FACILITATOR.md`.
"""


@dataclass(frozen=True)
class Edition:
    """The numbered notebooks in ``source``; their student copies go into ``source/student``."""

    lang: str
    source: Path
    readme: str

    @property
    def student(self) -> Path:
        return self.source / "student"


ENGLISH = Edition("en", NOTEBOOKS, README_EN)
RUSSIAN = Edition("ru", NOTEBOOKS / "ru", README_RU)
EDITIONS = {edition.lang: edition for edition in (ENGLISH, RUSSIAN)}


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


def write_copies(out: Path, edition: Edition = ENGLISH) -> list[Path]:
    """Write a student copy of every numbered notebook of ``edition`` into ``out``; return the files."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks(edition.source):
        notebook = nbformat.read(path, as_version=4)
        target = out / path.name
        nbformat.write(student_copy(notebook, path.name), target)
        written.append(target)
    readme = out / "README.md"
    readme.write_text(edition.readme, encoding="utf-8")
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
    parser.add_argument("--edition", choices=sorted(EDITIONS), help="only this edition (default: both)")
    parser.add_argument("--out", type=Path, help="folder for the copies of --edition (default: its student/)")
    parser.add_argument("--solutions", action="store_true", help="print every stored solution instead")
    args = parser.parse_args(argv)
    if args.out and not args.edition:
        parser.error("--out needs --edition: the two editions' copies cannot share a folder")
    chosen = [EDITIONS[args.edition]] if args.edition else list(EDITIONS.values())
    if args.solutions:
        print(
            "\n\n".join(
                f"## {edition.lang}: {edition.source.relative_to(ROOT)}\n\n{solutions(edition.source)}"
                for edition in chosen
            )
        )
        return 0
    for edition in chosen:
        out = args.out or edition.student
        try:
            written = write_copies(out, edition)
        except StudentCopyError as error:
            print(f"student copies: {error}", file=sys.stderr)
            return 1
        print(f"{len(written) - 1} student copies in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
