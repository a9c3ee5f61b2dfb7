"""Keep the Russian edition's code cells in step with the English notebooks.

    python scripts/editions.py            # copy the code cells of notebooks/NN_*.ipynb into notebooks/ru/NN_*.ipynb
    python scripts/editions.py --check    # change nothing; exit 1 and name the twins that are out of step

The English notebooks are the source of the code; the Russian twins (same file names, in
``notebooks/ru/``) have their own prose. Cells are paired by position, so both notebooks must have
the same cell types in the same order: the script refuses, and writes nothing, when they do not (a
cell added, dropped or moved on one side only; add it on the other side by hand first). For every
pair it copies the code cell's source and metadata (tags, ``metadata.reactlab``) and, for every cell,
its id; it keeps the twin's markdown, its stored outputs and the one line that sets its language,
``set_language("ru")  # …``, in place of the English ``set_language("en")  # …``. What a cell says
(``say("English")``: a label it prints, a scripted model's words) the twin says in Russian, from the
library's catalogue: ``say("Бесплатная доставка от 2000 рублей.")``.

``make notebooks`` runs this first, then executes both editions (scripts/run_notebooks.py), then
writes both editions' student copies (scripts/student_copies.py). tests/test_editions.py checks the
result.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import nbformat

from reactlab.core.language import translate

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ENGLISH = NOTEBOOKS
RUSSIAN = NOTEBOOKS / "ru"
EDITIONS = {"en": ENGLISH, "ru": RUSSIAN}
LANG_LINE = re.compile(r'^set_language\("(en|ru)"\).*$', re.MULTILINE)
SAID = re.compile(r"""\bsay\(\s*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")


class EditionError(ValueError):
    """The two editions cannot be paired cell by cell; the message says where and what to do."""


def numbered(folder: Path) -> list[Path]:
    return sorted(folder.glob("[0-9][0-9]_*.ipynb"))


def _lang_lines(source: str) -> list[str]:
    return [match.group(0) for match in LANG_LINE.finditer(source)]


def in_russian(source: str, where: str) -> str:
    """``source`` with the literal of each ``say("English")`` in Russian, quoted the same way."""

    def russian(found: re.Match[str]) -> str:
        literal = found[1]
        text = translate(ast.literal_eval(literal), lang="ru")
        escaped = text.replace("\\", "\\\\").replace(literal[0], "\\" + literal[0]).replace("\n", "\\n")
        return found[0][: -len(literal)] + literal[0] + escaped + literal[0]

    translated = SAID.sub(russian, source)
    try:
        ast.parse("\n".join(line for line in translated.splitlines() if not line.lstrip().startswith(("%", "!"))))
    except SyntaxError as error:
        raise EditionError(f"{where}: the Russian words break the code ({error.msg}): reword them") from None
    return translated


def twin_source(english: str, twin: str, where: str) -> str:
    """The English cell's source with the twin's own language line in place of the English one, and
    its sentences in Russian (``in_russian``)."""
    english_lines, twin_lines = _lang_lines(english), _lang_lines(twin)
    if len(english_lines) != len(twin_lines) or len(twin_lines) > 1:
        raise EditionError(
            f"{where}: the English cell calls set_language {len(english_lines)} time(s), the Russian one "
            f"{len(twin_lines)}; each must set it at most once, in the same cell"
        )
    if not twin_lines:
        return in_russian(english, where)
    if not twin_lines[0].startswith('set_language("ru")'):
        raise EditionError(f'{where}: the Russian twin must say set_language("ru"), not {twin_lines[0]!r}')
    return in_russian(LANG_LINE.sub(lambda _: twin_lines[0], english), where)


def synced(english: nbformat.NotebookNode, twin: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """A copy of ``twin`` with the code cells (and every cell id) of ``english``; ``twin`` is untouched."""
    english_types = [cell.cell_type for cell in english.cells]
    twin_types = [cell.cell_type for cell in twin.cells]
    if english_types != twin_types:
        first = next(
            i
            for i in range(max(len(english_types), len(twin_types)))
            if _type_at(english_types, i) != _type_at(twin_types, i)
        )
        raise EditionError(
            f"{name}: the editions differ in their cells: English has {len(english_types)}, Russian "
            f"{len(twin_types)}, and they first differ at cell {first} "
            f"({_type_at(english_types, first)} in English, {_type_at(twin_types, first)} in Russian). "
            "Add, drop or move that cell in the Russian twin by hand, then run this again."
        )
    result = nbformat.from_dict(twin)  # a deep copy
    for index, (source, target) in enumerate(zip(english.cells, result.cells, strict=True)):
        if "id" in source:
            target.id = source.id
        if source.cell_type != "code":
            continue
        target.source = twin_source(source.source, target.source, f"{name} cell {index}")
        target.metadata = nbformat.from_dict(
            {key: value for key, value in source.metadata.items() if key != "execution"}
        )
    return result


def _type_at(types: list[str], index: int) -> str:
    return types[index] if index < len(types) else "nothing"


def sync(english: Path = ENGLISH, russian: Path = RUSSIAN, *, write: bool = True) -> list[Path]:
    """Bring every Russian twin in step; return the twins that changed (or would change).

    Checks every pair before writing any, so a refusal leaves both editions as they were."""
    originals, twins = numbered(english), numbered(russian)
    missing = sorted({p.name for p in originals} - {p.name for p in twins})
    orphans = sorted({p.name for p in twins} - {p.name for p in originals})
    if missing or orphans:
        raise EditionError(
            f"the editions hold different notebooks: no Russian twin of {missing} in {russian}, "
            f"no English notebook for {orphans} in {english}"
        )
    changed = []
    for original, twin in zip(originals, twins, strict=True):
        before = nbformat.read(twin, as_version=4)
        after = synced(nbformat.read(original, as_version=4), before, f"ru/{twin.name}")
        if after != before:
            changed.append((twin, after))
    if write:
        for twin, notebook in changed:
            nbformat.write(notebook, twin)
    return [twin for twin, _ in changed]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a twin is out of step")
    args = parser.parse_args(argv)
    try:
        changed = sync(write=not args.check)
    except EditionError as error:
        print(f"editions: {error}", file=sys.stderr)
        return 1
    names = ", ".join(f"ru/{path.name}" for path in changed) or "none"
    if args.check:
        print(f"out of step: {names}" + ("; run `python scripts/editions.py`" if changed else ""))
        return 1 if changed else 0
    print(f"Russian twins brought in step with the English code cells: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
