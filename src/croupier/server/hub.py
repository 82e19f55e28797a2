"""The tables at run time: their actors, their sockets, and what goes out to them.

The :class:`Hub` holds every table's runtime, its actor and its open connections; a
:class:`Connection` is one WebSocket at a table, with its own outbox.  The table
socket's route (:mod:`croupier.server.routes.table_socket`) hands each message to the
hub's table.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, assert_never

import sqlalchemy as sa
from fastapi import WebSocket

from croupier.errors import CroupierError
from croupier.events import BetReturned
from croupier.presets import Preset, find_preset
from croupier.round import Phase
from croupier.server import accounts, commits, ledger, operations
from croupier.server.actor import TableActor
from croupier.server.cluster import GRACE_SECONDS, Claims
from croupier.server.db import normalize_url
from croupier.server.errors import (
    InsufficientFunds,
    NotFound,
    PlayRefused,
    ServerError,
    SessionExpired,
    TableUnavailable,
)
from croupier.server.metrics import Metrics
from croupier.server.operations import (
    Apply,
    ConfirmBets,
    Disconnected,
    EventsSince,
    LeaveBox,
    Log,
    Summary,
    TableOperation,
    TakeBox,
    View,
    Welcome,
)
from croupier.server.ownership import Ownership
from croupier.server.protocol import RateLimiter
from croupier.server.runtime import ActionRefused, Outcome, TableConfig, TableRuntime
from croupier.server.schema import users
from croupier.server.settings import Settings, Share
from croupier.server.tables import table_summary
from croupier.server.views import personal_view, public_events, public_view
from croupier.server.wire import BUFFER_BYTES, Outgoing, Wire, encode, text_frame
from croupier.server.words import in_words

if TYPE_CHECKING:  # the bus needs PostgreSQL's driver: imported only in a cluster
    from croupier.server.bus import Bus

__all__ = [
    "DRAIN_SECONDS",
    "OUTBOX_MESSAGES",
    "SEND_SECONDS",
    "SESSIONS_RENEWED_EVERY",
    "SESSION_RECHECK_SECONDS",
    "SESSION_RENEW_SECONDS",
    "Connection",
    "Hub",
    "Refused",
    "refusal",
]

_log = logging.getLogger("croupier.server")


#: Seconds a session confirmed by the database is trusted for a socket's commands before
#: it is asked again.  A logout, break or self-exclusion through this server, or through
#: another process of its cluster, ends the trust at once; an account disabled from the
#: command line, or a logout through a server outside the cluster, is noticed within this
#: time.
SESSION_RECHECK_SECONDS = 10.0
#: Seconds after its confirmation from which a session in use is confirmed again in
#: the background, with every other one due, before its trust runs out: a socket in
#: play never waits for the database, and the sessions of a whole room cost one
#: transaction every :data:`SESSIONS_RENEWED_EVERY` seconds, not one each.
SESSION_RENEW_SECONDS = 5.0
#: Seconds between two background confirmations of the sessions due.
SESSIONS_RENEWED_EVERY = 1.0

#: Seconds a stopping process waits for its rounds in play to end (:meth:`Hub.drain`).
DRAIN_SECONDS = 30.0
#: Seconds between two looks at the tables while draining.
DRAIN_POLL_SECONDS = 0.1

#: Messages that may wait for one socket; a client that lets more pile up is dropped.
OUTBOX_MESSAGES = 256
#: Seconds one message may take to go out before its socket is dropped.
SEND_SECONDS = 10.0
#: Seconds between two looks at the sockets' waiting bytes (:meth:`Connection.check`).
SWEEP_SECONDS = 1.0
#: While a table takes bets, the least seconds between two announcements of what its bets
#: did: a bet alone is announced at once; a crowd's stream of bets, at most this often
#: (each bet is acknowledged to its player at once all the same).
BETS_ANNOUNCED_EVERY = 0.1


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


class Refused(ServerError):
    """A table operation refused by the process that runs the table; ``code`` says why."""

    def __init__(self, code: str, message: str, clause: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.clause = clause


class Refusal(NamedTuple):
    """What a client is told of a refused table operation."""

    code: str
    #: Why, in the player's words.
    message: str
    #: The rule the refusal cites, where the engine cites one (for the table's log).
    clause: str | None = None


def refusal(problem: Exception) -> Refusal | None:
    """What a client is sent for a refused table operation (``None``: not a refusal,
    a failure).  The engine's own refusals are put in the player's words
    (:func:`~croupier.server.words.in_words`), the rule they cite apart."""
    if isinstance(problem, Refused):
        return Refusal(problem.code, str(problem), problem.clause)
    if isinstance(problem, ActionRefused | PlayRefused):
        return Refusal(problem.code, str(problem))
    if isinstance(problem, InsufficientFunds):
        return Refusal("insufficient_funds", str(problem))
    if isinstance(problem, TableUnavailable):
        return Refusal("unavailable", str(problem))
    if isinstance(problem, CroupierError):
        return Refusal("illegal", *in_words(str(problem)))
    if isinstance(problem, ServerError):
        return Refusal("illegal", str(problem))
    return None


class Hub:
    """The tables, their actors and their connections.

    A table's runtime is touched only through its actor (:class:`TableActor`): commands,
    seats, clocks and views in order, each off the event loop, each announced before
    the next begins.  The database is reached from worker threads only.

    In a cluster (``settings.share`` set), this process runs the tables it has claimed
    (:class:`~croupier.server.cluster.Claims`) and reaches the others through the bus:
    :meth:`call` runs an operation where its table is run, and what a table announces
    reaches the watchers on every process.
    """

    def __init__(
        self, engine: sa.Engine, settings: Settings, ownership: Ownership | None = None
    ) -> None:
        self.engine = engine
        self.settings = settings
        #: How the tables' writes are committed (together on SQLite).
        self.commits = commits.for_engine(engine)
        self.metrics = Metrics()
        self.metrics.watch_commits(
            partial(getattr, self.commits, "commits"), partial(getattr, self.commits, "inputs")
        )
        self._ids: dict[str, int] = {}
        self._limiters: dict[int, RateLimiter] = {}
        #: Session token -> when the database last confirmed it (the settings' clock).
        self._sessions: dict[str, float] = {}
        #: Sessions in use to be confirmed again in the background, and when that runs.
        self._renewing: set[str] = set()
        self._renewal: asyncio.TimerHandle | None = None
        self.configs: dict[str, TableConfig] = {config.id: config for config in settings.tables}
        #: The tables this process runs, and their actors.
        self.runtimes: dict[str, TableRuntime] = {}
        self.actors: dict[str, TableActor] = {}
        self.connections: dict[str, set[Connection]] = {table: set() for table in self.configs}
        #: Open table sockets by client address (at most ``settings.sockets_per_address``).
        self.addresses: Counter[str] = Counter()
        self.bus: Bus | None = None
        self.claims: Claims | None = None
        #: This process's leases on its tables (``None``: a hub whose tables no other
        #: process can reach, as in tests: it runs every table, unfenced).
        self.ownership = ownership
        self._posted: set[asyncio.Task[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task[None] | None = None
        #: The table sockets' frames, written once a socket at the end of each pass of
        #: the event loop.
        self.outgoing = Outgoing()
        #: What tables' bets did, held for their next announcement (:meth:`_hold`).
        self._held: dict[str, list[Outcome]] = {}
        #: When each table's held bets were last announced (the loop's clock).
        self._let_out_at: dict[str, float] = {}
        if settings.share is None:
            now = settings.clock()
            for config in settings.tables:
                if ownership is None:
                    self._open(config, now, None)
                elif config.id in ownership.held:
                    self._open(config, now, ownership.held[config.id])

    def _open(self, config: TableConfig, now: float, epoch: int | None) -> TableRuntime:
        """Run a table here: its round recovered from the database, its actor made;
        every write it makes is fenced by its lease's ``epoch``."""
        runtime = TableRuntime(
            config,
            self.engine,
            self.user_id,
            now=now,
            shoe=self.settings.shoes.get(config.id),
            epoch=epoch,
            commits=self.commits,
        )
        table = config.id
        actor = TableActor(
            table,
            runtime,
            clock=self.now,
            on_tick=self._announcer(table),
            recheck_seconds=self.settings.tick_seconds,
            on_lost=partial(self._lost, table),
        )
        self.runtimes[table] = runtime
        self.actors[table] = actor
        self.metrics.watch_table(
            table,
            connections=partial(self._count, table, signed_in=False),
            players=partial(self._count, table, signed_in=True),
            lag=partial(getattr, actor, "lag"),
            queue=partial(getattr, actor, "waiting"),
        )
        return runtime

    def preset(self, table: str) -> Preset | None:
        """The rulebook preset of ``table``, or ``None`` for no such table."""
        config = self.configs.get(table)
        return None if config is None else find_preset(config.preset)

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
        is over; otherwise those of the players a bet was given back to (a side bet with
        no bet on its box at "No more bets": its money is back at once, not at the end
        of the round).  Read in a worker thread."""
        if outcome is None:
            return {}
        present = [c.user for c in self.connections[table] if c.user is not None]
        if outcome.over:
            ids = {user.id for user in present}
        else:
            returned = {e.player for e in outcome.events if isinstance(e, BetReturned)}
            ids = {user.id for user in present if user.name in returned}
        if not ids:
            return {}
        return await asyncio.to_thread(self.read_balances, ids)

    def read_balances(self, ids: set[int]) -> dict[int, Decimal]:
        """Balances of the users ``ids`` (blocking: call from a worker thread)."""
        if not ids:
            return {}
        with self.engine.begin() as conn:
            return ledger.balances(conn, ids)

    def push_balances(self, table: str, balances: Mapping[int, Decimal]) -> None:
        """Send the ``balances`` to their owners at ``table``."""
        for connection in list(self.connections[table]):
            user = connection.user
            if user is not None and user.id in balances:
                connection.push(encode({"type": "balance", "balance": str(balances[user.id])}))

    async def announce(
        self, table: str, outcome: Outcome | None, balances: Mapping[int, Decimal]
    ) -> None:
        """Broadcast ``outcome`` and send the ``balances`` to their owners at ``table``.

        While the table takes bets, what its bets did is held and goes out together
        after the work queued meanwhile (:meth:`_hold`): a crowd betting behind makes
        one announcement a burst, not one each (each state shows every bet, so one
        each grew with the square of the crowd).
        """
        if outcome is not None and outcome.over:
            self.metrics.rounds.labels(table=table).inc()
            if outcome.close_seconds is not None:
                self.metrics.round_close_seconds.labels(table=table).observe(outcome.close_seconds)
        runtime = self.runtimes.get(table)
        if (
            outcome is not None
            and not outcome.over
            and runtime is not None
            and runtime.round.phase is Phase.BETTING
            and table in self.actors
        ):
            self._hold(table, outcome)
        else:
            await self._let_out(table)
            await self.broadcast(table, outcome)
        if balances:
            self.push_balances(table, balances)

    def _hold(self, table: str, outcome: Outcome) -> None:
        """Keep ``outcome`` for the table's next announcement, and have one made after
        the work queued now, and no sooner than :data:`BETS_ANNOUNCED_EVERY` after the
        last (one at a time)."""
        held = self._held.setdefault(table, [])
        held.append(outcome)
        if len(held) > 1:
            return  # its announcement is queued already

        async def let_out(_: None) -> None:
            await self._let_out(table)

        def queue() -> None:
            actor = self.actors.get(table)
            if actor is not None:
                actor.post(None, let_out)

        loop = asyncio.get_running_loop()
        wait = self._let_out_at.get(table, -BETS_ANNOUNCED_EVERY) + BETS_ANNOUNCED_EVERY
        wait -= loop.time()
        if wait > 0:
            loop.call_later(wait, queue)
        else:
            queue()

    async def _let_out(self, table: str) -> None:
        """Broadcast the outcomes held for ``table``, as one."""
        held = self._held.pop(table, None)
        if not held or table not in self.runtimes:
            return
        self._let_out_at[table] = asyncio.get_running_loop().time()
        events = [event for outcome in held for event in outcome.events]
        merged = Outcome(events, False, held[-1].seq, first=held[0].first)
        await self.broadcast(table, merged)

    # -- running --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every table's actor (on the running loop) and keep this process's
        tables claimed; in a cluster, join it."""
        share = self.settings.share
        if share is None and self.ownership is not None and not self.actors:
            # Started again after a stop (which let the tables go): claimed afresh.
            await asyncio.to_thread(self.ownership.claim_all, list(self.configs))
            for config in self.settings.tables:
                epoch = self.ownership.held[config.id]
                await asyncio.to_thread(self._open, config, self.now(), epoch)
        for actor in self.actors.values():
            actor.start()
        self._loop = asyncio.get_running_loop()
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = self._loop.create_task(self._sweep())
        if share is not None:
            from croupier.server.bus import Bus

            if self.ownership is None:
                self.ownership = Ownership(self.engine)
            self.bus = Bus(normalize_url(self.settings.url or ""))
            await self.bus.start()
            self.bus.listen(self._heard)
        if self.ownership is None:
            return
        self.claims = Claims(
            self.ownership,
            list(self.configs),
            share or Share(),
            run=self._run_here,
            stop=self._stop_table,
            held=list(self.actors),
            grace_seconds=GRACE_SECONDS if share is not None else 0.0,
        )
        self.claims.start()

    async def _sweep(self) -> None:
        """Every second, drop the clients none of whose waiting bytes went out for
        :data:`SEND_SECONDS` (:meth:`Connection.check`)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            now = loop.time()
            for connections in self.connections.values():
                for connection in list(connections):
                    connection.check(now)

    async def stop(self) -> None:
        """Stop every table's actor (and, in a cluster, leave it); let the tables go."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._renewal is not None:  # each is asked again when its trust runs out
            self._renewal.cancel()
            self._renewal = None
            self._renewing.clear()
        if self.claims is not None:
            await self.claims.stop()
        await self._stop_all()
        await asyncio.to_thread(self.commits.close)
        if self.bus is not None:
            await self.bus.stop()
        if self.ownership is not None:
            await asyncio.to_thread(self.ownership.release)

    async def drain(self, seconds: float = DRAIN_SECONDS) -> list[str]:
        """Hand every table over before the process stops; the tables still running
        after ``seconds`` (their rounds are interrupted when the process stops).

        No new round is dealt.  A table whose round takes bets (or is over) is let go at
        once: another process claims it and goes on with that round (RWS v5 5.4).  A
        round in play is played out first, its players still connected, then let go.
        """
        loop = asyncio.get_running_loop()
        if self.claims is not None:
            self.claims.claiming = False
        deadline = loop.time() + seconds
        while self.actors:
            for table in list(self.actors):
                runtime, actor = self.runtimes[table], self.actors[table]
                try:
                    ready = await actor.call(runtime.drain)
                except Exception:
                    _log.exception("table %s: drain failed; it stops with the process", table)
                    continue
                if ready:
                    await self._hand_over(table)
            if not self.actors or loop.time() >= deadline:
                break
            await asyncio.sleep(DRAIN_POLL_SECONDS)
        left = sorted(self.actors)
        if left:
            _log.warning("drain: rounds still in play at %s after %g s", ", ".join(left), seconds)
        return left

    async def _hand_over(self, table: str) -> None:
        """Stop running ``table`` here and let it go, for another process to claim."""
        if self.claims is not None:
            self.claims.hand_over(table)
        await self._stop_table(table)
        if self.ownership is not None:
            await asyncio.to_thread(self.ownership.let_go, table)
        _log.warning("drain: table %s handed over", table)

    def _lost(self, table: str) -> None:
        """A write for ``table`` was fenced off: another process runs it now."""
        if self.claims is not None:
            self.claims.lose({table})

    async def _run_here(self, table: str, epoch: int) -> None:
        """Run a table this process has just claimed."""
        config = self.configs[table]
        await asyncio.to_thread(self._open, config, self.now(), epoch)
        self.actors[table].start()
        if self.bus is not None:
            await self.bus.serve(table, self._serve)
        # Its watchers see it as it now stands, and what the recovery of an interrupted
        # round did, as events (whose place tells a client what it missed before).
        runtime = self.runtimes[table]
        recovered, runtime.recovered = runtime.recovered, None
        await self.announce(table, recovered, await self.balances(table, recovered))

    async def _stop_table(self, table: str) -> None:
        """Stop running ``table`` here (it was lost, or this process stops).

        Without a cluster, its sockets here are closed: their clients reconnect and
        find whichever server runs the table now.
        """
        actor = self.actors.pop(table, None)
        self.runtimes.pop(table, None)
        self._held.pop(table, None)
        self._let_out_at.pop(table, None)
        if actor is not None:
            await actor.stop()
        if self.bus is not None:
            await self.bus.unserve(table)
        elif self.ownership is not None:
            for connection in list(self.connections.get(table, ())):
                connection.drop("this server no longer runs the table")

    async def _stop_all(self) -> None:
        for table in list(self.actors):
            actor = self.actors[table]
            await actor.stop()
            if self.bus is not None:
                await self.bus.unserve(table)
        if self.settings.share is not None or self.ownership is not None:
            self.actors.clear()
            self.runtimes.clear()

    # -- table operations, here or where the table is run ---------------------------------------

    async def call(
        self,
        table: str,
        operation: TableOperation,
        *,
        first: Callable[[Any], None] | None = None,
    ) -> Any:
        """Run ``operation`` where ``table`` is run; returns its result.

        ``first`` is given the result before the table announces what the operation
        did (the player hears that his command was taken, then what it did).  The
        operation goes as it is to the table's actor here, as JSON through the bus to
        the process that runs the table otherwise.

        Raises:
            Refused: the process that runs the table refused it (the code says why).
            TableUnavailable: the table is being taken over; the client sends again.
        """
        if table in self.actors:
            said_here = None
            if first is not None:
                tell = first

                async def said_here(result: Any) -> None:
                    tell(result)

            return await self._here(table, operation, said_here, asked_here=True)
        if self.bus is None:
            raise TableUnavailable(f"table {table!r} is not running")
        if self.claims is not None and table in self.claims.vacant:
            # Its owner is gone: nobody would answer before the table is claimed.
            raise TableUnavailable(f"table {table!r} is being taken over; send it again")

        def said(reply: dict[str, Any]) -> None:
            if first is not None and "result" in reply:
                first(reply["result"])

        reply = await self.bus.request(table, operation.to_json(), first=said)
        if "error" in reply:
            refused = reply["error"]
            raise Refused(refused["code"], refused["message"], refused.get("clause"))
        return reply["result"]

    async def _serve(
        self,
        table: str,
        body: dict[str, Any],
        reply: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> dict[str, Any]:
        """Answer another process's request for a table this process runs: its
        operation read from its JSON once (:func:`~croupier.server.operations.from_json`).

        A command's reply goes out as soon as it is taken, before the table announces
        what it did, as it would to a player connected here.
        """

        async def first(result: Any) -> None:
            await reply({"result": result})

        try:
            operation = operations.from_json(body)
            result = await self._here(table, operation, first, asked_here=False)
        except Exception as problem:
            said = refusal(problem)
            if said is None:
                _log.exception("table %s: a request from another process failed", table)
                said = Refusal("internal", "the table could not do that; try again")
            return {"error": said._asdict()}
        return {"result": result}

    async def _here(
        self,
        table: str,
        operation: TableOperation,
        first: Callable[[Any], Awaitable[None]] | None,
        *,
        asked_here: bool,
    ) -> Any:
        runtime, actor = self.runtimes[table], self.actors[table]

        async def seats_changed(_: None) -> None:
            await self.broadcast(table, None)

        match operation:
            case View(viewer=viewer, dealer=dealer):
                return await actor.call(lambda: runtime.view(viewer, dealer=dealer))
            case Welcome(viewer=name, dealer=dealer):
                back: list[bool] = []

                def welcome() -> dict[str, Any]:
                    back.append(name in runtime.away)
                    runtime.reconnected(name)
                    return runtime.view(name, dealer=dealer)

                async def returned(_: dict[str, Any]) -> None:
                    if back and back[0]:  # the others were told he was away
                        await self.broadcast(table, None)

                return await actor.call(welcome, returned)
            case Summary(watching=watching):
                if not asked_here:
                    watching += len(self.connections[table])
                return await actor.call(partial(table_summary, runtime, watching))
            case EventsSince(round=round_id, first=since, dealer=dealer):
                return await actor.call(
                    lambda: runtime.events_since(round_id, since, dealer=dealer)
                )
            case Log(rounds=rounds):
                return await actor.call(lambda: runtime.log(rounds))
            case TakeBox(player=name, box=box):
                await actor.call(lambda: runtime.take_box(name, box), seats_changed)
                return None
            case LeaveBox(player=name, box=box):
                await actor.call(lambda: runtime.leave_box(name, box), seats_changed)
                return None
            case Disconnected(player=name, now=now):
                actor.post(lambda: runtime.disconnected(name, now), self._told_away(table, name))
                return None
            case ConfirmBets(player=name, now=now):

                async def confirmed(result: tuple[Decimal, Outcome | None]) -> None:
                    total, outcome = result
                    if first is not None:
                        await first(str(total))
                    await self.announce(table, outcome, await self.balances(table, outcome))

                total, _ = await actor.call(lambda: runtime.confirm_bets(name, now), confirmed)
                return str(total)
            case Apply():
                return await self._apply(table, operation, first, asked_here=asked_here)
            case _:
                assert_never(operation)

    async def _apply(
        self,
        table: str,
        operation: Apply,
        first: Callable[[Any], Awaitable[None]] | None,
        *,
        asked_here: bool,
    ) -> dict[str, Any]:
        runtime, actor = self.runtimes[table], self.actors[table]
        player, user = operation.player, operation.user
        if player is not None:
            # The player's id came with his command (his session's): never asked again.
            self._ids[player] = user
        # Whose balances go out if the round ends, read here on the loop that owns the
        # connections; the worker thread only reads the ledger.
        present = {c.user.id for c in self.connections[table] if c.user is not None}

        def apply() -> tuple[Outcome, dict[int, Decimal]]:
            # The balances to send, read in the input's own transaction: everyone's here
            # when the round is over, the acting player's otherwise (when he is here).
            outcome = runtime.apply(
                operation.command,
                now=operation.now,
                key=operation.key,
                given=operation.given,
                balances={user} if asked_here else (),
                balances_at_end=present,
                by=operation.by,
            )
            return outcome, outcome.balances

        async def announce(result: tuple[Outcome, dict[int, Decimal]]) -> None:
            outcome, balances = result
            if outcome.retried:
                return
            if first is not None:
                await first({"seq": outcome.seq, "retried": False})
            await self.announce(table, outcome, balances)

        # Run with the inputs queued beside it (a crowd's bets): one commit for them all.
        outcome, _ = await actor.call(apply, announce, together=True)
        if outcome.retried and first is not None:
            await first({"seq": outcome.seq, "retried": True})
        return {"seq": outcome.seq, "retried": outcome.retried}

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold ``task`` until it ends (the loop itself keeps only a weak reference)."""
        self._posted.add(task)
        task.add_done_callback(self._posted.discard)

    def disconnected(self, table: str, name: str, now: float) -> None:
        """The player's last socket at ``table`` closed: the table is told, in turn
        (queued at once here; sent on to the process that runs it otherwise)."""
        if table in self.actors:
            runtime = self.runtimes[table]
            told = self._told_away(table, name)
            self.actors[table].post(lambda: runtime.disconnected(name, now), told)
            return

        async def tell() -> None:
            try:
                await self.call(table, Disconnected(name, now))
            except Exception as problem:
                _log.warning("table %s: %s's leaving not told: %s", table, name, problem)

        self.keep(asyncio.get_running_loop().create_task(tell()))

    def _told_away(self, table: str, name: str) -> Callable[[None], Awaitable[None]]:
        """What follows a player's leaving ``table``: the others are told when he has a
        seat or a stake there (the state's ``away``)."""

        async def tell(_: None) -> None:
            runtime = self.runtimes.get(table)
            if runtime is None:  # handed over meanwhile: its new owner shows it
                return
            if any(gone["player"] == name for gone in public_view(runtime)["away"]):
                await self.broadcast(table, None)

        return tell

    # -- sessions ---------------------------------------------------------------------------------

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
        :data:`SESSION_RECHECK_SECONDS` per token, in a worker thread.  A session in use
        is confirmed again before then, in the background and together with the others
        due (:meth:`_renew`): only a socket idle for that long waits for the database.
        """
        confirmed = self._sessions.get(token)
        if confirmed is not None and 0 <= now - confirmed < SESSION_RECHECK_SECONDS:
            if now - confirmed >= SESSION_RENEW_SECONDS:
                self._renew(token)
            return
        try:
            await asyncio.to_thread(self.confirm_session, token, now)
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

    def _renew(self, token: str) -> None:
        """Have ``token`` confirmed again within :data:`SESSIONS_RENEWED_EVERY` seconds,
        with every other session due, in one transaction of a worker thread."""
        self._renewing.add(token)
        if self._renewal is None:
            loop = asyncio.get_running_loop()
            self._renewal = loop.call_later(SESSIONS_RENEWED_EVERY, self._start_renewal)

    def _start_renewal(self) -> None:
        self._renewal = None
        tokens, self._renewing = self._renewing, set()
        self.keep(asyncio.get_running_loop().create_task(self._renew_now(tokens)))

    async def _renew_now(self, tokens: set[str]) -> None:
        now = self.now()
        try:
            alive = await asyncio.to_thread(self.confirm_sessions, tokens, now)
        except Exception as problem:  # each is asked again when its trust runs out
            _log.warning("%d sessions were not confirmed again: %s", len(tokens), problem)
            return
        for token in tokens:
            confirmed = self._sessions.get(token)
            if confirmed is None:  # ended meanwhile (a logout): it stays ended
                continue
            if token in alive:
                self._sessions[token] = max(confirmed, now)
            else:  # its next command asks the database, which says why it ended
                del self._sessions[token]

    def confirm_sessions(self, tokens: set[str], now: float) -> set[str]:
        """Of ``tokens``, the live sessions, marked as used (blocking: a worker thread)."""
        with self.engine.begin() as conn:
            return accounts.confirm_alive(conn, tokens, now=_utc(now))

    def forget_session(self, token: str) -> None:
        """A session ended (a logout): no command is taken on it from now on, here or,
        in a cluster, on the other processes."""
        self._sessions.pop(token, None)
        self._tell_others({"forget_session": accounts.hash_token(token)})

    def forget_user(self, user_id: int) -> None:
        """Every session of a user ended (a break, self-exclusion): his sockets'
        commands are asked of the database again, and refused there (on every process
        of a cluster)."""
        self._forget_user_here(user_id)
        self._tell_others({"forget_user": user_id})

    def _forget_user_here(self, user_id: int) -> None:
        for connection in [c for table in self.connections.values() for c in table]:
            user = connection.user
            if user is not None and user.id == user_id and connection.token is not None:
                self._sessions.pop(connection.token, None)

    def _tell_others(self, body: dict[str, Any]) -> None:
        """Tell the cluster's other processes (nothing without one)."""
        if self.bus is None:
            return
        bus = self.bus

        async def tell() -> None:
            try:
                await bus.announce("", body)
            except Exception as problem:
                _log.warning("the other processes were not told %s: %s", body, problem)

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:  # a route run in a worker thread
            running = None
        if running is None:
            if self._loop is not None:
                asyncio.run_coroutine_threadsafe(tell(), self._loop)
            return
        self.keep(running.create_task(tell()))

    def _forget_heard(self, body: Mapping[str, Any]) -> None:
        """Another process ended a session or a user's sessions."""
        if "forget_user" in body:
            self._forget_user_here(int(body["forget_user"]))
        if "forget_session" in body:
            gone = str(body["forget_session"])
            for token in [t for t in self._sessions if accounts.hash_token(t) == gone]:
                self._sessions.pop(token, None)

    def read_session(self, token: str, now: float) -> accounts.User:
        """The token's user, the session marked as used (blocking: a worker thread)."""
        with self.engine.begin() as conn:
            return accounts.authenticate(conn, token, now=_utc(now))

    def confirm_session(self, token: str, now: float) -> int:
        """The token's user id, the session marked as used (blocking: a worker thread)."""
        with self.engine.begin() as conn:
            return accounts.confirm(conn, token, now=_utc(now))

    def limiter(self, connection: Connection) -> RateLimiter:
        """The rate limit a message from ``connection`` counts against: the user's own,
        shared by all his sockets at every table, once he has logged in."""
        if connection.user is None:
            return connection.limiter
        return self._limiters.setdefault(connection.user.id, RateLimiter())

    async def send(self, connection: Connection, message: dict[str, Any]) -> None:
        await self.send_text(connection, encode(message))

    async def send_text(self, connection: Connection, text: str) -> None:
        # Queued, never awaited: a slow client never holds up a table.
        connection.push(text)

    async def broadcast(self, table: str, outcome: Outcome | None) -> None:
        """Each connection at ``table`` gets the new events and the table as it sees it;
        in a cluster, every other process's connections too."""
        body = self._texts(table, outcome, everyone=self.bus is not None)
        self._fan_out(table, body)
        if self.bus is not None:
            try:
                await self.bus.announce(table, body)
            except Exception:
                _log.exception(
                    "table %s: the announcement did not reach the other processes", table
                )

    def _texts(self, table: str, outcome: Outcome | None, *, everyone: bool) -> dict[str, Any]:
        """What ``table`` announces, encoded once: the events and the table as a watcher,
        a dealer and the player whose turn it is see them (for this process's
        connections, or for ``everyone``'s)."""
        runtime = self.runtimes[table]
        turn = runtime.round.current_turn
        acting = runtime.round.seated_player(turn[0]) if turn is not None else None
        public = public_view(runtime)

        def texts(dealer: bool, name: str | None) -> list[str | None]:
            events = None
            if outcome is not None and outcome.events:
                events = encode(
                    {
                        "type": "events",
                        "round": runtime.round_id,
                        "first": outcome.first,
                        "events": public_events(outcome.events, dealer=dealer),
                    }
                )
            view = personal_view(runtime, public, name, dealer=dealer)
            state = encode({"type": "state", "state": view})
            return [events, state]

        here = [c.user for c in self.connections[table] if c.user is not None]
        body: dict[str, Any] = {
            "over": outcome is not None and outcome.over,
            "acting": acting,
            "public": texts(False, None),
        }
        if everyone or any(user.role.is_staff for user in here):
            body["dealer"] = texts(True, None)
        if acting is not None and (everyone or any(user.name == acting for user in here)):
            body["mine"] = texts(False, acting)
        return body

    def _fan_out(self, table: str, body: Mapping[str, Any]) -> None:
        """Pass what ``table`` announced to each connection here, as it may see it."""
        acting = body["acting"]
        framed: dict[str, tuple[list[str], bytes]] = {}

        def frames(audience: str) -> tuple[list[str], bytes]:
            # Each audience's messages framed once, for all of its sockets, and joined:
            # the events and the state go out in one write (one system call) a socket.
            if audience not in framed:
                texts = [text for text in body[audience] if text]
                framed[audience] = (texts, b"".join(text_frame(text) for text in texts))
            return framed[audience]

        for connection in list(self.connections[table]):
            user = connection.user
            if user is not None and user.name == acting and "mine" in body:
                audience = "mine"
            elif user is not None and user.role.is_staff and "dealer" in body:
                audience = "dealer"
            else:
                audience = "public"
            connection.push_all(*frames(audience))

    async def _heard(self, table: str, body: dict[str, Any]) -> None:
        """What another process's table announced: to the connections here."""
        if not table:
            self._forget_heard(body)
            return
        if table not in self.connections:
            return
        self._fan_out(table, body)
        if body.get("over"):
            ids = {c.user.id for c in self.connections[table] if c.user is not None}

            async def balances() -> None:
                self.push_balances(table, await asyncio.to_thread(self.read_balances, ids))

            self.keep(asyncio.get_running_loop().create_task(balances()))

    async def send_balance(self, connection: Connection) -> None:
        if connection.user is None:
            return
        user = connection.user.id
        amounts = await asyncio.to_thread(self.read_balances, {user})
        await self.send(connection, {"type": "balance", "balance": str(amounts[user])})


def _utc(now: float) -> datetime:
    return datetime.fromtimestamp(now, UTC)
