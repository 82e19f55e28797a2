"""The numbers that lay out what the kernels fill: columns, dealer outcomes, results.

Kept apart from :mod:`croupier.analysis.kernel`, so that a process running the
ahead-of-time build of the kernels (:mod:`croupier.analysis.native`) need not load Numba.
"""

from __future__ import annotations

__all__ = [
    "DEALER_OUTCOMES",
    "DOUBLE",
    "HIT",
    "LANES",
    "PLAYED",
    "RESULTS",
    "STAND",
    "STANDING_DOUBLED",
]

#: Columns of :func:`~croupier.analysis.kernel.hand_outcomes`: each block is (win,
#: stand-off, loss, mean square).
PLAYED, STANDING_DOUBLED, HIT, DOUBLE, STAND = 0, 4, 8, 12, 16

#: Dealer outcomes a hand's result is conditioned on: 17 to 21, bust, blackjack.
DEALER_OUTCOMES = 7

#: Results a hand can have given the dealer's outcome, per unit initial bet: -2 to 2.
RESULTS = 5

#: Shoes :func:`~croupier.analysis.kernel.distributions` computes together down the
#: dealer's trie: every step of the walk is then one loop over 64 neighbouring figures,
#: which the compiler turns into vector instructions (half the time of 8 shoes summed in
#: scalar registers; 16 or 32 gain little, 128 no more).
LANES = 64
