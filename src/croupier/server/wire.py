"""A table socket's way out: frames encoded once, written to many sockets at once.

What a table announces goes to every socket at the table: to a watcher, the same
bytes as to every other watcher.  Sent through ASGI, each message costs each socket a
task switch, an ``await`` down three layers and its own framing; here it is framed
once (:func:`text_frame`, an unmasked WebSocket frame as a server sends it, RFC 6455
5.2) and written straight to each socket's transport, never waiting.  That needs the
socket's own protocol object (kept by :class:`~croupier.server.transports.KeepTransport`)
to say whether the connection is still open; :func:`wire_of` finds it for uvicorn's
default WebSocket implementation (``websockets``' Sans-I/O protocol) and gives ``None``
for any other, whose sockets are written through ASGI.

A client that stops reading is not waited for either: its bytes pile up in its
transport's buffer, and past :data:`BUFFER_BYTES` (or once nothing of it has gone out
for :data:`~croupier.server.connections.SEND_SECONDS`) the connection is dropped.

>>> text_frame('{"type": "pong"}')
b'\\x81\\x10{"type": "pong"}'
>>> len(text_frame("x" * 200)) - 200  # a longer length takes two more bytes
4
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from websockets.protocol import State

__all__ = ["BUFFER_BYTES", "Outgoing", "Wire", "encode", "text_frame", "wire_of"]

#: Bytes that may wait in one socket's buffer; a client that lets more pile up is
#: dropped (a table's state is a few kilobytes: hundreds of messages).
BUFFER_BYTES = 1 << 20


def encode(message: Any) -> str:
    """A message to a client as JSON text (orjson: a table's state in a tenth of the
    standard library's time; UTF-8, no spaces).

    >>> encode({"type": "balance", "balance": "1000.00"})
    '{"type":"balance","balance":"1000.00"}'
    """
    return orjson.dumps(message).decode()


def text_frame(text: str) -> bytes:
    """``text`` as one WebSocket text frame, as a server sends it (not masked): FIN and
    the text opcode, then the length in 7 bits, or 126 and 2 bytes, or 127 and 8 bytes
    (RFC 6455 5.2).  Written out here: each state to a player behind a box is framed
    for him alone, and ``websockets``' general framing took three times as long.

    >>> from websockets.frames import Frame, Opcode
    >>> text_frame("x" * 70000)[:10] == Frame(Opcode.TEXT, b"x" * 70000).serialize(mask=False)[:10]
    True
    """
    data = text.encode()
    size = len(data)
    if size < 126:
        return bytes((0x81, size)) + data
    if size < 1 << 16:
        return b"\x81\x7e" + size.to_bytes(2, "big") + data
    return b"\x81\x7f" + size.to_bytes(8, "big") + data


class Wire:
    """Writes whole frames to one socket's transport, while its protocol says the
    connection is open (see the module's text)."""

    __slots__ = ("protocol", "transport", "written")

    def __init__(self, protocol: Any, transport: Any) -> None:
        self.protocol = protocol
        self.transport = transport
        #: Bytes written so far (what went out is this less what is still buffered).
        self.written = 0

    def open(self) -> bool:
        """Whether the connection is open: accepted, no close frame sent or received,
        the client still there."""
        protocol = self.protocol
        return bool(
            protocol.handshake_complete
            and not protocol.close_sent
            and not protocol.disconnected
            and protocol.conn.state is State.OPEN
        )

    def buffered(self) -> int:
        """Bytes written but not yet taken by the network."""
        size: int = self.transport.get_write_buffer_size()
        return size

    def write(self, frame: bytes) -> bool:
        """Write ``frame`` if the connection is open (``False``: it is closing, and
        the frame is not sent)."""
        if not self.open():
            return False
        self.transport.write(frame)
        self.written += len(frame)
        return True


class Outgoing:
    """Frames for many sockets, gathered over one pass of the event loop and written at
    its end: one write (one system call) a socket for all it was sent meanwhile.

    A player's command is answered with an acknowledgement, then the events and the
    table's state, then his balance, all in one pass; written as they come, that was
    three system calls on his socket, each about as dear as the rest of its message.

    >>> class Transport:
    ...     def __init__(self) -> None: self.writes: list[bytes] = []
    ...     def write(self, data: bytes) -> None: self.writes.append(data)
    >>> class Open:  # a protocol whose connection is open
    ...     handshake_complete, close_sent, disconnected = True, False, False
    ...     class conn: state = State.OPEN
    >>> async def demo() -> list[bytes]:
    ...     wire, outgoing = Wire(Open(), Transport()), Outgoing()
    ...     outgoing.add(wire, b"ack;")
    ...     outgoing.add(wire, b"events;")
    ...     await asyncio.sleep(0)  # the end of the pass
    ...     return wire.transport.writes
    >>> asyncio.run(demo())
    [b'ack;events;']
    """

    __slots__ = ("_due", "_waiting")

    def __init__(self) -> None:
        self._waiting: dict[Wire, list[bytes]] = {}
        self._due = False

    def add(self, wire: Wire, frames: bytes) -> None:
        """Write ``frames`` to ``wire`` at the end of this pass, after what it was
        given before."""
        waiting = self._waiting.get(wire)
        if waiting is not None:
            waiting.append(frames)
            return
        self._waiting[wire] = [frames]
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self.flush)

    def discard(self, wire: Wire) -> None:
        """Forget what waits for ``wire`` (its connection is being cut off)."""
        self._waiting.pop(wire, None)

    def flush(self, wire: Wire | None = None) -> None:
        """Write what waits (``wire``: for that socket alone, now)."""
        if wire is not None:
            frames = self._waiting.pop(wire, None)
            if frames:
                wire.write(b"".join(frames))
            return
        self._due = False
        waiting, self._waiting = self._waiting, {}
        for each, frames in waiting.items():
            each.write(frames[0] if len(frames) == 1 else b"".join(frames))


def wire_of(protocol: Any, transport: Any) -> Wire | None:
    """A :class:`Wire` for an accepted socket served by ``protocol`` over
    ``transport``, or ``None`` where frames cannot be written around it (another
    server or WebSocket implementation, or a socket that compresses its messages).

    >>> wire_of(None, None) is None
    True
    """
    if protocol is None or transport is None or not hasattr(transport, "write"):
        return None
    connection = getattr(protocol, "conn", None)
    sans_io = isinstance(getattr(connection, "state", None), State) and all(
        hasattr(protocol, name) for name in ("handshake_complete", "close_sent", "disconnected")
    )
    if not sans_io or getattr(connection, "extensions", None):
        return None
    wire = Wire(protocol, transport)
    return wire if wire.open() else None
