"""bash(command, timeout?): run a command in the Bubblewrap sandbox, never on the host.

Where no sandbox can be built, ``BashStandIn`` takes bash's place under the same name and schema
and runs nothing: it replays the observation a cassette recorded for the call, or answers that the
sandbox is unavailable, and the run goes on.
"""

from __future__ import annotations

from typing import Any

from ..errors import ToolError
from ..json_text import read_json
from ..model.cassette import OBSERVATION_LIMIT, RecordedCall, recorded_observation
from ..sandbox import DISK_LIMIT, OUTPUT_LIMIT, SANDBOX_ROOT, Sandbox
from ..strings import Language, ToolTexts, resolve_language, strings
from ..workspace import Workspace
from .base import BaseTool

__all__ = [
    "BashStandIn",
    "BashTool",
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "REPLAYED_NOTE",
]

DEFAULT_TIMEOUT = 30
MAX_TIMEOUT = 120
REPLAYED_NOTE = strings("en").tools.replayed_note


class _Bash(BaseTool):
    """What the real bash and its stand-in share: the name, the schema and the argument checks."""

    name = "bash"
    description = strings("en").tools.bash_description.format(limit=OUTPUT_LIMIT)  # until _use_language

    def _use_language(self, lang: Language | None) -> None:
        """Set the language of the description and the errors (``current_language()`` when None)."""
        self.lang = resolve_language(lang)
        self.description = self.texts.bash_description.format(limit=OUTPUT_LIMIT)

    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT,
                    "description": self.texts.bash_timeout.format(default=DEFAULT_TIMEOUT),
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        }

    def check_command(self, command: str) -> None:
        if not command.strip():
            raise ToolError(self.texts.bash_empty)
        if "\x00" in command:
            raise ToolError(self.texts.bash_nul)
        try:
            command.encode()
        except UnicodeEncodeError as error:  # JSON's "\ud800" decodes to a lone surrogate
            raise ToolError(self.texts.bash_not_text.format(position=error.start)) from None


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
            result["error"] = self.texts.bash_timed_out.format(timeout=timeout)
        elif done.setup_failed:
            result["error"] = self.texts.bash_setup_failed.format(detail=done.stderr.strip()[:300])
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
        recorded = recorded_observation(self.name, arguments)  # the arguments exactly as the model sent them
        if recorded is None:
            return self._unavailable("")
        observation, problem = _parse(recorded, self.texts)
        if observation is None:
            return self._unavailable(self.texts.replay_failed.format(problem=problem))
        return {**observation, "replayed": True, "note": self.texts.replayed_note}

    def _unavailable(self, detail: str) -> dict[str, Any]:
        error = self.texts.sandbox_unavailable.format(detail=detail, reason=self.reason)
        return {"ok": False, "sandbox_unavailable": True, "error": error}


def _parse(recorded: RecordedCall, texts: ToolTexts) -> tuple[dict[str, Any] | None, str]:
    """The recorded observation as a result object, or None and what is wrong with it."""
    text = recorded.observation
    call = texts.recorded_call.format(call_id=repr(recorded.call_id[:80]), interaction=recorded.interaction)
    if text is None:
        return None, texts.no_observation.format(call=call)
    if len(text) > OBSERVATION_LIMIT:
        return None, texts.observation_too_long.format(call=call, length=len(text), limit=OBSERVATION_LIMIT)
    try:
        observation = read_json(text)
    except ValueError:
        observation = None
    if not isinstance(observation, dict):
        return None, texts.observation_not_object.format(call=call)
    return observation, ""
