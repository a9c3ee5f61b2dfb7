"""What a server's answer means when it is not a usable chat.completion: a typed error for each case.

``status_error`` reads an HTTP error (status, headers, body, in whichever of the servers' shapes it
came, with the real reason wherever the server put it: a router's ``error.metadata.raw``, Groq's
``failed_generation``, Azure's ``innererror``); ``finish_error`` an answer that ended without a usable
message; ``refusal_error`` an answer in which the model declined. Every message says what to do
next, and quotes the server's own reason (one line, at most 300 characters), in the language asked
for.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx

from .. import errors
from ..json_text import read_json
from ..language import Language, decimal, say, translatable
from ..providers import url_under

__all__ = ["Endpoint", "carries_error", "finish_error", "page_reason", "refusal_error", "status_error"]

_Error = TypeVar("_Error", bound=errors.APIError)


@dataclass(frozen=True)
class Endpoint:
    """What the error messages name: where the request went, for which model, with which key."""

    url: str
    base_url: str
    model: str
    key_source: str


def status_error(
    status: int, headers: httpx.Headers, text: str, endpoint: Endpoint, scrub: Callable[[str], str], lang: Language
) -> errors.APIError:
    """The error for an answer with ``status`` (or a 200 that holds an error instead of choices).
    ``text`` has the key scrubbed out of it already; ``scrub`` does the same to a header."""
    facts = _ErrorFacts.read(text, lang)
    retry_after = _retry_after(headers)
    request_id = _header_text(headers, "x-request-id") or _header_text(headers, "request-id")
    request_id = scrub(request_id) if request_id else None
    # A 200 that carries an error with an HTTP code (OpenRouter, mid-answer) is classified by that code.
    meant = facts.status if status == 200 and facts.status else status
    wait = decimal(retry_after, ".3g", lang) if retry_after is not None else None
    said = ", ".join(
        [
            str(status)
            if meant == status
            else say("{status} with error code {code}", lang=lang, status=status, code=facts.code or meant)
        ]
        + ([say("request id {request_id}", lang=lang, request_id=request_id)] if request_id else [])
        + ([say("retry after {seconds} s", lang=lang, seconds=wait)] if wait is not None else [])
    )
    reason = facts.message.rstrip(" .") or say(
        "no details", lang=lang
    )  # each message goes on with a sentence of its own
    error = _classify(meant, say("({said}): {reason}", lang=lang, said=said, reason=reason), facts, endpoint, lang)
    error.status, error.retry_after, error.request_id = status, retry_after, request_id
    error.provider_code, error.provider_type = facts.code, facts.type
    error.body = text[:2000]  # not ``response``: that is a chat.completion, and a record shows it as one
    return error


def finish_error(finish_reason: str, lang: Language) -> errors.APIError | None:
    """The error for a ``finish_reason`` that leaves no usable message, or None if it leaves one."""
    if finish_reason not in _FINISH_ERRORS:
        return None
    kind, name = _FINISH_ERRORS[finish_reason]
    return kind(say(name, lang=lang), lang=lang)


def refusal_error(message: dict[str, Any], lang: Language) -> errors.ModelRefused | None:
    """The error for an answer that holds only the model's refusal (``message.refusal``), or None."""
    refusal, content = message.get("refusal"), message.get("content")
    if not isinstance(refusal, str) or not refusal.strip() or message.get("tool_calls"):
        return None
    if not (content is None or isinstance(content, str) and not content.strip()):
        return None  # an answer as well: the answer is what counts
    return errors.ModelRefused(
        say(
            "The model refused the task: {refusal!r}. This is the model's own refusal (message.refusal), "
            "not an empty answer: rephrase the task, or try another model.",
            lang=lang,
            refusal=_one_line(refusal),
        ),
        lang=lang,
    )


def _classify(status: int, said: str, facts: _ErrorFacts, endpoint: Endpoint, lang: Language) -> errors.APIError:
    detail = facts.message or say("no details", lang=lang)
    model, models, url = endpoint.model[:80], url_under(endpoint.base_url, "/models"), endpoint.url

    def error(kind: type[_Error], text: str, **more: object) -> _Error:
        """``kind``, saying ``text`` in ``lang``: its fields are the facts above (said, model, models, url,
        detail, status) and ``more``."""
        known = {"said": said, "model": model, "models": models, "url": url, "detail": detail, "status": status}
        return kind(say(text, lang=lang, **known, **more), status=status, lang=lang)

    if facts.endpoint_missing or (status == 404 and facts.route_not_found):
        advice = _v1_advice(endpoint.base_url, lang)
        return error(
            errors.EndpointNotFound, translatable("There is no chat endpoint at {url} {said}. {advice}"), advice=advice
        )
    if facts.filtered is not None:
        flagged = say(" Flagged: {categories}.", lang=lang, categories=facts.filtered) if facts.filtered else ""
        text = translatable(
            "The request was filtered by the provider's content policy {said}.{flagged} The request is not "
            "malformed: rephrase the task, or the files it reads, so that it passes the filter."
        )
        return error(errors.ContentFiltered, text, flagged=flagged)
    if facts.tool_use_failed:
        failed = facts.failed_generation
        wrote = say(" What the model wrote: {text!r}.", lang=lang, text=failed) if failed else ""
        text = translatable(
            "The model's tool call was malformed, so the server refused its answer {said}.{wrote} Nothing ran, "
            "and the request is not at fault: run again, make the task or the tools simpler, or use a model "
            "that calls tools more reliably."
        )
        return error(errors.MalformedToolCall, text, wrote=wrote)
    if facts.no_endpoints:
        text = translatable(
            "No provider behind {url} serves the model {model!r} with what this request needs {said}. Check the "
            "model id, and that the model supports tool calling; base_url is fine."
        )
        return error(errors.ModelNotFound, text)
    if facts.context is not None:
        limit, sent = facts.context
        sizes = (say(" Limit: {limit} tokens.", lang=lang, limit=limit) if limit else "") + (
            say(" Sent: {sent} tokens.", lang=lang, sent=sent) if sent else ""
        )
        text = translatable(
            "The history sent is longer than this model takes {said}.{sizes} Nothing ran. A shorter run fits "
            "(fewer steps, smaller files read, a lower max_tokens); so does a model or server with a larger "
            "context."
        )
        too_long = error(errors.ContextTooLong, text, sizes=sizes)
        too_long.limit, too_long.sent = limit, sent
        return too_long
    if facts.no_tools:
        text = translatable(
            "The server says the model {model!r} takes no tools {said}. The agent works by tool calls: choose a "
            "model (or a version of it) that supports them."
        )
        return error(errors.ToolsUnsupported, text)
    if facts.refused:
        text = (
            translatable(
                "The provider does not serve this country or region {said}. No key and no retry changes that: use a "
                "provider that does (from Russia: GigaChat, YandexGPT, a local server such as make llama-server), or "
                "replay a cassette."
            )
            if facts.refused == "region"
            else translatable("The provider refuses this account {said}. Check the account with the provider.")
        )
        return error(errors.AccessRefused, text)
    if facts.degraded:
        text = translatable(
            "The provider's backend for this model cannot serve it now {said}. Try later, or another model."
        )
        return error(errors.ServerError, text)
    if facts.withdrawn:
        text = translatable(
            "The server serves no such model for this account {said}: the model {model!r} may have been "
            "withdrawn. Check the model list at {models}."
        )
        return error(errors.ModelNotFound, text)
    if status == 200:
        text = translatable("The server answered 200 with an error instead of a chat.completion: {detail}.")
        return errors.MalformedResponse(say(text, lang=lang, detail=detail), lang=lang)
    if _START_UP_OPTION.search(detail):
        text = translatable(
            "The server refused the request {said}. Its message names a start-up option: restart the server with it."
        )
        return error(errors.ServerNeedsOption, text)
    if status == 404 and facts.about_model:
        text = translatable(
            "The server does not know the model {model!r} {said}. Check the model name (the server lists its "
            "models at {models})."
        )
        return error(errors.ModelNotFound, text)
    if status in (400, 422):
        order = _MESSAGE_ORDER.search(facts.message.lower()) is not None
        text = (
            translatable(
                "The server rejected the request {said}. "
                "Fix the request: message order, tool messages right after their call, parameters."
            )
            if order
            else translatable("The server rejected the request {said}.")
        )
        return error(errors.BadRequest, text)
    if status == 401:
        where = say("the api_key you passed", lang=lang) if endpoint.key_source == "api_key" else endpoint.key_source
        return error(
            errors.AuthenticationFailed, translatable("The API key was refused {said}. Check {where}."), where=where
        )
    if status == 402:
        text = translatable("The account has no balance left {said}. Top up, or replay a cassette offline.")
        return error(errors.InsufficientBalance, text)
    if status in (408, 409):
        return error(errors.TemporarilyRefused, translatable("The server asks to send the request again later {said}."))
    if status == 429:
        text = translatable("Rate limit reached {said}. Wait before the next run; in class, replay a cassette.")
        return error(errors.RateLimited, text)
    if status >= 500:
        return error(errors.ServerError, translatable("The server failed {said}. Wait a moment."))
    return error(errors.UnexpectedStatus, translatable("The server at {url} answered {status}: {detail}."))


def _v1_advice(base_url: str, lang: Language | None) -> str:
    if urlsplit(base_url).path.rstrip("/").endswith("/v1"):
        return say("Check base_url: the server has no chat-completions endpoint there.", lang=lang)
    return say(
        "Add /v1 to base_url: {url} (Ollama, llama.cpp, vLLM and LM Studio serve it there).",
        lang=lang,
        url=url_under(base_url, "/v1"),
    )


@dataclass
class _ErrorFacts:
    """What an error body says, in whichever of the servers' shapes it came."""

    message: str = ""
    code: str | None = None
    type: str | None = None
    status: int | None = None
    """An HTTP status written in the body's ``code`` (OpenRouter sends errors with a 200 that way)."""
    endpoint_missing: bool = False
    route_not_found: bool = False
    about_model: bool = False
    no_endpoints: bool = False
    """A router has no provider for the model, or none for what the request needs (OpenRouter's 404)."""
    filtered: str | None = None
    """The content policy stopped the request: what it flagged ("" when it does not say); None if not."""
    tool_use_failed: bool = False
    failed_generation: str = ""
    context: tuple[int | None, int | None] | None = None
    """The history is longer than the model's context: (limit, tokens sent), each where the body says it."""
    no_tools: bool = False
    refused: str | None = None
    """"region" or "account" when the provider refuses either; None otherwise."""
    degraded: bool = False
    withdrawn: bool = False

    @classmethod
    def read(cls, text: str, lang: Language | None) -> _ErrorFacts:
        try:
            data: Any = read_json(text)
        except ValueError:
            data = None
        if isinstance(data, list) and data and isinstance(data[0], dict):
            data = data[0]  # Gemini's OpenAI-compatible errors come as a list of one
        facts = cls(_one_line(page_reason(text) if data is None else text))
        if isinstance(data, dict):
            inner = data.get("error")
            source = inner if isinstance(inner, dict) else data  # OpenAI style, or vLLM's older top level
            said = source.get("message", inner if isinstance(inner, str) else data.get("detail"))
            if said is not None:
                facts.message = _one_line(_with_upstream_reason(str(said), source.get("metadata"), lang))
            facts.code = _short(source.get("code"))
            facts.type = _short(source.get("type"))
            facts.status = _http_status(source.get("code"))
            facts.filtered = _filtered(source, facts.message)
            facts.tool_use_failed = facts.code == "tool_use_failed"
            failed = source.get("failed_generation")
            facts.failed_generation = _one_line(failed) if isinstance(failed, str) else ""
            _minimax(data.get("base_resp"), facts)
            facts.context = _context(facts, source)
        lowered = facts.message.lower()
        facts.endpoint_missing = "unexpected endpoint" in lowered  # LM Studio: 200 {"error": "Unexpected endpoint..."}
        facts.route_not_found = lowered in ("404 page not found", "not found")  # Ollama's text; FastAPI's detail
        facts.about_model = facts.code == "model_not_found" or ("model" in lowered and "not" in lowered)
        facts.no_endpoints = lowered.startswith("no endpoints found")
        facts.no_tools = "does not support tools" in lowered  # Ollama: "MODEL does not support tools"
        facts.refused = _refused(facts.code, lowered)
        facts.degraded = "degraded function cannot be invoked" in lowered  # NVIDIA NIM's 400
        facts.withdrawn = _NIM_FUNCTION_GONE.match(facts.message) is not None
        if facts.context is None and data is None:
            facts.context = _context(facts, {})
        return facts


# The phrases that make a context overflow certain, from each server's own words (tests/servers/shapes/said.json).
_CONTEXT_WORDS = (
    "maximum context length",  # OpenAI, vLLM, DeepSeek
    "context length of only",  # LM Studio
    "larger context length",  # LM Studio
    "cannot truncate prompt with n_keep",  # LM Studio 0.4, llama.cpp
    "exceeds the available context size",  # llama.cpp
    "exceeds the context length",  # Ollama
    "longer than the model's context length",  # SGLang
    "exceeds the maximum number of tokens allowed",  # Gemini
    "request body too large for",  # GitHub Models (413)
    "request too large for model",  # Groq (413)
    "prompt is too long",  # Anthropic-style servers
)
_CONTEXT_CODES = {"context_length_exceeded", "tokens_limit_reached", "exceed_context_size_error"}
# (limit, sent) in each server's words; the texts are bounded (300 characters), so these stay cheap.
_CONTEXT_NUMBERS = (
    re.compile(r"maximum context length is (?P<limit>\d+).*?for a total of at least (?P<sent>\d+)"),
    re.compile(r"maximum context length is (?P<limit>\d+).*?(?:requested|resulted in) (?P<sent>\d+)"),
    re.compile(r"maximum context length is (?P<limit>\d+)"),
    re.compile(r"keep the first (?P<sent>\d+) tokens.*?context length of only (?P<limit>\d+)"),
    re.compile(r"n_keep \((?P<sent>\d+)\) >= n_ctx \((?P<limit>\d+)\)"),
    re.compile(r"input \((?P<sent>\d+) tokens\) is longer than the model's context length \((?P<limit>\d+)"),
    re.compile(r"input token count \((?P<sent>\d+)\) exceeds the maximum number of tokens allowed \((?P<limit>\d+)"),
    re.compile(r"max size: (?P<limit>\d+) tokens"),
    re.compile(r"limit (?P<limit>\d+), requested (?P<sent>\d+)"),
    re.compile(r"prompt is too long: (?P<sent>\d+) tokens > (?P<limit>\d+)"),
)


def _context(facts: _ErrorFacts, source: dict[str, Any]) -> tuple[int | None, int | None] | None:
    """(limit, sent) when the body says the history is longer than the model's context, else None."""
    lowered = facts.message.lower()
    codes = {str(facts.code).lower(), str(facts.type).lower()}
    if not codes & _CONTEXT_CODES and not any(words in lowered for words in _CONTEXT_WORDS):
        return None
    limit, sent = _count(source.get("n_ctx")), _count(source.get("n_prompt_tokens"))  # llama.cpp's fields
    for pattern in _CONTEXT_NUMBERS:
        found = pattern.search(lowered)
        if found:
            numbers = found.groupdict()
            limit = limit or _count(numbers.get("limit"))
            sent = sent or _count(numbers.get("sent"))
            break
    return limit, sent


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isdigit() and len(value) < 12:
        value = int(value)
    return value if isinstance(value, int) and value > 0 else None


_REGION_CODES = {"unsupported_country_region_territory"}
_NIM_FUNCTION_GONE = re.compile(r"Function '[0-9a-f-]{36}': Not found for account")
_MESSAGE_ORDER = re.compile(r"messages? order|role 'tool' must be|must be followed by tool messages|tool_call_id")


def _refused(code: str | None, lowered: str) -> str | None:
    """What the body says is refused: "region" (this place is not served), "account", or None."""
    if code in _REGION_CODES or "location is not supported" in lowered:  # OpenAI's 403; Gemini's 400
        return "region"
    if "country, region, or territory not supported" in lowered:
        return "region"
    if code == "account_deactivated" or ("account" in lowered and ("deactivated" in lowered or "suspended" in lowered)):
        return "account"
    return None


# MiniMax's status codes (platform.minimax.io/docs/api-reference/errorcode) as the HTTP status they mean.
_MINIMAX_STATUS = {1000: 500, 1001: 504, 1002: 429, 1004: 401, 1008: 402, 1024: 500, 1033: 500}
_MINIMAX_FILTERED = {1026, 1027}


def _minimax(base_resp: Any, facts: _ErrorFacts) -> None:
    """MiniMax answers some errors with 200 and ``base_resp: {status_code, status_msg}`` beside ``choices: null``."""
    if not isinstance(base_resp, dict) or not isinstance(base_resp.get("status_code"), int):
        return
    code = base_resp["status_code"]
    if code == 0:
        return
    facts.message = _one_line(str(base_resp.get("status_msg") or ""))
    facts.code = str(code)
    facts.status = _MINIMAX_STATUS.get(code)
    if code in _MINIMAX_FILTERED:
        facts.filtered = ""


def carries_error(data: dict[str, Any]) -> bool:
    """Whether a 200 body holds an error instead of choices: ``error`` (LM Studio, OpenRouter) or a MiniMax
    ``base_resp`` with a status code other than 0."""
    base_resp = data.get("base_resp")
    failed = isinstance(base_resp, dict) and base_resp.get("status_code") not in (0, None)
    choices = data.get("choices")
    return bool(data.get("error") or failed) and not (isinstance(choices, list) and choices)


def page_reason(text: str) -> str:
    """The reason an HTML error page gives (its <title>, else its first heading, else its text), or the text
    itself when it is not HTML. Linear: ``str.find`` from positions that only move forward, on a bounded head."""
    head = text[:_PAGE_HEAD]
    lowered = head.lower()
    if not lowered.lstrip().startswith("<") or not any(tag in lowered for tag in ("<html", "<title", "<body", "<h1")):
        return text
    for tag in ("title", "h1", "h2", "h3"):
        found = _element(head, lowered, tag)
        if found:
            return found
    return _text_of(head)


_PAGE_HEAD = 65536


def _element(head: str, lowered: str, tag: str) -> str:
    start = lowered.find("<" + tag)
    opened = lowered.find(">", start) if start >= 0 else -1
    end = lowered.find("</" + tag, opened) if opened >= 0 else -1
    return _text_of(head[opened + 1 : min(end, opened + 1 + 2000)]) if end >= 0 else ""


def _text_of(fragment: str) -> str:
    """The words of an HTML fragment: comments and tags left out, entities read."""
    words, position = [], 0
    while position < len(fragment):
        if fragment.startswith("<!--", position):
            closed = fragment.find("-->", position + 4)
            position = len(fragment) if closed < 0 else closed + 3
        elif fragment[position] == "<":
            closed = fragment.find(">", position)
            position = len(fragment) if closed < 0 else closed + 1
        else:
            opened = fragment.find("<", position)
            opened = len(fragment) if opened < 0 else opened
            words.append(fragment[position:opened])
            position = opened
    return _one_line(html.unescape(" ".join(words)))


def _with_upstream_reason(message: str, metadata: Any, lang: Language | None) -> str:
    """A router's "Provider returned error" keeps the provider's own reason in ``metadata.raw``."""
    if not isinstance(metadata, dict) or metadata.get("raw") in (None, ""):
        return message
    raw = metadata["raw"]
    try:
        parsed: Any = read_json(raw) if isinstance(raw, str) else raw
    except ValueError:
        parsed = raw
    if isinstance(parsed, dict):
        inner = parsed["error"] if isinstance(parsed.get("error"), dict) else parsed
        said = " ".join(str(inner[k]) for k in ("message", "param") if isinstance(inner.get(k), str) and inner[k])
        parsed = said or parsed
    reason = _one_line(str(parsed))
    if reason in message:
        return message
    who = metadata.get("provider_name")
    who = who if isinstance(who, str) else say("the provider", lang=lang)
    return say("{message}: {who} said: {reason}", lang=lang, message=message, who=who, reason=reason)


_POLICY_CODES = {"content_filter", "content_policy_violation", "responsibleaipolicyviolation"}


def _filtered(error: dict[str, Any], message: str) -> str | None:
    """What a content policy flagged, "" if it does not say, None if this is no content-policy error."""
    inner = error.get("innererror")
    if not isinstance(inner, dict):  # LiteLLM's proxy passes Azure's innererror on here
        specific = error.get("provider_specific_fields")
        inner = specific.get("innererror") if isinstance(specific, dict) else None
    codes = {str(error.get("code")).lower(), str(inner.get("code")).lower() if isinstance(inner, dict) else ""}
    metadata = error.get("metadata")
    reasons = metadata.get("reasons") if isinstance(metadata, dict) else None  # OpenRouter's moderation (403)
    if not codes & _POLICY_CODES and "ContentPolicyViolationError" not in message and not isinstance(reasons, list):
        return None
    results = inner.get("content_filter_result") if isinstance(inner, dict) else None
    if isinstance(results, dict):
        flagged = [
            f"{name} ({result.get('severity', 'detected')})"
            for name, result in results.items()
            if isinstance(result, dict) and result.get("filtered") is True
        ]
        return _one_line(", ".join(flagged))[:200]
    if isinstance(reasons, list):
        return _one_line(", ".join(str(r) for r in reasons))[:200]
    return ""


def _http_status(code: Any) -> int | None:
    """``code`` as an HTTP error status (OpenRouter writes 502 or "502"), or None."""
    if isinstance(code, bool):
        return None
    try:
        number = int(code) if isinstance(code, (int, str)) else None
    except ValueError:
        return None
    return number if number is not None and 400 <= number <= 599 else None


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
        translatable(
            "The answer was cut off at max_tokens (finish_reason 'length'), so it cannot be trusted. "
            "Raise max_tokens or ask for a shorter answer."
        ),
    ),
    "content_filter": (
        errors.ContentFiltered,
        translatable("The provider withheld the answer (finish_reason 'content_filter'). Rephrase the task."),
    ),
    "insufficient_system_resource": (
        errors.ResourcesExhausted,
        translatable("The provider ran out of capacity mid-answer (finish_reason 'insufficient_system_resource')."),
    ),
    "abort": (
        errors.AnswerAborted,
        translatable(
            "The server aborted the answer before it was finished (finish_reason 'abort': vLLM ends a request "
            "this way when it is paused, shut down or cancelled)."
        ),
    ),
}
"""Each finish_reason that leaves no usable answer: its error, and what it says."""
_START_UP_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
