"""Scheme 5: the route of a run. One numbered column per model call; yellow for what the model
returned (the final answer too), blue for each tool execution; FAIL and OK read from the real tool
output. A table keeps the columns side by side where inline styles are stripped."""

from __future__ import annotations

from ..run.record import RunRecord
from ..run.summary import describe_arguments
from ..strings import Language, language_of, strings
from .base import SchemeView, answer_of, badges_of, outcome_of, reason_words, repairs_of, run_id, step_of, stop_kind
from .markup import render

__all__ = ["route_html", "scheme5_route"]


def route_html(record: RunRecord, step: int | None = None, *, place: str = "", lang: Language = "en") -> str:
    """``place`` tells apart copies of the same step on one page (the viewer's pages)."""
    current = step_of(record, step)
    uid = f"{run_id(record)}-route{place}-{current}"
    columns = []
    for call in record.model_calls:
        kind, text = answer_of(record, call.number, lang)
        tools = []
        for index, execution in enumerate(record.executions_of(call.number), 1):
            outcome_kind, outcome = outcome_of(execution.result, lang)
            tools.append(
                {"id": f"{uid}-c{call.number}-t{index}", "name": execution.name, "outcome": outcome,
                 "outcome_kind": outcome_kind, "flags": badges_of(execution.result, lang),
                 "arguments": describe_arguments(execution, 60, first_only=True)}
            )  # fmt: skip
        columns.append(
            {"number": call.number, "id": f"{uid}-c{call.number}", "kind": kind, "text": text, "tools": tools,
             "repairs": repairs_of(call, lang), "current": call.number == current}
        )  # fmt: skip
    stop = record.stop_reason
    return render(
        "route.html",
        element_id=uid,
        step=current,
        columns=columns,
        executions=len(record.tool_executions),
        stop=stop,
        stop_words=reason_words(stop, lang),
        stop_kind=stop_kind(stop),
        t=strings(lang).schemes,
    )


def scheme5_route(record: RunRecord, step: int | None = None, *, lang: Language | None = None) -> SchemeView:
    """The route of ``record``; ``step`` (a model call number, default the last) is highlighted.
    In ``lang``, by default the language the run was made in."""
    lang = language_of(record, lang)
    name = strings(lang).schemes.route_name.format(count=len(record.model_calls))
    return SchemeView(route_html(record, step, lang=lang), name)
