"""GigaChat's access token: exchanged for the authorization key, kept 30 minutes, renewed before it ends.

GigaChat's chat API takes no API key. The project's *authorization key* (Base64 of Client ID:Client
Secret, shown in Sber's console) goes to Sber's OAuth server with a scope (``GIGACHAT_API_PERS`` for a
person, ``GIGACHAT_API_B2B`` or ``GIGACHAT_API_CORP`` for a business: ``GIGACHAT_SCOPE``) and a fresh
``RqUID``; it answers with an access token and the moment it ends (``expires_at``, in milliseconds, 30
minutes on). The token goes to the chat API as ``Authorization: Bearer``. ``GigaChatToken`` does that for
httpx: before each request it asks for a new token when it has none or when the one it has ends within
``RENEW_BEFORE`` seconds.

The authorization key goes to the OAuth server only, the token to the chat server only; the client
scrubs both out of every error text. Both servers' certificates chain to the Russian Trusted Root CA,
which certifi lacks: ``DeepSeekClient(ca_bundle=...)`` says how to trust it (client.py).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Generator

import httpx

from .. import errors
from ..language import Language, say
from .http_errors import page_reason

__all__ = ["GigaChatToken", "RENEW_BEFORE", "SCOPES", "TOKEN_URL", "scope_from_environment"]

TOKEN_URL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"
SCOPES = ("GIGACHAT_API_PERS", "GIGACHAT_API_B2B", "GIGACHAT_API_CORP")
RENEW_BEFORE = 60.0
"""Seconds before its end at which a token is replaced: a request never leaves with a token about to lapse."""


def scope_from_environment(lang: Language | None) -> str:
    """``GIGACHAT_SCOPE`` (the name Sber's SDK and gpt2giga read too), GIGACHAT_API_PERS when unset."""
    scope = os.environ.get("GIGACHAT_SCOPE", "").strip() or SCOPES[0]
    if scope not in SCOPES:
        raise ValueError(
            say(
                "GIGACHAT_SCOPE is GIGACHAT_API_PERS, GIGACHAT_API_B2B or GIGACHAT_API_CORP, not {scope!r}.",
                lang=lang,
                scope=scope[:40],
            )
        )
    return scope


class GigaChatToken(httpx.Auth):
    """Puts a current access token on each request, asking the OAuth server for one when needed."""

    def __init__(
        self, key: str, token_url: str, scope: str, where: str, scrub: Callable[[str], str], lang: Language | None
    ) -> None:
        self._key = key
        self.token_url, self.scope, self.where = token_url, scope, where
        self.scrub, self.lang = scrub, lang
        self.token: str | None = None
        self.expires = 0.0

    def __repr__(self) -> str:
        return f"GigaChatToken(token_url={self.token_url!r}, scope={self.scope!r})"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self.token is None or time.time() > self.expires - RENEW_BEFORE:
            response = yield self._token_request()
            response.read()  # this one only: the chat answer is read by the client, within its deadline
            self._take(response)
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request

    def _token_request(self) -> httpx.Request:
        headers = {"Authorization": f"Basic {self._key}", "RqUID": str(uuid.uuid4()), "Accept": "application/json"}
        return httpx.Request("POST", self.token_url, headers=headers, data={"scope": self.scope})

    def _take(self, response: httpx.Response) -> None:
        text = self.scrub(response.content[:65536].decode("utf-8", errors="replace"))
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if response.status_code != 200:
            reason = data.get("message") if isinstance(data, dict) else None
            reason = " ".join(str(reason or page_reason(text)).split())[:300] or say("no details", lang=self.lang)
            said = say("({said}): {reason}", lang=self.lang, said=response.status_code, reason=reason)
            if response.status_code >= 500:
                raise errors.ServerError(
                    say("The server failed {said}. Wait a moment.", lang=self.lang, said=said),
                    status=response.status_code,
                    lang=self.lang,
                )
            message = say(
                "GigaChat's OAuth server refused the authorization key {said}. Check {where} (the project's "
                "authorization key, not its Client Secret) and the scope {scope} (GIGACHAT_SCOPE: GIGACHAT_API_PERS, "
                "GIGACHAT_API_B2B or GIGACHAT_API_CORP).",
                lang=self.lang,
                said=said,
                where=self.where,
                scope=self.scope,
            )
            raise errors.AuthenticationFailed(message, status=response.status_code, lang=self.lang)
        token = data.get("access_token") if isinstance(data, dict) else None
        expires = data.get("expires_at") if isinstance(data, dict) else None
        usable = isinstance(token, str) and token and all(32 < ord(c) < 127 for c in token)
        if not usable or not isinstance(expires, int) or isinstance(expires, bool):
            said = say(
                "GigaChat's OAuth server answered {status} without a usable access_token and expires_at.",
                lang=self.lang,
                status=response.status_code,
            )
            raise errors.MalformedResponse(said, lang=self.lang)
        self.token, self.expires = str(token), expires / 1000
