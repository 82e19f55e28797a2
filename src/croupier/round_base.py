"""What every part of a round shares: its state, what it shows, and its bookkeeping.

:class:`RoundBase` declares the attributes a :class:`~croupier.round.Round` holds (its
constructor sets them), the read-only views of them, and the helpers that record events
and settle or return bets.  The parts of a round (:mod:`croupier.betting`,
:mod:`croupier.offers`, :mod:`croupier.decisions`, :mod:`croupier.irregularities`) build
on it, as do :mod:`croupier.dealer` and :mod:`croupier.settlement`; the steps one part
takes from another are declared here with their signatures and defined in the part they
belong to.
"""

from __future__ import annotations

from collections.abc import Generator
from decimal import Decimal
from typing import TypeVar

from croupier.cards import Card, hand_total
from croupier.errors import IllegalActionError
from croupier.events import BetResult, BetReturned, BetSettled, Event
from croupier.money import quantize
from croupier.round_state import (
    MAIN,
    ZERO,
    Box,
    BoxView,
    Flow,
    Hand,
    HandView,
    NeedCard,
    NeedDecision,
    Offer,
    OfferKind,
    Phase,
    PlacedBet,
    Request,
    Wager,
)
from croupier.rules import Rules
from croupier.shoe import CardSource, CompositionCheck

__all__ = ["RoundBase"]

_E = TypeVar("_E", bound=Event)


class RoundBase:
    """The state of a round and what it shows; :class:`~croupier.round.Round` is the whole."""

    #: The table's rules.
    rules: Rules
    _source: CardSource
    _check: CompositionCheck
    _phase: Phase
    _events: list[Event]
    # Bets as placed while bets are open, and each box's first bettor.
    _bets: list[PlacedBet]
    _seated: dict[int, str]
    # The boxes in play once bets are closed.
    _boxes: list[Box]
    _results: list[BetResult]
    # The dealer's visible cards; the hole card joins them when it is turned.
    _dealer_cards: list[Card]
    _hole_card: Card | None
    _hole_revealed: bool
    _peeked: bool
    _offers: list[Offer]
    # What the flow waits for, and the flow itself (``None`` before the deal and at the end).
    _pending: Request | None
    _flow: Flow | None
    # Players who walked away.
    _absent: set[str]
    _void_reason: str | None

    # -- what the round shows ------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the round is."""
        return self._phase

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, oldest first."""
        return tuple(self._events)

    @property
    def results(self) -> tuple[BetResult, ...]:
        """Every settled bet; after a void, every bet of the round with net zero."""
        return tuple(self._results)

    @property
    def void_reason(self) -> str | None:
        """Why the round was voided, or ``None``."""
        return self._void_reason

    @property
    def dealer_cards(self) -> tuple[Card, ...]:
        """The dealer's cards a player can see (the hole card once it is turned)."""
        return tuple(self._dealer_cards)

    @property
    def hole_card(self) -> Card | None:
        """The dealer's face-down card, hidden information until revealed."""
        return None if self._hole_revealed else self._hole_card

    @property
    def up_card(self) -> Card | None:
        """The dealer's face-up first card."""
        return self._dealer_cards[0] if self._dealer_cards else None

    @property
    def dealer_total(self) -> int:
        """The total of the dealer's visible cards."""
        return hand_total(self._dealer_cards).total

    @property
    def awaiting_card(self) -> bool:
        """The round waits for the dealer to enter the next card (:meth:`deal_card`)."""
        return isinstance(self._pending, NeedCard)

    @property
    def offers(self) -> tuple[Offer, ...]:
        """The offers waiting for an answer."""
        return tuple(self._offers)

    @property
    def current_turn(self) -> tuple[int, int] | None:
        """The ``(box, hand)`` whose seated player must decide, or ``None``."""
        if isinstance(self._pending, NeedDecision):
            return (self._pending.box, self._pending.hand)
        return None

    @property
    def boxes(self) -> tuple[BoxView, ...]:
        """The boxes in play, from the dealer's left."""
        return tuple(
            BoxView(box.number, box.seated, tuple(self._hand_view(hand) for hand in box.hands))
            for box in self._boxes
        )

    @property
    def house_net(self) -> Decimal:
        """What the house won on the round so far (the players' net, negated)."""
        unit = self.rules.currency_unit
        return (-sum((result.net for result in self._results), ZERO)).quantize(unit)

    def net_by_player(self) -> dict[str, Decimal]:
        """Each player's net on the round so far."""
        nets: dict[str, Decimal] = {}
        for bet in self._bets:
            nets.setdefault(bet.player, ZERO)
        for result in self._results:
            nets[result.player] = nets.get(result.player, ZERO) + result.net
        unit = self.rules.currency_unit
        return {player: net.quantize(unit) for player, net in nets.items()}

    @property
    def placed_bets(self) -> tuple[PlacedBet, ...]:
        """Every bet placed so far this round, in order (withdrawn ones gone)."""
        return tuple(self._bets)

    def staked_by_player(self) -> dict[str, Decimal]:
        """The money each player has put on the table this round, every bet counted.

        Initial bets, side bets, insurance, doubles and the bets of split hands, as
        placed (a withdrawn bet no longer counts); what settlement later returns is in
        :attr:`results`.  A wallet takes this much from each player.
        """
        staked: dict[str, Decimal] = {}

        def add(player: str, amount: Decimal) -> None:
            staked[player] = staked.get(player, ZERO) + amount

        if not self._boxes:
            for placed in self._bets:
                add(placed.player, placed.amount)
            return staked
        for box in self._boxes:
            for placed in box.side_bets:
                add(placed.player, placed.amount)
            for player, amount in box.insurance.items():
                add(player, amount)
            for hand in box.hands:
                for wager in hand.wagers:
                    add(wager.player, wager.stake)
        return staked

    def seated_player(self, box: int) -> str | None:
        """The player who decides for a box."""
        for placed in self._boxes:
            if placed.number == box:
                return placed.seated
        return self._seated.get(box)

    def _hand_view(self, hand: Hand) -> HandView:
        total = hand_total(hand.cards)
        return HandView(
            number=hand.number,
            cards=tuple(hand.cards),
            total=total.total,
            is_soft=total.is_soft,
            is_blackjack=hand.is_blackjack,
            stakes=tuple((wager.player, wager.stake) for wager in hand.wagers),
            from_split=hand.from_split,
            doubled=hand.doubled,
            surrendered=hand.surrendered,
            finished=hand.finished,
        )

    # -- bookkeeping ---------------------------------------------------------------------------

    def _emit(self, event: _E) -> _E:
        self._events.append(event)
        return event

    def _return(
        self, player: str, box: int, hand: int | None, bet: str, amount: Decimal, reason: str
    ) -> None:
        self._emit(
            BetReturned(player=player, box=box, hand=hand, bet=bet, amount=amount, reason=reason)
        )

    def _settle(
        self,
        player: str,
        box: int,
        hand: int | None,
        bet: str,
        stake: Decimal,
        net: Decimal,
        outcome: str,
    ) -> None:
        result = BetResult(player, box, hand, bet, stake, net, outcome)
        self._results.append(result)
        self._emit(
            BetSettled(
                player=player, box=box, hand=hand, bet=bet, stake=stake, net=net, outcome=outcome
            )
        )

    def _settle_wager(self, box: Box, hand: Hand, wager: Wager, net: Decimal, outcome: str) -> None:
        wager.settled = True
        self._settle(wager.player, box.number, hand.number, MAIN, wager.stake, net, outcome)

    def _half(self, amount: Decimal) -> Decimal:
        return quantize(amount / 2, self.rules.currency_unit, self.rules.payout_rounding)

    def _half_loss(self, stake: Decimal) -> Decimal:
        return stake - self._half(stake)

    def _box(self, number: int) -> Box:
        for box in self._boxes:
            if box.number == number:
                return box
        raise IllegalActionError(f"box {number} has no bet in this round")

    def _draw(self, box: int | None, hand: int | None) -> Generator[Request, object, Card]:
        card = yield NeedCard(box, hand)
        assert isinstance(card, Card)
        return card

    # -- steps defined by the other parts -------------------------------------------------------

    def _play(self) -> Flow:
        """The round from the initial deal to settlement (:class:`~croupier.round.Round`)."""
        raise NotImplementedError

    def _advance(self, value: object) -> None:
        """Run the flow on with ``value`` (:class:`~croupier.round.Round`)."""
        raise NotImplementedError

    def _find_offer(self, kind: OfferKind, player: str | None, box: int | None) -> Offer:
        """The first open offer of ``kind`` (:mod:`croupier.offers`)."""
        raise NotImplementedError

    def _answer(self, offer: Offer, *, accept: bool, amount: Decimal | None = None) -> Event:
        """Accept or decline an open offer (:mod:`croupier.offers`)."""
        raise NotImplementedError

    def _require_turn(self, action: str, player: str | None) -> tuple[Box, Hand]:
        """The box and hand waiting for a decision (:mod:`croupier.decisions`)."""
        raise NotImplementedError

    def can_hit(self) -> bool:
        """Whether the hand whose turn it is may draw (:mod:`croupier.decisions`)."""
        raise NotImplementedError

    def _dealer_has_blackjack(self) -> bool:
        """Whether the dealer holds a blackjack, as far as known (:mod:`croupier.dealer`)."""
        raise NotImplementedError
