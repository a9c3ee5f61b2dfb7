"""Tool calls a local server leaves in ``content``, in its model's own markup, when its tool-call parser is
off or fails. Hermes/Qwen ``<tool_call>`` is read in repair.py; these are the others, one entry each:

- Mistral: ``[TOOL_CALLS] [{"name": ..., "arguments": {...}}]``, and ``[TOOL_CALLS]name[ARGS]{...}`` of the
  newer templates (vLLM's and llama.cpp's mistral parsers);
- Llama 3.x ``<|python_tag|>{"name": ..., "parameters": {...}}`` and Llama 4 ``<|python_start|>{...}<|python_end|>``
  (vLLM's llama3_json and llama4_json parsers);
- IBM Granite ``<|tool_call|>[{...}]`` (vLLM's granite parser);
- DeepSeek ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>...<｜tool▁sep｜>...<｜tool▁call▁end｜>``
  in V3's and V3.1's forms;
- Functionary v3.1 and Llama 3.1 ``<function=NAME>{...}</function>`` (llama.cpp's chat parsers);
- gpt-oss (harmony) ``to=functions.NAME <|constrain|>json<|message|>{...}<|call|>`` (vLLM's openai parser);
- a bare JSON call as the whole content, ``{"name": ..., "parameters": {...}}`` (Llama 3.1 on an MLX server),
  taken as a call only when the name is a tool the request offered and nothing else is in the object.

``find_calls`` reads them in linear time: every search is ``str.find`` from a position that only moves
forward, each JSON value is decoded once from where it starts (``raw_decode``), and the first thing that
cannot be read ends the scan. It returns the dialect, the calls and the text outside them, or raises
``Unreadable`` saying what could not be read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DIALECTS", "Dialect", "Found", "Unreadable", "find_calls"]

_DECODER = json.JSONDecoder()
_NAME_SPAN = 200
"""How far a tool's name may run before the markup that ends it: a name is at most 64 characters."""


class Unreadable(ValueError):
    """Markup that holds no call that can be read; ``str()`` is the markup's start, ``dialect`` its entry."""

    def __init__(self, dialect: Dialect, markup: str) -> None:
        super().__init__(markup)
        self.dialect = dialect


@dataclass(frozen=True)
class Dialect:
    name: str
    opener: str
    flags: str
    """What turns the server's own parser on (shown in the error; names of options, not translated)."""
    read: Callable[[str, int], tuple[list[tuple[str, Any]], int]] = field(repr=False)
    """From the opener's position: the calls read and where the markup ends. Raises ValueError."""
    also: str = ""
    """Text that must be present too for the opener to be markup, not words ("to=functions." in prose)."""


@dataclass
class Found:
    dialect: Dialect
    calls: list[dict[str, str]]
    """Each call as a ``function`` object: name, and arguments as a JSON string."""
    outside: str
    """The content without the markup."""


def _value(text: str, position: int) -> tuple[Any, int]:
    """The JSON value that starts at ``position`` (after blanks) and where it ends."""
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    try:
        return _DECODER.raw_decode(text, position)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _skip(text: str, position: int, *words: str) -> int:
    """``position`` after blanks and any of ``words`` that follow there."""
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    for word in words:
        if text.startswith(word, position):
            return position + len(word)
    return position


def _name(text: str, start: int, end_mark: str) -> tuple[str, int]:
    """The name from ``start`` to ``end_mark``, looked for no further than a name can run."""
    end = text.find(end_mark, start, start + _NAME_SPAN)
    if end < 0:
        raise ValueError(f"no {end_mark} after a name")
    return text[start:end].strip(), end + len(end_mark)


def _json_calls(value: Any, *argument_keys: str) -> list[tuple[str, Any]]:
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError("a call without a name")
        arguments: Any = next((item[k] for k in argument_keys if k in item), {})
        calls.append((item["name"], arguments))
    return calls


def _mistral(text: str, start: int) -> tuple[list[tuple[str, Any]], int]:
    position = start + len("[TOOL_CALLS]")
    if text[_skip(text, position) : _skip(text, position) + 1] in ("[", "{"):
        value, end = _value(text, position)
        return _json_calls(value, "arguments"), end
    calls = []
    while True:  # the newer form: [TOOL_CALLS]name[ARGS]{...}, once per call
        name, position = _name(text, position, "[ARGS]")
        arguments, position = _value(text, position)
        calls.append((name, arguments))
        following = _skip(text, position)
        if not text.startswith("[TOOL_CALLS]", following):
            return calls, position
        position = following + len("[TOOL_CALLS]")


def _after_opener(
    opener: str, closer: str = "", *argument_keys: str
) -> Callable[[str, int], tuple[list[tuple[str, Any]], int]]:
    def read(text: str, start: int) -> tuple[list[tuple[str, Any]], int]:
        value, end = _value(text, start + len(opener))
        if closer:
            closed = _skip(text, end, closer)
            if closed == _skip(text, end):
                raise ValueError(f"{opener} is never closed by {closer}")
            end = closed
        return _json_calls(value, *argument_keys), end

    return read


def _deepseek(text: str, start: int) -> tuple[list[tuple[str, Any]], int]:
    calls, position = [], start
    while (begin := text.find("<｜tool▁call▁begin｜>", position)) >= 0:
        header, after = _name(text, begin + len("<｜tool▁call▁begin｜>"), "<｜tool▁sep｜>")
        if header == "function":  # V3: function<｜tool▁sep｜>NAME\n```json\n{...}\n```
            name, after = _name(text, after, "\n")
            after = _skip(text, after, "```json")
        else:  # V3.1: NAME<｜tool▁sep｜>{...}
            name = header
        arguments, after = _value(text, after)
        after = _skip(text, after, "```")
        end = _skip(text, after, "<｜tool▁call▁end｜>")
        if end == _skip(text, after):
            raise ValueError("a call is never closed")
        calls.append((name, arguments))
        position = end
        if text.startswith("<｜tool▁calls▁end｜>", _skip(text, position)):
            return calls, _skip(text, position, "<｜tool▁calls▁end｜>")
    if not calls:
        raise ValueError("no call inside")
    return calls, position


def _functionary(text: str, start: int) -> tuple[list[tuple[str, Any]], int]:
    calls, position = [], start
    while text.startswith("<function=", position):
        name, position = _name(text, position + len("<function="), ">")
        arguments, position = _value(text, position)
        end = _skip(text, position, "</function>")
        if end == _skip(text, position):
            raise ValueError("<function=...> is never closed")
        calls.append((name, arguments))
        position = _skip(text, end)
    return calls, position


def _harmony(text: str, start: int) -> tuple[list[tuple[str, Any]], int]:
    calls, position = [], start
    while (begin := text.find("to=functions.", position)) >= 0:
        name_start = begin + len("to=functions.")
        message = text.find("<|message|>", name_start, name_start + _NAME_SPAN)
        if message < 0:
            raise ValueError("no <|message|> after the recipient")
        words = text[name_start:message].split("<|")[0].split()  # "note <|constrain|>json" or "note"
        name = words[0] if words else ""
        arguments, position = _value(text, message + len("<|message|>"))
        position = _skip(text, position, "<|call|>")
        calls.append((name, arguments))
    return calls, position


DIALECTS = (
    Dialect(
        "Mistral [TOOL_CALLS]",
        "[TOOL_CALLS]",
        "vLLM: --enable-auto-tool-choice --tool-call-parser mistral; llama.cpp: --jinja",
        _mistral,
    ),
    Dialect(
        "Llama 4 <|python_start|>",
        "<|python_start|>",
        "vLLM: --enable-auto-tool-choice --tool-call-parser llama4_json; llama.cpp: --jinja",
        _after_opener("<|python_start|>", "<|python_end|>", "parameters", "arguments"),
    ),
    Dialect(
        "Llama 3 <|python_tag|>",
        "<|python_tag|>",
        "vLLM: --enable-auto-tool-choice --tool-call-parser llama3_json; llama.cpp: --jinja",
        _after_opener("<|python_tag|>", "", "parameters", "arguments"),
    ),
    Dialect(
        "Granite <|tool_call|>",
        "<|tool_call|>",
        "vLLM: --enable-auto-tool-choice --tool-call-parser granite; llama.cpp: --jinja",
        _after_opener("<|tool_call|>", "", "arguments"),
    ),
    Dialect(
        "DeepSeek <｜tool▁calls▁begin｜>",
        "<｜tool▁call",
        "vLLM: --enable-auto-tool-choice --tool-call-parser deepseek_v3 (deepseek_v31 for V3.1); llama.cpp: --jinja",
        _deepseek,
    ),
    Dialect(
        "Functionary <function=...>",
        "<function=",
        "llama.cpp: --jinja; vLLM: a chat template and --tool-call-parser for the model",
        _functionary,
    ),
    Dialect(
        "gpt-oss (harmony) to=functions.",
        "to=functions.",
        "vLLM: --enable-auto-tool-choice --tool-call-parser openai; llama.cpp: --jinja; Ollama: a current version",
        _harmony,
        also="<|message|>",
    ),
)
BARE_JSON = Dialect(
    'a bare JSON {"name", "parameters"} object',
    "",
    "vLLM: --enable-auto-tool-choice --tool-call-parser llama3_json; llama.cpp: --jinja; "
    "an MLX server: a version that parses tool calls",
    _after_opener("", "", "parameters", "arguments"),
)
"""Tried last, and only on content that is one JSON object naming an offered tool."""


def find_calls(content: str, tool_names: Collection[str]) -> Found | None:
    """The calls left in ``content`` in the first dialect that appears there, or None. Raises
    ``Unreadable`` when a dialect's markup is there but holds no call that can be read."""
    starts = [(content.find(d.opener), d) for d in DIALECTS if d.also in content]
    present = [(start, dialect) for start, dialect in starts if start >= 0]
    if not present:
        return _bare_call(content, tool_names)
    start, dialect = min(present, key=lambda found: found[0])
    try:
        calls, end = dialect.read(content, start)
        function_calls = [_function(name, arguments) for name, arguments in calls]
    except ValueError:
        raise Unreadable(dialect, content[start : start + 400]) from None
    if not function_calls:
        raise Unreadable(dialect, content[start : start + 400])
    return Found(dialect, function_calls, (content[:start] + content[end:]).strip())


def _function(name: Any, arguments: Any) -> dict[str, str]:
    if not isinstance(name, str) or not name or len(name) > 64:
        raise ValueError("no usable name")
    if isinstance(arguments, dict):
        return {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
    if isinstance(arguments, str):
        return {"name": name, "arguments": arguments}
    raise ValueError("arguments are neither an object nor a JSON string")


_BARE_KEYS = {"name", "parameters", "arguments", "type"}


def _bare_call(content: str, tool_names: Collection[str]) -> Found | None:
    """A whole content that is one JSON call (or a list of them) naming offered tools; None for anything else:
    a JSON answer that merely has a "name" is an answer."""
    stripped = content.strip()
    if not stripped.startswith(("{", "[{")) or not tool_names:
        return None
    try:
        value, end = _value(stripped, 0)
    except ValueError:
        return None
    items = value if isinstance(value, list) else [value]
    if end != len(stripped) or not items:
        return None
    for item in items:
        if not isinstance(item, dict) or not set(item) <= _BARE_KEYS or item.get("name") not in tool_names:
            return None
        if not isinstance(item.get("parameters", item.get("arguments", {})), dict):
            return None
    calls = [_function(item["name"], item.get("parameters", item.get("arguments", {}))) for item in items]
    return Found(BARE_JSON, calls, "")
