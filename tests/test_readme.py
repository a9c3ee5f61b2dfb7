"""What the README says of the code is what the code is: the sizes it quotes are counted here."""

from __future__ import annotations

import inspect
import io
import re
import tokenize
from pathlib import Path

from reactlab.core.agent import Agent
from reactlab.core.ru import RUSSIAN

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def lines_of_code(path: Path) -> int:
    """Lines holding a token of code: blank lines, comments and docstrings (a string standing as a
    statement of its own) do not count."""
    counted: set[int] = set()
    statement_start = True
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        kind = token.type
        if kind in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            statement_start = True
            continue
        if kind in (tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER):
            continue
        if not (kind == tokenize.STRING and statement_start):
            counted.update(range(token.start[0], token.end[0] + 1))
        statement_start = False
    return len(counted)


def test_the_loop_is_as_long_as_the_readme_says():
    quoted = re.search(r"the loop\s+itself (\d+) lines \(Agent\._loop\)", README)
    assert quoted, "the README no longer quotes the loop's length"
    assert int(quoted[1]) == len(inspect.getsource(Agent._loop).splitlines())


def by_role() -> dict[str, int]:
    """Lines of code of the library by role: the core (its sandbox, its servers' slips and the Russian
    catalogue apart), the sandbox, the slips, the course around them; the sample shop is the students'."""
    core = ROOT / "reactlab" / "core"
    roles = {"core": 0, "sandbox": 0, "slips": 0, "course": 0}
    for path in (ROOT / "reactlab").rglob("*.py"):
        if path.is_relative_to(ROOT / "reactlab" / "samples" / "shop") or path == core / "ru.py":
            continue
        role = "course"
        if path.is_relative_to(core):
            role = next((part for part in ("sandbox", "slips") if path.is_relative_to(core / part)), "core")
        roles[role] += lines_of_code(path)
    return roles


BUDGET = 2_000
"""The core's lines of code, at most: the article's system stays small enough to read in a sitting."""


def test_the_core_stays_within_its_budget():
    quoted = re.search(r"the article's system, at most ([\d,]+) lines of code", README)
    assert quoted and int(quoted[1].replace(",", "")) == BUDGET, "the README no longer states the core's budget"
    assert by_role()["core"] <= BUDGET, f"the core is {by_role()['core']} lines of code, over {BUDGET}"


def test_the_library_is_about_as_large_as_the_readme_says():
    text = " ".join(README.split())  # the tree's lines wrap
    quoted = re.search(
        r"the core about ([\d,]+), its sandbox about ([\d,]+), the servers' slips about ([\d,]+), the course around "
        r"them about ([\d,]+); the Russian catalogue is data, about ([\d,]+) sentences",
        text,
    )
    assert quoted, "the README no longer quotes the library's size by role"
    counted = [*by_role().values(), len(RUSSIAN)]
    for said, count in zip(quoted.groups(), counted, strict=True):
        assert abs(count - int(said.replace(",", ""))) <= 0.05 * count, (said, counted)  # "about": within 5%


def test_the_count_leaves_out_docstrings_comments_and_blank_lines(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text('"""A docstring."""\n\n# a comment\nx = 1  # code\ny = """a string\nthat is code"""\n')
    assert lines_of_code(path) == 3
