"""Every player hand the exact math values: the multisets of cards with a hard total of 21 or less.

Hands are nodes of a graph: a node's child by a card is the hand with that card
added, or -1 when the card busts it.  Nodes are ordered by their number of cards,
so a pass from the last node to the first sees every child before its parent.

>>> graph = hand_graph()
>>> graph.size
3083
>>> node = graph.index_of((9, 5))
>>> int(graph.hard[node]), bool(graph.soft[node]), int(graph.cards[node])
(16, False, 2)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from croupier.analysis.shoe import ACE, RANKS

__all__ = ["HandGraph", "hand_graph"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class HandGraph:
    """The hands and their children (see the module docstring)."""

    counts: IntArray
    hard: IntArray
    total: IntArray
    soft: BoolArray
    cards: IntArray
    child: IntArray
    _index: dict[tuple[int, ...], int]

    @property
    def size(self) -> int:
        """The number of hands."""
        return int(self.hard.shape[0])

    def index_of(self, ranks: tuple[int, ...]) -> int:
        """The node of the hand holding cards of these point-value indices."""
        counts = [0] * RANKS
        for rank in ranks:
            counts[rank] += 1
        return self._index[tuple(counts)]


@functools.cache
def hand_graph() -> HandGraph:
    """The graph of every hand of hard total 21 or less (cached)."""
    found: list[tuple[int, ...]] = []

    def walk(start: int, hard: int, counts: list[int]) -> None:
        found.append(tuple(counts))
        for rank in range(start, RANKS):
            if hard + rank + 1 <= 21:
                counts[rank] += 1
                walk(rank, hard + rank + 1, counts)
                counts[rank] -= 1

    walk(0, 0, [0] * RANKS)
    found.sort(key=lambda counts: (sum(counts), counts))
    index = {counts: position for position, counts in enumerate(found)}
    size = len(found)
    counts_array = np.array(found, dtype=np.int64)
    hard = np.array(
        [sum((rank + 1) * n for rank, n in enumerate(counts)) for counts in found], dtype=np.int64
    )
    soft = np.array(
        [counts[ACE] > 0 and hard[i] + 10 <= 21 for i, counts in enumerate(found)], dtype=np.bool_
    )
    total = np.where(soft, hard + 10, hard).astype(np.int64)
    cards = counts_array.sum(axis=1)
    child = np.full((size, RANKS), -1, dtype=np.int64)
    for position, counts in enumerate(found):
        for rank in range(RANKS):
            grown = list(counts)
            grown[rank] += 1
            child[position, rank] = index.get(tuple(grown), -1)
    return HandGraph(counts_array, hard, total, soft, cards, child, index)
