"""What a server's answer means when it is not a usable chat.completion: a typed error for each case.

``status_error`` reads an HTTP error (status, headers, body, in whichever of the servers' shapes it
came); ``finish_error`` an answer that ended without a usable message. Every message says what to
do next, and quotes the server's own reason (one line, at most 300 characters).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from .. import errors

__all__ = ["Endpoint", "finish_error", "status_error"]


@dataclass(frozen=True)
class Endpoint:
    """What the error messages name: where the request went, for which model, with which key."""

    url: str
    base_url: str
    model: str
    key_source: str


def status_error(
    status: int, headers: httpx.Headers, text: str, endpoint: Endpoint, scrub: Callable[[str], str]
) -> errors.APIError:
    """The error for an answer with ``status`` (or a 200 that holds an error instead of choices).
    ``text`` has the key scrubbed out of it already; ``scrub`` does the same to a header."""
    facts = _ErrorFacts.read(text)
    retry_after = _retry_after(headers)
    request_id = _header_text(headers, "x-request-id") or _header_text(headers, "request-id")
    request_id = scrub(request_id) if request_id else None
    said = ", ".join(
        [str(status)]
        + ([f"request id {request_id}"] if request_id else [])
        + ([f"retry after {retry_after:.3g} s"] if retry_after is not None else [])
    )
    error = _classify(status, f"({said}): {facts.message or 'no details'}", facts, endpoint)
    error.retry_after, error.request_id = retry_after, request_id
    error.provider_code, error.provider_type = facts.code, facts.type
    error.body = text[:2000]  # not ``response``: that is a chat.completion, and a record shows it as one
    return error


def finish_error(finish_reason: str) -> errors.APIError | None:
    """The error for a ``finish_reason`` that leaves no usable message, or None if it leaves one."""
    if finish_reason not in _FINISH_ERRORS:
        return None
    kind, message = _FINISH_ERRORS[finish_reason]
    return kind(message)


def _classify(status: int, said: str, facts: _ErrorFacts, endpoint: Endpoint) -> errors.APIError:
    detail = facts.message or "no details"
    if facts.endpoint_missing or (status == 404 and facts.route_not_found):
        return errors.EndpointNotFound(
            f"There is no chat endpoint at {endpoint.url} {said}. {_v1_advice(endpoint.base_url)}", status=status
        )
    if status == 200:
        return errors.MalformedResponse(
            f"The server answered 200 with an error instead of a chat.completion: {detail}."
        )
    if _START_UP_OPTION.search(detail):
        return errors.ServerNeedsOption(
            f"The server refused the request {said}. Its message names a start-up option: restart the server with it.",
            status=status,
        )
    if status == 404 and facts.about_model:
        return errors.ModelNotFound(
            f"The server does not know the model {endpoint.model[:80]!r} {said}. Check the model name "
            f"(the server lists its models at {endpoint.base_url}/models).",
            status=status,
        )
    if status in (400, 422):
        return errors.BadRequest(
            f"The server rejected the request {said}. "
            "Fix the request: message order, tool messages right after their call, parameters.",
            status=status,
        )
    if status == 401:
        where = "the api_key you passed" if endpoint.key_source == "api_key" else endpoint.key_source
        return errors.AuthenticationFailed(f"The API key was refused {said}. Check {where}.", status=status)
    if status == 402:
        return errors.InsufficientBalance(
            f"The account has no balance left {said}. Top up, or replay a cassette offline.", status=status
        )
    if status in (408, 409):
        return errors.TemporarilyRefused(f"The server asks to send the request again later {said}.", status=status)
    if status == 429:
        return errors.RateLimited(
            f"Rate limit reached {said}. Wait before the next run; in class, replay a cassette.", status=status
        )
    if status >= 500:
        return errors.ServerError(f"The server failed {said}. Wait a moment.", status=status)
    return errors.UnexpectedStatus(
        f"Unexpected HTTP status {status} from {endpoint.url}: {detail}. Check base_url.", status=status
    )


def _v1_advice(base_url: str) -> str:
    if urlsplit(base_url).path.rstrip("/").endswith("/v1"):
        return "Check base_url: the server has no chat-completions endpoint there."
    return f"Add /v1 to base_url: {base_url}/v1 (Ollama, llama.cpp, vLLM and LM Studio serve it there)."


@dataclass
class _ErrorFacts:
    """What an error body says, in whichever of the servers' shapes it came."""

    message: str = ""
    code: str | None = None
    type: str | None = None
    endpoint_missing: bool = False
    route_not_found: bool = False
    about_model: bool = False

    @classmethod
    def read(cls, text: str) -> _ErrorFacts:
        try:
            data: Any = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        facts = cls(_one_line(text))
        if isinstance(data, dict):
            inner = data.get("error")
            source = inner if isinstance(inner, dict) else data  # OpenAI style, or vLLM's older top level
            said = source.get("message", inner if isinstance(inner, str) else data.get("detail"))
            if said is not None:
                facts.message = _one_line(str(said))
            facts.code = _short(source.get("code"))
            facts.type = _short(source.get("type"))
        lowered = facts.message.lower()
        facts.endpoint_missing = "unexpected endpoint" in lowered  # LM Studio: 200 {"error": "Unexpected endpoint..."}
        facts.route_not_found = lowered in ("404 page not found", "not found")  # Ollama's text; FastAPI's detail
        facts.about_model = facts.code == "model_not_found" or ("model" in lowered and "not" in lowered)
        return facts


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def _short(value: Any) -> str | None:
    return None if value is None else str(value)[:100]


def _header_text(headers: httpx.Headers, name: str) -> str | None:
    value = headers.get(name)
    if not value:
        return None
    printable = "".join(c for c in value if 32 < ord(c) < 127)  # a server's header is hostile text too
    return printable[:100] or None


def _retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    try:
        if headers.get("retry-after-ms"):
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if not value:
            return None
        if value.strip().replace(".", "", 1).isdigit():
            return float(value)
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (ValueError, TypeError, OverflowError):
        return None


_FINISH_ERRORS: dict[str, tuple[type[errors.APIError], str]] = {
    "length": (
        errors.TruncatedAnswer,
        "The answer was cut off at max_tokens (finish_reason 'length'), so it cannot be trusted. "
        "Raise max_tokens or ask for a shorter answer.",
    ),
    "content_filter": (
        errors.ContentFiltered,
        "The provider withheld the answer (finish_reason 'content_filter'). Rephrase the task.",
    ),
    "insufficient_system_resource": (
        errors.ResourcesExhausted,
        "The provider ran out of capacity mid-answer (finish_reason 'insufficient_system_resource').",
    ),
    "abort": (
        errors.AnswerAborted,
        "The server aborted the answer before it was finished (finish_reason 'abort': vLLM ends a request "
        "this way when it is paused, shut down or cancelled).",
    ),
}
_START_UP_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
