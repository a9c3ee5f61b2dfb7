"""JupyterHub for a class on one machine: reactlab's notebooks for every student from one shared
environment, a private home each, and limits per student on memory, CPU, processes and disk.

`classroom/class-server install` copies this file into the class folder (/opt/reactlab-class by
default), beside the settings it writes (class.json), the shared environment (env/), the proxy
(proxy/), the hub's own state and secrets (state/) and the students' disks (spaces/); `class-server
start` runs the proxy and the hub with it. The hub runs as root: it checks passwords with PAM and
starts each student's server as that student.
"""

import asyncio
import ctypes
import grp
import json
import os
import pwd
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner

CLASS = Path(__file__).resolve().parent
sys.path.insert(0, str(CLASS))  # ports.py, copied beside this file by class-server install
import ports  # noqa: E402

SETTINGS = json.loads((CLASS / "class.json").read_text(encoding="utf-8"))
ENV = CLASS / "env"  # built from Debian's python3: an interpreter under /root (pyenv) is root's alone
STATE = CLASS / "state"

c = get_config()  # noqa: F821 (JupyterHub defines it when it reads this file)

c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "cookie_secret")  # made by class-server, root's alone
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
scheme = "https" if SETTINGS["ssl_cert"] else "http"
c.JupyterHub.bind_url = f"{scheme}://{SETTINGS['ip']}:{SETTINGS['port']}"
c.JupyterHub.hub_port = int(SETTINGS["hub_port"])

# A restart of the hub (Ctrl-C, systemctl restart, a changed setting, a crash) keeps the class: the
# students' servers run on, and the proxy, started by class-server and not by the hub, goes on
# routing them there; the new hub takes both over. JupyterHub's default stops every server.
c.JupyterHub.cleanup_servers = False
c.ConfigurableHTTPProxy.should_start = False
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{SETTINGS['proxy_api_port']}"
c.ConfigurableHTTPProxy.auth_token = (STATE / "proxy_token").read_text().strip().split("=", 1)[1]
# The routes a proxy started again (class-server restarts it if it ends) gets back from the hub: at
# most this many seconds later (JupyterHub's default is 300).
c.JupyterHub.last_activity_interval = 30

# Who may log in: the students' group and the teachers (admins), each with their local password.
c.PAMAuthenticator.allowed_groups = {SETTINGS["group"]}
c.Authenticator.admin_users = c.Authenticator.allowed_users = set(SETTINGS["teachers"])

# Services: `class-server stop` may shut the hub down (with every server), and the idle culler stops
# a server left idle for the class's idle_minutes.
c.JupyterHub.services = [{"name": "class-server", "api_token": (STATE / "stop_token").read_text().strip()}]
c.JupyterHub.load_roles = [{"name": "class-server-stop", "scopes": ["shutdown"], "services": ["class-server"]}]
if SETTINGS["idle_minutes"]:
    # setpriv --pdeathsig: the culler ends with the hub that started it, even a crashed one
    culler = ["setpriv", "--pdeathsig=TERM", str(ENV / "bin" / "python"), "-m", "jupyterhub_idle_culler"]
    culler.append(f"--timeout={SETTINGS['idle_minutes'] * 60}")
    c.JupyterHub.services.append({"name": "idle-culler", "command": [*culler, "--cull-every=60"]})
    c.JupyterHub.load_roles.append({
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    })  # fmt: skip

# Every student's server and kernel come from the shared environment, whatever is in their home.
c.Spawner.cmd = [str(ENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.environment = {
    "PATH": f"{ENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    "NBGITPULLER_APP": "lab",
    # Git reads a repository owned by someone else (course.git is root's) only if this file says so.
    "GIT_CONFIG_SYSTEM": str(CLASS / "gitconfig"),
}
c.Spawner.disable_user_config = True  # no kernel of their own picked up from ~/.local or ~/.jupyter
c.Spawner.ip = "127.0.0.1"  # where OwnPort checks who listens (below)
c.Spawner.default_url = "/lab"
# Kernels talk to their server over Unix sockets in the student's home: with TCP, kernels starting
# at once on one machine now and then pick the same free port (issue 28's trial: 1 start in 177
# failed so, 0 in 151 over Unix sockets).
c.Spawner.args = ["--KernelManager.transport=ipc"]
# A whole class logging in at once (classroom/rehearse.py measures it): all servers asked for together
# on 2 cores were ready after 1.8 s a server on a quiet machine (30 in 55 s, issue 39's trial), 7.9 s
# on a busy one (10 in 79 s) and 10.7-18.7 s with other work keeping the load average at 17-27 (2 to
# 10 students). Ten seconds a student, and never under 180 s: a busy machine's class of 30 (about
# 240 s) still makes it. JupyterHub's default, 30 s, gave up on all of 10.
STUDENTS = len(grp.getgrnam(SETTINGS["group"]).gr_mem)
c.Spawner.start_timeout = c.Spawner.http_timeout = max(180, 10 * STUDENTS)

c.Spawner.mem_limit = SETTINGS["memory"]
c.Spawner.cpu_limit = SETTINGS["cpus"]
PROCESSES = int(SETTINGS["processes"])


def home_of(name):
    return Path(pwd.getpwnam(name).pw_dir)


def mount_space(spawner):
    """The student's disk (an image class-server add-students made) on spaces/NAME, and its home/ on
    their home, where not yet (after a reboot); and their tmp/ there, made for an account of an earlier
    install. spaces/ is root's: no link of a student's can turn these mounts elsewhere."""
    name = spawner.user.name
    space, home, account = CLASS / "spaces" / name, home_of(name), pwd.getpwnam(name)
    if Path(f"{space}.img").exists():
        if not os.path.ismount(space):
            subprocess.run(["mount", "-o", "loop,nosuid,nodev", f"{space}.img", str(space)], check=True, timeout=60)
        if not os.path.ismount(home):
            subprocess.run(["mount", "--bind", str(space / "home"), str(home)], check=True, timeout=60)
    if not (space / "tmp").is_dir():
        (space / "tmp").mkdir(mode=0o700, parents=True)
        os.chown(space / "tmp", account.pw_uid, account.pw_gid)


c.Spawner.pre_spawn_hook = mount_space


class OwnPort:
    """Mixed into both spawners: the hub accepts a student's server only if the socket listening on its
    address and port is the student's, before the proxy sends anyone there and again after a hub
    restart, and keeps a duplicate of that socket until the server's route is gone, so that the port
    stays the student's even if their server dies (ports.py). Another student who binds the port
    first, or in a restart, is refused and sent nothing."""

    held = None  # the duplicate

    async def start(self):
        # A new port at every start: after a failed start LocalProcessSpawner would use the same one
        # again, which another student who bound it could then hold for ever.
        self.port = 0
        started = await super().start()
        if started is None:  # SystemdSpawner's unit did not become active in time
            raise RuntimeError(f"{self.user.name}'s server did not start")
        ip, port = started
        while not (found := ports.listeners(ip, port)):
            if await super().poll() is not None:
                raise RuntimeError(f"{self.user.name}'s server ended before it listened on {ip}:{port}")
            await asyncio.sleep(0.1)
        if not self.hold(found, ip, port):
            await self.stop(now=True)
            raise RuntimeError(f"{ip}:{port} is another user's: {self.user.name}'s server is refused")
        return ip, port

    async def poll(self):
        status = await super().poll()
        if status is not None or self.held is not None or self.pending == "spawn" or self.server is None:
            return status
        # A hub started again: the server runs on from before, and must still be the one listening.
        ip, port = self.server.ip, self.server.port
        if not self.hold(ports.listeners(ip, port), ip, port):
            return 1  # the hub removes the route (the next start of this server kills what is left)
        return None

    def hold(self, found, ip, port):
        """True if the student owns every socket listening on ip:port (and there is one); their
        listener then stays open in the hub too."""
        uid = pwd.getpwnam(self.user.name).pw_uid
        owners = {owner for owner, _ in found}
        if owners != {uid}:
            self.log.error("%s:%s is listened on by uid %s, not %s's (%d)", ip, port, owners, self.user.name, uid)
            return False
        try:
            self.held = ports.duplicate(uid, found[0][1])
        except OSError as error:  # then each poll checks the listener again
            self.log.warning("Cannot hold %s's port %s (%s): it is checked at each poll", self.user.name, port, error)
        return True

    def clear_state(self):
        super().clear_state()
        # JupyterHub's stop, once the proxy has dropped the server's route (a poll that finds the
        # server ended calls this too, before: the port is kept until then).
        if self.pending == "stop" and self.held is not None:
            self.held.close()
            self.held = None


class LimitedLocalProcessSpawner(OwnPort, LocalProcessSpawner):
    """Where systemd does not run: each student's server, and with it their kernels and the sandboxes
    their commands run in, is started in cgroups of its own under the hub's (cgroup v1), limited to
    the class's memory, CPU and processes (and counted: cpuacct). The student owns the memory and pids
    folders (not their limit files), so reactlab can make a cgroup per run inside them. Without cgroup
    v1 the only limit left is RLIMIT_NPROC, on the number of the student's processes. The server sees
    its own /tmp, /var/tmp and /run/lock: the student's tmp, on their disk. When the server stops,
    every process still in its cgroups is killed and the student's files in /dev/shm are removed, as
    systemd's RemoveIPC does. The cgroups are kept in the hub's database: a hub started again, from
    wherever, stops a server the one before started."""

    cgroup_folders = None  # {controller: folder}

    def cgroups(self):
        if self.cgroup_folders is None:
            self.cgroup_folders = {}
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)
                for controller in set(controllers.split(",")) & {"memory", "pids", "cpu", "cpuacct"}:
                    hub = Path("/sys/fs/cgroup", controller, path.lstrip("/"))
                    if (hub / "cgroup.procs").exists():
                        self.cgroup_folders[controller] = hub / "reactlab-class" / self.user.name
        return self.cgroup_folders

    def get_state(self):
        return {**super().get_state(), "cgroups": {name: str(path) for name, path in self.cgroups().items()}}

    def load_state(self, state):
        super().load_state(state)
        if "cgroups" in state:
            self.cgroup_folders = {name: Path(path) for name, path in state["cgroups"].items()}

    def clear_state(self):
        super().clear_state()
        self.cgroup_folders = None

    async def start(self):
        await self.clear_cgroups()  # a previous server's, with whatever may still run in them
        self.cgroup_folders = None  # this hub's
        limits = {
            "memory": {"memory.limit_in_bytes": self.mem_limit},
            "pids": {"pids.max": PROCESSES},
            "cpu": {"cpu.cfs_period_us": 100_000, "cpu.cfs_quota_us": self.cpu_limit and int(self.cpu_limit * 100_000)},
            "cpuacct": {},
        }
        account = pwd.getpwnam(self.user.name)
        for controller, path in self.cgroups().items():
            for folder in (path.parent, path):  # exist_ok: cpu and cpuacct may be one hierarchy
                folder.mkdir(exist_ok=True)
                folder.chmod(0o755)  # the hub's umask is 077, and the student's kernel reads its own
            for name, value in limits[controller].items():
                if value:
                    (path / name).write_text(str(value))
            if controller in ("memory", "pids"):
                os.chown(path, account.pw_uid, account.pw_gid)
        if "pids" not in self.cgroups():
            self.log.warning("No cgroup v1: %s gets RLIMIT_NPROC=%d, no memory or CPU limit", self.user.name, PROCESSES)
        return await super().start()

    def make_preexec_fn(self, name):
        become_student = super().make_preexec_fn(name)
        procs = {str(path / "cgroup.procs") for path in self.cgroups().values()}
        tmp = str(CLASS / "spaces" / name / "tmp")

        def preexec():  # in the new process, still root, before it runs anything
            for path in procs:
                with open(path, "w") as file:
                    file.write(str(os.getpid()))
            if not procs:
                resource.setrlimit(resource.RLIMIT_NPROC, (PROCESSES, PROCESSES))
            private_tmp(tmp)
            os.umask(0o077)  # what they make in /dev/shm is theirs alone, as their home is
            become_student()

        return preexec

    async def stop(self, now=False):
        await super().stop(now)
        await self.clear_cgroups()
        remove_files_of(pwd.getpwnam(self.user.name).pw_uid, Path("/dev/shm"))

    async def clear_cgroups(self):
        for top in self.cgroups().values():
            for _ in range(600):
                if not top.exists():
                    break
                for folder, _, _ in os.walk(top, topdown=False):  # reactlab's per-run cgroups first
                    for pid in read(Path(folder, "cgroup.procs")).split():
                        kill(int(pid))
                    try:
                        os.rmdir(folder)
                    except OSError:  # gone already, or its processes are still leaving it
                        pass
                await asyncio.sleep(0.05)
            else:
                self.log.error("Could not remove %s: processes are still in it", top)
            try:
                top.parent.rmdir()  # reactlab-class, once no student's server runs
            except OSError:
                pass


LIBC = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, MS_BIND, MS_REC, MS_SLAVE = 0x20000, 0x1000, 0x4000, 0x80000


def private_tmp(folder):
    """This process's own mount namespace, where /tmp, /var/tmp and /run/lock are the student's folder
    (systemd's PrivateTmp, on the student's own disk): what they write there counts against their
    disk, not the machine's, and no one else sees it. Mounts made outside later still reach it."""

    def check(failed):
        if failed:
            raise OSError(ctypes.get_errno(), f"a private /tmp from {folder}: {os.strerror(ctypes.get_errno())}")

    check(LIBC.unshare(CLONE_NEWNS))
    check(LIBC.mount(None, b"/", None, MS_REC | MS_SLAVE, None))
    held = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW)  # found before /tmp, where it may be, is covered
    for shared in ("/tmp", "/var/tmp", "/run/lock"):
        if os.path.isdir(shared):
            check(LIBC.mount(f"/proc/self/fd/{held}".encode(), shared.encode(), None, MS_BIND, None))
    os.close(held)


def read(path):
    try:
        return path.read_text()
    except OSError:
        return ""


def kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def remove_files_of(uid, folder):
    for entry in os.scandir(folder):
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)  # through descriptors: no link in it is followed
            else:
                os.unlink(entry.path)
        except OSError:
            pass


if Path("/run/systemd/system").is_dir():  # systemd is the init system: each server a unit of its own
    from systemdspawner import SystemdSpawner

    class ClassSystemdSpawner(OwnPort, SystemdSpawner):
        """Each server a transient unit with the class's limits, its /tmp and /var/tmp the student's
        tmp (on their disk, as above), and their files in /dev/shm removed when it stops."""

        async def start(self):
            tmp = CLASS / "spaces" / self.user.name / "tmp"
            self.unit_extra_properties = {
                "TasksMax": str(PROCESSES), "UMask": "0077", "RemoveIPC": "yes",
                "BindPaths": f"{tmp}:/tmp {tmp}:/var/tmp",
            }  # fmt: skip
            return await super().start()

    c.JupyterHub.spawner_class = ClassSystemdSpawner
else:
    c.JupyterHub.spawner_class = LimitedLocalProcessSpawner
