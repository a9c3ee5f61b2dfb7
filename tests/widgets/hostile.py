"""Run records whose every string comes from a hostile source, and a check that rendered HTML is inert.

Shared by the property test (hypothesis picks the strings) and the browser test (one fixed record).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from typing import Any

from reactlab import RunRecord
from reactlab.core.tools.base import BaseTool

# Each one would run script, load something or break out of where it lands if it reached the page raw.
PAYLOADS = [
    '<img src=x onerror="window.__pwned=(window.__pwned||0)+1">',
    '"><script>window.__pwned=1</script>',
    "'><svg onload=window.__pwned=1>",
    "</textarea><img src=x onerror=alert(1)>",
    '</pre></details></td></table><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    "javascript:window.__pwned=1",
    '" onmouseover="window.__pwned=1" x="',
    "{{ 7*7 }}{% raw %}${7*7}",
    "<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>",
    '</text><a href="javascript:alert(1)">x</a><text>',
    "<style>*{background:url(javascript:alert(1))}</style>",
    '<!-- --><math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    "&lt;img src=x onerror=alert(1)&gt;",
]

Text = Callable[[], str]


def hostile_record(text: Text, *, stop_reason: str | None = None, numbers_are_text: bool = True) -> RunRecord:
    """A run of three model calls (three tool calls, an edit, a final answer) where every string is
    ``text()``; the usage values and the result's counts are strings too when ``numbers_are_text``."""

    def count(value: int) -> Any:
        return text() if numbers_are_text else value

    ids = [text() for _ in range(3)]
    names = [text() for _ in range(3)]
    tools = [
        {"type": "function", "function": {"name": name, "description": text(), "parameters": {"type": "object"}}}
        for name in names
    ]
    system = {"role": "system", "content": text()}
    user = {"role": "user", "content": text()}
    asked = {
        "role": "assistant",
        "content": text(),
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps({text(): text()})}}
            for call_id, name in zip(ids, names, strict=True)
        ],
    }
    results: list[dict[str, Any]] = [
        {"ok": True, "path": text(), "content": text(), "truncated": True, "size": count(120)},
        {
            "ok": True, "exit_code": count(1), "stdout": text() + "\nFAILED (failures=1)\n", "stderr": text(),
            "truncated": True, "replayed": True, "note": text(), "command": text(), "duration": count(2),
        },
        {"ok": False, "timed_out": True, "sandbox_unavailable": True, "error": text()},
    ]  # fmt: skip
    tool_messages = [
        {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}
        for call_id, result in zip(ids, results, strict=True)
    ]
    edit_call = {"id": text(), "type": "function", "function": {"name": names[0], "arguments": text()}}
    edit = {"role": "assistant", "content": None, "tool_calls": [edit_call]}
    edit_result = {"ok": True, "path": text(), "diff": f"--- a\n+++ b\n-{text()}\n+{text()}\n"}
    edit_message = {"role": "tool", "tool_call_id": text(), "content": json.dumps(edit_result)}
    final = {"role": "assistant", "content": text()}

    def response(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
        usage = {
            "prompt_tokens": count(10), "completion_tokens": count(5), "prompt_cache_hit_tokens": count(0),
            "prompt_cache_miss_tokens": count(10), "total_tokens": count(15), "estimated": text(),
        }  # fmt: skip
        choice = {"index": 0, "message": message, "finish_reason": finish_reason}
        return {"id": text(), "model": text(), "object": text(), "choices": [choice], "usage": usage}

    history = [system, user]
    first = {"model": text(), "messages": list(history), "tools": tools}
    history += [asked, *tool_messages]
    second = {"model": text(), "messages": list(history), "tools": tools}
    history += [edit, edit_message]
    third = {"model": text(), "messages": list(history), "tools": tools}
    history.append(final)
    record = RunRecord.from_dict(
        {
            "task": text(), "system": text(), "tools": tools, "messages": history,
            "model_calls": [
                {"number": 1, "request": first, "response": response(asked, text())},
                {"number": 2, "request": second, "response": response(edit, "tool_calls")},
                {"number": 3, "request": third, "response": response(final, "stop")},
            ],
            "tool_executions": [
                *({"model_call": 1, "call_id": call_id, "name": name, "arguments": json.dumps({"path": text()}),
                   "result": result} for call_id, name, result in zip(ids, names, results, strict=True)),
                {"model_call": 2, "call_id": edit_call["id"], "name": names[0], "arguments": text(),
                 "result": edit_result},
            ],
            "stop_reason": stop_reason if stop_reason is not None else text(), "answer": text(), "error": text(),
        }
    )  # fmt: skip
    for call in record.model_calls:
        call.repairs = [text(), text()]  # type: ignore[attr-defined]  # the field issue 15 adds
    return record


class EchoTool(BaseTool):
    """A real tool whose name, description and result are whatever the test hands it."""

    def __init__(self, text: Callable[[], str]) -> None:
        self.text = text
        self.name = text()
        self.description = text()

    def parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    def run(self, text: str) -> dict[str, Any]:  # type: ignore[override]
        return {"ok": True, "path": text, "content": self.text(), "size": self.text(), "truncated": True,
                "replayed": True, "note": self.text()}  # fmt: skip


# What the schemes may draw. Anything else in the output came from the data.
ALLOWED_TAGS = {
    "a", "b", "code", "col", "colgroup", "details", "div", "em", "li", "ol", "pre", "span", "strong", "summary",
    "table", "td",
    "th", "tr", "ul", "svg", "g", "path", "polygon", "rect", "line", "text", "tspan",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "aria-hidden", "aria-label", "class", "colspan", "fill", "font-size", "font-weight", "height", "href", "id",
    "open", "opacity", "overflow", "points", "role", "rx", "stroke", "stroke-width", "style", "text-anchor",
    "valign", "viewbox", "width", "x", "x1", "x2", "xmlns", "y", "y1", "y2", "d",
    "data-at", "data-call", "data-count", "data-edge", "data-from", "data-index", "data-lane", "data-node",
    "data-role", "data-step", "data-stop", "data-to", "data-tool",
}  # fmt: skip
RAW_MARKERS = ["<img", "<script", "<iframe", "<style", "<foreignobject", "<math", '<a href="javascript', "<!--"]
URL_ATTRIBUTES = {"href", "src", "xlink:href", "action", "formaction", "srcdoc"}
OUR_ID = re.compile(r"rl[0-9a-f]{8}(-[a-z0-9-]+)?")


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.comments: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def elements(html: str) -> Iterator[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return iter(parser.elements)


def problems(html: str) -> list[str]:
    """Everything in ``html`` that a string from the data could have put there; empty when inert."""
    found = []
    lowered = html.lower()
    found += [f"raw {marker!r}" for marker in RAW_MARKERS if marker in lowered]
    parser = _Elements()
    parser.feed(html)
    parser.close()
    found += [f"comment {c!r}" for c in parser.comments]
    for tag, attrs in parser.elements:
        if tag not in ALLOWED_TAGS:
            found.append(f"element <{tag}>")
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                found.append(f"handler {name}= on <{tag}>")
            elif name not in ALLOWED_ATTRIBUTES:
                found.append(f"attribute {name}= on <{tag}>")
            elif name == "id" and not OUR_ID.fullmatch(value):
                found.append(f"id {value!r} not chosen by reactlab")
            elif name in URL_ATTRIBUTES and not (value.startswith("#") and OUR_ID.fullmatch(value[1:])):
                found.append(f"URL {name}={value!r} on <{tag}>")
            elif name == "style" and any(bad in value.lower() for bad in ("javascript", "url(", "expression", "<")):
                found.append(f"data in style={value!r} on <{tag}>")
    return found


def visible_text(html: str) -> str:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return "".join(parser.text)
