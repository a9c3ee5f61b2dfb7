"""How chat templates write a tool call into ``content``, and one linear scan that finds such calls.

A model served without its tool-call parser (vLLM without ``--tool-call-parser``, llama.cpp without
``--jinja``) writes its calls as text, in its template's markup: Hermes and Qwen write
``<tool_call>{"name": ..., "arguments": ...}</tool_call>``. Each such markup is one ``Dialect`` in
``DIALECTS``: the text that opens a call and the text that closes it.

``find_blocks`` reads the calls with ``str.find`` from a position that only moves forward, so every
character is looked at a bounded number of times, whatever the text. (A regex such as
``<tool_call>(.*?)</tool_call>`` scans on to the end of the text from every opener that is never
closed: an answer of 176 KB of openers took it 26 s, a megabyte minutes.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Blocks", "DIALECTS", "Dialect", "find_blocks"]


@dataclass(frozen=True)
class Dialect:
    """One template's markup for a tool call: ``opener``, the call as JSON, ``closer``."""

    opener: str
    closer: str


DIALECTS = (Dialect("<tool_call>", "</tool_call>"),)  # Hermes, Qwen 2.5 and 3, NousResearch models
"""Every markup ``repair.py`` reads, in the order it looks for them."""


@dataclass
class Blocks:
    """What ``find_blocks`` found in a text."""

    insides: list[str] = field(default_factory=list)
    """What each closed block holds, in order."""
    outside: str = ""
    """The text with the blocks taken out."""
    unclosed: int | None = None
    """Where an opener starts that is never closed (its closer missing, or after another opener)."""


def find_blocks(text: str, dialect: Dialect) -> Blocks:
    """The ``dialect`` blocks in ``text``: one forward scan, so linear in its length."""
    found, outside = Blocks(), []
    position = 0
    while (start := text.find(dialect.opener, position)) >= 0:
        inside = start + len(dialect.opener)
        end = text.find(dialect.closer, inside)
        if end < 0 or text.find(dialect.opener, inside, end) >= 0:
            found.unclosed = start
            break
        outside.append(text[position:start])
        found.insides.append(text[inside:end])
        position = end + len(dialect.closer)
    outside.append(text[position:])
    found.outside = "".join(outside)
    return found
