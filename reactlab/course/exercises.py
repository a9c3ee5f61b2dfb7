"""The checks of the course's exercises: each runs the student's answer against the real thing and
returns one verdict line in the reader's language.

    from reactlab.course.exercises import check_mode
    print(check_mode(MODE, checks))      # "✓ solved: …" or "✗ not solved yet: …"

A check takes the student's answer, the objects of the notebook it needs, and ``lang`` (when None,
the language ``set_language`` set: the notebook's). Its verdict starts with a mark: "✓" solved,
"✗" not solved yet (or not quite), "?" cannot be checked on this machine (the check needs a sandbox
it lacks). The words come from ``strings(lang).exercises``, which the quizzes (``quiz.py``) and the
loop check of notebook 04 (``loop_check.py``) share.

What a student wrote is hostile input: a function that raises, returns a string where a bool is
due, or takes an object whose ``__eq__`` raises gets a verdict that says so (with the line of their
code it came from), never a traceback from the check and never a "solved". Each check makes the
copies and tools it needs itself, so it works the same after *Run All* has cleaned up the notebook's
own. No check holds a line of its exercise's solution: notebook tests look for one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..model.cassette import Cassette
from ..model.scripted import Script, call
from ..protocols import Tool
from ..run.agent import Agent
from ..run.record import RunRecord
from ..samples import NEW_LOADING, OLD_LOADING, SHOP
from ..strings import ExerciseTexts, resolve_language, stop_phrase, strings
from ..tools import default_tools
from ..workspace import Workspace
from .student import shown, your_lines
from .tally import TallyTool

if TYPE_CHECKING:
    from ..doctor import Check

__all__ = [
    "FILE_UNCHANGED_CASES",
    "StudentError",
    "check_file_unchanged_after",
    "check_hand_made",
    "check_history_length",
    "check_limit_script",
    "check_line_count_tool",
    "check_mode",
    "check_verified",
    "setup_line",
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

class StudentError(Exception):
    """The student's function raised: ``verdict`` says which error and on which line of their code."""

    def __init__(self, verdict: str) -> None:
        super().__init__(verdict)
        self.verdict = verdict


def _texts(lang: str | None) -> ExerciseTexts:
    return strings(lang).exercises


def _record(agent: Agent) -> RunRecord:
    assert agent.record is not None, "the agent has run"
    return agent.record


def _short(value: object, width: int = 160) -> str:
    text = " ".join(shown(value, 10 * width).split())  # an object whose __str__ raises shows by its type
    return text if len(text) <= width else text[: width - 1] + "…"


def _kind(value: object) -> str:
    """How a wrong value is named in a verdict: its type, and a short repr."""
    try:
        shown = repr(value)
    except Exception:  # a hostile __repr__
        shown = "?"
    return f"{type(value).__name__} {_short(shown, 40)}"


@contextmanager
def _students(name: str, texts: ExerciseTexts) -> Iterator[None]:
    """Run the student's code: an error becomes a StudentError with the verdict to print."""
    try:
        yield
    except StudentError:
        raise
    except Exception as error:  # whatever their code raises is a verdict, not a traceback
        frames = [
            texts.frame_line.format(line=line, name=function) + (f": {code}" if code else "")
            for line, function, code in your_lines(error)
        ]
        at = texts.crashed_at.format(where=_short(frames[-1], 80)) if frames else ""
        detail = texts.crashed.format(name=name, kind=type(error).__name__, error=_short(error), at=at)
        raise StudentError(texts.not_solved.format(detail=detail)) from None


def setup_line(checks: Sequence[Check], lang: str | None = None) -> str:
    """Notebook 00: the one line a student sends the teacher before the day, the same in every
    language after its lead: ``SETUP mode=replay sandbox=✗ widgets=✓ python=3.11.7 live=~``."""
    marks = {"ok": "✓", "limited": "~", "failed": "✗"}
    found = {str(check.name).lower(): check for check in checks}

    def mark(name: str) -> str:
        check = found.get(name)
        return marks.get(check.status, "?") if check is not None else "?"

    python = found.get("python")
    version = python.detail.split()[0] if python is not None and python.detail.split() else "?"
    mode = "sandbox" if mark("sandbox") == "✓" else "replay"
    states = f"sandbox={mark('sandbox')} widgets={mark('widgets')} python={version} live={mark('live model')}"
    line = f"SETUP mode={mode} {states}"
    return f"{_texts(lang).setup_send}\n{line}"


def check_mode(mode: object, checks: Sequence[Check], lang: str | None = None) -> str:
    """Notebook 00: ``mode`` must be "sandbox" where the doctor's sandbox check is ok, else "replay"
    (any case, spaces around it allowed)."""
    texts = _texts(lang)
    sandbox = next(check for check in checks if check.name == "sandbox")
    actual = "sandbox" if sandbox.status == "ok" else "replay"
    if mode is None:
        return texts.not_solved.format(detail=texts.mode_unset)
    if not isinstance(mode, str):
        return texts.not_solved.format(detail=texts.mode_not_text.format(kind=_kind(mode)))
    if mode.strip().lower() != actual:
        return texts.not_quite.format(detail=texts.mode_wrong)
    return texts.solved.format(detail=texts.mode_solved.format(mode=actual))


def check_line_count_tool(tool_class: Callable[[Workspace], Tool], lang: str | None = None) -> str:
    """Notebook 01: the tool made by ``tool_class(workspace)`` takes only a path among SHOP.files and,
    called by an agent, counts the lines of shop/delivery.py (in a fresh copy of the shop)."""
    language = resolve_language(lang)
    texts = _texts(language)
    try:
        return _line_count_tool(tool_class, language, texts)
    except StudentError as error:
        return error.verdict


def _line_count_tool(tool_class: Callable[[Workspace], Tool], lang: str, texts: ExerciseTexts) -> str:
    with Workspace(SHOP.path, SHOP.read_only) as checked:
        with _students("LineCountTool", texts):
            tool = tool_class(checked)
            schema = tool.definition()["function"]["parameters"]
        schema = schema if isinstance(schema, dict) else {}
        properties = schema.get("properties")
        rule = properties.get("path") if isinstance(properties, dict) else None
        enum = rule.get("enum") if isinstance(rule, dict) else None
        if schema.get("required") != ["path"] or schema.get("additionalProperties") is not False:
            return texts.not_solved.format(detail=texts.line_count_schema)
        if not isinstance(enum, (list, tuple)) or list(enum) != list(SHOP.files):  # a list, or SHOP.files itself
            return texts.not_solved.format(detail=texts.line_count_enum)
        script = Script().tool_call("count_lines", path="shop/delivery.py").final_answer("counted")
        with _students("LineCountTool", texts):
            probe = Agent(script.client(), [tool], lang=resolve_language(lang))
            probe.run("count the lines")  # the agent turns any error of the tool's own into a result
        result = _record(probe).tool_executions[0].result
        expected = len((checked.root / "shop/delivery.py").read_text(encoding="utf-8").splitlines())
    if not result.get("ok", True) and "error" in result:
        return texts.not_solved.format(detail=texts.line_count_failed.format(error=_short(result["error"], 200)))
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
    try:
        for name, run in [(texts.history_shop_run, shop_record), (texts.history_scripted_run, _record(probe))]:
            calls = [len(c.message.get("tool_calls") or []) for c in run.model_calls]
            for model_call in run.model_calls:
                number = model_call.number
                with _students("history_length()", texts):
                    said = history_length(list(calls), number)
                    right = (
                        isinstance(said, (int, float))
                        and not isinstance(said, bool)
                        and said == len(model_call.messages)
                    )
                if not right:
                    sent = len(model_call.messages)
                    wrong = texts.history_wrong.format(
                        run=name, calls=calls, number=number, said=_short(said, 40), sent=sent
                    )
                    return texts.not_solved.format(detail=wrong)
    except StudentError as error:
        return error.verdict
    return texts.solved.format(detail=texts.history_solved)


def check_limit_script(limit_script: object, tools: Sequence[Tool] | None = None, lang: str | None = None) -> str:
    """Notebook 03: the shop task run on ``limit_script`` with max_tool_calls=3 stops with the
    tool-call limit after a single model call. ``tools`` default to the three tools on a fresh copy."""
    language = resolve_language(lang)
    texts = _texts(language)
    if not isinstance(limit_script, Script):
        return texts.not_solved.format(detail=texts.limit_not_script.format(kind=_kind(limit_script)))
    with Workspace(SHOP.path, SHOP.read_only) as copy:
        probe = Agent(
            limit_script.client(),
            tools or default_tools(copy, SHOP.files, lang=language),
            lang=language,
            max_tool_calls=3,
        )
        try:
            probe.run(SHOP.task(language))
        except Exception:  # every ending is data here: the record says which it was
            record = _record(probe)
        else:
            return texts.not_solved.format(detail=texts.limit_answered)
    reason = record.stop_reason
    if reason == "cassette_exhausted" and not limit_script.answers:
        return texts.not_solved.format(detail=texts.limit_empty)
    if reason == "cassette_exhausted":
        count = len(limit_script.answers)
        return texts.not_solved.format(detail=texts.limit_ran_out.format(number=count + 1, count=count))
    if reason != "tool_call_limit":
        words = stop_phrase(reason, language)
        return texts.not_solved.format(detail=texts.limit_other_stop.format(reason=words))
    if len(record.model_calls) != 1:
        return texts.almost.format(detail=texts.limit_calls.format(count=len(record.model_calls)))
    return texts.solved.format(detail=texts.limit_solved)


def _shop_copy(*, fixed: bool, change: str | None = None) -> Workspace:
    """A fresh copy of the shop, with the article's fix applied when ``fixed``, and ``change`` (a
    protected path) changed behind the agent's back, as a run that tampered with it would leave it."""
    copy = Workspace(SHOP.path, SHOP.read_only, prefix="reactlab-check-")
    if fixed:
        code = copy.root / "shop/delivery.py"
        code.write_text(code.read_text(encoding="utf-8").replace(OLD_LOADING, NEW_LOADING), encoding="utf-8")
    if change is not None:
        target = copy.root / change
        target.write_text(target.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    return copy


def check_verified(verified: Callable[[Workspace], object], no_sandbox: str | None, lang: str | None = None) -> str:
    """Notebook 05: ``verified(workspace)`` accepts a copy with the real fix and rejects four others:
    the untouched copy whose "model" only claimed a fix, and fixed copies in which shop/settings.json
    or a test was changed (their tests still pass). It needs the sandbox: ``no_sandbox`` (why there
    is none) says "?". The copies are made here, so the check does not depend on the notebook's."""
    texts = _texts(lang)
    if no_sandbox:
        return texts.cannot_check.format(detail=texts.verified_no_sandbox)
    copies = [
        (_shop_copy(fixed=False), False, texts.verified_liar),
        (_shop_copy(fixed=True, change="shop/settings.json"), False, texts.verified_settings),
        (_shop_copy(fixed=True, change="tests/test_delivery.py"), False, texts.verified_tests),
        (_shop_copy(fixed=True), True, texts.verified_fix),
    ]
    try:
        for copy, passes, wrong in copies:
            with _students("verified()", texts):
                said = verified(copy)
            if not isinstance(said, bool):
                return texts.not_solved.format(detail=texts.verified_not_bool.format(kind=_kind(said)))
            if said is not passes:
                return texts.not_solved.format(detail=wrong)
    except StudentError as error:
        return error.verdict
    finally:
        for copy, _, _ in copies:
            copy.cleanup()
    return texts.solved.format(detail=texts.verified_solved)


def check_file_unchanged_after(
    file_unchanged_after: Callable[[str, str], object], no_sandbox: str | None, lang: str | None = None
) -> str:
    """Notebook 06: ``file_unchanged_after(command, path)`` is True exactly when the command left the
    file as it was, for each of FILE_UNCHANGED_CASES. It needs the sandbox, as ``check_verified``."""
    texts = _texts(lang)
    if no_sandbox:
        return texts.cannot_check.format(detail=texts.unchanged_no_sandbox)
    try:
        for command, path, unchanged in FILE_UNCHANGED_CASES:
            with _students("file_unchanged_after()", texts):
                said = file_unchanged_after(command, path)
            if said is not unchanged:
                state = texts.unchanged_state_same if unchanged else texts.unchanged_state_changed
                wrong = texts.unchanged_wrong.format(command=command, path=path, state=state, said=_short(said, 40))
                return texts.not_solved.format(detail=wrong)
    except StudentError as error:
        return error.verdict
    return texts.solved.format(detail=texts.unchanged_solved)


def check_hand_made(hand_made: object, lang: str | None = None) -> str:
    """Notebook 07: the cassette written by hand as a dict replays to the final answer "hello"."""
    texts = _texts(lang)
    if not isinstance(hand_made, dict):
        return texts.not_solved.format(detail=texts.hand_made_not_dict.format(kind=_kind(hand_made)))
    if hand_made.get("interactions") == []:
        return texts.not_solved.format(detail=texts.hand_made_no_interaction.format())
    try:
        answer: Any = Agent(Cassette.from_dict(hand_made).client(), []).run("say hello")
    except Exception as error:  # whatever the dict gets wrong, the student reads it whole, as a verdict
        failed = texts.hand_made_failed.format(error=f"{type(error).__name__}: {_short(error, 600)}")
        return texts.not_solved.format(detail=failed)
    if answer != "hello":
        return texts.not_quite.format(detail=texts.hand_made_answer.format(answer=answer))
    return texts.solved.format(detail=texts.hand_made_solved)
