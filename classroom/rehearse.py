"""A rehearsal of the class on the class server, for a class of a given size: every student's server
started at once, the notebooks handed out with the students' link, and notebooks 04-06 run in each
student's own server through a kernel, all students at the same time. It prints what the class needs
of this machine: memory (PSS, per student and in all, and the limits' sum by The Littlest
JupyterHub's formula), cores (CPU time used by the class), the time every server took to start, the
time each cell took (p50, p95), processes and disk per student. Then the servers are stopped.

    sudo /opt/reactlab-class/env/bin/python classroom/rehearse.py http://127.0.0.1 30
    sudo /opt/reactlab-class/env/bin/python classroom/rehearse.py http://127.0.0.1 student01 student02 ...

Run it as root on the server before the class, with the accounts made by `class-server add-students`
(a size N means student01 ... studentNN; it reads their passwords from the class folder) and the hub
running. Each student gets the course in their home, as the link gives it.
tests/test_class_server.py drives the hub with the same code.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import re
import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import websocket

COURSE = "reactlab-course"  # the folder the link makes in each home (class-server's COURSE_FOLDER)
NOTEBOOKS = ("04_build_the_loop.ipynb", "05_failing_test.ipynb", "06_sandbox.ipynb")


class Hub:
    """The hub's REST API, as a teacher (an admin) who logged in with their password."""

    def __init__(self, url: str, teacher: str, password: str) -> None:
        self.url = url.rstrip("/")
        with httpx.Client(base_url=self.url, timeout=30) as browser:
            browser.get("/hub/login")
            form = {"username": teacher, "password": password, "_xsrf": browser.cookies["_xsrf"]}
            login = browser.post("/hub/login", data=form)
            if login.status_code != 302:
                raise PermissionError(f"{teacher} could not log in: HTTP {login.status_code}")
            # The session's xsrf cookie is new after the login; the API takes it in a header.
            made = browser.post(
                f"/hub/api/users/{teacher}/tokens",
                headers={"X-XSRFToken": browser.cookies["_xsrf"]},
                json={"note": "rehearsal", "expires_in": 3600},
            )
        made.raise_for_status()
        self.api = httpx.Client(
            base_url=f"{self.url}/hub/api", headers={"Authorization": f"token {made.json()['token']}"}, timeout=60
        )

    def start_servers(self, names: list[str], timeout: float = 300) -> float:
        """Ask for every server at once; the seconds until the last one answered."""
        started = time.monotonic()
        for name in names:
            if self.api.get(f"/users/{name}").status_code == 404:
                self.api.post(f"/users/{name}").raise_for_status()
        with ThreadPoolExecutor(len(names)) as pool:
            for asked in pool.map(lambda name: self.api.post(f"/users/{name}/server"), names):
                if asked.status_code not in (201, 202):
                    raise RuntimeError(f"{asked.request.url}: HTTP {asked.status_code} {asked.text}")
        waiting = set(names)
        while waiting:
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"servers not ready after {timeout:.0f} s: {sorted(waiting)}")
            for name in sorted(waiting):
                model = self.api.get(f"/users/{name}").json()
                server = model["servers"].get("")
                if server and server["ready"]:
                    waiting.discard(name)
                elif not server and not model.get("pending"):
                    raise RuntimeError(f"{name}'s server failed to start (see the hub's log)")
            time.sleep(0.5)
        return time.monotonic() - started

    def stop_server(self, name: str, timeout: float = 60) -> None:
        self.api.delete(f"/users/{name}/server").raise_for_status()
        deadline = time.monotonic() + timeout
        while self.api.get(f"/users/{name}").json()["servers"]:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name}'s server did not stop in {timeout:.0f} s")
            time.sleep(0.5)

    def student(self, name: str) -> Student:
        made = self.api.post(f"/users/{name}/tokens", json={"note": "rehearsal", "expires_in": 3600})
        made.raise_for_status()
        return Student(self.url, name, made.json()["token"])


@dataclass
class Student:
    """One student's own single-user server, through the proxy, with a token of theirs."""

    hub: str
    name: str
    token: str
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx.Client(
            base_url=f"{self.hub}/user/{self.name}", headers={"Authorization": f"token {self.token}"}, timeout=60
        )

    def open_link(self, link: str, timeout: float = 120) -> None:
        """What the browser does with the link: the hub sends it to the student's nbgitpuller page,
        whose script then streams the pull from git-pull/api."""
        page = self.http.get(link, follow_redirects=True)
        if page.status_code != 200 or "git-pull" not in page.text:
            raise RuntimeError(f"the link gave HTTP {page.status_code} at {page.url}")
        query = dict(parse_qsl(urlsplit(link).query))
        query.pop("urlpath")
        with self.http.stream("GET", "/git-pull/api", params=query, timeout=timeout) as events:
            for line in events.iter_lines():
                if line.startswith("data: "):
                    event = json.loads(line[len("data: ") :])
                    if event.get("phase") == "finished":
                        return
                    if event.get("phase") == "error":
                        raise RuntimeError(f"nbgitpuller: {event.get('message')}")
        raise RuntimeError("nbgitpuller's stream ended before it finished")

    def notebook(self, path: str) -> dict:
        got = self.http.get(f"/api/contents/{path}")
        got.raise_for_status()
        notebook: dict = got.json()["content"]
        return notebook

    def kernel(self) -> Kernel:
        made = self.http.post("/api/kernels", json={"name": "python3"})
        made.raise_for_status()
        return Kernel(self, made.json()["id"])


@dataclass
class Cell:
    stdout: str
    error: str | None  # "Name: value" of an exception the cell raised
    seconds: float = 0.0  # from the request to the kernel's reply and idle


class Kernel:
    """A kernel of the student's server, spoken to over the server's websocket, as JupyterLab does."""

    def __init__(self, student: Student, kernel_id: str) -> None:
        self.student, self.id = student, kernel_id
        url = f"{student.hub.replace('http', 'ws', 1)}/user/{student.name}/api/kernels/{kernel_id}/channels"
        self.socket = websocket.create_connection(url, header=[f"Authorization: token {student.token}"], timeout=30)
        self.session = uuid.uuid4().hex

    def send(self, code: str) -> str:
        """Ask the kernel to run ``code``; the request's id, which its answers name."""
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "session": self.session, "version": "5.3"}
        content = {"code": code, "silent": False, "store_history": True, "allow_stdin": False, "stop_on_error": True}
        message = {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}
        self.socket.send(json.dumps(message))
        return msg_id

    def run(self, code: str, timeout: float = 180) -> Cell:
        started = time.monotonic()
        msg_id = self.send(code)
        stdout, error, replied, idle = [], None, False, False
        deadline = time.monotonic() + timeout
        while not (replied and idle):
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                reply = json.loads(self.socket.recv())
            except websocket.WebSocketTimeoutException:
                raise TimeoutError(f"a cell ran past {timeout:.0f} s in {self.student.name}'s kernel") from None
            if reply.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = reply["msg_type"]
            if kind == "stream" and reply["content"]["name"] == "stdout":
                stdout.append(reply["content"]["text"])
            elif kind == "error":
                error = f"{reply['content']['ename']}: {reply['content']['evalue']}"
            elif kind == "execute_reply":
                replied = True
            elif kind == "status" and reply["content"]["execution_state"] == "idle":
                idle = True
        return Cell("".join(stdout), error, time.monotonic() - started)

    def run_cells(self, cells: list[dict], timeout: float = 600) -> list[Cell]:
        """The code cells, one after another, within ``timeout`` seconds in all."""
        deadline = time.monotonic() + timeout
        ran = []
        for cell in cells:
            if cell["cell_type"] == "code":
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the notebook ran past {timeout:.0f} s in {self.student.name}'s kernel")
                ran.append(self.run("".join(cell["source"]), min(180, deadline - time.monotonic())))
        return ran

    def shutdown(self) -> None:
        self.socket.close()
        self.student.http.delete(f"/api/kernels/{self.id}")


def processes_of(uid: int) -> Iterator[Path]:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                yield entry
        except OSError:  # it ended meanwhile
            continue


def size_of(uid: int) -> tuple[int, int]:
    """(PSS in bytes, number of processes) of everything the user runs now."""
    pss, count = 0, 0
    for process in processes_of(uid):
        try:
            rollup = (process / "smaps_rollup").read_text()
        except OSError:
            continue
        count += 1
        pss += pss_of(rollup)
    return pss, count


def pss_of(rollup: str) -> int:
    found = re.search(r"^Pss:\s+(\d+) kB", rollup, re.MULTILINE)
    return int(found[1]) * 1024 if found else 0  # a process that has exited but is not yet reaped has none


def cpu_seconds_of(uid: int) -> float | None:
    """The CPU time used so far by the cgroup of the user's server (cgroup v1's cpuacct, or v2's
    cpu.stat): what its processes used, those that have ended too. None where it has none."""
    for process in processes_of(uid):
        try:
            if b"jupyterhub-singleuser" not in (process / "cmdline").read_bytes():
                continue
            lines = (process / "cgroup").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            _, controllers, path = line.split(":", 2)
            if "cpuacct" in controllers.split(","):
                usage = Path("/sys/fs/cgroup", controllers, path.lstrip("/"), "cpuacct.usage")
                if not usage.exists():
                    usage = Path("/sys/fs/cgroup/cpuacct", path.lstrip("/"), "cpuacct.usage")
                return int(usage.read_text()) / 1e9 if usage.exists() else None
            if controllers == "":
                stat = Path("/sys/fs/cgroup", path.lstrip("/"), "cpu.stat")
                if stat.exists():
                    return int(stat.read_text().split()[1]) / 1e6  # usage_usec
    return None


def kernel_cpu_seconds(uid: int) -> list[float]:
    """The CPU time each of the user's kernels has used (what the class's per-kernel limit counts)."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = []
    for process in processes_of(uid):
        try:
            if b"ipykernel_launcher" in (process / "cmdline").read_bytes():
                fields = (process / "stat").read_text().rsplit(")", 1)[1].split()
                found.append((int(fields[11]) + int(fields[12])) / ticks)  # utime, stime
        except (OSError, IndexError, ValueError):
            continue
    return found


def disk_used(*folders: Path) -> int:
    """Bytes the files in these folders take on disk."""
    used = 0
    for folder in folders:
        for top, _, files in os.walk(folder):
            for name in files:
                try:
                    used += os.lstat(os.path.join(top, name)).st_blocks * 512
                except OSError:
                    continue
    return used


def size_in_bytes(text: str) -> int:
    """'768M' (JupyterHub's and class.json's way of writing a size) in bytes."""
    units = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    text = str(text).strip().upper()
    return int(float(text[:-1]) * units[text[-1]]) if text[-1:] in units else int(text)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def machine_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def hub_pss(folder: Path) -> int:
    """PSS of root's processes of this class: the hub, the proxy (and its loop), the idle culler."""
    pss = 0
    for process in processes_of(0):
        try:
            if str(folder).encode() in (process / "cmdline").read_bytes():
                pss += pss_of((process / "smaps_rollup").read_text())
        except OSError:
            continue
    return pss


@dataclass
class Figures:
    """What a rehearsal measured, for a class of ``students`` on this machine."""

    students: int
    ready_seconds: float  # every server asked for at once, until the last one answered
    wall_seconds: float  # the notebooks run by all at once
    cell_seconds: list[float]
    failed: list[str]
    peak_pss: dict[str, int]  # a student's largest PSS while the notebooks ran
    after_pss: dict[str, int]  # and with their kernels still open after
    peak_processes: dict[str, int]
    hub_pss: int  # the hub, proxy and culler
    cpu_seconds: list[float]  # each student's, while the notebooks ran (empty: no accounting here)
    kernel_cpu_seconds: list[float]  # each kernel's, after
    disk_bytes: list[int]  # each student's home and /tmp, after


def report(figures: Figures, settings: dict) -> None:
    cores, memory, size = os.cpu_count() or 1, machine_memory(), figures.students
    cells, limit, wall = figures.cell_seconds, size_in_bytes(settings["memory"]), figures.wall_seconds
    peak, after = figures.peak_pss.values(), figures.after_pss.values()
    needed = size * limit + 128 * 2**20  # The Littlest JupyterHub's formula
    lines = [
        f"a class of {size} on a machine of {cores} cores and {memory / 2**30:.1f} GiB",
        f"spawn: all {size} servers ready {figures.ready_seconds:.1f} s after they were asked for at once "
        f"({figures.ready_seconds / size:.1f} s a server); a spawn timeout for this class: at least "
        f"{3 * figures.ready_seconds:.0f} s (three times that)",
        f"notebooks: run by all at once in {wall:.1f} s, {len(cells)} cells, {len(figures.failed)} failed",
        *figures.failed,
        f"cell time: p50 {percentile(cells, 0.5):.2f} s, p95 {percentile(cells, 0.95):.2f} s, max {max(cells):.2f} s",
        f"memory (PSS): a student at most {max(peak) / 2**20:.0f} MiB while the notebooks ran, "
        f"{statistics.median(after) / 2**20:.0f} MiB after (median); the class after "
        f"{sum(after) / 2**30:.2f} GiB, the hub, proxy and culler {figures.hub_pss / 2**20:.0f} MiB",
        f"memory limits: {size} x {settings['memory']} + 128M = {needed / 2**30:.1f} GiB (The Littlest JupyterHub's "
        f"formula) for {memory / 2**30:.1f} GiB: {'fits' if needed <= memory else 'DOES NOT FIT'}",
    ]
    if figures.cpu_seconds:
        used = sum(figures.cpu_seconds)
        lines.append(
            f"cores: the class used {used:.0f} CPU-seconds in {wall:.0f} s, {used / wall:.2f} "
            f"cores busy on average (of {cores}); a student {statistics.median(figures.cpu_seconds):.1f} CPU-seconds "
            f"(median); a kernel at most {max(figures.kernel_cpu_seconds, default=0):.1f} "
            f"(its limit: {settings['kernel_cpu_minutes'] * 60} s)"
        )
    else:
        lines.append("cores: no CPU accounting for the students' servers here")
    lines.append(
        f"processes: a student at most {max(figures.peak_processes.values())}; disk: a student at most "
        f"{max(figures.disk_bytes) / 2**20:.0f} MiB in their home and /tmp (their disk: {settings['disk']})"
    )
    print("\n".join(lines))


def rehearse(hub: Hub, names: list[str], link: str, lang: str, folder: Path, notebooks: list[str]) -> Figures:
    """Run the rehearsal and print its figures."""
    ready = hub.start_servers(names)
    students = [hub.student(name) for name in names]
    with ThreadPoolExecutor(len(students)) as pool:
        list(pool.map(lambda student: student.open_link(link), students))
    uids = {name: pwd.getpwnam(name).pw_uid for name in names}
    peak = {name: (0, 0) for name in names}  # the largest PSS and number of processes seen
    running = threading.Event()
    running.set()

    def watch() -> None:
        while running.is_set():
            for name in names:
                now = size_of(uids[name])
                peak[name] = (max(peak[name][0], now[0]), max(peak[name][1], now[1]))
            time.sleep(0.5)

    def one_student(student: Student) -> list[Cell]:
        kernels = [student.kernel() for _ in notebooks]
        cells = []
        for kernel, notebook in zip(kernels, notebooks, strict=True):
            for cell in kernel.run_cells(student.notebook(f"{COURSE}/{lang}/{notebook}")["cells"]):
                cells.append(cell)
                if cell.error:
                    cell.error = f"{student.name} {notebook}: {cell.error}"
        return cells  # the kernels stay open, as notebooks a student has open

    cpu_before = {name: cpu_seconds_of(uid) for name, uid in uids.items()}
    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(len(students)) as pool:
            cells = [cell for ran in pool.map(one_student, students) for cell in ran]
    finally:
        running.clear()
        watcher.join()
    wall = time.monotonic() - started
    cpu_used = []
    for name, uid in uids.items():
        before, after = cpu_before[name], cpu_seconds_of(uid)
        if before is not None and after is not None:
            cpu_used.append(after - before)
    after_size = {name: size_of(uid) for name, uid in uids.items()}
    figures = Figures(
        students=len(names),
        ready_seconds=ready,
        wall_seconds=wall,
        cell_seconds=[cell.seconds for cell in cells],
        failed=[cell.error for cell in cells if cell.error],
        peak_pss={name: pss for name, (pss, _) in peak.items()},
        after_pss={name: pss for name, (pss, _) in after_size.items()},
        peak_processes={name: count for name, (_, count) in peak.items()},
        hub_pss=hub_pss(folder),
        cpu_seconds=cpu_used,
        kernel_cpu_seconds=[seconds for uid in uids.values() for seconds in kernel_cpu_seconds(uid)],
        disk_bytes=[disk_used(Path(pwd.getpwnam(name).pw_dir), folder / "spaces" / name / "tmp") for name in names],
    )
    report(figures, json.loads((folder / "class.json").read_text()))
    for name in names:
        hub.stop_server(name)
    print("the servers are stopped")
    return figures


def main(arguments: list[str] | None = None) -> Figures:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the hub, e.g. http://127.0.0.1")
    parser.add_argument("students", nargs="+", help="a class size N (student01 ... studentNN), or the students' names")
    parser.add_argument("--lang", default="en", choices=["en", "ru"])
    parser.add_argument("--class-dir", default=os.environ.get("CLASS_DIR", "/opt/reactlab-class"))
    parser.add_argument("--notebooks", nargs="+", default=list(NOTEBOOKS), help="the notebooks each student runs")
    options = parser.parse_args(arguments)
    folder = Path(options.class_dir)
    names = options.students
    if len(names) == 1 and names[0].isdigit():
        names = [f"student{number:02d}" for number in range(1, int(names[0]) + 1)]  # as class-server add-students N
    passwords = dict(line.split() for line in (folder / "state" / "passwords").read_text().splitlines())
    teacher = json.loads((folder / "class.json").read_text())["teachers"][0]
    query = urlencode({"repo": f"file://{folder}/course.git", "branch": "main", "targetpath": COURSE, "urlpath": "lab"})
    link = f"{options.url.rstrip('/')}/hub/user-redirect/git-pull?{query}"
    hub = Hub(options.url, teacher, passwords[teacher])
    return rehearse(hub, names, link, options.lang, folder, options.notebooks)


if __name__ == "__main__":
    main()
