"""Notebook 04's side-by-side: reactlab's ``Agent._loop`` (its installed source) beside the article's
loop, retold; shown once the student's loop agrees with the Agent on every case of the check."""

from __future__ import annotations

import inspect
import textwrap

from ..run.agent import Agent
from ..strings import resolve_language, strings
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
        texts = strings(self.lang).exercises
        return texts.beside_repr_shown if self.shown else texts.beside_repr_locked


def show_beside_agent(loop: object, now: bool = False, lang: str | None = None) -> Beside:
    """``Agent._loop`` beside the article's loop, once ``loop`` agrees with the Agent on every case;
    before that (unless ``now``), a note saying so, so that *Run All* does not print the answer under
    the exercise."""
    from ..widgets.markup import render  # the course's HTML goes through the schemes' escaping templates

    lang = resolve_language(lang)
    texts = strings(lang).exercises
    shown = now or _agrees(loop, lang)
    if not shown:
        return Beside(render("beside.html", locked=texts.beside_locked, t=texts), False, lang)
    agent = textwrap.dedent(inspect.getsource(Agent._loop))
    return Beside(
        render("beside.html", locked=None, agent=agent, article=texts.beside_article_loop, t=texts), True, lang
    )


def _agrees(loop: object, lang: str) -> bool:
    if not callable(loop):
        return False
    try:
        return first_difference(loop, lang=lang) is None
    except NotImplementedError:
        return False
