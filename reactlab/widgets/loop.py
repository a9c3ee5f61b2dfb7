"""Scheme 1: the agent loop. The result of an action goes back into the next request.

"Agent" here is the whole system; in Scheme 2 it is only the control part."""

from __future__ import annotations

import re

from ..run.record import RunRecord
from ..strings import Language, SchemeTexts, language_of, strings
from .base import COLOURS, SchemeView, answer_of, ended_at, final_text, run_id, step_of, stop_kind
from .markup import arrow_head, number, render

__all__ = ["loop_html", "scheme1_loop"]

# name: (x, y, width, height, colour); the labels are in the language's table
_NODES = {
    "task": (10, 88, 120, 44, "plain"),
    "agent": (210, 88, 130, 44, "plain"),
    "model": (450, 14, 160, 44, "model"),
    "tools": (450, 162, 160, 44, "tool"),
    "answer": (10, 178, 120, 44, "model"),
}
# name: (path, label x, label y); each path ends with its last control point and its tip
_EDGES = {
    "task-agent": ("M130 110 L201 110", 168, 103),
    "agent-model": ("M340 98 C390 60 400 40 441 36", 345, 34),
    "model-agent": ("M450 50 C410 70 380 96 349 104", 420, 96),
    "agent-tools": ("M340 122 C390 150 400 170 441 179", 318, 172),
    "tools-agent": ("M450 194 C400 190 370 150 349 129", 420, 222),
    "agent-answer": ("M230 132 C200 170 170 200 139 200", 140, 160),
}
_EDGE_COLOUR = {
    "agent-model": COLOURS["model"][1],
    "model-agent": COLOURS["model"][1],
    "agent-tools": COLOURS["tool"][1],
    "tools-agent": COLOURS["tool"][1],
    "agent-answer": COLOURS["model"][1],
}


def _labels(texts: SchemeTexts) -> dict[str, str]:
    """The label of each node and edge, by name."""
    return {
        "task": texts.loop_task,
        "agent": texts.loop_agent,
        "model": texts.loop_model,
        "tools": texts.loop_tools,
        "answer": texts.loop_answer,
        "task-agent": texts.loop_edge_task,
        "agent-model": texts.loop_edge_request,
        "model-agent": texts.loop_edge_reply,
        "agent-tools": texts.loop_edge_execute,
        "tools-agent": texts.loop_edge_result,
        "agent-answer": texts.loop_edge_answer,
    }


def _tip(path: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The end of a path and the point before it, for the arrowhead's direction."""
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", path)]
    return (numbers[-2], numbers[-1]), (numbers[-4], numbers[-3])


def _phase(record: RunRecord, step: int, lang: Language) -> tuple[set[str], str]:
    hot = {"agent-model", "model-agent"} | ({"task-agent"} if step == 1 else set())
    colour, text = answer_of(record, step, lang)
    if record.executions_of(step):
        hot |= {"agent-tools", "tools-agent"}
    elif final_text(record.model_calls[step - 1]) is not None:
        hot.add("agent-answer")
    return hot, text


def loop_html(record: RunRecord, step: int | None = None, *, place: str = "", lang: Language = "en") -> str:
    """``place`` tells apart copies of the same step on one page (the viewer's pages)."""
    step = step_of(record, step)
    texts = strings(lang).schemes
    labels = _labels(texts)
    hot, happened = _phase(record, step, lang)
    done_tools = sum(1 for e in record.tool_executions if e.model_call <= step)
    failed = ended_at(record, step) and not record.succeeded
    edges = []
    for name, (path, lx, ly) in _EDGES.items():
        on = name in hot
        tip, before = _tip(path)
        edges.append(
            {
                "name": name, "path": path, "label": labels[name], "lx": lx, "ly": ly, "hot": on,
                "stroke": _EDGE_COLOUR.get(name, "currentColor") if on else "currentColor",
                "width": "3" if on else "1.3", "opacity": "1" if on else "0.45",
                "head": arrow_head(tip, before, 10 if on else 8),
            }
        )  # fmt: skip
    nodes = []
    for name, (x, y, w, h, colour) in _NODES.items():
        if name == "agent" and failed:
            colour = stop_kind(record.stop_reason)
        counter = ""
        if name == "model":
            counter = texts.loop_model_counter.format(
                step=step, count=len(record.model_calls), limit=number(record.max_steps)
            )
        if name == "tools":
            counter = texts.loop_tools_counter.format(count=done_tools, limit=number(record.max_tool_calls))
        active = name in ("agent", "model") or any(name in edge.split("-") for edge in hot)
        nodes.append(
            {"name": name, "x": x, "y": y, "w": w, "h": h, "cx": x + w / 2, "label": labels[name], "counter": counter,
             "fill": COLOURS[colour][0], "line": COLOURS[colour][1], "active": active}
        )  # fmt: skip
    return render(
        "loop.html",
        element_id=f"{run_id(record)}-loop{place}-{step}",
        step=step,
        edges=edges,
        nodes=nodes,
        happened=happened,
        stopped=record.stop_reason if failed else None,
        t=texts,
    )


def scheme1_loop(record: RunRecord, step: int | None = None, *, lang: Language | None = None) -> SchemeView:
    """The loop with model call ``step`` (default the last) highlighted, and the counts so far.
    In ``lang``, by default the language the run was made in."""
    lang = language_of(record, lang)
    name = strings(lang).schemes.loop_name.format(step=step or len(record.model_calls))
    return SchemeView(loop_html(record, step, lang=lang), name)
