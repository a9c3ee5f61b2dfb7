from __future__ import annotations

import os
import stat

import pytest

from reactlab import EditTool, ToolError
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
        ({"path": "shop/delivery.py", "old_text": "a"}, "missing required argument 'new_text'"),
        ({"path": "shop/delivery.py", "old_text": 1, "new_text": "b"}, "must be of type string"),
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
