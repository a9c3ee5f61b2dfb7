"""The Russian edition's stored outputs are Russian: what notebooks/ru/*.ipynb show under their code
cells holds no English prose, only code, JSON, names, and the few English lines listed in ALLOWED.

    python -m tests.test_russian_outputs     # print each English line found, by notebook

What is read: the text a cell prints (stream outputs), the text/plain of what it returns, and an
error's name and message. Not read: text/html. The HTML a cell shows is a widget or a scheme drawn
from the templates, whose every word is said through say() (tests/test_strings.py checks that
the templates write no words of their own), and the rest of it is the run's JSON, code and diffs,
quoted verbatim; stripping the markup would cut those into fragments that look like prose.

A line is English prose when it has no Cyrillic letter and, once the code-ish tokens are removed
(quoted strings, JSON's literals, identifiers with "_" or ".", paths, ``key=value``, calls and
brackets, hyphenated words, anything with a digit), at least PROSE_WORDS words of letters are left,
FUNCTION_HITS of them common English function words (FUNCTION_WORDS: the, a, is, of, to, ...).
Function words are what a sentence cannot do without and a name or a line of code rarely has two
of: "tools named in the prompt: []" is prose, "finish_reason: stop" and "read_file ok=True
replayed=False" are not.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from reactlab.samples import NEW_LOADING, SHOP

RUSSIAN = Path(__file__).resolve().parent.parent / "notebooks" / "ru"
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
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
        elif "text/plain" in output.get("data", {}):  # what a cell returns; beside HTML, its repr
            lines += "".join(output["data"]["text/plain"]).splitlines()
    return lines


def prose_words(line: str) -> list[str]:
    """The words of ``line`` left once its code-ish tokens are gone."""
    text = re.sub(r"(?<=[A-Za-z])'(?=[A-Za-z])", "", line)  # the agent's -> the agents: one word
    text = re.sub(r"'[^']*'|\"[^\"]*\"", " ", text)  # quoted strings: JSON, reprs, commands
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


def english_lines(folder: Path = RUSSIAN) -> list[tuple[str, str]]:
    """(notebook, line) for every English prose line in the stored outputs, the shop's lines aside."""
    found = []
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell["cell_type"] != "code":
                continue
            for line in output_lines(cell):
                if is_english_prose(line) and not in_the_shop(line):
                    found.append((path.name, line.strip()))
    return found


def allowed_by(notebook: str, line: str) -> Allowed | None:
    return next((a for a in ALLOWED if a.notebook == notebook and re.fullmatch(a.line, line)), None)


def test_the_russian_outputs_hold_no_english_prose():
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
