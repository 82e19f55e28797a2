"""Cards, ranks, suits and hand totals.

A card prints as rank then suit: ``AS``, ``10H``, ``KD``, ``2C``.  A ten may also
be written ``T``.

>>> parse_card("10h")
Card(rank=<Rank.TEN: '10'>, suit=<Suit.HEARTS: 'H'>)
>>> str(parse_card("TH")), str(parse_card("as"))
('10H', 'AS')
>>> hand_total(parse_cards("AS 6D"))
HandTotal(total=17, is_soft=True)
>>> hand_total(parse_cards("AS 6D 9C"))
HandTotal(total=16, is_soft=False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from croupier.errors import CardError

__all__ = [
    "FOREIGN_CARD_TEXTS",
    "Card",
    "DrawnCard",
    "ForeignCard",
    "HandTotal",
    "Rank",
    "Suit",
    "full_deck",
    "hand_total",
    "is_blackjack_cards",
    "parse_card",
    "parse_cards",
    "parse_drawn_card",
]


class Rank(StrEnum):
    """A card's rank, printed as on the card."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def points(self) -> int:
        """Blackjack points with an Ace counted as 1 (RWS v5 3.2).

        >>> Rank.ACE.points, Rank.KING.points, Rank.SEVEN.points
        (1, 10, 7)
        """
        return _POINTS[self]

    @property
    def order(self) -> int:
        """Position in sequence, Ace low (1) to King (13), for straights."""
        return _ORDER[self]


class Suit(StrEnum):
    """A card's suit."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red.

        >>> Suit.HEARTS.is_red, Suit.CLUBS.is_red
        (True, False)
        """
        return self in (Suit.HEARTS, Suit.DIAMONDS)


_ORDER = {rank: index + 1 for index, rank in enumerate(Rank)}
_POINTS = {rank: min(_ORDER[rank], 10) for rank in Rank}
_RANK_TEXT = {rank.value: rank for rank in Rank} | {"T": Rank.TEN}
_SUIT_TEXT = {suit.value: suit for suit in Suit}
_SUIT_INDEX = {suit: index for index, suit in enumerate(Suit)}

#: Texts read as a card from outside the set (a joker), never as an error.
FOREIGN_CARD_TEXTS = frozenset({"JK", "JOKER", "XX"})


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card.

    Its text, points and hash are worked out once, when it is made: a round reads
    them for every card it deals.  The 52 cards of a deck are made once and shared
    (:func:`parse_card` and :func:`full_deck` give the shared ones).

    >>> card = parse_card("kd")
    >>> card.text, card.points, card is parse_card("KD"), card == Card(Rank.KING, Suit.DIAMONDS)
    ('KD', 10, True, True)
    """

    rank: Rank
    suit: Suit
    #: The card as printed: rank then suit.
    text: str = field(init=False, repr=False, compare=False)
    #: Points with an Ace counted as 1 (RWS v5 3.2).
    points: int = field(init=False, repr=False, compare=False)
    #: The card's place in a deck, 0 to 51 (:func:`full_deck`'s order).
    index: int = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = f"{self.rank.value}{self.suit.value}"
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "points", _POINTS[self.rank])
        object.__setattr__(self, "index", _SUIT_INDEX[self.suit] * 13 + _ORDER[self.rank] - 1)
        object.__setattr__(self, "_hash", hash(text))

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        # Made anew where it is unpickled: a text's hash differs from one process to another.
        return Card, (self.rank, self.suit)

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Card:
        return self

    @property
    def is_ace(self) -> bool:
        """An Ace.

        >>> parse_card("AS").is_ace, parse_card("KS").is_ace
        (True, False)
        """
        return self.points == 1

    @property
    def is_ten_value(self) -> bool:
        """A 10, Jack, Queen or King.

        >>> parse_card("QS").is_ten_value, parse_card("9S").is_ten_value
        (True, False)
        """
        return self.points == 10


@dataclass(frozen=True, slots=True)
class ForeignCard:
    """A card found in the shoe that is not part of its set (RWS v5 5.5.1)."""

    text: str

    def __str__(self) -> str:
        return self.text


#: What a card source yields: a card of the set, or a foreign one.
DrawnCard = Card | ForeignCard


def parse_card(text: str) -> Card:
    """Read a card from its text, case-insensitively.

    >>> parse_card(" kd ")
    Card(rank=<Rank.KING: 'K'>, suit=<Suit.DIAMONDS: 'D'>)
    >>> parse_card("1S")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.CardError: unknown card '1S': expected rank (A, 2-10, T, J, Q, K) then suit ...
    """
    if not isinstance(text, str):
        raise CardError(f"unknown card {text!r}: a card is a text such as 'AS' or '10H'")
    cleaned = text.strip().upper()
    rank = _RANK_TEXT.get(cleaned[:-1])
    suit = _SUIT_TEXT.get(cleaned[-1:])
    if rank is None or suit is None:
        raise CardError(
            f"unknown card {text!r}: expected rank (A, 2-10, T, J, Q, K) then suit (S, H, D, C)"
        )
    return _CARDS[rank, suit]


def parse_drawn_card(text: str) -> DrawnCard:
    """Read a card as found in a shoe: a joker is a foreign card, not an error.

    >>> parse_drawn_card("JK")
    ForeignCard(text='JK')
    >>> parse_drawn_card("9c")
    Card(rank=<Rank.NINE: '9'>, suit=<Suit.CLUBS: 'C'>)
    """
    if isinstance(text, str) and text.strip().upper() in FOREIGN_CARD_TEXTS:
        return ForeignCard(text.strip().upper())
    return parse_card(text)


def parse_cards(text: str) -> list[Card]:
    """Read cards separated by spaces or commas.

    >>> [str(card) for card in parse_cards("AS, 10H KD")]
    ['AS', '10H', 'KD']
    """
    return [parse_card(part) for part in text.replace(",", " ").split()]


def full_deck() -> list[Card]:
    """The 52 cards of one standard deck, in a fixed order.

    >>> len(full_deck()), len(set(full_deck()))
    (52, 52)
    """
    return list(_DECK)


# The shared cards, made once.
_DECK = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
_CARDS = {(card.rank, card.suit): card for card in _DECK}


class HandTotal(NamedTuple):
    """A hand's best point total and whether an Ace counts 11 in it."""

    total: int
    is_soft: bool


def hand_total(cards: Iterable[Card]) -> HandTotal:
    """The best total of cards: one Ace counts 11 when that does not bust.

    >>> hand_total(parse_cards("AS AD"))
    HandTotal(total=12, is_soft=True)
    >>> hand_total(parse_cards("10S 6D 8C"))
    HandTotal(total=24, is_soft=False)
    """
    hard = 0
    has_ace = False
    for card in cards:
        points = card.points
        hard += points
        if points == 1:
            has_ace = True
    if has_ace and hard <= 11:
        return HandTotal(hard + 10, True)
    return HandTotal(hard, False)


def is_blackjack_cards(cards: Sequence[Card]) -> bool:
    """An Ace and a ten-value card as exactly two cards (split hands excepted by the caller).

    >>> is_blackjack_cards(parse_cards("AS KD")), is_blackjack_cards(parse_cards("5S 6D KC"))
    (True, False)
    """
    return len(cards) == 2 and hand_total(cards).total == 21
