"""The check of notebook 04: your loop beside reactlab's Agent, on every short conversation.

    from reactlab.course.loop_check import check_loop
    print(check_loop(my_loop))             # in the language set_language set; lang="ru" says it here

The cases are the model's answers, enumerated, not sampled: up to two answers of each kind in ASKING,
then one of ENDING, with both limits at their boundary (for a final answer, one below and one above it
too); then the shop run (its scripted cassette, the results replayed). Smallest first, the same order
every time: the first difference found is a smallest one, and a notebook prints the same verdict on
every run. Both loops are watched on each case (``watch.py``); the first thing yours does otherwise,
or else the first message of the history it leaves that differs, is named in a beginner's words
(``mistakes.py``), with the case, the two messages and your lines an error came through.
Enumerated rather than drawn by hypothesis: nothing to install (Pyodide too), no seed to keep, and the
smallest case comes first without shrinking; the tests draw longer conversations with hypothesis.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from functools import cache, partial
from itertools import product
from typing import Any

from ..core.language import Language, resolve_language, say, translatable
from ..core.prompts import system_prompt
from ..core.protocols import ChatClient
from ..replay.scripted import Script
from ..samples import SHOP
from . import watch
from .mistakes import MISTAKES
from .replayed import ReplayedTool
from .student import shown
from .tally import TallyTool
from .watch import Event, LoopCase, LoopFunction, LoopRun, Message, run_agent, run_loop

__all__ = ["ASKING", "ENDING", "Finding", "check_loop", "diagnose", "explain", "first_difference", "loop_cases"]

ENDINGS = ("EmptyAnswer", "InvalidAssistantMessage", "StepLimitExceeded", "ToolCallLimitExceeded")  # reactlab's own
ASKING = ("call", "text and a call", "null and a call", "two calls", "a refused call")
ENDING = ("answer", "spaced answer", "empty", "blank", "null", "one id twice")
SHOWN_LINES, SHOWN_STRING = 14, 90  # lines of a message shown in a verdict, characters of a string in it


def _conversation(kinds: tuple[str, ...], lang: Language | None) -> tuple[Message, ...]:
    """The model's answers, one of each kind; the calls number texts a, b, c… with ids call_1, call_2…"""
    answers, ids, letters, final = [], iter(range(1, 99)), iter("abcdefgh"), say("Done.", lang=lang)
    said = {
        "text and a call": say("Let me number it.", lang=lang),
        "answer": final,
        "spaced answer": f" {final}\n",
        "blank": " \n",
    }
    for kind in kinds:
        answer: Message = {"role": "assistant", "content": None if kind.startswith("null") else said.get(kind, "")}
        count = 2 if kind in ("two calls", "one id twice") else int(kind in ASKING)
        texts_of = ["" if kind == "a refused call" else next(letters) for _ in range(count)]
        calls = [
            {"id": "call_twice" if kind == "one id twice" else f"call_{next(ids)}", "type": "function",
             "function": {"name": "tally", "arguments": json.dumps({"text": text})}}
            for text in texts_of
        ]  # fmt: skip
        answers.append({**answer, "tool_calls": calls} if calls else answer)
    return tuple(answers)


def _scripted(answers: tuple[Message, ...]) -> ChatClient:
    script = Script()
    for answer in answers:
        script.message(answer, "tool_calls" if answer.get("tool_calls") else "stop")
    return script.client()


def loop_cases(lang: str | None = None) -> list[LoopCase]:
    """Every case, smallest first, in ``lang`` (``current_language()`` when None)."""
    language = resolve_language(lang)
    system = system_prompt(language)
    cases = []
    for kinds in (k for length in range(3) for k in product(ASKING, repeat=length)):
        for ending in ENDING:
            answers = _conversation((*kinds, ending), language)
            steps, calls = len(answers), sum(len(a.get("tool_calls", ())) for a in answers[:-1])
            limits = [(steps, calls)]
            if ending == "answer":
                limits += [(steps - 1, calls), (steps, calls - 1), (steps + 1, calls), (steps, calls + 1)]
            if ending == "one id twice":
                limits = [(steps, calls + 2)]  # the ids, not the limit, are why the Agent refuses it
            client = partial(_scripted, answers)
            cases += [
                LoopCase(
                    "",
                    client,
                    lambda: [TallyTool(language)],
                    say("Use the tally tool, then answer.", lang=language),
                    system,
                    steps,
                    calls,
                    answers,
                )
                for steps, calls in limits
                if steps >= 1 and calls >= 0
            ]
    cassette = SHOP.cassette(language)
    first = cassette.interactions[0]["request"]["messages"]
    replayed = lambda: ReplayedTool.from_cassette(cassette)  # noqa: E731
    return [
        *cases,
        LoopCase(
            say("the shop run (scripted cassette, tool results replayed)", lang=language),
            cassette.client,
            replayed,
            first[1]["content"],
            first[0]["content"],
        ),
    ]


# -- comparing two runs ---------------------------------------------------------------------------


@dataclass
class Finding:
    """A mistake: its name in MISTAKES and the fields its text takes, a message to show on both sides
    (its number from 1, the Agent's, yours) and the lines of the student's code an error came through."""

    key: str
    fields: dict[str, Any] = field(default_factory=dict)
    shown: tuple[int, Any, Any] | None = None
    where: tuple[tuple[int, str, str], ...] = ()


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
    return bool(_comparable(a) == _comparable(b))  # JSON values: no student's __eq__ runs here


def _first_unlike(a: list[Any], b: list[Any]) -> int | None:
    """The first place where two lists of messages differ; None when they are the same."""
    index = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if not _same(x, y)), min(len(a), len(b)))
    return None if len(a) == len(b) == index else index


def _role(message: Any) -> str:
    return str(message.get("role")) if isinstance(message, dict) else ""


def _calls(message: Any) -> list[Any]:
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return calls if isinstance(calls, list) else []


def _ids(message: Any) -> list[str]:
    return [str(c.get("id")) for c in _calls(message) if isinstance(c, dict)]


def _messages(wants: list[Any], gots: list[Any], index: int) -> Finding:
    """Two histories that agree up to message ``index`` (from 0): the mistake at that message."""
    want: Any = wants[index] if index < len(wants) else None
    got: Any = gots[index] if index < len(gots) else None
    position = max((p for p in range(min(index, len(wants))) if _role(wants[p]) == "assistant"), default=-1)
    asking, mine = (wants[position] if position >= 0 else None), isinstance(got, dict)
    theirs = [m.get("tool_call_id") if isinstance(m, dict) else None for m in gots[position + 1 :]]
    content, called = (got.get("content"), got.get("tool_call_id")) if mine else (None, "")
    fields = {"number": index + 1, "asked": len(_calls(asking)), "answered": index - position - 1, "role": _role(got),
              "kind": shown(got, 80), "type": type(content).__name__, "id": shown(called)}  # fmt: skip
    return Finding(_mistake(want, got, gots[index + 1 :], _ids(asking), theirs), fields, (index + 1, want, got))


def _mistake(want: Any, got: Any, later: list[Any], ids: list[str], theirs: list[Any]) -> str:
    """The mistake (its name in MISTAKES) at a message, from what the Agent's history has there and yours."""
    if got is not None and not isinstance(got, dict):
        return "loop_not_a_message"
    if _role(want) == "tool" and _role(got) in ("assistant", ""):
        return "loop_error_left_out" if '"ok": false' in str(want.get("content")) else "loop_results_missing"
    if _role(want) == "assistant" and _role(got) == "tool":
        return "loop_results_first" if any(_same(want, m) for m in later) else "loop_assistant_missing"
    if _role(want) == "assistant" and (got is None or _calls(want) and not _calls(got)):
        return "loop_assistant_missing" if got is None else "loop_lost_calls"
    if _role(want) != "tool":
        return "loop_message_differs"
    if not isinstance(got, dict) or _role(got) != "tool":
        return "loop_result_role"
    if "tool_call_id" not in got:
        return "loop_no_tool_call_id"
    if got["tool_call_id"] != want.get("tool_call_id"):
        reordered = sorted(map(str, theirs[: len(ids)])) == sorted(ids)
        return "loop_results_order" if reordered else "loop_wrong_tool_call_id"
    if not isinstance(got.get("content"), str):
        return "loop_content_not_text"
    try:
        return "loop_results_together" if isinstance(json.loads(got["content"]), list) else "loop_result_differs"
    except (ValueError, RecursionError):
        try:
            python = ast.literal_eval(got["content"])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return "loop_content_not_json"
        return "loop_content_python" if ("json", python) == _comparable(want)["content"] else "loop_content_not_json"


def _alike(want: Event, got: Event) -> bool:
    if want.kind != "send" or got.kind != "send":
        return want.kind == got.kind and bool(want.what == got.what)
    sent = got.what if isinstance(got.what, list) else None
    return (got.twice is None and sent is not None and _first_unlike(want.what, sent) is None
            and _first_unlike(sent, got.history) is None and want.tools == got.tools)  # fmt: skip


def diagnose(agent: LoopRun, yours: LoopRun, case: LoopCase) -> Finding | None:
    """The first mistake of your loop on this case, or None when it does what the Agent does."""
    if yours.ending == "too long":
        sent = sum(1 for e in yours.events if e.kind == "send")
        return Finding("loop_too_long", {"seconds": f"{watch.TIME_LIMIT:g}", "requests": sent})
    for event in yours.events:  # what a loop must never do, wherever it does it
        if event.kind == "run" and not isinstance(event.what[1], dict):
            return Finding("loop_not_parsed" if isinstance(event.what[1], str) else "loop_arguments_not_dict")
    for position, (want, got) in enumerate(zip(agent.events, yours.events, strict=False)):
        if not _alike(want, got):
            return _difference(agent, yours, position, case)
    unlike = _first_unlike(agent.history, yours.history)
    if unlike is None:
        return None
    if unlike == len(agent.history) and agent.ending == "InvalidAssistantMessage":  # the refused answer is in yours
        return Finding("loop_validate_first", {"number": unlike + 1, "id": _twin(agent.refused)})
    if unlike == len(yours.history) == len(agent.history) - 1 and _role(agent.history[-1]) == "assistant":
        key = "loop_final_not_appended" if agent.ending == "answer" else "loop_append_first"
        return Finding(key, {"number": unlike + 1, "ending": agent.ending}, (unlike + 1, agent.history[-1], None))
    return _messages(agent.history, yours.history, unlike)


def _twin(answer: Any) -> str:
    """The id two calls of ``answer`` share."""
    ids = _ids(answer)
    return next((i for i in ids if ids.count(i) > 1), "?")


def _runs(events: tuple[Event, ...]) -> int:
    """How many tool calls ran at the start of ``events``, before anything else happened."""
    return next((i for i, e in enumerate(events) if e.kind != "run"), len(events))


WENT_ON = {  # your loop asked again, or ran a call, where the Agent ended so
    "StepLimitExceeded": "loop_step_limit_late",
    "EmptyAnswer": "loop_empty_went_on",
    "answer": "loop_answer_went_on",
    "InvalidAssistantMessage": "loop_ids_unchecked",
    "ToolCallLimitExceeded": "loop_limit_missing",
}
RETURNED = {  # your loop returned where the Agent ended so
    "EmptyAnswer": "loop_blank_returned",
    "StepLimitExceeded": "loop_step_limit_returned",
    "answer": "loop_wrong_return",
}
STOPPED_EARLY = {  # your loop ended so where the Agent went on
    "ToolCallLimitExceeded": "loop_limit_too_early",
    "StepLimitExceeded": "loop_step_limit_early",
    "answer": "loop_returned_early",
}
HINTS = (  # what a crash of a loop's own code usually means: its class, a piece of its message, the hint
    ("KeyError", "tool_calls", "loop_hint_key_tool_calls"),
    ("KeyError", "", "loop_hint_key"),
    ("AttributeError", "'NoneType' object has no attribute 'strip'", "loop_hint_null_content"),
    ("TypeError", "'NoneType' has no len()", "loop_hint_null_content"),
    ("AttributeError", "'Completion' object", "loop_hint_completion"),
    ("TypeError", "'Completion' object", "loop_hint_completion"),
    ("NameError", "", "loop_hint_name"),
    ("JSONDecodeError", "", "loop_hint_json_loads"),
    ("TypeError", "the JSON object must be", "loop_hint_json_loads"),
    ("TypeError", "string indices must be integers", "loop_hint_arguments_text"),
    ("AttributeError", "'str' object has no attribute 'get'", "loop_hint_arguments_text"),
    ("TypeError", "not JSON serializable", "loop_hint_not_json"),
    ("TypeError", "execute()", "loop_hint_execute"),
)


def _hint(yours: LoopRun) -> str:
    before = yours.events[-2] if len(yours.events) > 1 else None
    if before is not None and before.kind == "run" and before.what[-1] is True:
        return "loop_hint_tool_error"  # it raised right after a tool refused a call
    hint = next((h for kind, piece, h in HINTS if kind == yours.ending and piece in yours.detail), "loop_hint_generic")
    if hint == "loop_hint_generic" and "positional argument" in yours.detail and not yours.where:
        return "loop_hint_signature"  # raised where the check calls the loop: it does not take the five parameters
    return hint


def _difference(agent: LoopRun, yours: LoopRun, position: int, case: LoopCase) -> Finding:
    """The Agent did ``want`` where your loop did ``got``: name the mistake, with every fact its text may take."""
    want, got = agent.events[position], yours.events[position]
    step = sum(1 for e in yours.events[:position] if e.kind == "send")  # the answers your loop had been given
    places = [i for i, m in enumerate(agent.history) if _role(m) == "assistant"]
    place, answer = (places[step - 1], agent.history[places[step - 1]]) if 0 < step <= len(places) else (-1, None)
    if step > len(places):  # refused before it was appended: it would have come next
        place, answer = len(agent.history), agent.refused
    ran = _runs(yours.events[position:]) if got.kind == "run" else _runs(yours.events[:position][::-1])
    facts = {"request": step + 1, "steps": step, "number": place + 1, "asked": len(_calls(answer)), "ran": ran,
             "answered": ran, "done": sum(1 for m in agent.history[: max(place, 0)] if _role(m) == "tool"),
             "limit": case.max_tool_calls, "max_steps": case.max_steps, "id": _twin(answer), "ending": yours.ending,
             "answer": shown(yours.answer, 80, repr), "agent": agent.ending, "kind": yours.ending,
             "detail": yours.detail.rstrip(". ") or "—"}  # fmt: skip
    if got.kind == "send":
        return _sent(agent, want, got, facts)
    if got.kind == "run" and want.kind == "run":
        same_answer = agent.events[position : position + _runs(agent.events[position:])]
        key = "loop_results_order" if any(e.what == got.what for e in same_answer) else "loop_ran_other"
        return Finding(key, {"yours": _call_text(got.what), "agent": _call_text(want.what)})
    if got.kind == "run":
        key = WENT_ON.get(agent.ending, "loop_ran_extra") if want.kind == "end" else "loop_ran_extra"
        per_call = key == "loop_limit_missing" and 0 < ran < len(_calls(answer))  # ran some, then refused
        return Finding("loop_limit_per_call" if per_call else key, facts)
    if yours.ending not in (*ENDINGS, "answer"):  # a crash of the loop's own code
        hint = _hint(yours)
        if want.kind != "end" or agent.ending not in ENDINGS or hint != "loop_hint_generic":
            return Finding("loop_crashed", {**facts, "hint": hint}, where=yours.where)
    if want.kind == "end" and yours.ending == "answer":
        return Finding(RETURNED.get(agent.ending, "loop_returned_instead"), facts)
    if want.kind == "end":
        raised = {"InvalidAssistantMessage": "loop_ids_wrong_exception", "answer": "loop_answer_refused"}
        return Finding(raised.get(agent.ending, "loop_wrong_exception"), facts, where=yours.where)
    if _calls(answer) and (yours.ending == "EmptyAnswer" or yours.ending == "answer" and want.kind == "run"):
        return Finding("loop_empty_with_calls" if yours.ending == "EmptyAnswer" else "loop_returned_with_calls", facts)
    if yours.ending == "ToolCallLimitExceeded" and ran:
        return Finding("loop_limit_after_calls", facts, where=yours.where)
    return Finding(STOPPED_EARLY.get(yours.ending, "loop_refused_early"), facts, where=yours.where)


def _sent(agent: LoopRun, want: Event, got: Event, facts: dict[str, Any]) -> Finding:
    """Your loop sent a request where the Agent did ``want`` (or sent another one)."""
    sent, held = got.what, got.history
    if got.twice is not None:
        return Finding("loop_aliased", {**facts, "first": got.twice[0] + 1, "second": got.twice[1] + 1})
    unlike = _first_unlike(sent, held) if isinstance(sent, list) else 0
    if unlike is not None:
        count = len(sent) if isinstance(sent, list) else 0
        fields = {**facts, "sent": count, "held": len(held), "number": unlike + 1}
        return Finding("loop_new_list" if unlike == len(held) < count else "loop_request_not_history", fields)
    if want.kind == "send":
        unlike = _first_unlike(want.what, sent)
        if unlike is not None:
            return _messages(want.what, sent, unlike)
        return Finding("loop_request_other_tools" if got.tools else "loop_request_no_tools", facts)
    went_on = WENT_ON.get(agent.ending, "loop_answer_went_on")
    return Finding("loop_results_missing" if want.kind == "run" else went_on, facts)


def _call_text(what: Any) -> str:
    return f"{what[0]} {shown(json.dumps(what[1], ensure_ascii=False), 60)}"


# -- the verdict ----------------------------------------------------------------------------------

_AGENT_RUNS: dict[str, list[LoopRun]] = {}  # per language: the Agent's runs of the cases so far, always the same


@cache
def _cases(lang: str) -> list[LoopCase]:
    return loop_cases(lang)


def first_difference(
    loop: LoopFunction, cases: list[LoopCase] | None = None, lang: str | None = None
) -> tuple[LoopCase, Finding] | None:
    """The first case (smallest first) where ``loop`` and the Agent differ, and the mistake there;
    None when they agree on every case. ``NotImplementedError`` from the loop passes through."""
    language = resolve_language(lang)
    known = _AGENT_RUNS.setdefault(language, []) if cases is None else []
    for index, case in enumerate(_cases(language) if cases is None else cases):
        if index == len(known):
            known.append(run_agent(case))
        finding = diagnose(known[index], run_loop(loop, case), case)
        if finding is not None:
            return case, finding
    return None


def _shown(message: Any, lang: str | None) -> list[str]:
    """A message as indented JSON, a key a line and each tool call on a line of its own, strings cut."""
    dump = json.JSONEncoder(ensure_ascii=False, default=str).encode
    if not isinstance(message, dict):
        return [say("(none: the history ends before it)", lang=lang) if message is None else shown(dump(message), 200)]
    lines = ["{"]
    for position, (key, value) in enumerate(message.items()):
        comma = "," if position < len(message) - 1 else ""
        if isinstance(value, list) and value:
            items = [f"    {dump(_short(item))}," for item in value]
            lines += [f"  {dump(key)}: [", *items[:-1], items[-1][:-1], f"  ]{comma}"]
        else:
            lines.append(f"  {dump(key)}: {dump(_short(value))}{comma}")
    lines.append("}")
    extra = len(lines) - SHOWN_LINES + 1
    return [*lines[: SHOWN_LINES - 1], say("… ({count} more lines)", lang=lang, count=extra)] if extra > 1 else lines


def _short(value: Any) -> Any:
    """``value`` with every string in it cut to SHOWN_STRING characters."""
    if isinstance(value, str):
        return value if len(value) <= SHOWN_STRING else value[: SHOWN_STRING - 1] + "…"
    if isinstance(value, dict):
        return {key: _short(item) for key, item in value.items()}
    return [_short(item) for item in value] if isinstance(value, list) else value


def _said(answer: Message) -> str:
    """An answer of a generated case in one line: its content, its calls."""
    calls = [f"{c['function']['name']} {c['function']['arguments']} (id {c['id']})" for c in _calls(answer)]
    said = "content " + json.dumps(answer.get("content"), ensure_ascii=False)
    return f"{said}, tool_calls: {', '.join(calls)}" if calls else said


def explain(case: LoopCase, finding: Finding, lang: str | None = None) -> list[str]:
    """The verdict's lines: the mistake, the case, where your code raised, the two messages that differ."""
    fields = {**finding.fields, "hint": say(MISTAKES[finding.fields.get("hint", "loop_hint_generic")], lang=lang)}
    lines = [say("✗ not solved yet: {detail}", lang=lang, detail=say(MISTAKES[finding.key], lang=lang, **fields))]
    if case.answers:
        lines.append(
            say(
                "the smallest case where they differ: max_steps={max_steps}, max_tool_calls={max_tool_calls}, and "
                "the model answers",
                lang=lang,
                max_steps=case.max_steps,
                max_tool_calls=case.max_tool_calls,
            )
        )
        lines += [f"  {number}. {_said(answer)}" for number, answer in enumerate(case.answers, 1)]
    else:
        lines.append(say("the case where they differ: {name}", lang=lang, name=case.name))
    if finding.where:
        lines.append(say("where, in your code:", lang=lang))
        frames = [
            (say("line {line}, in {name}", lang=lang, line=line, name=name), code) for line, name, code in finding.where
        ]
        lines += [f"  {frame}: {code}" if code else f"  {frame}" for frame, code in frames]
    if finding.shown is not None:
        number, want, got = finding.shown
        agents = translatable("message {number} in the Agent's history:")
        yours = translatable("message {number} in yours:")
        for label, message in ((agents, want), (yours, got)):
            lines += [say(label, lang=lang, number=number), *(f"  {line}" for line in _shown(message, lang))]
    return [lines[0], *(f"  {line}" for line in lines[1:])]


def check_loop(loop: LoopFunction, cases: list[LoopCase] | None = None, lang: str | None = None) -> str:
    """ "✓ solved" when ``loop`` does what the Agent does on every case, else "✗ not solved yet" and the
    first mistake, explained; in ``lang`` (``current_language()`` when None)."""
    language = resolve_language(lang)
    if not callable(loop):
        return say(
            "✗ not solved yet: {detail}",
            lang=language,
            detail=say("my_loop should be a function, not {kind}", lang=language, kind=type(loop).__name__),
        )
    try:
        found = first_difference(loop, cases, language)
    except NotImplementedError:
        return say(
            "✗ not solved yet: {detail}",
            lang=language,
            detail=say("your loop raises NotImplementedError (the stub). Write it in the cell above.", lang=language),
        )
    if found is None:
        count = len(_cases(language) if cases is None else cases)
        return say(
            "✓ solved: {detail}",
            lang=language,
            detail=say(
                "your loop and the Agent agree on all {count} cases (every short conversation, each limit at and "
                "around its boundary, and the shop run)",
                lang=language,
                count=count,
            ),
        )
    return "\n".join(explain(*found, language))
