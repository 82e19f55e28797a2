"""Inputs written from the event loop (croupier.server.loop_writes): the same round,
record and money as through the writes' threads, and a database's errors typed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import select

from croupier.presets import find_rules
from croupier.round import Phase
from croupier.server import db, rounds_store
from croupier.server.commits import GroupCommit, OneByOne, for_engine
from croupier.server.errors import RoundError
from croupier.server.runtime import OnLoop, Outcome, TableConfig, TableRuntime
from croupier.server.schema import round_inputs
from croupier.shoe import ShuffledShoe
from tests.server.tables import balance, books, make_users, sent, table

pytestmark = pytest.mark.postgres

# No hole card (rws-v5): ann's 8, the up card 6, ann's 8; then the split hands' cards K
# and 9, then the dealer's Q and J (bust).
CARDS = "8S 6D 8H KC 9C QD JD"


@pytest.fixture
def engine(postgres_url: str) -> Iterator[sqlalchemy.Engine]:
    engine = db.connect(postgres_url)
    db.migrate(engine)
    yield engine
    engine.dispose()


def twin(
    engine: sqlalchemy.Engine, players: dict[str, int], commits: OneByOne | GroupCommit
) -> TableRuntime:
    """A second table dealing ``CARDS``, its players' names (those of the first) played
    by the users ``players`` names."""
    return TableRuntime(
        TableConfig(id="second", preset="rws-v5"),
        engine,
        players.__getitem__,
        now=0.0,
        shoe=ShuffledShoe.stacked(CARDS, decks=find_rules("rws-v5").decks),
        commits=commits,
    )


async def run(
    runtime: TableRuntime, op: str, player: str, args: dict[str, Any], now: float
) -> Outcome:
    """One input as the table's actor runs it alone (TableRuntime.run_together)."""
    command = sent(op, player, args)

    def apply() -> Outcome:
        return runtime.apply(command, now=now)

    async def on_loop() -> Outcome:
        return await runtime.apply_on_loop(command, now=now)

    [(outcome, error)] = await runtime.run_together([OnLoop(apply, on_loop)])
    if error is not None:
        raise error
    assert outcome is not None
    return outcome


async def play(runtime: TableRuntime, *, clock_on_loop: bool = False) -> list[Outcome]:
    """RWS v5 1.26 (a second player's bet on ann's box), 3.16 (surrender offered and
    declined), 3.21 (a split), 3.23 (the dealer's play): a round of eight inputs
    (``clock_on_loop``: "No more bets" by the clock as the actor takes it on the loop)."""
    outcomes = [
        await run(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1),
        await run(runtime, "bet", "bob", {"box": 1, "amount": "50"}, now=2),
    ]
    closing = 2 + runtime.config.betting_seconds
    closed = await runtime.tick_on_loop(closing) if clock_on_loop else runtime.tick(closing)
    assert closed is not None  # no more bets
    outcomes += [
        await run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=19),
        await run(runtime, "split", "ann", {}, now=21),
        await run(runtime, "decline", "bob", {"box": 1, "kind": "follow-split"}, now=22),
        await run(runtime, "stand", "ann", {}, now=23),
        await run(runtime, "stand", "ann", {}, now=24),
    ]
    return outcomes


def test_a_round_written_from_the_loop_is_the_round_written_by_the_threads(
    engine: sqlalchemy.Engine,
) -> None:
    """The same round played twice, on two tables of the same cards: through the
    writes' threads alone, and with the lone rows written from the loop (the clock's
    "No more bets" and the three decisions that move no money and do not end the round;
    the bets, the split and the last stand, which pays, go to the threads).  Same
    events, same record, same money, and the books balance."""
    ids = make_users(engine, "ann", "bob", "carl", "dina")
    threads = OneByOne(engine)
    looped = for_engine(engine)
    assert isinstance(looped, OneByOne) and looped.on_loop is not None
    first = table(engine, ids, "rws-v5", CARDS, commits=threads)
    second = twin(engine, {"ann": ids["carl"], "bob": ids["dina"]}, looped)

    async def both() -> tuple[list[Outcome], list[Outcome]]:
        try:
            return await play(first), await play(second, clock_on_loop=True)
        finally:
            await looped.on_loop.close()  # type: ignore[union-attr]

    try:
        by_threads, by_loop = asyncio.run(both())
    finally:
        threads.close()
        looped.close()
    assert [(o.seq, o.over, o.events) for o in by_loop] == [
        (o.seq, o.over, o.events) for o in by_threads
    ]
    assert by_loop[-1].over and second.round.phase is Phase.SETTLED
    assert looped.on_loop.rows == 4  # no more bets, decline, decline, the first stand
    assert looped.on_loop.opened == 1
    with engine.connect() as conn:
        stored = [rounds_store.load_round(conn, rt.round_id).record for rt in (first, second)]
    assert [(i.op, i.player, i.args) for i in stored[1].inputs] == [
        (i.op, i.player, i.args) for i in stored[0].inputs
    ]
    assert stored[1].inputs == second.record.inputs
    assert [balance(engine, ids[name]) for name in ("carl", "dina")] == [
        Decimal("1200.00"),
        Decimal("1050.00"),
    ]
    assert balance(engine, ids["carl"]) == balance(engine, ids["ann"])
    assert looped.inputs == threads.inputs == 8  # the clock's input too, each written once
    assert books(engine) == []


def test_the_clocks_inputs_taken_on_the_loop_are_those_taken_in_a_thread(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.3 (a hand whose decision time runs out draws to 12 or more, then
    stands): the clock's inputs as the actor takes them on the loop
    (``tick_on_loop``) and as a thread takes them (``tick``), at two tables of the same
    cards: "No more bets" and ann's time-out written from the loop, the time-out that
    ends the round (the dealer's play, the payout) through the writes' threads; same
    events, same record, same money, and the next round opened by the clock alike."""
    ids = make_users(engine, "ann", "bob")
    threads = OneByOne(engine)
    looped = for_engine(engine)
    assert isinstance(looped, OneByOne) and looped.on_loop is not None
    first = table(engine, ids, "rws-v5", CARDS, commits=threads)
    second = twin(engine, {"ann": ids["bob"]}, looped)

    async def clocks(runtime: TableRuntime, on_loop: bool) -> list[Outcome]:
        outcomes = [await run(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)]
        while (deadline := runtime.deadline) is not None:
            now = deadline.at
            ticked = await runtime.tick_on_loop(now) if on_loop else runtime.tick(now)
            assert ticked is not None
            outcomes.append(ticked)
            if ticked.over:
                break
        return outcomes

    async def both() -> tuple[list[Outcome], list[Outcome]]:
        try:
            return await clocks(first, False), await clocks(second, True)
        finally:
            await looped.on_loop.close()  # type: ignore[union-attr]

    try:
        by_thread, by_loop = asyncio.run(both())
    finally:
        threads.close()
        looped.close()
    assert [(o.seq, o.over, o.events) for o in by_loop] == [
        (o.seq, o.over, o.events) for o in by_thread
    ]
    assert by_loop[-1].over and second.round.phase is Phase.SETTLED
    assert [i.op for i in second.record.inputs] == ["bet", "close_bets", "time_out", "time_out"]
    assert looped.on_loop.rows == 2  # no more bets, ann's first hand's time-out
    with engine.connect() as conn:
        stored = rounds_store.load_round(conn, second.round_id).record
    assert stored.inputs == second.record.inputs
    assert balance(engine, ids["bob"]) == balance(engine, ids["ann"])
    assert books(engine) == []
    # The round over, the clock opens the next one at both tables alike.
    pause = [runtime.deadline for runtime in (first, second) if runtime.deadline is not None]
    assert len(pause) == 2 and pause[0] == pause[1] and pause[0].kind == "next_round"
    opened = [first.tick(pause[0].at), asyncio.run(second.tick_on_loop(pause[0].at))]
    assert [o.notes for o in opened if o is not None] == [["new_round"]] * 2
    assert second.number == first.number == 2
    assert [first.round.phase, second.round.phase] == [Phase.BETTING] * 2


def test_a_row_the_database_refuses_or_whose_connection_is_cut_changes_nothing(
    engine: sqlalchemy.Engine,
) -> None:
    """A decision whose connection was cut (an administrator's ``pg_terminate_backend``,
    a database restart) raises the database's error as SQLAlchemy types it; one whose
    row is not the next (another writer's row in its place) raises why
    (:class:`RoundError`, asked in a transaction of its own).  Either way the table is
    as it was, nothing of the input is written, and the next decision is taken on a new
    connection."""
    ids = make_users(engine, "ann", "bob")
    commits = for_engine(engine)
    assert isinstance(commits, OneByOne) and commits.on_loop is not None
    runtime = table(engine, ids, "rws-v5", CARDS, commits=commits)
    on_loop = commits.on_loop

    def state() -> tuple[Any, ...]:
        return (runtime.record, runtime.round.phase, len(runtime.round.events))

    async def scenario() -> None:
        await run(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
        assert runtime.tick(now=1 + runtime.config.betting_seconds) is not None
        before = state()
        # A row for no place: nothing written; the connection is open.
        assert not await on_loop.append(runtime.round_id, -1, runtime.record.inputs[-1])
        assert on_loop._connection is not None
        backend = on_loop._connection.info.backend_pid
        with engine.connect() as admin:
            admin.execute(sqlalchemy.text("SELECT pg_terminate_backend(:p)"), {"p": backend})
        with pytest.raises(sqlalchemy.exc.OperationalError):
            await run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=19)
        assert state() == before
        seq = len(runtime.record.inputs)
        with engine.begin() as conn:
            conn.execute(
                round_inputs.insert().values(round_id=runtime.round_id, seq=seq, input="{}")
            )
        with pytest.raises(RoundError, match=f"has {seq + 1} inputs"):
            await run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=20)
        assert state() == before
        with engine.begin() as conn:
            conn.execute(round_inputs.delete().where(round_inputs.c.seq == seq))
        taken = await run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=21)
        assert taken.seq == seq and not taken.over
        assert on_loop.opened == 2
        with engine.connect() as conn:
            rows = conn.execute(
                select(round_inputs.c.seq).where(round_inputs.c.round_id == runtime.round_id)
            ).scalars()
            assert list(rows) == list(range(seq + 1))
        await on_loop.close()

    try:
        asyncio.run(scenario())
    finally:
        commits.close()


def test_a_row_cut_short_by_its_task_is_cancelled_at_the_database_too(
    engine: sqlalchemy.Engine,
) -> None:
    """A row whose task is cancelled while the database has not answered (it waits for
    another writer's row in the same place; a table stopping cancels its work) is
    cancelled at the database too (psycopg's asynchronous connection asks the server to
    cancel the statement and reads its answer to the end): it is not written once the
    other writer is gone, as its table believes, and the connection answers the next
    row, not the last one's reply."""
    ids = make_users(engine, "ann")
    commits = for_engine(engine)
    assert isinstance(commits, OneByOne) and commits.on_loop is not None
    runtime = table(engine, ids, "rws-v5", CARDS, commits=commits)
    on_loop = commits.on_loop

    async def scenario() -> None:
        await run(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
        assert await runtime.tick_on_loop(1 + runtime.config.betting_seconds) is not None
        assert on_loop.opened == 1
        seq = len(runtime.record.inputs)
        entry = runtime.record.inputs[-1]
        with engine.connect() as other:
            # Another writer's row in the place, not committed: the row waits for it.
            other.execute(
                round_inputs.insert().values(round_id=runtime.round_id, seq=seq, input="{}")
            )
            waiting = asyncio.ensure_future(on_loop.append(runtime.round_id, seq, entry))
            done, _ = await asyncio.wait([waiting], timeout=0.5)
            assert not done  # the database has not answered
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            other.rollback()
        taken = await run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=19)
        assert taken.seq == seq and not taken.over
        with engine.connect() as conn:
            rows = conn.execute(
                select(round_inputs.c.seq).where(round_inputs.c.round_id == runtime.round_id)
            ).scalars()
            assert list(rows) == list(range(seq + 1))
        await on_loop.close()

    try:
        asyncio.run(scenario())
    finally:
        commits.close()
