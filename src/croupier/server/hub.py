"""The tables at run time: their actors, their sockets, and what goes out to them.

The :class:`Hub` holds every table's runtime, its actor and its open connections; a
:class:`Connection` is one WebSocket at a table, with its own outbox.  The table
socket's route (:mod:`croupier.server.routes.table_socket`) hands each message to the
hub's table.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any

import sqlalchemy as sa
from fastapi import WebSocket

from croupier.server import accounts, ledger
from croupier.server.actor import TableActor
from croupier.server.errors import NotFound, SessionExpired
from croupier.server.metrics import Metrics
from croupier.server.protocol import RateLimiter
from croupier.server.runtime import Outcome, TableRuntime, public_events
from croupier.server.schema import users
from croupier.server.settings import Settings

__all__ = ["OUTBOX_MESSAGES", "SEND_SECONDS", "SESSION_RECHECK_SECONDS", "Connection", "Hub"]

_log = logging.getLogger("croupier.server")


#: Seconds a session confirmed by the database is trusted for a socket's commands before
#: it is asked again.  A logout through this server ends the trust at once; an expiry or a
#: logout through another server is noticed within this time.
SESSION_RECHECK_SECONDS = 2.0

#: Messages that may wait for one socket; a client that lets more pile up is dropped.
OUTBOX_MESSAGES = 256
#: Seconds one message may take to go out before its socket is dropped.
SEND_SECONDS = 10.0


@dataclass(eq=False)
class Connection:
    """One WebSocket at a table.

    What the server sends it goes through its own bounded outbox, written by its own
    task: a client that stops reading costs only itself.  When the outbox is full or a
    send takes longer than :data:`SEND_SECONDS`, the connection is dropped (its handler
    is cancelled and the socket closed); nothing ever waits on it.
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
    #: The last message's operation and result (``ok`` or an error code), for the
    #: metrics and the log.
    last_op: str = "unknown"
    last_result: str = "ok"

    def push(self, text: str) -> None:
        """Queue ``text`` for the client, never waiting; a full outbox drops the client."""
        if self.dropped is not None:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.drop(f"{OUTBOX_MESSAGES} messages waiting: the client is not reading")

    def drop(self, why: str) -> None:
        """Give up on the client: its handler stops and its socket closes."""
        if self.dropped is not None:
            return
        self.dropped = why
        _log.warning("table %s: connection dropped: %s", self.table, why)
        if self.handler is not None and self.handler is not asyncio.current_task():
            self.handler.cancel()

    async def write(self) -> None:
        """Send the outbox in order, each message within :data:`SEND_SECONDS`."""
        while True:
            text = await self.outbox.get()
            try:
                await asyncio.wait_for(self.socket.send_text(text), SEND_SECONDS)
            except TimeoutError:
                self.drop(f"a message took over {SEND_SECONDS:g} s to send")
                return
            except Exception:  # the socket is closing: its handler cleans up
                return


class Hub:
    """The tables, their actors and their connections.

    A table's runtime is touched only through its actor (:class:`TableActor`): commands,
    seats, clocks and views in order, each off the event loop, each announced before
    the next begins.  The database is reached from worker threads only.
    """

    def __init__(self, engine: sa.Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self.metrics = Metrics()
        self._ids: dict[str, int] = {}
        self._limiters: dict[int, RateLimiter] = {}
        #: Session token -> when the database last confirmed it (the settings' clock).
        self._sessions: dict[str, float] = {}
        self.runtimes: dict[str, TableRuntime] = {}
        now = settings.clock()
        for config in settings.tables:
            self.runtimes[config.id] = TableRuntime(
                config, engine, self.user_id, now=now, shoe=settings.shoes.get(config.id)
            )
        self.connections: dict[str, set[Connection]] = {table: set() for table in self.runtimes}
        self.actors: dict[str, TableActor] = {
            table: TableActor(
                table,
                runtime,
                clock=self.now,
                on_tick=self._announcer(table),
                recheck_seconds=settings.tick_seconds,
            )
            for table, runtime in self.runtimes.items()
        }
        for table, actor in self.actors.items():
            self.metrics.watch_table(
                table,
                connections=partial(self._count, table, signed_in=False),
                players=partial(self._count, table, signed_in=True),
                lag=partial(getattr, actor, "lag"),
                queue=partial(getattr, actor, "waiting"),
            )

    def _count(self, table: str, *, signed_in: bool) -> float:
        connections = list(self.connections[table])
        if signed_in:
            return float(len({c.user.id for c in connections if c.user is not None}))
        return float(len(connections))

    def _announcer(self, table: str) -> Callable[[Outcome], Awaitable[None]]:
        async def announce(outcome: Outcome) -> None:
            await self.announce(table, outcome, await self.balances(table, outcome))

        return announce

    async def balances(self, table: str, outcome: Outcome | None) -> dict[int, Decimal]:
        """The balances to send after ``outcome``: everyone's at the table when a round
        is over, nobody's otherwise (read in a worker thread)."""
        if outcome is None or not outcome.over:
            return {}
        ids = {c.user.id for c in self.connections[table] if c.user is not None}
        return await asyncio.to_thread(self.read_balances, ids)

    def read_balances(self, ids: set[int]) -> dict[int, Decimal]:
        """Balances of the users ``ids`` (blocking: call from a worker thread)."""
        if not ids:
            return {}
        with self.engine.begin() as conn:
            return {user: ledger.balance(conn, user) for user in ids}

    async def announce(
        self, table: str, outcome: Outcome | None, balances: Mapping[int, Decimal]
    ) -> None:
        """Broadcast ``outcome`` and send the ``balances`` to their owners at ``table``."""
        if outcome is not None and outcome.over:
            self.metrics.rounds.labels(table=table).inc()
        await self.broadcast(table, outcome)
        if not balances:
            return
        for connection in list(self.connections[table]):
            user = connection.user
            if user is not None and user.id in balances:
                connection.push(json.dumps({"type": "balance", "balance": str(balances[user.id])}))

    def start(self) -> None:
        """Start every table's actor (on the running loop)."""
        for actor in self.actors.values():
            actor.start()

    async def stop(self) -> None:
        """Stop every table's actor."""
        for actor in self.actors.values():
            await actor.stop()

    def user_id(self, name: str) -> int:
        """A user's id from his name (cached)."""
        if name not in self._ids:
            with self.engine.connect() as conn:
                found = conn.execute(
                    sa.select(users.c.id).where(users.c.name == name)
                ).scalar_one_or_none()
            if found is None:
                raise NotFound(f"no user named {name!r}")
            self._ids[name] = int(found)
        return self._ids[name]

    def now(self) -> float:
        return self.settings.clock()

    async def check_session(self, token: str, now: float) -> None:
        """Hold a command to a live session (:class:`SessionExpired` if it is not).

        The database is asked (and the session marked as used) at most once every
        :data:`SESSION_RECHECK_SECONDS` per token, in a worker thread.
        """
        confirmed = self._sessions.get(token)
        if confirmed is not None and 0 <= now - confirmed < SESSION_RECHECK_SECONDS:
            return
        try:
            await asyncio.to_thread(self.read_session, token, now)
        except SessionExpired:
            self._sessions.pop(token, None)
            raise
        if len(self._sessions) > 10_000:  # forget the stale ones now and then
            self._sessions = {
                kept: at
                for kept, at in self._sessions.items()
                if 0 <= now - at < SESSION_RECHECK_SECONDS
            }
        self._sessions[token] = now

    def forget_session(self, token: str) -> None:
        """A session ended here (a logout): no command is taken on it from now on."""
        self._sessions.pop(token, None)

    def forget_user(self, user_id: int) -> None:
        """Every session of a user ended here (a break, self-exclusion): his sockets'
        commands are asked of the database again, and refused there."""
        for connection in [c for table in self.connections.values() for c in table]:
            user = connection.user
            if user is not None and user.id == user_id and connection.token is not None:
                self._sessions.pop(connection.token, None)

    def read_session(self, token: str, now: float) -> accounts.User:
        """The token's user, the session marked as used (blocking: a worker thread)."""
        with self.engine.begin() as conn:
            return accounts.authenticate(conn, token, now=_utc(now))

    def limiter(self, connection: Connection) -> RateLimiter:
        """The rate limit a message from ``connection`` counts against: the user's own,
        shared by all his sockets at every table, once he has logged in."""
        if connection.user is None:
            return connection.limiter
        return self._limiters.setdefault(connection.user.id, RateLimiter())

    async def send(self, connection: Connection, message: dict[str, Any]) -> None:
        await self.send_text(connection, json.dumps(message))

    async def send_text(self, connection: Connection, text: str) -> None:
        # Queued, never awaited: a slow client never holds up a table.
        connection.push(text)

    async def broadcast(self, table: str, outcome: Outcome | None) -> None:
        """Each connection at ``table`` gets the new events and the table as it sees it."""
        runtime = self.runtimes[table]
        # Everyone but a dealer and the player whose turn it is sees the same table:
        # it is built and encoded once.
        shared: dict[bool, tuple[str | None, str]] = {}
        turn = runtime.round.current_turn
        acting = runtime.round.seated_player(turn[0]) if turn is not None else None

        def texts(dealer: bool, name: str | None) -> tuple[str | None, str]:
            events = None
            if outcome is not None and outcome.events:
                events = json.dumps(
                    {
                        "type": "events",
                        "round": runtime.round_id,
                        "events": public_events(outcome.events, dealer=dealer),
                    }
                )
            state = json.dumps({"type": "state", "state": runtime.view(name, dealer=dealer)})
            return events, state

        for connection in list(self.connections[table]):
            user = connection.user
            dealer = user is not None and user.role.is_staff
            name = user.name if user is not None else None
            if name is not None and name == acting:
                events, state = texts(dealer, name)
            else:
                if dealer not in shared:
                    shared[dealer] = texts(dealer, None)
                events, state = shared[dealer]
            if events is not None:
                await self.send_text(connection, events)
            await self.send_text(connection, state)

    async def send_balance(self, connection: Connection) -> None:
        if connection.user is None:
            return
        user = connection.user.id
        amounts = await asyncio.to_thread(self.read_balances, {user})
        await self.send(connection, {"type": "balance", "balance": str(amounts[user])})


def _utc(now: float) -> datetime:
    return datetime.fromtimestamp(now, UTC)
