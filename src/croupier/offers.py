"""Offers: questions the table puts to one player, answered yes or no.

Insurance and even money against a dealer Ace (RWS v5 3.14), the RWS surrender before
the players' turns, and following the seated player's split or double (3.21.1, 3.22.1).
The flow puts its offers (:func:`put`) and waits until every one is answered; a
player who has left declines his.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from croupier.errors import BetError, IllegalActionError
from croupier.events import (
    DoubleFollowed,
    EvenMoneyTaken,
    InsuranceTaken,
    OfferDeclined,
    PlayerSurrendered,
    SplitFollowed,
)
from croupier.money import PayoutRounding, parse_amount, quantize
from croupier.round_state import Offer, OfferKind, RoundState, Wager
from croupier.settlement import settle_wager, surrender

__all__ = [
    "FOLLOWS",
    "answer",
    "find",
    "follow_amount",
    "insurance_limit",
    "put",
    "require",
    "verify_insurance",
]

#: The offers to follow the seated player.
FOLLOWS = (OfferKind.FOLLOW_SPLIT, OfferKind.FOLLOW_DOUBLE)
# Enum members as module names: on Python 3.11 reading a member off its class goes
# through EnumType.__getattr__'s slow hook (about 70 ns), and a round reads dozens.
_INSURANCE = OfferKind.INSURANCE
_EVEN_MONEY = OfferKind.EVEN_MONEY
_SURRENDER = OfferKind.SURRENDER
_FOLLOW_DOUBLE = OfferKind.FOLLOW_DOUBLE


def find(
    state: RoundState, player: str | None, box: int | None, kinds: Iterable[OfferKind]
) -> Offer | None:
    """The first open offer of one of ``kinds`` (to ``player`` on ``box`` where given)."""
    for offer in state.offers:
        if (
            offer.kind in kinds
            and (player is None or offer.player == player)
            and (box is None or offer.box == box)
        ):
            return offer
    return None


def require(
    state: RoundState,
    action: str,
    player: str | None,
    box: int | None,
    kinds: tuple[OfferKind, ...],
) -> Offer:
    """The offer an answer is for, or :class:`IllegalActionError` naming what is missing."""
    offer = find(state, player, box, kinds)
    if offer is None:
        names = " or ".join(kind.value for kind in kinds)
        where = f" on box {box}" if box is not None else ""
        missing = f"{player} has no open" if player is not None else "there is no open"
        raise IllegalActionError(
            f"cannot {action}: {missing} {names} offer{where} (phase={state.phase.value})"
        )
    return offer


def verify_insurance(
    state: RoundState, player: str, box: int, amount: object
) -> tuple[Offer, Decimal]:
    """The insurance offer and the amount taken (default: the most allowed)."""
    offer = require(state, "take insurance", player, box, (OfferKind.INSURANCE,))
    limit = offer.amount
    assert limit is not None
    if amount is None:
        return offer, limit
    rules = state.rules
    value = parse_amount(amount, rules.currency_unit, what="insurance")
    if value > limit:
        raise BetError(
            f"cannot take insurance: {value} is more than half the initial bet ({limit})"
        )
    if value != limit and not rules.insurance_for_less:
        raise BetError(
            f"cannot take insurance: it is exactly half the initial bet ({limit}) at {rules.name}"
        )
    return offer, value


def answer(state: RoundState, offer: Offer, *, accept: bool, amount: Decimal | None = None) -> None:
    """Accept or decline an open offer."""
    state.offers.remove(offer)
    box = state.box(offer.box)
    assert box is not None
    hand = box.hands[offer.hand - 1]
    events = state.events
    if not accept:
        events.append(
            # A StrEnum's text is its value (without the enum's slower property).
            OfferDeclined(
                player=offer.player, box=offer.box, hand=offer.hand, offer=str(offer.kind)
            )
        )
    elif offer.kind is _INSURANCE:
        assert amount is not None
        box.insurance[offer.player] = amount
        events.append(InsuranceTaken(player=offer.player, box=offer.box, amount=amount))
        _drop(state, offer.player, offer.box, _EVEN_MONEY)
    elif offer.kind is _EVEN_MONEY:
        events.append(EvenMoneyTaken(player=offer.player, box=offer.box))
        wager = hand.wager_of(offer.player)
        assert wager is not None
        settle_wager(state, box, hand, wager, wager.stake, "even-money")
        _drop(state, offer.player, offer.box, _INSURANCE)
    elif offer.kind is _SURRENDER:
        hand.surrendered = True
        hand.finished = True
        events.append(PlayerSurrendered(box=box.number, hand=hand.number))
        surrender(state, box, hand)
    elif offer.kind is _FOLLOW_DOUBLE:
        assert offer.amount is not None
        wager = hand.wager_of(offer.player)
        assert wager is not None
        wager.double = offer.amount
        events.append(
            DoubleFollowed(player=offer.player, box=offer.box, hand=offer.hand, amount=offer.amount)
        )
    else:
        assert offer.amount is not None
        hand.wagers.append(Wager(offer.player, offer.amount))
        events.append(
            SplitFollowed(player=offer.player, box=offer.box, hand=offer.hand, amount=offer.amount)
        )


def _drop(state: RoundState, player: str, box: int, kind: OfferKind) -> None:
    state.offers = [
        offer
        for offer in state.offers
        if not (offer.player == player and offer.box == box and offer.kind is kind)
    ]


def put(state: RoundState, offers: list[Offer]) -> None:
    """Open offers; a player who has left declines his at once."""
    state.offers = offers
    if state.absent:
        for offer in list(offers):
            if offer.player in state.absent:
                answer(state, offer, accept=False)


def insurance_limit(state: RoundState, initial: Decimal) -> Decimal:
    """The most a player may insure: half his initial bet, rounded down.

    "half or less than half the Initial Bet" (RWS v5 3.14.2) is a limit, not a payout,
    so it is rounded down whatever the table's payout rounding.
    """
    return quantize(initial / 2, state.rules.currency_unit, PayoutRounding.DOWN)


def follow_amount(state: RoundState, own: Decimal, double: Decimal, seated: Decimal) -> Decimal:
    """A standing player's follow of a double: the same proportion of his own bet."""
    rules = state.rules
    if double == seated:
        return own
    return quantize(own * double / seated, rules.currency_unit, rules.payout_rounding)
