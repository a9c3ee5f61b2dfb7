"""Notebook 04 (build the loop): the check compares the student's loop with the Agent on every short
conversation, smallest first. It accepts every right loop, however it is written, and rejects every
wrong loop of the catalogue (tests/loop_catalogue.py) with the reason that names its mistake, once;
it never crashes, whatever the student's code does; the notebook runs without a sandbox and shows
Agent._loop only once the loop is solved."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from typing import Any

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbclient import NotebookClient

import reactlab.course.loop_check as loop_check
import reactlab.course.watch as watch
from reactlab import Cassette, CassetteError, Script
from reactlab.course.beside import ARTICLE_LOOP, show_beside_agent
from reactlab.course.loop_check import ASKING, ENDING, check_loop, loop_cases
from reactlab.course.replayed import ReplayedTool
from reactlab.course.tally import TallyTool
from reactlab.course.watch import LoopCase, run_agent, run_loop
from reactlab.samples import shop_cassette

from .loop_catalogue import NOTEBOOK, REASONS, RIGHT, SOLUTION, STUB, WRONG, loop_from, mutated

SOLVED = (
    "✓ solved: your loop and the Agent agree on all 309 cases (every short conversation, each limit at and around "
    "its boundary, and the shop run)"
)


def _notebook() -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK, as_version=4)


def _exercises() -> list[int]:
    return [i for i, c in enumerate(_notebook().cells) if "exercise" in c.metadata.get("tags", [])]


def test_the_reference_loop_agrees_with_the_agent_on_every_case():
    assert check_loop(loop_from(SOLUTION)) == SOLVED


def test_the_stub_is_not_solved_and_does_not_raise():
    assert "raise NotImplementedError" in STUB and "TODO" in STUB
    verdict = check_loop(loop_from(STUB))
    assert verdict == "✗ not solved yet: your loop raises NotImplementedError (the stub). Write it in the cell above."


# -- the catalogue: wrong loops, right loops ---------------------------------------------------------


def test_the_catalogue_holds_thirty_wrong_loops_and_unusual_right_ones():
    assert len(WRONG) >= 30 and set(REASONS) == set(WRONG)
    assert len(set(WRONG.values())) == len(WRONG) and SOLUTION not in WRONG.values()
    assert len(set(REASONS.values())) >= 35, "most mistakes are named in words of their own"
    assert len(RIGHT) >= 8 and len(set(RIGHT.values())) == len(RIGHT)
    shapes = "\n".join(RIGHT.values())
    for shape in ("while True:", "return my_loop(", "range(1, max_steps + 1)", "def answer_or_none(", "messages +="):
        assert shape in shapes, shape


@pytest.mark.parametrize("name", WRONG)
def test_each_wrong_loop_is_rejected_with_the_reason_that_names_its_mistake(name):
    verdict = check_loop(loop_from(WRONG[name])).splitlines()
    assert verdict[0] == f"✗ not solved yet: {REASONS[name]}", "\n".join(verdict)
    assert sum(line.startswith("✗") for line in verdict) == 1, "one reason, said once"
    assert all(line.startswith("  ") for line in verdict[1:])


@pytest.mark.parametrize("name", RIGHT)
def test_each_right_loop_is_accepted_however_it_is_written(name):
    assert check_loop(loop_from(RIGHT[name])) == SOLVED


ISSUE_38 = {
    # issue 38: three wrong loops the old check accepted as "✓ solved (6 of 6)"
    "a blank answer returned (if not text)": 'content " \\n"',
    "null content crashes on .strip()": "content null",
    "while True whose counter skips answers with text": 'content "Let me number it.", tool_calls: tally',
}


@pytest.mark.parametrize("name", ISSUE_38)
def test_the_loops_the_old_check_accepted_are_rejected_on_the_answer_that_shows_it(name):
    verdict = check_loop(loop_from(WRONG[name])).splitlines()
    assert verdict[0].startswith("✗ not solved yet: ")
    assert any(ISSUE_38[name] in line for line in verdict[1:4]), verdict


def test_a_shared_tool_message_is_named_as_one_dict_appended_twice():
    """The old check said «request 2 sent 4 messages, and the history held 4», which contradicts itself."""
    verdict = check_loop(loop_from(WRONG["one tool message dict, re-appended"])).splitlines()
    assert "one and the same dict twice, as message 4 and as message 5" in verdict[0]
    assert "held" not in verdict[0]


def test_an_id_check_after_the_append_names_the_class_and_says_check_first():
    for lang, words in (("en", ("InvalidAssistantMessage", "before you append")), ("ru", ("до добавления",))):
        first = check_loop(loop_from(WRONG["the id check raises ValueError after the append"]), lang=lang)
        assert all(word in first.splitlines()[0] for word in words), first
        assert "ValueError" in first.splitlines()[0]


def test_a_crash_inside_the_library_or_python_points_at_the_students_own_line():
    source = mutated("            return text\n", "            return pathlib.Path(text).relative_to(None)\n").replace(
        "def my_loop(", "import pathlib\n\n\ndef my_loop(", 1
    )
    for lang, line in (("en", "line {}, in my_loop"), ("ru", "my_loop, строка {}")):
        lines = check_loop(loop_from(source), lang=lang).splitlines()
        number = next(n for n, text in enumerate(source.splitlines(), 1) if "relative_to" in text)
        where = next(
            i
            for i, text in enumerate(lines)
            if text.strip() in ("where, in your code:", "где это случилось в вашем коде:")
        )
        assert lines[where + 1] == "    " + line.format(number), lines
        assert not any("pathlib" in text or "строка 1" in text[:12] for text in lines[where + 1 :]), lines


def test_the_first_difference_is_a_smallest_case_and_shown_as_the_models_answers():
    verdict = check_loop(loop_from(WRONG["calls executed last first"])).splitlines()
    assert verdict[1:4] == [
        "  the smallest case where they differ: max_steps=2, max_tool_calls=2, and the model answers",
        '    1. content "", tool_calls: tally {"text": "a"} (id call_1), tally {"text": "b"} (id call_2)',
        '    2. content "Done."',
    ]


def test_a_mismatch_shows_both_messages_as_json_numbered_from_one():
    lines = check_loop(loop_from(WRONG["results appended before the assistant message"])).splitlines()
    start = lines.index("  message 3 in the Agent's history:")
    assert lines[start + 1 : start + 4] == ["    {", '      "role": "assistant",', '      "content": "",']
    call = {"id": "call_1", "type": "function", "function": {"name": "tally", "arguments": '{"text": "a"}'}}
    assert lines[start + 5] == "        " + json.dumps(call, ensure_ascii=False)
    assert lines[lines.index("  message 3 in yours:") + 2] == '      "role": "tool",'


def test_the_russian_check_names_the_mistakes_in_russian():
    lines = check_loop(loop_from(WRONG["tool-call limit off by one"]), lang="ru").splitlines()
    assert lines[0] == (
        "✗ пока не решено: ответ в сообщении 3 просит вызовов: 1; 0 + 1 ровно равно max_tool_calls=1, и это "
        "разрешено. Отклоняйте только ответ, который лимит превысил бы: done + len(calls) > max_tool_calls."
    )
    assert lines[1:4] == [
        "  наименьший случай, где они расходятся: max_steps=2, max_tool_calls=1, ответы модели",
        '    1. content "", tool_calls: tally {"text": "a"} (id call_1)',
        '    2. content "Готово."',
    ]
    crash = check_loop(loop_from(WRONG["a misspelt name"]), lang="ru").splitlines()
    assert "  где это случилось в вашем коде:" in crash and any(
        line.startswith("    my_loop, строка ") for line in crash
    )


# -- hostile loops: never a crash of the check, never a false accept ----------------------------------


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    __hash__ = None  # type: ignore[assignment]


def _hostile(body):
    def loop(client, tools, messages, max_steps, max_tool_calls):
        return body(client, tools, messages)

    return loop


HOSTILE = {
    "exits": _hostile(lambda client, tools, messages: sys.exit(3)),
    "returns an unprintable object": _hostile(lambda client, tools, messages: Unprintable()),
    "appends an unprintable object": _hostile(lambda client, tools, messages: messages.append(Unprintable())),
    "raises an unprintable error": _hostile(
        lambda client, tools, messages: (_ for _ in ()).throw(ValueError(Unprintable()))
    ),
    "empties the history": _hostile(lambda client, tools, messages: messages.clear()),
    "appends itself to the history": _hostile(lambda client, tools, messages: messages.append(messages)),
    "sends garbage": _hostile(lambda client, tools, messages: client.send("history", {"tools": object()})),
    "calls a tool with garbage": _hostile(lambda client, tools, messages: tools[0].execute(None)),
    "returns the right answer without asking": _hostile(lambda client, tools, messages: "Done."),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_loop_gets_a_verdict_never_a_crash_or_a_solved(name):
    verdict = check_loop(HOSTILE[name])
    assert verdict.startswith("✗ not solved yet: ") and verdict.count("✗") == 1, verdict


def test_a_loop_that_never_ends_is_stopped(monkeypatch):
    monkeypatch.setattr(watch, "TIME_LIMIT", 0.5)

    def spins(client, tools, messages, max_steps, max_tool_calls):
        while True:
            pass

    case = LoopCase("one answer", lambda: Script().final_answer("hi").client(), lambda: [TallyTool()], "t")
    assert check_loop(spins, [case]).splitlines() == [
        "✗ not solved yet: your loop ran for over 0.5 s on this case and was stopped (0 requests sent). Does every "
        "turn call the model, and does a for over range(max_steps) bound the turns?",
        "  the case where they differ: one answer",
    ]


@pytest.mark.parametrize("loop", [None, 42, "my_loop", [SOLUTION]])
def test_something_that_is_not_a_function_is_named(loop):
    assert check_loop(loop).startswith("✗ not solved yet: my_loop should be a function, not ")


def test_tool_contents_compare_as_json_values_not_as_spacing_and_never_as_dicts():
    tool = {"role": "tool", "tool_call_id": "c", "content": json.dumps({"text": "é", "n": 1})}
    spaced = {**tool, "content": json.dumps({"n": 1, "text": "é"}, ensure_ascii=False, indent=2)}
    assert loop_check._same(tool, spaced)
    assert not loop_check._same(tool, {**tool, "content": json.dumps({"text": "é", "n": 2})})
    assert not loop_check._same(tool, {**tool, "content": {"text": "é", "n": 1}})


# -- the cases -----------------------------------------------------------------------------------


def test_the_cases_cover_every_kind_of_answer_and_every_ending_smallest_first():
    cases = loop_cases()
    generated, shop = cases[:-1], cases[-1]
    assert shop.name.startswith("the shop run") and not shop.answers
    assert [len(c.answers) for c in generated] == sorted(len(c.answers) for c in generated)
    assert len(generated) == 308 and max(len(c.answers) for c in generated) == 3
    endings = Counter(run_agent(case).ending for case in cases)
    assert set(endings) == {"answer", "EmptyAnswer", "InvalidAssistantMessage", "StepLimitExceeded",
                            "ToolCallLimitExceeded"}  # fmt: skip
    contents = {json.dumps(a["content"]) for c in generated for a in c.answers}
    assert {'""', '" \\n"', "null", '"Done."', '" Done.\\n"', '"Let me number it."'} <= contents
    assert len(ASKING) == 5 and len(ENDING) == 6


def test_each_limit_is_tried_at_below_and_above_its_boundary():
    for case in loop_cases()[:-1]:
        steps = len(case.answers)
        calls = sum(len(a.get("tool_calls", [])) for a in case.answers[:-1])
        assert case.max_steps in (steps - 1, steps, steps + 1) and case.max_tool_calls in (
            calls - 1,
            calls,
            calls + 1,
            calls + 2,
        )
    final = [c for c in loop_cases()[:-1] if c.answers[-1]["content"] == "Done." and len(c.answers) == 3]
    around = Counter(
        (len(c.answers) - c.max_steps, sum(len(a.get("tool_calls", [])) for a in c.answers) - c.max_tool_calls)
        for c in final
    )
    assert set(around) == {(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1)}


def test_ids_repeat_only_inside_the_answer_that_is_about_it():
    for case in loop_cases()[:-1]:
        ids = [call["id"] for answer in case.answers for call in answer.get("tool_calls", [])]
        repeated = {i for i in ids if ids.count(i) > 1}
        assert repeated <= {"call_twice"}
        assert ids.count("call_twice") in (0, 2) and (
            not repeated or case.answers[-1]["tool_calls"][0]["id"] == "call_twice"
        )


def test_the_verdict_is_the_same_every_time():
    wrong = loop_from(WRONG["calls executed last first"])
    assert check_loop(wrong) == check_loop(wrong) == check_loop(loop_from(WRONG["calls executed last first"]))
    assert [c.answers for c in loop_cases()] == [c.answers for c in loop_cases()]


def test_the_russian_cases_say_their_words_in_russian():
    cases = loop_cases("ru")
    said = {a["content"] for c in cases[:-1] for a in c.answers if a["content"]}
    assert {"Сейчас пронумерую.", "Готово."} <= said
    assert all("Use the" not in c.task for c in cases)
    assert TallyTool("ru").execute({"text": ""}) == {"ok": False, "error": "Нечего нумеровать: текст пуст."}


def test_the_shop_case_replays_the_cassettes_results_and_says_so():
    tools = {tool.name: tool for tool in ReplayedTool.from_cassette(shop_cassette())}
    assert sorted(tools) == ["bash", "edit", "read_file"]
    result = tools["read_file"].execute({"path": "shop/settings.json"})
    assert result["replayed"] is True and "not run on this machine" in result["note"]
    assert "free_delivery" in json.dumps(result)
    assert tools["read_file"].execute({"path": "shop/settings.json"})["ok"] is False  # each result once
    assert tools["bash"].execute({"command": "rm -rf /"}) == {
        "ok": False,
        "error": "The cassette holds no result for these arguments.",
        "replayed": True,
    }


# -- the enumeration is as strong as a search of a larger space ------------------------------------


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    asking=st.lists(st.sampled_from(ASKING), max_size=5),
    ending=st.sampled_from(ENDING),
    steps=st.integers(1, 7),
    calls=st.integers(0, 9),
    right=st.sampled_from(sorted(RIGHT)),
)
def test_a_loop_the_check_accepts_agrees_with_the_agent_on_longer_conversations(asking, ending, steps, calls, right):
    """Conversations of up to six answers and any limits, beyond the two asking answers the check
    enumerates: every loop it accepts still does what the Agent does."""
    case = loop_check._case((*asking, ending), steps, calls, "en")
    assert loop_check.diagnose(run_agent(case), run_loop(loop_from(RIGHT[right]), case), case) is None


# -- Agent._loop, shown only once the loop is solved -----------------------------------------------


def test_agent_loop_is_shown_beside_the_article_only_once_the_loop_agrees():
    locked = show_beside_agent(loop_from(STUB))
    assert repr(locked) == "<Agent._loop: not shown yet>" and "def _loop(" not in locked._repr_html_()
    assert repr(show_beside_agent(loop_from(STUB), lang="ru")) == "<Agent._loop: пока не показан>"
    assert repr(show_beside_agent(loop_from(STUB), now=True, lang="ru")) == "<Agent._loop рядом с циклом из статьи>"
    assert "def _loop(" not in show_beside_agent(loop_from(WRONG["no id check"]))._repr_html_()
    assert "def _loop(" not in show_beside_agent("not a loop")._repr_html_()
    shown = show_beside_agent(loop_from(SOLUTION))._repr_html_()
    assert "def _loop(" in shown and "self.client.complete(deepcopy(messages), deepcopy(definitions))" in shown
    assert shown.index("The article&#39;s loop") < shown.index("Agent._loop, the code")  # one above the other
    assert "def _loop(" in show_beside_agent(loop_from(STUB), now=True)._repr_html_()
    assert "так, как он напечатан в статье" in show_beside_agent(loop_from(SOLUTION), lang="ru")._repr_html_()


def test_the_articles_loop_is_quoted_as_the_article_prints_it():
    """The article's text (the seed) holds these lines exactly: quoted, not retold."""
    assert ARTICLE_LOOP.startswith("used_ids = set()\n\nfor step in range(1, self.max_steps + 1):\n")
    assert 'raise RuntimeError("Модель не вернула ни вызова, ни ответа")' in ARTICLE_LOOP
    last = 'raise RuntimeError("Достигнут лимит обращений к модели без финального ответа")'
    assert ARTICLE_LOOP.rstrip().endswith(last)
    assert '        used_ids.add(call["id"])' in ARTICLE_LOOP and len(ARTICLE_LOOP.splitlines()) == 26


def test_agent_loop_keeps_its_indentation_left_aligned():
    html = show_beside_agent(None, now=True)._repr_html_()
    assert html.count("text-align: left") >= 4 and "white-space: pre" in html
    assert '">def _loop(self, record: RunRecord) -&gt; str:\n' in html  # the method's own indent taken off
    assert "\n    for step in range(1, self.max_steps + 1):\n" in html


def test_the_notebook_is_a_lesson_with_predictions_first():
    notebook = _notebook()
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    predictions = [s for s in markdown if "**Predict first.**" in s and "<details><summary>Answer</summary>" in s]
    assert len(predictions) >= 2
    text = "\n".join(markdown)
    assert "scripted" in text and "recorded from DeepSeek" in text  # says what the shop run is not
    assert "as DeepSeek did" not in text
    assert "six inputs" not in text and "smallest" in text  # it describes the check as it is
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    assert "show_beside_agent(my_loop)" in code and "inspect.getsource" not in code


@pytest.fixture
def kernel_without_bwrap(tmp_path, monkeypatch):
    """A kernel for this interpreter whose PATH holds no bwrap: the notebook must not need the sandbox."""
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "reactlab", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    assert os.environ["PATH"] == str(empty)


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def test_the_solved_notebook_runs_offline_without_a_sandbox(kernel_without_bwrap, tmp_path):
    notebook = _notebook()
    for index in _exercises():
        notebook.cells[index].source = notebook.cells[index].metadata["reactlab"]["solution"]
    NotebookClient(
        notebook,
        timeout=120,
        startup_timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    checks = [_printed(notebook.cells[index + 1]) for index in _exercises()]
    assert all("✓ solved" in printed for printed in checks), checks
    shown = next(c for c in notebook.cells if c.source == "show_beside_agent(my_loop)")
    assert any("def _loop(" in json.dumps(o.get("data", {})) for o in shown.outputs)


def _broken_cassettes() -> dict[str, Cassette]:
    good = shop_cassette().to_dict()
    variants: dict[str, Any] = {}

    def last_request(data: dict[str, Any]) -> dict[str, Any]:
        return data["interactions"][-1]["request"]

    no_request = json.loads(json.dumps(good))
    del no_request["interactions"][-1]["request"]
    variants["no request"] = no_request
    not_json = json.loads(json.dumps(good))
    next(m for m in last_request(not_json)["messages"] if m["role"] == "tool")["content"] = "{not json"
    variants["a result that is not JSON"] = not_json
    a_list = json.loads(json.dumps(good))
    next(m for m in last_request(a_list)["messages"] if m["role"] == "tool")["content"] = "[1, 2]"
    variants["a result that is a list"] = a_list
    orphan = json.loads(json.dumps(good))
    next(m for m in last_request(orphan)["messages"] if m["role"] == "tool")["tool_call_id"] = "call_nobody"
    variants["a result for a call nobody made"] = orphan
    # Tools that are not definitions, and every other wrong shape, no longer load (tests/test_cassette.py).
    return {name: Cassette.from_dict(data) for name, data in variants.items()}


@pytest.mark.parametrize("name", list(_broken_cassettes()))
def test_a_broken_cassette_is_a_clear_error_not_a_crash(name):
    with pytest.raises(CassetteError, match="Cannot replay tool results from this cassette"):
        ReplayedTool.from_cassette(_broken_cassettes()[name])


def test_the_course_modules_export_what_they_define():
    import reactlab.course.beside
    import reactlab.course.quiz
    import reactlab.course.replayed
    import reactlab.course.student
    import reactlab.course.tally

    course = reactlab.course
    modules = (loop_check, watch, course.quiz, course.beside, course.replayed, course.student, course.tally)
    for module in modules:
        assert module.__all__ == sorted(module.__all__)
        assert all(hasattr(module, name) for name in module.__all__)
