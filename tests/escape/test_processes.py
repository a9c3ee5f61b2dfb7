"""Attacks on time, processes and what a command can reach: the host's processes, the network, the
host side's own descriptors, its timeout, and how it is told what to run.

Every command gets a sandbox of its own (new namespaces, /proc, /tmp, /dev/shm), started on its
path and ended with it: no process of a command outlives its call, its timeout, or the process
that started it."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reactlab import BashTool, Sandbox, SandboxResult, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path

from ..conftest import needs_sandbox, sh
from .conftest import children, processes_running, wait_until

pytestmark = needs_sandbox


def _end(command_line: str) -> None:
    """Kill what a failing attempt left running (only processes with this exact command line)."""
    for pid in processes_running(command_line):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _in_thread(sandbox: Sandbox, command: str, timeout: float, results: list[SandboxResult]) -> threading.Thread:
    worker = threading.Thread(target=lambda: results.append(sandbox.run(command, timeout)), daemon=True)
    worker.start()
    return worker


# The network: gone, but for a loopback of the sandbox's own.
@pytest.fixture
def loopback_server():
    hits: list[bytes] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            hits.append(connection.recv(100))
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], hits
    stop.set()
    thread.join()
    server.close()


def test_no_host_server_dns_route_or_abstract_socket_is_reachable(box, loopback_server):
    _, sandbox = box
    port, hits = loopback_server
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0reactlab-host-socket")
    abstract.listen()
    try:
        for command in [
            f"curl -s -m 3 http://127.0.0.1:{port}/",
            f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\"",
            f"exec 3<>/dev/tcp/127.0.0.1/{port}",
            "getent hosts pypi.org",
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0reactlab-host-socket')\"",
        ]:
            assert sh(sandbox, command).exit_code != 0, command
        interfaces = sh(sandbox, "tail -n +3 /proc/net/dev | cut -d: -f1; echo ---; tail -n +2 /proc/net/route")
        names, routes = interfaces.stdout.split("---")
        assert names.split() == ["lo"] and routes.strip() == ""  # no route to any outside address
    finally:
        abstract.close()
    time.sleep(0.3)
    assert hits == []


# The host's processes, and other sandboxes.
def test_host_processes_cannot_be_signalled_or_listed(box):
    _, sandbox = box
    victim = subprocess.Popen(["sleep", "60"])
    try:
        sh(sandbox, f"kill -9 {victim.pid}; kill -9 -1; true")
        assert victim.poll() is None
        listing = sh(sandbox, "ls /proc | grep -E '^[0-9]+$' | sort -n")
        assert all(int(pid) < 20 for pid in listing.stdout.split())
    finally:
        victim.kill()
        victim.wait()


@pytest.mark.parametrize(
    "attack",
    [
        "kill -9 -1; kill -STOP -1",
        "for n in $(seq 2 6000); do kill -0 $n 2>/dev/null && echo $n; done"
        " | grep -vxF -f <(ls /proc | grep -x '[0-9]*')",
        "python3 -c 'import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        'mine = {int(n) for n in os.listdir("/proc") if n.isdigit()}\n'
        "print([p for p in range(1, 6000) if p not in mine and libc.ptrace(16, p, 0, 0) == 0])'",
        # Every descriptor of every process: only /dev/null, the command's own two output pipes, ls's
        # own /proc folder and the init's eventfd (listed while ls runs alone).
        "ls -l /proc/[0-9]*/fd/ > /tmp/fds 2>/dev/null; out=$(readlink /proc/$$/fd/1); err=$(readlink /proc/$$/fd/2); "
        'awk -v out=$out -v err=$err \'/ -> / { t = $NF; if (t != "/dev/null" && t != out && t != err '
        '&& t !~ /^[/]proc[/]/ && t != "anon_inode:[eventfd]") print }\' /tmp/fds',
    ],
    ids=["kill-all", "pid-scan", "ptrace-scan", "descriptors"],
)
def test_a_command_reaches_no_other_sandbox_nor_the_host_side_and_the_next_runs_what_it_is_sent(box, attack):
    _, sandbox = box
    other = Workspace(shop_path(), SHOP_READ_ONLY)
    neighbour = Sandbox(other.root, other.read_only)
    results: list[SandboxResult] = []
    worker = _in_thread(neighbour, "sleep 3; echo neighbour", 20, results)  # another run's command, meanwhile
    try:
        time.sleep(0.3)
        assert sh(sandbox, attack).stdout.strip() in ("", "[]")
        for number in range(2):
            seen = sh(sandbox, f"echo only {number}; ls /proc/self/fd; ps -e -o comm= > /tmp/seen; sort -u /tmp/seen")
            assert seen.stdout.split() == ["only", str(number), "0", "1", "2", "3", "bash", "bwrap", "ps"]
        worker.join(20)
        assert results[0].stdout == "neighbour\n", "the other run's command was not disturbed"
    finally:
        worker.join(20)
        neighbour.close()
        other.cleanup()


_INSIDE_ATTACKS = [
    "readlink /proc/$$/fd/1 /proc/$$/fd/2 /proc/1/fd/* 2>/dev/null | grep -v -e '^pipe:' -e '^/dev/null$' "
    "-e '^anon_inode:\\[eventfd\\]$'; true",
    "for n in 3 4 5 6 7 8 9; do for p in self 1; do printf '{\"exit-code\": 0}\\n' 2>/dev/null "
    "> /proc/$p/fd/$n && echo forged $p $n; done; done; true",
    "find / -xdev \\( -name '*.status' -o -name 'reactlab-*-*-*' \\) 2>/dev/null; ls -A /dev/shm; ls -A /tmp",
    # the output pipe opened again by its magic link: for reading steals nothing from the next command
    "exec 9</proc/self/fd/1; (sleep 5 <&9 &) ; exec 8</proc/self/fd/2; (sleep 5 <&8 &)",
]


@pytest.mark.parametrize("attack", _INSIDE_ATTACKS, ids=["list", "forge-status", "find", "keep-pipe"])
def test_a_command_cannot_reach_or_forge_what_bwrap_reports_to_the_host(box, attack):
    """bwrap tells the host how the command ended on a pipe of its own, and waits on another before
    it starts the command: neither is open in the sandbox, nor reachable by name."""
    _, sandbox = box
    seen = sh(sandbox, attack)
    assert seen.stdout == "" and not seen.setup_failed
    for number in range(3):
        result = sh(sandbox, f"echo own {number}; exit {number + 3}", timeout=10)
        assert (result.stdout, result.exit_code, result.setup_failed) == (f"own {number}\n", number + 3, False)


def test_a_command_holds_no_descriptor_of_the_host_side_and_a_nul_is_refused(box):
    _, sandbox = box
    with pytest.raises(ValueError, match="NUL"):
        sandbox.run("echo a\x00rm -rf shop", timeout=5)
    assert sh(sandbox, "ls /proc/self/fd").stdout.split() == ["0", "1", "2", "3"]  # 3: ls's own
    long = sh(sandbox, "ls /proc/self/fd # " + "x" * 140_000)  # told through a file, closed before it runs
    assert long.stdout.split() == ["0", "1", "2", "3"]


def test_each_command_gets_a_fresh_sandbox(box):
    _, sandbox = box
    first = sh(sandbox, "echo left > /tmp/note; echo left > /dev/shm/note; sleep 654321 & echo $$")
    assert first.exit_code == 0
    second = sh(sandbox, "ls /tmp /dev/shm; ps -e -o comm= | sort | tr '\\n' ' '; echo; echo $$")
    assert "note" not in second.stdout, "/tmp and /dev/shm are new for every command"
    assert "sleep" not in second.stdout, "no process of the first command is left"
    assert second.stdout.split()[-1] == first.stdout.split()[-1], "a new PID namespace: the same pid again"


def test_nothing_runs_before_a_command_and_nothing_after_it(shop):
    before = children()
    sandbox = Sandbox(shop.root, shop.read_only)
    try:
        assert children() == before, "making a Sandbox starts no process"
        for command in ("true", "sleep 300 & disown; setsid sleep 301 & echo started"):
            sh(sandbox, command)
            assert children() == before, f"a process of {command!r} outlived it"
    finally:
        sandbox.close()


# Timeouts: a command ends at its timeout, whatever it does, and leaves nothing behind.
def _host_processes(marker: str) -> str:
    return subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout


def test_the_timeout_kills_a_command_that_ignores_sigterm(box):
    _, sandbox = box
    started = time.monotonic()
    result = sandbox.run("trap '' TERM; sleep 987654", timeout=1)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - started < 3
    assert _host_processes("987654") == ""


def test_background_jobs_do_not_survive_the_call(box):
    _, sandbox = box
    result = sh(sandbox, "sleep 876541 & nohup sleep 876542 >/dev/null 2>&1 & setsid sleep 876543 & disown; echo back")
    assert result.stdout == "back\n" and result.duration < 5
    time.sleep(0.2)
    assert _host_processes("87654[123]") == ""


@pytest.mark.parametrize(
    "command",
    [
        "sleep 47001",  # holds stdout
        "exec >&- 2>&-; sleep 47002",  # closes its output: the timeout must hold without it
        "exec >/dev/null 2>&1 </dev/null; trap '' TERM HUP; sleep 47003",
        "setsid sleep 47004 >/dev/null 2>&1 & exec >&- 2>&-; sleep 47005",
    ],
    ids=["holds-output", "closes-output", "ignores-signals", "setsid-child"],
)
def test_a_command_times_out_and_leaves_nothing_whatever_it_does_with_its_output(box, command):
    _, sandbox = box
    sleeps = [f"sleep {word}" for word in command.split() if word.startswith("470")]
    try:
        for _ in range(3):
            results: list[SandboxResult] = []
            started = time.monotonic()
            worker = _in_thread(sandbox, command, 1, results)
            worker.join(15)
            assert not worker.is_alive(), "run() did not return long after its timeout"
            assert time.monotonic() - started < 8
            assert results[0].timed_out and results[0].exit_code is None, results[0]
            assert all(processes_running(s) == [] for s in sleeps), "the command outlived run()"
    finally:
        for line in sleeps:
            _end(line)


@pytest.mark.parametrize(("first", "step"), [(0.0005, 0.0001), (0.001, 0.00025)], ids=["sub-ms", "around-a-start"])
def test_timeouts_shorter_than_bwraps_start_end_at_once(shop, first, step):
    """Killed while bwrap still builds the sandbox (its first process not yet tied to bwrap), or
    just after: nothing runs on unsupervised, and run() does not wait for what would."""
    sandbox = Sandbox(shop.root, shop.read_only)
    results: list[SandboxResult] = []
    try:
        for number in range(60):
            timeout = first + (number % 24) * step
            command = f"sleep 3; echo late > late-{number}"  # a command that lived on would hold run() 3 s
            started = time.monotonic()
            worker = _in_thread(sandbox, command, timeout, results)
            worker.join(5)
            assert not worker.is_alive(), "run() waits on a command that outlived its kill"
            assert time.monotonic() - started < 2.5, "run() waited on a command that outlived its kill"
        assert all(result.timed_out or result.setup_failed for result in results), results
        time.sleep(3.5)
        assert list(shop.root.glob("late-*")) == [], "a command killed at its timeout ran on"
    finally:
        sandbox.close()


def test_every_command_reports_its_own_exit_code(box):
    _, sandbox = box
    seen = [sh(sandbox, f"echo ran {number}; exit {number}") for number in range(12)]
    assert [(r.exit_code, r.setup_failed, r.stdout) for r in seen] == [
        (number, False, f"ran {number}\n") for number in range(12)
    ]


def test_a_bwrap_killed_by_someone_else_ends_its_command_and_run_returns(box):
    _, sandbox = box
    results: list[SandboxResult] = []
    worker = _in_thread(sandbox, "sleep 4242.5; echo survived > survived.txt", 20, results)
    try:
        assert wait_until(lambda: processes_running("sleep 4242.5"), 10)
        bwraps = [pid for pid in children() if Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap"]
        assert bwraps
        for pid in bwraps:
            os.kill(pid, signal.SIGKILL)
        worker.join(10)
        assert not worker.is_alive() and results and results[0].exit_code != 0
        assert wait_until(lambda: not processes_running("sleep 4242.5"), 5), "the command outlived its bwrap"
    finally:
        worker.join(10)
    assert sh(sandbox, "echo next").stdout == "next\n"


def test_a_command_dies_with_the_process_that_started_it(tmp_path):
    """A notebook kernel killed, a crash: nothing would enforce the command's timeout any more."""
    marker = f"sleep 4244.{os.getpid()}"
    script = (
        "from reactlab import Sandbox, Workspace\nfrom reactlab.samples import SHOP_READ_ONLY, shop_path\n"
        "w = Workspace(shop_path(), SHOP_READ_ONLY)\nprint(w.folder, flush=True)\n"
        "s = Sandbox(w.root, w.read_only)\nprint(s._held.snapshot, flush=True)\n"
        f"s.run({marker!r}, 600)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    left = [Path(child.stdout.readline().strip()), Path(child.stdout.readline().strip())]
    try:
        assert wait_until(lambda: processes_running(marker), 20), "the sandboxed sleep never started"
        assert all(path.exists() for path in left)
        child.kill()
        child.wait()
        assert wait_until(lambda: not processes_running(marker), 1.5), "the command outlived its caller"
        # What it had no time to remove (its copy, its snapshot) goes with the next Workspace and
        # Sandbox: these, or ones a test in another worker makes first (they sweep alike).
        with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
            Sandbox(workspace.root, workspace.read_only).close()
        assert [path for path in left if path.exists()] == []
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
        for pid in processes_running(marker):
            os.kill(pid, 9)


# Output: read as it comes, bounded, and never a way to hold the run past its timeout.
_STEAL = """
import array, fcntl, os, random, sys, termios, time
steal, other = int(sys.argv[1]), 3 - int(sys.argv[1])
for _ in range(2):
    if os.fork() == 0:
        os.close(1); os.close(2)
        while True:
            pass
mine = os.open(f"/proc/self/fd/{steal}", os.O_RDONLY | os.O_NONBLOCK)
theirs = os.open(f"/proc/self/fd/{other}", os.O_RDONLY | os.O_NONBLOCK)
def pending(fd):
    n = array.array("i", [0]); fcntl.ioctl(fd, termios.FIONREAD, n); return n[0]
while True:
    os.write(other, b"-"); os.write(steal, b"+")
    until = time.perf_counter() + random.random() * 1e-4
    while time.perf_counter() < until:
        pass
    try:
        os.read(mine, 1)
    except BlockingIOError:
        continue
    os.write(other, b"?")
    time.sleep(0.01)
    if pending(theirs):
        time.sleep(10**6)
    try:
        os.read(theirs, 100)
    except BlockingIOError:
        pass
"""
# Both pipes at their largest (1 MiB), in packet mode, written without pause: poll always finds some.
_FLOOD = """
import fcntl, os
for out in (1, 2):
    fcntl.fcntl(out, 1031, 1 << 20)  # F_SETPIPE_SZ
    fcntl.fcntl(out, fcntl.F_SETFL, fcntl.fcntl(out, fcntl.F_GETFL) | os.O_DIRECT | os.O_NONBLOCK)
while True:
    for out in (1, 2):
        try:
            os.write(out, b"x")
        except BlockingIOError:
            pass
"""
_OUTLIVERS = {
    "steal-stderr": f"python3 -c '{_STEAL}' 2",
    "steal-stdout": f"python3 -c '{_STEAL}' 1",
    "packet-flood": f"python3 -c '{_FLOOD}'",
}


@pytest.mark.parametrize("attack", _OUTLIVERS.values(), ids=_OUTLIVERS.keys())
@pytest.mark.parametrize("told", ["in-argv", "through-a-file"])
def test_a_command_cannot_outlive_its_timeout_through_its_own_output_pipes(shop, attack, told):
    timeout = 4
    command = attack if told == "in-argv" else f"{attack} # {'x' * 140_000}"
    sandbox = Sandbox(shop.root, shop.read_only)
    results: list[SandboxResult] = []
    started = time.monotonic()
    worker = _in_thread(sandbox, command, timeout, results)
    try:
        worker.join(timeout + 10)
        assert not worker.is_alive(), f"the run went on {timeout + 10} s after a {timeout} s timeout"
        (result,) = results
        if "steal" in attack and "Permission denied: '/proc/self/fd/" in result.stderr:
            # As root the output pipes are root's: the sandbox uid cannot open them again at all.
            assert os.geteuid() == 0 and result.exit_code == 1
        else:
            assert result.timed_out and result.exit_code is None, result.stderr[-300:]
        assert time.monotonic() - started < timeout + 3
        for number in range(2):  # and the next commands run as usual
            after = sandbox.run(f"echo after {number}", 20)
            assert (after.stdout, after.exit_code, after.timed_out) == (f"after {number}\n", 0, False)
    finally:
        sandbox.close()  # ends a run still stuck (the test has failed by then)
        worker.join(30)


# How the command is told: byte for byte, and run as `bash -c` runs it.
_NOT_TEXT = ["echo \ud800", "echo ok \udcff", "\udfff", "printf '%s' 'a\ud83d' # half an emoji"]


def test_a_command_that_is_not_unicode_text_is_refused_before_any_process_starts(shop):
    with Sandbox(shop.root, shop.read_only) as sandbox:
        assert sandbox.run("echo first", 20).stdout == "first\n"
        before = children()
        for command in _NOT_TEXT:
            with pytest.raises(ValueError, match="not Unicode text"):
                sandbox.run(command, 20)
            assert children() == before
        assert sandbox.run("echo after", 20).stdout == "after\n"


_LONG = ": " + "y" * 1_100_000 + "\necho ${#BASH_EXECUTION_STRING}"
_TEXTS = {
    "control-bytes": ("printf '%s' '\x01\x7f\x01\x1b\x02' | od -An -tx1", " 01 7f 01 1b 02\n"),
    "carriage-return": ("echo a\rb | od -An -c; x=$'\\x01'; echo ${#x}", "   a  \\r   b  \\n\n1\n"),
    "over-64-KiB": ("echo " + "x" * 70_000 + " | wc -c", "70001\n"),
    "over-1-MiB": (_LONG, f"{len(_LONG)}\n"),
    "over-128-KiB-with-control-bytes": (
        "printf '%s' '\x01\x7f\x1b' | od -An -tx1 # " + "z" * 140_000,
        " 01 7f 1b\n",
    ),
}


@pytest.mark.parametrize("name", _TEXTS)
def test_a_command_reaches_bash_whole_whatever_its_length_or_bytes(box, name):
    """One argument holds at most 128 KiB: a longer command is told through a file (see
    command_line.fits_in_argv), byte for byte too."""
    _, sandbox = box
    command, expected = _TEXTS[name]
    result = sandbox.run(command, 30)
    assert (result.stdout, result.stderr, result.exit_code) == (expected, "", 0), name


# Text that could bend the line it lands in (a leading dash, a trailing backslash or comment, a
# heredoc, a syntax error), or that looks for what the host side left (variables, descriptors,
# line numbers), must run as under `bash -c -- COMMAND`. Only BASH_EXECUTION_STRING holds the
# limits set in front of the command (see command_line.py).
_EDGES = [
    "--help",
    "-x",
    "-- echo hi",
    "echo a \\",
    "echo a # comment \\",
    "cat <<EOF\nbody $((6 * 7))\nEOF",
    "echo before; )",
    "echo before\nfi",
    "if true; then",
    "exit 7",
    "ulimit -f -v; ulimit -Hf",
    "ls /proc/$$/fd; echo $0 $#",
    'echo "${command-unset}" "$-"',
    "declare -p command c 2>&1; set | grep -c '^BASH_EXECUTION_STRING='",
    "echo $LINENO\necho $LINENO; f() { echo $FUNCNAME $LINENO; }; f",
    "return 3; echo after",
    "set -u; echo $nope; echo after",
    "alias x=echo\nx aliased",
    "trap 'echo trapped' EXIT; exit 3",
    "exec 1>&-; echo gone",
]


@pytest.mark.parametrize("command", _EDGES)
def test_a_command_runs_as_under_bash_c(box, command):
    _, sandbox = box
    ours = sh(sandbox, command, timeout=10)
    bash_c = sh(sandbox, f"exec /bin/bash -c -- {shlex.quote(command)}", timeout=10)
    assert ours.exit_code is not None and not ours.setup_failed
    assert (ours.exit_code, ours.stdout, ours.stderr) == (bash_c.exit_code, bash_c.stdout, bash_c.stderr), command


def test_a_command_printing_bwrap_is_not_a_setup_failure_but_a_real_one_is(box):
    workspace, sandbox = box
    spoof = sh(sandbox, 'echo "bwrap: Can\'t find source path /x: No such file" >&2; exit 1')
    assert spoof.exit_code == 1 and not spoof.setup_failed
    result = BashTool(workspace, sandbox=sandbox).run("echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1")
    assert result["ok"] is True and "error" not in result
    real = Sandbox(workspace.root, ["tests"])
    (real.snapshot / "tests").chmod(0o700)
    for path in (real.snapshot / "tests").iterdir():
        path.unlink()
    real.snapshot.chmod(0o700)
    (real.snapshot / "tests").rmdir()  # the source of a bind is gone: bwrap itself fails
    broken = real.run("echo never", timeout=10)
    assert broken.setup_failed and broken.stdout == ""
    real.close()


# The host side's own standard streams closed: os.pipe() then hands out 0, 1 and 2.
_CLOSED_STDIO = """
import json, os, sys, threading, time
from reactlab import Sandbox, Workspace
from reactlab.samples import SHOP_READ_ONLY, shop_path
workspace = Workspace(shop_path(), SHOP_READ_ONLY)
sandbox = Sandbox(workspace.root, workspace.read_only)
for fd in {closed}:
    os.close(fd)
seen = {{}}
try:
    result = sandbox.run({command}, 10)
    seen["result"] = [result.exit_code, result.stdout[-200:], result.setup_failed, result.timed_out]
    worker = threading.Thread(target=sandbox.run, args=("sleep 4713.5", 10))
    worker.start()
    time.sleep(1)
    for entry in os.listdir("/proc"):
        try:
            if open(f"/proc/{{entry}}/cmdline", "rb").read() == b"sleep\\x004713.5\\x00":
                seen["cgroup"] = open(f"/proc/{{entry}}/cgroup").read()
                os.kill(int(entry), 9)
        except OSError:
            pass
    worker.join()
    seen["run_cgroups"] = [str(path.relative_to("/sys/fs/cgroup")) for path in sandbox._held.cgroups.paths or []]
finally:
    sandbox.close()
    workspace.cleanup()
    with open(sys.argv[1], "w") as out:
        json.dump(seen, out)
"""


@pytest.mark.parametrize(
    ("closed", "command"),
    [
        ((0, 1, 2), "'echo ran'"),
        ((0, 1), "'echo ran'"),
        ((0, 1, 2), "'echo ran # ' + 'y' * 140_000"),  # told through a file, which may be given 0 too
    ],
    ids=["all-three", "stdin-and-stdout", "long-command"],
)
def test_a_host_with_its_standard_streams_closed_still_blocks_the_command_until_it_is_in_the_cgroups(
    tmp_path, closed, command
):
    """A daemon or a service may run reactlab with stdin, stdout and stderr closed; bwrap's status
    and block pipes (and the file holding a long command) were then given those numbers, which bwrap
    gets as its standard streams: the command started without waiting to be moved into the run's
    cgroups, and bwrap's status (host pids, namespace ids) was the command's output."""
    report, script = tmp_path / "seen.json", tmp_path / "closed_stdio.py"
    script.write_text(_CLOSED_STDIO.format(closed=closed, command=command))
    subprocess.run(
        [sys.executable, str(script), str(report)],
        timeout=60,
        check=False,
    )
    seen = json.loads(report.read_text())
    assert seen["result"] == [0, "ran\n", False, False], seen
    for path in seen["run_cgroups"]:  # where the machine gives cgroups: the command is born in them
        controller, _, below = path.partition("/")
        assert f":{controller}:/{below}\n" in seen["cgroup"], seen
