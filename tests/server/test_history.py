"""A table's history for everyone at it: the dealer's hand in each finished round and
his bust rate, read back from the recorded rounds."""

from __future__ import annotations

import sqlalchemy

from croupier.server.history import FRESH_SECONDS, HistoryCache, history_of, table_history
from croupier.server.runtime import TableRuntime
from tests.server.tables import act, make_users, table

#: Round 1: ann's 10+7 stands, the dealer's 6+9+K busts (RWS v5 3.11: no hole card).
#: Round 2: ann's 10+7 stands, the dealer's 10+8 stands on 18.
#: Round 3: ann's 10+6 hits a King and busts: no bet is left, the dealer draws no card.
SHOE = "10S 6D 7H 9C KD 10H 10D 7S 8C 10C 5D 6S KH"


def _play(runtime: TableRuntime, start: float, *moves: str) -> float:
    """One round of ann's on box 1 from ``start``: bet, decline surrender, ``moves``."""
    runtime.tick(now=start)
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=start + 1)
    runtime.tick(now=start + 3)
    act(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=start + 4)
    for offset, move in enumerate(moves, start=5):
        act(runtime, move, "ann", {}, now=start + offset)
    assert runtime.round.phase.value == "settled"
    return start + 100


def test_the_dealer_hand_of_each_round_and_his_bust_rate_over_hands_played_out(
    engine: sqlalchemy.Engine,
) -> None:
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", SHOE, betting_seconds=2, offer_seconds=30)
    now = _play(runtime, 0, "stand")
    now = _play(runtime, now, "stand")
    _play(runtime, now, "hit")
    cache = HistoryCache()
    with engine.begin() as conn:
        history = table_history(conn, runtime.config.id, cache)
    dealers = [(r["number"], r["dealer"]["cards"], r["dealer"]["total"]) for r in history["rounds"]]
    assert dealers == [(1, ["6D", "9C", "KD"], 25), (2, ["10D", "8C"], 18), (3, ["5D"], 5)]
    assert [r["dealer"]["busted"] for r in history["rounds"]] == [True, False, False]
    assert [r["dealer"]["played_out"] for r in history["rounds"]] == [True, True, False]
    # Round 3's dealer drew nothing (every bet was settled): not in the bust rate.
    assert history["dealer"] == {"rounds": 2, "busts": 1, "percent": "50.0"}
    with engine.begin() as conn:
        assert table_history(conn, runtime.config.id, cache, 2)["rounds"] == history["rounds"][1:]
        assert table_history(conn, "no-such-table", cache)["rounds"] == []


def test_the_pages_asking_as_a_round_ends_share_one_read_that_holds_it(
    engine: sqlalchemy.Engine,
) -> None:
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", SHOE, betting_seconds=2, offer_seconds=30)
    now = _play(runtime, 0, "stand")
    cache = HistoryCache()
    first = history_of(engine, runtime.config.id, cache)
    assert [r["number"] for r in first["rounds"]] == [1]
    _play(runtime, now, "stand")
    ended = runtime.round_id
    # A page that saw round 2 end is never answered with a history without it.
    second = history_of(engine, runtime.config.id, cache, after=ended)
    assert [r["number"] for r in second["rounds"]] == [1, 2]
    # What was read answers the others for a moment, and only for that moment.
    cache.read("t", 60, second, now=100.0)
    assert cache.recent("t", 60, ended, now=100.0 + FRESH_SECONDS / 2) is second
    assert cache.recent("t", 60, None, now=100.0 + FRESH_SECONDS / 2) is second
    assert cache.recent("t", 60, "another-round", now=100.0) is None
    assert cache.recent("t", 60, ended, now=100.0 + FRESH_SECONDS) is None
    assert cache.recent("t", 30, ended, now=100.0) is None
    cache.read("t", 60, first, now=99.0)  # begun before: perhaps older, not kept
    assert cache.recent("t", 60, None, now=100.5) is second
