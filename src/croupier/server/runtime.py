"""A table at the server: the engine's round, its record, its money, its clocks.

A :class:`TableRuntime` runs one preset's rounds, one at a time.  Every input to a
round (a bet, a decision, an answer to an offer, a card a dealer enters, a timer's
expiry) is applied to the engine and appended to the round's *record*; the record,
the money it moves and the round's status are written in one database transaction,
so the database always holds a round exactly as far as its money went.  The engine
is deterministic, so a round is rebuilt after a restart by replaying its record
against the same cards: the shoe's order (for a table dealt by the server) or the
cards the dealer entered.  A refused input is not recorded: the round is rebuilt
from its record and nothing changes.

The record holds what players must not see (the shoe's order); :meth:`TableRuntime.view`
and :mod:`croupier.server.views` give what a given viewer may see.

The runtime reads no clock of its own: every call that depends on time takes ``now``
(seconds, as :func:`time.time` gives), so tests drive the clocks.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

import sqlalchemy as sa

from croupier.commands import (
    CloseBets,
    Command,
    Interrupt,
    Issuer,
    PlaceBet,
    TimeOut,
    Void,
    Withdraw,
    ops_for,
)
from croupier.errors import CroupierError
from croupier.events import BetPlaced, BetReturned, BetWithdrawn, Event
from croupier.inputs import arguments
from croupier.presets import find_preset
from croupier.round import Phase, Round
from croupier.rules import Rules
from croupier.server import driver, ledger, limits, rounds_store
from croupier.server.commits import Committer, OneByOne
from croupier.server.errors import ActionRefused, RoundError
from croupier.server.ownership import fence
from croupier.server.records import RecordedInput, RoundRecord
from croupier.server.replay import replay
from croupier.server.seats import Seats
from croupier.server.views import personal_view, public_events, public_view
from croupier.shoe import CompositionCheck, DealerEntry, ShuffledShoe

__all__ = [
    "OPS",
    "CutCard",
    "Input",
    "OnLoop",
    "Outcome",
    "TableConfig",
    "TableRuntime",
]

#: What a player may ask of a round, what a dealer may, and what only the table's clocks
#: do: read from the commands (:mod:`croupier.commands`), and the dealer's cut card mark.
#: Who may send which is asked once, of the command's :class:`Issuer`, where the
#: command comes in (the table socket).
PLAYER_OPS = ops_for(Issuer.PLAYER)
DEALER_OPS = ops_for(Issuer.DEALER) | {"cut_card"}
SYSTEM_OPS = ops_for(Issuer.TABLE)
OPS = PLAYER_OPS | DEALER_OPS | SYSTEM_OPS

_OVER = (Phase.SETTLED, Phase.VOID)
R = TypeVar("R")
_NOTHING = Decimal(0)


class _Sent(NamedTuple):
    """A movement's reads sent with its input's row (:meth:`TableRuntime._send_ahead`)."""

    limits: driver.Sent | None
    join: driver.Sent | None
    move: ledger.MoveReads | None


_NOT_SENT = _Sent(None, None, None)


@dataclass(frozen=True, slots=True)
class CutCard:
    """The dealer's mark that the cut card came out (a table dealt by hand): the shoe
    is shuffled after this round.  The server's own input, not an engine command: the
    round's record does not keep it."""

    op: ClassVar[str] = "cut_card"
    issuer: ClassVar[Issuer] = Issuer.DEALER


#: An input to a table: one of the engine's commands, or the dealer's cut card mark.
Input = Command | CutCard


def player_of(command: Input) -> str | None:
    """The player who issues ``command`` (``None``: the table's own, or a dealer's)."""
    player = getattr(command, "player", None)
    return player if isinstance(player, str) else None


@dataclass(frozen=True)
class TableConfig:
    """A table's settings: its preset, how its cards are dealt, and its clocks (seconds).

    ``dealt`` is ``"rng"`` (the server's cryptographic shoe) or ``"dealer"`` (a
    physical shoe whose cards a dealer enters).
    """

    id: str
    preset: str
    name: str = ""
    dealt: str = "rng"
    betting_seconds: float = 15.0
    decision_seconds: float = 20.0
    offer_seconds: float = 10.0
    grace_seconds: float = 60.0
    pause_seconds: float = 3.0

    def __post_init__(self) -> None:
        if self.dealt not in ("rng", "dealer"):
            raise ValueError(
                f"table {self.id}: dealt must be 'rng' or 'dealer', not {self.dealt!r}"
            )
        for name in ("betting_seconds", "decision_seconds", "offer_seconds", "grace_seconds"):
            if getattr(self, name) <= 0:
                raise ValueError(f"table {self.id}: {name} must be more than zero")


def _bettors(events: Sequence[Event] | None) -> frozenset[str] | None:
    """The players whose bets ``events`` placed, withdrew or returned, where those are
    all they did (``None``: anything else, or no events known)."""
    if not events:
        return None
    named: set[str] = set()
    for event in events:
        if not isinstance(event, BetPlaced | BetWithdrawn | BetReturned):
            return None
        named.add(event.player)
    return frozenset(named)


def _iso(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).isoformat()


@dataclass
class _Deadline:
    kind: str  # "betting", "decision", "offer", "next_round"
    at: float
    who: str | None = None


class _Refused(Exception):
    """An input run alone in :meth:`TableRuntime.run_together`'s write was refused: raised
    out of the write so that what it wrote is rolled back; ``error`` is the refusal."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass
class _Saved:
    """A table's state between inputs (:meth:`TableRuntime.run_together`)."""

    record: RoundRecord
    stored: bool
    confirmed: set[str]
    on_table: dict[str, Decimal] | None
    joined: set[tuple[str, int]]
    deadline: _Deadline | None
    now: float


class OnLoop(Generic[R]):
    """A run of :meth:`TableRuntime.run_together` (a call of :meth:`TableRuntime.apply`)
    that can be taken on the event loop instead, where it is alone and the committer
    writes from the loop (``on_loop``: its call of :meth:`TableRuntime.apply_on_loop`).

    >>> import asyncio
    >>> async def on_loop() -> int:
    ...     return 2
    >>> run = OnLoop(lambda: 1, on_loop)
    >>> run(), asyncio.run(run.on_loop())
    (1, 2)
    """

    __slots__ = ("on_loop", "run")

    def __init__(self, run: Callable[[], R], on_loop: Callable[[], Awaitable[R]]) -> None:
        self.run = run
        self.on_loop = on_loop

    def __call__(self) -> R:
        return self.run()


@dataclass(frozen=True, slots=True)
class _Step:
    """An input the engine took, to be written (:meth:`TableRuntime._begin`)."""

    command: Input
    player: str | None
    key: str | None
    #: The round's record with the input (closed, where it ended the round).
    record: RoundRecord
    events: list[Event]
    #: The place of the first of ``events`` in the round's events.
    first: int


@dataclass(frozen=True, slots=True)
class _Changes:
    """What an input moves (:meth:`TableRuntime._changes`)."""

    over: bool
    #: The round's status once written: ``open``, ``settled`` or ``void``.
    status: str
    #: Each player's money the ledger holds on the round (``None``: to be asked).
    known: dict[str, Decimal] | None
    #: Each player's money on the table once the input is written.
    staked: dict[str, Decimal]
    #: The players whose money the input moves (by name).
    names: set[str]

    @property
    def moves_nothing(self) -> bool:
        """Nothing but the input's row to write: no money moves, the round goes on."""
        return self.known is not None and not self.names and not self.over


#: The outcome of an input's row that was not written (why is then asked).
_NOT_WRITTEN = driver.Sent(ran=driver.Ran([], 0))


@dataclass
class Outcome:
    """What an input did: the new events and whether the round ended."""

    events: list[Event]
    over: bool
    seq: int
    retried: bool = False
    notes: list[str] = field(default_factory=list)
    #: The balances asked for (``apply(balances=...)``), read as the input was written.
    balances: dict[int, Decimal] = field(default_factory=dict)
    #: The place of the first of ``events`` in the round's events: a client that has
    #: fewer knows it missed some, and asks for them (``events_since``).
    first: int = 0
    #: Seconds the transaction that closed the round took, every player's money in it
    #: (``None``: the round is not over).
    close_seconds: float | None = None


class TableRuntime:
    """One table: its rounds, their records and money, its seats and clocks.

    Args:
        config: the table's settings.
        engine: the database.
        users: a user's id from his name (names are what the engine calls players).
        now: the time, in seconds.
        shoe: the shoe a server-dealt table starts with (a fresh cryptographic shuffle
            when omitted; tests and audits give one in a known order).
        epoch: the epoch of this process's lease on the table
            (:mod:`croupier.server.ownership`): every write checks it first, and is
            refused with :class:`~croupier.server.ownership.TableLost` once another
            process has claimed the table.  ``None``: no lease is checked (a runtime
            that no other process can reach, as in tests).
        commits: what commits the table's writes (:mod:`croupier.server.commits`):
            the process's group commit, shared by its tables; each write in a
            transaction of its own when omitted.
    """

    def __init__(
        self,
        config: TableConfig,
        engine: sa.Engine,
        users: Callable[[str], int],
        *,
        now: float,
        shoe: ShuffledShoe | None = None,
        epoch: int | None = None,
        commits: Committer | None = None,
    ) -> None:
        preset = find_preset(config.preset)
        self.epoch = epoch
        self.commits: Committer = commits if commits is not None else OneByOne(engine)
        self.config = config
        self.preset = preset
        self.rules: Rules = preset.rules
        self.engine = engine
        self.users = users
        #: The boxes players reserved here, and who is away.
        self.seats = Seats(self.rules.boxes, config.grace_seconds)
        self.deadline: _Deadline | None = None
        self.number = 0
        self.shoe: ShuffledShoe | None = None
        if config.dealt == "rng":
            self.shoe = shoe if shoe is not None else ShuffledShoe.from_rules(self.rules)
        self.entry: DealerEntry | None = DealerEntry() if config.dealt == "dealer" else None
        self.check = CompositionCheck(self.rules.decks)
        # Each player's money the ledger holds on the round (None: ask the ledger).
        self._on_table: dict[str, Decimal] | None = None
        # The time of the last change, sent with the table so clients can read deadlines.
        self._now = now
        #: Players who said their bets are made (see :meth:`confirm_bets`).
        self.confirmed: set[str] = set()
        #: The process is stopping (:meth:`drain`): betting never closes, so the round
        #: taking bets is handed over whole to whichever process runs the table next.
        self.draining = False
        # (round, user) joined to a round's books by this process (see _store).
        self._joined: set[tuple[str, int]] = set()
        #: Seconds the last input's transaction took (:attr:`Outcome.close_seconds`).
        self._close_seconds = 0.0
        # The transaction of the inputs run together (see run_together), while they run.
        self._in: sa.Connection | None = None
        self._alone = False
        # The round's inputs by (player, key), for the round of that id (see _keys).
        self._keyed: dict[tuple[str | None, str], int] = {}
        self._keyed_round: str | None = None
        # Finished rounds' public events by round id (read back for the table's log).
        self._logged: dict[str, dict[str, Any]] = {}
        self.round: Round
        self.record: RoundRecord
        #: Whether the round at the table is in the database yet (its first input
        #: writes it): where its record is, not part of it, so kept beside it.
        self.stored = False
        #: What the recovery of an interrupted round did (RWS v5 5.4), for the process
        #: that now runs the table to announce.
        self.recovered: Outcome | None = None
        self._recover(now)

    # -- rounds ---------------------------------------------------------------------------------

    def _recover(self, now: float) -> None:
        """Pick up this table's open round from the database, or open a new one.

        A round found open was cut off by a failure: a technical interruption is
        recorded and the engine voids it unless an outcome is established (RWS v5 5.4).
        """
        with self.engine.begin() as conn:
            rows = rounds_store.open_rounds(conn, self.config.id)
            last = rounds_store.last_round(conn, self.config.id)
        if last is not None:
            self.number = last.number
            shoe = last.record.shoe_after
            if shoe is not None and self.shoe is not None:
                self.shoe = ShuffledShoe.restore(shoe)
        if not rows:
            self._open_round(now)
            return
        row = rows[0]
        self.number = row.number
        self.record = row.record
        self.stored = True  # read back: it is in the database
        self.round = self._rebuild(self.record)
        if self.round.phase is Phase.BETTING:
            self._set_deadline(now)
            return
        self.recovered = self.apply(Interrupt(), now=now)

    def _open_round(self, now: float) -> None:
        if self.shoe is not None and self.shoe.needs_shuffle:
            self.shoe.shuffle()
            self.check.reset()
        if self.entry is not None and self.entry.needs_shuffle:
            self.entry.shuffle()
            self.check.reset()
        self.number += 1
        self.record = RoundRecord(
            round_id=uuid.uuid4().hex,
            table=self.config.id,
            number=self.number,
            rules=self.preset.name,
            rules_version=self.preset.version,
            rules_values=self.rules.to_json(),
            dealt=self.config.dealt,
            shoe=self.shoe.snapshot() if self.shoe is not None else None,
            opened_at=_iso(now),
        )
        self.stored = False
        self.round = self._rebuild(self.record)
        self._on_table = {}
        self.deadline = None
        self.confirmed = set()

    def _rebuild(self, record: RoundRecord) -> Round:
        """The round a record describes, replayed from its first input."""
        game, source, check = replay(record, self.rules)
        if isinstance(source, ShuffledShoe):
            self.shoe = source
        else:
            self.entry = source
        self.check = check
        return game

    @property
    def round_id(self) -> str:
        """The id of the round at the table."""
        return self.record.round_id

    # -- inputs ---------------------------------------------------------------------------------

    def apply(
        self,
        command: Input,
        *,
        now: float,
        key: str | None = None,
        given: Collection[str] | None = None,
        balances: Collection[int] = (),
        balances_at_end: Collection[int] = (),
        by: str | None = None,
    ) -> Outcome:
        """Apply an input: to the engine, to the record and the wallet, in one transaction.

        The ``command`` is the engine's own, applied as it is (:meth:`Round.apply`); who
        may issue it was asked where it came in (the table socket), never here.  Its
        record keeps the arguments its sender ``given`` (``None``: all of them, an
        input of the table's own), as he sent them (:func:`croupier.inputs.arguments`).
        ``by`` names the dealer account that entered a dealer's input (recorded with it).

        The ``balances`` of these users (ids) whose money the input moved, and those of
        ``balances_at_end`` too when the input ends the round, are read in the same
        transaction and given with the outcome (none for a retry): a balance goes out
        when it changed.

        Raises:
            ActionRefused: the input is not one the table takes now (a retried ``key``
                is answered with its first outcome instead).
            InsufficientFunds: the player's balance does not cover the money it puts on
                the table.
            PlayRefused: the player's own limits, break or exclusion forbid the stake.
            CroupierError: the engine refused it (its typed error names why).
        """
        step = self._begin(command, now=now, key=key, given=given, by=by)
        if isinstance(step, Outcome):
            return step
        read: dict[int, Decimal] = {}
        try:
            staked = self._store(step.record, now, balances, balances_at_end, read, step.events)
        except Exception:
            self.round = self._rebuild(self.record)
            raise
        return self._finish(step, staked, read, now)

    async def apply_on_loop(
        self,
        command: Input,
        *,
        now: float,
        key: str | None = None,
        given: Collection[str] | None = None,
        balances: Collection[int] = (),
        balances_at_end: Collection[int] = (),
        by: str | None = None,
    ) -> Outcome:
        """:meth:`apply`, called on the event loop: the engine's step is taken here, and
        an input whose write is its row alone (a decision that moves no money and does
        not end the round) is written from here too, by the committer's
        :class:`~croupier.server.loop_writes.LoopWrites`, with no worker thread woken
        for it; any other input's write goes to the committer's threads, as
        :meth:`run_together` sends it.  Same answers, same errors, same record.
        """
        step = self._begin(command, now=now, key=key, given=given, by=by)
        if isinstance(step, Outcome):
            return step
        read: dict[int, Decimal] = {}
        on_loop = getattr(self.commits, "on_loop", None)
        # The one thing a write changes before its commit (_store's players joined to
        # the round, a new set each time): put back with the round if the commit fails.
        joined = self._joined
        try:
            changes = self._changes(step.events)
            # Its row alone, written here (None: not tried, the write lock being taken;
            # it goes to the committer's threads with the rest).
            written: bool | None = None
            if on_loop is not None and self.stored and changes.moves_nothing:
                started = time.perf_counter()
                lease = None if self.epoch is None else (self.config.id, self.epoch)
                seq = len(step.record.inputs) - 1
                round_id = step.record.round_id
                entry = step.record.inputs[-1]
                written = await on_loop.append(round_id, seq, entry, lease=lease)
                if written is False:
                    await asyncio.wrap_future(
                        self.commits.submit(
                            lambda conn: rounds_store.appended(
                                conn, _NOT_WRITTEN, round_id, seq, fence=self._fence
                            )
                        )
                    )
                    raise RoundError(f"input {seq} of round {round_id!r} was not written")
                self._close_seconds = time.perf_counter() - started
                staked = changes.staked
            if not written:

                def write(conn: sa.Connection) -> dict[str, Decimal]:
                    self._in, self._alone = conn, True
                    try:
                        return self._store(
                            step.record,
                            now,
                            balances,
                            balances_at_end,
                            read,
                            step.events,
                            changes,
                        )
                    finally:
                        self._in, self._alone = None, False

                staked = await asyncio.wrap_future(self.commits.submit(write))
        except Exception:
            self._joined = joined
            self.round = self._rebuild(self.record)
            raise
        return self._finish(step, staked, read, now)

    def _begin(
        self,
        command: Input,
        *,
        now: float,
        key: str | None,
        given: Collection[str] | None,
        by: str | None,
    ) -> _Step | Outcome:
        """The engine's step of :meth:`apply`, and the record with the input: what is to
        be written (or the outcome already known: a retry, a cut card)."""
        inputs = self.record.inputs
        player = player_of(command)
        entry = RecordedInput(
            command.op,
            player,
            {} if isinstance(command, CutCard) else arguments(command, given),
            _iso(now),
            key,
            by,
        )
        seq = None if key is None else self._keys().get((player, key))
        if seq is not None:
            earlier = inputs[seq]
            if earlier.op != entry.op or earlier.args != entry.args:
                # A key names one command: reused for another, it is refused, not
                # answered as a retry (the other command would be silently lost).
                raise ActionRefused(
                    f"idempotency key {key!r} was already used for another command "
                    f"({earlier.op}); use a new key for a new command",
                    code="key_conflict",
                )
            return Outcome([], self.round.phase in _OVER, seq, retried=True)
        if self.round.phase in _OVER:
            raise ActionRefused("the round is over; the next opens shortly", code="round_over")
        if isinstance(command, PlaceBet):
            self._check_box(command.player, command.box, command.bet)
        if isinstance(command, CutCard):
            if self.entry is None:
                raise ActionRefused("this table deals from the server's shoe", code="not_dealer")
            self.entry.mark_cut_card()
            return Outcome([], False, len(inputs))
        start = self.round.event_count
        # A refused input changes nothing in the round: its typed error goes back as it is.
        self.round.apply(command)
        events = list(self.round.events_since(start))
        record = self.record.with_input(entry)
        if self.round.phase in _OVER:
            # The shoe as the round left it: where the table's next round starts.
            after = self.shoe.snapshot() if self.shoe is not None else None
            record = record.closed(_iso(now), after)
        return _Step(command, player, key, record, events, start)

    def _finish(
        self, step: _Step, staked: dict[str, Decimal], read: dict[int, Decimal], now: float
    ) -> Outcome:
        """The table once its input is written (:meth:`apply`): its record, keys, stakes
        and clocks; the input's outcome."""
        command = step.command
        seq = len(self.record.inputs)
        self.record = step.record
        self.stored = True
        if step.key is not None:
            self._keys()[step.player, step.key] = seq
        if isinstance(command, PlaceBet | Withdraw):
            self.confirmed.discard(command.player)  # a changed bet is confirmed again
        over = self.round.phase in _OVER
        self._on_table = None if over else staked
        self._set_deadline(now)
        return Outcome(
            step.events,
            over,
            seq,
            balances=read,
            first=step.first,
            close_seconds=self._close_seconds if over else None,
        )

    async def run_together(
        self, runs: Sequence[Callable[[], R]]
    ) -> list[tuple[R | None, Exception | None]]:
        """Run several inputs to this table (``runs``, each calling :meth:`apply`), in
        order, as one write: each input's record and money in a savepoint of one
        transaction, committed once for all of them (a crowd's bets in one commit).
        They run where their commit is made (on SQLite, the committing thread), and the
        caller's loop is free until it has committed.  What the table's actor uses.

        Returns what each run returned or raised.  An input refused (by the engine, the
        ledger or the player's limits) is rolled back alone, as it would be on its own,
        and the next sees the table without it.  If the commit fails, none of them
        happened: the table is as it was before the first, and each is given the error.
        """
        on_loop = getattr(self.commits, "on_loop", None)
        if len(runs) == 1 and isinstance(runs[0], OnLoop) and on_loop is not None and on_loop.now():
            try:
                return [(await runs[0].on_loop(), None)]
            except Exception as error:
                return [(None, error)]
        saved = self._saved()
        try:
            future = self.commits.submit(self._together(runs), inputs=len(runs))
            return await asyncio.wrap_future(future)
        except Exception as error:
            return self._undone(saved, runs, error)

    def _together(
        self, runs: Sequence[Callable[[], R]]
    ) -> Callable[[sa.Connection], list[tuple[R | None, Exception | None]]]:
        """The write of :meth:`run_together`.  One input alone needs no savepoint of its own:
        refused, it is raised out of the write (as :class:`_Refused`), which rolls back
        what it wrote with the write's own transaction or savepoint."""
        alone = len(runs) == 1

        def write(conn: sa.Connection) -> list[tuple[R | None, Exception | None]]:
            self._in = conn
            self._alone = alone
            try:
                done: list[tuple[R | None, Exception | None]] = []
                for run in runs:
                    try:
                        done.append((run(), None))
                    except Exception as error:
                        if conn.invalidated or not conn.in_transaction():
                            raise  # the transaction is gone: the commit fails
                        if alone:
                            raise _Refused(error) from error
                        done.append((None, error))
                return done
            finally:
                self._in = None
                self._alone = False

        return write

    def _undone(
        self, saved: _Saved, runs: Sequence[Callable[[], R]], error: Exception
    ) -> list[tuple[R | None, Exception | None]]:
        """What :meth:`run_together` answers when its write did not commit."""
        if isinstance(error, _Refused):
            # One input refused: :meth:`apply` left the table as it was before it.
            return [(None, error.error)]
        self._restore(saved)
        return [(None, error) for _ in runs]

    def _saved(self) -> _Saved:
        """What inputs change in the table, to put back if their commit fails."""
        return _Saved(
            self.record,
            self.stored,
            set(self.confirmed),
            None if self._on_table is None else dict(self._on_table),
            self._joined,
            self.deadline,
            self._now,
        )

    def _restore(self, saved: _Saved) -> None:
        self.record = saved.record
        self.stored = saved.stored
        self.round = self._rebuild(saved.record)
        self.confirmed = saved.confirmed
        self._on_table = saved.on_table
        self._joined = saved.joined
        self.deadline = saved.deadline
        self._now = saved.now
        self._keyed_round = None  # the index of keys is made again from the record

    def _keys(self) -> dict[tuple[str | None, str], int]:
        """The round's inputs by (player, idempotency key): a retry is found at once,
        however many inputs the round has (a crowd betting behind)."""
        if self._keyed_round != self.round_id:
            self._keyed_round = self.round_id
            self._keyed = {}
            for seq, earlier in enumerate(self.record.inputs):
                if earlier.key is not None:
                    self._keyed.setdefault((earlier.player, earlier.key), seq)
        return self._keyed

    def _check_box(self, player: str, box: int, bet: str) -> None:
        """A reserved box takes a first initial bet only from the player who took it."""
        holder = self.seats.holder(box)
        if holder is None or holder == player or bet != "main":
            return
        if self.round.seated_player(box) is None:
            # A bet behind him once he has bet, where the rules have standing players.
            then = f"; bet behind once {holder} has bet" if self.rules.bets_behind else ""
            raise ActionRefused(f"box {box} is taken by {holder}{then}", code="box_taken")

    def _changes(self, events: Sequence[Event] | None) -> _Changes:
        """What the input just taken moves (see :class:`_Changes`): worked out from the
        round and what the ledger holds on it, before anything is written."""
        game = self.round
        over = game.phase in _OVER
        status = "open" if not over else ("void" if game.phase is Phase.VOID else "settled")
        # What the ledger holds on the round: known after the last write, else asked.
        known = self._on_table if not over else None
        # Before the deal, a bet or a withdrawal moves its own player's money alone:
        # only his stake is summed again, so that a bet costs the same with a thousand
        # players betting behind as with one.
        named = _bettors(events) if known is not None and game.phase is Phase.BETTING else None
        if named is not None and known is not None:
            now_staked = game.staked_by_player(of=named)
            staked = {**known, **now_staked}
            for gone in named - now_staked.keys():
                staked.pop(gone, None)
        else:
            staked = game.staked_by_player()
        if named is not None and known is not None:
            names = {
                name for name in named if staked.get(name, _NOTHING) != known.get(name, _NOTHING)
            }
        elif known is not None:
            names = {
                name
                for name in staked.keys() | known.keys()
                if staked.get(name, _NOTHING) != known.get(name, _NOTHING)
            }
        else:
            names = {*staked, *(result.player for result in game.results), *(self._on_table or {})}
        return _Changes(over, status, known, staked, names)

    def _store(
        self,
        record: RoundRecord,
        now: float,
        balances: Collection[int] = (),
        balances_at_end: Collection[int] = (),
        read: dict[int, Decimal] | None = None,
        events: Sequence[Event] | None = None,
        changes: _Changes | None = None,
    ) -> dict[str, Decimal]:
        """Write the record, move the money it moved, close the round when it is over;
        the ``balances`` of these users whose money it moved (and of ``balances_at_end``
        too when the round is over) then go into ``read``.

        ``events``: what the input did, when it was an input (a bet's own players are
        then all whose money it can have moved, before the deal); ``changes``: what it
        moves, where the caller worked it out already (:meth:`_changes`).

        Returns each player's money on the table, as the ledger now holds it.
        """
        game = self.round
        round_id = record.round_id
        seq = len(record.inputs) - 1
        entry = record.inputs[-1]
        stored = self.stored
        if changes is None:
            changes = self._changes(events)
        over, status, known = changes.over, changes.status, changes.known
        staked, names = changes.staked, changes.names
        # Names to ids first (a lookup inside the write transaction would wait on
        # itself): only those whose money moves, when the ledger's stakes are known.
        ids = {name: self.users(name) for name in names}
        # The players this input joins to the round (known once it is written).
        joined: set[tuple[str, int]] = set()
        moves_nothing = changes.moves_nothing
        # Where one player's money moves before the round is over (a bet, a double, a
        # withdrawal), what it moves is known before the write: its reads are sent with
        # the input's row, in one round trip (see _send_ahead).
        ahead: tuple[int, Decimal] | None = None
        if known is not None and not over and len(names) == 1:
            (name,) = names
            change = staked.get(name, _NOTHING) - known.get(name, _NOTHING)
            if change:
                ahead = (ids[name], change)
        started = time.perf_counter()

        def write(conn: sa.Connection) -> None:
            # First: nothing is written once another process has claimed the table.
            lease = None if self.epoch is None else (self.config.id, self.epoch)
            if stored and moves_nothing:
                # The input's row is the whole write (a decision that moves no money):
                # on PostgreSQL, a transaction of its own without BEGIN and COMMIT.
                with driver.alone(conn):
                    rounds_store.append_input(
                        conn, round_id, seq, entry, lease=lease, fence=self._fence
                    )
                return
            sent: dict[int, _Sent] = {}
            if stored:
                # One row for the new input: the round's record is not rewritten.  The
                # same statement holds the table's lease (the fence).
                with driver.pipeline(conn):
                    appended = rounds_store.send_input(conn, round_id, seq, entry, lease=lease)
                    if ahead is not None:
                        sent = {ahead[0]: self._send_ahead(conn, round_id, seq, *ahead)}
                rounds_store.appended(conn, appended, round_id, seq, fence=self._fence)
            else:
                self._fence(conn)
                rounds_store.create_round(
                    conn,
                    round_id=round_id,
                    table_id=self.config.id,
                    number=record.number,
                    rules_name=self.preset.name,
                    rules_version=str(self.preset.version),
                    record=record,
                )
                if staked:
                    # The round's account with the round, for its first stakes to find.
                    ledger.open_round_account(conn, round_id)
            if known is not None:
                on_table = {ids[name]: known[name] for name in names if name in known}
                wanted = {ids[name]: staked[name] for name in names if name in staked}
            else:
                on_table = ledger.round_stakes(conn, round_id)
                wanted = {ids[name]: amount for name, amount in staked.items()}
            op = entry.op
            moment = datetime.fromtimestamp(now, UTC)
            # Every player with money on the table, or who had some (a withdrawn bet).
            moved: set[int] = set()
            # Their balances after, as their stakes' and refunds' locks read them.
            after: dict[int, Decimal] = {}
            for user in sorted(set(wanted) | set(on_table)):
                delta = wanted.get(user, Decimal(0)) - on_table.get(user, Decimal(0))
                if delta:
                    moved.add(user)
                first = sent.get(user, _NOT_SENT)
                if delta > 0:
                    # The player's own limits hold every stake (PlayRefused: nothing
                    # of this input is written).
                    limits.check_stake(
                        conn, user, delta, new_bet=op == "bet", now=moment, sent=first.limits
                    )
                    if (round_id, user) not in self._joined:
                        if first.join is None:
                            rounds_store.join_round(conn, round_id, user)
                        else:
                            rounds_store.joined(conn, first.join, round_id, user)
                        joined.add((round_id, user))
                    ledger.stake(
                        conn,
                        user,
                        round_id,
                        delta,
                        idempotency_key=f"{round_id}:{seq}:{user}",
                        memo=f"round {record.number} at {self.config.id}: {op}",
                        reads=first.move,
                        after=after,
                    )
                elif delta < 0:
                    ledger.refund(
                        conn,
                        user,
                        round_id,
                        -delta,
                        idempotency_key=f"{round_id}:{seq}:{user}",
                        memo=f"round {record.number}: bet withdrawn",
                        reads=first.move,
                        after=after,
                    )
            if over:
                returns: dict[int, Decimal] = {}
                for result in game.results:
                    user = ids[result.player]
                    returns[user] = returns.get(user, Decimal(0)) + result.stake + result.net
                ledger.close_round(
                    conn,
                    round_id,
                    returns,
                    idempotency_key=f"{round_id}:close",
                    void=game.phase is Phase.VOID,
                    table=self.config.id,
                )
                # The balances the players are sent and those the round paid, in one read.
                told = {*balances, *balances_at_end} if read is not None else set()
                held = ledger.balances(conn, returns.keys() | told)
                rounds_store.finish_round_players(
                    conn, round_id, {user: held[user] for user in returns}
                )
                rounds_store.save_round(conn, round_id, record=record, status=status)
                if read is not None:
                    read.update((user, held[user]) for user in told)
            elif read is not None:
                # A balance is sent when money moved: a stake's or a refund's is known from
                # its lock (no read).
                users = set(balances) & moved
                read.update((user, after[user]) for user in users & after.keys())
                if users - after.keys():
                    read.update(ledger.balances(conn, users - after.keys()))

        if self._in is not None and self._alone:
            # Run alone in the write of :meth:`run_together`: its transaction is this one's.
            write(self._in)
        elif self._in is not None:
            # One of several inputs run together: in a savepoint of their transaction.
            with driver.savepoint(self._in):
                write(self._in)
        else:
            self.commits.run(write)
        # Committed (or, run together, to be committed with the others): these players
        # are in the round's books (asked again after a restart).
        self._joined = set() if over else self._joined | joined
        self._close_seconds = time.perf_counter() - started
        return staked

    def _send_ahead(
        self, conn: sa.Connection, round_id: str, seq: int, user: int, change: Decimal
    ) -> _Sent:
        """Send the reads of the one movement of input ``seq`` (``change`` of ``user``'s
        money on the table), in the pipeline of the input's own row: a stake's limits and
        its join to the round (a player's first), then the ledger's reads of a stake or a
        refund.  Each is checked after, in the order of a write without them."""
        read = joining = None
        if change > 0:
            read = limits.send_read(conn, user)
            if (round_id, user) not in self._joined:
                joining = rounds_store.send_join(conn, round_id, user)
        key = f"{round_id}:{seq}:{user}"
        return _Sent(
            read, joining, ledger.send_move_reads(conn, user, round_id, idempotency_key=key)
        )

    def _fence(self, conn: sa.Connection) -> None:
        """Hold the table's lease for ``conn``'s transaction (:func:`fence`), where it
        has one; :class:`~croupier.server.ownership.TableLost` if it was claimed."""
        if self.epoch is not None:
            fence(conn, self.config.id, self.epoch)

    # -- clocks ---------------------------------------------------------------------------------

    def _set_deadline(self, now: float) -> None:
        self._now = now
        game = self.round
        config = self.config
        if game.phase in _OVER:
            self.deadline = _Deadline("next_round", now + config.pause_seconds)
        elif game.phase is Phase.BETTING:
            if not game.has_bets:
                self.deadline = None
            elif self.deadline is None or self.deadline.kind != "betting":
                self.deadline = _Deadline("betting", now + config.betting_seconds)
        elif game.offers:
            who = game.offers[0].player
            if self.deadline is None or self.deadline.kind != "offer" or self.deadline.who != who:
                self.deadline = _Deadline("offer", now + config.offer_seconds, who)
        elif game.current_turn is not None:
            box, hand = game.current_turn
            who = f"{box}.{hand}"
            if (
                self.deadline is None
                or self.deadline.kind != "decision"
                or self.deadline.who != who
            ):
                self.deadline = _Deadline("decision", now + config.decision_seconds, who)
        else:
            self.deadline = None  # waiting for a dealer's card

    def tick(self, now: float) -> Outcome | None:
        """Do what a clock that ran out says; ``None`` when nothing was due."""
        deadline = self.deadline
        self.seats.release_expired(now)
        if deadline is None or now < deadline.at:
            return None
        if deadline.kind == "next_round":
            self._open_round(now)
            return Outcome([], False, 0, notes=["new_round"])
        if deadline.kind == "betting":
            if self.draining:
                self.deadline = None  # set again by the next bet; handed over meanwhile
                return None
            return self._close_betting(now)
        # Cleared first, so that the next offer or hand gets a clock of its own; put
        # back when the time-out fails (say, the database), so the next tick retries it.
        self.deadline = None
        try:
            return self.apply(TimeOut(), now=now)
        except Exception:
            self.deadline = deadline
            raise

    async def tick_on_loop(self, now: float) -> Outcome | None:
        """:meth:`tick`, called on the event loop: a new round opens here (nothing is
        written), "No more bets" and a hand's time-out are taken as :meth:`apply_on_loop`
        takes a player's input (a row alone is written from the loop); boxes under the
        minimum handed back, bets that cannot open the round and a table stopping take
        :meth:`tick`'s way, in a thread."""
        deadline = self.deadline
        if deadline is None or now < deadline.at or deadline.kind == "next_round":
            return self.tick(now)  # nothing to write
        if deadline.kind == "betting":
            if self.draining or self.round.boxes_short_of_minimum():
                return await asyncio.to_thread(self.tick, now)
            self.seats.release_expired(now)
            try:
                return await self.apply_on_loop(CloseBets(), now=now)
            except CroupierError as error:
                # No bet can open the round (say, only side bets): every bet goes back.
                return await self.apply_on_loop(Void(f"bets could not close: {error}"), now=now)
        self.seats.release_expired(now)
        # As tick: cleared first, put back when the time-out fails.
        self.deadline = None
        try:
            return await self.apply_on_loop(TimeOut(), now=now)
        except Exception:
            self.deadline = deadline
            raise

    def _close_betting(self, now: float) -> Outcome | None:
        """ "No more bets": every bet on the layout plays, boxes under the minimum aside."""
        returned = self._return_boxes_under_minimum(now)
        if not self.round.has_bets:
            # Every bet went back: the round waits for bets as before.
            return returned
        try:
            closed = self.apply(CloseBets(), now=now)
            if returned is not None:
                closed.events[:0] = returned.events
                closed.first = returned.first
            return closed
        except CroupierError as error:
            # No bet can open the round (say, only side bets): every bet goes back.
            return self.apply(Void(f"bets could not close: {error}"), now=now)

    def confirm_bets(self, player: str, now: float) -> tuple[Decimal, Outcome | None]:
        """``player`` says his bets are made: returns their total, and the round's deal
        when every player with a bet on the layout and every player seated at the table
        (not away) has confirmed (no need to wait for the betting clock).

        A bet placed or withdrawn afterwards is confirmed again.  Refused while the
        player has no bet on the layout, or has a box under the table minimum (RWS v5
        5.2: the minimum must be met before the deal).
        """
        game = self.round
        if game.phase is not Phase.BETTING:
            raise ActionRefused(
                f"no more bets ({self.rules.cite_no_more_bets}): the round is under way",
                code="bets_closed",
            )
        mine = game.bets_of(player)
        if not mine:
            raise ActionRefused(
                "you have no bet on the layout: put chips on a betting spot first",
                code="no_bets",
            )
        short = game.boxes_short_of_minimum()
        short_mine = sorted({placed.box for placed in mine if placed.bet == "main"} & set(short))
        if short_mine:
            box = short_mine[0]
            raise ActionRefused(
                f"box {box} carries {short[box]}, under the table minimum "
                f"{self.rules.minimum_bet}; raise or withdraw it ({self.rules.cite_box_minimum})",
                code="under_minimum",
            )
        self.confirmed.add(player)
        total = sum((placed.amount for placed in mine), Decimal(0))
        self._now = now
        if self._everyone_confirmed() and not self.draining:
            return total, self._close_betting(now)
        return total, None

    def _everyone_confirmed(self) -> bool:
        """Whether "No more bets" may come before the clock: every player with a bet on
        the layout, and every player seated at a box here (who may not have bet yet),
        has confirmed.  One player's confirmation never shortens another's time to bet
        (a live table gives everyone the same betting time)."""
        waiting = {placed.player for placed in self.round.placed_bets}
        waiting |= self.seats.present()
        return waiting <= self.confirmed

    def events_since(
        self, round_id: str, first: int, *, dealer: bool = False
    ) -> list[dict[str, Any]] | None:
        """The round's events from the ``first``-th on, as a viewer (or the dealer) may
        see them; ``None`` when ``round_id`` is not the round at the table."""
        if round_id != self.round_id:
            return None
        return public_events(list(self.round.events_since(first)), dealer=dealer)

    def drain(self) -> bool:
        """Stop dealing new rounds (the process is stopping); whether the table can be
        handed over now: its round still takes bets (RWS v5 5.4: the next process goes
        on with it, bets and all) or is over.  A round in play is played out first."""
        self.draining = True
        if self.deadline is not None and self.deadline.kind == "betting":
            self.deadline = None
        return self.round.phase is Phase.BETTING or self.round.phase in _OVER

    def _return_boxes_under_minimum(self, now: float) -> Outcome | None:
        """At "No more bets", a box still under the table minimum has its bets returned.

        RWS v5 5.2: the player is told the minimum must be met and may raise or
        withdraw his bet while bets are open; when the betting clock runs out with the
        box still short, the box does not play and its bets (side bets on it too) come
        back to their players.  The other boxes play on: one short box never holds up
        or voids the others' round.
        """
        short = self.round.boxes_short_of_minimum()
        if not short:
            return None
        events: list[Event] = []
        outcome: Outcome | None = None
        for placed in list(self.round.placed_bets):
            if placed.box in short:
                outcome = self.apply(Withdraw(placed.player, placed.box, placed.bet), now=now)
                events.extend(outcome.events)
        assert outcome is not None
        outcome.events = events
        return outcome

    # -- seats (croupier.server.seats) ----------------------------------------------------------

    def take_box(self, player: str, box: int) -> None:
        """Reserve a box for ``player``: others may bet behind him once he has bet."""
        self.seats.take(player, box, seated=self.round.seated_player(box))

    def leave_box(self, player: str, box: int) -> None:
        """Give a reserved box back."""
        self.seats.leave(player, box)

    def disconnected(self, player: str, now: float) -> None:
        """The player's last connection closed: his boxes wait for the grace period."""
        self.seats.disconnected(player, now)

    def reconnected(self, player: str) -> None:
        """The player is back: his boxes are his again."""
        self.seats.reconnected(player)

    # -- what a viewer sees ---------------------------------------------------------------------

    def view(self, viewer: str | None, *, dealer: bool = False) -> dict[str, Any]:
        """The table as ``viewer`` may see it (no hole card, no shoe, no seed; see
        :mod:`croupier.server.views`)."""
        return personal_view(self, public_view(self), viewer, dealer=dealer)

    @property
    def changed_at(self) -> float:
        """When the table last changed (the ``now`` of the input or clock that did it)."""
        return self._now

    def log(self, rounds: int) -> list[dict[str, Any]]:
        """The table's log: the events of its last ``rounds`` finished rounds and of the
        round at the table, oldest first, as anyone watching may see them.

        Finished rounds are read back from the database and replayed (so the log
        survives a restart); the round in play shows no face-down card.
        """
        with self.engine.begin() as conn:
            rows = rounds_store.recent_rounds(conn, self.config.id, rounds + 1)
        shown: list[dict[str, Any]] = []
        for row in reversed(rows):
            if row.id == self.round_id or row.status == "open":
                continue
            entry = self._logged.get(row.id)
            if entry is None:
                try:
                    game, _, _ = replay(row.record, self.rules)
                except CroupierError:
                    continue  # played under other rules: not replayed here
                entry = {
                    "round": row.id,
                    "number": row.number,
                    "status": row.status,
                    "events": public_events(list(game.events), dealer=True),
                }
                if len(self._logged) > 4 * rounds + 16:
                    self._logged.clear()
                self._logged[row.id] = entry
            shown.append(entry)
        shown = shown[-rounds:] if rounds > 0 else []
        shown.append(
            {
                "round": self.round_id,
                "number": self.number,
                "status": "open" if self.round.phase not in _OVER else self.round.phase.value,
                "events": public_events(list(self.round.events)),
            }
        )
        return shown
