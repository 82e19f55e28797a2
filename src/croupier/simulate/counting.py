"""Hi-Lo card counting: the bet spread and the Illustrious 18 index plays.

The kernel keeps the Hi-Lo running count (2 to 6 count +1, 7 to 9 nothing, tens and
Aces -1) of every card dealt since the shuffle, and before each round takes the true
count, the running count per deck left, rounded down.  The bet follows a ramp from
the true count to initial bets (``--ramp``; the true count less one by default, the
usual ramp: one bet at +2, two at +3), held between the spread's low and high ends.
Index plays use the true count at the start of the round; insurance (the first of
the eighteen) is taken at +3 or more.

>>> from croupier.presets import find_rules
>>> from croupier.analysis.strategy import derive_strategy
>>> table = illustrious_18(derive_strategy(find_rules("rws-v5")))
>>> int(table[0, 16, 9]), int(table[2, 9, 4])   # stand 16 v 10 at 0; split tens v 5 at +5
(0, 5)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from croupier.analysis.strategy import BasicStrategy
from croupier.errors import RulesError
from croupier.simulate.compile import NO_INDEX

__all__ = ["ILLUSTRIOUS_18", "illustrious_18", "parse_ramp", "parse_spread", "ramp_table"]

_HIT, _STAND, _DOUBLE = 0, 1, 2
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
#: (kind, hard total or pair points, up card points (1 the Ace), index, play at or above).
#: Insurance at +3 is played by the kernel itself.
ILLUSTRIOUS_18 = (
    ("stand", 16, 10, 0),
    ("stand", 15, 10, 4),
    ("split", 10, 5, 5),
    ("split", 10, 6, 4),
    ("double", 10, 10, 4),
    ("stand", 12, 3, 2),
    ("stand", 12, 2, 3),
    ("double", 11, 1, 1),
    ("double", 9, 2, 1),
    ("double", 10, 1, 4),
    ("double", 9, 7, 3),
    ("stand", 16, 9, 5),
    ("stand", 13, 2, -1),
    ("stand", 12, 4, 0),
    ("stand", 12, 5, -2),
    ("stand", 12, 6, -1),
    ("stand", 13, 3, -2),
)


def illustrious_18(strategy: BasicStrategy) -> npt.NDArray[np.int64]:
    """The kernel's index table for the Illustrious 18 over ``strategy``.

    Rows: 0 a drawn hand's stand index, 1 whether it stands at or above it; 2 a pair's
    split index; 3 and 4 a two-card hard and soft hand's index, 5 and 6 the play at or
    above it, 7 and 8 the play below it (-1: the chart's).
    """
    del strategy  # the plays below an index are the chart's own, read by the kernel
    table = np.full((9, 32, 10), NO_INDEX, dtype=np.int64)
    table[7:] = -1
    for kind, total, up_points, index in ILLUSTRIOUS_18:
        up = up_points - 1
        if kind == "split":
            table[2, total - 1, up] = index
            continue
        table[3, total, up] = index
        if kind == "stand":
            table[0, total, up] = index
            table[1, total, up] = 1
            table[5, total, up] = _STAND
            # Below the index the chart's own play (it may surrender), except where the
            # chart stands and the index says hit.
            table[7, total, up] = -1 if total >= 15 else _HIT
        else:
            table[5, total, up] = _DOUBLE
    return table


def parse_spread(text: str) -> tuple[int, int]:
    """A bet spread such as ``1-8``: the lowest and highest bet in initial bets.

    >>> parse_spread("1-8")
    (1, 8)
    >>> parse_spread("8-1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: --spread 8-1: expected LOW-HIGH with 1 <= LOW <= HIGH ...
    """
    low, dash, high = text.partition("-")
    message = f"--spread {text}: expected LOW-HIGH with 1 <= LOW <= HIGH <= 1000, such as 1-8"
    if not dash or not low.strip().isdigit() or not high.strip().isdigit():
        raise RulesError(message)
    spread = (int(low), int(high))
    if not 1 <= spread[0] <= spread[1] <= 1000:
        raise RulesError(message)
    return spread


def parse_ramp(text: str) -> tuple[tuple[int, int], ...]:
    """A bet ramp such as ``1:1,2:2,3:4,4:8``: at each true count and above it (up to
    the next), that many initial bets.  True counts rise; bets are 1 to 1000.

    >>> parse_ramp("1:1, 2:2, 3:4, 4:8")
    ((1, 1), (2, 2), (3, 4), (4, 8))
    >>> parse_ramp("2:2,1:1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: --ramp 2:2,1:1: expected TC:BETS,... with rising true counts...
    """
    message = (
        f"--ramp {text}: expected TC:BETS,... with rising true counts and bets from 1 to "
        "1000, such as 1:1,2:2,3:4,4:8"
    )
    steps: list[tuple[int, int]] = []
    for part in text.split(","):
        count, colon, bets = part.strip().partition(":")
        count, bets = count.strip(), bets.strip()
        if not colon or not _INTEGER.fullmatch(count) or not bets.isascii() or not bets.isdigit():
            raise RulesError(message)
        step = (int(count), int(bets))
        if not 1 <= step[1] <= 1000 or (steps and step[0] <= steps[-1][0]):
            raise RulesError(message)
        steps.append(step)
    return tuple(steps)


def ramp_table(
    ramp: Sequence[tuple[int, int]] | None, spread: tuple[int, int], low: int, size: int
) -> list[int]:
    """The bet at each true count from ``low`` (``size`` of them), held within
    ``spread``: the ramp's steps, or the true count less one without a ramp.

    >>> ramp_table(None, (1, 8), -1, 12)
    [1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8]
    >>> ramp_table(((1, 2), (3, 4)), (1, 8), -1, 6)
    [1, 1, 2, 2, 4, 4]
    """
    table: list[int] = []
    for true_count in range(low, low + size):
        if ramp is None:
            bets = true_count - 1
        else:
            bets = spread[0]
            for count, step in ramp:
                if true_count >= count:
                    bets = step
        table.append(min(max(bets, spread[0]), spread[1]))
    return table
