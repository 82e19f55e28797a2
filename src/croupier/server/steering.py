"""Each table's sockets at the worker that runs the table: a connection that lands on
another worker of the same ``croupier serve --workers N`` is handed to it whole.

The workers share one listening socket, and the kernel gives each new connection to
any of them.  A table is run by one worker (:mod:`croupier.server.cluster`); a player
whose socket landed on another was served through the bus (every command sent to the
table's owner and answered back, every announcement sent to every worker), which
cost more CPU than a second worker gained.  So a new connection is read as far as its
request line first.  If it asks for a table's socket (``GET /ws/tables/<id>``) and
another worker of this machine runs that table, its descriptor is passed to that
worker over a Unix socket (``SCM_RIGHTS``), with the bytes read so far; the worker
serves it as if it had accepted it itself.  Nothing was answered before: the client
sees one server.

Handing over is a shortcut, never a condition: whenever it cannot be done (the owner
is unknown, on another machine, or does not take the descriptor) the connection is
served where it landed, through the bus, as before.  A table that moves later leaves
its sockets where they are, served through the bus.

The workers' Unix sockets live in a directory that only the user who started the
server may enter (``CROUPIER_STEER_DIR``, made by the supervisor), one a worker,
named by its process id.

>>> requested_table(b"GET /ws/tables/rws-v5 HTTP/1.1\\r\\nHost: x\\r\\n")
'rws-v5'
>>> requested_table(b"GET /ws/tables/rws?x=1 HTTP/1.1\\r\\n"), requested_table(b"GET /api HTTP/1.1")
('rws', None)
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import logging
import os
import re
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

__all__ = ["STEER_DIR", "Steering", "requested_table", "steered_protocol"]

_log = logging.getLogger("croupier.server")

#: The environment variable naming the workers' directory of Unix sockets.
STEER_DIR = "CROUPIER_STEER_DIR"
#: The most bytes read before a connection's request line is known (else it stays).
HEAD_BYTES = 8192

_TABLE_SOCKET = re.compile(rb"GET /ws/tables/([^/?# ]+)[ ?#]")


def requested_table(head: bytes) -> str | None:
    """The table whose socket a connection's first bytes ask for (``None``: another
    request, or not a whole request line yet)."""
    found = _TABLE_SOCKET.match(head)
    if found is None:
        return None
    return unquote(found.group(1).decode("latin-1"))


def supported() -> bool:
    """Whether this platform passes descriptors between processes (Linux does)."""
    return hasattr(socket, "recv_fds") and hasattr(socket, "SCM_RIGHTS")


class Steering:
    """This worker's end of the hand-over: its Unix socket, and its connections to the
    other workers' (kept open: a burst of new players costs no connection each).

    Sequenced packets (``SOCK_SEQPACKET``): each hand-over is one message, the bytes
    read so far and the descriptor, and a crowd arriving at once waits in the socket's
    buffer (datagrams would wait in a queue of 10, Linux's default).

    Args:
        directory: the workers' directory of Unix sockets.
        owner_of: the process id of the worker of this machine that runs a table
            (``None``: unknown, this one, or not of this machine).
        pid: this worker's process id (the tests give two in one process).
    """

    def __init__(
        self,
        directory: Path,
        owner_of: Callable[[str], int | None],
        *,
        pid: int | None = None,
    ) -> None:
        self.directory = directory
        self.owner_of = owner_of
        self.pid = os.getpid() if pid is None else pid
        self.path = directory / f"{self.pid}.sock"
        self._listener: socket.socket | None = None
        self._from: set[socket.socket] = set()
        self._to: dict[int, socket.socket] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._factory: Callable[[], asyncio.Protocol] | None = None
        self._serving: set[asyncio.Task[Any]] = set()
        #: Connections handed to another worker, and taken from one.
        self.handed = 0
        self.taken = 0

    # -- taking ---------------------------------------------------------------------------------

    def start(self, factory: Callable[[], asyncio.Protocol]) -> None:
        """Take the connections other workers hand over, each served by a protocol
        from ``factory`` (the server's own), on the running loop."""
        self._loop = asyncio.get_running_loop()
        self._factory = factory
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(str(self.path))
        listener.listen(64)
        listener.setblocking(False)
        self._listener = listener
        self._loop.add_reader(listener.fileno(), self._accept)

    def stop(self) -> None:
        """Take no more, and hand no more (a hand-over to this worker then fails, and
        the connection stays where it landed)."""
        for peer in [*self._from, *self._to.values()]:
            self._close(peer)
        self._from.clear()
        self._to.clear()
        if self._listener is None:
            return
        self._close(self._listener)
        self._listener = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _close(self, peer: socket.socket) -> None:
        if self._loop is not None and peer.fileno() >= 0:
            self._loop.remove_reader(peer.fileno())
        peer.close()

    def _accept(self) -> None:
        assert self._listener is not None and self._loop is not None
        while True:
            try:
                peer, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                _log.warning("steering: a worker's connection could not be taken: %s", error)
                return
            peer.setblocking(False)
            self._from.add(peer)
            self._loop.add_reader(peer.fileno(), self._take, peer)

    def _take(self, peer: socket.socket) -> None:
        assert self._loop is not None
        while True:
            try:
                head, descriptors, flags, _ = socket.recv_fds(peer, HEAD_BYTES, 1)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                _log.warning("steering: a hand-over could not be read: %s", error)
                head, descriptors, flags = b"", [], 0
            if not head and not descriptors:  # the other worker is gone
                self._from.discard(peer)
                self._close(peer)
                return
            if not descriptors:
                continue
            connection = socket.socket(fileno=descriptors[0])
            if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or (
                connection.type != socket.SOCK_STREAM
            ):
                connection.close()
                continue
            connection.setblocking(False)
            task = self._loop.create_task(self._serve(connection, head))
            self._serving.add(task)
            task.add_done_callback(self._serving.discard)

    async def _serve(self, connection: socket.socket, head: bytes) -> None:
        assert self._loop is not None and self._factory is not None
        factory = self._factory
        try:
            await self._loop.connect_accepted_socket(lambda: _Primed(factory(), head), connection)
        except OSError as error:  # the client left meanwhile
            _log.info("steering: a handed-over connection could not be served: %s", error)
            connection.close()
            return
        self.taken += 1

    # -- handing --------------------------------------------------------------------------------

    def hand_over(self, table: str, transport: asyncio.BaseTransport, head: bytes) -> bool:
        """Pass the connection of ``transport`` (which has read ``head``) to the worker
        that runs ``table``; whether it was passed (then close the transport here)."""
        pid = self.owner_of(table)
        if pid is None or pid == self.pid or len(head) > HEAD_BYTES:
            return False
        raw = transport.get_extra_info("socket")
        if raw is None:
            return False
        peer = self._to.get(pid)
        try:
            if peer is None:
                peer = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                peer.setblocking(False)
                self._to[pid] = peer
                peer.connect(str(self.directory / f"{pid}.sock"))
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [raw.fileno()]))]
            peer.sendmsg([head], rights)
        except (BlockingIOError, InterruptedError):
            return False  # that worker is behind: served here
        except OSError:  # that worker is gone (or not there yet): connected again next time
            self._to.pop(pid, None)
            if peer is not None:
                peer.close()
            return False
        self.handed += 1
        return True


class _Primed(asyncio.Protocol):
    """The server's protocol for a handed-over connection, first given the bytes the
    other worker had read."""

    def __init__(self, inner: asyncio.Protocol, head: bytes) -> None:
        self.inner = inner
        self.head = head

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.set_protocol(self.inner)
        self.inner.connection_made(transport)
        self.inner.data_received(self.head)


def steered_protocol(inner: type[asyncio.Protocol], steering: Steering) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class ``inner`` behind a first look at each connection:
    a table's socket whose table another worker runs is handed to it (see the module's
    text); any other connection is ``inner``'s from its first byte."""

    class Steered(asyncio.Protocol):
        def __init__(self, **arguments: Any) -> None:
            self.arguments = arguments
            # uvloop's transports are not asyncio.Transport's subclasses.
            self.transport: Any = None
            self.head = b""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport = transport

        def data_received(self, data: bytes) -> None:
            assert self.transport is not None
            self.head += data
            if b"\r\n" not in self.head and len(self.head) < HEAD_BYTES:
                return  # the request line is not whole yet
            table = requested_table(self.head)
            if table is not None and steering.hand_over(table, self.transport, self.head):
                self.transport.abort()  # its descriptor here only: the other worker has it
                return
            served = inner(**self.arguments)
            self.transport.set_protocol(served)
            served.connection_made(self.transport)
            served.data_received(self.head)

        def eof_received(self) -> bool | None:
            return None  # gone before its request line: nothing was served

        def connection_lost(self, exc: Exception | None) -> None:
            self.transport = None

    Steered.__name__ = Steered.__qualname__ = f"Steered{inner.__name__}"
    return Steered


def directory_from(environ: dict[str, str] | os._Environ[str]) -> Path | None:
    """The workers' directory of Unix sockets, where this process is such a worker and
    the platform can hand connections over."""
    named = environ.get(STEER_DIR)
    if not named or not supported():
        return None
    return Path(named)
