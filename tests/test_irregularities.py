"""Irregularities and refusals: interruptions, void rounds, the dealer's console, illegal actions.

Rounds are dealt from a fixed card order (see :mod:`tests.rounds`) or, for the dealer's
console, card by card as a dealer enters them.  Tests of a rulebook clause are named
after it; the others check that every decision is a consistent triplet: ``can_x()`` is
false exactly when ``verify_x()`` raises a typed error naming the state, and a refused
action leaves the round as it was.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from decimal import Decimal
from functools import partial

import pytest

from croupier.cards import parse_card, parse_cards
from croupier.errors import BetError, CardError, CroupierError, IllegalActionError
from croupier.events import (
    BetSettled,
    CardDealt,
    OfferDeclined,
    PlayerTimedOut,
    RoundSettled,
    RoundVoided,
    TechnicalInterruption,
)
from croupier.presets import PRESET_NAMES, find_rules
from croupier.round import Action, OfferKind, Phase, Round
from croupier.shoe import CompositionCheck, DealerEntry, FixedOrder, ShuffledShoe
from croupier.table import Table
from tests.rounds import assert_money, assert_refused, deal, events_of, new_round

# -- RWS v5 5.4: technical interruptions ---------------------------------------------------------


def test_rws_v5_5_4_interruption_continues_after_an_outcome() -> None:
    # The Player Pair was settled at interim settlement: an outcome is established.
    game = deal("rws-v5", "8C 7S 8D 10S", ("ann", 1, "100"), ("ann", 1, "10", "player_pair"))
    event = game.interrupt()
    assert isinstance(event, TechnicalInterruption) and event.outcome_established
    assert game.phase is Phase.OFFERS
    game.decline("ann", 1)
    game.stand()  # 16 against the dealer's 17
    assert_money(
        game,
        [("ann", 1, None, "player_pair", "pair", "110"), ("ann", 1, 1, "main", "lose", "-100")],
        {"ann": "10"},
    )


def test_rws_v5_5_4_1_a_bust_is_an_established_outcome() -> None:
    game = deal("rws-v5", "10C 9H 7S 6D 9D KH 10S", ("ann", 1, "100"), ("bob", 2, "100"))
    game.decline("ann", 1)
    game.decline("bob", 2)
    game.hit()  # ann busts
    interruption = game.interrupt()
    assert isinstance(interruption, TechnicalInterruption)
    assert interruption.outcome_established and game.current_turn == (2, 1)
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "bust", "-100"), ("bob", 2, 1, "main", "win", "100")],
        {"ann": "-100", "bob": "100"},
    )


def test_rws_v5_5_4_2_interruption_before_any_outcome_voids() -> None:
    game = deal("rws-v5", "10C 9H 7S 6D 9D KH 10S", ("ann", 1, "100"), ("bob", 2, "100"))
    game.decline("ann", 1)
    game.decline("bob", 2)
    interruption = game.interrupt()
    assert isinstance(interruption, TechnicalInterruption)
    assert not interruption.outcome_established
    assert game.phase is Phase.VOID and game.void_reason is not None
    assert "5.4.2" in game.void_reason
    assert_money(
        game,
        [("ann", 1, 1, "main", "void", "0"), ("bob", 2, 1, "main", "void", "0")],
        {"ann": "0", "bob": "0"},
    )
    assert_refused(game, game.interrupt, IllegalActionError, "the round is over", "phase=void")


# -- RWS v5 5.5: void rounds ---------------------------------------------------------------------


def test_rws_v5_5_5_1_foreign_card_voids() -> None:
    # The joker comes out as ann's hit, after her blackjack-free deal and bob's interim pay.
    game = deal("rws-v5", "10C AH 7S 4D KD JK", ("ann", 1, "100"), ("bob", 2, "100"))
    assert [r.net for r in game.results] == [Decimal("150")]
    game.decline("ann", 1)
    game.hit()
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and "foreign card JK" in game.void_reason
    assert "5.5.1" in game.void_reason
    assert_money(
        game,
        [("ann", 1, 1, "main", "void", "0"), ("bob", 2, 1, "main", "void", "0")],
        {"ann": "0", "bob": "0"},
    )


def test_rws_v5_5_5_2_excess_card_voids() -> None:
    # Eight 5 of diamonds have come out of this 8-deck shoe already: a ninth is an excess.
    table = Table(find_rules("rws-v5"), source=FixedOrder("10C 7S 5D"))
    for _ in range(8):
        table.check.take(parse_card("5D"))
    game = table.new_round()
    game.place_bet("ann", 1, "100")
    game.close_bets()
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and "excess card 5D" in game.void_reason
    assert "5.5.2" in game.void_reason
    assert_money(game, [("ann", 1, 1, "main", "void", "0")], {"ann": "0"})


def test_rws_v5_5_5_3_too_few_cards_voids() -> None:
    # The shoe runs out while the dealer draws: ann's blackjack, paid at interim, comes back.
    game = deal("rws-v5", "AH 10C 6S KD 7D", ("ann", 1, "100"), ("bob", 2, "100"))
    assert [r.net for r in game.results] == [Decimal("150")]
    game.decline("bob", 2)
    game.stand()
    assert game.phase is Phase.VOID
    assert game.void_reason is not None and "no card left" in game.void_reason
    assert "5.5.3" in game.void_reason
    assert len(events_of(game, RoundVoided)) == 1 and events_of(game, RoundSettled) == []
    assert_money(
        game,
        [("ann", 1, 1, "main", "void", "0"), ("bob", 2, 1, "main", "void", "0")],
        {"ann": "0", "bob": "0"},
    )


def test_rws_v5_5_6_previous_rounds_stand_once_the_next_has_commenced() -> None:
    table = Table(find_rules("rws-v5"), source=FixedOrder("10C 7S 9D 10S  9C 7H JK"))
    first = table.new_round()
    first.place_bet("ann", 1, "100")
    first.close_bets()
    first.decline("ann", 1)
    first.stand()
    assert first.phase is Phase.SETTLED
    second = table.new_round()
    second.place_bet("ann", 1, "100")
    second.close_bets()
    assert second.phase is Phase.VOID
    assert_money(first, [("ann", 1, 1, "main", "win", "100")], {"ann": "100"})
    assert_money(second, [("ann", 1, 1, "main", "void", "0")], {"ann": "0"})
    assert_refused(first, lambda: first.void("late"), IllegalActionError, "phase=settled")


def test_rws_v5_5_17_void_before_the_deal_returns_every_bet() -> None:
    game = new_round("rws-v5", "", ("ann", 1, "100"), ("bob", 1, "50"), ("bob", 2, "30", "over_13"))
    game.void("cards found not shuffled (5.5.4)")
    assert game.phase is Phase.VOID
    assert_money(
        game,
        [
            ("ann", 1, None, "main", "void", "0"),
            ("bob", 1, None, "main", "void", "0"),
            ("bob", 2, None, "over_13", "void", "0"),
        ],
        {"ann": "0", "bob": "0"},
    )


# -- RWS v5 5.3: a player who walks away or does not decide -------------------------------------


def test_rws_v5_5_3_time_out_draws_to_12() -> None:
    game = deal("rws-v5", "5C 10S 4D 2H 3C 7C", ("ann", 1, "100"))
    game.decline("ann", 1)
    assert isinstance(game.time_out(), PlayerTimedOut)
    assert game.boxes[0].hands[0].total == 14
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


def test_rws_v5_5_3_time_out_declines_the_open_offers() -> None:
    game = deal("rws-v5", "10C 9D AS 6D QC 7H", ("ann", 1, "100"), ("bob", 2, "100"))
    assert len(game.offers) == 2
    game.time_out()
    assert [(e.player, e.offer) for e in events_of(game, OfferDeclined)] == [
        ("ann", "insurance"),
        ("bob", "insurance"),
    ]
    assert game.phase is Phase.PLAYER_TURNS
    game.stand()
    game.stand()
    assert_money(
        game,
        [("ann", 1, 1, "main", "lose", "-100"), ("bob", 2, 1, "main", "win", "100")],
        {"ann": "-100", "bob": "100"},
    )


def test_rws_v5_5_3_walk_away_during_offers_declines_them() -> None:
    game = deal("rws-v5", "5C AS 4D 2H 3C 7C", ("ann", 1, "100"))
    game.walk_away("ann")
    assert [e.offer for e in events_of(game, OfferDeclined)] == ["insurance"]
    # Her 9 then draws to 14 by itself; the dealer's A 7 makes 18.
    assert game.phase is Phase.SETTLED
    assert_money(game, [("ann", 1, 1, "main", "lose", "-100")], {"ann": "-100"})


def test_walk_away_before_the_deal_refused() -> None:
    game = new_round("rws-v5", "", ("ann", 1, "100"))
    assert_refused(game, lambda: game.walk_away("ann"), IllegalActionError, "phase=betting")


# -- The dealer's console: cards entered one at a time -------------------------------------------


def test_dealer_console_waits_for_each_card() -> None:
    game = Round(find_rules("rws-v5"), DealerEntry())
    game.place_bet("ann", 1, "100")
    game.place_bet("bob", 2, "100")
    game.close_bets()
    assert game.phase is Phase.DEALING and game.awaiting_card
    for text in ("10C", "9D", "6S", "AS"):
        event = game.deal_card(text)
        assert isinstance(event, CardDealt) and event.card == text
        assert game.awaiting_card and game.phase is Phase.DEALING
    # The last card of the initial deal makes ann's blackjack, paid at once.
    game.deal_card("7H")
    assert not game.awaiting_card and game.phase is Phase.OFFERS
    assert [(r.player, r.net) for r in game.results] == [("ann", Decimal("150"))]
    game.decline("bob", 2)
    game.stand()
    assert game.awaiting_card and game.phase is Phase.DEALER_TURN
    game.deal_card("10H")  # 6 10: 16, the dealer draws again
    assert game.awaiting_card
    game.deal_card("5C")
    assert not game.awaiting_card
    assert_money(
        game,
        [("ann", 1, 1, "main", "blackjack", "150"), ("bob", 2, 1, "main", "lose", "-100")],
        {"ann": "150", "bob": "-100"},
    )


def test_dealer_console_continues_after_deal_card() -> None:
    game = Round(find_rules("casino-to-go"), DealerEntry())
    game.place_bet("ann", 1, "10")
    game.close_bets()
    for text in ("9S", "7C", "10D"):
        game.deal_card(text)
    assert game.awaiting_card and game.hole_card is None
    game.deal_card("AS")
    assert game.hole_card == parse_card("AS") and game.current_turn == (1, 1)
    assert_refused(game, lambda: game.deal_card("2C"), IllegalActionError, "not waiting")
    game.stand()
    # 7 A is a soft 18: it stands without a card.
    assert game.phase is Phase.SETTLED
    assert_money(game, [("ann", 1, 1, "main", "win", "10")], {"ann": "10"})


def test_dealer_console_excess_card_entered_voids_the_round() -> None:
    game = Round(find_rules("casino-to-go").replace(decks=1), DealerEntry())
    game.place_bet("ann", 1, "10")
    game.close_bets()
    game.deal_card("AS")
    event = game.deal_card("AS")
    assert isinstance(event, RoundVoided)
    assert game.phase is Phase.VOID and not game.awaiting_card
    assert "excess card AS" in event.reason
    assert_money(game, [("ann", 1, 1, "main", "void", "0")], {"ann": "0"})


def test_dealer_console_foreign_card_entered_voids_the_round() -> None:
    game = Round(find_rules("live"), DealerEntry())
    game.place_bet("ann", 1, "10")
    game.close_bets()
    event = game.deal_card("JOKER")
    assert isinstance(event, RoundVoided) and "foreign card JOKER" in event.reason
    assert_money(game, [("ann", 1, 1, "main", "void", "0")], {"ann": "0"})


def test_dealer_console_unreadable_card_refused() -> None:
    game = Round(find_rules("live"), DealerEntry())
    game.place_bet("ann", 1, "10")
    game.close_bets()
    assert_refused(game, lambda: game.deal_card("1S"), CardError, "unknown card '1S'")
    assert game.awaiting_card


def test_deal_card_refused_on_a_round_dealt_from_its_shoe() -> None:
    game = new_round("live", "9S 7C 10D 10H", ("ann", 1, "10"))
    game.close_bets()
    assert_refused(game, lambda: game.deal_card("AS"), IllegalActionError, "deals from its shoe")


# -- Refusals name the state and change nothing --------------------------------------------------


def test_no_decision_before_the_cards_are_dealt() -> None:
    game = new_round("online-8deck", "10C 9H 6D 9S", ("ann", 1, "10"))
    for can, verify in (
        (game.can_hit, game.verify_hit),
        (game.can_stand, game.verify_stand),
        (game.can_double, game.verify_double),
        (game.can_split, game.verify_split),
        (game.can_surrender, game.verify_surrender),
    ):
        assert not can()
        assert_refused(game, verify, IllegalActionError, "no hand is waiting", "phase=betting")
    assert_refused(game, game.stand, IllegalActionError, "phase=betting")
    assert game.legal_actions() == ()


def test_no_decision_while_offers_are_open() -> None:
    game = deal("online-8deck", "10C 9H 6D AS", ("ann", 1, "10"))
    assert game.phase is Phase.OFFERS and game.legal_actions() == ()
    for attempt in (game.hit, game.stand, game.double_down, game.split, game.surrender):
        assert_refused(game, attempt, IllegalActionError, "phase=offers")
    game.decline("ann", 1)
    game.surrender()
    assert_money(game, [("ann", 1, 1, "main", "surrender", "-5")], {"ann": "-5"})


def test_no_decision_once_the_round_is_settled() -> None:
    game = deal("casino-to-go", "AH 6S KD 10C", ("ann", 1, "10"))
    assert game.phase is Phase.SETTLED
    for attempt in (game.hit, game.stand, game.double_down, game.split, game.surrender):
        assert_refused(game, attempt, IllegalActionError, "phase=settled")
    assert_refused(game, lambda: game.decline("ann", 1), IllegalActionError, "phase=settled")
    assert_refused(game, game.time_out, IllegalActionError, "phase=settled")
    assert_refused(game, lambda: game.void("late"), IllegalActionError, "phase=settled")
    assert_money(game, [("ann", 1, 1, "main", "blackjack", "15")], {"ann": "15"})


def test_close_bets_refused_twice_and_without_a_bet() -> None:
    empty = new_round("live", "")
    assert_refused(empty, empty.close_bets, BetError, "no initial bet")
    side_only = new_round("live", "", ("ann", 1, "5", "21+3"))
    assert_refused(side_only, side_only.close_bets, BetError, "no initial bet")
    game = deal("live", "9S 7C 10D 10H", ("ann", 1, "10"))
    assert_refused(game, game.close_bets, IllegalActionError, "closed", "phase=player-turns")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (("ann", 1, 12.5), "is a float"),
        (("ann", 1, "12.505"), "finer than the currency unit"),
        (("ann", 1, "-5"), "must be more than zero"),
        (("ann", 1, "ten"), "is not a number"),
        (("ann", 8, "10"), "box 8 is not on this table"),
        (("", 1, "10"), "player name '' is empty"),
        (("ann", 1, "10", "insurance"), "not offered"),
    ],
)
def test_bet_refused_names_what_is_wrong(arguments: tuple[object, ...], words: str) -> None:
    game = new_round("live", "")
    assert not game.can_place_bet(*arguments)  # type: ignore[arg-type]
    assert_refused(game, lambda: game.place_bet(*arguments), BetError, words)  # type: ignore[arg-type]


def test_withdrawn_bet_that_is_not_there_refused() -> None:
    game = new_round("live", "", ("ann", 1, "10"))
    assert_refused(game, lambda: game.withdraw_bet("bob", 1), BetError, "bob has no main bet")
    game.withdraw_bet("ann", 1)
    assert_refused(game, game.close_bets, BetError, "no initial bet")


def test_insurance_answer_refused_for_a_player_without_an_offer() -> None:
    game = deal("rws-v5", "10C AS 9C 7H", ("ann", 1, "100"))
    assert not game.can_take_insurance("bob", 1)
    assert_refused(game, lambda: game.take_insurance("bob", 1), IllegalActionError, "phase=offers")
    assert not game.can_follow("ann", 1)
    assert_refused(game, lambda: game.follow("ann", 1), IllegalActionError, "phase=offers")
    assert not game.can_decline("ann", 2)
    assert_refused(game, lambda: game.decline("ann", 2), IllegalActionError, "phase=offers")
    assert not game.can_decline("ann", 1, OfferKind.SURRENDER)
    assert_refused(
        game,
        lambda: game.decline("ann", 1, OfferKind.SURRENDER),
        IllegalActionError,
        "no open surrender offer",
    )


# -- The triplets at every decision of many rounds -----------------------------------------------

_HAND_TRIPLETS: dict[
    Action, tuple[Callable[[Round], bool], Callable[[Round], object], Callable[[Round], object]]
] = {
    Action.HIT: (Round.can_hit, Round.verify_hit, Round.hit),
    Action.STAND: (Round.can_stand, Round.verify_stand, Round.stand),
    Action.DOUBLE: (Round.can_double, Round.verify_double, Round.double_down),
    Action.SPLIT: (Round.can_split, Round.verify_split, Round.split),
    Action.SURRENDER: (Round.can_surrender, Round.verify_surrender, Round.surrender),
}


def _refused_cleanly(game: Round, attempt: Callable[[], object]) -> str:
    events, phase, offers = game.events, game.phase, game.offers
    with pytest.raises((IllegalActionError, BetError)) as caught:
        attempt()
    assert (game.events, game.phase, game.offers) == (events, phase, offers)
    return str(caught.value)


def _check_hand_triplets(game: Round) -> None:
    legal = game.legal_actions()
    for action, (can, verify, act) in _HAND_TRIPLETS.items():
        allowed = can(game)
        if game.phase is Phase.PLAYER_TURNS:
            assert allowed == (action in legal), (action, legal)
        if allowed:
            verify(game)
        else:
            message = _refused_cleanly(game, partial(verify, game))
            assert f"phase={game.phase.value}" in message, message
            _refused_cleanly(game, partial(act, game))
    turn = game.current_turn
    if Action.DOUBLE in legal and turn is not None:
        box = next(view for view in game.boxes if view.number == turn[0])
        initial = box.hands[turn[1] - 1].stakes[0][1]
        too_much = str(initial + game.rules.currency_unit)
        assert not game.can_double(too_much)
        message = _refused_cleanly(game, lambda: game.verify_double(too_much))
        assert "more than the initial bet" in message


def _check_offer_triplets(game: Round, players: tuple[str, ...], boxes: range) -> None:
    checks: tuple[tuple[Callable[[str, int], bool], Callable[[str, int], object]], ...] = (
        (game.can_take_insurance, game.verify_take_insurance),
        (game.can_take_even_money, game.verify_take_even_money),
        (game.can_follow, game.verify_follow),
        (game.can_decline, game.verify_decline),
    )
    for player in players:
        for box in boxes:
            for can, verify in checks:
                if can(player, box):
                    verify(player, box)
                else:
                    message = _refused_cleanly(game, partial(verify, player, box))
                    assert f"phase={game.phase.value}" in message, message


def _answer(game: Round, rng: random.Random) -> None:
    offer = rng.choice(game.offers)
    if rng.random() < 0.5:
        game.decline(offer.player, offer.box, offer.kind)
    elif offer.kind is OfferKind.INSURANCE:
        game.take_insurance(offer.player, offer.box)
    elif offer.kind is OfferKind.EVEN_MONEY:
        game.take_even_money(offer.player, offer.box)
    elif offer.kind is OfferKind.SURRENDER:
        game.surrender(box=offer.box)
    else:
        game.follow(offer.player, offer.box)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_can_and_verify_agree_at_every_decision(preset: str) -> None:
    rules = find_rules(preset)
    rng = random.Random(preset)
    shoe = ShuffledShoe.from_rules(rules, seed=rng.randrange(2**32))
    check = CompositionCheck(rules.decks)
    players = ("ann", "bob", "cy")
    boxes = range(1, 4)
    decisions = 0
    for _ in range(60):
        if shoe.needs_shuffle:
            shoe.shuffle()
            check.reset()
        game = Round(rules, shoe, check=check)
        for box in rng.sample(list(boxes), rng.randint(1, 3)):
            # Two players on a box only where the table takes bets behind (RWS v5 1.26).
            for player in rng.sample(players, rng.randint(1, 2 if rules.bets_behind else 1)):
                game.place_bet(player, box, str(rules.minimum_bet * rng.choice((1, 2, 3))))
        game.close_bets()
        steps = 0
        while game.phase not in (Phase.SETTLED, Phase.VOID):
            steps += 1
            assert steps < 100
            _check_hand_triplets(game)
            _check_offer_triplets(game, players, boxes)
            if game.offers:
                _answer(game, rng)
                continue
            decisions += 1
            action = rng.choice(game.legal_actions())
            _HAND_TRIPLETS[action][2](game)
        _check_hand_triplets(game)
        assert sum(game.net_by_player().values(), Decimal(0)) + game.house_net == 0
        settled = [e for e in game.events if isinstance(e, BetSettled)]
        assert sum((e.net for e in settled), Decimal(0)) == -game.house_net
    assert decisions > 60


def test_every_refusal_is_a_croupier_error_and_a_value_error() -> None:
    game = deal("rws-v4", "10C 6S 6D", ("ann", 1, "100"))
    for attempt in (game.hit, lambda: game.place_bet("bob", 1, "100")):
        with pytest.raises(CroupierError):
            attempt()
        with pytest.raises(ValueError):
            attempt()
    assert game.boxes[0].hands[0].cards == tuple(parse_cards("10C 6D"))


def test_walk_away_by_a_player_without_a_bet_refused() -> None:
    game = deal("rws-v5", "10C 6D 8S 7H 9C", ("ann", 1, "100"))
    assert_refused(game, lambda: game.walk_away("zed"), IllegalActionError, "no bet in play")


def test_rws_v5_1_26_seat_passes_and_the_new_seated_player_doubles_his_own_bet() -> None:
    # ann (seated, 100) and bob (50) on box 1; ann walks away during the surrender offer,
    # so bob decides for the box: he doubles his own 50, and ann's absence declines her share.
    game = deal("rws-v5", "6C 9D 5S 10H 8C", ("ann", 1, "100"), ("bob", 1, "50"))
    game.walk_away("ann")
    assert game.seated_player(1) == "bob"
    game.decline("bob", 1)
    game.double_down(player="bob")
    hand = game.boxes[0].hands[0]
    assert dict(hand.stakes) == {"ann": Decimal("100.00"), "bob": Decimal("100.00")}
    # 6 5 10 = 21 against the dealer's 9 then 8: 17.
    assert_money(
        game,
        [("ann", 1, 1, "main", "win", "100"), ("bob", 1, 1, "main", "win", "100")],
        {"ann": "100", "bob": "100"},
    )


def test_rws_v5_5_7_3_player_has_his_bet_returned_after_a_dealing_error() -> None:
    # Two players on box 1; after a dealing error bob takes his bet back during the offers,
    # ann plays on and wins; bob's 50 comes back with nothing won or lost.
    game = deal("rws-v5", "10C 9D 9S 8H 7S", ("ann", 1, "100"), ("bob", 1, "50"))
    assert game.offers  # the surrender offer: before any third card
    game.return_bets("bob", 1)
    assert_refused(game, lambda: game.return_bets("bob", 1), IllegalActionError, "no open bet")
    game.decline("ann", 1)
    game.stand()
    assert_money(
        game,
        [("bob", 1, 1, "main", "returned", "0"), ("ann", 1, 1, "main", "win", "100")],
        {"ann": "100", "bob": "0"},
    )


def test_rws_v5_5_7_3_seated_player_returning_his_bet_passes_the_seat() -> None:
    game = deal("rws-v5", "10C 9D 9S 8H 7S", ("ann", 1, "100"), ("bob", 1, "50"))
    game.return_bets("ann", 1)
    assert game.seated_player(1) == "bob"
    # The box's surrender offer passes with the seat (RWS v5 1.26).
    assert [(offer.kind.value, offer.player) for offer in game.offers] == [("surrender", "bob")]
    game.decline("bob", 1)
    assert game.current_turn == (1, 1)
    game.stand(player="bob")
    assert_money(
        game,
        [("ann", 1, 1, "main", "returned", "0"), ("bob", 1, 1, "main", "win", "50")],
        {"ann": "0", "bob": "50"},
    )


def test_rws_v5_5_7_3_bets_cannot_come_back_while_a_split_is_being_followed() -> None:
    # ann splits her eights and bob is asked to follow: the box's decisions have begun,
    # so a dealing error is answered before them, not in the middle of them.
    game = deal("rws-v5", "8S 9D 8H 3C 10C 8C 8D 9S", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    game.split()
    assert [(offer.kind.value, offer.player) for offer in game.offers] == [("follow-split", "bob")]
    assert_refused(
        game, lambda: game.return_bets("bob", 1), IllegalActionError, "is deciding hand 1"
    )


def test_rws_v5_5_7_3_a_standing_player_takes_his_bet_back_while_the_seated_player_decides() -> (
    None
):
    """RWS v5 5.7 gives "all Players on the gaming table" the choice after a dealing
    error, and 5.9 covers errors "during a Subsequent Deal": a misdealt hit card leaves
    bob, behind ann's box, the return of his bet, while ann plays her hand on."""
    game = deal("rws-v5", "10S 6D 2H 5C 10C 10D", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    game.hit()  # the card the dealing error concerns
    assert game.current_turn == (1, 1)
    game.return_bets("bob", 1)
    assert game.seated_player(1) == "ann" and game.current_turn == (1, 1)
    game.stand(player="ann")
    assert_money(
        game,
        [("bob", 1, 1, "main", "returned", "0"), ("ann", 1, 1, "main", "win", "100")],
        {"ann": "100", "bob": "0"},
    )


def test_rws_v5_5_7_3_the_seated_player_cannot_leave_the_hand_he_is_deciding() -> None:
    game = deal("rws-v5", "10S 6D 2H 5C 10C 10D", ("ann", 1, "100"), ("bob", 1, "50"))
    game.decline("ann", 1)
    game.hit()
    assert_refused(
        game, lambda: game.return_bets("ann", 1), IllegalActionError, "is deciding hand 1"
    )
