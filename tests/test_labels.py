"""The notebooks' labels: what a code cell prints (and what its scripted model says) goes through
``say("English wording")``; the catalogue (``reactlab/core/ru.py``) has each wording the notebooks
use, with the same ``{fields}``, written with Russian typography, and the Russian twins show it."""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path

import pytest

from reactlab.core.language import say
from reactlab.core.ru import RUSSIAN

from .test_strings import CYRILLIC, NBSP, literal_text, russian_typography_problems

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def code_cells(folder: Path = NOTEBOOKS) -> list[tuple[str, str]]:
    """(where, source) of every code cell of the numbered notebooks in ``folder``."""
    cells = []
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for index, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] == "code":
                cells.append((f"{path.name} cell {index}", "".join(cell["source"])))
    return cells


def say_calls(source: str) -> list[ast.Call]:
    """Every call of ``say`` (by that name) in a cell's code."""
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "say"
    ]


def said(source: str) -> list[str]:
    """The English wordings ``say`` is called with in ``source``: the literal first arguments."""
    return [
        call.args[0].value
        for call in say_calls(source)
        if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)
    ]


def used_labels() -> set[str]:
    return {text for _, source in code_cells() for text in said(source)}


LABELS = sorted(used_labels())


def shape(text: str) -> set[tuple[str, str, str | None]]:
    """The {fields} of a wording with their format specs and conversions: what must stay the same."""
    return {
        (name, spec or "", conversion)
        for _, name, spec, conversion in string.Formatter().parse(text)
        if name is not None
    }


def test_the_notebooks_say_their_labels():
    """The parser finds the calls: the English notebooks print dozens of labels, in every notebook
    but the loop's checks."""
    per_notebook = {}
    for where, source in code_cells():
        per_notebook.setdefault(where.split(" ")[0], []).extend(said(source))
    assert len(used_labels()) > 80
    assert all(per_notebook[name] for name in per_notebook if not name.startswith("04")), per_notebook


def test_every_say_is_given_its_wording_as_a_literal():
    """A wording built at run time (a variable, an f-string) could not be checked against the catalogue."""
    for where, source in code_cells():
        for call in say_calls(source):
            first = call.args[0] if call.args else None
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                f"{where}: say({ast.unparse(first) if first else ''}...) is not given a string literal"
            )


def test_the_parser_reads_say_calls():
    source = 'print(say("files unchanged:"), x)\nprint(say(f"{a}"), say("n: {count}", count=1), other("x"))'
    assert said(source) == ["files unchanged:", "n: {count}"]
    assert len(say_calls(source)) == 3


def test_the_russian_edition_says_the_same_labels_in_russian():
    """The Russian twins share the English code cells (scripts/editions.py), each wording in Russian,
    so the labels found in the English notebooks are all the Russian reader sees."""
    english = [source for _, source in code_cells()]
    russian = [source for _, source in code_cells(NOTEBOOKS / "ru")]
    assert [said(source) for source in russian] == [[RUSSIAN[text] for text in said(source)] for source in english]


def test_every_label_the_notebooks_use_has_a_russian_wording():
    missing = sorted(used_labels() - set(RUSSIAN))
    assert missing == []


def test_no_russian_twin_says_an_english_label():
    """What a Russian cell says is Russian: no wording there is a key the catalogue would translate."""
    left = [text for _, source in code_cells(NOTEBOOKS / "ru") for text in said(source) if text in RUSSIAN]
    assert left == []


def test_the_catalogue_translates_no_label_into_itself():
    """In English the wording in the code is the label: an entry equal to its key would hide a
    missing translation."""
    assert [text for text in LABELS if RUSSIAN.get(text) == text] == []


@pytest.mark.parametrize("english", LABELS)
def test_a_russian_label_fills_the_same_fields(english):
    russian = RUSSIAN[english]
    assert shape(russian) == shape(english)
    values = {name: 1 for name, *_ in shape(english)}
    assert say(english, "ru", **values) and say(english, "en", **values)  # well-formed: no stray brace


@pytest.mark.parametrize("english", LABELS)
def test_a_russian_label_is_russian_with_russian_typography(english):
    russian = RUSSIAN[english]
    words = literal_text(russian)
    assert CYRILLIC.search(words), f"{english!r} is not translated: {russian!r}"
    assert not CYRILLIC.search(english), f"Russian in the key {english!r}"
    assert russian_typography_problems(russian) == [], english
    prose = re.sub(r"`[^`]*`", " ", words)  # a command in backticks keeps its shell quotes
    assert not re.search(r"""(?<!\w)(['"])[^'"]+\1""", prose), f"{russian!r}: «ёлочки», not ASCII quotes"
    assert " - " not in words, f"{russian!r}: a dash, not a hyphen, between words"
    assert not re.search(r"\d [$₽]|\}[ ]?\$|\$\{", russian), f"{russian!r}: a sum is written «0,003\u00a0$»"


def test_the_typography_checks_find_each_problem():
    assert russian_typography_problems("запрос 1 — префикс") == ["a breaking space before a dash"]
    assert russian_typography_problems("за {timeout} с") == ["a breaking space before a unit"]
    assert russian_typography_problems("путь {path!r}") == ["Python's quotes around a value"]
    assert russian_typography_problems("ее ответ") == ["«ее» for «её»"]
    assert russian_typography_problems(f"запрос 1{NBSP}— префикс «её»") == []


def test_a_label_is_said_in_the_reader_language_with_its_numbers():
    assert say("files unchanged:", "en") == "files unchanged:"
    assert say("files unchanged:", "ru") == "файлы не изменились:"
    assert say("kept {count:,} chars", "en", count=30000) == "kept 30,000 chars"
    assert say("kept {count:,} chars", "ru", count=30000) == f"сохранено символов: 30{NBSP}000"
    cost = "modelled cost with the prefix cache: ${cached:.6f}; without it: ${uncached:.6f} ({ratio:.1f}x)"
    assert say(cost, "en", cached=0.003, uncached=0.0061, ratio=2.03) == (
        "modelled cost with the prefix cache: $0.003000; without it: $0.006100 (2.0x)"
    )
    assert say(cost, "ru", cached=0.003, uncached=0.0061, ratio=2.03) == (
        f"смоделированная стоимость с кэшем префиксов: 0,003000{NBSP}$; без него: 0,006100{NBSP}$ (в 2,0 раза дороже)"
    )
    assert say("a wording no table has", "ru") == "a wording no table has"  # shown as it is
    assert say("{tool} done", "ru", tool="bash") == "bash завершён"  # a name is not a number
