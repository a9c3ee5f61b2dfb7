"""SANDBOX.md §7, items 9 and 10: refusal without a sandbox, and the command line itself. These
need no working sandbox, so they run (and must pass) everywhere, also where the rest skips."""

from __future__ import annotations

import ctypes
import os
import tempfile
from pathlib import Path

import pytest

from reactlab import BashTool, Sandbox, SandboxUnavailable, Workspace
from reactlab.core.sandbox import available, hand_over, seccomp
from reactlab.core.sandbox.walk import remove_tree
from reactlab.doctor import Machine
from reactlab.samples import SHOP_READ_ONLY, shop_path


# 9. No bwrap, or a failing probe: refused, and nothing runs.
def test_missing_bwrap_refuses(tmp_path):
    marker = tmp_path / "ran"
    sandbox = Sandbox(tmp_path, bwrap=str(tmp_path / "no-bwrap"))
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        sandbox.run(f"touch {marker}", timeout=5)
    assert "apt-get install bubblewrap" in str(available(str(tmp_path / "no-bwrap")))
    with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
        with pytest.raises(SandboxUnavailable):
            BashTool(workspace, sandbox=Sandbox(workspace.root, bwrap="/nonexistent/bwrap"))
    assert not marker.exists()


@pytest.fixture
def no_libseccomp(monkeypatch):
    """A machine without libseccomp: loading it fails as ctypes fails on a missing library."""
    real = ctypes.CDLL

    def load(name, *args, **kwargs):
        if name is not None and "libseccomp" in name:
            raise OSError(f"{name}: cannot open shared object file: No such file or directory")
        return real(name, *args, **kwargs)

    caches = (seccomp._libseccomp, seccomp.filter_program, seccomp.syscall_number)
    for cache in caches:
        cache.cache_clear()
    monkeypatch.setattr(seccomp.ctypes, "CDLL", load)
    yield
    monkeypatch.undo()
    for cache in caches:
        cache.cache_clear()


def test_without_libseccomp_there_is_no_filter_and_no_command(no_libseccomp):
    """Fail closed: no filter, no command; the refusal and the doctor name the package to install."""
    with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
        marker = workspace.root / "ran"
        with Sandbox(workspace.root, workspace.read_only) as sandbox:
            with pytest.raises(SandboxUnavailable, match="apt-get install libseccomp2"):
                sandbox.run(f"touch {marker}", timeout=5)
        assert not marker.exists()
    assert "libseccomp is missing" in str(available())
    assert Machine.here().libseccomp_installed is False  # and so the doctor advises it (test_doctor.py)


def test_failing_probe_refuses():
    # Not tmp_path: as root the probe runs as the sandbox uid, which cannot enter pytest's 0700 folder.
    folder = Path(tempfile.mkdtemp(prefix="reactlab-test-"))
    try:
        marker = folder / "ran"
        fake = folder / "bwrap"
        fake.write_text(
            f"#!/bin/sh\ntouch {marker}.probe\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"
        )
        fake.chmod(0o755)
        hand_over(folder)
        sandbox = Sandbox(folder, bwrap=str(fake))
        for _ in range(2):  # a failure is not kept: each try asks bwrap again
            with pytest.raises(SandboxUnavailable, match="setting up uid map: Permission denied.*user namespaces"):
                sandbox.run(f"touch {marker}", timeout=5)
            assert not marker.exists()
            assert (folder / "ran.probe").exists()  # the probe ran, the command did not
            (folder / "ran.probe").unlink()
    finally:
        remove_tree(folder)


# 10. The command line itself.
def test_argv_hardening_flags_and_bind_order(tmp_path):
    (tmp_path / "tests").mkdir()
    sandbox = Sandbox(tmp_path, ["tests"])
    argv = sandbox.argv("echo hi", status_fd=3, block_fd=4, seccomp_fd=5)
    for flag in [
        "--unshare-all",
        "--unshare-user",
        "--cap-drop",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ]:
        assert flag in argv
    assert argv[argv.index("--uid") + 1] == "1000" and argv[argv.index("--cap-drop") + 1] == "ALL"
    rw = argv.index("--bind")
    ro = max(i for i, a in enumerate(argv) if a == "--ro-bind" and argv[i + 2] == "/work/tests")
    assert rw < ro, "the read-only bind must come after the writable project bind"
    assert argv[ro + 1].endswith("/read-only/tests"), "bound from the snapshot"
    assert argv[ro + 1] != f"{argv[rw + 1]}/tests", "never from the copy itself"
    remounts = [argv[i + 1] for i, a in enumerate(argv) if a == "--remount-ro"]
    assert remounts == ["/dev", "/"] and argv.index("--remount-ro") > ro
    assert argv[argv.index("/proc/sys") - 1] == "--ro-bind"
    assert argv[-5:] == ["--", "/bin/bash", "-c", "--", "echo hi"], "exactly bash -c -- COMMAND"
    assert argv[argv.index("BASH_ENV") + 1] == "/etc/reactlab-limits.sh", "the limits, read before the command"
    assert argv[argv.index("--json-status-fd") + 1] == "3" and argv[argv.index("--block-fd") + 1] == "4"
    assert argv[argv.index("--seccomp") + 1] == "5" and argv.index("--seccomp") < argv.index("--")
    keys = argv.index("/proc/keys")  # the kernel's list of the caller's keys: an empty file over it
    assert argv[keys - 2 : keys] == ["--ro-bind", f"{sandbox._held.snapshot}/empty"] and keys > argv.index("--proc")
    long = sandbox.argv("echo " + "x" * 200_000, status_fd=3, block_fd=4, seccomp_fd=5, command_fd=6)
    assert len(long[-1]) < 300 and "<&6" in long[-1], "a command too long for one argument is read from a file"
    assert "DEEPSEEK_API_KEY" not in " ".join(argv)
    sandbox.close()


# 11. A read-only path must lie inside the project: none outside is copied into the snapshot and bound.
@pytest.mark.parametrize("path", ["/etc/passwd", "../outside", "tests/../../outside", "", ".", "tests/.."])
def test_a_read_only_path_outside_the_project_is_refused(tmp_path, path):
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (tmp_path / "outside").write_text("secret")
    hand_over(project)
    mine = f"reactlab-read-only-{os.stat('/proc/self/ns/pid').st_ino}-{os.getpid()}-*"  # this process's snapshots
    before = set(Path(tempfile.gettempdir()).glob(mine))
    with pytest.raises(SandboxUnavailable, match="must be a path inside the project"):
        Sandbox(project, [path])
    assert set(Path(tempfile.gettempdir()).glob(mine)) <= before, "nothing was copied anywhere"
    assert not (project / "ran").exists()
