"""One WebSocket at a table, and its way out: what the server sends it never waits.

A :class:`Connection` is a table socket as the hub (:mod:`croupier.server.hub`) sees
it: who signed in on it, with which session, and how its messages go out.  With a
:class:`~croupier.server.wire.Wire` (uvicorn's default WebSocket protocol) they are
written straight to the socket's transport, framed once for everyone who gets the same
bytes and gathered into one write a pass of the event loop
(:class:`~croupier.server.wire.Outgoing`); otherwise through ASGI by a task of the
connection's own, from a bounded outbox.  A client that stops reading costs only
itself: it is dropped and its socket cut off.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket

from croupier.server import accounts
from croupier.server.protocol import RateLimiter
from croupier.server.wire import BUFFER_BYTES, Outgoing, Wire, text_frame

__all__ = ["OUTBOX_MESSAGES", "SEND_SECONDS", "Audience", "Connection"]

_log = logging.getLogger("croupier.server")

#: Messages that may wait for one socket; a client that lets more pile up is dropped.
OUTBOX_MESSAGES = 256
#: Seconds one message may take to go out before its socket is dropped.
SEND_SECONDS = 10.0


@dataclass(eq=False)
class Connection:
    """One WebSocket at a table.

    What the server sends it is never waited for: a client that stops reading costs
    only itself.  With a :class:`~croupier.server.wire.Wire` (uvicorn's default
    WebSocket protocol), each message is written at once to the socket's transport,
    framed once for everyone who gets the same bytes; past
    :data:`~croupier.server.wire.BUFFER_BYTES` waiting, or with nothing gone out for
    :data:`SEND_SECONDS` (:meth:`check`), the connection is dropped.  Without one, the
    messages go through a bounded outbox, written through ASGI by a task of the
    connection's own, and a full outbox or a send longer than :data:`SEND_SECONDS`
    drops it.  A dropped connection's handler is cancelled and its socket cut off.
    """

    socket: WebSocket
    table: str
    user: accounts.User | None = None
    #: The session token the user authenticated with: every command is checked against it.
    token: str | None = None
    limiter: RateLimiter = field(default_factory=RateLimiter)
    outbox: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(OUTBOX_MESSAGES))
    #: Why the connection was dropped (None while it is up).
    dropped: str | None = None
    handler: asyncio.Task[Any] | None = None
    writer: asyncio.Task[None] | None = None
    #: The socket's network transport (:mod:`croupier.server.transports`): aborted when
    #: the client is dropped for not reading, so its buffers and descriptor go at once.
    transport: Any = None
    #: The last message's operation and result (``ok`` or an error code), for the
    #: metrics and the log.
    last_op: str = "unknown"
    last_result: str = "ok"
    #: The socket's transport written directly (``None``: through ASGI, by :attr:`writer`).
    wire: Wire | None = None
    #: Where the wire's frames wait for the end of the event loop's pass, to go out in
    #: one write with the others sent it meanwhile (``None``: written at once).
    outgoing: Outgoing | None = None
    #: Since when (the loop's clock) the wire's buffer has held bytes none of which went
    #: out, and how many had gone out then (:meth:`check`).
    _stuck_since: float | None = None
    _sent: int = 0

    def push(self, text: str, frame: bytes | None = None) -> None:
        """Send ``text`` to the client (``frame``: the same, framed already), never
        waiting; a client with too much waiting is dropped."""
        self.push_all((text,), text_frame(text) if frame is None else frame)

    def push_all(self, texts: Sequence[str], frames: bytes) -> None:
        """Send the messages ``texts``, in order (``frames``: the same, framed already
        and joined: one write to the socket for them all), never waiting."""
        if self.dropped is not None:
            return
        wire = self.wire
        if wire is not None:
            if wire.buffered() > BUFFER_BYTES:
                self.drop(f"over {BUFFER_BYTES} bytes waiting: the client is not reading")
                self.cut_off()
                return
            if self.outgoing is not None:
                self.outgoing.add(wire, frames)
            else:
                wire.write(frames)
            return
        for text in texts:
            try:
                self.outbox.put_nowait(text)
            except asyncio.QueueFull:
                self.drop(f"{OUTBOX_MESSAGES} messages waiting: the client is not reading")
                self.cut_off()
                return

    def flush(self) -> None:
        """Write at once what waits for this socket (before a message sent through
        ASGI, or a close, which must follow it)."""
        if self.wire is not None and self.outgoing is not None:
            self.outgoing.flush(self.wire)

    def check(self, now: float) -> None:
        """Drop a client with a wire none of whose waiting bytes went out for
        :data:`SEND_SECONDS` (``now``: the loop's clock; the hub asks every second)."""
        wire = self.wire
        if wire is None or self.dropped is not None:
            return
        waiting = wire.buffered()
        if not waiting:
            self._stuck_since = None
            return
        sent = wire.written - waiting
        if self._stuck_since is None or sent != self._sent:
            self._stuck_since, self._sent = now, sent
        elif now - self._stuck_since > SEND_SECONDS:
            self.drop(f"nothing went out for {SEND_SECONDS:g} s: the client is not reading")
            self.cut_off()

    def drop(self, why: str) -> None:
        """Give up on the client: its handler stops and its socket closes."""
        if self.dropped is not None:
            return
        self.dropped = why
        _log.warning("table %s: connection dropped: %s", self.table, why)
        if self.handler is not None and self.handler is not asyncio.current_task():
            self.handler.cancel()

    def cut_off(self) -> None:
        """Abort the network connection of a client that stopped reading: no close
        frame waits behind bytes it will never read."""
        if self.wire is not None and self.outgoing is not None:
            self.outgoing.discard(self.wire)
        if self.transport is not None:
            self.transport.abort()

    async def write(self) -> None:
        """Send the outbox in order, each message within :data:`SEND_SECONDS`."""
        loop = asyncio.get_running_loop()
        while True:
            text = await self.outbox.get()
            try:
                # One timer moved on at each message, not the task per message that
                # ``wait_for`` makes: a table's fan-out is most of what a server sends.
                async with asyncio.timeout(None) as timer:
                    while True:
                        timer.reschedule(loop.time() + SEND_SECONDS)
                        await self.socket.send_text(text)
                        if self.outbox.empty():
                            break
                        text = self.outbox.get_nowait()
            except TimeoutError:
                self.drop(f"a message took over {SEND_SECONDS:g} s to send")
                self.cut_off()
                return
            except Exception as problem:  # the socket is closing: its handler cleans up
                _log.info("table %s: a message was not sent: %r", self.table, problem)
                return


class Audience:
    """The sockets at one table, and who is signed in on them.

    Who is present is asked at every input (whose balances go out if it ends the
    round) and at every socket that closes (was it the user's last?): kept as the
    sockets come, sign in and go, it costs nothing then, whatever the crowd.

    >>> from croupier.server.accounts import Role, User
    >>> audience, ann = Audience(), User(7, "ann", Role.PLAYER)
    >>> first, second = Connection(None, "rws"), Connection(None, "rws")  # type: ignore[arg-type]
    >>> audience.add(first); audience.add(second)
    >>> audience.sign_in(first, ann); audience.sign_in(second, ann)
    >>> sorted(audience.present()), len(audience)
    ([7], 2)
    >>> audience.discard(first); audience.has(7)
    True
    >>> audience.sign_in(second, None); audience.has(7), audience.present()
    (False, frozenset())
    """

    __slots__ = ("_connections", "_present", "_users")

    def __init__(self) -> None:
        self._connections: set[Connection] = set()
        self._users: dict[int, set[Connection]] = {}
        self._present: frozenset[int] | None = frozenset()

    def __iter__(self) -> Iterator[Connection]:
        return iter(self._connections)

    def __len__(self) -> int:
        return len(self._connections)

    def add(self, connection: Connection) -> None:
        """A socket opened at the table (signed in already, or not yet)."""
        if connection not in self._connections:
            self._connections.add(connection)
            self._count(connection, connection.user, 1)

    def discard(self, connection: Connection) -> None:
        """A socket closed."""
        if connection in self._connections:
            self._connections.remove(connection)
            self._count(connection, connection.user, -1)

    def sign_in(self, connection: Connection, user: accounts.User | None) -> None:
        """``connection`` is now ``user``'s (``None``: signed out)."""
        if connection in self._connections:
            self._count(connection, connection.user, -1)
            self._count(connection, user, 1)
        connection.user = user

    def has(self, user: int) -> bool:
        """Whether the user with the id ``user`` has a socket here."""
        return user in self._users

    def of(self, user: int) -> Collection[Connection]:
        """The sockets here of the user with the id ``user``."""
        return self._users.get(user, ())

    def present(self) -> frozenset[int]:
        """The ids of the users signed in here."""
        if self._present is None:
            self._present = frozenset(self._users)
        return self._present

    def _count(self, connection: Connection, user: accounts.User | None, change: int) -> None:
        if user is None:
            return
        if change > 0:
            self._users.setdefault(user.id, set()).add(connection)
        else:
            theirs = self._users.get(user.id, set())
            theirs.discard(connection)
            if not theirs:
                self._users.pop(user.id, None)
        self._present = None
