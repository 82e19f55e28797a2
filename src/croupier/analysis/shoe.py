"""Shoe compositions for the exact math: counts of the ten point values.

Index 0 is the Ace, 1 to 8 the two to the nine, 9 every ten-value card.  Suits do
not matter to the main game.

>>> full_shoe(1).tolist()
[4, 4, 4, 4, 4, 4, 4, 4, 4, 16]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["ACE", "RANKS", "TEN", "Counts", "full_shoe", "points"]

#: Index of the Ace and of the ten-value cards.
ACE = 0
TEN = 9
#: Number of point values.
RANKS = 10

Counts = npt.NDArray[np.int64]


def full_shoe(decks: int) -> Counts:
    """The counts of a full shoe of ``decks`` decks."""
    counts = np.full(RANKS, 4 * decks, dtype=np.int64)
    counts[TEN] = 16 * decks
    return counts


def points(index: int) -> int:
    """The points of a point value with an Ace counted 1.

    >>> points(ACE), points(4), points(TEN)
    (1, 5, 10)
    """
    return index + 1
