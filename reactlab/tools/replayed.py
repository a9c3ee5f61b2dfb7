"""Where bash's replayed results come from: the recorded answer being served, and what it recorded.

Where no sandbox can be built, ``BashStandIn`` runs nothing. When the answer it executes came from a
recording (a cassette's ``ReplayTransport``), the recording also holds what bash returned back then:
the tool message answering the call in the next recorded request. The transport announces each
answer it serves with ``serving(answer)``; the stand-in asks ``recorded_call(name, arguments)``. A
context variable carries the answer, so runs in other threads (a class on one server) never see
each other's, and the tools import nothing of the replay.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["OBSERVATION_LIMIT", "RecordedCall", "Served", "recorded_call", "serving"]

OBSERVATION_LIMIT = 100_000  # characters of one recorded tool message; a real bash result is far smaller


@dataclass(frozen=True)
class RecordedCall:
    """A tool call in a recorded answer, and what the recording says the tool returned."""

    interaction: int
    """The number (from 1) of the interaction whose response asked for the call."""
    call_id: str
    name: str
    arguments: str
    observation: str | None
    """The content of the ``tool`` message answering it in the next request; None if not recorded."""


class Served(Protocol):
    """A recorded answer being served: it hands out each of its recorded calls once."""

    def recorded_call(self, name: str, arguments: dict[str, Any]) -> RecordedCall | None: ...


_served: ContextVar[Served | None] = ContextVar("reactlab_served", default=None)


def serving(answer: Served) -> None:
    """Called by a replay transport as it serves ``answer``: later calls in this thread read it."""
    _served.set(answer)


def recorded_call(name: str, arguments: dict[str, Any]) -> RecordedCall | None:
    """The recorded call ``name(arguments)`` in the answer served last in this thread, or None."""
    answer = _served.get()
    return None if answer is None else answer.recorded_call(name, arguments)
