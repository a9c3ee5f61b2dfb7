"""The auto-check of notebook 04: run your loop and reactlab's Agent on the same inputs, compare histories.

    from reactlab.course.loop_check import check_loop
    print(check_loop(my_loop))             # in the language set_language set; lang="ru" says it here

Each case builds a fresh client and fresh tools for each loop, so both see exactly the same answers
and the same results. Nothing here needs a sandbox: the shop run's tools replay the results stored
in its (scripted) cassette, and the other cases use a small counting tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from ..errors import CassetteError
from ..model.cassette import Cassette
from ..model.scripted import Script, call
from ..prompts import SYSTEM_EN, system_prompt
from ..protocols import ChatClient, Tool
from ..run.agent import Agent
from ..samples import SHOP
from ..strings import resolve_language, strings
from ..tools.bash import REPLAYED_NOTE

__all__ = [
    "LoopCase",
    "LoopFunction",
    "LoopRun",
    "ReplayedTool",
    "TallyTool",
    "check_loop",
    "compare_runs",
    "loop_cases",
    "run_agent",
    "run_loop",
]

Message = dict[str, Any]
LoopFunction = Callable[[ChatClient, list[Tool], list[Message], int, int], str]
"""``loop(client, tools, messages, max_steps, max_tool_calls) -> final answer``; appends to ``messages``."""

SHOWN = 240  # characters of a message shown in a verdict


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
class LoopRun:
    """How one loop went: the history it left and how it ended ("answer" or an exception's class name)."""

    messages: list[Message]
    ending: str
    detail: str


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

    def __init__(self) -> None:
        self.count = 0

    def definition(self) -> dict[str, Any]:
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        return {
            "type": "function",
            "function": {"name": self.name, "description": "Number a text.", "parameters": parameters},
        }

    def execute(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        return {"ok": True, "number": self.count, "text": str(arguments.get("text", ""))}


def _key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def _tallies(*texts: str) -> Script:
    return Script().tool_calls(*(call("tally", text=text) for text in texts))


def _duplicate_id_answer() -> Message:
    """Two different calls that share one id inside a single answer."""
    calls = [
        {"id": "call_twice", "type": "function", "function": {"name": "tally", "arguments": json.dumps({"text": t})}}
        for t in ("first", "second")
    ]
    return {"role": "assistant", "content": "", "tool_calls": calls}


def loop_cases(lang: str | None = None) -> list[LoopCase]:
    """The five inputs of the check: the shop run, an empty answer, both limits, a repeated id.

    ``lang`` (``current_language()`` when None) picks the shop run (the English or the Russian
    cassette), the task and the case names."""
    language = resolve_language(lang)
    texts = strings(language).exercises
    cassette = SHOP.cassette(language)
    first = cassette.interactions[0]["request"]["messages"]
    task = texts.loop_task
    system = system_prompt(language)
    return [
        LoopCase(
            texts.loop_case_shop,
            cassette.client,
            lambda: ReplayedTool.from_cassette(cassette),
            task=first[1]["content"],
            system=first[0]["content"],
        ),
        LoopCase(
            texts.loop_case_empty,
            lambda: _tallies("a").empty_answer().client(),
            lambda: [TallyTool()],
            task,
            system=system,
        ),
        LoopCase(
            texts.loop_case_step_limit.format(max_steps=3),
            lambda: (
                _tallies("a").tool_call("tally", text="b").tool_call("tally", text="c").final_answer("late").client()
            ),
            lambda: [TallyTool()],
            task,
            system=system,
            max_steps=3,
        ),
        LoopCase(
            texts.loop_case_tool_limit.format(max_tool_calls=4),
            lambda: (
                _tallies("a", "b")
                .tool_calls(call("tally", text="c"), call("tally", text="d"))
                .tool_call("tally", text="e")
                .final_answer("too late")
                .client()
            ),
            lambda: [TallyTool()],
            task,
            system=system,
            max_tool_calls=4,
        ),
        LoopCase(
            texts.loop_case_duplicate_id,
            lambda: _tallies("a").message(_duplicate_id_answer(), "tool_calls").final_answer("never").client(),
            lambda: [TallyTool()],
            task,
            system=system,
        ),
    ]


def _ending(error: BaseException) -> str:
    return type(error).__name__


def run_agent(case: LoopCase) -> LoopRun:
    """The reference: reactlab's Agent on this case."""
    agent = Agent(
        case.make_client(),
        case.make_tools(),
        system=case.system,
        max_steps=case.max_steps,
        max_tool_calls=case.max_tool_calls,
    )
    try:
        answer = agent.run(case.task)
    except Exception as error:  # every ending is data here, to compare with the other loop's
        assert agent.record is not None
        return LoopRun(agent.record.messages, _ending(error), str(error))
    assert agent.record is not None
    return LoopRun(agent.record.messages, "answer", answer)


def run_loop(loop: LoopFunction, case: LoopCase) -> LoopRun:
    """Your loop on this case. ``NotImplementedError`` passes through: the stub is not a loop yet."""
    messages: list[Message] = [{"role": "system", "content": case.system}, {"role": "user", "content": case.task}]
    try:
        answer = loop(case.make_client(), case.make_tools(), messages, case.max_steps, case.max_tool_calls)
    except NotImplementedError:
        raise
    except Exception as error:
        return LoopRun(messages, _ending(error), str(error))
    return LoopRun(messages, "answer", repr(answer))


def _comparable(message: Any) -> Any:
    """A tool message's content is JSON text: compare what it says, not how it was spaced."""
    if isinstance(message, dict) and message.get("role") == "tool" and isinstance(message.get("content"), str):
        try:
            return {**message, "content": json.loads(message["content"])}
        except ValueError:
            return message
    return message


def _shown(message: Any) -> str:
    text = json.dumps(message, ensure_ascii=False, default=repr)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def compare_runs(agent: LoopRun, yours: LoopRun, lang: str | None = None) -> list[str]:
    """Empty when the runs agree; otherwise lines (in ``lang``) that point at the first difference."""
    texts = strings(lang).exercises
    for index in range(max(len(agent.messages), len(yours.messages))):
        want = agent.messages[index] if index < len(agent.messages) else None
        got = yours.messages[index] if index < len(yours.messages) else None
        if _comparable(want) != _comparable(got):
            return [
                texts.loop_first_difference.format(index=index, agent=len(agent.messages), yours=len(yours.messages)),
                texts.loop_agent_message.format(message=_shown(want) if want is not None else texts.loop_no_message),
                texts.loop_your_message.format(message=_shown(got) if got is not None else texts.loop_no_message),
            ]
    if agent.ending != yours.ending:
        return [
            texts.loop_other_ending.format(count=len(agent.messages), agent=agent.ending, yours=yours.ending),
            texts.loop_agent_message.format(message=agent.detail[:SHOWN]),
            texts.loop_your_message.format(message=yours.detail[:SHOWN]),
        ]
    return []


def check_loop(loop: LoopFunction, cases: list[LoopCase] | None = None, lang: str | None = None) -> str:
    """Run ``loop`` and the Agent on every case; a verdict per case, then "✓ solved" or "✗ not solved yet",
    in ``lang``, ``current_language()`` when None (a case given in ``cases`` keeps its own name)."""
    lang = resolve_language(lang)
    texts = strings(lang).exercises
    lines: list[str] = []
    matched = 0
    every = loop_cases(lang) if cases is None else cases
    for case in every:
        agent = run_agent(case)
        try:
            yours = run_loop(loop, case)
        except NotImplementedError:
            return texts.not_solved.format(detail=texts.loop_stub)
        difference = compare_runs(agent, yours, lang)
        if difference:
            lines.append(f"✗ {case.name}: {difference[0]}")
            lines.extend(f"    {line}" for line in difference[1:])
        else:
            matched += 1
            lines.append(texts.loop_case_agrees.format(case=case.name, count=len(agent.messages), ending=agent.ending))
    if matched == len(every):
        lines.append(texts.solved.format(detail=texts.loop_solved.format(count=len(every))))
    else:
        lines.append(texts.not_solved.format(detail=texts.loop_not_solved.format(matched=matched, count=len(every))))
    return "\n".join(lines)
