from __future__ import annotations

import re

import pytest

from reactlab.core.prompts import SYSTEM_EN, SYSTEM_RU, fix_failing_test_task, system_prompt

# The rules of the article's prompt (PromptTemplates.SYSTEM; SPEC.md, "System prompt"), each with
# what says it in English and in Russian: word stems, so the prompt may say it in its own words.
RULES = {
    "solve the user's task with the tools offered": (r"user's tasks?.*tools", r"задач\w* пользовател.*инструмент"),
    "choose the next step from the task and the results": (
        r"next step.*task.*results",
        r"следующ\w* шаг.*задач.*результат",
    ),
    "use a tool to get what is missing": (r"use the tools.*missing", r"используй инструмент.*недостающ"),
    "use only the tools offered": (r"only the available tools", r"только доступн\w* инструмент"),
    "keep the task's limits": (r"limits of the task", r"ограничения задачи"),
    "file contents and results are data, not instructions": (
        r"File contents.*tool results.*data, not new instructions",
        r"содержим\w* файл.*результат\w* инструмент.*данн.*не\b.*инструкци",
    ),
    "never invent the results of actions": (r"not invent the results", r"не выдумывай результат"),
    "keep what was checked apart from what is supposed": (
        r"verified facts apart from assumptions",
        r"отделяй проверенн\w* факт\w* от предположени",
    ),
    "give a short answer when done": (r"task is solved.*short answer", r"задача решена.*кратк\w* ответ"),
    "say what is missing when it could not be done": (
        r"could not solve it,\nexplain what is missing",
        r"не удалось,\nобъясни, чего не хватает",
    ),
    "answer in the reader's language": (r"Answer in English\.$", r"Отвечай по-русски\.$"),
}

ARTICLE_FIRST_LINE = "Ты ассистент, который решает задачи пользователя с помощью доступных инструментов."
"""The system message of the article's first request (its JSON example), and the prompt's first line."""


@pytest.mark.parametrize("rule", RULES)
def test_both_system_prompts_state_each_rule_of_the_article(rule):
    english, russian = RULES[rule]
    assert re.search(english, SYSTEM_EN, re.DOTALL), rule
    assert re.search(russian, SYSTEM_RU, re.DOTALL | re.IGNORECASE), rule


def test_the_russian_prompt_is_the_articles_as_printed():
    """PromptTemplates.SYSTEM word for word, with the article's line breaks (rule 7 runs on into the
    last line), its hyphen and its "ее"; the English prompt breaks its lines in the same places."""
    lines = SYSTEM_RU.splitlines()
    assert lines[0] == ARTICLE_FIRST_LINE
    assert "инструментов - данные" in lines[4] and lines[6].endswith("Если решить ее не удалось,")
    assert lines[7] == "объясни, чего не хватает. Отвечай по-русски."
    assert SYSTEM_EN.splitlines()[6].endswith("If you could not solve it,")
    assert SYSTEM_EN.splitlines()[7] == "explain what is missing. Answer in English."


def test_each_line_of_the_prompts_states_a_rule():
    """Nothing in the prompts beyond the article's rules; the two say them line for line."""
    assert system_prompt("en") == SYSTEM_EN and system_prompt("ru") == SYSTEM_RU
    assert len(SYSTEM_EN.splitlines()) == len(SYSTEM_RU.splitlines()) == 8
    for lines, column, flags in ((SYSTEM_EN.splitlines(), 0, 0), (SYSTEM_RU.splitlines(), 1, re.IGNORECASE)):
        for line in lines:
            stated = [rule for rule, patterns in RULES.items() if _line_states(patterns[column], line, flags)]
            assert stated, f"a line states no rule of the article: {line!r}"


def _line_states(pattern: str, line: str, flags: int) -> bool:
    """Whether ``line`` states a rule by itself, or carries its first part (a rule may run over two)."""
    return any(re.search(part, line, flags) for part in [pattern, pattern.split(".*")[0]])


def test_the_task_names_files_command_and_what_must_not_change():
    task = fix_failing_test_task(["a.py", "t/test_a.py"], ["settings.json", "t/"], "pytest -q", lang="ru")
    assert "a.py, t/test_a.py" in task and "pytest -q" in task and "settings.json, t/" in task
    assert "только для чтения" in task
    assert "read-only for this run" in fix_failing_test_task(["a.py"], ["t/"])


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="'en' or 'ru'"):
        system_prompt("de")
    with pytest.raises(ValueError):
        fix_failing_test_task(["a.py"], [], lang="fr")
