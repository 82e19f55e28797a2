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
    "Sums",
    "assess",
    "assess_sums",
    "bucket",
    "hi_lo",
    "round_counts",
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
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_INDEX = {rank: index for index, rank in enumerate(_RANKS)} | {"T": 9}


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
    #: His decisions at the count's index situations in the rounds replayed (see
    #: :mod:`croupier.backoffice.deviations`), the index plays he made where the count
    #: called for them, and how far his play follows the count (a z-score).
    index_decisions: int = 0
    index_plays: int = 0
    play_z: float | None = None

    @property
    def bets_flagged(self) -> bool:
        """His bet follows the count beyond chance (see :data:`FLAG_Z`)."""
        return self.z is not None and self.z >= FLAG_Z

    @property
    def play_flagged(self) -> bool:
        """His play follows the count's indices beyond chance (see :data:`FLAG_Z`)."""
        return self.play_z is not None and self.play_z >= FLAG_Z

    @property
    def flagged(self) -> bool:
        """His bet or his play follows the count beyond chance."""
        return self.bets_flagged or self.play_flagged

    @property
    def verdict(self) -> str:
        """In words."""
        words = []
        if self.bets_flagged:
            words.append(f"bet follows the count (z = {self.z:.1f})")
        if self.play_flagged:
            words.append(f"plays the count's indices (z = {self.play_z:.1f})")
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
            "index_decisions": self.index_decisions,
            "index_plays": self.index_plays,
            "play_z": None if self.play_z is None else round(self.play_z, 4),
            "flagged": self.flagged,
            "verdict": self.verdict,
        }


def bucket(count: float) -> int:
    """The count bucket an average bet is shown in: the whole true count (rounded down),
    the ends of :data:`COUNT_BUCKETS` taking everything beyond.

    >>> bucket(2.7), bucket(-0.2), bucket(9.0), bucket(-7.5)
    (2, -1, 4, -2)
    """
    whole = math.floor(count)
    return min(max(whole, COUNT_BUCKETS[0]), COUNT_BUCKETS[-1])


@dataclass
class Sums:
    """A player's bets in one count bucket, summed: x the true count, y the bet in units."""

    n: int = 0
    sx: float = 0.0
    sy: int = 0
    sxy: float = 0.0
    sxx: float = 0.0
    syy: int = 0
    insured: int = 0
    at_index: int = 0

    def add(self, other: Sums) -> None:
        """Add another bucket's sums to these."""
        self.n += other.n
        self.sx += other.sx
        self.sy += other.sy
        self.sxy += other.sxy
        self.sxx += other.sxx
        self.syy += other.syy
        self.insured += other.insured
        self.at_index += other.at_index


def assess(player: str, bets: Sequence[CountedBet]) -> PlayerCount:
    """A player's :class:`PlayerCount` over his counted bets."""
    buckets: dict[int, Sums] = {}
    for bet in bets:
        x, y = bet.true_count, bet.units
        insured = int(bet.insured)
        buckets.setdefault(bucket(x), Sums()).add(
            Sums(1, x, y, x * y, x * x, y * y, insured, insured * (x >= INSURANCE_INDEX))
        )
    return assess_sums(player, buckets)


def assess_sums(player: str, buckets: Mapping[int, Sums]) -> PlayerCount:
    """A player's :class:`PlayerCount` from his bets' sums by count bucket."""
    total = Sums()
    for sums in buckets.values():
        total.add(sums)
    n = total.n
    correlation = z = None
    if n > 3:
        sxx = total.sxx - total.sx * total.sx / n
        syy = total.syy - total.sy * total.sy / n
        sxy = total.sxy - total.sx * total.sy / n
        if sxx > 1e-12 and syy > 0:
            correlation = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
            clipped = min(max(correlation, -0.999999), 0.999999)
            z = math.atanh(clipped) * math.sqrt(n - 3)
        elif sxx > 1e-12:
            correlation, z = 0.0, 0.0  # the same bet every round: no link to the count
    averages = {
        key: (Decimal(sums.sy) / sums.n / 100).quantize(Decimal("0.01"))
        for key, sums in sorted(buckets.items())
        if sums.n
    }
    spread = None
    if averages and min(averages.values()) > 0:
        spread = (max(averages.values()) / min(averages.values())).quantize(Decimal("0.01"))
    return PlayerCount(
        player=player,
        rounds=n,
        correlation=correlation,
        z=z,
        average_bet_by_count=averages,
        spread=spread,
        insured=total.insured,
        insured_at_index=total.at_index,
    )


def round_counts(
    rows: Sequence[tuple[str, str, int, int | None]],
    shoes: Mapping[str, Sequence[tuple[int, Sequence[str]]]],
) -> list[tuple[str, float, int]]:
    """Each round's (id, true count, bucket) from rows of (round id, table, number,
    position) and each table's shoes as (number of the first round dealt from it,
    order), by number; with NumPy, over whole arrays.  A round whose shoe began before
    the period is left out (its order is not among the shoes read)."""
    import numpy as np

    by_table: dict[str, list[tuple[str, int, int]]] = {}
    for round_id, table, number, position in rows:
        if position is not None and table in shoes:
            by_table.setdefault(table, []).append((round_id, number, position))
    found: list[tuple[str, float, int]] = []
    values = {f"{rank}{suit}": hi_lo(f"{rank}S") for rank in _RANKS for suit in "SHDC"}
    for table, entries in by_table.items():
        starts = np.array([number for number, _ in shoes[table]], dtype=np.int64)
        sizes = np.array([len(order) for _, order in shoes[table]], dtype=np.int64)
        offsets = np.concatenate(([0], np.cumsum(sizes + 1)))
        running = np.concatenate(
            [
                np.concatenate(
                    ([0], np.cumsum(np.fromiter(map(values.__getitem__, order), np.int64)))
                )
                for _, order in shoes[table]
            ]
        )
        numbers = np.array([entry[1] for entry in entries], dtype=np.int64)
        positions = np.array([entry[2] for entry in entries], dtype=np.int64)
        shoe = np.searchsorted(starts, numbers, side="right") - 1
        kept = (shoe >= 0) & (positions <= sizes[np.maximum(shoe, 0)])
        shoe, positions = shoe[kept], positions[kept]
        counts = running[offsets[shoe] + positions] / (np.maximum(sizes[shoe] - positions, 1) / 52)
        ids = [entry[0] for entry, keep in zip(entries, kept.tolist(), strict=True) if keep]
        for round_id, count in zip(ids, counts.tolist(), strict=True):
            found.append((round_id, count, bucket(count)))
    return found
