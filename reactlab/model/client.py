"""DeepSeekClient: one chat-completions request over httpx, with typed failures.

Read ``request_body`` (what is sent) and ``send`` (what comes back, checked) first; what an error
answer means is in ``http_errors.py``, what each server accepts in ``providers.py``.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
import warnings
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from .. import errors
from ..json_text import UnusableJSON, read_json
from ..protocols import Completion
from ..strings import Language, check_language, decimal, resolve_language, strings
from .http_errors import Endpoint, finish_error, refusal_error, status_error
from .providers import PROVIDERS, Provider, provider_for, url_under
from .repair import FINISH_QUIRKS, examine
from .truncation import cut_off_error
from .unix_socket import SCHEME, request_url, socket_path, transport_for

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_MODEL", "DeepSeekClient"]


class DeepSeekClient:
    """POST {base_url}/chat/completions. Works with any OpenAI-compatible server by base URL.

    The key travels only in the Authorization header (Azure's ``api-key`` header for Azure), and only
    where it belongs: ``api_key`` goes to ``base_url``; without it, ``DEEPSEEK_API_KEY`` goes to
    DeepSeek's hosts only and ``REACTLAB_API_KEY`` to any other server on the network. A server on a
    unix socket (``base_url="unix:/path/to/server.sock:/v1"``, see ``unix_socket.py``) gets no key from
    the environment: it is on this machine, as the test server of ``llama_server.py`` is. A key never
    goes over plain HTTP except to this machine. A query in ``base_url`` (Azure's ``?api-version=``)
    stays at the end.

    ``provider`` (a name in ``PROVIDERS`` or a ``Provider``) says what the server accepts; by default
    it is chosen from the base URL. ``repair=True`` mends known server quirks and lists each one in
    ``Completion.repairs``; by default they stop the run with an error that names them.
    ``timeout`` bounds each network read; ``deadline`` bounds the whole call (checked as each piece of
    the answer arrives, so keep-alive bytes cannot stretch a call past it; silence is ``timeout``'s).
    Pass ``transport`` (an httpx transport) to replay or record offline. There are no automatic
    retries: an API failure ends the attempt, and the error says whether retrying later may help.
    ``lang`` is the language of its errors; None (the default) means the language of the run that
    asks (an Agent's ``lang``), else ``current_language()``.
    """

    def request_body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """The article's body for DeepSeek; for other providers, what their profile accepts."""
        profile = self.provider
        echoed = [profile.echo_message(m) for m in messages]
        # The caller's own list when nothing changed: the agent's snapshots are then recorded, not copied.
        same = all(e is m for e, m in zip(echoed, messages, strict=True))
        body: dict[str, Any] = {"model": self.model, "messages": messages if same else echoed}
        if tools:  # an empty tools list is rejected by DeepSeek, OpenAI and vLLM
            body["tools"] = tools
        if profile.thinking_field:
            body["thinking"] = {"type": "enabled" if self.thinking else "disabled"}
        if tools:
            body["tool_choice"] = self.tool_choice
        if profile.is_reasoning_model(self.model):
            body["max_completion_tokens"] = self.max_tokens
        else:
            body.update(temperature=self.temperature, max_tokens=self.max_tokens)
        body["stream"] = False
        return body

    def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """Like ``complete``, but return the whole exchange (for the run record)."""
        body = self.request_body(messages, tools)
        lang = resolve_language(self.lang)
        try:
            status, headers, raw = self._post(body, lang)
            data = self._parse(status, headers, raw, lang)
            choice = data["choices"][0]
            message, repairs = self._examine(choice["message"], choice.get("finish_reason"), data, bool(tools), lang)
            usage = data.get("usage")
            unusable = refusal_error(message, lang) or cut_off_error(message, usage, self.max_tokens, lang)
            if unusable is not None:
                raise self._with_body(unusable, data)
            return Completion(body, data, repairs, message if repairs else None)
        except errors.APIError as error:
            error.request = body
            raise

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """Send the history and tool definitions; return the assistant message."""
        return self.send(messages, tools).message

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        model: str | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 60.0,
        deadline: float = 180.0,
        max_tokens: int = 800,
        temperature: float = 0,
        thinking: bool = False,
        tool_choice: Literal["auto", "required"] = "auto",
        provider: str | Provider | None = None,
        repair: bool = False,
        lang: Language | None = None,
    ) -> None:
        self.lang = None if lang is None else check_language(lang)
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.model = model or DEFAULT_MODEL
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.thinking = thinking
        self.tool_choice = tool_choice
        self.repair = repair
        self.timeout = timeout
        self.deadline = deadline
        self.provider = _profile(provider, self.base_url)
        if tool_choice not in ("auto", "required"):
            raise ValueError(f'tool_choice must be "auto" or "required", not {tool_choice!r}')
        if tool_choice == "required" and thinking and self.provider.thinking_field:
            raise ValueError('DeepSeek refuses tool_choice "required" in thinking mode: use "auto", or thinking=False.')
        self.unix_socket = socket_path(self.base_url, self.lang)
        from_environment = api_key is None and self.unix_socket is None
        self.key_source = "api_key" if not from_environment else _DEEPSEEK_KEY if self.is_deepseek else _OTHER_KEY
        key = _checked_key(
            os.environ.get(self.key_source, "") if from_environment else api_key or "",
            self.key_source,
            self.base_url,
            resolve_language(self.lang),
        )
        self._api_key = _Secret(key) if key else None
        headers = self.provider.key_headers(key)
        if transport is None and self.unix_socket is not None:
            transport = transport_for(self.base_url)
        self._http = httpx.Client(transport=transport, timeout=min(timeout, deadline), headers=headers)

    @property
    def url(self) -> str:
        return url_under(self.base_url, "/chat/completions")

    @property
    def is_deepseek(self) -> bool:
        """Whether base_url is one of DeepSeek's hosts: decided by the host itself, never by the profile."""
        host = (urlsplit(self.base_url).hostname or "").lower()
        return host == "deepseek.com" or host.endswith(".deepseek.com")

    def __repr__(self) -> str:
        key = f"set from {self.key_source}" if self._api_key else "not set"
        return (
            f"DeepSeekClient(base_url={self.base_url!r}, model={self.model!r}, "
            f"provider={self.provider.name!r}, api_key={key})"
        )

    def _post(self, body: dict[str, Any], lang: Language) -> tuple[int, httpx.Headers, bytes]:
        """Send the request and read the whole answer, within ``deadline`` seconds in total."""
        texts = strings(lang).api
        started = time.monotonic()
        try:
            with self._http.stream("POST", request_url(self.url), json=body) as response:
                if response.headers.get("content-type", "").startswith("text/event-stream"):
                    raise errors.StreamedAnswer(self._streamed(response.status_code, lang), lang=lang)
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    elapsed = time.monotonic() - started
                    if elapsed > self.deadline:  # a trickle of keep-alive bytes never trips a read timeout
                        deadline, spent = decimal(self.deadline, "g", lang), decimal(elapsed, ".1f", lang)
                        said = texts.deadline.format(url=self.url, deadline=deadline, elapsed=spent, size=size)
                        raise errors.APITimeout(said, lang=lang)
                    if size > MAX_BODY_BYTES:
                        said = texts.too_large.format(url=self.url, limit=MAX_BODY_BYTES)
                        raise errors.MalformedResponse(said, lang=lang)
                return response.status_code, response.headers, b"".join(chunks)
        except httpx.TimeoutException as exc:
            seconds = decimal(min(self.timeout, self.deadline), "g", lang)
            said = texts.timeout.format(url=self.url, seconds=seconds, kind=type(exc).__name__)
            raise errors.APITimeout(said, lang=lang) from None
        except httpx.TransportError as exc:
            reason = self._scrub(str(exc)) or type(exc).__name__
            raise errors.APIConnectionError(texts.unreachable.format(url=self.url, reason=reason), lang=lang) from None

    def _parse(self, status: int, headers: httpx.Headers, raw: bytes, lang: Language) -> dict[str, Any]:
        texts = strings(lang).api
        text = self._scrub(raw.decode("utf-8", errors="replace"))  # a server that echoes the key must not plant it
        if status != 200:
            raise status_error(status, headers, text, self._endpoint(), self._scrub, lang)
        if text.lstrip().startswith(("data:", "event:")):
            raise errors.StreamedAnswer(self._streamed(status, lang), lang=lang)
        try:
            data = read_json(text)  # DeepSeek may send blank keep-alive lines first: JSON allows them
        except UnusableJSON as exc:  # NaN, a 5,000-digit number, "\ud800", a key twice, deep nesting
            said = texts.body_refused.format(size=len(raw), problem=exc.in_words(lang))
            raise errors.MalformedResponse(said, lang=lang) from None
        except json.JSONDecodeError:
            said = texts.not_json.format(size=len(raw), start=text[:200])
            raise errors.MalformedResponse(said, lang=lang) from None
        if isinstance(data, dict) and data.get("error") and not _has_choices(data):
            # LM Studio answers some mistakes with 200; OpenRouter an error mid-answer, with choices: null
            raise status_error(status, headers, text, self._endpoint(), self._scrub, lang)
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._with_body(errors.MalformedResponse(texts.no_choices, lang=lang), data)
        if not isinstance(choices[0].get("message"), dict):
            raise self._with_body(errors.MalformedResponse(texts.no_message, lang=lang), data)
        reason = choices[0].get("finish_reason")
        finished_badly = finish_error(reason, lang) if isinstance(reason, str) else None
        if finished_badly is not None:
            raise self._with_body(finished_badly, data)
        if reason not in _USABLE_FINISH and reason not in FINISH_QUIRKS:  # "tool", "eos": see repair.py
            said = texts.unknown_finish.format(reason=str(reason)[:40])
            raise self._with_body(errors.MalformedResponse(said, lang=lang), data)
        result: dict[str, Any] = data
        return result

    def _examine(
        self, message: dict[str, Any], finish_reason: Any, data: dict[str, Any], tools_offered: bool, lang: Language
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        response_id = f"{data.get('id')}/{data.get('created')}"
        try:
            return examine(
                message, finish_reason, response_id, repair=self.repair, tools_offered=tools_offered, lang=lang
            )
        except errors.APIError as error:
            raise self._with_body(error, data) from None

    def _streamed(self, status: int, lang: Language) -> str:
        return strings(lang).api.streamed.format(url=self.url, status=status)

    def _endpoint(self) -> Endpoint:
        return Endpoint(self.url, self.base_url, self.model, self.key_source)

    def _scrub(self, text: str) -> str:
        # Some servers echo the key they were given in their error text.
        return text.replace(self._api_key.value, "[API key]") if self._api_key else text

    @staticmethod
    def _with_body(error: errors.APIError, body: Any) -> errors.APIError:
        error.response = body if isinstance(body, dict) else None
        return error

    def close(self) -> None:
        self._http.close()


DEFAULT_BASE_URL = "https://api.deepseek.com"
DEFAULT_MODEL = "deepseek-flash"
MAX_BODY_BYTES = 16 * 1024 * 1024
"""A chat.completion of 800 tokens is a few kilobytes; anything near this is not one."""

# finish_reason values that still carry a usable message. Tool calls are decided on `tool_calls`
# alone: OpenAI sometimes sends them with "stop".
_USABLE_FINISH = {"stop", "tool_calls", None}
_DEEPSEEK_KEY = "DEEPSEEK_API_KEY"
_OTHER_KEY = "REACTLAB_API_KEY"


class _Secret:
    """Holds the key so that no repr, vars() or traceback with locals ever shows it."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<hidden>"


def _has_choices(data: dict[str, Any]) -> bool:
    choices = data.get("choices")
    return isinstance(choices, list) and bool(choices)


def _profile(provider: str | Provider | None, base_url: str) -> Provider:
    if isinstance(provider, Provider):
        return provider
    if provider is None:
        return provider_for(base_url)
    if provider not in PROVIDERS:
        raise ValueError(f"Unknown provider {provider[:40]!r}; known: {', '.join(PROVIDERS)}, or pass a Provider.")
    return PROVIDERS[provider]


def _checked_key(key: str, source: str, base_url: str, lang: Language) -> str:
    """The key, cleaned of surrounding whitespace, if it may be sent to base_url; never echoed in an error."""
    texts = strings(lang).api
    cleaned = key.strip(" \t\r\n")
    if cleaned != key:
        warnings.warn(texts.key_whitespace.format(source=source), stacklevel=3)
    if any(not 32 < ord(c) < 127 for c in cleaned):
        raise errors.APIKeyRefused(texts.key_bad_character.format(source=source))
    parts = urlsplit(base_url)
    if cleaned and parts.scheme != "https" and not _on_this_machine(base_url):
        raise errors.APIKeyRefused(texts.key_plain_http.format(source=source, host=parts.hostname))
    return cleaned


def _on_this_machine(base_url: str) -> bool:
    """A unix socket, or a loopback host."""
    if base_url.startswith(SCHEME):
        return True
    host = urlsplit(base_url).hostname or ""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
