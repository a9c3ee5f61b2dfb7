"""bash(command, timeout?): run a command in the Bubblewrap sandbox, never on the host."""

from __future__ import annotations

from typing import Any

from ..errors import ToolError
from ..sandbox import OUTPUT_LIMIT, SANDBOX_ROOT, Sandbox
from ..workspace import Workspace
from .base import BaseTool

__all__ = ["DEFAULT_TIMEOUT", "MAX_TIMEOUT", "BashTool"]

DEFAULT_TIMEOUT = 30
MAX_TIMEOUT = 120


class BashTool(BaseTool):
    """Runs in the working copy (seen as /work). Refuses to exist where the sandbox is unavailable.

    Limits: ``timeout`` seconds (default 30, at most 120), after which the whole process tree is
    killed; 30,000 bytes kept per output stream (``truncated: true`` past that); a 64 MiB /tmp and
    /dev/shm; files up to 64 MiB; 4 GiB of address space per process; no network. Where the machine
    lets reactlab make cgroups (as root, or with a delegated cgroup v2 subtree), also 256 processes
    and 2 GiB of memory for the whole sandbox; ``Sandbox.limits()`` says which apply. Every process
    a command starts ends with it. Not bounded: the total size of the files written to the copy.
    """

    name = "bash"
    description = (
        "Run a bash command in an isolated copy of the project (current folder /work, no network). "
        f"Returns exit_code, stdout and stderr; output over {OUTPUT_LIMIT} bytes is cut. "
        "exit_code is that of the last command in a pipeline."
    )

    def __init__(self, workspace: Workspace, *, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox or Sandbox(workspace.root, workspace.read_only)
        self.sandbox.check()  # fail closed now, before the model is ever offered bash

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

    def run(self, command: str, timeout: int = DEFAULT_TIMEOUT) -> dict[str, Any]:  # type: ignore[override]
        if not command.strip():
            raise ToolError("bash: the command is empty.")
        if "\x00" in command:
            raise ToolError("bash: the command contains a NUL byte.")
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
