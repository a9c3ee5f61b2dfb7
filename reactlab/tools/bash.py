"""bash(command, timeout?): run a command in the Bubblewrap sandbox, never on the host.

Where no sandbox can be built, ``BashStandIn`` takes bash's place under the same name and schema
and runs nothing: it replays the observation a cassette recorded for the call, or answers that the
sandbox is unavailable, and the run goes on.
"""

from __future__ import annotations

import json
from typing import Any

from ..cassette import OBSERVATION_LIMIT, RecordedCall, recorded_observation
from ..errors import ToolError
from ..sandbox import OUTPUT_LIMIT, SANDBOX_ROOT, Sandbox
from ..workspace import Workspace
from .base import BaseTool

__all__ = ["DEFAULT_TIMEOUT", "MAX_TIMEOUT", "REPLAYED_NOTE", "BashStandIn", "BashTool"]

DEFAULT_TIMEOUT = 30
MAX_TIMEOUT = 120
REPLAYED_NOTE = "replayed from the cassette, not run on this machine"


class _Bash(BaseTool):
    """What the real bash and its stand-in share: the name, the schema and the argument checks."""

    name = "bash"
    description = (
        "Run a bash command in an isolated copy of the project (current folder /work, no network). "
        f"Returns exit_code, stdout and stderr; output over {OUTPUT_LIMIT} bytes is cut. "
        "exit_code is that of the last command in a pipeline."
    )

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT,
                    "description": f"Seconds before the command is stopped (default {DEFAULT_TIMEOUT}).",
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        }

    @staticmethod
    def check_command(command: str) -> None:
        if not command.strip():
            raise ToolError("bash: the command is empty.")
        if "\x00" in command:
            raise ToolError("bash: the command contains a NUL byte.")


class BashTool(_Bash):
    """Runs in the working copy (seen as /work). Refuses to exist where the sandbox is unavailable.

    Limits: ``timeout`` seconds (default 30, at most 120), after which the whole process tree is
    killed; 30,000 bytes kept per output stream (``truncated: true`` past that); a 64 MiB /tmp and
    /dev/shm; files up to 64 MiB; 4 GiB of address space per process; no network. Where the machine
    lets reactlab make cgroups (as root, or with a delegated cgroup v2 subtree), also 256 processes
    and 2 GiB of memory for the whole sandbox; ``Sandbox.limits()`` says which apply. Every process
    a command starts ends with it. Not bounded: the total size of the files written to the copy.
    """

    def __init__(self, workspace: Workspace, *, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox or Sandbox(workspace.root, workspace.read_only, pristine=workspace.source)
        self.sandbox.check()  # fail closed now, before the model is ever offered bash

    def run(self, command: str, timeout: int = DEFAULT_TIMEOUT) -> dict[str, Any]:  # type: ignore[override]
        self.check_command(command)
        done = self.sandbox.run(command, timeout=timeout)
        result: dict[str, Any] = {
            "ok": not done.timed_out and not done.setup_failed,
            "exit_code": done.exit_code,
            "truncated": done.truncated,
            "stdout": done.stdout,
            "stderr": done.stderr,
            "command": command,
            "cwd": SANDBOX_ROOT,
            "duration": round(done.duration, 1),  # seconds; tenths keep the length of the history stable
        }
        if done.timed_out:
            result["timed_out"] = True
            result["error"] = f"Stopped after {timeout} s; every process it started was killed."
        elif done.setup_failed:
            result["error"] = f"The sandbox could not be set up: {done.stderr.strip()[:300]}"
        return result


class BashStandIn(_Bash):
    """bash where no sandbox can be built (``reason`` says why). It never runs a command.

    When the answer being executed was replayed from a cassette, it returns the observation the
    cassette recorded for this call, marked ``"replayed": True`` with a ``note``. Otherwise (a live or
    scripted model, or a cassette that lacks the observation) it returns
    ``{"ok": False, "sandbox_unavailable": True, "error": ...}``, which the model reads like any result.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def run(self, **arguments: Any) -> dict[str, Any]:
        self.check_command(arguments["command"])
        recorded = recorded_observation(self.name, arguments)  # the arguments exactly as the model sent them
        if recorded is None:
            return self._unavailable("")
        observation, problem = _parse(recorded)
        if observation is None:
            return self._unavailable(f" The cassette was replaying this call, but {problem}.")
        return {**observation, "replayed": True, "note": REPLAYED_NOTE}

    def _unavailable(self, detail: str) -> dict[str, Any]:
        return {
            "ok": False,
            "sandbox_unavailable": True,
            "error": f"Not run: there is no sandbox on this machine, and bash never runs on the host.{detail} "
            f"{self.reason}",
        }


def _parse(recorded: RecordedCall) -> tuple[dict[str, Any] | None, str]:
    """The recorded observation as a result object, or None and what is wrong with it."""
    text = recorded.observation
    where = f"call {recorded.call_id[:80]!r} of interaction {recorded.interaction}"
    if text is None:
        return None, f"it holds no observation for {where} (no tool message for it in the next request)"
    if len(text) > OBSERVATION_LIMIT:
        return None, f"the observation recorded for {where} is {len(text)} characters, over {OBSERVATION_LIMIT}"
    try:
        observation = json.loads(text)
    except (ValueError, RecursionError):
        observation = None
    if not isinstance(observation, dict):
        return None, f"the observation recorded for {where} is not a JSON object"
    return observation, ""
