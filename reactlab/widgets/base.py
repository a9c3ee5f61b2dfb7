"""What every scheme shares: the colours, small HTML helpers, and the widget that shows them.

The HTML is self-contained (inline styles, inline SVG, no scripts, no fonts), well-formed, and
deterministic: the same run always gives the same bytes, so nbval can compare it.
"""

from __future__ import annotations

import hashlib
import html
import json
from typing import Any

import ipywidgets as widgets

from ..record import RunRecord

__all__ = [
    "COLOURS",
    "SchemeView",
    "answer_of",
    "box_style",
    "details",
    "ended_at",
    "esc",
    "frame",
    "json_block",
    "pretty_json",
    "run_id",
    "shorten",
    "step_of",
]

# One palette for every scheme. Translucent fills read on JupyterLab's light and dark themes alike.
COLOURS = {
    "model": ("rgba(250, 204, 21, 0.28)", "#ca8a04"),  # yellow: what the model returned
    "tool": ("rgba(59, 130, 246, 0.20)", "#2563eb"),  # blue: tool executions and results
    "ok": ("rgba(34, 197, 94, 0.22)", "#16a34a"),  # green: OK and the final answer
    "error": ("rgba(239, 68, 68, 0.22)", "#dc2626"),  # red: FAIL and errors
    "plain": ("rgba(127, 127, 127, 0.10)", "rgba(127, 127, 127, 0.55)"),
}
FONT = "font-family: var(--jp-ui-font-family, system-ui, -apple-system, 'Segoe UI', sans-serif)"
MONO = "font-family: var(--jp-code-font-family, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace)"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def box_style(kind: str) -> str:
    fill, line = COLOURS[kind]
    return f"background: {fill}; border: 1px solid {line}; border-radius: 6px; padding: 4px 8px"


def pretty_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def shorten(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def run_id(record: RunRecord) -> str:
    """A short id from what the model said and how the run ended: stable when a replay is run again
    (timings differ, so they are left out), distinct between different runs."""
    said = [call.message for call in record.model_calls]
    key = json.dumps([record.task, said, record.stop_reason], ensure_ascii=False, sort_keys=True, default=str)
    return "rl" + hashlib.sha256(key.encode()).hexdigest()[:8]


def frame(scheme: str, title: str, body: str, *, element_id: str, step: int | None = None) -> str:
    step_attr = f' data-step="{step}"' if step is not None else ""
    return (
        f'<div class="rl rl-{scheme}" id="{element_id}"{step_attr} '
        f'style="{FONT}; font-size: 13px; line-height: 1.45; color: inherit; margin: 4px 0; max-width: 100%">'
        f'<div class="rl-title" style="font-weight: 600; margin-bottom: 6px">{esc(title)}</div>{body}</div>'
    )


def json_block(value: Any, *, max_height: int = 320) -> str:
    return (
        f'<pre style="{MONO}; font-size: 12px; white-space: pre-wrap; word-break: break-word; margin: 4px 0; '
        f'max-height: {max_height}px; overflow: auto; {box_style("plain")}">{esc(pretty_json(value))}</pre>'
    )


def details(summary: str, content: str, *, open_: bool = False) -> str:
    attr = ' open="open"' if open_ else ""
    return f'<details{attr}><summary style="cursor: pointer">{summary}</summary>{content}</details>'


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


def answer_of(record: RunRecord, step: int) -> tuple[str, str]:
    """(colour, description) of what model call ``step`` returned."""
    call = record.model_calls[step - 1]
    if call.response is None:
        if record.stop_reason is None:
            return "model", "waiting for the answer…"
        return "error", f"no answer: {record.stop_reason}"
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
        return "ok", f"final answer: {shorten(content, 64)}"
    return "error", "empty answer: no text, no tool calls"


def step_of(record: RunRecord, step: int | None) -> int:
    """The model call a scheme shows: the one asked for, or the last; ValueError outside the run."""
    count = len(record.model_calls)
    chosen = count if step is None else step
    if not 1 <= chosen <= count:
        raise ValueError(f"step must be between 1 and {count}, not {step}")
    return chosen


def ended_at(record: RunRecord, step: int) -> bool:
    return step == len(record.model_calls) and record.stop_reason is not None
