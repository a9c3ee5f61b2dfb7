"""What the README says of the code is what the code is: the sizes it quotes are counted here."""

from __future__ import annotations

import inspect
import io
import re
import tokenize
from pathlib import Path

from reactlab.run.agent import Agent

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SKIPPED = (ROOT / "reactlab" / "strings" / "ru.py", ROOT / "reactlab" / "samples" / "shop")


def lines_of_code(path: Path) -> int:
    """Lines holding a token of code: blank lines, comments and docstrings (a string standing as a
    statement of its own) do not count."""
    counted: set[int] = set()
    previous = None
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        kind = token.type
        if kind in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            continue
        statement_start = previous is None or previous.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        previous = token
        if kind == tokenize.STRING and statement_start:
            continue
        counted.update(range(token.start[0], token.end[0] + 1))
    counted.discard(0)
    return len(counted)


def test_the_loop_is_as_long_as_the_readme_says():
    quoted = re.search(r"the loop itself (\d+) lines \(Agent\._loop\)", README)
    assert quoted, "the README no longer quotes the loop's length"
    assert int(quoted[1]) == len(inspect.getsource(Agent._loop).splitlines())


def test_the_library_is_about_as_large_as_the_readme_says():
    quoted = re.search(r"the library: about ([\d,]+) lines of code, the Russian catalogue aside", README)
    assert quoted, "the README no longer quotes the library's size"
    files = [p for p in (ROOT / "reactlab").rglob("*.py") if not any(p.is_relative_to(s) for s in SKIPPED)]
    counted = sum(lines_of_code(path) for path in files)
    assert abs(counted - int(quoted[1].replace(",", ""))) <= 0.05 * counted, counted  # "about": within 5%
