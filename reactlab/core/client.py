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

from . import errors
from .json_text import UnusableJSON, read_json
from .language import Language, check_language, decimal, resolve_language, say
from .protocols import Completion
from .providers import PROVIDERS, Provider, provider_for, url_under
from .slips.gigachat import GigaChatToken, scope_from_environment
from .slips.http_errors import Endpoint, carries_error, finish_error, page_reason, refusal_error, status_error
from .slips.legacy_functions import to_functions
from .slips.repair import FINISH_QUIRKS, examine
from .slips.transfer import as_sent, connection_error, decoded, read_whole, streamed, trusted
from .slips.truncation import cut_off_error, ends_early
from .slips.unix_socket import SCHEME, request_url, socket_path, transport_for

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
        if profile.functions or self._speaks_functions:
            return to_functions(body, arguments_as_object=profile.functions)
        return body

    def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """Like ``complete``, but return the whole exchange (for the run record)."""
        body = self.request_body(messages, tools)
        lang = resolve_language(self.lang)
        try:
            status, headers, raw = self._post(body, lang)
            data = self._parse(status, headers, raw, lang)
            choice = data["choices"][0]
            names = [t["function"].get("name") for t in tools if isinstance(t.get("function"), dict)]
            message, repairs = self._examine(choice["message"], choice.get("finish_reason"), data, names, lang)
            if repairs and isinstance(choice["message"].get("function_call"), dict) and "function_call" not in message:
                self._speaks_functions = True  # its history goes back as function_call and role "function"
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
        ca_bundle: str | os.PathLike[str] | None = None,
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
        self._speaks_functions = False
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
        if self.provider.model_in_folder and "://" not in self.model:
            raise ValueError(
                say(
                    "Yandex AI Studio names a model with its folder: gpt://<folder ID>/yandexgpt/latest (the "
                    "folder's ID is in the cloud console), not {model!r}.",
                    lang=self.lang,
                    model=self.model[:80],
                )
            )
        headers = self.provider.key_headers(key)
        self._token: GigaChatToken | None = None
        if key and self.provider.token_url:
            where = say("the api_key you passed", lang=self.lang) if self.key_source == "api_key" else self.key_source
            scope = scope_from_environment(self.lang)
            self._token = GigaChatToken(key, self.provider.token_url, scope, where, self._scrub, self.lang)
        if transport is None and self.unix_socket is not None:
            transport = transport_for(self.base_url)
        verify = trusted(ca_bundle or os.environ.get("REACTLAB_CA_BUNDLE") or None, self.lang)
        self._http = httpx.Client(
            transport=transport, timeout=min(timeout, deadline), headers=headers, auth=self._token, verify=verify
        )

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
        """Send the request and read the whole answer, within ``deadline`` seconds in total (transfer.py)."""
        started = time.monotonic()
        try:
            with self._http.stream("POST", request_url(self.url), json=body) as response:
                return read_whole(response, self.url, started, self.deadline, self._scrub, lang)
        except httpx.TimeoutException as exc:
            seconds = decimal(min(self.timeout, self.deadline), "g", lang)
            said = say(
                "No answer from {url} within {seconds} s ({kind}).",
                lang=lang,
                url=self.url,
                seconds=seconds,
                kind=type(exc).__name__,
            )
            raise errors.APITimeout(said, lang=lang) from None
        except httpx.TransportError as exc:
            failed = _url_of(exc)
            url = failed if self._token and failed == self._token.token_url else self.url  # GigaChat's OAuth server
            reason = self._scrub(str(exc)) or type(exc).__name__
            raise connection_error(exc, url, reason, lang) from None

    def _parse(self, status: int, headers: httpx.Headers, raw: bytes, lang: Language) -> dict[str, Any]:
        body, undecodable = decoded(raw, headers)
        if undecodable and status == 200:
            start = self._scrub(raw[:60].decode("utf-8", errors="replace"))
            said = say(
                "The server answered {status} with a body marked Content-Encoding: {encoding} that does not decode "
                "({reason}); its first bytes: {start!r}.",
                lang=lang,
                status=status,
                encoding=headers.get("content-encoding", "")[:40],
                reason=undecodable[:200],
                start=start,
            )
            raise errors.UndecodableBody(said, lang=lang)
        if status != 200:  # an error page: read as its charset says, the key scrubbed out of it
            text = self._scrub(httpx.Response(status, headers=as_sent(headers, b"content-type"), content=body).text)
            raise status_error(status, headers, text, self._endpoint(), self._scrub, lang)
        try:
            text = self._scrub(body.decode("utf-8"))  # a server that echoes the key must not plant it
        except UnicodeDecodeError as exc:
            said = say(
                "The server answered 200 with a body that is not UTF-8 (byte {position} of {size}): JSON must be "
                "UTF-8.",
                lang=lang,
                position=exc.start,
                size=len(body),
            )
            raise errors.UndecodableBody(said, lang=lang) from None
        if text.lstrip().startswith(("data:", "event:")):
            raise errors.StreamedAnswer(streamed(self.url, status, lang), lang=lang)
        try:
            data = read_json(text)  # DeepSeek may send blank keep-alive lines first: JSON allows them
        except UnusableJSON as exc:  # NaN, a 5,000-digit number, "\ud800", a key twice, deep nesting
            said = say(
                "The server answered 200 but its JSON cannot be used ({size} bytes): {problem}.",
                lang=lang,
                size=len(raw),
                problem=exc.in_words(lang),
            )
            raise errors.MalformedResponse(said, lang=lang) from None
        except json.JSONDecodeError:
            if ends_early(text):
                said = say(
                    "The server answered 200 with JSON that stops before it ends ({size} bytes, ending {ending!r}): "
                    "the connection or a proxy cut it off.",
                    lang=lang,
                    size=len(body),
                    ending=text[-40:],
                )
                raise errors.UndecodableBody(said, lang=lang) from None
            said = say(
                "The server answered 200 but the body is not JSON ({size} bytes): {start!r}.",
                lang=lang,
                size=len(raw),
                start=page_reason(text)[:200],
            )
            raise errors.MalformedResponse(said, lang=lang) from None
        if isinstance(data, dict) and carries_error(data):
            # LM Studio answers some mistakes with 200; OpenRouter an error mid-answer; MiniMax base_resp
            raise status_error(status, headers, text, self._endpoint(), self._scrub, lang)
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._with_body(
                errors.MalformedResponse(
                    say("The body has no choices[0]: not a chat.completion.", lang=lang), lang=lang
                ),
                data,
            )
        if not isinstance(choices[0].get("message"), dict):
            raise self._with_body(
                errors.MalformedResponse(say("choices[0] has no message object.", lang=lang), lang=lang), data
            )
        reason = choices[0].get("finish_reason")
        finished_badly = finish_error(reason, lang) if isinstance(reason, str) else None
        if finished_badly is not None:
            raise self._with_body(finished_badly, data)
        known = isinstance(reason, (str, type(None))) and (reason in _USABLE_FINISH or reason in FINISH_QUIRKS)
        if not known:  # "tool", "eos": see repair.py; a list or an object is unhashable, and no reason
            said = say(
                "Unknown finish_reason {reason!r}: the answer may be incomplete.", lang=lang, reason=str(reason)[:40]
            )
            raise self._with_body(errors.MalformedResponse(said, lang=lang), data)
        result: dict[str, Any] = data
        return result

    def _examine(
        self, message: dict[str, Any], finish_reason: Any, data: dict[str, Any], names: list[Any], lang: Language
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        response_id = f"{data.get('id')}/{data.get('created')}"
        try:
            return examine(
                message,
                finish_reason,
                response_id,
                repair=self.repair,
                tools_offered=bool(names),
                lang=lang,
                tool_names={n for n in names if isinstance(n, str)},
            )
        except errors.APIError as error:
            raise self._with_body(error, data) from None

    def _endpoint(self) -> Endpoint:
        return Endpoint(self.url, self.base_url, self.model, self.key_source)

    def _scrub(self, text: str) -> str:
        # Some servers echo the key (or GigaChat's token) they were given in their error text.
        if self._api_key:
            text = text.replace(self._api_key.value, "[API key]")
        auth: GigaChatToken | None = getattr(self, "_token", None)  # set after the key is checked
        token = auth.token if auth else None
        return text.replace(token, "[access token]") if token else text

    @staticmethod
    def _with_body(error: errors.APIError, body: Any) -> errors.APIError:
        error.response = body if isinstance(body, dict) else None
        return error

    def close(self) -> None:
        self._http.close()


DEFAULT_BASE_URL = "https://api.deepseek.com"
DEFAULT_MODEL = "deepseek-flash"

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


def _url_of(exc: httpx.TransportError) -> str | None:
    try:
        return str(exc.request.url)
    except RuntimeError:  # an error raised without a request
        return None


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
    cleaned = key.strip(" \t\r\n")
    if cleaned != key:
        warnings.warn(
            say(
                "The API key from {source} had spaces, tabs or line breaks around it (a CRLF .env file, or "
                "f.read()); they were removed.",
                lang=lang,
                source=source,
            ),
            stacklevel=3,
        )
    if any(not 32 < ord(c) < 127 for c in cleaned):
        raise errors.APIKeyRefused(
            say(
                "The API key from {source} has a space, tab, line break or other character that cannot go in an HTTP "
                "header inside it. Copy the key again, as one line.",
                lang=lang,
                source=source,
            )
        )
    parts = urlsplit(base_url)
    if cleaned and parts.scheme != "https" and not _on_this_machine(base_url):
        raise errors.APIKeyRefused(
            say(
                "Refusing to send the API key from {source} over plain HTTP to {host!r}: anyone on the way could read "
                "it. Use https, a server on this machine, or api_key='' to send no key.",
                lang=lang,
                source=source,
                host=parts.hostname,
            )
        )
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
