"""reactlab: a ReAct agent you can watch from the inside.

from reactlab import Agent, DeepSeekClient, Script, Workspace, default_tools, set_language

The article's system is core/ (it imports nothing of the rest); around it, the course: replay/,
samples/, runner.py, summary.py, widgets/, course/ (the notebooks' checks), cli.py, doctor.py.
"""

from __future__ import annotations

from .core import errors as errors  # the exception tree as a module too: reactlab.core.errors.APIError
from .core.agent import Agent
from .core.client import DeepSeekClient
from .core.errors import *  # noqa: F403  (the exception tree, drawn in errors.py)
from .core.language import current_language, say, set_language
from .core.prompts import SYSTEM_EN, SYSTEM_RU, fix_failing_test_task, system_prompt
from .core.protocols import ChatClient, Completion, Tool
from .core.record import ModelCall, RunRecord, ToolExecution
from .core.sandbox import Sandbox, SandboxResult
from .core.slips.unix_socket import transport_for
from .core.tools import BaseTool, BashStandIn, BashTool, EditTool, ReadFileTool, Toolbox, default_tools
from .core.workspace import Workspace
from .course.expected import expected_error
from .replay.cassette import Cassette, RecordingTransport, ReplayTransport
from .replay.scripted import Script, call
from .runner import Outcome, independent_test_run, run_in_copy, unchanged_paths
from .summary import stop_phrase, verdict

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
    "BaseTool",
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
    "say",
    "set_language",
    "stop_phrase",
    "system_prompt",
    "transport_for",
    "unchanged_paths",
    "verdict",
]
