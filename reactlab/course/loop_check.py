"""The check of notebook 04: your loop beside reactlab's Agent, on every short conversation.

    from reactlab.course.loop_check import check_loop
    print(check_loop(my_loop))             # in the language set_language set; lang="ru" says it here

The cases are the model's answers, enumerated from a small table (ANSWERS), not sampled: up to two
answers that ask for tools, then one that ends the run, with both limits at their boundary (for a
final answer, one below and one above it too); then the shop run (its scripted cassette, the results
replayed). Smallest first, the same order every time: the first difference is a smallest one, and a
notebook prints the same verdict on every run. Both loops are watched on each case (``watch.py``) and
their traces compared: the requests sent, the tools run, the ending, the history left. The first
difference is described in a line (its *signature*, such as ``raises ToolCallLimitExceeded / ran
partly``), and the catalogue of beginner mistakes (``mistakes.json``: when, and what to say) names it.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from importlib.resources import files
from itertools import product
from typing import Any

from ..core.language import Language, resolve_language, say, translatable
from ..core.prompts import system_prompt
from ..replay.scripted import Script
from ..samples import SHOP
from . import watch
from .replayed import ReplayedTool
from .student import shown
from .tally import TallyTool
from .watch import Event, LoopCase, LoopFunction, LoopRun, Message, run_agent, run_loop

__all__ = ["ANSWERS", "Finding", "check_loop", "diagnose", "explain", "first_difference", "loop_cases"]

ENDINGS = ("EmptyAnswer", "InvalidAssistantMessage", "StepLimitExceeded", "ToolCallLimitExceeded")  # reactlab's own
ANSWERS = {  # a kind of answer: its content ("said": a sentence), its calls' texts ("" is refused; "twice": one id)
    "call": ("", "x"),
    "text and a call": ("said", "x"),
    "null and a call": (None, "x"),
    "two calls": ("", "xx"),
    "a refused call": ("", " "),
    "answer": ("Done.", ""),
    "spaced answer": (" Done.\n", ""),
    "empty": ("", ""),
    "blank": (" \n", ""),
    "null": (None, ""),
    "one id twice": ("", "twice"),
}
ASKING, ENDING = list(ANSWERS)[:5], list(ANSWERS)[5:]
MISTAKES: list[dict[str, Any]] = json.loads(files(__package__).joinpath("mistakes.json").read_text("utf-8"))
SHOWN_LINES, SHOWN_STRING = 14, 90  # lines of a message shown in a verdict, characters of a string in it


def _answer(kind: str, ids: Any, letters: Any, lang: Language) -> Message:
    content, texts = ANSWERS[kind]
    said = {"said": say("Let me number it.", lang=lang), "Done.": say("Done.", lang=lang)}
    answer = {"role": "assistant", "content": said.get(content, content) if content else content}
    if content == " Done.\n":
        answer["content"] = f" {said['Done.']}\n"
    calls = [("call_twice", "") for _ in "xx"] if texts == "twice" else [(f"call_{next(ids)}", t) for t in texts]
    return {**answer, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "tally", "arguments": json.dumps(
            {"text": next(letters) if text == "x" else ""})}} for i, text in calls
    ]} if calls else answer  # fmt: skip


def _case(kinds: tuple[str, ...], steps: int, calls: int, lang: Language) -> LoopCase:
    ids, letters = iter(range(1, 99)), iter("abcdefghijklmnopqrstuvwxyz")
    answers = tuple(_answer(kind, ids, letters, lang) for kind in kinds)

    def client() -> Any:
        script = Script()
        for answer in answers:
            script.message(answer, "tool_calls" if answer.get("tool_calls") else "stop")
        return script.client()

    task = say("Use the tally tool, then answer.", lang=lang)
    return LoopCase("", client, lambda: [TallyTool(lang)], task, system_prompt(lang), steps, calls, answers)


def loop_cases(lang: str | None = None) -> list[LoopCase]:
    """Every case, smallest first, in ``lang`` (``current_language()`` when None)."""
    language = resolve_language(lang)
    cases = []
    for kinds in (k for length in range(3) for k in product(ASKING, repeat=length)):
        for ending in ENDING:
            steps, calls = len(kinds) + 1, sum(len(ANSWERS[kind][1]) for kind in kinds)
            limits = [(steps, calls)]
            if ending == "answer":
                limits += [(steps - 1, calls), (steps, calls - 1), (steps + 1, calls), (steps, calls + 1)]
            if ending == "one id twice":
                limits = [(steps, calls + 2)]  # the ids, not the limit, are why the Agent refuses it
            cases += [_case((*kinds, ending), s, c, language) for s, c in limits if s >= 1 and c >= 0]
    cassette = SHOP.cassette(language)
    first = cassette.interactions[0]["request"]["messages"]
    name = say("the shop run (scripted cassette, tool results replayed)", lang=language)
    tools = lambda: ReplayedTool.from_cassette(cassette)  # noqa: E731
    return [*cases, LoopCase(name, cassette.client, tools, first[1]["content"], first[0]["content"])]


# -- comparing two traces -------------------------------------------------------------------------


@dataclass
class Finding:
    """A mistake: what it says (from MISTAKES) and the facts it takes, a message to show on both sides
    (its number from 1, the Agent's, yours) and the lines of the student's code an error came through."""

    says: str
    fields: dict[str, Any] = field(default_factory=dict)
    shown: tuple[int, Any, Any] | None = None
    where: tuple[tuple[int, str, str], ...] = ()


def _named(signature: str) -> str:
    """What the catalogue says for the first mistake whose ``when`` matches ``signature``."""
    return str(next(m for m in MISTAKES if any(fnmatchcase(signature, when) for when in m["when"]))["says"])


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


def _get(message: Any, key: str) -> Any:
    return message.get(key) if isinstance(message, dict) else None


def _calls(message: Any) -> list[Any]:
    calls = _get(message, "tool_calls")
    return calls if isinstance(calls, list) else []


def _message(wants: list[Any], gots: list[Any], index: int) -> tuple[str, dict[str, Any]]:
    """Two histories that agree up to message ``index`` (from 0): the signature of the difference there."""
    want, got = (wants[index] if index < len(wants) else None), (gots[index] if index < len(gots) else None)
    asked = max((p for p in range(min(index, len(wants))) if _get(wants[p], "role") == "assistant"), default=-1)
    ids = sorted(str(_get(c, "id")) for c in _calls(wants[asked] if asked >= 0 else None))
    role = "none" if got is None else _get(got, "role") if isinstance(got, dict) else "not a message"
    other = isinstance(got, dict) and "tool_call_id" in got and got["tool_call_id"] != _get(want, "tool_call_id")
    answering = sorted(str(_get(m, "tool_call_id")) for m in gots[asked + 1 : asked + 1 + len(ids)])
    flags = [
        '"ok": false' in str(_get(want, "content")) and "refused",
        any(_same(want, m) for m in gots[index + 1 :]) and "later",
        bool(_calls(want)) and not _calls(got) and "lost calls",
        isinstance(got, dict) and "tool_call_id" not in got and "no id",
        other and ("other id reordered" if answering == ids else "other id"),
        _content(want, got),
    ]
    facts = {"number": index + 1, "asked": len(ids), "answered": index - asked - 1, "role": role,
             "kind": shown(got, 80), "type": type(_get(got, "content")).__name__,
             "id": shown(_get(got, "tool_call_id"))}  # fmt: skip
    return f"message {_get(want, 'role')} / {role}: {' '.join(f for f in flags if f)}", facts


def _content(want: Any, got: Any) -> str:
    """How the content of a tool message differs from the Agent's: "" when it is JSON text."""
    content = _get(got, "content")
    if not isinstance(content, str):
        return "not text"
    try:
        return "a list" if isinstance(json.loads(content), list) else ""
    except (ValueError, RecursionError):
        try:
            python = ast.literal_eval(content)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return "not json"
        return "python" if ("json", python) == _comparable(want)["content"] else "not json"


def _did(event: Event, agent: bool) -> str:
    """What a loop did, in a word or two: "asks", "runs", "returns", "raises X" (yours: "asked"…)."""
    key = event.what[0] if event.kind == "end" else event.kind
    verbs = {"send": ("asks", "asked"), "run": ("runs", "ran"), "answer": ("returns", "returned")}
    return verbs[key][not agent] if key in verbs else f"{('raises', 'raised')[not agent]} {key}"


def diagnose(agent: LoopRun, yours: LoopRun, case: LoopCase) -> Finding | None:
    """The first mistake of your loop on this case, or None when it does what the Agent does."""
    facts = {"seconds": f"{watch.TIME_LIMIT:g}", "requests": sum(1 for e in yours.events if e.kind == "send"),
             "limit": case.max_tool_calls, "max_steps": case.max_steps, "agent": agent.ending, "kind": yours.ending,
             "ending": yours.ending, "answer": shown(yours.answer, 80, repr),
             "detail": yours.detail.rstrip(". ") or "—"}  # fmt: skip
    signature, messages, where = _signature(agent, yours, case, facts)
    return None if signature is None else Finding(_named(signature), facts, messages, where)


def _signature(agent: LoopRun, yours: LoopRun, case: LoopCase, facts: dict[str, Any]) -> tuple[str | None, Any, Any]:
    """The first difference of the two traces, in a line the catalogue's ``when`` matches; with the
    facts its text may take (into ``facts``), the two messages to show, and your lines."""
    if yours.ending == "too long":
        return "too long", None, ()
    for event in yours.events:  # what a loop must never do, wherever it does it
        if event.kind == "run" and not isinstance(event.what[1], dict):
            return f"run: arguments as {type(event.what[1]).__name__}", None, ()
    pairs = enumerate(zip(agent.events, yours.events, strict=False))
    position = next((i for i, (want, got) in pairs if not _alike(want, got)), None)
    if position is None:
        return _history(agent, yours, facts)
    want, got = agent.events[position], yours.events[position]
    step = sum(1 for e in yours.events[:position] if e.kind == "send")  # the answers your loop had been given
    places = [i for i, m in enumerate(agent.history) if _get(m, "role") == "assistant"]
    answers = case.answers or [agent.history[i] for i in places]
    answer = answers[step - 1] if 0 < step <= len(answers) else None
    place = places[step - 1] if 0 < step <= len(places) else len(agent.history)  # refused: it would come next
    ran = _runs(yours.events[position:]) if got.kind == "run" else _runs(yours.events[:position][::-1])
    ids = [str(_get(c, "id")) for c in _calls(answer)]
    facts.update(request=step + 1, steps=step, number=place + 1, asked=len(ids), ran=ran, answered=ran,
                 done=sum(1 for m in agent.history[:place] if _get(m, "role") == "tool"),
                 id=next((i for i in ids if ids.count(i) > 1), "?"))  # fmt: skip
    if got.kind == "send":
        return _request(want, got, facts)
    if got.kind == "run" and want.kind == "run":
        facts.update(yours=_call_text(got.what), agent=_call_text(want.what))
        streak = agent.events[position : position + _runs(agent.events[position:])]
        return "run: " + ("other order" if any(e.what == got.what for e in streak) else "other call"), None, ()
    did = _did(got, agent=False)
    if got.kind == "end" and got.what[0] not in (*ENDINGS, "answer"):  # a crash of the loop's own code
        before = yours.events[position - 1] if position else None
        refused = before is not None and before.kind == "run" and before.tools  # it raised on a tool's refusal
        hint = "after a refusal" if refused else f"{got.what[0]}: {facts['detail']}"
        facts["hint"] = _named(f"hint {hint}" + ("" if yours.where else " (not in your code)"))
        if want.kind != "end" or want.what[0] not in ENDINGS or facts["hint"] != _named("hint"):
            did = "crashed"
    flags = ["partly"] if 0 < ran < len(ids) else []
    flags += ["with calls"] if ids else []
    flags += ["after runs"] if ran and got.kind == "end" else []
    return f"{_did(want, agent=True)} / {did}: {' '.join(flags)}", None, yours.where


def _runs(events: list[Event]) -> int:
    """How many tool calls ran at the start of ``events``, before anything else happened."""
    return next((i for i, e in enumerate(events) if e.kind != "run"), len(events))


def _call_text(what: Any) -> str:
    return f"{what[0]} {shown(json.dumps(what[1], ensure_ascii=False), 60)}"


def _alike(want: Event, got: Event) -> bool:
    if want.kind != "send" or got.kind != "send":
        return want.kind == got.kind and bool(want.what == got.what)
    sent = got.what if isinstance(got.what, list) else None
    return (got.twice is None and sent is not None and _first_unlike(want.what, sent) is None
            and _first_unlike(sent, got.held) is None and want.tools == got.tools)  # fmt: skip


def _request(want: Event, got: Event, facts: dict[str, Any]) -> tuple[str, Any, Any]:
    """Your loop sent a request where the Agent did ``want`` (or sent another one)."""
    sent, held = got.what, got.held
    if got.twice is not None:
        facts.update(first=got.twice[0] + 1, second=got.twice[1] + 1)
        return "request: one dict twice", None, ()
    unlike = _first_unlike(sent, held) if isinstance(sent, list) else 0
    if unlike is not None:
        facts.update(sent=len(sent) if isinstance(sent, list) else 0, held=len(held), number=unlike + 1)
        return "request: " + ("a new list" if unlike == len(held) < facts["sent"] else "not the history"), None, ()
    if want.kind != "send":
        return f"{_did(want, agent=True)} / asked:", None, ()
    unlike = _first_unlike(want.what, sent)
    if unlike is None:
        return "request: " + ("other tools" if got.tools else "no tools"), None, ()
    signature, more = _message(want.what, sent, unlike)
    facts.update(more)
    return signature, (unlike + 1, _at(want.what, unlike), _at(sent, unlike)), ()


def _at(messages: list[Any], index: int) -> Any:
    return messages[index] if index < len(messages) else None


def _history(agent: LoopRun, yours: LoopRun, facts: dict[str, Any]) -> tuple[str | None, Any, Any]:
    """The traces agree: the first message where the histories they left differ, if any."""
    unlike = _first_unlike(agent.history, yours.history)
    if unlike is None:
        return None, None, ()
    facts.update(number=unlike + 1)
    if unlike == len(agent.history) and agent.ending == "InvalidAssistantMessage":  # the refused answer is in yours
        ids = [str(_get(c, "id")) for c in _calls(yours.history[unlike])]
        facts.update(id=next((i for i in ids if ids.count(i) > 1), "?"))
        return "history: the refused answer appended", None, ()
    if unlike == len(yours.history) == len(agent.history) - 1 and _get(agent.history[-1], "role") == "assistant":
        missing = (unlike + 1, agent.history[-1], None)
        return f"history: the last answer missing, {_did(agent.events[-1], True)}", missing, ()
    signature, more = _message(agent.history, yours.history, unlike)
    facts.update(more)
    return signature, (unlike + 1, _at(agent.history, unlike), _at(yours.history, unlike)), ()


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
    fields = {**finding.fields, "hint": finding.fields.get("hint") and say(finding.fields["hint"], lang=lang)}
    lines = [say("✗ not solved yet: {detail}", lang=lang, detail=say(finding.says, lang=lang, **fields))]
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
    not_yet = translatable("✗ not solved yet: {detail}")
    if not callable(loop):
        detail = say("my_loop should be a function, not {kind}", lang=language, kind=type(loop).__name__)
        return say(not_yet, lang=language, detail=detail)
    try:
        found = first_difference(loop, cases, language)
    except NotImplementedError:
        detail = say("your loop raises NotImplementedError (the stub). Write it in the cell above.", lang=language)
        return say(not_yet, lang=language, detail=detail)
    if found is not None:
        return "\n".join(explain(*found, language))
    count = len(_cases(language) if cases is None else cases)
    detail = say(
        "your loop and the Agent agree on all {count} cases (every short conversation, each limit at and around its "
        "boundary, and the shop run)",
        lang=language,
        count=count,
    )
    return say("✓ solved: {detail}", lang=language, detail=detail)
