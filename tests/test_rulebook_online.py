"""The online 8-deck table's rules: one round per rule, dealt from a fixed card order.

The rules carry no clause numbers, so each test is named after the rule it plays.
The card order is the dealing order of this table: the first card to each box from
box 1, the dealer's face-down card, the second card to each box, the dealer's face-up
card ("The dealer also gets one card face down ... The dealer receives their last
card face up"), then every card drawn after.  The preset's minimum bet is 1.00.
"""

from __future__ import annotations

from decimal import Decimal

from croupier.cards import parse_card, parse_cards
from croupier.errors import BetError, IllegalActionError
from croupier.events import (
    CardDealt,
    DealerPeeked,
    HoleCardRevealed,
    InsuranceTaken,
    PlayerSurrendered,
)
from croupier.presets import find_rules
from croupier.round import Action, OfferKind, Phase, Round
from croupier.shoe import FixedOrder, ShuffledShoe
from croupier.table import Table
from tests.rounds import (
    assert_money,
    assert_refused,
    deal,
    events_of,
    new_round,
    refuses_a_bet_behind,
)

PRESET = "online-8deck"


def test_online_hole_card_dealt_in_first_pass() -> None:
    game = deal(PRESET, "9S 5H 10D 7C 6D", ("ann", 1, "10"))
    dealt = [(e.card, e.box, e.face_up) for e in events_of(game, CardDealt)]
    assert dealt == [("9S", 1, True), ("5H", None, False), ("10D", 1, True), ("7C", None, True)]
    assert game.up_card == parse_card("7C")
    assert game.dealer_cards == (parse_card("7C"),)
    game.stand()
    assert [e.card for e in events_of(game, HoleCardRevealed)] == ["5H"]
    # The dealer's 7 5 draws a 6: 18 loses to ann's 19.
    assert sorted(map(str, game.dealer_cards)) == ["5H", "6D", "7C"]
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10"})


def test_online_dealer_stands_on_soft_17() -> None:
    game = deal(PRESET, "10C AH 8D 6S", ("ann", 1, "10"))
    game.stand()
    assert game.dealer_total == 17 and len(game.dealer_cards) == 2
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10"})


def test_online_dealer_draws_to_16() -> None:
    game = deal(PRESET, "10C 6H 8D 10S 2C", ("ann", 1, "10"))
    game.stand()
    assert game.dealer_total == 18
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


def test_online_double_on_any_two_cards() -> None:
    # Even a hard 18 may double.
    game = deal(PRESET, "10C 9H 8D 9S 3C", ("ann", 1, "10"))
    assert game.legal_actions() == (Action.HIT, Action.STAND, Action.DOUBLE, Action.SURRENDER)
    game.double_down()
    assert_money(game, [("ann", 1, 1, "main", "win", "20")], {"ann": "20"})


def test_online_double_equal_to_the_original_bet() -> None:
    game = deal(PRESET, "5C 9H 6D 9S 10C", ("ann", 1, "10"))
    assert not game.can_double("5")
    assert_refused(
        game,
        lambda: game.double_down("5"),
        IllegalActionError,
        "must equal the initial bet 10.00 at online-8deck",
        "phase=player-turns",
    )
    assert game.can_double("10") and game.can_double()
    game.double_down()
    assert game.boxes[0].hands[0].stake == Decimal("20")
    assert_money(game, [("ann", 1, 1, "main", "win", "20")], {"ann": "20"})


def test_online_double_allowed_after_split() -> None:
    game = deal(PRESET, "8C 10H 8D 6S 3H 10C 10D 9C", ("ann", 1, "10"))
    game.split()
    # The hand to the right is completed before the second hand takes its card.
    assert [len(hand.cards) for hand in game.boxes[0].hands] == [2, 1]
    assert game.can_double()
    game.double_down()  # 8 3 10: 21
    game.stand()  # 8 10: 18
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "20"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "30"},
    )


def test_online_split_only_once_to_make_two_hands() -> None:
    game = deal(PRESET, "8C 10H 8D 6S 8H 10C 9C", ("ann", 1, "10"))
    game.split()
    assert game.boxes[0].hands[0].cards == tuple(parse_cards("8C 8H"))
    assert not game.can_split()
    assert_refused(game, game.split, IllegalActionError, "box 1 has 2 hands, the most allowed")
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "20"},
    )


def test_online_split_identical_cards_only() -> None:
    # A 10 and a King are both worth 10 but are not identical: no split.
    game = deal(PRESET, "10H 7C KD 9S 10S", ("ann", 1, "10"))
    assert not game.can_split()
    assert_refused(
        game, game.split, IllegalActionError, "10H KD, not a pair that splits at online-8deck"
    )
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10"})
    # Two Kings are identical.
    pair = deal(PRESET, "KH 7C KD 9S 9H 8H 10S", ("ann", 1, "10"))
    assert pair.can_split()
    pair.split()
    pair.stand()
    pair.stand()
    assert_money(
        pair,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "20"},
    )


def test_online_split_aces_neither_resplit_nor_hit() -> None:
    game = deal(PRESET, "AC 10H AD 7S AH 5D", ("ann", 1, "10"))
    game.split()
    # No decision is asked: A A (12) and A 5 (16) stand on their one card each.
    assert game.phase is Phase.SETTLED
    assert [hand.cards for hand in game.boxes[0].hands] == [
        tuple(parse_cards("AC AH")),
        tuple(parse_cards("AD 5D")),
    ]
    assert_money(
        game,
        [("ann", 1, 1, "main", "lose", "-10"), ("ann", 1, 2, "main", "lose", "-10")],
        {"ann": "-20"},
    )


def test_online_split_21_pays_even_money_not_3_to_2() -> None:
    game = deal(PRESET, "AC 10H AD 7S KH QD", ("ann", 1, "10"))
    game.split()
    assert not any(hand.is_blackjack for hand in game.boxes[0].hands)
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "20"},
    )


def test_online_late_surrender_after_peek() -> None:
    game = deal(PRESET, "10C 9H 6D AS", ("ann", 1, "10"))
    assert [o.kind for o in game.offers] == [OfferKind.INSURANCE]
    assert not game.can_surrender()
    game.decline("ann", 1)
    assert [e.blackjack for e in events_of(game, DealerPeeked)] == [False]
    assert Action.SURRENDER in game.legal_actions()
    game.surrender()
    kinds = [type(e) for e in game.events]
    assert kinds.index(DealerPeeked) < kinds.index(PlayerSurrendered)
    assert_money(game, [("ann", 1, 1, "main", "surrender", "-5")], {"ann": "-5"})


def test_online_late_surrender_against_a_ten_after_peek() -> None:
    game = deal(PRESET, "10C 7H 6D KS", ("ann", 1, "7.25"))
    assert [e.blackjack for e in events_of(game, DealerPeeked)] == [False]
    game.surrender()
    # Half of 7.25 is 3.625: the table pays back 3.62 and keeps 3.63.
    assert_money(game, [("ann", 1, 1, "main", "surrender", "-3.63")], {"ann": "-3.63"})


def test_online_surrender_only_on_the_first_two_cards() -> None:
    game = deal(PRESET, "10C 9H 2D AS 3C", ("ann", 1, "10"))
    game.decline("ann", 1)
    game.hit()
    assert not game.can_surrender()
    assert_refused(game, game.surrender, IllegalActionError, "first decision only")
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "lose", "-10")], {"ann": "-10"})


def test_online_no_surrender_after_split() -> None:
    game = deal(PRESET, "8C 10H 8D 6S 10C 10D 9C", ("ann", 1, "10"))
    game.split()
    assert Action.SURRENDER not in game.legal_actions()
    assert_refused(game, game.surrender, IllegalActionError, "no surrender after a split")
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "10"), ("ann", 1, 2, "main", "win", "10")],
        {"ann": "20"},
    )


def test_online_dealer_blackjack_found_at_peek_takes_original_bet_only() -> None:
    # ann holds 11, a hand to double; the peek finds the blackjack first, so only her
    # original bet is lost.  bob's blackjack pushes.
    game = deal(PRESET, "6C AH AS 5D KD KC", ("ann", 1, "10"), ("bob", 2, "10"))
    assert game.phase is Phase.SETTLED
    assert [e.blackjack for e in events_of(game, DealerPeeked)] == [True]
    assert game.dealer_total == 21
    assert_money(
        game,
        [
            ("ann", 1, 1, "main", "dealer-blackjack", "-10"),
            ("bob", 2, 1, "main", "stand-off", "0"),
        ],
        {"ann": "-10", "bob": "0"},
    )


def test_online_blackjack_paid_3_to_2_immediately() -> None:
    game = deal(PRESET, "AH 10C 7S KD 6D 9C 10S", ("ann", 1, "5.00"), ("bob", 2, "10"))
    assert game.current_turn == (2, 1)
    assert [(r.player, r.net) for r in game.results] == [("ann", Decimal("7.50"))]
    assert str(game.results[0].net) == "7.50"
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "7.50"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "7.50", "bob": "10"},
    )


def test_online_blackjack_payout_finer_than_the_cent_rounded_down() -> None:
    game = deal(PRESET, "AH 7S KD 9C", ("ann", 1, "1.01"))
    assert_money(game, [("ann", 1, 1, "main", "blackjack", "1.51")], {"ann": "1.51"})


def test_online_blackjack_against_an_ace_paid_once_the_peek_finds_none() -> None:
    game = deal(PRESET, "AH 10C 7S KD 9D AC", ("ann", 1, "10"), ("bob", 2, "10"))
    game.decline("ann", 1)
    game.decline("bob", 2)
    assert game.current_turn == (2, 1)
    assert [(r.player, r.outcome, r.net) for r in game.results] == [
        ("ann", "blackjack", Decimal("15"))
    ]
    game.stand()
    # bob's 19 beats the dealer's soft 18.
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "15"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "15", "bob": "10"},
    )


def test_online_insurance_exactly_half_pays_2_to_1() -> None:
    game = deal(PRESET, "10C KH 9D AS", ("ann", 1, "10"))
    assert [(o.kind, o.amount) for o in game.offers] == [(OfferKind.INSURANCE, Decimal("5.00"))]
    assert not game.can_take_insurance("ann", 1, "3")
    assert_refused(
        game, lambda: game.take_insurance("ann", 1, "3"), BetError, "exactly half", "(5.00)"
    )
    game.take_insurance("ann", 1)
    kinds = [type(e) for e in game.events]
    assert kinds.index(InsuranceTaken) < kinds.index(DealerPeeked)
    assert game.phase is Phase.SETTLED
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "10"),
            ("ann", 1, 1, "main", "dealer-blackjack", "-10"),
        ],
        {"ann": "0"},
    )


def test_online_insurance_lost_at_the_peek_the_bet_kept_in_action() -> None:
    game = deal(PRESET, "10C 7H 9D AS", ("ann", 1, "10"))
    game.take_insurance("ann", 1)
    assert game.phase is Phase.PLAYER_TURNS
    assert [(r.bet, r.net) for r in game.results] == [("insurance", Decimal("-5"))]
    game.stand()
    assert_money(
        game,
        [("ann", 1, None, "insurance", "lost", "-5"), ("ann", 1, 1, "main", "win", "10")],
        {"ann": "5"},
    )


def test_online_blackjack_may_insure_and_no_even_money_is_offered() -> None:
    game = deal(PRESET, "AH KH KD AS", ("ann", 1, "10"))
    assert [o.kind for o in game.offers] == [OfferKind.INSURANCE]
    assert not game.can_take_even_money("ann", 1)
    assert_refused(
        game, lambda: game.take_even_money("ann", 1), IllegalActionError, "no open even-money offer"
    )
    game.take_insurance("ann", 1)
    assert_money(
        game,
        [
            ("ann", 1, None, "insurance", "dealer-blackjack", "10"),
            ("ann", 1, 1, "main", "stand-off", "0"),
        ],
        {"ann": "10"},
    )


def test_online_bust_collected_immediately() -> None:
    game = deal(PRESET, "10C 9H 7S 6D 9C 10S KH", ("ann", 1, "10"), ("bob", 2, "10"))
    game.hit()
    assert game.current_turn == (2, 1)
    assert [(r.player, r.outcome) for r in game.results] == [("ann", "bust")]
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "bust", "-10"), ("bob", 2, 1, "main", "win", "10")],
        {"ann": "-10", "bob": "10"},
    )


def test_online_decks_may_be_shuffled_after_every_hand() -> None:
    shoe = ShuffledShoe.from_rules(find_rules(PRESET), seed=2024)
    table = Table(find_rules(PRESET), source=shoe)
    for number in (1, 2):
        game = table.new_round()
        assert shoe.shuffles == number
        game.place_bet("ann", 1, "10")
        game.close_bets()
        while game.phase not in (Phase.SETTLED, Phase.VOID):
            if game.offers:
                offer = game.offers[0]
                game.decline(offer.player, offer.box, offer.kind)
            else:
                game.stand() if game.can_stand() else game.hit()
        assert game.phase is Phase.SETTLED
        assert sum(game.net_by_player().values()) + game.house_net == 0
        assert shoe.needs_shuffle


def test_online_joker_is_not_used_and_voids_all_plays_and_pays() -> None:
    game = deal(PRESET, "10C 9H 7D JK", ("ann", 1, "10"))
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and "foreign card JK" in game.void_reason
    assert_money(game, [("ann", 1, 1, "main", "void", "0")], {"ann": "0"})


def test_online_malfunction_voids_all_plays_and_pays() -> None:
    game = deal(PRESET, "AH 10C 7S KD 6D 9C", ("ann", 1, "5.00"), ("bob", 2, "10"))
    assert game.results[0].net == Decimal("7.50")
    game.void("malfunction")
    assert_money(
        game,
        [("ann", 1, 1, "main", "void", "0"), ("bob", 2, 1, "main", "void", "0")],
        {"ann": "0", "bob": "0"},
    )


def test_online_game_is_played_with_8_decks() -> None:
    shoe = ShuffledShoe.from_rules(find_rules(PRESET), seed=7)
    table = Table(find_rules(PRESET), source=shoe)
    assert shoe.remaining == 8 * 52
    # An eight-deck shoe holds eight Aces of spades; a ninth voids the round.
    check = table.check
    for _ in range(8):
        check.take(parse_card("AS"))
    game = Round(find_rules(PRESET), FixedOrder("AS 9H 7D 6C"), check=check)
    game.place_bet("ann", 1, "10")
    game.close_bets()
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and "excess card AS" in game.void_reason


def test_online_table_stakes_minimum_and_maximum() -> None:
    game = new_round(PRESET, "10C 9H 8D 9S", ("ann", 1, "0.99"))
    assert_refused(game, game.close_bets, BetError, "under the table minimum 1.00")
    assert_refused(game, lambda: game.place_bet("ann", 2, "500.01"), BetError, "maximum 500.00")
    assert_refused(game, lambda: game.place_bet("ann", 4, "10"), BetError, "boxes 1-3")
    game.place_bet("ann", 1, "0.01")
    game.close_bets()
    game.stand()
    assert_money(game, [("ann", 1, 1, "main", "stand-off", "0")], {"ann": "0"})


def test_online_no_bet_behind_another_players_box() -> None:
    """A single-player table: "player places a wager" and "the dealer deals two cards face up to
    player"; no one bets on another player's hand. bob's initial bet on ann's box is refused and
    changes nothing; a table that takes bets behind says so in its rules (``bets_behind``)."""
    refuses_a_bet_behind(PRESET)
