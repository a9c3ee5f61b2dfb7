"""Watching a loop: run your loop, or reactlab's Agent, on one case of notebook 04's check and write
down what anyone could see it do: each request (the messages and tool definitions it sent), each tool
call (which tool, which arguments, whether the tool refused), how it ended, and the history it left,
all as JSON values. ``loop_check.py`` compares two such traces.

Your loop's code is hostile input: whatever it raises, returns, appends or sends is written down, and
a run longer than ``TIME_LIMIT`` seconds is stopped (where a signal can do it: in the main thread).
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..core.agent import Agent
from ..core.prompts import SYSTEM_EN
from ..core.protocols import ChatClient, Tool
from .student import shown, your_lines

__all__ = [
    "Event",
    "LoopCase",
    "LoopFunction",
    "LoopRun",
    "Message",
    "TIME_LIMIT",
    "agent_loop",
    "run_agent",
    "run_loop",
]

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


@dataclass
class Event:
    """One thing a loop did, as JSON values: "send" (``what``: the messages, ``tools``: the definitions;
    ``held``: the loop's own history then, ``twice``: two places of one dict object in the request),
    "run" (``what``: the tool's name and the arguments; ``tools``: whether the tool refused) or "end"
    (``what``: how the loop ended, "answer" or an exception's class, and what it returned)."""

    kind: str
    what: Any
    tools: Any = None
    held: Any = None
    twice: tuple[int, int] | None = None


@dataclass
class LoopRun:
    """A loop's trace: what it did, the history it left, the text of its error and the lines of its
    own code that error came through."""

    events: list[Event] = field(default_factory=list)
    history: list[Any] = field(default_factory=list)
    detail: str = ""
    where: tuple[tuple[int, str, str], ...] = ()

    @property
    def ending(self) -> str:
        return str(self.events[-1].what[0])

    @property
    def answer(self) -> Any:
        return self.events[-1].what[1]


def _plain(value: Any) -> Any:
    """A JSON copy of what a loop holds or sends; what cannot be JSON shows as its type and repr. A list
    is copied item by item: one strange message does not hide the others."""
    if isinstance(value, list):
        return [_json(item) for item in value]
    return _json(value)


def _json(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, default=_stand_in))
    except (TypeError, ValueError, RecursionError):
        return _stand_in(value)


def _stand_in(value: Any) -> str:
    return f"<{type(value).__name__}: {shown(value, 60, repr)}>"


class _Recorder:
    """The case's client, writing down every request (and the loop's own history then) before it goes on."""

    def __init__(self, client: ChatClient, run: LoopRun, history: list[Any] | None) -> None:
        self._client, self._run, self._history = client, run, history

    def send(self, messages: Any, tools: Any) -> Any:
        places: dict[int, int] = {}  # a dict object -> where it is first
        sent = messages if isinstance(messages, list) else []
        twice = next(((places[id(m)], i) for i, m in enumerate(sent) if places.setdefault(id(m), i) != i), None)
        held = _plain(self._history) if self._history is not None else None
        self._run.events.append(Event("send", _plain(messages), _plain(tools), held, twice))
        return self._client.send(messages, tools)


class _Watched:
    """A case's tool, writing down each call: the name, the arguments as they came, whether it refused."""

    def __init__(self, tool: Tool, run: LoopRun) -> None:
        self._tool, self._run, self.name = tool, run, tool.name

    def definition(self) -> dict[str, Any]:
        return self._tool.definition()

    def execute(self, arguments: Any) -> dict[str, Any]:
        event = Event("run", [self.name, _plain(arguments)])
        self._run.events.append(event)
        result = self._tool.execute(arguments)
        event.tools = isinstance(result, dict) and result.get("ok") is False
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


def agent_loop(client: ChatClient, tools: list[Tool], messages: list[Message], steps: int, tool_calls: int) -> str:
    """reactlab's Agent in the shape of a student's loop: the reference the check compares with."""
    agent = Agent(client, tools, system=messages[0]["content"], max_steps=steps, max_tool_calls=tool_calls)
    try:
        return agent.run(messages[1]["content"])
    finally:
        messages[:] = agent.record.messages if agent.record else messages


def run_loop(loop: LoopFunction, case: LoopCase, agent: bool = False) -> LoopRun:
    """``loop``'s trace on this case (the Agent's, with ``agent``). ``NotImplementedError`` from a
    student's loop passes through: the stub is not a loop yet."""
    run = LoopRun()
    history: list[Any] = [{"role": "system", "content": case.system}, {"role": "user", "content": case.task}]
    tools: list[Tool] = [_Watched(tool, run) for tool in case.make_tools()]
    client = _Recorder(case.make_client(), run, None if agent else history)
    ending, answer = "answer", None
    try:
        with _time_limit(TIME_LIMIT):
            answer = loop(client, tools, history, case.max_steps, case.max_tool_calls)
    except NotImplementedError:
        raise
    except _TooLong:
        ending = "too long"
    except (Exception, SystemExit) as error:  # the student's loop may raise anything: it becomes the verdict
        ending, run.detail, run.where = type(error).__name__, shown(error), tuple(your_lines(error))
    run.events.append(Event("end", [ending, _plain(answer)]))
    run.history = _plain(list(history))
    return run


def run_agent(case: LoopCase) -> LoopRun:
    """The reference: reactlab's Agent on this case."""
    return run_loop(agent_loop, case, agent=True)
