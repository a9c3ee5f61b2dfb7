"""Scheme 4: when the agent stops. A final answer and a stop by a limit are different endings;
an empty or truncated answer is an error. The path this run took is drawn bold, its end coloured:
the model's yellow for the answer, violet for a limit, red for an error."""

from __future__ import annotations

from collections import Counter

from ..core.language import Language, say, translatable
from ..core.record import RunRecord
from ..summary import language_of, stop_phrase
from .base import COLOURS, SchemeView, run_id, stop_kind
from .markup import arrow_head, number, render

__all__ = ["scheme4_stopping", "stopping_html"]

_W, _H = 124, 50
_COLUMNS = tuple(10 + 150 * i for i in range(6))
_ROWS = (8, 40, 112, 184, 256)
# name: (column, row, colour); the main line runs left to right, errors sit above or below it.
_NODES = {
    "answered": (0, 2, "model"),
    "usable": (1, 2, "plain"),
    "broken": (1, 1, "error"),
    "has_calls": (2, 2, "plain"),
    "has_text": (2, 3, "plain"),
    "final": (2, 4, "model"),
    "empty": (3, 3, "error"),
    "within": (3, 2, "plain"),
    "tool_limit": (3, 1, "limit"),
    "run_tools": (4, 2, "tool"),
    "steps_left": (5, 2, "plain"),
    "step_limit": (5, 3, "limit"),
}
# (from, to, label): "yes", "no", the loop back, or none
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
    ("steps_left", "answered", "again"),
]


def _labels(lang: Language | None) -> dict[str, str]:
    """The label of each node (lines split at newlines) and each edge label, by name."""
    return {
        "answered": say("model call k", lang=lang),
        "usable": say("usable answer?\narrived, whole,\nvalid", lang=lang),
        "broken": translatable("error:\n{reason}"),
        "has_calls": say("tool_calls?", lang=lang),
        "has_text": say("non-empty text?", lang=lang),
        "final": say("final answer", lang=lang),
        "empty": say("error:\nempty answer", lang=lang),
        "within": say("within\nmax_tool_calls?", lang=lang),
        "tool_limit": say("stop:\ntool-call limit", lang=lang),
        "run_tools": say("run each call,\nappend results", lang=lang),
        "steps_left": say("model calls\nleft?", lang=lang),
        "step_limit": say("stop:\nmodel-call limit", lang=lang),
        "yes": say("yes", lang=lang),
        "no": say("no", lang=lang),
        "again": say("yes: call k+1", lang=lang),
        "": "",
    }


_END_NODE = {
    "answer": "final",
    "empty_answer": "empty",
    "tool_call_limit": "tool_limit",
    "step_limit": "step_limit",
}


def _wrap(text: str, width: int = 18) -> list[str]:
    """Words in lines of at most ``width`` characters (a longer word gets a line of its own), so that
    a reason fits the width of a box."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _box(name: str) -> tuple[float, float]:
    column, row, _ = _NODES[name]
    return _COLUMNS[column], _ROWS[row]


def _edge_path(source: str, target: str) -> tuple[str, float, float, str]:
    """The path of an edge, where its label goes, and its arrowhead."""
    (x1, y1), (x2, y2) = _box(source), _box(target)
    if (source, target) == ("steps_left", "answered"):  # the loop back to the next model call
        top = _ROWS[0] + 12
        left = x2 + _W / 2
        path = f"M{x1 + _W / 2:g} {y1:g} L{x1 + _W / 2:g} {top:g} L{left:g} {top:g} L{left:g} {y2 - 1:g}"
        return path, (x1 + x2 + _W) / 2, top - 3, arrow_head((left, y2 - 1), (left, top))
    if y1 == y2:
        start, end = (x1 + _W, y1 + _H / 2), (x2 - 1, y2 + _H / 2)
        label = (x1 + _W + 4, y1 + _H / 2 - 5)
    elif y2 < y1:
        start, end = (x1 + _W / 2, y1), (x2 + _W / 2, y2 + _H + 1)
        label = (x1 + _W / 2 + 5, y1 - 8)
    else:
        start, end = (x1 + _W / 2, y1 + _H), (x2 + _W / 2, y2 - 1)
        label = (x1 + _W / 2 + 5, y1 + _H + 14)
    path = f"M{start[0]:g} {start[1]:g} L{end[0]:g} {end[1]:g}"
    return path, label[0], label[1], arrow_head(end, start, 8)


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
    if calls and end == "step_limit":  # the last call's pass through "steps_left" is counted above
        nodes["step_limit"] += 1
        edges[("steps_left", "step_limit")] += 1
    elif calls and end == "tool_limit":
        go("answered", "usable", "has_calls", "within", "tool_limit")
    elif calls and end == "final":
        go("answered", "usable", "has_calls", "has_text", "final")
    elif calls and end == "empty":
        go("answered", "usable", "has_calls", "has_text", "empty")
    else:
        go("answered", "usable", "broken")
    return nodes, edges, end


def stopping_html(record: RunRecord, *, lang: Language = "en") -> str:
    labels = _labels(lang)
    nodes, edges, end = _visits(record)
    drawn_edges = []
    for source, target, edge in _EDGES:
        label = labels[edge]
        count = edges[(source, target)]
        path, lx, ly, head = _edge_path(source, target)
        if (source, target) == ("steps_left", "answered") and count:
            label = f"{label} ×{count}"
        drawn_edges.append(
            {"name": f"{source}-{target}", "count": count, "path": path, "head": head, "lx": lx, "ly": ly,
             "label": label, "width": "2.6" if count else "1.2", "opacity": "1" if count else "0.4"}
        )  # fmt: skip
    drawn_nodes = []
    for name, (_, _, colour) in _NODES.items():
        x, y = _box(name)
        visited, is_end = nodes[name] > 0, name == end
        label = labels[name]
        if name == "broken":
            reason = "\n".join(_wrap(stop_phrase(record.stop_reason, lang))) if is_end else None
            label = say(label, lang=lang, reason=reason or say("none, cut off\nor invalid", lang=lang))
        lines = label.split("\n")
        first = y + _H / 2 + 4 - 7 * (len(lines) - 1)
        drawn_nodes.append(
            {"name": name, "x": x, "y": y, "w": _W, "h": _H, "cx": x + _W / 2, "fill": COLOURS[colour][0],
             "line": COLOURS[colour][1], "visited": visited, "end": is_end, "times": nodes[name],
             "dim": not visited and colour in ("error", "limit"),
             "lines": [(first + 14 * i, text) for i, text in enumerate(lines)]}
        )  # fmt: skip
    words = stop_phrase(record.stop_reason, lang)
    if record.succeeded:
        verdict = say("a final answer", lang=lang)
    elif stop_kind(record.stop_reason) == "limit":
        verdict = say("a stop by {phrase}", lang=lang, phrase=words)
    else:
        verdict = say("an error: {phrase}", lang=lang, phrase=words)
    return render(
        "stopping.html",
        element_id=f"{run_id(record)}-stopping",
        edges=drawn_edges,
        nodes=drawn_nodes,
        calls=len(record.model_calls),
        max_steps=number(record.max_steps),
        executions=len(record.tool_executions),
        max_tool_calls=number(record.max_tool_calls),
        verdict=verdict,
        lang=lang,
    )


def scheme4_stopping(record: RunRecord, *, lang: Language | None = None) -> SchemeView:
    """The stop decision, with the path this run took and its ending highlighted.
    In ``lang``, by default the language the run was made in."""
    lang = language_of(record, lang)
    name = say("Scheme 4: stopping, ended with {reason}", lang=lang, reason=record.stop_reason)
    return SchemeView(stopping_html(record, lang=lang), name)
