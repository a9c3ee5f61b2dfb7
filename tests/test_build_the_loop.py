"""Notebook 04 (build the loop): the check accepts the reference loop and rejects the stub and
plausibly wrong loops; the quiz accepts the right answers only; the notebook runs without a sandbox."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

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
)
from reactlab.course.quiz import answer_digest, check_quiz, normalise
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


def _mutated(old: str, new: str) -> str:
    assert old in SOLUTION, f"the reference solution no longer contains {old!r}"
    return SOLUTION.replace(old, new)


def test_the_reference_loop_agrees_with_the_agent_on_every_case():
    verdict = check_loop(_loop_from(SOLUTION))
    assert verdict.splitlines()[-1] == "✓ solved: your loop and the Agent agree on all 5 cases", verdict
    assert verdict.count("✓ ") == 6


def test_the_stub_is_not_solved_and_does_not_raise():
    assert "raise NotImplementedError" in STUB and "TODO" in STUB
    verdict = check_loop(_loop_from(STUB))
    assert verdict.startswith("✗ not solved yet") and "✓ solved" not in verdict


APPEND = "        messages.append(message)  # the request comes before its results\n"
RESULTS_FIRST = _mutated(APPEND, "").replace(
    "            done += 1\n",
    "            done += 1\n        messages.append(message)\n",
)

WRONG_LOOPS = {
    # name: (source, the case whose verdict must fail)
    "results appended before the assistant message": (RESULTS_FIRST, "the shop run"),
    "no tool-call limit": (
        _mutated("        if done + len(calls) > max_tool_calls:", "        if False:"),
        "the tool-call limit",
    ),
    "tool-call limit off by one": (
        _mutated("done + len(calls) > max_tool_calls", "done + len(calls) >= max_tool_calls"),
        "the tool-call limit",
    ),
    "one model call too many": (_mutated("range(max_steps)", "range(max_steps + 1)"), "the step limit"),
    "a blank answer returned": (
        _mutated("not isinstance(text, str) or not text.strip()", "not isinstance(text, str)"),
        "an empty answer",
    ),
    "no id check": (_mutated("if len(set(ids)) < len(ids):", "if False:"), "an id used twice"),
    "appended before it is validated": (
        _mutated(APPEND, "").replace("        calls = message.get", APPEND + "        calls = message.get"),
        "an id used twice",
    ),
    "calls executed last first": (_mutated("for c in calls:", "for c in reversed(calls):"), "the shop run"),
    "a RuntimeError at the step limit": (
        _mutated("raise StepLimitExceeded(", "raise RuntimeError("),
        "the step limit",
    ),
}


@pytest.mark.parametrize("name", WRONG_LOOPS)
def test_a_plausibly_wrong_loop_is_rejected_at_the_right_case(name):
    source, failing_case = WRONG_LOOPS[name]
    assert source != SOLUTION
    verdict = check_loop(_loop_from(source))
    assert verdict.splitlines()[-1].startswith("✗ not solved yet"), verdict
    line = next(line for line in verdict.splitlines() if failing_case in line)
    assert line.startswith("✗ "), verdict


def test_a_mismatch_names_the_first_differing_message_on_both_sides():
    source, _ = WRONG_LOOPS["results appended before the assistant message"]
    lines = check_loop(_loop_from(source)).splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("✗ the shop run"))
    assert "first difference at message 2" in lines[index]
    assert lines[index + 1].startswith('    Agent: {"role": "assistant"')
    assert lines[index + 2].startswith('    yours: {"role": "tool"')


def test_each_case_ends_the_agent_the_way_its_name_says():
    endings = {case.name.split(" (")[0]: run_agent(case).ending for case in loop_cases()}
    assert endings == {
        "the shop run": "answer",
        "an empty answer": "EmptyAnswer",
        "the step limit": "StepLimitExceeded",
        "the tool-call limit": "ToolCallLimitExceeded",
        "an id used twice in one answer": "InvalidAssistantMessage",
    }


def test_the_tool_call_limit_case_allows_exactly_the_limit():
    case = next(c for c in loop_cases() if c.name.startswith("the tool-call limit"))
    run = run_agent(case)
    assert [m["role"] for m in run.messages].count("tool") == case.max_tool_calls
    assert run.messages[-1]["role"] == "assistant" and len(run.messages[-1]["tool_calls"]) == 1


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


def test_tool_contents_compare_as_json_values_not_as_spacing():
    tool = {"role": "tool", "tool_call_id": "c", "content": json.dumps({"text": "é", "n": 1})}
    spaced = {**tool, "content": json.dumps({"n": 1, "text": "é"}, ensure_ascii=False, indent=2)}
    differs = {**tool, "content": json.dumps({"text": "é", "n": 2})}
    assert compare_runs(LoopRun([tool], "answer", "x"), LoopRun([spaced], "answer", "x")) == []
    assert compare_runs(LoopRun([tool], "answer", "x"), LoopRun([differs], "answer", "x"))
    assert compare_runs(LoopRun([tool], "answer", "x"), LoopRun([tool], "EmptyAnswer", "x"))


def test_a_loop_that_crashes_is_a_verdict_not_a_traceback():
    def crashes(client, tools, messages, max_steps, max_tool_calls):
        raise KeyError("tool_calls")

    case = LoopCase("one answer", lambda: Script().final_answer("hi").client(), lambda: [TallyTool()], "t")
    verdict = check_loop(crashes, [case])
    assert "✗ one answer: same 3 messages" not in verdict
    assert "yours with KeyError" in verdict or "first difference at message 2" in verdict
    assert verdict.endswith("✗ not solved yet: 0 of 1 cases agree")


QUIZ_CELL = _exercises()[1]
QUIZ_SOLUTION = _notebook().cells[QUIZ_CELL].metadata["reactlab"]["solution"]


def _quiz_key() -> dict[int, str]:
    source = _notebook().cells[QUIZ_CELL + 1].source
    namespace: dict[str, Any] = {}
    exec(source.split("\n")[0], namespace)
    return namespace["QUIZ_KEY"]


def _answers(source: str) -> dict[int, object]:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    return namespace["quiz"]


def test_the_quiz_accepts_the_right_answers_however_they_are_typed():
    answers = _answers(QUIZ_SOLUTION)
    assert 3 <= len(answers) <= 5
    assert check_quiz(answers, _quiz_key()).endswith("✓ solved: all 5 answers are right")
    shouted = {q: f"  {str(a).upper()} " for q, a in answers.items()}
    assert check_quiz(shouted, _quiz_key()).endswith("✓ solved: all 5 answers are right")


def test_the_quiz_rejects_the_stub_and_each_wrong_answer():
    assert check_quiz(_answers(_notebook().cells[QUIZ_CELL].source), _quiz_key()).endswith("0 of 5 right")
    right = _answers(QUIZ_SOLUTION)
    for question in right:
        for wrong in ("a", "c", "3", "content", "id", ""):
            if normalise(wrong) == normalise(right[question]):
                continue
            verdict = check_quiz({**right, question: wrong}, _quiz_key())
            assert verdict.endswith("✗ not solved yet: 4 of 5 right"), (question, wrong)


def test_the_quiz_key_holds_digests_not_answers():
    key = _quiz_key()
    source = _notebook().cells[QUIZ_CELL + 1].source
    assert "tool_call_id" not in source
    assert key[5] == answer_digest(5, "tool_call_id") != answer_digest(4, "tool_call_id")


def test_the_notebook_is_a_lesson_with_predictions_first():
    notebook = _notebook()
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    predictions = [s for s in markdown if "**Predict first.**" in s and "<details><summary>Answer</summary>" in s]
    assert len(predictions) >= 2
    text = "\n".join(markdown)
    assert "scripted" in text and "recorded from DeepSeek" in text  # says what the shop run is not
    assert "as DeepSeek did" not in text
    assert "inspect.getsource(Agent._loop)" in "\n".join(c.source for c in notebook.cells)


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
    shown = next(c for c in notebook.cells if "inspect.getsource(Agent._loop)" in c.source)
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
