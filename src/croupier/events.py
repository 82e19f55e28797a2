"""Events: immutable records, in the past tense, of everything a round did.

The event log (:attr:`croupier.round.Round.events`) is the one source of truth for
a user interface, the history and the wallet.  Amounts are ``Decimal``.

>>> from decimal import Decimal
>>> event = BetPlaced(player="ann", box=1, bet="main", amount=Decimal("10.00"), seated=True)
>>> event.type
'bet_placed'
>>> event.to_json()["amount"]
'10.00'
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from croupier._frozen import quick_init

__all__ = [
    "BetPlaced",
    "BetResult",
    "BetReturned",
    "BetSettled",
    "BetWithdrawn",
    "BetsClosed",
    "CardDealt",
    "DealerFinished",
    "DealerPeeked",
    "DoubleFollowed",
    "EvenMoneyTaken",
    "Event",
    "HoleCardRevealed",
    "InsuranceTaken",
    "OfferDeclined",
    "PlayerDoubledDown",
    "PlayerHit",
    "PlayerSplit",
    "PlayerStood",
    "PlayerSurrendered",
    "PlayerTimedOut",
    "PlayerWalkedAway",
    "RoundSettled",
    "RoundVoided",
    "SeatPassed",
    "SplitFollowed",
    "TechnicalInterruption",
    "event_from_json",
]

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _jsonable(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return [_jsonable(item) for item in value]
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event."""

    @property
    def type(self) -> str:
        """The event's name in snake case, as in JSON."""
        return _CAMEL.sub("_", type(self).__name__).lower()

    def to_json(self) -> dict[str, object]:
        """The event as JSON values, with its ``type`` first."""
        body = {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"type": self.type, **body}

    def __copy__(self) -> Event:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Event:
        # Immutable: a copy of a round shares its events.
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class BetPlaced(Event):
    """A bet was placed while bets were open."""

    player: str
    box: int
    bet: str
    amount: Decimal
    seated: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BetWithdrawn(Event):
    """A bet was withdrawn while bets were open."""

    player: str
    box: int
    bet: str
    amount: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class BetsClosed(Event):
    """ "No more bets" (RWS v5 3.10, 5.8)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BetReturned(Event):
    """Money given back without a result: an excess, a side bet without an initial bet, a void."""

    player: str
    box: int
    hand: int | None
    bet: str
    amount: Decimal
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDealt(Event):
    """A card left the shoe; ``box`` is ``None`` for the dealer's cards."""

    card: str
    box: int | None
    hand: int | None
    face_up: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class HoleCardRevealed(Event):
    """The dealer turned the hole card over."""

    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerPeeked(Event):
    """The dealer looked at the hole card under an Ace or ten."""

    blackjack: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class InsuranceTaken(Event):
    """A player insured his bet on a box."""

    player: str
    box: int
    amount: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class EvenMoneyTaken(Event):
    """A player with a blackjack took even money."""

    player: str
    box: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OfferDeclined(Event):
    """A player declined an offer (insurance, even money, surrender, following)."""

    player: str
    box: int
    hand: int
    offer: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerHit(Event):
    """The box's player asked for a card."""

    box: int
    hand: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerStood(Event):
    """The hand stood; ``automatic`` when no other action was left (21, split Aces, double)."""

    box: int
    hand: int
    total: int
    automatic: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerDoubledDown(Event):
    """The seated player doubled down for ``amount``."""

    player: str
    box: int
    hand: int
    amount: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class DoubleFollowed(Event):
    """A standing player followed the seated player's double (RWS v5 3.22.1)."""

    player: str
    box: int
    hand: int
    amount: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSplit(Event):
    """The seated player split a pair; ``new_hand`` is the hand made."""

    player: str
    box: int
    hand: int
    new_hand: int
    amount: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class SplitFollowed(Event):
    """A standing player followed a split onto the new hand (RWS v5 3.21.1)."""

    player: str
    box: int
    hand: int
    amount: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSurrendered(Event):
    """The box's hand was surrendered."""

    box: int
    hand: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerTimedOut(Event):
    """A decision was not made in time: the hand is played by RWS v5 5.3."""

    box: int
    hand: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerWalkedAway(Event):
    """A player left the table with bets in play (RWS v5 5.3)."""

    player: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatPassed(Event):
    """The decisions of a box passed to the standing player with the highest bet (RWS v5 1.26)."""

    box: int
    player: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerFinished(Event):
    """The dealer's hand is complete."""

    cards: tuple[str, ...]
    total: int
    blackjack: bool
    busted: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BetSettled(Event):
    """A bet won, lost or stood off; ``net`` is what the player won (negative: lost)."""

    player: str
    box: int
    hand: int | None
    bet: str
    stake: Decimal
    net: Decimal
    outcome: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TechnicalInterruption(Event):
    """A technical interruption; the round goes on only if an outcome is established (5.4)."""

    outcome_established: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVoided(Event):
    """The round was voided; every bet of the round is returned (RWS v5 5.17)."""

    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundSettled(Event):
    """Final settlement is complete; ``house_net`` is what the house won."""

    house_net: Decimal


@dataclass(frozen=True, slots=True)
class BetResult:
    """One bet's result at the end of a round (a void returns every bet: net zero)."""

    player: str
    box: int
    hand: int | None
    bet: str
    stake: Decimal
    net: Decimal
    outcome: str

    def to_json(self) -> dict[str, object]:
        """The result as JSON values."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _read_field(annotation: str, value: object, where: str) -> object:
    if value is None and annotation.endswith("| None"):
        return None
    base = annotation.removesuffix(" | None")
    if base == "Decimal" and isinstance(value, str):
        try:
            return Decimal(value)
        except ArithmeticError:
            pass
    elif base == "tuple[str, ...]" and isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return tuple(value)
    elif (
        (base == "bool" and isinstance(value, bool))
        or (base == "int" and isinstance(value, int) and not isinstance(value, bool))
        or (base == "str" and isinstance(value, str))
    ):
        return value
    raise ValueError(f"{where}: {value!r} is not a {base}")


def _event_types() -> dict[str, type[Event]]:
    names = [name for name in __all__ if name not in ("Event", "BetResult", "event_from_json")]
    types: dict[str, type[Event]] = {}
    for name in names:
        cls = globals()[name]
        types[_CAMEL.sub("_", name).lower()] = cls
    return types


_TYPES = _event_types()
for _cls in _TYPES.values():
    quick_init(_cls, kw_only=True)
quick_init(BetResult, kw_only=False)


def event_from_json(data: object) -> Event:
    """The event :meth:`Event.to_json` wrote.

    Raises:
        ValueError: the data is not such an event; the message names what is wrong.

    >>> event = CardDealt(card="AS", box=1, hand=1, face_up=True)
    >>> event_from_json(event.to_json()) == event
    True
    """
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError(f"an event is an object with a type, not {data!r}")
    kind = data["type"]
    cls = _TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    fields = _FIELDS[kind]
    if len(data) != len(fields) + 1:
        unknown = [key for key in data if key != "type" and key not in fields]
        if unknown:
            raise ValueError(f"{kind}: unknown field {unknown[0]!r}")
    values = {}
    for name, annotation in fields.items():
        if name not in data:
            raise ValueError(f"{kind}: missing field {name!r}")
        value = data[name]
        # Text, numbers and flags as they are; the rest read by their annotation.
        if annotation in _PLAIN and type(value) is _PLAIN[annotation]:
            values[name] = value
        else:
            values[name] = _read_field(annotation, value, f"{kind}.{name}")
    return cls(**values)


_FIELDS = {
    kind: {field.name: str(field.type) for field in dataclasses.fields(cls)}
    for kind, cls in _TYPES.items()
}
_PLAIN = {"str": str, "int": int, "bool": bool, "int | None": int}
