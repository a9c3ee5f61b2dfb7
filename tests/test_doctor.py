"""The setup check: what works on this machine, and the one command that fixes the sandbox."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from reactlab.doctor import Machine, check_all, report, sandbox_advice

from .conftest import FAKE_KEY, SANDBOX_PROBLEM, needs_sandbox, without_sandbox

LINUX = Machine("linux", "debian", "12")


@pytest.mark.parametrize(
    "machine, fix",
    [
        (Machine("darwin"), "macOS has no Bubblewrap"),
        (Machine("win32"), "WSL 2"),
        (Machine("linux", "ubuntu", "22.04", hosted="colab"), "Colab"),
        (Machine("linux", "ubuntu", "22.04", hosted="binder"), "Binder runs in Docker"),
        (Machine("linux", "debian", "12", hosted="docker"), "--security-opt seccomp=unconfined"),
        (Machine("linux", "debian", "12", bwrap_installed=False), "`sudo apt-get install bubblewrap`"),
        (Machine("linux", "ubuntu", "24.04", bwrap_installed=False), "`sudo apt-get install bubblewrap`"),
        (Machine("linux", "fedora", "40", bwrap_installed=False), "`sudo dnf install bubblewrap`"),
        (
            Machine("linux", "ubuntu", "24.04", apparmor_restricts_userns=True),
            "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
        ),
        (Machine("linux", "debian", "10", userns_clone_disabled=True), "kernel.unprivileged_userns_clone=1"),
        (Machine("linux", "centos", "8", max_user_namespaces=0), "user.max_user_namespaces=15000"),
    ],
    ids=lambda v: v if isinstance(v, str) else f"{v.system}-{v.distro}-{v.hosted or 'own'}",
)
def test_the_fix_fits_the_machine(machine, fix):
    assert fix in sandbox_advice(machine)


def test_every_check_is_named_and_the_whole_check_is_fast(monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("REACTLAB_BASE_URL", raising=False)
    started = time.monotonic()
    checks = check_all()
    assert time.monotonic() - started < 5
    assert [c.name for c in checks] == ["Python", "widgets", "sandbox", "live model"]
    assert checks[0].status == checks[1].status == "ok"
    assert checks[2].status == ("ok" if SANDBOX_PROBLEM is None else "limited")
    assert checks[3].status == "limited" and "DEEPSEEK_API_KEY" in checks[3].fix


def test_a_key_or_a_server_is_reported_but_never_shown(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    assert FAKE_KEY not in report(check_all()) and "is set (not shown)" in report(check_all())
    monkeypatch.setenv("REACTLAB_BASE_URL", f"http://user:{FAKE_KEY}@localhost:11434/v1")
    text = report(check_all())
    assert FAKE_KEY not in text and "user" not in text and "http://localhost:11434" in text


def test_without_a_sandbox_for_real_it_says_why_and_how_to_fix_it():
    done = subprocess.run(
        without_sandbox([sys.executable, "-m", "reactlab.doctor"]), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr  # limited is not failed: the notebooks still run
    line = next(line for line in done.stdout.splitlines() if "sandbox" in line)
    assert line.startswith("~ sandbox") and "could not build a sandbox" in line and "replayed" in line
    assert "fix: " in done.stdout.split(line, 1)[1].splitlines()[1]


@needs_sandbox
def test_with_a_sandbox_it_says_so():
    done = subprocess.run([sys.executable, "-m", "reactlab.doctor"], capture_output=True, text=True, timeout=60)
    assert "✓ sandbox    Bubblewrap builds the sandbox" in done.stdout and "fix: `" not in done.stdout
