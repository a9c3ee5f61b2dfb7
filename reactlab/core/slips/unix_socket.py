"""A base URL that names a unix socket: ``unix:/path/to/server.sock:/v1``.

A port on 127.0.0.1 is open to every user of the machine: another user can bind it before the server
does, answer in its place, and receive what the client sends. A unix socket in a folder only its owner
can write in is out of their reach: they can neither put a socket of their own there nor replace ours.
llama-server listens on one when its ``--host`` ends in ``.sock`` (``llama_server.py`` starts it so,
in a new folder of mode 0700 that no one else can even enter).

The base URL names the socket, then the path of the API behind it, as nginx writes it
(``unix:SOCKET:PATH``; the socket's path holds no colon). Before each request the transport checks
that the way to the socket is still private: every folder on it belongs to this user or to root, and no
one else can write in it (above the socket's own folder a sticky one such as /tmp is fine: there no
one can move what is not theirs). So a base URL kept after its server has stopped and its folder is
gone cannot lead to a socket another user made at the same path. The host in the requests' URL is a
name that resolves nowhere: a transport that does not go through the socket fails instead of reaching
whoever listens on some TCP port.
"""

from __future__ import annotations

import os
import stat

import httpx

from ..language import Language, say

__all__ = ["SCHEME", "open_to_others", "request_url", "socket_path", "transport_for"]

SCHEME = "unix:"
_NOWHERE = "http://unix-socket.invalid"  # .invalid never resolves (RFC 6761)


def socket_path(base_url: str, lang: Language | None = None) -> str | None:
    """The socket a ``unix:`` base URL names; None for any other URL. ValueError if it names none."""
    if not base_url.startswith(SCHEME):
        return None
    socket, _, path = base_url.removeprefix(SCHEME).partition(":")
    if not socket.startswith("/") or (path and not path.startswith("/")):
        raise ValueError(
            say(
                "A base URL on a unix socket is unix:/absolute/path/to/server.sock:/v1, not {url!r}.",
                lang=lang,
                url=base_url[:200],
            )
        )
    return socket


def request_url(url: str) -> str:
    """Where httpx sends a request for ``url``: the same URL, or for a ``unix:`` URL the path after
    the socket on a host that exists nowhere (the transport goes through the socket)."""
    if not url.startswith(SCHEME):
        return url
    return _NOWHERE + url.removeprefix(SCHEME).partition(":")[2]


def transport_for(base_url: str | None) -> httpx.HTTPTransport:
    """httpx's transport to the server at ``base_url``: through its socket for a ``unix:`` URL.
    Wrap it to record: ``RecordingTransport(transport_for(base_url))``."""
    socket = socket_path(base_url or "")
    return _PrivateSocket(socket) if socket else httpx.HTTPTransport()


class _PrivateSocket(httpx.HTTPTransport):
    """Connects through the socket, by its real path, only while no one else could have put it there."""

    def __init__(self, socket: str) -> None:
        self.socket = os.path.realpath(socket)  # the links on the way resolved once, then checked
        super().__init__(uds=self.socket)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        problem = open_to_others(os.path.dirname(self.socket))
        if problem:
            raise httpx.ConnectError(problem, request=request)
        return super().handle_request(request)


def open_to_others(folder: str) -> str | None:
    """Why another user could have put a socket in this folder, or None: a folder on the way that is
    not this user's or root's, or that others may write in (a sticky one above the first is fine)."""
    sticky_allowed = False
    while True:
        try:
            info = os.stat(folder)
        except OSError as error:
            return f"{folder}: {error.strerror}"  # gone: whoever makes it again is not asked
        if info.st_uid not in (0, os.geteuid()):
            return f"{folder} belongs to uid {info.st_uid}, not to this user: another user's socket may be there"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not (sticky_allowed and info.st_mode & stat.S_ISVTX):
            return f"others may write in {folder}: another user's socket may be there"
        if folder == "/":
            return None
        folder, sticky_allowed = os.path.dirname(folder), True
