"""The thread each command is started from, and what is that thread's alone: a new, empty session keyring.

The kernel keeps keys (API keys, Kerberos tickets) in keyrings. The session keyring passes to every
process a program starts, across setuid and into new user namespaces, and whoever holds it may read
its keys whatever their uid: a key the caller keeps there (`keyctl padd user deepseek @s`, a login
with pam_keyinit, a systemd service, a container) was readable inside, and a key planted there
outlived the command. The seccomp filter refuses the keyring calls (seccomp.py); this is the wall
behind it: each command is started, followed and ended by a thread of its own that first joins a
new, empty session keyring. The caller's own threads keep theirs (the kernel keeps it per thread).

No code runs in the child between fork and exec for this (Popen's preexec_fn is unsafe where threads
run, a Jupyter kernel's for one, and turns vfork off). The thread lives as long as the command:
bwrap's --die-with-parent follows the thread that started it, not the process.

Each keyring counts against its user's quota of keys (200 for a user other than root), and the
kernel gives its place back only once the credentials holding it are freed, a second or more after
the command's last process ends (later on a busy machine). A burst of commands (a hundred a second,
as a test suite runs them) used the quota up and the next failed: it waits for the place instead,
up to ``QUOTA_WAIT`` seconds.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ..errors import SandboxUnavailable
from ..language import say
from .seccomp import raw_syscall

__all__ = ["QUOTA_WAIT", "in_a_thread_of_its_own"]

T = TypeVar("T")
_KEYCTL_JOIN_SESSION_KEYRING = 1  # with no name: a new anonymous keyring, this thread's session keyring
QUOTA_WAIT = 20.0
"""Seconds a command waits for a place in its user's quota of keys (lazy RCU frees within 10)."""


def in_a_thread_of_its_own(work: Callable[[], T]) -> T:
    """``work()``, run in a new thread with a new, empty session keyring; what it raises is raised here."""
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _join_new_session_keyring()
            results.append(work())
        except BaseException as error:  # noqa: B036 (raised again in the caller's thread)
            errors.append(error)

    thread = threading.Thread(target=run, name="reactlab-command", daemon=True)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return results[0]


def _join_new_session_keyring() -> None:
    """ENOSYS or EPERM: this process may not use keyrings at all (a kernel without them, or a
    container's seccomp profile, as Docker's), and so neither may anything it starts. EDQUOT: the
    user's quota of keys is full, for now (see above)."""
    deadline = time.monotonic() + QUOTA_WAIT
    while True:
        try:
            raw_syscall("keyctl", _KEYCTL_JOIN_SESSION_KEYRING, None)
            return
        except OSError as error:
            if error.errno in (errno.ENOSYS, errno.EPERM):
                return
            if error.errno != errno.EDQUOT or time.monotonic() > deadline:
                raise SandboxUnavailable(
                    say("Could not give the command a session keyring of its own: {reason}.", reason=error.strerror)
                ) from None
        time.sleep(0.05)
