"""The Russian edition's run: the shop cassette in Russian replays a Russian conversation end to end,
with a sandbox and without one, through the library and through the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from reactlab import independent_test_run, run_in_copy, unchanged_paths
from reactlab.cli import main
from reactlab.core.prompts import SYSTEM_EN, SYSTEM_RU
from reactlab.samples import (
    SHOP,
    SHOP_READ_ONLY,
    SHOP_TEST_COMMAND,
    shop_cassette,
    shop_cassette_path,
    shop_path,
    shop_script,
    shop_task,
)
from reactlab.summary import verdict

from .conftest import needs_sandbox, without_sandbox

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def test_the_russian_cassette_says_it_is_scripted_in_both_languages():
    cassette = shop_cassette("ru")
    assert cassette.source == "scripted"
    assert "по сценарию (scripted)" in cassette.description and "Answers are scripted" in cassette.description
    assert "recorded" not in cassette.description.replace("real tool results", "")
    assert cassette.missing_observations() == []  # every bash call can be replayed without a sandbox
    assert shop_cassette_path("ru").name == "shop_run_ru.json" and shop_cassette_path().name == "shop_run.json"


def test_the_russian_cassette_holds_the_script_as_written():
    """The cassette's answers are the script's, so re-recording (python -m reactlab.samples ru) keeps them."""
    recorded = [interaction["response"]["choices"][0]["message"] for interaction in shop_cassette("ru").interactions]
    written = [message for message, _ in shop_script("ru").answers]
    assert recorded == written
    assert written[-1]["content"].startswith("Причина: load_settings()") and "Проверено:" in written[-1]["content"]
    assert [m for m, _ in shop_script("en").answers][:-1] == written[:-1]  # the same route in both languages


@pytest.mark.parametrize("lang, system", [("en", SYSTEM_EN), ("ru", SYSTEM_RU)])
def test_what_the_cassette_recorded_is_what_the_library_sends_now(shop, lang, system):
    """The system prompt, the task and every tool definition of each recorded request are the ones
    the library sends today, in the cassette's language; a changed string needs a re-recording."""
    outcome = run_in_copy(SHOP, SHOP.cassette(lang).client(), lang=lang)
    outcome.workspace.cleanup()
    assert outcome.error is None and outcome.record.lang == lang
    for interaction, call in zip(shop_cassette(lang).interactions, outcome.record.model_calls, strict=True):
        recorded, sent = interaction["request"], call.request
        assert recorded["tools"] == sent["tools"]
        assert (
            recorded["messages"][:2]
            == sent["messages"][:2]
            == [
                {"role": "system", "content": system},
                {"role": "user", "content": shop_task(lang)},
            ]
        )


@needs_sandbox
def test_the_russian_run_end_to_end_in_the_sandbox():
    outcome = run_in_copy(SHOP, SHOP.cassette("ru").client(), lang="ru")
    try:
        record = outcome.record
        assert outcome.error is None and record.stop_reason == "answer" and record.lang == "ru"
        assert [(e.model_call, e.name) for e in record.tool_executions] == [
            (1, "read_file"), (1, "read_file"), (1, "read_file"), (2, "bash"), (3, "edit"), (4, "bash")
        ]  # fmt: skip
        first, second = record.tool_executions[3].result, record.tool_executions[5].result
        assert verdict(first) == "FAIL" and verdict(second) == "OK"  # really run here, not replayed
        assert "replayed" not in first and "replayed" not in second
        for call in record.model_calls:
            for tool in call.request["tools"]:
                assert CYRILLIC.search(tool["function"]["description"])
        assert record.messages[0]["content"] == SYSTEM_RU and record.messages[1]["content"] == shop_task("ru")
        assert outcome.answer is not None and outcome.answer.startswith("Причина:")
        check = independent_test_run(outcome.workspace, SHOP_TEST_COMMAND)
        assert check.exit_code == 0
        assert unchanged_paths(outcome.workspace, SHOP_READ_ONLY) == {"shop/settings.json": True, "tests": True}
    finally:
        outcome.workspace.cleanup()


NO_SANDBOX_RUN = textwrap.dedent(
    """
    import json, sys
    from reactlab import Agent, Script, Workspace, default_tools, run_in_copy
    from reactlab.samples import SHOP, SHOP_FILES, SHOP_READ_ONLY, shop_path, shop_task

    replayed = run_in_copy(SHOP, SHOP.cassette("ru").client(), lang="ru")
    fixed = (replayed.workspace.root / "shop/delivery.py").read_text()
    replayed.workspace.cleanup()
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    script = Script().tool_call("bash", command="touch " + sys.argv[1]).final_answer("дальше")
    scripted = Agent(script.client(), default_tools(workspace, SHOP_FILES, lang="ru"), lang="ru")
    scripted.run(shop_task("ru"))
    workspace.cleanup()
    print(json.dumps({
        "answer": replayed.answer, "fixed": fixed, "lang": replayed.record.lang,
        "tools": [type(t).__name__ for t in default_tools(workspace, SHOP_FILES)],
        "results": [[e.name, e.result] for e in replayed.record.tool_executions],
        "refused": scripted.record.tool_executions[0].result,
    }))
    """
)


def test_the_russian_run_without_a_sandbox_replays_bash_and_runs_nothing_on_the_host(tmp_path):
    marker = tmp_path / "ran-on-the-host"
    done = subprocess.run(
        without_sandbox([sys.executable, "-c", NO_SANDBOX_RUN, str(marker)]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["tools"] == ["ReadFileTool", "BashStandIn", "EditTool"] and seen["lang"] == "ru"
    bash = [result for name, result in seen["results"] if name == "bash"]
    assert [r["replayed"] for r in bash] == [True, True]
    assert all(r["note"] == "воспроизведено из кассеты, на этой машине не запускалось" for r in bash)
    assert "FAILED (failures=1)" in bash[0]["stdout"] and bash[1]["stdout"].rstrip().endswith("OK")
    assert 'Path(__file__).resolve().parent / "settings.json"' in seen["fixed"]  # edit really ran
    assert seen["answer"].startswith("Причина: load_settings()")
    refused = seen["refused"]
    assert refused["sandbox_unavailable"] is True
    assert refused["error"].startswith("Не выполнено: на этой машине нет песочницы, а на самом хосте bash")
    assert not marker.exists()


ENGLISH_ROUTE = ["[model call 1] 3 tool call(s)", "answer:", "5 model calls, 6 tool executions", "working copy"]
RUSSIAN_ROUTE = [
    "[обращение к модели 1] вызовов инструментов: 3",
    "[обращение к модели 5] финальный ответ",
    "ответ:\nПричина:",
    "обращений к модели: 5, выполнений инструментов: 6",
    "рабочая копия: ",
]


@needs_sandbox
def test_the_demo_speaks_the_language_asked_for(capsys):
    assert main(["demo", "--lang", "ru"]) == 0
    out = capsys.readouterr().out
    for line in [*RUSSIAN_ROUTE, "независимый прогон тестов: OK (код выхода 0)", "shop/settings.json: не изменён"]:
        assert line in out
    for english in [*ENGLISH_ROUTE, "independent test run", "unchanged", "Cause:"]:
        assert english not in out
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert all(line in out for line in ENGLISH_ROUTE) and not CYRILLIC.search(out)


def test_run_with_lang_ru_prints_a_russian_route(capsys):
    """Replays the Russian cassette through ``reactlab run``: bash runs in the sandbox, or is replayed."""
    argv = [
        "run",
        "--project",
        str(shop_path()),
        "--task",
        shop_task("ru"),
        "--cassette",
        str(shop_cassette_path("ru")),
    ]
    argv += ["--read-only", "shop/settings.json", "--read-only", "tests", "--discard", "--lang", "ru"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert all(line in out for line in RUSSIAN_ROUTE) and "рабочая копия удалена (--discard)" in out
    assert not any(english in out for english in ENGLISH_ROUTE)


def test_an_unknown_language_is_refused_by_the_cli_and_the_library(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--lang", "de"])
    assert "invalid choice: 'de'" in capsys.readouterr().err
    for call in (
        lambda: shop_cassette("de"),
        lambda: shop_script("de"),
        lambda: shop_task("de"),
        lambda: run_in_copy(SHOP, SHOP.cassette().client(), lang="de"),
    ):
        with pytest.raises(ValueError, match="'en' or 'ru'"):
            call()
