"""What every scheme shares: the colours, the readings of a run they all draw, and the widget.

The HTML is self-contained (inline SVG, no scripts, no fonts), well-formed and deterministic: the
same run always gives the same bytes, so nbval can compare it. Colour is carried twice: by inline
styles where they are kept (JupyterLab, nbviewer) and by SVG presentation attributes (``fill``,
``stroke``), which survive where inline styles are stripped (GitHub).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import ipywidgets as widgets

from ..record import ModelCall, RunRecord
from ..summary import verdict
from .markup import COLOURS, number, shorten

__all__ = [
    "COLOURS",
    "LIMIT_STOPS",
    "SchemeView",
    "answer_of",
    "badges_of",
    "ended_at",
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
    said = [call.message for call in record.model_calls]
    key = json.dumps([record.task, said, record.stop_reason], ensure_ascii=False, sort_keys=True, default=str)
    return "rl" + hashlib.sha256(key.encode()).hexdigest()[:8]


def answer_of(record: RunRecord, step: int) -> tuple[str, str]:
    """(colour, description) of what model call ``step`` returned."""
    call = record.model_calls[step - 1]
    if call.response is None:
        if record.stop_reason is None:
            return "model", "waiting for the answer…"
        return stop_kind(record.stop_reason), f"no answer: {record.stop_reason}"
    message = call.message
    calls = message.get("tool_calls") or []
    if isinstance(calls, list) and calls:
        names = [str((c.get("function") or {}).get("name", "?")) if isinstance(c, dict) else "?" for c in calls]
        counted = ", ".join(f"{n} ×{names.count(n)}" if names.count(n) > 1 else n for n in dict.fromkeys(names))
        return "model", f"{len(calls)} tool call{'s' if len(calls) > 1 else ''}: {counted}"
    if call.finish_reason == "length":
        return "error", "answer cut off (finish_reason length)"
    content = message.get("content")
    if isinstance(content, str) and content.strip():
        return "model", f"final answer: {shorten(content, 64)}"
    return "error", "empty answer: no text, no tool calls"


def repairs_of(call: ModelCall) -> list[str]:
    """What the client repaired in this answer before the agent saw it (an older record has none)."""
    repairs = getattr(call, "repairs", None) or []
    return [str(text) for text in repairs] if isinstance(repairs, (list, tuple)) else [str(repairs)]


def outcome_of(result: dict[str, Any]) -> tuple[str, str]:
    """(colour, one line) of a tool result. Sizes are always in bytes."""
    if not result.get("ok", False):
        return "error", f"error: {shorten(result.get('error', 'failed'), 80)}"
    label = verdict(result)
    if label is not None:
        return ("ok" if label == "OK" else "error"), f"{label} · exit code {number(result.get('exit_code'))}"
    if "exit_code" in result:
        return "tool", f"exit code {number(result['exit_code'])}"
    if "diff" in result:
        return "tool", "edited"
    if "content" in result:
        return "tool", f"{number(result.get('size'))} bytes read"
    return "tool", shorten(json.dumps(result, ensure_ascii=False, default=str), 80)


def badges_of(result: dict[str, Any]) -> list[tuple[str, str]]:
    """(colour, text) of the flags a reader must not miss on a tool result."""
    flags = [
        ("replayed", "plain", "replayed, not run on this machine"),
        ("sandbox_unavailable", "error", "sandbox unavailable"),
        ("timed_out", "error", "timed out"),
        ("truncated", "plain", "truncated"),
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
    """An ipywidgets HTML whose static fallback (text/html) is the very same HTML.

    In Jupyter it is a widget; on GitHub, nbviewer or in an untrusted notebook the fallback shows.
    """

    def __init__(self, html_text: str, name: str) -> None:
        super().__init__(value=html_text)
        self._name = name

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["text/html"] = self.value
        return data

    def _repr_html_(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"<{self._name}>"
