"""Scheme 1: the agent loop. The result of an action goes back into the next request.

"Agent" here is the whole system, drawn as the frame around the model, the tools and the loop
between them, as the article draws it; in Scheme 2 it is only the control part."""

from __future__ import annotations

import re

from ..core.language import Language, say
from ..core.record import RunRecord
from ..summary import language_of, stop_phrase
from .base import COLOURS, SchemeView, answer_of, ended_at, final_text, run_id, step_of, stop_kind
from .markup import arrow_head, number, render

__all__ = ["loop_html", "scheme1_loop"]

# The article's Scheme 1: "Agent" is the whole system, a frame around the model, the tools and the
# loop between them; the task comes in from outside, the final answer goes out.
_FRAME = (140, 6, 412, 224)  # x, y, width, height
# name: (x, y, width, height, colour); the labels are in the language's table
_NODES = {
    "task": (8, 30, 112, 52, "plain"),
    "answer": (8, 150, 112, 52, "model"),
    "model": (168, 90, 164, 54, "model"),
    "tools": (380, 90, 164, 54, "tool"),
}
# name: (path, label x, label y); each path ends with its last control point and its tip
_EDGES = {
    "task-model": ("M120 56 C146 56 152 96 167 104", 0, 0),
    "model-tools": ("M332 102 Q356 62 379 100", 356, 68),
    "tools-model": ("M380 132 Q356 172 333 134", 356, 182),
    "model-answer": ("M168 132 C154 142 148 176 121 176", 0, 0),
}
_EDGE_COLOUR = {
    "task-model": "currentColor",
    "model-tools": COLOURS["model"][1],
    "tools-model": COLOURS["tool"][1],
    "model-answer": COLOURS["model"][1],
}


def _labels(lang: Language | None) -> dict[str, str]:
    """The label of each node and edge, by name."""
    return {
        "task": say("User task", lang=lang),
        "model": say("Model", lang=lang),
        "tools": say("Tools", lang=lang),
        "answer": say("Final answer", lang=lang),
        "task-model": "",
        "model-tools": say("asks for a tool", lang=lang),
        "tools-model": say("result → next request", lang=lang),
        "model-answer": "",
    }


def _tip(path: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The end of a path and the point before it, for the arrowhead's direction."""
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", path)]
    return (numbers[-2], numbers[-1]), (numbers[-4], numbers[-3])


def _phase(record: RunRecord, step: int, lang: Language) -> tuple[set[str], str]:
    hot = {"task-model"} if step == 1 else set()
    colour, text = answer_of(record, step, lang)
    if record.executions_of(step):
        hot |= {"model-tools", "tools-model"}
    elif final_text(record.model_calls[step - 1]) is not None:
        hot.add("model-answer")
    return hot, text


def loop_html(record: RunRecord, step: int | None = None, *, place: str = "", lang: Language = "en") -> str:
    """``place`` tells apart copies of the same step on one page (the viewer's pages)."""
    step = step_of(record, step)
    labels = _labels(lang)
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
                "stroke": _EDGE_COLOUR[name] if on else "currentColor",
                "width": "3" if on else "1.3", "opacity": "1" if on else "0.45",
                "head": arrow_head(tip, before, 10 if on else 8),
            }
        )  # fmt: skip
    nodes = []
    for name, (x, y, w, h, colour) in _NODES.items():
        counter = ""
        if name == "model":
            counter = say(
                "call {step} of {count} (limit {limit})",
                lang=lang,
                step=step,
                count=len(record.model_calls),
                limit=number(record.max_steps),
            )
        if name == "tools":
            counter = say(
                "{count} run (limit {limit})", lang=lang, count=done_tools, limit=number(record.max_tool_calls)
            )
        if name == "answer":
            counter = say("text, no tool calls", lang=lang)
        lines = labels[name].split("\n")
        first = y + h / 2 - 2 - 7 * (len(lines) - 1) - (6 if counter else -4)
        active = name == "model" or any(name in edge.split("-") for edge in hot)
        nodes.append(
            {"name": name, "x": x, "y": y, "w": w, "h": h, "cx": x + w / 2, "counter": counter,
             "lines": [(first + 14 * i, line) for i, line in enumerate(lines)],
             "counter_y": first + 14 * (len(lines) - 1) + 15,
             "fill": COLOURS[colour][0], "line": COLOURS[colour][1], "active": active}
        )  # fmt: skip
    frame_x, frame_y, frame_w, frame_h = _FRAME
    frame_colour = stop_kind(record.stop_reason) if failed else "plain"
    reason = stop_phrase(record.stop_reason, lang) if failed else None
    return render(
        "loop.html",
        element_id=f"{run_id(record)}-loop{place}-{step}",
        step=step,
        edges=edges,
        nodes=nodes,
        agent_frame={"x": frame_x, "y": frame_y, "w": frame_w, "h": frame_h, "label": say("Agent", lang=lang),
               "note": say("the whole system: the loop, the model and the tools", lang=lang),
               "fill": COLOURS[frame_colour][0], "line": COLOURS[frame_colour][1], "failed": failed},
        happened=happened,
        stopped=reason,
        lang=lang,
    )  # fmt: skip


def scheme1_loop(record: RunRecord, step: int | None = None, *, lang: Language | None = None) -> SchemeView:
    """The article's Scheme 1 at model call ``step`` (default the last): the agent, the whole system,
    with the exchange of that step highlighted and the counts so far. In ``lang``, by default the
    language the run was made in."""
    lang = language_of(record, lang)
    name = say("Scheme 1: loop at step {step}", lang=lang, step=step or len(record.model_calls))
    return SchemeView(loop_html(record, step, lang=lang), name)
