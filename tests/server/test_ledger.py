"""The double-entry wallet, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from decimal import ROUND_DOWN, Decimal
from typing import Any

import pytest
import sqlalchemy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.sql.compiler import SQLCompiler

from croupier.server import db, ledger, rounds_store
from croupier.server.driver import trace
from croupier.server.errors import (
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    LedgerError,
)
from croupier.server.schema import accounts, legs, metadata, transactions
from tests.server.tables import record_of

D = Decimal


def snapshot(engine: sqlalchemy.Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a stable order."""
    with engine.connect() as conn:
        return {
            table.name: sorted((tuple(row) for row in conn.execute(select(table))), key=repr)
            for table in metadata.sorted_tables
        }


def new_round(engine: sqlalchemy.Engine, round_id: str, number: int = 1) -> None:
    with engine.begin() as conn:
        rounds_store.create_round(
            conn,
            round_id=round_id,
            table_id="t1",
            number=number,
            rules_name="test",
            rules_version="1",
            record=record_of(round_id, number),
        )


def grant(engine: sqlalchemy.Engine, user: int, amount: str, key: str) -> int:
    with engine.begin() as conn:
        return ledger.grant(conn, user, D(amount), idempotency_key=key)


def stake(engine: sqlalchemy.Engine, user: int, round_id: str, amount: str, key: str) -> int:
    with engine.begin() as conn:
        return ledger.stake(conn, user, round_id, D(amount), idempotency_key=key, memo="bet")


def refund(engine: sqlalchemy.Engine, user: int, round_id: str, amount: str, key: str) -> int:
    with engine.begin() as conn:
        return ledger.refund(conn, user, round_id, D(amount), idempotency_key=key, memo="withdrawn")


def close(
    engine: sqlalchemy.Engine,
    round_id: str,
    returns: dict[int, Decimal],
    key: str,
    *,
    void: bool = False,
) -> int:
    with engine.begin() as conn:
        transaction = ledger.close_round(conn, round_id, returns, idempotency_key=key, void=void)
        rounds_store.save_round(
            conn,
            round_id,
            record=record_of(round_id, closed=True),
            status="void" if void else "settled",
        )
        return transaction


def balance(engine: sqlalchemy.Engine, user: int) -> Decimal:
    with engine.connect() as conn:
        return ledger.balance(conn, user)


def problems(engine: sqlalchemy.Engine) -> list[str]:
    with engine.connect() as conn:
        return ledger.check(conn)


def legs_of(engine: sqlalchemy.Engine, transaction_id: int) -> dict[tuple[str, str], int]:
    """The legs of a transaction, by (account kind, owner)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(accounts.c.kind, accounts.c.owner, legs.c.amount)
            .join(accounts, legs.c.account_id == accounts.c.id)
            .where(legs.c.transaction_id == transaction_id)
        )
        return {(row.kind, row.owner): row.amount for row in rows}


def transaction_count(engine: sqlalchemy.Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(transactions)).scalar_one()


def test_amount_conversion_is_exact() -> None:
    assert ledger.to_units(D("0.01")) == 1
    assert ledger.to_units(D("12.3")) == 1230
    assert ledger.to_units(D("1E+3")) == 100_000
    assert ledger.from_units(1230) == D("12.30")
    for bad in (D("0.001"), D("1.005"), D("NaN"), D("Infinity")):
        with pytest.raises(InvalidAmount, match="amount"):
            ledger.to_units(bad)
    with pytest.raises(InvalidAmount, match="float"):
        ledger.to_units(1.5)  # type: ignore[arg-type]


def test_movements_balance_and_cached_balances_equal_legs(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    made = [
        grant(engine, 1, "100", "g1"),
        stake(engine, 1, "r1", "30", "s1"),
        refund(engine, 1, "r1", "10.50", "f1"),
    ]
    assert legs_of(engine, made[0]) == {("issuer", ""): -10_000, ("player", "1"): 10_000}
    assert legs_of(engine, made[1]) == {("player", "1"): -3_000, ("round", "r1"): 3_000}
    assert legs_of(engine, made[2]) == {("round", "r1"): -1_050, ("player", "1"): 1_050}
    with engine.connect() as conn:
        sums = conn.execute(
            select(legs.c.transaction_id, func.sum(legs.c.amount)).group_by(legs.c.transaction_id)
        ).all()
        assert len(sums) == 3
        assert all(total == 0 for _, total in sums)
        for account_id, cached in conn.execute(select(accounts.c.id, accounts.c.balance)):
            from_legs = conn.execute(
                select(func.coalesce(func.sum(legs.c.amount), 0)).where(
                    legs.c.account_id == account_id
                )
            ).scalar_one()
            assert cached == from_legs
        assert ledger.round_stakes(conn, "r1") == {1: D("19.50")}
    assert balance(engine, 1) == D("80.50")
    assert balance(engine, 2) == D("0")
    assert problems(engine) == []


def test_stake_beyond_balance_is_refused_and_changes_nothing(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "50", "g1")
    before = snapshot(engine)
    with pytest.raises(InsufficientFunds, match=r"user 1 has a balance of 50\.00.*60\.00"):
        stake(engine, 1, "r1", "60", "s1")
    # A user without any account: refused, and no account is left behind.
    with pytest.raises(InsufficientFunds, match=r"user 2 has a balance of 0"):
        stake(engine, 2, "r1", "1", "s2")
    assert snapshot(engine) == before
    # The refusal is undone even when the caller goes on and commits.
    with engine.begin() as conn:
        with pytest.raises(InsufficientFunds):
            ledger.stake(conn, 1, "r1", D("60"), idempotency_key="s3", memo="bet")
        ledger.stake(conn, 1, "r1", D("50"), idempotency_key="s4", memo="bet")
    assert balance(engine, 1) == D("0")
    assert transaction_count(engine) == 2
    assert problems(engine) == []


@pytest.mark.parametrize("amount", ["0", "-5", "0.001", "NaN"])
def test_invalid_amounts_are_refused(engine: sqlalchemy.Engine, amount: str) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "10", "g1")
    before = snapshot(engine)
    with pytest.raises(InvalidAmount, match="amount"):
        grant(engine, 1, amount, "g2")
    with pytest.raises(InvalidAmount, match="amount"):
        stake(engine, 1, "r1", amount, "s1")
    with pytest.raises(InvalidAmount, match="amount"):
        refund(engine, 1, "r1", amount, "f1")
    assert snapshot(engine) == before


def test_idempotent_retry_moves_money_once(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    first = grant(engine, 1, "100", "g1")
    assert grant(engine, 1, "100", "g1") == first
    assert grant(engine, 1, "100.00", "g1") == first  # the same amount, written otherwise
    placed = stake(engine, 1, "r1", "25", "s1")
    with engine.begin() as conn:  # a retry inside one transaction, too
        again = ledger.stake(conn, 1, "r1", D("25"), idempotency_key="s1", memo="retry")
        assert ledger.stake(conn, 1, "r1", D("25"), idempotency_key="s1", memo="bet") == again
    assert again == placed
    assert balance(engine, 1) == D("75")
    assert transaction_count(engine) == 2
    assert problems(engine) == []


def test_same_key_for_another_request_is_a_conflict(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "100", "g1")
    stake(engine, 1, "r1", "10", "s1")
    before = snapshot(engine)
    with pytest.raises(IdempotencyConflict, match="'g1'"):
        grant(engine, 1, "20", "g1")
    with pytest.raises(IdempotencyConflict, match="'g1'"):
        grant(engine, 2, "100", "g1")
    with pytest.raises(IdempotencyConflict, match="'s1'"):
        refund(engine, 1, "r1", "10", "s1")
    with pytest.raises(IdempotencyConflict, match="'s1'"):
        stake(engine, 1, "r1", "11", "s1")
    assert snapshot(engine) == before


def test_settlement_pays_returns_and_house_takes_the_rest(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    for user in (1, 2, 3):
        grant(engine, user, "100", f"g{user}")
    stake(engine, 1, "r1", "10", "s1")
    stake(engine, 2, "r1", "20", "s2")
    stake(engine, 3, "r1", "5", "s3")
    returns = {1: D("25"), 2: D("0"), 3: D("5")}  # blackjack, a loss, a push
    settled = close(engine, "r1", returns, "close-r1")
    assert legs_of(engine, settled) == {
        ("round", "r1"): -3_500,
        ("player", "1"): 2_500,
        ("player", "3"): 500,
        ("house", ""): 500,
    }
    assert [balance(engine, user) for user in (1, 2, 3)] == [D("115"), D("80"), D("100")]
    with engine.connect() as conn:
        row = conn.execute(select(transactions).where(transactions.c.id == settled)).one()
        assert (row.kind, row.round_id) == ("settle", "r1")
        round_balance = conn.execute(
            select(accounts.c.balance).where(accounts.c.id == ledger.round_account(conn, "r1"))
        ).scalar_one()
        assert round_balance == 0
        assert ledger.round_stakes(conn, "r1") == {1: D("-15"), 2: D("20")}
    assert problems(engine) == []


def test_house_pays_what_is_missing(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "10", "g1")
    stake(engine, 1, "r1", "10", "s1")
    settled = close(engine, "r1", {1: D("35")}, "close-r1")
    assert legs_of(engine, settled) == {
        ("round", "r1"): -1_000,
        ("player", "1"): 3_500,
        ("house", ""): -2_500,
    }
    assert balance(engine, 1) == D("35")
    assert problems(engine) == []


def test_void_returns_exactly_the_net_stakes(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    for user in (1, 2):
        grant(engine, user, "100", f"g{user}")
    stake(engine, 1, "r1", "10", "s1")
    stake(engine, 2, "r1", "20", "s2")
    refund(engine, 2, "r1", "5", "f2")
    before = snapshot(engine)
    for wrong in ({1: D("10")}, {1: D("10"), 2: D("20")}, {1: D("10"), 2: D("16")}):
        with pytest.raises(LedgerError, match="must return exactly the stakes"):
            close(engine, "r1", wrong, "void-r1", void=True)
    assert snapshot(engine) == before
    voided = close(engine, "r1", {1: D("10"), 2: D("15"), 3: D("0")}, "void-r1", void=True)
    assert legs_of(engine, voided) == {
        ("round", "r1"): -2_500,
        ("player", "1"): 1_000,
        ("player", "2"): 1_500,
    }
    assert [balance(engine, user) for user in (1, 2)] == [D("100"), D("100")]
    with engine.connect() as conn:
        assert (
            conn.execute(
                select(transactions.c.kind).where(transactions.c.id == voided)
            ).scalar_one()
            == "void"
        )
    assert problems(engine) == []


def test_a_round_closes_once(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "100", "g1")
    stake(engine, 1, "r1", "10", "s1")
    settled = close(engine, "r1", {1: D("20")}, "close-r1")
    with engine.begin() as conn:
        again = ledger.close_round(conn, "r1", {1: D("20")}, idempotency_key="close-r1", void=False)
    assert again == settled
    before = snapshot(engine)
    with pytest.raises(LedgerError, match=f"already closed by transaction {settled}"):
        close(engine, "r1", {1: D("20")}, "close-r1-again")
    with pytest.raises(LedgerError, match="already closed"):
        stake(engine, 1, "r1", "5", "s2")
    with pytest.raises(LedgerError, match="already closed"):
        refund(engine, 1, "r1", "5", "f1")
    with pytest.raises(IdempotencyConflict, match="close-r1"):
        close(engine, "r1", {1: D("30")}, "close-r1")
    assert snapshot(engine) == before
    assert balance(engine, 1) == D("110")


def test_a_stake_asks_whether_its_round_closed_without_reading_the_rounds_stakes(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 1.26 (any number may bet behind a box): every stake asks whether its round
    was already closed; the question is one look in the index of a round's transactions
    by kind, never a read of the round's stakes (a crowd of a thousand made it a thousand
    rows a bet).  The plan is the database's own; on PostgreSQL, as for a table too big
    to read whole."""
    new_round(engine, "r1")
    for user in range(1, 41):
        grant(engine, user, "100", f"g{user}")
        stake(engine, user, "r1", "10", f"s{user}")
    compiled = ledger._KEY_OR_CLOSING.statement.compile(dialect=engine.dialect)
    assert isinstance(compiled, SQLCompiler)
    values = compiled.construct_params({"key": "s41", "rid": "r1"})
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            parameters: Any = tuple(values[name] for name in compiled.positiontup or ())
            plan = " | ".join(
                str(row[-1])
                for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", parameters)
            )
        else:
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            plan = " | ".join(
                str(row[0])
                for row in conn.exec_driver_sql(
                    f"EXPLAIN {compiled}", compiled.construct_params(values)
                )
            )
    assert "ix_transactions_round_id_kind" in plan, plan
    assert "SCAN transactions" not in plan and "Seq Scan" not in plan, plan
    assert re.search(r"round_id\)?(::text)? = .*kind|round_id=\? AND kind=\?", plan), plan
    close(engine, "r1", {}, "close-r1")
    with pytest.raises(LedgerError, match="already closed"):
        stake(engine, 1, "r1", "5", "s41")


def test_a_stake_and_a_refund_give_the_balance_after_them_without_reading_it(
    engine: sqlalchemy.Engine,
) -> None:
    """A stake's or a refund's ``after`` is the player's balance once it moved, as the
    lock of his account read it: the ledger's own figure, with no query of its own; a
    retry of the same key moves nothing and gives the balance as it stands; a refused
    stake gives none."""
    new_round(engine, "r1")
    grant(engine, 1, "100", "g1")
    after: dict[int, Decimal] = {}
    with engine.begin() as conn:
        ledger.stake(conn, 1, "r1", D("25.50"), idempotency_key="s1", memo="", after=after)
        assert after == {1: D("74.50")} == ledger.balances(conn, [1])
    after.clear()
    with engine.begin() as conn:
        ledger.stake(conn, 1, "r1", D("25.50"), idempotency_key="s1", memo="", after=after)
    assert after == {1: D("74.50")} and balance(engine, 1) == D("74.50")
    with engine.begin() as conn:
        ledger.refund(conn, 1, "r1", D("10"), idempotency_key="f1", memo="", after=after)
    assert after == {1: D("84.50")} and balance(engine, 1) == D("84.50")
    after.clear()
    with pytest.raises(InsufficientFunds), engine.begin() as conn:
        ledger.stake(conn, 1, "r1", D("500"), idempotency_key="s2", memo="", after=after)
    assert after == {}


def test_a_movement_is_one_statement_on_postgresql_and_a_taken_key_moves_nothing(
    engine: sqlalchemy.Engine,
) -> None:
    """A movement writes its transaction, its legs and the accounts' cached balances:
    on PostgreSQL in one statement (one round trip), on SQLite in three.  Where its
    idempotency key was taken meanwhile (a concurrent request committed first), none
    of the three is written and the transaction already made is answered."""
    new_round(engine, "r1")
    grant(engine, 1, "100", "g1")
    with engine.begin() as conn:
        player, table = ledger.player_account(conn, 1), ledger.round_account(conn, "r1")
    deltas = {player: -2_500, table: 2_500}

    def record(conn: sqlalchemy.Connection) -> int:
        return ledger._record(
            conn,
            key="s1",
            kind="stake",
            request_hash="h1",
            round_id="r1",
            memo="bet",
            deltas=deltas,
        )

    with engine.begin() as conn:
        statements = trace(conn)
        made = record(conn)
        assert len(statements) == (1 if engine.dialect.name == "postgresql" else 3)
    assert legs_of(engine, made) == {("player", "1"): -2_500, ("round", "r1"): 2_500}
    before = snapshot(engine)
    with engine.begin() as conn:
        again = record(conn)
    assert again == made
    assert snapshot(engine) == before
    assert balance(engine, 1) == D("75")
    assert problems(engine) == []


@pytest.mark.postgres
def test_a_movement_finds_its_accounts_by_their_ids_on_postgresql(
    postgres_engine: sqlalchemy.Engine,
) -> None:
    """The one statement of a movement on PostgreSQL updates each account found by its
    primary key, in the plan PostgreSQL keeps for the prepared statement (a generic
    one, whatever the parameters): an account is made for every round, and a plan
    that read them all made every bet cost more as the rounds went by."""
    compiled = ledger._movement_statement(2).statement.compile(dialect=postgres_engine.dialect)
    names: list[str] = []

    def numbered(found: re.Match[str]) -> str:
        if found.group(1) not in names:
            names.append(found.group(1))
        return f"${names.index(found.group(1)) + 1}"

    sql = re.sub(r"%\((\w+)\)s", numbered, str(compiled))
    with postgres_engine.begin() as conn:
        conn.exec_driver_sql("SET LOCAL plan_cache_mode = force_generic_plan")
        conn.exec_driver_sql(f"PREPARE movement AS {sql}")
        try:
            plan = " | ".join(
                str(row[0])
                for row in conn.exec_driver_sql(
                    "EXPLAIN EXECUTE movement('k', 'stake', 'r1', 'h', 'bet', now(), 1, -5, 2, 5)"
                )
            )
        finally:
            conn.exec_driver_sql("DEALLOCATE movement")
    assert names[-4:] == ["account0", "amount0", "account1", "amount1"], names
    assert "Update on accounts" in plan and "pk_accounts" in plan, plan
    assert "Seq Scan on accounts" not in plan, plan


def test_a_rounds_stakes_are_read_from_its_transactions_on_sqlite(tmp_path: Any) -> None:
    """A round's stakes (read at every settlement) are found from the round's
    transactions (their index), then their legs, then each leg's account by its id.
    SQLite keeps no statistics and guessed that ``accounts.kind = 'player'`` finds a few
    rows: it went through every leg of every player's account instead, 11 ms a round
    at a thousand players after a few minutes of play and growing with the ledger
    (``db.unindexed`` takes that term off the index).  Its stakes are still each
    player's own."""
    engine = db.connect(f"sqlite:///{tmp_path}/plan.db")
    db.migrate(engine)
    compiled = ledger._ROUND_STAKES.statement.compile(dialect=engine.dialect)
    with engine.begin() as conn:
        steps = [
            str(row[3])
            for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", ("player", "r1"))
        ]
    first = "SEARCH transactions USING COVERING INDEX ix_transactions_round_id"
    assert steps[0].startswith(first), steps
    assert steps[1].startswith("SEARCH legs USING INDEX ix_legs_transaction_id"), steps
    assert steps[2] == "SEARCH accounts USING INTEGER PRIMARY KEY (rowid=?)", steps
    new_round(engine, "r1")
    new_round(engine, "r2")
    for user in (1, 2):
        grant(engine, user, "100", f"g{user}")
    stake(engine, 1, "r1", "10", "s1")
    stake(engine, 2, "r1", "30", "s2")
    stake(engine, 1, "r2", "5", "s3")
    with engine.begin() as conn:
        assert ledger.round_stakes(conn, "r1") == {1: Decimal("10.00"), 2: Decimal("30.00")}
        assert ledger.round_stakes(conn, "r2") == {1: Decimal("5.00")}
    engine.dispose()


def test_refund_never_exceeds_the_users_stake(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    for user in (1, 2):
        grant(engine, user, "100", f"g{user}")
    stake(engine, 1, "r1", "10", "s1")
    stake(engine, 2, "r1", "30", "s2")
    before = snapshot(engine)
    with pytest.raises(InsufficientFunds, match=r"exceeds his stake of 10\.00"):
        refund(engine, 1, "r1", "10.01", "f1")
    with pytest.raises(InsufficientFunds, match=r"stake of 0"):
        refund(engine, 3, "r1", "1", "f3")
    assert snapshot(engine) == before
    refund(engine, 1, "r1", "10", "f1")
    assert balance(engine, 1) == D("100")


def test_returns_only_to_users_with_a_stake(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "100", "g1")
    stake(engine, 1, "r1", "10", "s1")
    before = snapshot(engine)
    with pytest.raises(LedgerError, match="user 2 has no stake on round 'r1'"):
        close(engine, "r1", {1: D("20"), 2: D("5")}, "close-r1")
    with pytest.raises(InvalidAmount, match="negative"):
        close(engine, "r1", {1: D("-1")}, "close-r1")
    assert snapshot(engine) == before


def test_history_lists_movements_with_running_balance(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    granted = grant(engine, 1, "100", "g1")
    staked = stake(engine, 1, "r1", "30", "s1")
    grant(engine, 2, "5", "g2")
    settled = close(engine, "r1", {1: D("60")}, "close-r1")
    with engine.connect() as conn:
        movements = ledger.history(conn, 1)
        assert ledger.history(conn, 1, limit=2) == movements[:2]
        assert ledger.history(conn, 99) == []
    assert [
        (m.transaction_id, m.kind, m.round_id, m.amount, m.balance_after, m.memo) for m in movements
    ] == [
        (settled, "settle", "r1", D("60"), D("130"), "settle round r1"),
        (staked, "stake", "r1", D("-30"), D("70"), "bet"),
        (granted, "grant", None, D("100"), D("100"), "play-money chips"),
    ]
    assert all(m.created_at.tzinfo is not None for m in movements)


# -- reconciliation ----------------------------------------------------------------


def books(engine: sqlalchemy.Engine) -> None:
    """Clean books: a settled round, an open one with money on it, a refund."""
    for round_id, number in (("r1", 1), ("r2", 2)):
        new_round(engine, round_id, number)
    grant(engine, 1, "100", "g1")
    grant(engine, 2, "100", "g2")
    stake(engine, 1, "r1", "10", "s1")
    stake(engine, 2, "r1", "10", "s2")
    close(engine, "r1", {1: D("20")}, "close-r1")
    stake(engine, 1, "r2", "15", "s3")
    refund(engine, 1, "r2", "5", "f3")


def execute(engine: sqlalchemy.Engine, sql: str) -> None:
    with engine.begin() as conn:
        conn.exec_driver_sql(sql)


CORRUPTIONS: dict[str, tuple[Callable[[sqlalchemy.Engine], None], str]] = {
    "cached balance": (
        lambda e: execute(e, "UPDATE accounts SET balance = balance + 1 WHERE owner = '2'"),
        r"account \d+ of user 2 has a cached balance of 90\.01 but its legs sum to 90\.00",
    ),
    "deleted leg": (
        lambda e: execute(
            e,
            "DELETE FROM legs WHERE amount = -1000 AND account_id = "
            "(SELECT id FROM accounts WHERE kind = 'player' AND owner = '2')",
        ),
        r"transaction \d+ \(stake\) has legs summing to 10\.00, not zero",
    ),
    "negative player": (
        lambda e: execute(
            e, "UPDATE accounts SET balance = -500 WHERE kind = 'player' AND owner = '1'"
        ),
        r"account \d+ of user 1 has a balance of -5\.00, below zero",
    ),
    "unbalanced sum": (
        lambda e: execute(e, "UPDATE accounts SET balance = balance + 7 WHERE kind = 'house'"),
        r"the balances of all accounts sum to 0\.07, not zero",
    ),
    "settled with money": (
        lambda e: execute(e, "UPDATE rounds SET status = 'settled' WHERE id = 'r2'"),
        r"round 'r2' is settled but its account still holds 10\.00",
    ),
    "open but closed in the books": (
        lambda e: execute(e, "UPDATE rounds SET status = 'open' WHERE id = 'r1'"),
        r"round 'r1' is open and its account holds 0\.00, but its net stakes are 20\.00",
    ),
    "missing round record": (
        lambda e: execute(e, "DELETE FROM rounds WHERE id = 'r2'"),
        r"account \d+ of round 'r2' has legs but no round record",
    ),
}


def test_check_is_empty_on_clean_books(engine: sqlalchemy.Engine) -> None:
    books(engine)
    assert problems(engine) == []


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_check_finds_corruption(engine: sqlalchemy.Engine, corruption: str) -> None:
    books(engine)
    corrupt, expected = CORRUPTIONS[corruption]
    corrupt(engine)
    found = problems(engine)
    assert any(re.search(expected, problem) for problem in found), found


# -- concurrency -------------------------------------------------------------------


def run_threads(count: int, work: Callable[[int], None]) -> None:
    """Run ``work(i)`` in ``count`` threads that start together."""
    barrier = threading.Barrier(count)

    def start(index: int) -> None:
        barrier.wait()
        work(index)

    threads = [threading.Thread(target=start, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_concurrent_stakes_never_overdraw(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "100", "g1")
    outcomes: list[str] = []
    lock = threading.Lock()

    def stakes(thread: int) -> None:
        for attempt in range(5):
            try:
                stake(engine, 1, "r1", "10", f"s-{thread}-{attempt}")
                outcome = "staked"
            except InsufficientFunds:
                outcome = "refused"
            except Exception as error:  # anything else fails the test below
                outcome = f"{type(error).__name__}: {error}"
            with lock:
                outcomes.append(outcome)

    run_threads(8, stakes)
    assert sorted(set(outcomes)) == ["refused", "staked"]
    assert outcomes.count("staked") == 10
    assert outcomes.count("refused") == 30
    assert balance(engine, 1) == D("0")
    with engine.connect() as conn:
        assert ledger.round_stakes(conn, "r1") == {1: D("100")}
    assert problems(engine) == []


def test_concurrent_duplicates_move_money_once(engine: sqlalchemy.Engine) -> None:
    new_round(engine, "r1")
    grant(engine, 1, "100", "g1")
    answers: list[object] = []
    lock = threading.Lock()

    def same_request(_: int) -> None:
        try:
            answer: object = stake(engine, 1, "r1", "10", "one-bet")
        except Exception as error:
            answer = f"{type(error).__name__}: {error}"
        with lock:
            answers.append(answer)

    run_threads(8, same_request)
    assert len(answers) == 8
    assert len(set(answers)) == 1 and isinstance(answers[0], int), answers
    assert balance(engine, 1) == D("90")
    assert transaction_count(engine) == 2
    assert problems(engine) == []


# -- property: random play keeps the books balanced ----------------------------------

USERS = (1, 2, 3)
ROUNDS = ("r1", "r2", "r3")
amounts = st.integers(min_value=1, max_value=5_000).map(ledger.from_units)
multipliers = st.sampled_from([D("0"), D("1"), D("2"), D("2.5")])
operations = st.one_of(
    st.tuples(st.just("grant"), st.sampled_from(USERS), amounts),
    st.tuples(st.just("stake"), st.sampled_from(USERS), st.sampled_from(ROUNDS), amounts),
    st.tuples(st.just("refund"), st.sampled_from(USERS), st.sampled_from(ROUNDS), amounts),
    st.tuples(st.just("settle"), st.sampled_from(ROUNDS), st.lists(multipliers, min_size=3)),
    st.tuples(st.just("void"), st.sampled_from(ROUNDS)),
)


class Model:
    """What the books should say, kept in plain Python."""

    def __init__(self) -> None:
        self.wallet = dict.fromkeys(USERS, D("0"))
        self.table: dict[str, dict[int, Decimal]] = {r: {} for r in ROUNDS}
        self.closed: set[str] = set()
        self.house = D("0")
        self.issued = D("0")


def apply(engine: sqlalchemy.Engine, model: Model, step: int, operation: tuple[Any, ...]) -> None:
    """Do one operation on the books and on the model; refusals must match."""
    key = f"op-{step}"
    kind = operation[0]
    if kind == "grant":
        _, user, amount = operation
        grant(engine, user, str(amount), key)
        model.wallet[user] += amount
        model.issued += amount
    elif kind in ("stake", "refund"):
        _, user, round_id, amount = operation
        on_table = model.table[round_id].get(user, D("0"))
        refused: type[Exception] | None = None
        if round_id in model.closed:
            refused = LedgerError
        elif (model.wallet[user] if kind == "stake" else on_table) < amount:
            refused = InsufficientFunds
        move = stake if kind == "stake" else refund
        if refused is not None:
            with pytest.raises(refused):
                move(engine, user, round_id, str(amount), key)
            return
        move(engine, user, round_id, str(amount), key)
        signed = amount if kind == "stake" else -amount
        model.wallet[user] -= signed
        model.table[round_id][user] = on_table + signed
    else:
        round_id = operation[1]
        void = kind == "void"
        stakes = {user: held for user, held in model.table[round_id].items() if held}
        if void:
            returns = dict(stakes)
        else:
            factors = operation[2]
            returns = {
                user: (held * factors[user - 1]).quantize(ledger.UNIT, rounding=ROUND_DOWN)
                for user, held in stakes.items()
            }
        if round_id in model.closed:
            with pytest.raises(LedgerError):
                close(engine, round_id, returns, key, void=void)
            return
        close(engine, round_id, returns, key, void=void)
        for user, paid in returns.items():
            model.wallet[user] += paid
        model.house += sum(stakes.values(), D("0")) - sum(returns.values(), D("0"))
        model.table[round_id] = {}
        model.closed.add(round_id)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plays=st.lists(operations, max_size=25))
def test_random_play_keeps_the_books_balanced(
    engine: sqlalchemy.Engine, reset: Callable[[], None], plays: list[tuple[Any, ...]]
) -> None:
    reset()
    for number, round_id in enumerate(ROUNDS, start=1):
        new_round(engine, round_id, number)
    model = Model()
    for step, operation in enumerate(plays):
        apply(engine, model, step, operation)
    assert problems(engine) == []
    with engine.connect() as conn:
        assert {user: ledger.balance(conn, user) for user in USERS} == model.wallet
        total = conn.execute(select(func.coalesce(func.sum(accounts.c.balance), 0))).scalar_one()
        assert total == 0
        house = conn.execute(
            select(accounts.c.balance).where(accounts.c.kind == "house")
        ).scalar_one_or_none()
        assert ledger.from_units(house or 0) == model.house
        for round_id in ROUNDS:
            expected = {u: held for u, held in model.table[round_id].items() if held}
            if round_id not in model.closed:
                assert ledger.round_stakes(conn, round_id) == expected


def test_each_table_settles_against_its_own_house_account(engine: sqlalchemy.Engine) -> None:
    """The house's money is one account per table: no row is shared by every table's
    settlement (a stuck settlement at one table cannot hold up another's)."""
    new_round(engine, "r1")
    grant(engine, 1, "10", "g1")
    stake(engine, 1, "r1", "10", "s1")
    with engine.begin() as conn:
        settled = ledger.close_round(conn, "r1", {}, idempotency_key="c1", void=False, table="rws")
        rounds_store.save_round(conn, "r1", record=record_of("r1", closed=True), status="settled")
    assert legs_of(engine, settled) == {("round", "r1"): -1_000, ("house", "rws"): 1_000}
    assert problems(engine) == []


@pytest.mark.postgres
def test_a_stuck_settlement_at_one_table_never_holds_up_another(postgres: Any) -> None:
    """A process stopped inside a settlement (its transaction open, its rows locked)
    does not stop another table's settlement; PostgreSQL ends the stuck transaction
    after ``db.IDLE_IN_TRANSACTION_SECONDS``."""
    url = postgres.create()
    engine = db.connect(url)
    db.migrate(engine)
    try:
        for round_id, number in (("r1", 1), ("r2", 2)):
            new_round(engine, round_id, number)
        grant(engine, 1, "10", "g1")
        grant(engine, 2, "10", "g2")
        stake(engine, 1, "r1", "10", "s1")
        stake(engine, 2, "r2", "10", "s2")
        stuck = engine.connect()
        stuck.begin()
        stuck_pid = stuck.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        ledger.close_round(stuck, "r1", {}, idempotency_key="c1", void=False, table="rws")
        settled = threading.Event()
        its_pid: list[int] = []

        def settle_elsewhere() -> None:
            with engine.begin() as conn:
                its_pid.append(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
                ledger.close_round(conn, "r2", {}, idempotency_key="c2", void=False, table="live")
                rounds_store.save_round(
                    conn, "r2", record=record_of("r2", 2, closed=True), status="settled"
                )
            settled.set()

        other = threading.Thread(target=settle_elsewhere)
        other.start()
        # Not a race against the clock: the other settlement is watched until it is
        # done, and PostgreSQL is asked at each look whether the stuck one blocks it.
        with engine.connect() as watcher:
            while not settled.wait(0.05):
                assert other.is_alive() or settled.is_set(), "the other settlement failed"
                if its_pid:
                    blocking = watcher.exec_driver_sql(
                        f"SELECT pg_blocking_pids({int(its_pid[0])})"
                    ).scalar_one()
                    watcher.rollback()
                    assert stuck_pid not in blocking, "the stuck settlement holds up the other"
        other.join()
        # The server ends it: its notice says why, unless the connection's end is read
        # before the notice (a busy machine), which says only that it closed.
        ended = "idle-in-transaction|server closed the connection|consuming input failed"
        with pytest.raises(sqlalchemy.exc.DBAPIError, match=ended):
            threading.Event().wait(db.IDLE_IN_TRANSACTION_SECONDS + 1)
            stuck.execute(sqlalchemy.text("SELECT 1"))  # the server ended it
        stuck.invalidate()
        stuck.close()
        assert problems(engine) == []  # the stuck settlement was never written
    finally:
        engine.dispose()
        postgres.drop(url)
