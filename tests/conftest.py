from __future__ import annotations

import os
import shutil

import pytest

from reactlab import Sandbox, SandboxUnavailable, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
from reactlab.sandbox import BWRAP

FAKE_KEY = "sk-reactlab-FAKE-0123456789abcdef"


def _sandbox_problem() -> str | None:
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    try:
        Sandbox(os.getcwd()).check()
    except SandboxUnavailable as exc:
        return str(exc)
    return None


SANDBOX_PROBLEM = _sandbox_problem()
needs_sandbox = pytest.mark.skipif(
    SANDBOX_PROBLEM is not None and not os.environ.get("CI"),
    reason=f"no usable sandbox here: {SANDBOX_PROBLEM}",
)


def without_sandbox(argv: list[str]) -> list[str]:
    """``argv`` run where bwrap is installed but cannot build a sandbox: /bin/false is bound over it
    in a private mount namespace (the host's mounts are untouched). Where there is no sandbox anyway,
    ``argv`` as it is."""
    if SANDBOX_PROBLEM is not None:
        return argv
    unshare = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--map-root-user", "--mount"]
    return [*unshare, "sh", "-c", f'mount --bind /bin/false {BWRAP} && exec "$@"', "sh", *argv]


@pytest.fixture
def shop() -> Workspace:
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    yield workspace
    workspace.cleanup()


@pytest.fixture
def fake_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    return FAKE_KEY
