"""The class server's systemd path (SystemdSpawner), on a machine whose init is not systemd (CI's, and
the one this was written on). A container boots systemd as PID 1: systemd-nspawn on a copy-on-write
view of this machine's own disk (an overlay: what the container writes never reaches the disk below),
in cgroups of its own, whose cgroup v1 controllers are then made writable to it (nspawn mounts them
read-only: systemd's limits would be silently absent). In it, class-server installs a class as on a
systemd server: the hub and the proxy are units, and each student's server a transient unit with the
class's limits. The host's tests drive the hub over the shared network, as in test_class_server.py.

It needs root, systemd-nspawn (Debian's systemd-container) and a host with cgroup v1 and no systemd;
elsewhere it says why it skips. Part of `make class-server-test`.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from classroom.rehearse import Hub, Kernel

from .test_class_server import DISK, IMPOSTOR, SCRIPT, _answers

NSPAWN = shutil.which("systemd-nspawn")
CHECKOUT = "/var/lib/reactlab-checkout"  # inside the container
SCRIPT_INSIDE = f"{CHECKOUT}/classroom/class-server"
NOT_COPIED = shutil.ignore_patterns(".venv", ".git", "build", "artifacts", "__pycache__", "*.egg-info", ".hypothesis")
HOST_SYSTEMD = Path("/run/systemd/system").is_dir()
CGROUP_V1 = Path("/sys/fs/cgroup/memory/cgroup.procs").exists()
CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "blkio", "devices", "freezer", "systemd", "unified")

pytestmark = [
    pytest.mark.class_server,
    pytest.mark.skipif(os.geteuid() != 0, reason="boots a container and makes users, as root"),
    pytest.mark.skipif(
        not NSPAWN, reason="systemd-nspawn is not installed (Debian's systemd-container; CI installs it)"
    ),
    pytest.mark.skipif(
        HOST_SYSTEMD, reason="this machine's init is systemd: test_class_server.py drives SystemdSpawner"
    ),
    pytest.mark.skipif(not CGROUP_V1, reason="no cgroup v1 controllers here: the container's limits are not set up"),
]


@dataclass
class Container:
    leader: int  # the container's PID 1, as the host sees it
    root: Path  # its root folder, as the host sees it
    folder: str  # the class folder, inside
    url: str
    teacher: str
    students: list[str]
    passwords: dict[str, str]

    def run(self, *command: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
        """A command inside the container (its namespaces, its root), with a plain environment and this
        machine's ways to the package registries (certificates, proxies, pip's and npm's settings)."""
        ways = ("CERT", "CA_", "SSL", "PROXY", "PIP_", "NPM_CONFIG")
        keep = [f"{name}={value}" for name, value in os.environ.items() if any(way in name.upper() for way in ways)]
        plain = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C.UTF-8", *keep]
        inside = ["nsenter", "-t", str(self.leader), "-a", "env", "-i", *plain, *command]
        done = subprocess.run(inside, capture_output=True, text=True, timeout=timeout)
        assert not check or done.returncode == 0, f"{' '.join(command)}: {done.stdout}{done.stderr}"
        return done

    def unit(self, name: str, *properties: str) -> dict[str, str]:
        shown = self.run("systemctl", "show", name, *(f"--property={p}" for p in properties)).stdout
        return dict(line.split("=", 1) for line in shown.splitlines() if "=" in line)


def free_ports(count: int) -> list[int]:
    """Ports below 1024, as the recipe's are (only root may bind them), free on 127.0.0.1 now."""
    free = []
    for port in random.sample(range(700, 1000), 300):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        free.append(port)
        if len(free) == count:
            return free
    raise RuntimeError("no free ports below 1024")


def _into_own_cgroups(name: str) -> None:
    """In the new process, before it runs nspawn: cgroups of its own in every hierarchy (not cpuset,
    which takes no process before its CPUs are set), so that the container's are made under them."""
    for controller in CONTROLLERS:
        if controller != "cpuset" and Path("/sys/fs/cgroup", controller, "cgroup.procs").exists():
            folder = Path("/sys/fs/cgroup", controller, name)
            folder.mkdir(exist_ok=True)
            (folder / "cgroup.procs").write_text(str(os.getpid()))


WRITABLE_CGROUPS = """
for controller in memory pids cpu cpuacct; do
  umount /sys/fs/cgroup/$controller && mount -t cgroup -o $controller cgroup /sys/fs/cgroup/$controller
done
# the loop devices the students' disks may get (nspawn's /dev has none; the bound loop-control hands them out)
for number in $(seq 0 63); do [ -e /dev/loop$number ] || mknod -m 600 /dev/loop$number b 7 $number; done
"""


@pytest.fixture(scope="module")
def container() -> Iterator[Container]:
    tag = secrets.token_hex(3)
    base = Path(tempfile.mkdtemp(prefix="reactlab-nspawn-", dir="/var/tmp"))
    cgroup = f"reactlab-nspawn-{tag}"
    # What the container writes goes to memory (at most 4 GiB; the class it installs takes about 1), and
    # is gone with it: nothing reaches this machine's disk.
    (base / "written").mkdir()
    (base / "root").mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4G,mode=0700", "tmpfs", str(base / "written")], check=True)
    (base / "written" / "upper").mkdir()
    (base / "written" / "work").mkdir()
    layers = f"lowerdir=/,upperdir={base}/written/upper,workdir={base}/written/work"
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o", layers, str(base / "root")], check=True, timeout=30)
    boot = None
    try:
        with (base / "boot.log").open("wb") as log:
            boot = subprocess.Popen(
                [NSPAWN, "--boot", "-D", str(base / "root"), "--register=no", "--keep-unit", "--console=pipe",
                 f"--machine=rl-{tag}", "--bind=/dev/loop-control",
                 # nspawn's own seccomp filter refuses pidfd_getfd, which the hub uses to hold each
                 # server's port (a machine booting systemd has no such filter on the hub's unit)
                 "--system-call-filter=pidfd_getfd", "--", "--unit=basic.target"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=lambda: _into_own_cgroups(cgroup),
                # /proc/sys writable, as on a machine: bwrap --disable-userns writes to it in its namespace
                env={**os.environ, "SYSTEMD_NSPAWN_API_VFS_WRITABLE": "1"},
            )  # fmt: skip
        leader = _leader(boot, base / "boot.log")
        # the checkout, copied in: where it lies on this machine may be hidden inside (a checkout under
        # /tmp is, by the container's own /tmp)
        shutil.copytree(SCRIPT.parent.parent, base / "root" / CHECKOUT.lstrip("/"), ignore=NOT_COPIED)
        public, hub_port, proxy_api = free_ports(3)
        tag_names = f"rl-sd-{tag}"
        made = Container(leader, base / "root", f"/opt/reactlab-class-{tag}", f"http://127.0.0.1:{public}",
                         f"{tag_names}-t", [f"{tag_names}-a", f"{tag_names}-b"], {})  # fmt: skip
        made.run("sh", "-c", WRITABLE_CGROUPS)
        made.run("systemctl", "daemon-reexec")  # it finds the controllers writable now
        # the part of a full boot the class needs: logins allowed (pam_nologin refuses them until this runs)
        made.run("systemctl", "start", "systemd-user-sessions.service")
        made.run(
            "env", f"CLASS_DIR={made.folder}", f"CLASS_GROUP={tag_names}", f"CLASS_TEACHER={made.teacher}",
            "CLASS_IP=127.0.0.1", f"CLASS_PORT={public}", f"CLASS_HUB_PORT={hub_port}",
            f"CLASS_PROXY_API_PORT={proxy_api}", f"CLASS_DISK={DISK}", SCRIPT_INSIDE, "install", timeout=900,
        )  # fmt: skip
        made.run("env", f"CLASS_DIR={made.folder}", SCRIPT_INSIDE, "add-students", *made.students)
        passwords = (made.root / made.folder.lstrip("/") / "state" / "passwords").read_text()
        made.passwords = dict(line.split() for line in passwords.splitlines())
        made.run("systemctl", "start", "reactlab-class")
        deadline = time.monotonic() + 90
        while not _answers(f"{made.url}/hub/api/"):
            assert time.monotonic() < deadline, made.run("journalctl", "-u", "reactlab-class", "--no-pager").stdout
            time.sleep(0.5)
        yield made
    finally:
        if boot is not None:
            with contextlib.suppress(Exception):
                leader = _leader(boot, base / "boot.log", 5)
                subprocess.run(["nsenter", "-t", str(leader), "-a", "systemctl", "poweroff"], timeout=30)
            try:
                boot.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(boot.pid, signal.SIGKILL)
                boot.wait(10)
        # only once the container is gone: its last processes may still be writing
        subprocess.run(["umount", str(base / "root")], timeout=30)
        subprocess.run(["umount", str(base / "written")], timeout=30)
        if not any(os.path.ismount(base / folder) for folder in ("root", "written")):
            shutil.rmtree(base, ignore_errors=True)
        for controller in CONTROLLERS:
            top = Path("/sys/fs/cgroup", controller, cgroup)
            for folder, _, _ in os.walk(top, topdown=False):
                with contextlib.suppress(OSError):
                    os.rmdir(folder)


def _leader(boot: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> int:
    """The container's PID 1 (nspawn's child), once systemd says it has booted."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert boot.poll() is None, f"the container ended:\n{log.read_text(errors='replace')}"
        children = Path(f"/proc/{boot.pid}/task/{boot.pid}/children").read_text().split()
        if children:
            state = subprocess.run(["nsenter", "-t", children[0], "-a", "systemctl", "is-system-running"],
                                   capture_output=True, text=True, timeout=30).stdout.strip()  # fmt: skip
            if state in ("running", "degraded"):
                return int(children[0])
        time.sleep(0.5)
    raise TimeoutError(f"systemd did not boot in the container:\n{log.read_text(errors='replace')}")


@pytest.fixture(scope="module")
def kernels(container: Container) -> dict[str, Kernel]:
    teacher = Hub(container.url, container.teacher, container.passwords[container.teacher])
    teacher.start_servers(container.students, timeout=240)
    return {name: teacher.student(name).kernel() for name in container.students}


FACTS = """
import json, os, resource
from reactlab import Sandbox
cgroups = dict(line.split(":", 2)[1:] for line in open("/proc/self/cgroup").read().splitlines())
with open("/tmp/written-in-tmp", "w") as file:
    file.write("mine")
folder = os.path.join("/tmp", "copy")
os.makedirs(folder, exist_ok=True)
with Sandbox(folder) as sandbox:
    ran = sandbox.run("echo in the sandbox", timeout=60)
    limits = sandbox.limits()
print(json.dumps({
    "pid": os.getpid(),
    "memory_cgroup": cgroups["memory"],
    "cpu_seconds": resource.getrlimit(resource.RLIMIT_CPU)[0],
    "home_on_its_disk": os.stat(os.path.expanduser("~")).st_dev != os.stat("/").st_dev,
    "tmp_on_home_disk": os.stat("/tmp").st_dev == os.stat(os.path.expanduser("~")).st_dev,
    "sandbox": [ran.exit_code, ran.stdout],
    "per_run": [limits["processes"], limits["memory_bytes"]],
}))
"""


def test_each_server_is_a_unit_of_its_own_with_the_classs_limits_and_its_tmp_on_its_disk(
    container: Container, kernels: dict[str, Kernel]
) -> None:
    settings = json.loads((container.root / container.folder.lstrip("/") / "class.json").read_text())
    for name, kernel in kernels.items():
        ran = kernel.run(FACTS, timeout=180)
        assert ran.error is None, ran.error
        facts = json.loads(ran.stdout)
        unit = f"jupyter-{name}-singleuser"
        shown = container.unit(unit, "ActiveState", "MemoryMax", "TasksMax", "CPUQuotaPerSecUSec", "UMask")
        assert shown == {"ActiveState": "active", "MemoryMax": str(768 * 2**20), "TasksMax": "512",
                         "CPUQuotaPerSecUSec": "1s", "UMask": "0077"}, shown  # fmt: skip
        assert facts["memory_cgroup"].endswith(f"/{unit}.service"), facts
        limit = container.run("cat", f"/sys/fs/cgroup/memory{facts['memory_cgroup']}/memory.limit_in_bytes").stdout
        assert int(limit) == 768 * 2**20  # the kernel's cgroup has the limit, really
        assert facts["cpu_seconds"] == settings["kernel_cpu_minutes"] * 60
        assert facts["home_on_its_disk"] and facts["tmp_on_home_disk"], facts
        written = container.run("cat", f"{container.folder}/spaces/{name}/tmp/written-in-tmp").stdout
        assert written == "mine"  # their /tmp is spaces/NAME/tmp (BindPaths), on their disk
        assert facts["sandbox"] == [0, "in the sandbox\n"], facts
        # no cgroup per run: systemd delegates none of a unit's controllers to its user on cgroup v1
        assert facts["per_run"] == [None, None], facts


@pytest.mark.parametrize("how", ["restart", "kill"])
def test_the_hub_restarted_or_killed_under_systemd_keeps_every_server_and_the_proxy(
    container: Container, kernels: dict[str, Kernel], how: str
) -> None:
    """`systemctl restart reactlab-class` (what the guide says after a setting), and a crash that
    systemd restarts (Restart=on-failure): the servers' units and the proxy's unit run on."""
    marker = secrets.token_hex(8)
    units = {name: container.unit(f"jupyter-{name}-singleuser", "MainPID")["MainPID"] for name in kernels}
    proxy = container.unit("reactlab-class-proxy", "MainPID")["MainPID"]
    hub = container.unit("reactlab-class", "MainPID")["MainPID"]
    for kernel in kernels.values():
        assert kernel.run(f"marker = {marker!r}").error is None
    if how == "restart":
        container.run("systemctl", "restart", "reactlab-class")
    else:
        container.run("systemctl", "kill", "--signal=KILL", "reactlab-class")
    deadline = time.monotonic() + 120
    while not (_answers(f"{container.url}/hub/api/") and container.unit("reactlab-class", "MainPID")["MainPID"] != hub):
        assert time.monotonic() < deadline, container.run("journalctl", "-u", "reactlab-class", "--no-pager").stdout
        time.sleep(0.5)
    assert container.unit("reactlab-class-proxy", "MainPID")["MainPID"] == proxy
    teacher = Hub(container.url, container.teacher, container.passwords[container.teacher])
    for name, kernel in kernels.items():
        assert container.unit(f"jupyter-{name}-singleuser", "MainPID")["MainPID"] == units[name], name
        assert teacher.api.get(f"/users/{name}").json()["servers"][""]["ready"], name
        assert kernel.run("print(marker)").stdout == f"{marker}\n", name


def test_a_killed_servers_port_stays_its_students_under_systemd(
    container: Container, kernels: dict[str, Kernel]
) -> None:
    """The hub (started again by the test above) took each server back with its port: one killed,
    the other student tries its port at once, on every address, and cannot take it."""
    owner, other = container.students
    unit = f"jupyter-{owner}-singleuser"
    main = container.unit(unit, "MainPID")["MainPID"]
    environ = container.run("cat", f"/proc/{main}/environ").stdout.split("\0")
    url = next(variable for variable in environ if variable.startswith("JUPYTERHUB_SERVICE_URL="))
    port = int(url.split(":")[-1].split("/")[0])
    container.run("systemctl", "kill", "--signal=KILL", unit)
    targets = [[host, port] for host in ("127.0.0.1", "0.0.0.0", "::")]
    tried = subprocess.run(
        ["nsenter", "-t", str(container.leader), "-a", "setpriv", f"--reuid={other}", f"--regid={other}",
         "--clear-groups", "--", "timeout", "--signal=TERM", "3", "/usr/bin/python3", "-c", IMPOSTOR],
        input=json.dumps(targets) + "\n", capture_output=True, text=True, timeout=60, cwd="/",
    )  # fmt: skip
    found = json.loads(tried.stdout.splitlines()[-1])
    assert (found["bound"], found["received"]) == ([], []), found
    assert found["errors"] == {f"{host} {port}": ["EADDRINUSE"] for host, _ in targets}, found


def test_class_server_stop_ends_every_unit(container: Container, kernels: dict[str, Kernel]) -> None:
    for kernel in kernels.values():
        kernel.socket.close()
    container.run("env", f"CLASS_DIR={container.folder}", SCRIPT_INSIDE, "stop", timeout=180)
    names = ["reactlab-class", "reactlab-class-proxy", *(f"jupyter-{name}-singleuser" for name in container.students)]
    deadline = time.monotonic() + 60
    while any(container.unit(name, "ActiveState")["ActiveState"] == "active" for name in names):
        assert time.monotonic() < deadline, {name: container.unit(name, "ActiveState") for name in names}
        time.sleep(0.5)
    assert not _answers(f"{container.url}/hub/api/")
