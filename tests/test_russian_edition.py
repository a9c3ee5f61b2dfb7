"""A student of the Russian edition sees Russian: the stored outputs of notebooks/ru/*.ipynb and the
student copies in notebooks/ru/student/ hold no English prose and no Cyrillic written as ``\\uXXXX``
escapes (JSON drawn for a reader keeps its letters: ``ensure_ascii=False``); only code, JSON, names, and
the few English lines listed in ALLOWED, each saying why.

    python -m tests.test_russian_edition            # print each English line found, by notebook
    python -m tests.test_russian_edition DIR        # the same for the notebooks (and DIR/student) of DIR

What is read, in a notebook: every markdown line; what each code cell prints (stream outputs), the
text/plain of what it returns, an error's name and message, the text of the HTML it shows (a scheme, a
widget: the markup removed, its entities decoded), and the text of every saved widget's state; in a
code cell's source, its comments and the text of its strings (docstrings, a TODO, a tool's description).
tests/test_student_copies.py runs each Russian student copy and reads what it prints the same way.

A line is English prose when it has no Cyrillic letter and, once the code-ish tokens are removed
(quoted strings, JSON's literals, identifiers with "_" or ".", paths, ``key=value``, calls and
brackets, hyphenated words, anything with a digit), at least PROSE_WORDS words of letters are left,
FUNCTION_HITS of them common English function words (FUNCTION_WORDS: the, a, is, of, to, ...).
Function words are what a sentence cannot do without and a name or a line of code rarely has two
of: "tools named in the prompt: []" is prose, "finish_reason: stop" and "read_file ok=True
replayed=False" are not.
"""

from __future__ import annotations

import html
import io
import json
import re
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reactlab.samples import NEW_LOADING, SHOP

RUSSIAN = Path(__file__).resolve().parent.parent / "notebooks" / "ru"
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
ESCAPED_CYRILLIC = re.compile(r"\\u04[0-9a-f]{2}", re.IGNORECASE)  # \u0400-\u04ff: what json.dumps writes by default
PROSE_WORDS = 3
FUNCTION_HITS = 2
FUNCTION_WORDS = frozenset(
    """a an the is are was were be been being am to of and or in on at for with by from into about as
    it its this that these those not no nor yes if then than so but all any each some there here what
    which who whom when where why how can could will would shall should may might must do does did has
    have had you your we our they their he she his her me my us them before after again only also
    such very just now""".split()
)


@dataclass(frozen=True)
class Allowed:
    notebook: str  # its file name in notebooks/ru
    line: str  # a regular expression the whole line (stripped) matches
    why: str


# Lines that stay English in the Russian edition, and why. Each one must still be found (see
# test_every_allowed_line_is_still_there), so the list cannot outlive what it excuses.
ALLOWED = [
    Allowed(
        "06_sandbox.ipynb",
        r"(mv|umount): .*",
        "the last line of what a refused command wrote inside the sandbox (coreutils' mv, util-linux's "
        "umount): the notebook shows the machine's own words, as a reader will see them in a terminal",
    ),
]


def _shop_lines() -> frozenset[str]:
    """Every line of the sample shop's files, and of the fix the article's run makes to them: its code
    and its docstrings are English in both editions (the agent reads and edits them; the article
    quotes them as they are)."""
    texts = [(SHOP.path / name).read_text(encoding="utf-8") for name in SHOP.files] + [NEW_LOADING]
    return frozenset(line.strip() for text in texts for line in text.splitlines() if line.strip())


SHOP_LINES = _shop_lines()


def output_lines(cell: dict) -> list[str]:
    """The lines a code cell's stored outputs show as text (see the module's docstring)."""
    lines: list[str] = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            lines += "".join(output["text"]).splitlines()
        elif output["output_type"] == "error":
            lines.append(f"{output['ename']}: {output['evalue']}")
        else:
            data = output.get("data", {})
            lines += "".join(data.get("text/plain", "")).splitlines()  # what a cell returns; beside HTML, its repr
            lines += html_lines("".join(data.get("text/html", "")))
    return lines


def html_lines(markup: str) -> list[str]:
    """The text of HTML as a reader sees it: each tag ends a line, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "\n", markup)).splitlines()


def widget_lines(notebook: dict) -> list[str]:
    """The text of every string in the notebook's saved widget state (labels, HTML values, options)."""
    state = notebook.get("metadata", {}).get("widgets", {})
    return [line for text in _strings(state) for line in html_lines(text)]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _strings(item)


def source_lines(cell: dict) -> list[str]:
    """A markdown cell's lines; a code cell's comments and the lines of its strings (a line of IPython
    magic left out)."""
    source = "".join(cell["source"])
    if cell["cell_type"] != "code":
        return source.splitlines()
    python = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    lines = []
    for token in tokenize.generate_tokens(io.StringIO(python).readline):
        if token.type == tokenize.COMMENT:
            lines.append(token.string.lstrip("#"))
        elif token.type == tokenize.STRING:  # its text between the quotes, prefix (f, r, b) dropped
            lines += re.sub(r"""^[A-Za-z]*('{3}|"{3}|'|")|('{3}|"{3}|'|")$""", "", token.string).splitlines()
    return lines


def prose_words(line: str) -> list[str]:
    """The words of ``line`` left once its code-ish tokens are gone."""
    text = re.sub(r"(?<=[A-Za-z])'(?=[A-Za-z])", "", line)  # the agent's -> the agents: one word
    text = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", " ", text)  # quoted strings: JSON, reprs, commands
    code = r"[_/\\=\d<>`\[\]{}]|\.\w|\w\(|\w-\w"  # identifiers, paths, key=value, numbers, calls, made-up-names
    text = re.sub(rf"\S*(?:{code})\S*", " ", text)
    words = re.findall(r"[A-Za-z]+", text)
    return [word for word in words if word not in {"True", "False", "None", "true", "false", "null"}]


def is_english_prose(line: str) -> bool:
    if CYRILLIC.search(line):
        return False
    words = prose_words(line)
    return len(words) >= PROSE_WORDS and sum(word.lower() in FUNCTION_WORDS for word in words) >= FUNCTION_HITS


def in_the_shop(line: str) -> bool:
    """A line of the shop's files, as printed or as a line of a diff of them."""
    stripped = line.strip()
    return stripped in SHOP_LINES or (stripped[:1] in "+- " and stripped[1:].strip() in SHOP_LINES)


def shown_lines(path: Path) -> list[str]:
    """Every line of text a notebook shows its reader: its markdown, its code's comments and strings,
    its stored outputs and its saved widgets."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    lines = [line for cell in notebook["cells"] for line in source_lines(cell)]
    lines += [line for cell in notebook["cells"] if cell["cell_type"] == "code" for line in output_lines(cell)]
    return lines + widget_lines(notebook)


def english(lines: list[str]) -> list[str]:
    """The lines that are English prose or write Cyrillic as escapes, the shop's lines aside."""
    return [
        line.strip()
        for line in lines
        if ESCAPED_CYRILLIC.search(line) or is_english_prose(line) and not in_the_shop(line)
    ]


def english_lines(folder: Path = RUSSIAN) -> list[tuple[str, str]]:
    """(notebook, line) for every English line of the notebooks of ``folder`` and of their student
    copies in ``folder/student`` (named ``student/NN_….ipynb``)."""
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb")) + sorted((folder / "student").glob("[0-9][0-9]_*.ipynb"))
    return [(path.relative_to(folder).as_posix(), line) for path in paths for line in english(shown_lines(path))]


def allowed_by(notebook: str, line: str) -> Allowed | None:
    name = notebook.removeprefix("student/")
    return next((a for a in ALLOWED if a.notebook == name and re.fullmatch(a.line, line)), None)


def test_the_russian_edition_shows_no_english_prose_and_no_escapes():
    unallowed = [(notebook, line) for notebook, line in english_lines() if not allowed_by(notebook, line)]
    assert unallowed == []


def test_every_allowed_line_is_still_there():
    found = english_lines()
    for allowed in ALLOWED:
        assert allowed.why
        assert any(allowed_by(notebook, line) is allowed for notebook, line in found), allowed


def test_the_outputs_are_read():
    """The Russian edition prints Russian: hundreds of lines with Cyrillic in them, in every notebook."""
    for path in sorted(RUSSIAN.glob("[0-9][0-9]_*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        lines = [line for cell in notebook["cells"] if cell["cell_type"] == "code" for line in output_lines(cell)]
        assert sum(bool(CYRILLIC.search(line)) for line in lines) >= 5, path.name


def test_the_heuristic_tells_prose_from_code():
    prose = [
        "to fix before the course: nothing",
        "the word 'Authorization' in the file: False",
        "the call's id: 32 letters and digits; starts with 'call_': False",
        "tool executions: 8 (none of the second answer ran)",
        "tools named in the prompt: []",
        "connections received from the host: 2",
        "offline: no DEEPSEEK_API_KEY and no REACTLAB_BASE_URL, so a scripted model stands in",
        "CassetteMismatch: Interaction 1 of 5: the live request differs from the recording: tools differ.",
    ]
    code = [
        "finish_reason: stop",
        "read_file ok=True  replayed=False",
        '{"ok": true, "path": "shop/delivery.py", "content": "the text of a file is a string"}',
        "'I will now call read_file on shop/settings.json.'  -> None",
        "stop_reason: answer (финальный ответ)",
        "запрос 1\u00a0— префикс запроса 2: True",
        "DeepSeekClient(base_url='https://api.deepseek.com', model='deepseek-flash', api_key=not set)",
        "def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:",
        "exit 0: echo made-in-the-sandbox > shop/notes.txt && cat shop/notes.txt",
    ]
    assert [line for line in prose if not is_english_prose(line)] == []
    assert [line for line in code if is_english_prose(line)] == []


def test_escaped_cyrillic_and_the_text_of_markup_and_code_are_read():
    escaped = '{"description": "\\u041f\\u0440\\u043e\\u0447\\u0438\\u0442\\u0430\\u0442\\u044c"}'  # json.dumps
    assert english([escaped, '{"description": "Прочитать"}']) == [escaped]
    markup = "<b>Tools</b> sent with <i>every request:</i> 3 &amp; more"
    assert html_lines(markup) == ["", "Tools", " sent with ", "every request:", " 3 & more"]
    assert english(["".join(html_lines("<div>what the model is <b>told</b> to do</div>"))]) != []
    source = 'x = f("a")  # TODO: read the file and count its lines\n%time y\ndef f():\n    """Ask, then stop."""'
    lines = source_lines({"cell_type": "code", "source": source})
    assert lines == ["a", " TODO: read the file and count its lines", "Ask, then stop."]
    assert english(lines) == ["TODO: read the file and count its lines"]


def test_the_shop_lines_are_known():
    assert "if threshold is not None and order_total >= threshold:" in SHOP_LINES
    assert in_the_shop('-    settings_path = Path("settings.json")')
    assert in_the_shop('+    settings_path = Path(__file__).resolve().parent / "settings.json"')
    assert not in_the_shop("to fix before the course: nothing")


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else RUSSIAN
    lines = english_lines(folder)
    for notebook, line in lines:
        mark = "allowed" if allowed_by(notebook, line) else "ENGLISH"
        print(f"{mark:8} {notebook:28} {line[:140]}")
    print(f"{len(lines)} English prose lines, {sum(not allowed_by(n, line) for n, line in lines)} not allowed")
