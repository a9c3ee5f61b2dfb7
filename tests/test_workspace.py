from __future__ import annotations

import os

import pytest

from reactlab import ToolError, Workspace, unchanged_paths
from reactlab.samples import SHOP_READ_ONLY, shop_path


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text("assert True\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src" / "__pycache__").mkdir()
    (root / "src" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\x00")
    (root / "etc-link").symlink_to("/etc")
    return root


def test_a_fresh_copy_without_repository_or_caches(project):
    with Workspace(project, ["tests"]) as workspace:
        root = workspace.root
        assert root != project and (root / "src" / "app.py").read_text() == "print('hi')\n"
        assert not (root / ".git").exists() and not (root / "src" / "__pycache__").exists()
        assert (root / "etc-link").is_symlink() and os.readlink(root / "etc-link") == "/etc"  # a link, not /etc
        assert workspace.text_files() == ["src/app.py", "tests/test_app.py"]
        (root / "src" / "app.py").write_text("changed\n")
    assert not root.exists(), "the copy is removed on exit"
    assert (project / "src" / "app.py").read_text() == "print('hi')\n"


@pytest.mark.parametrize("path", ["/etc", "../outside", "", ".", "missing", "etc-link"])
def test_read_only_paths_are_checked(project, path):
    with pytest.raises(ValueError):
        Workspace(project, [path])


def test_a_missing_project_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="Project folder not found"):
        Workspace(tmp_path / "nope")


def test_resolve_and_read_only(project):
    with Workspace(project, ["tests"]) as workspace:
        assert workspace.resolve("src/app.py") == workspace.root / "src" / "app.py"
        assert workspace.is_read_only(workspace.resolve("tests/test_app.py"))
        assert not workspace.is_read_only(workspace.resolve("src/app.py"))
        for bad in ("/etc/passwd", "../x", "etc-link/passwd", "a\x00b", "", 7):
            with pytest.raises(ToolError):
                workspace.resolve(bad)


def test_unchanged_paths_sees_every_kind_of_change():
    with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
        assert unchanged_paths(workspace, SHOP_READ_ONLY) == {"shop/settings.json": True, "tests": True}
        (workspace.root / "tests" / "extra.py").write_text("")
        assert unchanged_paths(workspace, ["tests"]) == {"tests": False}
        (workspace.root / "tests" / "extra.py").unlink()
        settings = workspace.root / "shop" / "settings.json"
        settings.write_text(settings.read_text().replace("2000", "2001"))
        assert unchanged_paths(workspace, ["shop/settings.json", "tests"]) == {
            "shop/settings.json": False,
            "tests": True,
        }
