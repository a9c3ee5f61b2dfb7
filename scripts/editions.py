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
library's catalogue: ``say("Бесплатная доставка от 2000 рублей.")``; so are its comments and
docstrings (a TODO, what a function the student fills must do), and those of the exercise's solution
kept in ``metadata.reactlab``: each keyed in the catalogue by its English text (``prose``), a comment
of several lines (one under the other, at one column) by its lines joined with ``\n``, its Russian
written on as many lines as it holds.

``make notebooks`` runs this first, then executes both editions (scripts/run_notebooks.py), then
writes both editions' student copies (scripts/student_copies.py). tests/test_editions.py checks the
result.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import nbformat

from reactlab.core.language import say, translate

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
    """``source`` with the literal of each ``say("English")`` in Russian, quoted the same way, and its
    comments and docstrings in Russian (``prose``)."""

    def russian(found: re.Match[str]) -> str:
        literal = found[1]
        text = translate(ast.literal_eval(literal), lang="ru")
        escaped = text.replace("\\", "\\\\").replace(literal[0], "\\" + literal[0]).replace("\n", "\\n")
        return found[0][: -len(literal)] + literal[0] + escaped + literal[0]

    try:
        translated = SAID.sub(russian, _prose_in_russian(source))
        ast.parse(_python(translated))
    except (SyntaxError, tokenize.TokenError) as error:
        reason = error.msg if isinstance(error, SyntaxError) else error.args[0]
        raise EditionError(f"{where}: the Russian words break the code ({reason}): reword them") from None
    return translated


def _python(source: str) -> str:
    """``source`` with each line of IPython magic (``%time``, ``!ls``) blanked, so Python can parse it."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))


def _prose_places(source: str) -> list[tuple[tuple[int, int], tuple[int, int], str, str]]:
    """Where the comments and docstrings of ``source`` are: (start, end) as (line, column), the English
    text (a brace doubled, as ``say`` reads it) and how to write the Russian there."""
    places = []
    comments = [
        token
        for token in tokenize.generate_tokens(io.StringIO(_python(source)).readline)
        if token.type == tokenize.COMMENT and not LANG_LINE.match(token.line.strip())
    ]
    block: list[tokenize.TokenInfo] = []
    for token in [*comments, None]:  # a comment alone on its line joins the one above it at its column
        if token and block and token.line.strip() == token.string and block[-1].line.strip() == block[-1].string:
            if token.start == (block[-1].start[0] + 1, block[0].start[1]):
                block.append(token)
                continue
        if block:
            english = "\n".join(t.string.lstrip("#").strip() for t in block)
            indent = "\n" + " " * block[0].start[1] + "# "
            places.append((block[0].start, block[-1].end, _braced(english), indent))
        block = [token] if token else []
    lines = source.split("\n")

    def column(line: int, byte: int) -> int:  # ast counts a column in bytes of UTF-8, tokenize in characters
        return len(lines[line - 1].encode()[:byte].decode())

    for node in ast.walk(ast.parse(_python(source))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            doc = node.body[0].value  # type: ignore[attr-defined]
            start = (doc.lineno, column(doc.lineno, doc.col_offset))
            end = (doc.end_lineno, column(doc.end_lineno, doc.end_col_offset))
            places.append((start, end, _braced(doc.value), '"""'))
    return places


def _braced(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def prose(source: str) -> list[str]:
    """The English comments and docstrings of a code cell, as the catalogue keys them."""
    return [english for _, _, english, _ in _prose_places(source)]


def _prose_in_russian(source: str) -> str:
    lines = source.split("\n")
    for start, end, english, form in sorted(_prose_places(source), reverse=True):
        text = say(english, lang="ru")
        if form == '"""':
            written = '"""' + text.replace("\\", "\\\\").replace('"""', '\\"""') + '"""'
        else:
            written = "# " + form.join(text.split("\n"))
        head, tail = lines[start[0] - 1][: start[1]], lines[end[0] - 1][end[1] :]
        lines[start[0] - 1 : end[0]] = (head + written + tail).split("\n")
    return "\n".join(lines)


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
        for key, code in target.metadata.get("reactlab", {}).items():  # an exercise's stub or solution
            target.metadata.reactlab[key] = in_russian(code, f"{name} cell {index} ({key})")
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
