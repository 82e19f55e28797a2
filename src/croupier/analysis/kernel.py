"""The compiled inner loops of the exact math (Numba, cached on disk).

The work against one up card comes in two passes.  ``distributions`` computes the
dealer's outcome distribution for every shoe the analysis will meet (each a base
shoe less one hand's cards), 64 shoes at a time in lock step down the dealer's
trie (the callers spread the shoes over threads).  ``value_hands`` then values every hand
from those distributions: the expected result of standing, of hitting and playing
on, of doubling, and the best of standing and hitting.

Values are per unit of initial bet and are *joint* with the dealer not holding a
blackjack where the dealer peeks: the share where the dealer has blackjack is
counted at the ``payoffs`` given for a dealer blackjack, zero for a peek game (the
round ended before the player acted).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from croupier.analysis.columns import (
    DEALER_OUTCOMES,
    DOUBLE,
    HIT,
    LANES,
    PLAYED,
    RESULTS,
    STAND,
    STANDING_DOUBLED,
)

__all__ = [
    "LANES",
    "busts_with_blackjack",
    "conditional_means",
    "conditional_results",
    "distributions",
    "hand_outcomes",
    "value_hands",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: The most cards of one rank, or in all, the dealer can draw (H17 from an Ace: 11 Aces).
_DEPTH = 24
#: ``LANES`` as an unsigned integer (indices Numba need not wrap).
_LANES = np.uint64(LANES)


@numba.njit(cache=True, nogil=True)
def distributions(
    shoes: IntArray,
    ranks: IntArray,
    multiplicities: IntArray,
    parents: IntArray,
    sizes: IntArray,
    orders: FloatArray,
    outcomes: IntArray,
    leaves: int,
    out: FloatArray,
) -> None:
    """Fill ``out[k]`` (7 outcomes) with the dealer's distribution for shoe ``shoes[k]``.

    The trie is :class:`~croupier.analysis.dealer.DealerTable`'s: its first ``leaves``
    nodes have children, in preorder; the leaves follow, grouped by outcome and size.
    The leaves of one outcome and size are summed apart, then added.  The shoes go in
    blocks of ``LANES``.  The GIL is released: callers spread the rows over threads
    (a shoe's figures do not depend on which call or lane computes them).

    The work is in ``_distributions``: the ahead-of-time build compiles an entry point
    with flags of its own, and a function it calls with the function's (``fastmath``).
    """
    _distributions(shoes, ranks, multiplicities, parents, sizes, orders, outcomes, leaves, out)


@numba.njit(cache=True, nogil=True, fastmath=True)
def _distributions(
    shoes: IntArray,
    ranks: IntArray,
    multiplicities: IntArray,
    parents: IntArray,
    sizes: IntArray,
    orders: FloatArray,
    outcomes: IntArray,
    leaves: int,
    out: FloatArray,
) -> None:
    """:func:`distributions`'s work, compiled with ``fastmath`` in either build."""
    nodes = ranks.shape[0]
    # The most cards of each rank, and in all, that the trie draws.
    most = np.zeros(10, dtype=np.int64)
    deepest = 0
    for node in range(nodes):
        most[ranks[node]] = max(most[ranks[node]], multiplicities[node])
        deepest = max(deepest, sizes[node])
    # Flat offsets: each node's falling factorial and the sum its multiset adds to.
    factor = np.empty(nodes, dtype=np.int64)
    target = np.empty(nodes, dtype=np.int64)
    for node in range(nodes):
        factor[node] = (ranks[node] * _DEPTH + multiplicities[node]) * LANES
        outcome = outcomes[node]
        target[node] = (outcome * _DEPTH + sizes[node]) * LANES if outcome >= 0 else -1
    # Scratch made once: zeroing fresh arrays for every block cost a tenth of the time.
    falling = np.ones(10 * _DEPTH * LANES)
    inverse = np.ones((_DEPTH, LANES))
    sums = np.zeros(7 * _DEPTH * LANES)
    products = np.ones(max(leaves, 1) * LANES)
    run = np.zeros(LANES)
    for block in range((shoes.shape[0] + LANES - 1) // LANES):
        _block(
            shoes,
            block * LANES,
            most,
            deepest,
            factor,
            target,
            parents,
            orders,
            leaves,
            nodes,
            falling,
            inverse,
            sums,
            products,
            run,
            out,
        )


@numba.njit(cache=True, fastmath=True, inline="always")
def _block(
    shoes: IntArray,
    start: int,
    most: IntArray,
    deepest: int,
    factor: IntArray,
    target: IntArray,
    parents: IntArray,
    orders: FloatArray,
    leaves: int,
    nodes: int,
    falling: FloatArray,
    inverse: FloatArray,
    sums: FloatArray,
    products: FloatArray,
    run: FloatArray,
    out: FloatArray,
) -> None:
    """One block of up to ``LANES`` shoes from ``start``, into ``out``, on given scratch.

    Lanes past the last shoe keep the previous block's figures; nothing reads them.
    """
    count = shoes.shape[0]
    width = min(LANES, count - start)
    for lane in range(width):
        shoe = shoes[start + lane]
        total = 0
        for rank in range(10):
            total += shoe[rank]
            value = 1.0
            for k in range(1, most[rank] + 1):
                value *= shoe[rank] - k + 1
                falling[(rank * _DEPTH + k) * LANES + lane] = value if value > 0.0 else 0.0
        value = 1.0
        for k in range(1, deepest + 1):
            remaining = total - k + 1
            value = value / remaining if remaining > 0 else 0.0
            inverse[k, lane] = value
    # Per outcome and number of cards drawn; divided by the falling shoe size at the end.
    for index in range(7 * _DEPTH * LANES):
        sums[index] = 0.0
    # Indices as unsigned integers: Numba then does not guard each one against being
    # negative (Python's wraparound), and the loops run about a seventh faster.
    for node in range(1, leaves):
        here = np.uint64(node) * _LANES
        parent = np.uint64(parents[node]) * _LANES
        f = np.uint64(factor[node])
        for lane in range(LANES):
            products[here + np.uint64(lane)] = (
                products[parent + np.uint64(lane)] * falling[f + np.uint64(lane)]
            )
        t = target[node]
        if t >= 0:
            weight = orders[node]
            first = np.uint64(t)
            for lane in range(LANES):
                sums[first + np.uint64(lane)] += weight * products[here + np.uint64(lane)]
    # The leaves, a run of one outcome and size at a time, summed apart, then added.
    leaf = np.uint64(leaves)
    end = np.uint64(nodes)
    while leaf < end:
        t = target[leaf]
        for lane in range(LANES):
            run[lane] = 0.0
        while leaf < end and target[leaf] == t:
            parent = np.uint64(parents[leaf]) * _LANES
            f = np.uint64(factor[leaf])
            weight = orders[leaf]
            for lane in range(LANES):
                run[lane] += (
                    weight * products[parent + np.uint64(lane)] * falling[f + np.uint64(lane)]
                )
            leaf += np.uint64(1)
        first = np.uint64(t)
        for lane in range(LANES):
            sums[first + np.uint64(lane)] += run[lane]
    for lane in range(width):
        for outcome in range(7):
            chance = 0.0
            for size in range(1, deepest + 1):
                chance += sums[(outcome * _DEPTH + size) * LANES + lane] * inverse[size, lane]
            out[start + lane, outcome] = chance


@numba.njit(cache=True, nogil=True)
def _blackjack_after_bust(
    base: IntArray,
    node_counts: IntArray,
    node: int,
    rank: int,
    blackjack_rank: int,
    remaining: int,
) -> float:
    """The dealer's blackjack chance once a hand's cards and the card that busts it are out."""
    if blackjack_rank < 0 or remaining <= 1:
        return 0.0
    left = base[blackjack_rank] - node_counts[node, blackjack_rank]
    if rank == blackjack_rank:
        left -= 1
    return float(left / (remaining - 1))


@numba.njit(cache=True, nogil=True)
def value_hands(
    base: IntArray,
    node_counts: IntArray,
    node_total: IntArray,
    child: IntArray,
    mask: BoolArray,
    rows: IntArray,
    dealer: FloatArray,
    policy: IntArray,
    blackjack_rank: int,
    payoffs: FloatArray,
    must_draw_to_12: bool,
    stand: FloatArray,
    stand_doubled: FloatArray,
    hit: FloatArray,
    best: FloatArray,
    double: FloatArray,
    blackjack: FloatArray,
) -> None:
    """Value every masked hand (see the module docstring).

    Args:
        base: the shoe before the hand's own cards (the up card and any other cards
            the analysis counts as gone, such as a split's other pair cards).
        rows: per hand, its row of ``dealer`` (the dealer's distribution for the shoe
            less the hand's cards).
        policy: per hand, -1 to play the best of standing and hitting, 0 to stand, 1 to hit.
        blackjack_rank: the card that gives the dealer a blackjack under his up card, or -1.
        payoffs: against a dealer blackjack: standing, standing doubled, busted,
            busted doubled.
    """
    size = node_total.shape[0]
    bj_stand = payoffs[0]
    bj_stand_doubled = payoffs[1]
    bj_bust = payoffs[2]
    bj_bust_doubled = payoffs[3]
    for node in range(size - 1, -1, -1):
        if not mask[node]:
            continue
        distribution = dealer[rows[node]]
        total = node_total[node]
        value = distribution[5] + distribution[6] * bj_stand
        for outcome in range(5):
            dealer_total = 17 + outcome
            if total > dealer_total:
                value += distribution[outcome]
            elif total < dealer_total:
                value -= distribution[outcome]
        stand[node] = value
        stand_doubled[node] = (
            2.0 * (value - distribution[6] * bj_stand) + distribution[6] * bj_stand_doubled
        )
        blackjack[node] = distribution[6]
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
            if grown >= 0:
                hit_value += probability * best[grown]
                double_value += probability * stand_doubled[grown]
            else:
                # The card busts the hand: the dealer's blackjack chance after it is removed.
                chance = _blackjack_after_bust(
                    base, node_counts, node, rank, blackjack_rank, remaining
                )
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


@numba.njit(cache=True, nogil=True)
def busts_with_blackjack(
    base: IntArray,
    node_counts: IntArray,
    node_total: IntArray,
    child: IntArray,
    mask: BoolArray,
    stands: BoolArray,
    blackjack_rank: int,
    played: FloatArray,
    hit: FloatArray,
    double: FloatArray,
) -> None:
    """Each masked hand's chance of busting while the dealer holds a blackjack.

    Joint chances, like the values of :func:`value_hands`: for the hand played on as
    ``stands`` says (``played``), hitting once and playing on (``hit``), and doubling
    (``double``).  A split box's hands all busting against a dealer blackjack lose no
    initial bet beside their wagers under RWS rules, so the box's value needs them.
    """
    size = node_total.shape[0]
    for node in range(size - 1, -1, -1):
        if not mask[node]:
            continue
        remaining = 0
        for rank in range(10):
            remaining += base[rank] - node_counts[node, rank]
        hit_chance = 0.0
        double_chance = 0.0
        for rank in range(10):
            left = base[rank] - node_counts[node, rank]
            if left <= 0:
                continue
            probability = left / remaining
            grown = child[node, rank]
            if grown >= 0:
                hit_chance += probability * played[grown]
            else:
                chance = _blackjack_after_bust(
                    base, node_counts, node, rank, blackjack_rank, remaining
                )
                hit_chance += probability * chance
                double_chance += probability * chance
        hit[node] = hit_chance
        double[node] = double_chance
        played[node] = 0.0 if stands[node] else hit_chance


@numba.njit(cache=True, nogil=True)
def hand_outcomes(
    base: IntArray,
    node_counts: IntArray,
    node_total: IntArray,
    child: IntArray,
    mask: BoolArray,
    rows: IntArray,
    dealer: FloatArray,
    stands: BoolArray,
    blackjack_rank: int,
    payoffs: FloatArray,
    out: FloatArray,
) -> None:
    """How every masked hand ends when played on as ``stands`` says (stand, else hit).

    ``out[node]`` gets five blocks of four numbers: the chance of a win, of a
    stand-off and of a loss, and the expected square of the result per unit initial
    bet, for the hand played on (``PLAYED``), standing with its bet doubled
    (``STANDING_DOUBLED``), hitting once and playing on (``HIT``), doubling (``DOUBLE``)
    and standing (``STAND``); joint with no dealer blackjack where the dealer peeks,
    like :func:`value_hands`.
    """
    size = node_total.shape[0]
    bj_stand = payoffs[0]
    bj_stand_doubled = payoffs[1]
    bj_bust = payoffs[2]
    bj_bust_doubled = payoffs[3]
    peek = bj_stand == 0.0 and bj_bust == 0.0
    for node in range(size - 1, -1, -1):
        if not mask[node]:
            continue
        distribution = dealer[rows[node]]
        total = node_total[node]
        win = distribution[5]
        push = 0.0
        loss = 0.0
        for outcome in range(5):
            dealer_total = 17 + outcome
            if total > dealer_total:
                win += distribution[outcome]
            elif total == dealer_total:
                push += distribution[outcome]
            else:
                loss += distribution[outcome]
        dealer_blackjack = 0.0 if peek else distribution[6]
        out[node, STAND + 0] = win
        out[node, STAND + 1] = push
        out[node, STAND + 2] = loss + dealer_blackjack
        out[node, STAND + 3] = win + loss + dealer_blackjack * bj_stand * bj_stand
        out[node, STANDING_DOUBLED + 0] = win
        out[node, STANDING_DOUBLED + 1] = push
        out[node, STANDING_DOUBLED + 2] = loss + dealer_blackjack
        out[node, STANDING_DOUBLED + 3] = (
            4.0 * (win + loss) + dealer_blackjack * bj_stand_doubled * bj_stand_doubled
        )
        remaining = 0
        for rank in range(10):
            remaining += base[rank] - node_counts[node, rank]
        for k in range(4):
            out[node, HIT + k] = 0.0
            out[node, DOUBLE + k] = 0.0
        for rank in range(10):
            left = base[rank] - node_counts[node, rank]
            if left <= 0:
                continue
            probability = left / remaining
            grown = child[node, rank]
            if grown >= 0:
                for k in range(4):
                    out[node, HIT + k] += probability * out[grown, PLAYED + k]
                    out[node, DOUBLE + k] += probability * out[grown, STANDING_DOUBLED + k]
            else:
                chance = _blackjack_after_bust(
                    base, node_counts, node, rank, blackjack_rank, remaining
                )
                shown = chance if not peek else 0.0
                out[node, HIT + 2] += probability * ((1.0 - chance) + shown)
                out[node, HIT + 3] += probability * ((1.0 - chance) + shown * bj_bust * bj_bust)
                out[node, DOUBLE + 2] += probability * ((1.0 - chance) + shown)
                out[node, DOUBLE + 3] += probability * (
                    4.0 * (1.0 - chance) + shown * bj_bust_doubled * bj_bust_doubled
                )
        source = STAND if stands[node] else HIT
        for k in range(4):
            out[node, PLAYED + k] = out[node, source + k]


@numba.njit(cache=True, nogil=True)
def conditional_means(
    base: IntArray,
    node_counts: IntArray,
    node_total: IntArray,
    child: IntArray,
    mask: BoolArray,
    stands: BoolArray,
    payoffs: FloatArray,
    out: FloatArray,
) -> None:
    """Each masked hand's mean result given how the dealer's hand ends.

    ``out[node, block * 7 + d]`` is the mean result per unit initial bet given dealer
    outcome ``d`` (17 to 21, bust, blackjack), for the five blocks of
    :func:`hand_outcomes` in its order (divided by four: played, standing doubled,
    hit, double, stand).  The player's draws are taken as independent of the dealer's
    (the cards they share are ignored): the means serve the covariance of the hands
    of a split, which play against one dealer hand.
    """
    size = node_total.shape[0]
    played, standing_doubled, hit, double, stand = 0, 7, 14, 21, 28
    for node in range(size - 1, -1, -1):
        if not mask[node]:
            continue
        total = node_total[node]
        for outcome in range(5):
            dealer_total = 17 + outcome
            result = 1.0 if total > dealer_total else 0.0 if total == dealer_total else -1.0
            out[node, stand + outcome] = result
            out[node, standing_doubled + outcome] = 2.0 * result
        out[node, stand + 5] = 1.0
        out[node, standing_doubled + 5] = 2.0
        out[node, stand + 6] = payoffs[0]
        out[node, standing_doubled + 6] = payoffs[1]
        remaining = 0
        for rank in range(10):
            remaining += base[rank] - node_counts[node, rank]
        for d in range(DEALER_OUTCOMES):
            out[node, hit + d] = 0.0
            out[node, double + d] = 0.0
        for rank in range(10):
            left = base[rank] - node_counts[node, rank]
            if left <= 0:
                continue
            probability = left / remaining
            grown = child[node, rank]
            for d in range(DEALER_OUTCOMES):
                if grown >= 0:
                    out[node, hit + d] += probability * out[grown, played + d]
                    out[node, double + d] += probability * out[grown, standing_doubled + d]
                else:
                    busted = payoffs[2] if d == 6 else -1.0
                    busted_doubled = payoffs[3] if d == 6 else -2.0
                    out[node, hit + d] += probability * busted
                    out[node, double + d] += probability * busted_doubled
        source = stand if stands[node] else hit
        for d in range(DEALER_OUTCOMES):
            out[node, played + d] = out[node, source + d]


@numba.njit(cache=True, nogil=True)
def conditional_results(
    base: IntArray,
    node_counts: IntArray,
    node_total: IntArray,
    child: IntArray,
    mask: BoolArray,
    stands: BoolArray,
    payoffs: FloatArray,
    out: FloatArray,
) -> None:
    """Each masked hand's distribution of results given how the dealer's hand ends.

    ``out[node, block, d, r]`` is the chance of result ``r - 2`` (per unit initial bet,
    a win paying even money) given dealer outcome ``d`` (17 to 21, bust, blackjack), for
    the blocks of :func:`conditional_means` (played, standing doubled, hit, double,
    stand), whose means these are; the player's draws taken as independent of the
    dealer's likewise.  ``payoffs`` must be whole bets.
    """
    size = node_total.shape[0]
    played, standing_doubled, hit, double, stand = 0, 1, 2, 3, 4
    for node in range(size - 1, -1, -1):
        if not mask[node]:
            continue
        total = node_total[node]
        for block in range(5):
            for d in range(DEALER_OUTCOMES):
                for r in range(RESULTS):
                    out[node, block, d, r] = 0.0
        for outcome in range(5):
            dealer_total = 17 + outcome
            result = 1 if total > dealer_total else 0 if total == dealer_total else -1
            out[node, stand, outcome, result + 2] = 1.0
            out[node, standing_doubled, outcome, 2 * result + 2] = 1.0
        out[node, stand, 5, 3] = 1.0
        out[node, standing_doubled, 5, 4] = 1.0
        out[node, stand, 6, int(payoffs[0]) + 2] = 1.0
        out[node, standing_doubled, 6, int(payoffs[1]) + 2] = 1.0
        remaining = 0
        for rank in range(10):
            remaining += base[rank] - node_counts[node, rank]
        for rank in range(10):
            left = base[rank] - node_counts[node, rank]
            if left <= 0:
                continue
            probability = left / remaining
            grown = child[node, rank]
            if grown < 0:
                for d in range(DEALER_OUTCOMES):
                    busted = int(payoffs[2]) if d == 6 else -1
                    busted_doubled = int(payoffs[3]) if d == 6 else -2
                    out[node, hit, d, busted + 2] += probability
                    out[node, double, d, busted_doubled + 2] += probability
                continue
            # A standing hand's results are one result a dealer outcome (its stand and
            # standing-doubled blocks hold a single 1.0 each): only that cell is added
            # to, which adds what the whole row would (the others add 0.0), bit for bit.
            grown_total = node_total[grown]
            standing = stands[grown]
            for d in range(DEALER_OUTCOMES):
                if d < 5:
                    result = 1 if grown_total > 17 + d else 0 if grown_total == 17 + d else -1
                    doubled = 2 * result
                elif d == 5:
                    result = 1
                    doubled = 2
                else:
                    result = int(payoffs[0])
                    doubled = int(payoffs[1])
                out[node, double, d, doubled + 2] += probability
                if standing:
                    out[node, hit, d, result + 2] += probability
                else:
                    for r in range(RESULTS):
                        out[node, hit, d, r] += probability * out[grown, played, d, r]
        source = stand if stands[node] else hit
        for d in range(DEALER_OUTCOMES):
            for r in range(RESULTS):
                out[node, played, d, r] = out[node, source, d, r]
