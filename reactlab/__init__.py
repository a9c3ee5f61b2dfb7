"""reactlab: a ReAct agent you can watch from the inside.

from reactlab import Agent, DeepSeekClient, Script, Workspace, default_tools
"""

from __future__ import annotations

from .agent import Agent
from .cassette import Cassette, RecordingTransport, ReplayTransport
from .client import Completion, DeepSeekClient
from .errors import *  # noqa: F403  (the exception tree, drawn in errors.py)
from .expected import expected_error
from .prompts import SYSTEM_EN, SYSTEM_RU, fix_failing_test_task, system_prompt
from .protocols import ChatClient, Tool
from .record import ModelCall, RunRecord, ToolExecution
from .runner import Outcome, independent_test_run, run_in_copy, unchanged_paths
from .sandbox import Sandbox, SandboxResult
from .scripted import Script, call
from .tools import BashStandIn, BashTool, EditTool, ReadFileTool, default_tools
from .workspace import Workspace

__version__ = "0.1.0"

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeout",
    "Agent",
    "AgentError",
    "AuthenticationFailed",
    "BadRequest",
    "BashStandIn",
    "BashTool",
    "Cassette",
    "CassetteError",
    "CassetteExhausted",
    "CassetteMismatch",
    "ChatClient",
    "Completion",
    "ContentFiltered",
    "DeepSeekClient",
    "EditTool",
    "EmptyAnswer",
    "InsufficientBalance",
    "InvalidAssistantMessage",
    "MalformedResponse",
    "ModelCall",
    "Outcome",
    "RateLimited",
    "ReactlabError",
    "ReadFileTool",
    "RecordingTransport",
    "ReplayTransport",
    "ResourcesExhausted",
    "RunRecord",
    "SYSTEM_EN",
    "SYSTEM_RU",
    "Sandbox",
    "SandboxResult",
    "SandboxUnavailable",
    "Script",
    "ServerError",
    "StepLimitExceeded",
    "Tool",
    "ToolCallLimitExceeded",
    "ToolError",
    "ToolExecution",
    "TruncatedAnswer",
    "UnexpectedStatus",
    "Workspace",
    "call",
    "default_tools",
    "expected_error",
    "fix_failing_test_task",
    "independent_test_run",
    "run_in_copy",
    "system_prompt",
    "unchanged_paths",
]
