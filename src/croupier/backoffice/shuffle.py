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

__all__ = [
    "FAIL_BELOW",
    "FEWEST_SHOES",
    "RANKS",
    "SEGMENTS",
    "ShuffleHealth",
    "shuffle_health",
    "shuffle_health_of_ranks",
]

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


#: Each rank as one letter, in the order of :data:`RANKS`.
RANK_LETTERS = "A23456789TJQK"


def shuffle_health(table: str, orders: Sequence[Sequence[str]]) -> ShuffleHealth:
    """The tests over these shoe orders (cards as text, ``"10S"``); the same order
    recorded twice (rounds dealt from one shoe) counts once."""
    ranks = ["".join(RANK_LETTERS[_RANK_INDEX[card[:-1]]] for card in order) for order in orders]
    return shuffle_health_of_ranks(table, ranks)


def shuffle_health_of_ranks(table: str, shoes: Sequence[str]) -> ShuffleHealth:
    """The tests over shoe orders written as rank letters (``"A2T..."``, see
    :data:`RANK_LETTERS`), counted over whole arrays; the same order twice counts once,
    and shoes of another size than the most common are left out.

    >>> health = shuffle_health_of_ranks("t1", [RANK_LETTERS * 4])
    >>> health.shoes, health.first_cards[0]
    (1, 1)
    """
    import numpy as np

    distinct = list(dict.fromkeys(shoe for shoe in shoes if shoe))
    first = [0] * len(RANKS)
    if not distinct:
        return ShuffleHealth(table, 0, tuple(first), 0.0, 1.0, 0.0, 0, 1.0)
    sizes: dict[int, int] = {}
    for shoe in distinct:
        sizes[len(shoe)] = sizes.get(len(shoe), 0) + 1
    size = max(sizes, key=lambda length: (sizes[length], length))
    kept = [shoe for shoe in distinct if len(shoe) == size]
    lookup = np.full(256, len(RANKS), dtype=np.int64)
    for index, letter in enumerate(RANK_LETTERS):
        lookup[ord(letter)] = index
    letters = np.frombuffer("".join(kept).encode("ascii"), dtype=np.uint8)
    ranks = lookup[letters].reshape(len(kept), size)
    if (ranks == len(RANKS)).any():
        ranks = ranks[(ranks < len(RANKS)).all(axis=1)]
    shoes_count = int(ranks.shape[0])
    if not shoes_count:
        return ShuffleHealth(table, 0, tuple(first), 0.0, 1.0, 0.0, 0, 1.0)
    first = np.bincount(ranks[:, 0], minlength=len(RANKS)).tolist()
    bounds = [size * segment // SEGMENTS for segment in range(SEGMENTS + 1)]
    segment_of = np.repeat(np.arange(SEGMENTS), np.diff(bounds))
    cells = (
        np.bincount(
            (segment_of[np.newaxis, :] * len(RANKS) + ranks).ravel(),
            minlength=SEGMENTS * len(RANKS),
        )
        .reshape(SEGMENTS, len(RANKS))
        .tolist()
    )
    first_statistic = chi_square(first, [shoes_count / len(RANKS)] * len(RANKS))
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
        shoes=shoes_count,
        first_cards=tuple(int(count) for count in first),
        first_card_chi_square=first_statistic,
        first_card_p_value=first_p,
        position_chi_square=position_statistic,
        position_degrees=degrees,
        position_p_value=position_p,
    )
