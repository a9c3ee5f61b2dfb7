"""A rehearsal of the class on the class server: every student's server started at once, the notebooks
handed out with the students' link, and notebooks 04-06 run in each student's own server through a
kernel, all students at the same time; the size of it per student, memory (PSS) and processes, at
most while they run and after, with the three kernels still open; then the servers are stopped.

    sudo /opt/reactlab-class/env/bin/python classroom/rehearse.py http://127.0.0.1:8000 student01 student02 ...

Run it as root on the server before the class, with the accounts made by `class-server add-students`
(it reads their passwords from the class folder) and the hub running. Each student gets the course
in their home, as the link gives it. tests/test_class_server.py drives the hub with the same code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


class Kernel:
    """A kernel of the student's server, spoken to over the server's websocket, as JupyterLab does."""

    def __init__(self, student: Student, kernel_id: str) -> None:
        self.student, self.id = student, kernel_id
        url = f"{student.hub.replace('http', 'ws', 1)}/user/{student.name}/api/kernels/{kernel_id}/channels"
        self.socket = websocket.create_connection(url, header=[f"Authorization: token {student.token}"], timeout=30)
        self.session = uuid.uuid4().hex

    def run(self, code: str, timeout: float = 180) -> Cell:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "session": self.session, "version": "5.3"}
        content = {"code": code, "silent": False, "store_history": True, "allow_stdin": False, "stop_on_error": True}
        message = {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}
        self.socket.send(json.dumps(message))
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
        return Cell("".join(stdout), error)

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
        found = re.search(r"^Pss:\s+(\d+) kB", rollup, re.MULTILINE)
        pss += int(found[1]) * 1024 if found else 0  # a process that has exited but is not yet reaped has none
    return pss, count


def rehearse(hub: Hub, names: list[str], link: str, lang: str) -> None:
    ready = hub.start_servers(names)
    print(f"{len(names)} servers asked for at once: all ready in {ready:.1f} s")
    students = [hub.student(name) for name in names]
    with ThreadPoolExecutor(len(students)) as pool:
        list(pool.map(lambda student: student.open_link(link), students))
    peak = {name: (0, 0) for name in names}  # the largest PSS and number of processes seen
    running = threading.Event()
    running.set()

    def watch() -> None:
        while running.is_set():
            for name in names:
                now = size_of(_uid(name))
                peak[name] = (max(peak[name][0], now[0]), max(peak[name][1], now[1]))
            time.sleep(0.5)

    def one_student(student: Student) -> list[str]:
        kernels = [student.kernel() for _ in NOTEBOOKS]
        failed = []
        for kernel, notebook in zip(kernels, NOTEBOOKS, strict=True):
            for cell in kernel.run_cells(student.notebook(f"{COURSE}/{lang}/{notebook}")["cells"]):
                if cell.error:
                    failed.append(f"{student.name} {notebook}: {cell.error}")
        return failed  # the kernels stay open, as three notebooks a student has open

    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(len(students)) as pool:
            failed = [line for lines in pool.map(one_student, students) for line in lines]
    finally:
        running.clear()
        watcher.join()
    print(f"notebooks {', '.join(n[:2] for n in NOTEBOOKS)} run by all at once in {time.monotonic() - started:.1f} s")
    print("\n".join(failed) or "no cell failed")
    print("student        PSS (MiB): at most, after   processes: at most, after")
    for name in names:
        pss, count = size_of(_uid(name))
        print(f"{name:14} {peak[name][0] / 2**20:17.0f} {pss / 2**20:6.0f}   {peak[name][1]:18} {count:6}")
    for name in names:
        hub.stop_server(name)
    print("the servers are stopped")


def _uid(name: str) -> int:
    import pwd

    return pwd.getpwnam(name).pw_uid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the hub, e.g. http://127.0.0.1:8000")
    parser.add_argument("students", nargs="+")
    parser.add_argument("--lang", default="en", choices=["en", "ru"])
    parser.add_argument("--class-dir", default=os.environ.get("CLASS_DIR", "/opt/reactlab-class"))
    options = parser.parse_args()
    folder = Path(options.class_dir)
    passwords = dict(line.split() for line in (folder / "passwords").read_text().splitlines())
    teacher = json.loads((folder / "class.json").read_text())["teachers"][0]
    query = urlencode({"repo": f"file://{folder}/course.git", "branch": "main", "targetpath": COURSE, "urlpath": "lab"})
    link = f"{options.url.rstrip('/')}/hub/user-redirect/git-pull?{query}"
    rehearse(Hub(options.url, teacher, passwords[teacher]), options.students, link, options.lang)


if __name__ == "__main__":
    main()
