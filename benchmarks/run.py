"""Where the time and the tokens go. Run: `make bench` (or `python benchmarks/run.py`).

Every figure that is compared is measured side by side in this one run (the machines are shared
and noisy), and printed as a ratio. Results go to benchmarks/results.json. Nothing here asserts.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from common import (
    BURST,
    CPU_MEASURED_BY,
    LONG_RUN,
    MODEL_TIME,
    SIZES,
    Stopwatch,
    cpu_and_wall,
    dumps_floor,
    interleaved,
    median_time,
    run_as_sandbox_uid,
    side_by_side,
)
from fakes import NoOp, StopwatchClient
from lite import lite_site

from reactlab import Agent, BashTool, Script, Workspace, default_tools, run_in_copy
from reactlab.core.sandbox import Sandbox
from reactlab.core.sandbox.disk import CHECK_INTERVAL, room_taken
from reactlab.core.sandbox.identity import acting_as_root, host_identity
from reactlab.core.sandbox.tidy import tidy
from reactlab.core.sandbox.walk import MAX_ENTRIES
from reactlab.samples import SHOP, SHOP_READ_ONLY, SHOP_TEST_COMMAND, shop_path
from reactlab.widgets.history import history_html
from reactlab.widgets.loop import loop_html
from reactlab.widgets.route import route_html
from reactlab.widgets.sequence import sequence_html
from reactlab.widgets.stopping import stopping_html
from reactlab.widgets.viewer import RunViewer

ROOT = Path(__file__).resolve().parent.parent
QUICK = "--quick" in sys.argv
NO_NOTEBOOKS = "--no-notebooks" in sys.argv  # keep the notebook figures results.json already has


# 1. The agent's own cost per step, and what a long run keeps ------------------------------------------------
def agent_overhead() -> dict[str, Any]:
    gaps: dict[int, list[float]] = {size: [] for size in SIZES}
    floor: dict[int, list[float]] = {size: [] for size in SIZES}
    for _ in range(3 if QUICK else 7):
        watch = Stopwatch()
        client = StopwatchClient(LONG_RUN, watch, keep_bodies=True)
        Agent(client, [NoOp(watch)], max_steps=LONG_RUN, max_tool_calls=LONG_RUN).run("loop")
        for _ in range(20):  # a long run passes 10 messages only once: sample it more often
            Agent(StopwatchClient(8, watch), [NoOp(watch)], max_steps=8, max_tool_calls=8).run("loop")
        for size in SIZES:
            gaps[size] += watch.at(size)
            floor[size] += dumps_floor(client.bodies, size)
    figures: dict[str, Any] = {}
    for size in SIZES:
        step, dumps = statistics.median(gaps[size]), statistics.median(floor[size])
        figures[f"history_{size}"] = {
            "overhead_us_per_step": round(step * 1e6, 1),
            "json_dumps_us": round(dumps * 1e6, 1),
            "ratio_to_json_dumps": round(step / dumps, 2),
        }
    figures[f"memory_growth_{LONG_RUN}_steps_mb"] = round(memory_growth() / 1e6, 2)
    # The same loop with the real client and an in-memory transport (adds JSON encoding and httpx).
    script = Script()
    for _ in range(49):
        script.tool_call("noop", "{}")
    script.final_answer("done")
    full = median_time(
        lambda: Agent(script.client(), [NoOp()], max_steps=50, max_tool_calls=50).run("loop"), 3 if QUICK else 7
    )
    figures["with_client_50_steps_ms"] = round(full * 1e3, 2)
    return figures


def memory_growth() -> int:
    """Bytes a long run keeps (its record), measured with tracemalloc."""
    agent = Agent(StopwatchClient(LONG_RUN), [NoOp()], max_steps=LONG_RUN, max_tool_calls=LONG_RUN)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    agent.run("loop")
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return grown


# 2. The sandbox, as it really runs here --------------------------------------------------------------------
def sandbox_version() -> str:
    """Which reactlab/core/sandbox/ was measured: its last commit, and whether it has changed since."""
    commit = subprocess.run(["git", "log", "-1", "--format=%h %cs", "--", "reactlab/core/sandbox"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "reactlab/core/sandbox"], cwd=ROOT).returncode
    return f"{commit or 'unknown'}{' + uncommitted changes' if changed else ''}"


def bare_bwrap() -> list[str]:
    """The least bwrap that isolates anything: every namespace, a user namespace, /usr to run `true`."""
    return [shutil.which("bwrap") or "bwrap", "--unshare-all", "--unshare-user",
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--", "/bin/true"]  # fmt: skip


def sandbox_cost() -> dict[str, Any]:
    """CPU and wall time of a sandboxed `true`, each command after 20 ms of idle (the model's turn),
    beside a bare bwrap: everything the Sandbox spends is in its process or in children it reaps."""
    workspace = Workspace(shop_path(), SHOP_READ_ONLY)
    try:
        sandbox = Sandbox(workspace.root, SHOP_READ_ONLY, pristine=workspace.source)
        limits = sandbox.limits()

        def one_command() -> None:
            with Sandbox(workspace.root, SHOP_READ_ONLY, pristine=workspace.source) as alone:
                alone.run("true", 30)

        contenders: dict[str, Callable[[], object]] = {
            "sandboxed": lambda: sandbox.run("true", 30),
            "one_command_sandbox": one_command,
            "bare_bwrap": lambda: subprocess.run(bare_bwrap(), check=True, capture_output=True),
            "bare_bwrap_as_sandbox_uid": lambda: run_as_sandbox_uid(bare_bwrap()),
            "bash_c": lambda: subprocess.run(["bash", "-c", "true"], check=True),
            "plain": lambda: subprocess.run(["true"], check=True),
        }
        if acting_as_root():  # the two ways not taken to start bwrap as the sandbox uid (identity.py)
            uid, gid = host_identity()
            setpriv = ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
            contenders["bare_bwrap_through_setpriv"] = lambda: subprocess.run(
                [*setpriv, *bare_bwrap()], check=True, capture_output=True
            )
            contenders["bare_bwrap_popen_user"] = lambda: subprocess.run(
                bare_bwrap(), check=True, capture_output=True, user=uid, group=gid, extra_groups=[]
            )
        costs = cpu_and_wall(contenders, 5 if QUICK else 21, per_call=5)
        back_to_back = interleaved({"back_to_back": lambda: [sandbox.run("true", 30) for _ in range(BURST)]}, 7)
        sandbox.close()
        bash = BashTool(workspace)
        host_copy = Path(tempfile.mkdtemp(prefix="reactlab-bench-"))
        shutil.copytree(shop_path(), host_copy, dirs_exist_ok=True)
        tests_in, tests_out = side_by_side(
            lambda: bash.execute({"command": SHOP_TEST_COMMAND}),
            lambda: subprocess.run(SHOP_TEST_COMMAND, shell=True, cwd=host_copy, capture_output=True),
            5 if QUICK else 15,
        )
        bash.sandbox.close()
        shutil.rmtree(host_copy)
    finally:
        workspace.cleanup()
    figures: dict[str, Any] = {
        "sandbox_version": sandbox_version(),
        "uid": os.getuid(),
        "cgroups": {
            "processes_limited": limits.get("processes") is not None,
            "memory_limited": limits.get("memory_bytes") is not None,
        },
        "model_time_ms": MODEL_TIME * 1e3,
        "cpu_measured_by": CPU_MEASURED_BY,
    }
    for name, (cpu, wall) in costs.items():
        figures[f"true_{name}_cpu_ms"] = round(cpu * 1e3, 2)
        figures[f"true_{name}_wall_ms"] = round(wall * 1e3, 2)
    bare = costs["bare_bwrap_as_sandbox_uid" if acting_as_root() else "bare_bwrap"][0]
    figures["cpu_ratio_to_bare_bwrap"] = round(costs["sandboxed"][0] / bare, 2)
    figures["cpu_ratio_to_bare_bwrap_as_caller"] = round(costs["sandboxed"][0] / costs["bare_bwrap"][0], 2)
    figures["true_back_to_back_wall_ms"] = round(back_to_back["back_to_back"] / BURST * 1e3, 2)
    figures["back_to_back_burst"] = BURST
    figures["shop_tests_sandboxed_ms"] = round(tests_in * 1e3, 1)
    figures["shop_tests_host_ms"] = round(tests_out * 1e3, 1)
    figures["shop_tests_ratio"] = round(tests_in / tests_out, 2)
    figures["walk_after_a_command_ms"] = walk_after_a_command()
    figures["default_tools_ms"] = round(median_time(making_the_tools, 5 if QUICK else 15) * 1e3, 1)
    return figures


def walk_after_a_command() -> dict[str, dict[str, float]]:
    """The host's walk of the copy after each command, and a check of the disk bound while one runs
    (every CHECK_INTERVAL at most), by how many entries a command left: bounded (reactlab/core/sandbox/walk.py),
    so past MAX_ENTRIES it stops the run instead of costing more."""
    found: dict[str, dict[str, float]] = {"after": {}, "disk_check": {}}
    for entries in (10, 1_000, MAX_ENTRIES):
        folder = Path(tempfile.mkdtemp(prefix="reactlab-bench-walk-"))
        for number in range(entries - 1):
            (folder / f"f{number}").touch()
        runs = 3 if QUICK else 7
        found["after"][str(entries)] = round(median_time(lambda folder=folder: tidy(folder), runs) * 1e3, 2)
        found["disk_check"][str(entries)] = round(median_time(lambda folder=folder: disk_check(folder), runs) * 1e3, 3)
        shutil.rmtree(folder)
    return found


def disk_check(folder: Path) -> None:
    """What a check of the disk bound does while a command runs (reactlab/core/sandbox/disk.py)."""
    room_taken(folder)
    os.statvfs(folder)


def making_the_tools() -> None:
    with Workspace(shop_path(), SHOP_READ_ONLY) as workspace:
        for tool in default_tools(workspace):
            if isinstance(tool, BashTool):
                tool.sandbox.close()


# 3. The offline demo, and 7. a class of 20 -----------------------------------------------------------
def shop_run() -> None:
    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    outcome.workspace.cleanup()
    assert outcome.answer is not None


def demo_and_class() -> dict[str, Any]:
    one = median_time(shop_run, 3 if QUICK else 10)
    students = 20

    def class_of_20() -> None:
        with ThreadPoolExecutor(max_workers=students) as pool:
            list(pool.map(lambda _: shop_run(), range(students)))

    alone, together = side_by_side(shop_run, class_of_20, 1 if QUICK else 3)
    return {
        "demo_median_s": round(one, 3),
        "class_of_20_s": round(together, 2),
        "one_student_s": round(alone, 3),
        "class_of_20_ratio": round(together / alone, 1),
        "cores": os.cpu_count(),
    }


# 5. Widgets ---------------------------------------------------------------------------------------------
def synthetic_run(steps: int):
    script = Script()
    for _ in range(steps - 1):
        script.tool_call("noop", "{}")
    agent = Agent(script.final_answer("done").client(), [NoOp()], max_steps=steps, max_tool_calls=steps)
    agent.run("a long run")
    return agent.record


def widgets_cost() -> dict[str, Any]:
    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    outcome.workspace.cleanup()
    figures = {}
    for name, record in (("shop", outcome.record), ("synthetic_200_steps", synthetic_run(200))):
        repeat = 3 if QUICK else 9
        renderers = {
            "scheme1_loop_ms": loop_html,
            "scheme2_sequence_ms": sequence_html,
            "scheme3_history_ms": history_html,
            "scheme4_stopping_ms": stopping_html,
            "scheme5_route_ms": route_html,
        }
        figures[name] = {
            key: round(median_time(lambda r=record, f=render: f(r), repeat) * 1e3, 2)
            for key, render in renderers.items()
        }
        figures[name]["run_viewer_all_steps_ms"] = round(
            median_time(lambda r=record: RunViewer(r), 1 if QUICK else 3) * 1e3, 1
        )
    return figures


# 6. Cache-friendliness and cost --------------------------------------------------------------------------
PRICES = {"hit": 0.003, "miss": 0.15, "output": 0.60}  # deepseek-flash, $ per 1M tokens, off-peak (API.md)


def cache_figures() -> dict[str, Any]:
    outcome = run_in_copy(SHOP, SHOP.cassette().client())
    outcome.workspace.cleanup()
    calls = outcome.record.model_calls
    shares = []
    for earlier, later in zip(calls, calls[1:], strict=False):
        a = json.dumps(earlier.messages, ensure_ascii=False)[:-1]  # without the closing bracket
        b = json.dumps(later.messages, ensure_ascii=False)
        shared = len(os.path.commonprefix([a, b]))
        shares.append(round(100 * shared / len(a), 2))
    usage = [c.usage for c in calls]
    cached = sum(u["prompt_cache_hit_tokens"] * PRICES["hit"] + u["prompt_cache_miss_tokens"] * PRICES["miss"]
                 + u["completion_tokens"] * PRICES["output"] for u in usage) / 1e6  # fmt: skip
    uncached = sum(u["prompt_tokens"] * PRICES["miss"] + u["completion_tokens"] * PRICES["output"] for u in usage) / 1e6
    return {
        "prefix_share_percent": shares,
        "min_prefix_share_percent": min(shares),
        "usage_estimated": bool(usage[0].get("estimated")),
        "cost_usd_with_cache": round(cached, 7),
        "cost_usd_without_cache": round(uncached, 7),
        "cache_saving_ratio": round(uncached / cached, 2),
    }


# 4. Notebooks ---------------------------------------------------------------------------------------------
def notebook_times() -> dict[str, Any]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env",
               "--nbval-sanitize-with", "tests/nbval-sanitize.cfg"]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    figures = {}
    for notebook in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        started = time.perf_counter()
        done = subprocess.run([*command, str(notebook)], cwd=ROOT, env=env, capture_output=True, text=True)
        figures[notebook.stem] = {"seconds": round(time.perf_counter() - started, 2), "passed": done.returncode == 0}
    started = time.perf_counter()
    done = subprocess.run([*command, "-n", "2", "--dist", "loadscope", "notebooks"], cwd=ROOT, env=env,
                          capture_output=True, text=True)  # fmt: skip
    figures["all_with_2_workers"] = {"seconds": round(time.perf_counter() - started, 2), "passed": done.returncode == 0}
    return figures


def machine() -> dict[str, Any]:
    bwrap = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "bwrap": bwrap,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def step_ratio(size: int) -> tuple[str, Any, float]:
    return (f"agent step / one json.dumps of its request, {size} messages",
            lambda r: r["agent"][f"history_{size}"]["ratio_to_json_dumps"], 1)  # fmt: skip


TARGETS = [
    *(step_ratio(size) for size in SIZES),
    (f"memory a {LONG_RUN}-step run keeps (MB)", lambda r: r["agent"][f"memory_growth_{LONG_RUN}_steps_mb"], 10),
    ("sandbox `true`, median wall (ms)", lambda r: r["sandbox"]["true_sandboxed_wall_ms"], 20),
    ("sandbox `true`, CPU per command / a bare bwrap's", lambda r: r["sandbox"]["cpu_ratio_to_bare_bwrap"], 2),
    (
        "sandbox `true`, CPU per command / a bare bwrap's started by the same caller (as root: as root)",
        lambda r: r["sandbox"]["cpu_ratio_to_bare_bwrap_as_caller"],
        2,
    ),
    ("offline shop demo, median (s)", lambda r: r["demo"]["demo_median_s"], 3),
    ("all notebooks under nbval, 2 workers (s)", lambda r: r["notebooks"]["all_with_2_workers"]["seconds"], 60),
    ("Scheme 5 for 200 steps (s)", lambda r: r["widgets"]["synthetic_200_steps"]["scheme5_route_ms"] / 1e3, 0.5),
    ("Scheme 3 for 200 steps (s)", lambda r: r["widgets"]["synthetic_200_steps"]["scheme3_history_ms"] / 1e3, 0.5),
]
LITE_TARGETS = [
    ("the site for a browser tab (MB)", lambda r: r["lite"]["site_mb"], 30),
    ("its first notebook ready to run, page load to kernel, cold (s)", lambda r: r["lite"]["kernel_ready_cold_s"], 15),
]
TARGETS += LITE_TARGETS


def main() -> None:
    results: dict[str, Any] = {"machine": machine()}
    sections = [("agent", agent_overhead), ("sandbox", sandbox_cost), ("demo", demo_and_class),
                ("widgets", widgets_cost), ("cache", cache_figures), ("notebooks", notebook_times),
                ("lite", lambda: lite_site(1 if QUICK else 3))]  # fmt: skip
    path = ROOT / "benchmarks" / "results.json"
    stored = json.loads(path.read_text()) if path.exists() else {}
    for name, measure in sections:
        if name == "notebooks" and NO_NOTEBOOKS and "notebooks" in stored:
            results[name] = {**stored["notebooks"], "not_measured_in_this_run": True}
            continue
        print(f"measuring {name} ...", flush=True)
        results[name] = measure()
    prefix_ok = results["cache"]["min_prefix_share_percent"] == 100.0
    targets = TARGETS if "skipped" not in results["lite"] else [t for t in TARGETS if t not in LITE_TARGETS]
    results["targets"] = [
        {"what": what, "figure": round(get(results), 4), "target": target, "met": get(results) < target}
        for what, get, target in targets
    ] + [{"what": "prefix share (%)", "figure": results["cache"]["min_prefix_share_percent"], "target": 100,
          "met": prefix_ok}]  # fmt: skip
    if not QUICK:
        if "peers" in stored:
            results["peers"] = stored["peers"]  # written by `make bench-peers`
        path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    report(results)


def report(r: dict[str, Any]) -> None:
    a = r["agent"]
    print("\nagent overhead per step (no model, no-op tool), against one json.dumps of the request")
    for size in (10, 100, 1000):
        f = a[f"history_{size}"]
        print(f"  {size:>5} messages: {f['overhead_us_per_step']:>9.1f} µs   json.dumps {f['json_dumps_us']:>8.1f} µs"
              f"   ratio {f['ratio_to_json_dumps']:>5.2f}")  # fmt: skip
    print(f"  with DeepSeekClient + in-memory transport, 50 steps: {a['with_client_50_steps_ms']} ms")
    print(f"  memory a {LONG_RUN}-step run keeps: {a[f'memory_growth_{LONG_RUN}_steps_mb']} MB")
    s = r["sandbox"]
    print(f"\nsandbox {s['sandbox_version']} as uid {s['uid']}, cgroups {s['cgroups']}; each command after "
          f"{s['model_time_ms']:g} ms of idle. CPU / wall per command (ms):")  # fmt: skip
    for name in ("sandboxed", "one_command_sandbox", "bare_bwrap", "bare_bwrap_as_sandbox_uid",
                 "bare_bwrap_through_setpriv", "bare_bwrap_popen_user", "bash_c", "plain"):  # fmt: skip
        if f"true_{name}_cpu_ms" in s:
            print(f"  {name:26} {s[f'true_{name}_cpu_ms']:>7} / {s[f'true_{name}_wall_ms']:>7}")
    print(f"  CPU of a sandboxed `true` / a bare bwrap's: x{s['cpu_ratio_to_bare_bwrap']} "
          f"(x{s['cpu_ratio_to_bare_bwrap_as_caller']} against one run as the caller)")  # fmt: skip
    print(
        f"  {s['back_to_back_burst']} back to back: {s['true_back_to_back_wall_ms']} ms per command; shop tests "
        f"{s['shop_tests_sandboxed_ms']} ms vs host {s['shop_tests_host_ms']} ms (x{s['shop_tests_ratio']})"
    )
    walks = s["walk_after_a_command_ms"]
    print(
        f"  the host's walk after a command, by entries left: {walks['after']} ms; a check of the disk bound "
        f"while one runs (every {CHECK_INTERVAL} s at most): {walks['disk_check']} ms; "
        f"default_tools() {s['default_tools_ms']} ms"
    )
    d = r["demo"]
    print(f"\noffline shop demo: median {d['demo_median_s']} s; a class of 20 (threads) {d['class_of_20_s']} s "
          f"vs one {d['one_student_s']} s: x{d['class_of_20_ratio']} on {d['cores']} cores")  # fmt: skip
    print("\nwidgets (ms)")
    for name, figures in r["widgets"].items():
        print(f"  {name}: " + ", ".join(f"{k.removesuffix('_ms')} {v}" for k, v in figures.items()))
    c = r["cache"]
    print(f"\nprefix share of each request in the next: {c['prefix_share_percent']} %")
    print(f"shop run at deepseek-flash prices ({'estimated' if c['usage_estimated'] else 'real'} usage): "
          f"${c['cost_usd_with_cache']} with the cache, ${c['cost_usd_without_cache']} without "
          f"(x{c['cache_saving_ratio']})")  # fmt: skip
    print("\nnotebooks under the README's nbval command (s)")
    for name, figures in r["notebooks"].items():
        if isinstance(figures, dict):
            print(f"  {name}: {figures['seconds']}{'' if figures['passed'] else '  (FAILED)'}")
    if r["notebooks"].get("not_measured_in_this_run"):
        print("  (carried over from an earlier run: --no-notebooks)")
    lite = r["lite"]
    if "skipped" in lite:
        print(f"\nthe site for a browser tab: not measured ({lite['skipped']})")
    else:
        print(f"\nthe site for a browser tab (make lite): {lite['site_mb']} MB in {lite['site_files']} files, "
              f"{lite['loaded_on_first_visit_mb']} MB loaded on a first visit")  # fmt: skip
        for name, value in lite.items():
            if name.endswith("_mb") and name not in ("site_mb", "loaded_on_first_visit_mb"):
                print(f"  {name.removesuffix('_mb')}: {value} MB")
        cold, warm = lite["kernel_ready_cold_s"], lite["kernel_ready_warm_s"]
        print(f"  kernel ready after page load: cold {cold} s (x{lite['cold_ratio_to_native']} a native kernel's "
              f"{lite['native_kernel_ready_s']} s); the next notebook {warm} s (x{lite['warm_ratio_to_native']}); "
              f"median of {lite['rounds']}")  # fmt: skip
    print("\ntargets")
    for t in r["targets"]:
        print(f"  {'met ' if t['met'] else 'MISS'}  {t['what']}: {t['figure']} (target {t['target']})")


if __name__ == "__main__":
    main()
