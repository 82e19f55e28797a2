"""The dealer's hand: its cards, the hole card, the peek, and what the dealer draws.

The dealer draws to 17 or more, and hits a soft 17 where the rules say so; he draws
only while some hand that is not bust, surrendered or a blackjack waits for him.  With
no hole card, his second card is dealt after the players' turns, and only while some
bet is open.  These are functions over a :class:`~croupier.round_state.RoundState`;
the flow (:mod:`croupier.flow`) decides when each is called.
"""

from __future__ import annotations

from croupier.cards import Card
from croupier.events import CardDealt, DealerFinished, HoleCardRevealed
from croupier.round_state import RoundState

__all__ = [
    "anything_open",
    "best_total",
    "blackjack_possible",
    "deal_to_dealer",
    "dealer_total",
    "finish",
    "has_blackjack",
    "live_hands",
    "reveal_hole_card",
    "up_can_make_blackjack",
]


def deal_to_dealer(state: RoundState, card: Card, *, face_up: bool) -> None:
    """Give the dealer a card, face up or as his hole card."""
    if face_up:
        state.dealer_cards.append(card)
    else:
        state.hole_card = card
    state.events.append(CardDealt(card=card.text, box=None, hand=None, face_up=face_up))


def up_can_make_blackjack(state: RoundState) -> bool:
    """The dealer's up card is an Ace or a ten."""
    points = state.dealer_cards[0].points
    return points == 1 or points == 10


def has_blackjack(state: RoundState) -> bool:
    """The dealer holds a blackjack, as far as is known (a peeked hole card counts)."""
    cards = state.dealer_cards
    if state.peeked and state.hole_card is not None and not state.hole_revealed:
        cards = [*cards, state.hole_card]
    return (
        len(cards) == 2
        and cards[0].points + cards[1].points == 11
        and (cards[0].points == 1 or cards[1].points == 1)
    )


def blackjack_possible(state: RoundState) -> bool:
    """The dealer may still turn out to hold a blackjack."""
    if len(state.dealer_cards) >= 2 or state.peeked:
        return has_blackjack(state)
    return up_can_make_blackjack(state)


def dealer_total(state: RoundState) -> int:
    """The total of the dealer's visible cards."""
    return best_total(state.dealer_cards)[0]


def best_total(cards: list[Card]) -> tuple[int, bool]:
    """The best total of cards and whether it is soft (:func:`~croupier.cards.hand_total`,
    without building a named tuple: the dealer's turn asks it at every card)."""
    hard = 0
    ace = False
    for card in cards:
        points = card.points
        hard += points
        if points == 1:
            ace = True
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def reveal_hole_card(state: RoundState) -> None:
    """Turn the hole card over (once)."""
    hole = state.hole_card
    if hole is not None and not state.hole_revealed:
        state.hole_revealed = True
        if state.rules.hole_card_dealt_first:
            state.dealer_cards.insert(1, hole)
        else:
            state.dealer_cards.append(hole)
        state.events.append(HoleCardRevealed(card=hole.text))


def live_hands(state: RoundState) -> bool:
    """Some open bet is on a hand the dealer's total decides."""
    for box in state.boxes:
        for hand in box.hands:
            if hand.busted or hand.surrendered or hand.is_blackjack:
                continue
            for wager in hand.wagers:
                if not wager.settled:
                    return True
    return False


def anything_open(state: RoundState) -> bool:
    """Some bet on a hand, or some insurance, is not settled yet."""
    for box in state.boxes:
        if box.insurance and not box.insurance_settled:
            return True
        for hand in box.hands:
            for wager in hand.wagers:
                if not wager.settled:
                    return True
    return False


def finish(state: RoundState) -> None:
    """The dealer's hand is complete."""
    cards = state.dealer_cards
    total = best_total(cards)[0]
    state.events.append(
        DealerFinished(
            cards=tuple([card.text for card in cards]),
            total=total,
            blackjack=has_blackjack(state),
            busted=total > 21,
        )
    )
