from __future__ import annotations

import os

import pytest

from reactlab import ReadFileTool, ToolError
from reactlab.samples import SHOP_FILES


def test_definition_is_the_articles_shape(shop):
    tool = ReadFileTool(shop, SHOP_FILES)
    assert tool.definition() == {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": tool.description,
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "enum": SHOP_FILES}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
    }


def test_default_files_are_the_projects_text_files(shop):
    (shop.root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    os.symlink("/etc/passwd", shop.root / "passwd")
    assert ReadFileTool(shop).files == SHOP_FILES


def test_reads_a_file(shop):
    result = ReadFileTool(shop, SHOP_FILES).execute({"path": "shop/settings.json"})
    assert result["ok"] is True and '"free_delivery_from": 2000' in result["content"]
    assert result["truncated"] is False and result["size"] == len(result["content"].encode())


def test_large_file_is_truncated_and_flagged(shop):
    (shop.root / "big.txt").write_text("x" * 50_000)
    result = ReadFileTool(shop, ["big.txt"], max_chars=1000).execute({"path": "big.txt"})
    assert result["truncated"] is True and len(result["content"]) == 1000 and result["size"] == 50_000


@pytest.mark.parametrize(
    "path, fragment",
    [
        ("../../etc/passwd", "is not one of"),
        ("/etc/passwd", "is not one of"),
        ("shop/delivery.py\x00", "is not one of"),
        ("shop", "is not one of"),
    ],
)
def test_paths_outside_the_list_are_refused(shop, path, fragment):
    with pytest.raises(ToolError, match=fragment):
        ReadFileTool(shop, SHOP_FILES).execute({"path": path})


@pytest.mark.parametrize(
    "name, plant, fragment",
    [
        ("escape.txt", lambda root: os.symlink("/etc/passwd", root / "escape.txt"), "leads outside"),
        ("up.txt", lambda root: os.symlink("../" * 12 + "etc/hostname", root / "up.txt"), "leads outside"),
        ("../outside.txt", lambda root: (root.parent / "outside.txt").write_text("secret"), "leads outside"),
        ("/etc/hostname", lambda root: None, "relative to the project"),
        ("a\x00b", lambda root: None, "NUL byte"),
        ("folder", lambda root: (root / "folder").mkdir(), "is a folder"),
        ("gone.txt", lambda root: None, "does not exist"),
        ("blob.bin", lambda root: (root / "blob.bin").write_bytes(b"ab\x00cd"), "not a UTF-8 text file"),
        ("latin1.txt", lambda root: (root / "latin1.txt").write_bytes(b"caf\xe9"), "not a UTF-8 text file"),
        ("huge.txt", lambda root: (root / "huge.txt").write_bytes(b"y" * 1_000_001), "too large"),
    ],
)
def test_host_side_confinement(shop, name, plant, fragment):
    plant(shop.root)
    tool = ReadFileTool(shop, [name])  # even a listed name is checked again at execution
    with pytest.raises(ToolError, match=fragment):
        tool.execute({"path": name})


def test_a_symlink_planted_after_listing_is_caught(shop):
    tool = ReadFileTool(shop, SHOP_FILES)
    target = shop.root / "shop/delivery.py"
    target.unlink()
    os.symlink("/etc/passwd", target)
    with pytest.raises(ToolError, match="leads outside"):
        tool.execute({"path": "shop/delivery.py"})
