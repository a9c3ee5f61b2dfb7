"""DeepSeekClient: one chat-completions request over httpx, with typed failures."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from . import errors

__all__ = ["Completion", "DEFAULT_BASE_URL", "DEFAULT_MODEL", "DeepSeekClient"]

DEFAULT_BASE_URL = "https://api.deepseek.com"
DEFAULT_MODEL = "deepseek-flash"

# finish_reason values that still carry a usable message.
_USABLE_FINISH = {"stop", "tool_calls", None}
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
}


class _Secret:
    """Holds the key so that no repr, vars() or traceback with locals ever shows it."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<hidden>"


@dataclass(frozen=True)
class Completion:
    """The body sent and the chat.completion body received."""

    request: dict[str, Any]
    response: dict[str, Any]

    @property
    def message(self) -> dict[str, Any]:
        message: dict[str, Any] = self.response["choices"][0]["message"]
        return message

    @property
    def finish_reason(self) -> str | None:
        reason: str | None = self.response["choices"][0].get("finish_reason")
        return reason

    @property
    def usage(self) -> dict[str, Any]:
        return dict(self.response.get("usage") or {})


class DeepSeekClient:
    """POST {base_url}/chat/completions. Works with any OpenAI-compatible server by base URL.

    The key comes from ``api_key`` or ``DEEPSEEK_API_KEY`` and travels only in the
    Authorization header. Pass ``transport`` (an httpx transport) to replay or record offline.
    There are no automatic retries: an API failure ends the attempt.
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        model: str | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 60.0,
        max_tokens: int = 800,
        temperature: float = 0,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("DEEPSEEK_API_KEY", "")
        self._api_key = _Secret(key) if key else None
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.model = model or DEFAULT_MODEL
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.Client(transport=transport, timeout=timeout, headers=headers)

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def is_deepseek(self) -> bool:
        host = urlsplit(self.base_url).hostname or ""
        return host == "deepseek.com" or host.endswith(".deepseek.com")

    def __repr__(self) -> str:
        key = "set" if self._api_key else "not set"
        return f"DeepSeekClient(base_url={self.base_url!r}, model={self.model!r}, api_key={key})"

    def request_body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "tools": tools}
        if self.is_deepseek:  # other OpenAI-compatible servers reject or ignore this field
            body["thinking"] = {"type": "disabled"}
        body.update(tool_choice="auto", temperature=self.temperature, max_tokens=self.max_tokens, stream=False)
        return body

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """Send the history and tool definitions; return the assistant message."""
        return self.send(messages, tools).message

    def send(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        """Like ``complete``, but return the whole exchange (for the run record)."""
        body = self.request_body(messages, tools)
        try:
            try:
                response = self._http.post(self.url, json=body)
            except httpx.TimeoutException as exc:
                raise errors.APITimeout(
                    f"No answer from {self.url} within {self.timeout:g} s ({type(exc).__name__})."
                ) from None
            except httpx.TransportError as exc:
                raise errors.APIConnectionError(
                    f"Could not reach {self.url}: {self._scrub(str(exc)) or type(exc).__name__}. "
                    "Check the network and base_url, or work offline with a cassette."
                ) from None
            return Completion(body, self._parse(response))
        except errors.APIError as error:
            error.request = body
            raise

    def _parse(self, response: httpx.Response) -> dict[str, Any]:
        if response.status_code != 200:
            raise self._status_error(response)
        try:
            data = json.loads(self._scrub(response.text))  # a server that echoes the key must not plant it
        except ValueError:
            raise errors.MalformedResponse(
                f"The server answered 200 but the body is not JSON ({len(response.content)} bytes): "
                f"{self._scrub(response.text[:200])!r}."
            ) from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._with_body(errors.MalformedResponse("The body has no choices[0]: not a chat.completion."), data)
        if not isinstance(choices[0].get("message"), dict):
            raise self._with_body(errors.MalformedResponse("choices[0] has no message object."), data)
        reason = choices[0].get("finish_reason")
        if reason in _FINISH_ERRORS:
            kind, text = _FINISH_ERRORS[reason]
            raise self._with_body(kind(text), data)
        if reason not in _USABLE_FINISH:
            raise self._with_body(
                errors.MalformedResponse(f"Unknown finish_reason {str(reason)[:40]!r}: the answer may be incomplete."),
                data,
            )
        result: dict[str, Any] = data
        return result

    def _status_error(self, response: httpx.Response) -> errors.APIError:
        status = response.status_code
        detail = self._provider_message(response)
        if status in (400, 422):
            return errors.BadRequest(
                f"The server rejected the request ({status}): {detail}. "
                "Fix the request: message order, tool messages right after their call, parameters.",
                status=status,
            )
        if status == 401:
            return errors.AuthenticationFailed(
                f"The API key was refused (401): {detail}. Set DEEPSEEK_API_KEY to a valid key.", status=status
            )
        if status == 402:
            return errors.InsufficientBalance(
                f"The account has no balance left (402): {detail}. Top up, or replay a cassette offline.",
                status=status,
            )
        if status == 429:
            return errors.RateLimited(
                f"Rate limit reached (429): {detail}. Wait before the next run; in class, replay a cassette.",
                status=status,
            )
        if status >= 500:
            return errors.ServerError(f"The server failed ({status}): {detail}. Wait a moment.", status=status)
        return errors.UnexpectedStatus(
            f"Unexpected HTTP status {status} from {self.url}: {detail}. Check base_url.", status=status
        )

    def _provider_message(self, response: httpx.Response) -> str:
        try:
            text = str(response.json()["error"]["message"])
        except (ValueError, KeyError, TypeError):
            text = response.text
        return self._scrub(" ".join(text.split())[:300]) or "no details"

    def _scrub(self, text: str) -> str:
        # Some servers echo the key they were given in their error text.
        return text.replace(self._api_key.value, "[API key]") if self._api_key else text

    @staticmethod
    def _with_body(error: errors.APIError, body: Any) -> errors.APIError:
        error.response = body if isinstance(body, dict) else None
        return error

    def close(self) -> None:
        self._http.close()
