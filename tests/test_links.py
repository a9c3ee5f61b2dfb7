"""Every relative link in the course opens what it means to: the same notebook in the other edition,
and from a student copy always a student copy, never the teacher's copy with its outputs and
solutions (the answer sheet)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from .test_student_copies import EDITIONS, GENERATOR, ROOT

LINK = GENERATOR.LINK
# Markdown files that link into the course: the repository's README and each edition's README and guide.
GUIDES = [ROOT / "README.md", *sorted((ROOT / "notebooks").glob("*.md")), *sorted((ROOT / "notebooks/ru").glob("*.md"))]


def relative_links(markdown: str) -> list[str]:
    """The targets of ``[text](target)`` that point into the repository (no scheme, no bare anchor)."""
    targets = [match[2] for match in LINK.finditer(markdown)]
    return [t.partition("#")[0] for t in targets if "://" not in t and not t.startswith(("#", "mailto:"))]


def notebook_links(path: Path) -> list[Path]:
    notebook = nbformat.read(path, as_version=4)
    markdown = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    return [(path.parent / target).resolve() for target in relative_links(markdown)]


def the_other(edition):
    return next(other for other in EDITIONS if other is not edition)


# Every notebook of the course: each edition's teacher copies, then its student copies.
COPIES = [
    pytest.param(edition, student, path, id=str(path.relative_to(ROOT / "notebooks")))
    for edition in EDITIONS
    for student in (False, True)
    for path in GENERATOR.notebooks(edition.student if student else edition.source)
]


@pytest.mark.parametrize("edition, student, path", COPIES)
def test_a_notebook_links_to_itself_in_the_other_edition_and_the_same_kind_of_copy(edition, student, path):
    links = notebook_links(path)
    assert links, f"{path.name} has no link to the other edition"
    for target in links:
        assert target.is_file(), f"{path}: the link to {target} opens nothing"
    numbered = [t for t in links if GENERATOR.NUMBERED.fullmatch(t.name)]
    folder = "student" if student else "source"
    for target in numbered:
        kinds = [getattr(e, folder).resolve() for e in EDITIONS]
        assert target.parent in kinds, f"{path}: {target} is not a {'student' if student else 'teacher'} copy"
    other = getattr(the_other(edition), folder).resolve() / path.name
    assert other in numbered, f"{path}: no link to {other}"


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_in_the_guides_opens_a_file(guide):
    targets = relative_links(guide.read_text(encoding="utf-8"))
    broken = [t for t in targets if not (guide.parent / t).exists()]
    assert broken == [], f"{guide}: {broken}"


@pytest.mark.parametrize(
    "lang, target, expected",
    [
        ("ru", "../00_setup.ipynb", "../../student/00_setup.ipynb"),  # the English teacher copy
        ("en", "ru/03_stop_conditions.ipynb", "../ru/student/03_stop_conditions.ipynb"),
        ("en", "05_failing_test.ipynb#the-route", "05_failing_test.ipynb#the-route"),  # same edition, anchor kept
        ("en", "FACILITATOR.md", "../FACILITATOR.md"),  # not a notebook: the same file, from the new folder
        ("ru", "../../classroom/README.md", "../../../classroom/README.md"),
        ("en", "https://github.com/containers/bubblewrap", "https://github.com/containers/bubblewrap"),
        ("en", "#top", "#top"),
    ],
)
def test_a_student_copy_rewrites_a_link_for_its_folder(lang, target, expected):
    assert GENERATOR.student_link(target, GENERATOR.EDITIONS[lang]) == expected


def test_the_rewrite_touches_markdown_only():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("*Русская версия: [00](ru/00_setup.ipynb)*"),
        nbformat.v4.new_code_cell('print("[x](ru/00_setup.ipynb)")'),
    ]
    copy = GENERATOR.student_copy(notebook, "links", GENERATOR.ENGLISH)
    assert copy.cells[0].source == "*Русская версия: [00](../ru/student/00_setup.ipynb)*"
    assert copy.cells[1].source == notebook.cells[1].source
    assert re.search(r"\]\(ru/", notebook.cells[0].source)  # the original is left as it was
