"""Attacks on what a command can see and write: the read-only paths, the host's files, the mounts.

Each command sees the copy writable at /work, the read-only paths bound over it from a snapshot of
the original, /usr and a generated /etc read-only, and nothing else of the host. The original
project and the snapshot are byte-compared after every attempt (``box``, ``nested``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reactlab import BashTool, Sandbox, SandboxUnavailable, Workspace, independent_test_run
from reactlab.core.sandbox import hand_over
from reactlab.core.sandbox import sandbox as sandbox_module
from reactlab.core.sandbox.walk import walk
from reactlab.samples import SHOP_READ_ONLY, shop_path

from ..conftest import needs_sandbox, protected_state, sh
from .conftest import PRISTINE, READ_BACK, sandbox_on

pytestmark = needs_sandbox


def test_the_projects_own_tests_run_inside(box):
    _, sandbox = box
    result = sh(sandbox, "python3 -m unittest discover -s tests 2>&1; echo exit=$?")
    assert "Ran 3 tests" in result.stdout and "FAILED (failures=1)" in result.stdout and "exit=1" in result.stdout
    result = sh(sandbox, "python3 -c 'print(2 + 2)'")
    assert (result.exit_code, result.stdout) == (0, "4\n")


def test_writes_outside_the_read_only_paths_reach_the_copy_not_the_original(box):
    workspace, sandbox = box
    result = sh(sandbox, "echo made-inside > shop/new.txt && mkdir -p docs && echo x > docs/n.md")
    assert result.exit_code == 0
    assert (workspace.root / "shop/new.txt").read_text() == "made-inside\n"
    assert not (workspace.source / "shop/new.txt").exists()


WRITES_TO_READ_ONLY_PATHS = [
    "echo 1 > tests/test_delivery.py",
    "echo 1 >> tests/test_delivery.py",
    "rm -f tests/test_delivery.py",
    "rm -rf tests",
    "touch tests/new_test.py",
    "chmod 777 tests/test_delivery.py",
    "mv tests moved",
    "rmdir tests",
    "mv tests/test_delivery.py shop/",
    "sed -i s/2500/500/ tests/test_delivery.py",
    "echo '{}' > shop/settings.json",
    "rm -f shop/settings.json",
    "mv shop/settings.json shop/s.json",
    "echo new > shop/x.json && mv -f shop/x.json shop/settings.json",
    "touch shop/settings.json",
    "chmod 600 shop/settings.json",
    "echo pass > shop/delivery.py",
    "ln tests/test_delivery.py shop/hardlink.py",
    "umount /work/tests",
    "mount -o remount,rw,bind /work/tests",
    "umount /work/shop/settings.json",
    "echo x > /usr/bin/evil",
    "echo x >> /etc/passwd",
]


@pytest.mark.parametrize("command", WRITES_TO_READ_ONLY_PATHS)
def test_a_read_only_path_cannot_be_written_removed_moved_or_unmounted(box, command):
    _, sandbox = box
    result = sh(sandbox, command)
    assert result.exit_code != 0, result.stderr


def test_host_secrets_and_homes_cannot_be_read_directly_or_through_links(box, tmp_path):
    workspace, sandbox = box
    secret = tmp_path / "host-secret.txt"
    secret.write_text("TOP-SECRET")
    (workspace.root / "shadow-link").symlink_to("/etc/shadow")
    (workspace.root / "secret-link").symlink_to(secret)
    for command in [
        f"cat {secret}",
        "cat secret-link",
        "cat /etc/shadow",
        "cat shadow-link",
        f"ls {workspace.source}",
        f"ls {workspace.root}",
        "ls /home/*",
        "cat /root/.bash_history",
        "ls /var/lib",
    ]:
        result = sh(sandbox, command)
        assert result.exit_code != 0, command
        assert "TOP-SECRET" not in result.stdout
    assert sh(sandbox, "ls -A /root").exit_code != 0, "no /root at all"


def test_a_symlinked_or_missing_read_only_source_is_refused_before_anything_runs(box):
    workspace, _ = box
    marker = workspace.root / "ran.txt"
    (workspace.root / "planted").symlink_to("/root")
    with pytest.raises(SandboxUnavailable, match="missing or a symlink"):
        Sandbox(workspace.root, ["planted"])
    with pytest.raises(SandboxUnavailable, match="missing or a symlink"):
        Sandbox(workspace.root, ["no/such/path"])
    assert not marker.exists()
    with pytest.raises(ValueError, match="not be a symlink"):
        Workspace(workspace.root, ["planted"])


@pytest.mark.parametrize(
    "attack",
    [
        "mv shop shop.moved",
        "mv -T shop.new shop",  # a folder put in its place
        "rm -rf shop",
        "rmdir shop",
        "ln -s /tmp link && mv -T link shop",
        "mkdir x && mv shop x/",
    ],
)
def test_a_folder_holding_a_read_only_file_cannot_be_moved_from_inside(box, attack):
    workspace, sandbox = box
    result = sh(sandbox, f"mkdir -p shop.new; {attack}; echo $?")
    assert result.stdout.split()[-1] != "0", result.stderr
    assert (workspace.root / "shop").is_dir() and not (workspace.root / "shop").is_symlink()
    assert sh(sandbox, "cat shop/settings.json").stdout == (shop_path() / "shop/settings.json").read_text()


def test_a_folder_swapped_for_a_symlink_on_the_host_is_refused_and_binds_no_host_file(box, tmp_path):
    workspace, sandbox = box
    host = tmp_path / "host"
    host.mkdir()
    (host / "settings.json").write_text("HOST-SECRET")
    (host / "delivery.py").write_text("HOST-SECRET")  # every read-only name exists behind the link
    # On the host, between two commands (a command cannot: the folder is a mount point inside).
    (workspace.root / "shop").rename(workspace.root / "shop.moved")
    (workspace.root / "shop").symlink_to(host)
    with pytest.raises(SandboxUnavailable, match="replaced by a symlink"):
        sandbox.run("cat shop/settings.json", timeout=5)
    (workspace.root / "shop").unlink()
    (workspace.root / "shop.moved").rename(workspace.root / "shop")
    assert sh(sandbox, "cat shop/settings.json").stdout == (shop_path() / "shop/settings.json").read_text()


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
def test_no_kernel_setting_can_be_written_through_proc_sys(box, command):
    _, sandbox = box
    core_pattern = Path("/proc/sys/kernel/core_pattern").read_bytes()
    assert sh(sandbox, command).exit_code != 0
    assert Path("/proc/sys/kernel/core_pattern").read_bytes() == core_pattern


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
def test_no_memory_backed_folder_but_tmp_and_shm_can_be_filled(box, command):
    _, sandbox = box
    assert sh(sandbox, command).exit_code != 0


def test_only_the_copy_tmp_and_shm_are_writable_and_those_two_are_bounded(box):
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
def test_a_nested_read_only_path_cannot_be_replaced_for_the_next_command_or_the_check(nested, commands):
    workspace, sandbox = nested
    for command in commands:
        sh(sandbox, command)
    try:
        seen = sh(sandbox, READ_BACK)
    except SandboxUnavailable as refusal:
        assert "refusing to run" in str(refusal)
    else:
        assert (seen.stdout, seen.exit_code) == (PRISTINE, 0)
    check = independent_test_run(workspace, READ_BACK)
    assert (check.stdout, check.exit_code) == (PRISTINE, 0)


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
def test_no_host_file_can_be_linked_in_no_device_made_no_cgroup_or_host_descriptor_reached(box, command):
    workspace, sandbox = box
    assert sh(sandbox, command).exit_code != 0
    links: list[str] = []

    def linked(entry) -> None:
        if entry.info.st_nlink > 1 and not (entry.info.st_mode & 0o040000):
            links.append(entry.relative)

    walk(workspace.root, linked)
    assert links == [], "a file in the copy is linked to another"


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


@pytest.mark.parametrize("protect", [False, True], ids=["no-read-only-paths", "read-only-paths"])
def test_a_copy_replaced_on_the_host_between_commands_is_the_one_the_next_command_works_in(shop, protect):
    sandbox = Sandbox(shop.root, shop.read_only if protect else ())
    try:
        sh(sandbox, "true")
        old = shop.root.with_name("project.old")
        shop.root.rename(old)
        shutil.copytree(old, shop.root, symlinks=True)
        hand_over(shop.root)
        (shop.root / "marker.txt").write_text("new copy\n")
        result = sh(sandbox, "cat marker.txt; echo made > made.txt")
        assert result.stdout == "new copy\n", result.stderr
        assert (shop.root / "made.txt").exists() and not (old / "made.txt").exists()
    finally:
        sandbox.close()


def _replace_folder(root: Path, folder: str) -> None:
    """On the host, between two commands: move ``folder`` aside and put a writable look-alike there."""
    (root / folder).rename(root / f"{folder}.host")
    shutil.copytree(root / f"{folder}.host", root / folder, symlinks=True)


@pytest.mark.parametrize(
    "change",
    [
        lambda root: _replace_folder(root, "pkg"),  # the parent of a read-only file and folder
        lambda root: _replace_folder(root, "deep/a"),  # a grandparent of a nested read-only file
        lambda root: _replace_folder(root, "tests"),  # a read-only folder itself
        lambda root: shutil.rmtree(root / "pkg"),  # gone: the folder and the mount points are made again
    ],
    ids=["parent", "grandparent", "read-only folder", "removed"],
)
def test_a_folder_replaced_on_the_host_still_gets_the_original_read_only_paths(nested, change):
    workspace, sandbox = nested
    sh(sandbox, "true")
    change(workspace.root)
    attempt = "echo FAKE > pkg/conf.json; echo FAKE > deep/a/b/c.txt; echo FAKE > tests/test_it.py; " + READ_BACK
    seen = sh(sandbox, attempt)
    assert seen.stdout == PRISTINE, seen.stderr
    assert (workspace.root / "tests/test_it.py").read_text() != "FAKE\n"


def test_a_symlink_put_above_a_read_only_path_on_the_host_is_refused(nested):
    workspace, sandbox = nested
    sh(sandbox, "true")
    (workspace.root / "pkg").rename(workspace.root / "pkg.host")
    os.symlink("/etc", workspace.root / "pkg")
    with pytest.raises(SandboxUnavailable, match="refusing to run"):
        sh(sandbox, READ_BACK)


def _put_back(workspace: Workspace, relative: str) -> None:
    target, original = workspace.root / relative, workspace.source / relative
    if original.is_dir():
        shutil.rmtree(target)
        shutil.copytree(original, target)
    else:
        target.unlink()
        shutil.copy2(original, target)
    hand_over(workspace.root)


@pytest.mark.parametrize("relative", ["pkg", "pkg/conf.json", "deep/a", "tests", "pkg/data"])
def test_a_path_put_back_on_the_host_does_not_lose_its_read_only_bind(nested, relative):
    """Removing a file on the host takes the mounts on it out of every namespace, and the file made
    again may get the old inode number back: each command binds afresh, from the snapshot."""
    workspace, sandbox = nested
    writes = ("pkg/conf.json", "pkg/data/x.txt", "deep/a/b/c.txt", "tests/test_it.py")
    attempt = "".join(f"echo FAKE > {path}; " for path in writes) + READ_BACK
    for _ in range(2):
        sh(sandbox, "true")
        _put_back(workspace, relative)
        for _ in range(2):
            seen = sh(sandbox, attempt)
            assert seen.stdout == PRISTINE, seen.stderr
    for path in writes:
        assert (workspace.root / path).read_text() == (workspace.source / path).read_text()


AWKWARD = {
    "top.txt": "pristine top\n",
    "a b/c d/settings.json": "pristine spaced\n",
    "new\nline/x.txt": "pristine newline\n",
    "..../. ./y.txt": "pristine dots\n",
    "-rf/k.txt": "pristine dash\n",
    "/".join(f"d{n}" for n in range(24)) + "/deep.txt": "pristine deep\n",
    "outer/inner/q.txt": "pristine nested\n",
    "outer/w.txt": "pristine outer\n",
}
AWKWARD_READ_ONLY = [*(p for p in AWKWARD if not p.startswith("outer/")), "outer/inner/q.txt", "outer"]


@pytest.fixture
def awkward(tmp_path):
    yield from sandbox_on(tmp_path / "project", {**AWKWARD, "free.txt": "writable\n"}, AWKWARD_READ_ONLY)


def _every_name(command: str) -> str:
    """``command`` with $f set to each read-only path and each folder above one, deepest first."""
    names = {str(Path(p).parents[n]) for p in AWKWARD for n in range(len(Path(p).parents) - 1)} | set(AWKWARD)
    quoted = " ".join("'" + name.replace("'", "'\\''") + "'" for name in sorted(names, key=len, reverse=True))
    return f"for f in {quoted}; do {command}; done"


_READ_AWKWARD = "cat -- " + " ".join("'" + p + "'" for p in AWKWARD)


@pytest.mark.parametrize(
    "swap",
    [
        'mv -- "$f" "$f.x"; mkdir -p -- "$f"; echo FAKE > "$f/x"; rm -rf -- "$f.x"',
        'mv -- "$f" "$f.x"; ln -sfn -- "/oldroot$DECOY" "$f"; rm -f -- "$f"; mv -- "$f.x" "$f"',
        'rm -rf -- "$f"; mkdir -p -- "$f.n"; mv -T -- "$f.n" "$f"; ln -- free.txt "$f"',
    ],
    ids=["moved-aside", "symlinked-to-the-host", "removed-and-replaced"],
)
def test_awkward_read_only_paths_survive_a_command_that_swaps_every_folder_on_their_way(awkward, open_tmp, swap):
    """Spaces, a newline, dots that look like "..", a leading dash, a deep chain, paths nested in
    each other (in both orders); the attack loops over every one, with a job left running."""
    workspace, sandbox = awkward
    decoy = open_tmp / "decoy"
    decoy.mkdir(mode=0o777)
    decoy.chmod(0o777)  # the sandbox uid could write here, if bwrap were led here
    loop = f"DECOY={decoy}; end=$((SECONDS + 1)); while [ $SECONDS -lt $end ]; do {_every_name(swap)}; done"
    for _ in range(2):
        assert sh(sandbox, f"({loop}) >/dev/null 2>&1 & {loop} >/dev/null 2>&1; echo tried").stdout == "tried\n"
        for _ in range(3):
            seen = sh(sandbox, f"{_READ_AWKWARD}; echo x >> top.txt || echo refused")
            assert seen.stdout == "".join(AWKWARD.values()) + "refused\n", seen.stderr
    assert list(decoy.iterdir()) == [], "bwrap was led outside the copy"
    assert (workspace.root / "free.txt").read_text() == "writable\n"


def test_a_job_left_swapping_folders_cannot_mislead_the_next_commands(nested, open_tmp):
    """A command leaves a loop running that swaps every folder above a read-only path for a link
    to a folder the sandbox uid could write: it dies with its command, before the next is built."""
    workspace, sandbox = nested
    decoy = open_tmp / "decoy"
    decoy.mkdir(mode=0o777)
    decoy.chmod(0o777)
    swaps = (
        f"mv pkg pkg.x; ln -sfn {decoy} pkg; mv deep/a deep/a.x; ln -sfn {decoy} deep/a; "
        f"mv deep deep.x; ln -sfn {decoy} deep; rm -rf pkg deep/a; mkdir -p pkg deep/a/b"
    )
    attack = f"(while :; do {swaps}; done) >/dev/null 2>&1 & sleep 0.5; echo tried"
    for _ in range(3):
        assert sh(sandbox, attack).stdout == "tried\n"
        for _ in range(3):
            seen = sh(sandbox, READ_BACK)
            assert (seen.stdout, seen.exit_code) == (PRISTINE, 0), seen.stderr
    assert list(decoy.iterdir()) == [], "bwrap was led outside the copy"


@pytest.mark.parametrize("prefix", ["/usr", "/usr/local"])
def test_an_interpreter_under_usr_is_not_bound_again(prefix, monkeypatch, box):
    """Debian's python3 has sys.base_prefix '/usr': /usr is bound read-only already, once."""
    _, sandbox = box
    monkeypatch.setattr(sandbox_module, "python_prefix", lambda: prefix)
    argv = sandbox.argv("true", status_fd=3, block_fd=4, seccomp_fd=5)
    assert sandbox.binds().python is None
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"].count("/usr") == 1
    assert argv[argv.index("PATH") + 1] == "/usr/local/bin:/usr/bin:/bin"
