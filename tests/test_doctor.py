"""The setup check: what works on this machine, and the one command that fixes the sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from reactlab.doctor import Machine, check_all, container_engine, report, sandbox_advice

from .conftest import FAKE_KEY, SANDBOX_PROBLEM, needs_sandbox, without_sandbox

LINUX = Machine("linux", "debian", "12")


@pytest.mark.parametrize(
    "machine, fix",
    [
        (Machine("darwin"), "macOS has no Bubblewrap"),
        (Machine("win32"), "WSL 2"),
        (Machine("linux", "ubuntu", "22.04", hosted="colab"), "Colab"),
        (Machine("linux", "ubuntu", "22.04", hosted="binder"), "Binder runs in Docker"),
        (Machine("linux", "debian", "12", hosted="docker"), "--security-opt seccomp=unconfined"),
        (Machine("linux", "debian", "12", hosted="kubernetes"), "seccompProfile and appArmorProfile"),
        (Machine("linux", "debian", "12", hosted="container"), "its engine must let it make user namespaces"),
        (Machine("linux", "debian", "12", bwrap_installed=False), "`sudo apt-get install bubblewrap`"),
        (Machine("linux", "ubuntu", "24.04", bwrap_installed=False), "`sudo apt-get install bubblewrap`"),
        (Machine("linux", "fedora", "40", bwrap_installed=False), "`sudo dnf install bubblewrap`"),
        (Machine("linux", "debian", "12", libseccomp_installed=False), "`sudo apt-get install libseccomp2`"),
        (Machine("linux", "fedora", "40", libseccomp_installed=False), "`sudo dnf install libseccomp`"),
        (
            Machine("linux", "ubuntu", "24.04", apparmor_restricts_userns=True),
            "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
        ),
        (Machine("linux", "debian", "10", userns_clone_disabled=True), "kernel.unprivileged_userns_clone=1"),
        (Machine("linux", "centos", "8", max_user_namespaces=0), "user.max_user_namespaces=15000"),
    ],
    ids=lambda v: v if isinstance(v, str) else f"{v.system}-{v.distro}-{v.hosted or 'own'}",
)
def test_the_fix_fits_the_machine(machine, fix):
    assert fix in sandbox_advice(machine)


def test_every_check_is_named_and_the_whole_check_is_fast(monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("REACTLAB_BASE_URL", raising=False)
    started = time.monotonic()
    checks = check_all()
    assert time.monotonic() - started < 5
    assert [c.name for c in checks] == ["Python", "widgets", "sandbox", "live model"]
    assert checks[0].status == checks[1].status == "ok"
    assert checks[2].status == ("ok" if SANDBOX_PROBLEM is None else "limited")
    assert checks[3].status == "limited" and "DEEPSEEK_API_KEY" in checks[3].fix


def test_a_key_or_a_server_is_reported_but_never_shown(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    assert FAKE_KEY not in report(check_all()) and "is set (not shown)" in report(check_all())
    monkeypatch.setenv("REACTLAB_BASE_URL", f"http://user:{FAKE_KEY}@localhost:11434/v1")
    text = report(check_all())
    assert FAKE_KEY not in text and "user" not in text and "http://localhost:11434" in text
    monkeypatch.setenv("REACTLAB_BASE_URL", "unix:/tmp/reactlab-llama-server-x/llama-server.sock:/v1")
    assert "live runs at unix:/tmp/reactlab-llama-server-x/llama-server.sock:/v1" in report(check_all())


def test_without_a_sandbox_for_real_it_says_why_and_how_to_fix_it():
    done = subprocess.run(
        without_sandbox([sys.executable, "-m", "reactlab.doctor"]), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr  # limited is not failed: the notebooks still run
    line = next(line for line in done.stdout.splitlines() if "sandbox" in line)
    assert line.startswith("~ sandbox") and "could not build a sandbox" in line and "replayed" in line
    assert "fix: " in done.stdout.split(line, 1)[1].splitlines()[1]


@needs_sandbox
def test_with_a_sandbox_it_says_so():
    done = subprocess.run([sys.executable, "-m", "reactlab.doctor"], capture_output=True, text=True, timeout=60)
    assert "✓ sandbox    Bubblewrap builds the sandbox" in done.stdout and "fix: `" not in done.stdout


# /proc/self/mountinfo as each kind of machine shows it (the lines that matter, and a few that do not).
VM = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683784k
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
"""
DOCKER = """\
590 520 0:52 / / rw,relatime master:300 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/Q2V
611 590 254:1 /var/lib/docker/containers/4f1c0e2a/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/vda1 rw
612 590 254:1 /var/lib/docker/containers/4f1c0e2a/hostname /etc/hostname rw,relatime - ext4 /dev/vda1 rw
613 590 254:1 /var/lib/docker/containers/4f1c0e2a/hosts /etc/hosts rw,relatime - ext4 /dev/vda1 rw
"""
KUBERNETES = """\
1421 1400 0:310 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/containerd/snapshots/9/fs
1440 1421 8:1 /var/lib/kubelet/pods/9a7e5c1d/etc-hosts /etc/hosts rw,relatime - ext4 /dev/sda1 rw
1441 1421 8:1 /var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/77ab/hostname /etc/hostname rw - ext4 /dev/sda1 rw
"""
PODMAN = """\
800 780 0:45 /containers/storage/overlay-containers/ab12/userdata/hostname /etc/hostname rw,nosuid - tmpfs tmpfs rw
"""


@pytest.mark.parametrize(
    "mountinfo, first_cgroup, env, containerenv, engine",
    [
        (VM, "9:name=systemd:/\n8:pids:/\n", {}, False, ""),  # a Firecracker VM made from a Docker image (/.dockerenv)
        (VM, "0::/\n", {}, False, ""),
        (DOCKER, "0::/\n", {}, False, "docker"),  # cgroup v2: only the mounts tell
        (VM, "12:pids:/docker/4f1c0e2a\n", {}, False, "docker"),  # cgroup v1, mounts not read
        (KUBERNETES, "0::/\n", {"KUBERNETES_SERVICE_HOST": "10.96.0.1"}, False, "kubernetes"),
        (KUBERNETES, "0::/\n", {}, False, "kubernetes"),
        (PODMAN, "0::/\n", {}, True, "container"),
        (VM, "0::/\n", {"container": "lxc"}, False, "container"),
    ],
    ids=["vm-with-dockerenv", "vm-cgroup-v2", "docker", "docker-cgroup-v1", "kubernetes", "kubernetes-mounts",
         "podman", "lxc"],
)  # fmt: skip
def test_a_container_is_known_by_what_its_engine_did_not_by_dockerenv(
    mountinfo, first_cgroup, env, containerenv, engine
):
    assert container_engine(mountinfo, first_cgroup, env, containerenv) == engine


def test_a_file_bound_over_etc_hostname_from_an_engines_folder_is_read_as_that_engine(tmp_path):
    """For real: a private mount namespace where /etc/hostname is a file from a Docker-like folder."""
    source = tmp_path / "var/lib/docker/containers/4f1c0e2a/hostname"
    source.parent.mkdir(parents=True)
    source.write_text("4f1c0e2a\n")
    unshare = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--map-root-user", "--mount"]
    code = "from reactlab.doctor import Machine; print(Machine.here({}).hosted)"
    done = subprocess.run(
        [*unshare, "sh", "-c", f'mount --bind "{source}" /etc/hostname && exec "$@"', "sh", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "docker"
