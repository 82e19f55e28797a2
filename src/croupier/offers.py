"""Offers: questions the table puts to one player, answered yes or no.

Insurance and even money against a dealer Ace (RWS v5 3.14), the RWS surrender before
the players' turns, and following the seated player's split or double (3.21.1, 3.22.1).
The flow puts its offers with ``_ask`` and waits until every one is answered; a player
who has left declines his.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from decimal import Decimal

from croupier.errors import BetError, IllegalActionError
from croupier.events import (
    DoubleFollowed,
    EvenMoneyTaken,
    Event,
    InsuranceTaken,
    OfferDeclined,
    PlayerSurrendered,
    SplitFollowed,
)
from croupier.money import PayoutRounding, parse_amount, quantize
from croupier.round_base import RoundBase
from croupier.round_state import NeedAnswers, Offer, OfferKind, Request, Wager

__all__ = ["OffersMixin"]

_FOLLOWS = (OfferKind.FOLLOW_SPLIT, OfferKind.FOLLOW_DOUBLE)


def _kinds(kind: OfferKind | None) -> tuple[OfferKind, ...]:
    return tuple(OfferKind) if kind is None else (kind,)


class OffersMixin(RoundBase):
    """Putting offers and taking their answers."""

    def _find_offer(self, kind: OfferKind, player: str | None, box: int | None) -> Offer:
        for offer in self._offers:
            if (
                offer.kind is kind
                and (player is None or offer.player == player)
                and (box is None or offer.box == box)
            ):
                return offer
        who = f" to {player}" if player is not None else ""
        where = f" on box {box}" if box is not None else ""
        raise IllegalActionError(
            f"cannot take {kind.value}: no {kind.value} offer is open{who}{where} "
            f"(phase={self._phase.value})"
        )

    def can_take_insurance(self, player: str, box: int, amount: object = None) -> bool:
        """Whether ``player`` may insure his bet on ``box`` (for ``amount``)."""
        try:
            self.verify_take_insurance(player, box, amount)
        except (IllegalActionError, BetError):
            return False
        return True

    def verify_take_insurance(self, player: str, box: int, amount: object = None) -> Decimal:
        """Check an insurance bet; returns its amount (default: the most allowed)."""
        offer = self._find_offer(OfferKind.INSURANCE, player, box)
        assert offer.amount is not None
        if amount is None:
            return offer.amount
        value = parse_amount(amount, self.rules.currency_unit, what="insurance")
        if value > offer.amount:
            raise BetError(
                f"cannot take insurance: {value} is more than half the initial bet ({offer.amount})"
            )
        if value != offer.amount and not self.rules.insurance_for_less:
            raise BetError(
                f"cannot take insurance: it is exactly half the initial bet ({offer.amount}) "
                f"at {self.rules.name}"
            )
        return value

    def take_insurance(self, player: str, box: int, amount: object = None) -> Event:
        """Insure a bet against a dealer blackjack (pays 2 to 1)."""
        value = self.verify_take_insurance(player, box, amount)
        offer = self._find_offer(OfferKind.INSURANCE, player, box)
        return self._answer(offer, accept=True, amount=value)

    def can_take_even_money(self, player: str, box: int) -> bool:
        """Whether ``player`` may take even money on ``box``."""
        return self._open_offer(player, box, (OfferKind.EVEN_MONEY,)) is not None

    def verify_take_even_money(self, player: str, box: int) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` may take even money on ``box``."""
        self._require_offer("take even money", player, box, (OfferKind.EVEN_MONEY,))

    def take_even_money(self, player: str, box: int) -> Event:
        """Settle a blackjack against a dealer Ace at 1 to 1 now (RWS v5 3.14.1)."""
        offer = self._require_offer("take even money", player, box, (OfferKind.EVEN_MONEY,))
        return self._answer(offer, accept=True)

    def can_follow(self, player: str, box: int) -> bool:
        """Whether a standing player has a split or double to follow on ``box``."""
        return self._open_offer(player, box, _FOLLOWS) is not None

    def verify_follow(self, player: str, box: int) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` has a split or double to follow."""
        self._require_offer("follow", player, box, _FOLLOWS)

    def follow(self, player: str, box: int) -> Event:
        """Follow the seated player's split or double (RWS v5 3.21.1, 3.22.1)."""
        return self._answer(self._require_offer("follow", player, box, _FOLLOWS), accept=True)

    def can_decline(self, player: str, box: int, kind: OfferKind | None = None) -> bool:
        """Whether ``player`` has an open offer on ``box`` (of ``kind``) to decline."""
        return self._open_offer(player, box, _kinds(kind)) is not None

    def verify_decline(self, player: str, box: int, kind: OfferKind | None = None) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` has such an offer to decline."""
        self._require_offer("decline", player, box, _kinds(kind))

    def decline(self, player: str, box: int, kind: OfferKind | None = None) -> Event:
        """Decline an open offer (the first one of ``player`` on ``box`` when no kind is given)."""
        offer = self._require_offer("decline", player, box, _kinds(kind))
        return self._answer(offer, accept=False)

    # -- answers -------------------------------------------------------------------------------

    def _open_offer(self, player: str, box: int, kinds: tuple[OfferKind, ...]) -> Offer | None:
        for offer in self._offers:
            if offer.player == player and offer.box == box and offer.kind in kinds:
                return offer
        return None

    def _require_offer(
        self, action: str, player: str, box: int, kinds: tuple[OfferKind, ...]
    ) -> Offer:
        offer = self._open_offer(player, box, kinds)
        if offer is None:
            names = " or ".join(kind.value for kind in kinds)
            raise IllegalActionError(
                f"cannot {action}: {player} has no open {names} offer on box {box} "
                f"(phase={self._phase.value})"
            )
        return offer

    def _answer(self, offer: Offer, *, accept: bool, amount: Decimal | None = None) -> Event:
        self._offers.remove(offer)
        box = self._box(offer.box)
        hand = box.hands[offer.hand - 1]
        event: Event
        if not accept:
            event = self._emit(
                OfferDeclined(
                    player=offer.player, box=offer.box, hand=offer.hand, offer=offer.kind.value
                )
            )
        elif offer.kind is OfferKind.INSURANCE:
            assert amount is not None
            box.insurance[offer.player] = amount
            event = self._emit(InsuranceTaken(player=offer.player, box=offer.box, amount=amount))
            self._drop_offers(offer.player, offer.box, OfferKind.EVEN_MONEY)
        elif offer.kind is OfferKind.EVEN_MONEY:
            event = self._emit(EvenMoneyTaken(player=offer.player, box=offer.box))
            wager = hand.wager_of(offer.player)
            assert wager is not None
            self._settle_wager(box, hand, wager, wager.stake, "even-money")
            self._drop_offers(offer.player, offer.box, OfferKind.INSURANCE)
        elif offer.kind is OfferKind.SURRENDER:
            hand.surrendered = True
            hand.finished = True
            event = self._emit(PlayerSurrendered(box=box.number, hand=hand.number))
            for wager in hand.wagers:
                self._settle_wager(box, hand, wager, -self._half_loss(wager.stake), "surrender")
        elif offer.kind is OfferKind.FOLLOW_DOUBLE:
            assert offer.amount is not None
            wager = hand.wager_of(offer.player)
            assert wager is not None
            wager.double = offer.amount
            event = self._emit(
                DoubleFollowed(
                    player=offer.player, box=offer.box, hand=offer.hand, amount=offer.amount
                )
            )
        else:
            assert offer.amount is not None
            hand.wagers.append(Wager(offer.player, offer.amount))
            event = self._emit(
                SplitFollowed(
                    player=offer.player, box=offer.box, hand=offer.hand, amount=offer.amount
                )
            )
        if not self._offers and isinstance(self._pending, NeedAnswers):
            self._advance(None)
        return event

    def _drop_offers(self, player: str, box: int, kind: OfferKind) -> None:
        self._offers = [
            o for o in self._offers if not (o.player == player and o.box == box and o.kind is kind)
        ]

    # -- putting offers ------------------------------------------------------------------------

    def _ask(self, offers: Iterable[Offer]) -> Generator[Request, object, None]:
        self._offers = list(offers)
        for offer in list(self._offers):
            if offer.player in self._absent:
                self._answer(offer, accept=False)
        while self._offers:
            yield NeedAnswers()

    def _insurance_limit(self, initial: Decimal) -> Decimal:
        # "half or less than half the Initial Bet" (RWS v5 3.14.2): a limit, not a payout,
        # so it is rounded down whatever the table's payout rounding.
        return quantize(initial / 2, self.rules.currency_unit, PayoutRounding.DOWN)

    def _follow_amount(self, own: Decimal, double: Decimal, seated: Decimal) -> Decimal:
        exact = own * double / seated
        return quantize(exact, self.rules.currency_unit, self.rules.payout_rounding)
