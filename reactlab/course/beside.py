"""Notebook 04's side-by-side: reactlab's ``Agent._loop`` (its installed source) beside the article's
loop, retold; shown once the student's loop agrees with the Agent on every case of the check."""

from __future__ import annotations

import inspect
import textwrap

from ..core.agent import Agent
from ..core.language import resolve_language, say
from .loop_check import first_difference

__all__ = ["Beside", "show_beside_agent"]


class Beside:
    """What ``show_beside_agent`` shows: plain HTML (no widget), the same with or without a kernel."""

    def __init__(self, html: str, shown: bool, lang: str | None = None) -> None:
        self.html = html
        self.shown = shown
        self.lang = resolve_language(lang)

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return (
            say("<Agent._loop beside the article's loop>", lang=self.lang)
            if self.shown
            else say("<Agent._loop: not shown yet>", lang=self.lang)
        )


def show_beside_agent(loop: object, now: bool = False, lang: str | None = None) -> Beside:
    """``Agent._loop`` beside the article's loop, once ``loop`` agrees with the Agent on every case;
    before that (unless ``now``), a note saying so, so that *Run All* does not print the answer under
    the exercise."""
    from ..widgets.markup import render  # the course's HTML goes through the schemes' escaping templates

    lang = resolve_language(lang)
    shown = now or _agrees(loop, lang)
    if not shown:
        return Beside(
            render(
                "beside.html",
                locked=say(
                    "Agent._loop and the article's loop appear here once your loop agrees with the Agent on every "
                    "case: write yours first. (To see them now anyway: show_beside_agent(my_loop, now=True).)",
                    lang=lang,
                ),
                lang=lang,
            ),
            False,
            lang,
        )
    agent = textwrap.dedent(inspect.getsource(Agent._loop))
    return Beside(
        render(
            "beside.html",
            locked=None,
            agent=agent,
            article=say(
                "up to max_steps times:\n    ask the client, with copies of the history and of the tool "
                "definitions\n    validate the answer (with the set of call ids already used)\n    append a copy of "
                "the answer to the history\n    no calls in it?\n        non-blank text: that is the answer, return "
                'it\n        otherwise: error, "neither a call nor an answer"\n    used ids + calls in this answer '
                "> max_tool_calls: error, tool-call limit\n    for each call, in order:\n        result = execute "
                "the call (parse the arguments, find the tool by name, run it)\n        append a tool message: the "
                "call's id, the result as JSON text\n        add the call's id to the used ids\nerror: model-call "
                "limit reached without a final answer",
                lang=lang,
            ),
            lang=lang,
        ),
        True,
        lang,
    )


def _agrees(loop: object, lang: str) -> bool:
    if not callable(loop):
        return False
    try:
        return first_difference(loop, lang=lang) is None
    except NotImplementedError:
        return False
