"""Round seven of the escape suite: a command's stdout and stderr are read by the thread that runs
it, with poll (commit e4b7e16), and its timeout is enforced only once that reading stops. A command
can open its own output pipes for reading (through /proc/self/fd) and take back what it wrote, or
keep them full: neither may keep the run going past its timeout. Against real bwrap."""

from __future__ import annotations

import threading
import time

import pytest

from reactlab.sandbox import Sandbox, SandboxResult

from .conftest import needs_sandbox

pytestmark = needs_sandbox

# Takes back a byte it wrote to one stream between the host's poll (which saw it) and the host's
# read (which then waits for more), and tells from the other stream whether the host still reads;
# CPU hogs make the host's reader lose its CPU in that window. Once the host waits, it sleeps.
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
# Both pipes at their largest (1 MiB), in packet mode (one write per read, however large the
# read), written without pause: the host's poll always finds something to read.
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
@pytest.mark.parametrize("prepare_ahead", [True, False], ids=["built-ahead", "on-path"])
def test_a_command_cannot_outlive_its_timeout_through_its_own_output_pipes(shop, attack, prepare_ahead):
    timeout = 4
    sandbox = Sandbox(shop.root, shop.read_only, prepare_ahead=prepare_ahead)
    results: list[SandboxResult] = []
    worker = threading.Thread(target=lambda: results.append(sandbox.run(attack, timeout)), daemon=True)
    started = time.monotonic()
    try:
        worker.start()
        worker.join(timeout + 10)
        assert not worker.is_alive(), f"the run went on {timeout + 10} s after a {timeout} s timeout"
        (result,) = results
        assert result.timed_out and result.exit_code is None, result.stderr[-300:]
        assert time.monotonic() - started < timeout + 3
        for number in range(2):  # and the next commands run as usual
            after = sandbox.run(f"echo after {number}", 20)
            assert (after.stdout, after.exit_code, after.timed_out) == (f"after {number}\n", 0, False)
    finally:
        sandbox.close()  # ends a run still stuck (the test has failed by then)
        worker.join(30)


# Text that is not Unicode (a lone surrogate: JSON's "\ud800" decodes to one) cannot be sent to
# bash. It used to fail only when a sandbox had been taken for it, costing that sandbox and its
# launcher (killed as after an interruption) and telling the model of a codec, not of its command.
_NOT_TEXT = ["echo \ud800", "echo ok \udcff", "\udfff", "printf '%s' 'a\ud83d' # half an emoji"]


def test_a_command_that_is_not_unicode_text_is_refused_before_it_costs_a_sandbox(shop):
    with Sandbox(shop.root, shop.read_only) as sandbox:
        assert sandbox.run("echo first", 20).stdout == "first\n"
        for command in _NOT_TEXT:
            assert sandbox.wait_prepared()
            launchers = list(sandbox._resources.launchers)
            prepared = list(sandbox._resources.prepared)
            with pytest.raises(ValueError, match="not Unicode text"):
                sandbox.run(command, 20)
            assert sandbox._resources.launchers == launchers and sandbox._resources.prepared == prepared
        assert sandbox.run("echo after", 20).stdout == "after\n"


# Held: the command reaches the waiting bash through a pipe, byte for byte, whatever its length (bash
# -c could not take one over 128 KiB, one argument's limit) or its control bytes (bash keeps \x01
# and \x7f in variables as quoting marks of its own).
_LONG = ": " + "y" * 1_100_000 + "\necho ${#BASH_EXECUTION_STRING}"
_TEXTS = {
    "control-bytes": ("printf '%s' '\x01\x7f\x01\x1b\x02' | od -An -tx1", " 01 7f 01 1b 02\n"),
    "carriage-return": ("echo a\rb | od -An -c; x=$'\\x01'; echo ${#x}", "   a  \\r   b  \\n\n1\n"),
    "over-64-KiB": ("echo " + "x" * 70_000 + " | wc -c", "70001\n"),
    "over-1-MiB": (_LONG, f"{len(_LONG)}\n"),
}


@pytest.mark.parametrize("prepare_ahead", [True, False], ids=["built-ahead", "on-path"])
def test_a_command_reaches_bash_whole_whatever_its_length_or_bytes(shop, prepare_ahead):
    with Sandbox(shop.root, shop.read_only, prepare_ahead=prepare_ahead) as sandbox:
        sandbox.run("true", 20)
        for name, (command, expected) in _TEXTS.items():
            if prepare_ahead:
                assert sandbox.wait_prepared()
            result = sandbox.run(command, 30)
            assert (result.stdout, result.stderr, result.exit_code) == (expected, "", 0), name
