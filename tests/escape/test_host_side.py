"""Attacks on the host side: what the host does with what a command leaves in the working copy.

After every command the host walks the copy once (clearing setuid/setgid bits, giving back what it
wrote); the independent check walks, reads and copies the run's changes; folders of dead processes
are swept. Each of these is bounded (reactlab/core/sandbox/walk.py: entries, path length, bytes read), goes by
descriptor, follows nothing a command planted, and decides nothing on what the run left behind."""

from __future__ import annotations

import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest

import reactlab.changes as changes_module
from reactlab import (
    BoundExceeded,
    Sandbox,
    Script,
    Workspace,
    independent_test_run,
    run_in_copy,
    unchanged_paths,
)
from reactlab.changes import compare
from reactlab.core.sandbox import hand_over, host_identity
from reactlab.core.sandbox.cleanup import KEEP_MARK
from reactlab.core.sandbox.identity import acting_as_root, reachable
from reactlab.core.sandbox.tidy import tidy
from reactlab.core.sandbox.walk import MAX_ENTRIES, MAX_PATH_BYTES, MAX_READ_BYTES, remove_tree, walk
from reactlab.samples import SHOP, SHOP_READ_ONLY, SHOP_TEST_COMMAND, shop_path

from ..conftest import needs_sandbox, sh
from .conftest import cli_run, special_files

pytestmark = needs_sandbox


# After each command: no setuid or setgid bit survives, however it was made.
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
    assert special_files(workspace.root) == []


# What a command leaves costs the host a bounded walk: past a bound the run stops, saying which.
LEFT_BEHIND = {
    "empty-files": f"python3 -c \"[open(f'f{{n}}', 'w').close() for n in range({MAX_ENTRIES + 10})]\"",
    "symlinks": f"python3 -c \"import os; [os.symlink('/etc/passwd', f'l{{n}}') for n in range({MAX_ENTRIES + 10})]\"",
    "hard-links": f"touch h; python3 -c \"import os; [os.link('h', f'h{{n}}') for n in range({MAX_ENTRIES + 10})]\"",
    "folders": f"python3 -c \"import os; [os.makedirs(f'd{{n % 100}}/{{n}}') for n in range({MAX_ENTRIES + 10})]\"",
    "fifos": f"python3 -c \"import os; [os.mkfifo(f'p{{n}}') for n in range({MAX_ENTRIES + 10})]\"",
}


@pytest.mark.parametrize("command", LEFT_BEHIND.values(), ids=LEFT_BEHIND.keys())
def test_too_many_entries_stop_the_run_clearly_after_a_bounded_walk(box, command):
    workspace, sandbox = box
    with pytest.raises(BoundExceeded, match=f"more than {MAX_ENTRIES:,} files and folders"):
        sh(sandbox, command, timeout=60)
    visited = 0

    def count(entry: object) -> None:
        nonlocal visited
        visited += 1

    with pytest.raises(BoundExceeded):
        walk(workspace.root, count, bounded=True)
    assert visited <= MAX_ENTRIES, "the walk stops at the bound, whatever the copy holds"
    with pytest.raises(BoundExceeded):
        independent_test_run(workspace, SHOP_TEST_COMMAND)


def _wide(root: Path, levels: int, names: int) -> None:
    """``levels`` folders one in another, each holding ``names`` empty files of 250-byte names (the
    folder to go down into sorted first, so a walk holds every level's names at once)."""
    root.mkdir()
    folder = root
    for level in range(levels):
        folder = folder / f"0-level-{level}"
        folder.mkdir()
        for number in range(names):
            os.close(os.open(folder / f"{number:0250d}", os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))


@pytest.mark.parametrize(
    ("levels", "names"), [(1, 45_000), (9, 5_000)], ids=["one-folder-of-45000", "nine-levels-of-5000"]
)
@pytest.mark.parametrize("walker", ["tidy", "manifest"])
def test_a_folder_of_more_names_than_the_bound_is_never_read_whole(shop, levels, names, walker):
    """The bound counted the entries a walk visited, but each folder's names were all read and sorted
    first: a command that fills one folder in its time (a million names of 250 bytes) made every walk
    after it hold them all. No bounded walk holds more names than MAX_ENTRIES now."""
    _wide(shop.root / "wide", levels, names)
    tracemalloc.start()
    try:
        with pytest.raises(BoundExceeded, match=f"more than {MAX_ENTRIES:,} files and folders"):
            if walker == "tidy":
                tidy(shop.root)
            else:
                compare(shop.source, shop.root)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MAX_ENTRIES * 450, f"{peak:,} bytes held for names"  # 250 bytes a name, and its str


DEEP_TREES = [
    # 2500 levels: far longer than PATH_MAX (4096), deeper than Python's recursion limit.
    "import os, shutil\nfor _ in range(2500): os.mkdir('d'); os.chdir('d')\n"
    "shutil.copy('/usr/bin/true', 'x'); os.chmod('x', 0o4755)",
    # 20 names of 250 characters: 5000 bytes of path in few levels; the last folder closed (000).
    "import os, shutil\nfor _ in range(20): os.mkdir('n' * 250); os.chdir('n' * 250)\n"
    "shutil.copy('/usr/bin/true', 'x'); os.chmod('x', 0o6755); os.chdir('..'); os.chmod('n' * 250, 0)",
    # A FIFO, a symlink to a host file and a setgid folder deep down: nothing is opened or followed.
    "import os\nfor _ in range(1600): os.mkdir('f'); os.chdir('f')\n"
    "os.mkfifo('pipe'); os.symlink('/etc/passwd', 'link'); os.mkdir('g'); os.chmod('g', 0o2775)",
]


@pytest.mark.parametrize("script", DEEP_TREES, ids=["deep", "long-names", "fifo-and-link"])
def test_a_tree_deeper_than_path_max_stops_the_run_clearly_and_is_removed(box, script):
    workspace, sandbox = box
    (workspace.root / "make_tree.py").write_text(script + "\n")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 512), hard))  # a walk must not need one per level
    try:
        with pytest.raises(BoundExceeded, match=f"longer than {MAX_PATH_BYTES:,} bytes"):
            sh(sandbox, "python3 make_tree.py && echo made", timeout=30)
        with pytest.raises(BoundExceeded, match="longer than"):  # the check refuses too: never an OSError
            independent_test_run(workspace, SHOP_TEST_COMMAND)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert Path("/etc/passwd").stat().st_uid == 0, "the link's target kept its owner"


def test_a_tree_within_the_bounds_is_walked_however_deep_and_stripped(box):
    workspace, sandbox = box
    script = "import os, shutil\nfor _ in range(1200): os.mkdir('d'); os.chdir('d')\n"
    script += "shutil.copy('/usr/bin/true', 'x'); os.chmod('x', 0o4755); os.mkfifo('p')\n"
    (workspace.root / "make_tree.py").write_text(script)
    assert sh(sandbox, "python3 make_tree.py && echo made", timeout=30).stdout == "made\n"
    assert special_files(workspace.root) == []
    check = independent_test_run(workspace, SHOP_TEST_COMMAND)
    assert check.exit_code == 1 and any(path.endswith("/x") for path in check.manifest.added)


# The independent check reads and copies what the run left: never more than its bounds.
def _sparse_and_linked(copy: Path, files: int, links: int, size: int) -> None:
    """What a command can make with no disk blocks and few inodes: sparse files, many names each."""
    for number in range(files):
        first = copy / f"sparse-{number}.bin"
        with open(first, "wb") as handle:
            handle.truncate(size)
        for link in range(links):
            os.link(first, copy / f"sparse-{number}-{link}.bin")
    hand_over(copy)


def test_a_sparse_file_with_many_hard_links_is_read_once_and_copied_as_links(box):
    workspace, _ = box
    size = 64 * 1024 * 1024
    _sparse_and_linked(workspace.root, files=1, links=400, size=size)  # 25 GiB if each name were a file
    reads: list[int] = []
    real_digest = changes_module._digest

    def counted(entry):  # every file read for the manifest
        reads.append(entry.info.st_ino)
        return real_digest(entry)

    changes_module._digest = counted
    try:
        check = independent_test_run(workspace, SHOP_TEST_COMMAND)
    finally:
        changes_module._digest = real_digest
    assert check.exit_code == 1 and len([p for p in check.manifest.added if p.startswith("sparse")]) == 401
    assert reads.count((workspace.root / "sparse-0.bin").stat().st_ino) == 1, "each inode is read once"


@pytest.mark.parametrize(
    ("files", "links"),
    [(5, 0), (5, 3), (40, 0)],
    ids=["five-sparse-files", "five-files-linked", "forty-sparse-files"],
)
def test_more_bytes_than_the_check_reads_is_refused_naming_the_bound(box, files, links):
    workspace, _ = box
    size = MAX_READ_BYTES // 4 + 1 if files < 10 else MAX_READ_BYTES // 32 + 1
    _sparse_and_linked(workspace.root, files=files, links=links, size=size)
    with pytest.raises(BoundExceeded, match=f"more than {MAX_READ_BYTES:,} bytes"):
        independent_test_run(workspace, SHOP_TEST_COMMAND)
    with pytest.raises(BoundExceeded):
        unchanged_paths(workspace, ["tests"])


# A project (or its read-only paths) the host copies: what the copy writes is bounded too.
def _blocks(folder: Path) -> int:
    """What ``folder`` takes on disk (as du counts it: a file with several names once)."""
    inodes = {}
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        inodes[(info.st_dev, info.st_ino)] = info.st_blocks * 512
    return sum(inodes.values())


def _project_of_links(project: Path, names: int) -> None:
    project.mkdir()
    (project / "data.bin").write_bytes(os.urandom(1024 * 1024))
    for number in range(names):
        os.link(project / "data.bin", project / f"name-{number}.bin")


@pytest.mark.parametrize("where", ["workspace", "read-only-snapshot"])
def test_a_project_of_one_file_under_many_names_is_copied_once_not_once_per_name(open_tmp, where):
    """One 1 MiB file under 300 names: the copy wrote 300 MiB (20,000 names of a 256 MiB file, 5 TB)
    though the project holds 1 MiB and the comparison reads it once."""
    project = open_tmp / "project"
    _project_of_links(project, 300)
    if where == "workspace":
        workspace = Workspace(project)
        try:
            assert _blocks(workspace.root) < 4 * 1024 * 1024, "every name was copied"
            assert (workspace.root / "name-7.bin").stat().st_nlink == 301
        finally:
            workspace.cleanup()
    else:
        (project / "tests").mkdir()
        os.link(project / "data.bin", project / "tests" / "data.bin")
        for number in range(200):
            os.link(project / "data.bin", project / "tests" / f"more-{number}.bin")
        sandbox = Sandbox(project, ["tests"], pristine=project)
        try:
            assert _blocks(sandbox.snapshot) < 4 * 1024 * 1024, "every name was copied"
        finally:
            sandbox.close()


@pytest.mark.parametrize("where", ["workspace", "read-only-snapshot"])
@pytest.mark.parametrize("size", [MAX_READ_BYTES + 1, 64 * MAX_READ_BYTES], ids=["just-over", "sixteen-gib"])
def test_a_sparse_file_in_the_project_is_refused_before_the_copy_writes_it_whole(open_tmp, where, size):
    """``truncate -s 16G`` takes no room in the project; copied, it took 16 GiB of the host's disk."""
    project = open_tmp / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_it.py").write_text("assert True\n")
    with open(project / "tests" / "empty.bin", "wb") as sparse:
        sparse.truncate(size)
    before = shutil.disk_usage(open_tmp).free
    with pytest.raises(BoundExceeded, match=f"more than {MAX_READ_BYTES:,} bytes"):
        _in_a_child_with_a_file_size_limit(
            "from reactlab import Workspace, Sandbox\n"
            + (f"Workspace({str(project)!r})" if where == "workspace" else f"Sandbox({str(project)!r}, ['tests'])")
        )
    assert shutil.disk_usage(open_tmp).free > before - 64 * 1024 * 1024


def _in_a_child_with_a_file_size_limit(code: str) -> None:
    """Run ``code`` where no file may pass 64 MiB (what a failing attempt could write is bounded), and
    raise here what it raised there: BoundExceeded by its message, anything else as an AssertionError."""
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))\n"
        "import signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "from reactlab import BoundExceeded\n"
        "try:\n" + "".join(f"    {line}\n" for line in code.splitlines()) + "except BoundExceeded as error:\n"
        "    print('BoundExceeded', error); sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode == 3:
        raise BoundExceeded(done.stdout)
    raise AssertionError(f"exit {done.returncode}: {done.stdout[-300:]} {done.stderr[-600:]}")


@pytest.mark.skipif(os.geteuid() != 0, reason="only root makes a device node")
@pytest.mark.parametrize("device", [(1, 5), (1, 8), (1, 3)], ids=["zero", "random", "null"])
def test_a_device_node_in_the_project_is_refused_never_read(open_tmp, device):
    """A project unpacked as root may hold a device node: copying /dev/zero's twin read it without end."""
    project = open_tmp / "project"
    project.mkdir()
    (project / "main.py").write_text("print(1)\n")
    os.mknod(project / "node", 0o644 | stat.S_IFCHR, os.makedev(*device))
    code = f"from reactlab import Workspace\nWorkspace({str(project)!r})"
    script = (
        "import resource, shutil, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))\n"
        "import signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "try:\n" + "".join(f"    {line}\n" for line in code.splitlines()) + "except shutil.Error as error:\n"
        "    print(error); sys.exit(0 if 'not a regular file' in str(error) else 4)\n"
        "sys.exit(5)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, (done.returncode, done.stdout[-300:], done.stderr[-300:])


def test_the_checks_copy_keeps_hard_links_as_links(box):
    workspace, sandbox = box
    made = "printf 'x = 1\\n' > one.py && ln one.py two.py && mkdir lib && ln one.py lib/three.py"
    assert sh(sandbox, made).exit_code == 0
    seen: list[tuple[int, int]] = []
    check = independent_test_run(
        workspace, "stat -c '%h %i' one.py two.py lib/three.py; python3 -c 'import one; print(one.x)'"
    )
    for line in check.stdout.splitlines()[:3]:
        links, inode = line.split()
        seen.append((int(links), int(inode)))
    assert {inode for _, inode in seen} == {seen[0][1]} and seen[0][0] == 3
    assert check.stdout.splitlines()[3] == "1"


# The independent check cannot be forged by anything the run left behind.
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


HOOKS = ["usercustomize.py", "sitecustomize.py", "usercustomize/__init__.py"]
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


NAMES = ["x\n- tests", "\x1b[1A\x1b[2K", "y\r~ shop unchanged", "z\x1b]0;title\x07"]


def test_file_names_cannot_fake_or_hide_manifest_lines(shop):
    workspace, sandbox = shop, Sandbox(shop.root, shop.read_only)
    script = "".join(f"open({name!r}, 'w').close()\n" for name in NAMES)
    (workspace.root / "make_names.py").write_text(script)
    assert sh(sandbox, "python3 make_names.py").exit_code == 0
    assert sh(sandbox, "echo changed >> shop/delivery.py").exit_code == 0
    sandbox.close()
    check = independent_test_run(workspace, SHOP_TEST_COMMAND)
    text = str(check.manifest)
    lines = text.split("\n")
    assert len(lines) == len(check.manifest.added) + len(check.manifest.changed) + len(check.manifest.removed)
    assert all(line[:2] in ("+ ", "- ", "~ ") for line in lines)
    assert all(line.isprintable() for line in lines)
    assert "~ shop/delivery.py" in lines


# The copy and the snapshot are private: no other local user reads them.
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
    assert not reachable(str(workspace.root / "shop"), other, other), "another local user can enter the copy"
    folder = workspace.folder.stat()
    assert folder.st_uid == os.geteuid() and stat.S_IMODE(folder.st_mode) & 0o007 == 0
    if os.geteuid() == 0:  # and really: another uid cannot read it
        _assert_other_user_cannot_read(workspace.root / "shop" / "delivery.py")


@pytest.mark.parametrize(
    "command",
    [
        "chmod 000 /work",
        "chmod 200 /work",  # write only: no listing, no entering
        "chmod 100 /work",  # enter only: no listing
        "chmod 600 /work",
        "chmod 6000 /work",
        "(sleep 0.2; chmod 000 /work) >/dev/null 2>&1 & disown; sleep 0.5",
    ],
    ids=["000", "write-only", "search-only", "no-search", "setid-only", "from-a-background-job"],
)
def test_a_command_that_closes_the_copy_itself_leaves_the_next_commands_a_copy_to_run_in(box, command):
    """/work is the copy's own folder: a command owns it and may close it, and every later command
    of the run then failed before it started (SandboxUnavailable, blaming the way the copy was
    made), the run ended by one command. The host opens it to its owner again after each command."""
    workspace, sandbox = box
    sh(sandbox, command)
    after = sh(sandbox, "echo next; ls /work/shop/delivery.py")
    assert (after.exit_code, after.stdout) == (0, "next\n/work/shop/delivery.py\n"), after
    mode = stat.S_IMODE(workspace.root.stat().st_mode)
    assert mode & 0o700 == 0o700 and mode & 0o6000 == 0, oct(mode)
    assert not reachable(str(workspace.root / "shop"), 65534, 65534), "the copy is private still"


def _assert_other_user_cannot_read(path: Path, uid: int = 65534, gid: int = 65534) -> None:
    attempt = subprocess.run(
        ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", "cat", str(path)],
        capture_output=True,
        check=False,
    )
    assert attempt.returncode != 0 and attempt.stdout == b"", path


def test_the_read_only_snapshot_is_readable_by_the_sandbox_alone(box):
    """A classmate sharing the caller's primary group must not read the protected files."""
    _, sandbox = box
    folder = sandbox._held.snapshot
    uid, gid = host_identity()
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            continue
        if acting_as_root():  # root's, read by the sandbox gid, which no account has
            assert (info.st_uid, info.st_gid) == (0, gid) and stat.S_IMODE(info.st_mode) & 0o027 == 0, path
        else:  # the caller's alone: 0500 and 0400
            assert info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077 == 0, path
    if os.geteuid() == 0:
        same_group = os.getgid()
        _assert_other_user_cannot_read(folder / "read-only" / "tests" / "test_delivery.py", 65534, same_group)
        _assert_other_user_cannot_read(folder / "etc" / "passwd")


def test_cleanup_removes_a_copy_a_command_locked():
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


@pytest.mark.parametrize("output", ["route", "json"])
def test_a_copy_the_cli_says_it_kept_survives_the_sweep_of_the_next_run(tmp_path, output):
    """`reactlab run` keeps the copy and prints where; its process then ends, and the next Workspace
    made on the machine swept every copy of a dead process without the KEPT mark: the copy the user
    was told to look at was gone."""
    project, done = cli_run(tmp_path, "echo changed > notes.txt", output)
    assert done.returncode == 0, done.stderr[-500:]
    if output == "json":
        copy = Path(json.loads(done.stdout)["workspace"])
    else:
        copy = Path(done.stdout.split("working copy kept: ")[1].split("\n")[0])
    try:
        assert (copy / "notes.txt").read_text() == "changed\n"
        Workspace(project).cleanup()  # the next run on this machine: it sweeps dead processes' copies
        assert copy.exists(), "the kept copy was swept"
        assert (copy / "notes.txt").read_text() == "changed\n"
    finally:
        remove_tree(copy.parent)


class _Broken:
    """A client that fails the way a bug does (not a ReactlabError): nobody would own the copy."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def send(self, messages, tools):
        raise self.error


@pytest.mark.parametrize(
    "error", [AttributeError("'list' object has no attribute 'get'"), RecursionError(), KeyboardInterrupt()]
)
def test_a_run_that_fails_unexpectedly_removes_its_copy(error, monkeypatch):
    made: list[Workspace] = []
    real_init = Workspace.__init__

    def remembered(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Workspace, "__init__", remembered)
    with pytest.raises(type(error)):
        run_in_copy(SHOP, _Broken(error))
    assert len(made) == 1 and not made[0].folder.exists()
    outcome = run_in_copy(SHOP, Script().final_answer("done").client())
    try:
        assert outcome.answer == "done" and outcome.workspace.folder.exists(), "a run that ends is the caller's"
    finally:
        outcome.workspace.cleanup()


# Folders of processes that died: ours go, everything else stays and is never followed.
def _plant_stale(parent: Path, prefix: str, outside: Path) -> dict[str, bool]:
    """Names a sweep meets in ``parent``, each with whether it is to go."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    dead = max(int(name) for name in os.listdir("/proc") if name.isdigit()) + 100_000
    planted = {
        f"{prefix}{namespace}-{dead}-link": False,  # a symlink to a folder outside: not followed, it stays
        f"{prefix}{namespace}-{dead}-full": True,  # a folder holding links to outside: the links go
        f"{prefix}{namespace}-{dead}-odd\n name": True,
        f"{prefix}{namespace}-{dead}-kept": False,  # a copy the user asked to keep
        f"{prefix}{namespace}-{os.getpid()}-alive": False,  # a live process's
        f"{prefix}{namespace + 1}-{dead}-other": False,  # another PID namespace's
        f"{prefix}{namespace}-x{dead}-notapid": False,
    }
    link, full, odd, kept, *folders = (parent / name for name in planted)
    link.symlink_to(outside)
    for folder in [full, odd, kept, *folders]:
        folder.mkdir()
    (kept / KEEP_MARK).touch()
    (full / "inner").mkdir()
    (full / "folder").symlink_to(outside)
    (full / "file").symlink_to(outside / "kept")
    (full / "inner" / "up").symlink_to(outside)
    return planted


def test_the_sweep_of_dead_processes_folders_follows_nothing_and_spares_the_living_and_the_kept(open_tmp, monkeypatch):
    outside = open_tmp / "outside"
    outside.mkdir()
    (outside / "kept").write_text("precious")
    temp = open_tmp / "temp"  # not /tmp itself: other tests' runs sweep that
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    snapshots = _plant_stale(temp, "reactlab-read-only-", outside)
    copies = _plant_stale(temp, "reactlab-", outside)
    with Workspace(shop_path(), SHOP_READ_ONLY) as workspace, Sandbox(workspace.root, workspace.read_only) as sandbox:
        assert sh(sandbox, "echo swept").stdout == "swept\n"
    assert (outside / "kept").read_text() == "precious" and sorted(os.listdir(outside)) == ["kept"]
    for name, goes in {**snapshots, **copies}.items():
        assert os.path.lexists(temp / name) != goes, name


def test_only_our_own_folders_of_dead_processes_are_swept(tmp_path):
    """Anyone may put a file, a link or a folder named like ours in /tmp: none is removed, nor
    followed, and making a Workspace and a Sandbox still works."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    dead = 4_000_000_000  # above any pid_max: no process has it
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("kept")
    planted, expected = [], []  # what stays: all of it for root; a non-root caller's own folder goes
    for prefix in ("reactlab-", "reactlab-read-only-"):
        base = Path(tempfile.gettempdir()) / f"{prefix}{namespace}-{dead}-"
        (base.with_name(base.name + "file")).write_text("a file")
        (base.with_name(base.name + "link")).symlink_to(target)
        foreign = base.with_name(base.name + "foreign")
        foreign.mkdir()
        if os.geteuid() == 0:
            os.chown(foreign, 65534, 65534)
        made = [base.with_name(base.name + name) for name in ("file", "link", "foreign")]
        planted += made
        expected += made if os.geteuid() == 0 else made[:2]
    try:
        with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
            Sandbox(workspace.root, workspace.read_only).close()
        left = [path for path in planted if os.path.lexists(path)]
        assert left == expected and (target / "keep").read_text() == "kept"
    finally:
        for path in planted:
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.exists():
                path.rmdir()


@pytest.mark.skipif(not acting_as_root(), reason="bind-mounts a file: a name root itself cannot remove")
def test_a_stale_name_the_sweep_cannot_remove_does_not_stop_a_sandbox(open_tmp, monkeypatch):
    """Any local user may put a file named like a dead process's folder in /tmp; no other user can
    remove it (EPERM in a sticky folder), nor root a mount point (EBUSY): it stays, and every
    Sandbox made there still works."""
    namespace = os.stat("/proc/self/ns/pid").st_ino
    dead = max(int(name) for name in os.listdir("/proc") if name.isdigit()) + 100_000
    temp = open_tmp / "temp"
    temp.mkdir()
    stuck = temp / f"reactlab-read-only-{namespace}-{dead}-stuck"
    stuck.write_text("")
    subprocess.run(["mount", "--bind", "/dev/null", str(stuck)], check=True)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    try:
        with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
            with Sandbox(workspace.root, workspace.read_only) as sandbox:
                assert sh(sandbox, "echo made").stdout == "made\n"
        assert stuck.exists()
    finally:
        subprocess.run(["umount", str(stuck)], check=True)


# The sandbox uid itself, on the host (as every command is, to the kernel), cannot steer root.
def _as_sandbox_uid(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    uid, gid = host_identity()
    setpriv = ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    return subprocess.run([*setpriv, "/bin/sh", "-c", script, "attack", *args], capture_output=True, text=True)


_HOST_ATTACKS = {
    # /tmp is sticky: the owner of a folder in it may rename it and leave a symlink in its place.
    "snapshot-moved-and-linked": 'mv "$1" "$1.aside" && ln -s "$3" "$1"',
    "snapshot-opened-to-all": 'chmod 0777 "$1" || chmod 0777 "$1/etc"',
    "snapshot-taken-over": 'rm -rf "$1/read-only" "$1/etc"; mkdir "$1/x"',
    "copys-folder-replaced": 'mv "$2" "$2.aside" || mv "$2/project" "$2/aside" || ln -s "$3" "$2/link"',
}


@pytest.mark.skipif(not acting_as_root(), reason="for a non-root caller the sandbox uid is the caller itself")
@pytest.mark.parametrize("attack", _HOST_ATTACKS.values(), ids=_HOST_ATTACKS.keys())
def test_the_sandbox_uid_cannot_steer_what_root_does_with_the_snapshot_or_the_copy(box, open_tmp, attack):
    workspace, sandbox = box
    assert sh(sandbox, "echo first").stdout == "first\n"
    victim = open_tmp / "victim"
    victim.mkdir()
    before = victim.stat().st_mtime_ns
    done = _as_sandbox_uid(attack, str(sandbox._held.snapshot), str(workspace.folder), str(victim))
    assert done.returncode != 0, "the sandbox uid changed what root made"
    for round_ in range(3):
        assert sh(sandbox, f"echo again {round_}").stdout == f"again {round_}\n"
    info = os.lstat(sandbox._held.snapshot)
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == 0
    assert list(victim.iterdir()) == [] and victim.stat().st_mtime_ns == before


def test_links_planted_in_the_copy_steer_no_host_side_walk(box, open_tmp):
    """Every walk of the copy as root (after each command, for the check, on removal) goes by
    descriptor: a link to a host file or folder is never followed, chowned through, or removed through."""
    workspace, sandbox = box
    victim = open_tmp / "victim"
    victim.mkdir()
    (victim / "file").write_text("host file")
    links = f"ln -s {victim} v && ln -s {victim}/file f && mkdir d && ln -s {victim} d/up && ln -s / root-link"
    assert sh(sandbox, links).exit_code == 0
    check = independent_test_run(workspace, SHOP_TEST_COMMAND)
    assert {"v", "f", "d/up", "root-link"} <= set(check.manifest.added)
    copy = Workspace(shop_path(), SHOP_READ_ONLY)
    (copy.root / "up").symlink_to(victim)
    assert copy.cleanup()
    assert (victim / "file").read_text() == "host file" and victim.stat().st_uid == os.getuid()
    remove_tree(victim)
