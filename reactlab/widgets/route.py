"""Scheme 5: the route of a run. One numbered column per model call; yellow for what the model
returned (the final answer too), blue for each tool execution; FAIL and OK read from the real tool
output. A table keeps the columns side by side where inline styles are stripped."""

from __future__ import annotations

from typing import Any

from ..core.language import Language, say
from ..core.record import RunRecord
from ..summary import describe_arguments, language_of, stop_phrase
from .base import SchemeView, answer_of, badges_of, outcome_of, repairs_of, run_id, step_of, stop_kind
from .markup import render, shorten

__all__ = ["route_columns", "route_html", "scheme5_route"]


def route_columns(record: RunRecord, lang: Language = "en") -> list[dict[str, Any]]:
    """One column per model call: what it returned, and each tool it ran with its outcome. The same
    for every step of a run, so a viewer works them out once for all its pages."""
    columns = []
    for call in record.model_calls:
        kind, text = answer_of(record, call.number, lang)
        tools = []
        for execution in record.executions_of(call.number):
            result = execution.result  # decoded afresh on every read: once here
            outcome_kind, outcome = outcome_of(result, lang)
            tools.append(
                {"name": shorten(execution.name, 60), "outcome": outcome, "outcome_kind": outcome_kind,
                 "flags": badges_of(result, lang), "arguments": describe_arguments(execution, 60, first_only=True)}
            )  # fmt: skip
        columns.append({"number": call.number, "kind": kind, "text": text, "tools": tools,
                        "repairs": repairs_of(call, lang)})  # fmt: skip
    return columns


def route_html(
    record: RunRecord,
    step: int | None = None,
    *,
    place: str = "",
    lang: Language = "en",
    columns: list[dict[str, Any]] | None = None,
) -> str:
    """``place`` tells apart copies of the same step on one page (the viewer's pages); ``columns``
    are ``route_columns(record, lang)`` where the caller has them already."""
    current = step_of(record, step)
    stop = record.stop_reason
    return render(
        "route.html",
        element_id=f"{run_id(record)}-route{place}-{current}",
        step=current,
        columns=columns if columns is not None else route_columns(record, lang),
        executions=len(record.tool_executions),
        stop=stop,
        stop_words=stop_phrase(stop, lang),
        stop_kind=stop_kind(stop),
        lang=lang,
    )


def scheme5_route(record: RunRecord, step: int | None = None, *, lang: Language | None = None) -> SchemeView:
    """The route of ``record``; ``step`` (a model call number, default the last) is highlighted.
    In ``lang``, by default the language the run was made in."""
    lang = language_of(record, lang)
    name = say("Scheme 5: route, {count} model calls", lang=lang, count=len(record.model_calls))
    return SchemeView(route_html(record, step, lang=lang), name)
