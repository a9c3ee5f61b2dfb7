from __future__ import annotations

import os
import stat
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reactlab import EditTool, ReadFileTool, ToolError
from reactlab.core.tools.edit import _LINE, DIFF_CONTEXT, DIFF_LIMIT, unified_diff
from reactlab.core.workspace import TEXT_FILE_LIMIT
from reactlab.samples import NEW_LOADING, OLD_LOADING


def test_replaces_one_fragment_and_shows_a_diff(shop):
    target = shop.root / "shop/delivery.py"
    before = target.read_text()
    mode = stat.S_IMODE(target.stat().st_mode)
    result = EditTool(shop).execute({"path": "shop/delivery.py", "old_text": OLD_LOADING, "new_text": NEW_LOADING})
    assert result["ok"] is True
    assert target.read_text() == before.replace(OLD_LOADING, NEW_LOADING)
    assert '+    settings_path = Path(__file__).resolve().parent / "settings.json"' in result["diff"]
    assert '-    settings_path = Path("settings.json")' in result["diff"]
    assert result["diff"].startswith("--- a/shop/delivery.py\n+++ b/shop/delivery.py\n")
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []  # no temp file left
    assert (shop.source / "shop/delivery.py").read_text() == before  # the original project is untouched


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ({"path": "shop/delivery.py", "old_text": "no such text", "new_text": "x"}, "does not occur"),
        ({"path": "shop/delivery.py", "old_text": "settings_path", "new_text": "x"}, "occurs 3 times"),
        ({"path": "shop/delivery.py", "old_text": "", "new_text": "x"}, "old_text is empty"),
        ({"path": "shop/settings.json", "old_text": "2000", "new_text": "0"}, "read-only"),
        ({"path": "tests/test_delivery.py", "old_text": "0)", "new_text": "300)"}, "read-only"),
        ({"path": "tests/new_test.py", "old_text": "a", "new_text": "b"}, "read-only"),
        ({"path": "../escape.py", "old_text": "a", "new_text": "b"}, "leads outside"),
        ({"path": "/etc/hostname", "old_text": "a", "new_text": "b"}, "relative to the project"),
        ({"path": "shop", "old_text": "a", "new_text": "b"}, "not an existing file"),
        ({"path": "shop/delivery.py", "old_text": "a"}, "'new_text' is a required property"),
        ({"path": "shop/delivery.py", "old_text": 1, "new_text": "b"}, "1 is not of type 'string'"),
    ],
)
def test_refusals_leave_files_alone(shop, arguments, fragment):
    snapshot = {p: p.read_bytes() for p in shop.root.rglob("*") if p.is_file()}
    with pytest.raises(ToolError, match=fragment):
        EditTool(shop).execute(arguments)
    assert {p: p.read_bytes() for p in shop.root.rglob("*") if p.is_file()} == snapshot


def test_a_symlink_into_the_tests_does_not_unlock_them(shop):
    os.symlink("tests/test_delivery.py", shop.root / "innocent.py")
    with pytest.raises(ToolError, match="read-only"):
        EditTool(shop).execute({"path": "innocent.py", "old_text": "500", "new_text": "5"})


def test_a_symlink_out_of_the_copy_is_refused(shop, tmp_path):
    outside = tmp_path / "host.txt"
    outside.write_text("host data")
    os.symlink(outside, shop.root / "link.txt")
    with pytest.raises(ToolError, match="leads outside"):
        EditTool(shop).execute({"path": "link.txt", "old_text": "host", "new_text": "owned"})
    assert outside.read_text() == "host data"


def _edit(workspace, path, old_text, new_text):
    return EditTool(workspace).execute({"path": path, "old_text": old_text, "new_text": new_text})


@pytest.mark.parametrize(
    "stored, old_text, new_text, expected",
    [
        # CRLF: the fragment as read_file shows it, or with bare LF; the new lines get CRLF either way
        (b"a = 1\r\nb = 2\r\nc = 3\r\n", "a = 1\r\nb = 2", "a = 1\r\nb = 20", b"a = 1\r\nb = 20\r\nc = 3\r\n"),
        (b"a = 1\r\nb = 2\r\nc = 3\r\n", "a = 1\nb = 2\n", "x = 1\ny = 2\n", b"x = 1\r\ny = 2\r\nc = 3\r\n"),
        (b"a = 1\r\nb = 2\r\nc = 3", "c = 3", "c = 3\nd = 4", b"a = 1\r\nb = 2\r\nc = 3\r\nd = 4"),
        # CR only (classic Mac)
        (b"a = 1\rb = 2\r", "a = 1\nb = 2", "a = 1\nb = 3\nz = 0", b"a = 1\rb = 3\rz = 0\r"),
        (b"a = 1\rb = 2\r", "b = 2\r", "b = 5\r", b"a = 1\rb = 5\r"),
        # LF and mixed files are matched and written exactly as given
        (b"a = 1\nb = 2\n", "b = 2\n", "b = 3\r\n", b"a = 1\nb = 3\r\n"),
        (b"a = 1\r\nb = 2\n", "a = 1\r\nb", "a = 9\r\nb", b"a = 9\r\nb = 2\n"),
        # no line break at all, and a UTF-8 BOM, are kept
        (b"\xef\xbb\xbfname = '\xd0\xbc\xd0\xb0\xd0\xb3'", "'маг'", "'shop'", b"\xef\xbb\xbfname = 'shop'"),
    ],
)
def test_line_endings_are_kept_byte_for_byte(shop, stored, old_text, new_text, expected):
    target = shop.root / "shop/data.txt"
    target.write_bytes(stored)
    assert _edit(shop, "shop/data.txt", old_text, new_text)["ok"] is True
    assert target.read_bytes() == expected


@pytest.mark.parametrize("stored", [b"a = 1\nb = 2\n", b"a = 1\r\nb = 2\n"])
def test_a_crlf_fragment_does_not_match_an_lf_or_mixed_file(shop, stored):
    (shop.root / "shop/data.txt").write_bytes(stored)
    with pytest.raises(ToolError, match="does not occur"):
        _edit(shop, "shop/data.txt", "a = 1\r\nb = 2\r\n", "x")


def test_a_fragment_copied_from_read_file_matches_a_crlf_file(shop):
    target = shop.root / "shop/delivery.py"
    target.write_bytes(target.read_bytes().replace(b"\n", b"\r\n"))
    content = ReadFileTool(shop).execute({"path": "shop/delivery.py"})["content"]
    old_text = content[content.index("    settings_path") : content.index("    if not settings_path")]
    assert "\r\n" in old_text
    result = _edit(shop, "shop/delivery.py", old_text, old_text.replace('Path("settings.json")', "HERE"))
    assert result["ok"] is True and "\r\n" in result["diff"]
    data = target.read_bytes()
    assert b"settings_path = HERE\r\n" in data and data.count(b"\n") == data.count(b"\r\n")


@pytest.mark.parametrize(
    "stored, fragment",
    [
        (b"x" * TEXT_FILE_LIMIT + b"\n", f"too large \\({TEXT_FILE_LIMIT + 1} bytes; the limit is {TEXT_FILE_LIMIT}"),
        (b"a = 1\x00\n", "not a UTF-8 text file \\(it contains a NUL byte\\)"),
        (b"caf\xe9 = 1\n", "not a UTF-8 text file \\(invalid byte at offset 3\\)"),
        (b"\xff\xfea\x00", "not a UTF-8 text file"),  # UTF-16
    ],
)
def test_files_read_file_would_refuse_are_refused(shop, stored, fragment):
    target = shop.root / "shop/data.txt"
    target.write_bytes(stored)
    with pytest.raises(ToolError, match=fragment):
        _edit(shop, "shop/data.txt", "a", "b")
    with pytest.raises(ToolError, match=fragment):
        ReadFileTool(shop, ["shop/data.txt"]).execute({"path": "shop/data.txt"})  # the same limit and checks
    assert target.read_bytes() == stored


@pytest.mark.parametrize(
    "old_text, new_text, fragment",
    [
        ("def load_settings", "y" * TEXT_FILE_LIMIT, f"the limit is {TEXT_FILE_LIMIT}"),
        ("def load_settings", "é" * (TEXT_FILE_LIMIT // 2), "bytes; the limit is"),  # bytes, not characters
        ("def load_settings", "def \x00", "NUL byte"),
        ("z" * 300_000, "", "does not occur"),
        ("\n", "", "occurs"),
    ],
)
def test_hostile_fragments_are_refused_without_echo(shop, old_text, new_text, fragment):
    target = shop.root / "shop/delivery.py"
    before = target.read_bytes()
    with pytest.raises(ToolError, match=fragment) as raised:
        _edit(shop, "shop/delivery.py", old_text, new_text)
    assert len(str(raised.value)) < 300
    assert target.read_bytes() == before


def test_a_symlink_to_a_special_file_or_a_fifo_is_refused(shop):
    os.symlink("/dev/zero", shop.root / "zero")
    os.mkfifo(shop.root / "pipe")
    with pytest.raises(ToolError, match="leads outside"):
        _edit(shop, "zero", "a", "b")
    with pytest.raises(ToolError, match="not an existing file"):
        _edit(shop, "pipe", "a", "b")  # would block forever if opened


def test_a_hard_link_is_replaced_not_written_through(shop, tmp_path):
    target = shop.root / "shop/delivery.py"
    other = shop.root / "shop/other_name.py"
    os.link(target, other)
    _edit(shop, "shop/delivery.py", "def load_settings", "def load")
    assert other.read_bytes() != target.read_bytes()


def test_pathological_file_is_fast_and_its_diff_small(shop):
    """120,000 lines cycling through 300 values: difflib over the whole file took 9-13 s here."""
    lines = [f"{i % 300}\n" for i in range(120_000)]
    lines[60_000] = "MARKER = 1\n"
    target = shop.root / "shop/big.txt"
    target.write_text("".join(lines))
    assert 400_000 < target.stat().st_size < TEXT_FILE_LIMIT
    started = time.perf_counter()
    result = _edit(shop, "shop/big.txt", "MARKER = 1\n", "MARKER = 2\nEXTRA = 3\n")
    elapsed = time.perf_counter() - started
    assert result["diff"] == (
        "--- a/shop/big.txt\n+++ b/shop/big.txt\n@@ -60000,3 +60000,4 @@\n"
        " 299\n-MARKER = 1\n+MARKER = 2\n+EXTRA = 3\n 1\n"
    )
    assert elapsed < 5, f"took {elapsed:.2f} s"
    started = time.perf_counter()
    result = _edit(shop, "shop/big.txt", "".join(lines[:60_000]), "".join(lines[1:60_000]))  # a huge fragment
    assert time.perf_counter() - started < 5
    assert result["diff"] == "--- a/shop/big.txt\n+++ b/shop/big.txt\n@@ -1,2 +1,1 @@\n-0\n 1\n"


def test_a_huge_diff_is_cut_and_says_so(shop):
    result = _edit(shop, "shop/delivery.py", "def load_settings", "x = 1\n" * 10_000 + "def load")
    assert len(result["diff"]) < DIFF_LIMIT + 100
    assert result["diff"].endswith(" characters)\n") and f"(diff cut at {DIFF_LIMIT} of " in result["diff"]


def _apply(before: str, diff: str) -> str:
    """Apply a one-hunk unified diff as `patch` would, checking every context and removed line."""
    hunk = diff.split("\n")[2]
    old_start, old_count = (int(n) for n in hunk.split()[1][1:].split(","))
    start = old_start - 1 if old_count else old_start
    lines, entries = _LINE.findall(before), _LINE.findall(diff.split("\n", 3)[3])
    position, added, context = start, [], 0
    for i, entry in enumerate(entries):
        if entry.startswith("\\"):
            continue
        sign, text = entry[0], entry[1:]
        if i + 1 < len(entries) and entries[i + 1] == "\\ No newline at end of file\n":
            text = text.removesuffix("\n")
        if sign in " -":
            assert lines[position] == text
            position += 1
        if sign in " +":
            added.append(text)
        context += sign == " "
    assert position == start + old_count and context <= 2 * DIFF_CONTEXT
    return "".join(lines[:start] + added + lines[position:])


@settings(max_examples=300, deadline=None)
@given(
    before=st.lists(st.sampled_from(["a\n", "b\n", "a\r\n", "c"]), max_size=12).map("".join),
    new=st.lists(st.sampled_from(["a\n", "b\n", "x", "\n"]), max_size=4).map("".join),
    cut=st.tuples(st.integers(0, 40), st.integers(0, 40)),
)
def test_the_diff_takes_before_to_after(before, new, cut):
    start, end = sorted(min(c, len(before)) for c in cut)
    after = before[:start] + new + before[end:]
    diff = unified_diff(before, after, "f")
    assert (diff == "") == (before == after)
    if diff:
        assert _apply(before, diff) == after
