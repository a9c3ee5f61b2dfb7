"""Attacks on who a command is and what it knows: the host uid behind it, its privileges, its
environment, the host's accounts, and the secrets an interpreter's folder may hold.

A command is uid 1000 inside; on the host, the caller's own uid, or for root the unprivileged
sandbox uid, never root. It has no capabilities, an environment of a few variables, an /etc of
its own, and of the interpreter's prefix only bin/ and lib/."""

from __future__ import annotations

import gc
import grp
import importlib
import os
import platform
import pwd
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reactlab import Sandbox, SandboxUnavailable, Workspace
from reactlab.core.sandbox import SANDBOX_UID_VARIABLE, host_identity
from reactlab.core.sandbox import sandbox as sandbox_module
from reactlab.core.sandbox.identity import acting_as_root
from reactlab.samples import SHOP_READ_ONLY, shop_path

from ..conftest import FAKE_KEY, needs_sandbox, sh
from .conftest import children, processes_running, wait_until, while_running

pytestmark = needs_sandbox


def test_commands_never_run_as_host_root(box):
    workspace, sandbox = box

    def host_ids(pids: list[int]) -> set[tuple[str, str]]:
        ids = set()
        for pid in pids:
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
            uid = next(line.split()[1] for line in status if line.startswith("Uid:"))
            groups = next(line.split(":")[1].strip() for line in status if line.startswith("Groups:"))
            ids.add((uid, groups))
        return ids

    uid, _ = host_identity()
    assert uid != 0 and sandbox.limits()["host_uid"] == uid and sandbox.limits()["uid"] == 1000
    # As root, no supplementary groups either; a non-root caller's own groups cannot be dropped.
    groups = "" if os.geteuid() == 0 else " ".join(map(str, os.getgroups()))
    assert while_running(sandbox, "7.25", host_ids) == {(str(uid), groups)}
    assert sh(sandbox, "touch made-inside").exit_code == 0
    assert (workspace.root / "made-inside").stat().st_uid == uid != 0
    if os.geteuid() == 0:
        assert workspace.root.stat().st_uid == uid  # the copy belongs to the sandbox uid, not root
    made_on_the_host = workspace.root / "shop" / "edited.py"  # as the edit tool does: a new file
    made_on_the_host.write_text("x = 1\n")
    sh(sandbox, "true")  # the host hands what it made back after each command
    assert sh(sandbox, "echo 'x = 2' > shop/edited.py").exit_code == 0
    assert made_on_the_host.read_text() == "x = 2\n" and made_on_the_host.stat().st_uid == uid


def test_bwrap_itself_is_started_as_the_sandbox_uid_with_no_capability_or_group(shop):
    """For root, from a thread that is the sandbox uid while it starts bwrap (identity.as_sandbox_uid):
    no bwrap ever runs as root (it would map root into the sandbox), nor keeps a capability of root's."""
    uid, _ = host_identity()
    sandbox = Sandbox(shop.root, shop.read_only)
    seen: list[str] = []

    def look() -> bool:
        for pid in children():
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap":
                    seen.append(Path(f"/proc/{pid}/status").read_text())
            except OSError:
                continue
        return bool(seen)

    worker = threading.Thread(target=sandbox.run, args=("sleep 4243.5", 10))
    worker.start()
    try:
        assert wait_until(lambda: processes_running("sleep 4243.5") and look(), 10)
    finally:
        worker.join()
        sandbox.close()
    for status in seen:
        assert f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}\n" in status and "CapEff:\t0000000000000000" in status
        assert "CapPrm:\t0000000000000000" in status and "CapAmb:\t0000000000000000" in status  # none kept
        assert re.search(r"^Groups:\s*$", status, re.M) or not acting_as_root(), "no supplementary group of root's"


class _Litter:
    """Garbage in a cycle: only a collection frees it, and its finalizer then runs in whichever thread
    the collection came in, as that thread's uid."""

    def __init__(self, seen: list[int]) -> None:
        self.seen, self.me = seen, self

    def __del__(self) -> None:
        self.seen.append(os.geteuid())


@pytest.mark.skipif(not acting_as_root(), reason="only root's command thread changes its uid")
@pytest.mark.parametrize("collected_by", ["by-its-own-allocations", "by-another-threads-meanwhile"])
def test_no_finalizer_of_the_caller_runs_as_the_sandbox_uid(shop, monkeypatch, collected_by):
    """While root's command thread is the sandbox uid (as it starts bwrap), a garbage collection there
    ran the finalizers of whatever it freed as that uid: a Sandbox's (its cgroups and snapshot then
    outlived it), a LlamaServer's (root's server kept running). Here the collection is brought on
    inside that moment, by allocations as Popen makes them."""
    seen: list[int] = []
    started = subprocess.Popen

    def starting(*args, **kwargs):
        _Litter(seen)  # freed only by a collection
        if collected_by == "by-its-own-allocations":
            [[] for _ in range(20_000)]  # noqa: B018 (enough new objects to bring on a collection)
        else:
            threading.Thread(target=lambda: [[] for _ in range(20_000)]).start()
            time.sleep(0.05)
        return started(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", starting)
    with Sandbox(shop.root, shop.read_only) as sandbox:
        for _ in range(5):
            assert sh(sandbox, "true").exit_code == 0
    monkeypatch.undo()
    gc.collect()
    assert seen and host_identity()[0] not in seen, "a finalizer ran as the sandbox uid"


@pytest.mark.skipif(not acting_as_root(), reason="only root's command thread changes its uid")
def test_the_probe_waits_for_its_bwrap_as_root(monkeypatch):
    """The thread is the sandbox uid only while bwrap starts: the probe (available.py) waited for its
    bwrap, and read what it printed, as the sandbox uid too."""
    waited_as: list[int] = []
    communicate = subprocess.Popen.communicate

    def waiting(self, *args, **kwargs):
        waited_as.append(os.geteuid())
        return communicate(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "communicate", waiting)
    probing = importlib.import_module("reactlab.core.sandbox.available")  # the module, not its function
    monkeypatch.setattr(probing, "_worked", set())  # asked afresh
    assert probing.available() is None
    assert waited_as == [0]


def test_no_capabilities_no_new_privileges_no_nested_namespaces(box):
    _, sandbox = box
    status = sh(sandbox, "grep -E '^(CapEff|CapPrm|NoNewPrivs|Uid)' /proc/self/status").stdout
    assert "CapEff:\t0000000000000000" in status and "CapPrm:\t0000000000000000" in status
    assert "NoNewPrivs:\t1" in status and "Uid:\t1000" in status
    assert sh(sandbox, "unshare -U true").exit_code != 0
    assert sh(sandbox, "mount -t tmpfs none /work/tests").exit_code != 0
    assert sh(sandbox, "mknod /tmp/dev b 8 0").exit_code != 0


@pytest.mark.skipif(os.geteuid() != 0, reason="a non-root caller's commands run as the caller's own uid")
def test_a_sandbox_uid_that_belongs_to_an_account_or_a_group_is_refused(monkeypatch):
    taken = next(e.pw_uid for e in pwd.getpwall() if 0 < e.pw_uid < 65534)
    group_only = next(
        g.gr_gid for g in grp.getgrall() if 0 < g.gr_gid < 65534 and g.gr_gid not in {e.pw_uid for e in pwd.getpwall()}
    )
    for uid in (taken, group_only):
        monkeypatch.setenv(SANDBOX_UID_VARIABLE, str(uid))
        with pytest.raises(SandboxUnavailable, match="belongs to"):
            host_identity()
        with pytest.raises(SandboxUnavailable, match="belongs to"):
            Workspace(shop_path(), SHOP_READ_ONLY)
    monkeypatch.delenv(SANDBOX_UID_VARIABLE)
    assert host_identity()[0] not in {e.pw_uid for e in pwd.getpwall()}


# The environment: no key, no host path, in any process.
def test_the_api_key_is_absent_from_every_environment(box):
    assert os.environ["DEEPSEEK_API_KEY"] == FAKE_KEY
    _, sandbox = box
    result = sh(sandbox, "env; echo ---; cat /proc/*/environ | tr '\\0' '\\n'; echo ---; ls /proc/self/fd")
    assert FAKE_KEY not in result.stdout and "DEEPSEEK" not in result.stdout
    assert result.stdout.split("---")[2].split() == ["0", "1", "2", "3"]  # 3 is ls's own directory handle


def test_no_host_path_in_any_environment(box, tmp_path, monkeypatch):
    _, sandbox = box
    monkeypatch.chdir(tmp_path)
    seen = sh(sandbox, "cat /proc/*/environ | tr '\\0' '\\n'").stdout
    assert str(tmp_path) not in seen and "/work/wt" not in seen and "OLDPWD" not in seen
    assert [line for line in seen.splitlines() if line.startswith("PWD=")] in ([], ["PWD=/work"] * seen.count("PWD="))


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the keyctl system call numbers used are x86-64's")
def test_a_key_left_in_a_keyring_is_gone_for_the_next_command(box):
    _, sandbox = box
    keyring = (  # add_key (248) or look (keyctl 250, KEYCTL_SEARCH 10) in the user (-4) and user-session (-5) keyrings
        "python3 -c 'import ctypes, sys\n"
        "libc = ctypes.CDLL(None); libc.syscall.restype = ctypes.c_long\n"
        "for ring in (-4, -5):\n"
        '    name = b"reactlab-keyring%d" % ring\n'
        '    if sys.argv[1] == "add": libc.syscall(248, b"user", name, b"left", 4, ring)\n'
        '    print(libc.syscall(250, 10, libc.syscall(250, 0, ring, 0), b"user", name, 0) > 0)\' '
    )
    # As root the keys are kept beyond the process that made them; an unprivileged user may not make any.
    made = sh(sandbox, f"{keyring} add >/dev/null; {keyring} look")
    assert made.stdout.split() in (["True", "True"], ["False", "False"]), made.stderr
    for _ in range(2):
        assert sh(sandbox, keyring + "look").stdout.split() == ["False", "False"]


# The host's accounts: /etc inside is generated, with the lines a command needs and nothing else.
ACCOUNT_PROBES = [
    "cat /etc/passwd",
    "cat /etc/group",
    "getent passwd",
    "getent group",
    "id; id -nG; whoami",
    "ls -la /home 2>&1; cat /etc/shadow /etc/gshadow 2>&1",
    "python3 -c 'import pwd, grp; print([p.pw_name for p in pwd.getpwall()], [g.gr_name for g in grp.getgrall()])'",
]


@pytest.mark.parametrize("command", ACCOUNT_PROBES)
def test_the_hosts_accounts_and_groups_are_not_visible(box, command):
    _, sandbox = box
    seen = sh(sandbox, command).stdout
    host_names = {e.pw_name for e in pwd.getpwall()} | {g.gr_name for g in grp.getgrall()}
    ours = {"root", "sandbox", "nobody", "nogroup"}
    for name in host_names - ours:
        assert not re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w/.-])", seen), f"{name!r} seen by {command!r}"
    for entry in pwd.getpwall():  # no host GECOS field or home
        if entry.pw_gecos and entry.pw_gecos not in ("root", "nobody"):
            assert f":{entry.pw_gecos}:" not in seen
        if entry.pw_dir not in ("/root", "/nonexistent", "/", "/tmp"):
            assert f":{entry.pw_dir}:" not in seen


# An interpreter installed in its own folder (conda, pyenv): bound are its bin/ and lib/, nothing else.
def _conda_like_prefix(root: Path, key: str) -> Path:
    """A prefix laid out as conda's, holding a key the way `conda env config vars set` keeps one."""
    prefix = root / "envs" / "course"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    (prefix / "bin" / "python3").symlink_to(sys.executable)
    (prefix / "lib" / "libnote.txt").write_text("a library\n")
    (prefix / "conda-meta").mkdir()
    (prefix / "conda-meta" / "state").write_text(f'{{"env_vars": {{"DEEPSEEK_API_KEY": "{key}"}}}}\n')
    (prefix / "etc" / "conda" / "activate.d").mkdir(parents=True)
    (prefix / "etc" / "conda" / "activate.d" / "env_vars.sh").write_text(f"export DEEPSEEK_API_KEY={key}\n")
    (prefix / "share").mkdir()
    (prefix / "share" / "notes").write_text(key)
    (prefix / ".env").write_text(f"DEEPSEEK_API_KEY={key}\n")
    for folder in [root, root / "envs", *prefix.rglob("*")]:
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o755)
    return prefix


def test_an_interpreters_prefix_lends_only_bin_and_lib_never_a_key_it_holds(box, open_tmp, monkeypatch):
    _, sandbox = box
    prefix = _conda_like_prefix(open_tmp, FAKE_KEY)
    monkeypatch.setattr(sandbox_module, "python_prefix", lambda: str(prefix))
    binds = sandbox.binds()
    assert binds.python == str(prefix)
    argv = sandbox.argv("true", status_fd=3, block_fd=4, seccomp_fd=5)
    bound = [argv[i + 1] for i, a in enumerate(argv) if a in ("--ro-bind", "--bind") and str(prefix) in argv[i + 1]]
    assert bound == [f"{prefix}/bin", f"{prefix}/lib"]
    seen = sh(
        sandbox, f"cat {prefix}/lib/libnote.txt; ls -A {prefix}; grep -rs {FAKE_KEY[:12]} / 2>/dev/null | head -3"
    )
    assert seen.stdout.splitlines()[:1] == ["a library"], seen.stderr
    assert sorted(seen.stdout.splitlines()[1:]) == ["bin", "lib"], seen.stdout
    assert FAKE_KEY not in seen.stdout
    for attempt in ("conda-meta/state", "etc/conda/activate.d/env_vars.sh", ".env", "share/notes"):
        assert sh(sandbox, f"cat {prefix}/{attempt}").exit_code != 0, attempt


@pytest.mark.skipif(not acting_as_root(), reason="a non-root caller's commands reach what the caller reaches")
def test_an_interpreters_prefix_the_sandbox_uid_cannot_reach_is_not_bound(box, open_tmp, monkeypatch):
    """As root, pyenv's prefix under /root (0700): bound nothing, python3 is /usr's, if any."""
    _, sandbox = box
    closed = open_tmp / "closed"
    closed.mkdir(mode=0o700)
    prefix = _conda_like_prefix(closed, FAKE_KEY)
    closed.chmod(0o700)
    monkeypatch.setattr(sandbox_module, "python_prefix", lambda: str(prefix))
    assert sandbox.binds().python is None
    assert str(prefix) not in " ".join(sandbox.argv("true", status_fd=3, block_fd=4, seccomp_fd=5))
