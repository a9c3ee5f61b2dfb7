"""bash(command, timeout?): run a command in the Bubblewrap sandbox, never on the host.

Where no sandbox can be built, ``BashStandIn`` takes bash's place under the same name and schema
and runs nothing: it replays the observation a cassette recorded for the call, or answers that the
sandbox is unavailable, and the run goes on.
"""

from __future__ import annotations

from typing import Any

from ..errors import ToolError
from ..language import Language, resolve_language, say, translatable
from ..sandbox import DISK_LIMIT, OUTPUT_LIMIT, SANDBOX_ROOT, Sandbox
from ..workspace import Workspace
from .base import BaseTool
from .replayed import recorded_result

__all__ = [
    "BashStandIn",
    "BashTool",
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "REPLAYED_NOTE",
]

DEFAULT_TIMEOUT = 30
MAX_TIMEOUT = 120
REPLAYED_NOTE = translatable("replayed from the cassette, not run on this machine")


class _Bash(BaseTool):
    """What the real bash and its stand-in share: the name, the schema and the argument checks."""

    name = "bash"

    def _use_language(self, lang: Language | None) -> None:
        """Set the language of the description and the errors (``current_language()`` when None)."""
        self.lang = resolve_language(lang)
        self.description = say(
            "Run a bash command in an isolated copy of the project (current folder /work, no network). "
            "Returns exit_code, stdout and stderr; output over {limit} bytes is cut. "
            "exit_code is that of the last command in a pipeline.",
            lang=self.lang,
            limit=OUTPUT_LIMIT,
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
                    "description": say(
                        "Seconds before the command is stopped (default {default}).",
                        lang=self.lang,
                        default=DEFAULT_TIMEOUT,
                    ),
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        }

    def check_command(self, command: str) -> None:
        if not command.strip():
            raise ToolError(say("bash: the command is empty.", lang=self.lang))
        if "\x00" in command:
            raise ToolError(say("bash: the command contains a NUL byte.", lang=self.lang))
        try:
            command.encode()
        except UnicodeEncodeError as error:  # JSON's "\ud800" decodes to a lone surrogate
            raise ToolError(
                say(
                    "bash: the command is not Unicode text (a lone surrogate at character {position}).",
                    lang=self.lang,
                    position=error.start,
                )
            ) from None


class BashTool(_Bash):
    """Runs in the working copy (seen as /work). Refuses to exist where the sandbox is unavailable.

    Per command: ``timeout`` seconds (default 30, at most 120), after which the whole process tree
    is killed; 30,000 bytes kept per output stream (``truncated: true`` past that); a fresh 64 MiB
    /tmp and /dev/shm; files up to 64 MiB; 4 GiB of address space per process; no network. Per run,
    where the machine lets reactlab make cgroups (as root, or with a delegated cgroup v2 subtree):
    256 processes and 2 GiB of memory shared by all of the run's commands; ``Sandbox.limits()`` says
    which apply. Every process a command starts ends with it. Per run, on any machine: the copy grows
    by at most 256 MiB (``Sandbox(disk_limit=...)``); past that the command and the run stop with
    DiskBoundExceeded.
    """

    def __init__(
        self,
        workspace: Workspace,
        *,
        sandbox: Sandbox | None = None,
        lang: Language | None = None,
        disk_limit: int = DISK_LIMIT,
    ) -> None:
        """``sandbox``: the one to run in (by default a new one on ``workspace``, whose copy may grow by
        ``disk_limit`` bytes)."""
        self._use_language(lang)
        self.sandbox = sandbox or Sandbox(
            workspace.root, workspace.read_only, pristine=workspace.source, disk_limit=disk_limit
        )
        workspace.on_cleanup(self.sandbox.closer())
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
            result["error"] = say(
                "Stopped after {timeout} s; every process it started was killed.", lang=self.lang, timeout=timeout
            )
        elif done.setup_failed:
            result["error"] = say(
                "The sandbox could not be set up: {detail}", lang=self.lang, detail=done.stderr.strip()[:300]
            )
        return result


class BashStandIn(_Bash):
    """bash where no sandbox can be built (``reason`` says why). It never runs a command.

    When the answer being executed was replayed from a cassette, it returns the observation the
    cassette recorded for this call, marked ``"replayed": True`` with a ``note``. Otherwise (a live or
    scripted model, or a cassette that lacks the observation) it returns
    ``{"ok": False, "sandbox_unavailable": True, "error": ...}``, which the model reads like any result.
    """

    def __init__(self, reason: str, *, lang: Language | None = None) -> None:
        self._use_language(lang)
        self.reason = reason

    def run(self, **arguments: Any) -> dict[str, Any]:
        self.check_command(arguments["command"])
        recorded = recorded_result(self.name, arguments, self.lang)  # the arguments exactly as the model sent them
        if recorded is None:
            return self._unavailable("")
        if isinstance(recorded, str):
            return self._unavailable(
                say(" The cassette was replaying this call, but {problem}.", lang=self.lang, problem=recorded)
            )
        return {**recorded, "replayed": True, "note": say(REPLAYED_NOTE, lang=self.lang)}

    def _unavailable(self, detail: str) -> dict[str, Any]:
        error = say(
            "Not run: there is no sandbox on this machine, and bash never runs on the host.{detail} {reason}",
            lang=self.lang,
            detail=detail,
            reason=self.reason,
        )
        return {"ok": False, "sandbox_unavailable": True, "error": error}
