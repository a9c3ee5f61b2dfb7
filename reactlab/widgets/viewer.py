"""RunViewer: a step slider and previous/next buttons that drive Schemes 1, 3 and 5 together,
with the exact request and response JSON of the step.

Every step is rendered in advance into a Stack, and the slider is linked to it in the browser
(jslink), so scrubbing works even when no kernel is running; the buttons need the kernel.

Each request carries the whole history again, so a page shows in full only the messages no earlier
page showed, and names the step that shows the others; a long value shows its first bytes
and "show more" (``markup.clipped_json``). A run within the default limits (8 model calls, 16 tool
calls, each bash stream at its 30,000 bytes) then saves under ``SAVED_LIMIT`` bytes of HTML, each
page under ``PAGE_LIMIT``, whatever the model and the tools returned.
"""

from __future__ import annotations

import json
from itertools import islice
from typing import Any

import ipywidgets as widgets

from ..core.language import Language, say, translatable
from ..core.record import RunRecord
from ..summary import language_of
from .base import SchemeView, run_id
from .history import history_html
from .loop import loop_html
from .markup import Markup, clipped_json, render, shorten
from .route import route_columns, route_html

__all__ = ["ITEMS", "PAGE_LIMIT", "RunViewer", "SAVED_LIMIT", "shown_before", "step_html"]

PAGE_LIMIT = 256 * 1024
"""Bytes of one step's page, at most, for a run within the default limits (tests/widgets/test_viewer_size.py)."""
SAVED_LIMIT = 2 * 1024 * 1024
"""Bytes of one RunViewer's output in a notebook, at most: its pages and its static fallback."""
ITEMS = 64
"""Keys of a request, and its messages, that one page draws; a run within the limits has far fewer."""

Part = tuple[str, Any]  # ("text", syntax) | ("json", Clipped) | ("seen", a reference) | ("left_out", None)


def shown_before(record: RunRecord) -> list[list[int | None]]:
    """For each model call, for each message it sent: the earlier step whose page already shows that
    very message, or None where this step's page shows it. A message is drawn once in a viewer, not
    once for every request that carried it again."""
    first: dict[int, tuple[int, Any]] = {}  # message index -> (the step that shows it, the message)
    steps = []
    for call in record.model_calls:
        seen: list[int | None] = []
        for index, message in enumerate(call.messages):
            shown = first.get(index)
            if shown is not None and (shown[1] is message or shown[1] == message):
                seen.append(shown[0])
            else:
                first[index] = (call.number, message)
                seen.append(None)
        steps.append(seen)
    return steps


def _messages(messages: list[Any], seen: list[int | None], lang: Language | None) -> list[Part]:
    """The messages of a request, each run of them as one reference: to the earlier step whose page
    shows them, or to Scheme 3 on this page, whose entries open to their JSON."""
    items: list[Part] = []
    index = 0
    while index < len(messages) and len(items) < ITEMS:
        step = seen[index] if index < len(seen) else None
        last = index
        while last + 1 < min(len(messages), len(seen)) and seen[last + 1] == step:
            last += 1
        if step is None:
            one, many = (
                translatable("message [{index}]: in Scheme 3 above; click it to see its JSON"),
                translatable("messages [{first}]–[{last}]: in Scheme 3 above; click one to see its JSON"),
            )
        else:
            one, many = (
                translatable("message [{index}]: as in step {step}"),
                translatable("messages [{first}]–[{last}]: as in step {step}"),
            )
        if last == index:
            text = say(one, lang=lang, index=index, step=step)
        else:
            text = say(many, lang=lang, first=index, last=last, step=step)
        items.append(("seen", text))
        index = last + 1
    parts: list[Part] = [("text", "[")]
    for position, item in enumerate(items):
        comma = "," if position < len(items) - 1 or index < len(messages) else ""
        parts += [("text", "\n    "), item, ("text", comma)]
    if index < len(messages):
        parts += [("text", "\n    "), ("left_out", None)]
    return [*parts, ("text", "\n  ]")]


def request_parts(record: RunRecord, step: int, seen: list[int | None], lang: Language | None) -> list[Part]:
    """The request of model call ``step`` as the page draws it: its keys in the order sent, messages
    an earlier page shows named by that step, the tools too when an earlier request sent the same."""
    request = record.model_calls[step - 1].request
    tools = request.get("tools")
    tools_step = next((c.number for c in record.model_calls[: step - 1] if c.request.get("tools") == tools), None)
    parts: list[Part] = [("text", "{")]
    for position, (key, value) in enumerate(islice(request.items(), ITEMS)):
        parts.append(("text", f"\n  {shorten(json.dumps(key, ensure_ascii=False), 80)}: "))
        if key == "messages" and isinstance(value, list):
            parts += _messages(value, seen, lang)
        elif key == "tools" and tools_step is not None:
            parts.append(("seen", say("as in step {step}", lang=lang, step=tools_step)))
        else:
            parts.append(("json", clipped_json(value, indent="  ")))
        parts.append(("text", "," if position < len(request) - 1 else ""))
    if len(request) > ITEMS:
        parts += [("text", "\n  "), ("left_out", None)]
    return [*parts, ("text", "\n}")]


def step_html(
    record: RunRecord,
    step: int,
    *,
    place: str = "-viewer",
    lang: Language = "en",
    shown: list[list[int | None]] | None = None,
    columns: list[dict[str, Any]] | None = None,
) -> str:
    """Everything the viewer shows for one step, as one self-contained HTML fragment. The schemes
    come rendered (and escaped) by their own templates, so they are marked safe to place here.
    ``shown`` (``shown_before(record)``) and ``columns`` (``route_columns(record, lang)``) are the
    same for every step: a caller drawing them all works them out once."""
    seen = (shown if shown is not None else shown_before(record))[step - 1]
    call = record.model_calls[step - 1]
    return render(
        "step.html",
        element_id=f"{run_id(record)}{place}-step-{step}",
        step=step,
        steps=len(record.model_calls),
        loop_scheme=Markup(loop_html(record, step, place=place, lang=lang)),
        route=Markup(route_html(record, step, place=place, lang=lang, columns=columns)),
        history=Markup(history_html(record, step, place=place, lang=lang, shown=seen)),
        request=request_parts(record, step, seen, lang),
        response=call.response,
        lang=lang,
    )


class RunViewer(widgets.VBox):
    """Scrub through a run: ``RunViewer(record)``. Shows as static HTML where widgets cannot run.

    Runs of up to ``PRERENDER_LIMIT`` steps are rendered in advance and scrub without a kernel;
    longer ones render each step when the slider reaches it (pre-rendering 200 steps, each with its
    whole history, would cost seconds and megabytes of notebook output).
    """

    PRERENDER_LIMIT = 40

    def __init__(
        self,
        record: RunRecord,
        step: int | None = None,
        *,
        prerender: bool | None = None,
        lang: Language | None = None,
    ) -> None:
        """``lang``: the language of the labels, by default the one the run was made in."""
        count = len(record.model_calls)
        if count == 0:
            raise ValueError("the run made no model call: nothing to show")
        self.record = record
        self.lang = language_of(record, lang)
        self.shown = shown_before(record)
        self.columns = route_columns(record, self.lang)
        self.prerendered = count <= self.PRERENDER_LIMIT if prerender is None else prerender
        self.slider = widgets.SelectionSlider(
            options=[(str(k), k) for k in range(1, count + 1)],
            value=step or count,
            description=say("step", lang=self.lang),
            continuous_update=True,
            layout=widgets.Layout(width="min(100%, 520px)"),
        )
        self.previous = widgets.Button(
            description=say("◀ previous", lang=self.lang), layout=widgets.Layout(width="110px")
        )
        self.next = widgets.Button(description=say("next ▶", lang=self.lang), layout=widgets.Layout(width="110px"))
        self.previous.on_click(lambda _: self.show(self.step - 1))
        self.next.on_click(lambda _: self.show(self.step + 1))
        if self.prerendered:
            pages = [
                SchemeView(
                    step_html(record, k, lang=self.lang, shown=self.shown, columns=self.columns),
                    say("step {step}", lang=self.lang, step=k),
                )
                for k in range(1, count + 1)
            ]
            self.stack = widgets.Stack(pages, selected_index=self.slider.index)
            self.link: widgets.Link | None = widgets.jslink((self.slider, "index"), (self.stack, "selected_index"))
            self.slider.observe(lambda change: setattr(self.stack, "selected_index", change["new"]), "index")
        else:
            page = SchemeView(
                step_html(record, self.step, lang=self.lang, shown=self.shown, columns=self.columns),
                say("step", lang=self.lang),
            )
            self.stack = widgets.Stack([page], selected_index=0)
            self.link = None
            self.slider.observe(lambda change: self._render(change["new"] + 1), "index")
        super().__init__([widgets.HBox([self.previous, self.slider, self.next]), self.stack])

    def _render(self, step: int) -> None:
        try:
            page = step_html(self.record, step, lang=self.lang, shown=self.shown, columns=self.columns)
        except Exception as error:  # shown on the page: in a callback it would go to the kernel's log unseen
            failed = say(
                "This widget failed ({error}). Run its cell again to start over.",
                lang=self.lang,
                error=f"{type(error).__name__}: {error}",
            )
            page = render("be_the_model.html", text=failed, waiting=False, lang=self.lang)
        self.stack.children[0].value = page

    def page(self) -> str:
        """The HTML of the step being shown."""
        index = self.stack.selected_index if self.prerendered else 0
        return str(self.stack.children[index].value)

    @property
    def step(self) -> int:
        return int(self.slider.value)

    def show(self, step: int) -> None:
        """Go to model call ``step`` (clamped to the run)."""
        self.slider.value = min(max(step, 1), len(self.record.model_calls))

    def static_html(self) -> str:
        """What GitHub and nbviewer show: every step folded, the one being shown open (long runs:
        only that one). Its ids differ from the live pages', so both can sit on one page."""
        drawn = range(1, len(self.record.model_calls) + 1) if self.prerendered else range(self.step, self.step + 1)
        steps = [
            (
                k,
                Markup(
                    step_html(self.record, k, place="-static", lang=self.lang, shown=self.shown, columns=self.columns)
                ),
                k == self.step,
            )
            for k in drawn
        ]
        return render(
            "viewer.html",
            element_id=f"{run_id(self.record)}-viewer",
            stop_reason=self.record.stop_reason,
            steps=steps,
            lang=self.lang,
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["text/html"] = self.static_html()
        return data

    def __repr__(self) -> str:
        return f"<RunViewer: {len(self.record.model_calls)} steps, ended with {self.record.stop_reason}>"
