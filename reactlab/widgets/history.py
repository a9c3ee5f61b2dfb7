"""Scheme 3: what goes into the next request. The messages sent at step k; the entries new since
step k-1 in yellow, the earlier ones kept; tool results linked to the call they answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..core.json_text import read_json
from ..core.language import Language, say
from ..core.record import RunRecord
from ..summary import language_of
from .base import SchemeView, run_id, step_of
from .markup import number, render, shorten

__all__ = ["history_html", "scheme3_history"]

_ROLE_KIND = {"assistant": "model", "tool": "tool", "system": "plain", "user": "plain"}


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("tool_calls") or []
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _preview(message: dict[str, Any]) -> str:
    calls = _calls(message)
    if calls:
        names = ", ".join(
            f"{shorten((c.get('function') or {}).get('name') if isinstance(c.get('function'), dict) else '?', 40)} "
            f"⟨{shorten(c.get('id'), 16)}⟩"
            for c in calls[:8]  # a preview of 160 characters holds fewer
        )
        text = message.get("content") or ""
        return shorten(f"tool_calls: {names}", 160) + (f" · {shorten(text, 40)}" if text else "")
    content = message.get("content")
    if message.get("role") == "tool" and isinstance(content, str):
        try:
            result = read_json(content)
        except ValueError:
            return shorten(content, 90)
        if isinstance(result, dict):
            keys = {k: result[k] for k in ("ok", "exit_code", "truncated", "error", "path") if k in result}
            return shorten(json.dumps(keys, ensure_ascii=False), 90)
    return shorten(content or "", 90)


def _usage(usage: dict[str, Any], lang: Language | None) -> dict[str, str] | None:
    """The token counts of an answer; anything that is not a number shows as "?"."""
    if not usage:
        return None
    hit, miss = usage.get("prompt_cache_hit_tokens"), usage.get("prompt_cache_miss_tokens")
    estimated = usage.get("estimated") is True
    cache = (
        say(" (cache hit {hit}, miss {miss})", lang=lang, hit=number(hit), miss=number(miss))
        if None not in (hit, miss)
        else ""
    )
    return {
        "estimated": "≈ " if estimated else "",
        "prompt": number(usage.get("prompt_tokens")),
        "completion": number(usage.get("completion_tokens")),
        "cache": cache,
        "offline": say(" · estimated offline", lang=lang) if estimated else "",
    }


def history_html(
    record: RunRecord,
    step: int | None = None,
    *,
    place: str = "",
    lang: Language = "en",
    shown: Sequence[int | None] | None = None,
) -> str:
    """``place`` tells apart copies of the same step on one page (the viewer's pages). ``shown``: for
    each message, the earlier step whose page shows it (the viewer's ``shown_before``); those entries
    name that step instead of opening to their JSON again. By default every entry opens."""
    uid = f"{run_id(record)}-history{place}-{step_of(record, step)}"
    step = step_of(record, step)
    messages = record.model_calls[step - 1].messages
    before = len(record.model_calls[step - 2].messages) if step > 1 else 0
    anchors: dict[str, str] = {}  # a call id the model chose -> the element id we chose for it
    answered = {str(m.get("tool_call_id")) for m in messages if isinstance(m, dict) and m.get("role") == "tool"}
    entries = []
    for index, message in enumerate(messages):
        message = message if isinstance(message, dict) else {"content": message}
        role = str(message.get("role", "?"))
        targets = []
        for position, call in enumerate(_calls(message)):
            if str(call.get("id")) in answered:  # a target only where a link leads: not one per call asked
                anchors[str(call.get("id"))] = f"{uid}-m{index}-c{position}"
                targets.append(anchors[str(call.get("id"))])
        answers = str(message.get("tool_call_id", "")) if role == "tool" else None
        entries.append(
            {"index": index, "role": role, "kind": _ROLE_KIND.get(role, "plain"), "new": index >= before,
             "preview": _preview(message), "message": message, "targets": targets,
             "answers": shorten(answers, 16) if answers is not None else None, "link": anchors.get(answers or ""),
             "shown_at": shown[index] if shown is not None and index < len(shown) else None}
        )  # fmt: skip
    functions = [t.get("function") for t in record.tools if isinstance(t, dict)]
    tools = [str(f.get("name")) for f in functions if isinstance(f, dict)]
    return render(
        "history.html",
        element_id=uid,
        step=step,
        entries=entries,
        new=len(messages) - before,
        tools=", ".join(tools),
        usage=_usage(record.model_calls[step - 1].usage, lang),
        lang=lang,
    )


def scheme3_history(record: RunRecord, step: int | None = None, *, lang: Language | None = None) -> SchemeView:
    """The messages sent with model call ``step`` (default the last), new entries highlighted.
    In ``lang``, by default the language the run was made in."""
    lang = language_of(record, lang)
    name = say("Scheme 3: history at request {step}", lang=lang, step=step or len(record.model_calls))
    return SchemeView(history_html(record, step, lang=lang), name)
