"""Tests for croupier.sidebets: Player Pair, Under/Over 13, Perfect Pairs and 21+3.

Rule tests are named after the rulebook and clause they check: ``rws_v4`` is the RWS
Version 4 rulebook, ``rws_v5`` the RWS Version 5 rulebook, ``live`` the live studio
table's rules (Perfect Pairs and 21+3, which carry no clause numbers).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from math import comb, factorial, perm
from typing import cast

import pytest

from croupier.cards import Card, ForeignCard, Rank, Suit, full_deck, parse_card, parse_cards
from croupier.errors import BetError, CroupierError
from croupier.presets import find_rules
from croupier.rules import Rules, SideBet
from croupier.sidebets import PayLine, SideBetOutcome, SideBetResult, pay_table, settle_side_bet

Outcome = SideBetOutcome

#: RWS v4 4.1 and v5 4.1.1 pay tables: Player Pair 11 to 1, Under 13 and Over 13 1 to 1.
RWS_V4 = Rules(
    name="rws-v4",
    player_pair_pays=Fraction(11),
    under_13_pays=Fraction(1),
    over_13_pays=Fraction(1),
)
RWS_V5 = RWS_V4.replace(name="rws-v5")

#: Live pay tables: Perfect Pairs 25/12/6, 21+3 100/40/30/10/5 (to 1).
LIVE = Rules(
    name="live",
    perfect_pairs_pays=(Fraction(25), Fraction(12), Fraction(6)),
    twenty_one_plus_three_pays=(
        Fraction(100),
        Fraction(40),
        Fraction(30),
        Fraction(10),
        Fraction(5),
    ),
)

#: Every side bet offered, for counting outcomes over whole decks.
EVERY_SIDE_BET = Rules(
    name="every-side-bet",
    player_pair_pays=RWS_V4.player_pair_pays,
    under_13_pays=RWS_V4.under_13_pays,
    over_13_pays=RWS_V4.over_13_pays,
    perfect_pairs_pays=LIVE.perfect_pairs_pays,
    twenty_one_plus_three_pays=LIVE.twenty_one_plus_three_pays,
)

#: The rank runs that make a straight: A-2-3 up to Q-K-A (the Ace low or high).
STRAIGHT_RUNS = 12


def settle(side_bet: SideBet, rules: Rules, first_two: str, dealer_up: str = "5C") -> SideBetResult:
    """Settle a side bet from card texts."""
    return settle_side_bet(side_bet, rules, parse_cards(first_two), parse_card(dealer_up))


def twenty_one_plus_three(cards: str, rules: Rules = LIVE) -> SideBetResult:
    """Settle 21+3 on three card texts: the player's two, then the dealer's up card."""
    first, second, dealer_up = parse_cards(cards)
    return settle_side_bet(SideBet.TWENTY_ONE_PLUS_THREE, rules, [first, second], dealer_up)


# --- Player Pair: RWS v4 3.7.1, RWS v5 3.13.1 --------------------------------------


def test_rws_v4_3_7_1_same_picture_type_is_a_pair() -> None:
    result = settle(SideBet.PLAYER_PAIR, RWS_V4, "KS KD")
    assert result == SideBetResult(SideBet.PLAYER_PAIR, Outcome.PAIR, Fraction(11))
    assert result.wins


@pytest.mark.parametrize("first_two", ["7S 7S", "7S 7C", "7H 7D", "7S 7H", "7D 7C"])
def test_rws_v4_3_7_1_pair_regardless_of_colour_and_suit(first_two: str) -> None:
    result = settle(SideBet.PLAYER_PAIR, RWS_V4, first_two)
    assert (result.outcome, result.pays) == (Outcome.PAIR, Fraction(11))


@pytest.mark.parametrize("first_two", ["AS AH", "2C 2D", "10H 10S", "JS JD", "QC QH"])
def test_rws_v4_3_7_1_same_number_or_picture_type_is_a_pair(first_two: str) -> None:
    assert settle(SideBet.PLAYER_PAIR, RWS_V4, first_two).wins


@pytest.mark.parametrize("first_two", ["10S KS", "KD 10D", "JH QH", "QC KC", "10C JC"])
def test_rws_v4_3_7_1_ten_and_king_are_not_a_pair(first_two: str) -> None:
    # Equal points are not enough: the rule asks for the same number or picture type.
    result = settle(SideBet.PLAYER_PAIR, RWS_V4, first_two)
    assert (result.outcome, result.pays, result.wins) == (Outcome.NOTHING, None, False)


def test_rws_v4_3_7_1_different_cards_lose() -> None:
    result = settle(SideBet.PLAYER_PAIR, RWS_V4, "9S 8S")
    assert result == SideBetResult(SideBet.PLAYER_PAIR, Outcome.NOTHING, None)


def test_rws_v4_4_1_player_pair_pays_11_to_1() -> None:
    assert settle(SideBet.PLAYER_PAIR, RWS_V4, "4C 4H").pays == Fraction(11)


def test_rws_v5_3_13_1_player_pair_regardless_of_colour_and_suit() -> None:
    assert settle(SideBet.PLAYER_PAIR, RWS_V5, "QH QS").pays == Fraction(11)
    assert not settle(SideBet.PLAYER_PAIR, RWS_V5, "QH KH").wins


def test_rws_v5_4_1_1_player_pair_pays_11_to_1() -> None:
    assert settle(SideBet.PLAYER_PAIR, RWS_V5, "AS AS").pays == Fraction(11)


# --- Under/Over 13: RWS v4 3.7.2, RWS v5 1.20, 1.35 and 3.13.2 ------------------------------


@pytest.mark.parametrize(
    ("first_two", "points"),
    [("AS AD", 2), ("AS 2D", 3), ("5H 6C", 11), ("2S 10D", 12), ("KH 2C", 12), ("6S 6D", 12)],
)
def test_rws_v4_3_7_2_a_under_13_wins_below_13(first_two: str, points: int) -> None:
    assert sum(card.points for card in parse_cards(first_two)) == points
    under = settle(SideBet.UNDER_13, RWS_V4, first_two)
    over = settle(SideBet.OVER_13, RWS_V4, first_two)
    assert under == SideBetResult(SideBet.UNDER_13, Outcome.UNDER_13, Fraction(1))
    assert over == SideBetResult(SideBet.OVER_13, Outcome.UNDER_13, None)


@pytest.mark.parametrize("first_two", ["7S 7D", "9H 5C", "KS 4D", "QH JC", "10S 10D", "9S 9D"])
def test_rws_v4_3_7_2_b_over_13_wins_above_13(first_two: str) -> None:
    under = settle(SideBet.UNDER_13, RWS_V4, first_two)
    over = settle(SideBet.OVER_13, RWS_V4, first_two)
    assert over == SideBetResult(SideBet.OVER_13, Outcome.OVER_13, Fraction(1))
    assert under == SideBetResult(SideBet.UNDER_13, Outcome.OVER_13, None)


@pytest.mark.parametrize("first_two", ["6S 7D", "7H 6H", "KS 3D", "3C JH", "9C 4C", "8D 5S"])
def test_rws_v4_3_7_2_c_thirteen_loses_both(first_two: str) -> None:
    for side_bet in (SideBet.UNDER_13, SideBet.OVER_13):
        result = settle(side_bet, RWS_V4, first_two)
        assert (result.outcome, result.pays, result.wins) == (Outcome.THIRTEEN, None, False)


def test_rws_v4_3_7_2_every_ace_counts_one() -> None:
    # A pair of Aces is 2 points, never 12; an Ace and a 2 is 3, never 13.
    assert settle(SideBet.UNDER_13, RWS_V4, "AS AH").outcome is Outcome.UNDER_13
    assert settle(SideBet.OVER_13, RWS_V4, "AC 2D").outcome is Outcome.UNDER_13


def test_rws_v4_3_7_2_picture_cards_count_ten() -> None:
    assert settle(SideBet.UNDER_13, RWS_V4, "JS 3D").outcome is Outcome.THIRTEEN
    assert settle(SideBet.OVER_13, RWS_V4, "QS 4D").outcome is Outcome.OVER_13
    assert settle(SideBet.UNDER_13, RWS_V4, "KS 2D").outcome is Outcome.UNDER_13


def test_rws_v4_4_1_under_and_over_13_pay_1_to_1() -> None:
    assert settle(SideBet.UNDER_13, RWS_V4, "2S 3D").pays == Fraction(1)
    assert settle(SideBet.OVER_13, RWS_V4, "KS KD").pays == Fraction(1)


def test_rws_v5_1_35_under_13_is_less_than_13_points() -> None:
    assert settle(SideBet.UNDER_13, RWS_V5, "4S 8D").pays == Fraction(1)


def test_rws_v5_1_20_over_13_is_more_than_13_points() -> None:
    assert settle(SideBet.OVER_13, RWS_V5, "4S 10D").pays == Fraction(1)


@pytest.mark.parametrize("first_two", ["AS KD", "10H AC", "AD JS", "QC AH"])
def test_rws_v5_3_13_2_blackjack_is_under_13(first_two: str) -> None:
    under = settle(SideBet.UNDER_13, RWS_V5, first_two)
    over = settle(SideBet.OVER_13, RWS_V5, first_two)
    assert under == SideBetResult(SideBet.UNDER_13, Outcome.UNDER_13, Fraction(1))
    assert over == SideBetResult(SideBet.OVER_13, Outcome.UNDER_13, None)


def test_rws_v5_3_13_2_c_thirteen_loses_both() -> None:
    assert not settle(SideBet.UNDER_13, RWS_V5, "10S 3D").wins
    assert not settle(SideBet.OVER_13, RWS_V5, "10S 3D").wins


# --- Perfect Pairs: live ----------------------------------------------------------------------


def test_live_perfect_pairs_perfect_pair_pays_25() -> None:
    # "An identical pair - example K of diamonds + K of diamonds" (needs two decks or more).
    result = settle(SideBet.PERFECT_PAIRS, LIVE, "KD KD")
    assert result == SideBetResult(SideBet.PERFECT_PAIRS, Outcome.PERFECT_PAIR, Fraction(25))


@pytest.mark.parametrize("first_two", ["6C 6S", "6S 6C", "6H 6D", "6D 6H"])
def test_live_perfect_pairs_coloured_pair_pays_12(first_two: str) -> None:
    # "2 same cards of the same colour but of different suits - example 6 of clubs + 6 of spades"
    result = settle(SideBet.PERFECT_PAIRS, LIVE, first_two)
    assert result == SideBetResult(SideBet.PERFECT_PAIRS, Outcome.COLOURED_PAIR, Fraction(12))


@pytest.mark.parametrize("first_two", ["2C 2H", "2H 2C", "2S 2D", "2D 2S", "2S 2H", "2D 2C"])
def test_live_perfect_pairs_mixed_pair_pays_6(first_two: str) -> None:
    # "1 red suited card and 1 black suited card - example 2 of clubs + 2 of hearts"
    result = settle(SideBet.PERFECT_PAIRS, LIVE, first_two)
    assert result == SideBetResult(SideBet.PERFECT_PAIRS, Outcome.MIXED_PAIR, Fraction(6))


@pytest.mark.parametrize("first_two", ["10S KS", "JD QD", "KH 10C", "5H 9H", "AS 2S"])
def test_live_perfect_pairs_not_a_pair_loses(first_two: str) -> None:
    result = settle(SideBet.PERFECT_PAIRS, LIVE, first_two)
    assert result == SideBetResult(SideBet.PERFECT_PAIRS, Outcome.NOTHING, None)


def test_live_perfect_pairs_ten_and_king_are_not_a_pair() -> None:
    assert not settle(SideBet.PERFECT_PAIRS, LIVE, "10D KD").wins


@pytest.mark.parametrize(("first_suit", "second_suit"), list(itertools.product(Suit, Suit)))
def test_live_perfect_pairs_every_suit_combination(first_suit: Suit, second_suit: Suit) -> None:
    first, second = Card(Rank.EIGHT, first_suit), Card(Rank.EIGHT, second_suit)
    result = settle_side_bet(SideBet.PERFECT_PAIRS, LIVE, [first, second], parse_card("5C"))
    if first_suit is second_suit:
        expected = Outcome.PERFECT_PAIR
    elif first_suit.is_red == second_suit.is_red:
        expected = Outcome.COLOURED_PAIR
    else:
        expected = Outcome.MIXED_PAIR
    assert result.outcome is expected


# --- 21+3: live -------------------------------------------------------------------------------


def test_live_21_plus_3_flush_pays_5() -> None:
    result = twenty_one_plus_three("2H 7H KH")
    assert result == SideBetResult(SideBet.TWENTY_ONE_PLUS_THREE, Outcome.FLUSH, Fraction(5))


def test_live_21_plus_3_straight_pays_10() -> None:
    result = twenty_one_plus_three("9S 10H JD")
    assert result == SideBetResult(SideBet.TWENTY_ONE_PLUS_THREE, Outcome.STRAIGHT, Fraction(10))


def test_live_21_plus_3_three_of_a_kind_pays_30() -> None:
    result = twenty_one_plus_three("6S 6H 6D")
    assert (result.outcome, result.pays) == (Outcome.THREE_OF_A_KIND, Fraction(30))


def test_live_21_plus_3_straight_flush_pays_40() -> None:
    # The rulebook's example: "spade of 10, Jack, Queen".
    result = twenty_one_plus_three("10S JS QS")
    assert (result.outcome, result.pays) == (Outcome.STRAIGHT_FLUSH, Fraction(40))


def test_live_21_plus_3_suited_trips_pays_100() -> None:
    # The rulebook's example: "3 Queens of Hearts".
    result = twenty_one_plus_three("QH QH QH")
    assert (result.outcome, result.pays) == (Outcome.SUITED_TRIPS, Fraction(100))


@pytest.mark.parametrize("cards", ["AS 2H 3D", "3D AS 2H", "2C 3C AD"])
def test_live_21_plus_3_ace_two_three_is_a_straight(cards: str) -> None:
    assert twenty_one_plus_three(cards).outcome is Outcome.STRAIGHT


@pytest.mark.parametrize("cards", ["QS KH AD", "AD KH QS", "KC AC QD"])
def test_live_21_plus_3_queen_king_ace_is_a_straight(cards: str) -> None:
    assert twenty_one_plus_three(cards).outcome is Outcome.STRAIGHT


def test_live_21_plus_3_ace_straights_in_one_suit_are_straight_flushes() -> None:
    assert twenty_one_plus_three("AH 2H 3H").outcome is Outcome.STRAIGHT_FLUSH
    assert twenty_one_plus_three("QD KD AD").outcome is Outcome.STRAIGHT_FLUSH


@pytest.mark.parametrize("cards", ["KS AH 2D", "AH 2D KS", "2D KS AH"])
def test_live_21_plus_3_king_ace_two_does_not_wrap(cards: str) -> None:
    result = twenty_one_plus_three(cards)
    assert (result.outcome, result.pays) == (Outcome.NOTHING, None)


def test_live_21_plus_3_king_ace_two_suited_is_only_a_flush() -> None:
    assert twenty_one_plus_three("KS AS 2S").outcome is Outcome.FLUSH


@pytest.mark.parametrize(
    ("cards", "best", "pays"),
    [
        # Suited trips is also three of a kind and a flush.
        ("9S 9S 9S", Outcome.SUITED_TRIPS, Fraction(100)),
        # A straight flush is also a straight and a flush.
        ("4D 5D 6D", Outcome.STRAIGHT_FLUSH, Fraction(40)),
        # A three of a kind with two cards of one suit is no flush at all.
        ("9S 9S 9H", Outcome.THREE_OF_A_KIND, Fraction(30)),
    ],
)
def test_live_21_plus_3_only_the_best_pays(cards: str, best: Outcome, pays: Fraction) -> None:
    # "A player will only be awarded for one winning event."
    result = twenty_one_plus_three(cards)
    assert result == SideBetResult(SideBet.TWENTY_ONE_PLUS_THREE, best, pays)


@pytest.mark.parametrize("cards", ["2S 7H KD", "AS AH 5D", "10C 10D 2C", "AS 3H 5D"])
def test_live_21_plus_3_nothing_loses(cards: str) -> None:
    result = twenty_one_plus_three(cards)
    assert (result.outcome, result.pays, result.wins) == (Outcome.NOTHING, None, False)


def test_live_21_plus_3_counts_the_dealer_up_card() -> None:
    first_two = "8C 9C"
    assert twenty_one_plus_three(f"{first_two} 10C").outcome is Outcome.STRAIGHT_FLUSH
    assert twenty_one_plus_three(f"{first_two} 10H").outcome is Outcome.STRAIGHT
    assert twenty_one_plus_three(f"{first_two} 2C").outcome is Outcome.FLUSH
    assert twenty_one_plus_three(f"{first_two} 2H").outcome is Outcome.NOTHING


@pytest.mark.parametrize("cards", ["7H 8H 9H", "JS JD JS", "2C 4C 9C", "KS QD JH", "3S 8D QH"])
def test_live_21_plus_3_order_of_the_three_cards_does_not_matter(cards: str) -> None:
    orders = itertools.permutations(cards.split())
    outcomes = {twenty_one_plus_three(" ".join(order)).outcome for order in orders}
    assert len(outcomes) == 1


# --- Pay tables, errors and what each bet looks at --------------------------------------------


def test_custom_pay_tables_are_used() -> None:
    rules = Rules(
        name="custom-tables",
        player_pair_pays=Fraction(25, 2),
        under_13_pays=Fraction(9, 10),
        over_13_pays=Fraction(7, 8),
        perfect_pairs_pays=(Fraction(30), Fraction(10), Fraction(5)),
        twenty_one_plus_three_pays=(
            Fraction(90),
            Fraction(35),
            Fraction(33),
            Fraction(9),
            Fraction(3),
        ),
    )
    assert settle(SideBet.PLAYER_PAIR, rules, "3S 3D").pays == Fraction(25, 2)
    assert settle(SideBet.UNDER_13, rules, "3S 3D").pays == Fraction(9, 10)
    assert settle(SideBet.OVER_13, rules, "9S 9D").pays == Fraction(7, 8)
    assert settle(SideBet.PERFECT_PAIRS, rules, "3S 3S").pays == Fraction(30)
    assert settle(SideBet.PERFECT_PAIRS, rules, "3S 3C").pays == Fraction(10)
    assert settle(SideBet.PERFECT_PAIRS, rules, "3S 3D").pays == Fraction(5)
    assert twenty_one_plus_three("3S 3S 3S", rules).pays == Fraction(90)
    assert twenty_one_plus_three("3S 4S 5S", rules).pays == Fraction(35)
    assert twenty_one_plus_three("3S 3H 3D", rules).pays == Fraction(33)
    assert twenty_one_plus_three("3S 4H 5D", rules).pays == Fraction(9)
    assert twenty_one_plus_three("3S 9S 5S", rules).pays == Fraction(3)


@pytest.mark.parametrize("side_bet", list(SideBet))
def test_side_bet_not_offered_raises_naming_it_and_the_rules(side_bet: SideBet) -> None:
    with pytest.raises(BetError, match=rf"{re.escape(side_bet.value)}\b.*'plain'"):
        settle(side_bet, Rules(name="plain"), "AS 2S", "3S")


def test_each_rulebook_offers_only_its_own_side_bets() -> None:
    with pytest.raises(BetError, match=r"21\+3.*'rws-v5'"):
        settle(SideBet.TWENTY_ONE_PLUS_THREE, RWS_V5, "AS 2S", "3S")
    with pytest.raises(BetError, match=r"perfect_pairs.*'rws-v4'"):
        settle(SideBet.PERFECT_PAIRS, RWS_V4, "AS AS")
    with pytest.raises(BetError, match=r"player_pair.*'live'"):
        settle(SideBet.PLAYER_PAIR, LIVE, "AS AS")
    with pytest.raises(BetError, match=r"over_13.*'live'"):
        settle(SideBet.OVER_13, LIVE, "KS QS")


def test_a_side_bet_offered_alone_settles_without_the_others() -> None:
    rules = Rules(name="over-only", over_13_pays=Fraction(1))
    assert settle(SideBet.OVER_13, rules, "KS QS").wins
    with pytest.raises(BetError, match="under_13"):
        settle(SideBet.UNDER_13, rules, "2S 3S")


@pytest.mark.parametrize("first_two", ["", "AS", "AS AD AH", "AS AD AH AC"])
@pytest.mark.parametrize("side_bet", list(SideBet))
def test_first_two_must_be_two_cards(side_bet: SideBet, first_two: str) -> None:
    count = len(first_two.split())
    with pytest.raises(
        BetError, match=rf"{re.escape(side_bet.value)}.*first two cards, not {count}"
    ):
        settle(side_bet, EVERY_SIDE_BET, first_two)


def test_a_foreign_card_is_refused() -> None:
    joker = cast(Card, ForeignCard("JK"))
    with pytest.raises(BetError, match="JK"):
        settle_side_bet(SideBet.PLAYER_PAIR, RWS_V4, [joker, parse_card("AS")], parse_card("5C"))
    with pytest.raises(BetError, match="JK"):
        settle_side_bet(SideBet.TWENTY_ONE_PLUS_THREE, LIVE, parse_cards("AS 2S"), joker)


def test_unknown_side_bet_is_refused() -> None:
    with pytest.raises(BetError, match=r"unknown side bet 'royal_match'.*21\+3"):
        settle(cast(SideBet, "royal_match"), EVERY_SIDE_BET, "AS AD")


def test_side_bet_given_by_its_key() -> None:
    result = settle(cast(SideBet, "21+3"), LIVE, "AS 2D", "3C")
    assert result.side_bet is SideBet.TWENTY_ONE_PLUS_THREE
    assert result.outcome is Outcome.STRAIGHT


def test_bet_error_is_a_croupier_error_and_a_value_error() -> None:
    with pytest.raises(BetError) as refused:
        settle(SideBet.PLAYER_PAIR, Rules(), "AS AD")
    assert isinstance(refused.value, CroupierError)
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize(
    "side_bet",
    [SideBet.PLAYER_PAIR, SideBet.UNDER_13, SideBet.OVER_13, SideBet.PERFECT_PAIRS],
)
def test_two_card_side_bets_ignore_the_dealer_up_card(side_bet: SideBet) -> None:
    for first_two in ("KS KS", "KS KH", "KS KC", "9S 4D", "AS KD", "8S 8D"):
        results = {settle(side_bet, EVERY_SIDE_BET, first_two, str(up)) for up in full_deck()}
        assert len(results) == 1


def test_result_is_frozen() -> None:
    result = settle(SideBet.PLAYER_PAIR, RWS_V4, "AS AD")
    with pytest.raises(AttributeError):
        result.pays = Fraction(12)  # type: ignore[misc]


# --- Pay tables as players read them ---------------------------------------------------------


def test_rws_v4_4_1_pay_table_player_pair_11_under_and_over_13_1() -> None:
    assert [(line.outcome, line.pays) for line in pay_table(SideBet.PLAYER_PAIR, RWS_V4)] == [
        (Outcome.PAIR, Fraction(11))
    ]
    assert [(line.outcome, line.pays) for line in pay_table(SideBet.UNDER_13, RWS_V4)] == [
        (Outcome.UNDER_13, Fraction(1))
    ]
    assert [(line.outcome, line.pays) for line in pay_table(SideBet.OVER_13, RWS_V4)] == [
        (Outcome.OVER_13, Fraction(1))
    ]


def test_rws_v5_4_1_1_pay_table_of_the_preset() -> None:
    rules = find_rules("rws-v5")
    pays = {bet: [line.pays for line in pay_table(bet, rules)] for bet in rules.side_bets_offered()}
    assert pays == {
        SideBet.PLAYER_PAIR: [Fraction(11)],
        SideBet.UNDER_13: [Fraction(1)],
        SideBet.OVER_13: [Fraction(1)],
    }


def test_live_perfect_pairs_pay_table_perfect_25_coloured_12_mixed_6() -> None:
    assert pay_table(SideBet.PERFECT_PAIRS, find_rules("live")) == (
        PayLine(Outcome.PERFECT_PAIR, "Perfect pair: same rank and suit", Fraction(25)),
        PayLine(
            Outcome.COLOURED_PAIR,
            "Coloured pair: same rank and colour, different suits",
            Fraction(12),
        ),
        PayLine(
            Outcome.MIXED_PAIR, "Mixed pair: same rank, one red card and one black", Fraction(6)
        ),
    )


def test_live_21_plus_3_pay_table_best_first() -> None:
    lines = pay_table(SideBet.TWENTY_ONE_PLUS_THREE, find_rules("live"))
    assert [(line.outcome, line.pays) for line in lines] == [
        (Outcome.SUITED_TRIPS, Fraction(100)),
        (Outcome.STRAIGHT_FLUSH, Fraction(40)),
        (Outcome.THREE_OF_A_KIND, Fraction(30)),
        (Outcome.STRAIGHT, Fraction(10)),
        (Outcome.FLUSH, Fraction(5)),
    ]
    assert lines[3].description.startswith("Straight: three cards in sequence")


def test_pay_table_follows_custom_pay_fields_in_order() -> None:
    rules = EVERY_SIDE_BET.replace(
        player_pair_pays="25/2", twenty_one_plus_three_pays="90 35 33 9 3"
    )
    assert pay_table(SideBet.PLAYER_PAIR, rules)[0].pays == Fraction(25, 2)
    assert [line.pays for line in pay_table(SideBet.TWENTY_ONE_PLUS_THREE, rules)] == [
        Fraction(n) for n in (90, 35, 33, 9, 3)
    ]


@pytest.mark.parametrize("side_bet", list(SideBet))
def test_pay_table_lists_exactly_what_settlement_pays(side_bet: SideBet) -> None:
    """Every two cards of a shoe (a card may come twice) against a third of the up cards:
    the winning outcomes and their ratios are the pay table's lines, nothing else."""
    deck = full_deck()
    paid = {
        (result.outcome, result.pays)
        for first_two in itertools.combinations_with_replacement(deck, 2)
        for up in deck[::3]
        for result in [settle_side_bet(side_bet, EVERY_SIDE_BET, first_two, up)]
        if result.wins
    }
    lines = pay_table(side_bet, EVERY_SIDE_BET)
    assert paid == {(line.outcome, line.pays) for line in lines}
    assert len({line.description for line in lines}) == len(lines)


@pytest.mark.parametrize("side_bet", list(SideBet))
def test_pay_table_of_a_side_bet_not_offered_raises_naming_it_and_the_rules(
    side_bet: SideBet,
) -> None:
    with pytest.raises(BetError, match=rf"pays of side bet {re.escape(side_bet.value)}\b.*'plain'"):
        pay_table(side_bet, Rules(name="plain"))


def test_pay_table_by_key_and_unknown_side_bet() -> None:
    assert pay_table(cast(SideBet, "perfect_pairs"), LIVE)[0].pays == Fraction(25)
    with pytest.raises(BetError, match=r"unknown side bet 'royal_match'"):
        pay_table(cast(SideBet, "royal_match"), EVERY_SIDE_BET)


def test_pay_line_is_frozen() -> None:
    line = pay_table(SideBet.PLAYER_PAIR, RWS_V4)[0]
    with pytest.raises(AttributeError):
        line.pays = Fraction(12)  # type: ignore[misc]


# --- Exhaustive counts against combinatorics ----------------------------------------------------


def test_single_deck_21_plus_3_counts_match_combinatorics() -> None:
    # Every ordered (first, second, dealer up) triple of one deck: 52 * 51 * 50.
    deck = full_deck()
    counts = Counter(
        settle_side_bet(SideBet.TWENTY_ONE_PLUS_THREE, LIVE, (first, second), up).outcome
        for first, second, up in itertools.permutations(deck, 3)
    )
    orders = factorial(3)  # each set of three cards comes in 3! orders
    suited_trips = 0  # one deck holds only one card of each rank and suit
    three_of_a_kind = 13 * 4 * 3 * 2  # a rank, then 3 of its 4 suits in order
    straight_flush = STRAIGHT_RUNS * 4 * orders  # a run and a suit
    straight = STRAIGHT_RUNS * (4**3 - 4) * orders  # a run, suits not all alike
    flush = 4 * (comb(13, 3) - STRAIGHT_RUNS) * orders  # a suit, 3 ranks that are no run
    total = 52 * 51 * 50
    expected = {
        Outcome.THREE_OF_A_KIND: three_of_a_kind,
        Outcome.STRAIGHT_FLUSH: straight_flush,
        Outcome.STRAIGHT: straight,
        Outcome.FLUSH: flush,
        Outcome.NOTHING: total - three_of_a_kind - straight_flush - straight - flush,
    }
    assert suited_trips == counts[Outcome.SUITED_TRIPS] == 0
    assert counts == expected
    assert (three_of_a_kind, straight_flush, straight, flush) == (312, 288, 4320, 6576)
    assert counts.total() == total == 132_600


def _ordered_multideck_counts(decks: int, size: int, side_bet: SideBet) -> Counter[Outcome]:
    """Outcomes over every ordered draw of ``size`` cards from ``decks`` decks.

    Each multiset of card faces stands for all its physical draws: its distinct orders
    (size! / product of repeats!) times the ways to pick the copies (decks falling repeats).
    The two-card side bets and 21+3 do not depend on the order of their cards.
    """
    counts: Counter[Outcome] = Counter()
    for faces in itertools.combinations_with_replacement(full_deck(), size):
        weight = factorial(size)
        for repeats in Counter(faces).values():
            weight = weight // factorial(repeats) * perm(decks, repeats)
        if weight:
            first, second, *rest = faces
            up = rest[0] if rest else first
            counts[settle_side_bet(side_bet, EVERY_SIDE_BET, (first, second), up).outcome] += weight
    return counts


def _expected_21_plus_3(decks: int) -> dict[Outcome, int]:
    """Ordered 21+3 counts for a shoe of ``decks`` decks, by formula."""
    orders = factorial(3)
    suited_trips = 52 * perm(decks, 3)  # three copies of one face
    same_rank = 13 * perm(4 * decks, 3)  # three of the 4 * decks cards of one rank
    straight_flush = STRAIGHT_RUNS * 4 * decks**3 * orders
    straight = STRAIGHT_RUNS * (4**3 - 4) * decks**3 * orders
    same_suit = 4 * perm(13 * decks, 3)  # three of the 13 * decks cards of one suit
    counts = {
        Outcome.SUITED_TRIPS: suited_trips,
        Outcome.STRAIGHT_FLUSH: straight_flush,
        Outcome.THREE_OF_A_KIND: same_rank - suited_trips,
        Outcome.STRAIGHT: straight,
        Outcome.FLUSH: same_suit - straight_flush - suited_trips,
    }
    counts[Outcome.NOTHING] = perm(52 * decks, 3) - sum(counts.values())
    return counts


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_multideck_21_plus_3_counts_match_combinatorics(decks: int) -> None:
    counts = _ordered_multideck_counts(decks, 3, SideBet.TWENTY_ONE_PLUS_THREE)
    expected = _expected_21_plus_3(decks)
    assert counts == {outcome: count for outcome, count in expected.items() if count}


def test_six_deck_21_plus_3_counts_match_published_combinations() -> None:
    # The Wizard of Odds' 21+3 analysis ("Version 3", six decks) lists unordered
    # combinations out of comb(312, 3) = 5,013,320: suited three of a kind 1,040,
    # three of a kind 25,272, straight flush 10,368, straight 155,520, flush 292,896.
    published = {
        Outcome.SUITED_TRIPS: 1_040,
        Outcome.THREE_OF_A_KIND: 25_272,
        Outcome.STRAIGHT_FLUSH: 10_368,
        Outcome.STRAIGHT: 155_520,
        Outcome.FLUSH: 292_896,
        Outcome.NOTHING: 4_528_224,
    }
    counts = _ordered_multideck_counts(6, 3, SideBet.TWENTY_ONE_PLUS_THREE)
    assert {outcome: count // factorial(3) for outcome, count in counts.items()} == published
    assert sum(published.values()) == comb(312, 3)


def test_single_deck_pair_counts_match_combinatorics() -> None:
    deck = full_deck()
    pairs = list(itertools.permutations(deck, 2))
    player_pair = Counter(
        settle_side_bet(SideBet.PLAYER_PAIR, RWS_V4, pair, pair[0]).outcome for pair in pairs
    )
    perfect_pairs = Counter(
        settle_side_bet(SideBet.PERFECT_PAIRS, LIVE, pair, pair[0]).outcome for pair in pairs
    )
    total = 52 * 51
    same_rank = 13 * 4 * 3  # a rank, then 2 of its 4 suits in order
    assert player_pair == {Outcome.PAIR: same_rank, Outcome.NOTHING: total - same_rank}
    coloured = 13 * 2 * 2 * 1  # a rank, a colour, then its 2 suits in order
    mixed = 13 * 2 * 2 * 2  # a rank, red then black or black then red, a suit of each
    assert perfect_pairs == {
        Outcome.COLOURED_PAIR: coloured,
        Outcome.MIXED_PAIR: mixed,
        Outcome.NOTHING: total - same_rank,
    }
    assert coloured + mixed == same_rank == 156


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_multideck_perfect_pairs_counts_match_combinatorics(decks: int) -> None:
    counts = _ordered_multideck_counts(decks, 2, SideBet.PERFECT_PAIRS)
    perfect = 52 * perm(decks, 2)  # two copies of one face
    coloured = 52 * decks * decks  # any card, then a copy of its rank in the other suit
    mixed = 52 * decks * 2 * decks  # any card, then a copy of its rank in either other-colour suit
    expected = {
        Outcome.PERFECT_PAIR: perfect,
        Outcome.COLOURED_PAIR: coloured,
        Outcome.MIXED_PAIR: mixed,
        Outcome.NOTHING: perm(52 * decks, 2) - perfect - coloured - mixed,
    }
    assert counts == {outcome: count for outcome, count in expected.items() if count}


def _ordered_point_pairs(points_wanted: Iterable[int]) -> int:
    """Ordered pairs of one deck's cards whose points (Ace 1, pictures 10) sum as wanted."""
    cards_with_points = {points: 4 for points in range(1, 10)} | {10: 16}
    return sum(
        cards_with_points[first] * (cards_with_points[second] - (first == second))
        for total in points_wanted
        for first in cards_with_points
        for second in [total - first]
        if second in cards_with_points
    )


def test_single_deck_under_over_13_counts_match_combinatorics() -> None:
    deck = full_deck()
    counts = Counter(
        settle_side_bet(SideBet.UNDER_13, RWS_V4, pair, pair[0]).outcome
        for pair in itertools.permutations(deck, 2)
    )
    # 13 is 3 + ten-value (4 * 16 each way) or 4 + 9, 5 + 8, 6 + 7 (4 * 4 each way).
    thirteen = 2 * 4 * 16 + 3 * 2 * 4 * 4
    assert thirteen == _ordered_point_pairs([13]) == 224
    assert counts == {
        Outcome.UNDER_13: _ordered_point_pairs(range(2, 13)),
        Outcome.THIRTEEN: thirteen,
        Outcome.OVER_13: _ordered_point_pairs(range(14, 21)),
    }
    assert counts.total() == 52 * 51
