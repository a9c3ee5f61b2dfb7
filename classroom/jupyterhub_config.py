"""JupyterHub for a class on one machine: reactlab's notebooks for every student from one shared
environment, a private home each, and limits per student on memory, CPU and processes.

`classroom/class-server install` copies this file into the class folder (/opt/reactlab-class by
default), beside the settings it writes (class.json), the shared environment (env/), the proxy
(proxy/) and the hub's own state (state/); `class-server start` runs the hub with it. The hub runs
as root: it checks passwords with PAM and starts each student's server as that student.
"""

import asyncio
import json
import os
import pwd
import resource
import shutil
import signal
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner

CLASS = Path(__file__).resolve().parent
SETTINGS = json.loads((CLASS / "class.json").read_text(encoding="utf-8"))
ENV = CLASS / "env"  # built from Debian's python3: an interpreter under /root (pyenv) is root's alone
STATE = CLASS / "state"

c = get_config()  # noqa: F821 (JupyterHub defines it when it reads this file)

c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.command = [str(CLASS / "proxy" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")

# Who may log in: the students' group and the teachers (admins), each with their local password.
c.PAMAuthenticator.allowed_groups = {SETTINGS["group"]}
c.Authenticator.admin_users = c.Authenticator.allowed_users = set(SETTINGS["teachers"])

# Every student's server and kernel come from the shared environment, whatever is in their home.
c.Spawner.cmd = [str(ENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.environment = {
    "PATH": f"{ENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    "NBGITPULLER_APP": "lab",
    # Git reads a repository owned by someone else (course.git is root's) only if this file says so.
    "GIT_CONFIG_SYSTEM": str(CLASS / "gitconfig"),
}
c.Spawner.disable_user_config = True  # no kernel of their own picked up from ~/.local or ~/.jupyter
c.Spawner.default_url = "/lab"
# Kernels talk to their server over Unix sockets in the student's home: with TCP, kernels starting
# at once on one machine now and then pick the same free port (issue 28's trial: 1 start in 177
# failed so, 0 in 151 over Unix sockets).
c.Spawner.args = ["--KernelManager.transport=ipc"]
# A whole class logging in at once: 10 servers asked for together on 2 busy cores answered after
# 65-79 s, and with the default 30 s the hub gave up on all 10.
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180

c.Spawner.mem_limit = SETTINGS["memory"]
c.Spawner.cpu_limit = SETTINGS["cpus"]
PROCESSES = int(SETTINGS["processes"])


class LimitedLocalProcessSpawner(LocalProcessSpawner):
    """Where systemd does not run: each student's server, and with it their kernels and the sandboxes
    their commands run in, is started in cgroups of its own under the hub's (cgroup v1), limited to
    the class's memory, CPU and processes. The student owns the memory and pids folders (not their
    limit files), so reactlab can make a cgroup per run inside them. Without cgroup v1 the only limit
    left is RLIMIT_NPROC, on the number of the student's processes. When the server stops, every
    process still in its cgroups is killed and the student's files in /dev/shm are removed, as
    systemd's RemoveIPC does."""

    def cgroups(self):
        found = {}
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in set(controllers.split(",")) & {"memory", "pids", "cpu"}:
                hub = Path("/sys/fs/cgroup", controller, path.lstrip("/"))
                if (hub / "cgroup.procs").exists():
                    found[controller] = hub / "reactlab-class" / self.user.name
        return found

    async def start(self):
        await self.clear_cgroups()  # a previous server's, with whatever may still run in them
        limits = {
            "memory": {"memory.limit_in_bytes": self.mem_limit},
            "pids": {"pids.max": PROCESSES},
            "cpu": {"cpu.cfs_period_us": 100_000, "cpu.cfs_quota_us": self.cpu_limit and int(self.cpu_limit * 100_000)},
        }
        account = pwd.getpwnam(self.user.name)
        for controller, path in self.cgroups().items():
            path.mkdir(parents=True)
            for name, value in limits[controller].items():
                if value:
                    (path / name).write_text(str(value))
            if controller != "cpu":
                os.chown(path, account.pw_uid, account.pw_gid)
        if "pids" not in self.cgroups():
            self.log.warning("No cgroup v1: %s gets RLIMIT_NPROC=%d, no memory or CPU limit", self.user.name, PROCESSES)
        return await super().start()

    def make_preexec_fn(self, name):
        become_student = super().make_preexec_fn(name)
        procs = [str(path / "cgroup.procs") for path in self.cgroups().values()]

        def preexec():  # in the new process, still root, before it runs anything
            for path in procs:
                with open(path, "w") as file:
                    file.write(str(os.getpid()))
            if not procs:
                resource.setrlimit(resource.RLIMIT_NPROC, (PROCESSES, PROCESSES))
            os.umask(0o077)  # what they make in /tmp and /dev/shm is theirs alone, as their home is
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
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.isolate_tmp = True
    c.SystemdSpawner.unit_extra_properties = {"TasksMax": str(PROCESSES), "UMask": "0077", "RemoveIPC": "yes"}
else:
    c.JupyterHub.spawner_class = LimitedLocalProcessSpawner
