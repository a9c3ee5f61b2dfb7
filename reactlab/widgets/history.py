"""Scheme 3: what goes into the next request. The messages sent at step k; the entries new since
step k-1 in yellow, the earlier ones kept; tool results linked to the call they answer."""

from __future__ import annotations

import json
from typing import Any

from ..record import RunRecord
from .base import COLOURS, MONO, SchemeView, box_style, details, esc, frame, json_block, run_id, shorten, step_of

__all__ = ["history_html", "scheme3_history"]

_ROLE_KIND = {"assistant": "model", "tool": "tool", "system": "plain", "user": "plain"}


def _preview(message: dict[str, Any]) -> str:
    calls = message.get("tool_calls") or []
    if calls:
        names = ", ".join(
            f"{c['function'].get('name')} ⟨{shorten(str(c.get('id')), 16)}⟩"
            for c in calls
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        )
        text = message.get("content") or ""
        return f"tool_calls: {names}" + (f" · {shorten(text, 40)}" if text else "")
    content = message.get("content")
    if message.get("role") == "tool" and isinstance(content, str):
        try:
            result = json.loads(content)
        except ValueError:
            return shorten(content, 90)
        if isinstance(result, dict):
            keys = {k: result[k] for k in ("ok", "exit_code", "truncated", "error", "path") if k in result}
            return shorten(json.dumps(keys, ensure_ascii=False), 90)
    return shorten(str(content or ""), 90)


def _usage_line(usage: dict[str, Any]) -> str:
    if not usage:
        return ""
    estimated = "≈ " if usage.get("estimated") else ""
    hit, miss = usage.get("prompt_cache_hit_tokens"), usage.get("prompt_cache_miss_tokens")
    cache = f" (cache hit {hit}, miss {miss})" if hit is not None and miss is not None else ""
    note = " · estimated offline" if usage.get("estimated") else ""
    return (
        f'<div class="rl-usage" style="margin-top: 6px; opacity: 0.85">prompt_tokens {estimated}'
        f"{usage.get('prompt_tokens', '?')}{cache} · completion_tokens {estimated}"
        f"{usage.get('completion_tokens', '?')}{note}</div>"
    )


def history_html(record: RunRecord, step: int | None = None) -> str:
    uid = run_id(record)
    step = step_of(record, step)
    messages = record.model_calls[step - 1].messages
    before = len(record.model_calls[step - 2].messages) if step > 1 else 0
    rows = []
    for index, message in enumerate(messages):
        role = str(message.get("role", "?"))
        new = index >= before
        kind = _ROLE_KIND.get(role, "plain")
        anchor = ""
        if role == "tool":
            target = esc(message.get("tool_call_id", ""))
            anchor = (
                f' · answers <a class="rl-link" href="#{uid}-h{step}-{target}" '
                f'style="color: inherit">⟨{esc(shorten(str(message.get("tool_call_id", "")), 16))}⟩</a>'
            )
        ids = ""
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                ids += f'<span id="{uid}-h{step}-{esc(call.get("id", ""))}"></span>'
        fill = f"background: {COLOURS['model'][0]}; " if new else ""
        flag = '<b class="rl-new-flag"> NEW</b>' if new else ""
        summary = (
            f'<span style="{box_style(kind)}; padding: 0 6px; {MONO}">{esc(role)}</span> '
            f'<span style="opacity: 0.9">{esc(_preview(message))}</span>{anchor}{flag}'
        )
        rows.append(
            f'<li class="rl-entry{" rl-new" if new else ""}" data-index="{index}" data-role="{esc(role)}" '
            f'style="{fill}list-style: none; margin: 2px 0; padding: 3px 6px; border-radius: 6px">{ids}'
            f"{details(f'[{index}] ' + summary, json_block(message, max_height=260))}</li>"
        )
    tools = ", ".join(t["function"]["name"] for t in record.tools)
    header = (
        f'<div style="margin-bottom: 4px">Request {step}: {len(messages)} messages, '
        f"{len(messages) - before} new since request {step - 1 if step > 1 else '—'} "
        f'(<span style="background: {COLOURS["model"][0]}; padding: 0 4px">yellow</span>). '
        f"Tool definitions travel separately in <code>tools</code>: {esc(tools)}.</div>"
    )
    body = (
        header + f'<ol class="rl-messages" style="margin: 0; padding: 0; max-height: 460px; overflow-y: auto">'
        f"{''.join(rows)}</ol>" + _usage_line(record.model_calls[step - 1].usage)
    )
    return frame("history", f"Scheme 3 · What goes into request {step}", body, element_id=f"{uid}-history", step=step)


def scheme3_history(record: RunRecord, step: int | None = None) -> SchemeView:
    """The messages sent with model call ``step`` (default the last), new entries highlighted."""
    return SchemeView(history_html(record, step), f"Scheme 3: history at request {step or len(record.model_calls)}")
