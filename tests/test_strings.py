"""One way to translate: the English sentence where it is said (``say("...")``, or ``translatable("...")``
for a constant), the Russian from one catalogue keyed by it. Every literal sentence of the library,
its templates and the notebooks' code cells is found here, and the catalogue has each one with the
same ``{fields}``, written in Russian, and nothing that nobody says."""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path

import pytest
from jinja2 import Environment, nodes

import reactlab
from reactlab.core import errors
from reactlab.core.language import LANGUAGES, check_language, decimal, say, translatable, translate
from reactlab.core.ru import RUSSIAN
from reactlab.summary import STOP_PHRASES, stop_phrase

from .test_student_copies import script

PACKAGE = Path(reactlab.__file__).parent
NOTEBOOKS = PACKAGE.parent / "notebooks"
TEMPLATES = PACKAGE / "widgets" / "templates"
CATALOGUE = PACKAGE / "core" / "ru.py"
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
NBSP = "\u00a0"
EDITIONS = script("editions")


def literals(source: str, functions: tuple[str, ...] = ("say", "translatable")) -> list[str]:
    """The literal first argument of each call of ``functions`` (by name) in Python ``source``."""
    return [
        node.args[0].value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in functions
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ]


def template_literals(source: str) -> list[str]:
    """The literal first argument of each ``say(...)`` in a Jinja template."""
    calls = Environment().parse(source).find_all(nodes.Call)
    return [
        call.args[0].value
        for call in calls
        if isinstance(call.node, nodes.Name) and call.node.name == "say" and call.args
        if isinstance(call.args[0], nodes.Const) and isinstance(call.args[0].value, str)
    ]


def notebook_code(path: Path) -> str:
    """A notebook's code cells and its exercises' stubs and solutions as one Python text (a line of
    IPython magic left out)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    cells = ["".join(cell["source"]) for cell in code]
    cells += [text for cell in code for text in cell["metadata"].get("reactlab", {}).values()]
    return "\n".join(line for cell in cells for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))


def notebook_prose(path: Path) -> list[str]:
    """The comments and docstrings of a notebook's code cells and of its exercises' stubs and solutions,
    as the Russian twin's are translated (scripts/editions.py)."""
    cells = [cell for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
    exercises = [code for cell in cells for code in cell["metadata"].get("reactlab", {}).values()]
    codes = ["".join(cell["source"]) for cell in cells] + exercises
    return [english for code in codes for english in EDITIONS.prose(code)]


def sentences(folder: Path = PACKAGE, notebooks: Path = NOTEBOOKS) -> dict[str, list[str]]:
    """Each literal sentence said in ``folder`` (its Python, its templates) and in the English
    notebooks of ``notebooks`` (what their code says, their comments and docstrings), with the files
    that say it."""
    found: dict[str, list[str]] = {}
    sources = [(p, literals(p.read_text(encoding="utf-8"))) for p in sorted(folder.rglob("*.py")) if p != CATALOGUE]
    sources += [(p, template_literals(p.read_text(encoding="utf-8"))) for p in sorted(folder.rglob("templates/*.html"))]
    sources += [(p, literals(notebook_code(p), ("say",))) for p in sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))]
    sources += [(p, notebook_prose(p)) for p in sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))]
    for mistakes in folder.glob("course/mistakes.json"):  # notebook 04's catalogue of mistakes: data
        sources.append((mistakes, [m["says"] for m in json.loads(mistakes.read_text(encoding="utf-8"))]))
    for path, said in sources:
        for text in said:
            found.setdefault(text, []).append(path.name)
    return found


SAID = sentences()


def format_fields(text: str) -> set[str]:
    """The names of a sentence's {fields}: both languages fill the same ones (the conversion, !r in
    English and «…» in Russian, may differ)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def literal_text(text: str) -> str:
    """The words of a string without its {fields}."""
    return "".join(literal for literal, *_ in string.Formatter().parse(text))


def test_the_finder_finds_every_kind_of_place():
    assert len(SAID) > 600
    kinds = {name.rsplit(".", 1)[-1] for places in SAID.values() for name in places}
    assert kinds == {"py", "html", "ipynb", "json"}
    source = 'say("a {x}", x=1)\nsay(TEXT)\nT = translatable("b")\nsay(f"{c}")\nother("d")'
    assert literals(source) == ["a {x}", "b"]
    assert template_literals('{{ say("e", n=1) }}{% if x %}{{ say(name) }}{{ fill("f") }}{% endif %}') == ["e"]


@pytest.mark.parametrize("english", sorted(SAID))
def test_every_sentence_said_has_its_russian_with_the_same_fields(english):
    assert english in RUSSIAN, f"no Russian for {english!r} ({', '.join(SAID[english])}): add it to core/ru.py"
    russian = RUSSIAN[english]
    assert format_fields(russian) == format_fields(english), english
    for text in (english, russian):
        text.format(**dict.fromkeys(format_fields(text), 1))  # well-formed: no stray brace


def test_the_catalogue_holds_nothing_that_nobody_says():
    assert sorted(set(RUSSIAN) - set(SAID)) == []


def test_the_catalogue_is_written_in_russian():
    """Every entry translates (a sentence that stays the same in both is not said through say()),
    into Russian words; no key is Russian."""
    for english, russian in RUSSIAN.items():
        assert russian != english, f"{english!r} maps to itself: write it without say()"
        if re.search(r"[A-Za-z]", literal_text(english)):  # not typography only: '({said}): «{reason}»'
            assert CYRILLIC.search(literal_text(russian)), f"{english!r} has no Russian words: {russian!r}"
        assert not CYRILLIC.search(english), f"Russian in the key {english!r}"


def stop_reasons() -> set[str]:
    def every(kind: type) -> list[type]:
        return [kind, *(grand for sub in kind.__subclasses__() for grand in every(sub))]

    return {error.stop_reason for error in every(errors.ReactlabError)} | {"answer"}


def test_every_way_a_run_ends_has_a_phrase_and_nothing_else_does():
    assert set(STOP_PHRASES) == stop_reasons()
    assert stop_phrase("step_limit", "en") == "the model-call limit"
    assert stop_phrase("step_limit", "ru") == "лимит обращений к модели"
    assert stop_phrase("api_timeout", "ru") == "ответ не пришёл вовремя"
    assert stop_phrase("KeyboardInterrupt", "ru") == "KeyboardInterrupt"  # not an ending of ours: as it is
    assert stop_phrase("__class__", "ru") == "__class__"


def russian_typography_problems(text: str) -> list[str]:
    """What is wrong with a Russian string's typography: a breaking space before a dash or a unit,
    Python's quotes around a value, «ее» for «её», a rival of the article's term. tests/test_labels.py
    applies the same rules to the notebooks' labels."""
    words = literal_text(text)
    rivals = r"\bпредел(|а|у|ом|е|ов)\b|вызов\w* модели|с магазином"  # for «лимит», «обращение к модели»
    checks = {
        "a breaking space before a dash": " —" in text or text.startswith("—"),
        "a breaking space before a unit": bool(re.search(r"(\d|(?<!\})\})[ ](с|байт)\b", text)),  # "}}" is a brace
        "Python's quotes around a value": "!r}" in text,
        "«ее» for «её»": bool(re.search(r"\b[Ее]е\b", words)),
        "not the article's term": bool(re.search(rivals, words)),
    }
    return [problem for problem, found in checks.items() if found]


def test_russian_typography():
    """A space before a dash and between a number and its unit is non-breaking; «ёлочки», not
    Python's quotes, around a value; «её», not «ее»; the article's terms, not their rivals."""
    for english, russian in RUSSIAN.items():
        assert russian_typography_problems(russian) == [], english
    assert NBSP + "—" in translate("{path} is a folder, not a file.", lang="ru")
    assert "{timeout}" + NBSP + "с" in RUSSIAN["Stopped after {timeout} s; every process it started was killed."]


def visible_template_words(template: str) -> list[str]:
    """The words a template writes itself, outside its tags, expressions and comments."""
    text = re.sub(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", " ", template, flags=re.DOTALL)
    text = re.sub(r"<[^>]*>|&\w+;", " ", text)
    return re.findall(r"[A-Za-z][A-Za-z_]+", text)


def test_the_templates_write_no_words_of_their_own():
    """Every label is said (``say("...")``); what a template writes itself is markup and technical names."""
    technical = {"tools", "prompt_tokens", "completion_tokens"}
    for template in sorted(TEMPLATES.glob("*.html")):
        words = set(visible_template_words(template.read_text(encoding="utf-8"))) - technical
        assert words == set(), f"{template.name} writes {sorted(words)}"


def test_the_check_finds_a_hard_coded_label():
    assert visible_template_words('<div class="x">{{ say("a") }} Final answer</div>') == ["Final", "answer"]
    assert visible_template_words('{% if a %}{{ say("b {x}", x=1) }}{% endif %}{# note #}') == []


@pytest.mark.parametrize("lang", ["de", "EN", "ru ", "", None, 1, ["ru"]])
def test_an_unknown_language_is_a_clear_value_error(lang):
    with pytest.raises(ValueError, match=r"lang must be 'en' or 'ru', not"):
        check_language(lang)
    if lang is None:  # to say(), None is the language set_language set (tests/test_language.py)
        assert translate("{path} does not exist.", lang=lang) == "{path} does not exist."
        return
    with pytest.raises(ValueError, match=r"'en' or 'ru'"):
        translate("{path} does not exist.", lang=lang)  # type: ignore[arg-type]


def test_a_sentence_is_said_in_english_as_written_and_in_russian_from_the_catalogue():
    english = "{path} is a folder, not a file."
    assert translatable(english) is english  # a mark, nothing more
    assert say(english, lang="en", path="a") == "a is a folder, not a file."
    assert say(english, lang="ru", path="a") == f"a{NBSP}— это папка, а не файл."
    assert say("a sentence the catalogue lacks {n}", lang="ru", n=2) == "a sentence the catalogue lacks 2"
    assert say("a brace of its own: {{}}", lang="en") == "a brace of its own: {}"  # always filled
    assert say("{value!r} is not of type {expected!r}", lang="ru", value="x", expected="y") == (
        "значение x не того типа: нужен y"  # the fields are the same, the quoting is the language's
    )
    assert LANGUAGES == ("en", "ru")


def glossary(lang: str) -> list[tuple[str, str]]:
    """(English term, Russian term) of each row of a facilitator guide's glossary, its last section."""
    folder = NOTEBOOKS / ("ru" if lang == "ru" else "")
    guide = (folder / "FACILITATOR.md").read_text(encoding="utf-8")
    section = guide[guide.rindex("\n## ") :]
    assert section.startswith({"en": "\n## Glossary", "ru": "\n## Словарь терминов"}[lang])
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| ")][1:]
    assert all(len(row) == 3 and row[2].strip() for row in rows)
    return [(row[0].strip(), row[1].strip()) if lang == "en" else (row[1].strip(), row[0].strip()) for row in rows]


def test_the_glossary_is_the_same_in_both_guides_and_the_catalogue_uses_its_words():
    terms = glossary("en")
    assert terms == [(english.replace(" (`messages`)", "").replace(" (`stop_reason`)", "").replace(
        " (`parameters`)", ""), russian) for english, russian in glossary("ru")]  # fmt: skip
    russian = dict(terms)
    catalogue = " ".join(RUSSIAN.values())
    for english in ("model call", "tool call", "tool execution", "limit", "the shop run", "final answer"):
        words = [word[:-2] + r"\w*" if len(word) > 4 else word for word in russian[english].split()]
        assert re.search(" ".join(words), catalogue, re.IGNORECASE), english  # in any case form
    assert "лимит обращений к модели" in catalogue
    assert "непустой текст?" in say("non-empty text?", lang="ru").replace("\n", " ")
    assert "валидный" in say("usable answer?\narrived, whole,\nvalid", lang="ru")


@pytest.mark.parametrize(
    ("value", "spec", "en", "ru"),
    [
        (1.5, "g", "1.5", "1,5"),
        (20000, ",", "20,000", f"20{NBSP}000"),
        (268435456, ",", "268,435,456", f"268{NBSP}435{NBSP}456"),
        (1234.5, ",.1f", "1,234.5", f"1{NBSP}234,5"),
        (0.003, ".3f", "0.003", "0,003"),
    ],
)
def test_numbers_are_written_with_each_languages_signs(value, spec, en, ru):
    assert (decimal(value, spec, "en"), decimal(value, spec, "ru")) == (en, ru)
