"""Can this machine build a sandbox at all? One small bwrap, asked once per process while it works.

A success is kept for the life of the process; a failure is not: its cause (a full disk, a sysctl, a
limit on namespaces) may be gone by the next question, which asks again. Each failure says what it
is in plain words, from what bwrap printed. No seccomp filter (no libseccomp) is a failure too.
"""

from __future__ import annotations

import os
import subprocess
import threading
from subprocess import PIPE

from ..browser import IN_BROWSER
from ..errors import SandboxUnavailable
from ..language import say
from .command_line import BWRAP
from .command_thread import in_a_thread_of_its_own
from .identity import as_sandbox_uid, host_identity
from .running import above_stdio
from .seccomp import filter_program

__all__ = ["available", "check_available"]

_worked: set[tuple[str, int]] = set()
_lock = threading.Lock()


def available(bwrap: str = BWRAP) -> str | None:
    """None where bash can run sandboxed here; otherwise why not, in one paragraph."""
    try:
        check_available(bwrap)
    except SandboxUnavailable as problem:
        return str(problem)
    return None


def check_available(bwrap: str = BWRAP) -> None:
    """Raise SandboxUnavailable unless ``bwrap`` exists and builds a sandbox here."""
    if IN_BROWSER:
        raise SandboxUnavailable(
            say("this is a browser tab, which runs no programs: no bash, and no Bubblewrap to isolate it.")
        )
    if not os.path.isabs(bwrap) or not os.access(bwrap, os.X_OK):
        raise SandboxUnavailable(
            say(
                "Bubblewrap not found at {bwrap}, so bash will not run (there is no unsandboxed fallback). Install "
                "it: `sudo apt-get install bubblewrap` (Debian/Ubuntu) or `sudo dnf install bubblewrap`.",
                bwrap=bwrap,
            )
        )
    program = filter_program()
    key = (bwrap, host_identity()[0])
    with _lock:
        if key in _worked:
            return
        failure = in_a_thread_of_its_own(lambda: _try(bwrap, program))
        if failure is None:
            _worked.add(key)
            return
    raise SandboxUnavailable(
        say("{bwrap} is installed but could not build a sandbox here: {failure}", bwrap=bwrap, failure=failure)
    )


def _try(bwrap: str, program: bytes) -> str | None:
    """Build the smallest sandbox the real one needs (every namespace, a user that is not root, the
    seccomp filter), started as each command is (see command_thread.py)."""
    seccomp = above_stdio(os.memfd_create("reactlab-seccomp", os.MFD_CLOEXEC))  # bwrap is passed it
    os.write(seccomp, program)
    os.lseek(seccomp, 0, os.SEEK_SET)
    argv = [
        bwrap,
        "--unshare-all", "--unshare-user", "--uid", "1000", "--gid", "1000",
        "--cap-drop", "ALL", "--disable-userns", "--die-with-parent", "--new-session",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "--seccomp", str(seccomp),
        "--", "/bin/true",
    ]  # fmt: skip
    try:
        with as_sandbox_uid():  # only while bwrap starts: the wait is root's again
            probe = subprocess.Popen(
                argv, env={"PATH": "/usr/bin:/bin"}, cwd="/", stdout=PIPE, stderr=PIPE, pass_fds=(seccomp,)
            )
        with probe:
            try:
                _, stderr = probe.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                probe.kill()
                raise
    except (OSError, subprocess.TimeoutExpired) as error:
        return say("it could not be started ({reason}).", reason=error)
    finally:
        os.close(seccomp)
    if probe.returncode == 0:
        return None
    said = stderr.decode(errors="replace").strip()[-300:] or f"exit code {probe.returncode}"
    return _explained(said)


def _explained(said: str) -> str:
    """bwrap's complaint, with what it means."""
    lowered = said.lower()
    if "no space left" in lowered and "namespace" not in lowered:
        return say("{said}. The disk or a memory file system is full; free space, then try again.", said=said)
    if "enospc" in lowered or "max_" in lowered:
        return say(
            "{said}. Too many namespaces exist on this machine (each sandbox makes several); when other sandboxes"
            " end, try again, or raise /proc/sys/user/max_user_namespaces.",
            said=said,
        )
    if "uid map" in lowered or "permission" in lowered or "not permitted" in lowered or "no permissions" in lowered:
        return say(
            "{said}. Unprivileged user namespaces are blocked here: Ubuntu 23.10+ needs `sudo sysctl "
            "kernel.apparmor_restrict_unprivileged_userns=0`, and Docker's default seccomp profile forbids them. "
            "bash will not run without isolation.",
            said=said,
        )
    return say("{said}. bash will not run without isolation.", said=said)
