"""The auto-check of notebook 04: run your loop and reactlab's Agent on the same inputs, compare, explain.

    from reactlab.course.loop_check import check_loop
    print(check_loop(my_loop))             # in the language set_language set; lang="ru" says it here

Each case builds a fresh client and fresh tools for each loop, so both see exactly the same answers
and the same results. Both loops are watched: every request they send (the messages and the tool
definitions), every call of a tool (were the arguments parsed?), the history they leave, how they
end and what they return. Where the two differ, ``diagnose`` names the mistake in a beginner's words
(in ``lang``), shows the two messages that differ as indented JSON, numbered from 1
like the counts, and, when your loop raised, the lines of your code the error passed through.

Your loop's code is hostile input here: whatever it raises, returns, appends or sends, the check
says so and goes on; a case that runs longer than ``TIME_LIMIT`` seconds is stopped (where the
kernel allows it: in the main thread). Nothing here needs a sandbox: the shop run's tools replay the
results stored in its (scripted) cassette, and the other cases use a small counting tool.
"""

from __future__ import annotations

import ast
import inspect
import json
import signal
import sysconfig
import textwrap
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import errors
from ..core.agent import Agent
from ..core.errors import CassetteError
from ..core.language import resolve_language, say, translatable
from ..core.prompts import SYSTEM_EN, system_prompt
from ..core.protocols import ChatClient, Tool
from ..core.tools.bash import REPLAYED_NOTE
from ..replay.cassette import Cassette
from ..replay.scripted import Script, call
from ..samples import SHOP

__all__ = [
    "LoopCase",
    "LoopFunction",
    "LoopRun",
    "ReplayedTool",
    "Sent",
    "TIME_LIMIT",
    "TallyTool",
    "check_loop",
    "compare_runs",
    "loop_cases",
    "run_agent",
    "run_loop",
    "show_beside_agent",
]

Message = dict[str, Any]
LoopFunction = Callable[[ChatClient, list[Tool], list[Message], int, int], str]
"""``loop(client, tools, messages, max_steps, max_tool_calls) -> final answer``; appends to ``messages``."""

TIME_LIMIT = 10.0
"""Seconds a case may take: every case here ends in well under one."""
EXPECTED_ENDINGS = ("EmptyAnswer", "InvalidAssistantMessage", "StepLimitExceeded", "ToolCallLimitExceeded")
_OURS = tuple(name for name in errors.__all__ if name[0].isupper())  # the client's and the tools' errors too
SHOWN_LINES = 14  # lines of one message shown in a verdict
SHOWN_STRING = 90  # characters of one string inside a shown message
_PACKAGE = str(Path(__file__).resolve().parent.parent)
_STDLIB = sysconfig.get_paths()["stdlib"]


@dataclass(frozen=True)
class LoopCase:
    """One input both loops get: a model (client), tools, the first two messages and the limits."""

    name: str
    make_client: Callable[[], ChatClient]
    make_tools: Callable[[], list[Tool]]
    task: str
    system: str = SYSTEM_EN
    max_steps: int = 8
    max_tool_calls: int = 16


@dataclass(frozen=True)
class Sent:
    """One request a loop sent: the messages and the tool definitions, as JSON values."""

    messages: Any
    tools: Any


@dataclass(frozen=True)
class LoopRun:
    """How one loop went: the history it left, how it ended ("answer" or an exception's class name)
    and what it said; then what the watchers saw: the answer it returned, the requests it sent, the
    lines of its own code an error passed through, and the tools' notes ("not parsed": a call's
    arguments reached a tool as JSON text)."""

    messages: list[Any]
    ending: str
    detail: str
    answer: Any = None
    requests: tuple[Sent, ...] = ()
    where: tuple[tuple[int, str, str], ...] = ()
    notes: frozenset[str] = frozenset()


class ReplayedTool:
    """A tool that returns the result a cassette stored for the same name and arguments. Nothing runs."""

    def __init__(self, definition: dict[str, Any], results: dict[str, list[dict[str, Any]]]) -> None:
        self._definition = definition
        self._results = {key: list(values) for key, values in results.items()}

    @property
    def name(self) -> str:
        name: str = self._definition["function"]["name"]
        return name

    def definition(self) -> dict[str, Any]:
        return deepcopy(self._definition)

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        waiting = self._results.get(_key(arguments))
        if not waiting:
            return {"ok": False, "error": "The cassette holds no result for these arguments.", "replayed": True}
        return {**waiting.pop(0), "replayed": True, "note": REPLAYED_NOTE}

    @classmethod
    def from_cassette(cls, cassette: Cassette) -> list[Tool]:
        """One replayed tool per tool the cassette offered, fed from the results in its last request."""
        try:
            return cls._from_request(cassette.interactions[-1]["request"])
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            raise CassetteError(
                f"Cannot replay tool results from this cassette: its last request is not a complete history "
                f"({type(exc).__name__}: {str(exc)[:120]})."
            ) from None

    @classmethod
    def _from_request(cls, request: dict[str, Any]) -> list[Tool]:
        arguments_of: dict[str, tuple[str, str]] = {}
        results: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for message in request["messages"]:
            for tool_call in message.get("tool_calls") or []:
                function = tool_call["function"]
                arguments_of[tool_call["id"]] = (function["name"], _key(json.loads(function["arguments"])))
            if message.get("role") == "tool":
                name, key = arguments_of[message["tool_call_id"]]
                result = json.loads(message["content"])
                if not isinstance(result, dict):
                    raise TypeError(f"the result for {message['tool_call_id'][:40]!r} is not an object")
                results.setdefault(name, {}).setdefault(key, []).append(result)
        return [cls(definition, results.get(definition["function"]["name"], {})) for definition in request["tools"]]


class TallyTool:
    """A tiny tool with a memory: it numbers the texts it is given, so the order of execution shows."""

    name = "tally"

    def __init__(self, lang: str | None = None) -> None:
        self.count = 0
        self.description = say("Number a text.", lang=lang)  # current_language() when None

    def definition(self) -> dict[str, Any]:
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        return {"ok": True, "number": self.count, "text": str(arguments.get("text", ""))}


def _key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def _tallies(*texts: str) -> Script:
    return Script().tool_calls(*(call("tally", text=text) for text in texts))


def _tally_with_text() -> Message:
    """An answer with text and a tool call, as models often send: the text is not a final answer."""
    arguments = json.dumps({"text": "a"})
    calls = [{"id": "call_with_text", "type": "function", "function": {"name": "tally", "arguments": arguments}}]
    return {"role": "assistant", "content": "First I number a.", "tool_calls": calls}


def _duplicate_id_answer() -> Message:
    """Two different calls that share one id inside a single answer."""
    calls = [
        {"id": "call_twice", "type": "function", "function": {"name": "tally", "arguments": json.dumps({"text": t})}}
        for t in ("first", "second")
    ]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def loop_cases(lang: str | None = None) -> list[LoopCase]:
    """The six inputs of the check: the shop run, an empty answer, the step limit, the tool-call limit
    reached exactly and then passed, an answer that would pass it halfway, a repeated id.

    ``lang`` (``current_language()`` when None) picks the shop run (the English or the Russian
    cassette), the task and the case names."""
    language = resolve_language(lang)
    cassette = SHOP.cassette(language)
    first = cassette.interactions[0]["request"]["messages"]
    task = say("Use the tally tool, then answer.", lang=language)
    system = system_prompt(language)
    return [
        LoopCase(
            say("the shop run (scripted cassette, tool results replayed)", lang=language),
            cassette.client,
            lambda: ReplayedTool.from_cassette(cassette),
            task=first[1]["content"],
            system=first[0]["content"],
        ),
        LoopCase(
            say("an empty answer", lang=language),
            lambda: Script().message(_tally_with_text(), "tool_calls").empty_answer().client(),
            lambda: [TallyTool(language)],
            task,
            system=system,
        ),
        LoopCase(
            say("the step limit (max_steps={max_steps})", lang=language, max_steps=3),
            lambda: (
                _tallies("a").tool_call("tally", text="b").tool_call("tally", text="c").final_answer("late").client()
            ),
            lambda: [TallyTool(language)],
            task,
            system=system,
            max_steps=3,
        ),
        LoopCase(
            say(
                "the tool-call limit (max_tool_calls={max_tool_calls}; answers ask for 2, 2, then 1)",
                lang=language,
                max_tool_calls=4,
            ),
            lambda: (
                _tallies("a", "b")
                .tool_calls(call("tally", text="c"), call("tally", text="d"))
                .tool_call("tally", text="e")
                .final_answer("too late")
                .client()
            ),
            lambda: [TallyTool(language)],
            task,
            system=system,
            max_tool_calls=4,
        ),
        LoopCase(
            say(
                "an answer that would pass the limit (max_tool_calls={max_tool_calls}; answers ask for 3, then 2)",
                lang=language,
                max_tool_calls=4,
            ),
            lambda: _tallies("a", "b", "c").tool_calls(call("tally", text="d"), call("tally", text="e")).client(),
            lambda: [TallyTool(language)],
            task,
            system=system,
            max_tool_calls=4,
        ),
        LoopCase(
            say("an id used twice in one answer", lang=language),
            lambda: _tallies("a").message(_duplicate_id_answer(), "tool_calls").final_answer("never").client(),
            lambda: [TallyTool(language)],
            task,
            system=system,
        ),
    ]


# -- watching a loop ------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A JSON copy of what a loop holds or sends: what cannot be JSON shows as its type and repr."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, default=_stand_in))
    except (TypeError, ValueError, RecursionError):
        return _stand_in(value)


def _stand_in(value: Any) -> str:
    return f"<{type(value).__name__}: {_safe_str(value, repr, 60)}>"


def _safe_str(value: Any, how: Callable[[Any], str] = str, width: int = 300) -> str:
    """``how(value)`` cut to ``width``; an object whose __str__ or __repr__ raises shows by its type."""
    try:
        text = how(value)
    except Exception:  # a student's object: never let it crash the verdict
        return f"<{type(value).__name__}>"
    text = text if isinstance(text, str) else f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 1] + "…"


class _Recorder:
    """The case's client, with every request written down before it is sent on."""

    def __init__(self, client: ChatClient) -> None:
        self._client = client
        self.sent: list[Sent] = []

    def send(self, messages: Any, tools: Any) -> Any:
        self.sent.append(Sent(_plain(messages), _plain(tools)))
        return self._client.send(messages, tools)


class _Watched:
    """A case's tool, noting what reached it: a call's arguments still as JSON text ("not parsed")."""

    def __init__(self, tool: Tool, notes: set[str]) -> None:
        self._tool = tool
        self._notes = notes
        self.name = tool.name

    def definition(self) -> dict[str, Any]:
        return self._tool.definition()

    def execute(self, arguments: Any) -> dict[str, Any]:
        if isinstance(arguments, (str, bytes)):
            self._notes.add("not parsed")
        elif not isinstance(arguments, dict):
            self._notes.add("not a dict")
        return self._tool.execute(arguments)


_Watched.__name__ = _Watched.__qualname__ = "Tool"  # what a student reads in "Object of type Tool is not JSON"


class _TooLong(BaseException):
    """Raised into a loop that runs past TIME_LIMIT (a BaseException: ``except Exception`` lets it by)."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Stop the block after ``seconds``, where a signal can do it (the main thread of a Unix kernel)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise _TooLong

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _your_lines(error: BaseException) -> tuple[tuple[int, str, str], ...]:
    """The frames of the traceback that are the student's code (not reactlab's, not Python's own), as
    (line number, function, code), the last three at most."""
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        filename = frame.filename or ""
        if filename.startswith((_PACKAGE, _STDLIB)) or "site-packages" in filename:
            continue
        frames.append((frame.lineno or 0, frame.name, (frame.line or "").strip()))
    return tuple(frames[-3:])


def run_agent(case: LoopCase) -> LoopRun:
    """The reference: reactlab's Agent on this case."""
    client = _Recorder(case.make_client())
    agent = Agent(
        client, case.make_tools(), system=case.system, max_steps=case.max_steps, max_tool_calls=case.max_tool_calls
    )
    try:
        answer = agent.run(case.task)
    except Exception as error:  # every ending is data here, to compare with the other loop's
        assert agent.record is not None
        return LoopRun(_plain(agent.record.messages), type(error).__name__, str(error), None, tuple(client.sent))
    assert agent.record is not None
    return LoopRun(_plain(agent.record.messages), "answer", answer, answer, tuple(client.sent))


def run_loop(loop: LoopFunction, case: LoopCase) -> LoopRun:
    """Your loop on this case. ``NotImplementedError`` passes through: the stub is not a loop yet."""
    messages: list[Any] = [{"role": "system", "content": case.system}, {"role": "user", "content": case.task}]
    client = _Recorder(case.make_client())
    notes: set[str] = set()
    tools: list[Tool] = [_Watched(tool, notes) for tool in case.make_tools()]
    ending, detail, answer = "answer", "", None
    where: tuple[tuple[int, str, str], ...] = ()
    try:
        with _time_limit(TIME_LIMIT):
            answer = loop(client, tools, messages, case.max_steps, case.max_tool_calls)
        detail = _safe_str(answer, repr)
    except NotImplementedError:
        raise
    except _TooLong:
        ending = "too long"
    except (Exception, SystemExit) as error:  # the student's loop may raise anything: it becomes the verdict
        ending, detail, where = type(error).__name__, _safe_str(error), _your_lines(error)
    return LoopRun(_plain(messages), ending, detail, answer, tuple(client.sent), where, frozenset(notes))


# -- comparing two runs ---------------------------------------------------------------------------


def _comparable(message: Any) -> Any:
    """A tool message's content is JSON text: compare what it says, not how it was spaced. Content
    that is not a string is marked so, and never equals JSON text that says the same."""
    if isinstance(message, dict) and message.get("role") == "tool" and "content" in message:
        content = message["content"]
        if not isinstance(content, str):
            return {**message, "content": ("not text", content)}
        try:
            return {**message, "content": ("json", json.loads(content))}
        except (ValueError, RecursionError):
            return message
    return message


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(_comparable(a) == _comparable(b))
    except Exception:  # a hostile __eq__
        return False


def _short(value: Any) -> Any:
    """A message with every long string shortened, for showing."""
    if isinstance(value, str):
        return value if len(value) <= SHOWN_STRING else value[: SHOWN_STRING - 1] + "…"
    if isinstance(value, dict):
        return {key: _short(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_short(item) for item in value]
    return value


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _pretty(message: Any) -> list[str]:
    """A message as indented JSON, one key a line, and each item of a list (a tool call) on a line of
    its own, so that a message with three calls still fits in a few lines."""
    if not isinstance(message, dict):
        return [_compact(message)]
    lines = ["{"]
    for position, (key, value) in enumerate(message.items()):
        comma = "," if position < len(message) - 1 else ""
        if isinstance(value, list) and value:
            lines.append(f"  {_compact(key)}: [")
            lines.extend(f"    {_compact(item)}" + ("," if i < len(value) - 1 else "") for i, item in enumerate(value))
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {_compact(key)}: {_compact(value)}{comma}")
    lines.append("}")
    return lines


def _shown(message: Any, lang: str | None) -> list[str]:
    if message is None:
        return [say("(none: the history ends before it)", lang=lang)]
    lines = _pretty(_short(message))
    if len(lines) > SHOWN_LINES:
        lines = [
            *lines[: SHOWN_LINES - 1],
            say("… ({count} more lines)", lang=lang, count=len(lines) - SHOWN_LINES + 1),
        ]
    return lines


@dataclass
class _Finding:
    """A mistake: its headline (an English sentence to say) with its fields, and the message to show."""

    headline: str
    fields: dict[str, Any] = field(default_factory=dict)
    index: int | None = None  # a message to show on both sides (0-based)
    where: tuple[tuple[int, str, str], ...] = ()


def _role(message: Any) -> str:
    return str(message.get("role")) if isinstance(message, dict) else ""


def _calls(message: Any) -> list[Any]:
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return calls if isinstance(calls, list) else []


def _ids(message: Any) -> list[str]:
    return [str(c.get("id")) for c in _calls(message) if isinstance(c, dict)]


def _asking(messages: list[Any], index: int) -> tuple[int, Any]:
    """The last assistant message before ``index`` (and where it is)."""
    for position in range(min(index, len(messages)) - 1, -1, -1):
        if _role(messages[position]) == "assistant":
            return position, messages[position]
    return -1, None


def _crash(yours: LoopRun, lang: str | None) -> _Finding:
    """Your loop raised an error of its own: name it, show where, and say what usually causes it."""
    kind, detail = yours.ending, yours.detail
    hint = say("The last line of your code named below is where it stopped.", lang=lang)
    if kind == "KeyError" and "tool_calls" in detail:
        hint = say(
            "An answer without tool calls has no 'tool_calls' key: read it with message.get(\"tool_calls\") or [].",
            lang=lang,
        )
    elif kind == "KeyError":
        hint = say("A dict has no such key: print the dict to see which keys it has.", lang=lang)
    elif "Completion" in detail:
        hint = say("client.send(...) returns a Completion; the model's answer, a dict, is its .message.", lang=lang)
    elif kind == "NameError":
        hint = say("A name is not defined: a typo, or something from a cell that has not run.", lang=lang)
    elif kind == "JSONDecodeError" or "the JSON object must be" in detail:
        hint = say(
            'json.loads takes the JSON text of call["function"]["arguments"], not the call or an already loaded dict.',
            lang=lang,
        )
    elif "string indices must be integers" in detail or "has no attribute 'get'" in detail and "'str'" in detail:
        hint = say("The arguments are JSON text until you json.loads them.", lang=lang)
    elif "not JSON serializable" in detail:
        hint = say(
            "Something in messages or in the tool definitions is not JSON: the client must send JSON. Send "
            "[tool.definition() for tool in tools], not the tools themselves.",
            lang=lang,
        )
    elif "execute()" in detail:
        hint = say("tool.execute takes one dict: tool.execute(arguments).", lang=lang)
    elif "positional argument" in detail and not yours.where:
        hint = say(
            "The check calls my_loop(client, tools, messages, max_steps, max_tool_calls): keep those five parameters.",
            lang=lang,
        )
    error = detail.rstrip(". ") or "—"
    return _Finding(
        translatable("your loop raised {kind}: {error}. {hint}"),
        {"kind": kind, "error": error, "hint": hint},
        where=yours.where,
    )


def _stopped_too_late(agent: LoopRun, yours: LoopRun, index: int, case: LoopCase, lang: str | None) -> _Finding:
    """Your history goes on where the Agent's ended: the rule of the Agent's ending was not applied."""
    ending = agent.ending
    if ending == "ToolCallLimitExceeded":
        position, refused = _asking(agent.messages, len(agent.messages))
        asked = len(_calls(refused))
        done = sum(1 for m in agent.messages[:position] if _role(m) == "tool")
        ran = 0
        for message in yours.messages[position + 1 :]:
            if _role(message) != "tool":
                break
            ran += 1
        fields = {"number": position + 1, "done": done, "asked": asked, "limit": case.max_tool_calls, "ran": ran}
        if 0 < ran < asked:
            return _Finding(
                translatable(
                    "the answer at message {number} asks for {asked} calls, and {done} + {asked} would pass "
                    "max_tool_calls={limit}: it is refused whole, before any of its calls runs. Your loop ran {ran} "
                    "of them first: check the limit once per answer, before the for over the calls."
                ),
                fields,
                index,
            )
        return _Finding(
            translatable(
                "the answer at message {number} asks for {asked} call(s), and {done} + {asked} would pass "
                "max_tool_calls={limit}: raise ToolCallLimitExceeded before any of its calls runs. Your loop ran "
                "{ran} of them."
            ),
            fields,
            index,
        )
    if ending == "InvalidAssistantMessage":
        refused = yours.messages[index] if index < len(yours.messages) else None
        twice = next((i for i in _ids(refused) if _ids(refused).count(i) > 1), "?")
        if yours.ending == "InvalidAssistantMessage":
            return _Finding(
                translatable(
                    "the answer at message {number} has two calls with the id {id}. Your loop refused it, but only "
                    "after appending it: validate first, so that a refused answer never enters the history."
                ),
                {"number": index + 1, "id": twice},
                index,
            )
        return _Finding(
            translatable(
                "the answer at message {number} has two calls with the id {id}: refuse it with "
                "InvalidAssistantMessage, before appending it. A tool message could not say which call it answers."
            ),
            {"number": index + 1, "id": twice},
            index,
        )
    if ending == "StepLimitExceeded":
        return _Finding(
            translatable(
                "max_steps={limit} allows {limit} model calls, and your loop asked {asked} times. Ask inside "
                "for _ in range(max_steps), and raise StepLimitExceeded after it."
            ),
            {"limit": case.max_steps, "asked": len(yours.requests)},
            index,
        )
    if ending == "EmptyAnswer":
        return _Finding(
            translatable(
                "the answer at message {number} has no tool calls and no text: raise EmptyAnswer. Your loop went on."
            ),
            {"number": len(agent.messages)},
            index,
        )
    return _Finding(
        translatable(
            "the answer at message {number} has no tool calls: it is the final answer, so return its text. Your loop "
            "went on."
        ),
        {"number": len(agent.messages)},
        index,
    )


def _stopped_too_early(agent: LoopRun, yours: LoopRun, index: int, case: LoopCase, lang: str | None) -> _Finding:
    """The Agent's history goes on where yours ended."""
    want = agent.messages[index]
    if yours.ending == "ToolCallLimitExceeded":
        position, answer = _asking(yours.messages, len(yours.messages))
        done = sum(1 for m in yours.messages[:position] if _role(m) == "tool")
        asked = len(_calls(answer))
        fields = {"done": done, "asked": asked, "limit": case.max_tool_calls, "number": position + 1}
        return _Finding(
            translatable(
                "the answer at message {number} asks for {asked} call(s): {done} + {asked} reaches "
                "max_tool_calls={limit} exactly, and that is allowed. Refuse only an answer that would pass it: "
                "done + len(calls) > max_tool_calls."
            ),
            fields,
            index,
        )
    if yours.ending == "StepLimitExceeded":
        return _Finding(
            translatable(
                "your loop raised StepLimitExceeded after {asked} model call(s), but max_steps={limit} allows {limit}."
            ),
            {"limit": case.max_steps, "asked": len(yours.requests)},
            index,
        )
    if yours.ending in EXPECTED_ENDINGS:
        return _Finding(
            translatable(
                "your loop raised {ending} after message {number}, where the Agent goes on: read that answer again."
            ),
            {"ending": yours.ending, "number": len(yours.messages)},
            index,
        )
    if yours.ending == "answer" and _role(want) == "tool":
        return _Finding(
            translatable(
                "your loop returned {answer} from an answer that asks for tools. An answer with tool_calls is not "
                "final, even with text in content: run its calls."
            ),
            {"answer": _safe_str(yours.answer, repr, 80)},
            index,
        )
    if _role(want) == "tool":
        position, asking = _asking(agent.messages, index)
        answered = index - position - 1
        return _Finding(
            translatable(
                "the answer asked for {asked} call(s), and your history answers {answered} of them before the next "
                "request. Run every call in order, one tool message each, before asking the model again."
            ),
            {"asked": len(_calls(asking)), "answered": answered},
            index,
        )
    if yours.ending == "answer" and _role(want) == "assistant" and index == len(agent.messages) - 1:
        return _Finding(
            translatable("append the final answer (message {number}) to the history too, then return its text."),
            {"number": index + 1},
            index,
        )
    if _role(want) == "assistant":
        return _Finding(
            translatable(
                "the assistant message is missing: append the model's answer, with its tool_calls, before its "
                "results (message {number})."
            ),
            {"number": index + 1},
            index,
        )
    return _Finding(
        translatable("your history stops before message {number}; the Agent's goes on."), {"number": index + 1}, index
    )


def _differ(agent: LoopRun, yours: LoopRun, index: int, lang: str | None) -> _Finding:
    """Both histories hold a message ``index`` and they differ."""
    want, got = agent.messages[index], yours.messages[index]
    number = index + 1
    if _role(want) == "assistant" and _role(got) == "tool":
        later = any(_same(want, m) for m in yours.messages[index + 1 :])
        return _Finding(
            translatable(
                "the assistant message with tool_calls must be in the history before its results. Your history has "
                "a tool result at message {number}, where the Agent's has the assistant message that asked for it."
            )
            if later
            else translatable(
                "the assistant message is missing: append the model's answer, with its tool_calls, before its "
                "results (message {number})."
            ),
            {"number": number},
            index,
        )
    if _role(want) == "tool" and _role(got) == "assistant":
        position, asking = _asking(agent.messages, index)
        answered = index - position - 1
        return _Finding(
            translatable(
                "the answer asked for {asked} call(s), and your history answers {answered} of them before the next "
                "request. Run every call in order, one tool message each, before asking the model again."
            ),
            {"asked": len(_calls(asking)), "answered": answered},
            index,
        )
    if _role(want) == "tool" and _role(got) != "tool":
        return _Finding(
            translatable('a result is a message with role "tool"; message {number} of yours has role {role!r}.'),
            {"role": _role(got) or "?", "number": number},
            index,
        )
    if _role(want) == "tool":
        return _tool_message(agent, yours, index, lang)
    return _Finding(
        translatable("message {number} differs from the Agent's: compare the two below."), {"number": number}, index
    )


def _tool_message(agent: LoopRun, yours: LoopRun, index: int, lang: str | None) -> _Finding:
    want, got = agent.messages[index], yours.messages[index]
    number = index + 1
    if "tool_call_id" not in got:
        return _Finding(
            translatable(
                'the tool message at message {number} has no tool_call_id: add "tool_call_id": call["id"], so '
                "that the model knows which call the result answers."
            ),
            {"number": number},
            index,
        )
    if got.get("tool_call_id") != want.get("tool_call_id"):
        position, asking = _asking(agent.messages, index)
        ids = _ids(asking)
        start = position + 1
        theirs = [m.get("tool_call_id") if isinstance(m, dict) else None for m in yours.messages[start:]][: len(ids)]
        if sorted(map(str, theirs)) == sorted(ids) and theirs != ids:
            return _Finding(
                translatable(
                    "the results are in another order than the calls: run the calls in the order of tool_calls, and "
                    "append each result as it comes (message {number})."
                ),
                {"number": number},
                index,
            )
        return _Finding(
            translatable(
                "the tool message at message {number} carries tool_call_id {id!r}; it must be the id of the call it "
                'answers: call["id"].'
            ),
            {"number": number, "id": _safe_str(got.get("tool_call_id"))},
            index,
        )
    content = got.get("content")
    if not isinstance(content, str):
        return _Finding(
            translatable(
                "the content of a tool message must be JSON text, and message {number} holds a {kind}: "
                "use json.dumps(result, ensure_ascii=False)."
            ),
            {"number": number, "kind": type(content).__name__},
            index,
        )
    try:
        json.loads(content)
    except (ValueError, RecursionError):
        try:
            python = ast.literal_eval(content)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            python = None
        expected = _comparable(want).get("content")
        if python is not None and ("json", python) == expected:
            return _Finding(
                translatable(
                    "the content of message {number} is str(result), which is Python, not JSON (single quotes, True): "
                    "use json.dumps(result, ensure_ascii=False)."
                ),
                {"number": number},
                index,
            )
        return _Finding(
            translatable("the content of message {number} is not JSON: use json.dumps(result, ensure_ascii=False)."),
            {"number": number},
            index,
        )
    return _Finding(
        translatable(
            "the result at message {number} differs from the Agent's: the right tool, found by the call's name, "
            "with the call's arguments?"
        ),
        {"number": number},
        index,
    )


def _requests(agent: LoopRun, yours: LoopRun, lang: str | None) -> _Finding | None:
    """Did each request of your loop send its whole history so far, and the tool definitions?

    The history only grows, so a request that sent the whole history sent a beginning of your final
    history; and where your history agrees with the Agent's, it sent as many messages as the Agent's."""
    definitions = agent.requests[0].tools if agent.requests else None
    for number, sent in enumerate(yours.requests, 1):
        theirs = agent.requests[number - 1].messages if number <= len(agent.requests) else None
        count = len(sent.messages) if isinstance(sent.messages, list) else 0
        held = len(theirs) if isinstance(theirs, list) else count
        whole = _same_list(yours.messages[:count], sent.messages)
        if whole and isinstance(theirs, list) and count != held:
            whole = not _same_list(yours.messages[:held], theirs)  # the history was right, the request not
        if not whole:
            return _Finding(
                translatable(
                    "request {request} sent {sent} message(s), but the history held {held}: every request sends the "
                    "whole history, client.send(messages, definitions)."
                ),
                {"request": number, "sent": count, "held": held},
            )
        if definitions is not None and sent.tools != definitions:
            key = (
                translatable(
                    "request {request} sent no tool definitions: send [tool.definition() for tool in tools] with every "
                    "request, or the model cannot ask for a tool."
                )
                if not sent.tools
                else translatable(
                    "request {request} sent other tool definitions than the Agent's: send [tool.definition() for "
                    "tool in tools]."
                )
            )
            return _Finding(key, {"request": number})
    return None


def _same_list(a: Any, b: Any) -> bool:
    return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))


def diagnose(agent: LoopRun, yours: LoopRun, case: LoopCase, lang: str | None) -> _Finding | None:
    """The first mistake your loop makes on this case, or None when it agrees with the Agent."""
    if yours.ending == "too long":
        return _Finding(
            translatable(
                "your loop ran for over {seconds} s on this case and was stopped ({requests} requests sent). "
                "Does every turn call the model, and does a for over range(max_steps) bound the turns?"
            ),
            {"seconds": f"{TIME_LIMIT:g}", "requests": len(yours.requests)},
        )
    if "not parsed" in yours.notes:
        return _Finding(
            say(
                "a tool got the call's arguments as JSON text. The model sends arguments as a string: "
                'turn it into a dict with json.loads(call["function"]["arguments"]) before tool.execute(...).',
                lang=lang,
            )
        )
    if "not a dict" in yours.notes:
        return _Finding(
            say(
                'a tool got arguments that are not a dict. Pass it json.loads(call["function"]["arguments"]), '
                "the dict of the call's arguments.",
                lang=lang,
            )
        )
    strange = next((i for i, m in enumerate(yours.messages) if not isinstance(m, dict)), None)
    if strange is not None:
        return _Finding(
            translatable(
                "message {number} of your history is not a message but {kind}. Append the model's answer, "
                "client.send(...).message, and tool messages, each a dict."
            ),
            {"number": strange + 1, "kind": _safe_str(yours.messages[strange])},
            strange,
        )
    if yours.ending not in (*_OURS, "answer", agent.ending):  # an error of the loop's own code
        if agent.ending in EXPECTED_ENDINGS and _same_list(agent.messages, yours.messages):
            return _ending(agent, yours, case, lang)  # the right place, another exception
        return _crash(yours, lang)
    longest = max((len(s.messages) for s in yours.requests if isinstance(s.messages, list)), default=0)
    if longest > len(yours.messages):
        return _Finding(
            translatable(
                "append to the list messages that your loop was given: your requests sent up to {sent} messages, but "
                "that list holds {held}. A new list (messages = messages + [...]) leaves the caller's history behind."
            ),
            {"sent": longest, "held": len(yours.messages)},
        )
    sent_wrong = _requests(agent, yours, lang)
    if sent_wrong is not None:
        return sent_wrong
    for index in range(max(len(agent.messages), len(yours.messages))):
        want = agent.messages[index] if index < len(agent.messages) else None
        got = yours.messages[index] if index < len(yours.messages) else None
        if _same(want, got):
            continue
        if want is None:
            return _stopped_too_late(agent, yours, index, case, lang)
        if got is None:
            return _stopped_too_early(agent, yours, index, case, lang)
        return _differ(agent, yours, index, lang)
    if yours.ending == "CassetteExhausted" and len(yours.requests) > len(agent.requests):
        return _stopped_too_late(agent, yours, len(agent.messages), case, lang)
    if agent.ending != yours.ending:
        return _ending(agent, yours, case, lang)
    if agent.ending == "answer" and not (isinstance(yours.answer, str) and yours.answer == agent.answer):
        return _Finding(
            translatable('your loop returned {answer}: return the text of the final answer, message["content"].'),
            {"answer": _safe_str(yours.answer, repr, 80)},
            len(agent.messages) - 1,
        )
    if len(agent.requests) != len(yours.requests):
        return _Finding(
            translatable("your loop sent {yours} requests, the Agent {agent}."),
            {"agent": len(agent.requests), "yours": len(yours.requests)},
        )
    return None


def _ending(agent: LoopRun, yours: LoopRun, case: LoopCase, lang: str | None) -> _Finding:
    """The same history, another ending."""
    last = len(agent.messages) - 1
    if agent.ending == "EmptyAnswer" and yours.ending == "answer":
        return _Finding(
            translatable(
                "the last answer has no tool calls and no text, and your loop returned {answer}. A blank answer is "
                "not a final answer: raise EmptyAnswer."
            ),
            {"answer": _safe_str(yours.answer, repr, 80)},
            last,
        )
    if agent.ending == "StepLimitExceeded" and yours.ending == "answer":
        fields = {"limit": case.max_steps, "answer": _safe_str(yours.answer, repr, 80)}
        return _Finding(
            translatable(
                "after max_steps={limit} model calls without a final answer, raise StepLimitExceeded; your loop "
                "returned {answer}."
            ),
            fields,
        )
    if agent.ending == "answer":
        return _Finding(
            translatable("your loop raised {ending} on the final answer, which the Agent returns."),
            {"ending": yours.ending},
            last,
        )
    fields = {"agent": agent.ending, "yours": yours.ending, "detail": yours.detail.rstrip(". ")}
    return _Finding(
        translatable(
            "the Agent raises {agent} here, your loop raised {yours} ({detail}). Raise reactlab's {agent}: "
            "the check compares the classes."
        ),
        fields,
    )


def compare_runs(agent: LoopRun, yours: LoopRun, lang: str | None = None, case: LoopCase | None = None) -> list[str]:
    """Empty when the runs agree; otherwise the lines (in ``lang``) that name the first mistake: the
    mistake, what to do, where your code raised, and the two messages that differ."""
    limits = case or LoopCase("", lambda: Script().client(), list, "")
    finding = diagnose(agent, yours, limits, lang)
    if finding is None:
        return []
    lines = [say(finding.headline, lang=lang, **finding.fields)]
    if finding.where:
        lines.append(say("where, in your code:", lang=lang))
        for number, name, code in finding.where:
            frame = say("line {line}, in {name}", lang=lang, line=number, name=name)
            lines.append(f"  {frame}: {code}" if code else f"  {frame}")
    index = finding.index
    want = agent.messages[index] if index is not None and index < len(agent.messages) else None
    got = yours.messages[index] if index is not None and index < len(yours.messages) else None
    if index is not None and (want is not None or got is not None):
        lines.append(say("message {number} in the Agent's history:", lang=lang, number=index + 1))
        lines.extend(f"  {line}" for line in _shown(want, lang))
        lines.append(say("message {number} in yours:", lang=lang, number=index + 1))
        lines.extend(f"  {line}" for line in _shown(got, lang))
    return lines


def check_loop(loop: LoopFunction, cases: list[LoopCase] | None = None, lang: str | None = None) -> str:
    """Run ``loop`` and the Agent on every case; a verdict per case, then "✓ solved" or "✗ not solved yet",
    in ``lang``, ``current_language()`` when None (a case given in ``cases`` keeps its own name)."""
    lang = resolve_language(lang)
    if not callable(loop):
        return say(
            "✗ not solved yet: {detail}",
            lang=lang,
            detail=say("my_loop should be a function, not {kind}", lang=lang, kind=type(loop).__name__),
        )
    lines: list[str] = []
    matched = 0
    every = loop_cases(lang) if cases is None else cases
    for case in every:
        agent = run_agent(case)
        try:
            yours = run_loop(loop, case)
        except NotImplementedError:
            return say(
                "✗ not solved yet: {detail}",
                lang=lang,
                detail=say("your loop raises NotImplementedError (the stub). Write it in the cell above.", lang=lang),
            )
        difference = compare_runs(agent, yours, lang, case)
        if difference:
            first = len(lines) == matched  # every case before this one agreed: show its details
            lines.append(f"✗ {case.name}: {difference[0]}")
            if first or cases is not None:
                lines.extend(f"    {line}" for line in difference[1:])
        else:
            matched += 1
            ending = say("a final answer", lang=lang) if agent.ending == "answer" else agent.ending
            lines.append(
                say(
                    "✓ {case}: the same {count} messages, both ended with {ending}",
                    lang=lang,
                    case=case.name,
                    count=len(agent.messages),
                    ending=ending,
                )
            )
    if matched == len(every):
        lines.append(
            say(
                "✓ solved: {detail}",
                lang=lang,
                detail=say("your loop and the Agent agree on all {count} cases", lang=lang, count=len(every)),
            )
        )
    else:
        lines.append(
            say(
                "✗ not solved yet: {detail}",
                lang=lang,
                detail=say("{matched} of {count} cases agree", lang=lang, matched=matched, count=len(every)),
            )
        )
    return "\n".join(lines)


class Beside:
    """What ``show_beside_agent`` shows: plain HTML (no widget), the same with or without a kernel."""

    def __init__(self, html: str, shown: bool, lang: str | None = None) -> None:
        self.html = html
        self.shown = shown
        self.lang = resolve_language(lang)

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return (
            say("<Agent._loop beside the article's loop>", lang=self.lang)
            if self.shown
            else say("<Agent._loop: not shown yet>", lang=self.lang)
        )


def show_beside_agent(loop: object, now: bool = False, lang: str | None = None) -> Beside:
    """Notebook 04: reactlab's ``Agent._loop`` (its installed source) beside the article's loop, retold,
    once ``loop`` agrees with the Agent on every case; before that (unless ``now``), a note saying so,
    so that *Run All* does not print the answer under the exercise."""
    from ..widgets.markup import render  # the course's HTML goes through the schemes' escaping templates

    lang = resolve_language(lang)
    shown = now or _agrees(loop, lang)
    if not shown:
        return Beside(
            render(
                "beside.html",
                locked=say(
                    "Agent._loop and the article's loop appear here once your loop agrees with the Agent on every "
                    "case: write yours first. (To see them now anyway: show_beside_agent(my_loop, now=True).)",
                    lang=lang,
                ),
                lang=lang,
            ),
            False,
            lang,
        )
    agent = textwrap.dedent(inspect.getsource(Agent._loop))
    return Beside(
        render(
            "beside.html",
            locked=None,
            agent=agent,
            article=say(
                "up to max_steps times:\n    ask the client, with copies of the history and of the tool "
                "definitions\n    validate the answer (with the set of call ids already used)\n    append a copy of "
                "the answer to the history\n    no calls in it?\n        non-blank text: that is the answer, return "
                'it\n        otherwise: error, "neither a call nor an answer"\n    used ids + calls in this answer '
                "> max_tool_calls: error, tool-call limit\n    for each call, in order:\n        result = execute "
                "the call (parse the arguments, find the tool by name, run it)\n        append a tool message: the "
                "call's id, the result as JSON text\n        add the call's id to the used ids\nerror: model-call "
                "limit reached without a final answer",
                lang=lang,
            ),
            lang=lang,
        ),
        True,
        lang,
    )


def _agrees(loop: object, lang: str) -> bool:
    if not callable(loop):
        return False
    for case in loop_cases(lang):
        try:
            yours = run_loop(loop, case)
        except NotImplementedError:
            return False
        if compare_runs(run_agent(case), yours, lang, case):
            return False
    return True
