"""A browser's request from another site is refused before it changes anything.

A browser names the page that sent a request in its ``Origin`` header: on every
WebSocket handshake and on every request that is not a plain ``GET``.  A page of another
site may still send requests here (with a player's bearer token it stole, or a cookie a
careless browser gave away): this middleware refuses, with 403 ``foreign_origin``, every
state-changing HTTP request and every table socket whose ``Origin`` is not the site
itself (its scheme-less ``host:port`` equal to the request's ``Host``).  A request with
no ``Origin`` (a program, not a page) goes on: its credentials are its own.

>>> same_site("http://casino.example:8000", "casino.example:8000")
True
>>> same_site("https://evil.example", "casino.example")
False
>>> same_site("null", "casino.example")
False
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["SameOrigin", "same_site"]

#: Methods that only read: a page of any site may send them (CORS keeps it from reading
#: the answer).
_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def same_site(origin: str, host: str) -> bool:
    """Whether a request's ``Origin`` names the site its ``Host`` header names."""
    try:
        return bool(host) and urlsplit(origin).netloc.lower() == host.lower()
    except ValueError:
        return False


class SameOrigin:
    """ASGI middleware: see the module's text."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1"): value for key, value in scope["headers"]}
        origin = headers.get("origin")
        if origin is None or (scope["type"] == "http" and scope["method"] in _SAFE):
            await self.app(scope, receive, send)
            return
        host = headers.get("host", b"").decode("latin-1")
        if same_site(origin.decode("latin-1"), host):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            # Refused before the handshake completes: the browser sees an HTTP 403.
            await send({"type": "websocket.close", "code": 4403, "reason": "foreign origin"})
            return
        body = json.dumps(
            {"error": "foreign_origin", "message": "requests from another site are refused"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
