"""Scheme 2: one tool call as a sequence. The agent sends messages and tools; the model returns
tool_calls; the agent validates them and runs the tool; the tool message, with the same
tool_call_id, goes into the next request. Each arrow opens to show its real JSON."""

from __future__ import annotations

import json
from typing import Any

from ..record import RunRecord
from ..summary import describe_arguments, key_lines, verdict
from .base import COLOURS, MONO, SchemeView, details, esc, frame, json_block, run_id

__all__ = ["scheme2_tool_call", "sequence_html"]

_LANES = {"model": 1, "agent": 2, "tool": 3}  # the agent in the middle: no arrow crosses a lane


def _arrow(source: str, target: str, label: str, payload: Any, kind: str) -> str:
    a, b = _LANES[source], _LANES[target]
    left, right = min(a, b), max(a, b)
    line = COLOURS[kind][1]
    head = "▶" if b > a else "◀"
    bar = (
        f'<div style="display: flex; align-items: center; gap: 4px; color: {line}">'
        + ("" if b > a else f"<span>{head}</span>")
        + f'<div style="flex: 1; border-top: 2px solid {line}"></div>'
        + (f"<span>{head}</span>" if b > a else "")
        + "</div>"
    )
    body = details(f'<span style="color: inherit">{label}</span>', json_block(payload, max_height=240))
    return (
        f'<div class="rl-arrow" data-from="{source}" data-to="{target}" '
        f'style="grid-column: {left} / {right + 1}; margin: 3px 0">{bar}{body}</div>'
    )


def _note(lane: str, text: str) -> str:
    column = _LANES[lane]
    return (
        f'<div class="rl-note" data-at="{lane}" style="grid-column: {column} / {column + 1}; margin: 3px 0; '
        f'font-style: italic; opacity: 0.85">{text}</div>'
    )


def _result_label(result: dict[str, Any]) -> str:
    label = verdict(result)
    first = key_lines(result, 0)[0]
    return f"{first} · {label} in the output" if label else first


def default_step(record: RunRecord) -> int:
    """The first model call that asked for a tool."""
    for call in record.model_calls:
        if record.executions_of(call.number):
            return call.number
    raise ValueError("this run has no tool call to draw")


def sequence_html(record: RunRecord, step: int | None = None) -> str:
    uid = run_id(record)
    step = step if step is not None else default_step(record)
    executions = record.executions_of(step)
    if not executions:
        raise ValueError(f"model call {step} asked for no tool")
    call = record.model_calls[step - 1]
    request = call.request
    rows = [
        _arrow(
            "agent",
            "model",
            f"POST /chat/completions: {len(request.get('messages', []))} messages + "
            f"{len(request.get('tools', []))} tool definitions",
            request,
            "model",
        ),
        _arrow(
            "model",
            "agent",
            f"tool_calls: {', '.join(e.name for e in executions)} (arguments are JSON strings)",
            call.message,
            "model",
        ),
        _note("agent", "validate: ids present and fresh, arguments a string → json.loads → an object; find the tool"),
    ]
    for execution in executions:
        try:
            arguments: Any = json.loads(execution.arguments)
        except ValueError:
            arguments = execution.arguments
        rows.append(
            _arrow(
                "agent", "tool", f"{esc(execution.name)}({esc(describe_arguments(execution, 40))})", arguments, "tool"
            )
        )
        rows.append(
            _arrow("tool", "agent", f"result: {esc(_result_label(execution.result))}", execution.result, "tool")
        )
    answered = {e.call_id for e in executions}
    if step < len(record.model_calls):
        following = record.model_calls[step].messages
    else:
        following = record.messages
    tool_messages = [m for m in following if m.get("role") == "tool" and m.get("tool_call_id") in answered]
    ids = ", ".join(f'<span style="{MONO}">{esc(e.call_id)}</span>' for e in executions)
    rows.append(
        _arrow(
            "agent",
            "model",
            f"request {step + 1}: the assistant message, then {len(tool_messages)} tool message(s) "
            f"with tool_call_id {ids}",
            tool_messages,
            "model",
        )
    )
    lanes = "".join(
        f'<div class="rl-lane" data-lane="{name}" style="grid-column: {column} / {column + 1}; text-align: center; '
        f'font-weight: 600; border-bottom: 1px solid rgba(127, 127, 127, 0.5); padding-bottom: 2px">'
        f"{label}</div>"
        for name, column, label in (
            ("model", 1, "Model"),
            ("agent", 2, "Agent (control part)"),
            ("tool", 3, "Tool"),
        )
    )
    grid = (
        f'<div class="rl-sequence-grid" style="display: grid; grid-template-columns: 1fr 1fr 1fr; '
        f'column-gap: 10px">{lanes}{"".join(rows)}</div>'
    )
    return frame(
        "sequence", f"Scheme 2 · One tool call, model call {step}", grid, element_id=f"{uid}-sequence", step=step
    )


def scheme2_tool_call(record: RunRecord, step: int | None = None) -> SchemeView:
    """The exchange around model call ``step`` (default: the first that asked for a tool)."""
    return SchemeView(sequence_html(record, step), "Scheme 2: one tool call")
