"""Where bash's replayed results come from: the recorded answer being served, and what it recorded.

Where no sandbox can be built, ``BashStandIn`` runs nothing. When the answer it executes came from a
recording (a cassette's ``ReplayTransport``), the recording also holds what bash returned back then:
the tool message answering the call in the next recorded request. The transport announces each
answer it serves with ``serving(answer)``; the stand-in asks ``recorded_result(name, arguments)``. A
context variable carries the answer, so runs in other threads (a class on one server) never see
each other's, and the tools import nothing of the replay.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Protocol

__all__ = ["Served", "recorded_result", "serving"]


class Served(Protocol):
    """A recorded answer being served: it hands out what each of its calls returned, once."""

    def recorded_result(self, name: str, arguments: dict[str, Any], lang: str | None) -> dict[str, Any] | str | None:
        """The result recorded for the call ``name(arguments)``; why the recording cannot give it (in
        ``lang``); or None if the answer made no such call."""


_served: ContextVar[Served | None] = ContextVar("reactlab_served", default=None)


def serving(answer: Served) -> None:
    """Called by a replay transport as it serves ``answer``: later calls in this thread read it."""
    _served.set(answer)


def recorded_result(name: str, arguments: dict[str, Any], lang: str | None) -> dict[str, Any] | str | None:
    """What the answer served last in this thread recorded for ``name(arguments)`` (see ``Served``)."""
    answer = _served.get()
    return None if answer is None else answer.recorded_result(name, arguments, lang)
