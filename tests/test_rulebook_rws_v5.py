"""Blackjack (Version 5), RWS: one round per clause, dealt from a fixed card order.

Each test is named after the clause it plays.  The card order is the dealing order:
the first pass from box 1, the dealer's one card (there is no hole card, 3.11), the
second pass, then every card drawn after, the dealer's own draws last.  The table
minimum is 25.00 and the box maximum 5000.00 (the preset's figures).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from croupier.cards import parse_cards
from croupier.errors import BetError, IllegalActionError
from croupier.events import (
    BetReturned,
    CardDealt,
    EvenMoneyTaken,
    InsuranceTaken,
    PlayerStood,
    PlayerWalkedAway,
    RoundVoided,
    SeatPassed,
)
from croupier.round import Action, OfferKind, Phase
from tests.rounds import assert_money, assert_refused, deal, events_of, new_round, results_of

PRESET = "rws-v5"


# -- 1 Definitions -------------------------------------------------------------------------------


def test_rws_v5_1_2_split_ace_and_ten_is_21_not_blackjack() -> None:
    # ann A A against a 9; split: A K and A 10 are 21 paid 1 to 1, not 3 to 2.
    game = deal(PRESET, "AC 9S AD KH 10D 8C", ("ann", 1, "100"))
    game.decline("ann", 1)  # surrender
    game.split()
    assert game.phase is Phase.SETTLED
    assert [hand.is_blackjack for hand in game.boxes[0].hands] == [False, False]
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "200"},
    )


def test_rws_v5_1_26_seated_player_is_the_first_initial_bet_on_the_box() -> None:
    game = new_round(PRESET, "", ("ann", 1, "100"), ("bob", 1, "50"))
    assert game.seated_player(1) == "ann"
    game.withdraw_bet("ann", 1)
    assert game.seated_player(1) == "bob"


# -- 2 Mode of play ------------------------------------------------------------------------------


def test_rws_v5_2_1_1_a_betting_box_for_each_player_seven_on_the_layout() -> None:
    game = new_round(PRESET, "10C 9D 7S 8C 6H 10S", ("ann", 1, "100"), ("bob", 7, "100"))
    assert not game.can_place_bet("cy", 8, "100")
    assert_refused(
        game, lambda: game.place_bet("cy", 8, "100"), BetError, "box 8 is not on this table"
    )
    game.close_bets()
    assert [box.number for box in game.boxes] == [1, 7]
    game.decline("ann", 1)
    game.decline("bob", 7)
    game.stand()  # 10 8: 18
    game.stand()  # 9 6: 15
    # The dealer's 7 10 = 17.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("bob", 7, 1, "main", "lose", "-100")],
        {"ann": "100", "bob": "-100"},
    )


# -- 3 How to play -------------------------------------------------------------------------------


def test_rws_v5_3_11_dealer_deals_one_card_face_up_to_himself() -> None:
    # ann box 1: 9 7, bob box 3: 10 8; the dealer's one card is a 6.
    game = deal(PRESET, "9S 10H 6C 7D 8S 2C 10C", ("ann", 1, "100"), ("bob", 3, "100"))
    dealt = [(event.card, event.box, event.face_up) for event in events_of(game, CardDealt)]
    assert dealt == [
        ("9S", 1, True),
        ("10H", 3, True),
        ("6C", None, True),
        ("7D", 1, True),
        ("8S", 3, True),
    ]
    assert game.dealer_cards == tuple(parse_cards("6C")) and game.hole_card is None
    game.decline("ann", 1)
    game.decline("bob", 3)
    game.stand()
    assert game.dealer_cards == tuple(parse_cards("6C"))
    game.stand()
    assert game.dealer_cards == tuple(parse_cards("6C 2C 10C"))
    assert_money(
        game,
        [("ann", 1, 1, "main", "lose", "-100"), ("bob", 3, 1, "main", "stand-off", "0")],
        {"ann": "-100", "bob": "0"},
    )


def test_rws_v5_3_7_player_bets_on_several_boxes() -> None:
    # ann on box 1 (10 9 = 19) and box 2 (10 6 = 16); the dealer makes 18.
    game = deal(PRESET, "10C 10D 8S 9C 6H 10S", ("ann", 1, "100"), ("ann", 2, "200"))
    game.decline("ann", 1)
    game.decline("ann", 2)
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 2, 1, "main", "lose", "-200")],
        {"ann": "-100"},
    )


def test_rws_v5_3_8_seated_player_calls_the_decisions_of_the_box() -> None:
    game = deal(PRESET, "10C 7S 6D 9H 9C", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    assert game.can_hit() and game.current_turn == (1, 1)
    assert_refused(
        game, lambda: game.hit(player="bob"), IllegalActionError, "seated player ann", "not bob"
    )
    game.stand(player="ann")
    # The dealer's 7 9 9 busts: both players on the box win on 16.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("bob", 1, 1, "main", "win", "50")],
        {"ann": "100", "bob": "50"},
    )


def test_rws_v5_3_9_any_player_may_bet_player_pair_on_a_box_with_an_initial_bet() -> None:
    # bob has no initial bet of his own; his Player Pair rides on ann's box.
    game = deal(PRESET, "8C 6S 8D 10H", ("ann", 1, "100"), ("bob", 1, "20", "player_pair"))
    assert_money(game, [("bob", 1, None, "player_pair", "pair", "220")], {"ann": "0", "bob": "220"})


def test_rws_v5_3_13_1_player_pair_pays_11_to_1_before_the_subsequent_deal() -> None:
    game = deal(
        PRESET,
        "QC 9S 6D QH 7C 10S",
        ("ann", 1, "100"),
        ("ann", 1, "10", "player_pair"),
        ("bob", 2, "100"),
        ("bob", 2, "10", "player_pair"),
    )
    # Settled at interim settlement, before any decision: ann's Q Q wins, bob's 6 7 loses.
    assert game.phase is Phase.OFFERS
    assert_money(
        game,
        [
            ("ann", 1, None, "player_pair", "pair", "110"),
            ("bob", 2, None, "player_pair", "nothing", "-10"),
        ],
        {"ann": "110", "bob": "-10"},
    )


def test_rws_v5_3_13_1_ten_and_king_are_not_a_player_pair() -> None:
    game = deal(PRESET, "10C 9S KD", ("ann", 1, "100"), ("ann", 1, "10", "player_pair"))
    assert_money(game, [("ann", 1, None, "player_pair", "nothing", "-10")], {"ann": "-10"})


def test_rws_v5_3_13_2_blackjack_is_under_13() -> None:
    # A K counts 11 for Under/Over 13 (Aces 1); the blackjack is then paid 3 to 2 at once.
    game = deal(
        PRESET,
        "AC 5S KD",
        ("ann", 1, "100"),
        ("ann", 1, "50", "under_13"),
        ("ann", 1, "50", "over_13"),
    )
    assert_money(
        game,
        [
            ("ann", 1, None, "under_13", "under-13", "50"),
            ("ann", 1, None, "over_13", "under-13", "-50"),
            ("ann", 1, 1, "main", "blackjack", "150"),
        ],
        {"ann": "150"},
    )


def test_rws_v5_3_13_2_c_house_wins_on_exactly_13() -> None:
    game = deal(
        PRESET,
        "8C 5S 5D",
        ("ann", 1, "100"),
        ("ann", 1, "50", "under_13"),
        ("bob", 1, "50", "over_13"),
    )
    assert_money(
        game,
        [
            ("ann", 1, None, "under_13", "thirteen", "-50"),
            ("bob", 1, None, "over_13", "thirteen", "-50"),
        ],
        {"ann": "-50", "bob": "-50"},
    )


def test_rws_v5_3_13_2_b_over_13_pays_1_to_1() -> None:
    game = deal(PRESET, "KC 5S 4D", ("ann", 1, "100"), ("ann", 1, "100", "over_13"))
    assert_money(game, [("ann", 1, None, "over_13", "over-13", "100")], {"ann": "100"})


def test_rws_v5_3_13_2_under_or_over_13_may_not_exceed_the_initial_bet() -> None:
    game = new_round(PRESET, "KC 5S 4D", ("ann", 1, "100"))
    message = assert_refused(
        game, lambda: game.place_bet("ann", 1, "100.01", "under_13"), BetError, "3.13.2"
    )
    assert "100.01" in message and "initial bet 100.00" in message
    assert not game.can_place_bet("ann", 1, "100.01", "over_13")
    assert game.can_place_bet("ann", 1, "100.00", "over_13")


def test_rws_v5_3_13_2_under_13_placed_first_is_cut_to_the_initial_bet() -> None:
    # An Under 13 bet placed before the box's initial bet keeps only the initial bet's amount.
    game = new_round(PRESET, "5C 5S 4D", ("ann", 1, "80", "under_13"), ("ann", 1, "50"))
    game.close_bets()
    returned = events_of(game, BetReturned)
    assert [(e.player, e.bet, e.amount) for e in returned] == [("ann", "under_13", Decimal("30"))]
    assert_money(game, [("ann", 1, None, "under_13", "under-13", "50")], {"ann": "50"})


def test_rws_v5_3_14_1_even_money_pays_1_to_1_and_survives_a_dealer_blackjack() -> None:
    # ann A K, bob 10 9 against the dealer's Ace; the dealer's second card makes blackjack.
    game = deal(PRESET, "AH 10C AS KD 9C KH", ("ann", 1, "100"), ("bob", 2, "100"))
    assert {(offer.kind, offer.player) for offer in game.offers} == {
        (OfferKind.EVEN_MONEY, "ann"),
        (OfferKind.INSURANCE, "bob"),
    }
    assert isinstance(game.take_even_money("ann", 1), EvenMoneyTaken)
    assert [(r.player, r.outcome, r.net) for r in game.results] == [
        ("ann", "even-money", Decimal("100"))
    ]
    game.decline("bob", 2)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "even-money", "100"),
            ("bob", 2, 1, "main", "dealer-blackjack", "-100"),
        ],
        {"ann": "100", "bob": "-100"},
    )


def test_rws_v5_3_14_1_declined_even_money_stands_off_with_dealer_blackjack() -> None:
    game = deal(PRESET, "AH AS KD KH", ("ann", 1, "100"))
    game.decline("ann", 1, OfferKind.EVEN_MONEY)
    assert game.dealer_cards == tuple(parse_cards("AS KH"))
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


def test_rws_v5_3_14_1_declined_even_money_paid_3_to_2_when_dealer_misses() -> None:
    game = deal(PRESET, "AH AS KD 6H", ("ann", 1, "100"))
    game.decline("ann", 1, OfferKind.EVEN_MONEY)
    assert_money(game, [("ann", 1, 1, "main", "blackjack", "150")], {"ann": "150"})


def test_rws_v5_3_14_2_insurance_of_less_than_half_pays_2_to_1() -> None:
    game = deal(PRESET, "10C AS 9C KH", ("ann", 1, "100"))
    assert game.offers[0].amount == Decimal("50.00")
    assert isinstance(game.take_insurance("ann", 1, "30"), InsuranceTaken)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "60"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-100"),
        ],
        {"ann": "-40"},
    )


def test_rws_v5_3_14_2_insurance_over_half_refused() -> None:
    game = deal(PRESET, "10C AS 9C KH", ("ann", 1, "100"))
    assert not game.can_take_insurance("ann", 1, "50.01")
    assert game.can_take_insurance("ann", 1, "50.00")
    assert_refused(
        game,
        lambda: game.take_insurance("ann", 1, "50.01"),
        BetError,
        "50.01 is more than half the initial bet (50.00)",
    )


def test_rws_v5_3_14_2_insurance_never_over_half_whatever_the_payout_rounding() -> None:
    # Half of 25.01 is 12.505: the most that is "half or less than half" is 12.50.
    game = deal(PRESET, "10C AS 9C KH", ("ann", 1, "25.01"), payout_rounding="half-up")
    assert game.offers[0].amount == Decimal("12.50")
    assert not game.can_take_insurance("ann", 1, "12.51")
    game.take_insurance("ann", 1)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "25.00"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-25.01"),
        ],
        {"ann": "-0.01"},
    )


def test_rws_v5_3_14_2_insurance_loses_when_dealer_misses() -> None:
    game = deal(PRESET, "10C AS 9C 7H", ("ann", 1, "100"))
    game.take_insurance("ann", 1)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "lost", "-50"),
            ("ann", 1, 1, "main", "win", "100"),
        ],
        {"ann": "50"},
    )


def test_rws_v5_3_14_2_each_player_insures_his_own_bet() -> None:
    # bob stands behind ann's box with 40: he may insure up to 20, his own bet's half.
    game = deal(PRESET, "10C AS 9C KH", ("ann", 1, "100"), ("bob", 1, "40"))
    assert {(o.player, o.amount) for o in game.offers} == {
        ("ann", Decimal("50.00")),
        ("bob", Decimal("20.00")),
    }
    assert not game.can_take_insurance("bob", 1, "20.01")
    game.take_insurance("bob", 1, "20")
    game.decline("ann", 1)
    game.stand()
    assert_money(
        game,
        [
            ("bob", 1, None, "insurance", "dealer-blackjack", "40"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-100"),
            ("bob", 1, 1, "main", "dealer-blackjack", "-40"),
        ],
        {"ann": "-100", "bob": "0"},
    )


def test_rws_v5_3_14_blackjack_takes_even_money_not_insurance() -> None:
    game = deal(PRESET, "AH AS KD KH", ("ann", 1, "100"))
    assert [offer.kind for offer in game.offers] == [OfferKind.EVEN_MONEY]
    assert not game.can_take_insurance("ann", 1)
    assert_refused(game, lambda: game.take_insurance("ann", 1), IllegalActionError, "phase=offers")


def test_rws_v5_3_15_blackjack_paid_at_once_against_a_small_card() -> None:
    # ann A K, bob 9 7 against a 5: ann is paid before bob decides.
    game = deal(PRESET, "AH 9S 5D KC 7C 9D 8H", ("ann", 1, "100"), ("bob", 2, "100"))
    assert game.phase is Phase.OFFERS
    assert [(r.player, r.outcome, r.net) for r in game.results] == [
        ("ann", "blackjack", Decimal("150"))
    ]
    game.decline("bob", 2)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "150"), ("bob", 2, 1, "main", "win", "100")],
        {"ann": "150", "bob": "100"},
    )


def test_rws_v5_3_15_blackjack_against_a_ten_stands_off_with_dealer_blackjack() -> None:
    game = deal(PRESET, "AH 9S 10S KC 8C AD", ("ann", 1, "100"), ("bob", 2, "100"))
    assert game.results == ()  # held: the round proceeds
    game.decline("bob", 2)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "stand-off", "0"),
            ("bob", 2, 1, "main", "dealer-blackjack", "-100"),
        ],
        {"ann": "0", "bob": "-100"},
    )


def test_rws_v5_3_15_blackjack_against_a_ten_paid_3_to_2_when_dealer_misses() -> None:
    game = deal(PRESET, "AH 9S 10S KC 8C 7D", ("ann", 1, "100"), ("bob", 2, "100"))
    game.decline("bob", 2)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "blackjack", "150"),
            ("bob", 2, 1, "main", "stand-off", "0"),
        ],
        {"ann": "150", "bob": "0"},
    )


def test_rws_v5_3_16_surrender_gives_up_half_at_interim_settlement() -> None:
    game = deal(PRESET, "10C 6S 6D", ("ann", 1, "100"))
    assert [(o.kind, o.player) for o in game.offers] == [(OfferKind.SURRENDER, "ann")]
    assert game.can_surrender()
    game.surrender(box=1)
    # Nothing is left open: the dealer draws no second card.
    assert game.phase is Phase.SETTLED and len(game.dealer_cards) == 1
    assert_money(game, [("ann", 1, 1, "main", "surrender", "-50")], {"ann": "-50"})


def test_rws_v5_3_16_surrender_not_offered_against_an_ace() -> None:
    game = deal(PRESET, "10C AS 9D 7H", ("ann", 1, "100"))
    assert [offer.kind for offer in game.offers] == [OfferKind.INSURANCE]
    assert not game.can_surrender()
    assert_refused(
        game,
        lambda: game.surrender(box=1),
        IllegalActionError,
        "no surrender offer",
        "phase=offers",
    )
    game.decline("ann", 1)
    assert not game.can_surrender()
    assert_refused(game, game.surrender, IllegalActionError, "no surrender", "phase=player-turns")
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v5_3_16_no_surrender_once_the_subsequent_deal_begins() -> None:
    game = deal(PRESET, "10C 6S 6D 2H 10S 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert game.phase is Phase.PLAYER_TURNS
    assert Action.SURRENDER not in game.legal_actions()
    assert_refused(game, game.surrender, IllegalActionError, "phase=player-turns")
    game.hit()
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v5_3_17_no_draw_on_soft_21() -> None:
    # A 5 against a 9; a 5 makes a soft 21 and the hand stands by itself.
    game = deal(PRESET, "AS 9C 5D 5H 8C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.hit()
    stood = events_of(game, PlayerStood)
    assert [(e.total, e.automatic) for e in stood] == [(21, True)]
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v5_3_18_bust_loses_at_once() -> None:
    # ann 10 6 hits a King; bob 9 9 has not yet decided when ann's bet is collected.
    game = deal(PRESET, "10C 9H 7S 6D 9D KH 10S", ("ann", 1, "100"), ("bob", 2, "100"))
    game.decline("ann", 1)
    game.decline("bob", 2)
    game.hit()
    assert game.current_turn == (2, 1)
    assert [(r.player, r.outcome, r.net) for r in game.results] == [
        ("ann", "bust", Decimal("-100"))
    ]
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "bust", "-100"), ("bob", 2, 1, "main", "win", "100")],
        {"ann": "-100", "bob": "100"},
    )


def test_rws_v5_3_19_must_draw_to_12() -> None:
    game = deal(PRESET, "6C 9S 5D 2H 9C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert not game.can_stand()
    assert Action.STAND not in game.legal_actions()
    assert_refused(game, game.stand, IllegalActionError, "totals 11", "3.19", "phase=player-turns")
    game.hit()
    assert game.can_stand()
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


def test_rws_v5_3_19_double_down_need_not_draw_to_12() -> None:
    # 5 4 doubled takes a 2: 11, and the hand stands on it.
    game = deal(PRESET, "5C 9S 4D 2H 9C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.double_down()
    stood = events_of(game, PlayerStood)
    assert [(e.total, e.automatic) for e in stood] == [(11, True)]
    assert_money(game, [("ann", 1, 1, "main", "lose", "-200")], {"ann": "-200"})


def test_rws_v5_3_20_stand_on_12_or_more() -> None:
    game = deal(PRESET, "10C 6S 2D 10S 7C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert game.can_stand()
    game.stand()
    # The dealer's 6 10 7 busts.
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v5_3_21_split_cards_of_identical_value() -> None:
    # 10 and King are of identical value: they split.
    game = deal(PRESET, "10C 6S KD 9H 9D 10S 8S", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert game.can_split()
    game.split()
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "200"},
    )


def test_rws_v5_3_21_no_surrender_after_split() -> None:
    game = deal(PRESET, "8C 6S 8D 8H 10D 10S 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert not game.can_surrender()
    assert_refused(game, game.surrender, IllegalActionError, "phase=player-turns")
    game.stand()
    game.stand()
    # The dealer's 6 10 10 busts.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "200"},
    )


def test_rws_v5_3_21_1_standing_player_declines_split() -> None:
    # ann 8 8 splits; bob, standing behind with 50, declines: he stays on hand 1 only.
    game = deal(PRESET, "8H 5S 8D 10C 9S 7C 10D", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    game.split()
    assert [(o.kind, o.player, o.hand, o.amount) for o in game.offers] == [
        (OfferKind.FOLLOW_SPLIT, "bob", 2, Decimal("50.00"))
    ]
    game.decline("bob", 1)
    game.stand()
    game.stand()
    assert [hand.stakes for hand in game.boxes[0].hands] == [
        (("ann", Decimal("100.00")), ("bob", Decimal("50.00"))),
        (("ann", Decimal("100.00")),),
    ]
    # The dealer's 5 7 10 busts.
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "win", "100"),
            ("bob", 1, 1, "main", "win", "50"),
            ("ann", 1, 2, "main", "win", "100"),
        ],
        {"ann": "200", "bob": "50"},
    )


def test_rws_v5_3_21_1_standing_player_follows_split() -> None:
    game = deal(PRESET, "8H 5S 8D 10C 9S 7C 10D", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    game.split()
    assert game.can_follow("bob", 1)
    game.follow("bob", 1)
    game.stand()
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "win", "100"),
            ("bob", 1, 1, "main", "win", "50"),
            ("ann", 1, 2, "main", "win", "100"),
            ("bob", 1, 2, "main", "win", "50"),
        ],
        {"ann": "200", "bob": "100"},
    )


def test_rws_v5_3_21_2_no_more_than_four_hands() -> None:
    game = deal(PRESET, "8C 6S 8D 8H 8S 8C 10D 10H 10S 10C 9C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    game.split()
    game.split()
    assert len(game.boxes[0].hands) == 4
    assert not game.can_split()
    assert_refused(game, game.split, IllegalActionError, "box 1 has 4 hands, the most allowed")
    for _ in range(4):
        game.stand()
    # The dealer's 6 10 9 busts: four hands win.
    assert_money(
        game,
        [("ann", 1, hand, "main", "win", "100") for hand in (1, 2, 3, 4)],
        {"ann": "400"},
    )


def test_rws_v5_3_21_2_aces_split_once_and_draw_one_card_each() -> None:
    # A A splits; the first Ace draws another Ace, which does not split again.
    game = deal(PRESET, "AC 6S AD AH 9D 10C 8C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert game.phase is Phase.SETTLED
    hands = game.boxes[0].hands
    assert [hand.cards for hand in hands] == [
        tuple(parse_cards("AC AH")),
        tuple(parse_cards("AD 9D")),
    ]
    stood = events_of(game, PlayerStood)
    assert [(e.total, e.automatic) for e in stood] == [
        (12, True),
        (20, True),
    ]
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "200"},
    )


def test_rws_v5_3_21_2_second_split_hand_dealt_after_the_first_is_decided() -> None:
    game = deal(PRESET, "8C 6S 8D 3H 10H 9D 10S 2C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    first, second = game.boxes[0].hands
    assert first.cards == tuple(parse_cards("8C 3H")) and second.cards == tuple(parse_cards("8D"))
    game.hit()  # 8 3 10: 21, stands by itself; the second hand then takes its 9
    assert game.boxes[0].hands[1].cards == tuple(parse_cards("8D 9D"))
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "lose", "-100")],
        {"ann": "0"},
    )


def test_rws_v5_3_21_3_dealer_blackjack_takes_busted_split_hands_in_full_and_initial_bet() -> None:
    # 8 8 against an Ace splits to three hands: one busts, two stand on 18; the dealer
    # then draws a King.  The bust is lost in full; the two others lose one initial bet.
    game = deal(PRESET, "8C AS 8D 8H 4H KH 10D 10H KS", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    game.split()
    game.hit()
    assert [(r.hand, r.outcome, r.net) for r in game.results] == [(1, "bust", Decimal("-100"))]
    game.stand()
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "bust", "-100"),
            ("ann", 1, 2, "main", "dealer-blackjack", "-100"),
            ("ann", 1, 3, "main", "dealer-blackjack", "0"),
        ],
        {"ann": "-200"},
    )


def test_rws_v5_3_22_double_down_for_less() -> None:
    game = deal(PRESET, "6H 9S 5D 10C 9C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert game.can_double("40")
    game.double_down("40")
    assert game.boxes[0].hands[0].stake == Decimal("140")
    # 21 against the dealer's 18.
    assert_money(game, [("ann", 1, 1, "main", "win", "140")], {"ann": "140"})


def test_rws_v5_3_22_double_down_over_the_initial_bet_refused() -> None:
    game = deal(PRESET, "6H 9S 5D 10C 9C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert not game.can_double("100.01")
    assert_refused(
        game,
        lambda: game.double_down("100.01"),
        IllegalActionError,
        "more than the initial bet 100.00",
        "phase=player-turns",
    )
    game.double_down("100")
    assert_money(game, [("ann", 1, 1, "main", "win", "200")], {"ann": "200"})


def test_rws_v5_3_22_double_down_after_split() -> None:
    game = deal(PRESET, "9C 6S 9D 2H 10H 9H 10S 7C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert game.can_double()
    game.double_down()  # 9 2 10: 21
    game.stand()  # 9 9: 18
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "200"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "300"},
    )


def test_rws_v5_3_22_no_double_down_on_split_aces() -> None:
    # A 5 and A 4 are soft hands worth doubling; split Aces stand on their one card.
    game = deal(PRESET, "AC 9S AD 5H 4H 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert game.phase is Phase.SETTLED
    assert all(not hand.doubled and len(hand.cards) == 2 for hand in game.boxes[0].hands)
    # Dealer 9 10 = 19 beats 16 and 15.
    assert_money(
        game,
        [("ann", 1, 1, "main", "lose", "-100"), ("ann", 1, 2, "main", "lose", "-100")],
        {"ann": "-200"},
    )


def test_rws_v5_3_22_no_double_down_on_a_soft_21_after_split() -> None:
    # 10 10 split: the first hand takes an Ace (a Soft 21, 1.27), which may not double.
    order = "10C 9S 10D AH 8H 10S"
    game = deal(PRESET, order, ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert game.current_turn == (1, 2)  # the 21 stood by itself
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "lose", "-100")],
        {"ann": "0"},
    )
    # The same hand where a two-card 21 may double waits for a decision instead.
    allowed = deal(PRESET, order, ("ann", 1, "100"), double_on_21=True)
    allowed.decline("ann", 1)
    allowed.split()
    assert allowed.current_turn == (1, 1)
    assert allowed.legal_actions() == (Action.STAND, Action.DOUBLE)


def test_rws_v5_3_22_1_standing_player_declines_double_keeps_one_card() -> None:
    game = deal(PRESET, "6H 5S 5D 10C 10D 5C", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    game.double_down()
    assert [(o.kind, o.player, o.amount) for o in game.offers] == [
        (OfferKind.FOLLOW_DOUBLE, "bob", Decimal("50.00"))
    ]
    game.decline("bob", 1)
    hand = game.boxes[0].hands[0]
    assert hand.cards == tuple(parse_cards("6H 5D 10C"))
    assert hand.stakes == (("ann", Decimal("200.00")), ("bob", Decimal("50.00")))
    # 21 against the dealer's 5 10 5 = 20.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "200"), ("bob", 1, 1, "main", "win", "50")],
        {"ann": "200", "bob": "50"},
    )


def test_rws_v5_3_22_1_standing_player_follows_a_double_for_less_in_proportion() -> None:
    game = deal(PRESET, "6H 5S 5D 10C 10D 5C", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    game.double_down("40")
    assert [o.amount for o in game.offers] == [Decimal("20.00")]
    game.follow("bob", 1)
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "140"), ("bob", 1, 1, "main", "win", "70")],
        {"ann": "140", "bob": "70"},
    )


def test_rws_v5_3_22_2_dealer_blackjack_takes_the_initial_bet_from_a_double() -> None:
    game = deal(PRESET, "6H AS 5D 10C KS", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.double_down()
    assert_money(game, [("ann", 1, 1, "main", "dealer-blackjack", "-100")], {"ann": "-100"})


def test_rws_v5_3_22_2_busted_double_loses_in_full() -> None:
    game = deal(PRESET, "10H AS 2D KC", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.double_down()
    # Nothing is left open, so the dealer draws no second card.
    assert game.phase is Phase.SETTLED and len(game.dealer_cards) == 1
    assert_money(game, [("ann", 1, 1, "main", "bust", "-200")], {"ann": "-200"})


def test_rws_v5_3_23_dealer_stands_on_soft_17() -> None:
    game = deal(PRESET, "10C 6S 8D AH", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.stand()
    assert game.dealer_cards == tuple(parse_cards("6S AH"))
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v5_3_23_dealer_draws_to_16() -> None:
    game = deal(PRESET, "10C 6S 8D 10S 5C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.stand()
    assert game.dealer_cards == tuple(parse_cards("6S 10S 5C"))
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


def test_rws_v5_3_23_1_dealer_bust_pays_every_standing_hand() -> None:
    game = deal(PRESET, "10C 10D 6S 3H 2S 10S 9C", ("ann", 1, "100"), ("bob", 2, "100"))
    game.decline("ann", 1)
    game.decline("bob", 2)
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("bob", 2, 1, "main", "win", "100")],
        {"ann": "100", "bob": "100"},
    )


def test_rws_v5_3_23_4_stand_off() -> None:
    game = deal(PRESET, "10C 9S 8D 9C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


# -- 4 Settlement --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bet", "rounding", "paid"),
    [
        ("25.00", "down", "37.50"),
        ("5.00", "down", "7.50"),
        ("25.01", "down", "37.51"),
        ("25.01", "half-up", "37.52"),
        ("25.01", "up", "37.52"),
        ("25.03", "half-even", "37.54"),
    ],
)
def test_rws_v5_4_1_1_blackjack_pays_3_to_2_to_the_cent(bet: str, rounding: str, paid: str) -> None:
    game = deal(PRESET, "AH 5S KD", ("ann", 1, bet), minimum_bet="5.00", payout_rounding=rounding)
    assert_money(game, [("ann", 1, 1, "main", "blackjack", paid)], {"ann": paid})
    assert str(game.results[0].net) == paid


# -- 5 Irregularities ----------------------------------------------------------------------------


def test_rws_v5_5_1_a_bet_behind_over_the_box_maximum_is_rejected_whole() -> None:
    """5.1: "the House shall reject the excess Bets"; 3.5: the Player places "the Bet
    within the permissible minimum and maximum limits".  The box maximum is 5000: with
    ann's 4000 seated, bob's 2000 behind her is refused whole (not cut to 1000), and
    nothing changes; bob's 1000 fits."""
    game = new_round(PRESET, "10C 7S 9D 10S", ("ann", 1, "4000"))
    assert_refused(
        game,
        lambda: game.place_bet("bob", 1, "2000"),
        BetError,
        "box 1 would carry 6000.00, over the table maximum 5000.00",
        "to 1000.00 at most",
        "RWS v5 5.1",
    )
    game.place_bet("bob", 1, "1000")
    assert_refused(game, lambda: game.place_bet("carl", 1, "0.01"), BetError, "RWS v5 5.1")
    game.close_bets()
    assert events_of(game, BetReturned) == []
    assert game.boxes[0].hands[0].stake == Decimal("5000")
    game.decline("ann", 1)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "4000"), ("bob", 1, 1, "main", "win", "1000")],
        {"ann": "4000", "bob": "1000"},
    )


def test_rws_v5_5_1_seated_priority_returns_a_bet_behind_whole_at_no_more_bets() -> None:
    """5.1: "Seated Players shall have the priority in the placement of their Bets,
    following which Standing Players may place their Bets subject to and until the
    maximum Bet has been reached".  ann raises to 4500 after bob (2000) and carl (500)
    bet behind her: bob's bet no longer fits and comes back whole at "No more bets";
    carl's, placed after his, still fits and plays."""
    game = new_round(
        PRESET, "10C 7S 9D 10S", ("ann", 1, "2500"), ("bob", 1, "2000"), ("carl", 1, "500")
    )
    game.place_bet("ann", 1, "2000")  # the seated player's raise: held to the maximum alone
    game.close_bets()
    returned = [(e.player, e.amount, e.reason) for e in events_of(game, BetReturned)]
    assert returned == [("bob", Decimal("2000"), "over the box maximum (RWS v5 5.1)")]
    assert game.state.boxes[0].initial == {"ann": Decimal("4500"), "carl": Decimal("500")}
    game.decline("ann", 1)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "4500"), ("carl", 1, 1, "main", "win", "500")],
        {"ann": "4500", "bob": "0", "carl": "500"},
    )


def test_rws_v5_5_1_one_player_over_the_box_maximum_refused() -> None:
    """The same reading for the seated player: his bet over the maximum is refused whole."""
    game = new_round(PRESET, "", ("ann", 1, "4000"))
    assert_refused(
        game, lambda: game.place_bet("ann", 1, "1000.01"), BetError, "over the table maximum"
    )


def test_rws_v5_1_26_players_bet_behind_a_seated_player() -> None:
    """1.26: "Standing Player refers to a Player who places a Bet on a Seated Player's
    betting box"; the preset takes bets behind."""
    game = new_round(PRESET, "", ("ann", 1, "100"), ("bob", 1, "50"))
    assert game.rules.bets_behind
    assert game.seated_player(1) == "ann"
    assert [(bet.player, bet.amount) for bet in game.placed_bets] == [
        ("ann", Decimal("100")),
        ("bob", Decimal("50")),
    ]


def test_rws_v5_5_2_box_under_minimum_cannot_close() -> None:
    game = new_round(PRESET, "10C 7S 9D 10S", ("ann", 1, "20"))
    assert_refused(game, game.close_bets, BetError, "box 1 carries 20.00", "minimum 25.00", "5.2")
    game.place_bet("ann", 1, "5")
    game.close_bets()
    game.decline("ann", 1)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "25")], {"ann": "25"})


def test_rws_v5_5_2_standing_bets_together_meet_the_minimum() -> None:
    # "the total Bets placed on any betting boxes": 15 and 10 together make the 25 minimum.
    game = deal(PRESET, "10C 7S 9D 10S", ("ann", 1, "15"), ("bob", 1, "10"))
    game.decline("ann", 1)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "15"), ("bob", 1, 1, "main", "win", "10")],
        {"ann": "15", "bob": "10"},
    )


def test_rws_v5_5_3_walk_away_draws_to_12() -> None:
    # ann 5 4 walks away: the house draws a 2 (11) and a 3 (14), then stands.
    game = deal(PRESET, "5C 10S 4D 2H 3C 7C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert isinstance(game.walk_away("ann"), PlayerWalkedAway)
    assert game.phase is Phase.SETTLED
    assert game.boxes[0].hands[0].cards == tuple(parse_cards("5C 4D 2H 3C"))
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


def test_rws_v5_5_3_walk_away_on_a_shared_box_passes_it_to_the_highest_bet() -> None:
    # ann leaves; carl (80) outbets bob (50) and calls the box's decisions (1.26).
    game = deal(PRESET, "5C 10S 4D 8H 7C", ("ann", 1, "100"), ("bob", 1, "50"), ("carl", 1, "80"))
    game.decline("ann", 1)
    game.walk_away("ann")
    assert [(e.box, e.player) for e in events_of(game, SeatPassed)] == [(1, "carl")]
    assert game.current_turn == (1, 1)
    assert_refused(game, lambda: game.hit(player="ann"), IllegalActionError, "seated player carl")
    game.hit(player="carl")  # 5 4 8: 17
    game.stand(player="carl")
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "stand-off", "0"),
            ("bob", 1, 1, "main", "stand-off", "0"),
            ("carl", 1, 1, "main", "stand-off", "0"),
        ],
        {"ann": "0", "bob": "0", "carl": "0"},
    )


def test_rws_v5_5_3_walk_away_passes_the_surrender_decision_with_the_box() -> None:
    # ann leaves while surrender is offered against the dealer's 10: carl (80) now calls
    # the decisions of the box (1.26, 3.8) and surrenders it for every player on it.
    game = deal(PRESET, "10C 10S 6D", ("ann", 1, "100"), ("bob", 1, "50"), ("carl", 1, "80"))
    assert [(o.kind, o.player) for o in game.offers] == [(OfferKind.SURRENDER, "ann")]
    game.walk_away("ann")
    assert [(o.kind, o.player) for o in game.offers] == [(OfferKind.SURRENDER, "carl")]
    assert_refused(game, lambda: game.surrender(box=1, player="ann"), IllegalActionError, "ann")
    game.surrender(box=1, player="carl")
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "surrender", "-50"),
            ("bob", 1, 1, "main", "surrender", "-25"),
            ("carl", 1, 1, "main", "surrender", "-40"),
        ],
        {"ann": "-50", "bob": "-25", "carl": "-40"},
    )


def test_rws_v5_5_8_no_bet_after_no_more_bets() -> None:
    game = deal(PRESET, "10C 7S 9D 10S", ("ann", 1, "100"))
    assert not game.can_place_bet("bob", 2, "100")
    assert_refused(game, lambda: game.place_bet("bob", 2, "100"), BetError, "5.8", "phase=offers")
    assert_refused(
        game, lambda: game.place_bet("ann", 1, "50"), BetError, "no more bets", "phase=offers"
    )
    assert_refused(game, lambda: game.withdraw_bet("ann", 1), BetError, "phase=offers")
    game.decline("ann", 1)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v5_5_15_side_bet_without_initial_bet_returned() -> None:
    game = new_round(PRESET, "10C 7S 9D 10S", ("ann", 1, "100"), ("bob", 2, "20", "player_pair"))
    game.close_bets()
    returned = [(e.player, e.box, e.bet, e.amount, e.reason) for e in events_of(game, BetReturned)]
    assert returned == [
        ("bob", 2, "player_pair", Decimal("20"), "no initial bet on the box (RWS v5 5.15)")
    ]
    game.decline("ann", 1)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100", "bob": "0"})


def test_rws_v5_5_17_void_returns_every_bet() -> None:
    # After interim settlement paid ann's Player Pair, the round is voided: every bet back.
    game = deal(
        PRESET,
        "8C 7S 8D 10S",
        ("ann", 1, "100"),
        ("ann", 1, "10", "player_pair"),
        ("bob", 1, "50"),
    )
    assert [r.net for r in game.results] == [Decimal("110")]
    game.decline("ann", 1)
    event = game.void("the cards were dealt in the wrong order and cannot be reconstructed")
    assert isinstance(event, RoundVoided) and game.phase is Phase.VOID
    assert game.void_reason is not None and "reconstructed" in game.void_reason
    assert_money(
        game,
        [
            ("ann", 1, None, "player_pair", "void", "0"),
            ("ann", 1, 1, "main", "void", "0"),
            ("bob", 1, 1, "main", "void", "0"),
        ],
        {"ann": "0", "bob": "0"},
    )
    assert_refused(game, game.stand, IllegalActionError, "phase=void")


def test_rws_v5_3_9_any_player_may_side_bet_on_a_box_with_an_initial_bet() -> None:
    game = deal("rws-v5", "9S KD 9H 8C", ("ann", 1, "100"), ("bob", 1, "10", "player_pair"))
    assert not events_of(game, BetReturned)
    assert [(r.player, r.bet, r.net) for r in results_of(game, bet="player_pair")] == [
        ("bob", "player_pair", Decimal("110.00"))
    ]
