"""SANDBOX.md §7, items 9 and 10: refusal without a sandbox, and the command line itself. These
need no working sandbox, so they run (and must pass) everywhere, also where the rest skips."""

from __future__ import annotations

import stat

import pytest

from reactlab import BashTool, Sandbox, SandboxUnavailable, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path


# 9. No bwrap, or a failing probe: refused, and nothing runs.
def test_missing_bwrap_refuses(tmp_path):
    marker = tmp_path / "ran"
    sandbox = Sandbox(tmp_path, bwrap=str(tmp_path / "no-bwrap"))
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        sandbox.run(f"touch {marker}", timeout=5)
    with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
        with pytest.raises(SandboxUnavailable):
            BashTool(workspace, sandbox=Sandbox(workspace.root, bwrap="/nonexistent/bwrap"))
    assert not marker.exists()


def test_failing_probe_refuses(tmp_path):
    marker = tmp_path / "ran"
    fake = tmp_path / "bwrap"
    fake.write_text(
        f"#!/bin/sh\ntouch {marker}.probe\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    sandbox = Sandbox(tmp_path, bwrap=str(fake))
    with pytest.raises(SandboxUnavailable, match="setting up uid map: Permission denied.*user namespaces"):
        sandbox.run(f"touch {marker}", timeout=5)
    assert not marker.exists()
    assert (tmp_path / "ran.probe").exists()  # the probe ran, the command did not


# 10. The command line itself.
def test_argv_hardening_flags_and_bind_order(tmp_path):
    (tmp_path / "tests").mkdir()
    argv = Sandbox(tmp_path, ["tests"]).argv("echo hi")
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
    assert argv[-4:-1] == ["--", "/bin/bash", "-c"] and argv[-1].endswith("; echo hi")
    assert "DEEPSEEK_API_KEY" not in " ".join(argv)
