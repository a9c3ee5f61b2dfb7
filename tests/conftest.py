from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactlab import Sandbox, Workspace
from reactlab.core.sandbox import BWRAP, available
from reactlab.core.sandbox.walk import remove_tree
from reactlab.samples import SHOP_READ_ONLY, shop_path

FAKE_KEY = "sk-reactlab-FAKE-0123456789abcdef"


def _sandbox_problem() -> str | None:
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    return available()


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
def open_tmp() -> Iterator[Path]:
    """A folder every user may pass through (0755, in /tmp): pytest's own tmp_path lies in a folder
    only its owner may enter, which the sandbox uid, as root's commands run, cannot reach."""
    folder = Path(tempfile.mkdtemp(prefix="reactlab-test-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    remove_tree(folder)


@pytest.fixture
def fake_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    return FAKE_KEY


# The escape suites share these: a shop copy whose protected bytes are checked after each attempt.
def fingerprint(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(root.rglob("*"))
    }


def protected_state(workspace: Workspace, sandbox: Sandbox) -> dict[str, object]:
    """The bytes that must never change: the original project, the read-only snapshot the sandbox
    binds, and the copy's own files at the read-only paths."""
    state: dict[str, object] = {"original": fingerprint(workspace.source)}
    for name, base in (("snapshot", sandbox.snapshot), ("copy", workspace.root)):
        for path in workspace.read_only:
            target = base / path
            if target.is_dir():
                state[f"{name}:{path}"] = fingerprint(target)
            else:
                state[f"{name}:{path}"] = hashlib.sha256(target.read_bytes()).hexdigest()
    return state


@pytest.fixture
def box(fake_key):
    """A shop copy whose protected parts are fingerprinted before and checked after each test."""
    workspace = Workspace(shop_path(), [*SHOP_READ_ONLY, "shop/delivery.py"])
    sandbox = Sandbox(workspace.root, workspace.read_only)
    before = protected_state(workspace, sandbox)
    yield workspace, sandbox
    assert protected_state(workspace, sandbox) == before, "a protected file changed on the host"
    sandbox.close()
    workspace.cleanup()


def sh(sandbox: Sandbox, command: str, timeout: float = 20):
    return sandbox.run(command, timeout=timeout)
