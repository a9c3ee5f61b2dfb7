"""The escape suite of SANDBOX.md §7, against real bwrap. Host files are byte-compared after each attempt."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time

import pytest

from reactlab import Sandbox, SandboxUnavailable, Workspace
from reactlab import sandbox as sandbox_module
from reactlab.samples import shop_path
from reactlab.sandbox import OUTPUT_LIMIT

from .conftest import FAKE_KEY, needs_sandbox, sh

pytestmark = needs_sandbox


# 1. The project's own tests run; writes elsewhere in the copy work and show on the host.
def test_python_and_unittest_run_inside(box):
    workspace, sandbox = box
    result = sh(sandbox, "python3 -m unittest discover -s tests 2>&1; echo exit=$?")
    assert "Ran 3 tests" in result.stdout and "FAILED (failures=1)" in result.stdout and "exit=1" in result.stdout
    result = sh(sandbox, "python3 -c 'print(2 + 2)'")
    assert (result.exit_code, result.stdout) == (0, "4\n")


def test_writes_outside_protected_paths_reach_the_copy(box):
    workspace, sandbox = box
    result = sh(sandbox, "echo made-inside > shop/new.txt && mkdir -p docs && echo x > docs/n.md")
    assert result.exit_code == 0
    assert (workspace.root / "shop/new.txt").read_text() == "made-inside\n"
    assert not (workspace.source / "shop/new.txt").exists()


# 2. Every way of changing a read-only path fails.
ATTEMPTS = [
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


@pytest.mark.parametrize("command", ATTEMPTS)
def test_read_only_paths_cannot_be_changed(box, command):
    _, sandbox = box
    result = sh(sandbox, command)
    assert result.exit_code != 0, result.stderr


# 3. The host is not readable.
def test_host_secrets_and_homes_are_invisible(box, tmp_path):
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
    listing = sh(sandbox, "ls -A /root")
    assert listing.stdout.split() in ([], [".pyenv"])


def test_a_symlinked_or_missing_read_only_source_is_refused_before_running(box, tmp_path):
    workspace, _ = box
    marker = workspace.root / "ran.txt"
    planted = Sandbox(workspace.root, ["planted"])
    (workspace.root / "planted").symlink_to("/root")
    with pytest.raises(SandboxUnavailable, match="missing or a symlink"):
        planted.run("touch ran.txt", timeout=5)
    with pytest.raises(SandboxUnavailable, match="missing or a symlink"):
        Sandbox(workspace.root, ["no/such/path"]).run("touch ran.txt", timeout=5)
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


def test_a_parent_swapped_for_a_symlink_does_not_bind_host_files(box, tmp_path):
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


# 4. No API key, anywhere.
def test_the_api_key_is_absent_from_every_environment(box):
    assert os.environ["DEEPSEEK_API_KEY"] == FAKE_KEY
    _, sandbox = box
    result = sh(sandbox, "env; echo ---; cat /proc/*/environ | tr '\\0' '\\n'; echo ---; ls /proc/self/fd")
    assert FAKE_KEY not in result.stdout and "DEEPSEEK" not in result.stdout
    assert result.stdout.split("---")[2].split() == ["0", "1", "2", "3"]  # 3 is ls's own directory handle


# 5. No network: loopback server gets no hit, no DNS, no route out, no host abstract socket.
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


def test_no_network(box, loopback_server):
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


# 6. Host processes are out of reach; no privileges.
def test_host_processes_cannot_be_signalled(box):
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


def test_no_capabilities_no_new_privileges_no_nested_namespaces(box):
    _, sandbox = box
    status = sh(sandbox, "grep -E '^(CapEff|CapPrm|NoNewPrivs|Uid)' /proc/self/status").stdout
    assert "CapEff:\t0000000000000000" in status and "CapPrm:\t0000000000000000" in status
    assert "NoNewPrivs:\t1" in status and "Uid:\t1000" in status
    assert sh(sandbox, "unshare -U true").exit_code != 0
    assert sh(sandbox, "mount -t tmpfs none /work/tests").exit_code != 0
    assert sh(sandbox, "mknod /tmp/dev b 8 0").exit_code != 0


# 7. Timeouts kill everything; nothing outlives a call.
def host_processes(marker: str) -> str:
    return subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout


def test_timeout_kills_a_command_that_ignores_sigterm(box):
    _, sandbox = box
    started = time.monotonic()
    result = sandbox.run("trap '' TERM; sleep 987654", timeout=1)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - started < 3
    assert host_processes("987654") == ""


def test_background_jobs_do_not_survive_the_call(box):
    _, sandbox = box
    result = sh(sandbox, "sleep 876541 & nohup sleep 876542 >/dev/null 2>&1 & setsid sleep 876543 & disown; echo back")
    assert result.stdout == "back\n" and result.duration < 5
    time.sleep(0.2)
    assert host_processes("87654[123]") == ""


# 8. Output is capped, and the pipe is drained.
def test_ten_megabytes_of_output_is_capped(box):
    _, sandbox = box
    result = sh(sandbox, "head -c 10000000 /dev/zero | tr '\\0' x")
    assert result.exit_code == 0 and result.truncated
    assert len(result.stdout) == OUTPUT_LIMIT and set(result.stdout) == {"x"}


def test_both_streams_are_drained_at_once(box):
    """One thread reads both pipes while the command runs: a flood on either, or on both at once,
    must not stall the other (a reader that waited for stdout's end first would hang here)."""
    _, sandbox = box
    flood = "head -c 300000 /dev/zero | tr '\\0' {letter}"
    quiet_stdout = sh(sandbox, f"{flood.format(letter='e')} >&2; echo done", timeout=10)
    assert (quiet_stdout.stdout, quiet_stdout.timed_out, quiet_stdout.truncated) == ("done\n", False, True)
    assert quiet_stdout.stderr == "e" * OUTPUT_LIMIT
    both = sh(sandbox, f"{flood.format(letter='o')} & {flood.format(letter='e')} >&2; wait", timeout=10)
    assert (both.exit_code, both.timed_out, both.truncated) == (0, False, True)
    assert (both.stdout, both.stderr) == ("o" * OUTPUT_LIMIT, "e" * OUTPUT_LIMIT)


def test_endless_output_ends_at_the_timeout(box):
    _, sandbox = box
    result = sandbox.run("cat /dev/zero", timeout=2)
    assert result.timed_out and result.truncated and len(result.stdout) == OUTPUT_LIMIT


@pytest.mark.parametrize("prefix", ["/usr", "/usr/local"])
def test_an_interpreter_under_usr_is_not_bound_again(prefix, monkeypatch, tmp_path):
    """Debian's python3 has sys.base_prefix '/usr': /usr is bound read-only already, once."""
    monkeypatch.setattr(sandbox_module, "python_prefix", lambda: prefix)
    box = Sandbox(tmp_path)
    argv = box.argv("true")
    assert box.python() is None
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"].count("/usr") == 1
    assert argv[argv.index("PATH") + 1] == "/usr/local/bin:/usr/bin:/bin"
