"""One round of blackjack at a table: a pure, deterministic state machine.

The round follows the rulebooks' sequence: bets open, "No more bets", the initial
deal, interim settlement (side bets, immediate blackjack payments, insurance and
even money, surrender refunds), each box's decisions hand by hand from the
dealer's left, the dealer, and final settlement.  It takes cards from the card
source it is given and decisions from its caller; it reads no clock and draws no
random number.  Every step appends an immutable event to :attr:`Round.events`.

Every decision is a triplet: a query (``can_double()``), a verification that
raises a typed error naming the state (``verify_double()``), and the action
(``double_down()``), which returns its event.  A refused action changes nothing.

The parts live in their own modules: the vocabulary and internal state in
:mod:`croupier.round_state`, the shared state and views in :mod:`croupier.round_base`,
bets in :mod:`croupier.betting`, offers in :mod:`croupier.offers`, decisions in
:mod:`croupier.decisions`, the dealer's hand in :mod:`croupier.dealer`, settlement in
:mod:`croupier.settlement`, irregularities in :mod:`croupier.irregularities`.  This
module holds the flow that runs them in order.

>>> from croupier.rules import Rules, HoleCard
>>> from croupier.shoe import FixedOrder
>>> rules = Rules(hole_card=HoleCard.PEEK)
>>> game = Round(rules, FixedOrder("10S 6D 9H 7C 5S"))
>>> _ = game.place_bet("ann", 1, "10")
>>> _ = game.close_bets()
>>> game.phase
<Phase.PLAYER_TURNS: 'player-turns'>
>>> [action.value for action in game.legal_actions()]
['hit', 'stand', 'double']
>>> game.stand().type
'player_stood'
>>> game.phase, [str(card) for card in game.dealer_cards], game.house_net
(<Phase.SETTLED: 'settled'>, ['6D', '7C', '5S'], Decimal('-10.00'))
"""

from __future__ import annotations

from collections.abc import Generator

from croupier.betting import BettingMixin
from croupier.cards import Card, Rank
from croupier.dealer import DealerMixin
from croupier.decisions import DecisionsMixin
from croupier.errors import IllegalActionError
from croupier.events import (
    CardDealt,
    DealerPeeked,
    Event,
    PlayerDoubledDown,
    PlayerHit,
    PlayerSplit,
    PlayerStood,
    PlayerSurrendered,
)
from croupier.irregularities import IrregularitiesMixin
from croupier.money import payout
from croupier.offers import OffersMixin
from croupier.round_state import INSURANCE as INSURANCE
from croupier.round_state import (
    MAIN,
    Action,
    Box,
    BoxView,
    Decision,
    Flow,
    Hand,
    HandView,
    NeedCard,
    NeedDecision,
    Offer,
    OfferKind,
    Phase,
    Request,
    Wager,
    lead_wager,
)
from croupier.rules import DealerBlackjackTakes, HoleCard, Rules, SideBet, Surrender
from croupier.settlement import SettlementMixin
from croupier.shoe import (
    CardSource,
    CompositionCheck,
    DealerEntry,
    ExcessCardFound,
    ForeignCardFound,
    ShoeExhausted,
)
from croupier.sidebets import settle_side_bet

__all__ = ["MAIN", "Action", "BoxView", "HandView", "Offer", "OfferKind", "Phase", "Round"]


class Round(
    BettingMixin,
    OffersMixin,
    DecisionsMixin,
    DealerMixin,
    SettlementMixin,
    IrregularitiesMixin,
):
    """A round at a table, from "Place your bets" to final settlement or void.

    Args:
        rules: the table's rules.
        source: where the cards come from (see :mod:`croupier.shoe`).
        check: the shoe's composition check; a table keeps one across rounds of a
            shoe. A new one is made when none is given.
    """

    def __init__(
        self, rules: Rules, source: CardSource, *, check: CompositionCheck | None = None
    ) -> None:
        self.rules = rules
        self._source = source
        self._check = check if check is not None else CompositionCheck(rules.decks)
        self._phase = Phase.BETTING
        self._events = []
        self._bets = []
        self._seated = {}
        self._boxes = []
        self._results = []
        self._dealer_cards = []
        self._hole_card = None
        self._hole_revealed = False
        self._peeked = False
        self._offers = []
        self._pending = None
        self._flow = None
        self._absent = set()
        self._void_reason = None

    # -- the flow ------------------------------------------------------------------------------

    def _play(self) -> Flow:
        self._return_orphan_side_bets()
        yield from self._initial_deal()
        self._phase = Phase.OFFERS
        finished = yield from self._interim_settlement()
        if finished:
            return
        self._phase = Phase.PLAYER_TURNS
        for box in self._boxes:
            index = 0
            while index < len(box.hands):
                hand = box.hands[index]
                if len(hand.cards) == 1:
                    yield from self._deal(box, hand)
                yield from self._play_hand(box, hand)
                index += 1
        self._phase = Phase.DEALER_TURN
        yield from self._dealer_turn()
        self._final_settlement()

    def _deal(self, box: Box, hand: Hand) -> Generator[Request, object, None]:
        card = yield from self._draw(box.number, hand.number)
        hand.cards.append(card)
        self._emit(CardDealt(card=str(card), box=box.number, hand=hand.number, face_up=True))

    def _initial_deal(self) -> Generator[Request, object, None]:
        rules = self.rules
        for box in self._boxes:
            yield from self._deal(box, box.hands[0])
        yield from self._deal_dealer(face_up=not rules.hole_card_dealt_first)
        for box in self._boxes:
            yield from self._deal(box, box.hands[0])
        if rules.hole_card is not HoleCard.NONE:
            yield from self._deal_dealer(face_up=rules.hole_card_dealt_first)

    def _interim_settlement(self) -> Generator[Request, object, bool]:
        rules = self.rules
        up = self._dealer_cards[0]
        for box in self._boxes:
            first_two = box.hands[0].cards
            for bet in box.side_bets:
                result = settle_side_bet(SideBet(bet.bet), rules, first_two, up)
                net = (
                    payout(bet.amount, result.pays, rules.currency_unit, rules.payout_rounding)
                    if result.pays is not None
                    else -bet.amount
                )
                self._settle(bet.player, box.number, None, bet.bet, bet.amount, net, result.outcome)
        if rules.blackjack_paid_immediately and not self._up_can_make_blackjack():
            self._pay_blackjacks()
        offers: list[Offer] = []
        for box in self._boxes:
            hand = box.hands[0]
            if up.rank is Rank.ACE and rules.insurance:
                for wager in hand.wagers:
                    half = self._insurance_limit(box.initial[wager.player])
                    if hand.is_blackjack and rules.even_money:
                        offers.append(Offer(OfferKind.EVEN_MONEY, wager.player, box.number, 1))
                    if half > 0 and (not hand.is_blackjack or rules.insurance_with_blackjack):
                        offers.append(Offer(OfferKind.INSURANCE, wager.player, box.number, 1, half))
            if (
                rules.surrender is Surrender.RWS
                and up.rank is not Rank.ACE
                and not hand.is_blackjack
            ):
                offers.append(Offer(OfferKind.SURRENDER, box.seated, box.number, 1))
        yield from self._ask(offers)
        if rules.hole_card is HoleCard.PEEK and self._up_can_make_blackjack():
            self._peeked = True
            blackjack = self._dealer_has_blackjack()
            self._emit(DealerPeeked(blackjack=blackjack))
            if blackjack:
                self._phase = Phase.DEALER_TURN
                self._reveal_hole_card()
                self._finish_dealer()
                self._final_settlement()
                return True
            self._settle_insurance(dealer_blackjack=False)
            self._pay_blackjacks()
        return False

    # -- player turns --------------------------------------------------------------------------

    def _play_hand(self, box: Box, hand: Hand) -> Generator[Request, object, None]:
        while not hand.finished:
            if all(wager.settled for wager in hand.wagers) or hand.is_blackjack:
                hand.finished = True
                return
            actions = self._legal_actions(box, hand)
            if actions == (Action.STAND,):
                self._stand(box, hand, automatic=True)
                return
            if hand.auto_play or box.seated in self._absent:
                total = hand.total
                choice = Action.HIT if total < 12 and Action.HIT in actions else Action.STAND
                decision = Decision(choice)
            else:
                answer = yield NeedDecision(box.number, hand.number)
                assert isinstance(answer, Decision)
                decision = answer
            hand.decisions += 1
            yield from self._apply(box, hand, decision)

    def _apply(self, box: Box, hand: Hand, decision: Decision) -> Generator[Request, object, None]:
        rules = self.rules
        if decision.action is Action.STAND:
            self._stand(box, hand, automatic=False)
        elif decision.action is Action.HIT:
            self._emit(PlayerHit(box=box.number, hand=hand.number))
            yield from self._deal(box, hand)
            if hand.busted:
                self._bust(box, hand)
        elif decision.action is Action.DOUBLE:
            seated = lead_wager(box, hand)
            amount = decision.amount if decision.amount is not None else seated.initial
            seated.double = amount
            hand.doubled = True
            self._emit(
                PlayerDoubledDown(
                    player=seated.player, box=box.number, hand=hand.number, amount=amount
                )
            )
            offers = []
            for wager in hand.wagers:
                if wager is seated:
                    continue
                follow = self._follow_amount(wager.initial, amount, seated.initial)
                if follow > 0:
                    offers.append(
                        Offer(
                            OfferKind.FOLLOW_DOUBLE, wager.player, box.number, hand.number, follow
                        )
                    )
            yield from self._ask(offers)
            yield from self._deal(box, hand)
            if hand.busted:
                self._bust(box, hand)
            else:
                self._stand(box, hand, automatic=True)
        elif decision.action is Action.SPLIT:
            seated = lead_wager(box, hand)
            new = Hand(
                len(box.hands) + 1,
                [hand.cards.pop()],
                [Wager(seated.player, seated.initial)],
                from_split=True,
                split_aces=hand.cards[0].rank is Rank.ACE,
            )
            hand.from_split = True
            hand.split_aces = new.split_aces
            box.hands.append(new)
            self._emit(
                PlayerSplit(
                    player=seated.player,
                    box=box.number,
                    hand=hand.number,
                    new_hand=new.number,
                    amount=seated.initial,
                )
            )
            offers = [
                Offer(OfferKind.FOLLOW_SPLIT, wager.player, box.number, new.number, wager.initial)
                for wager in hand.wagers
                if wager is not seated
            ]
            yield from self._ask(offers)
            yield from self._deal(box, hand)
        elif decision.action is Action.SURRENDER:
            hand.surrendered = True
            hand.finished = True
            self._emit(PlayerSurrendered(box=box.number, hand=hand.number))
            held = rules.surrender is Surrender.CASINO_TO_GO and self._dealer_blackjack_possible()
            if not held:
                for wager in hand.wagers:
                    self._settle_wager(box, hand, wager, -self._half_loss(wager.stake), "surrender")

    def _stand(self, box: Box, hand: Hand, *, automatic: bool) -> None:
        hand.finished = True
        self._emit(
            PlayerStood(box=box.number, hand=hand.number, total=hand.total, automatic=automatic)
        )

    def _bust(self, box: Box, hand: Hand) -> None:
        hand.finished = True
        held = (
            self.rules.dealer_blackjack_takes is DealerBlackjackTakes.ORIGINAL_BET
            and self._dealer_blackjack_possible()
        )
        if not held:
            for wager in hand.wagers:
                self._settle_wager(box, hand, wager, -wager.stake, "bust")

    # -- driving the flow ----------------------------------------------------------------------

    def deal_card(self, card: object) -> Event:
        """Enter the next card from a physical shoe (the source must be a :class:`DealerEntry`)."""
        if not isinstance(self._source, DealerEntry):
            raise IllegalActionError("cannot deal a card by hand: this round deals from its shoe")
        if not self.awaiting_card:
            raise IllegalActionError(
                f"cannot deal a card: the round is not waiting for one (phase={self._phase.value})"
            )
        self._source.enter(card)  # type: ignore[arg-type]
        start = len(self._events)
        self._advance(None)
        return self._events[start]

    def _advance(self, value: object) -> None:
        if isinstance(self._pending, NeedCard):
            # The round waited for the dealer to enter this card: it is taken first.
            value = self._take_card()
            if value is None:
                return
        while self._flow is not None:
            try:
                request = self._flow.send(value)
            except StopIteration:
                self._flow = None
                self._pending = None
                return
            value = None
            if isinstance(request, NeedCard):
                value = self._take_card()
                if value is None:
                    if self._flow is not None:
                        self._pending = request
                    return
                continue
            self._pending = request
            return

    def _take_card(self) -> Card | None:
        """The next card of the source; ``None`` when it is not entered yet or the round is void."""
        try:
            drawn = self._source.draw()
        except ShoeExhausted as error:
            self._void(str(error))
            return None
        if drawn is None:
            return None
        try:
            return self._check.take(drawn)
        except (ForeignCardFound, ExcessCardFound) as error:
            self._void(str(error))
            return None
