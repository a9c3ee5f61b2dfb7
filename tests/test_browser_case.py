"""The library in a browser tab (Pyodide), checked on Linux: the plain-path walk, the independent
test run in the page's own Python, and the whole browser branch in a Python made to look like
Pyodide (sys.platform "emscripten", no pwd or grp, no os.geteuid, no process, no thread, no /proc).
tests/browser/test_lite.py runs the notebooks in the real page."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reactlab import Workspace
from reactlab.changes import compare
from reactlab.core.sandbox import OUTPUT_LIMIT, available
from reactlab.core.sandbox.walk import remove_tree, walk
from reactlab.doctor import Machine
from reactlab.in_page import run_in_page
from reactlab.runner import independent_run_problem
from reactlab.samples import SHOP
from reactlab.summary import verdict

ROOT = Path(__file__).resolve().parent.parent


# -- the walk where descriptors cannot be reopened --------------------------------------------------


@pytest.fixture
def by_path(monkeypatch):
    """The walk as it goes in a browser tab: by name in each folder's descriptor, never by /proc."""
    monkeypatch.setattr("reactlab.core.sandbox.walk.REOPEN", False)
    real_open = os.open

    def no_proc(path, *args, **kwargs):
        assert not str(path).startswith("/proc/"), f"the walk reopened {path} through /proc"
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_proc)


def test_on_linux_the_walk_goes_by_descriptor():
    from reactlab.core.sandbox import walk as module

    assert module.REOPEN, "Linux has /proc/self/fd: the walk must hold each inode it checks"


def _planted(tmp_path: Path) -> tuple[Path, Path]:
    """A tree with a closed folder, a link out to a folder outside, and a link to a file outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("outside")
    tree = tmp_path / "tree"
    (tree / "closed" / "deep").mkdir(parents=True)
    (tree / "closed" / "deep" / "file.txt").write_text("inside")
    (tree / "to-folder").symlink_to(outside)
    (tree / "to-file").symlink_to(outside / "keep.txt")
    (tree / "closed").chmod(0)
    return tree, outside


def test_the_plain_walk_follows_no_link_and_opens_a_closed_folder(tmp_path, by_path):
    tree, outside = _planted(tmp_path)
    seen = []
    walk(tree, lambda entry: seen.append((entry.relative, entry.is_link)))
    assert sorted(seen) == [
        ("", False), ("closed", False), ("closed/deep", False), ("closed/deep/file.txt", False),
        ("to-file", True), ("to-folder", True),
    ]  # fmt: skip
    assert oct((tree / "closed").stat().st_mode & 0o777) == "0o0", "the closed folder is closed again"
    assert (outside / "keep.txt").read_text() == "outside"


def test_the_plain_walk_changes_modes_of_the_entries_themselves(tmp_path, by_path):
    tree, outside = _planted(tmp_path)
    (outside / "keep.txt").chmod(0o644)
    walk(tree, lambda entry: entry.chmod(0o700 if entry.info.st_mode & 0o40000 else 0o600))
    assert (tree / "closed" / "deep" / "file.txt").stat().st_mode & 0o777 == 0o600
    assert (outside / "keep.txt").stat().st_mode & 0o777 == 0o644, "a link's target was changed"


def test_the_plain_walk_removes_a_tree_and_nothing_a_link_points_at(tmp_path, by_path):
    tree, outside = _planted(tmp_path)
    assert remove_tree(tree)
    assert not tree.exists()
    assert (outside / "keep.txt").read_text() == "outside"


def test_the_plain_walk_compares_what_a_run_changed(by_path):
    with Workspace(SHOP.path, SHOP.read_only) as workspace:
        (workspace.root / "shop" / "delivery.py").write_text("changed\n")
        (workspace.root / "new.txt").write_text("")
        (workspace.root / "link").symlink_to("/etc/passwd")
        manifest = compare(workspace.source, workspace.root)
    assert (manifest.added, manifest.changed, manifest.removed) == (("link", "new.txt"), ("shop/delivery.py",), ())


# -- the independent test run in the page's own Python -----------------------------------------------


@pytest.fixture
def shop_copy():
    with Workspace(SHOP.path, SHOP.read_only) as workspace:
        yield workspace.root


def _fix(root: Path) -> None:
    delivery = root / "shop" / "delivery.py"
    text = delivery.read_text()
    delivery.write_text(text.replace('Path("settings.json")', 'Path(__file__).with_name("settings.json")'))


def test_the_tests_run_in_this_python_and_give_a_real_verdict(shop_copy):
    before = (set(sys.modules), list(sys.path), os.getcwd(), dict(os.environ))
    failed = run_in_page(shop_copy, SHOP.test_command)
    assert (failed.exit_code, verdict(failed)) == (1, "FAIL"), failed.stderr
    assert "Ran 3 tests" in failed.stderr and "AssertionError: 300 != 0" in failed.stderr
    _fix(shop_copy)
    passed = run_in_page(shop_copy, SHOP.test_command)
    assert (passed.exit_code, verdict(passed), passed.setup_failed) == (0, "OK", False), passed.stderr
    assert (set(sys.modules), list(sys.path), os.getcwd(), dict(os.environ)) == before, "this Python was not given back"


def test_two_projects_in_a_row_are_each_discovered_in_their_own_folder():
    """unittest's default loader keeps the folder of the run before: a second run must not use it."""
    with Workspace(SHOP.path, SHOP.read_only) as first, Workspace(SHOP.path, SHOP.read_only) as second:
        _fix(second.root)
        assert verdict(run_in_page(first.root, SHOP.test_command)) == "FAIL"
        assert verdict(run_in_page(second.root, SHOP.test_command)) == "OK"


@pytest.mark.parametrize(
    "hostile",
    [
        "import os\nos.environ['PLANTED'] = '1'\nos.chdir('/')\n",
        "import sys\nsys.path.insert(0, '/planted')\nsys.dont_write_bytecode = False\n",
        "import sys\nsys.exit(3)\n",
    ],
)
def test_what_a_test_changes_in_this_python_is_put_back(shop_copy, hostile):
    (shop_copy / "tests" / "test_hostile.py").write_text(hostile)
    before = (list(sys.path), os.getcwd(), dict(os.environ), sys.dont_write_bytecode)
    result = run_in_page(shop_copy, SHOP.test_command)
    assert (list(sys.path), os.getcwd(), dict(os.environ), sys.dont_write_bytecode) == before
    assert result.exit_code != 0 and verdict(result) != "OK"
    assert not any(name.startswith(("test_", "shop")) for name in sys.modules), "the project's modules stayed"


def test_the_environment_is_empty_for_the_tests(shop_copy, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-fake-key-for-this-test")
    (shop_copy / "tests" / "test_env.py").write_text(
        "import os, unittest\nclass T(unittest.TestCase):\n    def test(self):\n        print(sorted(os.environ))\n"
    )
    result = run_in_page(shop_copy, "python3 -m unittest discover -s tests -p test_env.py")
    assert result.stdout.strip() == "[]" and result.exit_code == 0
    assert os.environ["DEEPSEEK_API_KEY"] == "sk-fake-key-for-this-test"


def test_what_the_tests_print_is_capped_as_in_the_sandbox(shop_copy):
    (shop_copy / "tests" / "test_loud.py").write_text(f"print('é' * {OUTPUT_LIMIT})\n")
    result = run_in_page(shop_copy, "python3 -m unittest discover -s tests -p test_loud.py")
    assert result.truncated and len(result.stdout.encode()) <= OUTPUT_LIMIT
    assert result.stdout.startswith("éé")


@pytest.mark.parametrize("command", ["pytest -q", "bash -c 'python3 -m unittest'", "python3 -c 'print(1)'", ""])
def test_only_unittest_can_run_in_the_page(shop_copy, command):
    result = run_in_page(shop_copy, command)
    assert result.setup_failed and result.exit_code is None and "unittest" in result.stderr
    assert verdict(result) is None


# -- the browser case, where it is decided --------------------------------------------------------------


def test_the_doctor_names_a_browser_tab_as_its_own_case():
    from reactlab.doctor import _sandbox

    browser = Machine(system="emscripten")
    check = _sandbox(browser, "en")
    assert check.status == "limited" and check.fix == ""
    assert "browser tab" in check.detail and "independent test run" in check.detail
    assert "replayed, not run on this machine" in check.detail
    assert "вкладка браузера" in _sandbox(browser, "ru").detail


def test_on_linux_the_independent_run_needs_the_sandbox():
    assert independent_run_problem() == available()


# The browser, made up on Linux: what Pyodide lacks is taken away before reactlab is imported.
AS_IN_A_BROWSER = textwrap.dedent(
    """
    import os, subprocess, sys, threading
    sys.platform = "emscripten"
    sys.modules["pwd"] = sys.modules["grp"] = None        # Pyodide has neither
    for name in ("geteuid", "getegid", "link", "pidfd_open"):
        delattr(os, name)
    def no(*args, **kwargs):
        raise OSError(138, "emscripten does not support processes")
    subprocess.Popen.__init__ = no
    def no_thread(self, *args, **kwargs):
        raise RuntimeError("can't start new thread")
    threading.Thread.start = no_thread

    from reactlab import independent_test_run, run_in_copy, verdict
    from reactlab.core.browser import IN_BROWSER
    from reactlab.doctor import check_all, report
    from reactlab.samples import SHOP

    assert IN_BROWSER
    print(report(check_all()))
    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    print("replayed:", [e.result.get("replayed", False) for e in outcome.record.tool_executions])
    check = independent_test_run(outcome.workspace, SHOP.test_command)
    print("independent:", check.exit_code, verdict(check), check.in_page, check.manifest.changed)
    folder = outcome.workspace.folder
    print("removed:", outcome.workspace.cleanup(), not folder.exists())
    """
)


def test_the_whole_shop_run_works_as_in_a_browser_tab():
    """No program, no thread, no account, no euid: the run replays bash, really edits its copy, and the
    independent run really runs the tests, in this Python, to OK."""
    done = subprocess.run([sys.executable, "-c", AS_IN_A_BROWSER], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "replayed: [False, False, False, True, False, True]" in lines
    assert "independent: 0 OK True ('shop/delivery.py',)" in lines
    assert "removed: True True" in lines
    assert any(line.startswith("~ sandbox") and "browser tab" in line for line in lines)
    assert any(line.startswith("~ live model") and "browser tab" in line for line in lines)
