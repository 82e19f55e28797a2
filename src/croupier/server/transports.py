"""Each table socket's own network transport, so that a client dropped for not reading
is cut off at once.

Closing a WebSocket politely sends a close frame and waits for the buffered bytes to
go out: to a client that stopped reading, they never do, and the connection kept its
file descriptor and over a megabyte of kernel buffer until TCP gave up.  A dropped
client's transport is aborted instead.  ASGI does not hand the transport to the
application; uvicorn's ``send`` is a method of its protocol object, which holds it, so
this middleware, outermost, keeps it in the connection's scope, with the protocol
itself (:mod:`croupier.server.wire` writes a table's frames around ASGI through it).

>>> class Protocol:
...     transport = "the transport"
...     async def send(self, message: object) -> None: ...
>>> transport_of({"croupier.transport": Protocol().transport})
'the transport'
>>> transport_of({}) is None
True
>>> protocol_of({}) is None
True
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["KeepTransport", "protocol_of", "transport_of"]

_KEY = "croupier.transport"
_PROTOCOL = "croupier.protocol"


def transport_of(scope: Any) -> Any:
    """The network transport a socket's scope was given (``None`` if unknown)."""
    return scope.get(_KEY)


def protocol_of(scope: Any) -> Any:
    """The server's protocol object behind a socket's scope (``None`` if unknown)."""
    return scope.get(_PROTOCOL)


class KeepTransport:
    """ASGI middleware: a WebSocket's transport, where the server's ``send`` has one,
    kept in its scope (see the module's text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            protocol = getattr(send, "__self__", None)
            transport = getattr(protocol, "transport", None)
            if transport is not None and hasattr(transport, "abort"):
                scope[_KEY] = transport
                scope[_PROTOCOL] = protocol
        await self.app(scope, receive, send)
