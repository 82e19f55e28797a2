"""Typed errors: every refusal croupier makes is one of these.

All errors derive from :class:`CroupierError`, itself a :class:`ValueError`, so a
caller may catch the whole family at once.  A refused operation never changes
any state.

>>> issubclass(IllegalActionError, CroupierError) and issubclass(CroupierError, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "BetError",
    "CardError",
    "CroupierError",
    "IllegalActionError",
    "RulesError",
]


class CroupierError(ValueError):
    """Base of every error croupier raises on bad input or an illegal action."""


class CardError(CroupierError):
    """A card text that is not a card, or a card the shoe cannot hold."""


class RulesError(CroupierError):
    """A rule set that is not valid, or a preset that does not exist."""


class BetError(CroupierError):
    """A bet that cannot be placed, withdrawn or accepted as it is."""


class IllegalActionError(CroupierError):
    """A player or dealer action that the round does not allow now."""
