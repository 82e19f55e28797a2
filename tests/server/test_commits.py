"""Group commit: writes from many threads in one transaction, each answered alone."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import func, select

from croupier.server import db, ledger, rounds_store
from croupier.server.commits import GroupCommit, OneByOne
from croupier.server.driver import Prepared, alone, pipeline
from croupier.server.errors import InsufficientFunds
from croupier.server.schema import accounts, transactions
from tests.server.tables import act, balance, books, make_crowd, record_of, table

D = Decimal


def open_round(engine: sqlalchemy.Engine, round_id: str) -> None:
    with engine.begin() as conn:
        rounds_store.create_round(
            conn,
            round_id=round_id,
            table_id="t1",
            number=1,
            rules_name="test",
            rules_version="1",
            record=record_of(round_id),
        )


def bet(user: int, round_id: str, amount: str, key: str) -> Callable[[sqlalchemy.Connection], int]:
    def write(conn: sqlalchemy.Connection) -> int:
        return ledger.stake(conn, user, round_id, D(amount), idempotency_key=key, memo="bet")

    return write


def together(
    commits: GroupCommit, writes: list[Callable[[sqlalchemy.Connection], Any]]
) -> list[Any]:
    """Run ``writes`` from a thread each while the commit thread is held by a first
    write, so that all of them wait together and go into one commit; what each got
    (its result or its error)."""
    held, holding = threading.Event(), threading.Event()

    def hold(_: sqlalchemy.Connection) -> None:
        holding.set()
        assert held.wait(10)

    first = threading.Thread(target=commits.run, args=(hold,))
    first.start()
    assert holding.wait(10)
    got: list[Any] = [None] * len(writes)

    def run(index: int) -> None:
        try:
            got[index] = commits.run(writes[index])
        except Exception as error:
            got[index] = error

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(writes))]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    while commits._waiting.qsize() < len(writes) and time.monotonic() < deadline:
        time.sleep(0.01)
    held.set()
    first.join()
    for thread in threads:
        thread.join()
    return got


def test_writes_that_wait_together_are_committed_together(engine: sqlalchemy.Engine) -> None:
    ids = make_crowd(engine, *(f"player{n}" for n in range(8)), chips="100.00")
    open_round(engine, "r1")
    commits = GroupCommit(engine, threads=1)
    try:
        got = together(commits, [bet(user, "r1", "10.00", f"bet:{user}") for user in ids.values()])
    finally:
        commits.close()
    assert all(isinstance(transaction, int) for transaction in got)
    # The holding write's commit, then one commit for the eight that waited.
    assert (commits.commits, commits.writes, commits.inputs) == (2, 9, 9)
    assert {balance(engine, user) for user in ids.values()} == {D("90.00")}
    assert books(engine) == []


def test_a_refused_write_is_rolled_back_alone(
    engine: sqlalchemy.Engine, caplog: pytest.LogCaptureFixture
) -> None:
    ids = make_crowd(engine, "ann", "bob", "cat", chips="100.00")
    open_round(engine, "r1")
    ledger.log_movements(engine)
    commits = GroupCommit(engine, threads=1)
    with caplog.at_level(logging.INFO, logger="croupier.money"):
        try:
            got = together(
                commits,
                [
                    bet(ids["ann"], "r1", "40.00", "bet:ann"),
                    bet(ids["bob"], "r1", "500.00", "bet:bob"),  # more than he has
                    bet(ids["cat"], "r1", "60.00", "bet:cat"),
                ],
            )
        finally:
            commits.close()
    assert isinstance(got[0], int) and isinstance(got[2], int)
    assert isinstance(got[1], InsufficientFunds)
    assert commits.commits == 2  # the three in one commit, bob's savepoint rolled back
    assert [balance(engine, ids[name]) for name in ("ann", "bob", "cat")] == [
        D("60.00"),
        D("100.00"),
        D("40.00"),
    ]
    with engine.connect() as conn:
        keys = set(conn.execute(select(transactions.c.idempotency_key)).scalars())
    assert {"bet:ann", "bet:cat"} <= keys and "bet:bob" not in keys
    # The money log has what committed, never the movement that was rolled back.
    logged = [record.getMessage() for record in caplog.records if record.name == "croupier.money"]
    assert len([line for line in logged if line.startswith("stake")]) == 2
    assert books(engine) == []


def test_a_commit_that_fails_fails_every_write_in_it(engine: sqlalchemy.Engine) -> None:
    ids = make_crowd(engine, "ann", "bob", chips="100.00")
    open_round(engine, "r1")
    commits = GroupCommit(engine, threads=1)
    failing = [True]

    def refuse_commit(_conn: sqlalchemy.Connection) -> None:
        if failing[0]:
            failing[0] = False
            raise sqlalchemy.exc.OperationalError("COMMIT", {}, Exception("the disk is full"))

    def break_the_commit(_: sqlalchemy.Connection) -> None:
        sqlalchemy.event.listen(engine, "commit", refuse_commit)

    try:
        got = together(
            commits,
            [
                bet(ids["ann"], "r1", "10.00", "bet:ann"),
                break_the_commit,
                bet(ids["bob"], "r1", "5.00", "bet:bob"),
            ],
        )
    finally:
        commits.close()
        sqlalchemy.event.remove(engine, "commit", refuse_commit)
    # Each write went well in its savepoint; the commit did not: none of them happened.
    assert all(isinstance(error, sqlalchemy.exc.OperationalError) for error in got)
    assert balance(engine, ids["ann"]) == balance(engine, ids["bob"]) == D("100.00")
    with engine.connect() as conn:
        staked = conn.execute(
            select(func.count()).where(transactions.c.kind == "stake")
        ).scalar_one()
    assert staked == 0
    assert books(engine) == []


def test_a_write_cannot_wait_for_its_own_commit(engine: sqlalchemy.Engine) -> None:
    commits = GroupCommit(engine)
    try:
        with pytest.raises(RuntimeError, match="cannot wait"):
            commits.run(lambda conn: commits.run(lambda inner: None))
        assert commits.run(lambda conn: "still running") == "still running"
    finally:
        commits.close()


def test_a_crowds_bets_run_together_are_one_commit_each_refusal_alone(
    engine: sqlalchemy.Engine,
) -> None:
    """Five bets at one table run together: the one the balance cannot cover
    (InsufficientFunds, at the ledger) and the one over the box maximum (RWS v5 5.1, at
    the engine) are refused as they would be alone; the others are in one commit."""
    ids = make_crowd(engine, "ann", "bob", "cat", "dan", "eve", chips="100.00")
    commits = GroupCommit(engine)
    runtime = table(engine, ids, "rws-v5", commits=commits)
    amounts = {"ann": "10", "bob": "500", "cat": "20", "dan": "30", "eve": "5000.01"}
    bets = [
        partial(act, runtime, "bet", name, {"box": box, "amount": amount}, now=1, key=name)
        for box, (name, amount) in enumerate(amounts.items(), start=1)
    ]
    try:
        got = asyncio.run(runtime.run_together(bets))
    finally:
        commits.close()
    assert (commits.commits, commits.writes, commits.inputs) == (1, 1, 5)
    assert [type(error).__name__ if error else None for _, error in got] == [
        None,
        "InsufficientFunds",
        None,
        None,
        "BetError",
    ]
    assert [(bet.player, bet.amount) for bet in runtime.round.placed_bets] == [
        ("ann", D("10")),
        ("cat", D("20")),
        ("dan", D("30")),
    ]
    assert [entry.player for entry in runtime.record.inputs] == ["ann", "cat", "dan"]
    with engine.connect() as conn:
        stored = rounds_store.load_round(conn, runtime.round_id)
    assert [entry.player for entry in stored.record.inputs] == [
        "ann",
        "cat",
        "dan",
    ]
    assert [balance(engine, ids[name]) for name in amounts] == [
        D("90.00"),
        D("100.00"),
        D("80.00"),
        D("70.00"),
        D("100.00"),
    ]
    assert books(engine) == []


def test_inputs_run_together_whose_commit_fails_leave_the_table_as_it_was(
    engine: sqlalchemy.Engine,
) -> None:
    ids = make_crowd(engine, "ann", "bob", chips="100.00")
    runtime = table(engine, ids, "rws-v5")
    act(runtime, "bet", "ann", {"box": 1, "amount": "10"}, now=1, key="a1")
    before = json.dumps(runtime.record.to_json())

    def refuse_commit(_conn: sqlalchemy.Connection) -> None:
        raise sqlalchemy.exc.OperationalError("COMMIT", {}, Exception("the disk is full"))

    sqlalchemy.event.listen(engine, "commit", refuse_commit)
    try:
        bets = [
            partial(act, runtime, "bet", "bob", {"box": 2, "amount": "20"}, now=2, key="b1"),
            partial(act, runtime, "bet", "ann", {"box": 3, "amount": "5"}, now=2, key="a2"),
        ]
        got = asyncio.run(runtime.run_together(bets))
    finally:
        sqlalchemy.event.remove(engine, "commit", refuse_commit)
    assert all(isinstance(error, sqlalchemy.exc.OperationalError) for _, error in got)
    assert json.dumps(runtime.record.to_json()) == before
    assert [(bet.player, bet.box) for bet in runtime.round.placed_bets] == [("ann", 1)]
    assert [balance(engine, ids[name]) for name in ("ann", "bob")] == [D("90.00"), D("100.00")]
    # The table goes on: the same keys are new commands still, and are taken.
    act(runtime, "bet", "bob", {"box": 2, "amount": "20"}, now=3, key="b1")
    assert balance(engine, ids["bob"]) == D("80.00")
    assert books(engine) == []


def test_several_threads_commit_side_by_side_and_every_write_lands(
    engine: sqlalchemy.Engine,
) -> None:
    """Several threads may commit (each takes what waits when it is free); each write
    lands once, whichever thread took it."""
    ids = make_crowd(engine, *(f"player{n}" for n in range(24)), chips="100.00")
    for user in ids.values():
        open_round(engine, f"r{user}")
    commits = GroupCommit(engine, threads=3)
    try:
        threads = [
            threading.Thread(target=commits.run, args=(bet(user, f"r{user}", "5.00", f"b{user}"),))
            for user in ids.values()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        commits.close()
    assert commits.inputs == commits.writes == 24 and 1 <= commits.commits <= 24
    assert {balance(engine, user) for user in ids.values()} == {D("95.00")}
    assert books(engine) == []


def test_one_by_one_writes_in_at_most_its_threads_and_every_write_lands(
    engine: sqlalchemy.Engine,
) -> None:
    """On PostgreSQL the tables' writes go one by one to at most ``--write-threads``
    threads (croupier.server.threads.WRITE_THREADS): twelve submitted at once are
    written two at a time by default, each once (here reads, which take no write lock
    on SQLite)."""
    commits = OneByOne(db.reading(engine))
    assert commits.threads == 2
    at_once = 0
    most = 0
    lock = threading.Lock()

    def write(conn: sqlalchemy.Connection) -> int:
        nonlocal at_once, most
        with lock:
            at_once += 1
            most = max(most, at_once)
        time.sleep(0.01)
        with lock:
            at_once -= 1
        return int(conn.exec_driver_sql("select 1").scalar_one())

    try:
        futures = [commits.submit(write) for _ in range(12)]
        assert [future.result() for future in futures] == [1] * 12
    finally:
        commits.close()
    assert most == 2 and commits.writes == commits.commits == 12


@pytest.mark.parametrize("committer", ["group", "one_by_one"])
def test_an_input_run_alone_where_it_commits_is_refused_with_nothing_of_it_written(
    engine: sqlalchemy.Engine, committer: str
) -> None:
    """The table's actor runs each input where its commit is made
    (``TableRuntime.run_together``), an input alone with no savepoint of its own.  One the
    ledger refuses after its record was written (InsufficientFunds: bob's 500 against
    his 100) is rolled back whole: no input row, no stake, the table as before; one the
    engine refuses (RWS v5 5.1: over the box maximum) too; the next input is taken."""
    ids = make_crowd(engine, "ann", "bob", chips="100.00")
    commits = GroupCommit(engine) if committer == "group" else OneByOne(engine)
    runtime = table(engine, ids, "rws-v5", commits=commits)

    def bet(name: str, box: int, amount: str) -> Callable[[], object]:
        return partial(act, runtime, "bet", name, {"box": box, "amount": amount}, now=1)

    async def scenario() -> list[list[tuple[object, Exception | None]]]:
        return [
            await runtime.run_together([bet("ann", 1, "10")]),
            await runtime.run_together([bet("bob", 2, "500")]),
            await runtime.run_together([bet("bob", 3, "5000.01")]),
            await runtime.run_together([bet("bob", 2, "20")]),
        ]

    try:
        got = asyncio.run(scenario())
    finally:
        commits.close()
    assert [type(error).__name__ if error else None for [(_, error)] in got] == [
        None,
        "InsufficientFunds",
        "BetError",
        None,
    ]
    assert [(bet.player, bet.box) for bet in runtime.round.placed_bets] == [("ann", 1), ("bob", 2)]
    with engine.connect() as conn:
        stored = rounds_store.load_round(conn, runtime.round_id)
    assert [entry.player for entry in stored.record.inputs] == ["ann", "bob"]
    assert [balance(engine, ids[name]) for name in ("ann", "bob")] == [D("90.00"), D("80.00")]
    assert (commits.commits, commits.inputs) == (2, 2)
    assert books(engine) == []


def test_a_lone_statement_is_its_own_transaction_where_the_driver_begins_late(
    engine: sqlalchemy.Engine,
) -> None:
    """``driver.alone``: on PostgreSQL, a statement run first in a transaction commits
    at once, with no BEGIN and no COMMIT (another connection sees it before the block
    around it ends); once the transaction has begun, and on SQLite, the statement stays
    in the transaction, and is rolled back with it."""
    add = Prepared(accounts.insert())

    def owners(conn: sqlalchemy.Connection) -> list[str]:
        return sorted(conn.execute(select(accounts.c.owner)).scalars())

    with engine.begin() as conn:
        with alone(conn):
            add.run(conn, {"kind": "player", "owner": "7", "balance": 0})
        if engine.dialect.name == "postgresql":
            with engine.connect() as other:
                assert owners(other) == ["7"]
    with pytest.raises(RuntimeError, match="undone"), engine.begin() as conn:
        add.run(conn, {"kind": "player", "owner": "8", "balance": 0})
        with alone(conn):  # the transaction has begun: in it
            add.run(conn, {"kind": "player", "owner": "9", "balance": 0})
        raise RuntimeError("undone")
    if engine.dialect.name == "sqlite":
        with pytest.raises(RuntimeError, match="undone"), engine.begin() as conn:
            with alone(conn):  # SQLite: always in the transaction
                add.run(conn, {"kind": "player", "owner": "10", "balance": 0})
            raise RuntimeError("undone")
    with engine.connect() as conn:
        assert owners(conn) == ["7"]


def _written_alone(conn: sqlalchemy.Connection, owner: str) -> None:
    with alone(conn):
        Prepared(accounts.insert()).run(conn, {"kind": "player", "owner": owner, "balance": 0})


def _written_in_a_pipeline(conn: sqlalchemy.Connection, owner: str) -> None:
    with pipeline(conn):
        sent = Prepared(accounts.insert()).send(
            conn, {"kind": "player", "owner": owner, "balance": 0}
        )
    assert sent.ran().rowcount == 1


@pytest.mark.postgres
@pytest.mark.parametrize(
    "write", [_written_alone, _written_in_a_pipeline], ids=["lone statement", "pipeline"]
)
def test_a_write_whose_connection_is_cut_raises_the_drivers_error(
    postgres_url: str, write: Callable[[sqlalchemy.Connection, str], None]
) -> None:
    """A connection cut under a lone statement or a pipeline (an administrator's
    ``pg_terminate_backend``, a database restart) raises the database's own error,
    typed, as in a transaction, and the broken connection never goes back to the pool:
    the next write gets a working one."""
    engine = db.connect(postgres_url)
    try:
        with engine.connect() as conn:
            backend = conn.connection.dbapi_connection.info.backend_pid  # type: ignore[union-attr]
        with pytest.raises(sqlalchemy.exc.OperationalError), engine.begin() as conn:
            with engine.connect() as admin:
                admin.execute(
                    sqlalchemy.text("SELECT pg_terminate_backend(:pid)"), {"pid": backend}
                )
            write(conn, "cut")
        with engine.begin() as conn:
            write(conn, "next")
        with engine.connect() as conn:
            owners = sorted(conn.execute(select(accounts.c.owner)).scalars())
        assert "next" in owners and "cut" not in owners
    finally:
        engine.dispose()


def test_statements_sent_in_a_pipeline_are_read_after_it_and_an_error_ends_it_typed(
    engine: sqlalchemy.Engine,
) -> None:
    """``driver.pipeline``: what ``Prepared.send`` sends in the block is read after it
    (on PostgreSQL the database answers them all at the block's end); reading one, or
    running a statement, inside the block is refused, as is a pipeline inside it; a
    statement the database refuses raises its typed error (at the block's end on
    PostgreSQL, at once on SQLite), and the transaction writes nothing."""
    add = Prepared(accounts.insert())
    count = Prepared(select(sqlalchemy.func.count()).select_from(accounts))
    with engine.begin() as conn:
        with pipeline(conn):
            added = add.send(conn, {"kind": "player", "owner": "7", "balance": 0})
            counted = count.send(conn)
            if engine.dialect.name == "postgresql":
                with pytest.raises(RuntimeError, match="inside its pipeline"):
                    counted.ran()
            with pytest.raises(RuntimeError, match="inside a pipeline"):
                count.run(conn)
            with pytest.raises(RuntimeError, match="pipeline inside a pipeline"), pipeline(conn):
                pass
        assert (added.ran().rowcount, counted.ran().scalar()) == (1, 1)
    with pytest.raises(sqlalchemy.exc.IntegrityError), engine.begin() as conn, pipeline(conn):
        add.send(conn, {"kind": "player", "owner": "8", "balance": 0})
        add.send(conn, {"kind": "player", "owner": "7", "balance": 0})  # taken
        count.send(conn)
    with engine.connect() as conn:
        assert sorted(conn.execute(select(accounts.c.owner)).scalars()) == ["7"]


def test_the_money_log_never_has_a_movement_whose_savepoint_rolled_back(
    engine: sqlalchemy.Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """Three writes in one commit; bob's stake is made, then his write fails after it:
    its savepoint rolls back the stake, and the money log (what committed, one record a
    ledger transaction) has ann's and cat's stakes only."""
    ledger.log_movements(engine)
    ids = make_crowd(engine, "ann", "bob", "cat", chips="100.00")
    open_round(engine, "r1")
    commits = GroupCommit(engine, threads=1)

    def stake_then_fail(conn: sqlalchemy.Connection) -> None:
        bet(ids["bob"], "r1", "30.00", "bet:bob")(conn)
        raise RuntimeError("the write failed after its stake")

    with caplog.at_level(logging.INFO, logger="croupier.money"):
        try:
            got = together(
                commits,
                [
                    bet(ids["ann"], "r1", "40.00", "bet:ann"),
                    stake_then_fail,
                    bet(ids["cat"], "r1", "60.00", "bet:cat"),
                ],
            )
        finally:
            commits.close()
    assert isinstance(got[1], RuntimeError)
    assert [balance(engine, ids[name]) for name in ("ann", "bob", "cat")] == [
        D("60.00"),
        D("100.00"),
        D("40.00"),
    ]
    logged = [record for record in caplog.records if record.name == "croupier.money"]
    moved = sorted(amount for record in logged for amount in record.legs.values())  # type: ignore[attr-defined]
    assert moved == ["-40.00", "-60.00", "40.00", "60.00"]
    assert books(engine) == []


def test_a_read_on_sqlite_takes_no_write_lock_so_commits_go_on_beside_it(
    tmp_path: Any,
) -> None:
    """A crowd's balances are read in a transaction that takes no write lock
    (``db.reading``): on SQLite it begins with ``BEGIN``, not ``BEGIN IMMEDIATE``, so
    that a table's commit never waits for it, nor it for the commit.  Here a writer
    holds the write lock while the read runs and ends: the read sees the last commit."""
    from croupier.server import db

    engine = db.connect(f"sqlite:///{tmp_path}/reads.db")
    db.migrate(engine)
    ids = make_crowd(engine, "ann", chips="100.00")
    with engine.begin() as writer:  # BEGIN IMMEDIATE: the write lock, held
        writer.exec_driver_sql("select 1")
        with db.reading(engine).begin() as reader:
            assert ledger.balances(reader, [ids["ann"]]) == {ids["ann"]: Decimal("100.00")}
    engine.dispose()


def test_a_writer_beside_commits_back_to_back_gets_its_turn_on_sqlite(tmp_path: Any) -> None:
    """SQLite lets a writer that finds the write lock taken sleep and try again; a
    thread that commits back to back (the group commit, flat out) takes the lock again
    within microseconds of letting it go, so the sleeper could find it taken at every
    try: under load the sessions' confirmations and the leases' renewals failed with
    ``database is locked`` and the server gave up its tables.  The process's writers
    take turns (``db.WriteTurns``): here one commits back to back while another, whose
    own wait for the lock is cut to 0.2 s, writes ten times, and each write gets in."""
    path = f"sqlite:///{tmp_path}/turns.db"
    engine, other = db.connect(path), db.connect(path)
    db.migrate(engine)
    stop = threading.Event()
    commits = 0

    def back_to_back() -> None:
        nonlocal commits
        while not stop.is_set():
            with engine.begin() as conn:
                conn.exec_driver_sql("UPDATE alembic_version SET version_num = version_num")
                time.sleep(0.005)  # a commit's work, the lock held
            commits += 1

    hammer = threading.Thread(target=back_to_back)
    hammer.start()
    try:
        with other.connect() as conn:
            driver = conn.connection.dbapi_connection
            assert driver is not None
            driver.execute("PRAGMA busy_timeout=200")
            for _ in range(10):
                before = commits
                with conn.begin():
                    conn.exec_driver_sql("UPDATE alembic_version SET version_num = version_num")
                while commits < before + 5:  # the lock taken back to back meanwhile
                    time.sleep(0.001)
    finally:
        stop.set()
        hammer.join()
        engine.dispose()
        other.dispose()
