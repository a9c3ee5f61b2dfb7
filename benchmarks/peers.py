"""reactlab beside mini-swe-agent and smolagents: the same workloads, taking turns, in one run.

Run: `make bench-peers`. It installs the peers into benchmarks/.peers-venv (never the project's
.venv) and runs this file there. The figures go to benchmarks/results.json under "peers", as
medians and as ratios (reactlab's figure over the peer's: below 1 means reactlab is cheaper).
In that environment, `peers.py --only loop_fake_model,sandbox` re-measures some sections and keeps
the rest; `peers.py --table` prints the README's table.
Nothing here asserts: the machines are shared and noisy, so every comparison is interleaved.

The contenders, each driven through its own public API:
- reactlab: Agent with a scripted ChatClient, or DeepSeekClient on an in-memory httpx transport;
  bash through reactlab.core.sandbox.Sandbox.
- mini-swe-agent: DefaultAgent with DeterministicToolcallModel, or LitellmModel whose OpenAI client
  sends to the same in-memory transport; commands through BubblewrapEnvironment.
- smolagents: ToolCallingAgent with a fake Model, or OpenAIServerModel on the in-memory transport.
  It has no shell: its LocalPythonExecutor interprets Python inside the agent's own process.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm would fetch its price list at import
os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
os.environ.setdefault("MSWEA_COST_TRACKING", "ignore_errors")

import httpx  # noqa: E402
from common import (  # noqa: E402
    BURST,
    CPU_MEASURED_BY,
    LONG_RUN,
    MODEL_TIME,
    SIZES,
    Stopwatch,
    completion_body,
    cpu_and_wall,
    dumps_floor,
    function_call,
    interleaved,
    run_as_sandbox_uid,
)

ROOT = Path(__file__).resolve().parent.parent
QUICK = "--quick" in sys.argv
BASE_URL = "http://in-memory.test/v1"
SHORT_RUNS = 5 if QUICK else 20
CONTENDERS = ("reactlab", "mini-swe-agent", "smolagents")


def steps_to_reach(contender: str, messages: int, real_client: bool = False) -> int:
    # smolagents keeps a third message per step (a "tool-call" note), which it drops from the wire.
    per_step = 3 if contender == "smolagents" and not real_client else 2
    return (messages + 4) // per_step + 1


def in_memory_server(watch: Stopwatch, answer: Callable[[int], tuple[dict[str, Any], str]]) -> httpx.MockTransport:
    """An OpenAI-compatible server in memory; the time it spends is the model's, not the agent's."""
    answered = 0

    def handle(request: httpx.Request) -> httpx.Response:
        nonlocal answered
        now = time.perf_counter()
        answered += 1
        watch.enter_model(len(json.loads(request.content)["messages"]), now)
        message, reason = answer(answered)
        response = httpx.Response(200, json=completion_body(message, reason, answered))
        watch.leave_model()
        return response

    return httpx.MockTransport(handle)


# reactlab -----------------------------------------------------------------------------------------------
def reactlab_run(steps: int, watch: Stopwatch, real_client: bool) -> Any:
    from fakes import NoOp, StopwatchClient

    from reactlab import Agent, DeepSeekClient

    def answer(number: int) -> tuple[dict[str, Any], str]:
        if number < steps:
            return function_call(number, "noop", "{}"), "tool_calls"
        return {"role": "assistant", "content": "done"}, "stop"

    client: Any = StopwatchClient(steps, watch)
    if real_client:
        client = DeepSeekClient(api_key="", base_url=BASE_URL, transport=in_memory_server(watch, answer))
    agent = Agent(client, [NoOp(watch)], max_steps=steps, max_tool_calls=steps)
    agent.run("Call noop until told to stop.")
    return agent


# mini-swe-agent --------------------------------------------------------------------------------------------
def mini_agent(model: Any, env: Any) -> Any:
    from minisweagent.agents.default import DefaultAgent

    return DefaultAgent(
        model, env, system_template="You run commands.", instance_template="{{task}}", step_limit=0, cost_limit=0
    )


class MiniNoOpEnvironment:
    """mini-swe-agent's Environment protocol, running nothing: `submit` ends the run."""

    def __init__(self, watch: Stopwatch) -> None:
        self.watch = watch

    def execute(self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        from minisweagent.exceptions import Submitted

        with self.watch.tool():
            if action.get("command") == "submit":
                extra = {"exit_status": "Submitted", "submission": "done"}
                raise Submitted({"role": "exit", "content": "done", "extra": extra})
            return {"output": "", "returncode": 0, "exception_info": ""}

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {}

    def serialize(self) -> dict[str, Any]:
        return {}


def mini_answer(steps: int, last: str) -> Callable[[int], tuple[dict[str, Any], str]]:
    def answer(number: int) -> tuple[dict[str, Any], str]:
        command = "true" if number < steps else last
        return function_call(number, "bash", json.dumps({"command": command})), "tool_calls"

    return answer


def mini_client_model(transport: httpx.BaseTransport) -> Any:
    """mini-swe-agent's LitellmModel, its OpenAI client sending to ``transport``."""
    import litellm
    from minisweagent.models.litellm_model import LitellmModel
    from openai import OpenAI

    litellm.suppress_debug_info = True
    client = OpenAI(api_key="x", base_url=BASE_URL, http_client=httpx.Client(transport=transport))

    class InMemoryLitellmModel(LitellmModel):
        def _query(self, messages: list[dict[str, str]], **kwargs: Any) -> Any:
            return super()._query(messages, client=client, **kwargs)

    return InMemoryLitellmModel(model_name="openai/m", model_kwargs={"api_key": "x", "api_base": BASE_URL})


def mini_run(steps: int, watch: Stopwatch, real_client: bool) -> Any:
    from minisweagent.models.test_models import DeterministicToolcallModel

    class TimedModel(DeterministicToolcallModel):
        def query(self, messages: list[dict[str, str]], **kwargs: Any) -> dict[str, Any]:
            watch.enter_model(len(messages))
            output = super().query(messages, **kwargs)
            watch.leave_model()
            return output

        def serialize(self) -> dict[str, Any]:
            # The stock one dumps every scripted output at every step; a real model dumps its settings.
            return {"info": {"config": {"model": {"model_name": "deterministic"}}}}

    answer = mini_answer(steps, "submit")
    if real_client:
        model = mini_client_model(in_memory_server(watch, answer))
    else:
        outputs = []
        for number in range(1, steps + 1):
            message = answer(number)[0]
            command = json.loads(message["tool_calls"][0]["function"]["arguments"])["command"]
            actions = [{"command": command, "tool_call_id": message["tool_calls"][0]["id"]}]
            outputs.append({**message, "extra": {"actions": actions, "cost": 0.0}})
        model = TimedModel(outputs=outputs)
    agent = mini_agent(model, MiniNoOpEnvironment(watch))
    agent.run("Call noop until told to stop.")
    return agent


# smolagents ------------------------------------------------------------------------------------------------
def smol_noop(watch: Stopwatch) -> Any:
    from smolagents import Tool

    class SmolNoOp(Tool):
        name = "noop"
        description = "Does nothing."
        inputs: dict[str, Any] = {}
        output_type = "string"

        def forward(self) -> str:
            with watch.tool():
                return "ok"

    return SmolNoOp()


def smol_answer(steps: int) -> Callable[[int], tuple[dict[str, Any], str]]:
    def answer(number: int) -> tuple[dict[str, Any], str]:
        if number < steps:
            return function_call(number, "noop", "{}"), "tool_calls"
        return function_call(number, "final_answer", json.dumps({"answer": "done"})), "tool_calls"

    return answer


def smol_run(steps: int, watch: Stopwatch, real_client: bool, tools: list[Any] | None = None) -> Any:
    from smolagents import Model, OpenAIServerModel, ToolCallingAgent
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole
    from smolagents.monitoring import LogLevel

    answer = smol_answer(steps)

    class FakeModel(Model):
        answered = 0

        def generate(self, messages: list[Any], stop_sequences: Any = None, tools_to_call_from: Any = None,
                     **kwargs: Any) -> ChatMessage:  # fmt: skip
            watch.enter_model(len(messages))
            self.answered += 1
            call = answer(self.answered)[0]["tool_calls"][0]
            arguments = json.loads(call["function"]["arguments"])
            function = ChatMessageToolCallFunction(name=call["function"]["name"], arguments=arguments)
            tool_calls = [ChatMessageToolCall(function=function, id=call["id"], type="function")]
            message = ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=tool_calls)
            watch.leave_model()
            return message

    model: Any = FakeModel()
    if real_client:
        http_client = httpx.Client(transport=in_memory_server(watch, answer))
        model = OpenAIServerModel("m", api_base=BASE_URL, api_key="x", client_kwargs={"http_client": http_client})
    agent = ToolCallingAgent(tools=tools or [smol_noop(watch)], model=model, max_steps=steps + 1,
                             verbosity_level=LogLevel.OFF)  # fmt: skip
    agent.run("Call noop until told to stop.")
    return agent


RUNS: dict[str, Callable[..., Any]] = {"reactlab": reactlab_run, "mini-swe-agent": mini_run, "smolagents": smol_run}


# 1. The loop's own cost per step --------------------------------------------------------------------------
def loop_per_step(real_client: bool) -> dict[str, Any]:
    from fakes import NoOp, StopwatchClient

    from reactlab import Agent

    watches: dict[str, list[Stopwatch]] = {name: [] for name in CONTENDERS}

    def one(name: str) -> Callable[[], None]:
        def run() -> None:
            watch = Stopwatch()
            RUNS[name](steps_to_reach(name, max(SIZES), real_client), watch, real_client)
            for _ in range(SHORT_RUNS):  # a long run passes 10 messages only once: sample it more often
                RUNS[name](steps_to_reach(name, min(SIZES), real_client) + 1, watch, real_client)
            watches[name].append(watch)

        return run

    # The floor: one json.dumps of each of reactlab's requests near each size, taking its turn with
    # the contenders (measured apart, after them, it once came out far lower than beside them).
    client = StopwatchClient(steps_to_reach("reactlab", max(SIZES)), keep_bodies=True)
    Agent(client, [NoOp()], max_steps=client.steps, max_tool_calls=client.steps).run("Call noop until told to stop.")
    floors: dict[int, list[float]] = {size: [] for size in SIZES}

    def floor() -> None:
        for size in SIZES:
            floors[size] += dumps_floor(client.bodies, size)

    interleaved({**{name: one(name) for name in CONTENDERS}, "json.dumps": floor}, 1 if QUICK else 3)
    figures: dict[str, Any] = {}
    for size in SIZES:
        row: dict[str, Any] = {"json_dumps_us": round(statistics.median(floors[size]) * 1e6, 1)}
        for name in CONTENDERS:
            gaps = [gap for watch in watches[name] for gap in watch.at(size)]
            row[f"{name}_us"] = round(statistics.median(gaps) * 1e6, 1)
        row["reactlab_to_json_dumps"] = round(row["reactlab_us"] / row["json_dumps_us"], 2)
        for peer in CONTENDERS[1:]:
            row[f"reactlab_to_{peer}"] = round(row["reactlab_us"] / row[f"{peer}_us"], 3)
        figures[f"messages_{size}"] = row
    return figures


# 2. A sandboxed command --------------------------------------------------------------------------------------
def sandboxed_commands() -> dict[str, Any]:
    """Wall and CPU time per command, each after MODEL_TIME of idle as between model calls. CPU is
    this process's and its reaped children's (getrusage): every contender's bwrap and all its sandbox
    start and end within the call, so nothing of theirs escapes the count."""
    from minisweagent.environments.extra.bubblewrap import BubblewrapEnvironment
    from smolagents.local_python_executor import LocalPythonExecutor

    from reactlab import Workspace
    from reactlab.core.sandbox import Sandbox

    workspace = Workspace(tempfile.mkdtemp(prefix="reactlab-peers-"))
    sandbox = Sandbox(workspace.root)
    mini = BubblewrapEnvironment()
    smol = LocalPythonExecutor(additional_authorized_imports=[])
    smol.send_tools({})
    bwrap = shutil.which("bwrap") or "bwrap"
    host_python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    figures: dict[str, Any] = {
        "cgroups": sandbox_cgroups(sandbox),
        "model_time_ms": MODEL_TIME * 1e3,
        "cpu_measured_by": CPU_MEASURED_BY,
    }
    for label, command, argv in (
        ("true", "true", ["true"]),
        ("python", "python3 -c pass", [host_python, "-c", "pass"]),  # each contender's own python3
        ("python_same", f"{host_python} -c pass", [host_python, "-c", "pass"]),  # one interpreter for both
    ):
        exits = {
            "reactlab": sandbox.run(command, 30).exit_code,
            "mini-swe-agent": mini.execute({"command": command})["returncode"],
        }
        contenders: dict[str, Callable[[], object]] = {
            "reactlab": lambda command=command: sandbox.run(command, 30),
            "mini-swe-agent": lambda command=command: mini.execute({"command": command}),
            "fork_exec": lambda argv=argv: subprocess.run(argv, capture_output=True),
            "bash_c": lambda argv=argv: subprocess.run(["bash", "-c", " ".join(argv)], capture_output=True),
            "bare_bwrap": lambda argv=argv: run_as_sandbox_uid(
                [bwrap, "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", *argv]
            ),
        }
        if label.startswith("python"):
            contenders["smolagents_in_process"] = lambda: smol("pass")
        if label == "python":
            own_python = [os.path.join(os.path.realpath(sys.base_prefix), "bin", "python3"), "-c", "pass"]
            contenders["fork_exec_reactlab_python"] = lambda argv=own_python: subprocess.run(argv, capture_output=True)
        costs = cpu_and_wall(contenders, 5 if QUICK else 21, per_call=3)
        back_to_back = interleaved(
            {
                "reactlab": lambda command=command: [sandbox.run(command, 30) for _ in range(BURST)],
                "mini-swe-agent": lambda command=command: [mini.execute({"command": command}) for _ in range(BURST)],
            },
            3 if QUICK else 11,
        )
        row: dict[str, Any] = {f"{name}_ms": round(wall * 1e3, 2) for name, (_, wall) in costs.items()}
        row.update({f"{name}_cpu_ms": round(cpu * 1e3, 2) for name, (cpu, _) in costs.items()})
        row.update({f"{name}_back_to_back_ms": round(s / BURST * 1e3, 2) for name, s in back_to_back.items()})
        row["exit_codes"] = exits
        row["reactlab_to_mini-swe-agent"] = round(costs["reactlab"][1] / costs["mini-swe-agent"][1], 2)
        row["reactlab_to_bare_bwrap"] = round(costs["reactlab"][1] / costs["bare_bwrap"][1], 2)
        row["cpu_reactlab_to_mini-swe-agent"] = round(costs["reactlab"][0] / costs["mini-swe-agent"][0], 2)
        row["cpu_reactlab_to_bare_bwrap"] = round(costs["reactlab"][0] / costs["bare_bwrap"][0], 2)
        row["burst"] = BURST
        figures[label] = row
    mini.cleanup()
    sandbox.close()
    workspace.cleanup()
    figures["host_python_for_mini_and_floor"] = host_python
    figures["reactlab_sandbox_python"] = os.path.realpath(sys.base_prefix)
    return figures


def sandbox_cgroups(sandbox: Any) -> dict[str, Any]:
    """Which per-run limits the sandbox really applies here (cgroups are made only where allowed)."""
    limits = sandbox.limits() if hasattr(sandbox, "limits") else {}
    return {
        "processes_limited": limits.get("processes") is not None,
        "memory_limited": limits.get("memory_bytes") is not None,
    }


# 3-5. Fresh processes: import time, one offline run, memory over a long run ---------------------------------
IMPORTS = {
    "reactlab": "from reactlab import Agent, DeepSeekClient, BashTool",
    "mini-swe-agent": "from minisweagent.agents.default import DefaultAgent; "
    "from minisweagent.models.litellm_model import LitellmModel; "
    "from minisweagent.environments.extra.bubblewrap import BubblewrapEnvironment",
    "smolagents": "from smolagents import ToolCallingAgent, OpenAIServerModel",
    "python_alone": "pass",
}


def child(*arguments: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "child", *arguments], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"child {arguments} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def in_fresh_processes(task: str, contenders: tuple[str, ...], repeat: int) -> dict[str, list[dict[str, Any]]]:
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name in contenders:
            started = time.perf_counter()
            figures = child(task, name)
            figures["wall_s"] = time.perf_counter() - started
            samples[name].append(figures)
    return samples


def median_of(samples: list[dict[str, Any]], key: str) -> float:
    return statistics.median(sample[key] for sample in samples)


def fresh_process_figures() -> dict[str, Any]:
    imports = in_fresh_processes("import", (*CONTENDERS, "python_alone"), 3 if QUICK else 7)
    runs = in_fresh_processes("one-run", CONTENDERS, 2 if QUICK else 5)
    memory = in_fresh_processes("memory", CONTENDERS, 1 if QUICK else 3)
    figures: dict[str, Any] = {"import_ms": {}, "one_offline_run": {}, "memory_growth_long_run_mb": {}}
    for name in (*CONTENDERS, "python_alone"):
        figures["import_ms"][name] = round(median_of(imports[name], "seconds") * 1e3, 1)
    for name in CONTENDERS:
        figures["one_offline_run"][name] = {
            "wall_s": round(median_of(runs[name], "wall_s"), 3),
            "peak_rss_mb": round(median_of(runs[name], "peak_rss_mb"), 1),
        }
        figures["memory_growth_long_run_mb"][name] = round(median_of(memory[name], "grown_mb"), 2)
    for peer in CONTENDERS[1:]:
        figures["import_ms"][f"reactlab_to_{peer}"] = round(
            figures["import_ms"]["reactlab"] / figures["import_ms"][peer], 3
        )
        for key in ("wall_s", "peak_rss_mb"):
            figures["one_offline_run"][f"reactlab_to_{peer}_{key}"] = round(
                figures["one_offline_run"]["reactlab"][key] / figures["one_offline_run"][peer][key], 3
            )
        growth = figures["memory_growth_long_run_mb"]
        growth[f"reactlab_to_{peer}"] = round(growth["reactlab"] / growth[peer], 3)
    figures["memory_growth_long_run_mb"]["steps"] = LONG_RUN
    return figures


def child_import(name: str) -> dict[str, Any]:
    # A bare interpreter: this file's own imports (reactlab among them) would already be loaded.
    measure = f"import time; t = time.perf_counter(); {IMPORTS[name]}; print(time.perf_counter() - t)"
    done = subprocess.run([sys.executable, "-c", measure], capture_output=True, text=True, check=True)
    return {"seconds": float(done.stdout.strip().splitlines()[-1])}


ONE_RUN_COMMANDS = 4  # sandboxed `true` four times, then the answer: five model calls


def child_one_run(name: str) -> dict[str, Any]:
    watch = Stopwatch()
    if name == "reactlab":
        from reactlab import Agent, BashTool, DeepSeekClient, Workspace

        def answer(number: int) -> tuple[dict[str, Any], str]:
            if number <= ONE_RUN_COMMANDS:
                return function_call(number, "bash", json.dumps({"command": "true"})), "tool_calls"
            return {"role": "assistant", "content": "done"}, "stop"

        workspace = Workspace(tempfile.mkdtemp(prefix="reactlab-peers-"))
        client = DeepSeekClient(api_key="", base_url=BASE_URL, transport=in_memory_server(watch, answer))
        Agent(client, [BashTool(workspace)]).run("Run true four times.")
        workspace.cleanup()
    elif name == "mini-swe-agent":
        from minisweagent.environments.extra.bubblewrap import BubblewrapEnvironment

        model = mini_client_model(
            in_memory_server(watch, mini_answer(ONE_RUN_COMMANDS + 1, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"))
        )
        environment = BubblewrapEnvironment()
        mini_agent(model, environment).run("Run true four times.")
        environment.cleanup()
    else:
        from smolagents import Tool

        class HostBash(Tool):  # smolagents ships no shell tool: this one runs on the host, unisolated
            name = "bash"
            description = "Runs a bash command."
            inputs = {"command": {"type": "string", "description": "The command."}}
            output_type = "string"

            def forward(self, command: str) -> str:
                return subprocess.run(["bash", "-c", command], capture_output=True, text=True).stdout

        def answer(number: int) -> tuple[dict[str, Any], str]:
            if number <= ONE_RUN_COMMANDS:
                return function_call(number, "bash", json.dumps({"command": "true"})), "tool_calls"
            return function_call(number, "final_answer", json.dumps({"answer": "done"})), "tool_calls"

        from smolagents import OpenAIServerModel, ToolCallingAgent
        from smolagents.monitoring import LogLevel

        http_client = httpx.Client(transport=in_memory_server(watch, answer))
        model = OpenAIServerModel("m", api_base=BASE_URL, api_key="x", client_kwargs={"http_client": http_client})
        ToolCallingAgent(tools=[HostBash()], model=model, verbosity_level=LogLevel.OFF).run("Run true four times.")
    return {"peak_rss_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    # This process's own high-water mark: ru_maxrss would carry over the parent's from before exec.
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) / 1024


def child_memory(name: str) -> dict[str, Any]:
    """Memory the run keeps (its agent alive), over a run whose history passes 1,000 messages."""
    RUNS[name](1, Stopwatch(), False)  # imports and first-use caches are not the run's growth
    steps = LONG_RUN if name != "smolagents" else steps_to_reach(name, 2 * LONG_RUN)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    agent = RUNS[name](steps, Stopwatch(), False)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert agent is not None
    return {"grown_mb": grown / 1e6, "steps": steps}


CHILDREN = {"import": child_import, "one-run": child_one_run, "memory": child_memory}


def table(peers: dict[str, Any]) -> str:
    """The README's table, from results.json's "peers"."""
    rows = ["| workload | reactlab | mini-swe-agent | smolagents | reactlab ÷ mini | reactlab ÷ smol | floor |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip

    def row(what: str, figures: tuple[Any, Any, Any], floor: str) -> None:
        mine, mini, smol = figures
        ratio = [f"{mine / peer:.3g}" if isinstance(peer, (int, float)) and peer else "—" for peer in (mini, smol)]
        shown = [f"{value:g}" if isinstance(value, (int, float)) else value for value in figures]
        rows.append(f"| {what} | {' | '.join(shown)} | {' | '.join(ratio)} | {floor} |")

    for section, label in (("loop_fake_model", "fake model"), ("loop_real_client", "real client, in-memory transport")):
        for size in SIZES:
            f = peers[section][f"messages_{size}"]
            row(f"loop per step, {label}, {size:,} messages (µs)",
                (f["reactlab_us"], f["mini-swe-agent_us"], f["smolagents_us"]),
                f"one `json.dumps` of the request {f['json_dumps_us']:g}")  # fmt: skip
    sandbox = peers["sandbox"]
    same = f"`{sandbox.get('host_python_for_mini_and_floor', 'python3')} -c pass`, the same interpreter in both"
    for label, command in (("true", "`true`"), ("python", "`python3 -c pass`"), ("python_same", same)):
        if label not in sandbox:
            continue
        f = sandbox[label]
        python = label.startswith("python")
        smol = f"{f['smolagents_in_process_ms']:g} (in-process, no isolation)" if python else "no shell"
        floor = f"fork+exec {f['fork_exec_ms']:g}, `bash -c` {f['bash_c_ms']:g}, bare `bwrap` {f['bare_bwrap_ms']:g}"
        if label == "python":
            floor += f", fork+exec of reactlab's interpreter {f['fork_exec_reactlab_python_ms']:g}"
        row(f"sandboxed {command}, wall (ms), after {sandbox['model_time_ms']:g} ms of idle",
            (f["reactlab_ms"], f["mini-swe-agent_ms"], smol), floor)  # fmt: skip
        if "reactlab_cpu_ms" in f:
            cpu_floor = f"bare `bwrap` {f['bare_bwrap_cpu_ms']:g}, fork+exec {f['fork_exec_cpu_ms']:g}"
            smol_cpu = f"{f['smolagents_in_process_cpu_ms']:g} (in-process)" if python else "no shell"
            row(f"sandboxed {command}, CPU (ms): the process and every child it reaps",
                (f["reactlab_cpu_ms"], f["mini-swe-agent_cpu_ms"], smol_cpu), cpu_floor)  # fmt: skip
        if "reactlab_back_to_back_ms" in f:
            row(f"sandboxed {command}, wall (ms), {f['burst']} back to back, per command",
                (f["reactlab_back_to_back_ms"], f["mini-swe-agent_back_to_back_ms"], smol), floor)  # fmt: skip
    fresh = peers["fresh_processes"]
    imports = fresh["import_ms"]
    row("import (ms)", tuple(imports[name] for name in CONTENDERS), "")
    runs = fresh["one_offline_run"]
    row("one offline run, wall (s)", tuple(runs[name]["wall_s"] for name in CONTENDERS), "")
    row("one offline run, peak RSS (MB)", tuple(runs[name]["peak_rss_mb"] for name in CONTENDERS), "")
    growth = fresh["memory_growth_long_run_mb"]
    row("memory kept over a long run (MB)", tuple(growth[name] for name in CONTENDERS), "")
    return "\n".join(rows)


def main() -> None:
    if sys.argv[1:2] == ["child"]:
        print(json.dumps(CHILDREN[sys.argv[2]](sys.argv[3])))
        return
    if "--table" in sys.argv:
        print(table(json.loads((ROOT / "benchmarks" / "results.json").read_text())["peers"]))
        return
    import minisweagent
    import smolagents

    results: dict[str, Any] = {
        "versions": {"mini-swe-agent": minisweagent.__version__, "smolagents": smolagents.__version__},
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    sections: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("loop_fake_model", lambda: loop_per_step(real_client=False)),
        ("loop_real_client", lambda: loop_per_step(real_client=True)),
        ("sandbox", sandboxed_commands),
        ("fresh_processes", fresh_process_figures),
    ]
    path = ROOT / "benchmarks" / "results.json"
    stored = json.loads(path.read_text()) if path.exists() else {}
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    if only:  # re-measure some sections, keep the others from the last full run
        results = {**stored.get("peers", {}), **results}
    for name, measure in sections:
        if only and name not in only:
            continue
        print(f"measuring {name} ...", flush=True)
        results[name] = {**measure(), "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        print(json.dumps(results[name], indent=1), flush=True)
    if not QUICK:
        stored["peers"] = results
        path.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n")
        print(table(results))


if __name__ == "__main__":
    main()
