"""RunViewer: a step slider and previous/next buttons that drive Schemes 1, 3 and 5 together,
with the exact request and response JSON of the step.

Every step is rendered in advance into a Stack, and the slider is linked to it in the browser
(jslink), so scrubbing works even when no kernel is running; the buttons need the kernel.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..run.record import RunRecord
from ..strings import Language, language_of, strings
from .base import SchemeView, run_id
from .history import history_html
from .loop import loop_html
from .markup import Markup, render
from .route import route_html

__all__ = ["RunViewer", "step_html"]


def step_html(record: RunRecord, step: int, *, place: str = "-viewer", lang: Language = "en") -> str:
    """Everything the viewer shows for one step, as one self-contained HTML fragment. The schemes
    come rendered (and escaped) by their own templates, so they are marked safe to place here."""
    call = record.model_calls[step - 1]
    return render(
        "step.html",
        element_id=f"{run_id(record)}{place}-step-{step}",
        step=step,
        steps=len(record.model_calls),
        loop_scheme=Markup(loop_html(record, step, place=place, lang=lang)),
        route=Markup(route_html(record, step, place=place, lang=lang)),
        history=Markup(history_html(record, step, place=place, lang=lang)),
        request=call.request,
        response=call.response,
        t=strings(lang).schemes,
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
        texts = strings(self.lang).schemes
        self.prerendered = count <= self.PRERENDER_LIMIT if prerender is None else prerender
        self.slider = widgets.SelectionSlider(
            options=[(str(k), k) for k in range(1, count + 1)],
            value=step or count,
            description=texts.viewer_slider,
            continuous_update=True,
            layout=widgets.Layout(width="min(100%, 520px)"),
        )
        self.previous = widgets.Button(description=texts.viewer_previous, layout=widgets.Layout(width="110px"))
        self.next = widgets.Button(description=texts.viewer_next, layout=widgets.Layout(width="110px"))
        self.previous.on_click(lambda _: self.show(self.step - 1))
        self.next.on_click(lambda _: self.show(self.step + 1))
        if self.prerendered:
            pages = [
                SchemeView(step_html(record, k, lang=self.lang), texts.viewer_step.format(step=k))
                for k in range(1, count + 1)
            ]
            self.stack = widgets.Stack(pages, selected_index=self.slider.index)
            self.link: widgets.Link | None = widgets.jslink((self.slider, "index"), (self.stack, "selected_index"))
            self.slider.observe(lambda change: setattr(self.stack, "selected_index", change["new"]), "index")
        else:
            page = SchemeView(step_html(record, self.step, lang=self.lang), texts.viewer_slider)
            self.stack = widgets.Stack([page], selected_index=0)
            self.link = None
            self.slider.observe(lambda change: self._render(change["new"] + 1), "index")
        super().__init__([widgets.HBox([self.previous, self.slider, self.next]), self.stack])

    def _render(self, step: int) -> None:
        self.stack.children[0].value = step_html(self.record, step, lang=self.lang)

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
        shown = range(1, len(self.record.model_calls) + 1) if self.prerendered else range(self.step, self.step + 1)
        steps = [(k, Markup(step_html(self.record, k, place="-static", lang=self.lang)), k == self.step) for k in shown]
        return render(
            "viewer.html",
            element_id=f"{run_id(self.record)}-viewer",
            stop_reason=self.record.stop_reason,
            steps=steps,
            t=strings(self.lang).schemes,
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["text/html"] = self.static_html()
        return data

    def __repr__(self) -> str:
        return f"<RunViewer: {len(self.record.model_calls)} steps, ended with {self.record.stop_reason}>"
