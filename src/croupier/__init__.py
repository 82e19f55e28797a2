"""croupier: casino blackjack, played exactly as the house rulebooks write it.

>>> import croupier
>>> croupier.find_rules("live").perfect_pairs_pays
(Fraction(25, 1), Fraction(12, 1), Fraction(6, 1))
"""

from __future__ import annotations

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
