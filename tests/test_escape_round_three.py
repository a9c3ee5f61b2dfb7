"""Round three of the escape suite: what a third hostile review got through, each class tried with
several variants against real bwrap, as root and as an unprivileged user. The original project, the
read-only snapshot and a few host files are byte-compared after each attempt."""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import resource
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from reactlab import BashTool, Sandbox, SandboxUnavailable, Workspace, independent_test_run
from reactlab.samples import SHOP_READ_ONLY, SHOP_TEST_COMMAND, shop_path
from reactlab.sandbox import SANDBOX_UID_VARIABLE, _reachable, host_identity
from reactlab.walk import remove_tree, walk

from .conftest import needs_sandbox, protected_state, sh
from .test_escape_round_two import processes_running

pytestmark = needs_sandbox

HOST_FILES = [Path("/etc/passwd"), Path("/etc/group"), Path("/etc/hostname")]


def host_bytes() -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in HOST_FILES if p.exists()}


@pytest.fixture
def box(fake_key):
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    sandbox = Sandbox(workspace.root, workspace.read_only)
    before, host = protected_state(workspace, sandbox), host_bytes()
    yield workspace, sandbox
    assert protected_state(workspace, sandbox) == before, "a protected file changed on the host"
    assert host_bytes() == host, "a host file changed"
    sandbox.close()
    assert workspace.cleanup(), "the working copy could not be removed"
    assert not workspace.folder.exists()


def special_files(root: Path) -> list[str]:
    found: list[str] = []
    walk(root, lambda e: found.append(e.relative) if e.info.st_mode & (stat.S_ISUID | stat.S_ISGID) else None)
    return found


# 1. Trees the host side walks as root after every command: however deep, however long the names,
# whatever they hold, the walk finishes, strips every setuid bit and removes everything.
DEEP_TREES = [
    # 2500 levels: the paths are far longer than PATH_MAX (4096), deeper than Python's recursion limit.
    "import os, shutil\nfor _ in range(2500): os.mkdir('d'); os.chdir('d')\n"
    "shutil.copy('/usr/bin/true', 'x'); os.chmod('x', 0o4755)",
    # 20 names of 250 characters: 5000 bytes of path in few levels; the last folder closed (000).
    "import os, shutil\nfor _ in range(20): os.mkdir('n' * 250); os.chdir('n' * 250)\n"
    "shutil.copy('/usr/bin/true', 'x'); os.chmod('x', 0o6755); os.chdir('..'); os.chmod('n' * 250, 0)",
    # A FIFO, a symlink to a host file and a setgid folder deep down: nothing is opened or followed.
    "import os\nfor _ in range(1500): os.mkdir('f'); os.chdir('f')\n"
    "os.mkfifo('pipe'); os.symlink('/etc/passwd', 'link'); os.mkdir('g'); os.chmod('g', 0o2775)",
]


@pytest.mark.parametrize("script", DEEP_TREES, ids=["deep", "long-names", "fifo-and-link"])
def test_a_tree_deeper_than_path_max_is_walked_stripped_and_removed(box, script):
    workspace, sandbox = box
    (workspace.root / "make_tree.py").write_text(script + "\n")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 512), hard))  # a walk must not need one per level
    try:
        result = sh(sandbox, "python3 make_tree.py && echo made", timeout=30)
        assert result.stdout == "made\n", result.stderr
        assert special_files(workspace.root) == []
        assert sh(sandbox, "echo still works").stdout == "still works\n"
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    passwd = pwd.getpwuid(0)  # the link's target kept its owner
    assert Path("/etc/passwd").stat().st_uid == passwd.pw_uid


# 2. The working copy stays private even when a command opens /work to everyone.
@pytest.mark.parametrize(
    "command",
    [
        "chmod 755 /work",
        "chmod -R a+rwx /work 2>/dev/null; test $(stat -c %a /work) = 777",
        "chmod 777 /work && cp /usr/bin/id sid && chmod 4755 sid && sleep 0.2",
    ],
)
def test_the_copy_stays_private_when_a_command_opens_it(box, command):
    workspace, sandbox = box
    assert sh(sandbox, command).exit_code == 0
    other = 65534  # nobody: any other local user
    assert not _reachable(str(workspace.root / "shop"), other, other), "another local user can enter the copy"
    target = str(workspace.root / "shop" / "delivery.py")
    assert stat.S_IMODE(workspace.folder.stat().st_mode) == 0o700
    assert workspace.folder.stat().st_uid == os.geteuid()
    if os.geteuid() == 0:  # and really: another uid cannot read it
        attempt = subprocess.run(
            ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "cat", target],
            capture_output=True,
            check=False,
        )
        assert attempt.returncode != 0 and attempt.stdout == b""


# 3. The independent check: a file Python imports by itself decides nothing.
HOOKS = [
    "usercustomize.py",
    "sitecustomize.py",
    "usercustomize/__init__.py",
]
FORGERY = "import os, sys\nsys.stderr.write('Ran 3 tests in 0.001s\\n\\nOK\\n')\nos._exit(0)\n"


@pytest.mark.parametrize("hook", HOOKS)
def test_a_planted_startup_hook_cannot_forge_the_verdict(box, hook):
    workspace, _ = box
    planted = workspace.root / hook
    planted.parent.mkdir(exist_ok=True)
    planted.write_text(FORGERY)
    check = independent_test_run(workspace, SHOP_TEST_COMMAND)
    assert check.exit_code == 1 and "FAILED (failures=1)" in check.stderr, check.stderr[-500:]
    top = hook.split("/")[0]
    assert top in check.manifest.shadowing
    assert f"+ {top}   <- shadows the standard library or a startup hook" in str(check.manifest)


# 4. The manifest is one visible line per path: a name cannot fake a line or hide one.
NAMES = [
    "x\n- tests",
    "\x1b[1A\x1b[2K",
    "y\r~ shop unchanged",
    "z\x1b]0;title\x07",
]


def test_file_names_cannot_fake_or_hide_manifest_lines(box):
    workspace, sandbox = box
    script = "".join(f"open({name!r}, 'w').close()\n" for name in NAMES)
    (workspace.root / "make_names.py").write_text(script)
    assert sh(sandbox, "python3 make_names.py").exit_code == 0
    assert sh(sandbox, "echo changed >> shop/delivery.py").exit_code == 0
    check = independent_test_run(workspace, SHOP_TEST_COMMAND)
    text = str(check.manifest)
    lines = text.split("\n")
    assert len(lines) == len(check.manifest.added) + len(check.manifest.changed) + len(check.manifest.removed)
    assert all(line[:2] in ("+ ", "- ", "~ ") for line in lines)
    assert all(line.isprintable() for line in lines)
    assert "~ shop/delivery.py" in lines


# 5. The sandbox uid must belong to nobody: its owner could read and race every working copy.
@pytest.mark.skipif(os.geteuid() != 0, reason="a non-root caller's commands run as the caller's own uid")
def test_a_sandbox_uid_that_belongs_to_an_account_is_refused(monkeypatch):
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


# 6. A command never outlives the process that started it (a notebook kernel killed, a crash):
# nothing would enforce its timeout any more.
def test_a_command_dies_with_the_process_that_started_it(tmp_path):
    marker = f"sleep 4244.{os.getpid()}"
    script = (
        "import sys\nfrom reactlab import Sandbox, Workspace\nfrom reactlab.samples import SHOP_READ_ONLY, shop_path\n"
        "w = Workspace(shop_path(), SHOP_READ_ONLY)\nprint(w.folder, flush=True)\n"
        "s = Sandbox(w.root, w.read_only)\nprint(s._resources.folder, s._resources.jobs, flush=True)\n"
        f"s.run({marker!r}, 600)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    folder = Path(child.stdout.readline().strip())
    left = [Path(path) for path in child.stdout.readline().split()]
    try:
        assert wait_until(lambda: processes_running(marker), 20), "the sandboxed sleep never started"
        assert len(left) == 2 and all(path.exists() for path in left)
        child.kill()
        child.wait()
        assert wait_until(lambda: not processes_running(marker), 1.5), "the command outlived its caller"
        # What it had no time to remove (its snapshot, its jobs folder in /dev/shm) goes with the next
        # Sandbox: this one, or one a test in another worker makes first (they sweep alike).
        Sandbox(tmp_path).close()
        assert [path for path in left if path.exists()] == []
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
        for pid in processes_running(marker):
            os.kill(pid, 9)
        remove_tree(folder)


def test_only_our_own_folders_of_dead_processes_are_swept(tmp_path):
    """Anyone may put a file, a link or a folder named like ours in /dev/shm or /tmp: none is
    removed, nor followed, and making a Sandbox still works."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    dead = 4_000_000_000  # above any pid_max: no process has it
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("kept")
    planted, expected = [], []  # what stays: all of it for root; a non-root caller's own folder goes
    for parent in ("/dev/shm", tempfile.gettempdir()):
        for prefix in ("reactlab-jobs-", "reactlab-read-only-"):
            base = Path(parent) / f"{prefix}{namespace}-{dead}-"
            (base.with_name(base.name + "file")).write_text("a file")
            (base.with_name(base.name + "link")).symlink_to(target)
            foreign = base.with_name(base.name + "foreign")
            foreign.mkdir()
            os.chown(foreign, 65534, 65534) if os.geteuid() == 0 else None
            made = [base.with_name(base.name + name) for name in ("file", "link", "foreign")]
            planted += made
            where_made = (parent, prefix) in {
                ("/dev/shm", "reactlab-jobs-"),
                (tempfile.gettempdir(), "reactlab-read-only-"),
            }
            expected += made if os.geteuid() == 0 or not where_made else made[:2]
    try:
        Sandbox(tmp_path).close()
        left = [path for path in planted if os.path.lexists(path)]
        assert left == expected and (target / "keep").read_text() == "kept"
    finally:
        for path in planted:
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.exists():
                path.rmdir()


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


# 7. What held in this round, kept as tests: host files cannot be linked into the copy (root's
# chown of the copy would then take them over), no device nodes, no cgroup files, no descriptor
# of the launcher or of bwrap's status pipe inside.
HELD = [
    "ln /etc/passwd stolen",
    "ln /usr/bin/su su-link",
    "ln /usr/bin/passwd shop/passwd",
    "ln tests/test_delivery.py mine.py",
    "mknod dev-null c 1 3",
    "mkfifo fifo && mknod blk b 8 0",
    "ls /sys/fs/cgroup",
    "echo max > /sys/fs/cgroup/pids.max",
    "test $(ls /proc/self/fd | wc -l) -gt 4",
    "echo '{\"exit-code\": 0}' > /proc/self/fd/4",
    "cat /proc/self/fd/5",
]


@pytest.mark.parametrize("command", HELD)
def test_what_the_third_review_could_not_do(box, command):
    workspace, sandbox = box
    assert sh(sandbox, command).exit_code != 0
    links: list[str] = []

    def linked(entry) -> None:
        if entry.info.st_nlink > 1 and not stat.S_ISDIR(entry.info.st_mode):
            links.append(entry.relative)

    walk(workspace.root, linked)
    assert links == [], "a file in the copy is linked to another"


# 8. A second Sandbox on a copy whose read-only paths were replaced (a command cannot move the
# folders above them any more, but the host can, or a copy kept from an older run) takes its
# read-only paths from the original project, not from the copy.
def _aside_and_fake(root: Path) -> None:
    (root / "shop").rename(root / "shop.orig")
    (root / "shop").mkdir()
    (root / "shop/settings.json").write_text("FAKE\n")


def _aside_and_linked(root: Path) -> None:
    (root / "shop").rename(root / "shop.orig")
    (root / "shop").mkdir()
    (root / "w").write_text("FAKE\n")
    os.link(root / "w", root / "shop/settings.json")


def _moved_down_and_fake(root: Path) -> None:
    (root / "x").mkdir()
    (root / "shop").rename(root / "x/shop")
    (root / "shop").mkdir()
    (root / "shop/settings.json").write_text("FAKE\n")


@pytest.mark.parametrize("attack", [_aside_and_fake, _aside_and_linked, _moved_down_and_fake])
def test_a_second_sandbox_on_a_used_copy_binds_the_original_read_only_paths(fake_key, attack):
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    sandbox = Sandbox(workspace.root, workspace.read_only)
    before = {k: v for k, v in protected_state(workspace, sandbox).items() if not k.startswith("copy:")}
    pristine = (workspace.source / "shop" / "settings.json").read_text()
    tool = None
    try:
        inside = "mv shop shop.orig && mkdir shop && echo FAKE > shop/settings.json"
        assert sh(sandbox, inside).exit_code != 0, "a command cannot move the folder above a read-only file"
        # The next three sandboxes are being built: a bwrap binding the new folder would make the
        # missing mount point in it (shop/settings.json) while the attack makes its own (EEXIST).
        sandbox.wait_prepared()
        attack(workspace.root)  # on the host, between commands
        assert (workspace.root / "shop" / "settings.json").read_text() == "FAKE\n"  # the copy's own file
        tool = BashTool(workspace)
        assert tool.run("cat shop/settings.json")["stdout"] == pristine
        assert tool.run("echo x > shop/settings.json")["exit_code"] != 0
        after = {k: v for k, v in protected_state(workspace, sandbox).items() if not k.startswith("copy:")}
        assert after == before, "the original or the snapshot changed"
    finally:
        if tool is not None:
            tool.sandbox.close()
        sandbox.close()
        assert workspace.cleanup()
