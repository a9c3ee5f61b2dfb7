"""Scheme 2: one tool call as a sequence. The agent sends messages and tools; the model returns
tool_calls; the agent validates them and runs the tool; the tool message, with the call's id as its
tool_call_id, goes into the next request. Each arrow opens to show its real JSON.

"Agent" here is the control part of the system; in Scheme 1 it is the whole system. Each lane has a
lifeline down its middle, and each arrow runs from one lifeline to the other (the table has two
columns a lane). The table keeps the three lanes apart where inline styles are stripped."""

from __future__ import annotations

from typing import Any

from ..core.json_text import read_json
from ..core.language import Language, say, translatable
from ..core.record import RunRecord
from ..summary import describe_arguments, language_of
from .base import SchemeView, badges_of, outcome_of, repairs_of, run_id
from .markup import render, shorten

__all__ = ["default_step", "scheme2_tool_call", "sequence_html"]

_LANES = {"model": 1, "agent": 2, "tool": 3}  # the agent in the middle: no arrow crosses a lane


def default_step(record: RunRecord) -> int:
    """The first model call that asked for exactly one tool (the article's close-up), else the first
    that asked for any."""
    asked = [call.number for call in record.model_calls if record.executions_of(call.number)]
    if not asked:
        raise ValueError("this run has no tool call to draw")
    single = [number for number in asked if len(record.executions_of(number)) == 1]
    return (single or asked)[0]


def _cells(first: int, span: int) -> tuple[list[str], list[str]]:
    """The empty cells before and after a cell that takes ``span`` of the six half-lane columns from
    column ``first`` (1-based): each names the side on which it draws a lifeline ("right", "left"),
    or "" (a lane's center is the boundary between its two half columns: 1|2, 3|4, 5|6)."""
    side = {1: "right", 2: "left", 3: "right", 4: "left", 5: "right", 6: "left"}
    before = [side[c] for c in range(1, first)]
    after = [side[c] for c in range(first + span, 7)]
    return before, after


def _arrow(source: str, target: str, label: str, payload: Any, kind: str, **extra: Any) -> dict[str, Any]:
    """An arrow from the center of one lane to the center of another: it spans the half of each lane
    that faces the other, so both its ends sit on the lanes' lifelines."""
    a, b = _LANES[source], _LANES[target]
    before, after = _cells(2 * min(a, b), 2 * abs(b - a))
    return {
        "source": source, "target": target, "rightward": b > a, "span": 2 * abs(b - a),
        "before": before, "after": after,
        "label": label, "payload": payload, "kind": kind, "ids": [], "flags": [], "repairs": [], **extra,
    }  # fmt: skip


def _arguments(text: str) -> Any:
    try:
        return read_json(text)
    except ValueError:
        return text


def sequence_html(record: RunRecord, step: int | None = None, *, lang: Language = "en") -> str:
    step = step if step is not None else default_step(record)
    if not 1 <= step <= len(record.model_calls):
        raise ValueError(f"step must be between 1 and {len(record.model_calls)}, not {step}")
    executions = record.executions_of(step)
    if not executions:
        raise ValueError(f"model call {step} asked for no tool")
    call = record.model_calls[step - 1]
    request = call.request
    ids = [e.call_id for e in executions]
    rows = [
        _arrow(
            "agent", "model",
            say("POST /chat/completions: {messages} messages + {tools} tool definitions", lang=lang,
                messages=len(request.get("messages") or []), tools=len(request.get("tools") or [])),
            request, "model",
        ),
        _arrow(
            "model", "agent",
            say("tool_calls: {names} (arguments are JSON strings), id", lang=lang,
                names=shorten(", ".join(str(e.name) for e in executions), 120)),
            call.message, "model", ids=ids, repairs=repairs_of(call, lang),
        ),
        {"note": say("validate: ids present and fresh, arguments a string → json.loads → an object; find the tool",
                     lang=lang),
         "before": _cells(3, 2)[0], "after": _cells(3, 2)[1]},
    ]  # fmt: skip
    for execution in executions:
        kind, outcome = outcome_of(execution.result, lang)
        rows.append(
            _arrow("agent", "tool", f"{shorten(execution.name, 40)}({describe_arguments(execution, 40)})",
                   _arguments(execution.arguments), "tool")
        )  # fmt: skip
        rows.append(
            _arrow("tool", "agent", say("result: {outcome}", lang=lang, outcome=outcome), execution.result, "tool",
                   outcome_kind=kind, flags=badges_of(execution.result, lang))
        )  # fmt: skip
    following = record.model_calls[step].messages if step < len(record.model_calls) else record.messages
    tool_messages = [m for m in following if m.get("role") == "tool" and m.get("tool_call_id") in ids]
    rows.append(
        _arrow(
            "agent", "model",
            say("request {number}: the assistant message, then {count} tool message(s) with tool_call_id",
                lang=lang, number=step + 1, count=len(tool_messages)),
            tool_messages, "model", ids=ids,
        )
    )  # fmt: skip
    count = len(executions)
    title = (
        translatable("Scheme 2 · One tool call, model call {step}")
        if count == 1
        else translatable("Scheme 2 · {count} tool calls in one answer, model call {step}")
    )
    return render(
        "sequence.html",
        element_id=f"{run_id(record)}-sequence-{step}",
        step=step,
        title=say(title, lang=lang, count=count, step=step),
        rows=rows,
        lang=lang,
    )


def scheme2_tool_call(record: RunRecord, step: int | None = None, *, lang: Language | None = None) -> SchemeView:
    """The exchange around model call ``step`` (default: the first that asked for a single tool).
    In ``lang``, by default the language the run was made in."""
    lang = language_of(record, lang)
    return SchemeView(sequence_html(record, step, lang=lang), say("Scheme 2: one tool call", lang=lang))
