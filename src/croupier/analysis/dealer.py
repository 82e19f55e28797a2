"""The dealer's final totals, exact for any shoe composition.

Every sequence of cards the dealer can draw from an up card ends in a multiset of
drawn cards, and every sequence with the same multiset has the same probability
(the product of falling counts over the falling shoe size).  So, for each up card,
the terminal multisets are listed once with the number of drawing orders that reach
each; the distribution for a shoe is then a sum over that list.  The first card the
dealer draws is the hole card (or, with no hole card, the second card he takes).

Outcomes are indexed 0 to 4 for 17 to 21, 5 for a bust and 6 for a dealer blackjack.

>>> from croupier.analysis.shoe import full_shoe
>>> table = dealer_table(up=5, hits_soft_17=False)
>>> shoe = full_shoe(1); shoe[5] -= 1
>>> probabilities = dealer_distribution(shoe, table)
>>> round(float(probabilities.sum()), 12), round(float(probabilities[5]), 4)
(1.0, 0.4208)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from croupier.analysis.native import kernels
from croupier.analysis.shoe import ACE, RANKS, Counts

__all__ = [
    "BLACKJACK",
    "BUST",
    "OUTCOMES",
    "DealerTable",
    "dealer_distribution",
    "dealer_table",
    "load_tables",
    "save_tables",
]

#: Outcome indices.
BUST = 5
BLACKJACK = 6
OUTCOMES = 7

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class DealerTable:
    """The terminal draws of the dealer from one up card, as a trie (see the module docstring).

    Each trie node adds ``multiplicities`` cards of one rank (ranks fall along a path, tens
    first, which shares the most prefixes).  A node that ends a terminal multiset carries
    its ``outcomes`` index (else -1), its number of drawing ``orders`` and its ``sizes``.
    The nodes with children come first, in preorder (a parent before its children); the
    ``leaves`` after them, grouped by outcome and size, so that their chances are summed
    in place without being stored.
    """

    up: int
    ranks: IntArray
    multiplicities: IntArray
    parents: IntArray
    sizes: IntArray
    orders: FloatArray
    outcomes: IntArray
    leaves: int

    def fill(self, shoes: IntArray, out: FloatArray) -> None:
        """Fill ``out[k]`` with the dealer's distribution for each shoe ``shoes[k]``."""
        kernels().distributions(
            np.ascontiguousarray(shoes, dtype=np.int64),
            self.ranks,
            self.multiplicities,
            self.parents,
            self.sizes,
            self.orders,
            self.outcomes,
            self.leaves,
            out,
        )

    @property
    def max_size(self) -> int:
        """The most cards the dealer draws after the up card."""
        return int(self.sizes.max())


def _dealer_stands(hard: int, has_ace: bool, hits_soft_17: bool) -> int:
    """-1 while the dealer draws, else the final total (22 for a bust)."""
    if hard > 21:
        return 22
    soft = has_ace and hard + 10 <= 21
    total = hard + 10 if soft else hard
    if total < 17 or (total == 17 and soft and hits_soft_17):
        return -1
    return total


_tables: dict[tuple[int, bool], DealerTable] = {}


def dealer_table(up: int, hits_soft_17: bool) -> DealerTable:
    """The terminal multisets of the dealer's draws from up card ``up`` (cached)."""
    table = _tables.get((up, hits_soft_17))
    if table is None:
        table = _tables.setdefault((up, hits_soft_17), _make_table(up, hits_soft_17))
    return table


_FIELDS = ("ranks", "multiplicities", "parents", "sizes", "orders", "outcomes")


def save_tables(path: Path) -> None:
    """Write every dealer table (each up card, S17 and H17) to ``path`` (``.npz``), for
    :func:`load_tables` in another process: the compiled kernels' build keeps them
    beside the kernels (:mod:`croupier.analysis.native`)."""
    tables = [dealer_table(up, soft) for soft in (False, True) for up in range(RANKS)]
    arrays: dict[str, npt.NDArray[np.generic]] = {
        name: np.concatenate([getattr(table, name) for table in tables]) for name in _FIELDS
    }
    arrays["bounds"] = np.cumsum([0] + [table.ranks.shape[0] for table in tables])
    arrays["leaves"] = np.array([table.leaves for table in tables], dtype=np.int64)
    np.savez(path, **arrays)  # type: ignore[arg-type]


def load_tables(path: Path) -> bool:
    """Take the dealer tables :func:`save_tables` wrote to ``path``; False (nothing
    taken) where it cannot be read whole."""
    try:
        with np.load(path) as stored:
            arrays = {name: stored[name] for name in (*_FIELDS, "bounds", "leaves")}
    except (OSError, ValueError, KeyError):
        return False
    bounds, leaves = arrays["bounds"], arrays["leaves"]
    if bounds.shape != (2 * RANKS + 1,) or leaves.shape != (2 * RANKS,):
        return False
    for index, (soft, up) in enumerate((soft, up) for soft in (False, True) for up in range(RANKS)):
        start, end = int(bounds[index]), int(bounds[index + 1])
        parts = {name: np.ascontiguousarray(arrays[name][start:end]) for name in _FIELDS}
        _tables.setdefault((up, soft), DealerTable(up=up, leaves=int(leaves[index]), **parts))
    return True


def _make_table(up: int, hits_soft_17: bool) -> DealerTable:
    # Every order of drawing reaches a multiset of drawn cards; whether the dealer stands
    # on it depends on the multiset alone.  So the orders that end on a multiset (none
    # of whose first cards already stood) are counted a size at a time, from the
    # multisets he still draws on, rather than walking every order.
    orders: dict[tuple[int, ...], int] = {}
    outcome_of: dict[tuple[int, ...], int] = {}
    drawing: dict[tuple[int, ...], tuple[int, bool, int]] = {(0,) * RANKS: (up + 1, up == ACE, 1)}
    size = 0
    while drawing:
        size += 1
        grown: dict[tuple[int, ...], tuple[int, bool, int]] = {}
        for key, (hard, has_ace, ways) in drawing.items():
            for rank in range(RANKS):
                counts = list(key)
                counts[rank] += 1
                new = tuple(counts)
                new_hard = hard + rank + 1
                new_ace = has_ace or rank == ACE
                final = _dealer_stands(new_hard, new_ace, hits_soft_17)
                if final < 0:
                    known = grown.get(new)
                    grown[new] = (new_hard, new_ace, ways + (known[2] if known else 0))
                    continue
                if size == 1 and final == 21:
                    outcome = BLACKJACK
                elif final > 21:
                    outcome = BUST
                else:
                    outcome = final - 17
                orders[new] = orders.get(new, 0) + ways
                outcome_of[new] = outcome
        drawing = grown
    # The trie of the multisets, each a path of (rank, multiplicity) steps, ranks falling.
    paths = sorted(
        tuple((rank, key[rank]) for rank in reversed(range(RANKS)) if key[rank]) for key in orders
    )
    trie: dict[tuple[tuple[int, int], ...], int] = {(): 0}
    steps: list[tuple[tuple[int, int], ...]] = [()]
    for path in paths:
        for length in range(1, len(path) + 1):
            prefix = path[:length]
            if prefix not in trie:
                trie[prefix] = len(steps)
                steps.append(prefix)
    order = sorted(steps)  # preorder: a prefix sorts before its extensions
    position = {prefix: index for index, prefix in enumerate(order)}
    count = len(order)
    ranks = np.zeros(count, dtype=np.int64)
    multiplicities = np.zeros(count, dtype=np.int64)
    parents = np.full(count, -1, dtype=np.int64)
    sizes = np.zeros(count, dtype=np.int64)
    weights = np.zeros(count, dtype=np.float64)
    outcomes = np.full(count, -1, dtype=np.int64)
    for index, prefix in enumerate(order):
        if prefix:
            ranks[index], multiplicities[index] = prefix[-1]
            parents[index] = position[prefix[:-1]]
        sizes[index] = sum(step[1] for step in prefix)
        key_counts = [0] * RANKS
        for rank, multiplicity in prefix:
            key_counts[rank] = multiplicity
        key = tuple(key_counts)
        if key in orders and prefix:
            weights[index] = float(orders[key])
            outcomes[index] = outcome_of[key]
    # The nodes with children first, as they are; then the leaves (every one ends a
    # multiset) by outcome, size and parent.
    has_child = np.zeros(count, dtype=np.bool_)
    has_child[parents[1:]] = True
    has_child[0] = True
    inner = np.flatnonzero(has_child)
    leaves = np.flatnonzero(~has_child)
    leaves = leaves[np.lexsort((parents[leaves], sizes[leaves], outcomes[leaves]))]
    moved = np.concatenate([inner, leaves])
    renumbered = np.empty(count, dtype=np.int64)
    renumbered[moved] = np.arange(count)
    parents = parents[moved]
    parents[1:] = renumbered[parents[1:]]
    return DealerTable(
        up=up,
        ranks=ranks[moved],
        multiplicities=multiplicities[moved],
        parents=parents,
        sizes=sizes[moved],
        orders=weights[moved],
        outcomes=outcomes[moved],
        leaves=int(inner.shape[0]),
    )


def dealer_distribution(counts: Counts, table: DealerTable) -> FloatArray:
    """The dealer's outcome probabilities (17-21, bust, blackjack) drawing from ``counts``."""
    out = np.zeros((1, OUTCOMES), dtype=np.float64)
    table.fill(np.asarray(counts, dtype=np.int64).reshape(1, RANKS), out)
    first: FloatArray = out[0]
    return first
