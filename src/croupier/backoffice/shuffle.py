"""Shuffle health: is the server's shoe random?  (GLI-19 asks that randomness be checked.)

Each shoe the server shuffled is recorded whole in the first round dealt from it.  Over
a table's shoes two chi-square tests are made against a fair shuffle, in which every
position is equally likely to hold any card of the shoe:

- the **first cards**: how often each of the 13 ranks came out first (12 degrees of
  freedom; each rank expected ``shoes / 13`` times);
- the **card by position**: the shoe cut into :data:`SEGMENTS` stretches, the count of
  each rank in each stretch against its share of the shoe ((segments - 1) x 12 degrees
  of freedom: each shoe holds every rank exactly ``4 x decks`` times).

A test *fails* when its p-value is under :data:`FAIL_BELOW`; with fewer shoes than
:data:`FEWEST_SHOES` the verdict says they are too few to tell.

>>> from croupier.cards import full_deck
>>> fair = [[str(card) for card in full_deck()]] * 3
>>> health = shuffle_health("t1", fair)
>>> health.shoes, health.verdict
(1, 'too few shoes (1) to tell')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from croupier.backoffice.statistics import chi_square, chi_square_p_value

__all__ = ["FAIL_BELOW", "FEWEST_SHOES", "RANKS", "SEGMENTS", "ShuffleHealth", "shuffle_health"]

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_INDEX = {rank: index for index, rank in enumerate(RANKS)} | {"T": 9}
SEGMENTS = 8
FAIL_BELOW = 0.001
#: Fewer shoes than this leave the first-card test under 5 expected per rank.
FEWEST_SHOES = 65


@dataclass(frozen=True)
class ShuffleHealth:
    """One table's shuffle tests over its recorded shoes."""

    table: str
    shoes: int
    #: How many shoes began with each rank (A, 2, ..., K).
    first_cards: tuple[int, ...]
    first_card_chi_square: float
    first_card_p_value: float
    position_chi_square: float
    position_degrees: int
    position_p_value: float

    @property
    def passed(self) -> bool | None:
        """Whether both tests pass; ``None`` with too few shoes to tell."""
        if self.shoes < FEWEST_SHOES:
            return None
        return min(self.first_card_p_value, self.position_p_value) >= FAIL_BELOW

    @property
    def verdict(self) -> str:
        """In words."""
        if self.passed is None:
            return f"too few shoes ({self.shoes}) to tell"
        if self.passed:
            return "random"
        return (
            f"not random: first cards p = {self.first_card_p_value:.2g}, "
            f"card by position p = {self.position_p_value:.2g}"
        )

    def to_json(self) -> dict[str, object]:
        """As JSON values."""
        return {
            "table": self.table,
            "shoes": self.shoes,
            "first_cards": dict(zip(RANKS, self.first_cards, strict=True)),
            "first_card_chi_square": round(self.first_card_chi_square, 4),
            "first_card_p_value": self.first_card_p_value,
            "position_chi_square": round(self.position_chi_square, 4),
            "position_degrees_of_freedom": self.position_degrees,
            "position_p_value": self.position_p_value,
            "passed": self.passed,
            "verdict": self.verdict,
        }


def _rank(card: str) -> int:
    return _RANK_INDEX[card[:-1]]


def shuffle_health(table: str, orders: Sequence[Sequence[str]]) -> ShuffleHealth:
    """The tests over these shoe orders (cards as text, ``"10S"``); the same order
    recorded twice (rounds dealt from one shoe) counts once."""
    distinct = list({tuple(order): None for order in orders if order})
    shoes = len(distinct)
    first = [0] * len(RANKS)
    if not distinct:
        return ShuffleHealth(table, 0, tuple(first), 0.0, 1.0, 0.0, 0, 1.0)
    size = min(len(order) for order in distinct)
    cells = [[0] * len(RANKS) for _ in range(SEGMENTS)]
    bounds = [size * segment // SEGMENTS for segment in range(SEGMENTS + 1)]
    for order in distinct:
        first[_rank(order[0])] += 1
        for segment in range(SEGMENTS):
            row = cells[segment]
            for card in order[bounds[segment] : bounds[segment + 1]]:
                row[_rank(card)] += 1
    first_statistic = chi_square(first, [shoes / len(RANKS)] * len(RANKS))
    first_p = chi_square_p_value(first_statistic, len(RANKS) - 1)
    # Expected: each stretch holds its share of every rank's cards.
    rank_totals = [sum(cells[s][r] for s in range(SEGMENTS)) for r in range(len(RANKS))]
    observed: list[float] = []
    expected: list[float] = []
    for segment in range(SEGMENTS):
        share = (bounds[segment + 1] - bounds[segment]) / size
        for rank in range(len(RANKS)):
            observed.append(cells[segment][rank])
            expected.append(rank_totals[rank] * share)
    degrees = (SEGMENTS - 1) * (len(RANKS) - 1)
    position_statistic = chi_square(observed, expected)
    position_p = chi_square_p_value(position_statistic, degrees)
    return ShuffleHealth(
        table=table,
        shoes=shoes,
        first_cards=tuple(first),
        first_card_chi_square=first_statistic,
        first_card_p_value=first_p,
        position_chi_square=position_statistic,
        position_degrees=degrees,
        position_p_value=position_p,
    )
