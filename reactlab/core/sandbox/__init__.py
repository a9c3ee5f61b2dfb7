"""The Bubblewrap sandbox bash runs in. There is no fallback: no sandbox, no command.

Read in this order:
    command_line.py  the bwrap command line: everything a command can see and do
    seccomp.py       the system calls a command may not make (a seccomp filter, after Flatpak's)
    running.py       running one command: its timeout, its output caps, the end of every process
    command_thread.py  the thread a command is started from: a session keyring of its own
    identity.py      who a command is on the host (never root)
    snapshot.py      the read-only paths and /etc, copied once, bound into every command
    cgroups.py       processes and memory for a whole run, where the machine allows cgroups
    disk.py          what a run may add to the host's disk: the copy's growth, counted by the host
    tidy.py          what the host does to the copy after each command (bounded)
    cleanup.py       the folders a run makes, and what dead processes left of them
    available.py     whether this machine can build a sandbox at all
    sandbox.py       Sandbox: one run's commands, each in a fresh sandbox
"""

from __future__ import annotations

from .available import available, check_available
from .command_line import BWRAP, SANDBOX_ROOT, Binds
from .disk import DISK_LIMIT
from .identity import DEFAULT_SANDBOX_UID, SANDBOX_UID_VARIABLE, hand_over, host_identity, share_with_sandbox
from .running import OUTPUT_LIMIT, SandboxResult
from .sandbox import Sandbox, python_prefix
from .snapshot import inside_project

__all__ = [
    "BWRAP",
    "Binds",
    "DEFAULT_SANDBOX_UID",
    "DISK_LIMIT",
    "OUTPUT_LIMIT",
    "SANDBOX_ROOT",
    "SANDBOX_UID_VARIABLE",
    "Sandbox",
    "SandboxResult",
    "available",
    "check_available",
    "hand_over",
    "host_identity",
    "inside_project",
    "python_prefix",
    "share_with_sandbox",
]
