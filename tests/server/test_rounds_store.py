"""Round records: creation, saving, recall and each player's balances."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import func, select

from croupier.server import accounts, db, ledger, rounds_store
from croupier.server.driver import trace
from croupier.server.errors import InvalidAmount, NotFound, RoundError
from croupier.server.ownership import Ownership, TableLost, fence
from croupier.server.records import MalformedRecord, RecordedInput, RoundRecord
from croupier.server.schema import round_inputs, round_players, rounds

T0 = datetime(2025, 3, 1, 20, 0, tzinfo=UTC)
AT = T0.isoformat()


def entry(op: str, player: str | None = None, by: str | None = None, **args: Any) -> RecordedInput:
    """An input, at ``T0``."""
    return RecordedInput(op, player, args, AT, by=by)


def record(round_id: str, *, table: str = "t1", number: int = 1, **changes: Any) -> RoundRecord:
    """A dealer's round's record (its one input a bet), with ``changes``."""
    made = RoundRecord(
        round_id=round_id,
        table=table,
        number=number,
        rules="vegas-strip",
        rules_version=1,
        dealt="dealer",
        shoe=None,
        opened_at=AT,
        inputs=(entry("bet", "ann", box=1, amount="10.00"),),
    )
    return replace(made, **changes)


def create(
    conn: sqlalchemy.Connection,
    round_id: str,
    *,
    table: str = "t1",
    number: int = 1,
    at: datetime = T0,
    record_: RoundRecord | None = None,
) -> None:
    rounds_store.create_round(
        conn,
        round_id=round_id,
        table_id=table,
        number=number,
        rules_name="vegas-strip",
        rules_version="2025.1",
        record=record(round_id, table=table, number=number) if record_ is None else record_,
        now=at,
    )


def users(conn: sqlalchemy.Connection, *names: str) -> list[int]:
    return [accounts.register(conn, name, "password1", now=T0) for name in names]


def test_a_round_is_stored_and_loaded(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        create(conn, "t1-1")
    with engine.connect() as conn:
        loaded = rounds_store.load_round(conn, "t1-1")
    assert loaded == rounds_store.RoundRow(
        id="t1-1",
        table_id="t1",
        number=1,
        rules_name="vegas-strip",
        rules_version="2025.1",
        status="open",
        record=record("t1-1"),
        created_at=T0,
        updated_at=T0,
    )
    assert loaded.created_at.tzinfo is not None


def test_a_round_id_is_used_once(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        create(conn, "t1-1")
    with engine.begin() as conn, pytest.raises(RoundError, match="'t1-1' already exists"):
        create(conn, "t1-1", number=2)
    with engine.connect() as conn:
        assert rounds_store.load_round(conn, "t1-1").number == 1


def test_missing_rounds_are_not_found(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        with pytest.raises(NotFound, match="round 'nope' does not exist"):
            rounds_store.load_round(conn, "nope")
        with pytest.raises(NotFound, match="'nope'"):
            rounds_store.save_round(conn, "nope", record=record("nope"), status="open")


def test_records_must_be_json(engine: sqlalchemy.Engine) -> None:
    bet = entry("bet", "ann", box=1, amount=Decimal("10"))
    with engine.begin() as conn:
        with pytest.raises(RoundError, match="not JSON"):
            create(conn, "t1-1", record_=record("t1-1", rules_values={"bet": Decimal("10")}))
        with pytest.raises(RoundError, match="not JSON"):
            create(conn, "t1-1", record_=record("t1-1", rules_values={"edge": float("nan")}))
        with pytest.raises(RoundError, match="round id '' must have 1 to 64 characters"):
            create(conn, "")
        with pytest.raises(RoundError, match="record of round 't1-2' is not round 't1-1'"):
            create(conn, "t1-1", record_=record("t1-2"))
        assert rounds_store.open_rounds(conn) == []
    unjson = pytest.raises(RoundError, match="an input of round 't1-1' is not JSON")
    with unjson, engine.begin() as conn:
        create(conn, "t1-1", record_=record("t1-1", inputs=(bet,)))
    with engine.connect() as conn:
        assert rounds_store.open_rounds(conn) == []


def test_a_malformed_record_is_refused_when_it_is_read(engine: sqlalchemy.Engine) -> None:
    """What the database holds is read back as a record, or refused naming the field."""
    with engine.begin() as conn:
        create(conn, "t1-1")
        conn.execute(
            rounds.update().where(rounds.c.id == "t1-1").values(record='{"round_id": "t1-1"}')
        )
        with pytest.raises(MalformedRecord, match="record of round 't1-1': dealt is missing"):
            rounds_store.load_round(conn, "t1-1")


def test_saving_replaces_record_and_status(engine: sqlalchemy.Engine) -> None:
    """The record's fields and the status are replaced; inputs already stored stay."""
    later = T0 + timedelta(minutes=3)
    stored = record("t1-1").inputs
    with engine.begin() as conn:
        create(conn, "t1-1")
        rounds_store.save_round(
            conn, "t1-1", record=record("t1-1", number=2, inputs=()), status="open", now=later
        )
        saved = rounds_store.load_round(conn, "t1-1")
        assert (saved.record, saved.status) == (record("t1-1", number=2, inputs=stored), "open")
        assert (saved.created_at, saved.updated_at) == (T0, later)
        closed = record("t1-1", closed_at=later.isoformat())
        rounds_store.save_round(conn, "t1-1", record=closed, status="settled", now=later)
        closed = record("t1-1", closed_at=later.isoformat(), table="t9")
        rounds_store.save_round(conn, "t1-1", record=closed, status="settled", now=later)
        assert rounds_store.load_round(conn, "t1-1").record == closed
        with pytest.raises(RoundError, match="'t1-1' is settled and cannot become open"):
            rounds_store.save_round(conn, "t1-1", record=closed, status="open")
        with pytest.raises(RoundError, match="status 'paused' must be one of open"):
            rounds_store.save_round(conn, "t1-1", record=closed, status="paused")
        assert rounds_store.load_round(conn, "t1-1").status == "settled"


def test_open_rounds_by_table(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        create(conn, "t2-1", table="t2", number=1)
        create(conn, "t1-2", table="t1", number=2)
        create(conn, "t1-1", table="t1", number=1)
        create(conn, "t1-3", table="t1", number=3)
        rounds_store.save_round(conn, "t1-1", record=record("t1-1"), status="settled")
        rounds_store.save_round(conn, "t2-1", record=record("t2-1", table="t2"), status="void")
        create(conn, "t2-2", table="t2", number=2)
    with engine.connect() as conn:
        assert [r.id for r in rounds_store.open_rounds(conn)] == ["t1-2", "t1-3", "t2-2"]
        assert [r.id for r in rounds_store.open_rounds(conn, "t1")] == ["t1-2", "t1-3"]
        assert rounds_store.open_rounds(conn, "t9") == []
        last = rounds_store.last_round(conn, "t1")
        assert last is not None and last.id == "t1-3"
        last = rounds_store.last_round(conn, "t2")
        assert last is not None and (last.id, last.status) == ("t2-2", "open")
        assert rounds_store.last_round(conn, "t9") is None


def test_players_join_once_and_finish(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        alice, bob = users(conn, "alice", "bob")
        create(conn, "t1-1")
        rounds_store.join_round(conn, "t1-1", alice, Decimal("100.25"))
        rounds_store.join_round(conn, "t1-1", alice, Decimal("999"))  # does nothing
        rounds_store.join_round(conn, "t1-1", bob, Decimal("0"))
        rounds_store.finish_round_player(conn, "t1-1", alice, Decimal("120.25"))
    with engine.connect() as conn:
        rows = conn.execute(
            select(round_players.c.user_id, round_players.c.balance_before)
            .where(round_players.c.round_id == "t1-1")
            .order_by(round_players.c.user_id)
        ).all()
        assert [tuple(row) for row in rows] == [(alice, 10_025), (bob, 0)]
        (played,) = rounds_store.player_rounds(conn, alice)
        assert (played[0].id, played[1], played[2]) == (
            "t1-1",
            Decimal("100.25"),
            Decimal("120.25"),
        )
        assert rounds_store.player_rounds(conn, bob)[0][1:] == (Decimal("0.00"), None)
        assert rounds_store.round_balances(conn, "t1-1", alice) == (
            Decimal("100.25"),
            Decimal("120.25"),
        )
        assert rounds_store.round_balances(conn, "t1-1", bob) == (Decimal("0"), None)
        assert rounds_store.round_balances(conn, "t1-1", 999) is None
        assert rounds_store.round_balances(conn, "nope", alice) is None


def test_a_player_joins_with_his_balance_read_in_the_same_statement(
    engine: sqlalchemy.Engine,
) -> None:
    """A table joins a player to a round with his balance before his stake, read in the
    statement that joins him (one round trip fewer a bet): zero with no account yet."""
    with engine.begin() as conn:
        alice, bob = users(conn, "alice", "bob")
        ledger.grant(conn, alice, Decimal("250.50"), idempotency_key="chips-alice")
        create(conn, "t1-1")
        statements = trace(conn)
        rounds_store.join_round(conn, "t1-1", alice)
        assert len(statements) == 1
        rounds_store.join_round(conn, "t1-1", bob)
        ledger.grant(conn, alice, Decimal("1"), idempotency_key="more-alice")
        rounds_store.join_round(conn, "t1-1", alice)  # does nothing
    with engine.connect() as conn:
        assert rounds_store.round_balances(conn, "t1-1", alice) == (Decimal("250.50"), None)
        assert rounds_store.round_balances(conn, "t1-1", bob) == (Decimal("0"), None)
        with pytest.raises(NotFound, match="round 'nope'"):
            rounds_store.join_round(conn, "nope", alice)


def test_joining_and_finishing_need_a_round_and_a_player(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        (alice,) = users(conn, "alice")
        create(conn, "t1-1")
        with pytest.raises(NotFound, match="round 'nope'"):
            rounds_store.join_round(conn, "nope", alice, Decimal("1"))
        with pytest.raises(NotFound, match="user 999"):
            rounds_store.join_round(conn, "t1-1", 999, Decimal("1"))
        with pytest.raises(NotFound, match=f"user {alice} did not join round 't1-1'"):
            rounds_store.finish_round_player(conn, "t1-1", alice, Decimal("1"))
        with pytest.raises(InvalidAmount, match="whole number of units"):
            rounds_store.join_round(conn, "t1-1", alice, Decimal("1.001"))
        with pytest.raises(InvalidAmount, match="balance before -1 is negative"):
            rounds_store.join_round(conn, "t1-1", alice, Decimal("-1"))
        count = conn.execute(select(func.count()).select_from(round_players)).scalar_one()
        assert count == 0


def test_several_players_finish_in_one_statement(engine: sqlalchemy.Engine) -> None:
    """At a round's close every player's balance after it is written at once."""
    with engine.begin() as conn:
        alice, bob, carol = users(conn, "alice", "bob", "carol")
        create(conn, "t1-1")
        for user in (alice, bob):
            rounds_store.join_round(conn, "t1-1", user, Decimal("50"))
        statements = trace(conn)
        rounds_store.finish_round_players(
            conn, "t1-1", {alice: Decimal("75.50"), bob: Decimal("0")}
        )
        assert len(statements) == 1
        assert rounds_store.round_balances(conn, "t1-1", alice) == (Decimal("50"), Decimal("75.50"))
        assert rounds_store.round_balances(conn, "t1-1", bob) == (Decimal("50"), Decimal("0"))
        rounds_store.finish_round_players(conn, "t1-1", {})  # nothing to write
        with pytest.raises(NotFound, match=f"user {carol} did not join round 't1-1'"):
            rounds_store.finish_round_players(
                conn, "t1-1", {alice: Decimal("1"), carol: Decimal("1")}
            )
        with pytest.raises(InvalidAmount, match="balance after -1 is negative"):
            rounds_store.finish_round_players(conn, "t1-1", {alice: Decimal("-1")})


def test_an_input_and_a_join_cost_one_statement_each(engine: sqlalchemy.Engine) -> None:
    """Every command appends its input, and a first stake joins the player: each is one
    statement when it is accepted, its checks inside it."""
    with engine.begin() as conn:
        (alice,) = users(conn, "alice")
        create(conn, "t1-1")
        statements = trace(conn)
        rounds_store.append_input(conn, "t1-1", 1, entry("stand", "ann"))
        rounds_store.join_round(conn, "t1-1", alice, Decimal("10"))
        assert len(statements) == 2
        assert len(rounds_store.load_round(conn, "t1-1").record.inputs) == 2


def test_an_input_fenced_by_its_tables_lease_is_still_one_statement(
    engine: sqlalchemy.Engine,
) -> None:
    """Every input at a table owned by a lease is fenced (nothing is written once
    another process claimed the table): the fence rides in the input's own statement,
    and a stale epoch writes nothing and says the table was lost."""
    owner = Ownership(engine)
    try:
        epoch = owner.claim("t1")
        assert epoch is not None

        def fenced(conn: sqlalchemy.Connection) -> None:
            fence(conn, "t1", epoch)

        with engine.begin() as conn:
            create(conn, "t1-1")
        with engine.begin() as conn:
            statements = trace(conn)
            rounds_store.append_input(
                conn, "t1-1", 1, entry("stand", "ann"), lease=("t1", epoch), fence=fenced
            )
            assert len(statements) == 1
        owner.let_go("t1")
        assert owner.claim("t1") == epoch + 1  # claimed again since: the old epoch is stale
        with engine.begin() as conn, pytest.raises(TableLost, match="another process"):
            rounds_store.append_input(
                conn, "t1-1", 2, entry("stand", "ann"), lease=("t1", epoch), fence=fenced
            )
        with engine.connect() as conn:
            assert len(rounds_store.load_round(conn, "t1-1").record.inputs) == 2
    finally:
        owner.release()


@pytest.mark.postgres
def test_a_claim_waits_for_a_fenced_input_in_flight(postgres_url: str) -> None:
    """The input's statement locks the lease row as the fence does (FOR KEY SHARE): a
    claim made while its transaction is open comes after it."""
    engine = db.connect(postgres_url)
    first, second = Ownership(engine), Ownership(engine)
    claimed: list[int | None] = []
    try:
        epoch = first.claim("t1")
        assert epoch is not None
        with engine.begin() as conn:
            create(conn, "t1-1")
        first.let_go("t1")  # vacant: the second process may claim it at once
        with engine.begin() as conn:
            rounds_store.append_input(conn, "t1-1", 1, entry("stand", "ann"), lease=("t1", epoch))
            claiming = threading.Thread(target=lambda: claimed.append(second.claim("t1")))
            claiming.start()
            time.sleep(0.5)
            assert claimed == []  # it waits for the input's transaction
        claiming.join(timeout=10)
        assert claimed == [epoch + 1]
    finally:
        first.release()
        second.release()
        engine.dispose()


def test_player_rounds_newest_first(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        alice, bob = users(conn, "alice", "bob")
        for number in range(1, 6):
            round_id = f"t1-{number}"
            create(conn, round_id, number=number, at=T0 + timedelta(minutes=number))
            rounds_store.join_round(conn, round_id, alice, Decimal(number))
            if number % 2:
                rounds_store.join_round(conn, round_id, bob, Decimal("7"))
    with engine.connect() as conn:
        latest = rounds_store.player_rounds(conn, alice, limit=3)
        assert [(r.id, before) for r, before, _ in latest] == [
            ("t1-5", Decimal("5.00")),
            ("t1-4", Decimal("4.00")),
            ("t1-3", Decimal("3.00")),
        ]
        assert [r.id for r, _, _ in rounds_store.player_rounds(conn, bob)] == [
            "t1-5",
            "t1-3",
            "t1-1",
        ]
        assert rounds_store.player_rounds(conn, 999) == []


def test_a_players_list_of_rounds_reads_their_columns_not_their_records(
    engine: sqlalchemy.Engine,
) -> None:
    """A round whose stored record was damaged (by hand, in the database) is still
    listed: the list reads the rounds' columns, and recall alone reads a record."""
    with engine.begin() as conn:
        (alice,) = users(conn, "alice")
        create(conn, "t1-1", number=1, at=T0)
        rounds_store.join_round(conn, "t1-1", alice, Decimal("10"))
        conn.execute(rounds.update().where(rounds.c.id == "t1-1").values(record='{"number": "x"}'))
    with engine.connect() as conn:
        ((played, before, after),) = rounds_store.player_rounds(conn, alice)
        assert (played.id, played.number, played.status, before, after) == (
            "t1-1",
            1,
            "open",
            Decimal("10.00"),
            None,
        )
        with pytest.raises(MalformedRecord):
            rounds_store.load_round(conn, "t1-1")


def test_inputs_are_appended_one_row_each_and_the_record_is_not_rewritten(
    engine: sqlalchemy.Engine,
) -> None:
    """A command costs one small insert: the round's record (its shoe, its rules) is
    written when the round opens and when it closes, never per command."""
    with engine.begin() as conn:
        create(conn, "t1-1")
        before = conn.execute(
            select(rounds.c.record, rounds.c.updated_at).where(rounds.c.id == "t1-1")
        ).one()
        rounds_store.append_input(conn, "t1-1", 1, entry("stand", "ann"))
        rounds_store.append_input(conn, "t1-1", 2, entry("hit", "bob"))
        after = conn.execute(
            select(rounds.c.record, rounds.c.updated_at).where(rounds.c.id == "t1-1")
        ).one()
        assert after == before
        assert conn.execute(select(func.count()).select_from(round_inputs)).scalar_one() == 3
        loaded = rounds_store.load_round(conn, "t1-1").record
        assert loaded.inputs == (
            entry("bet", "ann", box=1, amount="10.00"),
            entry("stand", "ann"),
            entry("hit", "bob"),
        )
        with pytest.raises(RoundError, match="has 3 inputs: the next is 3, not 5"):
            rounds_store.append_input(conn, "t1-1", 5, entry("stand"))
        with pytest.raises(NotFound, match="'nope'"):
            rounds_store.append_input(conn, "nope", 0, entry("stand"))
        rounds_store.save_round(conn, "t1-1", record=loaded, status="settled")
        with pytest.raises(RoundError, match="'t1-1' is closed"):
            rounds_store.append_input(conn, "t1-1", 3, entry("stand"))
        assert len(rounds_store.load_round(conn, "t1-1").record.inputs) == 3


def test_closing_a_round_writes_its_bets_and_money_beside_it(engine: sqlalchemy.Engine) -> None:
    """When a round closes, its bets that played (bets added up, a withdrawn bet gone, a
    side bet on a box without a main bet given back, insurance taken) and its money as
    the ledger's legs hold it are written beside it, once."""
    from croupier.server import ledger
    from croupier.server.schema import round_bets

    inputs = (
        entry("bet", "ann", box=1, amount="10", bet="main"),
        entry("bet", "ann", box=1, amount="5", bet="main"),
        entry("bet", "bob", box=2, amount="20", bet="main"),
        entry("withdraw", "bob", box=2, bet="main"),
        entry("bet", "bob", box=3, amount="5", bet="21+3"),
        entry("bet", "bob", box=2, amount="25", bet="main"),
        entry("close_bets"),
        entry("insurance", "ann", box=1, amount="7.50"),
        entry("walk_away", None, by="dealer-1", who="bob"),
    )
    shoe = {"order": ["2S", "KH"] + ["9D"] * 50, "position": 1, "decks": 1}
    opened = record("t1-9", number=9, dealt="rng", shoe=shoe, inputs=inputs[:1])
    with engine.begin() as conn:
        ann, bob = users(conn, "ann", "bob")
        for user in (ann, bob):
            ledger.grant(conn, user, Decimal("100"), idempotency_key=f"chips:{user}")
        create(conn, "t1-9", number=9, record_=opened)
        for user, amount in ((ann, "22.50"), (bob, "30")):
            rounds_store.join_round(conn, "t1-9", user, Decimal("100"))
            ledger.stake(conn, user, "t1-9", Decimal(amount), idempotency_key=f"s{user}", memo="")
        ledger.close_round(
            conn,
            "t1-9",
            {ann: Decimal("40"), bob: Decimal("0")},
            idempotency_key="t1-9:close",
            void=False,
            table="t1",
        )
        closed = replace(opened, inputs=inputs, closed_at=AT, shoe_after=shoe)
        for _ in range(2):  # saved again as it is: nothing written twice
            rounds_store.save_round(conn, "t1-9", record=closed, status="settled")
    with engine.connect() as conn:
        bets = conn.execute(
            select(round_bets.c.seq, round_bets.c.player, round_bets.c.box)
            .add_columns(round_bets.c.kind, round_bets.c.units, round_bets.c.true_count)
            .order_by(round_bets.c.seq)
        ).all()
        money = conn.execute(
            select(
                rounds.c.shoe_position,
                rounds.c.irregular_inputs,
                rounds.c.house_win,
                rounds.c.staked,
            )
        ).one()
        players = dict(
            conn.execute(
                select(round_players.c.user_id, round_players.c.net).where(
                    round_players.c.status == "settled"
                )
            ).all()
        )
    count = 52 / 51  # a 2 dealt, 51 cards left
    assert [tuple(row) for row in bets] == [
        (1, "ann", 1, "main", 1500, pytest.approx(count)),
        (5, "bob", 2, "main", 2500, pytest.approx(count)),
        (7, "ann", 1, "insurance", 750, pytest.approx(count)),
    ]
    assert tuple(money) == (1, 1, 1250, 5250)
    assert players == {ann: 1750, bob: -3000}
