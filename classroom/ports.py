"""No other user of the machine can take over a port of the class, at any moment.

1. The public port and the hub's and the proxy's own ports are below
   net.ipv4.ip_unprivileged_port_start (1024 unless someone lowered it): only root may bind them, on
   any address, IPv4 or IPv6, so no student can be there first while the proxy or the hub restarts
   and receive classmates' passwords (the public port, the hub's) or tokens (the hub's, the proxy's).
   `python ports.py CLASS_DIR` refuses a class whose ports any user may bind: class-server runs it
   before install, start and each start of the proxy, and systemd before each start of a unit.
2. Each student's server listens on a port above 1024, chosen at random when it starts. The hub
   accepts it only if the socket listening on its address and port (/proc/net/tcp) is the
   student's, and then keeps a duplicate of that socket (pidfd_getfd) until the server is stopped:
   the port stays the student's even if their server dies, so no one else can bind it while the
   proxy still sends the student's browser there.
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import sys
from pathlib import Path

FIRST_UNPRIVILEGED = Path("/proc/sys/net/ipv4/ip_unprivileged_port_start")  # for IPv6 too
PORTS = {"port": "CLASS_PORT", "hub_port": "CLASS_HUB_PORT", "proxy_api_port": "CLASS_PROXY_API_PORT"}
LISTEN = "0A"  # a socket's state in /proc/net/tcp
SYS_PIDFD_GETFD = 438  # one number on every architecture Debian supports (a system call added in Linux 5.6)
LIBC = ctypes.CDLL(None, use_errno=True)


def ports_any_user_may_bind(settings: dict[str, int | str]) -> list[str]:
    """The class's ports that a user other than root may bind: none, or the reason to refuse."""
    first = int(FIRST_UNPRIVILEGED.read_text())
    return [f"{variable}={settings[name]}" for name, variable in PORTS.items() if int(settings[name]) >= first]


def listeners(ip: str, port: int) -> list[tuple[int, int]]:
    """(owner's uid, inode) of each socket listening on exactly ip:port (IPv4). While one listens
    there, the kernel lets no socket of another user listen where connections to ip:port would
    reach it (0.0.0.0, a dual-stack ::), so the owner of this one is who answers there."""
    address = f"{int.from_bytes(socket.inet_aton(ip), sys.byteorder):08X}:{port:04X}"  # as the kernel prints it
    found = []
    with open("/proc/net/tcp") as table:
        next(table)  # the header
        for line in table:
            fields = line.split()
            if fields[1] == address and fields[3] == LISTEN:
                found.append((int(fields[7]), int(fields[9])))
    return found


def duplicate(uid: int, inode: int) -> socket.socket:
    """A descriptor of our own for the socket `inode`, taken from a process of `uid` that holds it
    (pidfd_getfd: root may take one from any process). The socket then lives as long as either."""
    link = f"socket:[{inode}]"
    for process in Path("/proc").iterdir():
        try:
            if not process.name.isdigit() or process.stat().st_uid != uid:
                continue
            held = [int(fd.name) for fd in (process / "fd").iterdir() if os.readlink(fd) == link]
        except OSError:  # it ended meanwhile
            continue
        for fd in held:
            pidfd = os.pidfd_open(int(process.name))
            try:
                taken = LIBC.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
            finally:
                os.close(pidfd)
            if taken >= 0:
                return socket.socket(fileno=taken)
            raise OSError(ctypes.get_errno(), f"pidfd_getfd: {os.strerror(ctypes.get_errno())}")
    raise OSError(f"no process of uid {uid} holds {link}")


def main(folder: str) -> int:
    settings = json.loads(Path(folder, "class.json").read_text(encoding="utf-8"))
    others = ports_any_user_may_bind(settings)
    if not others:
        return 0
    first = FIRST_UNPRIVILEGED.read_text().strip()
    print(
        f"class-server: any user of this machine may bind {', '.join(others)}: ports from "
        f"net.ipv4.ip_unprivileged_port_start ({first}) up are not root's alone. A student with a terminal could "
        "bind one while the proxy or the hub restarts and receive classmates' passwords or the class's tokens. "
        "Choose ports below it (the defaults: CLASS_PORT=80 CLASS_HUB_PORT=81 CLASS_PROXY_API_PORT=82 "
        "classroom/class-server install), or set it back: sysctl net.ipv4.ip_unprivileged_port_start=1024",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
