"""How an answer arrives when it does not simply arrive: streamed although the request said
``stream: false``, trickling keep-alive bytes past the deadline, larger than any chat.completion, cut
off mid-way, in a Content-Encoding that does not decode, or over TLS signed by an authority this
machine does not trust. The client reads every answer through ``read_whole``."""

from __future__ import annotations

import os
import ssl
import time
from collections.abc import Callable

import certifi  # httpx's own dependency
import httpx

from .. import errors
from ..language import Language, decimal, say

__all__ = ["MAX_BODY_BYTES", "as_sent", "connection_error", "decoded", "read_whole", "streamed", "trusted"]

MAX_BODY_BYTES = 16 * 1024 * 1024
"""A chat.completion of 800 tokens is a few kilobytes; anything near this is not one."""
_PIECE = 16384


def read_whole(
    response: httpx.Response, url: str, started: float, deadline: float, scrub: Callable[[str], str], lang: Language
) -> tuple[int, httpx.Headers, bytes]:
    """Status, headers and the whole body as it was sent (``decoded`` undoes its Content-Encoding),
    read within ``deadline`` seconds since ``started`` in total (checked as each piece arrives: a trickle
    of keep-alive bytes never trips a read timeout) and ``MAX_BODY_BYTES``."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        raise errors.StreamedAnswer(streamed(url, response.status_code, lang), lang=lang)
    if response.is_stream_consumed:  # built in memory (a replay, a test's mock): read and decoded already
        headers = response.headers.copy()
        headers.pop("content-encoding", None)
        return response.status_code, headers, response.content
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_raw():
            chunks.append(chunk)
            size += len(chunk)
            elapsed = time.monotonic() - started
            if elapsed > deadline:
                said = say(
                    "No complete answer from {url} within the total deadline of {deadline} s: after {elapsed} s the "
                    "server had sent {size} bytes and was still sending.",
                    lang=lang,
                    url=url,
                    deadline=decimal(deadline, "g", lang),
                    elapsed=decimal(elapsed, ".1f", lang),
                    size=size,
                )
                raise errors.APITimeout(said, lang=lang)
            if size > MAX_BODY_BYTES:
                said = say(
                    "The answer from {url} is larger than {limit} bytes: not a chat.completion.",
                    lang=lang,
                    url=url,
                    limit=MAX_BODY_BYTES,
                )
                raise errors.MalformedResponse(said, lang=lang)
    except httpx.TransportError as exc:
        if not size or isinstance(exc, httpx.TimeoutException):
            raise
        said = say(
            "The connection to {url} closed after {size} bytes, before the whole answer came: {reason}.",
            lang=lang,
            url=url,
            size=size,
            reason=(scrub(str(exc)) or type(exc).__name__)[:200],
        )
        raise errors.APIConnectionError(said, lang=lang) from None
    return response.status_code, response.headers, b"".join(chunks)


def streamed(url: str, status: int, lang: Language) -> str:
    """What an event stream means where the request asked for a whole answer."""
    return say(
        "The server at {url} streamed its answer (text/event-stream, status {status}) although the request "
        "said stream: false. reactlab reads whole answers only: check the server's or proxy's settings (some "
        "ignore stream: false).",
        lang=lang,
        url=url,
        status=status,
    )


def connection_error(exc: httpx.TransportError, url: str, reason: str, lang: Language) -> errors.APIError:
    """What a connection that failed before any answer means: an untrusted certificate, or no connection."""
    if _untrusted(exc):
        host = httpx.URL(url).host or url
        russian = ""
        if host.endswith(".sberbank.ru"):
            russian = say(
                " GigaChat's hosts use the Russian Trusted Root CA, which certifi does not hold: download "
                "russian_trusted_root_ca_pem.crt from https://www.gosuslugi.ru/crt and pass that file.",
                lang=lang,
            )
        said = say(
            "The TLS certificate of {host} is not signed by an authority trusted here ({reason}), so nothing was "
            "sent. Verification stays on: pass the authority's certificate as a PEM file, "
            "DeepSeekClient(..., ca_bundle=PATH) or REACTLAB_CA_BUNDLE=PATH.{russian}",
            lang=lang,
            host=host,
            reason=reason[:200],
            russian=russian,
        )
        return errors.UntrustedCertificate(said, lang=lang)
    said = say(
        "Could not reach {url}: {reason}. Check the network and base_url, or work offline with a cassette.",
        lang=lang,
        url=url,
        reason=reason,
    )
    return errors.APIConnectionError(said, lang=lang)


def decoded(raw: bytes, headers: httpx.Headers) -> tuple[bytes, str | None]:
    """The body with its Content-Encoding undone, or the bytes as they came and why they do not decode
    (a proxy's error page marked gzip but sent plain). Decoded in pieces, each bounded: a small gzip
    cannot grow past MAX_BODY_BYTES."""
    encoding = headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        return raw, None
    pieces = (raw[i : i + _PIECE] for i in range(0, len(raw), _PIECE))
    decoding = httpx.Response(200, headers=as_sent(headers, b"content-encoding"), content=pieces)
    out: list[bytes] = []
    size = 0
    try:
        for chunk in decoding.iter_bytes():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                return raw, f"it grows past {MAX_BODY_BYTES} bytes"
            out.append(chunk)
    except httpx.DecodingError as exc:
        return raw, str(exc)
    return b"".join(out), None


def _untrusted(exc: BaseException) -> bool:
    """Whether the failure is a TLS certificate this machine does not trust, anywhere in its causes."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def trusted(ca_bundle: str | os.PathLike[str] | None, lang: Language | None) -> ssl.SSLContext | bool:
    """certifi's authorities, and those in ``ca_bundle`` (a PEM file) when one is given. Never unverified."""
    if ca_bundle is None:
        return True
    context = ssl.create_default_context(cafile=certifi.where())
    try:
        context.load_verify_locations(cafile=os.fspath(ca_bundle))
    except (OSError, ssl.SSLError) as exc:
        said = say(
            "The CA bundle {path!r} cannot be read as PEM certificates: {reason}.",
            lang=lang,
            path=str(ca_bundle)[:200],
            reason=exc,
        )
        raise ValueError(said) from None
    return context


def as_sent(headers: httpx.Headers, name: bytes) -> list[tuple[bytes, bytes]]:
    """Header ``name`` in the server's own bytes: given back as text, a byte past 127 (which HTTP
    allows) was encoded again as ASCII, and failed."""
    return [(key, value) for key, value in headers.raw if key.lower() == name]
