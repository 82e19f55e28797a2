"""Play deviations: does a player's play follow the count where a counter's indices say?

A hi-lo counter plays basic strategy except where the true count passes an *index*: the
most valuable are Don Schlesinger's "Illustrious 18" (*Blackjack Attack*, 3rd ed., 2005,
ch. 5), the plays that earn a counter most of what play variations are worth.  Each is
written here as "at a true count of the index or more, play X; below, play Y" (the
hi-lo indices for multi-deck games, as the book gives them; insurance, the first of
them, is judged with the bets in :mod:`croupier.backoffice.advantage`).

For each of a player's decisions at such a situation (his first decision on a hand of
two cards, not from a split: a hard total, or a pair of tens for the splits, against the
dealer's up card) the report notes whether the count was at the index or more, and
whether he played X or Y.  Basic strategy plays one of them whatever the count; a
counter departs from it on the side of the index where the count calls for it.  A
player whose play ignores the count departs from basic strategy on that side as often
as the count is there (each situation's share of decisions on that side, over every
player's decisions in the same rounds), so the number of his departures on the called
side, less its expectation, over its deviation, is a standard normal value for him: he
is flagged at :data:`FLAG_Z` with the same small chance as for the bets, and a player of
basic strategy, who never departs, is never flagged.  The tests hold this to
simulation.

The decisions are read by replaying rounds through the engine, a few milliseconds each:
the report replays at most :data:`DECISION_ROUNDS` rounds, those with the largest true
counts either way (where the indices apply; choosing rounds by the count alone leaves a
count-blind player's play independent of it).

>>> [play.name for play in ILLUSTRIOUS_18][:3]
['16 v 10', '15 v 10', '10,10 v 5']
>>> index_play(16, 10, pair_of_tens=False).index
0
>>> index_play(12, 7, pair_of_tens=False) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from croupier.backoffice.advantage import FLAG_Z

if TYPE_CHECKING:
    from croupier.server.records import RecordedInput

__all__ = [
    "DECISION_ROUNDS",
    "FLAG_Z",
    "ILLUSTRIOUS_18",
    "Decision",
    "IndexPlay",
    "PlayTally",
    "decisions_of_round",
    "index_play",
    "tally",
]

#: The most rounds the report replays for the players' decisions (a few milliseconds
#: each).
DECISION_ROUNDS = 1000


@dataclass(frozen=True)
class IndexPlay:
    """At a true count of ``index`` or more play ``play``, below it ``otherwise``."""

    name: str
    total: int
    #: The dealer's up card's value (an ace is 11).
    dealer: int
    index: int
    play: str
    otherwise: str
    pair_of_tens: bool = False
    #: Basic strategy's play there (multi-deck, dealer stands on soft 17): the other
    #: play where the index is above 0, the index play where it is 0 or below (but 16
    #: against a ten, hit by basic strategy, stood on at 0 or more).
    basic: str = ""

    def __post_init__(self) -> None:
        if not self.basic:
            chosen = self.otherwise if self.index > 0 or self.name == "16 v 10" else self.play
            object.__setattr__(self, "basic", chosen)


#: The Illustrious 18 less insurance (Schlesinger, *Blackjack Attack*, 3rd ed., ch. 5):
#: hi-lo indices, multi-deck.
ILLUSTRIOUS_18 = (
    IndexPlay("16 v 10", 16, 10, 0, "stand", "hit"),
    IndexPlay("15 v 10", 15, 10, 4, "stand", "hit"),
    IndexPlay("10,10 v 5", 20, 5, 5, "split", "stand", pair_of_tens=True),
    IndexPlay("10,10 v 6", 20, 6, 4, "split", "stand", pair_of_tens=True),
    IndexPlay("10 v 10", 10, 10, 4, "double", "hit"),
    IndexPlay("12 v 3", 12, 3, 2, "stand", "hit"),
    IndexPlay("12 v 2", 12, 2, 3, "stand", "hit"),
    IndexPlay("11 v A", 11, 11, 1, "double", "hit"),
    IndexPlay("9 v 2", 9, 2, 1, "double", "hit"),
    IndexPlay("10 v A", 10, 11, 4, "double", "hit"),
    IndexPlay("9 v 7", 9, 7, 3, "double", "hit"),
    IndexPlay("16 v 9", 16, 9, 5, "stand", "hit"),
    IndexPlay("13 v 2", 13, 2, -1, "stand", "hit"),
    IndexPlay("12 v 4", 12, 4, 0, "stand", "hit"),
    IndexPlay("12 v 5", 12, 5, -2, "stand", "hit"),
    IndexPlay("12 v 6", 12, 6, -1, "stand", "hit"),
    IndexPlay("13 v 3", 13, 3, -2, "stand", "hit"),
)
_BY_SITUATION = {(play.total, play.dealer, play.pair_of_tens): play for play in ILLUSTRIOUS_18}
_BY_NAME = {play.name: play for play in ILLUSTRIOUS_18}


def index_play(total: int, dealer: int, *, pair_of_tens: bool) -> IndexPlay | None:
    """The index play for a hard two-card ``total`` (or a pair of tens) against the
    dealer's up card's value, if the Illustrious 18 has one."""
    return _BY_SITUATION.get((total, dealer, pair_of_tens))


def card_value(text: str) -> int:
    """A card's value in a total, an ace as 11.

    >>> card_value("AS"), card_value("10H"), card_value("KD"), card_value("7C")
    (11, 10, 10, 7)
    """
    rank = text[:-1]
    if rank == "A":
        return 11
    if rank in ("10", "T", "J", "Q", "K"):
        return 10
    return int(rank)


@dataclass(frozen=True)
class Decision:
    """A player's decision at an index situation: was the count at the index or more,
    and did he make the index play (``True``) or the other (``False``)?"""

    player: str
    play: IndexPlay
    at_index: bool
    made_index_play: bool


def decisions_of_round(
    game: Any, inputs: Sequence[RecordedInput], true_count: float
) -> list[Decision]:
    """Replay ``inputs`` (a round's record's) on ``game`` (a :class:`croupier.round.Round`
    before its first input) and note each decision at an index situation, judged at
    ``true_count``."""
    from croupier.inputs import apply_input

    found: list[Decision] = []
    for entry in inputs:
        op, player = entry.op, entry.player
        if op in ("hit", "stand", "double", "split") and player is not None:
            hand = game.current_hand
            up = game.up_card
            if hand is not None and up is not None and len(hand.cards) == 2:
                decision = _judge(hand, up.text, op, player, true_count)
                if decision is not None:
                    found.append(decision)
        apply_input(game, op, player, entry.args)
    return found


def _judge(hand: Any, up: str, op: str, player: str, true_count: float) -> Decision | None:
    if hand.from_split or hand.is_soft:
        return None
    values = [card_value(card.text) for card in hand.cards]
    pair_of_tens = values == [10, 10]
    if values[0] == values[1] and not pair_of_tens:
        return None  # a pair: its own plays
    play = index_play(sum(values), card_value(up), pair_of_tens=pair_of_tens)
    if play is None or op not in (play.play, play.otherwise):
        return None
    return Decision(player, play, true_count >= play.index, op == play.play)


@dataclass
class PlayTally:
    """A player's decisions at index situations: for each situation, how often the count
    was at its index or above and he made the index play or the other; and, set by
    :func:`tally`, each situation's share of decisions at the index or above (of every
    player's decisions in the same rounds: the count does not depend on who plays)."""

    #: By situation's name: [above & index play, above & other, below & index play,
    #: below & other].
    cells: dict[str, list[int]] = field(default_factory=dict)
    above_share: dict[str, float] = field(default_factory=dict)

    def add(self, decision: Decision) -> None:
        """Count one more decision."""
        counts = self.cells.setdefault(decision.play.name, [0, 0, 0, 0])
        counts[(0 if decision.at_index else 2) + (0 if decision.made_index_play else 1)] += 1

    @property
    def decisions(self) -> int:
        """Every decision counted."""
        return sum(sum(counts) for counts in self.cells.values())

    @property
    def deviations(self) -> int:
        """His departures from basic strategy (the index play where basic strategy makes
        the other, or the other where it makes the index play)."""
        found = 0
        for name, (above_play, above_other, below_play, below_other) in self.cells.items():
            if _BY_NAME[name].basic == _BY_NAME[name].otherwise:
                found += above_play + below_play
            else:
                found += above_other + below_other
        return found

    @property
    def called(self) -> int:
        """His departures from basic strategy on the side of the index where the count
        called for them: the index plays a counter makes.

        >>> PlayTally({"16 v 10": [5, 1, 2, 4], "12 v 4": [6, 0, 3, 3]}).called
        8
        """
        found = 0
        for name, (above_play, _, _, below_other) in self.cells.items():
            play = _BY_NAME[name]
            found += above_play if play.basic == play.otherwise else below_other
        return found

    @property
    def z(self) -> float | None:
        """How far his departures from basic strategy fall on the side of the index
        where the count calls for them: (departures on that side - their expected
        number) / its deviation, each departure on that side with the situation's share
        of the count on it, for a player whose play ignores the count.  0 where it cannot
        be told (no departure, or the count always on one side); ``None`` without any
        decision.

        >>> tally = PlayTally({"16 v 10": [8, 0, 0, 8]}, {"16 v 10": 0.5})
        >>> round(tally.z, 3)  # eight departures, each where the count called for it
        2.828
        >>> PlayTally({"16 v 10": [4, 4, 4, 4]}, {"16 v 10": 0.5}).z
        0.0
        >>> PlayTally({"16 v 10": [0, 6, 0, 6]}, {"16 v 10": 0.5}).z  # basic strategy
        0.0
        """
        if not self.cells:
            return None
        excess = variance = 0.0
        for name, (above_play, above_other, below_play, below_other) in self.cells.items():
            share = self.above_share.get(name, 0.5)
            play = _BY_NAME[name]
            if play.basic == play.otherwise:  # the departure is the index play
                departures, called = above_play + below_play, above_play
                chance = share
            else:  # the departure is the other play, called for below the index
                departures, called = above_other + below_other, below_other
                chance = 1 - share
            excess += called - departures * chance
            variance += departures * chance * (1 - chance)
        if variance <= 0:
            return 0.0
        return excess / math.sqrt(variance)


def tally(decisions: Iterable[Decision]) -> dict[str, PlayTally]:
    """Each player's :class:`PlayTally`, with each situation's share of decisions at the
    index or above over everyone's."""
    found: dict[str, PlayTally] = {}
    above: dict[str, list[int]] = {}
    for decision in decisions:
        found.setdefault(decision.player, PlayTally()).add(decision)
        counted = above.setdefault(decision.play.name, [0, 0])
        counted[0] += decision.at_index
        counted[1] += 1
    shares = {name: at / total for name, (at, total) in above.items()}
    for entry in found.values():
        entry.above_share = shares
    return found
