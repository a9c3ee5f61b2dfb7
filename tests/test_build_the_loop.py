"""Notebook 04 (build the loop): the check accepts the reference loop, rejects the stub, and names each
mistake of a catalogue of beginners' wrong loops in a beginner's words, at the case where it shows;
it never crashes and never accepts a wrong loop, whatever the student's code does; the notebook runs
without a sandbox and shows Agent._loop only once the loop is solved."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

import reactlab.course.loop_check as loop_check
from reactlab import Cassette, CassetteError, Script
from reactlab.course.loop_check import (
    LoopCase,
    LoopRun,
    ReplayedTool,
    TallyTool,
    check_loop,
    compare_runs,
    loop_cases,
    run_agent,
    show_beside_agent,
)
from reactlab.samples import shop_cassette

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "04_build_the_loop.ipynb"


def _notebook() -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK, as_version=4)


def _exercises() -> list[int]:
    return [i for i, c in enumerate(_notebook().cells) if "exercise" in c.metadata.get("tags", [])]


def _loop_from(source: str) -> Any:
    """Define ``my_loop`` from ``source`` after the notebook's own set-up cell, as a student would."""
    namespace: dict[str, Any] = {}
    setup = next(c for c in _notebook().cells if c.cell_type == "code")
    exec(compile(setup.source, "setup", "exec"), namespace)
    exec(compile(source, "my_loop", "exec"), namespace)
    return namespace["my_loop"]


LOOP_CELL = _exercises()[0]
SOLUTION = _notebook().cells[LOOP_CELL].metadata["reactlab"]["solution"]
STUB = _notebook().cells[LOOP_CELL].source


def _mutated(old: str, new: str, source: str = SOLUTION) -> str:
    assert old in source, f"the reference solution no longer contains {old!r}"
    return source.replace(old, new)


def test_the_reference_loop_agrees_with_the_agent_on_every_case():
    verdict = check_loop(_loop_from(SOLUTION))
    assert verdict.splitlines()[-1] == "✓ solved: your loop and the Agent agree on all 6 cases", verdict
    assert verdict.count("✓ ") == 7


def test_the_stub_is_not_solved_and_does_not_raise():
    assert "raise NotImplementedError" in STUB and "TODO" in STUB
    verdict = check_loop(_loop_from(STUB))
    assert verdict == "✗ not solved yet: your loop raises NotImplementedError (the stub). Write it in the cell above."


# -- the catalogue of wrong loops --------------------------------------------------------------------

APPEND = "        messages.append(message)  # the request comes before its results\n"
RESULT = (
    '            messages.append({"role": "tool", "tool_call_id": c["id"], '
    '"content": json.dumps(result, ensure_ascii=False)})\n'
)
LIMIT = (
    "        if done + len(calls) > max_tool_calls:  # refuse the whole answer\n"
    '            raise ToolCallLimitExceeded(f"{done} done, {len(calls)} more asked, {max_tool_calls} allowed.")\n'
    "        for c in calls:  # execute, one after another\n"
)
SHOP = "the shop run (scripted cassette, tool results replayed)"
EMPTY = "an empty answer"
STEPS = "the step limit (max_steps=3)"
TOOLS = "the tool-call limit (max_tool_calls=4; answers ask for 2, 2, then 1)"
WHOLE = "an answer that would pass the limit (max_tool_calls=4; answers ask for 3, then 2)"
TWICE = "an id used twice in one answer"

WRONG_LOOPS: dict[str, tuple[str, str, str]] = {
    # name: (the wrong loop, the first case it fails, the mistake the check names there)
    "results appended before the assistant message": (
        _mutated(APPEND, "").replace(
            "            done += 1\n", "            done += 1\n        messages.append(message)\n"
        ),
        SHOP,
        "the assistant message with tool_calls must be in the history before its results. Your history has a "
        "tool result at message 3, where the Agent's has the assistant message that asked for it.",
    ),
    "the assistant message never appended": (
        _mutated(APPEND, ""),
        SHOP,
        "the assistant message is missing: append the model's answer, with its tool_calls, before its results "
        "(message 3).",
    ),
    "a result without tool_call_id": (
        _mutated(RESULT, '            messages.append({"role": "tool", "content": json.dumps(result)})\n'),
        SHOP,
        'the tool message at message 4 has no tool_call_id: add "tool_call_id": call["id"], so that the model '
        "knows which call the result answers.",
    ),
    "the tool's name as tool_call_id": (
        _mutated('"tool_call_id": c["id"]', '"tool_call_id": c["function"]["name"]'),
        SHOP,
        "the tool message at message 4 carries tool_call_id 'read_file'; it must be the id of the call it "
        'answers: call["id"].',
    ),
    "calls executed last first": (
        _mutated("for c in calls:", "for c in reversed(calls):"),
        SHOP,
        "the results are in another order than the calls: run the calls in the order of tool_calls, and append "
        "each result as it comes (message 4).",
    ),
    "a dict, not JSON text, in content": (
        _mutated('"content": json.dumps(result, ensure_ascii=False)', '"content": result'),
        SHOP,
        "the content of a tool message must be JSON text, and message 4 holds a dict: use json.dumps(result, "
        "ensure_ascii=False).",
    ),
    "str(result) in content": (
        _mutated('"content": json.dumps(result, ensure_ascii=False)', '"content": str(result)'),
        SHOP,
        "the content of message 4 is str(result), which is Python, not JSON (single quotes, True): use "
        "json.dumps(result, ensure_ascii=False).",
    ),
    "a result with role function": (
        _mutated('"role": "tool", "tool_call_id"', '"role": "function", "tool_call_id"'),
        SHOP,
        "a result is a message with role \"tool\"; message 4 of yours has role 'function'.",
    ),
    "only the first call of an answer run": (
        _mutated("for c in calls:", "for c in calls[:1]:"),
        SHOP,
        "the answer asked for 3 call(s), and your history answers 1 of them before the next request. Run every "
        "call in order, one tool message each, before asking the model again.",
    ),
    "arguments not parsed with json.loads": (
        _mutated('.execute(json.loads(c["function"]["arguments"]))', '.execute(c["function"]["arguments"])'),
        SHOP,
        "a tool got the call's arguments as JSON text. The model sends arguments as a string: turn it into a "
        'dict with json.loads(call["function"]["arguments"]) before tool.execute(...).',
    ),
    "message['tool_calls'] on an answer without calls": (
        _mutated('calls = message.get("tool_calls") or []', 'calls = message["tool_calls"]'),
        SHOP,
        "your loop raised KeyError: 'tool_calls'. An answer without tool calls has no 'tool_calls' key: read it "
        'with message.get("tool_calls") or [].',
    ),
    "the Completion used as the message": (
        _mutated(
            "message = client.send(messages, definitions).message", "message = client.send(messages, definitions)"
        ),
        SHOP,
        "your loop raised AttributeError: 'Completion' object has no attribute 'get'. client.send(...) returns a "
        "Completion; the model's answer, a dict, is its .message.",
    ),
    "a misspelt name": (
        _mutated("by_name[c[", "tools_by_name[c["),
        SHOP,
        "your loop raised NameError: name 'tools_by_name' is not defined. A name is not defined: a typo, or "
        "something from a cell that has not run.",
    ),
    "the tool objects sent instead of their definitions": (
        _mutated("client.send(messages, definitions)", "client.send(messages, tools)"),
        SHOP,
        "your loop raised TypeError: Object of type Tool is not JSON serializable. Something in messages or in "
        "the tool definitions is not JSON: the client must send JSON. Send [tool.definition() for tool in tools], "
        "not the tools themselves.",
    ),
    "no tool definitions sent": (
        _mutated("client.send(messages, definitions)", "client.send(messages, [])"),
        SHOP,
        "request 1 sent no tool definitions: send [tool.definition() for tool in tools] with every request, or "
        "the model cannot ask for a tool.",
    ),
    "only the last message sent": (
        _mutated("client.send(messages, definitions)", "client.send(messages[-1:], definitions)"),
        SHOP,
        "request 1 sent 1 message(s), but the history held 2: every request sends the whole history, "
        "client.send(messages, definitions).",
    ),
    "only the first two messages sent": (
        _mutated("client.send(messages, definitions)", "client.send(messages[:2], definitions)"),
        SHOP,
        "request 2 sent 2 message(s), but the history held 6: every request sends the whole history, "
        "client.send(messages, definitions).",
    ),
    "a new list instead of the caller's": (
        _mutated(APPEND, "        messages = messages + [message]\n").replace(
            RESULT,
            '            messages = messages + [{"role": "tool", "tool_call_id": c["id"], '
            '"content": json.dumps(result, ensure_ascii=False)}]\n',
        ),
        SHOP,
        "append to the list messages that your loop was given: your requests sent up to 12 messages, but that "
        "list holds 2. A new list (messages = messages + [...]) leaves the caller's history behind.",
    ),
    "the final answer returned as the whole message": (
        _mutated("            return text\n", "            return message\n"),
        SHOP,
        "your loop returned {'role': 'assistant', 'content': 'Cause: load_settings() opened settings.json r…: "
        'return the text of the final answer, message["content"].',
    ),
    "text with tool calls taken for the answer": (
        _mutated("        if not calls:  # stop\n", '        if message.get("content") or not calls:\n'),
        EMPTY,
        "your loop returned 'First I number a.' from an answer that asks for tools. An answer with tool_calls is "
        "not final, even with text in content: run its calls.",
    ),
    "a blank answer returned": (
        _mutated("not isinstance(text, str) or not text.strip()", "not isinstance(text, str)"),
        EMPTY,
        "the last answer has no tool calls and no text, and your loop returned ''. A blank answer is not a final "
        "answer: raise EmptyAnswer.",
    ),
    "one model call too many": (
        _mutated("range(max_steps)", "range(max_steps + 1)"),
        STEPS,
        "max_steps=3 allows 3 model calls, and your loop asked 4 times. Ask inside for _ in range(max_steps), "
        "and raise StepLimitExceeded after it.",
    ),
    "no step limit at all": (
        _mutated("for _ in range(max_steps):", "while True:"),
        STEPS,
        "max_steps=3 allows 3 model calls, and your loop asked 4 times. Ask inside for _ in range(max_steps), "
        "and raise StepLimitExceeded after it.",
    ),
    "a RuntimeError at the step limit": (
        _mutated("raise StepLimitExceeded(", "raise RuntimeError("),
        STEPS,
        "the Agent raises StepLimitExceeded here, your loop raised RuntimeError (3 model calls without a final "
        "answer). Raise reactlab's StepLimitExceeded: the check compares the classes.",
    ),
    "None returned at the step limit": (
        _mutated('    raise StepLimitExceeded(f"{max_steps} model calls without a final answer.")', "    return None"),
        STEPS,
        "after max_steps=3 model calls without a final answer, raise StepLimitExceeded; your loop returned None.",
    ),
    "tool-call limit off by one": (
        _mutated("done + len(calls) > max_tool_calls", "done + len(calls) >= max_tool_calls"),
        TOOLS,
        "the answer at message 6 asks for 2 call(s): 2 + 2 reaches max_tool_calls=4 exactly, and that is "
        "allowed. Refuse only an answer that would pass it: done + len(calls) > max_tool_calls.",
    ),
    "no tool-call limit": (
        _mutated("        if done + len(calls) > max_tool_calls:", "        if False:"),
        TOOLS,
        "the answer at message 9 asks for 1 call(s), and 4 + 1 would pass max_tool_calls=4: raise "
        "ToolCallLimitExceeded before any of its calls runs. Your loop ran 1 of them.",
    ),
    "the tool-call limit checked call by call": (
        _mutated(
            LIMIT,
            "        for c in calls:  # execute, one after another\n"
            "            if done + 1 > max_tool_calls:\n"
            '                raise ToolCallLimitExceeded("limit")\n',
        ),
        WHOLE,
        "the answer at message 7 asks for 2 calls, and 3 + 2 would pass max_tool_calls=4: it is refused whole, "
        "before any of its calls runs. Your loop ran 1 of them first: check the limit once per answer, before "
        "the for over the calls.",
    ),
    "no id check": (
        _mutated("if len(set(ids)) < len(ids):", "if False:"),
        TWICE,
        "the answer at message 5 has two calls with the id call_twice: refuse it with InvalidAssistantMessage, "
        "before appending it. A tool message could not say which call it answers.",
    ),
    "appended before it is validated": (
        _mutated(APPEND, "").replace("        calls = message.get", APPEND + "        calls = message.get"),
        TWICE,
        "the answer at message 5 has two calls with the id call_twice. Your loop refused it, but only after "
        "appending it: validate first, so that a refused answer never enters the history.",
    ),
}


def test_the_catalogue_holds_at_least_a_dozen_distinct_mistakes():
    assert len(WRONG_LOOPS) >= 12
    assert len({source for source, _, _ in WRONG_LOOPS.values()}) == len(WRONG_LOOPS)
    assert len({message for _, _, message in WRONG_LOOPS.values()}) >= 25
    assert all(source != SOLUTION for source, _, _ in WRONG_LOOPS.values())


@pytest.mark.parametrize("name", WRONG_LOOPS)
def test_each_wrong_loop_is_rejected_and_its_mistake_named_where_it_shows(name):
    source, case, message = WRONG_LOOPS[name]
    verdict = check_loop(_loop_from(source)).splitlines()
    assert verdict[-1].startswith("✗ not solved yet: "), verdict
    failing = [line for line in verdict if line.startswith("✗ ") and not line.startswith("✗ not solved")]
    assert failing[0] == f"✗ {case}: {message}", "\n".join(verdict)
    cases = [c.name for c in loop_cases()]
    agreeing = [line[2:].split(": ")[0] for line in verdict if line.startswith("✓ ")]
    assert set(cases[: cases.index(case)]) <= set(agreeing), "every case before the first failure agrees"


def test_a_mismatch_shows_both_messages_as_json_numbered_from_one():
    source, _, _ = WRONG_LOOPS["results appended before the assistant message"]
    lines = check_loop(_loop_from(source)).splitlines()
    start = lines.index("    message 3 in the Agent's history:")
    assert lines[start + 1 : start + 4] == ["      {", '        "role": "assistant",', '        "content": "",']
    calls = [line for line in lines[start:] if line.startswith('          {"id": "call_0')]
    assert len(calls) == 3 and all(json.loads(line.strip().rstrip(",")) for line in calls)
    yours = lines.index("    message 3 in yours:")
    assert lines[yours + 2] == '        "role": "tool",'
    assert sum(1 for line in lines if line.startswith("    ")) < 30, "the details are shown for the first failure only"


def test_a_crash_shows_the_line_of_the_students_code():
    source, _, _ = WRONG_LOOPS["a misspelt name"]
    lines = check_loop(_loop_from(source)).splitlines()
    where = lines.index("    where, in your code:")
    line = next(number for number, text in enumerate(source.splitlines(), 1) if "tools_by_name" in text)
    assert lines[where + 1] == f"      line {line}, in my_loop"  # compiled without a file, so no code is quoted


def test_the_russian_check_names_the_mistakes_in_russian():
    source, _, _ = WRONG_LOOPS["tool-call limit off by one"]
    lines = check_loop(_loop_from(source), lang="ru").splitlines()
    assert lines[3] == (
        "✗ лимит вызовов инструментов (max_tool_calls=4; ответы просят 2, 2, затем 1): ответ в сообщении 6 "
        "просит вызовов: 2; 2 + 2 ровно равно max_tool_calls=4, и это разрешено. Отклоняйте только ответ, который "
        "лимит превысил бы: done + len(calls) > max_tool_calls."
    )
    crash = check_loop(_loop_from(WRONG_LOOPS["a misspelt name"][0]), lang="ru").splitlines()
    assert crash[1] == "    где это случилось в вашем коде:" and crash[2].startswith("      строка ")
    assert lines[-1] == "✗ пока не решено: совпало случаев: 5 из 6"


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
    "returns the right answer without asking": _hostile(lambda client, tools, messages: "Numbered a and b."),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_loop_gets_a_verdict_never_a_crash_or_a_solved(name):
    verdict = check_loop(HOSTILE[name])
    assert verdict.splitlines()[-1] == "✗ not solved yet: 0 of 6 cases agree", verdict


def test_a_loop_that_never_ends_is_stopped(monkeypatch):
    monkeypatch.setattr(loop_check, "TIME_LIMIT", 0.5)

    def spins(client, tools, messages, max_steps, max_tool_calls):
        while True:
            pass

    case = LoopCase("one answer", lambda: Script().final_answer("hi").client(), lambda: [TallyTool()], "t")
    verdict = check_loop(spins, [case]).splitlines()
    assert verdict[0] == (
        "✗ one answer: your loop ran for over 0.5 s on this case and was stopped (0 requests sent). Does every "
        "turn call the model, and does a for over range(max_steps) bound the turns?"
    )


@pytest.mark.parametrize("loop", [None, 42, "my_loop", [SOLUTION]])
def test_something_that_is_not_a_function_is_named(loop):
    assert check_loop(loop).startswith("✗ not solved yet: my_loop should be a function, not ")


def test_tool_contents_compare_as_json_values_not_as_spacing_and_never_as_dicts():
    tool = {"role": "tool", "tool_call_id": "c", "content": json.dumps({"text": "é", "n": 1})}
    spaced = {**tool, "content": json.dumps({"n": 1, "text": "é"}, ensure_ascii=False, indent=2)}
    differs = {**tool, "content": json.dumps({"text": "é", "n": 2})}
    as_dict = {**tool, "content": {"text": "é", "n": 1}}
    assert compare_runs(LoopRun([tool], "answer", "x", "x"), LoopRun([spaced], "answer", "x", "x")) == []
    assert compare_runs(LoopRun([tool], "answer", "x"), LoopRun([differs], "answer", "x"))
    assert compare_runs(LoopRun([tool], "answer", "x"), LoopRun([as_dict], "answer", "x"))
    assert compare_runs(LoopRun([tool], "answer", "x"), LoopRun([tool], "EmptyAnswer", "x"))


# -- the cases themselves ---------------------------------------------------------------------------


def test_each_case_ends_the_agent_the_way_its_name_says():
    endings = {case.name.split(" (")[0]: run_agent(case).ending for case in loop_cases()}
    assert endings == {
        "the shop run": "answer",
        "an empty answer": "EmptyAnswer",
        "the step limit": "StepLimitExceeded",
        "the tool-call limit": "ToolCallLimitExceeded",
        "an answer that would pass the limit": "ToolCallLimitExceeded",
        "an id used twice in one answer": "InvalidAssistantMessage",
    }


def test_the_tool_call_limit_cases_allow_exactly_the_limit_and_refuse_a_whole_answer():
    exact, whole = (c for c in loop_cases() if c.name.startswith(("the tool-call limit", "an answer that would")))
    run = run_agent(exact)
    assert [m["role"] for m in run.messages].count("tool") == exact.max_tool_calls
    assert run.messages[-1]["role"] == "assistant" and len(run.messages[-1]["tool_calls"]) == 1
    run = run_agent(whole)
    assert [m["role"] for m in run.messages].count("tool") == 3 < whole.max_tool_calls
    assert len(run.messages[-1]["tool_calls"]) == 2  # 3 + 2 > 4: refused whole, although 1 more would fit


def test_the_empty_answer_case_first_answers_with_text_and_a_call():
    case = next(c for c in loop_cases() if c.name == "an empty answer")
    first = run_agent(case).messages[2]
    assert first["content"] and len(first["tool_calls"]) == 1


def test_the_duplicate_id_is_inside_one_answer_and_ids_never_repeat_across_answers():
    case = next(c for c in loop_cases() if c.name.startswith("an id used twice"))
    client = case.make_client()
    first = client.send([{"role": "user", "content": "x"}], [TallyTool().definition()]).message
    second = client.send([{"role": "user", "content": "x"}], [TallyTool().definition()]).message
    ids = [c["id"] for c in second["tool_calls"]]
    assert len(ids) == 2 and len(set(ids)) == 1
    assert not set(ids) & {c["id"] for c in first["tool_calls"]}


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


# -- Agent._loop, shown only once the loop is solved -----------------------------------------------


def test_agent_loop_is_shown_beside_the_article_only_once_the_loop_agrees():
    locked = show_beside_agent(_loop_from(STUB))
    assert repr(locked) == "<Agent._loop: not shown yet>" and "def _loop(" not in locked._repr_html_()
    assert repr(show_beside_agent(_loop_from(STUB), lang="ru")) == "<Agent._loop: пока не показан>"
    assert repr(show_beside_agent(_loop_from(STUB), now=True, lang="ru")) == "<Agent._loop рядом с циклом из статьи>"
    assert "def _loop(" not in show_beside_agent(_loop_from(WRONG_LOOPS["no id check"][0]))._repr_html_()
    assert "def _loop(" not in show_beside_agent("not a loop")._repr_html_()
    shown = show_beside_agent(_loop_from(SOLUTION))._repr_html_()
    assert "def _loop(" in shown and "up to max_steps times:" in shown
    assert "def _loop(" in show_beside_agent(_loop_from(STUB), now=True)._repr_html_()
    assert "цикл из статьи, пересказанный" in show_beside_agent(_loop_from(SOLUTION), lang="ru")._repr_html_()


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


def test_the_check_and_quiz_modules_export_what_they_define():
    import reactlab.course.loop_check
    import reactlab.course.quiz

    for module in (reactlab.course.loop_check, reactlab.course.quiz):
        assert module.__all__ == sorted(module.__all__)
        assert all(hasattr(module, name) for name in module.__all__)
