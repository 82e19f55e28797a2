"""The tables at run time: their actors, their sockets, and what goes out to them.

The :class:`Hub` holds every table's runtime, its actor and its open connections
(:class:`~croupier.server.connections.Connection`: one WebSocket at a table), runs each
table operation (:mod:`croupier.server.operations`) where its table is run, and
announces what the tables do to their sockets, here and, in a cluster, on the other
processes.  Which sessions it trusts for its sockets' commands is
:mod:`croupier.server.sessions`'s.  The table socket's route
(:mod:`croupier.server.routes.table_socket`) hands each message to the hub.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, assert_never

import sqlalchemy as sa

from croupier.errors import CroupierError
from croupier.events import BetReturned
from croupier.presets import Preset, find_preset
from croupier.round import Phase
from croupier.server import commits, ledger, operations
from croupier.server.actor import TableActor, stop_task
from croupier.server.cluster import GRACE_SECONDS, Claims
from croupier.server.connections import Audience, Connection
from croupier.server.db import normalize_url, reading
from croupier.server.errors import (
    ActionRefused,
    InsufficientFunds,
    NotFound,
    PlayRefused,
    ServerError,
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
from croupier.server.runtime import OnLoop, Outcome, TableConfig, TableRuntime
from croupier.server.schema import users
from croupier.server.sessions import Sessions
from croupier.server.settings import Settings, Share
from croupier.server.tables import table_summary
from croupier.server.threads import warm_default
from croupier.server.together import ReadTogether
from croupier.server.views import mines, personal_view, playing, public_events, public_view
from croupier.server.wire import Outgoing, encode, text_frame
from croupier.server.words import in_words

if TYPE_CHECKING:  # the bus needs PostgreSQL's driver: imported only in a cluster
    from croupier.server.bus import Bus

__all__ = [
    "DRAIN_SECONDS",
    "Hub",
    "Refused",
    "bets_announced_every",
    "refusal",
]

_log = logging.getLogger("croupier.server")
T = TypeVar("T")


#: Seconds a stopping process waits for its rounds in play to end (:meth:`Hub.drain`).
DRAIN_SECONDS = 30.0
#: Seconds between two looks at the tables while draining.
DRAIN_POLL_SECONDS = 0.1

#: Seconds between two looks at the sockets' waiting bytes (:meth:`Connection.check`),
#: and between two tellings of which tables this process has sockets at (a cluster).
SWEEP_SECONDS = 1.0
#: Seconds an owner announces a table to the other processes after one last said it has
#: sockets there, and after the owner began to run it (the others say so every second).
AUDIENCE_SECONDS = 3.0
#: While a table takes bets, the least seconds between two announcements of what its bets
#: did: a bet alone is announced at once; a crowd's stream of bets, at most this often
#: (each bet is acknowledged to its player at once all the same).
BETS_ANNOUNCED_EVERY = 0.1
#: ... and, before a larger crowd, this much more a socket at the table, up to
#: :data:`BETS_ANNOUNCED_AT_MOST`: every announcement is a state to each socket.
BETS_ANNOUNCED_A_SOCKET = 0.0005
BETS_ANNOUNCED_AT_MOST = 1.0
#: From this many sockets at a table, what each answer to an offer (insurance, even
#: money, surrender) did is held for the next announcement, as a bet's is: before a
#: crowd behind the boxes, a thousand declines were a state to every socket each (a
#: million frames).  Before fewer, each answer, a decision, goes out at once.
OFFERS_HELD_FROM = 100


def _merged(outcomes: Sequence[Outcome]) -> Outcome:
    """Consecutive outcomes at a table as one announcement: their events in order, from
    the first one's place in the round, over if the last one ended the round."""
    if len(outcomes) == 1:
        return outcomes[0]
    events = [event for outcome in outcomes for event in outcome.events]
    last = outcomes[-1]
    return Outcome(events, last.over, last.seq, first=outcomes[0].first)


def bets_announced_every(sockets: int) -> float:
    """The least seconds between two announcements of a table's bets, before
    ``sockets`` sockets: a crowd betting behind a box is sent the bets' totals less
    often than a table of seven, each announcement being a state to each socket.

    >>> bets_announced_every(8), bets_announced_every(1000), bets_announced_every(10**5)
    (0.1, 0.5, 1.0)
    """
    return min(max(BETS_ANNOUNCED_EVERY, BETS_ANNOUNCED_A_SOCKET * sockets), BETS_ANNOUNCED_AT_MOST)


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


#: How a table's public state ends: its last key, ``mine``, empty (see :func:`_spliced`).
_NOBODYS = '"mine":null}}'


def _spliced(public: Sequence[str | None], part: str) -> tuple[list[str], bytes]:
    """A player's messages: the public ones, his own part behind a box (``part``, JSON)
    put in the state's ``mine``; framed and joined for one write.

    >>> texts, _ = _spliced([None, '{"type":"state","state":{"phase":"betting","mine":null}}'],
    ...                     '{"bets":[],"stakes":[],"confirmed":true}')
    >>> texts
    ['{"type":"state","state":{"phase":"betting","mine":{"bets":[],"stakes":[],"confirmed":true}}}']
    """
    texts = [text for text in public if text]
    state = texts[-1]
    if not state.endswith(_NOBODYS):  # pragma: no cover - the state's shape says so
        raise ValueError("a table's state does not end with its empty 'mine'")
    texts[-1] = state[: -len(_NOBODYS)] + '"mine":' + part + "}}"
    return texts, b"".join(text_frame(text) for text in texts)


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
        #: The same database, for transactions that only read (:func:`db.reading`).
        self._reader = reading(engine)
        self.settings = settings
        #: How the tables' writes are committed (together on SQLite).
        self.commits = commits.for_engine(engine, threads=settings.write_threads)
        self.metrics = Metrics()
        self.metrics.watch_commits(
            partial(getattr, self.commits, "commits"), partial(getattr, self.commits, "inputs")
        )
        self._ids: dict[str, int] = {}
        self._limiters: dict[int, RateLimiter] = {}
        #: The sessions this process trusts for its sockets' commands.
        self.sessions = Sessions(
            engine,
            self.now,
            tokens_of=self._tokens_of,
            tell_others=self._tell_others,
            keep=self.keep,
        )
        self.metrics.watch_sessions(
            **{how: partial(getattr, self.sessions, how) for how in ("waited", "renewed", "kept")}
        )
        self.configs: dict[str, TableConfig] = {config.id: config for config in settings.tables}
        #: The tables this process runs, and their actors.
        self.runtimes: dict[str, TableRuntime] = {}
        self.actors: dict[str, TableActor] = {}
        self.connections: dict[str, Audience] = {table: Audience() for table in self.configs}
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
        #: In a cluster: until when (the loop's clock) each other process said it has
        #: sockets at each table, and when this process began to run each of its tables.
        self._audiences: dict[str, dict[str, float]] = {}
        self._began: dict[str, float] = {}
        self._telling: asyncio.Task[None] | None = None
        #: The table sockets' frames, written once a socket at the end of each pass of
        #: the event loop.
        self.outgoing = Outgoing()
        #: What tables' bets did, held for their next announcement (:meth:`_hold`).
        self._held: dict[str, list[Outcome]] = {}
        #: When each table's held bets were last announced (the loop's clock).
        self._let_out_at: dict[str, float] = {}
        #: The balances the sockets ask for, read together (:meth:`send_balance`).
        self._balances: ReadTogether[int, Decimal] = ReadTogether(self.read_balances)
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
        audience = self.connections[table]
        return float(len(audience.present() if signed_in else audience))

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
        audience = self.connections[table]
        if outcome.over:
            ids = set(audience.present())
        else:
            returned = {e.player for e in outcome.events if isinstance(e, BetReturned)}
            if not returned:  # most outcomes: no look at the crowd
                return {}
            ids = {c.user.id for c in audience if c.user and c.user.name in returned}
        if not ids:
            return {}
        return await asyncio.to_thread(self.read_balances, ids)

    def read_balances(self, ids: set[int]) -> dict[int, Decimal]:
        """Balances of the users ``ids`` (blocking: call from a worker thread)."""
        if not ids:
            return {}
        with self._reader.begin() as conn:
            return ledger.balances(conn, ids)

    def push_balances(self, table: str, balances: Mapping[int, Decimal]) -> None:
        """Send the ``balances`` to their owners at ``table``."""
        audience = self.connections[table]
        for user, balance in balances.items():
            theirs = audience.of(user)
            if theirs:
                text = encode({"type": "balance", "balance": str(balance)})
                for connection in list(theirs):
                    connection.push(text)

    async def announce(
        self, table: str, outcome: Outcome | None, balances: Mapping[int, Decimal]
    ) -> None:
        """Broadcast ``outcome`` and send the ``balances`` to their owners at ``table``.

        While the table takes bets, what its bets did is held and goes out together
        after the work queued meanwhile (:meth:`_hold`): a crowd betting behind makes
        one announcement a burst, not one each (each state shows every bet, so one
        each grew with the square of the crowd).  So are the answers to offers before
        :data:`OFFERS_HELD_FROM` sockets or more: a crowd's declines of insurance.
        """
        if outcome is not None and outcome.over:
            self.metrics.rounds.labels(table=table).inc()
            if outcome.close_seconds is not None:
                self.metrics.round_close_seconds.labels(table=table).observe(outcome.close_seconds)
        runtime = self.runtimes.get(table)
        actor = self.actors.get(table)
        if (
            outcome is not None
            and not outcome.over
            and runtime is not None
            and actor is not None
            and (actor.more_to_announce or self._holds(table, runtime.round.phase))
        ):
            self._hold(table, outcome)
        else:
            # What was held goes out with this, in one announcement: the inputs run
            # together in one commit (a crowd's answers) are one state, not one each.
            held = self._take_held(table)
            if held:
                outcome = _merged(held if outcome is None else [*held, outcome])
            await self.broadcast(table, outcome)
        if balances:
            self.push_balances(table, balances)

    def _holds(self, table: str, phase: Phase) -> bool:
        """Whether what an input just did at ``table``, now in ``phase``, waits for the
        next announcement: while bets are taken, always (a bet is answered by its ack,
        its events are the layout's news); while offers are open, before a crowd."""
        if phase is Phase.BETTING:
            return True
        return phase is Phase.OFFERS and len(self.connections[table]) >= OFFERS_HELD_FROM

    def _hold(self, table: str, outcome: Outcome) -> None:
        """Keep ``outcome`` for the table's next announcement, and have one made after
        the work queued now, and no sooner than :func:`bets_announced_every` after the
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
        every = bets_announced_every(len(self.connections[table]))
        wait = self._let_out_at.get(table, -every) + every - loop.time()
        if wait > 0:
            loop.call_later(wait, queue)
        else:
            queue()

    async def _let_out(self, table: str) -> None:
        """Broadcast the outcomes held for ``table``, as one."""
        held = self._take_held(table)
        if held:
            await self.broadcast(table, _merged(held))

    def _take_held(self, table: str) -> list[Outcome]:
        """The outcomes held for ``table``, now going out (none for a table not run
        here any more)."""
        held = self._held.pop(table, None)
        if not held or table not in self.runtimes:
            return []
        self._let_out_at[table] = asyncio.get_running_loop().time()
        return held

    # -- running --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every table's actor (on the running loop) and keep this process's
        tables claimed; in a cluster, join it."""
        # Its worker threads (the clocks, the sessions, the balances) the last idle first.
        warm_default(asyncio.get_running_loop())
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
            self.bus.hear_audiences(self._heard_audience)
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
        :data:`SEND_SECONDS` (:meth:`Connection.check`), and keep the trust in the
        sessions of the sockets signed in (:meth:`Sessions.keep_trusted`)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            now = loop.time()
            present: list[str] = []
            for connections in self.connections.values():
                for connection in list(connections):
                    connection.check(now)
                    if connection.token is not None:
                        present.append(connection.token)
            # The idle sockets' sessions stay trusted: their next command waits for no
            # transaction of its own.
            self.sessions.keep_trusted(present, self.now())
            if self._telling is None or self._telling.done():
                # Not awaited here: a database that does not answer holds up no sweep.
                self._telling = loop.create_task(self._tell_audience())

    # -- who hears a table's announcements (a cluster) --------------------------------------------

    def _watched_elsewhere(self) -> list[str]:
        """The tables this process has sockets at and does not run."""
        return sorted(
            table
            for table, connections in self.connections.items()
            if len(connections) and table not in self.actors
        )

    async def _tell_audience(self) -> None:
        """Tell the other processes which tables this one has sockets at (if any)."""
        if self.bus is None:
            return
        tables = self._watched_elsewhere()
        if not tables:
            return
        try:
            await self.bus.tell_audience(tables)
        except Exception as problem:  # said again in a second
            _log.warning("the other processes were not told of this one's sockets: %s", problem)

    async def socket_opened(self, table: str) -> None:
        """A socket at ``table`` has come here (added to its connections): where another
        process runs it and this is its first socket here, that process is told before
        anything is asked of it, so that it announces the table's changes here."""
        if self.bus is not None and table not in self.actors and len(self.connections[table]) == 1:
            await self._tell_audience()

    def _heard_audience(self, process: str, tables: list[str]) -> None:
        until = asyncio.get_running_loop().time() + AUDIENCE_SECONDS
        for table in tables:
            self._audiences.setdefault(table, {})[process] = until

    def _heard_elsewhere(self, table: str) -> bool:
        """Whether what ``table`` announces must go to the other processes: one said it
        has sockets there, or this one began to run it too lately to know."""
        now = asyncio.get_running_loop().time()
        if now - self._began.get(table, -AUDIENCE_SECONDS) < AUDIENCE_SECONDS:
            return True
        heard = self._audiences.get(table)
        if not heard:
            return False
        for process, until in list(heard.items()):
            if until < now:
                del heard[process]
        return bool(heard)

    async def stop(self) -> None:
        """Stop every table's actor (and, in a cluster, leave it); let the tables go."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        await stop_task(self._telling)
        self._telling = None
        self.sessions.stop()
        if self.claims is not None:
            await self.claims.stop()
        await self._stop_all()
        await asyncio.to_thread(self.commits.close)
        on_loop = getattr(self.commits, "on_loop", None)
        if on_loop is not None:
            await on_loop.close()
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
        self._began[table] = asyncio.get_running_loop().time()
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
                return await actor.call(lambda: runtime.view(viewer, dealer=dealer), inline=True)
            case Welcome(viewer=name, dealer=dealer):
                back: list[bool] = []

                def welcome() -> dict[str, Any]:
                    back.append(name in runtime.seats.away)
                    runtime.reconnected(name)
                    return runtime.view(name, dealer=dealer)

                async def returned(_: dict[str, Any]) -> None:
                    if back and back[0]:  # the others were told he was away
                        await self.broadcast(table, None)

                return await actor.call(welcome, returned, inline=True)
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
        present = self.connections[table].present()

        def applied(how: Callable[..., T]) -> T:
            # The balances to send, read in the input's own transaction: everyone's here
            # when the round is over, the acting player's otherwise (when he is here).
            return how(
                operation.command,
                now=operation.now,
                key=operation.key,
                given=operation.given,
                balances={user} if asked_here else (),
                balances_at_end=present,
                by=operation.by,
            )

        def apply() -> tuple[Outcome, dict[int, Decimal]]:
            outcome: Outcome = applied(runtime.apply)
            return outcome, outcome.balances

        async def on_loop() -> tuple[Outcome, dict[int, Decimal]]:
            # The same, where it runs alone: its engine's step here, its row too when
            # that is the whole of its write (see TableRuntime.apply_on_loop).
            outcome: Outcome = await applied(runtime.apply_on_loop)
            return outcome, outcome.balances

        async def announce(result: tuple[Outcome, dict[int, Decimal]]) -> None:
            outcome, balances = result
            if outcome.retried:
                return
            if first is not None:
                await first({"seq": outcome.seq, "retried": False})
            await self.announce(table, outcome, balances)

        # Run with the inputs queued beside it (a crowd's bets): one commit for them all.
        outcome, _ = await actor.call(OnLoop(apply, on_loop), announce, together=True)
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
            self.actors[table].post(lambda: runtime.disconnected(name, now), told, inline=True)
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
            if name in runtime.seats.away and name in playing(runtime)[0]:
                await self.broadcast(table, None)

        return tell

    def worker_running(self, table: str) -> int | None:
        """The process id of another process of this machine that runs ``table``, as
        the last look at the leases found it (``None``: this process runs it, nobody
        does, or a process of another machine): where a socket for it is handed
        (:mod:`croupier.server.steering`)."""
        if table in self.actors or self.claims is None or self.ownership is None:
            return None
        owner = self.claims.owners.get(table)
        if owner is None:
            return None
        host, _, rest = owner.partition(":")
        pid = rest.partition(":")[0]
        mine = self.ownership.owner.partition(":")[0]
        if host != mine or not pid.isdigit():
            return None
        return int(pid)

    # -- sessions ---------------------------------------------------------------------------------

    def user_id(self, name: str) -> int:
        """A user's id from his name (cached).

        Read in a transaction that only reads (:func:`~croupier.server.db.reading`): a
        table's write asks for its players' ids inside its own transaction, and on
        SQLite a lookup that took the write lock would wait for that transaction, its
        own, until SQLite gave up.
        """
        if name not in self._ids:
            with reading(self.engine).connect() as conn:
                found = conn.execute(
                    sa.select(users.c.id).where(users.c.name == name)
                ).scalar_one_or_none()
            if found is None:
                raise NotFound(f"no user named {name!r}")
            self._ids[name] = int(found)
        return self._ids[name]

    def now(self) -> float:
        return self.settings.clock()

    def _tokens_of(self, user_id: int) -> list[str]:
        """The session tokens of a user's sockets here."""
        return [
            connection.token
            for table in self.connections.values()
            for connection in table
            if connection.user is not None
            and connection.user.id == user_id
            and connection.token is not None
        ]

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
        elsewhere = self.bus is not None and self._heard_elsewhere(table)
        body = self._texts(table, outcome, everyone=elsewhere)
        self._fan_out(table, body)
        if self.bus is not None and elsewhere:
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
        # The events as a player and as the dealer see them, each encoded once.
        encoded: dict[bool, str | None] = {}

        def events_as(dealer: bool) -> str | None:
            if dealer not in encoded:
                encoded[dealer] = None
                if outcome is not None and outcome.events:
                    encoded[dealer] = encode(
                        {
                            "type": "events",
                            "round": runtime.round_id,
                            "first": outcome.first,
                            "events": public_events(outcome.events, dealer=dealer),
                        }
                    )
            return encoded[dealer]

        def texts(dealer: bool, name: str | None) -> list[str | None]:
            events = events_as(dealer)
            view = personal_view(runtime, public, name, dealer=dealer)
            state = encode({"type": "state", "state": view})
            return [events, state]

        here = [c.user for c in self.connections[table] if c.user is not None]
        body: dict[str, Any] = {
            "over": outcome is not None and outcome.over,
            "acting": acting,
            "public": texts(False, None),
        }
        # Each player's own part behind a box, for the public state's ``mine`` (its
        # last key): spliced into the public text, not a state encoded for each.
        names = None if everyone else {user.name for user in here}
        body["private"] = {
            player: encode(part)
            for player, part in mines(runtime).items()
            if player != acting and (names is None or player in names)
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
        private: Mapping[str, str] = body.get("private") or {}

        def frames(audience: str) -> tuple[list[str], bytes]:
            # Each audience's messages framed once, for all of its sockets, and joined:
            # the events and the state go out in one write (one system call) a socket.
            if audience not in framed:
                texts = [text for text in body[audience] if text]
                framed[audience] = (texts, b"".join(text_frame(text) for text in texts))
            return framed[audience]

        for connection in list(self.connections[table]):
            user = connection.user
            if user is not None and user.name in private and not user.role.is_staff:
                connection.push_all(*_spliced(body["public"], private[user.name]))
                continue
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
            self.sessions.heard(body)
            return
        if table not in self.connections:
            return
        self._fan_out(table, body)
        if body.get("over"):
            ids = set(self.connections[table].present())

            async def balances() -> None:
                self.push_balances(table, await asyncio.to_thread(self.read_balances, ids))

            self.keep(asyncio.get_running_loop().create_task(balances()))

    async def send_balance(self, connection: Connection) -> None:
        """Send ``connection``'s player his balance: read with those asked for at the
        same moment (a crowd signing in) in one query (:class:`ReadTogether`)."""
        if connection.user is None:
            return
        amount = await self._balances.get(connection.user.id)
        await self.send(connection, {"type": "balance", "balance": str(amount)})
