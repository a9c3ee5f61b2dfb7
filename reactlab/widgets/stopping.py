"""Scheme 4: when the agent stops. A final answer and a stop by a limit are different endings;
an empty or truncated answer is an error. The path this run took is drawn bold, its end coloured."""

from __future__ import annotations

from collections import Counter

from ..record import RunRecord
from .base import COLOURS, SchemeView, esc, frame, run_id

__all__ = ["scheme4_stopping", "stopping_html"]

_W, _H = 124, 50
_COLUMNS = tuple(10 + 150 * i for i in range(6))
_ROWS = (8, 40, 112, 184, 256)
# name: (column, row, label, colour); the main line runs left to right, errors sit above or below it.
_NODES = {
    "answered": (0, 2, "model call k\nanswered", "model"),
    "usable": (1, 2, "usable answer?\nAPI ok, whole, valid", "plain"),
    "broken": (1, 1, "error:\n{reason}", "error"),
    "has_calls": (2, 2, "tool_calls?", "plain"),
    "has_text": (2, 3, "non-empty text?", "plain"),
    "final": (2, 4, "final answer", "ok"),
    "empty": (3, 3, "error:\nempty answer", "error"),
    "within": (3, 2, "within\nmax_tool_calls?", "plain"),
    "tool_limit": (3, 1, "error:\ntool-call limit", "error"),
    "run_tools": (4, 2, "run each call,\nappend results", "tool"),
    "steps_left": (5, 2, "model calls\nleft?", "plain"),
    "step_limit": (5, 3, "error:\nstep limit", "error"),
}
# (from, to, label)
_EDGES = [
    ("answered", "usable", ""),
    ("usable", "broken", "no"),
    ("usable", "has_calls", "yes"),
    ("has_calls", "within", "yes"),
    ("has_calls", "has_text", "no"),
    ("has_text", "final", "yes"),
    ("has_text", "empty", "no"),
    ("within", "tool_limit", "no"),
    ("within", "run_tools", "yes"),
    ("run_tools", "steps_left", ""),
    ("steps_left", "step_limit", "no"),
    ("steps_left", "answered", "yes: call k+1"),
]
_END_NODE = {
    "answer": "final",
    "empty_answer": "empty",
    "tool_call_limit": "tool_limit",
    "step_limit": "step_limit",
}


def _box(name: str) -> tuple[float, float]:
    column, row, _, _ = _NODES[name]
    return _COLUMNS[column], _ROWS[row]


def _edge_path(source: str, target: str) -> tuple[str, float, float]:
    """The path of an edge and where its label goes."""
    (x1, y1), (x2, y2) = _box(source), _box(target)
    if (source, target) == ("steps_left", "answered"):  # the loop back to the next model call
        top = _ROWS[0] + 12
        path = f"M{x1 + _W / 2:g} {y1:g} L{x1 + _W / 2:g} {top:g} L{x2 + _W / 2:g} {top:g} L{x2 + _W / 2:g} {y2 - 4:g}"
        return path, (x1 + x2 + _W) / 2, top - 3
    if y1 == y2:
        return f"M{x1 + _W:g} {y1 + _H / 2:g} L{x2 - 4:g} {y2 + _H / 2:g}", x1 + _W + 4, y1 + _H / 2 - 5
    if y2 < y1:
        return f"M{x1 + _W / 2:g} {y1:g} L{x2 + _W / 2:g} {y2 + _H + 4:g}", x1 + _W / 2 + 5, y1 - 8
    return f"M{x1 + _W / 2:g} {y1 + _H:g} L{x2 + _W / 2:g} {y2 - 4:g}", x1 + _W / 2 + 5, y1 + _H + 14


def _label(x: float, y: float, text: str, weight: str) -> str:
    lines = text.split("\n")
    first = y + _H / 2 + 4 - 7 * (len(lines) - 1)
    spans = "".join(f'<tspan x="{x:g}" y="{first + 14 * i:g}">{esc(line)}</tspan>' for i, line in enumerate(lines))
    return f'<text text-anchor="middle" font-size="11" font-weight="{weight}" fill="currentColor">{spans}</text>'


def _times(x: float, y: float, count: int) -> str:
    """How many times the run passed a node, as a small badge on its corner."""
    if count < 2:
        return ""
    return (
        f'<text class="rl-times" x="{x + _W - 4:g}" y="{y + 11:g}" text-anchor="end" font-size="10" '
        f'fill="currentColor">×{count}</text>'
    )


def _visits(record: RunRecord) -> tuple[Counter[str], Counter[tuple[str, str]], str | None]:
    """How often the run passed each node and edge, and where it ended."""
    nodes: Counter[str] = Counter()
    edges: Counter[tuple[str, str]] = Counter()

    def go(*path: str) -> None:
        nodes.update(path)
        edges.update(zip(path, path[1:], strict=False))

    calls = len(record.model_calls)
    for call in record.model_calls:
        last = call.number == calls
        if record.executions_of(call.number) or not last:
            go("answered", "usable", "has_calls", "within", "run_tools", "steps_left")
            if not last:
                edges[("steps_left", "answered")] += 1
    reason = record.stop_reason
    if reason is None:
        return nodes, edges, None
    end = _END_NODE.get(reason, "broken")
    if calls and end == "step_limit":
        go("steps_left", "step_limit")
    elif calls and end == "tool_limit":
        go("answered", "usable", "has_calls", "within", "tool_limit")
    elif calls and end == "final":
        go("answered", "usable", "has_calls", "has_text", "final")
    elif calls and end == "empty":
        go("answered", "usable", "has_calls", "has_text", "empty")
    else:
        go("answered", "usable", "broken")
    return nodes, edges, end


def stopping_html(record: RunRecord) -> str:
    uid = run_id(record)
    nodes, edges, end = _visits(record)
    parts = [
        f'<defs><marker id="{uid}-stop-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" '
        'markerHeight="8" markerUnits="userSpaceOnUse" orient="auto"><path d="M0 0 L10 5 L0 10 z" '
        'fill="context-stroke"/></marker></defs>'
    ]
    for source, target, label in _EDGES:
        count = edges[(source, target)]
        width, opacity = ("2.6", "1") if count else ("1.2", "0.4")
        path, lx, ly = _edge_path(source, target)
        if (source, target) == ("steps_left", "answered") and count:
            label = f"{label} ×{count}"
        parts.append(
            f'<g class="rl-edge{" rl-taken" if count else ""}" data-edge="{source}-{target}" data-count="{count}" '
            f'opacity="{opacity}"><path d="{path}" fill="none" stroke="currentColor" '
            f'stroke-width="{width}" marker-end="url(#{uid}-stop-arrow)"/>'
            f'<text x="{lx:g}" y="{ly:g}" font-size="10.5" fill="currentColor">{esc(label)}</text></g>'
        )
    for name, (_, _, label, colour) in _NODES.items():
        x, y = _box(name)
        visited, is_end = nodes[name] > 0, name == end
        fill, line = COLOURS[colour]
        if name == "broken":
            label = label.format(reason=record.stop_reason if is_end else "API, cut off or invalid")
        classes = "rl-node" + (" rl-visited" if visited else "") + (" rl-end" if is_end else "")
        parts.append(
            f'<g class="{classes}" data-node="{name}" opacity="{"1" if visited or colour != "error" else "0.5"}">'
            f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="8" fill="{fill}" stroke="{line}" '
            f'stroke-width="{"4" if is_end else "2" if visited else "1"}"/>'
            f"{_label(x + _W / 2, y, label, '700' if visited else '400')}{_times(x, y, nodes[name])}</g>"
        )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 910 316" width="910" '
        f'style="max-width: 100%; height: auto; color: inherit" role="img" aria-label="When the agent stops">'
        f"{''.join(parts)}</svg>"
    )
    verdict = "a final answer" if record.succeeded else f"an error ({record.stop_reason})"
    caption = (
        f'<div class="rl-caption">This run: {len(record.model_calls)} model calls (limit {record.max_steps}), '
        f"{len(record.tool_executions)} tool executions (limit {record.max_tool_calls}); it ended with "
        f"{esc(verdict)}.</div>"
    )
    return frame("stopping", "Scheme 4 · When the agent stops", svg + caption, element_id=f"{uid}-stopping")


def scheme4_stopping(record: RunRecord) -> SchemeView:
    """The stop decision, with the path this run took and its ending highlighted."""
    return SchemeView(stopping_html(record), f"Scheme 4: stopping, ended with {record.stop_reason}")
