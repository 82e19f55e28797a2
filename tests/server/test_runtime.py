"""A table at the server: rounds on known cards, their money, their clocks, recovery."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Collection, Iterator
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy

from croupier.errors import BetError, CardError, IllegalActionError
from croupier.round import Phase, Round
from croupier.server import driver, ledger, rounds_store
from croupier.server.errors import ActionRefused, InsufficientFunds
from croupier.server.runtime import TableRuntime
from tests.server.tables import act, balance, books, make_crowd, make_users, table

#: ann's 10 and 7 against the dealer's 6, who draws 9 and K and busts (RWS v5, no hole card).
RWS_CARDS = "10S 6D 7H 9C KD"


def test_two_players_on_one_box_and_a_standing_player_declining_a_split(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 1.26 (the box's decisions are its seated player's), 3.21 (a split), and a
    standing player who does not follow it keeps his bet on the first hand."""
    ids = make_users(engine, "ann", "bob")
    # No hole card (rws-v5): ann's 8, the up card 6, ann's 8; then the split hands'
    # cards K and 9, then the dealer's Q and J (bust).
    runtime = table(engine, ids, "rws-v5", "8S 6D 8H KC 9C QD JD")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 1, "amount": "50"}, now=2)
    assert balance(engine, ids["ann"]) == Decimal("900.00")
    assert balance(engine, ids["bob"]) == Decimal("950.00")
    assert runtime.tick(now=2 + runtime.config.betting_seconds) is not None  # no more bets
    # RWS v5 3.16: surrender is offered first (not against an Ace); ann declines.
    act(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=19)
    with pytest.raises(IllegalActionError):
        act(runtime, "split", "bob", {}, now=20)  # nobody acts for another player
    act(runtime, "split", "ann", {}, now=21)
    offers = runtime.view("bob")["offers"]
    assert [(o["kind"], o["player"]) for o in offers] == [("follow-split", "bob")]
    act(runtime, "decline", "bob", {"box": 1, "kind": "follow-split"}, now=22)
    act(runtime, "stand", "ann", {}, now=23)
    outcome = act(runtime, "stand", "ann", {}, now=24)
    assert outcome.over and runtime.round.phase is Phase.SETTLED
    assert balance(engine, ids["ann"]) == Decimal("1200.00")
    assert balance(engine, ids["bob"]) == Decimal("1050.00")
    assert books(engine) == []


def test_a_balance_is_read_and_sent_only_when_the_input_changed_it(
    engine: sqlalchemy.Engine,
) -> None:
    """The protocol's ``balance`` message says "your balance changed": an input reads
    the acting player's balance when it moved his money (a bet, a withdrawal), never
    after a decision that moved none, and everyone's when the round pays."""
    ids = make_users(engine, "ann", "bob")
    ann, bob = ids["ann"], ids["bob"]
    runtime = table(engine, ids, "rws-v5", RWS_CARDS)
    placed = act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1, balances={ann})
    assert placed.balances == {ann: Decimal("900.00")}
    act(runtime, "bet", "bob", {"box": 2, "amount": "50"}, now=1, balances={bob})
    withdrawn = act(runtime, "withdraw", "bob", {"box": 2}, now=2, balances={bob})
    assert withdrawn.balances == {bob: Decimal("1000.00")}
    assert runtime.tick(now=2 + runtime.config.betting_seconds) is not None  # no more bets
    declined = act(
        runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=20, balances={ann}
    )
    assert declined.balances == {} and not declined.over  # his money did not move
    paid = act(runtime, "stand", "ann", {}, now=21, balances={ann}, balances_at_end={ann, bob})
    assert paid.over and paid.balances == {ann: Decimal("1100.00"), bob: Decimal("1000.00")}


def test_a_stakes_reads_go_with_its_input_in_one_round_trip_on_postgresql(
    engine: sqlalchemy.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bet at a round already open sends its input's row, the player's limits, his
    join to the round (his first bet in it) and the ledger's reads of the movement
    (both accounts locked, the key and the round's close looked up) together: on
    PostgreSQL in psycopg's pipeline mode, one round trip, where each was one; then
    its movement (one statement on PostgreSQL), and no read of the balance the player
    is sent (his account's lock read it).  A withdrawal sends its row and the ledger's
    reads the same way.  The money is what it was one statement at a time."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5", RWS_CARDS)
    postgres = engine.dialect.name == "postgresql"
    piped: list[tuple[bool, int]] = []
    traced: list[dict[Any, Any]] = []
    real = driver.pipeline

    @contextlib.contextmanager
    def watched(conn: sqlalchemy.Connection) -> Iterator[None]:
        statements = driver.trace(conn)
        traced.append(conn.info)
        with real(conn):
            info = getattr(conn.connection.dbapi_connection, "info", None)
            status = getattr(info, "pipeline_status", 0)  # psycopg's: 1 when on
            yield
        piped.append((bool(status), len(statements)))

    def after() -> int:
        """Statements the write ran after its pipeline (its tracing ends)."""
        info = traced.pop()
        return len(info.pop(driver._TRACE)) - piped[-1][1]

    monkeypatch.setattr(driver, "pipeline", watched)
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)  # opens the round
    assert piped == []
    placed = act(runtime, "bet", "bob", {"box": 2, "amount": "50"}, now=1, balances={ids["bob"]})
    # The row, the limits, the join, the accounts locked, the key: one pipeline.
    assert piped == [(postgres, 5)]
    # The movement; the balance the player is sent is the lock's less the stake (no read).
    assert after() == (1 if postgres else 3)
    assert placed.balances == {ids["bob"]: Decimal("950.00")}
    act(runtime, "bet", "bob", {"box": 2, "amount": "25"}, now=2)  # joined already
    assert piped[-1] == (postgres, 4)
    assert after() == (1 if postgres else 3)
    withdrawn = act(runtime, "withdraw", "bob", {"box": 2}, now=3, balances={ids["bob"]})
    assert piped[-1] == (postgres, 3)
    assert withdrawn.balances == {ids["bob"]: Decimal("1000.00")}
    after()
    assert balance(engine, ids["ann"]) == Decimal("900.00")
    assert books(engine) == []
    with engine.connect() as conn:
        assert len(rounds_store.load_round(conn, runtime.round_id).record.inputs) == 4


def test_an_input_that_moves_no_money_is_a_transaction_of_its_own_on_postgresql(
    engine: sqlalchemy.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An input whose whole write is its row (no money moves, the round goes on: the
    close of the bets, a declined offer) is written alone (``driver.alone``): on
    PostgreSQL without BEGIN and COMMIT, its statement its own transaction.  A bet, and
    the stand that settles the round, are not; the books balance."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", RWS_CARDS)
    postgres = engine.dialect.name == "postgresql"
    alone: list[bool] = []
    real = driver.alone

    @contextlib.contextmanager
    def watched(conn: sqlalchemy.Connection) -> Iterator[None]:
        with real(conn):
            autocommit = getattr(conn.connection.dbapi_connection, "autocommit", None)
            alone.append(postgres and autocommit is True)
            yield

    monkeypatch.setattr(driver, "alone", watched)
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    assert alone == []
    assert runtime.tick(now=1 + runtime.config.betting_seconds) is not None  # no more bets
    act(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=20)
    assert alone == [postgres, postgres]
    assert act(runtime, "stand", "ann", {}, now=21).over
    assert len(alone) == 2
    assert balance(engine, ids["ann"]) == Decimal("1100.00")
    assert books(engine) == []
    with engine.connect() as conn:
        assert len(rounds_store.load_round(conn, runtime.round_id).record.inputs) == 4


def test_a_bet_the_balance_cannot_cover_changes_nothing(engine: sqlalchemy.Engine) -> None:
    ids = make_users(engine, "ann", chips="40.00")
    runtime = table(engine, ids, "rws-v5")
    before = json.dumps(runtime.record.to_json())
    with pytest.raises(InsufficientFunds, match=r"40\.00"):
        act(runtime, "bet", "ann", {"box": 1, "amount": "50"}, now=1)
    assert json.dumps(runtime.record.to_json()) == before
    assert runtime.round.placed_bets == ()
    assert balance(engine, ids["ann"]) == Decimal("40.00")
    with pytest.raises(BetError, match="maximum"):
        act(runtime, "bet", "ann", {"box": 1, "amount": "5000.01"}, now=1)  # rws-v5: 5000
    assert runtime.round.placed_bets == () and books(engine) == []


def test_a_retried_request_does_nothing_twice(engine: sqlalchemy.Engine) -> None:
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5")
    first = act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1, key="k-1")
    again = act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=2, key="k-1")
    assert not first.retried and again.retried and again.seq == first.seq
    assert balance(engine, ids["ann"]) == Decimal("900.00")
    assert len(runtime.round.placed_bets) == 1


def test_the_decision_timer_plays_the_hand_by_the_walk_away_rule(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.3: a hand whose player does not act draws to 12 or more, then stands."""
    ids = make_users(engine, "ann")
    # ann 2, up 9, ann 3 (5); the timer draws 4 (9), 2 (11), 5 (16) and stands; dealer K.
    runtime = table(engine, ids, "rws-v5", "2S 9D 3H 4C 2C 5D KS 8S", decision_seconds=5.0)
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    runtime.tick(now=100)
    offer = runtime.view("ann")
    assert offer["offers"][0]["kind"] == "surrender" and offer["deadline"]["kind"] == "offer"
    runtime.tick(now=offer["deadline"]["at"])  # an offer not answered in time is declined
    view = runtime.view("ann")
    assert view["offers"] == [] and view["turn"] == {"box": 1, "hand": 1, "yours": True}
    assert view["deadline"]["kind"] == "decision"  # shown to the player beforehand
    assert view["timeout_rule"].startswith("draw to 12")
    assert runtime.tick(now=view["deadline"]["at"] - 0.1) is None
    runtime.tick(now=view["deadline"]["at"])
    hand = runtime.round.boxes[0].hands[0]
    assert [str(card) for card in hand.cards] == ["2S", "3H", "4C", "2C", "5D"]  # 16: stands
    assert runtime.round.phase is Phase.SETTLED
    assert books(engine) == []


def test_a_watcher_never_sees_the_hole_card(engine: sqlalchemy.Engine) -> None:
    """online-8deck deals a hole card (peek); it stays on the server until revealed."""
    ids = make_users(engine, "ann")
    # hole card first (online-8deck): ann 9, hole QS, ann 7, up 5.
    runtime = table(engine, ids, "online-8deck", "9C QS 7D 5H 8C 9H")
    act(runtime, "bet", "ann", {"box": 1, "amount": "10"}, now=1)
    outcome = runtime.tick(now=100)
    assert outcome is not None
    watcher = runtime.view(None)
    assert watcher["dealer"]["cards"] == ["5H"] and watcher["dealer"]["hole_card"] is None
    assert "QS" not in json.dumps(watcher)
    from croupier.server.views import public_events

    shown = json.dumps(public_events(outcome.events))
    assert "QS" not in shown and '"card": null' in shown
    assert "QS" in json.dumps(public_events(outcome.events, dealer=True))  # the dealer knows
    act(runtime, "stand", "ann", {}, now=101)
    assert runtime.round.phase is Phase.SETTLED
    assert "QS" in json.dumps(runtime.view(None))  # revealed at the end


def test_a_round_killed_mid_play_comes_back_and_is_settled_or_voided(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.4: after a failure the round continues if an outcome is established,
    else it is void and every stake returned."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5", "8S 7C 6D 8H 9C QD JD")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "30"}, now=1)
    runtime.tick(now=100)
    assert runtime.round.phase is Phase.OFFERS  # surrender offered (RWS v5 3.16)
    record = runtime.record
    del runtime  # the process dies: nothing but the database is left
    back = TableRuntime(table(engine, ids, "rws-v5").config, engine, ids.__getitem__, now=200)
    assert back.number == record.number + 1  # the next round is open
    with engine.begin() as conn:
        row = rounds_store.load_round(conn, record.round_id)
    assert row.status == "void"  # no outcome was established yet: void (5.4.2)
    assert balance(engine, ids["ann"]) == Decimal("1000.00")
    assert balance(engine, ids["bob"]) == Decimal("1000.00")
    assert books(engine) == []


def test_only_the_box_holder_opens_a_reserved_box(engine: sqlalchemy.Engine) -> None:
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5")
    runtime.take_box("ann", 3)
    with pytest.raises(ActionRefused, match="taken by ann"):
        act(runtime, "bet", "bob", {"box": 3, "amount": "50"}, now=1)
    act(runtime, "bet", "ann", {"box": 3, "amount": "50"}, now=1)
    act(runtime, "bet", "bob", {"box": 3, "amount": "50"}, now=1)  # behind ann
    assert runtime.round.seated_player(3) == "ann"
    runtime.disconnected("ann", now=2)
    runtime.tick(now=2 + runtime.config.grace_seconds - 1)
    assert "3" in runtime.view(None)["seats"]  # kept through the grace period
    runtime.tick(now=2 + runtime.config.grace_seconds)
    assert "3" not in runtime.view(None)["seats"]  # then given back


def test_a_round_with_an_outcome_established_continues_after_a_restart(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.4: ann's surrender settled at interim settlement is an outcome, so after
    the failure the round goes on, and bob's hand is played to its end."""
    ids = make_users(engine, "ann", "bob")
    # box 1 ann 8S 8H (16), box 2 bob 7C 9C (16), up 10D; then bob's draw 4S (20); the
    # dealer's 7S (17).
    runtime = table(engine, ids, "rws-v5", "8S 7C 10D 8H 9C 4S 7S")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "30"}, now=1)
    runtime.tick(now=100)
    act(runtime, "surrender", "ann", {"box": 1}, now=101)
    act(runtime, "decline", "bob", {"box": 2, "kind": "surrender"}, now=102)
    round_id = runtime.round_id
    del runtime
    back = TableRuntime(table(engine, ids, "rws-v5").config, engine, ids.__getitem__, now=200)
    assert back.round_id == round_id and back.round.phase is Phase.PLAYER_TURNS
    assert back.record.inputs[-1].op == "interrupt"
    act(back, "hit", "bob", {}, now=201)
    outcome = act(back, "stand", "bob", {}, now=202)
    assert outcome.over and back.round.phase.value == "settled"
    assert balance(engine, ids["ann"]) == Decimal("950.00")  # half back
    assert balance(engine, ids["bob"]) == Decimal("1030.00")  # 20 against 17
    assert books(engine) == []


def test_a_dealer_console_enters_cards_and_voids_a_round_with_its_reason(
    engine: sqlalchemy.Engine,
) -> None:
    """A physical-shoe table: the engine takes the dealer's cards one by one, checks them,
    and a void returns every stake (RWS v5 5.17); a card that is not a card changes nothing."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", dealt="dealer")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    runtime.tick(now=100)
    assert runtime.view("ann")["awaiting_card"] and runtime.deadline is None
    act(runtime, "card", None, {"card": "9S"}, now=101)
    with pytest.raises(CardError, match="unknown card 'ZZ'"):
        act(runtime, "card", None, {"card": "ZZ"}, now=102)
    assert [str(c) for c in runtime.round.boxes[0].hands[0].cards] == ["9S"]
    act(runtime, "card", None, {"card": "KD"}, now=103)
    assert runtime.view(None)["dealer"]["cards"] == ["KD"]
    act(runtime, "void", None, {"reason": "dealing error: two cards stuck"}, now=104)
    assert runtime.round.phase is Phase.VOID
    assert runtime.view(None)["void_reason"] == "dealing error: two cards stuck"
    assert balance(engine, ids["ann"]) == Decimal("1000.00")
    assert books(engine) == []


def test_a_joker_in_the_shoe_voids_the_round(engine: sqlalchemy.Engine) -> None:
    """RWS v5 5.5.1: a card found that is not part of the set voids the round."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", dealt="dealer")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    runtime.tick(now=100)
    act(runtime, "card", None, {"card": "JK"}, now=101)
    assert runtime.round.phase is Phase.VOID and "5.5" in str(runtime.round.void_reason)
    assert balance(engine, ids["ann"]) == Decimal("1000.00") and books(engine) == []


def test_a_withdrawn_bet_comes_back_to_the_balance(engine: sqlalchemy.Engine) -> None:
    """RWS v5 5.8: bets may be withdrawn until "No more bets"; the money comes back."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "60"}, now=1)
    act(runtime, "withdraw", "ann", {"box": 1}, now=2)
    assert balance(engine, ids["ann"]) == Decimal("1000.00")
    assert balance(engine, ids["bob"]) == Decimal("940.00")
    assert books(engine) == []
    with engine.begin() as conn:
        from croupier.server import ledger

        assert ledger.round_stakes(conn, runtime.round_id) == {ids["bob"]: Decimal("60.00")}


def test_the_ledger_holds_each_bettors_stake_through_a_crowds_bets_and_withdrawals(
    engine: sqlalchemy.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RWS v5 1.26 and 5.8: players betting behind, adding to their bets, side bets and
    withdrawing them before "No more bets". Each bet moves its own player's money alone
    (the server sums no one else's stake again), and after every input the ledger holds
    on the round exactly what the engine says each player has on the table."""
    seated = make_users(engine, "ann", "bob")
    crowd = make_crowd(engine, *(f"punter{n}" for n in range(12)))
    ids = {**seated, **crowd}
    runtime = table(engine, ids, "rws-v5")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "50"}, now=1)
    moves: list[tuple[str, str, dict[str, Any]]] = [
        ("bet", "punter0", {"box": 1, "amount": "20"}),
        ("bet", "punter1", {"box": 2, "amount": "10"}),
        ("bet", "punter0", {"box": 1, "amount": "15"}),  # adds to his bet behind
        ("bet", "punter2", {"box": 1, "amount": "5", "bet": "player_pair"}),
        ("withdraw", "punter1", {"box": 2}),
        ("bet", "ann", {"box": 1, "amount": "25"}),
        ("withdraw", "punter0", {"box": 1}),
        *(("bet", f"punter{n}", {"box": 1 + n % 2, "amount": "10"}) for n in range(3, 12)),
    ]
    summed: list[frozenset[str] | None] = []
    whole = Round.staked_by_player

    def counted(game: Round, of: Collection[str] | None = None) -> dict[str, Decimal]:
        summed.append(None if of is None else frozenset(of))
        return whole(game, of)

    for op, player, args in moves:
        summed.clear()
        with monkeypatch.context() as patched:
            patched.setattr(Round, "staked_by_player", counted)
            act(runtime, op, player, args, now=2)
        assert summed == [frozenset({player})]  # his stake alone was summed again
        with engine.begin() as conn:
            held = ledger.round_stakes(conn, runtime.round_id)
        engine_says = runtime.round.staked_by_player()
        assert held == {ids[name]: amount for name, amount in engine_says.items()}
    assert books(engine) == []


def test_a_box_under_the_minimum_has_its_bets_returned_and_the_round_plays_on(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.2: a box short of the table minimum when bets close does not play and
    its bets come back; the other boxes' round is dealt, never voided for it."""
    ids = make_users(engine, "ann", "bob")
    # ann's 10 on box 1, the up card 7; bob's box does not play.
    runtime = table(engine, ids, "rws-v5", "TS 7D 9H")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "10"}, now=1)  # minimum 25
    act(runtime, "bet", "bob", {"box": 2, "amount": "5", "bet": "player_pair"}, now=1)
    assert balance(engine, ids["bob"]) == Decimal("985.00")
    outcome = runtime.tick(now=1 + runtime.config.betting_seconds)
    assert outcome is not None
    assert runtime.round.phase is not Phase.VOID
    assert [box.number for box in runtime.round.boxes] == [1]
    assert [e.type for e in outcome.events][:3] == ["bet_withdrawn", "bet_withdrawn", "bets_closed"]
    assert balance(engine, ids["bob"]) == Decimal("1000.00")
    assert balance(engine, ids["ann"]) == Decimal("900.00")
    assert books(engine) == []


def test_a_lone_box_under_the_minimum_goes_back_and_the_table_waits_for_bets(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.2: with every box short, every bet comes back and bets stay open."""
    ids = make_users(engine, "bob")
    runtime = table(engine, ids, "rws-v5")
    act(runtime, "bet", "bob", {"box": 2, "amount": "0.01"}, now=1)
    runtime.tick(now=1 + runtime.config.betting_seconds)
    assert runtime.round.phase is Phase.BETTING and runtime.round.placed_bets == ()
    assert runtime.deadline is None
    assert balance(engine, ids["bob"]) == Decimal("1000.00")
    assert books(engine) == []


def test_an_idempotency_key_reused_for_another_command_is_refused(
    engine: sqlalchemy.Engine,
) -> None:
    """A key names one command: a retry of it is answered, a different command under it
    is refused with its own code and changes nothing."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1, key="k-1")
    with pytest.raises(ActionRefused) as refused:
        act(runtime, "bet", "ann", {"box": 2, "amount": "200"}, now=2, key="k-1")
    assert refused.value.code == "key_conflict"
    assert balance(engine, ids["ann"]) == Decimal("900.00")
    assert len(runtime.round.placed_bets) == 1


def test_a_database_error_when_a_timer_fires_is_retried_on_the_next_tick(
    engine: sqlalchemy.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed write when the decision clock runs out changes nothing, and the clock
    stays due: the next tick plays the hand by RWS v5 5.3, the table never sticks."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", "2S 9D 3H 4C 2C 5D KS 8S", decision_seconds=5.0)
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    runtime.tick(now=100)
    act(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=101)
    due = runtime.view("ann")["deadline"]["at"]
    store = runtime._store

    def failing(record: dict[str, object], now: float, *reads: object) -> dict[str, Decimal]:
        raise sqlalchemy.exc.OperationalError("UPDATE rounds", {}, Exception("locked"))

    monkeypatch.setattr(runtime, "_store", failing)
    with pytest.raises(sqlalchemy.exc.OperationalError):
        runtime.tick(now=due)
    assert runtime.round.phase.value == "player-turns"
    assert [str(card) for card in runtime.round.boxes[0].hands[0].cards] == ["2S", "3H"]
    monkeypatch.setattr(runtime, "_store", store)
    assert runtime.tick(now=due + 0.05) is not None
    assert runtime.round.phase is Phase.SETTLED
    assert books(engine) == []


def test_rws_v5_5_8_no_more_bets_comes_once_every_bettor_has_confirmed(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.8 ("No more bets"): the table deals as soon as every player with a bet on
    the layout says his bets are made, without waiting for the betting clock; a bet
    changed after confirming is confirmed again."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5", RWS_CARDS)
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "25"}, now=1)
    total, outcome = runtime.confirm_bets("ann", now=2)
    assert total == Decimal("25.00") and outcome is None
    assert runtime.view(None)["confirmed"] == ["ann"]
    act(runtime, "bet", "ann", {"box": 1, "amount": "10"}, now=3)  # ann adds a chip
    assert runtime.view(None)["confirmed"] == []
    assert runtime.confirm_bets("bob", now=4)[1] is None  # ann must confirm again
    total, outcome = runtime.confirm_bets("ann", now=5)
    assert total == Decimal("35.00")
    assert outcome is not None and outcome.events[0].type == "bets_closed"
    assert runtime.round.phase is not Phase.BETTING  # long before the clock's 15 s
    assert balance(engine, ids["ann"]) == Decimal("965.00")
    assert books(engine) == []


def test_one_seated_players_confirmation_never_closes_betting_for_another(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.8: "No more bets" comes early only once every player at the table has
    said his bets are made.  ann and bob are seated; ann bets and confirms at once: bob,
    who has not bet yet, keeps his betting time (he once found his spots disabled 0.14 s
    after betting opened).  Once he bets and confirms, the cards come.  A seated player
    who has gone (away) does not hold the table up."""
    ids = make_users(engine, "ann", "bob", "cyd")
    runtime = table(engine, ids, "rws-v5", RWS_CARDS)
    for box, name in ((1, "ann"), (2, "bob"), (3, "cyd")):
        runtime.take_box(name, box)
    runtime.disconnected("cyd", now=0.5)  # gone: his seat is kept, he holds nothing up
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    assert runtime.confirm_bets("ann", now=1.1)[1] is None
    assert runtime.round.phase is Phase.BETTING
    act(runtime, "bet", "bob", {"box": 2, "amount": "25"}, now=3)
    outcome = runtime.confirm_bets("bob", now=4)[1]
    assert outcome is not None and outcome.events[0].type == "bets_closed"
    assert books(engine) == []


def test_rws_v5_5_8_chips_on_the_layout_at_no_more_bets_are_the_bet(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.8: the bets on the layout when the clock calls "No more bets" play,
    whether or not their player confirmed them; none is dropped."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", RWS_CARDS)
    for chip in ("25", "10"):  # two chips as they land, never confirmed
        act(runtime, "bet", "ann", {"box": 1, "amount": chip}, now=1)
    runtime.tick(now=1 + runtime.config.betting_seconds)
    assert runtime.round.phase is not Phase.BETTING
    assert runtime.round.boxes[0].hands[0].stake == Decimal("35.00")
    assert balance(engine, ids["ann"]) == Decimal("965.00")


def test_rws_v5_5_2_a_box_under_the_minimum_cannot_be_confirmed(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.2: a box under the table minimum is raised or withdrawn before the deal,
    so confirming it is refused with the minimum named; confirming no bet is refused."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", RWS_CARDS)
    with pytest.raises(ActionRefused, match="put chips on a betting spot first") as none:
        runtime.confirm_bets("ann", now=1)
    assert none.value.code == "no_bets"
    act(runtime, "bet", "ann", {"box": 1, "amount": "10"}, now=1)
    with pytest.raises(ActionRefused, match=r"under the table minimum 25\.00.*RWS v5 5\.2"):
        runtime.confirm_bets("ann", now=2)
    assert runtime.round.phase is Phase.BETTING and runtime.confirmed == set()


def test_rws_v5_3_16_the_surrender_offer_carries_the_actions_of_playing_on(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 3.16: surrender is offered after the deal, before any third card; the
    table shows it beside the actions the hand has if its player plays on."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", "8S 6D 8H")  # a pair of 8s against a 6
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    runtime.confirm_bets("ann", now=2)
    (offer,) = runtime.view("ann")["offers"]
    assert offer["kind"] == "surrender" and offer["blackjack"] is False
    assert offer["then"] == ["hit", "stand", "double", "split"]


def test_live_insurance_an_insured_blackjack_is_marked_for_even_money_wording(
    engine: sqlalchemy.Engine,
) -> None:
    """Live Blackjack Game Rules, Insurance: "You may obtain insurance even if you have
    Blackjack"; the offer says the hand is a blackjack (even money in effect)."""
    ids = make_users(engine, "ann")
    # live deals the hole card second: ann A, up A, ann K, hole 9.
    runtime = table(engine, ids, "live", "AS AD KH 9C")
    act(runtime, "bet", "ann", {"box": 1, "amount": "10"}, now=1)
    runtime.confirm_bets("ann", now=2)
    offers = runtime.view("ann")["offers"]
    assert [(o["kind"], o["blackjack"]) for o in offers] == [("insurance", True)]


def test_the_time_out_rule_cites_the_tables_own_rulebook(engine: sqlalchemy.Engine) -> None:
    """RWS v5 5.3 at RWS v5; the live rules are silent and follow it, and say so."""
    ids = make_users(engine, "ann")
    assert table(engine, ids, "rws-v5").view(None)["timeout_rule"] == (
        "draw to 12 or more, then stand (RWS v5 5.3)"
    )
    live = table(engine, ids, "live").view(None)
    assert live["timeout_rule"] == (
        "draw to 12 or more, then stand (live rules silent; as RWS v5 5.3)"
    )


def test_the_dealer_is_told_whose_card_comes_next(engine: sqlalchemy.Engine) -> None:
    """RWS v5 (no hole card): box by box, then the dealer's up card, then the second
    cards; a player never sees where the next card goes."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5", dealt="dealer")
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    act(runtime, "bet", "bob", {"box": 3, "amount": "25"}, now=1)
    runtime.tick(now=1 + runtime.config.betting_seconds)
    seen = []
    for card in ("10S", "9H", "6D", "7C", "8C"):
        seen.append(runtime.view(None, dealer=True)["next_card_for"])
        act(runtime, "card", None, {"card": card}, now=20)
    assert seen == ["box 1", "box 3", "the dealer", "box 1", "box 3"]
    assert runtime.view("ann")["next_card_for"] is None


def test_the_tables_log_is_read_back_after_a_restart(engine: sqlalchemy.Engine) -> None:
    """The log of the last rounds comes from the database: a new process shows it, with
    the round a failure cut off voided (RWS v5 5.4) and its stake returned."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", RWS_CARDS + " 8S 6D 8H")
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    runtime.confirm_bets("ann", now=2)
    act(runtime, "decline", "ann", {"box": 1}, now=3)
    act(runtime, "stand", "ann", {}, now=4)  # the dealer busts: ann wins 25
    runtime.tick(now=100)  # the next round opens
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=101)
    runtime.confirm_bets("ann", now=102)
    first, second = runtime.log(3)[0]["number"], runtime.log(3)[1]["number"]
    assert (first, second) == (1, 2)
    del runtime  # the process dies mid-round
    back = TableRuntime(table(engine, ids, "rws-v5").config, engine, ids.__getitem__, now=200)
    log = back.log(3)
    assert [(entry["number"], entry["status"]) for entry in log] == [
        (1, "settled"),
        (2, "void"),
        (3, "open"),
    ]
    settled = [e for e in log[0]["events"] if e["type"] == "bet_settled"]
    assert [(e["player"], e["net"]) for e in settled] == [("ann", "25.00")]
    voided = [e["type"] for e in log[1]["events"]]
    assert "technical_interruption" in voided and "round_voided" in voided
    assert balance(engine, ids["ann"]) == Decimal("1025.00")
    assert [entry["number"] for entry in back.log(1)] == [2, 3]


def test_rws_v5_1_26_a_thousand_betting_behind_settle_in_one_transaction(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 1.26 lets players bet behind a box; a live table lets any number do so.
    Seven seated players and 1,000 behind them (more accounts than one statement compares,
    which SQLite once refused at settlement: "Expression tree is too large"): every bet
    is taken, the round settles in one transaction, each player gets what his box won
    and the books balance."""
    from croupier.cards import hand_total

    seated = [f"seat{box}" for box in range(1, 8)]
    behind = [f"back{n:04d}" for n in range(1000)]
    ids = make_crowd(engine, *seated, *behind)
    runtime = table(engine, ids, "rws-v5")
    now = 1.0
    for box, name in enumerate(seated, start=1):
        act(runtime, "bet", name, {"box": box, "amount": "25"}, now=now)
    for n, name in enumerate(behind):
        act(runtime, "bet", name, {"box": n % 7 + 1, "amount": "25"}, now=now)
    runtime.tick(now=now + runtime.config.betting_seconds)  # no more bets
    outcome = None
    while runtime.round.phase not in (Phase.SETTLED, Phase.VOID):
        game = runtime.round
        now += 1
        if game.offers:
            offer = game.offers[0]
            args = {"box": offer.box, "kind": offer.kind.value}
            outcome = act(runtime, "decline", offer.player, args, now=now)
        else:
            assert game.current_turn is not None
            box, hand = game.current_turn
            total = hand_total(game.boxes[box - 1].hands[hand - 1].cards).total
            outcome = act(runtime, "hit" if total < 17 else "stand", seated[box - 1], {}, now=now)
    assert outcome is not None and outcome.over and outcome.close_seconds is not None
    results = runtime.round.results
    assert {result.player for result in results} == {*seated, *behind}
    for result in results:
        expected = Decimal("1000.00") + result.net
        assert balance(engine, ids[result.player]) == expected, result.player
    assert books(engine) == []
