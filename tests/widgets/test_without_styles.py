"""The schemes read where inline styles are stripped (GitHub's notebook view strips more than
nbviewer): the key texts stay in order, the layout is tables, lists and SVG, and colour survives as
SVG presentation attributes (fill, stroke)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from reactlab.widgets import (
    RunViewer,
    scheme1_loop,
    scheme2_tool_call,
    scheme3_history,
    scheme4_stopping,
    scheme5_route,
)
from reactlab.widgets.base import COLOURS

from ..conftest import needs_sandbox
from .conftest import parse, text_of, with_class

YELLOW, BLUE, GREEN, RED = (COLOURS[k][1] for k in ("model", "tool", "ok", "error"))


def without_styles(html: str) -> ET.Element:
    """What a sanitizer that drops inline styles leaves: no style attribute, no <style> element."""
    stripped = re.sub(r"<style\b.*?</style>", "", html, flags=re.S | re.I)
    stripped = re.sub(r'\sstyle="[^"]*"', "", stripped)
    root = parse(stripped)
    assert not [e for e in root.iter() if "style" in e.attrib or e.tag.endswith("style")]
    return root


def in_order(text: str, *expected: str) -> None:
    position = 0
    for part in expected:
        found = text.find(part, position)
        assert found >= 0, f"{part!r} missing after position {position} in {text[position : position + 300]!r}"
        position = found + len(part)


def local(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def swatch(element: ET.Element) -> str | None:
    rects = element.findall(".//{*}rect")
    return rects[0].get("fill") if rects else None


@needs_sandbox
def test_scheme5_keeps_its_columns_and_colours(shop_record):
    root = without_styles(scheme5_route(shop_record).value)
    (table,) = root.iter("table")
    columns = [td for td in table.iter("td") if "rl-column" in td.get("class", "")]
    assert [td.get("data-call") for td in columns] == ["1", "2", "3", "4", "5"]
    assert all(td.get("valign") == "top" for td in columns)  # an attribute, not a style
    in_order(
        text_of(root), "1", "3 tool calls: read_file ×3", "read_file", "bytes read", "2", "1 tool call: bash",
        "bash", "FAIL · exit code 0", "3", "edit", "edited", "4", "bash", "OK · exit code 0", "5", "final answer",
    )  # fmt: skip
    for column in columns:
        cells = with_class(column, "rl-cell")
        assert swatch(cells[0]) == YELLOW  # what the model returned
        assert all(swatch(cell) == BLUE for cell in cells[1:])  # each tool execution
    verdicts = [swatch(v) for v in root.iter("div") if with_class(v, "rl-verdict") and v.find("{*}svg") is not None]
    assert verdicts.count(RED) == 1 and verdicts.count(GREEN) == 1  # FAIL, OK


@needs_sandbox
def test_scheme2_keeps_its_three_lanes(shop_record):
    root = without_styles(scheme2_tool_call(shop_record).value)
    (table,) = root.iter("table")
    assert [text_of(th).strip() for th in table.iter("th")] == ["Model", "Agent (control part)", "Tool"]
    (execution,) = shop_record.executions_of(2)
    for row in with_class(root, "rl-arrow"):
        cells = list(row.iter("td"))
        lanes = {row.get("data-from"), row.get("data-to")}
        # two columns a lane: the arrow runs from the middle of one lane to the middle of the other
        spans = [c.get("colspan") for c in cells]
        assert spans == ([None, None, None, "2", None] if "tool" in lanes else [None, "2", None, None, None])
        (line,) = row.findall(".//{*}line")
        (head,) = row.findall(".//{*}polygon")
        assert line.get("stroke") in (YELLOW, BLUE) and head.get("fill") == line.get("stroke")
    in_order(
        text_of(root), "Model", "Agent (control part)", "Tool", "POST /chat/completions", "tool_calls: bash",
        execution.call_id, "validate", "bash(command=", "result: FAIL · exit code 0", "request 3",
        "tool_call_id", execution.call_id,
    )  # fmt: skip


@needs_sandbox
def test_scheme3_marks_new_entries_and_roles_without_styles(shop_record):
    root = without_styles(scheme3_history(shop_record, step=3).value)
    entries = with_class(root, "rl-entry")
    assert [e.get("data-role") for e in entries][:3] == ["system", "user", "assistant"]
    for entry in entries:
        summary = entry.find(".//summary")
        new = "rl-new" in entry.get("class")
        assert ("NEW" in text_of(summary)) is new
        fills = [r.get("fill") for r in summary.findall(".//{*}rect")]
        role = {"assistant": YELLOW, "tool": BLUE}.get(entry.get("data-role"), COLOURS["plain"][1])
        assert fills == ([YELLOW, role] if new else [role])
    in_order(text_of(root), "Request 3", "[0]", "system", "[1]", "user", "[2]", "assistant", "tool_calls: read_file")


@pytest.mark.parametrize("reason", ["answer", "step_limit", "invalid_message"])
def test_svg_schemes_carry_colour_in_attributes(endings, reason):
    record = endings[reason]
    for html in (scheme1_loop(record).value, scheme4_stopping(record).value):
        root = without_styles(html)
        shapes = [e for e in root.iter() if local(e) in ("rect", "path", "polygon")]
        assert shapes and all(e.get("fill") or e.get("stroke") for e in shapes)
        texts = [e for e in root.iter() if local(e) == "text"]
        assert texts and all(e.get("fill") == "currentColor" for e in texts)
    (end,) = with_class(without_styles(scheme4_stopping(record).value), "rl-end")
    assert end.find("{*}rect").get("stroke-width") == "4"  # the ending stands out without styles too


def test_the_static_viewer_reads_without_styles(endings):
    record = endings["answer"]
    root = without_styles(RunViewer(record, step=1)._repr_mimebundle_()["text/html"])
    folds = [d for d in root.iter("details") if with_class(d, "rl-step")]
    assert [d.get("open") for d in folds] == ["open", None]
    in_order(
        text_of(root), "step 1", "Scheme 1", "Scheme 5", "Scheme 3", "request JSON", "step 2", "final answer: done"
    )
