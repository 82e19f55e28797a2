"""Inputs written from the event loop on a SQLite file (croupier.server.sqlite_writes):
the same round, record and money as through the group commit, taken there only when
the group commit has nothing in hand and the file's write lock is free."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import select

from croupier.round import Phase
from croupier.server import db, rounds_store
from croupier.server.commits import GroupCommit, for_engine
from croupier.server.errors import RoundError
from croupier.server.runtime import Outcome
from croupier.server.schema import round_inputs
from tests.server.tables import balance, books, make_users, table
from tests.server.test_loop_writes import CARDS, play, run, twin


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "croupier.db"


@pytest.fixture
def engine(path: Path) -> Iterator[sqlalchemy.Engine]:
    engine = db.connect(f"sqlite:///{path}")
    db.migrate(engine)
    yield engine
    engine.dispose()


def looped(engine: sqlalchemy.Engine) -> GroupCommit:
    commits = for_engine(engine)
    assert isinstance(commits, GroupCommit) and commits.on_loop is not None
    return commits


def test_only_a_file_has_rows_written_from_the_loop() -> None:
    """An in-memory database is each connection's own: its rows all go to the group
    commit."""
    commits = for_engine(db.connect("sqlite://"))
    assert isinstance(commits, GroupCommit) and commits.on_loop is None


def test_a_round_written_from_the_loop_is_the_round_written_by_the_group_commit(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 1.26, 3.16, 3.21, 3.23 (the round of tests/server/test_loop_writes.py):
    the same round at two tables of the same cards, through the group commit alone
    and with the lone rows written from the loop ("No more bets" and the three
    decisions that move no money and do not end the round).  Same events, same
    record, same money, and the books balance."""
    ids = make_users(engine, "ann", "bob", "carl", "dina")
    threads = GroupCommit(engine)
    commits = looped(engine)
    first = table(engine, ids, "rws-v5", CARDS, commits=threads)
    second = twin(engine, {"ann": ids["carl"], "bob": ids["dina"]}, commits)
    on_loop = commits.on_loop
    assert on_loop is not None

    async def both() -> tuple[list[Outcome], list[Outcome]]:
        try:
            return await play(first), await play(second, clock_on_loop=True)
        finally:
            await on_loop.close()

    try:
        by_threads, by_loop = asyncio.run(both())
    finally:
        threads.close()
        commits.close()
    assert [(o.seq, o.over, o.events) for o in by_loop] == [
        (o.seq, o.over, o.events) for o in by_threads
    ]
    assert by_loop[-1].over and second.round.phase is Phase.SETTLED
    assert (on_loop.rows, on_loop.deferred) == (4, 0)
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
    assert commits.inputs == threads.inputs == 8
    assert books(engine) == []


def test_a_row_waits_for_nobody_on_the_loop(engine: sqlalchemy.Engine, path: Path) -> None:
    """The loop never waits for the file: while the group commit has a write in hand,
    a decision goes to it (one commit for the inputs in hand together); while another
    process holds the file's write lock, the row is not tried on the loop
    (``deferred``) and goes to the group commit, which waits for the lock.  Either way
    it is written once, in its place."""
    ids = make_users(engine, "ann")
    commits = looped(engine)
    on_loop = commits.on_loop
    assert on_loop is not None
    runtime = table(engine, ids, "rws-v5", CARDS, commits=commits)

    async def scenario() -> None:
        await run(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
        assert await runtime.tick_on_loop(1 + runtime.config.betting_seconds) is not None
        assert (on_loop.rows, on_loop.deferred) == (1, 0)
        # A write in hand at the group commit: the decision joins it there.
        release = threading.Event()
        held = commits.submit(lambda conn: release.wait(10))
        assert commits.busy() and not on_loop.now()
        deciding = asyncio.ensure_future(
            run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=19)
        )
        await asyncio.sleep(0.05)
        release.set()
        assert (await deciding).seq == 2 and held.result(timeout=10)
        assert (on_loop.rows, on_loop.deferred) == (1, 0)
        # Another process's write lock: not tried here, written by the group commit.
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        splitting = asyncio.ensure_future(run(runtime, "split", "ann", {}, now=20))
        await asyncio.sleep(0.05)
        assert not splitting.done()  # the split moves money: the group commit waits
        other.execute("ROLLBACK")
        assert (await splitting).seq == 3
        other.execute("BEGIN IMMEDIATE")
        standing = asyncio.ensure_future(run(runtime, "stand", "ann", {}, now=21))
        await asyncio.sleep(0.05)
        assert on_loop.deferred == 1
        other.execute("ROLLBACK")
        other.close()
        assert (await standing).seq == 4
        await on_loop.close()

    try:
        asyncio.run(scenario())
    finally:
        commits.close()
    with engine.connect() as conn:
        rows = conn.execute(
            select(round_inputs.c.seq).where(round_inputs.c.round_id == runtime.round_id)
        ).scalars()
        assert list(rows) == [0, 1, 2, 3, 4]
    assert [i.op for i in runtime.record.inputs] == [
        "bet",
        "close_bets",
        "decline",
        "split",
        "stand",
    ]


def test_a_row_not_in_its_place_changes_nothing(engine: sqlalchemy.Engine) -> None:
    """A decision whose row is not the next (another writer's row in its place) raises
    why (:class:`RoundError`, asked in a transaction of its own): the table is as it
    was, nothing of the input is written, and the next decision is taken."""
    ids = make_users(engine, "ann")
    commits = looped(engine)
    on_loop = commits.on_loop
    assert on_loop is not None
    runtime = table(engine, ids, "rws-v5", CARDS, commits=commits)

    def state() -> tuple[Any, ...]:
        return (runtime.record, runtime.round.phase, len(runtime.round.events))

    async def scenario() -> None:
        await run(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
        assert await runtime.tick_on_loop(1 + runtime.config.betting_seconds) is not None
        before = state()
        seq = len(runtime.record.inputs)
        with engine.begin() as conn:
            conn.execute(
                round_inputs.insert().values(round_id=runtime.round_id, seq=seq, input="{}")
            )
        with pytest.raises(RoundError, match=f"has {seq + 1} inputs"):
            await run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=19)
        assert state() == before
        with engine.begin() as conn:
            conn.execute(round_inputs.delete().where(round_inputs.c.seq == seq))
        taken = await run(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=20)
        assert taken.seq == seq and not taken.over
        assert on_loop.rows == 2  # no more bets, and the decline taken
        await on_loop.close()

    try:
        asyncio.run(scenario())
    finally:
        commits.close()
