"""The checks of the course's exercises: each runs the student's answer against the real thing and
returns one verdict line in the reader's language.

    from reactlab.course.exercises import check_mode
    print(check_mode(MODE, checks))      # "✓ solved: …" or "✗ not solved yet: …"

A check takes the student's answer, the objects of the notebook it needs, and ``lang`` (when None,
the language ``set_language`` set: the notebook's). Its verdict
starts with a mark: "✓" solved, "✗" not solved yet (or not quite), "?" cannot be checked on this
machine (the check needs a sandbox it lacks). The words come from ``strings(lang).exercises``, which
the quizzes (``quiz.py``) and the loop check of notebook 04 (``loop_check.py``) share. No check holds
a line of its exercise's solution: notebook tests look for one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..model.cassette import Cassette
from ..model.scripted import Script, call
from ..protocols import Tool
from ..run.agent import Agent
from ..run.record import RunRecord
from ..samples import SHOP
from ..strings import ExerciseTexts, resolve_language, strings
from ..workspace import Workspace
from .loop_check import TallyTool

if TYPE_CHECKING:
    from ..doctor import Check

__all__ = [
    "FILE_UNCHANGED_CASES",
    "check_file_unchanged_after",
    "check_hand_made",
    "check_history_length",
    "check_limit_script",
    "check_line_count_tool",
    "check_mode",
    "check_verified",
]

FILE_UNCHANGED_CASES: tuple[tuple[str, str, bool], ...] = (
    # (command, path, is the file unchanged afterwards?), each run in a fresh copy of the shop
    ("echo '# a note' >> shop/delivery.py", "shop/delivery.py", False),
    ("echo 'assert True' >> tests/test_delivery.py; true", "tests/test_delivery.py", True),
    ("rm -rf tests || echo 'could not remove everything'", "tests/test_delivery.py", True),
    ("sed -i 's/300/0/' shop/delivery.py && false", "shop/delivery.py", False),
    ("grep -c delivery_price shop/delivery.py", "shop/delivery.py", True),
)
"""The commands notebook 06's check runs through ``file_unchanged_after``."""


def _texts(lang: str | None) -> ExerciseTexts:
    return strings(lang).exercises


def _record(agent: Agent) -> RunRecord:
    assert agent.record is not None, "the agent has run"
    return agent.record


def check_mode(mode: object, checks: Sequence[Check], lang: str | None = None) -> str:
    """Notebook 00: ``mode`` must be "sandbox" where the doctor's sandbox check is ok, else "replay"."""
    texts = _texts(lang)
    sandbox = next(check for check in checks if check.name == "sandbox")
    actual = "sandbox" if sandbox.status == "ok" else "replay"
    if mode is None:
        return texts.not_solved.format(detail=texts.mode_unset)
    if mode != actual:
        return texts.not_quite.format(detail=texts.mode_wrong)
    return texts.solved.format(detail=texts.mode_solved.format(mode=actual))


def check_line_count_tool(tool_class: Callable[[Workspace], Tool], lang: str | None = None) -> str:
    """Notebook 01: the tool made by ``tool_class(workspace)`` takes only a path among SHOP.files and,
    called by an agent, counts the lines of shop/delivery.py (in a fresh copy of the shop)."""
    texts = _texts(lang)
    with Workspace(SHOP.path, SHOP.read_only) as checked:
        tool = tool_class(checked)
        schema = tool.definition()["function"]["parameters"]
        if schema.get("required") != ["path"] or schema.get("additionalProperties") is not False:
            return texts.not_solved.format(detail=texts.line_count_schema)
        enum = schema.get("properties", {}).get("path", {}).get("enum")
        if not isinstance(enum, (list, tuple)) or list(enum) != list(SHOP.files):  # a list, or SHOP.files itself
            return texts.not_solved.format(detail=texts.line_count_enum)
        script = Script().tool_call("count_lines", path="shop/delivery.py").final_answer("counted")
        probe = Agent(script.client(), [tool], lang=resolve_language(lang))
        probe.run("count the lines")
        result = _record(probe).tool_executions[0].result
        expected = len((checked.root / "shop/delivery.py").read_text(encoding="utf-8").splitlines())
    if result.get("lines") != expected:
        return texts.not_solved.format(detail=texts.line_count_wrong.format(result=result, expected=expected))
    return texts.solved.format(detail=texts.line_count_solved.format(expected=expected))


def check_history_length(
    history_length: Callable[[list[int], int], object], shop_record: RunRecord, lang: str | None = None
) -> str:
    """Notebook 02: ``history_length(calls, k)`` gives the number of messages of every request, in
    the shop run (``shop_record``) and in a scripted run that asks for 2, 1, then 4 tool calls."""
    texts = _texts(lang)
    other = Script().tool_calls(call("tally", text="a"), call("tally", text="b"))
    other = other.tool_call("tally", text="c").tool_calls(*(call("tally", text=t) for t in "defg")).final_answer("done")
    probe = Agent(other.client(), [TallyTool()])
    probe.run("number some texts")
    for name, run in [(texts.history_shop_run, shop_record), (texts.history_scripted_run, _record(probe))]:
        calls = [len(c.message.get("tool_calls") or []) for c in run.model_calls]
        for model_call in run.model_calls:
            number = model_call.number
            said, sent = history_length(list(calls), number), len(model_call.messages)
            if said != sent:
                wrong = texts.history_wrong.format(run=name, calls=calls, number=number, said=said, sent=sent)
                return texts.not_solved.format(detail=wrong)
    return texts.solved.format(detail=texts.history_solved)


def check_limit_script(limit_script: Script, tools: Sequence[Tool], lang: str | None = None) -> str:
    """Notebook 03: the shop task run on ``limit_script`` with ``tools`` and max_tool_calls=3 stops
    with the tool-call limit after a single model call."""
    language = resolve_language(lang)
    texts = _texts(language)
    probe = Agent(limit_script.client(), tools, lang=language, max_tool_calls=3)
    try:
        probe.run(SHOP.task(language))
    except Exception:  # every ending is data here: the record says which it was
        record = _record(probe)
    else:
        return texts.not_solved.format(detail=texts.limit_answered)
    if record.stop_reason != "tool_call_limit":
        return texts.not_solved.format(detail=texts.limit_other_stop.format(reason=record.stop_reason))
    if len(record.model_calls) != 1:
        return texts.almost.format(detail=texts.limit_calls.format(count=len(record.model_calls)))
    return texts.solved.format(detail=texts.limit_solved)


def check_verified(
    verified: Callable[[Workspace], object],
    fixed: Workspace,
    liar: Workspace,
    no_sandbox: str | None,
    lang: str | None = None,
) -> str:
    """Notebook 05: ``verified`` accepts the copy the agent really fixed and rejects the one whose
    "model" only claimed a fix. It needs the sandbox: ``no_sandbox`` (why there is none) says "?"."""
    texts = _texts(lang)
    if no_sandbox:
        return texts.cannot_check.format(detail=texts.verified_no_sandbox)
    if verified(liar):
        return texts.not_solved.format(detail=texts.verified_liar)
    if not verified(fixed):
        return texts.not_solved.format(detail=texts.verified_fix)
    return texts.solved.format(detail=texts.verified_solved)


def check_file_unchanged_after(
    file_unchanged_after: Callable[[str, str], object], no_sandbox: str | None, lang: str | None = None
) -> str:
    """Notebook 06: ``file_unchanged_after(command, path)`` is True exactly when the command left the
    file as it was, for each of FILE_UNCHANGED_CASES. It needs the sandbox, as ``check_verified``."""
    texts = _texts(lang)
    if no_sandbox:
        return texts.cannot_check.format(detail=texts.unchanged_no_sandbox)
    for command, path, unchanged in FILE_UNCHANGED_CASES:
        said = file_unchanged_after(command, path)
        if said is not unchanged:
            state = texts.unchanged_state_same if unchanged else texts.unchanged_state_changed
            wrong = texts.unchanged_wrong.format(command=command, path=path, state=state, said=said)
            return texts.not_solved.format(detail=wrong)
    return texts.solved.format(detail=texts.unchanged_solved)


def check_hand_made(hand_made: object, lang: str | None = None) -> str:
    """Notebook 07: the cassette written by hand as a dict replays to the final answer "hello"."""
    texts = _texts(lang)
    try:
        answer = Agent(Cassette.from_dict(hand_made).client(), []).run("say hello")
    except Exception as error:  # whatever the dict gets wrong, the student reads it as a verdict
        failed = texts.hand_made_failed.format(error=f"{type(error).__name__}: {str(error)[:120]}")
        return texts.not_solved.format(detail=failed)
    if answer != "hello":
        return texts.not_quite.format(detail=texts.hand_made_answer.format(answer=answer))
    return texts.solved.format(detail=texts.hand_made_solved)
