"""Tests for croupier.analysis.sidebets: the exact math of the side bets.

The analysis is held three ways: card by card against the engine (every ordered draw
of a small shoe through ``settle_side_bet``), against combinatorial formulas written
out by hand for every shoe from 1 to 8 decks, and against figures published for the
same bets, each test citing its page and the rounding the page uses.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cache
from math import comb

import pytest

from croupier.analysis.sidebets import (
    OutcomeLine,
    SideBetAnalysis,
    analyze_side_bet,
    analyze_side_bets,
)
from croupier.cards import full_deck, parse_card
from croupier.errors import BetError
from croupier.presets import PRESET_NAMES, find_rules
from croupier.rules import Rules, SideBet
from croupier.sidebets import SideBetOutcome, settle_side_bet

Outcome = SideBetOutcome

#: Every side bet offered: the RWS pay tables (Player Pair 11, Under/Over 13 1 to 1) and
#: the live table's (Perfect Pairs 25/12/6, 21+3 100/40/30/10/5).
EVERY_SIDE_BET = Rules(
    name="every-side-bet",
    player_pair_pays=Fraction(11),
    under_13_pays=Fraction(1),
    over_13_pays=Fraction(1),
    perfect_pairs_pays=(Fraction(25), Fraction(12), Fraction(6)),
    twenty_one_plus_three_pays=(
        Fraction(100),
        Fraction(40),
        Fraction(30),
        Fraction(10),
        Fraction(5),
    ),
)

DECKS = range(1, 9)


@cache
def analysis(side_bet: SideBet, decks: int, rules: Rules = EVERY_SIDE_BET) -> SideBetAnalysis:
    """The analysis of a side bet under ``rules`` with its deck count set to ``decks``."""
    return analyze_side_bet(side_bet, rules.replace(decks=decks))


def probabilities(result: SideBetAnalysis) -> dict[Outcome, Fraction]:
    """Each outcome's probability, outcomes with none included."""
    return {line.outcome: line.probability for line in result.lines}


def rounded(value: Fraction, places: int) -> Decimal:
    """An exact value rounded half up to ``places`` decimals, as published tables round."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def house_edge_percent(result: SideBetAnalysis, places: int) -> Decimal:
    """The house edge in per cent, rounded to ``places`` decimals."""
    return rounded(-result.ev * 100, places)


# --- Shape of the analysis ------------------------------------------------------------------


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("side_bet", list(SideBet))
def test_probabilities_sum_to_exactly_one(side_bet: SideBet, decks: int) -> None:
    result = analysis(side_bet, decks)
    assert sum(line.probability for line in result.lines) == 1
    assert all(0 <= line.probability <= 1 for line in result.lines)
    assert result.side_bet is side_bet
    assert result.decks == decks


@pytest.mark.parametrize(
    ("side_bet", "outcomes"),
    [
        (SideBet.PLAYER_PAIR, [Outcome.PAIR, Outcome.NOTHING]),
        (SideBet.UNDER_13, [Outcome.UNDER_13, Outcome.OVER_13, Outcome.THIRTEEN]),
        (SideBet.OVER_13, [Outcome.OVER_13, Outcome.UNDER_13, Outcome.THIRTEEN]),
        (
            SideBet.PERFECT_PAIRS,
            [Outcome.PERFECT_PAIR, Outcome.COLOURED_PAIR, Outcome.MIXED_PAIR, Outcome.NOTHING],
        ),
        (
            SideBet.TWENTY_ONE_PLUS_THREE,
            [
                Outcome.SUITED_TRIPS,
                Outcome.STRAIGHT_FLUSH,
                Outcome.THREE_OF_A_KIND,
                Outcome.STRAIGHT,
                Outcome.FLUSH,
                Outcome.NOTHING,
            ],
        ),
    ],
)
def test_lines_list_paying_outcomes_in_pay_table_order_then_losing(
    side_bet: SideBet, outcomes: list[Outcome]
) -> None:
    result = analysis(side_bet, 8)
    assert [line.outcome for line in result.lines] == outcomes
    paying = [line for line in result.lines if line.pays is not None]
    assert [line.outcome for line in paying] == list(result.hit_frequency)
    assert all(line.pays is None for line in result.lines[len(paying) :])


def test_pays_come_from_the_pay_table() -> None:
    result = analysis(SideBet.TWENTY_ONE_PLUS_THREE, 6)
    pay_table = EVERY_SIDE_BET.twenty_one_plus_three_pays
    assert pay_table is not None
    assert [line.pays for line in result.lines] == [*pay_table, None]
    custom = EVERY_SIDE_BET.replace(player_pair_pays="25/2")
    assert analysis(SideBet.PLAYER_PAIR, 6, custom).lines[0].pays == Fraction(25, 2)


def test_impossible_outcomes_are_listed_with_probability_zero() -> None:
    # One deck holds one card of each rank and suit: no perfect pair, no suited trips.
    assert probabilities(analysis(SideBet.PERFECT_PAIRS, 1))[Outcome.PERFECT_PAIR] == 0
    assert probabilities(analysis(SideBet.TWENTY_ONE_PLUS_THREE, 1))[Outcome.SUITED_TRIPS] == 0
    # Two decks hold two of each card, never three.
    assert probabilities(analysis(SideBet.TWENTY_ONE_PLUS_THREE, 2))[Outcome.SUITED_TRIPS] == 0


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("side_bet", list(SideBet))
def test_ev_rtp_and_variance_follow_from_the_lines(side_bet: SideBet, decks: int) -> None:
    result = analysis(side_bet, decks)
    nets = [(line.probability, line.pays if line.pays is not None else -1) for line in result.lines]
    ev = sum((p * net for p, net in nets), Fraction(0))
    assert result.ev == ev < 0
    assert result.rtp == 1 + ev
    assert result.variance == sum((p * (net - ev) ** 2 for p, net in nets), Fraction(0))
    assert result.win_probability == sum(result.hit_frequency.values())


@pytest.mark.parametrize("decks", DECKS)
def test_player_pair_variance_is_that_of_a_two_outcome_bet(decks: int) -> None:
    # One win of 11 or one loss of 1: variance p (1 - p) (11 + 1)^2.
    result = analysis(SideBet.PLAYER_PAIR, decks)
    p = result.win_probability
    assert result.variance == p * (1 - p) * 12**2


def test_to_json_gives_numbers_and_exact_fractions() -> None:
    result = analysis(SideBet.PERFECT_PAIRS, 8)
    data = json.loads(json.dumps(result.to_json()))
    assert data["side_bet"] == "perfect_pairs"
    assert data["decks"] == 8
    assert Fraction(data["ev_exact"]) == result.ev == Fraction(-17, 415)
    assert data["ev"] == pytest.approx(float(result.ev))
    assert Fraction(data["rtp_exact"]) == result.rtp
    assert Fraction(data["variance_exact"]) == result.variance
    assert Fraction(data["win_probability_exact"]) == result.win_probability
    assert data["hit_frequency_exact"] == {
        "perfect-pair": "7/415",
        "coloured-pair": "8/415",
        "mixed-pair": "16/415",
    }
    assert data["hit_frequency"]["perfect-pair"] == pytest.approx(7 / 415)
    assert [line["outcome"] for line in data["lines"]] == [
        "perfect-pair",
        "coloured-pair",
        "mixed-pair",
        "nothing",
    ]
    assert data["lines"][0]["pays_exact"] == "25"
    assert data["lines"][-1]["pays"] is None
    assert data["lines"][-1]["pays_exact"] is None


def test_outcome_line_net() -> None:
    assert OutcomeLine(Outcome.FLUSH, Fraction(5), Fraction(1, 2)).net == 5
    assert OutcomeLine(Outcome.NOTHING, None, Fraction(1, 2)).net == -1


def test_a_side_bet_not_offered_is_refused_naming_the_rules() -> None:
    with pytest.raises(BetError, match=r"cannot analyse side bet player_pair: .* 'live'"):
        analyze_side_bet(SideBet.PLAYER_PAIR, find_rules("live"))


def test_an_unknown_side_bet_is_refused() -> None:
    with pytest.raises(BetError, match="unknown side bet 'royal_match'"):
        analyze_side_bet("royal_match", EVERY_SIDE_BET)


def test_a_side_bet_given_by_its_key() -> None:
    assert analyze_side_bet("21+3", EVERY_SIDE_BET) == analysis(SideBet.TWENTY_ONE_PLUS_THREE, 8)


# --- Every preset ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_each_preset_analyses_exactly_the_side_bets_it_offers(name: str) -> None:
    rules = find_rules(name)
    analyses = analyze_side_bets(rules)
    assert list(analyses) == [side_bet.value for side_bet in rules.side_bets_offered()]
    for key, result in analyses.items():
        assert result.side_bet.value == key
        assert result.decks == rules.decks
        assert sum(line.probability for line in result.lines) == 1


def test_preset_side_bet_keys() -> None:
    assert list(analyze_side_bets(find_rules("rws-v4"))) == ["player_pair", "under_13", "over_13"]
    assert list(analyze_side_bets(find_rules("rws-v5"))) == ["player_pair", "under_13", "over_13"]
    assert list(analyze_side_bets(find_rules("live"))) == ["perfect_pairs", "21+3"]
    assert analyze_side_bets(find_rules("online-8deck")) == {}
    assert analyze_side_bets(find_rules("casino-to-go")) == {}


def test_live_preset_side_bets_on_its_8_deck_shoe() -> None:
    analyses = analyze_side_bets(find_rules("live"))
    assert analyses["perfect_pairs"].ev == Fraction(-17, 415)
    assert analyses["21+3"].ev == Fraction(-4596, 124085)


def test_rws_preset_side_bets_on_their_8_deck_shoe() -> None:
    analyses = analyze_side_bets(find_rules("rws-v4"))
    assert analyses["player_pair"].ev == Fraction(-43, 415)
    assert analyses["under_13"].ev == Fraction(-543, 5395)
    assert analyses["over_13"].ev == Fraction(-353, 5395)


# --- Card by card: every ordered draw of a small shoe through the engine -------------------


def brute_force(side_bet: SideBet, decks: int) -> dict[Outcome, Fraction]:
    """Settle every ordered draw of the deciding cards from a shoe, card by card."""
    shoe = full_deck() * decks
    counts: Counter[Outcome] = Counter()
    if side_bet is SideBet.TWENTY_ONE_PLUS_THREE:
        for first, second, dealer_up in itertools.permutations(shoe, 3):
            result = settle_side_bet(side_bet, EVERY_SIDE_BET, (first, second), dealer_up)
            counts[result.outcome] += 1
    else:
        # The two-card bets never look at the up card (tests/test_sidebets.py).
        dealer_up = parse_card("5C")
        for first, second in itertools.permutations(shoe, 2):
            result = settle_side_bet(side_bet, EVERY_SIDE_BET, (first, second), dealer_up)
            counts[result.outcome] += 1
    total = counts.total()
    return {outcome: Fraction(count, total) for outcome, count in counts.items()}


@pytest.mark.parametrize(
    ("side_bet", "decks"),
    [
        *((side_bet, decks) for side_bet in list(SideBet)[:4] for decks in (1, 2)),
        (SideBet.TWENTY_ONE_PLUS_THREE, 1),
    ],
)
def test_matches_every_ordered_draw_settled_by_the_engine(side_bet: SideBet, decks: int) -> None:
    exact = probabilities(analysis(side_bet, decks))
    assert brute_force(side_bet, decks) == {
        outcome: probability for outcome, probability in exact.items() if probability
    }


# --- Formulas written out by hand, 1 to 8 decks -------------------------------------------


@pytest.mark.parametrize("decks", DECKS)
def test_player_pair_matches_the_pair_formula(decks: int) -> None:
    # The second card matches the first's rank: 4 * decks - 1 of the 52 * decks - 1 left.
    pair = Fraction(4 * decks - 1, 52 * decks - 1)
    assert probabilities(analysis(SideBet.PLAYER_PAIR, decks)) == {
        Outcome.PAIR: pair,
        Outcome.NOTHING: 1 - pair,
    }
    assert analysis(SideBet.PLAYER_PAIR, decks).ev == 12 * pair - 1


@pytest.mark.parametrize("decks", DECKS)
def test_perfect_pairs_matches_the_pair_formulas(decks: int) -> None:
    # Given the first card, of the 52 * decks - 1 left: decks - 1 copies of it, decks of
    # the other suit of its colour, 2 * decks of the two suits of the other colour.
    left = 52 * decks - 1
    perfect = Fraction(decks - 1, left)
    coloured = Fraction(decks, left)
    mixed = Fraction(2 * decks, left)
    assert probabilities(analysis(SideBet.PERFECT_PAIRS, decks)) == {
        Outcome.PERFECT_PAIR: perfect,
        Outcome.COLOURED_PAIR: coloured,
        Outcome.MIXED_PAIR: mixed,
        Outcome.NOTHING: 1 - perfect - coloured - mixed,
    }


def _two_card_totals(decks: int) -> dict[int, Fraction]:
    """The probability of each two-card point total (Aces 1), from unordered pairs."""
    cards = {points: 4 * decks for points in range(1, 10)} | {10: 16 * decks}
    pairs = comb(52 * decks, 2)
    totals: Counter[int] = Counter()
    for low, high in itertools.combinations_with_replacement(cards, 2):
        ways = comb(cards[low], 2) if low == high else cards[low] * cards[high]
        totals[low + high] += ways
    assert totals.total() == pairs
    return {total: Fraction(ways, pairs) for total, ways in totals.items()}


@pytest.mark.parametrize("decks", DECKS)
def test_under_and_over_13_match_the_point_total_formula(decks: int) -> None:
    totals = _two_card_totals(decks)
    under = sum((p for total, p in totals.items() if total < 13), Fraction(0))
    over = sum((p for total, p in totals.items() if total > 13), Fraction(0))
    expected = {Outcome.UNDER_13: under, Outcome.OVER_13: over, Outcome.THIRTEEN: totals[13]}
    assert probabilities(analysis(SideBet.UNDER_13, decks)) == expected
    assert probabilities(analysis(SideBet.OVER_13, decks)) == expected
    assert analysis(SideBet.UNDER_13, decks).ev == 2 * under - 1
    assert analysis(SideBet.OVER_13, decks).ev == 2 * over - 1


@pytest.mark.parametrize("decks", DECKS)
def test_21_plus_3_matches_the_three_card_formulas(decks: int) -> None:
    # Unordered sets of three cards out of comb(52 * decks, 3).
    runs = 12  # A-2-3 up to Q-K-A
    suited_trips = 52 * comb(decks, 3)  # three copies of one card
    straight_flush = runs * 4 * decks**3  # a run in one suit, a copy of each card
    three_of_a_kind = 13 * comb(4 * decks, 3) - suited_trips
    straight = runs * (4 * decks) ** 3 - straight_flush
    flush = 4 * comb(13 * decks, 3) - straight_flush - suited_trips  # pairs in a suit count
    total = comb(52 * decks, 3)
    winners = {
        Outcome.SUITED_TRIPS: suited_trips,
        Outcome.STRAIGHT_FLUSH: straight_flush,
        Outcome.THREE_OF_A_KIND: three_of_a_kind,
        Outcome.STRAIGHT: straight,
        Outcome.FLUSH: flush,
    }
    expected = {outcome: Fraction(ways, total) for outcome, ways in winners.items()}
    expected[Outcome.NOTHING] = Fraction(total - sum(winners.values()), total)
    assert probabilities(analysis(SideBet.TWENTY_ONE_PLUS_THREE, decks)) == expected


# --- Published figures ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decks", "under_13", "over_13"),
    [
        (1, "10.11", "6.79"),
        (2, "10.08", "6.65"),
        (4, "10.07", "6.58"),
        (6, "10.07", "6.55"),
        (8, "10.06", "6.54"),
    ],
)
def test_wizard_of_odds_over_under_13_house_edges(decks: int, under_13: str, over_13: str) -> None:
    """The Wizard of Odds, "Over/Under 13".

    wizardofodds.com/games/blackjack/side-bets/over-under-13/: its "Under 13" and
    "Over 13" tables give the house edge by decks, in per cent to two decimals.
    """
    assert house_edge_percent(analysis(SideBet.UNDER_13, decks), 2) == Decimal(under_13)
    assert house_edge_percent(analysis(SideBet.OVER_13, decks), 2) == Decimal(over_13)


def test_jacobson_over_under_13_six_decks() -> None:
    """Eliot Jacobson, "Card Counting the Over/Under 13 Blackjack Side Bet, Update #1".

    "in a six-deck game, the Over 13 bet has a 6.555% house edge and the Under 13 bet has
    a 10.067% house edge" (three decimals, per cent).
    """
    assert house_edge_percent(analysis(SideBet.OVER_13, 6), 3) == Decimal("6.555")
    assert house_edge_percent(analysis(SideBet.UNDER_13, 6), 3) == Decimal("10.067")


def test_wizard_of_odds_perfect_pairs_pay_table_a_eight_decks() -> None:
    """The Wizard of Odds, "Perfect Pairs", "Pay Table A - 8 decks".

    wizardofodds.com/games/blackjack/side-bets/perfect-pairs/: pay table A is 25/12/6, the
    live preset's.  Combinations of two cards out of 86,320: perfect pair 1,456, colored
    pair 1,664, red/black pair 3,328, non-pair 79,872; total return -0.040964 (six
    decimals).
    """
    result = analysis(SideBet.PERFECT_PAIRS, 8)
    combinations = comb(416, 2)
    assert combinations == 86320
    assert probabilities(result) == {
        Outcome.PERFECT_PAIR: Fraction(1456, combinations),
        Outcome.COLOURED_PAIR: Fraction(1664, combinations),
        Outcome.MIXED_PAIR: Fraction(3328, combinations),
        Outcome.NOTHING: Fraction(79872, combinations),
    }
    assert rounded(result.ev, 6) == Decimal("-0.040964")


def test_wizard_of_odds_perfect_pairs_pay_table_a_two_decks() -> None:
    """The Wizard of Odds, "Perfect Pairs", "Perfect Pairs Expected Returns".

    Two decks, pay table A (25/12/6): -0.223301 (six decimals).
    """
    assert rounded(analysis(SideBet.PERFECT_PAIRS, 2).ev, 6) == Decimal("-0.223301")


@pytest.mark.parametrize(
    ("decks", "house_edge"),
    [(1, "13.30"), (2, "7.26"), (4, "4.24"), (6, "3.24"), (8, "2.74")],
)
def test_wizard_of_odds_21_plus_3_version_1(decks: int, house_edge: str) -> None:
    """The Wizard of Odds, "21 + 3", "Version 1".

    wizardofodds.com/games/blackjack/side-bets/21plus3/: version 1 pays 9 to 1 on a
    straight flush, three of a kind, straight or flush (its table splits the flushes
    into "Flush" and "Pair+flush").  House edge by decks, per cent to two decimals; the
    six-deck table's total return is -0.032386 (six decimals).
    """
    nine_to_one = EVERY_SIDE_BET.replace(twenty_one_plus_three_pays=["9"] * 5)
    result = analysis(SideBet.TWENTY_ONE_PLUS_THREE, decks, nine_to_one)
    assert house_edge_percent(result, 2) == Decimal(house_edge)
    if decks == 6:
        assert rounded(result.ev, 6) == Decimal("-0.032386")


def test_wizard_of_odds_21_plus_3_eight_deck_combinations() -> None:
    """The Wizard of Odds, "21 + 3", its 8-deck table.

    As quoted in the Wizard of Vegas forum thread "Calculation of odds for Blackjack top 3
    sidebet" (31 October 2019): combinations of three cards out of comb(416, 3), suited
    three of a kind 2,912, straight flush 24,576, three of a kind 61,568, straight
    368,640, flush 700,928, loser 10,753,536 (exact counts).
    """
    combinations = comb(416, 3)
    published = {
        Outcome.SUITED_TRIPS: 2_912,
        Outcome.STRAIGHT_FLUSH: 24_576,
        Outcome.THREE_OF_A_KIND: 61_568,
        Outcome.STRAIGHT: 368_640,
        Outcome.FLUSH: 700_928,
        Outcome.NOTHING: 10_753_536,
    }
    assert sum(published.values()) == combinations
    assert probabilities(analysis(SideBet.TWENTY_ONE_PLUS_THREE, 8)) == {
        outcome: Fraction(ways, combinations) for outcome, ways in published.items()
    }


def test_wizard_of_odds_pair_square_12_12_six_decks() -> None:
    """The Wizard of Odds, "Pair Square", "Pair Square - 12-12 Pay Table - Six Decks".

    wizardofodds.com/games/blackjack/side-bets/pair-square/: any pair pays 12; suited
    pairs 780 and non-suited pairs 2,808 of 48,516; total return -0.038585 (six
    decimals).  With its pair paying 12 to 1, Player Pair is this bet.
    """
    twelve_to_one = EVERY_SIDE_BET.replace(player_pair_pays="12")
    result = analysis(SideBet.PLAYER_PAIR, 6, twelve_to_one)
    assert result.win_probability == Fraction(780 + 2808, 48516)
    assert rounded(result.ev, 6) == Decimal("-0.038585")


def test_eight_deck_live_table_side_bet_rtps() -> None:
    """SuperCasinoSites, "21+3 Blackjack Review" (Playtech's live 21+3 Blackjack).

    An 8-deck table whose RTP is "95.90% for the Perfect Pairs bet, and 96.30% for the
    21+3 wagers" (per cent, two decimals): the returns of the 25/12/6 and
    100/40/30/10/5 pay tables, the live preset's, on 8 decks.
    """
    assert rounded(analysis(SideBet.PERFECT_PAIRS, 8).rtp * 100, 2) == Decimal("95.90")
    assert rounded(analysis(SideBet.TWENTY_ONE_PLUS_THREE, 8).rtp * 100, 2) == Decimal("96.30")
