"""Scheme 5: the route of a run. One numbered column per model call; yellow for what the model
returned, blue for each tool execution; FAIL and OK read from the real tool output."""

from __future__ import annotations

from ..record import RunRecord, ToolExecution
from ..summary import describe_arguments, verdict
from .base import SchemeView, answer_of, box_style, esc, frame, run_id, shorten, step_of

__all__ = ["route_html", "scheme5_route"]


def _execution_cell(execution: ToolExecution, cell_id: str) -> str:
    result = execution.result
    label = verdict(result)
    if not result.get("ok", False):
        outcome, kind = f"error: {shorten(str(result.get('error', 'failed')), 80)}", "error"
    elif label is not None:
        outcome, kind = f"{label} · exit code {result.get('exit_code')}", "ok" if label == "OK" else "error"
    elif "exit_code" in result:
        outcome, kind = f"exit code {result['exit_code']}", "tool"
    elif "diff" in result:
        outcome, kind = "edited", "tool"
    else:
        outcome, kind = f"{result.get('size', '?')} bytes read", "tool"
    badge = (
        f'<span class="rl-verdict rl-is-{kind}" style="{box_style(kind)}; padding: 0 5px; font-weight: 600">'
        f"{esc(outcome)}</span>"
    )
    return (
        f'<div class="rl-cell rl-tool" id="{cell_id}" data-tool="{esc(execution.name)}" '
        f'style="{box_style("tool")}; margin-top: 6px">'
        f'<div><b>{esc(execution.name)}</b> <span style="opacity: 0.8">'
        f"{esc(describe_arguments(execution, 60, first_only=True))}</span></div>"
        f'<div style="margin-top: 3px">{badge}</div></div>'
    )


def route_html(record: RunRecord, step: int | None = None) -> str:
    uid = run_id(record)
    current = step_of(record, step)
    columns = []
    for call in record.model_calls:
        kind, text = answer_of(record, call.number)
        here = call.number == current
        cells = [
            f'<div class="rl-cell rl-{"model" if kind == "model" else kind}" style="{box_style(kind)}">'
            f"{esc(text)}</div>"
        ]
        cells += [
            _execution_cell(execution, f"{uid}-r{call.number}-t{index}")
            for index, execution in enumerate(record.executions_of(call.number), 1)
        ]
        marker = " rl-current" if here else ""
        ring = "box-shadow: 0 0 0 2px currentColor; " if here else ""
        columns.append(
            f'<div class="rl-column{marker}" id="{uid}-r{call.number}" data-call="{call.number}" '
            f'style="{ring}flex: 0 0 168px; border-radius: 8px; padding: 6px; '
            f'background: rgba(127, 127, 127, {"0.12" if here else "0.04"})">'
            f'<div class="rl-number" style="font-weight: 700; text-align: center; margin-bottom: 4px">'
            f"{call.number}</div>{''.join(cells)}</div>"
        )
    ending_kind = "ok" if record.succeeded else "error"
    ending = "final answer" if record.succeeded else f"stopped: {record.stop_reason}"
    if record.stop_reason is not None:
        columns.append(
            f'<div class="rl-column rl-end" data-stop="{esc(record.stop_reason)}" '
            f'style="flex: 0 0 96px; align-self: center; text-align: center; {box_style(ending_kind)}">'
            f"<b>{esc(ending)}</b></div>"
        )
    counts = (
        f'<div class="rl-counts" style="margin-bottom: 6px">{len(record.model_calls)} model calls · '
        f"{len(record.tool_executions)} tool executions</div>"
    )
    strip = (
        f'<div class="rl-columns" style="display: flex; gap: 8px; overflow-x: auto; padding: 4px 2px 8px; '
        f'align-items: flex-start">{"".join(columns)}</div>'
    )
    return frame("route", "Scheme 5 · The route of the run", counts + strip, element_id=f"{uid}-route", step=current)


def scheme5_route(record: RunRecord, step: int | None = None) -> SchemeView:
    """The route of ``record``; ``step`` (a model call number, default the last) is highlighted."""
    return SchemeView(route_html(record, step), f"Scheme 5: route, {len(record.model_calls)} model calls")
