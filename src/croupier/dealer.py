"""The dealer's hand: its cards, the hole card, the peek, and the dealer's turn.

The dealer draws to 17 or more, and hits a soft 17 where the rules say so; he draws
only while some hand that is not bust, surrendered or a blackjack waits for him.  With
no hole card, his second card is dealt after the players' turns, and only while some
bet is open.
"""

from __future__ import annotations

from collections.abc import Generator

from croupier.cards import Rank, hand_total
from croupier.events import CardDealt, DealerFinished, HoleCardRevealed
from croupier.round_base import RoundBase
from croupier.round_state import Request
from croupier.rules import HoleCard

__all__ = ["DealerMixin"]


class DealerMixin(RoundBase):
    """Dealing to the dealer, what his cards may still make, and his turn."""

    def _deal_dealer(self, *, face_up: bool) -> Generator[Request, object, None]:
        card = yield from self._draw(None, None)
        if face_up:
            self._dealer_cards.append(card)
        else:
            self._hole_card = card
        self._emit(CardDealt(card=str(card), box=None, hand=None, face_up=face_up))

    def _up_can_make_blackjack(self) -> bool:
        up = self._dealer_cards[0]
        return up.rank is Rank.ACE or up.is_ten_value

    def _dealer_blackjack_possible(self) -> bool:
        """The dealer may still turn out to hold a blackjack."""
        if len(self._dealer_cards) >= 2 or self._peeked:
            return self._dealer_has_blackjack()
        return self._up_can_make_blackjack()

    def _dealer_has_blackjack(self) -> bool:
        cards = self._dealer_cards
        if self._peeked and self._hole_card is not None and not self._hole_revealed:
            cards = [*cards, self._hole_card]
        return len(cards) == 2 and hand_total(cards).total == 21

    def _reveal_hole_card(self) -> None:
        if self._hole_card is not None and not self._hole_revealed:
            self._hole_revealed = True
            if self.rules.hole_card_dealt_first:
                self._dealer_cards.insert(1, self._hole_card)
            else:
                self._dealer_cards.append(self._hole_card)
            self._emit(HoleCardRevealed(card=str(self._hole_card)))

    # -- the dealer's turn ---------------------------------------------------------------------

    def _live_hands(self) -> bool:
        return any(
            not wager.settled and not hand.busted and not hand.surrendered and not hand.is_blackjack
            for box in self._boxes
            for hand in box.hands
            for wager in hand.wagers
        )

    def _anything_open(self) -> bool:
        return any(
            not wager.settled for box in self._boxes for hand in box.hands for wager in hand.wagers
        ) or any(box.insurance and not box.insurance_settled for box in self._boxes)

    def _dealer_turn(self) -> Generator[Request, object, None]:
        rules = self.rules
        live = self._live_hands()
        if rules.hole_card is HoleCard.NONE:
            if self._anything_open():
                yield from self._deal_dealer(face_up=True)
        else:
            self._reveal_hole_card()
        if live and not self._dealer_has_blackjack():
            while True:
                total = hand_total(self._dealer_cards)
                if total.total < 17 or (
                    total.total == 17 and total.is_soft and rules.dealer_hits_soft_17
                ):
                    yield from self._deal_dealer(face_up=True)
                else:
                    break
        self._finish_dealer()

    def _finish_dealer(self) -> None:
        total = self.dealer_total
        self._emit(
            DealerFinished(
                cards=tuple(str(card) for card in self._dealer_cards),
                total=total,
                blackjack=self._dealer_has_blackjack(),
                busted=total > 21,
            )
        )
