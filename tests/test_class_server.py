"""The class server (classroom/), for real. classroom/class-server installs it into a fresh folder and
makes the accounts, as a teacher would; a real JupyterHub starts with its configuration on 127.0.0.1;
two students get the notebooks with the link and run notebook 05, one in English and one in Russian,
at the same time, each in their own single-user server through a kernel. Then: what one student may
not read of the other's, a notebook reset with the link, and a stopped server leaving nothing behind.

It makes users and runs the hub as root, as a class server does, and installs from PyPI and npm (or
their caches): `make class-server-test`, and a step of its own in .ci/run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from classroom.rehearse import COURSE, Cell, Hub, Kernel, Student, processes_of
from reactlab.core.language import say

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "classroom" / "class-server"
SYSTEMD = Path("/run/systemd/system").is_dir()
CGROUP_V1 = not Path("/sys/fs/cgroup/cgroup.controllers").exists()

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

    def link(self, lang: str) -> str:
        printed = script(self.folder, "link", self.url).stdout
        return next(line.split()[1] for line in printed.splitlines() if line.startswith(f"{lang}: "))


def script(folder: Path, *arguments: str, timeout: float = 60, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLASS_DIR": str(folder), **settings}
    done = subprocess.run([SCRIPT, *arguments], env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"class-server {' '.join(arguments)}: {done.stdout}{done.stderr}"
    return done


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for held in sockets:
        held.bind(("127.0.0.1", 0))
    ports = [held.getsockname()[1] for held in sockets]
    for held in sockets:
        held.close()
    return ports


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClassServer]:
    tag = secrets.token_hex(3)
    group, teacher = f"rl-hub-{tag}", f"rl-hub-{tag}-t"
    students = {f"rl-hub-{tag}-en": "en", f"rl-hub-{tag}-ru": "ru"}
    folder = Path(tempfile.mkdtemp(prefix="reactlab-class-"))
    folder.chmod(0o755)  # the students' servers run from env/ in it
    log = tmp_path_factory.mktemp("hub") / "jupyterhub.log"
    hub = None
    try:
        script(folder, "install", timeout=900, CLASS_GROUP=group, CLASS_TEACHER=teacher)
        script(folder, "add-students", *students)
        public, hub_port, proxy_api = free_ports(3)
        with log.open("wb") as output:
            hub = subprocess.Popen(
                [SCRIPT, "start", "--ip=127.0.0.1", f"--port={public}", f"--JupyterHub.hub_port={hub_port}",
                 f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{proxy_api}"],
                env={**os.environ, "CLASS_DIR": str(folder)}, stdout=output, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        url = f"http://127.0.0.1:{public}"
        deadline = time.monotonic() + 90
        while not _answers(f"{url}/hub/api/"):
            assert hub.poll() is None and time.monotonic() < deadline, f"the hub did not start:\n{log.read_text()}"
            time.sleep(0.5)
        passwords = dict(line.split() for line in (folder / "passwords").read_text().splitlines())
        yield ClassServer(url, folder, teacher, students, passwords)
    finally:
        _stop(hub, folder)
        subprocess.run([SCRIPT, "remove-students", *students, teacher], env={**os.environ, "CLASS_DIR": str(folder)},
                       capture_output=True, timeout=120)  # fmt: skip
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
    """The hub stops the students' servers and its proxy when it ends; whatever outlives a minute is killed."""
    if hub is not None and hub.poll() is None:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait(10)
    proxy = folder / "state" / "proxy.pid"
    if proxy.exists():
        try:
            os.kill(int(proxy.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


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
    "sandbox_limits": sandbox.limits(),
    "working_copies": [str(outcome.workspace.folder), str(liar.workspace.folder)],
    "home": os.path.expanduser("~"),
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


def test_the_teacher_and_the_students_log_in_with_their_passwords_and_no_one_else(server: ClassServer) -> None:
    def login(name: str, password: str) -> int:
        with httpx.Client(base_url=server.url, timeout=30) as browser:
            browser.get("/hub/login")
            form = {"username": name, "password": password, "_xsrf": browser.cookies["_xsrf"]}
            return browser.post("/hub/login", data=form).status_code

    for name in [server.teacher, *server.students]:
        assert login(name, server.passwords[name]) == 302, name  # on to their server
        assert login(name, server.passwords[name] + "x") == 403, name
    outsider = f"{server.teacher[:-2]}-x"  # a local account with a password, not in the class's group
    subprocess.run(["useradd", "--no-create-home", outsider], check=True, timeout=30)
    try:
        subprocess.run(["chpasswd"], input=f"{outsider}:{server.passwords[server.teacher]}", text=True, check=True)
        assert login(outsider, server.passwords[server.teacher]) == 403
    finally:
        subprocess.run(["userdel", outsider], timeout=30)


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


@pytest.mark.skipif(SYSTEMD, reason="systemd runs here: the recipe uses SystemdSpawner, which this test does not drive")
def test_each_student_has_limits_of_their_own_and_the_sandbox_a_cgroup_per_run(runs: dict[str, Run]) -> None:
    settings = {"memory": 2**30, "processes": 512, "cpus": 1.0}  # class-server's defaults
    for name, run in runs.items():
        if not CGROUP_V1:  # the recipe can only cap the number of the student's processes
            assert run.facts["nproc"] == settings["processes"]
            continue
        limit = _cgroups(run.facts["pid"])
        for controller, path in limit.items():
            assert path.name == name and path.parent.name == "reactlab-class", (controller, path)
        assert int((limit["pids"] / "pids.max").read_text()) == settings["processes"]
        assert int((limit["memory"] / "memory.limit_in_bytes").read_text()) == settings["memory"]
        assert int((limit["cpu"] / "cpu.cfs_quota_us").read_text()) == settings["cpus"] * 100_000
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
for top in ("/tmp", "/var/tmp", "/dev/shm"):  # where the two share folders
    for name in os.listdir(top):
        look(os.path.join(top, name))
print(json.dumps(found))
"""


def test_one_student_cannot_read_the_others_home_or_working_copies(runs: dict[str, Run]) -> None:
    first, second = runs.values()
    for reader, owner in ((first, second), (second, first)):
        uid = os.stat(owner.facts["home"]).st_uid
        notebook = f"{owner.facts['home']}/{COURSE}/en/05_failing_test.ipynb"
        known = [owner.facts["home"], notebook, *owner.facts["working_copies"]]
        probe = reader.kernel.run(PROBE.format(uid=uid, paths=known))
        assert probe.error is None, probe.error
        found = json.loads(probe.stdout)
        assert owner.facts["home"] in found and all(path in found for path in owner.facts["working_copies"])
        assert {path: why for path, why in found.items() if why == "readable"} == {}
        assert os.path.exists(notebook)  # there, and only unreadable to the other student


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


def test_a_stopped_server_leaves_no_process_cgroup_or_shared_memory_file(
    server: ClassServer, teacher: Hub, runs: dict[str, Run]
) -> None:
    for name, run in runs.items():
        assert run.kernel.run(run.cleanup).error is None  # the notebook's last cell removes its working copies
        assert not any(os.path.exists(path) for path in run.facts["working_copies"])
        uid = os.stat(run.facts["home"]).st_uid
        filled = Path(f"/dev/shm/reactlab-class-test-{uid}")  # as a student filling /dev/shm would
        assert run.kernel.run(f"open({str(filled)!r}, 'w').write('x' * 4096)").error is None
        assert filled.stat().st_uid == uid
        cgroups = _cgroups(run.facts["pid"])
        run.kernel.socket.close()
        teacher.stop_server(name)
        deadline = time.monotonic() + 10  # a killed process is gone once its parent, or init, has reaped it
        while list(processes_of(uid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [(p.name, (p / "status").read_text().split("\n")[:3]) for p in processes_of(uid)] == [], name
        assert [path for path in cgroups.values() if path.exists()] == [], name
        assert [entry.name for entry in os.scandir("/dev/shm") if entry.stat(follow_symlinks=False).st_uid == uid] == []
