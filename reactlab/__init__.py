"""reactlab: a ReAct agent you can watch from the inside.

from reactlab import Agent, DeepSeekClient, Script, Workspace, default_tools, set_language
"""

from __future__ import annotations

from .course.expected import expected_error
from .errors import *  # noqa: F403  (the exception tree, drawn in errors.py)
from .model.cassette import Cassette, RecordingTransport, ReplayTransport
from .model.client import DeepSeekClient
from .model.scripted import Script, call
from .model.unix_socket import transport_for
from .prompts import SYSTEM_EN, SYSTEM_RU, fix_failing_test_task, system_prompt
from .protocols import ChatClient, Completion, Tool
from .run.agent import Agent
from .run.record import ModelCall, RunRecord, ToolExecution
from .run.runner import Outcome, independent_test_run, run_in_copy, unchanged_paths
from .run.summary import verdict
from .sandbox import Sandbox, SandboxResult
from .strings import current_language, set_language
from .tools import BashStandIn, BashTool, EditTool, ReadFileTool, Toolbox, default_tools
from .workspace import Workspace

__version__ = "0.1.0"

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIKeyRefused",
    "APITimeout",
    "AccessRefused",
    "Agent",
    "AgentError",
    "AnswerAborted",
    "AuthenticationFailed",
    "BadRequest",
    "BashStandIn",
    "BashTool",
    "BoundExceeded",
    "Cassette",
    "CassetteError",
    "CassetteExhausted",
    "CassetteMismatch",
    "ChatClient",
    "Completion",
    "ContentFiltered",
    "ContextTooLong",
    "DeepSeekClient",
    "DiskBoundExceeded",
    "DiskNearlyFull",
    "EditTool",
    "EmptyAnswer",
    "EndpointNotFound",
    "InsufficientBalance",
    "InvalidAssistantMessage",
    "MalformedResponse",
    "MalformedToolCall",
    "ModelCall",
    "ModelNotFound",
    "ModelRefused",
    "Outcome",
    "RateLimited",
    "ReactlabError",
    "ReadFileTool",
    "RecordingTransport",
    "RepairableAnswer",
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
    "ServerNeedsOption",
    "StepLimitExceeded",
    "StreamedAnswer",
    "TemporarilyRefused",
    "Tool",
    "ToolCallLimitExceeded",
    "ToolError",
    "ToolExecution",
    "Toolbox",
    "ToolsUnsupported",
    "TruncatedAnswer",
    "UndecodableBody",
    "UnexpectedStatus",
    "UnmendableToolCall",
    "UntrustedCertificate",
    "Workspace",
    "call",
    "current_language",
    "default_tools",
    "expected_error",
    "fix_failing_test_task",
    "independent_test_run",
    "run_in_copy",
    "set_language",
    "system_prompt",
    "transport_for",
    "unchanged_paths",
    "verdict",
]
