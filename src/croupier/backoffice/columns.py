"""What the back office reads of a round, worked out once when the round is written.

The table server calls these as it stores a round (:mod:`croupier.server.rounds_store`),
the migration that added the columns calls them over the rounds already stored, and the
report benchmark calls them as it fills a database: one reading of a round's record for
all three.  Each is a few microseconds of Python over one round; the report then sums
their columns in the database instead of reading every round's JSON.

>>> bets = placed_bets([
...     {"op": "bet", "player": "ann", "args": {"box": 1, "amount": "10", "bet": "main"}},
...     {"op": "bet", "player": "ann", "args": {"box": 1, "amount": "5", "bet": "main"}},
...     {"op": "bet", "player": "bob", "args": {"box": 2, "amount": "5", "bet": "21+3"}},
...     {"op": "close_bets", "player": None, "args": {}},
...     {"op": "insurance", "player": "ann", "args": {"box": 1, "amount": None}},
... ])
>>> bets  # bob's side bet had no main bet on its box: given back
[PlacedBet(seq=1, player='ann', box=1, kind='main', units=1500), \
PlacedBet(seq=4, player='ann', box=1, kind='insurance', units=None)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from croupier.backoffice.advantage import hi_lo

__all__ = [
    "INSURANCE",
    "IRREGULAR_OPS",
    "MAIN",
    "PlacedBet",
    "ShoeColumns",
    "irregular_inputs",
    "placed_bets",
    "shoe_columns",
]

MAIN = "main"
INSURANCE = "insurance"
#: The inputs that are irregularities (RWS v5 5.3, 5.4, 5.7.3, 5.17).
IRREGULAR_OPS = ("void", "interrupt", "return_bets", "walk_away", "time_out")
#: A card's rank as one letter (``10`` as ``T``).
_RANK_LETTER = {
    "A": "A",
    "2": "2",
    "3": "3",
    "4": "4",
    "5": "5",
    "6": "6",
    "7": "7",
    "8": "8",
    "9": "9",
    "10": "T",
    "T": "T",
    "J": "J",
    "Q": "Q",
    "K": "K",
}


@dataclass(frozen=True)
class PlacedBet:
    """A bet that played in a round: the input that placed it (the last, for a bet
    added to), its player, box and kind, and its amount in minor units (``None``: left
    to the engine, as an insurance without an amount is)."""

    seq: int
    player: str
    box: int
    kind: str
    units: int | None


def _units(value: object) -> int | None:
    """An input's amount ("12.50", 12) in minor units; ``None`` when absent or unreadable.

    >>> _units("12.50"), _units(3), _units(None), _units("x")
    (1250, 300, None, None)
    """
    if value is None or isinstance(value, bool):
        return None
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return None
    if not amount.is_finite():
        return None
    return int((amount * 100).to_integral_value())


def placed_bets(inputs: Sequence[Mapping[str, Any]]) -> list[PlacedBet]:
    """The bets that played, from a round's inputs in order: each player's initial bets
    of a kind on a box added up, a withdrawn bet gone, a side bet on a box that carries
    no main bet given back (as the engine gives it back), and each insurance taken."""
    kept: dict[tuple[str, int, str], tuple[int, int]] = {}
    insured: list[PlacedBet] = []
    for seq, entry in enumerate(inputs):
        op = entry.get("op")
        if op not in ("bet", "withdraw", INSURANCE):
            continue
        player = entry.get("player")
        args = entry.get("args") or {}
        box_value: Any = args.get("box")
        try:
            box = int(box_value)
        except (TypeError, ValueError):
            continue
        if not isinstance(player, str):
            continue
        if op == INSURANCE:
            insured.append(PlacedBet(seq, player, box, INSURANCE, _units(args.get("amount"))))
            continue
        key = (player, box, str(args.get("bet") or MAIN))
        if op == "withdraw":
            kept.pop(key, None)
            continue
        units = _units(args.get("amount"))
        if units is None:
            continue
        _, before = kept.get(key, (seq, 0))
        kept[key] = (seq, before + units)
    boxes = {box for (_, box, kind), (_, units) in kept.items() if kind == MAIN and units > 0}
    found = [
        PlacedBet(seq, player, box, kind, units)
        for (player, box, kind), (seq, units) in kept.items()
        if units > 0 and box in boxes
    ]
    return sorted(found + insured, key=lambda bet: bet.seq)


def irregular_inputs(inputs: Sequence[Mapping[str, Any]]) -> int:
    """How many of a round's inputs are irregularities (:data:`IRREGULAR_OPS`).

    >>> irregular_inputs([{"op": "bet"}, {"op": "void"}, {"op": "interrupt"}])
    2
    """
    return sum(1 for entry in inputs if entry.get("op") in IRREGULAR_OPS)


@dataclass(frozen=True)
class ShoeColumns:
    """A round's shoe as the back office reads it (all ``None`` without a server shoe)."""

    position: int | None = None
    true_count: float | None = None
    #: The order as rank letters, for a freshly shuffled shoe (position 0) only.
    ranks: str | None = None


def shoe_columns(shoe: object) -> ShoeColumns:
    """The columns of a round's shoe as it found it (its record's ``shoe``): how far it
    had been dealt, the hi-lo true count of the cards dealt (running count per deck
    left) and, at position 0, its order as rank letters.

    >>> shoe_columns({"order": ["2S", "3S", "KS", "4S"] + ["9H"] * 48, "position": 2})
    ShoeColumns(position=2, true_count=2.08, ranks=None)
    >>> shoe_columns({"order": ["10S", "AH"], "position": 0}).ranks
    'TA'
    >>> shoe_columns(None)
    ShoeColumns(position=None, true_count=None, ranks=None)
    """
    if not isinstance(shoe, Mapping):
        return ShoeColumns()
    order = shoe.get("order")
    position = shoe.get("position")
    if not isinstance(order, list) or not isinstance(position, int):
        return ShoeColumns()
    running = sum(hi_lo(str(card)) for card in order[:position])
    true_count = running / (max(len(order) - position, 1) / 52)
    ranks = None
    if position == 0:
        ranks = "".join(_RANK_LETTER.get(str(card)[:-1], "?") for card in order)
    return ShoeColumns(position, true_count, ranks)
