"""Live Blackjack Game Rules: one round per rule, dealt from a fixed card order.

The rules have headings, not numbered clauses; each test is named after the rule it
plays.  The card order is the dealing order: the first card to each seat from seat 1,
the croupier's up card ("with the croupier being last in rotation"), the second card to
each seat, the croupier's hidden card, then every card drawn after.  The preset's
minimum bet is 5.00 and its side bet maximum 500.00.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from croupier.cards import parse_card
from croupier.errors import BetError, IllegalActionError
from croupier.events import BetReturned, CardDealt, DealerPeeked
from croupier.presets import find_rules
from croupier.round import Action, OfferKind, Phase
from croupier.shoe import ShuffledShoe
from tests.rounds import (
    assert_money,
    assert_refused,
    deal,
    events_of,
    new_round,
    refuses_a_bet_behind,
    results_of,
)

PRESET = "live"


# -- The play ------------------------------------------------------------------------------------


def test_live_croupier_gets_a_hidden_second_card() -> None:
    game = deal(PRESET, "9S 7C 10D 10H", ("ann", 1, "10"))
    dealt = [(e.card, e.box, e.face_up) for e in events_of(game, CardDealt)]
    assert dealt == [("9S", 1, True), ("7C", None, True), ("10D", 1, True), ("10H", None, False)]
    assert game.dealer_cards == (parse_card("7C"),)
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10"})


def test_live_no_peek_players_act_before_the_croupier_blackjack_shows() -> None:
    game = deal(PRESET, "10C KS 6D AH 5C", ("ann", 1, "10"))
    assert game.current_turn == (1, 1) and events_of(game, DealerPeeked) == []
    game.hit()  # 10 6 5: 21
    assert_money(game, [("ann", 1, 1, "main", "dealer-blackjack", "-10")], {"ann": "-10"})


def test_live_blackjack_paid_3_to_2_at_once_when_the_croupier_cannot_have_blackjack() -> None:
    game = deal(PRESET, "AH 10C 6S KD 7D 10S 9C", ("ann", 1, "10"), ("bob", 2, "10"))
    assert game.current_turn == (2, 1)
    assert [(r.player, r.outcome, r.net) for r in game.results] == [
        ("ann", "blackjack", Decimal("15"))
    ]
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "15"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "15", "bob": "10"},
    )


def test_live_blackjack_resolution_delayed_until_the_croupier_count_is_established() -> None:
    game = deal(PRESET, "AH 10C KS KD 9D 7S", ("ann", 1, "10"), ("bob", 2, "10"))
    assert game.results == () and game.current_turn == (2, 1)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "15"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "15", "bob": "10"},
    )


def test_live_blackjack_pushes_a_croupier_blackjack() -> None:
    game = deal(PRESET, "AH KS KD AC", ("ann", 1, "10"))
    assert game.phase is Phase.SETTLED
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


def test_live_blackjack_beats_any_three_or_more_card_21() -> None:
    game = deal(PRESET, "AH 10C KS KD 8D 5C 6C", ("ann", 1, "10"), ("bob", 2, "10"))
    game.stand()
    assert game.dealer_total == 21
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "15"), ("bob", 2, 1, "main", "lose", "-10")],
        {"ann": "15", "bob": "-10"},
    )


def test_live_bust_loses_immediately() -> None:
    # Even against a ten up, the bust is collected before the next seat plays.
    game = deal(PRESET, "10C 9H KS 6D 9C 7S KH", ("ann", 1, "10"), ("bob", 2, "10"))
    game.hit()
    assert game.current_turn == (2, 1)
    assert [(r.player, r.outcome, r.net) for r in game.results] == [("ann", "bust", Decimal("-10"))]
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "bust", "-10"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "-10", "bob": "10"},
    )


def test_live_hand_with_an_ace_counts_its_highest_value_once_stood() -> None:
    game = deal(PRESET, "AS 10C 6D 7H", ("ann", 1, "10"))
    game.stand()  # A 6: 17
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


# -- The house strategy --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "total", "outcome", "net"),
    [
        ("10C 6S 9D AH", 17, "win", "10"),  # a soft 17 stands
        ("10C 6S 9D 10H 3C", 19, "stand-off", "0"),  # 16 hits
        ("10C 6S 9D 10H 6C", 22, "win", "10"),  # and may bust
    ],
)
def test_live_croupier_hits_16_or_less_and_stands_on_17(
    order: str, total: int, outcome: str, net: str
) -> None:
    game = deal(PRESET, order, ("ann", 1, "10"))
    game.stand()
    assert game.dealer_total == total
    assert_money(game, [("ann", 1, 1, "main", outcome, net)], {"ann": net})


# -- Player options ------------------------------------------------------------------------------


def test_live_double_down_an_amount_equal_to_the_original_bet() -> None:
    game = deal(PRESET, "5C 9S 6D 9H 10C", ("ann", 1, "10"))
    assert not game.can_double("5")
    assert_refused(
        game,
        lambda: game.double_down("5"),
        IllegalActionError,
        "must equal the initial bet 10.00 at live",
    )
    game.double_down()  # 5 6 10: 21
    assert_money(game, [("ann", 1, 1, "main", "win", "20")], {"ann": "20"})


def test_live_no_double_after_split() -> None:
    game = deal(PRESET, "8C 7S 8D 10H 3H 10C 9C", ("ann", 1, "10"))
    game.split()
    assert game.boxes[0].hands[0].total == 11
    assert not game.can_double()
    assert Action.DOUBLE not in game.legal_actions()
    assert_refused(
        game, game.double_down, IllegalActionError, "split hand; no double after a split at live"
    )
    game.hit()  # 8 3 10: 21
    game.stand()  # 8 9: 17, a stand-off with the croupier's 17
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "stand-off", "0")],
        {"ann": "10"},
    )


def test_live_split_into_two_subhands_only() -> None:
    game = deal(PRESET, "8C 7S 8D 10H 8H 10C", ("ann", 1, "10"))
    game.split()
    assert not game.can_split()
    assert_refused(game, game.split, IllegalActionError, "box 1 has 2 hands, the most allowed")
    game.stand()  # 8 8: 16
    game.stand()  # 8 10: 18
    assert_money(
        game,
        [("ann", 1, 1, "main", "lose", "-10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "0"},
    )


def test_live_split_pairs_of_equal_value() -> None:
    game = deal(PRESET, "10C 6S KD 10H 9H 8D 9C", ("ann", 1, "10"))
    game.split()
    game.stand()  # 10 9
    game.stand()  # K 8
    # The croupier's 6 10 9 busts.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "20"},
    )


def test_live_split_aces_one_card_and_21_loses_to_dealer_blackjack() -> None:
    game = deal(PRESET, "AC KS AD AH KH 5D", ("ann", 1, "10"))
    game.split()
    assert game.phase is Phase.SETTLED
    assert [(hand.total, len(hand.cards)) for hand in game.boxes[0].hands] == [(21, 2), (16, 2)]
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "dealer-blackjack", "-10"),
            ("ann", 1, 2, "main", "dealer-blackjack", "-10"),
        ],
        {"ann": "-20"},
    )


def test_live_dealer_blackjack_takes_split_and_double_bets_in_full() -> None:
    # ann splits 9 9 (19 and 18), bob doubles 6 5 to 20; the hidden card is an Ace.
    game = deal(PRESET, "9C 6H KS 9D 5S AC 10H 9S 9H", ("ann", 1, "10"), ("bob", 2, "10"))
    game.split()
    game.stand()
    game.stand()
    game.double_down()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "dealer-blackjack", "-10"),
            ("ann", 1, 2, "main", "dealer-blackjack", "-10"),
            ("bob", 2, 1, "main", "dealer-blackjack", "-20"),
        ],
        {"ann": "-20", "bob": "-20"},
    )


def test_live_no_surrender() -> None:
    game = deal(PRESET, "10C 9S 6D 9H 5C", ("ann", 1, "10"))
    assert not game.can_surrender()
    assert_refused(game, game.surrender, IllegalActionError, "no surrender at this point at live")
    game.hit()  # 10 6 5: 21
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10"})


# -- Insurance -----------------------------------------------------------------------------------


def test_live_insurance_exactly_half_pays_2_to_1() -> None:
    game = deal(PRESET, "10C AS 9D KH", ("ann", 1, "10"))
    assert [(o.kind, o.amount) for o in game.offers] == [(OfferKind.INSURANCE, Decimal("5.00"))]
    assert not game.can_take_insurance("ann", 1, "3")
    assert_refused(
        game, lambda: game.take_insurance("ann", 1, "3"), BetError, "exactly half", "at live"
    )
    game.take_insurance("ann", 1)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "10"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-10"),
        ],
        {"ann": "0"},
    )


def test_live_insurance_with_blackjack() -> None:
    game = deal(PRESET, "AH AS KD KC", ("ann", 1, "10"))
    assert [o.kind for o in game.offers] == [OfferKind.INSURANCE]
    assert not game.can_take_even_money("ann", 1)
    game.take_insurance("ann", 1)
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "10"),
            ("ann", 1, 1, "main", "stand-off", "0"),
        ],
        {"ann": "10"},
    )


def test_live_insurance_lost_when_the_croupier_fails_to_draw_blackjack() -> None:
    game = deal(PRESET, "AH AS KD 7C", ("ann", 1, "10"))
    game.take_insurance("ann", 1)
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "lost", "-5"),
            ("ann", 1, 1, "main", "blackjack", "15"),
        ],
        {"ann": "10"},
    )


# -- Side bets -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "outcome", "side_net", "main_outcome", "main_net"),
    [
        ("KD", "KD", "perfect-pair", "250", "win", "10"),
        ("6C", "6S", "coloured-pair", "120", "lose", "-10"),
        ("2C", "2H", "mixed-pair", "60", "lose", "-10"),
        ("10H", "KH", "nothing", "-10", "win", "10"),
    ],
)
def test_live_perfect_pairs_pays_25_12_6_after_the_first_two_cards(
    first: str, second: str, outcome: str, side_net: str, main_outcome: str, main_net: str
) -> None:
    game = deal(
        PRESET, f"{first} 10S {second} 7S", ("ann", 1, "10"), ("ann", 1, "10", "perfect_pairs")
    )
    assert game.phase is Phase.PLAYER_TURNS
    assert_money(game, [("ann", 1, None, "perfect_pairs", outcome, side_net)], {"ann": side_net})
    game.stand()
    total = Decimal(side_net) + Decimal(main_net)
    assert_money(
        game,
        [
            ("ann", 1, None, "perfect_pairs", outcome, side_net),
            ("ann", 1, 1, "main", main_outcome, main_net),
        ],
        {"ann": str(total)},
    )


@pytest.mark.parametrize(
    ("order", "outcome", "side_net", "main_outcome", "main_net"),
    [
        ("QH QH QH 7S", "suited-trips", "1000", "win", "10"),
        ("10S QS JS 7S", "straight-flush", "400", "win", "10"),
        ("7C 7H 7D 10S", "three-of-a-kind", "300", "lose", "-10"),
        ("9C JH 10D 7S", "straight", "100", "win", "10"),
        ("2H KH 9H 7S", "flush", "50", "lose", "-10"),
        ("2C KH 9H 7S", "nothing", "-10", "lose", "-10"),
    ],
)
def test_live_21_plus_3_pays_the_best_hand_with_the_croupier_up_card(
    order: str, outcome: str, side_net: str, main_outcome: str, main_net: str
) -> None:
    game = deal(PRESET, order, ("ann", 1, "10"), ("ann", 1, "10", "21+3"))
    assert [(r.outcome, r.net) for r in results_of(game, bet="21+3")] == [
        (outcome, Decimal(side_net))
    ]
    game.stand()
    total = Decimal(side_net) + Decimal(main_net)
    assert_money(
        game,
        [
            ("ann", 1, None, "21+3", outcome, side_net),
            ("ann", 1, 1, "main", main_outcome, main_net),
        ],
        {"ann": str(total)},
    )


def test_live_side_bets_must_be_supported_by_a_blackjack_bet() -> None:
    game = new_round(
        PRESET,
        "10C 7S 9D 10S",
        ("ann", 1, "10"),
        ("bob", 2, "5", "21+3"),
        ("bob", 2, "5", "perfect_pairs"),
    )
    game.close_bets()
    assert [(e.player, e.bet) for e in events_of(game, BetReturned)] == [
        ("bob", "21+3"),
        ("bob", "perfect_pairs"),
    ]
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10", "bob": "0"})


def test_live_side_bet_over_the_table_limit_refused() -> None:
    game = new_round(PRESET, "", ("ann", 1, "10"))
    assert_refused(
        game,
        lambda: game.place_bet("ann", 1, "500.01", "perfect_pairs"),
        BetError,
        "side bet maximum 500.00",
    )
    assert game.can_place_bet("ann", 1, "500.00", "perfect_pairs")


def test_live_side_bets_not_of_this_table_refused() -> None:
    game = new_round(PRESET, "", ("ann", 1, "10"))
    assert_refused(
        game,
        lambda: game.place_bet("ann", 1, "10", "player_pair"),
        BetError,
        "not offered at live",
    )


# -- Mistakes ------------------------------------------------------------------------------------


def test_live_mistake_between_hands_pushes_the_hand() -> None:
    game = deal(PRESET, "QD 10S QC 7S", ("ann", 1, "10"), ("ann", 1, "10", "perfect_pairs"))
    assert [r.net for r in game.results] == [Decimal("60")]
    game.void("a mistake between hands")
    assert_money(
        game,
        [("ann", 1, None, "perfect_pairs", "void", "0"), ("ann", 1, 1, "main", "void", "0")],
        {"ann": "0"},
    )


def test_live_table_limits_and_shoe() -> None:
    assert ShuffledShoe.from_rules(find_rules(PRESET), seed=3).remaining == 8 * 52
    game = new_round(PRESET, "9S 7C 10D 10H", ("ann", 1, "4.99"))
    assert_refused(game, game.close_bets, BetError, "under the table minimum 5.00")
    assert_refused(game, lambda: game.place_bet("bob", 2, "2500.01"), BetError, "maximum 2500.00")
    game.place_bet("ann", 1, "0.01")
    game.close_bets()
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "5")], {"ann": "5"})


def test_live_side_bet_needs_the_players_own_blackjack_wager() -> None:
    # "A player may place a Perfect Pairs wager on any box on which the player has placed a
    # Blackjack wager"; "cannot make a 21+3 wager only": bob's side bets on ann's box return.
    game = deal(
        "live",
        "QH KH 9C QS",
        ("ann", 1, "25"),
        ("bob", 1, "5", "perfect_pairs"),
        ("bob", 1, "5", "21+3"),
    )
    returned = [(e.player, e.bet, e.amount) for e in events_of(game, BetReturned)]
    assert returned == [("bob", "perfect_pairs", Decimal("5.00")), ("bob", "21+3", Decimal("5.00"))]
    assert all(result.player == "ann" for result in game.results)


def test_live_the_bet_no_bet_behind_another_players_box() -> None:
    """The Bet: "Select the seat ... and click on your seat position": each player bets on his
    own seat. bob's initial bet on ann's box is refused and changes nothing; a table that takes
    bets behind says so in its rules (``bets_behind``)."""
    refuses_a_bet_behind(PRESET)
