"""Watching a loop: run your loop, or reactlab's Agent, on one case of notebook 04's check and write
down everything it does: each request (the messages and tool definitions it sent, and its own history
at that moment), each tool call (which tool, which arguments, whether the tool refused), how it ended,
and the history it left, all as JSON values. ``loop_check.py`` compares two such runs.

Your loop's code is hostile input: whatever it raises, returns, appends or sends is written down, and
a run longer than ``TIME_LIMIT`` seconds is stopped (where a signal can do it: in the main thread).
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from ..core.agent import Agent
from ..core.prompts import SYSTEM_EN
from ..core.protocols import ChatClient, Tool
from .student import shown, your_lines

__all__ = ["Event", "LoopCase", "LoopFunction", "LoopRun", "Message", "TIME_LIMIT", "run_agent", "run_loop"]

Message = dict[str, Any]
LoopFunction = Callable[[ChatClient, list[Tool], list[Message], int, int], str]
"""``loop(client, tools, messages, max_steps, max_tool_calls) -> final answer``; appends to ``messages``."""

TIME_LIMIT = 10.0
"""Seconds a case may take: every case of the check ends in well under one."""


@dataclass(frozen=True)
class LoopCase:
    """One input both loops get: a model (client), tools, the first two messages and the limits. A
    generated case keeps its answers, to show them; one without is shown by its name."""

    name: str
    make_client: Callable[[], ChatClient]
    make_tools: Callable[[], list[Tool]]
    task: str
    system: str = SYSTEM_EN
    max_steps: int = 8
    max_tool_calls: int = 16
    answers: tuple[Message, ...] = ()


@dataclass(frozen=True)
class Event:
    """What a loop did, as JSON values: "send" (``what``: the messages; also the tool definitions, the
    loop's own history then, and two places holding one dict object), "run" (the tool's name, the
    arguments, whether the tool refused) or "end" (how the loop ended, what it returned)."""

    kind: str
    what: Any
    tools: Any = None
    history: Any = None
    twice: tuple[int, int] | None = None


@dataclass(frozen=True)
class LoopRun:
    """How one loop went: what it did, the history it left, how it ended ("answer" or an exception's
    class), what it said, the lines of its own code an error came through; for the Agent, an answer
    it refused without appending it."""

    events: tuple[Event, ...]
    history: list[Any]
    ending: str
    detail: str
    answer: Any = None
    where: tuple[tuple[int, str, str], ...] = ()
    refused: Any = None


def _plain(value: Any, each: bool = False) -> Any:
    """A JSON copy of what a loop holds or sends; what cannot be JSON shows as its type and repr. With
    ``each``, a list is copied item by item: one strange message does not hide the others."""
    if each and isinstance(value, list):
        return [_plain(item) for item in value]
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, default=_stand_in))
    except (TypeError, ValueError, RecursionError):
        return _stand_in(value)


def _stand_in(value: Any) -> str:
    return f"<{type(value).__name__}: {shown(value, 60, repr)}>"


class _Recorder:
    """The case's client, writing down every request (and the loop's history then) before it goes on."""

    def __init__(self, client: ChatClient, events: list[Event], history: list[Any] | None) -> None:
        self._client, self._events, self._history = client, events, history

    def send(self, messages: Any, tools: Any) -> Any:
        places: dict[int, int] = {}  # a dict object -> where it is first
        twice = next(
            ((places[id(m)], i) for i, m in enumerate(messages if isinstance(messages, list) else ())
             if isinstance(m, dict) and places.setdefault(id(m), i) != i), None,
        )  # fmt: skip
        history = messages if self._history is None else self._history
        self._events.append(Event("send", _plain(messages, True), _plain(tools), _plain(history, True), twice))
        return self._client.send(messages, tools)


class _Watched:
    """A case's tool, writing down each call: the name, the arguments as they came, whether it refused."""

    def __init__(self, tool: Tool, events: list[Event]) -> None:
        self._tool, self._events, self.name = tool, events, tool.name

    def definition(self) -> dict[str, Any]:
        return self._tool.definition()

    def execute(self, arguments: Any) -> dict[str, Any]:
        event = Event("run", [self.name, _plain(arguments)])
        self._events.append(event)
        result = self._tool.execute(arguments)
        event.what.append(isinstance(result, dict) and result.get("ok") is False)
        return result


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


def _ended(events: list[Event], history: Any, ending: str, detail: str, answer: Any = None, where: Any = ()) -> LoopRun:
    events.append(Event("end", [ending, _plain(answer)]))
    return LoopRun(tuple(events), _plain(list(history), True), ending, detail, answer, tuple(where))


def run_agent(case: LoopCase) -> LoopRun:
    """The reference: reactlab's Agent on this case."""
    events: list[Event] = []
    tools = [_Watched(tool, events) for tool in case.make_tools()]
    client = _Recorder(case.make_client(), events, None)
    agent = Agent(client, tools, system=case.system, max_steps=case.max_steps, max_tool_calls=case.max_tool_calls)
    try:
        answer = agent.run(case.task)
    except Exception as error:  # every ending is data here, to compare with the other loop's
        assert agent.record is not None
        run = _ended(events, agent.record.messages, type(error).__name__, str(error))
        refused = run.ending == "InvalidAssistantMessage"
        return replace(run, refused=_plain(agent.record.model_calls[-1].message)) if refused else run
    assert agent.record is not None
    return _ended(events, agent.record.messages, "answer", answer, answer)


def run_loop(loop: LoopFunction, case: LoopCase) -> LoopRun:
    """Your loop on this case. ``NotImplementedError`` passes through: the stub is not a loop yet."""
    events: list[Event] = []
    history: list[Any] = [{"role": "system", "content": case.system}, {"role": "user", "content": case.task}]
    tools: list[Tool] = [_Watched(tool, events) for tool in case.make_tools()]
    client = _Recorder(case.make_client(), events, history)
    try:
        with _time_limit(TIME_LIMIT):
            answer = loop(client, tools, history, case.max_steps, case.max_tool_calls)
    except NotImplementedError:
        raise
    except _TooLong:
        return _ended(events, history, "too long", "")
    except (Exception, SystemExit) as error:  # the student's loop may raise anything: it becomes the verdict
        return _ended(events, history, type(error).__name__, shown(error), where=your_lines(error))
    return _ended(events, history, "answer", shown(answer, how=repr), answer)
