"""Attacks on the terminal the host reads, and on the host side through odd files: two classes that
held in the fourth hostile review (issue 35), tested here in their own right.

A command has no terminal: bwrap starts it in a session of its own (no controlling terminal, so no
/dev/tty), with /dev/null for stdin and pipes for its output, and the seccomp filter refuses the
ioctls that type into a terminal (TIOCSTI) or drive a console (TIOCLINUX) on any descriptor, even
one of a terminal the command made itself. Tried from a host whose own process does have a
terminal. FIFOs, sockets and names made of terminal controls left in the copy block no host-side
walk, check or listing, and every name is shown escaped."""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path

from reactlab import Cassette, Script, independent_test_run, unchanged_paths
from reactlab.replay.scripted import chat_completion
from reactlab.samples import SHOP_READ_ONLY, SHOP_TEST_COMMAND

from ..conftest import needs_sandbox, sh
from ..test_cli import controls

pytestmark = needs_sandbox

# Inside: every way to a terminal, each answered by its errno (None: it worked).
_ATTEMPTS = r"""
import errno, fcntl, json, os, termios
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
seen = {}
def attempt(what, action):
    try:
        action()
        seen[what] = None
    except OSError as error:
        seen[what] = errno.errorcode[error.errno]
def inject(fd, request):
    for character in b"echo INJECTED\n":
        fcntl.ioctl(fd, request, bytes([character]) if request == TIOCSTI else bytes([2]))
for name in ("/dev/tty", "/dev/console", "/dev/tty0", "/dev/tty1"):
    attempt("open " + name, lambda: os.close(os.open(name, os.O_RDWR | os.O_NOCTTY)))
for fd in (0, 1, 2):
    for request, called in ((TIOCSTI, "TIOCSTI"), (TIOCLINUX, "TIOCLINUX")):
        attempt(f"{called} on {fd}", lambda: inject(fd, request))
        def again():
            reopened = os.open(f"/proc/self/fd/{fd}", os.O_RDWR | os.O_NOCTTY)
            try:
                inject(reopened, request)
            finally:
                os.close(reopened)
        attempt(f"{called} on /proc/self/fd/{fd}", again)
        attempt(f"{called} on /proc/1/fd/{fd}", lambda: inject(os.open(f"/proc/1/fd/{fd}", os.O_RDONLY), request))
main, terminal = os.openpty()  # a terminal of its own: the ioctl is refused on it too
attempt("TIOCSTI on a terminal of its own", lambda: inject(terminal, TIOCSTI))
attempt("TIOCLINUX on a terminal of its own", lambda: inject(terminal, TIOCLINUX))
print(json.dumps(seen))
"""
# On the host: a process whose controlling terminal is a real one, running the attempts in a sandbox.
_HOST = """
import fcntl, json, sys, termios, array
from reactlab import Sandbox, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
workspace = Workspace(shop_path(), SHOP_READ_ONLY)
try:
    with Sandbox(workspace.root, workspace.read_only) as sandbox:
        result = sandbox.run(sys.argv[2], 60)
    waiting = array.array("i", [0])
    fcntl.ioctl(0, termios.FIONREAD, waiting)  # what was typed into this terminal meanwhile
    with open(sys.argv[1], "w") as out:
        json.dump({"exit": result.exit_code, "stdout": result.stdout, "stderr": result.stderr,
                   "typed": waiting[0], "tty": sys.stdin.isatty()}, out)
finally:
    workspace.cleanup()
"""


def test_no_command_reaches_the_terminal_of_the_host(tmp_path):
    report = tmp_path / "report.json"
    attempts = f"python3 -c {shlex.quote(_ATTEMPTS)}"
    pid, main = pty.fork()
    if pid == 0:  # the host side, in a session whose terminal is the pty
        os.execv(sys.executable, [sys.executable, "-c", _HOST, str(report), attempts])
    shown = b""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if select.select([main], [], [], 1)[0]:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # EIO: the host side has ended
                    break
                if not chunk:
                    break
                shown += chunk
    finally:
        os.close(main)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, shown[-2000:]
    seen = json.loads(report.read_text())
    assert seen["tty"] and seen["typed"] == 0 and b"INJECTED" not in shown, (seen, shown[-500:])
    assert seen["exit"] == 0, seen["stderr"][-1000:]
    refused = json.loads(seen["stdout"])
    assert refused["open /dev/tty"] == "ENXIO", refused  # no controlling terminal: a session of its own
    assert {refused[f"open /dev/{name}"] for name in ("console", "tty0", "tty1")} == {"ENOENT"}, refused
    ioctls = {what: error for what, error in refused.items() if what.startswith(("TIOCSTI", "TIOCLINUX"))}
    assert len(ioctls) == 20 and set(ioctls.values()) == {"EPERM"}, ioctls  # the filter, on every descriptor


# Odd files left in the copy: nothing on the host opens, waits on, or prints them raw.
ODD_FILES = (
    "mkfifo pipe \"$(printf 'fifo\\033[2J\\a')\" && mkdir \"$(printf 'dir\\033]0;owned\\a')\" && "
    "mkfifo \"$(printf 'dir\\033]0;owned\\a')/inner\" && "
    'python3 -c \'import socket\nfor name in ("sock", "sock\\r\\x1b[1A", "dir\\x1b]0;owned\\x07/s"):\n'
    "    socket.socket(socket.AF_UNIX).bind(name)'"
)


def _within(seconds: float, call, *args):
    """``call(*args)`` in a thread: fails the test if it has not returned within ``seconds``."""
    import threading

    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(call(*args)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{call.__name__} blocked on what the command left"
    return outcome[0]


def test_fifos_sockets_and_control_names_in_the_copy_block_no_host_side_walk(box):
    workspace, sandbox = box
    made = sh(sandbox, ODD_FILES + " && ls -b | sort")
    assert made.exit_code == 0, made.stderr
    assert "sock" in made.stdout and "pipe" in made.stdout
    assert sh(sandbox, "echo next").stdout == "next\n"  # the walk after each command went through them
    check = _within(120, independent_test_run, workspace, SHOP_TEST_COMMAND)
    assert check.exit_code == 1 and "FAILED (failures=1)" in check.stderr, check.stderr[-500:]
    lines = str(check.manifest).splitlines()
    assert len(lines) == 7 and all(line.isprintable() for line in lines), lines
    assert "+ 'fifo\\x1b[2J\\x07'" in lines and "+ 'sock\\r\\x1b[1A'" in lines, lines
    assert _within(60, unchanged_paths, workspace, list(SHOP_READ_ONLY)) == dict.fromkeys(SHOP_READ_ONLY, True)


def test_the_clis_list_of_changes_shows_odd_files_escaped_and_its_diff_ends(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    (project / "data.txt").write_text("data\n")
    script = Script().tool_call("bash", command=ODD_FILES + " && rm notes.txt && mkfifo notes.txt")
    interactions = [
        {"response": chat_completion(message, reason, {"model": "scripted"}, None, f"scripted-{number}")}
        for number, (message, reason) in enumerate(script.final_answer("done").answers, 1)
    ]
    cassette = Cassette(interactions, "scripted", "leaves odd files").save(tmp_path / "odd.json")
    argv = ["run", "--project", str(project), "--task", "t", "--cassette", str(cassette)]
    done = subprocess.run([sys.executable, "-m", "reactlab", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1000:]
    out = done.stdout
    copy = Path(out.split("working copy kept: ")[1].split("\n")[0])
    try:
        assert controls(out) == [], [c for c in controls(out)]
        assert "  ~ notes.txt\n" in out and "  + 'fifo\\x1b[2J\\x07'\n" in out, out
        (suggested,) = [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("  see the changes:")]
        shown = subprocess.run(suggested, shell=True, capture_output=True, timeout=60)  # a blocked diff fails here
        assert b"\x1b" not in shown.stdout + shown.stderr and b"notes.txt is a regular file while" in shown.stdout
    finally:
        subprocess.run(["rm", "-r", str(copy.parent)], check=True)
