"""Casino-To-Go Rules and Playing Guide: one round per rule, dealt from a fixed card order.

The guide has headings, not numbered clauses; each test is named after the rule it
plays.  The card order is the dealing order: the first card to each box from box 1,
the dealer's up card, the second card to each box, the dealer's hole card, then every
card drawn after.  The preset's minimum bet is 5.00; a table has seven boxes.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from click.testing import CliRunner

from croupier.cards import parse_card, parse_cards
from croupier.cli.edge import edge
from croupier.errors import BetError, IllegalActionError, RulesError
from croupier.events import CardDealt, HoleCardRevealed, PlayerSurrendered
from croupier.presets import find_preset, find_rules
from croupier.round import Action, OfferKind, Phase
from croupier.shoe import ShuffledShoe
from croupier.table import Table
from tests.rounds import (
    assert_money,
    assert_refused,
    deal,
    events_of,
    new_round,
    refuses_a_bet_behind,
)

PRESET = "casino-to-go"


# -- The basics ----------------------------------------------------------------------------------


def test_casino_to_go_dealer_takes_an_up_card_and_a_hole_card() -> None:
    game = deal(PRESET, "9S 7C 10D 10H", ("ann", 1, "10"))
    dealt = [(e.card, e.box, e.face_up) for e in events_of(game, CardDealt)]
    assert dealt == [("9S", 1, True), ("7C", None, True), ("10D", 1, True), ("10H", None, False)]
    assert game.dealer_cards == (parse_card("7C"),)
    game.stand()
    assert [e.card for e in events_of(game, HoleCardRevealed)] == ["10H"]
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10"})


def test_casino_to_go_blackjack_paid_at_once_before_other_hands() -> None:
    game = deal(PRESET, "AH 10C 6S KD 7D 10S 9C", ("ann", 1, "10"), ("bob", 2, "10"))
    assert game.current_turn == (2, 1)
    assert [(r.player, r.outcome, r.net) for r in game.results] == [
        ("ann", "blackjack", Decimal("15"))
    ]
    game.stand()
    # The dealer's 6 10 9 busts.
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "15"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "15", "bob": "10"},
    )


def test_casino_to_go_dealer_showing_ace_or_ten_acts_on_all_hands() -> None:
    # ann's blackjack waits; bob decides; the hole card then makes the dealer's blackjack.
    game = deal(PRESET, "AH 10C KS KD QD AC", ("ann", 1, "10"), ("bob", 2, "10"))
    assert game.results == () and game.current_turn == (2, 1)
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "stand-off", "0"),
            ("bob", 2, 1, "main", "dealer-blackjack", "-10"),
        ],
        {"ann": "0", "bob": "-10"},
    )


def test_casino_to_go_blackjack_beats_a_dealer_21_of_three_cards() -> None:
    game = deal(PRESET, "AH 10C KS KD 8D 5C 6C", ("ann", 1, "10"), ("bob", 2, "10"))
    game.stand()
    assert game.dealer_total == 21 and len(game.dealer_cards) == 3
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "15"), ("bob", 2, 1, "main", "lose", "-10")],
        {"ann": "15", "bob": "-10"},
    )


def test_casino_to_go_players_21_loses_to_dealer_blackjack() -> None:
    game = deal(PRESET, "7C AS 4D KH 10H", ("ann", 1, "10"))
    game.decline("ann", 1)
    game.hit()  # 7 4 10: 21
    assert_money(game, [("ann", 1, 1, "main", "dealer-blackjack", "-10")], {"ann": "-10"})


@pytest.mark.parametrize(
    ("order", "dealer", "outcome", "net"),
    [
        ("10C 6S 9D AH", "6S AH", "win", "10"),  # soft 17 stands
        ("10C 6S 7D 10H 2C", "6S 10H 2C", "lose", "-10"),  # 16 hits
        ("10C 7S 9D 10H", "7S 10H", "win", "10"),  # hard 17 stands
    ],
)
def test_casino_to_go_dealer_hits_16_and_stands_on_17(
    order: str, dealer: str, outcome: str, net: str
) -> None:
    game = deal(PRESET, order, ("ann", 1, "10"))
    game.stand()
    assert game.dealer_cards == tuple(parse_cards(dealer))
    assert_money(game, [("ann", 1, 1, "main", outcome, net)], {"ann": net})


def test_casino_to_go_bust_collected_at_once_against_a_small_card() -> None:
    game = deal(PRESET, "10C 9H 7S 6D 9C 10S KH", ("ann", 1, "10"), ("bob", 2, "10"))
    game.hit()  # 10 6 K: 26
    assert game.current_turn == (2, 1)
    assert [(r.player, r.outcome) for r in game.results] == [("ann", "bust")]
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "bust", "-10"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "-10", "bob": "10"},
    )


def test_casino_to_go_bust_against_ace_or_ten_settled_when_the_dealer_has_no_blackjack() -> None:
    # A bust is held until the hole card shows whether only the original wager is lost.
    game = deal(PRESET, "10C 9H KS 6D 9C 7S KH", ("ann", 1, "10"), ("bob", 2, "10"))
    game.hit()
    assert game.results == ()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "bust", "-10"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "-10", "bob": "10"},
    )


# -- Doubling down -------------------------------------------------------------------------------


def test_casino_to_go_double_only_on_9_10_11() -> None:
    # ann 10 8 (18), bob A 8 (a soft 19) and carl 6 3 (9) against the dealer's 7 10.
    game = deal(
        PRESET,
        "10C AD 6H 7S 8D 8C 3S 10S KH",
        ("ann", 1, "10"),
        ("bob", 2, "10"),
        ("carl", 3, "10"),
    )
    assert not game.can_double()
    assert_refused(
        game, game.double_down, IllegalActionError, "totals 18; only 9, 10 or 11 may double"
    )
    game.stand()
    assert Action.DOUBLE not in game.legal_actions()
    assert_refused(game, game.double_down, IllegalActionError, "totals 19")
    game.stand()
    assert game.can_double()
    game.double_down()  # 6 3 K: 19
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "win", "10"),
            ("bob", 2, 1, "main", "win", "10"),
            ("carl", 3, 1, "main", "win", "20"),
        ],
        {"ann": "10", "bob": "10", "carl": "20"},
    )


def test_casino_to_go_double_for_up_to_the_original_bet() -> None:
    game = deal(PRESET, "6H 9S 4D 9C 10C", ("ann", 1, "10"))
    assert game.can_double("5") and not game.can_double("10.01")
    assert_refused(
        game, lambda: game.double_down("10.01"), IllegalActionError, "more than the initial bet"
    )
    game.double_down("5")  # 6 4 10: 20
    assert_money(game, [("ann", 1, 1, "main", "win", "15")], {"ann": "15"})


def test_casino_to_go_double_down_on_split_hands() -> None:
    game = deal(PRESET, "5C 7S 5D 10H 6H 9S 4C 10D", ("ann", 1, "10"))
    game.split()
    game.double_down()  # 5 6 9: 20
    game.double_down()  # 5 4 10: 19
    # The dealer stands on 7 10.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "20"), ("ann", 1, 2, "main", "win", "20")],
        {"ann": "40"},
    )


# -- Splitting pairs -----------------------------------------------------------------------------


def test_casino_to_go_split_pairs_of_the_same_point_value() -> None:
    game = deal(PRESET, "10C 6S KD 10H 9H 8D 9C", ("ann", 1, "10"))
    assert game.can_split()
    game.split()
    game.stand()  # 10 9: 19
    game.stand()  # K 8: 18
    # The dealer's 6 9 10 busts.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "20"},
    )


def test_casino_to_go_three_hands_at_seven_box_table() -> None:
    order = "8C 7S 8D 10H 8H 8S 8C 8D"
    game = deal(PRESET, order, ("ann", 1, "10"))
    game.split()
    game.split()
    assert len(game.boxes[0].hands) == 3
    assert not game.can_split()
    assert_refused(game, game.split, IllegalActionError, "box 1 has 3 hands, the most allowed")
    for _ in range(3):
        game.stand()  # three hands of 16
    assert_money(
        game,
        [("ann", 1, hand, "main", "lose", "-10") for hand in (1, 2, 3)],
        {"ann": "-30"},
    )


def test_casino_to_go_four_hands_at_a_six_player_table_follow_the_boxes() -> None:
    """SPLITTING PAIRS: "split pairs three times (for a total number of four hands) on
    a six player table": boxes = 6 alone makes the limit four hands."""
    six = deal(PRESET, "8C 7S 8D 10H 8H 8S 8C 8D", ("ann", 1, "10"), boxes=6)
    assert six.rules.max_split_hands == 4
    six.split()
    six.split()
    assert six.can_split()
    six.split()
    assert len(six.boxes[0].hands) == 4 and not six.can_split()
    assert find_preset(PRESET).replace(boxes=7).max_split_hands == 3


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"boxes": 6, "max_split_hands": 3}, "max_split_hands is 4 at 6 boxes, not 3"),
        ({"max_split_hands": 4}, "max_split_hands is 3 at 7 boxes, not 4"),
        ({"boxes": 5}, "the rulebook gives max_split_hands for 6 or 7 boxes, not 5"),
    ],
)
def test_casino_to_go_a_split_limit_the_guide_does_not_give_for_the_boxes_is_refused(
    changes: dict[str, object], message: str
) -> None:
    """SPLITTING PAIRS gives three hands at seven boxes and four at six, nothing else."""
    with pytest.raises(RulesError, match=message + r" \(SPLITTING PAIRS\)"):
        find_preset(PRESET).replace(**changes)


def test_casino_to_go_edge_at_six_boxes_splits_to_four_hands() -> None:
    """`croupier edge --set boxes=6` reports the six-player table's rules; a pair the
    guide does not give is one line and exit 2."""

    def main(*settings: str) -> object:
        arguments = ["--rules", PRESET, "--json"]
        for setting in settings:
            arguments += ["--set", setting]
        result = CliRunner().invoke(edge, arguments)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["main"]

    six = main("boxes=6")
    assert six == main("boxes=6", "max_split_hands=4")
    assert six != main()
    refused = CliRunner().invoke(
        edge, ["--rules", PRESET, "--set", "boxes=6", "--set", "max_split_hands=3"]
    )
    assert refused.exit_code == 2
    assert "max_split_hands is 4 at 6 boxes, not 3" in refused.stderr
    assert "Traceback" not in refused.output


def test_casino_to_go_split_aces_take_one_card_and_a_ten_makes_21_not_blackjack() -> None:
    game = deal(PRESET, "AC 9S AD 8H KH 2D", ("ann", 1, "10"))
    game.split()
    assert game.phase is Phase.SETTLED
    assert [len(hand.cards) for hand in game.boxes[0].hands] == [2, 2]
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "lose", "-10")],
        {"ann": "0"},
    )


# -- Blackjack: only the original wager lost -----------------------------------------------------


def test_casino_to_go_dealer_blackjack_returns_split_and_double_bets() -> None:
    # 8 8 against an Ace: hand 1 doubles to 21, hand 2 hits and busts; the hole card
    # is a King.  Only the original wager is lost.
    game = deal(PRESET, "8C AS 8D KS 3H 10C 5D KH", ("ann", 1, "10"))
    game.decline("ann", 1)
    game.split()
    game.double_down()  # 8 3 10: 21
    game.hit()  # 8 5 K: 23
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "dealer-blackjack", "-10"),
            ("ann", 1, 2, "main", "dealer-blackjack", "0"),
        ],
        {"ann": "-10"},
    )


def test_casino_to_go_doubled_hand_loses_only_the_original_wager_to_blackjack() -> None:
    game = deal(PRESET, "6C KS 4D AS 10D", ("ann", 1, "10"))
    game.double_down()
    assert_money(game, [("ann", 1, 1, "main", "dealer-blackjack", "-10")], {"ann": "-10"})


# -- Surrender -----------------------------------------------------------------------------------


def test_casino_to_go_surrender_against_ten_loses_whole_bet_to_blackjack() -> None:
    game = deal(PRESET, "10C KS 6D AH", ("ann", 1, "10"))
    assert game.can_surrender()
    assert isinstance(game.surrender(), PlayerSurrendered)
    assert_money(game, [("ann", 1, 1, "main", "dealer-blackjack", "-10")], {"ann": "-10"})


def test_casino_to_go_surrender_against_ten_returns_half_when_dealer_has_no_blackjack() -> None:
    game = deal(PRESET, "10C 9D KS 6D 9C 7H", ("ann", 1, "10"), ("bob", 2, "10"))
    game.surrender()
    assert game.results == ()  # the wager waits on top of the cards
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "surrender", "-5"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "-5", "bob": "10"},
    )


def test_casino_to_go_surrender_against_a_small_card_returns_half_at_once() -> None:
    game = deal(PRESET, "10C 9D 6S 6D 9C 10H 7H", ("ann", 1, "10"), ("bob", 2, "10"))
    game.surrender()
    assert [(r.player, r.net) for r in game.results] == [("ann", Decimal("-5"))]
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "surrender", "-5"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "-5", "bob": "10"},
    )


def test_casino_to_go_surrender_decided_before_any_other_decision() -> None:
    game = deal(PRESET, "4C 8S 5D 10H 6C", ("ann", 1, "10"))
    game.hit()  # 4 5 6: 15
    assert not game.can_surrender()
    assert_refused(game, game.surrender, IllegalActionError, "first decision only")
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "lose", "-10")], {"ann": "-10"})


def test_casino_to_go_no_surrender_after_split() -> None:
    game = deal(PRESET, "9C 7S 9D 10H 10C 10D", ("ann", 1, "10"))
    game.split()
    assert_refused(game, game.surrender, IllegalActionError, "no surrender after a split")
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "20"},
    )


# -- Insurance -----------------------------------------------------------------------------------


def test_casino_to_go_insurance_up_to_half_pays_2_to_1() -> None:
    game = deal(PRESET, "10C AS 9D KH", ("ann", 1, "20"))
    assert [(o.kind, o.amount) for o in game.offers] == [(OfferKind.INSURANCE, Decimal("10.00"))]
    assert_refused(game, lambda: game.take_insurance("ann", 1, "10.01"), BetError, "more than half")
    game.take_insurance("ann", 1, "6")
    # No peek: the hand is played, then the hole card shows the blackjack.
    assert game.phase is Phase.PLAYER_TURNS
    game.stand()
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "12"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-20"),
        ],
        {"ann": "-8"},
    )


def test_casino_to_go_insurance_lost_when_dealer_has_no_blackjack() -> None:
    game = deal(PRESET, "10C AS 9D 7H", ("ann", 1, "20"))
    game.take_insurance("ann", 1)
    game.stand()
    assert_money(
        game,
        [("ann", 1, None, "insurance", "lost", "-10"), ("ann", 1, 1, "main", "win", "20")],
        {"ann": "10"},
    )


def test_casino_to_go_blackjack_may_insure_no_even_money() -> None:
    game = deal(PRESET, "AC AS KD 9H", ("ann", 1, "20"))
    assert [o.kind for o in game.offers] == [OfferKind.INSURANCE]
    assert not game.can_take_even_money("ann", 1)
    game.take_insurance("ann", 1)
    # No dealer blackjack: the insurance is lost, the blackjack paid 3 to 2.
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "lost", "-10"),
            ("ann", 1, 1, "main", "blackjack", "30"),
        ],
        {"ann": "20"},
    )


# -- Shuffling, cutting and dealing --------------------------------------------------------------


def test_casino_to_go_cut_card_about_a_third_from_the_bottom() -> None:
    rules = find_rules(PRESET)
    assert rules.penetration == Fraction(2, 3)
    shoe = ShuffledShoe.from_rules(rules, seed=11)
    table = Table(rules, source=shoe)
    assert shoe.remaining == 6 * 52
    assert shoe.cut_card_position == 208
    rounds = 0
    while not shoe.needs_shuffle:
        game = table.new_round()
        game.place_bet("ann", 1, "10")
        game.close_bets()
        while game.phase not in (Phase.SETTLED, Phase.VOID):
            if game.offers:
                offer = game.offers[0]
                game.decline(offer.player, offer.box, offer.kind)
            else:
                game.stand()
        assert game.phase is Phase.SETTLED
        rounds += 1
    # The round that brought out the cut card was finished; the next one shuffles first.
    assert shoe.dealt >= 208
    table.new_round()
    assert shoe.dealt == 0 and shoe.shuffles == 2
    assert rounds > 1


def test_casino_to_go_seven_player_table_limits() -> None:
    game = new_round(PRESET, "9S 10C 7C 10D 8D 10H", ("ann", 1, "4.99"), ("bob", 7, "500"))
    assert_refused(game, lambda: game.place_bet("cy", 8, "10"), BetError, "boxes 1-7")
    assert_refused(game, game.close_bets, BetError, "under the table minimum 5.00")
    assert_refused(game, lambda: game.place_bet("bob", 7, "0.01"), BetError, "maximum 500.00")
    game.place_bet("ann", 1, "0.01")
    game.close_bets()
    game.stand()  # 9 10: 19
    game.stand()  # 10 8: 18
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "5"), ("bob", 7, 1, "main", "win", "500")],
        {"ann": "5", "bob": "500"},
    )


def test_casino_to_go_no_bet_behind_another_players_box() -> None:
    """The guide's "seven player table" has a player at each box and describes no betting
    behind. bob's initial bet on ann's box is refused and changes nothing; a table that takes
    bets behind says so in its rules (``bets_behind``)."""
    refuses_a_bet_behind(PRESET)
