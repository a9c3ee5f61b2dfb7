"""Everything reactlab raises, in one tree.

    ReactlabError
    ├── APIError                      the model could not be asked, or its answer is unusable
    │   ├── APIConnectionError        no connection, or no answer in time      (retry: yes)
    │   │   └── APITimeout            also: the total deadline of one call passed
    │   ├── BadRequest                400 / 422: the request body is wrong     (retry: no)
    │   │   ├── ServerNeedsOption     the server's message names a start-up option it needs
    │   │   ├── ContextTooLong        the history is longer than the model's context (or the tier's limit)
    │   │   └── ToolsUnsupported      the model (as served) takes no tools
    │   ├── AuthenticationFailed      401: the key is wrong or missing         (retry: no)
    │   ├── AccessRefused             the provider refuses this region or account (retry: no)
    │   ├── UntrustedCertificate      the server's TLS certificate is not trusted here (retry: no)
    │   ├── InsufficientBalance       402: the account needs money             (retry: no)
    │   ├── TemporarilyRefused        408 / 409: send it again later           (retry: later)
    │   ├── RateLimited               429: too many requests                   (retry: later)
    │   ├── ServerError               5xx: the provider failed                 (retry: later)
    │   ├── UnexpectedStatus          any other HTTP status                    (retry: no)
    │   │   ├── EndpointNotFound      no chat endpoint at base_url (often: add /v1)
    │   │   └── ModelNotFound         404: the server does not know the model
    │   ├── MalformedResponse         the body is not a chat.completion        (retry: no)
    │   │   ├── StreamedAnswer        text/event-stream although stream was false
    │   │   ├── UndecodableBody       the body cannot be decoded: a wrong Content-Encoding, bad UTF-8, cut-off JSON
    │   │   ├── RepairableAnswer      a known server quirk; repair=True mends it (also an InvalidAssistantMessage)
    │   │   └── UnmendableToolCall    a tool call nothing can be read from (also an InvalidAssistantMessage)
    │   ├── MalformedToolCall         the server refused the model's broken tool call (retry: no)
    │   ├── TruncatedAnswer           cut off at max_tokens ("length", arguments ending mid-JSON) (retry: no)
    │   ├── ContentFiltered           the provider's content policy filtered it (retry: no)
    │   ├── ModelRefused              the model declined: message.refusal      (retry: no)
    │   ├── ResourcesExhausted        finish_reason "insufficient_system_resource" (retry: later)
    │   └── AnswerAborted             finish_reason "abort" (vLLM)             (retry: later)
    ├── AgentError                    the loop itself stopped without an answer
    │   ├── EmptyAnswer               no tool calls and no text
    │   ├── InvalidAssistantMessage   the message breaks the protocol (ids, types)
    │   ├── ToolCallLimitExceeded     the answer would pass max_tool_calls
    │   └── StepLimitExceeded         max_steps model calls, no final answer
    ├── CassetteError                 offline replay cannot continue
    │   ├── CassetteExhausted
    │   └── CassetteMismatch
    ├── SandboxUnavailable            bash cannot be isolated, so it is not run
    ├── BoundExceeded                 the working copy passed what the host walks, reads or copies
    │   ├── DiskBoundExceeded         the copy grew by more than a run may write to the host's disk
    │   └── DiskNearlyFull            the copy's disk fell below its free-space floor while a command ran
    └── APIKeyRefused                 the key is malformed, or would go where it must not (also a ValueError)

Every error raised out of ``Agent.run`` carries the run's record in ``error.record``. An ``APIError``
also keeps what a user needs to act: ``status``, ``retry_after``, ``request_id``, the provider's
``provider_code``/``provider_type`` and the error ``body`` (all in ``error.details``).
``ToolError`` is not in the tree on purpose: it never leaves the loop, it becomes a tool result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .language import say

if TYPE_CHECKING:
    from .record import RunRecord

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIKeyRefused",
    "APITimeout",
    "AccessRefused",
    "AgentError",
    "AnswerAborted",
    "AuthenticationFailed",
    "BadRequest",
    "BoundExceeded",
    "CassetteError",
    "CassetteExhausted",
    "CassetteMismatch",
    "ContentFiltered",
    "ContextTooLong",
    "DiskBoundExceeded",
    "DiskNearlyFull",
    "EmptyAnswer",
    "EndpointNotFound",
    "InsufficientBalance",
    "InvalidAssistantMessage",
    "MalformedResponse",
    "MalformedToolCall",
    "ModelNotFound",
    "ModelRefused",
    "RateLimited",
    "ReactlabError",
    "RepairableAnswer",
    "ResourcesExhausted",
    "SandboxUnavailable",
    "ServerError",
    "ServerNeedsOption",
    "StepLimitExceeded",
    "StreamedAnswer",
    "TemporarilyRefused",
    "ToolCallLimitExceeded",
    "ToolError",
    "ToolsUnsupported",
    "TruncatedAnswer",
    "UndecodableBody",
    "UnexpectedStatus",
    "UnmendableToolCall",
    "UntrustedCertificate",
]


class ReactlabError(Exception):
    """Base class. ``stop_reason`` names the ending in a run record; ``record`` is attached by the agent."""

    stop_reason: ClassVar[str] = "error"
    retryable: ClassVar[bool] = False
    record: RunRecord | None = None


class APIError(ReactlabError):
    """``request`` is the body that was sent; ``response`` the body received, where there was one.
    The message ends with whether retrying may help, in ``lang`` (the run's language when None)."""

    stop_reason = "api_error"
    request: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    retry_after: float | None = None
    """Seconds the server asked to wait (``Retry-After``), where it said."""
    request_id: str | None = None
    """The server's id for this request (``x-request-id``): quote it to the provider's support."""
    provider_code: str | None = None
    provider_type: str | None = None
    body: str | None = None
    """The error body as text (bounded, the key scrubbed), JSON or not."""

    def __init__(self, message: str, *, status: int | None = None, lang: str | None = None) -> None:
        if self.retryable:
            advice = say("Retrying later may help.", lang=lang)
        else:
            advice = say("Retrying the same request will not help.", lang=lang)
        super().__init__(f"{message} {advice}")
        self.status = status

    @property
    def details(self) -> dict[str, Any]:
        """The facts for a run record: plain JSON values only."""
        facts = ("status", "retryable", "retry_after", "request_id", "provider_code", "provider_type", "body")
        return {"type": type(self).__name__, **{name: getattr(self, name) for name in facts}}


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
    """Cut off at ``max_tokens``: ``finish_reason: "length"``, or tool-call arguments that break off
    mid-JSON under another finish_reason. Nothing in the answer is run."""

    stop_reason = "truncated_answer"


class ContentFiltered(APIError):
    """The provider's content policy filtered the request or the answer (``finish_reason:
    "content_filter"``, Azure's 400 ``content_filter``, a proxy's content-policy error)."""

    stop_reason = "content_filtered"


class ModelRefused(APIError):
    """The model declined the task and said why in ``message.refusal``; the message quotes it."""

    stop_reason = "model_refused"


class MalformedToolCall(APIError):
    """The model wrote a tool call its server could not read, and the server refused the answer
    (Groq's 400 ``tool_use_failed``, quoting ``failed_generation``). The request itself was fine."""

    stop_reason = "api_malformed_tool_call"


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


class BoundExceeded(ReactlabError):
    """The working copy holds more than the host side will walk, read or copy (entries, path length,
    bytes): the run stops here, and the message names the bound. What a command leaves behind costs
    the host no more than the bounds in reactlab/core/sandbox/walk.py."""

    stop_reason = "bound_exceeded"


class DiskBoundExceeded(BoundExceeded):
    """The working copy grew by more than ``Sandbox(disk_limit=...)`` over its size when the sandbox
    was made (blocks counted, each file once: reactlab/core/sandbox/disk.py). The command was stopped;
    ``run_in_copy`` removes the copy."""


class DiskNearlyFull(BoundExceeded):
    """While a command ran, the disk holding the working copy fell below its free-space floor
    (reactlab/core/sandbox/disk.py): a fact about the machine, which no command can fake. The command was
    stopped; ``run_in_copy`` removes the copy."""


class ToolError(Exception):
    """An expected tool failure (missing file, ambiguous edit, ...). The model sees its text."""


class RepairableAnswer(InvalidAssistantMessage, MalformedResponse):
    """A known server quirk (a call without id or type, arguments as an object, a flat call, content
    as a list of parts). Strict mode stops on it; ``DeepSeekClient(repair=True)`` mends and records it."""


class UnmendableToolCall(InvalidAssistantMessage, MalformedResponse):
    """A tool call with neither ``function`` nor ``name`` (LM Studio 0.3.21), or a model's markup in
    ``content`` that holds no call that can be read (slips/dialects.py): nothing to call, nothing to mend."""


class StreamedAnswer(MalformedResponse):
    stop_reason = "api_streamed_answer"


class EndpointNotFound(UnexpectedStatus):
    stop_reason = "api_endpoint_not_found"


class ModelNotFound(UnexpectedStatus):
    stop_reason = "api_model_not_found"


class ServerNeedsOption(BadRequest):
    stop_reason = "api_server_needs_option"


class ContextTooLong(BadRequest):
    """The history sent is longer than the model's context, or than what the account's tier takes in one
    request. ``limit`` and ``sent`` (tokens) are filled in where the server's body says them."""

    stop_reason = "api_context_too_long"
    limit: int | None = None
    sent: int | None = None


class ToolsUnsupported(BadRequest):
    """The model, as this server serves it, takes no tools (Ollama's "does not support tools")."""

    stop_reason = "api_tools_unsupported"


class AccessRefused(APIError):
    """The provider refuses this country or region, or this account (OpenAI's 403
    ``unsupported_country_region_territory``): no key or retry changes that."""

    stop_reason = "api_access_refused"


class UntrustedCertificate(APIError):
    """The server's TLS certificate chains to an authority this machine does not trust (GigaChat's Russian
    Trusted Root CA is not in certifi). Verification stays on: pass the authority's certificate instead."""

    stop_reason = "api_untrusted_certificate"


class UndecodableBody(MalformedResponse):
    """The body cannot be read: marked with a Content-Encoding it does not have, not UTF-8, or JSON that
    stops before it ends."""

    stop_reason = "api_undecodable_body"


class TemporarilyRefused(APIError):
    stop_reason = "api_temporarily_refused"
    retryable = True


class AnswerAborted(APIError):
    stop_reason = "api_answer_aborted"
    retryable = True


class APIKeyRefused(ReactlabError, ValueError):
    """Raised when the client is built: the key never left the machine. The message never holds it."""

    stop_reason = "api_key_refused"
