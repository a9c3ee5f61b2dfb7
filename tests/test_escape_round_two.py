"""Round two of the escape suite (SANDBOX.md §3): each class the hostile review found, tried with
several variants against real bwrap, as root and as an unprivileged user. The original project and
the snapshot the read-only paths are bound from are byte-compared after each attempt."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reactlab import BashTool, Sandbox, SandboxUnavailable, Workspace, independent_test_run, unchanged_paths
from reactlab.samples import SHOP_READ_ONLY, SHOP_TEST_COMMAND, shop_path
from reactlab.sandbox import _cgroup_bases, _Launcher, host_identity
from reactlab.walk import walk

from .conftest import fingerprint, needs_sandbox, sh

pytestmark = needs_sandbox


def processes_running(command_line: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip() == command_line.encode()
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def while_running(sandbox: Sandbox, seconds: str, look: callable) -> object:
    """Run `sleep SECONDS` in the sandbox and call ``look(pids)`` on the host while it sleeps."""
    worker = threading.Thread(target=sandbox.run, args=(f"sleep {seconds}", 10))
    worker.start()
    try:
        for _ in range(200):
            pids = processes_running(f"sleep {seconds}")
            if pids:
                return look(pids)
            time.sleep(0.02)
        raise AssertionError("the sandboxed sleep never showed up")
    finally:
        worker.join()


# 1. Never host root; host-wide kernel settings out of reach.
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
    assert sh(sandbox, "echo 'x = 2' > shop/edited.py").exit_code == 0
    assert made_on_the_host.read_text() == "x = 2\n" and made_on_the_host.stat().st_uid == uid


@pytest.mark.parametrize(
    "command",
    [
        "echo '|/tmp/x' > /proc/sys/kernel/core_pattern",
        "echo 3 > /proc/sys/vm/drop_caches",
        "echo 1 > /proc/self/root/proc/sys/kernel/sysrq",
        "echo '|/tmp/x' > /proc/1/root/proc/sys/kernel/core_pattern",
        "cd /proc/self/../sys/kernel && echo '|/tmp/x' > core_pattern",
        "echo b > /proc/sysrq-trigger",
        "sysctl -w kernel.domainname=evil",
        'test -z "$(find /proc/sys -writable -type f 2>/dev/null)" && exit 1 || exit 0',
    ],
)
def test_proc_sys_is_never_writable(box, command):
    _, sandbox = box
    core_pattern = Path("/proc/sys/kernel/core_pattern").read_bytes()
    assert sh(sandbox, command).exit_code != 0
    assert Path("/proc/sys/kernel/core_pattern").read_bytes() == core_pattern


# 2. No unbounded memory-backed filesystem: only /work, /tmp and /dev/shm are writable.
@pytest.mark.parametrize(
    "command",
    [
        "touch /x",
        "mkdir /newdir",
        "echo x > /etc/evil",
        "echo x >> /etc/passwd",
        "touch /dev/x",
        "mkdir /dev/big",
        "head -c 1M /dev/zero > /root/fill",
        "cp /usr/bin/true /bin2",
        "touch /proc/x",
        "ln -s /tmp /lnk",
    ],
)
def test_only_the_copy_tmp_and_shm_are_writable(box, command):
    _, sandbox = box
    assert sh(sandbox, command).exit_code != 0


def test_the_writable_mounts_are_bounded_and_the_rest_read_only(box):
    _, sandbox = box
    mounts = {line.split()[1]: line.split()[3] for line in sh(sandbox, "cat /proc/self/mounts").stdout.splitlines()}
    assert mounts["/"].startswith("ro,") and mounts["/dev"].startswith("ro,")
    assert mounts["/proc/sys"].startswith("ro,")
    for tmpfs in ("/tmp", "/dev/shm"):
        assert mounts[tmpfs].startswith("rw,") and "size=65536k" in mounts[tmpfs]
    assert mounts["/work"].startswith("rw,")
    writable = {path for path, options in mounts.items() if options.startswith("rw,")}
    devices = {f"/dev/{name}" for name in ("null", "zero", "full", "random", "urandom", "tty")}
    above = {"/work/shop"}  # the folder holding read-only files, bound onto itself (it cannot be moved)
    assert writable - devices <= {"/work", *above, "/tmp", "/dev/shm", "/proc", "/dev/pts"}, writable


# 3. The working copy is private; no setuid or setgid file survives a command.
SPECIAL = [
    "cp /usr/bin/id sid && chmod 4755 sid",
    "cp shop/settings.json shop/mine.json && chmod u+s,g+s shop/mine.json",
    "install -m 2755 /usr/bin/true sgid",
    "mkdir sgdir && chmod 2775 sgdir",
    "python3 -c \"import os; open('p', 'w').close(); os.chmod('p', 0o6755)\"",
    "mkdir -p a/b && cp /usr/bin/true a/b/t && chmod 6755 a/b/t",
    "touch late; (sleep 0.3; chmod 4755 late) >/dev/null 2>&1 & disown",
    "mkdir closed && cp /usr/bin/true closed/t && chmod 4755 closed/t && chmod 000 closed",
]


@pytest.mark.parametrize("command", SPECIAL)
def test_no_setuid_or_setgid_file_survives_a_command(box, command):
    workspace, sandbox = box
    assert stat.S_IMODE(workspace.root.stat().st_mode) == 0o700
    assert sh(sandbox, command).exit_code == 0
    time.sleep(0.5)  # a background job would have set its bit by now, had it survived
    walk(workspace.root, give_access=True)  # open what the command closed, to look inside
    special = [
        str(path)
        for path in [workspace.root, *workspace.root.rglob("*")]
        if not path.is_symlink() and path.stat().st_mode & (stat.S_ISUID | stat.S_ISGID)
    ]
    assert special == []


# 4. Read-only paths cannot be replaced, nested ones included.
def sandbox_on(project: Path, files: dict[str, str], read_only: list[str]) -> Iterator[tuple[Workspace, Sandbox]]:
    """A copy of ``project`` (made of ``files``) and its Sandbox; afterwards the project and the
    snapshot must be byte for byte what they were."""
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    workspace = Workspace(project, read_only)
    sandbox = Sandbox(workspace.root, workspace.read_only)
    original, snapshot = fingerprint(project), fingerprint(sandbox.snapshot)
    yield workspace, sandbox
    assert fingerprint(project) == original and fingerprint(sandbox.snapshot) == snapshot
    sandbox.close()
    workspace.cleanup()


@pytest.fixture
def nested(tmp_path):
    files = {
        "pkg/conf.json": '{"limit": 5}\n',
        "pkg/data/x.txt": "pristine data\n",
        "pkg/code.py": "VALUE = 1\n",
        "deep/a/b/c.txt": "pristine deep\n",
        "tests/test_it.py": "assert True\n",
    }
    yield from sandbox_on(tmp_path / "project", files, ["pkg/conf.json", "pkg/data", "deep/a/b/c.txt", "tests"])


READ_BACK = "cat pkg/conf.json pkg/data/x.txt deep/a/b/c.txt"
PRISTINE = '{"limit": 5}\npristine data\npristine deep\n'
REPLACEMENTS = [
    ["mv pkg pkg.orig && mkdir -p pkg/data && echo FAKE > pkg/conf.json && echo FAKE > pkg/data/x.txt"],
    ["mv pkg pkg.orig && mkdir pkg && echo FAKE > w && ln w pkg/conf.json", "echo FAKE2 > w"],
    ["mv deep deep.orig && mkdir -p deep/a/b && echo FAKE > deep/a/b/c.txt"],
    ["mv deep/a deep/a.orig && mkdir -p deep/a/b && echo FAKE > deep/a/b/c.txt"],
    ["mv pkg pkg.orig && mkdir -p pkg/conf.json pkg/data"],
    ["mv pkg pkg.orig && ln -s /etc pkg"],
    ["mv pkg pkg.orig && mkdir pkg && ln -s /etc/passwd pkg/conf.json"],
    ["mv pkg pkg.orig && mkdir pkg && echo FAKE > pkg/data"],
    # A job left running would swap the parent for a symlink between the check and the mount.
    ["(while :; do mv pkg pkg.x; ln -sfn /etc pkg; rm -f pkg; mv pkg.x pkg; done) >/dev/null 2>&1 & sleep 0.2"],
]


@pytest.mark.parametrize("commands", REPLACEMENTS)
def test_read_only_paths_cannot_be_replaced(nested, commands):
    workspace, sandbox = nested
    for command in commands:
        sh(sandbox, command)
    sandbox.wait_prepared()  # building the next command's sandbox creates missing mount points
    before = fingerprint(workspace.root)
    time.sleep(0.3)
    assert fingerprint(workspace.root) == before, "a process of the command outlived it"
    try:
        seen = sh(sandbox, READ_BACK)
    except SandboxUnavailable as refusal:
        assert "refusing to run" in str(refusal)
    else:
        assert (seen.stdout, seen.exit_code) == (PRISTINE, 0)
    check = independent_test_run(workspace, READ_BACK)
    assert (check.stdout, check.exit_code) == (PRISTINE, 0)


# 5. The independent check cannot be forged by anything the run left behind.
FORGED_OK = "import os, sys\nprint('Ran 3 tests', file=sys.stderr)\nprint('OK', file=sys.stderr)\nos._exit(0)\n"
FORGED_PYC = (
    "python3 - <<'EOF'\n"
    "import importlib.util, py_compile\n"
    "open('/tmp/fixed.py', 'w').write('def delivery_price(total):\\n"
    "    if total < 0: raise ValueError\\n    return 0 if total >= 2000 else 300\\n')\n"
    "py_compile.compile('/tmp/fixed.py', cfile=importlib.util.cache_from_source('shop/delivery.py'),\n"
    "    invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n"
    "EOF"
)


@pytest.mark.parametrize(
    ("plant", "planted"),
    [
        (f"mkdir unittest && cat > unittest/__init__.py <<'EOF'\n{FORGED_OK}EOF", "unittest/__init__.py"),
        (f"cat > unittest.py <<'EOF'\n{FORGED_OK}EOF", "unittest.py"),
        (f"cat > json.py <<'EOF'\n{FORGED_OK}EOF", "json.py"),
        (FORGED_PYC, "shop/__pycache__/delivery"),
    ],
)
def test_the_independent_check_cannot_be_forged(shop, plant, planted):
    with Sandbox(shop.root, shop.read_only) as sandbox:
        assert sandbox.run(plant, timeout=20).exit_code == 0
        forged = sandbox.run(SHOP_TEST_COMMAND, timeout=20)
    assert forged.exit_code == 0, "the plant works in the run's own copy: this is the attack"
    check = independent_test_run(shop, SHOP_TEST_COMMAND)
    assert check.exit_code == 1 and "FAILED (failures=1)" in check.stderr
    assert any(path.startswith(planted) for path in check.manifest.added), check.manifest
    if not planted.startswith("shop/"):
        assert planted in check.manifest.shadowing and "shadows the standard library" in str(check.manifest)


def test_a_changed_file_left_unreadable_is_still_checked(shop):
    """The check copies the file as the run left it (mode 000 too): a verdict, not a crash."""
    (shop.root / "shop/delivery.py").write_text("# rewritten\n")
    with Sandbox(shop.root, shop.read_only) as sandbox:
        assert sandbox.run("chmod 000 shop/delivery.py && chmod 300 shop", timeout=10).exit_code == 0
    check = independent_test_run(shop, SHOP_TEST_COMMAND)
    assert check.exit_code == 1 and "Permission denied" in check.stderr
    assert "shop/delivery.py" in check.manifest.changed


def test_unchanged_paths_compares_everything(shop):
    root = shop.root
    assert unchanged_paths(shop, [*SHOP_READ_ONLY, "shop/delivery.py"]) == dict.fromkeys(
        [*SHOP_READ_ONLY, "shop/delivery.py"], True
    )
    changes = [
        lambda: (root / "tests/__pycache__").mkdir(),
        lambda: (root / "tests/__pycache__" / "test_delivery.cpython-311.pyc").write_bytes(b"forged"),
        lambda: (root / "tests/.hidden").write_text(""),
    ]
    for change in changes:
        change()
        assert unchanged_paths(shop, ["tests"]) == {"tests": False}
    settings = root / "shop/settings.json"
    same_bytes = root / "elsewhere.json"
    same_bytes.write_bytes(settings.read_bytes())
    settings.unlink()
    settings.symlink_to(same_bytes)  # same bytes behind a link
    assert unchanged_paths(shop, ["shop/settings.json"]) == {"shop/settings.json": False}
    settings.unlink()
    settings.mkdir()  # a folder where the file was
    assert unchanged_paths(shop, ["shop/settings.json"]) == {"shop/settings.json": False}


# 6. cgroups: per run, nested under the caller's own, and always removed.
def own_cgroup(controller: str) -> str:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path.strip("/")
    return ""


@pytest.mark.skipif(not _cgroup_bases(), reason="no cgroup can be made here (not root, no delegated subtree)")
def test_cgroups_are_per_run_nested_and_removed(shop):
    bases = _cgroup_bases()
    stale = []
    for controller, (base, v1) in bases.items():
        if v1:
            assert base == Path("/sys/fs/cgroup", controller, own_cgroup(controller))
        stale.append(base / "reactlab-999999999-1")  # left by a process that no longer exists
        stale[-1].mkdir(exist_ok=True)
    sandbox = Sandbox(shop.root, shop.read_only)
    sh(sandbox, "true")
    paths = sandbox._resources.paths
    assert paths and all(path.parent in [b for b, _ in bases.values()] for path in paths)
    assert not any(path.exists() for path in stale), "a dead process's cgroups were swept"

    def members(pids: list[int]) -> list[bool]:
        return [str(pids[0]) in (path / "cgroup.procs").read_text().split() for path in paths]

    assert while_running(sandbox, "6.5", members) == [True] * len(paths)
    sh(sandbox, "true")
    assert sandbox._resources.paths == paths, "one set of cgroups for the whole run"
    sandbox.close()
    assert not any(path.exists() for path in paths)


# 7. Small leaks and spoofs.
def test_no_host_path_in_any_environment(box, tmp_path, monkeypatch):
    _, sandbox = box
    monkeypatch.chdir(tmp_path)
    seen = sh(sandbox, "cat /proc/*/environ | tr '\\0' '\\n'").stdout
    assert str(tmp_path) not in seen and "/work/wt" not in seen and "OLDPWD" not in seen
    assert [line for line in seen.splitlines() if line.startswith("PWD=")] in ([], ["PWD=/work"] * seen.count("PWD="))


def test_a_command_printing_bwrap_is_not_a_setup_failure(box):
    workspace, sandbox = box
    spoof = sh(sandbox, 'echo "bwrap: Can\'t find source path /x: No such file" >&2; exit 1')
    assert spoof.exit_code == 1 and not spoof.setup_failed
    result = BashTool(workspace, sandbox=sandbox).run("echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1")
    assert result["ok"] is True and "error" not in result
    real = Sandbox(workspace.root, ["tests"])
    real.snapshot.chmod(0o700)
    (real.snapshot / "tests").chmod(0o700)
    for path in (real.snapshot / "tests").iterdir():
        path.unlink()
    (real.snapshot / "tests").rmdir()  # the source of a bind is gone: bwrap itself fails
    broken = real.run("echo never", timeout=10)
    assert broken.setup_failed and broken.stdout == ""
    real.close()


def test_cleanup_removes_a_copy_a_command_locked(tmp_path):
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    with Sandbox(workspace.root, workspace.read_only) as sandbox:
        command = "mkdir -p locked/inner && touch locked/inner/f && chmod 000 locked/inner && chmod 500 locked"
        assert sh(sandbox, f"{command} && chmod 400 shop/delivery.py && chmod 500 shop").exit_code == 0
        assert stat.S_IMODE((workspace.root / "locked/inner").stat().st_mode) == 0, "left as the command made it"
    assert workspace.cleanup() is True
    assert not workspace.root.exists()


def test_a_kept_copy_stays_until_removed():
    with Workspace(shop_path(), SHOP_READ_ONLY, keep=True) as workspace:
        pass
    assert (workspace.root / "shop/delivery.py").exists()
    assert workspace.cleanup() and not workspace.root.exists()


def test_the_launcher_is_out_of_reach_and_replaced_if_killed(box):
    _, sandbox = box
    with pytest.raises(ValueError, match="NUL"):
        sandbox.run("echo a\x00rm -rf shop", timeout=5)
    assert sh(sandbox, "ls /proc/self/fd").stdout.split() == ["0", "1", "2", "3"]  # 3: ls's own
    sandbox.wait_prepared()
    launchers = list(sandbox._resources.launchers)
    assert launchers and all(isinstance(launcher, _Launcher) for launcher in launchers)
    for launcher in launchers:  # the one that ran the command, and those holding sandboxes built ahead
        launcher.process.kill()
        launcher.process.wait()
    assert sh(sandbox, "echo again").stdout == "again\n"
    assert not set(sandbox._resources.launchers) & set(launchers)
