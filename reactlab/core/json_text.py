"""JSON from outside (a server's body, a model's arguments, a cassette) read by one rule, in linear time.

Python's ``json.loads`` reads more than JSON and less: it takes ``NaN`` and ``Infinity`` (JSON has
neither, and httpx refuses to send them back) and reads ``1e999`` as infinity; it keeps the last of
two equal keys where another reader keeps the first; it makes strings holding half of a UTF-16
pair (``"\\ud800"``), which no UTF-8 request can carry on; it recurses as deep as the text nests
(a RecursionError, or a copy of the answer that overflows later); and a number of more than 4,300
digits stops it with a bare ValueError (Python's limit on turning digits into an int).

``read_json`` reads the interoperable part of JSON (I-JSON, RFC 7493) and refuses the rest with
``UnusableJSON``, which names the reason: nesting deeper than ``MAX_DEPTH``; a number it cannot
hold (NaN, Infinity, 1e999, more than ``NUMBER_DIGITS`` digits); a lone surrogate; a key given
twice. Text that is not JSON at all raises ``json.JSONDecodeError`` as before; both are ValueErrors,
so a caller turns either into an error the model reads or a typed reactlab error. ``write_json``
writes only what any UTF-8 request carries.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from .language import Language, decimal, say, translatable

__all__ = ["MAX_DEPTH", "NUMBER_DIGITS", "UnusableJSON", "depth", "find_unusable", "read_json", "write_json"]

MAX_DEPTH = 64
"""Levels of nesting accepted; a tool's parameters schema, the deepest part of a request, has about 10."""
NUMBER_DIGITS = 4300
"""Characters of one number accepted: Python's own default limit on ``int("...")``."""

# Why a text is refused, as the model reads it (``UnusableJSON.in_words``).
TOO_DEEP = translatable("nested deeper than {limit} levels")
BAD_NUMBER = translatable("an unusable number (NaN, Infinity, 1e999 or more than {limit} digits)")
SURROGATE = translatable("a string holds half of a UTF-16 surrogate pair (such as \\ud800), which is not text")
DUPLICATE_KEY = translatable("the key {key!r} appears twice in one object")


class UnusableJSON(ValueError):
    """JSON that ``read_json`` refuses; ``str()`` says why in English, ``in_words(lang)`` in a language."""

    def __init__(self, problem: str, said: str, where: tuple[str | int, ...] = (), **values: str | int) -> None:
        super().__init__(said)
        self.problem = problem
        """The reason, an English sentence with its ``{fields}`` in ``values`` (``in_words`` says it)."""
        self.where = where
        """The keys and indexes that lead to the part refused, where it is known."""
        self.values = values

    def in_words(self, lang: Language | None = None) -> str:
        """The reason as the run's language says it, for a model or a reader."""
        values = {name: decimal(v, ",", lang) if isinstance(v, int) else v for name, v in self.values.items()}
        return say(self.problem, lang=lang, **values)


def read_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """The value of ``text``, or ``UnusableJSON`` / ``json.JSONDecodeError`` saying why not."""
    if depth(text) > max_depth:
        raise UnusableJSON(TOO_DEEP, f"it nests deeper than {max_depth} levels", limit=max_depth)
    value = json.loads(
        text,
        parse_int=_integer,
        parse_float=_float,
        parse_constant=_constant,
        object_pairs_hook=_object,
    )
    if not _is_text(json.dumps(value, ensure_ascii=False)):  # one quick pass; then the slow one says where
        problem = find_unusable(value, max_depth)
        assert problem is not None
        raise problem
    return value


def find_unusable(value: Any, max_depth: int = MAX_DEPTH) -> UnusableJSON | None:
    """What ``read_json`` would refuse in data already parsed (or built in Python), where it is: nesting
    deeper than ``max_depth`` (walked with a list, not by recursion: a dict that holds itself is
    infinitely deep), a number that is not finite, a string or a key holding half of a UTF-16 pair."""
    waiting: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while waiting:
        item, where = waiting.pop()
        if isinstance(item, (dict, list)):
            if len(where) >= max_depth:
                return UnusableJSON(TOO_DEEP, f"it nests deeper than {max_depth} levels", where, limit=max_depth)
            items = item.items() if isinstance(item, dict) else enumerate(item)
            waiting += [(inner, (*where, key)) for key, inner in reversed(list(items))]  # in the order written
        if isinstance(item, float) and not math.isfinite(item):
            return UnusableJSON(BAD_NUMBER, f"{item} is not a JSON number", where, limit=NUMBER_DIGITS)
        for text in (item, where[-1] if where else None):  # a string, or the key it is found under
            if isinstance(text, str) and not _is_text(text):
                return UnusableJSON(SURROGATE, "holds half of a UTF-16 surrogate pair, which is not text", where)
    return None


def write_json(value: Any) -> str:
    """``value`` as JSON text that any UTF-8 request carries: a ValueError for NaN, a lone surrogate or
    an int of more than 4,300 digits, a TypeError for a value that is not JSON data."""
    text = _WRITER.encode(value)
    if not _is_text(text):
        raise UnusableJSON(SURROGATE, "a string holds half of a UTF-16 surrogate pair, which is not text")
    return text


_WRITER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)  # built once: json.dumps with options makes one a call
_STRING = re.compile(r'"[^"]*"')
_NOT_BRACKET = re.compile(r"[^][{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def depth(text: str) -> int:
    """How deep JSON ``text`` nests, found without parsing it (so without recursion), in linear time:
    escapes are dropped, then strings, then all but the brackets, whose running count peaks at the
    depth. Text that is not JSON gets some number; parsing it fails next."""
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", unescaped))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _integer(digits: str) -> int:
    if len(digits) > NUMBER_DIGITS:  # checked first: where no limit is set, int() of a million digits takes minutes
        raise _bad_number(f"a number is written with more than {NUMBER_DIGITS} digits")
    try:
        return int(digits)
    except ValueError:  # a limit set lower than ours (sys.set_int_max_str_digits)
        raise _bad_number(f"a number is written with more digits than Python reads ({len(digits)})") from None


def _float(digits: str) -> float:
    if len(digits) > NUMBER_DIGITS:
        raise _bad_number(f"a number is written with more than {NUMBER_DIGITS} digits")
    value = float(digits)
    if not math.isfinite(value):
        raise _bad_number(f"the number {digits[:20]} is too large for a float")
    return value


def _constant(name: str) -> Any:
    raise _bad_number(f"{name} is not a JSON number")


def _bad_number(said: str) -> UnusableJSON:
    return UnusableJSON(BAD_NUMBER, said, limit=NUMBER_DIGITS)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            shown = key[:40].encode(errors="backslashreplace").decode()  # a lone surrogate as JSON writes it
            raise UnusableJSON(DUPLICATE_KEY, f"the key {shown!r} appears twice in one object", key=shown)
        seen.add(key)
    return dict(pairs)


def _is_text(string: str) -> bool:
    try:
        string.encode()
    except UnicodeEncodeError:
        return False
    return True
