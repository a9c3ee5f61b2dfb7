"""What every scheme shares: the colours, the readings of a run they all draw, and the widget.

The HTML is self-contained (inline SVG, no scripts, no fonts), well-formed and deterministic: the
same run always gives the same bytes, so nbval can compare it. Colour is carried twice: by inline
styles where they are kept (JupyterLab, nbviewer) and by SVG presentation attributes (``fill``,
``stroke``), which survive where inline styles are stripped (GitHub).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

import ipywidgets as widgets

from ..core.language import Language, say
from ..core.record import ModelCall, RunRecord
from ..summary import stop_phrase, verdict
from .markup import COLOURS, json_head, number, shorten

__all__ = [
    "COLOURS",
    "LIMIT_STOPS",
    "SchemeView",
    "answer_of",
    "badges_of",
    "ended_at",
    "final_text",
    "outcome_of",
    "repairs_of",
    "run_id",
    "step_of",
    "stop_kind",
]

LIMIT_STOPS = ("step_limit", "tool_call_limit")


def stop_kind(stop_reason: object) -> str:
    """The colour of a run's ending: the model's yellow for an answer, violet for a limit, else red."""
    if stop_reason == "answer":
        return "model"
    return "limit" if stop_reason in LIMIT_STOPS else "error"


def run_id(record: RunRecord) -> str:
    """A short id from what the model said and how the run ended: stable when a replay is run again
    (timings differ, so they are left out), distinct between different runs."""
    said = []
    for call in record.model_calls:
        head, whole = json_head(call.message, 4096)
        said.append(call.message if whole else head)  # the start tells runs apart: no need to read megabytes
    key = json.dumps([record.task, said, record.stop_reason], ensure_ascii=False, sort_keys=True, default=str)
    return "rl" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def final_text(call: ModelCall) -> str | None:
    """The final answer model call ``call`` returned: non-empty text, no tool calls, not cut off."""
    calls = call.message.get("tool_calls") or []
    if call.response is None or (isinstance(calls, list) and calls) or call.finish_reason == "length":
        return None
    content = call.message.get("content")
    return content if isinstance(content, str) and content.strip() else None


def answer_of(record: RunRecord, step: int, lang: Language = "en") -> tuple[str, str]:
    """(colour, description) of what model call ``step`` returned."""
    call = record.model_calls[step - 1]
    if call.response is None:
        if record.stop_reason is None:
            return "model", say("waiting for the answer…", lang=lang)
        return stop_kind(record.stop_reason), say(
            "no answer: {reason}", lang=lang, reason=stop_phrase(record.stop_reason, lang)
        )
    calls = call.message.get("tool_calls") or []
    if isinstance(calls, list) and calls:
        names = Counter(_name_of(c) for c in calls)
        counted = shorten(", ".join(f"{n} ×{k}" if k > 1 else n for n, k in names.items()), 120)
        if len(calls) == 1:
            return "model", say("1 tool call: {names}", lang=lang, names=counted)
        return "model", say("{count} tool calls: {names}", lang=lang, count=len(calls), names=counted)
    if call.finish_reason == "length":
        return "error", say("answer cut off (finish_reason length)", lang=lang)
    answer = final_text(call)
    if answer is not None:
        return "model", say("final answer: {text}", lang=lang, text=shorten(answer, 64))
    return "error", say("empty answer: no text, no tool calls", lang=lang)


def _name_of(call: Any) -> str:
    """The tool a call names, "?" where it names none (a failed run's answer may hold anything)."""
    function = call.get("function") if isinstance(call, dict) else None
    return str(function.get("name", "?")) if isinstance(function, dict) else "?"


def repairs_of(call: ModelCall, lang: Language = "en") -> list[str]:
    """What the client repaired in this answer before the agent saw it, each as "repaired: ..."
    (an older record has none)."""
    repairs = getattr(call, "repairs", None) or []
    said = [str(text) for text in repairs] if isinstance(repairs, (list, tuple)) else [str(repairs)]
    return [say("repaired: {text}", lang=lang, text=text) for text in said]


def outcome_of(result: dict[str, Any], lang: Language = "en") -> tuple[str, str]:
    """(colour, one line) of a tool result. Sizes are always in bytes."""
    if not result.get("ok", False):
        return "error", say(
            "error: {error}", lang=lang, error=shorten(result.get("error", say("failed", lang=lang)), 80)
        )
    label = verdict(result)
    if label is not None:
        code = number(result.get("exit_code"))
        return ("ok" if label == "OK" else "error"), say(
            "{verdict} · exit code {code}", lang=lang, verdict=label, code=code
        )
    if "exit_code" in result:
        return "tool", say("exit code {code}", lang=lang, code=number(result["exit_code"]))
    if "diff" in result:
        return "tool", say("edited", lang=lang)
    if "content" in result:
        return "tool", say("{size} bytes read", lang=lang, size=number(result.get("size")))
    return "tool", shorten(json.dumps(result, ensure_ascii=False, default=str), 80)


def badges_of(result: dict[str, Any], lang: Language = "en") -> list[tuple[str, str]]:
    """(colour, text) of the flags a reader must not miss on a tool result."""
    flags = [
        ("replayed", "plain", say("replayed, not run on this machine", lang=lang)),
        ("sandbox_unavailable", "error", say("sandbox unavailable", lang=lang)),
        ("timed_out", "error", say("timed out", lang=lang)),
        ("truncated", "plain", say("truncated", lang=lang)),
    ]
    return [(kind, text) for key, kind, text in flags if result.get(key) is True]


def step_of(record: RunRecord, step: int | None) -> int:
    """The model call a scheme shows: the one asked for, or the last; ValueError outside the run."""
    count = len(record.model_calls)
    chosen = count if step is None else step
    if not 1 <= chosen <= count:
        raise ValueError(f"step must be between 1 and {count}, not {step}")
    return chosen


def ended_at(record: RunRecord, step: int) -> bool:
    return step == len(record.model_calls) and record.stop_reason is not None


class SchemeView(widgets.HTML):
    """A scheme: an ipywidgets HTML (to place inside other widgets) that a notebook shows as its
    plain HTML.

    A scheme is drawn once and never changes, so displayed on its own it is sent as text/html only,
    without the widget's view: a notebook saved and opened again (no kernel, no widget state) shows
    the scheme itself, in JupyterLab as on GitHub or nbviewer, instead of "Error displaying widget:
    model not found". Placed in a VBox or a Tab, it is a live widget like any other.
    """

    def __init__(self, html_text: str, name: str) -> None:
        super().__init__(value=html_text)
        self._name = name

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return {"text/plain": repr(self), "text/html": self.value}

    def _repr_html_(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"<{self._name}>"
