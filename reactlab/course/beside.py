"""Notebook 04's side-by-side: the article's loop, as the article prints it (``article_loop.txt``), and
reactlab's ``Agent._loop`` (its installed source); shown once the student's loop agrees with the Agent
on every case of the check."""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from importlib.resources import files

from ..core.agent import Agent
from ..core.language import resolve_language, say
from .loop_check import first_difference

__all__ = ["ARTICLE_LOOP", "Beside", "show_beside_agent"]

ARTICLE_LOOP = files(__package__).joinpath("article_loop.txt").read_text("utf-8")
"""The main loop of Agent.run() as the article prints it ("without logging and general exception handling")."""


@dataclass(frozen=True)
class Beside:
    """What ``show_beside_agent`` shows: plain HTML (no widget), the same with or without a kernel."""

    html: str
    shown: bool
    lang: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        if self.shown:
            return say("<Agent._loop beside the article's loop>", lang=self.lang)
        return say("<Agent._loop: not shown yet>", lang=self.lang)


def show_beside_agent(loop: object, now: bool = False, lang: str | None = None) -> Beside:
    """The article's loop and ``Agent._loop``, once ``loop`` agrees with the Agent on every case;
    before that (unless ``now``), a note saying so, so that *Run All* does not print the answer under
    the exercise."""
    from ..widgets.markup import render  # the course's HTML goes through the schemes' escaping templates

    lang = resolve_language(lang)
    shown = now or _agrees(loop, lang)
    agent = textwrap.dedent(inspect.getsource(Agent._loop))
    return Beside(render("beside.html", shown=shown, article=ARTICLE_LOOP, agent=agent, lang=lang), shown, lang)


def _agrees(loop: object, lang: str) -> bool:
    try:
        return callable(loop) and first_difference(loop, lang=lang) is None
    except NotImplementedError:
        return False
