"""Tool calls a server leaves in ``content``, in its model's own markup, and one linear scan that reads them.

A model served without its tool-call parser (vLLM without ``--tool-call-parser``, llama.cpp without
``--jinja``, a parser that fails) writes its calls as text, in its chat template's markup. ``DIALECTS`` has
one entry per markup: what opens a call, what closes it, how the call inside is written, the server flags
that turn the parser on, and where the markup comes from.

Inside a call, either the JSON names the function, ``{"name": ..., "arguments": {...}}`` (or a list of
those), or a name comes first and the JSON after it is the arguments: ``note[ARGS]{"text": ...}``. Every
JSON value goes through ``json_text.read_json``, the rule for ``tool_calls`` too, so NaN, a 5,000-digit
number, a key twice, a lone surrogate or deep nesting is refused with the same reason.

``find_calls`` takes the dialect whose opener comes first and reads its calls with ``str.find`` from a
position that only moves forward, so every character is looked at a bounded number of times, whatever
the text. (A regex such as ``<tool_call>(.*?)</tool_call>`` scans on to the end of the text from every
opener that is never closed: an answer of 176 KB of openers took it 26 s, a megabyte minutes.)
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..json_text import UnusableJSON, read_json
from ..language import translatable

__all__ = ["DIALECTS", "Dialect", "Found", "Unreadable", "find_calls"]


@dataclass(frozen=True)
class Dialect:
    name: str
    """As errors and repairs name it: the models that write it, and its opener."""
    opener: str
    closer: str
    """Ends a call; "" when a call runs to the end of its JSON (what follows stays text)."""
    name_end: str
    """Ends a name written before the JSON (``[ARGS]`` in ``note[ARGS]{...}``); "" when the JSON holds it."""
    flags: str
    """What turns the server's own parser on: option names only, shown as they are in every language."""
    source: str
    """Where the markup is written down, for a reader who wants to check it."""
    around: tuple[str, ...] = ()
    """Tokens that wrap the calls, taken out of the text left."""
    needs: str = ""
    """Text that must be in the content too for the opener to be markup, not words."""


DIALECTS = (
    Dialect("Hermes/Qwen <tool_call>", "<tool_call>", "</tool_call>", "",
            "vLLM: --enable-auto-tool-choice --tool-call-parser hermes (qwen3_coder for <function=...>); "
            "llama.cpp: --jinja; Ollama: {{ .Tools }} in TEMPLATE",
            "Hermes 2 Pro to 4, Qwen 2.5 and 3 chat templates; vLLM's hermes parser"),
    Dialect("Mistral [TOOL_CALLS]", "[TOOL_CALLS]", "", "[ARGS]",
            "vLLM: --enable-auto-tool-choice --tool-call-parser mistral; llama.cpp: --jinja",
            "Mistral's tokenizer: a JSON list, or NAME[ARGS]{...} per call since v11; vLLM's mistral parser"),
    Dialect("Llama 4 <|python_start|>", "<|python_start|>", "<|python_end|>", "",
            "vLLM: --enable-auto-tool-choice --tool-call-parser llama4_json; llama.cpp: --jinja",
            "Llama 4's template; vLLM's examples/tool_chat_template_llama4_json.jinja"),
    Dialect("Llama 3 <|python_tag|>", "<|python_tag|>", "", "",
            "vLLM: --enable-auto-tool-choice --tool-call-parser llama3_json; llama.cpp: --jinja",
            "meta-llama/llama-models, Llama 3.1's prompt format"),
    Dialect("Granite <|tool_call|>", "<|tool_call|>", "", "",
            "vLLM: --enable-auto-tool-choice --tool-call-parser granite; llama.cpp: --jinja",
            "IBM Granite's template; vLLM's granite parser"),
    Dialect("DeepSeek <｜tool▁call▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>",
            "vLLM: --enable-auto-tool-choice --tool-call-parser deepseek_v3 (deepseek_v31 for V3.1); "
            "llama.cpp: --jinja",
            "DeepSeek V3 and V3.1 templates; vLLM's deepseek_v3 and deepseek_v31 parsers",
            around=("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")),
    Dialect("Functionary <function=...>", "<function=", "</function>", ">",
            "llama.cpp: --jinja; vLLM: --chat-template, --tool-call-parser",
            "Functionary v3.1 and Llama 3.1: llama.cpp's docs/function-calling.md"),
    Dialect("gpt-oss (harmony) to=functions.", "to=functions.", "", "<|message|>",
            "vLLM: --enable-auto-tool-choice --tool-call-parser openai; llama.cpp: --jinja; Ollama ≥ 0.11",
            "openai/harmony docs/format.md; vLLM's openai parser",
            around=("<|call|>",), needs="<|message|>"),
    Dialect('a bare JSON {"name", "parameters"} object', "", "", "",
            "vLLM: --enable-auto-tool-choice --tool-call-parser llama3_json; llama.cpp: --jinja; "
            "mlx_lm.server: pip install -U mlx-lm",
            "Llama 3.1's JSON tool calling, as an MLX server returns it"),
)  # fmt: skip
"""Every markup repair.py reads. The last, with no opener, is the whole content as one JSON call: taken as
a call only when it names a tool the request offered and holds nothing else."""
BARE_JSON = DIALECTS[-1]
_NAME_SPAN = 200
"""How far a name may run before the text that ends it: a tool's name is at most 64 characters."""

# Why markup holds no call that can be read: an English sentence, said in the reader's language by repair.py.
NOT_CLOSED = translatable("a {opener} is never closed")
NOT_JSON = translatable("its inside is not JSON")
NO_NAME = translatable("its inside names no function")
BAD_ARGUMENTS = translatable("its arguments are neither an object nor a JSON string")


class Unreadable(ValueError):
    """Markup that holds no call that can be read: its ``dialect``, its first characters (``markup``) and
    the ``reason``: one of the sentences above, or what ``read_json`` refused."""

    def __init__(self, dialect: Dialect, markup: str, reason: str | UnusableJSON) -> None:
        super().__init__(f"{dialect.name}: {reason}")
        self.dialect, self.markup, self.reason = dialect, markup, reason


class _NoCall(ValueError):
    def __init__(self, reason: str | UnusableJSON) -> None:
        super().__init__(str(reason))
        self.reason = reason


@dataclass
class Found:
    dialect: Dialect
    calls: list[dict[str, str]]
    """Each call as a ``function`` object: its name, and its arguments as a JSON string."""
    outside: str
    """The content without the markup."""


def find_calls(content: str, tool_names: Collection[str]) -> Found | None:
    """The calls left in ``content`` in the dialect whose opener comes first, or None when there are none.
    Raises ``Unreadable`` when that dialect's markup holds no call that can be read."""
    present = [(content.find(d.opener), d) for d in DIALECTS if d.opener and d.needs in content]
    present = [(start, dialect) for start, dialect in present if start >= 0]
    if not present:
        return _bare_call(content.strip(), tool_names)
    start, dialect = min(present, key=lambda found: found[0])
    calls: list[dict[str, str]] = []
    outside: list[str] = []
    position = 0  # where the text not yet taken begins: only ever moves forward
    while start >= 0:
        outside.append(content[position:start])
        inside = start + len(dialect.opener)
        if dialect.closer:
            end = content.find(dialect.closer, inside)
            if end < 0 or content.find(dialect.opener, inside, end) >= 0:
                raise Unreadable(dialect, content[start : start + 400], NOT_CLOSED)
            position = end + len(dialect.closer)
        else:  # the call runs to the next opener or the end; what follows its JSON stays text
            end = content.find(dialect.opener, inside)
            position = end = len(content) if end < 0 else end
        try:
            read, after = _read(dialect, content[inside:end])
        except _NoCall as problem:
            raise Unreadable(dialect, content[start : start + 400], problem.reason) from None
        calls += read
        outside.append(after)
        start = content.find(dialect.opener, position)
    outside.append(content[position:])
    text = "".join(outside)
    for token in dialect.around:
        text = text.replace(token, "")
    return Found(dialect, calls, text.strip())


def _read(dialect: Dialect, inside: str) -> tuple[list[dict[str, str]], str]:
    """The calls written in ``inside`` (the text after an opener) and the text after them."""
    if dialect.name_end and not inside.lstrip().startswith(("{", "[")):
        end = inside.find(dialect.name_end, 0, _NAME_SPAN)
        if end < 0:
            raise _NoCall(NO_NAME)
        name = inside[:end].split("<|")[0].strip()  # gpt-oss may write "<|constrain|>json" after the name
        rest = inside[end + len(dialect.name_end) :]
        if name == "function" and not rest.lstrip().startswith("{"):
            # DeepSeek V3: function<｜tool▁sep｜>NAME, a newline, the arguments in a ```json fence
            name_ends = rest.find("\n", 0, _NAME_SPAN)
            if name_ends < 0:
                raise _NoCall(NO_NAME)
            name, rest = rest[:name_ends].strip(), rest[name_ends:].strip()
            rest = rest.removeprefix("```json").removesuffix("```")
        arguments, after = _json_at(rest)
        calls = [_function(name, arguments)]
    else:
        value, after = _json_at(inside)
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(item, dict) for item in items):
            raise _NoCall(NO_NAME)
        calls = [_function(item.get("name"), _arguments(item)) for item in items]
    if dialect.closer and after.strip():
        raise _NoCall(NOT_JSON)  # more than one JSON value before the closer
    return calls, after


_EXTENT = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=str)
"""Finds where a JSON value ends, converting nothing in it; ``read_json`` then reads the value."""


def _json_at(text: str) -> tuple[Any, str]:
    """The JSON value at the start of ``text`` (after blanks), read by ``read_json``, and the text after it."""
    start = len(text) - len(text.lstrip(" \t\r\n"))
    try:
        end = _EXTENT.raw_decode(text, start)[1]
    except (ValueError, RecursionError):
        end = len(text)  # read_json says what is wrong with the rest
    try:
        return read_json(text[start:end]), text[end:]
    except UnusableJSON as refused:
        raise _NoCall(refused) from None
    except json.JSONDecodeError:
        raise _NoCall(NOT_JSON) from None


def _arguments(call: dict[str, Any]) -> Any:
    """Hermes, Mistral and Granite write "arguments"; Llama writes "parameters"."""
    return call["arguments"] if "arguments" in call else call.get("parameters", {})


def _function(name: Any, arguments: Any) -> dict[str, str]:
    if not isinstance(name, str) or not name:
        raise _NoCall(NO_NAME)
    if isinstance(arguments, dict):
        return {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
    if isinstance(arguments, str):
        return {"name": name, "arguments": arguments}
    raise _NoCall(BAD_ARGUMENTS)


_BARE_KEYS = {"name", "parameters", "arguments", "type"}


def _bare_call(content: str, tool_names: Collection[str]) -> Found | None:
    """``content`` as one JSON call (or a list of them) naming offered tools; None for anything else: a JSON
    answer that merely has a "name" is an answer. Its shape is judged first, then it is read as any call."""
    if not tool_names or not content.startswith(("{", "[{")):
        return None
    try:
        value, end = _EXTENT.raw_decode(content)
    except (ValueError, RecursionError):
        return None
    items = value if isinstance(value, list) else [value]
    if end != len(content) or not items or not all(_offered_call(item, tool_names) for item in items):
        return None
    try:
        calls, _ = _read(BARE_JSON, content)
    except _NoCall as problem:
        raise Unreadable(BARE_JSON, content[:400], problem.reason) from None
    return Found(BARE_JSON, calls, "")


def _offered_call(item: Any, tool_names: Collection[str]) -> bool:
    if not isinstance(item, dict) or not set(item) <= _BARE_KEYS or not isinstance(item.get("name"), str):
        return False
    return item["name"] in tool_names and isinstance(_arguments(item), dict)
