"""The round's flow: the rulebooks' sequence, run from an explicit cursor.

:func:`run` takes a round on from where its :class:`~croupier.round_state.Cursor`
stands until it needs something only a caller can give (a decision, answers to
offers, a card a dealer enters, the word to settle) or the round is over; it then
says so on the cursor (``awaiting``).  Each step reads the state and writes it; none
keeps anything of its own between calls, so a round stopped anywhere can be copied,
written out and restored, and runs on the same way.

The steps, in order: the initial deal (the boxes from the dealer's left, the
dealer, the boxes again, then the hole card where there is one); interim settlement
(side bets, blackjacks paid at once, the offers of insurance, even money and the RWS
surrender, then the peek); each box's hands in turn, a split hand dealt its second
card when its turn comes; the dealer's hand; final settlement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from croupier.cards import Card, DrawnCard
from croupier.dealer import (
    anything_open,
    best_total,
    deal_to_dealer,
    dealer_total,
    finish,
    has_blackjack,
    live_hands,
    reveal_hole_card,
    up_can_make_blackjack,
)
from croupier.decisions import decide, deciding_wager, holds_bust, legal_actions, stand
from croupier.events import CardDealt, DealerPeeked
from croupier.irregularities import void
from croupier.money import payout
from croupier.offers import insurance_limit, put
from croupier.round_state import (
    Action,
    Awaiting,
    Box,
    Hand,
    Offer,
    OfferKind,
    Owed,
    Phase,
    RoundState,
    Step,
)
from croupier.rules import HoleCard, SideBet, Surrender
from croupier.settlement import bust, final_settlement, pay_blackjacks, settle, settle_insurance
from croupier.shoe import ExcessCardFound, ForeignCardFound, ShoeExhausted
from croupier.sidebets import settle_side_bet

__all__ = ["CardFor", "next_card", "run", "take_card"]


def run(state: RoundState) -> None:
    """Run the round on until it waits for a command or is over."""
    cursor = state.cursor
    steps = _STEPS
    while steps[cursor.step](state):
        pass


def _betting(state: RoundState) -> bool:
    state.cursor.awaiting = _BETS
    return False


def _over(state: RoundState) -> bool:
    state.cursor.awaiting = _NOTHING
    return False


def _settlement(state: RoundState) -> bool:
    if not state.settles:
        state.cursor.awaiting = _SETTLEMENT_DUE
        return False
    final_settlement(state, has_blackjack(state), dealer_total(state))
    state.cursor.step = _STEP_OVER
    return True


def take_card(state: RoundState) -> Card | None:
    """The next card for the round; ``None`` when it waits for one or was just voided.

    A card a dealer entered is taken first; otherwise the source deals one when the
    round deals by itself.  Every card is held to the shoe's composition: a card from
    outside the set, one copy too many, or a shoe with nothing left voids the round,
    citing the table's own clause.
    """
    drawn: DrawnCard | None = state.entered
    rules = state.rules
    if drawn is not None:
        state.entered = None
    elif state.deals and state.source is not None:
        try:
            drawn = state.source.draw()
        except ShoeExhausted:
            void(
                state,
                f"the shoe has no card left to complete the round ({rules.cite_shoe_exhausted})",
            )
            return None
        if drawn is None:
            state.cursor.awaiting = _CARD
            return None
    else:
        state.cursor.awaiting = _CARD
        return None
    try:
        return state.check.take(drawn)
    except ForeignCardFound as error:
        void(state, error.reason(rules.cite_foreign_card))
    except ExcessCardFound as error:
        void(state, error.reason(rules.cite_excess_card))
    return None


def _initial_box(count: int, index: int) -> int | None:
    """Which box (by its place, 0 first) the ``index``-th card of the initial deal goes
    to, ``count`` boxes in play: one card each, the dealer's, a second card each, then
    the dealer's second where the game has one (``None``: the dealer's card)."""
    if index < count:
        return index
    if count < index <= 2 * count:
        return index - count - 1
    return None


@dataclass(frozen=True)
class CardFor:
    """Where the card a round waits for goes: a box's hand, or the dealer (his hole
    card when ``hole``).

    >>> str(CardFor(2, 1, 1)), str(CardFor(2, 2, 2)), str(CardFor(None, None, 0, hole=True))
    ('box 2', 'box 2, hand 2', 'the dealer (hole card)')
    """

    box: int | None
    hand: int | None
    hands: int
    hole: bool = False

    def __str__(self) -> str:
        if self.box is None:
            return "the dealer (hole card)" if self.hole else "the dealer"
        return f"box {self.box}" if self.hands == 1 else f"box {self.box}, hand {self.hand}"


def next_card(state: RoundState) -> CardFor | None:
    """Where the next card goes while the round waits for one (a dealer enters the
    cards); ``None`` when it waits for no card."""
    if state.cursor.awaiting is not Awaiting.CARD:
        return None
    cursor, boxes, rules = state.cursor, state.boxes, state.rules
    if cursor.step is Step.INITIAL_DEAL:
        count = len(boxes)
        box_index = _initial_box(count, cursor.card)
        if box_index is not None:
            box = boxes[box_index]
            return CardFor(box.number, 1, len(box.hands))
        if cursor.card == count:
            return CardFor(None, None, 0, hole=rules.hole_card_dealt_first)
        second_hole = rules.hole_card is not HoleCard.NONE and not rules.hole_card_dealt_first
        return CardFor(None, None, 0, hole=second_hole)
    if cursor.step is Step.TURNS and cursor.box < len(boxes):
        box = boxes[cursor.box]
        if cursor.hand < len(box.hands):
            return CardFor(box.number, box.hands[cursor.hand].number, len(box.hands))
    return CardFor(None, None, 0)


def _deal_to_hand(state: RoundState, box: Box, hand: Hand, card: Card) -> None:
    hand.add(card)
    state.events.append(CardDealt(card=card.text, box=box.number, hand=hand.number, face_up=True))


def _initial_deal(state: RoundState) -> bool:
    rules = state.rules
    boxes = state.boxes
    cursor = state.cursor
    count = len(boxes)
    last = 2 * count + (1 if rules.hole_card is _NO_HOLE_CARD else 2)
    while cursor.card < last:
        card = take_card(state)
        if card is None:
            return state.phase is _VOID
        index = cursor.card
        box_index = _initial_box(count, index)
        if box_index is not None:
            _deal_to_hand(state, boxes[box_index], boxes[box_index].hands[0], card)
        elif index == count:
            deal_to_dealer(state, card, face_up=not rules.hole_card_dealt_first)
        else:
            deal_to_dealer(state, card, face_up=rules.hole_card_dealt_first)
        cursor.card = index + 1
    state.phase = _PHASE_OFFERS
    cursor.step = _STEP_INTERIM
    return True


def _interim(state: RoundState) -> bool:
    """Side bets, blackjacks paid at once, then the interim offers."""
    rules = state.rules
    up = state.dealer_cards[0]
    for box in state.boxes:
        if box.side_bets:
            first_two = box.hands[0].cards
            for bet in box.side_bets:
                result = settle_side_bet(SideBet(bet.bet), rules, first_two, up)
                net = (
                    payout(bet.amount, result.pays, rules.currency_unit, rules.payout_rounding)
                    if result.pays is not None
                    else -bet.amount
                )
                settle(
                    state, bet.player, box.number, None, bet.bet, bet.amount, net, result.outcome
                )
    state.side_bets_settled = True
    if rules.blackjack_paid_immediately and not up_can_make_blackjack(state):
        pay_blackjacks(state)
    offers: list[Offer] = []
    up_is_ace = up.points == 1
    for box in state.boxes:
        hand = box.hands[0]
        if up_is_ace and rules.insurance:
            for wager in hand.wagers:
                if wager.settled:
                    continue
                limit = insurance_limit(state, box.initial[wager.player])
                if hand.is_blackjack and rules.even_money:
                    offers.append(Offer(_EVEN_MONEY, wager.player, box.number, 1))
                if limit > 0 and (not hand.is_blackjack or rules.insurance_with_blackjack):
                    offers.append(Offer(_INSURANCE, wager.player, box.number, 1, limit))
        if (
            rules.surrender is _RWS_SURRENDER
            and not up_is_ace
            and not hand.is_blackjack
            and deciding_wager(box, hand) is not None
        ):
            offers.append(Offer(_SURRENDER, box.seated, box.number, 1))
    put(state, offers)
    state.cursor.step = _STEP_INTERIM_OFFERS
    return True


def _after_interim_offers(state: RoundState) -> bool:
    """Once every offer is answered: the peek, then the players' turns."""
    cursor = state.cursor
    if state.offers:
        cursor.awaiting = _ANSWERS
        return False
    if state.rules.hole_card is _PEEK and up_can_make_blackjack(state):
        state.peeked = True
        blackjack = has_blackjack(state)
        state.events.append(DealerPeeked(blackjack=blackjack))
        if blackjack:
            state.phase = _DEALER_TURN
            reveal_hole_card(state)
            finish(state)
            cursor.step = _STEP_SETTLEMENT
            return True
        settle_insurance(state, dealer_blackjack=False)
        pay_blackjacks(state)
    state.phase = _PLAYER_TURNS
    cursor.step = _STEP_TURNS
    cursor.box = 0
    cursor.hand = 0
    return True


def _bust(state: RoundState, box: Box, hand: Hand) -> None:
    hand.finished = True
    if not holds_bust(state):
        bust(state, box, hand)


def _turns(state: RoundState) -> bool:
    """Each box's hands in turn, until one waits for a decision, answers or a card."""
    cursor = state.cursor
    boxes = state.boxes
    while True:
        box_index = cursor.box
        if box_index >= len(boxes):
            state.phase = _DEALER_TURN
            cursor.step = _STEP_DEALER
            return True
        box = boxes[box_index]
        hands = box.hands
        hand_index = cursor.hand
        if hand_index >= len(hands):
            cursor.box = box_index + 1
            cursor.hand = 0
            continue
        hand = hands[hand_index]
        if state.offers:
            cursor.awaiting = _ANSWERS
            return False
        owed = cursor.owed
        if owed is not _NO_CARD or len(hand.cards) == 1:
            card = take_card(state)
            if card is None:
                return state.phase is _VOID
            _deal_to_hand(state, box, hand, card)
            cursor.owed = _NO_CARD
            if owed is _HIT_CARD:
                if hand.hard > 21:
                    _bust(state, box, hand)
            elif owed is _DOUBLE_CARD:
                if hand.hard > 21:
                    _bust(state, box, hand)
                else:
                    stand(state, box, hand, automatic=True)
            continue
        if hand.finished:
            cursor.hand = hand_index + 1
            continue
        if hand.is_blackjack or _all_settled(hand):
            hand.finished = True
            cursor.hand = hand_index + 1
            continue
        actions = legal_actions(state, box, hand)
        if actions == _ONLY_STAND:
            stand(state, box, hand, automatic=True)
            continue
        if hand.auto_play or box.seated in state.absent or deciding_wager(box, hand) is None:
            # Played for the player by the absent-player rule (RWS v5 5.3).
            choice = _HIT if hand.total < 12 and _HIT in actions else _STAND
            decide(state, box, hand, choice)
            continue
        cursor.legal = actions
        cursor.awaiting = _DECISION
        return False


_ONLY_STAND = (Action.STAND,)


def _all_settled(hand: Hand) -> bool:
    # A loop, not all() over a generator: asked for every hand the flow looks at.
    for wager in hand.wagers:  # noqa: SIM110
        if not wager.settled:
            return False
    return True


def _dealer(state: RoundState) -> bool:
    """The dealer's hand: the hole card turned, then drawn to the rules."""
    rules = state.rules
    cards = state.dealer_cards
    if rules.hole_card is not _NO_HOLE_CARD:
        reveal_hole_card(state)
    elif len(cards) == 1 and anything_open(state):
        # No hole card: his second card comes now, while some bet is open.
        card = take_card(state)
        if card is None:
            return state.phase is _VOID
        deal_to_dealer(state, card, face_up=True)
    if len(cards) > 1 and live_hands(state) and not has_blackjack(state):
        hits_soft_17 = rules.dealer_hits_soft_17
        while True:
            total, soft = best_total(cards)
            if total > 17 or (total == 17 and not (soft and hits_soft_17)):
                break
            card = take_card(state)
            if card is None:
                return state.phase is _VOID
            deal_to_dealer(state, card, face_up=True)
    finish(state)
    state.cursor.step = _STEP_SETTLEMENT
    return True


# Enum members as module names: on Python 3.11 reading a member off its class goes
# through EnumType.__getattr__'s slow hook (about 70 ns), and a round reads dozens.
_BETS = Awaiting.BETS
_NOTHING = Awaiting.NOTHING
_CARD = Awaiting.CARD
_ANSWERS = Awaiting.ANSWERS
_DECISION = Awaiting.DECISION
_VOID = Phase.VOID
_STAND = Action.STAND
_HIT = Action.HIT
_NO_CARD = Owed.NOTHING
_HIT_CARD = Owed.HIT
_DOUBLE_CARD = Owed.DOUBLE
_SETTLEMENT_DUE = Awaiting.SETTLEMENT
_STEP_OVER = Step.OVER
_NO_HOLE_CARD = HoleCard.NONE
_PHASE_OFFERS = Phase.OFFERS
_STEP_INTERIM_OFFERS = Step.INTERIM_OFFERS
_STEP_INTERIM = Step.INTERIM
_EVEN_MONEY = OfferKind.EVEN_MONEY
_INSURANCE = OfferKind.INSURANCE
_SURRENDER = OfferKind.SURRENDER
_RWS_SURRENDER = Surrender.RWS
_PEEK = HoleCard.PEEK
_DEALER_TURN = Phase.DEALER_TURN
_STEP_SETTLEMENT = Step.SETTLEMENT
_PLAYER_TURNS = Phase.PLAYER_TURNS
_STEP_TURNS = Step.TURNS
_STEP_DEALER = Step.DEALER
_STEPS: dict[Step, Callable[[RoundState], bool]] = {
    Step.BETTING: _betting,
    Step.INITIAL_DEAL: _initial_deal,
    Step.INTERIM: _interim,
    Step.INTERIM_OFFERS: _after_interim_offers,
    Step.TURNS: _turns,
    Step.DEALER: _dealer,
    Step.SETTLEMENT: _settlement,
    Step.OVER: _over,
}
