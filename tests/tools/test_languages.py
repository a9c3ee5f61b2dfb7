"""What the model reads about the tools (descriptions, schema errors, tool errors, the agent's own
error results) comes out in the chosen language, through the real tools; English by default."""

from __future__ import annotations

import re

import pytest

from reactlab import Agent, Script, ToolError, Workspace, default_tools
from reactlab.core.tools import BashStandIn, EditTool, ReadFileTool
from reactlab.samples import SHOP_FILES, SHOP_READ_ONLY, shop_path

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
NO_SANDBOX = "no sandbox in this test: the stand-in is built directly"


def descriptions(definition: dict) -> list[str]:
    """The description of a tool and of each of its parameters."""
    function = definition["function"]
    parameters = function["parameters"]["properties"].values()
    return [function["description"], *(p["description"] for p in parameters if "description" in p)]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_description_sent_to_the_model_is_in_the_language(shop, lang):
    tools = default_tools(shop, SHOP_FILES, lang=lang)
    texts = [text for tool in tools for text in descriptions(tool.definition())]
    assert len(texts) == 6  # read_file; bash and its timeout; edit and its old_text and new_text
    for text in texts:
        assert bool(CYRILLIC.search(text)) == (lang == "ru"), text
    assert [tool.name for tool in tools] == ["read_file", "bash", "edit"]


def test_english_is_the_default_and_stays_as_it_was(shop):
    (read, bash, edit) = default_tools(shop, SHOP_FILES)
    assert read.definition()["function"]["description"] == (
        "Read one text file of the project. The path is relative to the project root."
    )
    assert bash.definition()["function"]["description"].startswith("Run a bash command in an isolated copy")
    assert BashStandIn(NO_SANDBOX).definition() == bash.definition()
    assert BashStandIn(NO_SANDBOX, lang="ru").definition() == default_tools(shop, SHOP_FILES, lang="ru")[1].definition()


# (the call the model makes, what the English error says, what the Russian one says)
MISTAKES = [
    (
        ("read_file", {"path": "shop/nope.py"}),
        "invalid arguments: 'shop/nope.py' is not one of",
        'аргументы не подходят под схему: значения "shop/nope.py" нет среди допустимых: ["shop/delivery.py", ',
    ),
    (
        ("read_file", {"path": 3}),
        "invalid arguments: 3 is not of type 'string' (at $.path)",
        "аргументы не подходят под схему: значение 3 не того типа: нужен string (место: $.path)",
    ),
    (("read_file", {"path": 3, "x": 1}), "more problem(s)", "и других проблем:"),
    (
        ("edit", {"path": "tests/test_delivery.py", "old_text": "0)", "new_text": "1)"}),
        "read-only for this run",
        "доступен только для чтения",
    ),
    (
        ("edit", {"path": "shop/delivery.py", "old_text": "no such text", "new_text": "x"}),
        "does not occur in shop/delivery.py",
        "old_text не найден в shop/delivery.py",
    ),
    (
        ("edit", {"path": "shop/delivery.py", "old_text": "return", "new_text": "x"}),
        "times in shop/delivery.py; it must occur exactly once",
        "встречается в shop/delivery.py несколько раз",
    ),
    (("edit", {"path": "shop/delivery.py", "old_text": "", "new_text": "x"}), "old_text is empty", "old_text пустой"),
    (
        ("edit", {"path": "shop/delivery.py", "old_text": "return", "new_text": "\x00"}),
        "new_text contains a NUL byte",
        "В new_text есть нулевой байт",
    ),
    (("edit", {"path": "shop", "old_text": "a", "new_text": "b"}), "shop is not an existing file", "Файла shop нет"),
    (
        ("edit", {"path": "../../etc/passwd", "old_text": "a", "new_text": "b"}),
        "leads outside the project",
        "ведёт за пределы проекта",
    ),
    (
        ("edit", {"path": "/etc/passwd", "old_text": "a", "new_text": "b"}),
        "Use a path relative to the project root",
        "Нужен путь относительно корня проекта",
    ),
    (
        ("edit", {"path": " ", "old_text": "a", "new_text": "b"}),
        "The path must be a non-empty string",
        "Путь должен быть непустой строкой",
    ),
    (
        ("edit", {"path": "a\x00b", "old_text": "a", "new_text": "b"}),
        "The path contains a NUL byte",
        "В пути есть нулевой байт",
    ),
    (("bash", {"command": "   "}), "bash: the command is empty", "bash: команда пустая"),
    (
        ("bash", {"command": "ls", "timeout": 0}),
        "0 is less than the minimum of 1",
        "аргументы не подходят под схему: значение 0 меньше минимума 1 (место: $.timeout)",
    ),
    (
        ("nosuch", {"x": 1}),
        "Tool 'nosuch' is not offered. Offered: bash, edit, read_file.",
        "Инструмент «nosuch» не разрешён: его нет среди предложенных (bash, edit, read_file).",
    ),
    (
        ("read_file", "{not json"),
        "Arguments are not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1), "
        "near '{not json'",
        "Аргументы не разбираются как JSON: ожидалось имя свойства в двойных кавычках (строка 1, столбец 2, "
        "символ 1) рядом с «{not json»",
    ),
    (
        ("read_file", "[1]"),
        "Arguments must be a JSON object, not list.",
        "Аргументы должны быть JSON-объектом, а не list.",
    ),
]


def errors_the_model_reads(shop: Workspace, lang: str) -> list[str]:
    script = Script()
    for name, arguments in (mistake for mistake, _, _ in MISTAKES):
        script.tool_call(name, arguments)
    agent = Agent(
        script.final_answer("done").client(),
        default_tools(shop, SHOP_FILES, lang=lang),
        max_steps=40,
        max_tool_calls=40,
        lang=lang,
    )
    agent.run("task")
    return [execution.result["error"] for execution in agent.record.tool_executions]


def test_each_mistake_reads_in_english_by_default(shop):
    errors = errors_the_model_reads(shop, "en")
    for error, (_, english, _) in zip(errors, MISTAKES, strict=True):
        assert english in error and not CYRILLIC.search(error)


def test_each_mistake_reads_in_russian_with_lang_ru(shop):
    errors = errors_the_model_reads(shop, "ru")
    for error, (_, english, russian) in zip(errors, MISTAKES, strict=True):
        assert russian in error, error
        assert english not in error or english in russian, error


def test_a_long_schema_message_is_cut_in_the_language(shop):
    long_path = "x" * 5000
    with pytest.raises(ToolError, match=r"вырезано символов: \d+"):
        ReadFileTool(shop, SHOP_FILES, lang="ru").execute({"path": long_path})
    with pytest.raises(ToolError, match=r"\d+ characters cut"):
        ReadFileTool(shop, SHOP_FILES).execute({"path": long_path})


@pytest.mark.parametrize(
    "content, english, russian",
    [
        (
            b"a\x00b",
            "is not a UTF-8 text file (it contains a NUL byte)",
            "не текстовый файл в UTF-8: в нём есть нулевой байт",
        ),
        (b"caf\xe9", "invalid byte at offset 3", "недопустимый байт по смещению 3"),
        (b"x" * 1_000_001, "is too large", "слишком большой"),
    ],
)
def test_reading_checks_speak_for_read_file_and_edit_alike(tmp_path, content, english, russian):
    (tmp_path / "data.txt").write_bytes(content)
    with Workspace(tmp_path) as workspace:
        for lang, expected in (("en", english), ("ru", russian)):
            with pytest.raises(ToolError, match=re.escape(expected)):
                ReadFileTool(workspace, ["data.txt"], lang=lang).execute({"path": "data.txt"})
            with pytest.raises(ToolError, match=re.escape(expected)):
                EditTool(workspace, lang=lang).execute({"path": "data.txt", "old_text": "a", "new_text": "b"})


def test_the_stand_in_refuses_in_the_language():
    for lang, lead in (
        ("en", "Not run: there is no sandbox on this machine"),
        ("ru", "Не выполнено: на этой машине нет песочницы"),
    ):
        result = BashStandIn("bwrap: cannot build a sandbox here", lang=lang).execute({"command": "ls"})
        assert result["ok"] is False and result["sandbox_unavailable"] is True
        assert result["error"].startswith(lead) and result["error"].endswith("bwrap: cannot build a sandbox here")


@pytest.mark.parametrize("lang", ["de", "RU", ""])  # None is the language set_language set: test_language.py
def test_an_unknown_language_is_refused_before_anything_runs(lang):
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    try:
        for make in (
            lambda: default_tools(workspace, SHOP_FILES, lang=lang),
            lambda: ReadFileTool(workspace, lang=lang),
            lambda: EditTool(workspace, lang=lang),
            lambda: BashStandIn(NO_SANDBOX, lang=lang),
            lambda: Agent(Script().client(), [], lang=lang),
        ):
            with pytest.raises(ValueError, match="'en' or 'ru'"):
                make()
    finally:
        workspace.cleanup()
