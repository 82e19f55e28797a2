"""Whole rounds at a table on stacked shoes: the scenarios the browser tests play.

Each shoe is dealt exactly as the engine deals it, so a browser test can drive the
same cards through the WebSocket and expect the same offers, turns and balances.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy

from croupier.errors import IllegalActionError
from croupier.round import Phase
from croupier.server.runtime import Outcome, TableRuntime
from croupier.server.views import public_events
from tests.server.tables import act, balance, books, make_users, table

# The live preset (no peek: the hole card is dealt after the players' second cards).
# Round 1: ann 8S, bob 7D, up AH, ann 8S, bob 4C, hole 6H; ann's split hands draw KH
# (hand 1, at the split) and 9C (hand 2, when hand 1 stands); bob's double draws 9H;
# the dealer's A+6 is a soft 17 and stands.
# Round 2: ann 10C, bob KS, up 5S, ann 9S, bob 7S, hole 10D; the dealer draws 3S (18).
LIVE_ROUND_1 = "8S 7D AH 8S 4C 6H KH 9C 9H"
LIVE_ROUND_2 = "10C KS 5S 9S 7S 10D 3S"
LIVE_SHOE = f"{LIVE_ROUND_1} {LIVE_ROUND_2}"
LIVE_HOLE_1 = "6H"  # dealt nowhere else in round 1
LIVE_HOLE_2 = "10D"  # dealt nowhere else in round 2

# rws-v5 (no hole card): ann 10S, up 6D, ann 7H; the dealer draws 9C and KD (bust).
RWS_SHOE = "10S 6D 7H 9C KD"


def _viewers(runtime: TableRuntime) -> list[dict[str, Any]]:
    return [runtime.view(None), runtime.view("ann"), runtime.view("bob")]


def _hole_hidden(runtime: TableRuntime, hole: str) -> None:
    """No viewer (a watcher, either player) is shown the hole card, nor could find it."""
    for view in _viewers(runtime):
        assert view["dealer"]["hidden_cards"] == 1
        assert view["dealer"]["hole_card"] is None
        assert hole not in json.dumps(view)


def _cards(runtime: TableRuntime, box: int) -> list[list[str]]:
    """The cards of each hand of ``box``."""
    (found,) = [b for b in runtime.view(None)["boxes"] if b["box"] == box]
    return [hand["cards"] for hand in found["hands"]]


def _events(outcome: Outcome | None) -> list[dict[str, Any]]:
    """An outcome's events as the dealer sees them (face-down cards included)."""
    assert outcome is not None
    return public_events(outcome.events, dealer=True)


def _results(runtime: TableRuntime) -> list[tuple[str, int | None, str, str, str]]:
    return [
        (r["player"], r["hand"], r["bet"], r["outcome"], r["net"])
        for r in runtime.view(None)["results"]
    ]


def _play_live_round_1(engine: sqlalchemy.Engine) -> tuple[TableRuntime, dict[str, int]]:
    """Round 1 of the live shoe, checked step by step; the table after it settles."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "live", LIVE_SHOE)
    assert runtime.number == 1 and runtime.view(None)["phase"] == "betting"
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    act(runtime, "bet", "ann", {"box": 1, "amount": "5", "bet": "perfect_pairs"}, now=2)
    act(runtime, "bet", "bob", {"box": 2, "amount": "50"}, now=3)
    assert balance(engine, ids["ann"]) == Decimal("970.00")
    assert balance(engine, ids["bob"]) == Decimal("950.00")
    assert runtime.view(None)["deadline"] == {"kind": "betting", "at": 16.0, "for": None}

    # "No more bets": the deal, one card to each box, the up card, a second card to
    # each box, then the hidden card (The Play).
    dealt = runtime.tick(now=16)
    assert dealt is not None
    cards = [
        (e["card"], e["box"], e["face_up"]) for e in _events(dealt) if e["type"] == "card_dealt"
    ]
    assert cards == [
        ("8S", 1, True),
        ("7D", 2, True),
        ("AH", None, True),
        ("8S", 1, True),
        ("4C", 2, True),
        (LIVE_HOLE_1, None, False),
    ]
    assert LIVE_HOLE_1 not in json.dumps(public_events(dealt.events))
    assert '"card": null' in json.dumps(public_events(dealt.events))
    assert runtime.view(None)["dealer"]["cards"] == ["AH"]
    _hole_hidden(runtime, LIVE_HOLE_1)
    # Perfect Pair Side Bet: two eights of spades (8 decks) pay 25 to 1 at once.
    assert _results(runtime) == [("ann", None, "perfect_pairs", "perfect-pair", "125.00")]

    # Insurance: the up card is an Ace; each box is offered half its bet, both at once.
    # The clock runs for the first open offer's player.
    view = runtime.view(None)
    assert view["phase"] == "offers" and view["turn"] is None
    assert [(o["kind"], o["player"], o["box"], o["amount"]) for o in view["offers"]] == [
        ("insurance", "ann", 1, "12.50"),
        ("insurance", "bob", 2, "25.00"),
    ]
    assert view["deadline"] == {"kind": "offer", "at": 26.0, "for": "ann"}
    with pytest.raises(IllegalActionError):
        act(runtime, "stand", "ann", {}, now=17)  # no turn while offers are open
    act(runtime, "insurance", "ann", {"box": 1}, now=18)
    assert balance(engine, ids["ann"]) == Decimal("957.50")
    view = runtime.view(None)
    assert [(o["kind"], o["player"]) for o in view["offers"]] == [("insurance", "bob")]
    assert view["deadline"] == {"kind": "offer", "at": 28.0, "for": "bob"}
    _hole_hidden(runtime, LIVE_HOLE_1)
    act(runtime, "decline", "bob", {"box": 2, "kind": "insurance"}, now=19)
    _hole_hidden(runtime, LIVE_HOLE_1)  # no peek: the game goes on, the card stays hidden

    # The Play: box 1 first.  Splitting Pairs: the 8s split; hand 1 draws at once.
    ann = runtime.view("ann")
    assert ann["phase"] == "player-turns" and ann["offers"] == []
    assert ann["turn"] == {"box": 1, "hand": 1, "yours": True}
    assert ann["legal_actions"] == ["hit", "stand", "double", "split"]
    assert ann["deadline"] == {"kind": "decision", "at": 39.0, "for": "1.1"}
    assert runtime.view("bob")["legal_actions"] == []
    with pytest.raises(IllegalActionError, match="seated player ann"):
        act(runtime, "stand", "bob", {}, now=20)  # nobody acts for another player
    act(runtime, "split", "ann", {}, now=21)
    assert balance(engine, ids["ann"]) == Decimal("932.50")
    assert _cards(runtime, 1) == [["8S", "KH"], ["8S"]]
    # Doubling Down: "you aren't allowed double down after splitting a pair".
    assert runtime.view("ann")["legal_actions"] == ["hit", "stand"]
    _hole_hidden(runtime, LIVE_HOLE_1)
    act(runtime, "stand", "ann", {}, now=22)
    assert _cards(runtime, 1) == [["8S", "KH"], ["8S", "9C"]]
    assert runtime.view("ann")["turn"] == {"box": 1, "hand": 2, "yours": True}
    _hole_hidden(runtime, LIVE_HOLE_1)
    act(runtime, "stand", "ann", {}, now=23)

    # Doubling Down: bob's 11 doubles, draws one card (20) and stands.
    bob = runtime.view("bob")
    assert bob["turn"] == {"box": 2, "hand": 1, "yours": True}
    assert bob["legal_actions"] == ["hit", "stand", "double"]
    assert bob["deadline"] == {"kind": "decision", "at": 43.0, "for": "2.1"}
    _hole_hidden(runtime, LIVE_HOLE_1)
    end = act(runtime, "double", "bob", {}, now=24)
    assert end.over and runtime.round.phase is Phase.SETTLED
    assert _cards(runtime, 2) == [["7D", "4C", "9H"]]

    # The House Strategy: the hole card turns over; A+6 is 17, and the house stands.
    kinds = [e["type"] for e in _events(end)]
    assert kinds.index("hole_card_revealed") < kinds.index("dealer_finished")
    watcher = runtime.view(None)
    assert watcher["dealer"]["cards"] == ["AH", LIVE_HOLE_1]
    assert watcher["dealer"]["total"] == 17 and watcher["dealer"]["hidden_cards"] == 0
    # Payouts: one to one; insurance lost (no croupier Blackjack); 17 against 17 stands off.
    assert _results(runtime) == [
        ("ann", None, "perfect_pairs", "perfect-pair", "125.00"),
        ("ann", None, "insurance", "lost", "-12.50"),
        ("ann", 1, "main", "win", "25.00"),
        ("ann", 2, "main", "stand-off", "0.00"),
        ("bob", 1, "main", "win", "100.00"),
    ]
    assert balance(engine, ids["ann"]) == Decimal("1137.50")
    assert balance(engine, ids["bob"]) == Decimal("1100.00")
    assert books(engine) == []
    assert watcher["deadline"] == {"kind": "next_round", "at": 27.0, "for": None}
    return runtime, ids


def test_live_perfect_pair_insurance_split_and_double(engine: sqlalchemy.Engine) -> None:
    """The live rulebook's "The Play" (no peek: the croupier's hidden card is dealt
    after the players' second cards and stays hidden until the players are done),
    "Perfect Pair Side Bet" (a perfect pair pays 25 to 1), "Insurance" (offered on an
    Ace, half the bet, lost when the croupier has no Blackjack), "Splitting Pairs",
    "Doubling Down" (an 11 doubles; no double after a split), "The House Strategy"
    (stand on 17) and "Payouts"."""
    _play_live_round_1(engine)


def test_live_rounds_follow_one_another_on_the_same_shoe(engine: sqlalchemy.Engine) -> None:
    """After round 1 the pause runs out and round 2 opens on the next cards of the same
    shoe (live: "The Play"; "The House Strategy": 5+10 hits, 18 stands)."""
    runtime, ids = _play_live_round_1(engine)
    assert runtime.tick(now=26.9) is None  # the pause is not over yet
    opened = runtime.tick(now=27)
    assert opened is not None and opened.notes == ["new_round"]
    assert runtime.number == 2 and runtime.view(None)["phase"] == "betting"
    assert runtime.view(None)["deadline"] is None  # the betting clock starts with a bet
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=30)
    act(runtime, "bet", "bob", {"box": 2, "amount": "50"}, now=31)
    assert runtime.view(None)["deadline"] == {"kind": "betting", "at": 45.0, "for": None}
    dealt = runtime.tick(now=45)
    cards = [e["card"] for e in _events(dealt) if e["type"] == "card_dealt"]
    assert cards == ["10C", "KS", "5S", "9S", "7S", LIVE_HOLE_2]
    assert runtime.view(None)["offers"] == []  # no Ace up: no insurance
    _hole_hidden(runtime, LIVE_HOLE_2)
    assert runtime.view("ann")["turn"] == {"box": 1, "hand": 1, "yours": True}
    act(runtime, "stand", "ann", {}, now=46)
    _hole_hidden(runtime, LIVE_HOLE_2)
    assert runtime.view("bob")["turn"] == {"box": 2, "hand": 1, "yours": True}
    end = act(runtime, "stand", "bob", {}, now=47)
    assert end.over and runtime.round.phase is Phase.SETTLED
    assert runtime.view(None)["dealer"]["cards"] == ["5S", LIVE_HOLE_2, "3S"]
    assert _results(runtime) == [
        ("ann", 1, "main", "win", "25.00"),  # 19 against 18
        ("bob", 1, "main", "lose", "-50.00"),  # 17 against 18
    ]
    assert balance(engine, ids["ann"]) == Decimal("1162.50")
    assert balance(engine, ids["bob"]) == Decimal("1050.00")
    assert books(engine) == []


def test_rws_surrender_offer_then_stand_on_17_and_the_dealer_busts(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 3.11 (no hole card: one up card), 3.16 (surrender is offered first when
    the first card is not an Ace), 3.8 (only the seated player decides his box) and the
    dealer's draw to 17 (6+9+K busts): the browser test's shoe."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5", RWS_SHOE, betting_seconds=2, offer_seconds=30)
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    assert balance(engine, ids["ann"]) == Decimal("975.00")
    dealt = runtime.tick(now=3)
    cards = [e["card"] for e in _events(dealt) if e["type"] == "card_dealt"]
    assert cards == ["10S", "6D", "7H"]
    view = runtime.view("ann")
    assert view["dealer"] == {"cards": ["6D"], "total": 6, "hole_card": None, "hidden_cards": 0}
    assert [(o["kind"], o["player"], o["box"]) for o in view["offers"]] == [("surrender", "ann", 1)]
    assert view["deadline"] == {"kind": "offer", "at": 33, "for": "ann"}
    assert view["legal_actions"] == []  # none while an offer is open
    refused: list[tuple[str, dict[str, Any]]] = [
        ("decline", {"box": 1, "kind": "surrender"}),
        ("surrender", {"box": 1}),
        ("stand", {}),
    ]
    for op, args in refused:
        with pytest.raises(IllegalActionError):
            act(runtime, op, "bob", args, now=4)  # another player's browser, out of turn
    act(runtime, "decline", "ann", {"box": 1, "kind": "surrender"}, now=5)
    view = runtime.view("ann")
    assert view["turn"] == {"box": 1, "hand": 1, "yours": True}
    assert view["legal_actions"] == ["hit", "stand", "double"]
    assert view["deadline"] == {"kind": "decision", "at": 25.0, "for": "1.1"}
    with pytest.raises(IllegalActionError, match="seated player ann"):
        act(runtime, "stand", "bob", {}, now=6)
    end = act(runtime, "stand", "ann", {}, now=7)
    assert end.over and runtime.round.phase is Phase.SETTLED
    assert runtime.view(None)["dealer"]["cards"] == ["6D", "9C", "KD"]
    assert _results(runtime) == [("ann", 1, "main", "win", "25.00")]
    assert balance(engine, ids["ann"]) == Decimal("1025.00")
    assert balance(engine, ids["bob"]) == Decimal("1000.00")
    assert books(engine) == []


def test_a_stopping_process_deals_no_new_round_and_plays_out_the_one_in_play(
    engine: sqlalchemy.Engine,
) -> None:
    """A drain (the process is stopping): a round taking bets is never dealt, so it is
    handed over whole (RWS v5 5.4: the next process goes on with it); a round in play
    is played out first, then the table can be handed over."""
    ids = make_users(engine, "ann")
    runtime = table(engine, ids, "rws-v5", RWS_SHOE, betting_seconds=2, offer_seconds=30)
    act(runtime, "bet", "ann", {"box": 1, "amount": "25"}, now=1)
    assert runtime.drain() is True  # still taking bets: it can go as it is
    assert runtime.tick(now=3) is None and runtime.round.phase is Phase.BETTING
    total, dealt = runtime.confirm_bets("ann", now=3)
    assert total == Decimal("25") and dealt is None  # all confirmed: still not dealt

    # The next process takes the table over: the round goes on, ann's bet and all.
    playing = table(engine, ids, "rws-v5", RWS_SHOE, betting_seconds=2, offer_seconds=30)
    assert playing.round_id == runtime.round_id
    assert [(b.player, b.amount) for b in playing.round.placed_bets] == [("ann", Decimal("25"))]
    playing.tick(now=playing.deadline.at if playing.deadline else 3)  # no more bets
    assert playing.round.phase is not Phase.BETTING
    assert playing.drain() is False
    act(playing, "decline", "ann", {"box": 1, "kind": "surrender"}, now=5)
    assert playing.drain() is False
    assert act(playing, "stand", "ann", {}, now=7).over
    assert playing.drain() is True  # played out: now it can go
    assert books(engine) == []
