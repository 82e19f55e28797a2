"""croupier: casino blackjack, played exactly as the house rulebooks write it.

>>> import croupier
>>> croupier.find_rules("live").perfect_pairs_pays
(Fraction(25, 1), Fraction(12, 1), Fraction(6, 1))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from croupier.cards import Card, ForeignCard, Rank, Suit, hand_total, parse_card, parse_cards
    from croupier.errors import BetError, CardError, CroupierError, IllegalActionError, RulesError
    from croupier.presets import PRESETS, Preset, find_preset, find_rules
    from croupier.round import Action, Offer, OfferKind, Phase, Round
    from croupier.rules import Rules
    from croupier.shoe import DealerEntry, FixedOrder, ShuffledShoe
    from croupier.table import Table

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Action",
    "BetError",
    "Card",
    "CardError",
    "CroupierError",
    "DealerEntry",
    "FixedOrder",
    "ForeignCard",
    "IllegalActionError",
    "Offer",
    "OfferKind",
    "Phase",
    "Preset",
    "Rank",
    "Round",
    "Rules",
    "RulesError",
    "ShuffledShoe",
    "Suit",
    "Table",
    "find_preset",
    "find_rules",
    "hand_total",
    "parse_card",
    "parse_cards",
]

#: The module each name above is read from, on first use: a command that needs only
#: some of the engine (``croupier --help``) does not load all of it.
_HOMES = {
    **dict.fromkeys(
        ("Card", "ForeignCard", "Rank", "Suit", "hand_total", "parse_card", "parse_cards"),
        "croupier.cards",
    ),
    **dict.fromkeys(
        ("BetError", "CardError", "CroupierError", "IllegalActionError", "RulesError"),
        "croupier.errors",
    ),
    **dict.fromkeys(("PRESETS", "Preset", "find_preset", "find_rules"), "croupier.presets"),
    **dict.fromkeys(("Action", "Offer", "OfferKind", "Phase", "Round"), "croupier.round"),
    "Rules": "croupier.rules",
    **dict.fromkeys(("DealerEntry", "FixedOrder", "ShuffledShoe"), "croupier.shoe"),
    "Table": "croupier.table",
}


def __getattr__(name: str) -> object:
    """Load a public name from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'croupier' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
