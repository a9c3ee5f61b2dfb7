"""The tables of strings: every key in both languages, with the same fields, each one used, and no
user-visible English left outside them."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

import reactlab
from reactlab.strings import LANGUAGES, Strings, check_language, strings

PACKAGE = Path(reactlab.__file__).parent
TEMPLATES = PACKAGE / "widgets" / "templates"
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)

# Strings made only of technical names the model or the reader meets verbatim (JSON fields).
SAME_IN_EVERY_LANGUAGE = {"exercises.beside_agent", "exercises.quiz_problem"}


def leaves(table: object, prefix: str = "") -> dict[str, str]:
    """Every string of a table by its dotted key, e.g. "tools.is_folder"; a string inside a mapping of
    the table by its keys in brackets, e.g. "exercises.quiz_why[04][2][a]"."""
    found: dict[str, str] = {}
    if isinstance(table, Mapping):
        for name, value in table.items():
            key = f"{prefix}[{name}]"
            found |= leaves(value, key) if isinstance(value, Mapping) else {key: value}
        return found
    assert is_dataclass(table)
    for field in fields(table):
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
            assert isinstance(text, str) and text.strip(), f"{lang}: {key} is empty"


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
        assert CYRILLIC.search(literal_text(russian)), f"{key} has no Russian words: {russian!r}"
        assert not CYRILLIC.search(english), f"{key}: Russian in the English table"


def test_every_key_is_used_by_the_library():
    """No stray keys: each string is read somewhere outside the tables (code or templates)."""
    code = "\n".join(
        path.read_text(encoding="utf-8")
        for path in [*PACKAGE.rglob("*.py"), *TEMPLATES.glob("*.html")]
        if "strings" not in path.relative_to(PACKAGE).parts
    )
    unused = [key for key in ENGLISH if not re.search(rf"\.{key.split('[')[0].split('.')[-1]}\b", code)]
    assert unused == []


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
