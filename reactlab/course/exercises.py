"""The checks of the course's exercises: each runs the student's answer against the real thing and
returns one verdict line in the reader's language.

    from reactlab.course.exercises import check_mode
    print(check_mode(MODE, checks))      # "✓ solved: …" or "✗ not solved yet: …"

A check takes the student's answer, the objects of the notebook it needs, and ``lang`` (when None,
the language ``set_language`` set: the notebook's). Its verdict starts with a mark: "✓" solved,
"✗" not solved yet (or not quite), "?" cannot be checked on this machine (the check needs a sandbox
it lacks). The words are English here, and Russian in the catalogue (``say``).

What a student wrote is hostile input: a function that raises, returns a string where a bool is
due, or takes an object whose ``__eq__`` raises gets a verdict that says so (with the line of their
code it came from), never a traceback from the check and never a "solved". Each check makes the
copies and tools it needs itself, so it works the same after *Run All* has cleaned up the notebook's
own. No check holds a line of its exercise's solution: notebook tests look for one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..core.agent import Agent
from ..core.language import Language, resolve_language, say, translatable
from ..core.protocols import Tool
from ..core.record import RunRecord
from ..core.tools import default_tools
from ..core.workspace import Workspace
from ..replay.cassette import Cassette
from ..replay.scripted import Script, call
from ..samples import NEW_LOADING, OLD_LOADING, SHOP
from ..summary import stop_phrase
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
_UNCHANGED_WRONG = {
    True: translatable("after {command!r}, {path} is unchanged, but your function said {said}"),
    False: translatable("after {command!r}, {path} is changed, but your function said {said}"),
}


def _solved(detail: str, lang: str | None) -> str:
    return say("✓ solved: {detail}", lang=lang, detail=detail)


def _not_yet(detail: str, lang: str | None) -> str:
    return say("✗ not solved yet: {detail}", lang=lang, detail=detail)


def _not_quite(detail: str, lang: str | None) -> str:
    return say("✗ not quite: {detail}", lang=lang, detail=detail)


def _cannot_check(detail: str, lang: str | None) -> str:
    return say("? cannot be checked on this machine: {detail}", lang=lang, detail=detail)


class StudentError(Exception):
    """The student's function raised: ``verdict`` says which error and on which line of their code."""

    def __init__(self, verdict: str) -> None:
        super().__init__(verdict)
        self.verdict = verdict


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
def _students(name: str, lang: str | None) -> Iterator[None]:
    """Run the student's code: an error becomes a StudentError with the verdict to print."""
    try:
        yield
    except StudentError:
        raise
    except Exception as error:  # whatever their code raises is a verdict, not a traceback
        frames = [
            say("line {line}, in {name}", lang=lang, line=line, name=function) + (f": {code}" if code else "")
            for line, function, code in your_lines(error)
        ]
        at = say(" (at {where})", lang=lang, where=_short(frames[-1], 80)) if frames else ""
        detail = say(
            "your {name} raised {kind}: {error}{at}",
            lang=lang,
            name=name,
            kind=type(error).__name__,
            error=_short(error),
            at=at,
        )
        raise StudentError(_not_yet(detail, lang)) from None


def setup_line(checks: Sequence[Check], lang: str | None = None) -> str:
    """Notebook 00: the one line a student sends the teacher before the day, the same in every
    language after its lead: ``SETUP mode=replay sandbox=✗ widgets=✓ python=3.11.7 live=~``."""
    marks = {"ok": "✓", "limited": "~", "failed": "✗"}
    found = {str(check.name).lower(): check for check in checks}

    def mark(name: str) -> str:
        check = found.get(name)
        return marks.get(check.status, "?") if check is not None else "?"

    python = found.get("python")
    number = re.search(r"\d+\.\d+\.\d+", python.detail) if python is not None else None  # in any language's sentence
    version = number[0] if number else "?"
    mode = "sandbox" if mark("sandbox") == "✓" else "replay"
    states = f"sandbox={mark('sandbox')} widgets={mark('widgets')} python={version} live={mark('live model')}"
    line = f"SETUP mode={mode} {states}"
    return f"{say('Send this one line to your teacher:', lang=lang)}\n{line}"


def check_mode(mode: object, checks: Sequence[Check], lang: str | None = None) -> str:
    """Notebook 00: ``mode`` must be "sandbox" where the doctor's sandbox check is ok, else "replay"
    (any case, spaces around it allowed)."""
    sandbox = next(check for check in checks if check.name == "sandbox")
    actual = "sandbox" if sandbox.status == "ok" else "replay"
    if mode is None:
        return _not_yet(say("set MODE", lang=lang), lang)
    if not isinstance(mode, str):
        return _not_yet(
            say('MODE should be the text "sandbox" or "replay", not {kind}', lang=lang, kind=_kind(mode)), lang
        )
    if mode.strip().lower() != actual:
        return _not_quite(say("read the sandbox line of the report again", lang=lang), lang)
    return _solved(say("this machine runs the course in {mode} mode", lang=lang, mode=actual), lang)


def check_line_count_tool(tool_class: Callable[[Workspace], Tool], lang: str | None = None) -> str:
    """Notebook 01: the tool made by ``tool_class(workspace)`` takes only a path among SHOP.files and,
    called by an agent, counts the lines of shop/delivery.py (in a fresh copy of the shop)."""
    language = resolve_language(lang)
    try:
        return _line_count_tool(tool_class, language)
    except StudentError as error:
        return error.verdict


def _line_count_tool(tool_class: Callable[[Workspace], Tool], lang: Language) -> str:
    with Workspace(SHOP.path, SHOP.read_only) as checked:
        with _students("LineCountTool", lang):
            tool = tool_class(checked)
            schema = tool.definition()["function"]["parameters"]
        schema = schema if isinstance(schema, dict) else {}
        properties = schema.get("properties")
        rule = properties.get("path") if isinstance(properties, dict) else None
        enum = rule.get("enum") if isinstance(rule, dict) else None
        if schema.get("required") != ["path"] or schema.get("additionalProperties") is not False:
            return _not_yet(say("the schema needs a required 'path' and additionalProperties: false", lang=lang), lang)
        if not isinstance(enum, (list, tuple)) or list(enum) != list(SHOP.files):  # a list, or SHOP.files itself
            return _not_yet(say("'path' should be an enum of SHOP.files", lang=lang), lang)
        script = Script().tool_call("count_lines", path="shop/delivery.py").final_answer("counted")
        with _students("LineCountTool", lang):
            probe = Agent(script.client(), [tool], lang=resolve_language(lang))
            probe.run("count the lines")  # the agent turns any error of the tool's own into a result
        result = _record(probe).tool_executions[0].result
        expected = len((checked.root / "shop/delivery.py").read_text(encoding="utf-8").splitlines())
    if not result.get("ok", True) and "error" in result:
        return _not_yet(
            say(
                "the agent called count_lines and got an error: {error}", lang=lang, error=_short(result["error"], 200)
            ),
            lang,
        )
    if result.get("lines") != expected:
        return _not_yet(
            say("the agent got {result}, expected lines={expected}", lang=lang, result=result, expected=expected), lang
        )
    return _solved(say("the agent called count_lines and got {expected} lines", lang=lang, expected=expected), lang)


def check_history_length(
    history_length: Callable[[list[int], int], object], shop_record: RunRecord, lang: str | None = None
) -> str:
    """Notebook 02: ``history_length(calls, k)`` gives the number of messages of every request, in
    the shop run (``shop_record``) and in a scripted run that asks for 2, 1, then 4 tool calls."""
    other = Script().tool_calls(call("tally", text="a"), call("tally", text="b"))
    other = other.tool_call("tally", text="c").tool_calls(*(call("tally", text=t) for t in "defg")).final_answer("done")
    probe = Agent(other.client(), [TallyTool()])
    probe.run("number some texts")
    try:
        for name, run in [
            (say("the shop run", lang=lang), shop_record),
            (say("the scripted run", lang=lang), _record(probe)),
        ]:
            calls = [len(c.message.get("tool_calls") or []) for c in run.model_calls]
            for model_call in run.model_calls:
                number = model_call.number
                with _students("history_length()", lang):
                    said = history_length(list(calls), number)
                    right = (
                        isinstance(said, (int, float))
                        and not isinstance(said, bool)
                        and said == len(model_call.messages)
                    )
                if not right:
                    sent = len(model_call.messages)
                    wrong = say(
                        "{run} {calls}, request {number}: you say {said}, it sent {sent}",
                        lang=lang,
                        run=name,
                        calls=calls,
                        number=number,
                        said=_short(said, 40),
                        sent=sent,
                    )
                    return _not_yet(wrong, lang)
    except StudentError as error:
        return error.verdict
    return _solved(say("your formula gives the length of every request of both runs", lang=lang), lang)


def check_limit_script(limit_script: object, tools: Sequence[Tool] | None = None, lang: str | None = None) -> str:
    """Notebook 03: the shop task run on ``limit_script`` with max_tool_calls=3 stops with the
    tool-call limit after a single model call. ``tools`` default to the three tools on a fresh copy."""
    language = resolve_language(lang)
    if not isinstance(limit_script, Script):
        return _not_yet(
            say(
                "limit_script should be a Script (Script().tool_calls(...)), not {kind}",
                lang=language,
                kind=_kind(limit_script),
            ),
            language,
        )
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
            return _not_yet(say("the run ended with a final answer", lang=language), language)
    reason = record.stop_reason
    if reason == "cassette_exhausted" and not limit_script.answers:
        return _not_yet(
            say("your script has no answers yet: add them with .tool_call(...) or .tool_calls(...)", lang=language),
            language,
        )
    if reason == "cassette_exhausted":
        count = len(limit_script.answers)
        return _not_yet(
            say(
                "the agent asked for model call {number}, but your script has only {count} answer(s): "
                "the limit must stop the run before that",
                lang=language,
                number=count + 1,
                count=count,
            ),
            language,
        )
    if reason != "tool_call_limit":
        words = stop_phrase(reason, language)
        return _not_yet(
            say("the run ended with {reason}, not with the tool-call limit", lang=language, reason=words), language
        )
    if len(record.model_calls) != 1:
        return say(
            "✗ almost: {detail}",
            lang=language,
            detail=say("{count} model calls; one is enough", lang=language, count=len(record.model_calls)),
        )
    return _solved(say("one model call, refused before any tool ran", lang=language), language)


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
    if no_sandbox:
        return _cannot_check(say("verified() needs the sandbox for its test run", lang=lang), lang)
    copies = [
        (
            _shop_copy(fixed=False),
            False,
            say("the liar's copy still fails its tests, but verified() said True", lang=lang),
        ),
        (
            _shop_copy(fixed=True, change="shop/settings.json"),
            False,
            say("in this copy the tests pass but shop/settings.json was changed, and verified() said True", lang=lang),
        ),
        (
            _shop_copy(fixed=True, change="tests/test_delivery.py"),
            False,
            say("in this copy the tests pass but tests/ was changed, and verified() said True", lang=lang),
        ),
        (_shop_copy(fixed=True), True, say("the real fix passes, but verified() said False", lang=lang)),
    ]
    try:
        for copy, passes, wrong in copies:
            with _students("verified()", lang):
                said = verified(copy)
            if not isinstance(said, bool):
                return _not_yet(
                    say("verified() should return True or False, not {kind}", lang=lang, kind=_kind(said)), lang
                )
            if said is not passes:
                return _not_yet(wrong, lang)
    except StudentError as error:
        return error.verdict
    finally:
        for copy, _, _ in copies:
            copy.cleanup()
    return _solved(
        say("verified() accepts the real fix and rejects the claim and both changed copies", lang=lang), lang
    )


def check_file_unchanged_after(
    file_unchanged_after: Callable[[str, str], object], no_sandbox: str | None, lang: str | None = None
) -> str:
    """Notebook 06: ``file_unchanged_after(command, path)`` is True exactly when the command left the
    file as it was, for each of FILE_UNCHANGED_CASES. It needs the sandbox, as ``check_verified``."""
    if no_sandbox:
        return _cannot_check(say("it has no sandbox to run the commands in", lang=lang), lang)
    try:
        for command, path, unchanged in FILE_UNCHANGED_CASES:
            with _students("file_unchanged_after()", lang):
                said = file_unchanged_after(command, path)
            if said is not unchanged:
                wrong = say(_UNCHANGED_WRONG[unchanged], lang=lang, command=command, path=path, said=_short(said, 40))
                return _not_yet(wrong, lang)
    except StudentError as error:
        return error.verdict
    return _solved(say("you judged every command by its effect on the file, not by its exit code", lang=lang), lang)


def check_hand_made(hand_made: object, lang: str | None = None) -> str:
    """Notebook 07: the cassette written by hand as a dict replays to the final answer "hello" (in
    Russian "привет")."""
    if not isinstance(hand_made, dict):
        return _not_yet(
            say("hand_made should be a dict, like the one in the cell, not {kind}", lang=lang, kind=_kind(hand_made)),
            lang,
        )
    if hand_made.get("interactions") == []:
        return _not_yet(
            say(
                'the "interactions" list is empty: add one {{"response": {{...}}}} whose message is the answer',
                lang=lang,
            ),
            lang,
        )
    try:
        answer: Any = Agent(Cassette.from_dict(hand_made, origin="hand_made").client(), []).run("say hello")
    except Exception as error:  # whatever the dict gets wrong, the student reads it whole, as a verdict
        failed = say(
            "the cassette does not replay: {error}", lang=lang, error=f"{type(error).__name__}: {_short(error, 600)}"
        )
        return _not_yet(failed, lang)
    if answer != say("hello", lang=lang):
        return _not_quite(say("the answer was {answer!r}", lang=lang, answer=answer), lang)
    return _solved(say("your cassette replays to {answer!r}", lang=lang, answer=answer), lang)
