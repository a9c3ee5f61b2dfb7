"""The system calls a sandboxed command may not make: the seccomp filter bwrap puts on every command.

The namespaces already keep a command away from the host's files, processes and network, and it has
no capabilities. What it still shares with the host is the kernel: the calls below reach what is the
kernel's or the host's alone (its keyrings, its log, the terminal the host reads), or are the usual
ways into kernel bugs. The list follows Flatpak's (the reference for what a desktop sandbox denies),
with what Codex's Linux sandbox and a hostile review added. A refused call fails with the errno
given; ENOSYS where a caller falls back on it (libc from clone3 to clone, mount(8) from the new
mount API to mount(2)), as on a kernel without the call.

The program is built by libseccomp through ctypes, once per process, and bwrap is given it with
``--seccomp FD``; bwrap installs it in the sandbox's first process and in the command, just before
each starts. Why libseccomp rather than a BPF program of our own: the table below is read as names,
and libseccomp turns it into the program for this machine's architecture, with that architecture's
numbers, and closes the other doors into the kernel that a 64-bit x86 process has (32-bit i386 calls
through ``int 0x80``, x32 calls with bit 30 set: both kill the process at once). A program of our own
would need a table of numbers per architecture and that care per door, each a place to be wrong.
libseccomp2 is on every Debian and Ubuntu machine (apt depends on it). Fail closed: without it, no
filter, and without a filter no command (SandboxUnavailable says how to install it).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
from typing import NamedTuple

from ..errors import SandboxUnavailable
from ..language import say

__all__ = ["ALLOWED_FAMILIES", "DENIED", "Denied", "build_filter", "filter_program", "raw_syscall", "syscall_number"]


class Denied(NamedTuple):
    names: str
    error: int
    why: str
    when: tuple[int, str, int | tuple[int, ...]] | None = None
    """Only when this holds of an argument: (which, "has bits" | "low 32 bits are" (one value or
    any of several) | "is not" | "is none of", value). Always when None."""


CLONE_NEWUSER = 0x10000000
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
PER_LINUX = 0
# _IOW('X', n, a 48-byte struct): FS_IOC_RESVSP, UNRESVSP, their 64-bit twins and FS_IOC_ZERO_RANGE
# (40-43, 57) are fallocate by ioctl (fs/ioctl.c); XFS's ALLOCSP and FREESP (10, 11, 36, 37) did the
# same on XFS before Linux 5.17.
FALLOCATE_IOCTLS = tuple(0x40305800 | n for n in (40, 41, 42, 43, 57, 10, 11, 36, 37))
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
ALLOWED_FAMILIES = (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK)
EPERM, ENOSYS, EAFNOSUPPORT, EOPNOTSUPP = errno.EPERM, errno.ENOSYS, errno.EAFNOSUPPORT, errno.EOPNOTSUPP

DENIED = [
    Denied("keyctl add_key request_key", EPERM, "the kernel's keyrings: the caller's keys (an API key) are there"),
    Denied("syslog", EPERM, "the kernel's log: host addresses and messages"),
    Denied("acct", EPERM, "process accounting is the host's to switch"),
    Denied("quotactl", EPERM, "disk quotas are the host's"),
    Denied("uselib", EPERM, "an obsolete way to load a library"),
    Denied("modify_ldt", EPERM, "16-bit segments: of no use, a history of leaks"),
    Denied("move_pages mbind get_mempolicy set_mempolicy migrate_pages", EPERM, "NUMA placement: the host's layout"),
    Denied("unshare setns", EPERM, "no new namespace, no joining another: the sandbox's are final"),
    # clone's flags are its first argument on every architecture but s390 (not one reactlab runs on)
    Denied("clone", EPERM, "a new user namespace gives capabilities back", when=(0, "has bits", CLONE_NEWUSER)),
    Denied("clone3", ENOSYS, "its flags are out of the filter's sight; libc falls back to clone"),
    Denied("mount umount umount2 pivot_root chroot", EPERM, "the mounts bwrap made are final"),
    Denied(
        "open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr",
        ENOSYS,
        "the new mount API, likewise; mount(8) falls back to mount(2)",
    ),
    Denied("ioctl", EPERM, "TIOCSTI types into the terminal the host reads", when=(1, "low 32 bits are", TIOCSTI)),
    Denied("ioctl", EPERM, "TIOCLINUX does so on a console", when=(1, "low 32 bits are", TIOCLINUX)),
    Denied("ptrace process_vm_readv process_vm_writev pidfd_getfd", EPERM, "no reading or writing another process"),
    Denied("perf_event_open", EPERM, "the kernel's profiler: measures the host, many CVEs"),
    Denied("personality", EPERM, "others than Linux's turn off address randomisation", when=(0, "is not", PER_LINUX)),
    Denied("userfaultfd", EPERM, "stops the kernel mid-copy: the usual tool of kernel exploits"),
    Denied("io_uring_setup io_uring_enter io_uring_register", EPERM, "a way into the kernel past this filter; CVEs"),
    Denied("bpf", EPERM, "programs loaded into the kernel"),
    # EOPNOTSUPP, as on a filesystem without it: glibc's posix_fallocate then writes the blocks instead
    Denied(
        "fallocate",
        EOPNOTSUPP,
        "takes blocks without writing them, 60 MiB in about a millisecond: a whole disk between two checks of "
        "the disk bound; some modes also reserve past a file's end or grow it past the per-file cap (ulimit -f)",
    ),
    Denied("ioctl", EOPNOTSUPP, "fallocate by another door", when=(1, "low 32 bits are", FALLOCATE_IOCTLS)),
    Denied(
        "socket",
        EAFNOSUPPORT,
        "only unix, IPv4, IPv6 and netlink: AF_VSOCK reaches the host past the network namespace",
        when=(0, "is none of", ALLOWED_FAMILIES),
    ),
]

# libseccomp's constants (seccomp.h)
_ALLOW, _KILL_PROCESS, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_NE, _EQ, _GE, _MASKED_EQ = 1, 4, 5, 7
_ATTR_BAD_ARCH = 2  # what a call of another ABI (i386, x32) gets
_NATIVE = 0


class _Comparison(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]


@functools.cache
def _libseccomp() -> ctypes.CDLL:
    try:
        library = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        raise SandboxUnavailable(
            say(
                "libseccomp is missing, which builds the sandbox's seccomp filter, so bash will not run. Install it: "
                "`sudo apt-get install libseccomp2` (Debian/Ubuntu) or `sudo dnf install libseccomp`."
            )
        ) from None
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_Comparison),
    ]  # fmt: skip
    library.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    library.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    library.seccomp_arch_remove.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    return library


@functools.cache
def syscall_number(name: str) -> int | None:
    """The number of system call ``name`` on this machine, None if this architecture has none."""
    number = int(_libseccomp().seccomp_syscall_resolve_name(name.encode()))
    if number == -1:  # a name libseccomp does not know: a typo, never to be skipped quietly
        raise ValueError(f"unknown system call {name!r}")
    return number if number >= 0 else None


def raw_syscall(name: str, *arguments: object) -> int:
    """Make system call ``name`` itself, not through libc (whose setresuid and the like change every
    thread of the process, where the kernel changes only the calling one). OSError if it fails."""
    number = syscall_number(name)
    if number is None:
        raise OSError(errno.ENOSYS, f"no {name} on this architecture")
    passed = [ctypes.c_long(a) if isinstance(a, int) else a for a in arguments]
    result = int(_libc().syscall(ctypes.c_long(number), *passed))
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}: {os.strerror(error)}")
    return result


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


@functools.cache
def filter_program() -> bytes:
    """The BPF program of ``DENIED`` for this machine, as bwrap reads it from ``--seccomp FD``."""
    return build_filter()


def build_filter(architecture: int | None = None) -> bytes:
    """The BPF program of ``DENIED`` for ``architecture`` (libseccomp's token, e.g. 0xC00000B7 for
    aarch64; this machine's if None). The tests read the programs of other architectures."""
    library = _libseccomp()
    context = library.seccomp_init(_ALLOW)
    if not context:
        raise SandboxUnavailable(
            say("Could not build the sandbox's seccomp filter ({reason}), so bash will not run.", reason="seccomp_init")
        )
    try:
        _check(library.seccomp_attr_set(context, _ATTR_BAD_ARCH, _KILL_PROCESS), "seccomp_attr_set")
        if architecture is not None:
            _check(library.seccomp_arch_add(context, architecture), "seccomp_arch_add")
            _check(library.seccomp_arch_remove(context, _NATIVE), "seccomp_arch_remove")
        for rule in DENIED:
            for name in rule.names.split():
                syscall_number(name)  # a name libseccomp does not know is refused, never skipped
                number = library.seccomp_syscall_resolve_name(name.encode())  # < 0 where there is none: ignored
                for compared in _alternatives(rule.when):
                    added = library.seccomp_rule_add_array(
                        context, _ERRNO | rule.error, number, len(compared), (_Comparison * len(compared))(*compared)
                    )
                    _check(added, f"seccomp_rule_add {name}")
        held = os.memfd_create("reactlab-seccomp", os.MFD_CLOEXEC)
        try:
            _check(library.seccomp_export_bpf(context, held), "seccomp_export_bpf")
            return os.pread(held, os.fstat(held).st_size, 0)
        finally:
            os.close(held)
    finally:
        library.seccomp_release(context)


def _alternatives(when: tuple[int, str, int | tuple[int, ...]] | None) -> list[list[_Comparison]]:
    """Comparisons of one argument, as libseccomp takes them: the rule holds if any list holds."""
    if when is None:
        return [[]]
    argument, test, value = when
    if test == "has bits" and isinstance(value, int):
        return [[_Comparison(argument, _MASKED_EQ, value, value)]]
    if test == "low 32 bits are":  # as the kernel reads an int: the upper half ignored
        values = value if isinstance(value, tuple) else (value,)
        return [[_Comparison(argument, _MASKED_EQ, 0xFFFFFFFF, v)] for v in values]
    if test == "is not" and isinstance(value, int):
        return [[_Comparison(argument, _NE, value, 0)]]
    if test == "is none of" and isinstance(value, tuple):  # each value between them, and all above the last
        between = [_Comparison(argument, _EQ, v, 0) for v in range(max(value)) if v not in value]
        return [[comparison] for comparison in between] + [[_Comparison(argument, _GE, max(value) + 1, 0)]]
    raise ValueError(f"unknown test {test!r}")


def _check(result: int, what: str) -> None:
    if result < 0:
        raise SandboxUnavailable(
            say(
                "Could not build the sandbox's seccomp filter ({reason}), so bash will not run.",
                reason=f"{what}: {os.strerror(-result)}",
            )
        )
