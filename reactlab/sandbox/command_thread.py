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
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable
from typing import TypeVar

from ..errors import SandboxUnavailable
from ..strings import strings
from .seccomp import raw_syscall

__all__ = ["in_a_thread_of_its_own"]

T = TypeVar("T")
_KEYCTL_JOIN_SESSION_KEYRING = 1  # with no name: a new anonymous keyring, this thread's session keyring


def in_a_thread_of_its_own(work: Callable[[], T]) -> T:
    """``work()``, run in a new thread with a new, empty session keyring; what it raises is raised here."""
    outcome: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            _join_new_session_keyring()
            outcome.append((True, work()))
        except BaseException as error:  # noqa: B036 (handed to the caller, who raises it)
            outcome.append((False, error))

    thread = threading.Thread(target=run, name="reactlab-command", daemon=True)
    thread.start()
    thread.join()
    done, value = outcome[0]
    if not done:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


def _join_new_session_keyring() -> None:
    try:
        raw_syscall("keyctl", _KEYCTL_JOIN_SESSION_KEYRING, None)
    except OSError as error:
        if error.errno != errno.ENOSYS:  # a kernel without keyrings: there is nothing to keep apart
            raise SandboxUnavailable(strings().sandbox.no_keyring.format(reason=error.strerror)) from None
