"""The class server (classroom/), for real. classroom/class-server installs it into a fresh folder and
makes the accounts, as a teacher would; a real JupyterHub starts with its configuration on 127.0.0.1;
two students get the notebooks with the link and run notebook 05, one in English and one in Russian,
at the same time, each in their own single-user server through a kernel. Then: what one student may
not read of the other's, the class's secrets, a notebook reset with the link, the hub restarted (as
Ctrl-C and as a crash) and the proxy killed under a running class, a student filling their disk, a
kernel past its CPU time, a rehearsal, a changed setting with the idle culler, and the end of the class.

It makes users and runs the hub as root, as a class server does, and installs from PyPI and npm (or
their caches): `make class-server-test`, and a step of its own in .ci/run.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from classroom import ports, rehearse
from classroom.rehearse import COURSE, Cell, Hub, Kernel, Student, processes_of
from reactlab.core.language import say

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "classroom" / "class-server"
SYSTEMD = Path("/run/systemd/system").is_dir()
CGROUP_V1 = not Path("/sys/fs/cgroup/cgroup.controllers").exists()
STRACE = shutil.which("strace")
DISK = 160 * 2**20  # each student's disk here (the recipe's default is 1G)

pytestmark = [
    pytest.mark.class_server,
    pytest.mark.skipif(os.geteuid() != 0, reason="makes users and runs JupyterHub as root, as a class server does"),
]


@dataclass
class ClassServer:
    url: str
    folder: Path
    teacher: str
    students: dict[str, str]  # name: language of the notebooks they run
    passwords: dict[str, str]
    log: Path
    traces: Path  # strace's record of install and add-students, one file a process
    hub: subprocess.Popen[bytes] | None = None
    outsider: str = ""  # a local account outside the class
    settings: dict = field(default_factory=dict)

    def link(self, lang: str) -> str:
        printed = script(self.folder, "link", self.url).stdout
        return next(line.split()[1] for line in printed.splitlines() if line.startswith(f"{lang}: "))

    def start_hub(self) -> float:
        """`class-server start`, as the teacher runs it; the seconds until the hub answers."""
        started = time.monotonic()
        with self.log.open("ab") as output:
            self.hub = subprocess.Popen(
                [SCRIPT, "start"], env={**os.environ, "CLASS_DIR": str(self.folder)}, stdout=output,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        while not _answers(f"{self.url}/hub/api/"):
            assert self.hub.poll() is None and time.monotonic() - started < 90, f"no hub:\n{self.log.read_text()}"
            time.sleep(0.3)
        return time.monotonic() - started

    def stop_hub(self, how: signal.Signals) -> float:
        """The hub ended by a signal (SIGTERM: Ctrl-C, systemctl stop or restart; SIGKILL: a crash)."""
        assert self.hub is not None
        started = time.monotonic()
        self.hub.send_signal(how)
        self.hub.wait(120)
        return time.monotonic() - started

    def proxy_pid(self) -> int:
        """The proxy's process: the child of class-server's loop (state/proxy.pid)."""
        loop = int((self.folder / "state" / "proxy.pid").read_text())
        children = Path(f"/proc/{loop}/task/{loop}/children").read_text().split()
        assert len(children) == 1, children
        return int(children[0])


def script(folder: Path, *arguments: str, timeout: float = 60, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLASS_DIR": str(folder), **settings}
    done = subprocess.run([SCRIPT, *arguments], env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"class-server {' '.join(arguments)}: {done.stdout}{done.stderr}"
    return done


def traced(traces: Path, folder: Path, *arguments: str, timeout: float, **settings: str) -> None:
    """class-server under strace (where there is one): every process's creating opens, mkdirs,
    chmods and umasks, and the forks that tell who inherited which umask."""
    env = {**os.environ, "CLASS_DIR": str(folder), **settings}
    calls = "umask,open,openat,creat,mkdir,mkdirat,chmod,fchmod,fchmodat,clone,clone3,fork,vfork"
    front = [STRACE, "-f", "--seccomp-bpf", "-qq", "-e", f"trace={calls}", "-ff", "-o", str(traces / arguments[0])]
    done = subprocess.run(
        [*(front if STRACE else []), SCRIPT, *arguments], env=env, capture_output=True, text=True, timeout=timeout,
        preexec_fn=lambda: os.umask(0o022),  # a root shell's usual umask
    )  # fmt: skip
    assert done.returncode == 0, f"class-server {' '.join(arguments)}: {done.stdout}{done.stderr}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClassServer]:
    tag = secrets.token_hex(3)
    group, teacher, outsider = f"rl-hub-{tag}", f"rl-hub-{tag}-t", f"rl-hub-{tag}-x"
    students = {f"rl-hub-{tag}-en": "en", f"rl-hub-{tag}-ru": "ru"}
    # Not in /tmp: every student's server has a /tmp of its own, and would not see the class there.
    folder = Path(tempfile.mkdtemp(prefix="reactlab-class-", dir="/opt"))
    folder.chmod(0o755)  # the students' servers run from env/ in it
    log = tmp_path_factory.mktemp("hub") / "jupyterhub.log"
    traces = tmp_path_factory.mktemp("strace")
    made = ClassServer("", folder, teacher, students, {}, log, traces, outsider=outsider)
    try:
        subprocess.run(["useradd", "--no-create-home", outsider], check=True, timeout=30)
        # The recipe's own ports (what a teacher gets), on 127.0.0.1: they must be free here.
        traced(traces, folder, "install", timeout=900, CLASS_GROUP=group, CLASS_TEACHER=teacher,
               CLASS_DISK=str(DISK), CLASS_IP="127.0.0.1")  # fmt: skip
        traced(traces, folder, "add-students", *students, timeout=120)
        made.settings = json.loads((folder / "class.json").read_text())
        made.url = f"http://127.0.0.1:{made.settings['port']}"
        made.passwords = dict(line.split() for line in (folder / "state" / "passwords").read_text().splitlines())
        made.start_hub()
        yield made
    finally:
        subprocess.run([SCRIPT, "stop"], env={**os.environ, "CLASS_DIR": str(folder)}, capture_output=True, timeout=120)
        _stop(made.hub, folder)
        subprocess.run([SCRIPT, "remove-students", *students, teacher], env={**os.environ, "CLASS_DIR": str(folder)},
                       capture_output=True, timeout=120)  # fmt: skip
        subprocess.run(["userdel", outsider], capture_output=True, timeout=30)
        subprocess.run(["groupdel", group], capture_output=True, timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
        for parent in [own / "reactlab-class" for own in _cgroups(os.getpid()).values()]:  # the hub's too
            for name in students:  # left only if the hub was killed; their processes are gone by now
                for cgroup, _, _ in os.walk(parent / name, topdown=False):
                    with contextlib.suppress(OSError):
                        os.rmdir(cgroup)
            with contextlib.suppress(OSError):  # not if another hub's students are in it
                parent.rmdir()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def _stop(hub: subprocess.Popen[bytes] | None, folder: Path) -> None:
    """Whatever `class-server stop` left (it asks the hub to stop every server, then itself): killed."""
    if hub is not None and hub.poll() is None:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait(10)
    with contextlib.suppress(OSError, ValueError):
        os.killpg(int((folder / "state" / "proxy.pid").read_text()), signal.SIGKILL)


@pytest.fixture(scope="module")
def teacher(server: ClassServer) -> Hub:
    return Hub(server.url, server.teacher, server.passwords[server.teacher])


@dataclass
class Run:
    student: Student
    kernel: Kernel
    cells: list[Cell]  # notebook 05's code cells, all but its last (which removes the working copies)
    cleanup: str  # that last cell
    facts: dict  # what the kernel says of itself after the notebook


FACTS = """
import json, os, resource, sys, tempfile
from ipykernel.connect import get_connection_info
from reactlab import Sandbox
folder = tempfile.mkdtemp()
sandbox = Sandbox(folder)
print(json.dumps({
    "pid": os.getpid(),
    "executable": sys.executable,
    "transport": json.loads(get_connection_info())["transport"],
    "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
    "cpu_seconds": resource.getrlimit(resource.RLIMIT_CPU),
    "sandbox_limits": sandbox.limits(),
    "working_copies": [str(outcome.workspace.folder), str(liar.workspace.folder)],
    "home": os.path.expanduser("~"),
    "devices": {path: os.stat(path).st_dev for path in ("/", os.path.expanduser("~"), "/tmp", "/var/tmp", "/run/lock")
                if os.path.exists(path)},
    "working_copy_device": os.stat(outcome.workspace.folder).st_dev,
}))
sandbox.close()
os.rmdir(folder)
"""


@pytest.fixture(scope="module")
def runs(server: ClassServer, teacher: Hub) -> dict[str, Run]:
    """Both servers asked for at once, the course handed out with the link, notebook 05 run in each at once."""
    names = list(server.students)
    teacher.start_servers(names, timeout=240)
    students = {name: teacher.student(name) for name in names}

    def run(name: str) -> Run:
        student, lang = students[name], server.students[name]
        student.open_link(server.link(lang))
        cells = student.notebook(f"{COURSE}/{lang}/05_failing_test.ipynb")["cells"]
        code = [cell for cell in cells if cell["cell_type"] == "code"]
        assert "workspace.cleanup()" in "".join(code[-1]["source"])
        kernel = student.kernel()
        ran = kernel.run_cells(code[:-1])
        failed = [(number, cell.error) for number, cell in enumerate(ran) if cell.error]
        assert failed == [], f"{name}: code cells that failed in notebook 05"
        facts = kernel.run(FACTS)
        assert facts.error is None, facts.error
        return Run(student, kernel, ran, "".join(code[-1]["source"]), json.loads(facts.stdout))

    with ThreadPoolExecutor(len(names)) as pool:
        return dict(zip(names, pool.map(run, names), strict=True))


# The class's secrets: private from their first byte ---------------------------------------------------

SECRETS = ("passwords", "cookie_secret", "proxy_token", "stop_token")


def _creations(traces: Path, command: str) -> list[tuple[str, str, int]]:
    """(call, path, mode it was made with: its mode argument less the umask of the process) for every
    file and folder a traced class-server command created, and every chmod it made (mode as given)."""
    events: dict[int, list[tuple[str, ...]]] = {}
    for trace in traces.glob(f"{command}.*"):
        pid = int(trace.suffix[1:])
        events[pid] = []
        for line in trace.read_text(errors="replace").splitlines():
            if found := re.match(r"umask\((0\d*)\)", line):
                events[pid].append(("umask", found[1]))
            elif found := re.match(r"(?:clone3?|v?fork)\(.*\) = (\d+)$", line):
                events[pid].append(("child", found[1]))
            elif found := re.match(r'(?:openat|open|creat)\((?:AT_FDCWD, )?"([^"]+)", ([A-Z_|]+), (0\d*)\) = \d', line):
                if "O_CREAT" in found[2]:
                    events[pid].append(("create", found[1], found[3]))
            elif found := re.match(r'mkdir(?:at)?\((?:AT_FDCWD, )?"([^"]+)", (0\d*)\) = 0', line):
                events[pid].append(("mkdir", found[1], found[2]))
            elif found := re.match(r'(?:f?chmod(?:at)?)\((?:AT_FDCWD, )?"([^"]+)", (0\d*)\) = 0', line):
                events[pid].append(("chmod", found[1], found[2]))
    children = {int(event[1]) for calls in events.values() for event in calls if event[0] == "child"}
    made: list[tuple[str, str, int]] = []

    def walk(pid: int, umask: int) -> None:
        for event in events.get(pid, []):
            if event[0] == "umask":
                umask = int(event[1], 8)
            elif event[0] == "child":
                walk(int(event[1]), umask)  # a child starts with its parent's umask of the moment
            elif event[0] == "chmod":
                made.append((event[0], event[1], int(event[2], 8)))
            else:
                made.append((event[0], event[1], int(event[2], 8) & ~umask))

    for first in set(events) - children:
        walk(first, 0o022)  # as traced() started it
    return made


@pytest.mark.skipif(not STRACE, reason="strace is not installed (CI installs it): the creation path is not checked")
def test_every_secret_and_its_folder_is_made_private_at_once_never_chmodded_after(server: ClassServer) -> None:
    made = _creations(server.traces, "install") + _creations(server.traces, "add-students")
    state = server.folder / "state"
    for secret in SECRETS:
        path = str(state / secret)
        created = [(call, mode) for call, made_path, mode in made if made_path == path]
        assert created, f"{secret}: not seen created (the trace is incomplete)"
        assert [(call, oct(mode)) for call, mode in created if call != "create" or mode & 0o077] == [], secret
    for folder in (state, server.folder / "spaces"):
        created = [(call, mode) for call, path, mode in made if path == str(folder)]
        assert ("mkdir", 0o700) in created and all(mode == 0o700 for _, mode in created), (folder, created)


def test_every_secret_is_roots_alone_in_a_folder_no_one_else_may_list(server: ClassServer) -> None:
    state = server.folder / "state"
    assert (state.stat().st_mode & 0o777, (server.folder / "spaces").stat().st_mode & 0o777) == (0o700, 0o700)
    for entry in state.iterdir():  # the secrets, and what the hub and proxy write beside them
        assert entry.stat().st_uid == 0 and entry.stat().st_mode & 0o077 == 0, (entry, oct(entry.stat().st_mode))
    for secret in SECRETS:
        assert (state / secret).stat().st_size > 0, secret
    probe = "import os, sys\nfor path in sys.argv[1:]:\n    try:\n        os.listdir(path) if os.path.isdir(path) else open(path).close()\n        print(path)\n    except OSError:\n        pass"  # noqa: E501
    paths = [state, server.folder / "spaces", *(state / secret for secret in SECRETS)]
    for reader in (server.outsider, *server.students):
        seen = _as_user(reader, ["/usr/bin/python3", "-c", probe, *map(str, paths)])
        assert seen.stdout == "", (reader, seen.stdout)
    # and no secret is written anywhere else in the class folder (settings, units, configuration)
    values = [
        (state / secret).read_text().strip().split("=")[-1] for secret in ("cookie_secret", "proxy_token", "stop_token")
    ]
    for path in server.folder.rglob("*"):
        if path.is_file() and state not in path.parents and "env" not in path.relative_to(server.folder).parts[:1]:
            text = path.read_bytes()
            assert not any(value.encode() in text for value in values), path


def _as_user(name: str, command: list[str], **popen: object) -> subprocess.CompletedProcess[str]:
    account = subprocess.run(["id", "-u", name], capture_output=True, text=True, check=True).stdout.strip()
    group = subprocess.run(["id", "-g", name], capture_output=True, text=True, check=True).stdout.strip()
    front = ["setpriv", f"--reuid={account}", f"--regid={group}", "--clear-groups", "--"]
    return subprocess.run([*front, *command], capture_output=True, text=True, timeout=120, cwd="/", **popen)  # type: ignore[call-overload]


POLLER = """
import json, os, signal, sys
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
folder = sys.argv[1]
paths = [os.path.join(folder, "passwords"), *(os.path.join(folder, "state", name) for name in sys.argv[2:])]
held, listed, tries = {}, set(), 0
print("polling", flush=True)
while not stop:
    tries += 1
    for path in paths:
        if path not in held:
            try:
                held[path] = os.open(path, os.O_RDONLY)
            except OSError:
                pass
    for name in ("state", "spaces") if tries % 1000 == 0 else ():  # now and then: the opens are the race
        try:
            os.listdir(os.path.join(folder, name))
            listed.add(name)
        except OSError:
            pass
print(json.dumps({"tries": tries, "listed": sorted(listed),
                  "read": {path: os.read(fd, 1 << 20).decode(errors="replace") for path, fd in held.items()}}))
"""


def test_another_user_polling_while_students_are_added_opens_no_secret(server: ClassServer) -> None:
    """The race of touch-then-chmod: a local user who opens the passwords file in the moment it is
    readable keeps the descriptor, and reads every password added after. Four fresh class folders
    (the window is at the file's creation), each getting two accounts while another user polls
    (against touch-then-chmod it read the passwords in about half the rounds)."""
    account = subprocess.run(["id", "-u", server.outsider], capture_output=True, text=True, check=True).stdout.strip()
    for round in range(4):
        folder = Path(tempfile.mkdtemp(prefix="reactlab-class-race-", dir="/opt"))
        folder.chmod(0o755)
        names = [f"{server.teacher[:-2]}-r{round}{letter}" for letter in "ab"]
        try:
            (folder / "env").symlink_to(server.folder / "env")  # `setting` reads class.json with it
            (folder / "class.json").write_text(json.dumps({**server.settings, "disk": "0"}))
            poller = subprocess.Popen(
                ["setpriv", f"--reuid={account}", f"--regid={account}", "--clear-groups", "--", "/usr/bin/python3",
                 "-c", POLLER, str(folder), *SECRETS], stdout=subprocess.PIPE, text=True, cwd="/",
            )  # fmt: skip
            assert poller.stdout is not None and poller.stdout.readline() == "polling\n"
            script(folder, "add-students", *names)
            poller.send_signal(signal.SIGTERM)
            polled = json.loads(poller.communicate(timeout=30)[0])
            assert polled["tries"] > 100  # it did poll, all along
            assert (polled["read"], polled["listed"]) == ({}, []), f"round {round}: {polled}"
            assert len((folder / "state" / "passwords").read_text().splitlines()) == 2
        finally:
            subprocess.run([SCRIPT, "remove-students", *names], env={**os.environ, "CLASS_DIR": str(folder)},
                           capture_output=True, timeout=120)  # fmt: skip
            shutil.rmtree(folder, ignore_errors=True)


# Logging in, and notebook 05 in two servers at once ----------------------------------------------------


def test_the_teacher_and_the_students_log_in_with_their_passwords_and_no_one_else(server: ClassServer) -> None:
    def login(name: str, password: str) -> int:
        with httpx.Client(base_url=server.url, timeout=30) as browser:
            browser.get("/hub/login")
            form = {"username": name, "password": password, "_xsrf": browser.cookies["_xsrf"]}
            return browser.post("/hub/login", data=form).status_code

    for name in [server.teacher, *server.students]:
        assert login(name, server.passwords[name]) == 302, name  # on to their server
        assert login(name, server.passwords[name] + "x") == 403, name
    # a local account with a password, not in the class's group
    subprocess.run(["chpasswd"], input=f"{server.outsider}:{server.passwords[server.teacher]}", text=True, check=True)
    assert login(server.outsider, server.passwords[server.teacher]) == 403


def _sanitized(text: str) -> str:
    config = (ROOT / "tests" / "nbval-sanitize.cfg").read_text()
    for pattern, replacement in re.findall(r"^regex: (.*)\nreplace: (.*)$", config, re.MULTILINE):
        text = re.sub(pattern, replacement.replace("\\1", r"\1"), text)
    return text


def test_two_students_ran_notebook_05_at_once_as_the_course_shows_it(server: ClassServer, runs: dict[str, Run]) -> None:
    for name, run in runs.items():
        lang = server.students[name]  # each edition prints its own labels
        folder = ROOT / "notebooks" / ("ru" if lang == "ru" else "")
        stored = json.loads((folder / "05_failing_test.ipynb").read_text(encoding="utf-8"))
        expected = [
            "".join("".join(out["text"]) for out in cell["outputs"] if out.get("name") == "stdout")
            for cell in stored["cells"]
            if cell["cell_type"] == "code"
        ][: len(run.cells)]
        assert [_sanitized(cell.stdout) for cell in run.cells] == [_sanitized(text) for text in expected], name
        ran_here = f"bash: {say('ran in the sandbox on this machine', lang=lang)}"
        assert ran_here in run.cells[2].stdout, name  # not replayed
        checked = f"{say('exit code:', lang=lang)} 0 | {say('verdict:', lang=lang)} OK"
        assert checked in "".join(cell.stdout for cell in run.cells), name  # the independent run


def test_each_kernel_is_the_shared_environment_over_unix_sockets(server: ClassServer, runs: dict[str, Run]) -> None:
    for run in runs.values():
        assert run.facts["executable"] == str(server.folder / "env" / "bin" / "python")
        assert run.facts["transport"] == "ipc"


@pytest.mark.skipif(
    SYSTEMD, reason="systemd runs here: the recipe uses SystemdSpawner (tests/test_class_server_systemd.py)"
)
def test_each_student_has_limits_of_their_own_and_the_sandbox_a_cgroup_per_run(
    server: ClassServer, runs: dict[str, Run]
) -> None:
    memory = rehearse.size_in_bytes(server.settings["memory"])
    for name, run in runs.items():
        assert run.facts["cpu_seconds"] == [server.settings["kernel_cpu_minutes"] * 60] * 2  # the kernel's own
        if not CGROUP_V1:  # the recipe can only cap the number of the student's processes
            assert run.facts["nproc"] == server.settings["processes"]
            continue
        limit = _cgroups(run.facts["pid"])
        for controller, path in limit.items():
            assert path.name == name and path.parent.name == "reactlab-class", (controller, path)
        assert int((limit["pids"] / "pids.max").read_text()) == server.settings["processes"]
        assert int((limit["memory"] / "memory.limit_in_bytes").read_text()) == memory
        assert int((limit["cpu"] / "cpu.cfs_quota_us").read_text()) == server.settings["cpus"] * 100_000
        # reactlab may make its per-run cgroups inside the student's own (delegated) ones
        assert run.facts["sandbox_limits"]["processes"] == 256
        assert run.facts["sandbox_limits"]["memory_bytes"] == 2 * 2**30


def _cgroups(pid: int) -> dict[str, Path]:
    """The folders of a process's memory, pids and cpu cgroups (cgroup v1)."""
    found = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in set(controllers.split(",")) & {"memory", "pids", "cpu"}:
            found[controller] = Path("/sys/fs/cgroup", controller, path.lstrip("/"))
    return found


def _restarted(kernel: Kernel, timeout: float = 120) -> str:
    """Wait for the server to say the kernel died and is starting again; the state it reported."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kernel.socket.settimeout(max(0.1, deadline - time.monotonic()))
        message = json.loads(kernel.socket.recv())
        if message["msg_type"] == "status" and message["content"]["execution_state"] in ("restarting", "dead"):
            return str(message["content"]["execution_state"])
    raise TimeoutError("the kernel was not restarted")


LIMIT = "import os, resource\nprint(os.getpid(), resource.getrlimit(resource.RLIMIT_CPU))"
SPIN = """
import resource
resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))
while True:
    pass
"""


def test_a_kernel_past_its_cpu_time_is_ended_and_starts_again(runs: dict[str, Run]) -> None:
    """The class's limit is minutes of CPU time (the kernel spec's prlimit); here the kernel lowers its
    own to a second, and spins: the kernel dies of it, the server starts it again, fresh."""
    student = next(iter(runs.values())).student
    kernel = student.kernel()
    try:
        pid, limit = kernel.run(LIMIT).stdout.split(" ", 1)
        kernel.send(SPIN)
        assert _restarted(kernel) == "restarting"
        deadline = time.monotonic() + 60
        while True:  # the restarted kernel answers once it is up
            try:
                after = kernel.run(LIMIT, 30).stdout.split(" ", 1)
                break
            except TimeoutError:
                assert time.monotonic() < deadline
        assert after[0] != pid and after[1] == limit  # a new kernel, with the class's limit again
    finally:
        kernel.shutdown()


# What a student sees of the machine and of the others -------------------------------------------------

PROBE = """
import json, os, stat
other = {uid}
found = {{}}
def look(path):
    try:
        info = os.lstat(path)
    except OSError:
        return
    if info.st_uid != other or stat.S_ISLNK(info.st_mode):
        return
    try:
        if stat.S_ISDIR(info.st_mode):
            os.listdir(path)
        else:
            open(path, "rb").close()
        found[path] = "readable"
    except OSError as error:
        found[path] = error.strerror
for path in {paths!r}:
    look(path)
for top in ("/tmp", "/var/tmp", "/dev/shm"):  # where the two shared folders once
    for name in os.listdir(top):
        look(os.path.join(top, name))
print(json.dumps(found))
"""


def test_one_student_cannot_read_the_others_home_or_working_copies(runs: dict[str, Run]) -> None:
    first, second = runs.values()
    for reader, owner in ((first, second), (second, first)):
        uid = os.stat(owner.facts["home"]).st_uid
        notebook = f"{owner.facts['home']}/{COURSE}/en/05_failing_test.ipynb"
        known = [owner.facts["home"], notebook]
        probe = reader.kernel.run(PROBE.format(uid=uid, paths=known))
        assert probe.error is None, probe.error
        found = json.loads(probe.stdout)
        assert owner.facts["home"] in found  # there, and unreadable to the other student
        assert {path: why for path, why in found.items() if why == "readable"} == {}
        assert os.path.exists(notebook)
        # the other's working copies are in the other's /tmp, which this student does not even see
        assert not any(path in found for path in owner.facts["working_copies"])


WRITABLE = """
import json, os, subprocess
root = os.stat("/").st_dev
found = subprocess.run(["find", "/", "-xdev", "-type", "d", "-writable"], capture_output=True, text=True).stdout
print(json.dumps([path for path in found.splitlines() if os.stat(path).st_dev == root]))
"""


def test_a_student_writes_only_to_their_own_disk_never_the_machines(server: ClassServer, runs: dict[str, Run]) -> None:
    for name, run in runs.items():
        devices = run.facts["devices"]
        home = devices[run.facts["home"]]
        assert home != devices["/"], name  # their home is their disk
        assert devices["/tmp"] == devices["/var/tmp"] == devices.get("/run/lock", home) == home, name  # their /tmp too
        assert run.facts["working_copy_device"] == home, name  # where reactlab made the working copies
        assert all(path.startswith("/tmp/") for path in run.facts["working_copies"]), name
        # no folder of the machine's own disk is writable to them (mount points of their disk aside)
        writable = run.kernel.run(WRITABLE)
        assert writable.error is None and json.loads(writable.stdout) == [], (name, writable)
        image = server.folder / "spaces" / f"{name}.img"
        assert image.stat().st_size == DISK and image.stat().st_blocks * 512 >= DISK  # allocated in full


FILL = """
import json, os
def fill(path):
    written, failed = 0, None
    try:
        with open(path, "wb") as file:
            while True:
                file.write(b"x" * 2**20)
                file.flush()
                written += 2**20
    except OSError as error:
        failed = error.errno
    return written, failed
print(json.dumps({"tmp": fill("/tmp/fill"), "home": fill(os.path.expanduser("~/fill"))}))
"""

WORKS = """
import json, os, tempfile
from reactlab import Sandbox
with open(os.path.expanduser("~/ten-mib"), "wb") as file:
    file.write(b"y" * 10 * 2**20)
folder = tempfile.mkdtemp()
with Sandbox(folder) as sandbox:
    result = sandbox.run("echo made > made.txt && cat made.txt", timeout=60)
made = open(os.path.join(folder, "made.txt")).read()
print(json.dumps({"exit_code": result.exit_code, "output": result.stdout, "made": made}))
os.remove(os.path.join(folder, "made.txt")); os.rmdir(folder); os.remove(os.path.expanduser("~/ten-mib"))
"""


def test_a_student_who_fills_their_disk_stops_no_one_else_nor_the_hub(
    server: ClassServer, teacher: Hub, runs: dict[str, Run]
) -> None:
    (filler, run), (other, other_run) = runs.items()
    filled = run.kernel.run(FILL, timeout=300)
    assert filled.error is None, filled.error
    written = json.loads(filled.stdout)
    assert written["tmp"][1] == written["home"][1] == errno.ENOSPC, written
    assert DISK / 2 < written["tmp"][0] + written["home"][0] <= DISK, written  # their disk, and no more
    fill = server.folder / "spaces" / filler / "tmp" / "fill"  # their /tmp, as root sees it
    assert fill.stat().st_size == written["tmp"][0] and fill.stat().st_dev != os.stat("/").st_dev
    assert not any(entry.name == "fill" for entry in os.scandir("/tmp"))  # the machine's /tmp
    try:
        # the other student: writes, and runs a command in the sandbox (a working copy in their /tmp)
        works = other_run.kernel.run(WORKS, timeout=120)
        assert works.error is None, works.error
        assert json.loads(works.stdout) == {"exit_code": 0, "output": "made\n", "made": "made\n"}
        # the hub: logins, its database (a new token), the API
        assert Hub(server.url, server.teacher, server.passwords[server.teacher]).api.get("/users").status_code == 200
        assert teacher.api.post(f"/users/{other}/tokens", json={"note": "after the fill"}).status_code == 201
    finally:
        cleared = run.kernel.run("import os; os.remove('/tmp/fill'); os.remove(os.path.expanduser('~/fill'))")
    assert cleared.error is None, cleared.error
    assert run.kernel.run(WORKS, timeout=120).error is None  # and the filler works again


def test_a_student_resets_a_notebook_with_the_link_and_keeps_the_others(
    server: ClassServer, runs: dict[str, Run]
) -> None:
    name, run = next(iter(runs.items()))
    lang = server.students[name]
    contents = run.student.http
    mine, spoiled = f"{COURSE}/{lang}/04_build_the_loop.ipynb", f"{COURSE}/{lang}/05_failing_test.ipynb"
    handed_out = run.student.notebook(spoiled)
    work = run.student.notebook(mine)
    work["cells"][0]["source"] = "# my notes\n"
    contents.put(f"/api/contents/{mine}", json={"type": "notebook", "content": work}).raise_for_status()
    contents.delete(f"/api/contents/{spoiled}").raise_for_status()
    assert contents.get(f"/api/contents/{spoiled}").status_code == 404
    run.student.open_link(server.link(lang))
    assert run.student.notebook(spoiled) == handed_out
    assert run.student.notebook(mine)["cells"][0]["source"] == "# my notes\n"


OWN_KERNEL = """
import json, os, sys
folder = os.path.expanduser("~/.local/share/jupyter/kernels/python3")
os.makedirs(folder, exist_ok=True)
with open(os.path.join(folder, "kernel.json"), "w") as file:
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    json.dump({"argv": argv, "display_name": "mine", "language": "python", "env": {"MY_OWN_KERNEL": "yes"}}, file)
"""


def test_a_kernel_of_the_students_own_is_not_the_one_their_notebooks_get(runs: dict[str, Run]) -> None:
    run = next(iter(runs.values()))
    assert run.kernel.run(OWN_KERNEL).error is None
    kernel = run.student.kernel()
    try:
        assert kernel.run("import os; print(os.environ.get('MY_OWN_KERNEL'))").stdout == "None\n"
    finally:
        kernel.shutdown()


# The hub and the proxy restarted under a running class -------------------------------------------------


def _cmdline(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:  # it ended meanwhile
        return b""


def _server_pid(uid: int) -> int:
    (server,) = [int(p.name) for p in processes_of(uid) if b"jupyterhub-singleuser" in (p / "cmdline").read_bytes()]
    return server


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["stopped", "crashed"])
def test_a_hub_stopped_or_crashed_and_started_again_keeps_every_kernel_and_notebook(
    server: ClassServer, teacher: Hub, runs: dict[str, Run], how: signal.Signals
) -> None:
    """SIGTERM is Ctrl-C on `class-server start`, `systemctl stop` or `restart`, a changed setting;
    SIGKILL a crash. The students work on while the hub is down, and the new hub takes them back."""
    marker = secrets.token_hex(8)
    before = {}
    for name, run in runs.items():
        assert run.kernel.run(f"marker = {marker!r}").error is None
        uid = os.stat(run.facts["home"]).st_uid
        notebook = run.student.notebook(f"{COURSE}/{server.students[name]}/04_build_the_loop.ipynb")
        before[name] = (_server_pid(uid), run.facts["pid"], notebook)
    proxy = server.proxy_pid()
    stopped = server.stop_hub(how)
    for name, run in runs.items():  # the hub is down: through the proxy, each kernel still answers
        assert run.kernel.run("import os; print(marker, os.getpid())").stdout == f"{marker} {run.facts['pid']}\n", name
    started = server.start_hub()
    print(f"{how.name}: the hub ended in {stopped:.1f} s and answered again {started:.1f} s after it was started")
    assert server.proxy_pid() == proxy  # the same proxy: no connection dropped
    cullers = [
        p for p in processes_of(0) if b"jupyterhub_idle_culler" in _cmdline(p) and bytes(server.folder) in _cmdline(p)
    ]
    assert len(cullers) == 1, cullers  # the new hub's: the crashed one's ended with it
    for name, run in runs.items():
        model = teacher.api.get(f"/users/{name}").json()
        assert model["servers"][""]["ready"], name  # the new hub has the server back
        uid = os.stat(run.facts["home"]).st_uid
        notebook = run.student.notebook(f"{COURSE}/{server.students[name]}/04_build_the_loop.ipynb")
        assert (_server_pid(uid), run.facts["pid"], notebook) == before[name], name
        assert run.kernel.run("print(marker)").stdout == f"{marker}\n", name
        fresh = teacher.student(name)  # a token of the new hub's: it authenticates through it
        kernels = fresh.http.get("/api/kernels")
        assert kernels.status_code == 200 and run.kernel.id in [kernel["id"] for kernel in kernels.json()], name


def test_a_killed_proxy_is_started_again_and_gets_every_route_back(server: ClassServer, runs: dict[str, Run]) -> None:
    old = server.proxy_pid()
    started = time.monotonic()
    os.kill(old, signal.SIGKILL)
    deadline = started + 90  # the loop starts it again after a second; the hub restores routes every 30 s
    waiting = set(runs)
    while waiting and time.monotonic() < deadline:
        for name in sorted(waiting):
            with contextlib.suppress(httpx.HTTPError):
                if runs[name].student.http.get("/api/kernels", timeout=5).status_code == 200:
                    waiting.discard(name)
        time.sleep(0.5)
    back = time.monotonic() - started
    print(f"the proxy was killed: every student's server answered through it again after {back:.1f} s")
    assert waiting == set() and server.proxy_pid() != old
    for run in runs.values():  # the browser reconnects: the kernel, its state and all, is there
        run.kernel.socket.close()
        run.kernel = Kernel(run.student, run.kernel.id)
        assert run.kernel.run("print(marker)").stdout.strip(), run.student.name


def test_a_stopped_server_leaves_no_process_cgroup_or_shared_memory_file(
    server: ClassServer, teacher: Hub, runs: dict[str, Run]
) -> None:
    for name, run in runs.items():
        assert run.kernel.run(run.cleanup).error is None  # the notebook's last cell removes its working copies
        assert not any(os.path.exists(path) for path in run.facts["working_copies"])
        _leaves_nothing(name, run, lambda name=name: teacher.stop_server(name))


def _leaves_nothing(name: str, run: Run, stop: object) -> None:
    uid = os.stat(run.facts["home"]).st_uid
    filled = Path(f"/dev/shm/reactlab-class-test-{uid}")  # as a student filling /dev/shm would
    assert run.kernel.run(f"open({str(filled)!r}, 'w').write('x' * 4096)").error is None
    assert filled.stat().st_uid == uid
    cgroups = _cgroups(_server_pid(uid))
    run.kernel.socket.close()
    stop()  # type: ignore[operator]
    deadline = time.monotonic() + 10  # a killed process is gone once its parent, or init, has reaped it
    while list(processes_of(uid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [(p.name, (p / "status").read_text().split("\n")[:3]) for p in processes_of(uid)] == [], name
    assert [path for path in cgroups.values() if path.exists()] == [], name
    assert [entry.name for entry in os.scandir("/dev/shm") if entry.stat(follow_symlinks=False).st_uid == uid] == []


# No port of the class for another student --------------------------------------------------------------

IMPOSTOR = r"""
import errno, json, select, signal, socket, sys
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
print("ready", flush=True)
targets = [tuple(target) for target in json.loads(sys.stdin.readline())]  # [host, port]: where to listen
tries, errors, bound, received = 0, {}, {}, []
while not stop:
    tries += 1
    for host, port in targets:
        if (host, port) in bound:
            continue
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        attempt = socket.socket(family)
        attempt.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        attempt.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:  # "::" takes IPv4 connections too; "::1" IPv6 alone
            attempt.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, host != "::")
        try:
            attempt.bind((host, port))
            attempt.listen()
            bound[(host, port)] = attempt
        except OSError as error:
            errors.setdefault(f"{host} {port}", set()).add(errno.errorcode[error.errno])
            attempt.close()
    for listener in select.select(list(bound.values()), [], [], 0.002)[0]:  # what reaches it, it answers
        connection = listener.accept()[0]
        connection.settimeout(2)
        try:
            received.append(connection.recv(1 << 16).decode(errors="replace"))
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        except OSError:
            pass
        connection.close()
print(json.dumps({"tries": tries, "bound": sorted(f"{host} {port}" for host, port in bound),
                  "errors": {target: sorted(names) for target, names in errors.items()}, "received": received}))
"""


class Impostor:
    """Another student's program: it tries to listen where it is aimed (hosts and a port), again and
    again until it is stopped, answers whatever reaches it, and keeps it."""

    def __init__(self, name: str, front: tuple[str, ...] = ()) -> None:
        account = pwd.getpwnam(name)
        self.process = subprocess.Popen(
            ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--clear-groups", "--", *front,
             "/usr/bin/python3", "-c", IMPOSTOR], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/",
        )  # fmt: skip
        assert self.process.stdout is not None and self.process.stdout.readline() == "ready\n"

    def aim(self, targets: list[tuple[str, int]]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(targets) + "\n")
        self.process.stdin.flush()

    def finish(self) -> dict:
        with contextlib.suppress(OSError, ValueError):
            self.aim([])  # if it was never aimed
        self.process.send_signal(signal.SIGTERM)
        found: dict = json.loads(self.process.communicate(timeout=30)[0])
        return found


def _log_in(url: str, name: str, password: str) -> None:
    """A student logging in, as a browser does; where nothing answers, nothing happens."""
    with contextlib.suppress(httpx.HTTPError, KeyError), httpx.Client(base_url=url, timeout=2) as browser:
        browser.get("/hub/login")
        browser.post("/hub/login", data={"username": name, "password": password, "_xsrf": browser.cookies["_xsrf"]})


def _for_seconds(seconds: float, action: object) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        action()  # type: ignore[operator]
        time.sleep(0.2)


def test_no_student_binds_a_port_of_the_class_even_while_the_proxy_or_the_hub_restarts(server: ClassServer) -> None:
    """The public port, the hub's and the proxy's API ports are below 1024: root's alone, at every
    moment. Another student tries them on every address, as themselves and as root of a user namespace
    of their own, while the proxy is killed (and started again by class-server a second later) and the
    hub is stopped, and a classmate logs in meanwhile: their password (through the proxy, to the hub's
    port) or the proxy's token (from the hub) would reach whoever listens there."""
    owner, other = server.students
    class_ports = [int(server.settings[name]) for name in ports.PORTS]
    targets = [(host, port) for port in class_ports for host in ("127.0.0.1", "0.0.0.0", "::")]
    impostors = [Impostor(other), Impostor(other, ("unshare", "--user", "--map-root-user"))]
    for impostor in impostors:
        impostor.aim(targets)
    try:
        os.kill(server.proxy_pid(), signal.SIGKILL)
        _for_seconds(4, lambda: _log_in(server.url, owner, server.passwords[owner]))
        server.stop_hub(signal.SIGTERM)
        _for_seconds(3, lambda: _log_in(server.url, owner, server.passwords[owner]))
    finally:
        found = [impostor.finish() for impostor in impostors]
        server.start_hub()
    for result in found:
        assert result["tries"] > 100  # it tried all along
        assert (result["bound"], result["received"]) == ([], []), result
        assert result["errors"] == {f"{host} {port}": ["EACCES"] for host, port in targets}  # not merely taken


def test_the_class_does_not_start_where_any_user_may_bind_its_ports(server: ClassServer) -> None:
    """ip_unprivileged_port_start is a setting of each network namespace: lowered to 0 in one of its
    own (as Docker does in its containers), `class-server start` there refuses, starting nothing,
    and so does the check systemd runs before each unit."""
    lowered = 'echo 0 >/proc/sys/net/ipv4/ip_unprivileged_port_start && exec "$@"'
    env = {**os.environ, "CLASS_DIR": str(server.folder)}
    units_check = [str(server.folder / "env" / "bin" / "python"), str(server.folder / "ports.py"), str(server.folder)]
    for command in ([str(SCRIPT), "start"], units_check):
        refused = subprocess.run(["unshare", "--net", "sh", "-c", lowered, "sh", *command], env=env,
                                 capture_output=True, text=True, timeout=60)  # fmt: skip
        assert refused.returncode == 1, (command, refused.stdout, refused.stderr)
        named = [f"{variable}={server.settings[name]}" for name, variable in ports.PORTS.items()]
        assert f"any user of this machine may bind {', '.join(named)}" in refused.stderr
        assert "net.ipv4.ip_unprivileged_port_start (0)" in refused.stderr
    assert subprocess.run(units_check, capture_output=True, timeout=60).returncode == 0  # here, root's alone


def _server_port(uid: int) -> int:
    """The port the student's server was told to listen on."""
    environ = Path(f"/proc/{_server_pid(uid)}/environ").read_bytes().split(b"\0")
    url = next(variable for variable in environ if variable.startswith(b"JUPYTERHUB_SERVICE_URL="))
    port = urlsplit(url.split(b"=", 1)[1].decode()).port
    assert port is not None
    return port


def _when_it_starts(uid: int, then: object) -> threading.Thread:
    """Watch for the student's server to start; hand its port to `then` the moment its process has
    it, before it listens (it does a second later, once Python has imported it): as another student
    who guessed the port would."""

    def watch() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for process in processes_of(uid):
                with contextlib.suppress(OSError):
                    environ = (process / "environ").read_bytes().split(b"\0")
                    for variable in environ:
                        if variable.startswith(b"JUPYTERHUB_SERVICE_URL="):
                            then(urlsplit(variable.split(b"=", 1)[1].decode()).port)  # type: ignore[operator]
                            return
            time.sleep(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    return watcher


def _visits(student: Student, timeout: float = 5) -> None:
    """The student's browser, with their token, a few times: whoever listens on their port gets it."""
    for _ in range(3):
        with contextlib.suppress(httpx.HTTPError):
            student.http.get("/api/status", timeout=timeout)


def _started(teacher: Hub, name: str) -> Student:
    """The student's server started; the student, with a token of theirs as their browser's cookie holds one."""
    teacher.start_servers([name], timeout=240)
    return teacher.student(name)


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0", "::"])
def test_a_server_whose_port_another_student_binds_first_is_refused_and_started_again_elsewhere(
    server: ClassServer, teacher: Hub, host: str
) -> None:
    """The other student binds the new server's port before the server does (as one who guessed it
    would): the hub refuses the server instead of checking it or sending the student's browser there.
    Started again while the other still holds that port, the server gets another port (JupyterHub
    would use the same one again after a failed start) and works; the other student's token does not
    open it, straight to its port or through the proxy."""
    owner, other = server.students
    uid = pwd.getpwnam(owner).pw_uid
    impostor = Impostor(other)
    taken: list[int] = []
    _when_it_starts(uid, lambda port: (taken.append(port), impostor.aim([(host, port)])))
    logged = server.log.stat().st_size
    try:
        with pytest.raises(RuntimeError):  # the hub's answer (HTTP 500), or "failed to start" if it took longer
            teacher.start_servers([owner], timeout=120)
        browser = _started(teacher, owner)
        _visits(browser)
        port = _server_port(uid)
        assert (port != taken[0], browser.http.get("/api/status").status_code) == (True, 200)
        assert [listener for listener, _ in ports.listeners("127.0.0.1", port)] == [uid]
        intruder = {"Authorization": f"token {teacher.student(other).token}"}
        for url in (f"http://127.0.0.1:{port}", server.url):
            assert httpx.get(f"{url}/user/{owner}/api/status", headers=intruder).status_code == 403
    finally:
        found = impostor.finish()
        if teacher.api.get(f"/users/{owner}").json()["servers"]:
            teacher.stop_server(owner)
    assert (found["bound"], found["received"]) == ([f"{host} {taken[0]}"], []), found
    with server.log.open("rb") as log:
        log.seek(logged)
        assert re.search(rb"is another user's: .*'s server is refused|ended before it listened", log.read())


@pytest.mark.parametrize("restarted", [False, True], ids=["under-the-hub-that-started-it", "after-a-hub-restart"])
def test_a_killed_servers_port_stays_its_students_until_its_route_is_gone(
    server: ClassServer, teacher: Hub, restarted: bool
) -> None:
    """The server killed (as a crash or the memory limit would): the other student tries its port at
    once, on every address, while the student's browser goes on asking for it through the proxy."""
    owner, other = server.students
    uid = pwd.getpwnam(owner).pw_uid
    browser = _started(teacher, owner)
    try:
        if restarted:
            server.stop_hub(signal.SIGTERM)
            server.start_hub()
        port = _server_port(uid)
        impostor = Impostor(other)
        os.kill(_server_pid(uid), signal.SIGKILL)
        impostor.aim([(host, port) for host in ("127.0.0.1", "0.0.0.0", "::")])
        _for_seconds(3, lambda: _visits(browser, timeout=0.5))  # nothing answers on a held port
        found = impostor.finish()
    finally:
        teacher.stop_server(owner)
    assert (found["bound"], found["received"]) == ([], []), found
    assert found["errors"] == {f"{host} {port}": ["EADDRINUSE"] for host in ("127.0.0.1", "0.0.0.0", "::")}, found


# A rehearsal, a changed setting, the idle culler, the end of the class ----------------------------------


def test_the_rehearsal_prints_what_the_class_needs_of_the_machine(
    server: ClassServer, teacher: Hub, capsys: pytest.CaptureFixture[str]
) -> None:
    names = list(server.students)
    for name in names:  # as after a reboot: the students' disks are not mounted; the hub mounts them
        home = Path(pwd.getpwnam(name).pw_dir)
        subprocess.run(["umount", str(home)], check=True, timeout=60)
        subprocess.run(["umount", str(server.folder / "spaces" / name)], check=True, timeout=60)
        assert not os.path.ismount(home)
    figures = rehearse.main(
        [server.url, *names, f"--class-dir={server.folder}", "--notebooks", "04_build_the_loop.ipynb"]
    )
    printed = capsys.readouterr().out
    print(printed)
    assert figures.failed == [] and figures.students == 2 and len(figures.cell_seconds) >= 10
    assert 0 < figures.ready_seconds < 240 and all(seconds > 0 for seconds in figures.cell_seconds)
    assert all(50 * 2**20 < pss < 2**30 for pss in figures.after_pss.values()), figures.after_pss
    assert len(figures.cpu_seconds) == 2 and all(seconds > 0 for seconds in figures.cpu_seconds)
    assert all(0 < seconds < 900 for seconds in figures.kernel_cpu_seconds)
    for line in ("spawn: all 2 servers ready", "cell time: p50", "memory (PSS): a student at most", "2 x 768M + 128M",
                 "cores: the class used", "disk: a student at most", "the servers are stopped"):  # fmt: skip
        assert line in printed, line
    for name in names:
        assert teacher.api.get(f"/users/{name}").json()["servers"] == {}, name
        assert os.path.ismount(pwd.getpwnam(name).pw_dir) and os.path.ismount(server.folder / "spaces" / name)


def test_a_changed_setting_and_a_restart_stop_no_one_and_the_idle_culler_ends_idle_servers(
    server: ClassServer, teacher: Hub
) -> None:
    """As the guide says to change a setting: install again with it, restart the hub. Here the idle
    time is one minute: the servers, running through the restart, are stopped once idle that long."""
    names = list(server.students)
    teacher.start_servers(names, timeout=240)
    uids = {name: int(subprocess.check_output(["id", "-u", name])) for name in names}
    pids = {name: _server_pid(uid) for name, uid in uids.items()}
    cgroups = {name: _cgroups(pid) for name, pid in pids.items()}
    script(server.folder, "install", timeout=900, CLASS_IDLE_MINUTES="1")
    assert json.loads((server.folder / "class.json").read_text())["idle_minutes"] == 1
    server.stop_hub(signal.SIGTERM)
    server.start_hub()
    started = time.monotonic()
    for name in names:  # the restart stopped no one
        assert teacher.api.get(f"/users/{name}").json()["servers"][""]["ready"], name
        assert _server_pid(uids[name]) == pids[name], name
    culled = set()
    while len(culled) < len(names) and time.monotonic() - started < 300:
        culled |= {name for name in names if teacher.api.get(f"/users/{name}").json()["servers"] == {}}
        time.sleep(2)
    print(f"idle for a minute: both servers were stopped {time.monotonic() - started:.0f} s after the hub started")
    assert culled == set(names)
    deadline = time.monotonic() + 10
    while any(list(processes_of(uid)) for uid in uids.values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    for name, uid in uids.items():  # stopped by the culler as by the teacher: nothing left
        assert list(processes_of(uid)) == [], name
        assert [path for path in cgroups[name].values() if path.exists()] == [], name


def test_class_server_stop_ends_every_server_the_hub_and_the_proxy(server: ClassServer, teacher: Hub) -> None:
    names = list(server.students)
    teacher.start_servers(names, timeout=240)
    uids = [int(subprocess.check_output(["id", "-u", name])) for name in names]
    proxy = server.proxy_pid()
    script(server.folder, "stop", timeout=180)
    assert server.hub is not None
    server.hub.wait(60)
    deadline = time.monotonic() + 10
    while (
        any(list(processes_of(uid)) for uid in uids) or Path(f"/proc/{proxy}").exists()
    ) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [uid for uid in uids if list(processes_of(uid))] == []
    assert not Path(f"/proc/{proxy}").exists()
    assert not _answers(f"{server.url}/hub/api/")
