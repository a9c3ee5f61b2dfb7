"""Everything reactlab raises, in one tree.

    ReactlabError
    ├── APIError                      the model could not be asked, or its answer is unusable
    │   ├── APIConnectionError        no connection, or no answer in time      (retry: yes)
    │   │   └── APITimeout
    │   ├── BadRequest                400 / 422: the request body is wrong     (retry: no)
    │   ├── AuthenticationFailed      401: the key is wrong or missing         (retry: no)
    │   ├── InsufficientBalance       402: the account needs money             (retry: no)
    │   ├── RateLimited               429: too many requests                   (retry: later)
    │   ├── ServerError               5xx: the provider failed                 (retry: later)
    │   ├── UnexpectedStatus          any other HTTP status                    (retry: no)
    │   ├── MalformedResponse         the body is not a chat.completion        (retry: no)
    │   ├── TruncatedAnswer           finish_reason "length"                   (retry: no)
    │   ├── ContentFiltered           finish_reason "content_filter"           (retry: no)
    │   └── ResourcesExhausted        finish_reason "insufficient_system_resource" (retry: later)
    ├── AgentError                    the loop itself stopped without an answer
    │   ├── EmptyAnswer               no tool calls and no text
    │   ├── InvalidAssistantMessage   the message breaks the protocol (ids, types)
    │   ├── ToolCallLimitExceeded     the answer would pass max_tool_calls
    │   └── StepLimitExceeded         max_steps model calls, no final answer
    ├── CassetteError                 offline replay cannot continue
    │   ├── CassetteExhausted
    │   └── CassetteMismatch
    └── SandboxUnavailable            bash cannot be isolated, so it is not run

Every error raised out of ``Agent.run`` carries the run's record in ``error.record``.
``ToolError`` is not in the tree on purpose: it never leaves the loop, it becomes a tool result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from .record import RunRecord

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeout",
    "AgentError",
    "AuthenticationFailed",
    "BadRequest",
    "CassetteError",
    "CassetteExhausted",
    "CassetteMismatch",
    "ContentFiltered",
    "EmptyAnswer",
    "InsufficientBalance",
    "InvalidAssistantMessage",
    "MalformedResponse",
    "RateLimited",
    "ReactlabError",
    "ResourcesExhausted",
    "SandboxUnavailable",
    "ServerError",
    "StepLimitExceeded",
    "ToolCallLimitExceeded",
    "ToolError",
    "TruncatedAnswer",
    "UnexpectedStatus",
]


class ReactlabError(Exception):
    """Base class. ``stop_reason`` names the ending in a run record; ``record`` is attached by the agent."""

    stop_reason: ClassVar[str] = "error"
    retryable: ClassVar[bool] = False
    record: RunRecord | None = None


class APIError(ReactlabError):
    """``request`` is the body that was sent; ``response`` the body received, where there was one."""

    stop_reason = "api_error"
    request: dict[str, Any] | None = None
    response: dict[str, Any] | None = None

    def __init__(self, message: str, *, status: int | None = None) -> None:
        advice = "Retrying later may help." if self.retryable else "Retrying the same request will not help."
        super().__init__(f"{message} {advice}")
        self.status = status


class APIConnectionError(APIError):
    stop_reason = "api_connection_error"
    retryable = True


class APITimeout(APIConnectionError):
    stop_reason = "api_timeout"


class BadRequest(APIError):
    stop_reason = "api_bad_request"


class AuthenticationFailed(APIError):
    stop_reason = "api_authentication_failed"


class InsufficientBalance(APIError):
    stop_reason = "api_insufficient_balance"


class RateLimited(APIError):
    stop_reason = "api_rate_limited"
    retryable = True


class ServerError(APIError):
    stop_reason = "api_server_error"
    retryable = True


class UnexpectedStatus(APIError):
    stop_reason = "api_unexpected_status"


class MalformedResponse(APIError):
    stop_reason = "api_malformed_response"


class TruncatedAnswer(APIError):
    stop_reason = "truncated_answer"


class ContentFiltered(APIError):
    stop_reason = "content_filtered"


class ResourcesExhausted(APIError):
    stop_reason = "api_resources_exhausted"
    retryable = True


class AgentError(ReactlabError):
    stop_reason = "agent_error"


class EmptyAnswer(AgentError):
    stop_reason = "empty_answer"


class InvalidAssistantMessage(AgentError):
    stop_reason = "invalid_message"


class ToolCallLimitExceeded(AgentError):
    stop_reason = "tool_call_limit"


class StepLimitExceeded(AgentError):
    stop_reason = "step_limit"


class CassetteError(ReactlabError):
    stop_reason = "cassette_error"


class CassetteExhausted(CassetteError):
    stop_reason = "cassette_exhausted"


class CassetteMismatch(CassetteError):
    stop_reason = "cassette_mismatch"


class SandboxUnavailable(ReactlabError):
    stop_reason = "sandbox_unavailable"


class ToolError(Exception):
    """An expected tool failure (missing file, ambiguous edit, ...). The model sees its text."""
