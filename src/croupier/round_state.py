"""The vocabulary of a round and the state it keeps.

The public names (:class:`Phase`, :class:`Action`, :class:`OfferKind`, :class:`Offer`,
:class:`HandView`, :class:`BoxView` and :data:`MAIN`) are what a caller sees, and
:mod:`croupier.round` exports them.  The rest is the round's own mutable state: the
wagers on a hand, the hands of a box, the bets placed while bets are open, and the
requests by which the round's flow asks for a card, a decision or answers.  The
internal names stay out of the package's namespace.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from croupier.cards import Card, hand_total

__all__ = [
    "INSURANCE",
    "MAIN",
    "ZERO",
    "Action",
    "Box",
    "BoxView",
    "Decision",
    "Flow",
    "Hand",
    "HandView",
    "NeedAnswers",
    "NeedCard",
    "NeedDecision",
    "Offer",
    "OfferKind",
    "Phase",
    "PlacedBet",
    "Request",
    "Wager",
    "lead_wager",
]

#: The key of a box's initial bet in bets and results.
MAIN = "main"
#: The key of an insurance bet in results.
INSURANCE = "insurance"
#: Zero, the start of every sum of money.
ZERO = Decimal(0)


class Phase(StrEnum):
    """Where a round is."""

    BETTING = "betting"
    DEALING = "dealing"
    OFFERS = "offers"
    PLAYER_TURNS = "player-turns"
    DEALER_TURN = "dealer-turn"
    SETTLED = "settled"
    VOID = "void"


class Action(StrEnum):
    """A decision for a hand, made by the box's seated player."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"


class OfferKind(StrEnum):
    """A question the table puts to one player, answered yes or no."""

    INSURANCE = "insurance"
    EVEN_MONEY = "even-money"
    SURRENDER = "surrender"
    FOLLOW_SPLIT = "follow-split"
    FOLLOW_DOUBLE = "follow-double"


@dataclass(frozen=True, slots=True)
class Offer:
    """An open offer: insurance (up to ``amount``), even money, surrender, or following."""

    kind: OfferKind
    player: str
    box: int
    hand: int
    amount: Decimal | None = None


@dataclass(frozen=True, slots=True)
class HandView:
    """What a hand shows: its cards and every player's stake on it."""

    number: int
    cards: tuple[Card, ...]
    total: int
    is_soft: bool
    is_blackjack: bool
    stakes: tuple[tuple[str, Decimal], ...]
    from_split: bool
    doubled: bool
    surrendered: bool
    finished: bool

    @property
    def stake(self) -> Decimal:
        """The money of every player on the hand."""
        return sum((amount for _, amount in self.stakes), ZERO)

    def to_json(self) -> dict[str, object]:
        """The hand as JSON values, as a round's report shows it (money as text)."""
        return {
            "hand": self.number,
            "cards": [str(card) for card in self.cards],
            "total": self.total,
            "soft": self.is_soft,
            "blackjack": self.is_blackjack,
            "doubled": self.doubled,
            "surrendered": self.surrendered,
            "stake": str(self.stake),
            "stakes": {player: str(amount) for player, amount in self.stakes},
        }


@dataclass(frozen=True, slots=True)
class BoxView:
    """A betting box: its seated player and its hands."""

    number: int
    seated: str
    hands: tuple[HandView, ...]


# -- internal state ---------------------------------------------------------------------------


@dataclass(slots=True)
class Wager:
    """One player's money on a hand: his initial bet and any double."""

    player: str
    initial: Decimal
    double: Decimal = ZERO
    settled: bool = False

    @property
    def stake(self) -> Decimal:
        return self.initial + self.double


@dataclass(slots=True)
class Hand:
    """A hand of a box: its cards, the wagers on it, and how it was played."""

    number: int
    cards: list[Card]
    wagers: list[Wager]
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    surrendered: bool = False
    finished: bool = False
    decisions: int = 0
    auto_play: bool = False

    @property
    def total(self) -> int:
        return hand_total(self.cards).total

    @property
    def busted(self) -> bool:
        return self.total > 21

    @property
    def is_blackjack(self) -> bool:
        return not self.from_split and len(self.cards) == 2 and self.total == 21

    def wager_of(self, player: str) -> Wager | None:
        for wager in self.wagers:
            if wager.player == player:
                return wager
        return None


@dataclass(slots=True)
class PlacedBet:
    """A bet placed while bets are open, before the boxes close."""

    player: str
    box: int
    bet: str
    amount: Decimal


@dataclass(slots=True)
class Box:
    """A betting box in play: its seated player, its bets and its hands."""

    number: int
    seated: str
    initial: dict[str, Decimal]
    side_bets: list[PlacedBet]
    hands: list[Hand] = field(default_factory=list)
    insurance: dict[str, Decimal] = field(default_factory=dict)
    insurance_settled: bool = False


@dataclass(frozen=True, slots=True)
class NeedCard:
    """The flow needs the next card, for a box's hand or (``None``) the dealer."""

    box: int | None
    hand: int | None


@dataclass(frozen=True, slots=True)
class NeedDecision:
    """The flow needs the seated player's decision for a hand."""

    box: int
    hand: int


@dataclass(frozen=True, slots=True)
class NeedAnswers:
    """The flow needs every open offer answered."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A player's decision as the flow receives it."""

    action: Action
    amount: Decimal | None = None


#: What the flow asks for when it stops.
Request = NeedCard | NeedDecision | NeedAnswers
#: The flow of a round: it yields requests and receives cards and decisions.
Flow = Generator[Request, object, None]


def lead_wager(box: Box, hand: Hand) -> Wager:
    """The wager of the player who decides for the box, else the first on the hand."""
    return hand.wager_of(box.seated) or hand.wagers[0]
