"""Blackjack (RWS) Game Rules, Version 4: one round per clause, dealt from a fixed card order.

Each test is named after the clause it plays.  The card order is the dealing order:
the first pass from box 1, the dealer's one card (there is no hole card, 3.6), the
second pass, then every card drawn after, the dealer's own draws last.  The preset's
table minimum is 25.00.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from croupier.cards import parse_card, parse_cards
from croupier.errors import BetError, IllegalActionError
from croupier.events import BetReturned, CardDealt, PlayerStood, RoundVoided
from croupier.presets import find_rules
from croupier.round import Action, OfferKind, Phase, Round
from croupier.shoe import CompositionCheck, FixedOrder
from tests.rounds import (
    assert_money,
    assert_refused,
    deal,
    events_of,
    new_round,
    refuses_a_bet_behind,
)

PRESET = "rws-v4"


# -- 2 Mode of play ------------------------------------------------------------------------------


def test_rws_v4_2_2_1_eight_decks_hold_eight_of_each_card() -> None:
    # Seven Aces of spades already dealt from this shoe: the eighth is a card of the set...
    check = CompositionCheck(find_rules(PRESET).decks)
    for _ in range(7):
        check.take(parse_card("AS"))
    game = Round(find_rules(PRESET), FixedOrder("AS 5D KC"), check=check)
    game.place_bet("ann", 1, "100")
    game.close_bets()
    assert_money(game, [("ann", 1, 1, "main", "blackjack", "150")], {"ann": "150"})
    # ...and a ninth is one too many (5.1.1: not part of the set of cards).
    game = Round(find_rules(PRESET), FixedOrder("AS 5D KC"), check=check)
    game.place_bet("ann", 1, "100")
    game.close_bets()
    assert game.phase is Phase.VOID
    assert_money(game, [("ann", 1, 1, "main", "void", "0")], {"ann": "0"})


# -- 3 How to play -------------------------------------------------------------------------------


def test_rws_v4_3_6_dealer_deals_himself_one_card_face_up() -> None:
    # ann box 2: 9 8, bob box 5: 10 7; the dealer's one card is a 7.
    game = deal(PRESET, "9S 10H 7C 8D 7S 10C", ("ann", 2, "100"), ("bob", 5, "100"))
    dealt = [(e.card, e.box, e.face_up) for e in events_of(game, CardDealt)]
    assert dealt == [
        ("9S", 2, True),
        ("10H", 5, True),
        ("7C", None, True),
        ("8D", 2, True),
        ("7S", 5, True),
    ]
    assert game.hole_card is None and len(game.dealer_cards) == 1
    game.decline("ann", 2)
    game.decline("bob", 5)
    game.stand()
    game.stand()
    assert game.dealer_cards == tuple(parse_cards("7C 10C"))
    assert_money(
        game,
        [("ann", 2, 1, "main", "stand-off", "0"), ("bob", 5, 1, "main", "stand-off", "0")],
        {"ann": "0", "bob": "0"},
    )


def test_rws_v4_3_3_side_bet_needs_an_initial_bet() -> None:
    game = new_round(PRESET, "10C 7S 9D 10S", ("ann", 1, "100"), ("bob", 3, "25", "under_13"))
    game.close_bets()
    assert [(e.player, e.amount) for e in events_of(game, BetReturned)] == [("bob", Decimal("25"))]
    game.decline("ann", 1)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100", "bob": "0"})


def test_rws_v4_3_7_side_bets_settled_before_play_continues() -> None:
    game = deal(
        PRESET,
        "7C 8S 7D",
        ("ann", 1, "100"),
        ("ann", 1, "10", "player_pair"),
        ("ann", 1, "30", "over_13"),
    )
    assert game.phase is Phase.OFFERS
    assert_money(
        game,
        [
            ("ann", 1, None, "player_pair", "pair", "110"),
            ("ann", 1, None, "over_13", "over-13", "30"),
        ],
        {"ann": "140"},
    )


def test_rws_v4_3_7_1_player_pair_is_the_same_number_or_picture_type() -> None:
    game = deal(
        PRESET,
        "JC QD 8S JH KD",
        ("ann", 1, "100"),
        ("ann", 1, "10", "player_pair"),
        ("bob", 2, "100"),
        ("bob", 2, "10", "player_pair"),
    )
    assert_money(
        game,
        [
            ("ann", 1, None, "player_pair", "pair", "110"),
            ("bob", 2, None, "player_pair", "nothing", "-10"),
        ],
        {"ann": "110", "bob": "-10"},
    )


def test_rws_v4_3_7_2_a_under_13_counts_aces_as_one() -> None:
    # A A is 2 for Under 13, though the hand counts 12.
    game = deal(PRESET, "AC 9S AD", ("ann", 1, "100"), ("ann", 1, "50", "under_13"))
    assert_money(game, [("ann", 1, None, "under_13", "under-13", "50")], {"ann": "50"})


def test_rws_v4_3_7_2_c_house_wins_on_exactly_13() -> None:
    game = deal(
        PRESET,
        "KC 9S 3D",
        ("ann", 1, "100"),
        ("ann", 1, "50", "under_13"),
        ("ann", 1, "50", "over_13"),
    )
    assert_money(
        game,
        [
            ("ann", 1, None, "under_13", "thirteen", "-50"),
            ("ann", 1, None, "over_13", "thirteen", "-50"),
        ],
        {"ann": "-100"},
    )


def test_rws_v4_3_7_2_d_under_over_13_not_above_the_initial_bet() -> None:
    game = new_round(PRESET, "", ("ann", 1, "60"))
    assert not game.can_place_bet("ann", 1, "60.01", "over_13")
    assert_refused(
        game, lambda: game.place_bet("ann", 1, "60.01", "over_13"), BetError, "initial bet 60.00"
    )
    game.place_bet("ann", 1, "60", "over_13")
    assert_refused(
        game, lambda: game.place_bet("ann", 1, "0.01", "over_13"), BetError, "bet of 60.01"
    )


def test_rws_v4_3_8_1_even_money_for_a_blackjack_against_an_ace() -> None:
    game = deal(PRESET, "AD AS QC", ("ann", 1, "100"))
    assert [offer.kind for offer in game.offers] == [OfferKind.EVEN_MONEY]
    assert game.can_take_even_money("ann", 1)
    game.take_even_money("ann", 1)
    # Nothing is left open: the dealer draws no second card.
    assert game.phase is Phase.SETTLED and len(game.dealer_cards) == 1
    assert_money(game, [("ann", 1, 1, "main", "even-money", "100")], {"ann": "100"})


def test_rws_v4_3_8_1_otherwise_dealer_blackjack_is_a_stand_off() -> None:
    game = deal(PRESET, "AD AS QC 10H", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


def test_rws_v4_3_8_2_insurance_half_or_less_pays_2_to_1() -> None:
    game = deal(PRESET, "9C AS 9D JH", ("ann", 1, "60"))
    assert [(o.kind, o.amount) for o in game.offers] == [(OfferKind.INSURANCE, Decimal("30.00"))]
    game.take_insurance("ann", 1, "25")
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "50"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-60"),
        ],
        {"ann": "-10"},
    )


def test_rws_v4_3_8_2_insurance_over_half_refused() -> None:
    game = deal(PRESET, "9C AS 9D JH", ("ann", 1, "60"))
    assert_refused(game, lambda: game.take_insurance("ann", 1, "30.01"), BetError, "more than half")


def test_rws_v4_3_8_2_insurance_loses_and_the_round_proceeds() -> None:
    game = deal(PRESET, "9C AS 9D 7H", ("ann", 1, "60"))
    game.take_insurance("ann", 1, "30")
    assert game.phase is Phase.PLAYER_TURNS
    game.stand()
    assert_money(
        game,
        [("ann", 1, None, "insurance", "lost", "-30"), ("ann", 1, 1, "main", "stand-off", "0")],
        {"ann": "-30"},
    )


def test_rws_v4_3_8_2_insurance_placed_only_before_any_additional_card() -> None:
    game = deal(PRESET, "9C AS 2D 9H 7H", ("ann", 1, "60"))
    game.decline("ann", 1)
    assert not game.can_take_insurance("ann", 1)
    assert_refused(
        game, lambda: game.take_insurance("ann", 1), IllegalActionError, "phase=player-turns"
    )
    game.hit()  # 9 2 9: 20
    game.stand()
    # 20 against the dealer's A 7, a soft 18.
    assert_money(game, [("ann", 1, 1, "main", "win", "60")], {"ann": "60"})


def test_rws_v4_3_9_blackjack_paid_at_once_against_a_small_card() -> None:
    game = deal(PRESET, "9S AH 4D 7C KC 10D 8H", ("bob", 1, "100"), ("ann", 2, "100"))
    assert [(r.player, r.outcome, r.net) for r in game.results] == [
        ("ann", "blackjack", Decimal("150"))
    ]
    game.decline("bob", 1)
    game.stand()
    # The dealer's 4 10 8 busts.
    assert_money(
        game,
        [("ann", 2, 1, "main", "blackjack", "150"), ("bob", 1, 1, "main", "win", "100")],
        {"ann": "150", "bob": "100"},
    )


def test_rws_v4_3_9_blackjack_against_a_ten_stands_off_with_dealer_blackjack() -> None:
    game = deal(PRESET, "AH QS KC AD", ("ann", 1, "100"))
    assert game.phase is Phase.SETTLED
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


def test_rws_v4_3_9_blackjack_against_a_ten_paid_when_the_dealer_misses() -> None:
    game = deal(PRESET, "AH QS KC 9D", ("ann", 1, "100"))
    assert_money(game, [("ann", 1, 1, "main", "blackjack", "150")], {"ann": "150"})


def test_rws_v4_3_10_surrender_gives_up_half_the_initial_bet() -> None:
    game = deal(PRESET, "10C 10S 5D", ("ann", 1, "60"))
    game.surrender(box=1)
    assert_money(game, [("ann", 1, 1, "main", "surrender", "-30")], {"ann": "-30"})


def test_rws_v4_3_10_surrender_against_a_ten() -> None:
    # Decided before the dealer's second card: a blackjack drawn later changes nothing.
    game = deal(PRESET, "10C 10D 10S 5D 9H AH", ("ann", 1, "60"), ("bob", 2, "100"))
    game.surrender(box=1)
    game.decline("bob", 2)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "surrender", "-30"),
            ("bob", 2, 1, "main", "dealer-blackjack", "-100"),
        ],
        {"ann": "-30", "bob": "-100"},
    )


def test_rws_v4_3_10_no_surrender_against_an_ace() -> None:
    game = deal(PRESET, "10C AS 5D", ("ann", 1, "60"))
    assert OfferKind.SURRENDER not in {offer.kind for offer in game.offers}
    assert_refused(game, lambda: game.surrender(box=1), IllegalActionError, "no surrender offer")


def test_rws_v4_3_11_blackjack_draws_no_card() -> None:
    # The blackjack against a ten is held: no decision is asked of it.
    game = deal(PRESET, "AH 9H 10S KC QD 7C", ("ann", 1, "100"), ("bob", 2, "100"))
    game.decline("bob", 2)
    assert game.current_turn == (2, 1)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "150"), ("bob", 2, 1, "main", "win", "100")],
        {"ann": "150", "bob": "100"},
    )


def test_rws_v4_3_13_split_cards_of_identical_value() -> None:
    game = deal(PRESET, "QC 6S JD 10H 9D 10S 7S", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "200"},
    )


def test_rws_v4_3_13_no_surrender_after_split() -> None:
    game = deal(PRESET, "7C 6S 7D 10H 10D 10S 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert Action.SURRENDER not in game.legal_actions()
    assert_refused(game, game.surrender, IllegalActionError, "no surrender")
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "200"},
    )


def test_rws_v4_3_13_no_more_than_four_hands() -> None:
    game = deal(PRESET, "3C 6S 3D 3H 3S 3C 10D 10H 10S 10C 8C 4D", ("ann", 1, "100"))
    game.decline("ann", 1)
    for _ in range(3):
        game.split()
    assert_refused(game, game.split, IllegalActionError, "the most allowed")
    game.hit()  # 3 3 10: 16
    game.stand()
    for _ in range(3):
        game.stand()  # 3 10: 13, hand by hand
    # The dealer's 6 8 4 = 18 beats four hands.
    assert_money(
        game,
        [("ann", 1, hand, "main", "lose", "-100") for hand in (1, 2, 3, 4)],
        {"ann": "-400"},
    )


def test_rws_v4_3_13_aces_split_once_draw_one_card_each() -> None:
    game = deal(PRESET, "AC 7S AD AH 2D 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert game.phase is Phase.SETTLED
    assert [len(hand.cards) for hand in game.boxes[0].hands] == [2, 2]
    # A A (12) and A 2 (13) against the dealer's 17.
    assert_money(
        game,
        [("ann", 1, 1, "main", "lose", "-100"), ("ann", 1, 2, "main", "lose", "-100")],
        {"ann": "-200"},
    )


def test_rws_v4_1_split_aces_and_ten_are_no_natural_21() -> None:
    game = deal(PRESET, "AC 8S AD 10D JC 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "win", "100")],
        {"ann": "200"},
    )


def test_rws_v4_3_13_dealer_blackjack_takes_busted_split_hands_in_full_and_initial_bet() -> None:
    # 9 9 against an Ace: one hand doubles to 20, the other hits and busts, then the
    # dealer draws a ten: the bust is lost in full, the doubled 20 loses the initial bet.
    game = deal(PRESET, "9C AS 9D 2H 9S 4C KH QS", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    game.double_down()  # 9 2 9: 20
    game.hit()  # 9 4 K: 23
    assert_money(
        game,
        [
            ("ann", 1, 2, "main", "bust", "-100"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-100"),
        ],
        {"ann": "-200"},
    )


def test_rws_v4_3_14_double_down_for_less() -> None:
    game = deal(PRESET, "7H 9S 4D 9C 9D", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.double_down("25")
    assert_money(game, [("ann", 1, 1, "main", "win", "125")], {"ann": "125"})


def test_rws_v4_3_14_double_down_over_the_initial_bet_refused() -> None:
    game = deal(PRESET, "7H 9S 4D 9C 9D", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert_refused(
        game, lambda: game.double_down("150"), IllegalActionError, "more than the initial bet"
    )


def test_rws_v4_3_14_double_down_on_the_first_two_cards_of_a_split_hand() -> None:
    game = deal(PRESET, "5C 6S 5D 5H 10H 10S 10D 7C 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    game.double_down()  # 5 5 10: 20
    game.double_down()  # 5 10 10: 25
    assert_money(
        game,
        [("ann", 1, 2, "main", "bust", "-200"), ("ann", 1, 1, "main", "win", "200")],
        {"ann": "0"},
    )


def test_rws_v4_3_14_double_down_only_on_the_first_two_cards() -> None:
    game = deal(PRESET, "2C 9S 3D 4H 8H 9C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.hit()  # 2 3 4: 9
    assert not game.can_double()
    assert_refused(game, game.double_down, IllegalActionError, "has 3 cards")
    game.hit()  # 17
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


def test_rws_v4_3_14_no_double_down_on_an_ace_pair() -> None:
    game = deal(PRESET, "AC 9S AD 6H 5H 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert game.phase is Phase.SETTLED
    assert not any(hand.doubled for hand in game.boxes[0].hands)
    assert_money(
        game,
        [("ann", 1, 1, "main", "lose", "-100"), ("ann", 1, 2, "main", "lose", "-100")],
        {"ann": "-200"},
    )


def test_rws_v4_3_14_no_double_down_on_a_soft_21() -> None:
    order = "KC 9S KD AH 9H 10S"
    game = deal(PRESET, order, ("ann", 1, "100"))
    game.decline("ann", 1)
    game.split()
    assert game.current_turn == (1, 2)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("ann", 1, 2, "main", "stand-off", "0")],
        {"ann": "100"},
    )
    allowed = deal(PRESET, order, ("ann", 1, "100"), double_on_21=True)
    allowed.decline("ann", 1)
    allowed.split()
    assert allowed.current_turn == (1, 1) and allowed.can_double()


def test_rws_v4_3_14_dealer_blackjack_collects_only_the_initial_bet_from_a_double() -> None:
    game = deal(PRESET, "6H AS 4D KC JS", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.double_down("60")
    assert_money(game, [("ann", 1, 1, "main", "dealer-blackjack", "-100")], {"ann": "-100"})


def test_rws_v4_3_15_no_card_drawn_to_21() -> None:
    game = deal(PRESET, "7C 8S 4D KH 9S", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.hit()
    assert [(e.total, e.automatic) for e in events_of(game, PlayerStood)] == [(21, True)]
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v4_3_16_bust_loses_at_once() -> None:
    game = deal(PRESET, "10C 10D 8S 5D 9H 9C KS", ("ann", 1, "100"), ("bob", 2, "100"))
    game.decline("ann", 1)
    game.decline("bob", 2)
    game.hit()
    assert game.current_turn == (2, 1)
    assert [(r.player, r.net) for r in game.results] == [("ann", Decimal("-100"))]
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "bust", "-100"), ("bob", 2, 1, "main", "win", "100")],
        {"ann": "-100", "bob": "100"},
    )


def test_rws_v4_3_17_must_draw_to_12() -> None:
    game = deal(PRESET, "2C 9S 9D AH 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert_refused(game, game.stand, IllegalActionError, "under 12 must draw")
    game.hit()  # 2 9 A: 12
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


def test_rws_v4_3_17_except_when_subject_to_double_down() -> None:
    game = deal(PRESET, "2C 9S 6D 3H 10C", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.double_down()  # 2 6 3: 11, stands
    # The dealer's 9 10 = 19.
    assert_money(game, [("ann", 1, 1, "main", "lose", "-200")], {"ann": "-200"})


def test_rws_v4_3_18_dealer_stands_on_a_soft_17() -> None:
    game = deal(PRESET, "10C AS 8D 6H", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.stand()
    assert game.dealer_cards == tuple(parse_cards("AS 6H"))
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v4_3_18_dealer_must_draw_to_16() -> None:
    game = deal(PRESET, "10C 2S 8D 4H 10H 3D", ("ann", 1, "100"))
    game.decline("ann", 1)
    game.stand()
    assert game.dealer_cards == tuple(parse_cards("2S 4H 10H 3D"))
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


@pytest.mark.parametrize(
    ("order", "outcome", "net"),
    [
        ("10C 7S 9D 5H 10H", "win", "100"),  # 3.18.1 the dealer busts
        ("10C 7S 9D 10H", "win", "100"),  # 3.18.2 19 beats 17
        ("10C 7S 7D AH", "lose", "-100"),  # 3.18.3 17 loses to 18
        ("10C 7S 8D AH", "stand-off", "0"),  # 3.18.4 18 and 18
    ],
)
def test_rws_v4_3_18_comparison(order: str, outcome: str, net: str) -> None:
    game = deal(PRESET, order, ("ann", 1, "100"))
    game.decline("ann", 1)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", outcome, net)], {"ann": net})


# -- 4 Settlement --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bet", "paid"),
    [("25.00", "37.50"), ("30.00", "45.00"), ("25.01", "37.51"), ("33.33", "49.99")],
)
def test_rws_v4_4_1_blackjack_pays_3_to_2(bet: str, paid: str) -> None:
    game = deal(PRESET, "AH 5S KD", ("ann", 1, bet))
    assert str(game.results[0].net) == paid
    assert_money(game, [("ann", 1, 1, "main", "blackjack", paid)], {"ann": paid})


def test_rws_v4_4_1_player_pair_pays_11_to_1_to_the_cent() -> None:
    game = deal(PRESET, "4C 9S 4H", ("ann", 1, "100"), ("ann", 1, "12.34", "player_pair"))
    assert_money(game, [("ann", 1, None, "player_pair", "pair", "135.74")], {"ann": "135.74"})


# -- 5 Irregularities ----------------------------------------------------------------------------


def test_rws_v4_5_1_1_foreign_card_voids_the_round() -> None:
    game = deal(PRESET, "10C 7S 9D JK", ("ann", 1, "100"), ("ann", 1, "10", "player_pair"))
    assert [offer.kind for offer in game.offers] == [OfferKind.SURRENDER]
    game.decline("ann", 1)
    game.stand()
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and "foreign card JK" in game.void_reason
    assert len(events_of(game, RoundVoided)) == 1
    assert_money(
        game,
        [("ann", 1, None, "player_pair", "void", "0"), ("ann", 1, 1, "main", "void", "0")],
        {"ann": "0"},
    )


def test_rws_v4_5_1_2_cards_dealt_incorrectly_void_the_round() -> None:
    game = deal(PRESET, "10C 7S 9D", ("ann", 1, "100"))
    game.void("cards dealt incorrectly before interim settlement; cannot be reconstructed")
    assert_money(game, [("ann", 1, 1, "main", "void", "0")], {"ann": "0"})


def test_rws_v4_5_2_no_wager_placed_increased_or_withdrawn_after_no_more_bets() -> None:
    game = deal(PRESET, "10C 7S 9D 10S", ("ann", 1, "100"))
    assert_refused(game, lambda: game.place_bet("bob", 2, "100"), BetError, "no more bets")
    assert_refused(game, lambda: game.place_bet("ann", 1, "100"), BetError, "no more bets")
    assert_refused(game, lambda: game.withdraw_bet("ann", 1), BetError, "no more bets")
    game.decline("ann", 1)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})


def test_rws_v4_3_3_side_bet_rides_on_the_players_own_initial_bet() -> None:
    game = deal("rws-v4", "9S KD 7H 8C", ("ann", 1, "100"), ("bob", 1, "10", "player_pair"))
    returned = [(e.player, e.bet) for e in events_of(game, BetReturned)]
    assert returned == [("bob", "player_pair")]


def test_rws_v4_2_1_1_a_no_bet_behind_another_players_box() -> None:
    """2.1.1 a: "Betting boxes will be marked for each Player"; 3.3: "All Players must place an
    initial bet": these rules have no standing players (version 5 adds them, 1.26). bob's
    initial bet on ann's box is refused and changes nothing; a table that takes bets behind says
    so in its rules (``bets_behind``)."""
    refuses_a_bet_behind(PRESET)
