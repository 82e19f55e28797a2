"""The compiled inner loops of the exact math (Numba, cached on disk).

``value_hands`` values every hand of the hand graph against one dealer up card for
one shoe: the expected result of standing, of hitting and then playing on, of
doubling, and the best of standing and hitting.  Values are per unit of initial bet
and are *joint* with the dealer not holding a blackjack where the dealer peeks: a
payoff's share where the dealer has blackjack is the ``dealer_blackjack`` payoff
given, zero for a peek game (the round ended before the player acted).

Dealer distributions are kept in a cache keyed by the cards removed from the base
shoe, so a hand met again (or a split hand's removal met by another hand) is not
computed twice.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt
from numba import types
from numba.typed import Dict

from croupier.analysis.dealer import distribution_kernel

__all__ = ["DealerCache", "new_cache", "value_hands"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Rows a dealer cache holds.
CACHE_ROWS = 65536


class DealerCache:
    """Dealer distributions for one base shoe and up card, keyed by the cards removed."""

    def __init__(self) -> None:
        self.keys = Dict.empty(key_type=types.int64, value_type=types.int64)
        self.rows = np.zeros((CACHE_ROWS, 7), dtype=np.float64)
        self.used = np.zeros(1, dtype=np.int64)


def new_cache() -> DealerCache:
    """An empty dealer cache."""
    return DealerCache()


@numba.njit(cache=True, nogil=True)
def _dealer_row(
    removed: IntArray,
    base: IntArray,
    keys: Dict[int, int],
    rows: FloatArray,
    used: IntArray,
    ranks: IntArray,
    multiplicities: IntArray,
    parents: IntArray,
    skips: IntArray,
    sizes: IntArray,
    orders: FloatArray,
    outcomes: IntArray,
) -> int:
    key = 0
    for rank in range(10):
        key |= removed[rank] << (6 * rank)
    if key in keys:
        return int(keys[key])
    row = int(used[0])
    used[0] += 1
    shoe = base - removed
    distribution_kernel(
        shoe, ranks, multiplicities, parents, skips, sizes, orders, outcomes, rows[row]
    )
    keys[key] = row
    return row


@numba.njit(cache=True, nogil=True)
def value_hands(
    base: IntArray,
    extra: IntArray,
    node_counts: IntArray,
    node_total: IntArray,
    child: IntArray,
    mask: BoolArray,
    policy: IntArray,
    blackjack_rank: int,
    payoffs: FloatArray,
    must_draw_to_12: bool,
    keys: Dict[int, int],
    rows: FloatArray,
    used: IntArray,
    ranks: IntArray,
    multiplicities: IntArray,
    parents: IntArray,
    skips: IntArray,
    sizes: IntArray,
    orders: FloatArray,
    outcomes: IntArray,
    stand: FloatArray,
    stand_doubled: FloatArray,
    hit: FloatArray,
    best: FloatArray,
    double: FloatArray,
    blackjack: FloatArray,
) -> None:
    """Value every masked hand (see the module docstring).

    Args:
        base: the shoe before the hand's own cards (the up card and ``extra`` removed).
        extra: cards removed from the shoe besides the hand's (a split's other cards).
        policy: per hand, -1 to play the best of standing and hitting, 0 to stand, 1 to hit.
        blackjack_rank: the card that gives the dealer a blackjack under his up card, or -1.
        payoffs: against a dealer blackjack: standing, standing doubled, busted,
            busted doubled.
    """
    removed = np.zeros(10, dtype=np.int64)
    size = node_total.shape[0]
    bj_stand, bj_stand_doubled, bj_bust, bj_bust_doubled = (
        payoffs[0],
        payoffs[1],
        payoffs[2],
        payoffs[3],
    )
    for node in range(size - 1, -1, -1):
        if not mask[node]:
            continue
        feasible = True
        for rank in range(10):
            removed[rank] = node_counts[node, rank] + extra[rank]
            if removed[rank] > base[rank] + extra[rank]:
                feasible = False
        if not feasible:
            mask[node] = False
            continue
        row = _dealer_row(
            removed,
            base + extra,
            keys,
            rows,
            used,
            ranks,
            multiplicities,
            parents,
            skips,
            sizes,
            orders,
            outcomes,
        )
        dealer = rows[row]
        total = node_total[node]
        value = dealer[5] + dealer[6] * bj_stand
        for outcome in range(5):
            dealer_total = 17 + outcome
            if total > dealer_total:
                value += dealer[outcome]
            elif total < dealer_total:
                value -= dealer[outcome]
        stand[node] = value
        stand_doubled[node] = 2.0 * (value - dealer[6] * bj_stand) + dealer[6] * bj_stand_doubled
        blackjack[node] = dealer[6]
        # The shoe the next card comes from.
        remaining = 0
        for rank in range(10):
            remaining += base[rank] - node_counts[node, rank]
        hit_value = 0.0
        double_value = 0.0
        for rank in range(10):
            left = base[rank] - node_counts[node, rank]
            if left <= 0:
                continue
            probability = left / remaining
            grown = child[node, rank]
            if grown >= 0 and mask[grown]:
                hit_value += probability * best[grown]
                double_value += probability * stand_doubled[grown]
            else:
                # The card busts the hand: the dealer's blackjack chance after it is removed.
                chance = 0.0
                if blackjack_rank >= 0:
                    bj_left = base[blackjack_rank] - node_counts[node, blackjack_rank]
                    if rank == blackjack_rank:
                        bj_left -= 1
                    if remaining > 1:
                        chance = bj_left / (remaining - 1)
                hit_value += probability * (-(1.0 - chance) + chance * bj_bust)
                double_value += probability * (-2.0 * (1.0 - chance) + chance * bj_bust_doubled)
        hit[node] = hit_value
        double[node] = double_value
        choice = policy[node]
        if total == 21:
            best[node] = value
        elif must_draw_to_12 and total < 12:
            best[node] = hit_value
        elif choice == 0:
            best[node] = value
        elif choice == 1:
            best[node] = hit_value
        else:
            best[node] = max(value, hit_value)
