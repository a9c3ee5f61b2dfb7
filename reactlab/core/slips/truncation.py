"""Tool-call arguments cut off before their JSON ends, in an answer the server did not call cut off.

Several servers label an answer that hit ``max_tokens`` in the middle of a tool call with
``finish_reason: "tool_calls"`` instead of ``"length"`` (vLLM, some DeepSeek deployments, routers
that rewrite the reason). The arguments then stop mid-JSON. ``cut_off_error`` finds such a call
before anything runs; ``ends_early`` is the test it applies: the text is the beginning of a JSON
value, with nothing wrong in it, that stops before the value is complete.

Broken JSON that is *not* a beginning (a typo, a stray quote) is the model's own mistake: the agent
answers it with an error result the model reads. So is a beginning in an answer whose usage shows it
stopped short of ``max_tokens``: it was not the limit that cut it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import TruncatedAnswer
from ..language import Language, say

__all__ = ["cut_off_error", "ends_early"]


def cut_off_error(message: dict[str, Any], usage: Any, max_tokens: int, lang: Language) -> TruncatedAnswer | None:
    """The error for a tool call whose arguments break off, or None when every call is complete."""
    calls = message.get("tool_calls")
    if not isinstance(calls, list) or _stopped_short(usage, max_tokens):
        return None
    for index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
            continue  # the agent refuses these with its own words
        arguments: str = function["arguments"]
        if ends_early(arguments):
            said = say(
                "The arguments of tool_calls[{index}] ({name!r}) break off before their JSON ends ({length} "
                "characters, ending {ending!r}), although finish_reason does not say 'length': the answer was cut "
                "off at max_tokens ({max_tokens}). Nothing was run. Raise max_tokens "
                "(DeepSeekClient(max_tokens=...)), or ask for smaller steps.",
                lang=lang,
                index=index,
                name=str(function.get("name"))[:64],
                length=len(arguments),
                ending=arguments[-40:],
                max_tokens=max_tokens,
            )
            return TruncatedAnswer(said, lang=lang)
    return None


def _stopped_short(usage: Any, max_tokens: int) -> bool:
    """Whether the server's own count shows the answer ended before the limit."""
    used = usage.get("completion_tokens") if isinstance(usage, dict) else None
    return isinstance(used, int) and not isinstance(used, bool) and used < max_tokens


def ends_early(text: str) -> bool:
    """Whether ``text`` is a JSON value cut short: valid as far as it goes, and unfinished.

    It walks the text the way a JSON parser does, with a stack of the open objects and arrays
    instead of recursion (a hostile text may nest deeply), and answers at the first wrong
    character (False), after a complete value (False) or at the end of the text (True).
    A blank text is not a cut-off: LM Studio sends ``""`` for "no arguments".
    """
    try:
        json.loads(text)
        return False  # complete: most arguments are, and the C parser says so at once
    except (ValueError, RecursionError):
        pass
    open_brackets: list[str] = []
    expect = "value"  # value | first value | key | first key | colon | after value
    i = _skip_space(text, 0)
    if i == len(text):
        return False
    while True:
        i = _skip_space(text, i)
        if i == len(text):
            return bool(open_brackets) or expect != "after value"
        char = text[i]
        if expect == "after value":
            if not open_brackets:
                return False  # a complete value, with or without something after it
            closing = "}" if open_brackets[-1] == "{" else "]"
            if char == closing:
                open_brackets.pop()
            elif char == ",":
                expect = "key" if closing == "}" else "value"
            else:
                return False
            i += 1
        elif expect == "colon":
            if char != ":":
                return False
            expect, i = "value", i + 1
        elif (expect, char) in (("first key", "}"), ("first value", "]")):
            open_brackets.pop()
            expect, i = "after value", i + 1
        elif expect in ("key", "first key") and char != '"':
            return False
        elif char in "{[":
            open_brackets.append(char)
            expect, i = ("first key" if char == "{" else "first value"), i + 1
        elif char == '"':
            string = _string(text, i)
            if string is None:
                return False
            end, closed = string
            if not closed:
                return True  # the text ends inside the string
            expect, i = ("colon" if expect in ("key", "first key") else "after value"), end
        else:
            scalar = _scalar(text, i)
            if scalar is None:
                return False
            end, complete = scalar
            if not complete:
                return True  # the text ends inside a number or a literal: "-", "1.", "tr"
            expect, i = "after value", end


def _skip_space(text: str, i: int) -> int:
    return _skip(_SPACE, text, i)


def _skip(run: re.Pattern[str], text: str, i: int) -> int:
    """Past the characters at ``i`` that ``run`` (one character class, repeated) matches: linear."""
    found = run.match(text, i)
    return found.end() if found else i


_SPACE = re.compile(r"[ \t\n\r]*")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')  # what a string holds that needs no care: no quote, escape or control
_ESCAPED = set('"\\/bfnrt')
_HEX = set("0123456789abcdefABCDEF")


def _string(text: str, start: int) -> tuple[int, bool] | None:
    """The end of the string that opens at ``start`` and whether it is closed (the text may end inside
    it); None if the string is wrong: a bad escape, a raw control character."""
    i = _skip(_PLAIN, text, start + 1)
    while i < len(text):
        if text[i] == '"':
            return i + 1, True
        if text[i] != "\\":
            return None  # a raw control character
        escape = text[i + 1 : i + 2]
        if escape == "u":
            digits = text[i + 2 : i + 6]
            if not set(digits) <= _HEX or (len(digits) < 4 and i + 2 + len(digits) < len(text)):
                return None
            i += 2 + len(digits)
        elif escape and escape not in _ESCAPED:
            return None
        else:
            i += 2
        i = _skip(_PLAIN, text, i)
    return len(text), False


_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_NUMBER_CHARS = re.compile(r"[-+0-9.eE]*")
_LITERALS = {"t": "true", "f": "false", "n": "null"}


def _scalar(text: str, start: int) -> tuple[int, bool] | None:
    """The end of the number or literal at ``start`` and whether it is complete ("tr" and "1." at the
    end of the text are not); None if there is no number or literal there. It reads from ``start``
    on, never copies the rest of the text: a megabyte of ``[1,1,1,...`` holds half a million scalars."""
    literal = _LITERALS.get(text[start])
    if literal is not None:
        written = text[start : start + len(literal)]
        if written == literal:
            return start + len(literal), True
        if start + len(written) == len(text) and literal.startswith(written):
            return len(text), False
        return None
    run = _NUMBER_CHARS.match(text, start)
    token = run.group() if run else ""
    if _NUMBER.fullmatch(token):
        return start + len(token), True
    if token and start + len(token) == len(text) and _NUMBER.fullmatch(token + "0"):
        return len(text), False
    return None
