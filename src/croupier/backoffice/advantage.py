"""Advantage play: does a player's bet follow the count?

Before each round's bets the cards already dealt from its shoe are known from the
records (the shoe's order and how far it had been dealt), so the hi-lo *true count*
(running count per deck left) each bet was made at is known too.  A card counter raises
his bet with the count; a player who bets without regard to it shows no correlation
beyond chance.

For a player with at least :data:`FEWEST_ROUNDS` rounds, the report gives the
correlation ``r`` between his main bet and the true count, his average bet by count,
the spread (his highest average bet by count over his lowest), and whether he took
insurance where a counter's index would (true count +3 or more; basic strategy never
insures).  He is *flagged* when Fisher's ``z = atanh(r) sqrt(n - 3)`` reaches
:data:`FLAG_Z`: for a player whose bets do not depend on the count, ``z`` is a standard
normal value, so he is flagged with the chance :data:`FLAT_BETTOR_FLAGGED`, whatever
his number of rounds (the tests hold this to a simulation of flat bettors and of a
1-8 spread counter over real shoes).

>>> hi_lo("5H"), hi_lo("9C"), hi_lo("KD"), hi_lo("AS")
(1, 0, -1, -1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from croupier.backoffice.statistics import normal_upper_tail

__all__ = [
    "COUNT_BUCKETS",
    "FEWEST_ROUNDS",
    "FLAG_Z",
    "FLAT_BETTOR_FLAGGED",
    "INSURANCE_INDEX",
    "CountedBet",
    "PlayerCount",
    "assess",
    "hi_lo",
    "true_counts",
]

FEWEST_ROUNDS = 100
FLAG_Z = 4.0
#: The chance that a player whose bets ignore the count is flagged.
FLAT_BETTOR_FLAGGED = normal_upper_tail(FLAG_Z)
#: The hi-lo true count at and above which a counter takes insurance.
INSURANCE_INDEX = 3
#: The true counts the average bet is shown by (the ends take everything beyond).
COUNT_BUCKETS = (-2, -1, 0, 1, 2, 3, 4)

_HI_LO = {"2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 0, "8": 0, "9": 0}


def hi_lo(card: str) -> int:
    """The hi-lo value of a card (as text): +1 for 2 to 6, 0 for 7 to 9, -1 for the rest."""
    return _HI_LO.get(card[:-1], -1)


def true_counts(order: Sequence[str], positions: Sequence[int]) -> list[float]:
    """The hi-lo true count before the card at each position of a shoe (running count
    of the cards before it, per deck left).

    >>> true_counts(["2S", "3S", "KS", "4S"] + ["9H"] * 48, [0, 2, 3])  # one deck
    [0.0, 2.08, 1.0612244897959184]
    """
    running = [0]
    for card in order:
        running.append(running[-1] + hi_lo(card))
    counts = []
    for position in positions:
        decks_left = max(len(order) - position, 1) / 52
        counts.append(running[position] / decks_left)
    return counts


@dataclass(frozen=True)
class CountedBet:
    """One round's main bet of a player, with the true count before it."""

    true_count: float
    units: int
    insured: bool


@dataclass(frozen=True)
class PlayerCount:
    """One player's bets against the count."""

    player: str
    rounds: int
    correlation: float | None
    z: float | None
    average_bet_by_count: dict[int, Decimal]
    spread: Decimal | None
    insured: int
    insured_at_index: int

    @property
    def flagged(self) -> bool:
        """His bet follows the count beyond chance (see :data:`FLAG_Z`)."""
        return self.z is not None and self.z >= FLAG_Z

    @property
    def verdict(self) -> str:
        """In words."""
        words = []
        if self.flagged:
            words.append(f"bet follows the count (z = {self.z:.1f})")
        if self.insured and self.insured_at_index == self.insured:
            words.append(f"insured only at true count +{INSURANCE_INDEX} or more")
        return "; ".join(words) or "no sign of counting"

    def to_json(self) -> dict[str, object]:
        """As JSON values."""
        return {
            "player": self.player,
            "rounds": self.rounds,
            "correlation": None if self.correlation is None else round(self.correlation, 6),
            "z": None if self.z is None else round(self.z, 4),
            "average_bet_by_true_count": {
                str(count): str(amount) for count, amount in self.average_bet_by_count.items()
            },
            "spread": None if self.spread is None else str(self.spread),
            "insured": self.insured,
            "insured_at_index": self.insured_at_index,
            "flagged": self.flagged,
            "verdict": self.verdict,
        }


def _bucket(count: float) -> int:
    whole = math.floor(count)
    return min(max(whole, COUNT_BUCKETS[0]), COUNT_BUCKETS[-1])


def assess(player: str, bets: Sequence[CountedBet]) -> PlayerCount:
    """A player's :class:`PlayerCount` over his counted bets."""
    n = len(bets)
    xs = [bet.true_count for bet in bets]
    ys = [float(bet.units) for bet in bets]
    correlation = z = None
    if n > 3:
        mean_x, mean_y = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mean_x) ** 2 for x in xs)
        syy = sum((y - mean_y) ** 2 for y in ys)
        sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
        if sxx > 0 and syy > 0:
            correlation = sxy / math.sqrt(sxx * syy)
            clipped = min(max(correlation, -0.999999), 0.999999)
            z = math.atanh(clipped) * math.sqrt(n - 3)
        elif sxx > 0:
            correlation, z = 0.0, 0.0  # the same bet every round: no link to the count
    totals: dict[int, list[int]] = {}
    for bet in bets:
        entry = totals.setdefault(_bucket(bet.true_count), [0, 0])
        entry[0] += bet.units
        entry[1] += 1
    averages = {
        bucket: (Decimal(units) / count / 100).quantize(Decimal("0.01"))
        for bucket, (units, count) in sorted(totals.items())
    }
    spread = None
    if averages and min(averages.values()) > 0:
        spread = (max(averages.values()) / min(averages.values())).quantize(Decimal("0.01"))
    insured = sum(1 for bet in bets if bet.insured)
    at_index = sum(1 for bet in bets if bet.insured and bet.true_count >= INSURANCE_INDEX)
    return PlayerCount(
        player=player,
        rounds=n,
        correlation=correlation,
        z=z,
        average_bet_by_count=averages,
        spread=spread,
        insured=insured,
        insured_at_index=at_index,
    )


def count_bets(
    rows: Sequence[tuple[str, int, int, str, int, int]],
    shoes: Mapping[str, Sequence[tuple[int, Sequence[str]]]],
) -> dict[str, list[CountedBet]]:
    """Each player's :class:`CountedBet` list from rows of (table, number, position,
    player, units, insured) and each table's shoes as (number of the first round dealt
    from it, order), by number.  A round whose shoe began before the period is left
    out (its order is not among the shoes read)."""
    import bisect

    by_player: dict[str, list[CountedBet]] = {}
    starts = {table: [number for number, _ in found] for table, found in shoes.items()}
    running_by_shoe: dict[tuple[str, int], list[int]] = {}
    for table, number, position, player, units, insured in rows:
        found = shoes.get(table)
        if not found or position is None:
            continue
        index = bisect.bisect_right(starts[table], number) - 1
        if index < 0:
            continue
        order = found[index][1]
        running = running_by_shoe.get((table, index))
        if running is None:
            running = [0]
            for card in order:
                running.append(running[-1] + hi_lo(card))
            running_by_shoe[table, index] = running
        if position > len(order):
            continue
        decks_left = max(len(order) - position, 1) / 52
        by_player.setdefault(player, []).append(
            CountedBet(running[position] / decks_left, int(units), bool(insured))
        )
    return by_player
