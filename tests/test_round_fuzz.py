"""Random rounds that hunt defects, and the scenarios they found, on every preset.

The random table (:mod:`tests.fuzz_driver`) plays legal and illegal commands and
irregularities; after every command a refused one must have raised a CroupierError
and changed nothing, and ``can``/``verify`` must agree with ``apply``; after every
round the money must balance, every stake be settled or returned exactly once, the
results agree with the cards, and a snapshot (through JSON), a copy and a pickle taken
at a random point run on exactly as the round did.  ``scripts/fuzz_rounds.py`` plays
the same rounds at scale.

The focused tests below are named after the clause they hold the engine to.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from croupier.commands import (
    CloseBets,
    Command,
    DealCard,
    Decline,
    DoubleDown,
    Follow,
    Hit,
    Interrupt,
    PlaceBet,
    ReturnBets,
    Split,
    Stand,
    Surrender,
    TakeInsurance,
    Void,
    WalkAway,
)
from croupier.events import (
    BetReturned,
    BetSettled,
    DoubleFollowed,
    PlayerDoubledDown,
    PlayerSplit,
    SeatPassed,
    SplitFollowed,
    TechnicalInterruption,
)
from croupier.presets import PRESETS
from croupier.round import Action, Awaiting, Phase, Round
from croupier.shoe import FixedOrder
from tests.fuzz_driver import (
    CheckFailed,
    Mode,
    RoundRecord,
    Setup,
    describe_repro,
    fixed_setup,
    play_random_round,
    replay,
    shrink,
)

# Generated rounds by the thousand: the slow tier.
pytestmark = pytest.mark.slow

PRESET_NAMES = list(PRESETS)
D = Decimal


def _explain(record: RoundRecord) -> str:
    """The failure of a random round, with a reproduction cut down to a few commands."""
    failure = record.failure
    assert failure is not None
    setup, commands, fork_at = shrink(
        fixed_setup(record), record.commands, record.fork_at, failure.check, budget=150
    )
    return f"{failure}\n\nreproduction:\n{describe_repro(setup, commands, fork_at)}"


def _play(name: str, rng: random.Random, mode: Mode | None = None) -> RoundRecord:
    record = play_random_round(name, rng, mode=mode)
    if record.failure is not None:
        pytest.fail(_explain(record), pytrace=False)
    return record


# -- random rounds -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(rng=st.randoms(use_true_random=False))
def test_random_rounds_hold_every_property(name: str, rng: random.Random) -> None:
    """Hypothesis draws the table's every choice, so a failure shrinks to a short round."""
    record = play_random_round(name, rng)
    if record.failure is not None:
        note(describe_repro(fixed_setup(record), record.commands, record.fork_at))
        raise record.failure


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_seeded_random_rounds_hold_every_property(name: str) -> None:
    """The script's rounds, seed 0: a failure names its round and shows a cut-down repro."""
    stats: Counter[str] = Counter()
    for index in range(160):
        record = _play(name, random.Random(f"0:{name}:{index}"))
        stats.update(record.stats)
    assert stats["checked"] == stats["rounds"] == 160
    # The table plays what it is meant to: refusals, forks, voids and settlements.
    assert stats["refused"] > 160 and stats["forks"] == 160
    assert stats["phase:settled"] > 100 and stats["phase:void"] > 0


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("mode", ["hand", "entry"])
def test_rounds_dealt_by_hand_hold_every_property(name: str, mode: Mode) -> None:
    """A dealer's console: every card a DealCard, now and then a joker or an excess card."""
    for index in range(40):
        _play(name, random.Random(f"{mode}:{name}:{index}"), mode)


def test_irregularities_are_exercised() -> None:
    """The random table does reach every irregularity (else its checks prove little)."""
    stats: Counter[str] = Counter()
    for name in ("rws-v5", "casino-to-go", "online-8deck"):
        for index in range(150):
            # Counted whether or not the round passes: the other tests judge the rounds.
            stats.update(play_random_round(name, random.Random(f"irr:{name}:{index}")).stats)
    for key in (
        "irregularity:time_out",
        "irregularity:walk_away",
        "irregularity:return_bets",
        "irregularity:interrupt",
        "irregularity:void",
        "irregularity:settle",
        "interrupt:continued",
        "interrupt:void",
        "void:foreign-card",
        "void:shoe-exhausted",
    ):
        assert stats[key] > 0, key


def test_a_recorded_round_replays_from_its_cards_and_commands() -> None:
    """The reproductions are sound: a round replayed from its dealt cards gives its events."""
    replayed = 0
    for index in range(30):
        record = play_random_round("rws-v5", random.Random(f"replay:{index}"), mode="shoe")
        if record.failure is not None:
            continue  # the random-round tests report it
        replayed += 1
        failure, harness = replay(fixed_setup(record), record.commands, record.fork_at)
        assert failure is None
        events = [event for step in record.steps for event in step.events]
        again = [event for step in harness.record.steps for event in step.events]
        assert again == events
    assert replayed >= 20


def test_the_checks_catch_a_changed_settlement() -> None:
    """The driver's checks are not vacuous: a result edited behind the engine's back fails."""
    failure, harness = replay(
        Setup("rws-v5", "fixed", cards=("10S", "6D", "9H", "7C", "5S")),
        [PlaceBet("ann", 1, D("100")), CloseBets(), Decline("ann", 1), Stand()],
        0,
    )
    assert failure is None and harness.game.phase is Phase.SETTLED
    results = harness.game.state.results
    assert results[0].outcome == "win"  # 19 against 6 7 5 = 18
    results[0] = replace(results[0], net=D("50.00"))
    with pytest.raises(CheckFailed, match="bet-settled-vs-results"):
        harness.finish()
    results[0] = replace(results[0], outcome="lose")
    with pytest.raises(CheckFailed):
        harness._check_settlement()


# -- focused scenarios ---------------------------------------------------------------------------


def _scenario(
    preset: str, cards: str, commands: list[Command], *, mode: Mode = "fixed"
) -> tuple[Round, CheckFailed | None]:
    """Play commands through the checking harness (a fork at the start); the round and failure."""
    setup = Setup(preset, mode, cards=tuple(cards.split()) if mode == "fixed" else ())
    failure, harness = replay(setup, commands, 0)
    return harness.game, failure


def _rows(game: Round, player: str) -> list[tuple[int | None, str, Decimal, Decimal, str]]:
    return [(r.hand, r.bet, r.stake, r.net, r.outcome) for r in game.results if r.player == player]


def _ann_and_bob(*extra: Command) -> list[Command]:
    return [PlaceBet("ann", 1, D("100")), PlaceBet("bob", 1, D("50")), *extra]


def test_rws_v5_5_7_3_returned_bet_keeps_one_row_when_the_box_surrenders() -> None:
    # bob takes his bet back after a dealing error; ann then accepts the RWS surrender
    # offer: the surrender takes half of ann's bet only, bob's stake has its one row.
    game, failure = _scenario(
        "rws-v5",
        "TS 6D 6H",
        _ann_and_bob(CloseBets(), ReturnBets("bob", 1), Surrender("ann", 1)),
    )
    assert game.phase is Phase.SETTLED
    assert _rows(game, "bob") == [(1, "main", D("50.00"), D("0.00"), "returned")]
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("-50.00"), "surrender")]
    assert game.net_by_player() == {"ann": D("-50.00"), "bob": D("0.00")}
    assert failure is None, failure


def test_rws_v5_5_7_3_returned_bet_keeps_one_row_when_the_box_busts() -> None:
    game, failure = _scenario(
        "rws-v5",
        "TS 6D 6H TC",
        _ann_and_bob(CloseBets(), ReturnBets("bob", 1), Decline("ann", 1), Hit("ann")),
    )
    assert game.phase is Phase.SETTLED
    assert _rows(game, "bob") == [(1, "main", D("50.00"), D("0.00"), "returned")]
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("-100.00"), "bust")]
    assert failure is None, failure


def test_rws_v5_5_17_void_after_a_return_returns_each_stake_once() -> None:
    # Dealer Ace: bob insures for 20 and takes his bets back (5.7.3) while ann's
    # insurance offer is open; ann insures; the round is then voided (5.17).
    game, failure = _scenario(
        "rws-v5",
        "TS AD 9H",
        _ann_and_bob(
            CloseBets(),
            TakeInsurance("bob", 1, D("20")),
            ReturnBets("bob", 1),
            TakeInsurance("ann", 1),
            Void("dealing error that cannot be reconstructed"),
        ),
    )
    assert game.phase is Phase.VOID
    returned = Counter(
        (e.player, e.box, e.hand, e.bet) for e in game.events if isinstance(e, BetReturned)
    )
    assert returned == Counter(
        {
            ("bob", 1, 1, "main"): 1,
            ("bob", 1, None, "insurance"): 1,
            ("ann", 1, 1, "main"): 1,
            ("ann", 1, None, "insurance"): 1,
        }
    )
    # The returned insurance keeps its "returned" row; the void adds none for it.
    assert sorted(_rows(game, "bob"), key=str) == sorted(
        [
            (1, "main", D("50.00"), D("0.00"), "returned"),
            (None, "insurance", D("20.00"), D("0.00"), "returned"),
        ],
        key=str,
    )
    assert sorted(_rows(game, "ann"), key=str) == sorted(
        [
            (1, "main", D("100.00"), D("0.00"), "void"),
            (None, "insurance", D("50.00"), D("0.00"), "void"),
        ],
        key=str,
    )
    assert failure is None, failure


def test_rws_v5_5_7_3_return_during_a_hand_dealt_deal_returns_the_side_bet_too() -> None:
    # A dealer's console: bob takes his bets back after the first card; his Player Pair
    # (the 8 8 pair would pay 11 to 1) comes back with his initial bet and is never settled.
    commands: list[Command] = [
        PlaceBet("ann", 1, D("100")),
        PlaceBet("bob", 1, D("50")),
        PlaceBet("bob", 1, D("10"), "player_pair"),
        CloseBets(),
        DealCard("8S"),
        ReturnBets("bob", 1),
        DealCard("6D"),
        DealCard("8H"),
        Decline("ann", 1),
        Stand("ann"),
        DealCard("KC"),
        DealCard("9C"),
    ]
    game, failure = _scenario("rws-v5", "", commands, mode="hand")
    assert game.phase is Phase.SETTLED
    assert sorted(_rows(game, "bob"), key=str) == sorted(
        [
            (1, "main", D("50.00"), D("0.00"), "returned"),
            (None, "player_pair", D("10.00"), D("0.00"), "returned"),
        ],
        key=str,
    )
    assert not [e for e in game.events if isinstance(e, BetSettled) and e.player == "bob"]
    assert game.staked_by_player()["bob"] == D("60.00")
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("100.00"), "win")]
    assert failure is None, failure


def test_rws_v5_1_26_takeover_plays_the_absent_players_own_hand_by_5_3() -> None:
    # ann (seated, 100) and bob (50) on box 1.  ann splits her 8s, bob does not follow;
    # ann walks away on hand 1: the box passes to bob (1.26).  bob doubles hand 1 with
    # his own 50 only; hand 2 carries only ann's money: it is played by 5.3 (a pair of 8s
    # is not split, 16 stands), never offered to bob.
    game = Round(PRESETS["rws-v5"].rules, FixedOrder("8S 9D 8H 3C 10C 8C 8D"))
    game.place_bet("ann", 1, "100")
    game.place_bet("bob", 1, "50")
    game.close_bets()
    game.decline("ann", 1)
    game.split(player="ann")
    game.decline("bob", 1)
    assert game.current_turn == (1, 1)
    walked = len(game.events)
    game.walk_away("ann")
    assert game.seated_player(1) == "bob" and game.current_turn == (1, 1)
    assert Action.DOUBLE in game.legal_actions()
    game.double_down(player="bob")
    assert game.phase is Phase.SETTLED, "hand 2 waits for bob, who has no money on it"
    hands = game.boxes[0].hands
    assert dict(hands[0].stakes) == {"ann": D("100.00"), "bob": D("100.00")}
    assert dict(hands[1].stakes) == {"ann": D("100.00")}
    assert [card.text for card in hands[1].cards] == ["8H", "8C"]
    later = game.events[walked:]
    assert not [e for e in later if isinstance(e, DoubleFollowed | SplitFollowed)]
    assert [(e.player, e.hand) for e in later if isinstance(e, PlayerDoubledDown)] == [("bob", 1)]
    assert not [e for e in later if isinstance(e, PlayerSplit)]
    assert [e.player for e in game.events if isinstance(e, SeatPassed)] == ["bob"]
    # hand 1: 8 3 10 = 21, hand 2: 16, against the dealer's 9 8 = 17.
    assert sorted(_rows(game, "ann"), key=str) == sorted(
        [
            (1, "main", D("100.00"), D("100.00"), "win"),
            (2, "main", D("100.00"), D("-100.00"), "lose"),
        ],
        key=str,
    )
    assert _rows(game, "bob") == [(1, "main", D("100.00"), D("100.00"), "win")]
    _, failure = _scenario(
        "rws-v5",
        "8S 9D 8H 3C 10C 8C 8D",
        _ann_and_bob(
            CloseBets(),
            Decline("ann", 1),
            Split("ann"),
            Decline("bob", 1),
            WalkAway("ann"),
            DoubleDown("bob"),
        ),
    )
    assert failure is None, failure


def test_rws_v5_1_26_a_new_seated_player_never_doubles_the_absent_players_money() -> None:
    # ann walks away during the surrender offer; bob doubles for less (30 of his 50):
    # ann's 100 stays 100, and she is offered no follow.
    game, failure = _scenario(
        "rws-v5",
        "6C 9D 5S 10H 8C",
        _ann_and_bob(CloseBets(), WalkAway("ann"), Decline("bob", 1), DoubleDown("bob", D("30"))),
    )
    assert game.phase is Phase.SETTLED
    assert dict(game.boxes[0].hands[0].stakes) == {"ann": D("100.00"), "bob": D("80.00")}
    assert not [e for e in game.events if isinstance(e, DoubleFollowed)]
    assert failure is None, failure


@pytest.mark.parametrize(
    ("preset", "cards"),
    [
        # online deals the face-down card in the first pass: ann A K, bob 10 6, hole 5, up 9.
        ("online-8deck", "AS 10C 5C KD 6S 9H"),
        # live: ann A K, bob 10 6, up 9, hole 5.
        ("live", "AS 10C 9H KD 6S 5C"),
    ],
)
def test_malfunction_voids_all_plays_and_pays_even_after_an_outcome(
    preset: str, cards: str
) -> None:
    # ann's blackjack is paid at once (the up card is a 9): an outcome is established,
    # yet "malfunctions void all plays and pays": the round is void, the payment too.
    game, failure = _scenario(
        preset,
        cards,
        [PlaceBet("ann", 1, D("100")), PlaceBet("bob", 2, D("100")), CloseBets(), Interrupt()],
    )
    interruption = [e for e in game.events if isinstance(e, TechnicalInterruption)]
    assert len(interruption) == 1 and interruption[0].outcome_established
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and game.rules.cite_interruption in game.void_reason
    assert sorted(_rows(game, "ann") + _rows(game, "bob"), key=str) == [
        (1, "main", D("100.00"), D("0.00"), "void"),
        (1, "main", D("100.00"), D("0.00"), "void"),
    ]
    assert failure is None, failure


def test_casino_to_go_a_held_bust_is_an_established_outcome_so_the_round_continues() -> None:
    # The dealer shows a King with his hole card unseen: ann's bust is held (original-bet),
    # yet she has lost whatever the dealer holds; the interruption continues the round.
    game, failure = _scenario(
        "casino-to-go",
        "10C 9D KH 6S 9S 7C 8D",
        [
            PlaceBet("ann", 1, D("100")),
            PlaceBet("bob", 2, D("100")),
            CloseBets(),
            Hit("ann"),
            Interrupt(),
            Stand("bob"),
        ],
    )
    interruption = [e for e in game.events if isinstance(e, TechnicalInterruption)]
    assert len(interruption) == 1 and interruption[0].outcome_established
    assert game.phase is Phase.SETTLED
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("-100.00"), "bust")]
    assert _rows(game, "bob") == [(1, "main", D("100.00"), D("100.00"), "win")]
    assert failure is None, failure


def test_casino_to_go_a_held_surrender_is_an_established_outcome_so_the_round_continues() -> None:
    # ann surrenders her 16 against the King: the surrender is held while the dealer may
    # hold a blackjack, but she has lost at least half whatever he holds.
    game, failure = _scenario(
        "casino-to-go",
        "10C 9D KH 6S 9S 7C",
        [
            PlaceBet("ann", 1, D("100")),
            PlaceBet("bob", 2, D("100")),
            CloseBets(),
            Surrender("ann"),
            Interrupt(),
            Stand("bob"),
        ],
    )
    interruption = [e for e in game.events if isinstance(e, TechnicalInterruption)]
    assert len(interruption) == 1 and interruption[0].outcome_established
    assert game.phase is Phase.SETTLED
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("-50.00"), "surrender")]
    assert _rows(game, "bob") == [(1, "main", D("100.00"), D("100.00"), "win")]
    assert failure is None, failure


def test_casino_to_go_an_interruption_before_any_outcome_voids() -> None:
    game, failure = _scenario(
        "casino-to-go",
        "10C 9D KH 6S 9S 7C",
        [PlaceBet("ann", 1, D("100")), PlaceBet("bob", 2, D("100")), CloseBets(), Interrupt()],
    )
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and game.rules.cite_interruption in game.void_reason
    assert failure is None, failure


def test_rws_v5_5_4_1_a_bust_continues_the_round_after_an_interruption() -> None:
    game, failure = _scenario(
        "rws-v5",
        "10C 9H 7S 6D 9D KH 10S",
        [
            PlaceBet("ann", 1, D("100")),
            PlaceBet("bob", 2, D("100")),
            CloseBets(),
            Decline("ann", 1),
            Decline("bob", 2),
            Hit("ann"),
            Interrupt(),
            Stand("bob"),
        ],
    )
    assert game.phase is Phase.SETTLED
    assert game.net_by_player() == {"ann": D("-100.00"), "bob": D("100.00")}
    assert failure is None, failure


def test_rws_v4_5_1_1_a_joker_voids_citing_rws_v4() -> None:
    game, failure = _scenario("rws-v4", "TS JK", [PlaceBet("ann", 1, D("100")), CloseBets()])
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and "RWS v4 5.1.1" in game.void_reason
    assert "RWS v5" not in game.void_reason
    assert failure is None, failure
    entered, failure = _scenario(
        "rws-v4",
        "",
        [PlaceBet("ann", 1, D("100")), CloseBets(), DealCard("10S"), DealCard("JK")],
        mode="hand",
    )
    assert entered.phase is Phase.VOID and "RWS v4 5.1.1" in (entered.void_reason or "")
    assert failure is None, failure


def test_a_stand_off_prints_net_0_00() -> None:
    game, failure = _scenario(
        "rws-v5",
        "TS 7D 7H KC",
        [PlaceBet("ann", 1, D("100")), CloseBets(), Decline("ann", 1), Stand("ann")],
    )
    assert [r.to_json()["net"] for r in game.results] == ["0.00"]
    assert [r.outcome for r in game.results] == ["stand-off"]
    assert failure is None, failure


# -- defects the random table found --------------------------------------------------------------


def test_rws_v5_5_7_3_a_player_whose_bet_was_returned_is_not_offered_to_follow_a_double() -> None:
    # dee (seated) and ann on box 1; ann takes her bet back (5.7.3), her hand is invalid:
    # dee's double must not offer ann a follow, nor take more of her money.
    game, failure = _scenario(
        "rws-v5",
        "KC KD 5D 6H 2C 7S",
        [
            PlaceBet("dee", 1, D("25")),
            PlaceBet("ann", 1, D("25")),
            CloseBets(),
            ReturnBets("ann", 1),
            Decline("dee", 1),
            DoubleDown("dee"),
        ],
    )
    assert not [offer for offer in game.offers if offer.player == "ann"]
    if game.awaiting is Awaiting.ANSWERS:  # the defect: answer it as a player would
        game.apply(Follow("ann", 1))
    assert game.staked_by_player()["ann"] == D("25.00")
    assert _rows(game, "ann") == [(1, "main", D("25.00"), D("0.00"), "returned")]
    assert failure is None, failure


def test_rws_v5_5_7_3_a_player_whose_bet_was_returned_is_not_offered_to_follow_a_split() -> None:
    game, failure = _scenario(
        "rws-v5",
        "8S 9D 8H 3C 10C 8C 8D 9S",
        _ann_and_bob(CloseBets(), ReturnBets("bob", 1), Decline("ann", 1), Split("ann")),
    )
    assert not [offer for offer in game.offers if offer.player == "bob"]
    assert failure is None, failure


def _returned_after_seat_passed(*cards: str) -> Round:
    """A dealer's console: ann (seated) walks away during the deal, the seat passes to bob
    (1.26), then bob takes his bets back (5.7.3): the box carries only ann's money."""
    game = Round(PRESETS["rws-v5"].rules, None)
    game.place_bet("ann", 1, "100")
    game.place_bet("bob", 1, "50")
    game.close_bets()
    game.walk_away("ann")
    assert game.seated_player(1) == "bob"
    game.return_bets("bob", 1)
    for card in cards:
        game.deal_card(card)
    return game


def test_rws_v5_5_7_3_no_surrender_offer_to_a_seated_player_whose_bet_was_returned() -> None:
    # ann's 16 against a 6 is played by 5.3 (16 stands); bob, with no money on the box,
    # must not be asked whether to surrender ann's hand.
    game = _returned_after_seat_passed("10S", "6D", "6H")
    assert not game.offers
    assert game.awaiting is Awaiting.CARD  # the dealer's second card
    game.deal_card("KC")
    game.deal_card("9C")
    assert game.phase is Phase.SETTLED
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("100.00"), "win")]
    assert _rows(game, "bob") == [(1, "main", D("50.00"), D("0.00"), "returned")]


def test_rws_v5_5_7_3_after_a_walk_away_the_returned_seated_player_decides_nothing() -> None:
    # ann (seated, 100) and bob (50); bob walks away, then ann takes her bet back during
    # the surrender offer: the box carries only bob's money, drawn by 5.3 (11 draws: 21).
    game = Round(PRESETS["rws-v5"].rules, FixedOrder("5S 10D 6H 10C 9C"))
    game.place_bet("ann", 1, "100")
    game.place_bet("bob", 1, "50")
    game.close_bets()
    game.walk_away("bob")
    game.return_bets("ann", 1)
    assert game.current_turn is None, f"ann decides: {game.legal_actions()}"
    assert game.phase is Phase.SETTLED
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("0.00"), "returned")]
    assert _rows(game, "bob") == [(1, "main", D("50.00"), D("50.00"), "win")]


def test_rws_v5_5_7_3_a_seated_player_whose_bet_was_returned_decides_nothing() -> None:
    # ann's 11 is drawn to 12 or more by 5.3; bob, whose bet was returned, must not double
    # (or otherwise decide) a hand that carries only ann's money.
    game = _returned_after_seat_passed("5S", "6D", "6H")
    for offer in game.offers:  # the surrender offer bob should not have had
        game.decline(offer.player, offer.box, offer.kind)
    assert game.current_turn is None, f"bob decides: {game.legal_actions()}"
    assert game.awaiting is Awaiting.CARD
    game.deal_card("10C")  # 21: ann's hand stands
    game.deal_card("7C")  # the dealer: 6 7 = 13, then 10 = 23
    game.deal_card("10D")
    assert game.phase is Phase.SETTLED
    assert _rows(game, "ann") == [(1, "main", D("100.00"), D("100.00"), "win")]
    assert game.staked_by_player() == {"ann": D("100.00"), "bob": D("50.00")}
