"""The tables of strings: every key in both languages, with the same fields, each one used, and no
user-visible English left outside them."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

import reactlab
from reactlab import errors
from reactlab.strings import LANGUAGES, Strings, check_language, decimal, stop_phrase, strings

PACKAGE = Path(reactlab.__file__).parent
TEMPLATES = PACKAGE / "widgets" / "templates"
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)

# Strings made only of technical names the model or the reader meets verbatim (JSON fields, names).
SAME_IN_EVERY_LANGUAGE = {
    "schemes.loop_edge_request",
    "doctor.name_python",
    "exercises.beside_agent",
    "exercises.quiz_problem",
}
# Typography: different in each language, with no words in it.
NO_WORDS = {"api.decimal_sign", "api.thousands_sign", "api.said"}
NBSP = "\u00a0"


# Fields of a table keyed by English text rather than by name: the notebooks' labels (say()), which
# the English table leaves empty. tests/test_labels.py checks them.
KEYED_BY_TEXT = {"labels"}


def leaves(table: object, prefix: str = "") -> dict[str, str]:
    """Every string of a table by its dotted key, e.g. "tools.is_folder"; a string inside a mapping of
    the table by its keys in brackets, e.g. "exercises.quiz_why[04][2][a]". The fields keyed by text
    (``KEYED_BY_TEXT``) are left out."""
    found: dict[str, str] = {}
    if isinstance(table, Mapping):
        for name, value in table.items():
            key = f"{prefix}[{name}]"
            found |= leaves(value, key) if isinstance(value, Mapping) else {key: value}
        return found
    assert is_dataclass(table)
    for field in fields(table):
        if not prefix and field.name in KEYED_BY_TEXT:
            continue
        value = getattr(table, field.name)
        key = f"{prefix}{field.name}"
        if is_dataclass(value):
            found |= leaves(value, key + ".")
        elif isinstance(value, Mapping):
            found |= leaves(value, key)
        else:
            found[key] = value
    return found


def format_fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def literal_text(text: str) -> str:
    """The words of a string without its {fields}."""
    return "".join(literal for literal, *_ in string.Formatter().parse(text))


ENGLISH, RUSSIAN = leaves(strings("en")), leaves(strings("ru"))


def test_both_languages_have_every_key_and_nothing_else():
    assert LANGUAGES == ("en", "ru")
    assert len(ENGLISH) > 150
    assert set(ENGLISH) == set(RUSSIAN)
    for lang in LANGUAGES:
        for key, text in leaves(strings(lang)).items():
            assert isinstance(text, str) and (text.strip() or key in NO_WORDS), f"{lang}: {key} is empty"


@pytest.mark.parametrize("key", sorted(ENGLISH))
def test_both_languages_fill_the_same_fields(key):
    assert format_fields(ENGLISH[key]) == format_fields(RUSSIAN[key]), key
    for text in (ENGLISH[key], RUSSIAN[key]):
        text.format(**dict.fromkeys(format_fields(text), "x"))  # well-formed: no stray brace


def test_the_russian_table_is_written_in_russian():
    for key, english in ENGLISH.items():
        russian = RUSSIAN[key]
        if key in SAME_IN_EVERY_LANGUAGE:
            assert russian == english, key
            continue
        assert russian != english, f"{key} is not translated"
        if key in NO_WORDS:
            continue
        assert CYRILLIC.search(literal_text(russian)), f"{key} has no Russian words: {russian!r}"
        assert not CYRILLIC.search(english), f"{key}: Russian in the English table"


def notebook_code() -> str:
    """The code cells of the English notebooks (the Russian twins share them)."""
    cells = []
    for path in sorted((PACKAGE.parent / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        cells += ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    return "\n".join(cells)


def test_every_key_is_used_by_the_library():
    """No stray keys: each string is read somewhere outside the tables: by name in the code or the
    templates (``.name``, or ``"name"`` where a table maps a value to it), or, for the scripted
    model's words, in a notebook's code cell. The stop phrases are read by the stop_reason's name."""
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for path in [*PACKAGE.rglob("*.py"), *TEMPLATES.glob("*.html")]
        if path.parent.name != "strings" or path.name == "__init__.py"
    )
    code += notebook_code()
    names = {key: key.split("[")[0].split(".")[-1] for key in ENGLISH if not key.startswith("schemes.stop_")}
    unused = [key for key, name in names.items() if not re.search(rf'\.{name}\b|"{name}"', code)]
    assert unused == []


def stop_reasons() -> set[str]:
    def every(kind: type) -> list[type]:
        return [kind, *(grand for sub in kind.__subclasses__() for grand in every(sub))]

    return {error.stop_reason for error in every(errors.ReactlabError)} | {"answer"}


def test_every_way_a_run_ends_has_a_phrase_and_nothing_else_does():
    phrases = {key.removeprefix("schemes.stop_") for key in ENGLISH if key.startswith("schemes.stop_")}
    assert phrases == stop_reasons()
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
    for key, text in RUSSIAN.items():
        assert russian_typography_problems(text) == [], key
    assert NBSP + "—" in RUSSIAN["tools.is_folder"] and "{timeout}" + NBSP + "с" in RUSSIAN["tools.bash_timed_out"]


def visible_template_words(template: str) -> list[str]:
    """The words a template writes itself, outside its tags, expressions and comments."""
    text = re.sub(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", " ", template, flags=re.DOTALL)
    text = re.sub(r"<[^>]*>|&\w+;", " ", text)
    return re.findall(r"[A-Za-z][A-Za-z_]+", text)


def test_the_templates_write_no_words_of_their_own():
    """Every label comes from the table; what a template writes itself is markup and technical names."""
    technical = {"tools", "prompt_tokens", "completion_tokens"}
    for template in sorted(TEMPLATES.glob("*.html")):
        words = set(visible_template_words(template.read_text(encoding="utf-8"))) - technical
        assert words == set(), f"{template.name} writes {sorted(words)}"


def test_the_check_finds_a_hard_coded_label():
    assert visible_template_words('<div class="x">{{ t.a }} Final answer</div>') == ["Final", "answer"]
    assert visible_template_words("{% if a %}{{ t.b | fill(x=1) }}{% endif %}{# note #}") == []


@pytest.mark.parametrize("lang", ["de", "EN", "ru ", "", None, 1, ["ru"]])
def test_an_unknown_language_is_a_clear_value_error(lang):
    with pytest.raises(ValueError, match=r"lang must be 'en' or 'ru', not"):
        check_language(lang)
    if lang is None:  # to strings(), None is the language set_language set (tests/test_language.py)
        assert strings(lang) is strings("en")
        return
    with pytest.raises(ValueError, match=r"'en' or 'ru'"):
        strings(lang)  # type: ignore[arg-type]


def test_a_table_is_frozen():
    table = strings("ru")
    assert isinstance(table, Strings)
    with pytest.raises(AttributeError):
        table.tools.is_folder = "x"  # type: ignore[misc]


def glossary(lang: str) -> list[tuple[str, str]]:
    """(English term, Russian term) of each row of a facilitator guide's glossary, its last section."""
    folder = PACKAGE.parent / "notebooks" / ("ru" if lang == "ru" else "")
    guide = (folder / "FACILITATOR.md").read_text(encoding="utf-8")
    section = guide[guide.rindex("\n## ") :]
    assert section.startswith({"en": "\n## Glossary", "ru": "\n## Словарь терминов"}[lang])
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| ")][1:]
    assert all(len(row) == 3 and row[2].strip() for row in rows)
    return [(row[0].strip(), row[1].strip()) if lang == "en" else (row[1].strip(), row[0].strip()) for row in rows]


def test_the_glossary_is_the_same_in_both_guides_and_the_tables_use_its_words():
    terms = glossary("en")
    assert terms == [(english.replace(" (`messages`)", "").replace(" (`stop_reason`)", "").replace(
        " (`parameters`)", ""), russian) for english, russian in glossary("ru")]  # fmt: skip
    russian = dict(terms)
    table = " ".join(RUSSIAN.values())
    for english in ("model call", "tool call", "tool execution", "limit", "the shop run", "final answer"):
        words = [word[:-2] + r"\w*" if len(word) > 4 else word for word in russian[english].split()]
        assert re.search(" ".join(words), table, re.IGNORECASE), english  # in any case form
    assert "лимит обращений к модели" in table
    assert "непустой текст?" in RUSSIAN["schemes.stopping_has_text"].replace("\n", " ")
    assert "валидный" in RUSSIAN["schemes.stopping_usable"]


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
