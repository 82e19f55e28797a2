"""Messages between the croupier processes that share one PostgreSQL database.

Several ``croupier serve`` processes can run one studio's tables: each table is run by
one process at a time (:mod:`croupier.server.ownership`), and a player connected to any
process plays at any table.  What crosses between them goes through PostgreSQL's own
``LISTEN``/``NOTIFY``:

* a **request** (a command, a seat, a view) to the process that runs a table, on the
  table's channel, which only its owner listens to;
* the owner's **reply**, on the asking process's own channel;
* what the table **announces** (its events and views after every change), on one
  channel every process listens to, each passing it on to its own watchers;
* each process's **audience**: the tables it has sockets at but does not run, on that
  same channel, when a first socket comes and every second after.  An owner announces
  a table only while another process has sockets there (or for a moment after it took
  the table over, before the others have said so): with each table's sockets at its
  owner (:mod:`croupier.server.steering`), nothing crosses.

PostgreSQL rather than a separate broker (Redis pub/sub would do the same): the
processes need the database anyway, its leases already say who runs a table,
and a notification sent in a transaction is delivered at commit, in order, to every
listener, so there is nothing else to run, secure or fail over.  A notification
carries at most 8,000 bytes: a longer message is compressed and, if need be, sent as
several notifications in one transaction, which arrive together and in order.

A request that no process answers within its time (the table's owner has just died,
and another is taking it over) raises :class:`TableUnavailable`; the player's client
sends it again.  A table whose owner is known to be gone is answered so at once,
without a request (:attr:`croupier.server.cluster.Claims.vacant`).

>>> encode({"table": "rws", "n": 1})
['{"table":"rws","n":1}']
>>> [payload[0] for payload in encode({"text": "ab" * 20_000})]  # compressed: one payload
['z']
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import itertools
import json
import logging
import secrets
import zlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from croupier.server.actor import stop_task
from croupier.server.errors import TableUnavailable

__all__ = [
    "ANNOUNCE_CHANNEL",
    "PAYLOAD_BYTES",
    "REQUEST_SECONDS",
    "Bus",
    "TableUnavailable",
    "decode",
    "encode",
    "request_channel",
]

_log = logging.getLogger("croupier.server")

#: The channel every process listens to for what the tables announce.
ANNOUNCE_CHANNEL = "croupier_announce"
#: The longest notification payload sent (PostgreSQL takes fewer than 8,000 bytes).
PAYLOAD_BYTES = 7_900
#: Seconds a request waits for the table's owner to answer.
REQUEST_SECONDS = 5.0
#: Seconds the listening connection waits before it looks for channels to add or drop.
LISTEN_SECONDS = 0.1
#: Seconds between two tries to reconnect a lost listening connection.
RECONNECT_SECONDS = 0.5

Reply = Callable[[dict[str, Any]], Awaitable[None]]
Handler = Callable[[str, dict[str, Any], Reply], Awaitable[dict[str, Any]]]
Listener = Callable[[str, dict[str, Any]], Awaitable[None]]


def request_channel(table: str) -> str:
    """The channel a table's owner listens to for requests (a short, safe name).

    >>> request_channel("rws").startswith("croupier_t_"), len(request_channel("x" * 500))
    (True, 27)
    """
    return "croupier_t_" + hashlib.sha256(table.encode()).hexdigest()[:16]


def encode(message: Mapping[str, Any]) -> list[str]:
    """The payloads that carry ``message``: one, or chunks ``~id:i:n:text`` in order.

    A payload that would pass :data:`PAYLOAD_BYTES` is compressed first (``z`` and
    base64 of zlib) and then cut into chunks.
    """
    text = json.dumps(message, separators=(",", ":"))  # ASCII: one byte a character
    if len(text) <= PAYLOAD_BYTES:
        return [text]
    text = "z" + base64.b64encode(zlib.compress(text.encode(), 6)).decode()
    if len(text) <= PAYLOAD_BYTES:
        return [text]
    size = PAYLOAD_BYTES - 40
    parts = [text[start : start + size] for start in range(0, len(text), size)]
    tag = secrets.token_hex(6)
    return [f"~{tag}:{index}:{len(parts)}:{part}" for index, part in enumerate(parts)]


def decode(payload: str, pending: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """The messages a payload completes: none for a chunk before the last of its message.

    ``pending`` holds the chunks received so far (by the message's tag).
    """
    if payload.startswith("~"):
        if pending is None:
            return []
        tag, index, count, part = payload[1:].split(":", 3)
        parts = pending.setdefault(tag, [])
        if int(index) != len(parts):  # a chunk lost (a reconnect): drop the message
            pending.pop(tag, None)
            return []
        parts.append(part)
        if len(parts) < int(count):
            return []
        payload = "".join(pending.pop(tag))
    if payload.startswith("z"):
        payload = zlib.decompress(base64.b64decode(payload[1:])).decode()
    message = json.loads(payload)
    return [message] if isinstance(message, dict) else []


def _conninfo(url: str) -> str:
    """A libpq connection string from a SQLAlchemy or libpq URL."""
    parsed = make_url(url)
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


class Bus:
    """This process's end of the messages between processes (see the module's text).

    Args:
        url: the PostgreSQL database the processes share.
        process: this process's name on the bus (a random one when omitted).
    """

    def __init__(self, url: str, *, process: str | None = None) -> None:
        self.url = _conninfo(url)
        self.process = process or secrets.token_hex(8)
        self._handlers: dict[str, tuple[str, Handler]] = {}
        self._listeners: list[Listener] = []
        self._audiences: list[Callable[[str, list[str]], None]] = []
        self._waiting: dict[int, tuple[asyncio.Future[dict[str, Any]], Callable[..., None]]] = {}
        self._ids = itertools.count(1)
        self._send: psycopg.AsyncConnection[Any] | None = None
        self._send_lock = asyncio.Lock()
        self._listen: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._channels: set[str] = set()

    @property
    def reply_channel(self) -> str:
        """The channel this process hears its replies on."""
        return f"croupier_p_{self.process}"

    # -- running ---------------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect and listen; returns once this process hears the bus."""
        self._ready = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="croupier bus")
        await self._ready.wait()

    async def stop(self) -> None:
        """Stop listening and close the connections; requests still waiting fail."""
        await stop_task(self._task)
        self._task = None
        for connection in (self._send, self._listen):
            if connection is not None:
                with contextlib.suppress(psycopg.Error):
                    await connection.close()
        self._send = self._listen = None
        for future, _ in self._waiting.values():
            if not future.done():
                future.set_exception(TableUnavailable("the server is stopping"))
        self._waiting.clear()

    async def _run(self) -> None:
        while True:
            try:
                await self._listen_once()
            except (psycopg.Error, OSError) as error:
                _log.warning("bus: connection lost (%s); reconnecting", error)
            self._listen = None
            await asyncio.sleep(RECONNECT_SECONDS)

    async def _listen_once(self) -> None:
        connection = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        self._listen = connection
        async with connection:
            self._channels = set()
            pending: dict[str, list[str]] = {}
            while True:
                # The connection is busy while it waits for notifications: channels
                # are added and dropped between two waits.
                wanted = {ANNOUNCE_CHANNEL, self.reply_channel, *self._handlers}
                for channel in sorted(wanted - self._channels):
                    await connection.execute(f'LISTEN "{channel}"')
                for channel in sorted(self._channels - wanted):
                    await connection.execute(f'UNLISTEN "{channel}"')
                self._channels = wanted
                self._ready.set()
                async for notice in connection.notifies(timeout=LISTEN_SECONDS):
                    for message in decode(notice.payload, pending):
                        await self._dispatch(notice.channel, message)

    async def _dispatch(self, channel: str, message: dict[str, Any]) -> None:
        kind = message.get("k")
        try:
            if kind == "reply":
                waiting = self._waiting.pop(int(message["id"]), None)
                if waiting is not None and not waiting[0].done():
                    # Said at once, before the next notification (its announcement).
                    waiting[1](message["body"])
                    waiting[0].set_result(message["body"])
            elif kind == "request":
                served = self._handlers.get(channel)
                if served is not None:
                    asyncio.get_running_loop().create_task(self._serve(served, message))
            elif kind == "announce" and message.get("from") != self.process:
                for listener in self._listeners:
                    await listener(str(message["table"]), message["body"])
            elif kind == "audience" and message.get("from") != self.process:
                for heard in self._audiences:
                    heard(str(message["from"]), [str(table) for table in message["tables"]])
        except Exception:
            _log.exception("bus: a %s message could not be handled", kind)

    async def _serve(self, served: tuple[str, Handler], message: dict[str, Any]) -> None:
        table, handler = served
        replied = False

        async def reply(body: dict[str, Any]) -> None:
            nonlocal replied
            if not replied:
                replied = True
                answer = {"k": "reply", "id": message["id"], "body": body}
                await self.notify(str(message["reply"]), answer)

        # The handler may reply early (before the table announces what it did).
        await reply(await handler(table, message["body"], reply))

    # -- sending ---------------------------------------------------------------------------------

    async def notify(self, channel: str, message: Mapping[str, Any]) -> None:
        """Send ``message`` on ``channel`` (chunks in one transaction, in order)."""
        payloads = encode(message)
        async with self._send_lock:
            for attempt in (1, 2):
                try:
                    connection = self._send
                    if connection is None or connection.closed:
                        connection = await psycopg.AsyncConnection.connect(
                            self.url, autocommit=True
                        )
                        self._send = connection
                    if len(payloads) == 1:
                        await connection.execute("SELECT pg_notify(%s, %s)", (channel, payloads[0]))
                    else:
                        async with connection.transaction():
                            for payload in payloads:
                                await connection.execute(
                                    "SELECT pg_notify(%s, %s)", (channel, payload)
                                )
                    return
                except (psycopg.OperationalError, psycopg.InterfaceError):
                    self._send = None
                    if attempt == 2:
                        raise

    async def announce(self, table: str, body: Mapping[str, Any]) -> None:
        """Tell every other process what ``table`` announces."""
        await self.notify(
            ANNOUNCE_CHANNEL, {"k": "announce", "from": self.process, "table": table, "body": body}
        )

    async def tell_audience(self, tables: Sequence[str]) -> None:
        """Tell every other process that this one has sockets at ``tables`` (which it
        does not run): their owners announce what those tables do."""
        await self.notify(
            ANNOUNCE_CHANNEL, {"k": "audience", "from": self.process, "tables": list(tables)}
        )

    def hear_audiences(self, heard: Callable[[str, list[str]], None]) -> None:
        """Hear every other process's :meth:`tell_audience`: ``heard(process, tables)``."""
        self._audiences.append(heard)

    async def request(
        self,
        table: str,
        body: Mapping[str, Any],
        *,
        timeout: float = REQUEST_SECONDS,
        first: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Ask the process that runs ``table``; returns its reply.

        ``first`` is called with the reply the moment it arrives, before anything the
        bus hears after it (the table's announcement of what the request did).

        Raises:
            TableUnavailable: no process answered within ``timeout`` seconds.
        """
        number = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[number] = (future, first or (lambda _: None))
        message = {"k": "request", "id": number, "reply": self.reply_channel, "body": body}
        try:
            await self.notify(request_channel(table), message)
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TableUnavailable(
                f"table {table!r} did not answer within {timeout:g} s: "
                "it is being taken over; send the command again"
            ) from None
        finally:
            self._waiting.pop(number, None)

    # -- being asked -----------------------------------------------------------------------------

    async def _listening(self, channel: str, wanted: bool) -> None:
        """Return once the listening connection hears ``channel`` (or no longer does)."""
        for _ in range(200):
            if (channel in self._channels) == wanted:
                return
            await asyncio.sleep(LISTEN_SECONDS / 4)
        _log.warning("bus: channel %s not %s in time", channel, "heard" if wanted else "dropped")

    async def serve(self, table: str, handler: Handler) -> None:
        """Answer the requests for ``table`` (this process runs it now)."""
        channel = request_channel(table)
        self._handlers[channel] = (table, handler)
        await self._listening(channel, True)

    async def unserve(self, table: str) -> None:
        """Stop answering for ``table``."""
        channel = request_channel(table)
        self._handlers.pop(channel, None)
        await self._listening(channel, False)

    def listen(self, listener: Listener) -> None:
        """Hear every other process's announcements: ``listener(table, body)``."""
        self._listeners.append(listener)
