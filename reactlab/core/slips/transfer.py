"""How an answer arrives when it does not simply arrive: streamed although the request said
``stream: false``, trickling keep-alive bytes past the deadline, or larger than any chat.completion.
The client reads every answer through ``read_whole``."""

from __future__ import annotations

import time

import httpx

from .. import errors
from ..language import Language, decimal, say

__all__ = ["MAX_BODY_BYTES", "read_whole", "streamed"]

MAX_BODY_BYTES = 16 * 1024 * 1024
"""A chat.completion of 800 tokens is a few kilobytes; anything near this is not one."""


def read_whole(response: httpx.Response, url: str, started: float, deadline: float, lang: Language) -> bytes:
    """The whole body, read within ``deadline`` seconds since ``started`` in total (checked as each
    piece arrives: a trickle of keep-alive bytes never trips a read timeout) and ``MAX_BODY_BYTES``."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        raise errors.StreamedAnswer(streamed(url, response.status_code, lang), lang=lang)
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
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
    return b"".join(chunks)


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
