"""A class of 20 running the shop case side by side on one machine, as threads and as processes."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from reactlab.samples import shop_path

from .conftest import needs_sandbox
from .helpers import classroom_run

pytestmark = needs_sandbox
STUDENTS = 20


def check_class(results: list[dict], tmp: Path) -> None:
    assert len(results) == STUDENTS
    assert all(r["stop_reason"] == "answer" and r["executions"] == 6 for r in results)
    assert all(r["first_test_run"] == 1 and r["independent_exit_code"] == 0 for r in results)
    assert all(r["unchanged"] == {"shop/settings.json": True, "tests": True} for r in results)
    assert len({r["root"] for r in results}) == STUDENTS, "two students shared a working copy"
    assert all(r["root"].startswith(str(tmp)) for r in results)
    assert len({r["fixed"] for r in results}) == 1  # the same one fix, applied once in each copy
    assert 'Path("settings.json")' in (shop_path() / "shop/delivery.py").read_text()
    assert list(tmp.iterdir()) == [], "temporary folders were left behind"
    leftover = subprocess.run(["pgrep", "-af", str(tmp)], capture_output=True, text=True).stdout
    assert leftover == "", f"processes were left behind: {leftover}"


def test_twenty_students_as_threads(open_tmp, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(open_tmp))
    with ThreadPoolExecutor(max_workers=STUDENTS) as pool:
        results = list(pool.map(lambda _: classroom_run(), range(STUDENTS)))
    assert {r["pid"] for r in results} == {os.getpid()}
    check_class(results, open_tmp)


def test_twenty_students_as_processes(open_tmp):
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=STUDENTS, mp_context=context) as pool:
        results = list(pool.map(classroom_run, [str(open_tmp)] * STUDENTS))
    assert len({r["pid"] for r in results}) > 1
    check_class(results, open_tmp)
