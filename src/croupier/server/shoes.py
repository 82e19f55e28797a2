"""The server's own shoe, for tables it deals itself (``dealt = "rng"``).

Shuffled by the system's cryptographic generator; its whole state is a plain value
kept in each round's record, so that a round is dealt again, card for card, after a
restart (:func:`croupier.server.runtime.replay`).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from croupier.cards import Card, full_deck, parse_card, parse_cards
from croupier.rules import Rules
from croupier.shoe import ShoeExhausted

__all__ = ["ServerShoe"]


class ServerShoe:
    """The server's shoe: N decks shuffled by the system's cryptographic generator.

    Its whole state (order, position, cut card) is a plain value, :meth:`snapshot`,
    kept in a round's record so that the round can be dealt again after a restart.

    >>> shoe = ServerShoe(1, cut=26)
    >>> card = shoe.draw(); shoe.remaining
    51
    >>> again = ServerShoe.restore(shoe.snapshot()); again.remaining == shoe.remaining
    True
    """

    def __init__(self, decks: int, *, cut: int, every_round: bool = False) -> None:
        self.decks = decks
        self.cut = cut
        self.every_round = every_round
        self.order: list[Card] = full_deck() * decks
        self.position = 0
        self.shuffle()

    @classmethod
    def for_rules(cls, rules: Rules) -> ServerShoe:
        """The shoe a table with these rules deals from."""
        size = 52 * rules.decks
        cut = max(1, int(size * Fraction(rules.penetration)))
        return cls(rules.decks, cut=cut, every_round=rules.shuffle_every_round)

    def draw(self) -> Card:
        """The next card (:class:`~croupier.shoe.ShoeExhausted` when none is left)."""
        if self.position >= len(self.order):
            raise ShoeExhausted()
        card = self.order[self.position]
        self.position += 1
        return card

    @property
    def needs_shuffle(self) -> bool:
        """The cut card has come out (or the table shuffles every round)."""
        return self.position >= self.cut or (self.every_round and self.position > 0)

    def shuffle(self) -> None:
        """Gather and shuffle every card with :class:`secrets.SystemRandom`."""
        self.order = full_deck() * self.decks
        secrets.SystemRandom().shuffle(self.order)
        self.position = 0

    @property
    def remaining(self) -> int:
        """Cards not yet dealt."""
        return len(self.order) - self.position

    def snapshot(self) -> dict[str, Any]:
        """The shoe as JSON values (secret: the order of every card)."""
        return {
            "decks": self.decks,
            "cut": self.cut,
            "every_round": self.every_round,
            "order": [str(card) for card in self.order],
            "position": self.position,
        }

    @classmethod
    def stacked(cls, cards: str, *, decks: int = 8) -> ServerShoe:
        """A shoe whose top cards are ``cards`` (then the rest of the decks, shuffled).

        >>> str(ServerShoe.stacked("AS KH").draw())
        'AS'
        """
        shoe = cls(decks, cut=52 * decks * 3 // 4)
        top = parse_cards(cards)
        rest = list(shoe.order)
        for card in top:
            rest.remove(card)
        shoe.order = top + rest
        return shoe

    @classmethod
    def restore(cls, snapshot: Mapping[str, Any]) -> ServerShoe:
        """The shoe a :meth:`snapshot` describes."""
        shoe = cls.__new__(cls)
        shoe.decks = int(snapshot["decks"])
        shoe.cut = int(snapshot["cut"])
        shoe.every_round = bool(snapshot["every_round"])
        shoe.order = [parse_card(text) for text in snapshot["order"]]
        shoe.position = int(snapshot["position"])
        return shoe
