"""Attacks on the kernel itself: every system call the seccomp filter denies (reactlab/core/sandbox/seccomp.py),
made from inside the sandbox, is refused with its errno; calls of the other ABIs of a 64-bit x86
kernel kill the process; the program bwrap is given denies the same on x86-64 and aarch64; and
ordinary commands still work.

Each call's arguments are chosen so that the kernel, had the filter let it through, would answer
otherwise (EFAULT, EINVAL, EBADF, ENOTTY, a number): the test sees the filter, not the call failing.
Where the kernel itself refuses the sandbox the call anyway (syslog with dmesg_restrict, acct and
pivot_root without capabilities: EPERM either way), the program's own answer is checked too, by a
small BPF interpreter below, for every entry and both architectures."""

from __future__ import annotations

import ctypes
import errno
import functools
import json
import platform
import shlex
import struct

import pytest

from reactlab import Sandbox, Workspace
from reactlab.core.sandbox.seccomp import ALLOWED_FAMILIES, DENIED, build_filter, filter_program
from reactlab.samples import SHOP_READ_ONLY, shop_path

from ..conftest import needs_sandbox, sh

pytestmark = needs_sandbox

X86_64, AARCH64, I386 = 0xC000003E, 0xC00000B7, 0x40000003
NATIVE = {"x86_64": X86_64, "aarch64": AARCH64}.get(platform.machine())
TIOCSTI, TIOCLINUX, TCGETS = 0x5412, 0x541C, 0x5401
CLONE_NEWUSER, CLONE_FS = 0x10000000, 0x200
AF_UNSPEC, AF_KEY, AF_PACKET, AF_BLUETOOTH, AF_ALG, AF_VSOCK = 0, 15, 17, 31, 38, 40
HIGH_BITS = 1 << 32  # an int argument with its upper half set: the kernel reads only the lower
FS_IOC_GETFLAGS = 0x80086601
# The ioctls that call fallocate (linux/falloc.h, linux/fs.h; XFS's own, before Linux 5.17: xfs_fs.h)
FALLOCATE_IOCTLS = {
    "FS_IOC_RESVSP": 0x40305828,
    "FS_IOC_UNRESVSP": 0x40305829,
    "FS_IOC_RESVSP64": 0x4030582A,
    "FS_IOC_UNRESVSP64": 0x4030582B,
    "FS_IOC_ZERO_RANGE": 0x40305839,
    "XFS_IOC_ALLOCSP": 0x4030580A,
    "XFS_IOC_FREESP": 0x4030580B,
    "XFS_IOC_ALLOCSP64": 0x40305824,
    "XFS_IOC_FREESP64": 0x40305825,
}
KEEP_SIZE, PUNCH_HOLE, ZERO_RANGE, INSERT_RANGE = 0x01, 0x02, 0x10, 0x20  # fallocate's modes

# (what, system call, arguments, errno expected inside). The arguments make the kernel itself answer
# otherwise, were the call let through (in the comment: what it would say).
DENIED_CALLS = [
    ("keyctl", "keyctl", [0, -3, 0], errno.EPERM),  # the session keyring's id
    ("add_key", "add_key", [0, 0, 0, 0, -3], errno.EPERM),  # EFAULT
    ("request_key", "request_key", [0, 0, 0, 0], errno.EPERM),  # EFAULT
    ("syslog", "syslog", [10, 0, 0], errno.EPERM),  # the log's size, or EPERM under dmesg_restrict
    ("acct", "acct", [0], errno.EPERM),  # EPERM: no CAP_SYS_PACCT
    ("quotactl", "quotactl", [0x800004FF, 0, 0, 0], errno.EPERM),  # EINVAL: no quota type 255
    ("uselib", "uselib", [0], errno.EPERM),  # ENOSYS on kernels without it, else EFAULT
    ("modify_ldt", "modify_ldt", [0, 0, 0], errno.EPERM),  # 0: an empty table read
    ("move_pages", "move_pages", [0, 0, 0, 0, 0, 0xFF], errno.EPERM),  # EINVAL: bad flags
    ("mbind", "mbind", [0, 0, 0xFF, 0, 0, 0], errno.EPERM),  # EINVAL: bad mode
    ("get_mempolicy", "get_mempolicy", [0, 0, 0, 0, 0xFF], errno.EPERM),  # EINVAL: bad flags
    ("set_mempolicy", "set_mempolicy", [0xFF, 0, 0], errno.EPERM),  # EINVAL: bad mode
    ("migrate_pages", "migrate_pages", [0, 0, 0, 0], errno.EPERM),  # 0: no node
    ("unshare", "unshare", [0], errno.EPERM),  # 0: nothing asked
    ("setns", "setns", [-1, 0], errno.EPERM),  # EBADF
    ("clone with CLONE_NEWUSER", "clone", [CLONE_NEWUSER | CLONE_FS, 0, 0, 0, 0], errno.EPERM),  # EINVAL
    ("clone3", "clone3", [0, 0], errno.ENOSYS),  # EINVAL: no arguments
    ("mount", "mount", [0, 1, 0, 0, 0], errno.EPERM),  # EFAULT: the target
    ("umount2", "umount2", [0, 0xFFFF], errno.EPERM),  # EINVAL: bad flags
    ("pivot_root", "pivot_root", [0, 0], errno.EPERM),  # EPERM: no CAP_SYS_ADMIN
    ("chroot", "chroot", [1], errno.EPERM),  # EFAULT
    ("open_tree", "open_tree", [-1, 0, 0xFFFFFFFF], errno.ENOSYS),  # EINVAL
    ("move_mount", "move_mount", [-1, 0, -1, 0, 0xFFFFFFFF], errno.ENOSYS),  # EPERM or EINVAL
    ("fsopen", "fsopen", [0, 0xFFFFFFFF], errno.ENOSYS),  # EPERM or EINVAL
    ("fsconfig", "fsconfig", [-1, 0xFF, 0, 0, 0], errno.ENOSYS),  # EBADF or EINVAL
    ("fsmount", "fsmount", [-1, 0xFF, 0], errno.ENOSYS),  # EPERM or EINVAL
    ("fspick", "fspick", [-1, 0, 0xFFFFFFFF], errno.ENOSYS),  # EPERM or EINVAL
    ("mount_setattr", "mount_setattr", [-1, 0, 0xFFFFFFFF, 0, 0], errno.ENOSYS),  # EINVAL
    ("ioctl TIOCSTI", "ioctl", [0, TIOCSTI, 0], errno.EPERM),  # ENOTTY: stdin is /dev/null
    ("ioctl TIOCSTI, upper half set", "ioctl", [0, HIGH_BITS | TIOCSTI, 0], errno.EPERM),  # ENOTTY
    ("ioctl TIOCLINUX", "ioctl", [0, TIOCLINUX, 0], errno.EPERM),  # ENOTTY
    ("ioctl TIOCLINUX, upper half set", "ioctl", [0, HIGH_BITS | TIOCLINUX, 0], errno.EPERM),  # ENOTTY
    ("ptrace", "ptrace", [16, 1 << 30, 0, 0], errno.EPERM),  # ESRCH: PTRACE_ATTACH to no process
    ("process_vm_readv", "process_vm_readv", [1, 0, 0, 0, 0, 1], errno.EPERM),  # EINVAL: bad flags
    ("process_vm_writev", "process_vm_writev", [1, 0, 0, 0, 0, 1], errno.EPERM),  # EINVAL: bad flags
    ("pidfd_getfd", "pidfd_getfd", [-1, 0, 0], errno.EPERM),  # EBADF
    ("perf_event_open", "perf_event_open", [0, 0, -1, -1, 0xFFFFFFFF], errno.EPERM),  # EINVAL: bad flags
    ("personality ADDR_NO_RANDOMIZE", "personality", [0x0040000], errno.EPERM),  # the old personality
    ("personality query", "personality", [0xFFFFFFFF], errno.EPERM),  # the current personality
    ("userfaultfd", "userfaultfd", [1 | 2], errno.EPERM),  # EINVAL: bad flags
    ("io_uring_setup", "io_uring_setup", [1, 0], errno.EPERM),  # EFAULT
    ("io_uring_enter", "io_uring_enter", [-1, 0, 0, 0, 0, 0], errno.EPERM),  # EBADF
    ("io_uring_register", "io_uring_register", [-1, 0, 0, 0], errno.EPERM),  # EBADF
    ("bpf", "bpf", [0xFFFF, 0, 0], errno.EPERM),  # EINVAL or EPERM
    # fallocate in every mode, and the ioctls that call it: each EBADF unfiltered (fd -1)
    ("fallocate", "fallocate", [-1, 0, 0, 1 << 30], errno.EOPNOTSUPP),
    ("fallocate KEEP_SIZE", "fallocate", [-1, KEEP_SIZE, 0, 1 << 30], errno.EOPNOTSUPP),
    ("fallocate PUNCH_HOLE", "fallocate", [-1, PUNCH_HOLE | KEEP_SIZE, 0, 1 << 30], errno.EOPNOTSUPP),
    ("fallocate ZERO_RANGE", "fallocate", [-1, ZERO_RANGE, 0, 1 << 30], errno.EOPNOTSUPP),
    ("fallocate INSERT_RANGE", "fallocate", [-1, INSERT_RANGE, 0, 1 << 30], errno.EOPNOTSUPP),
    *((f"ioctl {name}", "ioctl", [-1, number, 0], errno.EOPNOTSUPP) for name, number in FALLOCATE_IOCTLS.items()),
    ("ioctl FS_IOC_RESVSP64, upper half set", "ioctl", [-1, HIGH_BITS | 0x4030582A, 0], errno.EOPNOTSUPP),
    ("socket AF_VSOCK", "socket", [AF_VSOCK, 1, 0], errno.EAFNOSUPPORT),  # a socket to the host's hypervisor
    ("socket AF_PACKET", "socket", [AF_PACKET, 3, 0], errno.EAFNOSUPPORT),  # EPERM
    ("socket AF_ALG", "socket", [AF_ALG, 5, 0], errno.EAFNOSUPPORT),  # a socket
    ("socket AF_KEY", "socket", [AF_KEY, 3, 2], errno.EAFNOSUPPORT),  # EPERM
    ("socket AF_BLUETOOTH", "socket", [AF_BLUETOOTH, 1, 0], errno.EAFNOSUPPORT),  # a socket, where built
    ("socket AF_UNSPEC", "socket", [AF_UNSPEC, 1, 0], errno.EAFNOSUPPORT),
    ("socket AF_UNIX, upper half set", "socket", [HIGH_BITS | 1, 1, 0], errno.EAFNOSUPPORT),  # a socket
]
# What the filter lets through: (what, system call, arguments, errno expected, or None for success).
ALLOWED_CALLS = [
    ("socket AF_UNIX", "socket", [1, 1, 0], None),
    ("socket AF_INET", "socket", [2, 1, 0], None),
    ("socket AF_INET6", "socket", [10, 1, 0], None),
    ("socket AF_NETLINK", "socket", [16, 3, 0], None),
    ("ioctl TCGETS", "ioctl", [0, TCGETS, 0], errno.ENOTTY),
    ("personality PER_LINUX", "personality", [0], None),
    ("getpid", "getpid", [], None),
    ("ioctl FS_IOC_GETFLAGS", "ioctl", [-1, FS_IOC_GETFLAGS, 0], errno.EBADF),
]

_PROBE = """
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
seen = {}
for what, number, arguments in json.loads(sys.argv[1]):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in arguments))
    seen[what] = ctypes.get_errno() if result < 0 else None
print(json.dumps(seen))
"""


@functools.cache
def _libseccomp() -> ctypes.CDLL:
    library = ctypes.CDLL("libseccomp.so.2")
    library.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    return library


def number_of(name: str, architecture: int) -> int | None:
    """The number of system call ``name`` on ``architecture``, by libseccomp's tables; None if none."""
    number = int(_libseccomp().seccomp_syscall_resolve_name_arch(architecture, name.encode()))
    assert number != -1, f"libseccomp does not know {name}"
    return number if number >= 0 else None


@pytest.fixture(scope="module")
def refused() -> dict[str, int | None]:
    """Each call of DENIED_CALLS and ALLOWED_CALLS, made once from inside one sandbox: what it got."""
    assert NATIVE is not None, "the tests know x86-64 and aarch64"
    calls = [
        [what, number_of(name, NATIVE), arguments]
        for what, name, arguments, _ in DENIED_CALLS + ALLOWED_CALLS
        if number_of(name, NATIVE) is not None
    ]
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    try:
        with Sandbox(workspace.root, workspace.read_only) as sandbox:
            result = sh(sandbox, f"python3 -c {shlex.quote(_PROBE)} {shlex.quote(json.dumps(calls))}", timeout=60)
    finally:
        workspace.cleanup()
    assert result.exit_code == 0, result.stderr[-2000:]
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("what", "name", "arguments", "expected"), DENIED_CALLS, ids=[c[0] for c in DENIED_CALLS])
def test_each_denied_call_is_refused_inside_with_its_errno(refused, what, name, arguments, expected):
    if number_of(name, NATIVE) is None:
        pytest.skip(f"{name} does not exist on {platform.machine()}")
    assert refused[what] == expected, f"{what}: got {errno.errorcode.get(refused[what] or 0, refused[what])}"


@pytest.mark.parametrize(("what", "name", "arguments", "expected"), ALLOWED_CALLS, ids=[c[0] for c in ALLOWED_CALLS])
def test_what_the_filter_lets_through_still_works_inside(refused, what, name, arguments, expected):
    assert refused[what] == expected, what


def test_every_entry_of_the_table_is_tried_from_inside():
    tried = {name for _, name, _, _ in DENIED_CALLS}
    listed = {name for rule in DENIED for name in rule.names.split()}
    assert listed - tried == {"umount"}, "umount exists on no architecture the tests run on (umount2 does)"


# The other ABIs of a 64-bit x86 kernel: i386 calls through `int 0x80`, x32 calls (bit 30 set).
_I386_GETPID = """
import ctypes, mmap
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # mov eax, 20 (getpid on i386); int 0x80; ret
print("ran", ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))())
"""
_X32_GETPID = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("ran", libc.syscall(ctypes.c_long(0x40000000 | 39)), ctypes.get_errno())  # x32's getpid
"""


@pytest.mark.skipif(platform.machine() != "x86_64", reason="i386 and x32 are x86-64's other ABIs")
@pytest.mark.parametrize("script", [_I386_GETPID, _X32_GETPID], ids=["i386-int-0x80", "x32"])
def test_a_call_through_another_abi_kills_the_process(box, script):
    """The filter knows the native numbers only: the same call by another door would pass it."""
    _, sandbox = box
    result = sh(sandbox, f"python3 -c {shlex.quote(script)}; echo status $?")
    assert "ran" not in result.stdout and result.stdout.split()[-2:] == ["status", "159"], result  # 128 + SIGSYS


# Ordinary work still runs under the filter.
ORDINARY = {
    "unittest": "mkdir -p /tmp/p && cd /tmp/p && printf 'import unittest\\nclass T(unittest.TestCase):\\n"
    "    def test_it(self):\\n        self.assertTrue(True)\\n' > test_it.py && python3 -m unittest -q 2>&1 | tail -1",
    "threads": "python3 -c 'import threading; t = [threading.Thread(target=sum, args=([1],)) for _ in range(8)];"
    ' [x.start() for x in t]; [x.join() for x in t]; print("OK")\'',
    "processes": "python3 -c 'import multiprocessing as m, subprocess as s, os\n"
    'assert m.Pool(2).map(abs, [-1, -2]) == [1, 2]\nassert s.run(["true"]).returncode == 0\n'
    'assert os.waitpid(os.posix_spawn("/bin/true", ["true"], {}), 0)[1] == 0\nprint("OK")\'',
    "asyncio": 'python3 -c \'import asyncio\nasync def main():\n    p = await asyncio.create_subprocess_exec("true")\n'
    '    await p.wait()\nasyncio.run(main()); print("OK")\'',
    "git": "cd /tmp && git init -q g && cd g && echo x > f && git add f && git -c user.name=a -c user.email=a@b"
    " commit -qm m && git log --oneline | wc -l | sed 's/1/OK/'",
    "pip": "python3 -m pip --version >/dev/null && echo OK",
    "shell": "ls -la /proc/self/ | sort | uniq | head -3 >/dev/null; timeout 1 sleep 0.1; date >/dev/null; "
    "ps -e >/dev/null; find /work -name '*.py' | xargs grep -l def >/dev/null; tar cf /tmp/t.tar /work/shop && echo OK",
    "loopback": 'python3 -c \'import socket; s = socket.create_server(("127.0.0.1", 0)); c = socket.create_connection('
    's.getsockname()); a, _ = s.accept(); c.send(b"OK"); print(a.recv(2).decode())\'',
}


@pytest.mark.parametrize("command", ORDINARY.values(), ids=ORDINARY.keys())
def test_ordinary_commands_still_work_under_the_filter(box, command):
    _, sandbox = box
    result = sh(sandbox, command, timeout=60)
    assert (result.exit_code, result.stdout.split()[-1:]) == (0, ["OK"]), (result.stdout[-500:], result.stderr[-500:])


def test_the_filter_is_on_the_command_and_the_sandboxs_first_process(box):
    _, sandbox = box
    seen = sh(sandbox, "grep -h '^Seccomp:' /proc/1/status /proc/self/status /proc/$$/status").stdout
    assert seen.split() == ["Seccomp:", "2"] * 3  # 2: a filter


# The program itself, as bwrap is given it, run on the calls' data for each architecture.
def run_bpf(program: bytes, number: int, architecture: int, arguments: list[int]) -> int:
    """What a classic BPF seccomp program returns for one call (the kernel's struct seccomp_data,
    little-endian: nr, arch, instruction pointer, six arguments)."""
    words = [a & (2**64 - 1) for a in arguments] + [0] * (6 - len(arguments))
    data = struct.pack("<iIQ6Q", number, architecture, 0, *words)
    accumulator = index = 0
    scratch = [0] * 16
    code = [struct.unpack_from("<HBBI", program, at) for at in range(0, len(program), 8)]
    pc = 0
    while True:
        op, jump_true, jump_false, k = code[pc]
        pc += 1
        if op == 0x20:  # load a word of the data
            accumulator = struct.unpack_from("<I", data, k)[0]
        elif op == 0x00:  # load a constant
            accumulator = k
        elif op == 0x60:
            accumulator = scratch[k]
        elif op == 0x61:
            index = scratch[k]
        elif op == 0x02:
            scratch[k] = accumulator
        elif op == 0x03:
            scratch[k] = index
        elif op == 0x54:  # and
            accumulator &= k
        elif op == 0x05:  # jump
            pc += k
        elif op in (0x15, 0x25, 0x35, 0x45):  # jump if equal, greater, greater or equal, any bit set
            holds = {0x15: accumulator == k, 0x25: accumulator > k, 0x35: accumulator >= k, 0x45: accumulator & k}[op]
            pc += jump_true if holds else jump_false
        elif op == 0x06:  # return
            return k
        else:
            raise AssertionError(f"instruction {op:#x} is unknown to this interpreter")


ARCHITECTURES = {"x86_64": X86_64, "aarch64": AARCH64}
ERRNO, ALLOW, KILL_PROCESS = 0x00050000, 0x7FFF0000, 0x80000000


@pytest.mark.parametrize("architecture", ARCHITECTURES.values(), ids=ARCHITECTURES.keys())
def test_the_program_denies_each_call_on_each_architecture(architecture):
    program = filter_program() if architecture == NATIVE else build_filter(architecture)
    checked = 0
    for what, name, arguments, expected in DENIED_CALLS + ALLOWED_CALLS:
        number = number_of(name, architecture)
        if number is None:
            continue
        action = run_bpf(program, number, architecture, arguments)
        let_through = (what, name, arguments, expected) in ALLOWED_CALLS  # the kernel's own errno, if any
        assert action == (ALLOW if let_through else ERRNO | expected), what
        checked += 1
    assert checked >= len(DENIED_CALLS) + len(ALLOWED_CALLS) - 3  # at most uselib and modify_ldt missing
    for family in range(64):  # the families: the four allowed, every other refused
        action = run_bpf(program, number_of("socket", architecture) or -1, architecture, [family, 1, 0])
        assert action == (ALLOW if family in ALLOWED_FAMILIES else ERRNO | errno.EAFNOSUPPORT), family


@pytest.mark.parametrize("architecture", ARCHITECTURES.values(), ids=ARCHITECTURES.keys())
def test_the_program_kills_a_call_of_another_abi(architecture):
    program = filter_program() if architecture == NATIVE else build_filter(architecture)
    getpid = number_of("getpid", architecture) or -1
    assert run_bpf(program, getpid, architecture, []) == ALLOW
    assert run_bpf(program, 20, I386, []) == KILL_PROCESS
    other = AARCH64 if architecture == X86_64 else X86_64
    assert run_bpf(program, getpid, other, []) == KILL_PROCESS
    if architecture == X86_64:  # x32: x86-64's own architecture number, the call's with bit 30 set
        assert run_bpf(program, 0x40000000 | getpid, X86_64, []) == KILL_PROCESS
