"""Attacks on the kernel's keyrings: a key the caller keeps in its session keyring (an API key put
there by `keyctl padd user deepseek @s`, a pam_keyinit login, a systemd service, a container) is out
of every command's reach, whatever uid the command is on the host (possession ignores the uid), and
nothing a command plants there outlives it.

Two walls, each tested alone: the seccomp filter refuses keyctl, add_key and request_key; and each
command is started from a thread with a new, empty session keyring of its own
(reactlab/core/sandbox/command_thread.py), so even with those calls let through it holds none of the
caller's keyrings. The test's own thread joins a fresh session keyring first: the machine's real one
is never touched."""

from __future__ import annotations

import ctypes
import json
import shlex
import threading

import pytest

from reactlab import Sandbox
from reactlab.core.sandbox import seccomp
from reactlab.core.sandbox.seccomp import raw_syscall, syscall_number

from ..conftest import FAKE_KEY, needs_sandbox, sh

pytestmark = needs_sandbox

GET_KEYRING_ID, JOIN_SESSION_KEYRING, REVOKE, DESCRIBE, SEARCH, READ = 0, 1, 3, 6, 10, 11
THREAD, PROCESS, SESSION, USER, USER_SESSION = -1, -2, -3, -4, -5
NAME, PLANTED = b"reactlab-test-deepseek", b"reactlab-planted"

_PROBE = """
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
keyctl, add_key, serial = (int(a) for a in sys.argv[1:4])
def call(*args):
    ctypes.set_errno(0)
    result = libc.syscall(*(ctypes.c_long(a) if isinstance(a, int) else a for a in args))
    return result if result >= 0 else -ctypes.get_errno()
text = ctypes.create_string_buffer(4096)
seen = {
    "session": call(keyctl, 0, -3, 0),
    "search": call(keyctl, 10, -3, b"user", b"reactlab-test-deepseek", 0),
    "read": call(keyctl, 11, serial, text, 4096),
}
seen["text"] = text.value.decode(errors="replace")
seen["describe"] = call(keyctl, 6, serial, text, 4096)
seen["planted before"] = call(keyctl, 10, -3, b"user", b"reactlab-planted", 0)
seen["plant"] = [call(add_key, b"user", b"reactlab-planted", b"x", 1, ring) for ring in (-1, -2, -3, -4, -5)]
print(json.dumps(seen))
"""


def _keyctl(*arguments: object) -> int:
    return raw_syscall("keyctl", *arguments)


def _found(ring: int, name: bytes) -> bool:
    try:
        _keyctl(SEARCH, ring, b"user", name, 0)
    except OSError:
        return False
    return True


@pytest.fixture
def caller_key():
    """This thread joins a fresh session keyring and keeps a key in it: the caller's secret."""
    _keyctl(JOIN_SESSION_KEYRING, None)
    serial = raw_syscall("add_key", b"user", NAME, FAKE_KEY.encode(), len(FAKE_KEY), SESSION)
    yield serial
    _keyctl(REVOKE, serial)


def _probe(sandbox, serial: int) -> dict:
    numbers = f"{syscall_number('keyctl')} {syscall_number('add_key')} {serial}"
    result = sh(sandbox, f"cat /proc/keys; echo; python3 -c {shlex.quote(_PROBE)} {numbers}")
    assert result.exit_code == 0, result.stderr[-1000:]
    listed, probe = result.stdout.rsplit("\n", 2)[0], result.stdout.rsplit("\n", 2)[1]
    seen = json.loads(probe)
    seen["/proc/keys"] = listed
    return seen


def _assert_nothing_planted_reaches_the_caller(serial: int) -> None:
    for ring in (SESSION, USER, USER_SESSION):
        assert not _found(ring, PLANTED), f"a key planted inside is in the caller's keyring {ring}"
    text = ctypes.create_string_buffer(256)
    assert _keyctl(READ, serial, text, 256) == len(FAKE_KEY) and text.value == FAKE_KEY.encode()


def test_a_key_in_the_callers_session_keyring_is_out_of_reach(box, caller_key):
    _, sandbox = box
    seen = _probe(sandbox, caller_key)
    assert FAKE_KEY not in json.dumps(seen) and "reactlab-test" not in seen["/proc/keys"], seen
    assert seen["/proc/keys"].strip() == "", "the caller's keys are listed (their names, sizes, its host uid)"
    eperm = -1
    assert [seen["session"], seen["search"], seen["read"], seen["describe"]] == [eperm] * 4, seen
    assert seen["plant"] == [eperm] * 5 and seen["planted before"] == eperm, seen
    _assert_nothing_planted_reaches_the_caller(caller_key)


@pytest.fixture
def keyring_calls_let_through(monkeypatch):
    """The seccomp filter without its keyring entry: the second wall alone."""
    kept = [rule for rule in seccomp.DENIED if "keyctl" not in rule.names]
    assert len(kept) == len(seccomp.DENIED) - 1
    monkeypatch.setattr(seccomp, "DENIED", kept)
    seccomp.filter_program.cache_clear()
    yield
    monkeypatch.undo()
    seccomp.filter_program.cache_clear()


def test_each_command_has_an_empty_session_keyring_of_its_own(box, caller_key, keyring_calls_let_through):
    _, sandbox = box
    own = _keyctl(GET_KEYRING_ID, SESSION, 0)
    first = _probe(sandbox, caller_key)
    assert first["session"] > 0 and first["session"] != own, "the command holds the caller's session keyring"
    enokey, eacces = -126, -13
    assert first["search"] == enokey and first["read"] in (enokey, eacces), first  # the caller's key: not found
    assert FAKE_KEY not in json.dumps(first)  # (its name may be described to a command of the same uid)
    assert first["planted before"] == enokey and first["plant"][2] > 0, "a key can be planted in its own keyring"
    second = _probe(sandbox, caller_key)
    assert second["session"] not in (own, first["session"]) and second["search"] == enokey, second
    assert second["planted before"] == enokey, "the next command starts from an empty keyring"
    _assert_nothing_planted_reaches_the_caller(caller_key)


def test_a_burst_of_commands_waits_for_its_place_in_the_users_quota_of_keys(shop):
    """Each command's keyring counts against its user's quota of keys (200 for a user other than
    root) until the kernel frees it, a second or more after the command: commands a hundred a second
    used the quota up, and the next ones failed with SandboxUnavailable ("Disk quota exceeded")."""
    results: list[object] = []

    def burst() -> None:
        try:
            with Sandbox(shop.root, shop.read_only) as sandbox:
                results.append([sh(sandbox, "true").exit_code for _ in range(100)])
        except Exception as error:  # noqa: BLE001 (shown by the assertion below)
            results.append(repr(error))

    workers = [threading.Thread(target=burst) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert results == [[0] * 100] * 4
