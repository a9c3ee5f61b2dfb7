"""Scheme 1: the agent loop. The result of an action goes back into the next request."""

from __future__ import annotations

from ..record import RunRecord
from .base import COLOURS, SchemeView, answer_of, ended_at, esc, frame, run_id, step_of

__all__ = ["loop_html", "scheme1_loop"]

# name: (x, y, width, height, label, colour)
_NODES = {
    "task": (10, 88, 120, 44, "User task", "plain"),
    "agent": (210, 88, 130, 44, "Agent (the loop)", "plain"),
    "model": (450, 14, 160, 44, "Model", "model"),
    "tools": (450, 162, 160, 44, "Tools", "tool"),
    "answer": (10, 178, 120, 44, "Final answer", "ok"),
}
# name: (path, label, label x, label y)
_EDGES = {
    "task-agent": ("M130 110 L206 110", "task", 168, 103),
    "agent-model": ("M340 98 C390 60 400 40 446 36", "messages + tools", 345, 34),
    "model-agent": ("M450 50 C410 70 380 96 344 106", "tool_calls or text", 420, 96),
    "agent-tools": ("M340 122 C390 150 400 170 446 180", "execute", 318, 172),
    "tools-agent": ("M450 194 C400 190 370 150 344 126", "result → history", 420, 222),
    "agent-answer": ("M230 132 C200 170 170 200 134 200", "non-empty text", 140, 160),
}


_EDGE_COLOUR = {
    "agent-model": COLOURS["model"][1],
    "model-agent": COLOURS["model"][1],
    "agent-tools": COLOURS["tool"][1],
    "tools-agent": COLOURS["tool"][1],
    "agent-answer": COLOURS["ok"][1],
}


def _phase(record: RunRecord, step: int) -> tuple[set[str], str]:
    hot = {"agent-model", "model-agent"} | ({"task-agent"} if step == 1 else set())
    colour, text = answer_of(record, step)
    if record.executions_of(step):
        hot |= {"agent-tools", "tools-agent"}
    elif colour == "ok":
        hot.add("agent-answer")
    return hot, text


def loop_html(record: RunRecord, step: int | None = None) -> str:
    uid = run_id(record)
    step = step_of(record, step)
    hot, happened = _phase(record, step)
    done_tools = sum(1 for e in record.tool_executions if e.model_call <= step)
    failed = ended_at(record, step) and not record.succeeded
    parts = [
        f'<defs><marker id="{uid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" '
        'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" '
        'fill="context-stroke"/></marker></defs>'
    ]
    for name, (path, label, lx, ly) in _EDGES.items():
        on = name in hot
        width, opacity = ("3", "1") if on else ("1.3", "0.45")
        stroke = _EDGE_COLOUR.get(name, "currentColor") if on else "currentColor"
        parts.append(
            f'<g class="rl-edge{" rl-hot" if on else ""}" data-edge="{name}" opacity="{opacity}">'
            f'<path d="{path}" fill="none" stroke="{stroke}" stroke-width="{width}" '
            f'marker-end="url(#{uid}-arrow)"/>'
            f'<text x="{lx}" y="{ly}" font-size="11" fill="currentColor">{esc(label)}</text></g>'
        )
    for name, (x, y, w, h, label, colour) in _NODES.items():
        if name == "agent" and failed:
            colour = "error"
        fill, line = COLOURS[colour]
        active = name in ("agent", "model") or any(name in edge.split("-") for edge in hot)
        counter = ""
        if name == "model":
            counter = f" · call {step} of {len(record.model_calls)} (limit {record.max_steps})"
        if name == "tools":
            counter = f" · {done_tools} run (limit {record.max_tool_calls})"
        parts.append(
            f'<g class="rl-node{" rl-active" if active else ""}" data-node="{name}" '
            f'opacity="{"1" if active else "0.55"}"><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" '
            f'fill="{fill}" stroke="{line}"/><text x="{x + w / 2:g}" y="{y + 18}" text-anchor="middle" '
            f'font-size="13" font-weight="600" fill="currentColor">{esc(label)}</text>'
            f'<text x="{x + w / 2:g}" y="{y + 34}" text-anchor="middle" font-size="10.5" fill="currentColor">'
            f"{esc(counter.lstrip(' ·'))}</text></g>"
        )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 620 232" width="620" '
        f'style="max-width: 100%; height: auto; color: inherit" role="img" '
        f'aria-label="The agent loop at step {step}">{"".join(parts)}</svg>'
    )
    ending = f" The run stopped here: {esc(record.stop_reason)}." if failed else ""
    caption = f'<div class="rl-caption">Step {step}: the model returned {esc(happened)}.{ending}</div>'
    return frame("loop", "Scheme 1 · The agent loop", svg + caption, element_id=f"{uid}-loop", step=step)


def scheme1_loop(record: RunRecord, step: int | None = None) -> SchemeView:
    """The loop with model call ``step`` (default the last) highlighted, and the counts so far."""
    return SchemeView(loop_html(record, step), f"Scheme 1: loop at step {step or len(record.model_calls)}")
