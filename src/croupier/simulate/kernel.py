"""The simulator's kernel: whole rounds of blackjack dealt and played in compiled code.

Everything here is scalar Numba code over small integer arrays, written for speed
and held to the engine by tests that deal the same cards through both
(``tests/test_simulate_engine.py``).  The rules come in as an integer parameter array
(:mod:`croupier.simulate.compile` builds it from a :class:`~croupier.rules.Rules`),
the strategy as lookup tables, and money as exact integers: a bet is ``UNIT`` units,
where ``UNIT`` is the smallest number that makes every payout of the rule set a whole
number of units (2 for a 3:2 game, 10 for 6:5).

A card is ``rank * 4 + suit``: ranks 0 (Ace) to 12 (King), suits 0 to 3 (spades,
hearts, diamonds, clubs).  Cards are drawn from a shoe array by an incremental
Fisher-Yates shuffle: each card dealt is picked uniformly from those not dealt yet
with an exact integer generator (xoshiro256**, unbiased bounded integers by
Lemire's rejection method), so only the cards actually dealt cost a random number.
The generator's state and the shoe position live in local variables, passed into
and out of each round by value.

The tallies are int64 sums over one chunk of rounds (at most ``MAX_CHUNK`` rounds, so
no sum can overflow); chunks are merged in Python integers.
"""

from __future__ import annotations

# The kernel's scalars are NumPy integers to Numba and plain ints to its readers; mypy
# sees NumPy's scalar types and would flag every mix of the two.
# mypy: disable-error-code="arg-type,assignment,return-value,unused-ignore"
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = [
    "ACTION_NAMES",
    "MAX_CHUNK",
    "OUTCOME_NAMES",
    "P_SIZE",
    "SIDE_OUTCOMES",
    "TALLY_SIZE",
    "TRACE_FIELDS",
    "peek_plays",
    "run_chunk",
    "run_peek",
    "run_plain",
]

IntArray = npt.NDArray[np.int64]
ByteArray = npt.NDArray[np.int8]
UIntArray = npt.NDArray[np.uint64]

#: The most rounds one kernel call may play: its int64 sums cannot overflow.
MAX_CHUNK = 1 << 24


def _expect_false(typingctx: Any, condition: Any) -> Any:
    """The typing and code of :func:`_unlikely`."""
    signature = types.boolean(types.boolean)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        bit = ir.IntType(1)
        expect = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, ir.FunctionType(bit, [bit, bit]), "llvm.expect.i1"
        )
        return builder.call(expect, [args[0], ir.Constant(bit, 0)])

    return signature, codegen


#: ``_unlikely(condition)``: the condition, which the compiler is told is seldom true
#: (LLVM's ``expect``, as C's ``__builtin_expect``), so that it lays the code out for
#: the other way and keeps the rare way's work off the common one (a rejected draw, a
#: split, a dealer's blackjack).  In compiled code only.
_unlikely: Callable[[bool], bool] = intrinsic(_expect_false)


# -- the parameter array
P_DECKS = 0
P_CUT = 1
P_SHUFFLE_EVERY_ROUND = 2
P_HITS_SOFT_17 = 3
P_HOLE = 4  # 0 no hole card, 1 peek, 2 no peek
P_HOLE_FIRST = 5
P_DEALER_BLACKJACK_TAKES = 6  # 0 all, 1 original bet, 2 busted and initial bet
P_BLACKJACK_PAYS = 7  # units won by a blackjack on a bet of UNIT units
P_WIN_PAYS = 8  # units won by a winning hand on a bet of UNIT units
P_BLACKJACK_AT_ONCE = 9
P_DOUBLE_NINE_TO_ELEVEN = 10
P_DOUBLE_AFTER_SPLIT = 11
P_DOUBLE_ON_21 = 12
P_SPLIT_BY_RANK = 13
P_MAX_HANDS = 14
P_RESPLIT_ACES = 15
P_HIT_SPLIT_ACES = 16
P_SURRENDER = 17  # 0 none, 1 late, 2 rws, 3 casino-to-go
P_DRAW_TO_12 = 18
P_UNIT = 19
P_BOXES = 20
P_INSURANCE = 21  # insurance offered
P_INSURANCE_PAYS = 22  # units won by an insurance bet of UNIT units
P_INSURANCE_WITH_BLACKJACK = 23
P_DECISIONS = 24  # 0 the chart, 1 random legal decisions (tests)
P_COUNT = 25  # 0 no count, 1 Hi-Lo with a bet spread
P_SPREAD_LOW = 26
P_SPREAD_HIGH = 27
P_INDICES = 28
P_SESSION = 29  # rounds in a session, for the session histogram
P_HIST_BETS = 30  # the session histogram's half width, in initial bets
P_RAMP = 31  # the bet ramp: initial bets at each true count from RAMP_LOW, RAMP_SIZE of them
RAMP_LOW = -20  # the true counts past the ramp's ends bet as its end does
RAMP_SIZE = 41
P_SIZE = P_RAMP + RAMP_SIZE

# -- the hand table: one row per hand, boxes * 4 rows
H_HARD = 0
H_ACE = 1
H_CARDS = 2
H_FIRST = 3
H_SECOND = 4
H_FROM_SPLIT = 5
H_SPLIT_ACES = 6
H_STAKE = 7
H_FINISHED = 8
H_SETTLED = 9
H_NET = 10
H_OUTCOME = 11
H_SURRENDERED = 12
H_DECISIONS = 13
H_FIELDS = 14

# -- actions, as bits of a legal mask in the engine's order
A_HIT = 0
A_STAND = 1
A_DOUBLE = 2
A_SPLIT = 3
A_SURRENDER = 4
#: The actions, by code.
ACTION_NAMES = ("hit", "stand", "double", "split", "surrender")
#: A decision log entry for the RWS surrender offer (its "legal mask").
OFFER_MASK = 64

# -- outcomes of a hand
O_BLACKJACK = 0
O_WIN = 1
O_STAND_OFF = 2
O_LOSE = 3
O_BUST = 4
O_SURRENDER = 5
O_DEALER_BLACKJACK = 6
#: A hand's outcomes, by code, named as the engine's settlement names them.
OUTCOME_NAMES = ("blackjack", "win", "stand-off", "lose", "bust", "surrender", "dealer-blackjack")

#: Each side bet's outcomes, by code, named as :class:`~croupier.sidebets.SideBetOutcome`;
#: the last is the losing ``nothing`` (``thirteen`` for Under/Over 13).
SIDE_OUTCOMES = (
    ("pair", "nothing"),
    ("under-13", "over-13", "thirteen"),
    ("under-13", "over-13", "thirteen"),
    ("perfect-pair", "coloured-pair", "mixed-pair", "nothing"),
    ("suited-trips", "straight-flush", "three-of-a-kind", "straight", "flush", "nothing"),
)

# -- the tally
T_ROUNDS = 0
T_VOIDS = 1
T_NET = 2  # the sum of every box's main net, in units
T_ROUND_SQUARES = 3  # the sum over rounds of the square of the round's main net
T_BOX_SQUARES = 4  # the sum over boxes and rounds of the square of a box's main net
T_WAGERED = 5  # the sum of the initial bets, in units
T_NET_BY_WAGER = 6  # the sum over rounds of the round's net times its initial bets
T_WAGER_SQUARES = 7  # the sum over rounds of the square of the round's initial bets
T_OUTCOMES = 8  # 7 outcome counts, one per hand
#: The sums a trace row copies: rounds to the wager squares.
TRACE_FIELDS = 8
T_DOUBLES = 15
T_SPLITS = 16
T_HANDS = 17
T_INSURANCE_NET = 18
T_INSURANCE_TAKEN = 19
T_SIDE = 20  # per side bet: count, net, squares, wins, then 6 outcome counts
SIDE_FIELDS = 10
T_SIDE_COUNT = 0
T_SIDE_NET = 1
T_SIDE_SQUARES = 2
T_SIDE_WINS = 3
T_SIDE_OUTCOMES = 4
TALLY_SIZE = T_SIDE + 5 * SIDE_FIELDS

_U32 = np.uint64(0xFFFFFFFF)
_TWO_32 = np.uint64(1 << 32)
_ONE = np.uint64(1)
# Hi-Lo tags by rank: 2-6 +1, 7-9 0, tens and Aces -1.
_HI_LO = np.array([-1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1], dtype=np.int64)
# What each chart cell plays, in order of preference (``Play.resolve``), by cell code:
# H, S, Dh, Ds, P, Rh, Rs, Rp; actions hit 0, stand 1, double 2, split 3, surrender 4.
_WANT = np.array(
    [
        [0, -1, -1],
        [1, 0, -1],
        [2, 0, -1],
        [2, 1, 0],
        [3, 0, -1],
        [4, 0, -1],
        [4, 1, 0],
        [4, 3, 0],
    ],
    dtype=np.int64,
)


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _next(
    s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One step of xoshiro256**: the output and the new state."""
    x = s1 * np.uint64(5)
    result = ((x << np.uint64(7)) | (x >> np.uint64(57))) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    return result, s0, s1, s2, s3


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _below(
    bound: int, s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """A uniform integer in ``[0, bound)`` (``bound`` < 2**32), exactly: Lemire's method on
    32-bit draws, rejecting the few values that would bias it."""
    s = np.uint64(bound)
    x, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    m = (x >> np.uint64(32)) * s
    low = m & _U32
    if _unlikely(low < s):
        threshold = (_TWO_32 - s) % s
        while low < threshold:
            x, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
            m = (x >> np.uint64(32)) * s
            low = m & _U32
    return np.int64(m >> np.uint64(32)), s0, s1, s2, s3


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _deal(
    shoe: ByteArray,
    pos: int,
    fixed: bool,
    s0: np.uint64,
    s1: np.uint64,
    s2: np.uint64,
    s3: np.uint64,
) -> tuple[int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """The card at ``pos``: one step of the incremental shuffle (a card picked uniformly
    from those not dealt yet and swapped into place), or the card there when ``fixed``."""
    if fixed:
        return np.int64(shoe[pos]), s0, s1, s2, s3
    offset, s0, s1, s2, s3 = _below(shoe.shape[0] - pos, s0, s1, s2, s3)
    # Unsigned indices: a signed one is wrapped around for negative values first, which
    # put two more steps between the generator and every card (about 8% of a round).
    here = np.uint64(pos)
    there = np.uint64(pos + offset)
    card = shoe[there]
    shoe[there] = shoe[here]
    shoe[here] = card
    return np.int64(card), s0, s1, s2, s3


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _points(card: int) -> int:
    rank = card >> 2
    return rank + 1 if rank < 9 else 10


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _total(hard: int, ace: int) -> int:
    return hard + 10 if ace and hard <= 11 else hard


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _resolve(play: int, legal: int) -> int:
    """The action a chart cell plays among the legal ones (``Play.resolve``), looked up."""
    return int(_RESOLVED[play, legal & 31])


def _resolve_slowly(play: int, legal: int) -> int:
    """The action a chart cell plays among the legal ones (``Play.resolve``): its first
    wanted action that is legal, else the first legal action."""
    for k in range(3):
        action = _WANT[play, k]
        if action < 0:
            break
        if legal & (1 << action):
            return np.int64(action)
    for action in range(5):
        if legal & (1 << action):
            return np.int64(action)
    return np.int64(A_STAND)


# Every chart cell's action under every legal mask, so a decision is one lookup.
_RESOLVED = np.array(
    [[_resolve_slowly(play, legal) for legal in range(32)] for play in range(8)], dtype=np.int64
)


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _pair_by_rule(first: int, second: int, by_rank: int) -> bool:
    if by_rank:
        return (first >> 2) == (second >> 2)
    return _points(first) == _points(second)


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _side_outcome(key: int, first: int, second: int, up: int) -> int:
    """The outcome code of side bet ``key`` on the first two cards and the up card."""
    r1 = first >> 2
    r2 = second >> 2
    if key == 0:
        return 0 if r1 == r2 else 1
    if key == 1 or key == 2:
        points = _points(first) + _points(second)
        if points < 13:
            return 0
        if points > 13:
            return 1
        return 2
    u1 = first & 3
    u2 = second & 3
    if key == 3:
        if r1 != r2:
            return 3
        if u1 == u2:
            return 0
        red1 = u1 == 1 or u1 == 2
        red2 = u2 == 1 or u2 == 2
        return 1 if red1 == red2 else 2
    r3 = up >> 2
    u3 = up & 3
    one_suit = u1 == u2 and u2 == u3
    if r1 == r2 and r2 == r3:
        return 0 if one_suit else 2
    low = min(r1, r2, r3)
    high = max(r1, r2, r3)
    middle = r1 + r2 + r3 - low - high
    distinct = r1 != r2 and r2 != r3 and r1 != r3
    straight = distinct and (
        (high - low == 2 and middle == low + 1) or (low == 0 and middle == 11 and high == 12)
    )
    if straight:
        return 1 if one_suit else 3
    if one_suit:
        return 4
    return 5


#: The columns of a recorded round (tests): status, the shoe position after it, each
#: box's hand count, then each hand's net and outcome, then each side bet's net.
R_STATUS = 0
R_POSITION = 1
R_COUNTS = 2
R_NETS = R_COUNTS + 9
R_OUTCOMES = R_NETS + 36
R_SIDE = R_OUTCOMES + 36
R_WIDTH = R_SIDE + 45


@numba.njit(cache=True, nogil=True, error_model="numpy")  # type: ignore[misc]
def run_chunk(
    shoe: ByteArray,
    fixed: bool,
    p: IntArray,
    first_play: IntArray,
    drawn_stands: IntArray,
    pair_play: IntArray,
    index_plays: IntArray,
    side_pays: IntArray,
    side_stakes: IntArray,
    rounds: int,
    seed: UIntArray,
    tally: IntArray,
    hand_histogram: IntArray,
    session_histogram: IntArray,
    record: IntArray,
    log: IntArray,
    trace: IntArray,
) -> int:
    """Play ``rounds`` rounds from ``shoe`` and add them to ``tally``; returns the shoe
    position at the end.

    Args:
        shoe: the cards (``rank * 4 + suit``); shuffled as dealt unless ``fixed``.
        fixed: deal ``shoe`` in the order given, never shuffling (tests).
        p: the rules and settings (``P_*``).
        first_play, drawn_stands, pair_play, index_plays: the strategy's tables.
        side_pays: units won per unit of each side bet, by outcome (a loss is ``-UNIT``).
        side_stakes: each box's stake on each side bet, in side-bet units (0: none).
        rounds: how many rounds to play, at most ``MAX_CHUNK``.
        seed: the generator's four words of state (not all zero).
        tally: the sums (``T_*``), added to.
        hand_histogram: counts of a box's net per initial bet, in units, offset by half
            its length.
        session_histogram: counts of a session's net in initial bets, offset likewise.
        record: one row per round (``R_*``) when it has ``rounds`` rows (tests).
        log: each decision's legal mask and action when ``log[0, 0] >= 0`` (tests).
        trace: the first ``TRACE_FIELDS`` sums of ``tally`` after every ``rounds // len``
            rounds, one row each (none when it has no rows): the running mean's path.
    """
    n = shoe.shape[0]
    boxes = p[P_BOXES]
    unit = p[P_UNIT]
    cut = p[P_CUT]
    shuffle_each_round = p[P_SHUFFLE_EVERY_ROUND] == 1
    counting = p[P_COUNT] == 1
    low = p[P_SPREAD_LOW]
    high = p[P_SPREAD_HIGH]
    session = p[P_SESSION]
    recording = record.shape[0] >= rounds and record.shape[0] > 0
    hand_offset = hand_histogram.shape[0] // 2
    session_offset = session_histogram.shape[0] // 2
    s0 = seed[0]
    s1 = seed[1]
    s2 = seed[2]
    s3 = seed[3]
    hands = np.zeros((boxes * 4, H_FIELDS), dtype=np.int64)
    counts = np.zeros(boxes, dtype=np.int64)
    bets = np.full(boxes, unit, dtype=np.int64)
    box_net = np.zeros(boxes, dtype=np.int64)
    side_net = np.zeros((boxes, 5), dtype=np.int64)
    side_outcomes = np.zeros((boxes, 5), dtype=np.int64)
    sided = False
    for b in range(boxes):
        for key in range(5):
            if side_stakes[b, key] != 0:
                sided = True
    pos = 0
    running = 0
    true_count = 0
    session_net = 0
    session_rounds = 0
    # The rules as locals: read once, not once a round.
    hole = p[P_HOLE]
    random_decisions = p[P_DECISIONS] == 1
    by_rank = p[P_SPLIT_BY_RANK]
    max_hands = p[P_MAX_HANDS]
    surrender_rule = p[P_SURRENDER]
    draw_to_12 = p[P_DRAW_TO_12]
    indices = p[P_INDICES] == 1
    logging = log[0, 0] >= 0
    rule_blackjack_at_once = p[P_BLACKJACK_AT_ONCE]
    rule_blackjack_pays = p[P_BLACKJACK_PAYS]
    rule_dealer_blackjack_takes = p[P_DEALER_BLACKJACK_TAKES]
    rule_double_after_split = p[P_DOUBLE_AFTER_SPLIT]
    rule_double_nine_to_eleven = p[P_DOUBLE_NINE_TO_ELEVEN]
    rule_double_on_21 = p[P_DOUBLE_ON_21]
    rule_hit_split_aces = p[P_HIT_SPLIT_ACES]
    rule_hole_first = p[P_HOLE_FIRST]
    rule_insurance = p[P_INSURANCE]
    rule_insurance_pays = p[P_INSURANCE_PAYS]
    rule_insurance_with_blackjack = p[P_INSURANCE_WITH_BLACKJACK]
    rule_resplit_aces = p[P_RESPLIT_ACES]
    rule_win_pays = p[P_WIN_PAYS]
    # The legal actions of a box's first decision (two cards, not split) and of a hand
    # past it, by total; a pair adds the split.
    first_legal = np.zeros(32, dtype=np.int64)
    drawn_legal = np.zeros(32, dtype=np.int64)
    for legal_total in range(32):
        mask = 0
        if legal_total < 21:
            mask |= 1 << A_HIT
        if legal_total >= 12 or not draw_to_12:
            mask |= 1 << A_STAND
        drawn_legal[legal_total] = mask
        if (not rule_double_nine_to_eleven or 9 <= legal_total <= 11) and (
            legal_total != 21 or rule_double_on_21
        ):
            mask |= 1 << A_DOUBLE
        if surrender_rule == 1 or surrender_rule == 3:
            mask |= 1 << A_SURRENDER
        first_legal[legal_total] = mask
    # Whether the dealer stands, by hard total (Aces as 1) and whether an Ace is held.
    rule_hits_soft_17 = p[P_HITS_SOFT_17]
    # Bit ``hard`` of one of two scalars, by whether an Ace is held: an array read in
    # the dealer's loop took and dropped a reference to it at every card (two calls
    # with atomic operations), about a seventh of a round's time.
    dealer_stands_hard = 0
    dealer_stands_ace = 0
    for stand_hard in range(32):
        for stand_ace in range(2):
            stand_total = _total(stand_hard, stand_ace)
            stand_soft = stand_ace == 1 and stand_hard <= 11
            if stand_total > 17 or (stand_total == 17 and not (stand_soft and rule_hits_soft_17)):
                if stand_ace:
                    dealer_stands_ace |= 1 << stand_hard
                else:
                    dealer_stands_hard |= 1 << stand_hard
    every = rounds // trace.shape[0] if trace.shape[0] > 0 else 0
    countdown = every
    traced = 0
    for r in range(rounds):
        if every > 0:
            if countdown == 0 and traced < trace.shape[0]:
                for k in range(TRACE_FIELDS):
                    trace[traced, k] = tally[k]
                traced += 1
                countdown = every
            countdown -= 1
        if not fixed and (pos >= cut or (shuffle_each_round and pos > 0)):
            pos = 0
            running = 0
        multiple = 1
        if counting:
            left = n - pos
            # The true count: the running count per deck left, rounded down.
            true_count = (running * 52) // left if left > 0 else 0
            step = min(max(true_count - RAMP_LOW, 0), RAMP_SIZE - 1)
            multiple = min(max(p[P_RAMP + step], low), high)
            for b in range(boxes):
                bets[b] = multiple * unit
        start = pos
        void = False
        dealer_blackjack = False
        final_total = 0
        while True:  # one pass: a break leaves the round
            # -- the initial deal
            if n - pos < 2 * boxes + (1 if hole == 0 else 2):
                void = True
                break
            for b in range(boxes):
                row = b * 4
                card, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
                pos += 1
                hands[row, H_FIRST] = card
                counts[b] = 1
                box_net[b] = 0
            first_dealer, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
            pos += 1
            for b in range(boxes):
                row = b * 4
                card, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
                pos += 1
                one = hands[row, H_FIRST]
                hands[row, H_SECOND] = card
                hands[row, H_HARD] = _points(one) + _points(card)
                hands[row, H_ACE] = 1 if (one >> 2) == 0 or (card >> 2) == 0 else 0
                hands[row, H_CARDS] = 2
                hands[row, H_FROM_SPLIT] = 0
                hands[row, H_SPLIT_ACES] = 0
                hands[row, H_STAKE] = bets[b]
                hands[row, H_FINISHED] = 0
                hands[row, H_SETTLED] = 0
                hands[row, H_NET] = 0
                hands[row, H_OUTCOME] = -1
                hands[row, H_SURRENDERED] = 0
                hands[row, H_DECISIONS] = 0
            up = first_dealer
            hole_card = -1
            if hole != 0:
                second_dealer, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
                pos += 1
                if rule_hole_first:
                    up = second_dealer
                    hole_card = first_dealer
                else:
                    hole_card = second_dealer
            up_points = _points(up)
            up_index = up_points - 1
            up_ace = up_points == 1
            up_blackjack = up_ace or up_points == 10
            # -- interim settlement: side bets, blackjacks at once, offers, the peek
            for b in range(boxes if sided else 0):
                row = b * 4
                for key in range(5):
                    stake = side_stakes[b, key]
                    if stake == 0:
                        continue
                    outcome = _side_outcome(key, hands[row, H_FIRST], hands[row, H_SECOND], up)
                    side_net[b, key] = side_pays[key, outcome] * stake
                    side_outcomes[b, key] = outcome
            if rule_blackjack_at_once and not up_blackjack:
                for b in range(boxes):
                    row = b * 4
                    if hands[row, H_HARD] == 11 and hands[row, H_ACE]:
                        hands[row, H_NET] = rule_blackjack_pays * hands[row, H_STAKE] // unit
                        hands[row, H_OUTCOME] = O_BLACKJACK
                        hands[row, H_SETTLED] = 1
                        hands[row, H_FINISHED] = 1
            insured = 0
            insurance_open = False
            if up_ace and rule_insurance and indices and true_count >= 3:
                # Insurance (the first index play): half the initial bet on each box, never on a
                # blackjack unless the table allows it.
                for b in range(boxes):
                    row = b * 4
                    is_blackjack = hands[row, H_HARD] == 11 and hands[row, H_ACE]
                    if not is_blackjack or rule_insurance_with_blackjack:
                        insured |= 1 << b
                        insurance_open = True
            if surrender_rule == 2 and not up_ace:
                for b in range(boxes):
                    row = b * 4
                    hard = hands[row, H_HARD]
                    ace = hands[row, H_ACE]
                    if hard == 11 and ace:
                        continue
                    one = hands[row, H_FIRST]
                    two = hands[row, H_SECOND]
                    if random_decisions:
                        offset, s0, s1, s2, s3 = _below(2, s0, s1, s2, s3)
                        accept = offset == 1
                    else:
                        legal = (1 << A_HIT) | (1 << A_STAND) | (1 << A_SURRENDER)
                        total = _total(hard, ace)
                        play = -1
                        if max_hands >= 2 and _pair_by_rule(one, two, by_rank):
                            legal |= 1 << A_SPLIT
                            play = pair_play[_points(one) - 1, up_index]
                            if play != 4 and play != 7:
                                play = -1
                        if play < 0:
                            play = first_play[ace if hard <= 11 else 0, total, up_index]
                        accept = _resolve(play, legal) == A_SURRENDER
                    if logging and log[0, 0] < log.shape[0] - 1:
                        entry = log[0, 0] + 1
                        log[entry, 0] = OFFER_MASK
                        log[entry, 1] = 1 if accept else 0
                        log[0, 0] = entry
                    if accept:
                        hands[row, H_SURRENDERED] = 1
                        hands[row, H_FINISHED] = 1
                        hands[row, H_SETTLED] = 1
                        stake = hands[row, H_STAKE]
                        hands[row, H_NET] = stake // 2 - stake
                        hands[row, H_OUTCOME] = O_SURRENDER
            peeked = False
            if hole == 1 and up_blackjack:
                peeked = True
                if _points(up) + _points(hole_card) == 11:
                    # The peek finds a blackjack: straight to settlement.
                    dealer_blackjack = True
                    final_total = 21
                    break
                if insurance_open:
                    for b in range(boxes):
                        if insured & (1 << b):
                            tally[T_INSURANCE_NET] -= bets[b] // 2
                            box_net[b] -= bets[b] // 2
                            tally[T_INSURANCE_TAKEN] += 1
                    insured = 0
                    insurance_open = False
                for b in range(boxes):
                    row = b * 4
                    if hands[row, H_HARD] == 11 and hands[row, H_ACE] and not hands[row, H_SETTLED]:
                        hands[row, H_NET] = rule_blackjack_pays * hands[row, H_STAKE] // unit
                        hands[row, H_OUTCOME] = O_BLACKJACK
                        hands[row, H_SETTLED] = 1
                        hands[row, H_FINISHED] = 1
            # While the dealer may still turn out to hold a blackjack (no peek, an Ace or ten up).
            blackjack_possible = up_blackjack and not peeked
            holds_bust = rule_dealer_blackjack_takes == 1 and blackjack_possible
            # -- the players' turns
            for b in range(boxes):
                h = 0
                while h < counts[b]:
                    row = b * 4 + h
                    if hands[row, H_CARDS] == 1:
                        # A split hand takes its second card when its turn comes.
                        if pos >= n:
                            void = True
                            break
                        card, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
                        pos += 1
                        hands[row, H_SECOND] = card
                        hands[row, H_HARD] += _points(card)
                        if (card >> 2) == 0:
                            hands[row, H_ACE] = 1
                        hands[row, H_CARDS] = 2
                    if hands[row, H_FINISHED] or hands[row, H_SETTLED]:
                        hands[row, H_FINISHED] = 1
                        h += 1
                        continue
                    hard = hands[row, H_HARD]
                    ace = hands[row, H_ACE]
                    cards = hands[row, H_CARDS]
                    from_split = hands[row, H_FROM_SPLIT]
                    if cards == 2 and hard == 11 and ace and not from_split:
                        hands[row, H_FINISHED] = 1
                        h += 1
                        continue
                    total = _total(hard, ace)
                    split_aces = hands[row, H_SPLIT_ACES]
                    one = hands[row, H_FIRST]
                    two = hands[row, H_SECOND]
                    if cards == 2 and not from_split and counts[b] == 1:
                        # The box's first decision: the rules' mask for the total, looked up.
                        legal = first_legal[total]
                        if max_hands > 1 and _pair_by_rule(one, two, by_rank):
                            legal |= 1 << A_SPLIT
                    elif cards > 2:
                        legal = drawn_legal[total]
                        if split_aces and not rule_hit_split_aces:
                            legal &= ~(1 << A_HIT)
                    else:
                        legal = 0
                        if total < 21 and (not split_aces or rule_hit_split_aces):
                            legal |= 1 << A_HIT
                        if total >= 12 or not draw_to_12:
                            legal |= 1 << A_STAND
                    if cards == 2 and (from_split or counts[b] > 1):
                        if (
                            not split_aces
                            and (not from_split or rule_double_after_split)
                            and (not rule_double_nine_to_eleven or (total >= 9 and total <= 11))
                            and (total != 21 or rule_double_on_21)
                        ):
                            legal |= 1 << A_DOUBLE
                        if (
                            _pair_by_rule(one, two, by_rank)
                            and counts[b] < max_hands
                            and (not split_aces or rule_resplit_aces)
                        ):
                            legal |= 1 << A_SPLIT
                        if (
                            (surrender_rule == 1 or surrender_rule == 3)
                            and not from_split
                            and counts[b] == 1
                            and hands[row, H_DECISIONS] == 0
                        ):
                            legal |= 1 << A_SURRENDER
                    if legal == (1 << A_STAND):
                        hands[row, H_FINISHED] = 1
                        h += 1
                        continue
                    soft = 1 if ace and hard <= 11 else 0
                    offered = legal
                    # -- the decision
                    if random_decisions:
                        choices = 0
                        for action in range(5):
                            if legal & (1 << action):
                                choices += 1
                        pick, s0, s1, s2, s3 = _below(choices, s0, s1, s2, s3)
                        action = 0
                        for candidate in range(5):
                            if legal & (1 << candidate):
                                if pick == 0:
                                    action = candidate
                                    break
                                pick -= 1
                    elif cards > 2:
                        stands = drawn_stands[soft, total, up_index]
                        if indices and soft == 0 and index_plays[0, total, up_index] != -99:
                            stands = 1 if true_count >= index_plays[0, total, up_index] else 0
                            if index_plays[1, total, up_index] == 0:
                                stands = 1 - stands
                        if stands and legal & (1 << A_STAND):
                            action = A_STAND
                        elif legal & (1 << A_HIT):
                            action = A_HIT
                        else:
                            action = A_STAND
                    else:
                        play = -1
                        pair_index = _points(one) - 1
                        if from_split:
                            if legal & (1 << A_SPLIT):
                                cell = pair_play[pair_index, up_index]
                                if cell == 4 or cell == 7:
                                    play = 4
                                if indices and index_plays[2, pair_index, up_index] != -99:
                                    play = (
                                        4
                                        if true_count >= index_plays[2, pair_index, up_index]
                                        else -1
                                    )
                            legal &= ~(1 << A_SPLIT)
                            if play == 4:
                                action = A_SPLIT
                            else:
                                play = -1
                        elif legal & (1 << A_SPLIT) and _points(one) == _points(two):
                            cell = pair_play[pair_index, up_index]
                            if cell == 4 or cell == 7:
                                play = cell
                            if indices and index_plays[2, pair_index, up_index] != -99:
                                play = (
                                    4 if true_count >= index_plays[2, pair_index, up_index] else -1
                                )
                        if play < 0:
                            play = first_play[soft, total, up_index]
                            if indices and index_plays[3 + soft, total, up_index] != -99:
                                if true_count >= index_plays[3 + soft, total, up_index]:
                                    play = index_plays[5 + soft, total, up_index]
                                elif index_plays[7 + soft, total, up_index] >= 0:
                                    play = index_plays[7 + soft, total, up_index]
                            action = _resolve(play, legal)
                        elif not (from_split and play == 4):
                            action = _resolve(play, legal)
                    if logging and log[0, 0] < log.shape[0] - 1:
                        entry = log[0, 0] + 1
                        log[entry, 0] = offered
                        log[entry, 1] = action
                        log[0, 0] = entry
                    hands[row, H_DECISIONS] += 1
                    # -- the action
                    if action == A_STAND:
                        hands[row, H_FINISHED] = 1
                        h += 1
                    elif action in (A_HIT, A_DOUBLE):
                        if action == A_DOUBLE:
                            hands[row, H_STAKE] += bets[b]
                        if pos >= n:
                            void = True
                            break
                        card, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
                        pos += 1
                        hard += _points(card)
                        hands[row, H_HARD] = hard
                        if (card >> 2) == 0:
                            hands[row, H_ACE] = 1
                        hands[row, H_CARDS] = cards + 1
                        if hard > 21:
                            hands[row, H_FINISHED] = 1
                            if not holds_bust:
                                hands[row, H_SETTLED] = 1
                                hands[row, H_NET] = -hands[row, H_STAKE]
                                hands[row, H_OUTCOME] = O_BUST
                            h += 1
                        elif action == A_DOUBLE:
                            hands[row, H_FINISHED] = 1
                            h += 1
                    elif action == A_SPLIT:
                        aces = 1 if (one >> 2) == 0 else 0
                        new = b * 4 + counts[b]
                        counts[b] += 1
                        hands[new, H_FIRST] = two
                        hands[new, H_HARD] = _points(two)
                        hands[new, H_ACE] = aces
                        hands[new, H_CARDS] = 1
                        hands[new, H_FROM_SPLIT] = 1
                        hands[new, H_SPLIT_ACES] = aces
                        hands[new, H_STAKE] = bets[b]
                        hands[new, H_FINISHED] = 0
                        hands[new, H_SETTLED] = 0
                        hands[new, H_NET] = 0
                        hands[new, H_OUTCOME] = -1
                        hands[new, H_SURRENDERED] = 0
                        hands[new, H_DECISIONS] = 0
                        hands[row, H_HARD] = _points(one)
                        hands[row, H_ACE] = aces
                        hands[row, H_CARDS] = 1
                        hands[row, H_FROM_SPLIT] = 1
                        hands[row, H_SPLIT_ACES] = aces
                    else:
                        hands[row, H_SURRENDERED] = 1
                        hands[row, H_FINISHED] = 1
                        if not (surrender_rule == 3 and blackjack_possible):
                            stake = hands[row, H_STAKE]
                            hands[row, H_SETTLED] = 1
                            hands[row, H_NET] = stake // 2 - stake
                            hands[row, H_OUTCOME] = O_SURRENDER
                        h += 1
                if void:
                    break
            if void:
                break
            # -- the dealer's hand
            dealer_hard = up_points
            dealer_ace = up_ace
            dealer_cards = 1
            if hole != 0:
                hole_points = _points(hole_card)
                dealer_hard += hole_points
                dealer_ace = dealer_ace or hole_points == 1
                dealer_cards = 2
            else:
                open_bet = insurance_open
                if not open_bet:
                    for b in range(boxes):
                        for h in range(counts[b]):
                            if not hands[b * 4 + h, H_SETTLED]:
                                open_bet = True
                                break
                        if open_bet:
                            break
                if open_bet:
                    if pos >= n:
                        void = True
                        break
                    card, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
                    pos += 1
                    card_points = _points(card)
                    dealer_hard += card_points
                    dealer_ace = dealer_ace or card_points == 1
                    dealer_cards = 2
            dealer_blackjack = dealer_cards == 2 and dealer_hard == 11 and dealer_ace
            if dealer_cards > 1 and not dealer_blackjack:
                live = False
                for b in range(boxes):
                    for h in range(counts[b]):
                        row = b * 4 + h
                        if (
                            hands[row, H_SETTLED]
                            or hands[row, H_HARD] > 21
                            or hands[row, H_SURRENDERED]
                            or (
                                hands[row, H_CARDS] == 2
                                and hands[row, H_HARD] == 11
                                and hands[row, H_ACE]
                                and not hands[row, H_FROM_SPLIT]
                            )
                        ):
                            continue
                        live = True
                        break
                    if live:
                        break
                if live:
                    while True:
                        stands_on = dealer_stands_ace if dealer_ace else dealer_stands_hard
                        if (stands_on >> dealer_hard) & 1:
                            break
                        if pos >= n:
                            void = True
                            break
                        card, s0, s1, s2, s3 = _deal(shoe, pos, fixed, s0, s1, s2, s3)
                        pos += 1
                        card_points = _points(card)
                        dealer_hard += card_points
                        dealer_ace = dealer_ace or card_points == 1
                    if void:
                        break
            final_total = _total(dealer_hard, dealer_ace)
            break
        if not void:
            takes = rule_dealer_blackjack_takes
            even_money = rule_win_pays == unit
            for b in range(boxes):
                if insured & (1 << b):
                    half = bets[b] // 2
                    tally[T_INSURANCE_TAKEN] += 1
                    gain = rule_insurance_pays * half // unit if dealer_blackjack else -half
                    tally[T_INSURANCE_NET] += gain
                    box_net[b] += gain
                cap = bets[b]
                for h in range(counts[b]):
                    row = b * 4 + h
                    if not hands[row, H_SETTLED]:
                        stake = hands[row, H_STAKE]
                        hard = hands[row, H_HARD]
                        ace = hands[row, H_ACE]
                        blackjack = (
                            hands[row, H_CARDS] == 2
                            and hard == 11
                            and ace
                            and not hands[row, H_FROM_SPLIT]
                        )
                        if dealer_blackjack:
                            outcome = O_DEALER_BLACKJACK
                            if blackjack:
                                net = 0
                                outcome = O_STAND_OFF
                            elif hands[row, H_SURRENDERED] or takes == 0:
                                net = -stake
                            else:
                                loss = min(stake, cap)
                                cap -= loss
                                net = -loss
                        elif hands[row, H_SURRENDERED]:
                            net = stake // 2 - stake
                            outcome = O_SURRENDER
                        else:
                            total = _total(hard, ace)
                            if hard > 21:
                                net = -stake
                                outcome = O_BUST
                            elif blackjack:
                                net = rule_blackjack_pays * stake // unit
                                outcome = O_BLACKJACK
                            elif final_total > 21 or total > final_total:
                                net = stake if even_money else rule_win_pays * stake // unit
                                outcome = O_WIN
                            elif total == final_total:
                                net = 0
                                outcome = O_STAND_OFF
                            else:
                                net = -stake
                                outcome = O_LOSE
                        hands[row, H_NET] = net
                        hands[row, H_OUTCOME] = outcome
                        hands[row, H_SETTLED] = 1
                    box_net[b] += hands[row, H_NET]
                    tally[T_OUTCOMES + hands[row, H_OUTCOME]] += 1
                tally[T_HANDS] += counts[b]
        status = 0 if void else 1
        if counting:
            for i in range(start, pos):
                running += _HI_LO[shoe[i] >> 2]
        tally[T_ROUNDS] += 1
        if recording:
            record[r, R_STATUS] = status
            record[r, R_POSITION] = pos
        if status == 0:
            tally[T_VOIDS] += 1
            pos = n  # the next round starts from a fresh shoe
            continue
        total = 0
        wagered = 0
        for b in range(boxes):
            net = box_net[b]
            total += net
            wagered += bets[b]
            tally[T_BOX_SQUARES] += net * net
            tally[T_SPLITS] += counts[b] - 1
            # Division is slow; without a spread every bet is one initial bet.
            per_bet = (net if multiple == 1 else net // multiple) + hand_offset
            if per_bet < 0:
                per_bet = 0
            elif per_bet >= hand_histogram.shape[0]:
                per_bet = hand_histogram.shape[0] - 1
            hand_histogram[per_bet] += 1
            for h in range(counts[b]):
                row = b * 4 + h
                if hands[row, H_STAKE] > bets[b]:
                    tally[T_DOUBLES] += 1
                if recording:
                    record[r, R_NETS + row] = hands[row, H_NET]
                    record[r, R_OUTCOMES + row] = hands[row, H_OUTCOME]
            if recording:
                record[r, R_COUNTS + b] = counts[b]
            for key in range(5 if sided else 0):
                stake = side_stakes[b, key]
                if stake == 0:
                    continue
                base = T_SIDE + key * SIDE_FIELDS
                side = side_net[b, key]
                tally[base + T_SIDE_COUNT] += 1
                tally[base + T_SIDE_NET] += side
                tally[base + T_SIDE_SQUARES] += side * side
                if side > 0:
                    tally[base + T_SIDE_WINS] += 1
                tally[base + T_SIDE_OUTCOMES + side_outcomes[b, key]] += 1
                if recording:
                    record[r, R_SIDE + b * 5 + key] = side
        tally[T_NET] += total
        tally[T_ROUND_SQUARES] += total * total
        tally[T_WAGERED] += wagered
        tally[T_NET_BY_WAGER] += total * wagered
        tally[T_WAGER_SQUARES] += wagered * wagered
        if session > 0:
            session_net += total
            session_rounds += 1
            if session_rounds == session:
                bucket = session_net // unit + session_offset
                if bucket < 0:
                    bucket = 0
                elif bucket >= session_histogram.shape[0]:
                    bucket = session_histogram.shape[0] - 1
                session_histogram[bucket] += 1
                session_net = 0
                session_rounds = 0
    if every > 0 and countdown == 0 and traced < trace.shape[0]:
        for k in range(TRACE_FIELDS):
            trace[traced, k] = tally[k]
    seed[0] = s0
    seed[1] = s1
    seed[2] = s2
    seed[3] = s3
    return pos


@numba.njit(cache=True, nogil=True)  # type: ignore[misc]
def _plain_tables(
    p: IntArray, first_play: IntArray, drawn_stands: IntArray, pair_play: IntArray
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, int, int]:
    """The plain kernels' tables, worked out once before the first round: each chart
    cell's action under the rules' legal masks (the first decision by total, by the
    hand's hard total and Ace, and a pair's; a drawn hand's hit or stand, by total and by
    hard total and Ace), and the dealer's standing hard totals as two bit sets (without an
    Ace, with one)."""
    draw_to_12 = p[P_DRAW_TO_12]
    double_nine_to_eleven = p[P_DOUBLE_NINE_TO_ELEVEN]
    double_on_21 = p[P_DOUBLE_ON_21]
    surrender_rule = p[P_SURRENDER]
    late_surrender = surrender_rule == 1 or surrender_rule == 3
    first_legal = np.zeros(32, dtype=np.int64)
    drawn_legal = np.zeros(32, dtype=np.int64)
    for legal_total in range(32):
        mask = 0
        if legal_total < 21:
            mask |= 1 << A_HIT
        if legal_total >= 12 or not draw_to_12:
            mask |= 1 << A_STAND
        drawn_legal[legal_total] = mask
        if (not double_nine_to_eleven or 9 <= legal_total <= 11) and (
            legal_total != 21 or double_on_21
        ):
            mask |= 1 << A_DOUBLE
        if late_surrender:
            mask |= 1 << A_SURRENDER
        first_legal[legal_total] = mask
    # Each chart cell's action under the rules' legal mask, looked up in the round: the
    # first decision by total, a pair's first decision, and a drawn hand's hit or stand.
    first_actions = np.zeros((2, 32, 10), dtype=np.int64)
    drawn_hits = np.zeros((2, 32, 10), dtype=np.int64)
    for soft in range(2):
        for total in range(32):
            for up_index in range(10):
                first_actions[soft, total, up_index] = _resolve(
                    first_play[soft, total, up_index], first_legal[total]
                )
                legal = drawn_legal[total]
                stands = drawn_stands[soft, total, up_index] and legal & (1 << A_STAND)
                drawn_hits[soft, total, up_index] = (
                    1 if legal != (1 << A_STAND) and not stands and legal & (1 << A_HIT) else 0
                )
    # The same by the cards' hard total (Aces as 1) and whether an Ace is among them, as
    # the hand keeps them: no total to work out between a card and the next decision.
    # A drawn hand over 21 does not hit: the loop that deals it stops on the lookup.
    first_by_hard = np.zeros((2, 32, 10), dtype=np.int64)
    hits_by_hard = np.zeros((2, 32, 10), dtype=np.int64)
    for has_ace in range(2):
        for hard_total in range(32):
            soft = 1 if has_ace and hard_total <= 11 else 0
            total = _total(hard_total, has_ace)
            for up_index in range(10):
                first_by_hard[has_ace, hard_total, up_index] = first_actions[soft, total, up_index]
                if hard_total <= 21:
                    hits_by_hard[has_ace, hard_total, up_index] = drawn_hits[soft, total, up_index]
    pair_actions = np.zeros((10, 10), dtype=np.int64)
    for pair_index in range(10):
        pair_hard = 2 * (pair_index + 1)
        pair_ace = 1 if pair_index == 0 else 0
        pair_total = _total(pair_hard, pair_ace)
        for up_index in range(10):
            play = pair_play[pair_index, up_index]
            if play != 4 and play != 7:
                play = first_play[pair_ace, pair_total, up_index]
            pair_actions[pair_index, up_index] = _resolve(
                play, first_legal[pair_total] | (1 << A_SPLIT)
            )
    hits_soft_17 = p[P_HITS_SOFT_17]
    dealer_stands_hard = 0
    dealer_stands_ace = 0
    for stand_hard in range(32):
        for stand_ace in range(2):
            stand_total = _total(stand_hard, stand_ace)
            stand_soft = stand_ace == 1 and stand_hard <= 11
            if stand_total > 17 or (stand_total == 17 and not (stand_soft and hits_soft_17)):
                if stand_ace:
                    dealer_stands_ace |= 1 << stand_hard
                else:
                    dealer_stands_hard |= 1 << stand_hard
    return (
        first_actions,
        drawn_hits,
        first_by_hard,
        hits_by_hard,
        pair_actions,
        dealer_stands_hard,
        dealer_stands_ace,
    )


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _trace_row(
    trace: IntArray,
    traced: int,
    tally: IntArray,
    played: int,
    voids: int,
    net_sum: int,
    round_squares: int,
    box_squares: int,
    wager: int,
) -> None:
    """Row ``traced`` of a plain kernel's trace: the tally as it stands after ``played``
    rounds (``voids`` of them void) with these sums."""
    kept = played - voids
    trace[traced, T_ROUNDS] = tally[T_ROUNDS] + played
    trace[traced, T_VOIDS] = tally[T_VOIDS] + voids
    trace[traced, T_NET] = tally[T_NET] + net_sum
    trace[traced, T_ROUND_SQUARES] = tally[T_ROUND_SQUARES] + round_squares
    trace[traced, T_BOX_SQUARES] = tally[T_BOX_SQUARES] + box_squares
    trace[traced, T_WAGERED] = tally[T_WAGERED] + kept * wager
    trace[traced, T_NET_BY_WAGER] = tally[T_NET_BY_WAGER] + net_sum * wager
    trace[traced, T_WAGER_SQUARES] = tally[T_WAGER_SQUARES] + kept * wager * wager


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _close_tally(
    tally: IntArray,
    rounds: int,
    voids: int,
    net_sum: int,
    round_squares: int,
    box_squares: int,
    wager: int,
    outcome_counts: IntArray,
    doubles: int,
    splits: int,
    hands: int,
) -> None:
    """A plain kernel's sums added to the tally."""
    kept = rounds - voids
    tally[T_ROUNDS] += rounds
    tally[T_VOIDS] += voids
    tally[T_NET] += net_sum
    tally[T_ROUND_SQUARES] += round_squares
    tally[T_BOX_SQUARES] += box_squares
    tally[T_WAGERED] += kept * wager
    tally[T_NET_BY_WAGER] += net_sum * wager
    tally[T_WAGER_SQUARES] += kept * wager * wager
    for outcome in range(7):
        tally[T_OUTCOMES + outcome] += outcome_counts[outcome]
    tally[T_DOUBLES] += doubles
    tally[T_SPLITS] += splits
    tally[T_HANDS] += hands


@numba.njit(cache=True, nogil=True, error_model="numpy")  # type: ignore[misc]
def _play_plain(
    shoe: ByteArray,
    p: IntArray,
    first_play: IntArray,
    drawn_stands: IntArray,
    pair_play: IntArray,
    rounds: int,
    seed: UIntArray,
    tally: IntArray,
    hand_histogram: IntArray,
    session_histogram: IntArray,
    trace: IntArray,
) -> int:
    """The body of :func:`run_plain` for several boxes (one box has
    :func:`_play_one_box`)."""
    n = shoe.shape[0]
    boxes = p[P_BOXES]
    unit = p[P_UNIT]
    cut = p[P_CUT]
    shuffle_each_round = p[P_SHUFFLE_EVERY_ROUND] == 1
    session = p[P_SESSION]
    hole = p[P_HOLE]
    by_rank = p[P_SPLIT_BY_RANK]
    max_hands = p[P_MAX_HANDS]
    surrender_rule = p[P_SURRENDER]
    draw_to_12 = p[P_DRAW_TO_12]
    blackjack_at_once = p[P_BLACKJACK_AT_ONCE]
    blackjack_pays = p[P_BLACKJACK_PAYS]
    takes = p[P_DEALER_BLACKJACK_TAKES]
    double_after_split = p[P_DOUBLE_AFTER_SPLIT]
    double_nine_to_eleven = p[P_DOUBLE_NINE_TO_ELEVEN]
    double_on_21 = p[P_DOUBLE_ON_21]
    hit_split_aces = p[P_HIT_SPLIT_ACES]
    hole_first = p[P_HOLE_FIRST]
    resplit_aces = p[P_RESPLIT_ACES]
    win_pays = p[P_WIN_PAYS]
    even_money = win_pays == unit
    hand_offset = hand_histogram.shape[0] // 2
    hand_last = hand_histogram.shape[0] - 1
    session_offset = session_histogram.shape[0] // 2
    session_last = session_histogram.shape[0] - 1
    # Every bet is one initial bet: a round wagers the same, void rounds aside.
    wager = boxes * unit
    s0 = seed[0]
    s1 = seed[1]
    s2 = seed[2]
    s3 = seed[3]
    # The hands of a round, one entry per hand (boxes * 4), field by field.
    size = boxes * 4
    first_cards = np.zeros(size, dtype=np.int64)
    second_cards = np.zeros(size, dtype=np.int64)
    hards = np.zeros(size, dtype=np.int64)
    aces = np.zeros(size, dtype=np.int64)
    card_counts = np.zeros(size, dtype=np.int64)
    from_splits = np.zeros(size, dtype=np.int64)
    stakes = np.zeros(size, dtype=np.int64)
    settled = np.zeros(size, dtype=np.int64)
    nets = np.zeros(size, dtype=np.int64)
    outcomes = np.zeros(size, dtype=np.int64)
    surrendered = np.zeros(size, dtype=np.int64)
    naturals = np.zeros(size, dtype=np.int64)
    counts = np.zeros(boxes, dtype=np.int64)
    outcome_counts = np.zeros(7, dtype=np.int64)
    tables = _plain_tables(p, first_play, drawn_stands, pair_play)
    first_actions, drawn_hits, first_by_hard, hits_by_hard, pair_actions = tables[:5]
    dealer_stands_hard, dealer_stands_ace = tables[5:]
    can_split = max_hands > 1
    # The sums, added to ``tally`` at the end (and read by the trace meanwhile).
    played = 0
    voids = 0
    net_sum = 0
    round_squares = 0
    box_squares = 0
    doubles = 0
    splits = 0
    hand_sum = 0
    session_net = 0
    session_rounds = 0
    pos = 0
    every = rounds // trace.shape[0] if trace.shape[0] > 0 else 0
    countdown = every
    traced = 0
    initial_cards = 2 * boxes + (1 if hole == 0 else 2)
    last_box = (boxes - 1) * 4
    dealt_one = 0
    dealt_two = 0
    dealt_hard = 0
    dealt_ace = 0
    for _ in range(rounds):
        if every > 0:
            if countdown == 0 and traced < trace.shape[0]:
                _trace_row(
                    trace, traced, tally, played, voids, net_sum, round_squares, box_squares, wager
                )
                traced += 1
                countdown = every
            countdown -= 1
        if pos >= cut or (shuffle_each_round and pos > 0):
            pos = 0
        played += 1
        void = False
        dealer_blackjack = False
        final_total = 0
        while True:  # one pass: a break leaves the round
            # -- the initial deal
            if n - pos < initial_cards:
                void = True
                break
            for b in range(boxes):
                card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                pos += 1
                first_cards[b * 4] = card
            first_dealer, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
            pos += 1
            for b in range(boxes):
                row = b * 4
                card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                pos += 1
                one = first_cards[row]
                hard = _points(one) + _points(card)
                ace = 1 if (one >> 2) == 0 or (card >> 2) == 0 else 0
                second_cards[row] = card
                hards[row] = hard
                aces[row] = ace
                card_counts[row] = 2
                from_splits[row] = 0
                stakes[row] = unit
                settled[row] = 0
                nets[row] = 0
                outcomes[row] = -1
                surrendered[row] = 0
                naturals[row] = 1 if hard == 11 and ace else 0
                dealt_one = one
                dealt_two = card
                dealt_hard = hard
                dealt_ace = ace
                counts[b] = 1
            up = first_dealer
            hole_card = -1
            if hole != 0:
                second_dealer, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                pos += 1
                if hole_first:
                    up = second_dealer
                    hole_card = first_dealer
                else:
                    hole_card = second_dealer
            up_points = _points(up)
            up_index = up_points - 1
            up_column = np.uint64(up_index)
            up_ace = up_points == 1
            up_blackjack = up_ace or up_points == 10
            # -- interim settlement: blackjacks at once, the RWS surrender offer, the peek
            if blackjack_at_once and not up_blackjack:
                for b in range(boxes):
                    row = b * 4
                    if naturals[row]:
                        nets[row] = blackjack_pays
                        outcomes[row] = O_BLACKJACK
                        settled[row] = 1
            if surrender_rule == 2 and not up_ace:
                for b in range(boxes):
                    row = b * 4
                    if naturals[row]:
                        continue
                    hard = hards[row]
                    ace = aces[row]
                    one = first_cards[row]
                    two = second_cards[row]
                    legal = (1 << A_HIT) | (1 << A_STAND) | (1 << A_SURRENDER)
                    total = _total(hard, ace)
                    play = -1
                    if max_hands >= 2 and _pair_by_rule(one, two, by_rank):
                        legal |= 1 << A_SPLIT
                        play = pair_play[_points(one) - 1, up_index]
                        if play != 4 and play != 7:
                            play = -1
                    if play < 0:
                        play = first_play[ace if hard <= 11 else 0, total, up_index]
                    if _resolve(play, legal) == A_SURRENDER:
                        surrendered[row] = 1
                        settled[row] = 1
                        nets[row] = unit // 2 - unit
                        outcomes[row] = O_SURRENDER
            peeked = False
            if hole == 1 and up_blackjack:
                peeked = True
                if up_points + _points(hole_card) == 11:
                    # The peek finds a blackjack: straight to settlement.
                    dealer_blackjack = True
                    final_total = 21
                    break
                for b in range(boxes):
                    row = b * 4
                    if naturals[row] and not settled[row]:
                        nets[row] = blackjack_pays
                        outcomes[row] = O_BLACKJACK
                        settled[row] = 1
            # While the dealer may still turn out to hold a blackjack (no peek, an Ace or ten up).
            blackjack_possible = up_blackjack and not peeked
            holds_bust = takes == 1 and blackjack_possible
            # Whether a hand still has a bet for the dealer's second card (no hole card),
            # and one the dealer must play out against.
            open_bet = False
            live = False
            # -- the players' turns
            for b in range(boxes):
                row = b * 4
                if settled[row]:
                    continue
                if naturals[row]:
                    open_bet = True
                    continue
                if row == last_box:
                    one = dealt_one
                    two = dealt_two
                    hard = dealt_hard
                    ace = dealt_ace
                else:
                    one = first_cards[row]
                    two = second_cards[row]
                    hard = hards[row]
                    ace = aces[row]
                # (Unsigned indices, as in _deal: no wrap-around for negative ones.)
                if can_split and _pair_by_rule(one, two, by_rank):
                    action = pair_actions[np.uint64(_points(one) - 1), up_column]
                else:
                    action = first_by_hard[np.uint64(ace), np.uint64(hard), up_column]
                if action != A_SPLIT:
                    # The box's one hand, played out here: the loop below, for the box whose
                    # first decision is a split, plays the same way (and decides that again).
                    stake = unit
                    busted = False
                    if action in (A_HIT, A_DOUBLE):
                        while True:
                            if pos >= n:
                                void = True
                                break
                            card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                            pos += 1
                            hard += _points(card)
                            if (card >> 2) == 0:
                                ace = 1
                            if action == A_DOUBLE:
                                break
                            if not hits_by_hard[np.uint64(ace), np.uint64(hard), up_column]:
                                break
                        if void:
                            break
                        busted = hard > 21
                        if action == A_DOUBLE:
                            stake += unit
                    hards[row] = hard
                    aces[row] = ace
                    stakes[row] = stake
                    if busted:
                        if holds_bust:
                            open_bet = True
                        else:
                            settled[row] = 1
                            nets[row] = -stake
                            outcomes[row] = O_BUST
                    elif action == A_SURRENDER:
                        surrendered[row] = 1
                        if surrender_rule == 3 and blackjack_possible:
                            open_bet = True
                        else:
                            settled[row] = 1
                            nets[row] = stake // 2 - stake
                            outcomes[row] = O_SURRENDER
                    else:
                        open_bet = True
                        live = True
                    continue
                h = 0
                while h < counts[b]:
                    row = b * 4 + h
                    h += 1
                    if settled[row]:
                        continue
                    if naturals[row]:
                        open_bet = True
                        continue
                    # The hand in play, in local variables until it is finished.
                    if row == last_box:
                        # The last box dealt: its cards are still in registers.
                        one = dealt_one
                        two = dealt_two
                        hard = dealt_hard
                        ace = dealt_ace
                        cards = 2
                        from_split = 0
                    else:
                        one = first_cards[row]
                        two = second_cards[row]
                        hard = hards[row]
                        ace = aces[row]
                        cards = card_counts[row]
                        from_split = from_splits[row]
                    split_aces = from_split == 1 and (one >> 2) == 0
                    stake = unit
                    busted = False
                    gave_up = False
                    while True:  # the decision on two cards; again after each split
                        if cards == 1:
                            # A split hand takes its second card when its turn comes.
                            if pos >= n:
                                void = True
                                break
                            two, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                            pos += 1
                            hard += _points(two)
                            if (two >> 2) == 0:
                                ace = 1
                            cards = 2
                        total = _total(hard, ace)
                        soft = 1 if ace and hard <= 11 else 0
                        if not from_split:
                            # The box's first decision, looked up.
                            if can_split and _pair_by_rule(one, two, by_rank):
                                action = pair_actions[_points(one) - 1, up_index]
                            else:
                                action = first_actions[soft, total, up_index]
                        else:
                            legal = 0
                            if total < 21 and (not split_aces or hit_split_aces):
                                legal |= 1 << A_HIT
                            if total >= 12 or not draw_to_12:
                                legal |= 1 << A_STAND
                            if (
                                not split_aces
                                and double_after_split
                                and (not double_nine_to_eleven or (total >= 9 and total <= 11))
                                and (total != 21 or double_on_21)
                            ):
                                legal |= 1 << A_DOUBLE
                            split_legal = (
                                _pair_by_rule(one, two, by_rank)
                                and counts[b] < max_hands
                                and (not split_aces or resplit_aces)
                            )
                            action = A_STAND
                            if split_legal:
                                cell = pair_play[_points(one) - 1, up_index]
                                if cell == 4 or cell == 7:
                                    action = A_SPLIT
                                else:
                                    action = _resolve(first_play[soft, total, up_index], legal)
                            elif legal != (1 << A_STAND):
                                action = _resolve(first_play[soft, total, up_index], legal)
                        if action != A_SPLIT:
                            break
                        new = b * 4 + counts[b]
                        counts[b] += 1
                        split_ace = 1 if (one >> 2) == 0 else 0
                        first_cards[new] = two
                        hards[new] = _points(two)
                        aces[new] = split_ace
                        card_counts[new] = 1
                        from_splits[new] = 1
                        settled[new] = 0
                        surrendered[new] = 0
                        naturals[new] = 0
                        hard = _points(one)
                        ace = split_ace
                        cards = 1
                        from_split = 1
                        split_aces = split_ace == 1
                    if void:
                        break
                    # -- the action: stand, double, hit (and on while the chart says), surrender
                    if action in (A_HIT, A_DOUBLE):
                        can_hit = not split_aces or hit_split_aces
                        while True:
                            if pos >= n:
                                void = True
                                break
                            card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                            pos += 1
                            hard += _points(card)
                            if (card >> 2) == 0:
                                ace = 1
                            cards += 1
                            if hard > 21:
                                busted = True
                                break
                            if action == A_DOUBLE:
                                break
                            total = _total(hard, ace)
                            soft = 1 if ace and hard <= 11 else 0
                            if not (can_hit and drawn_hits[soft, total, up_index]):
                                break
                        if void:
                            break
                        if action == A_DOUBLE:
                            stake += unit
                    elif action == A_SURRENDER:
                        gave_up = True
                    hards[row] = hard
                    aces[row] = ace
                    card_counts[row] = cards
                    from_splits[row] = from_split
                    stakes[row] = stake
                    if busted:
                        if holds_bust:
                            open_bet = True
                        else:
                            settled[row] = 1
                            nets[row] = -stake
                            outcomes[row] = O_BUST
                    elif gave_up:
                        surrendered[row] = 1
                        if surrender_rule == 3 and blackjack_possible:
                            open_bet = True
                        else:
                            settled[row] = 1
                            nets[row] = stake // 2 - stake
                            outcomes[row] = O_SURRENDER
                    else:
                        open_bet = True
                        live = True
                if void:
                    break
            if void:
                break
            # -- the dealer's hand
            dealer_hard = up_points
            dealer_ace = up_ace
            dealer_cards = 1
            if hole != 0:
                hole_points = _points(hole_card)
                dealer_hard += hole_points
                dealer_ace = dealer_ace or hole_points == 1
                dealer_cards = 2
            elif open_bet:
                if pos >= n:
                    void = True
                    break
                card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                pos += 1
                card_points = _points(card)
                dealer_hard += card_points
                dealer_ace = dealer_ace or card_points == 1
                dealer_cards = 2
            dealer_blackjack = dealer_cards == 2 and dealer_hard == 11 and dealer_ace
            if live and dealer_cards > 1 and not dealer_blackjack:
                while True:
                    stands_on = dealer_stands_ace if dealer_ace else dealer_stands_hard
                    if (stands_on >> dealer_hard) & 1:
                        break
                    if pos >= n:
                        void = True
                        break
                    card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                    pos += 1
                    card_points = _points(card)
                    dealer_hard += card_points
                    dealer_ace = dealer_ace or card_points == 1
                if void:
                    break
            final_total = _total(dealer_hard, dealer_ace)
            break
        if void:
            voids += 1
            pos = n  # the next round starts from a fresh shoe
            continue
        # -- settlement and the round's sums
        total = 0
        for b in range(boxes):
            cap = unit
            box_net = 0
            count = counts[b]
            for row in range(b * 4, b * 4 + count):
                if settled[row]:
                    net = nets[row]
                    outcome = outcomes[row]
                else:
                    stake = stakes[row]
                    hard = hards[row]
                    blackjack = naturals[row] == 1
                    if dealer_blackjack:
                        outcome = O_DEALER_BLACKJACK
                        if blackjack:
                            net = 0
                            outcome = O_STAND_OFF
                        elif surrendered[row] or takes == 0:
                            net = -stake
                        else:
                            net = -min(stake, cap)
                            cap += net
                    elif surrendered[row]:
                        net = stake // 2 - stake
                        outcome = O_SURRENDER
                    elif hard > 21:
                        net = -stake
                        outcome = O_BUST
                    elif blackjack:
                        net = blackjack_pays * stake // unit
                        outcome = O_BLACKJACK
                    else:
                        hand_total = _total(hard, aces[row])
                        if final_total > 21 or hand_total > final_total:
                            net = stake if even_money else win_pays * stake // unit
                            outcome = O_WIN
                        elif hand_total == final_total:
                            net = 0
                            outcome = O_STAND_OFF
                        else:
                            net = -stake
                            outcome = O_LOSE
                if stakes[row] > unit:
                    doubles += 1
                box_net += net
                outcome_counts[outcome] += 1
            hand_sum += count
            splits += count - 1
            total += box_net
            box_squares += box_net * box_net
            bucket = box_net + hand_offset
            if bucket < 0:
                bucket = 0
            elif bucket > hand_last:
                bucket = hand_last
            hand_histogram[bucket] += 1
        net_sum += total
        round_squares += total * total
        if session > 0:
            session_net += total
            session_rounds += 1
            if session_rounds == session:
                bucket = session_net // unit + session_offset
                if bucket < 0:
                    bucket = 0
                elif bucket > session_last:
                    bucket = session_last
                session_histogram[bucket] += 1
                session_net = 0
                session_rounds = 0
    _close_tally(
        tally,
        played,
        voids,
        net_sum,
        round_squares,
        box_squares,
        wager,
        outcome_counts,
        doubles,
        splits,
        hand_sum,
    )
    if every > 0 and countdown == 0 and traced < trace.shape[0]:
        for k in range(TRACE_FIELDS):
            trace[traced, k] = tally[k]
    seed[0] = s0
    seed[1] = s1
    seed[2] = s2
    seed[3] = s3
    return pos


@numba.njit(cache=True, nogil=True, error_model="numpy")  # type: ignore[misc]
def _play_one_box(
    shoe: ByteArray,
    p: IntArray,
    first_play: IntArray,
    drawn_stands: IntArray,
    pair_play: IntArray,
    rounds: int,
    seed: UIntArray,
    tally: IntArray,
    hand_histogram: IntArray,
    session_histogram: IntArray,
    trace: IntArray,
) -> int:
    """The body of :func:`run_plain` for one box: the box's hand lives in local variables
    from the deal to the settlement, as a hand-written simulator keeps it, and only a
    box that splits puts its hands in arrays (the same play as :func:`_play_plain`)."""
    n = shoe.shape[0]
    unit = p[P_UNIT]
    cut = p[P_CUT]
    shuffle_each_round = p[P_SHUFFLE_EVERY_ROUND] == 1
    session = p[P_SESSION]
    hole = p[P_HOLE]
    by_rank = p[P_SPLIT_BY_RANK]
    max_hands = p[P_MAX_HANDS]
    surrender_rule = p[P_SURRENDER]
    draw_to_12 = p[P_DRAW_TO_12]
    blackjack_at_once = p[P_BLACKJACK_AT_ONCE]
    blackjack_pays = p[P_BLACKJACK_PAYS]
    takes = p[P_DEALER_BLACKJACK_TAKES]
    double_after_split = p[P_DOUBLE_AFTER_SPLIT]
    double_nine_to_eleven = p[P_DOUBLE_NINE_TO_ELEVEN]
    double_on_21 = p[P_DOUBLE_ON_21]
    hit_split_aces = p[P_HIT_SPLIT_ACES]
    hole_first = p[P_HOLE_FIRST]
    resplit_aces = p[P_RESPLIT_ACES]
    win_pays = p[P_WIN_PAYS]
    even_money = win_pays == unit
    hand_offset = hand_histogram.shape[0] // 2
    hand_last = hand_histogram.shape[0] - 1
    session_offset = session_histogram.shape[0] // 2
    session_last = session_histogram.shape[0] - 1
    wager = unit
    s0 = seed[0]
    s1 = seed[1]
    s2 = seed[2]
    s3 = seed[3]
    # A box that splits: its hands, one entry each, field by field.
    first_cards = np.zeros(4, dtype=np.int64)
    second_cards = np.zeros(4, dtype=np.int64)
    hards = np.zeros(4, dtype=np.int64)
    aces = np.zeros(4, dtype=np.int64)
    card_counts = np.zeros(4, dtype=np.int64)
    from_splits = np.zeros(4, dtype=np.int64)
    stakes = np.zeros(4, dtype=np.int64)
    settled = np.zeros(4, dtype=np.int64)
    nets = np.zeros(4, dtype=np.int64)
    outcomes = np.zeros(4, dtype=np.int64)
    surrendered = np.zeros(4, dtype=np.int64)
    outcome_counts = np.zeros(7, dtype=np.int64)
    tables = _plain_tables(p, first_play, drawn_stands, pair_play)
    first_actions, drawn_hits, first_by_hard, hits_by_hard, pair_actions = tables[:5]
    dealer_stands_hard, dealer_stands_ace = tables[5:]
    can_split = max_hands > 1
    # The hot lookups as flat arrays, indexed by constant strides.
    first_flat = first_by_hard.ravel()
    hits_flat = hits_by_hard.ravel()
    pair_flat = pair_actions.ravel()
    # The sums.  Few are kept in registers: the rare ones are counted in memory (voids,
    # doubles, splits), and a round's count, its hands and its box's square follow from
    # the others (one box: a hand a round, and one more for each split).
    net_sum = 0
    squares = 0
    rare = np.zeros(3, dtype=np.int64)  # voids, doubles, splits
    session_net = 0
    session_rounds = 0
    pos = 0
    every = rounds // trace.shape[0] if trace.shape[0] > 0 else 0
    countdown = every
    traced = 0
    initial_cards = 2 + (1 if hole == 0 else 2)
    for played in range(rounds):
        if every > 0:
            if countdown == 0 and traced < trace.shape[0]:
                _trace_row(trace, traced, tally, played, rare[0], net_sum, squares, squares, wager)
                traced += 1
                countdown = every
            countdown -= 1
        if pos >= cut or (shuffle_each_round and pos > 0):
            pos = 0
        void = False
        dealer_blackjack = False
        final_total = 0
        # The box's hand: its cards' hard total and Ace, its stake, and how it ended.
        hard = 0
        ace = 0
        stake = unit
        natural = False
        done = False  # settled before the dealer's hand: its net and outcome are known
        net = 0
        outcome = 0
        gave_up = False
        count = 1  # the box's hands: more than one once it splits
        while True:  # one pass: a break leaves the round
            # -- the initial deal
            if n - pos < initial_cards:
                void = True
                break
            one, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
            pos += 1
            first_dealer, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
            pos += 1
            two, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
            pos += 1
            hard = _points(one) + _points(two)
            ace = 1 if (one >> 2) == 0 or (two >> 2) == 0 else 0
            natural = hard == 11 and ace == 1
            up = first_dealer
            hole_card = -1
            if hole != 0:
                second_dealer, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                pos += 1
                if hole_first:
                    up = second_dealer
                    hole_card = first_dealer
                else:
                    hole_card = second_dealer
            up_points = _points(up)
            up_index = up_points - 1
            up_ace = up_points == 1
            up_blackjack = up_ace or up_points == 10
            # -- interim settlement: blackjacks at once, the RWS surrender offer, the peek
            if natural and blackjack_at_once and not up_blackjack:
                net = blackjack_pays
                outcome = O_BLACKJACK
                done = True
            if surrender_rule == 2 and not up_ace and not natural:
                legal = (1 << A_HIT) | (1 << A_STAND) | (1 << A_SURRENDER)
                total = _total(hard, ace)
                play = -1
                if max_hands >= 2 and _pair_by_rule(one, two, by_rank):
                    legal |= 1 << A_SPLIT
                    play = pair_play[_points(one) - 1, up_index]
                    if play != 4 and play != 7:
                        play = -1
                if play < 0:
                    play = first_play[ace if hard <= 11 else 0, total, up_index]
                if _resolve(play, legal) == A_SURRENDER:
                    gave_up = True
                    done = True
                    net = unit // 2 - unit
                    outcome = O_SURRENDER
            peeked = False
            if hole == 1 and up_blackjack:
                peeked = True
                if up_points + _points(hole_card) == 11:
                    # The peek finds a blackjack: straight to settlement.
                    dealer_blackjack = True
                    final_total = 21
                    break
                if natural and not done:
                    net = blackjack_pays
                    outcome = O_BLACKJACK
                    done = True
            # While the dealer may still turn out to hold a blackjack (no peek, an Ace or ten up).
            blackjack_possible = up_blackjack and not peeked
            holds_bust = takes == 1 and blackjack_possible
            # Whether the hand still has a bet for the dealer's second card (no hole card),
            # and one the dealer must play out against.
            open_bet = False
            live = False
            # -- the player's turn
            if done:
                pass
            elif natural:
                open_bet = True
            else:
                # (Unsigned indices, as in _deal: no wrap-around for negative ones.)
                if can_split and _pair_by_rule(one, two, by_rank):
                    action = pair_flat[np.uint64((_points(one) - 1) * 10 + up_index)]
                else:
                    action = first_flat[np.uint64(ace * 320 + hard * 10 + up_index)]
                if action != A_SPLIT:
                    busted = False
                    if action in (A_HIT, A_DOUBLE):
                        while True:
                            if pos >= n:
                                void = True
                                break
                            card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                            pos += 1
                            hard += _points(card)
                            if (card >> 2) == 0:
                                ace = 1
                            if action == A_DOUBLE:
                                break
                            if not hits_flat[np.uint64(ace * 320 + hard * 10 + up_index)]:
                                break
                        if void:
                            break
                        busted = hard > 21
                        if action == A_DOUBLE:
                            stake += unit
                    if busted:
                        if holds_bust:
                            open_bet = True
                        else:
                            done = True
                            net = -stake
                            outcome = O_BUST
                    elif action == A_SURRENDER:
                        gave_up = True
                        if surrender_rule == 3 and blackjack_possible:
                            open_bet = True
                        else:
                            done = True
                            net = stake // 2 - stake
                            outcome = O_SURRENDER
                    else:
                        open_bet = True
                        live = True
                else:
                    # The box splits: its hands in the arrays, played as _play_plain plays
                    # them (the first hand decides again, and splits).
                    first_cards[0] = one
                    second_cards[0] = two
                    hards[0] = hard
                    aces[0] = ace
                    card_counts[0] = 2
                    from_splits[0] = 0
                    settled[0] = 0
                    surrendered[0] = 0
                    h = 0
                    while h < count:
                        row = h
                        h += 1
                        one = first_cards[row]
                        two = second_cards[row]
                        hard = hards[row]
                        ace = aces[row]
                        cards = card_counts[row]
                        from_split = from_splits[row]
                        split_aces = from_split == 1 and (one >> 2) == 0
                        stake = unit
                        busted = False
                        gave_up = False
                        while True:  # the decision on two cards; again after each split
                            if cards == 1:
                                # A split hand takes its second card when its turn comes.
                                if pos >= n:
                                    void = True
                                    break
                                two, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                                pos += 1
                                hard += _points(two)
                                if (two >> 2) == 0:
                                    ace = 1
                                cards = 2
                            total = _total(hard, ace)
                            soft = 1 if ace and hard <= 11 else 0
                            if not from_split:
                                # The box's first decision, looked up.
                                if can_split and _pair_by_rule(one, two, by_rank):
                                    action = pair_actions[_points(one) - 1, up_index]
                                else:
                                    action = first_actions[soft, total, up_index]
                            else:
                                legal = 0
                                if total < 21 and (not split_aces or hit_split_aces):
                                    legal |= 1 << A_HIT
                                if total >= 12 or not draw_to_12:
                                    legal |= 1 << A_STAND
                                if (
                                    not split_aces
                                    and double_after_split
                                    and (not double_nine_to_eleven or (total >= 9 and total <= 11))
                                    and (total != 21 or double_on_21)
                                ):
                                    legal |= 1 << A_DOUBLE
                                split_legal = (
                                    _pair_by_rule(one, two, by_rank)
                                    and count < max_hands
                                    and (not split_aces or resplit_aces)
                                )
                                action = A_STAND
                                if split_legal:
                                    cell = pair_play[_points(one) - 1, up_index]
                                    if cell == 4 or cell == 7:
                                        action = A_SPLIT
                                    else:
                                        action = _resolve(first_play[soft, total, up_index], legal)
                                elif legal != (1 << A_STAND):
                                    action = _resolve(first_play[soft, total, up_index], legal)
                            if action != A_SPLIT:
                                break
                            new = count
                            count += 1
                            split_ace = 1 if (one >> 2) == 0 else 0
                            first_cards[new] = two
                            hards[new] = _points(two)
                            aces[new] = split_ace
                            card_counts[new] = 1
                            from_splits[new] = 1
                            settled[new] = 0
                            surrendered[new] = 0
                            hard = _points(one)
                            ace = split_ace
                            cards = 1
                            from_split = 1
                            split_aces = split_ace == 1
                        if void:
                            break
                        # -- the action: stand, double, hit (and on while the chart says), surrender
                        if action in (A_HIT, A_DOUBLE):
                            can_hit = not split_aces or hit_split_aces
                            while True:
                                if pos >= n:
                                    void = True
                                    break
                                card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                                pos += 1
                                hard += _points(card)
                                if (card >> 2) == 0:
                                    ace = 1
                                cards += 1
                                if hard > 21:
                                    busted = True
                                    break
                                if action == A_DOUBLE:
                                    break
                                total = _total(hard, ace)
                                soft = 1 if ace and hard <= 11 else 0
                                if not (can_hit and drawn_hits[soft, total, up_index]):
                                    break
                            if void:
                                break
                            if action == A_DOUBLE:
                                stake += unit
                        elif action == A_SURRENDER:
                            gave_up = True
                        hards[row] = hard
                        aces[row] = ace
                        card_counts[row] = cards
                        from_splits[row] = from_split
                        stakes[row] = stake
                        if busted:
                            if holds_bust:
                                open_bet = True
                            else:
                                settled[row] = 1
                                nets[row] = -stake
                                outcomes[row] = O_BUST
                        elif gave_up:
                            surrendered[row] = 1
                            if surrender_rule == 3 and blackjack_possible:
                                open_bet = True
                            else:
                                settled[row] = 1
                                nets[row] = stake // 2 - stake
                                outcomes[row] = O_SURRENDER
                        else:
                            open_bet = True
                            live = True
                    if void:
                        break
            # -- the dealer's hand
            dealer_hard = up_points
            dealer_ace = up_ace
            dealer_cards = 1
            if hole != 0:
                hole_points = _points(hole_card)
                dealer_hard += hole_points
                dealer_ace = dealer_ace or hole_points == 1
                dealer_cards = 2
            elif open_bet:
                if pos >= n:
                    void = True
                    break
                card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                pos += 1
                card_points = _points(card)
                dealer_hard += card_points
                dealer_ace = dealer_ace or card_points == 1
                dealer_cards = 2
            dealer_blackjack = dealer_cards == 2 and dealer_hard == 11 and dealer_ace
            if live and dealer_cards > 1 and not dealer_blackjack:
                while True:
                    stands_on = dealer_stands_ace if dealer_ace else dealer_stands_hard
                    if (stands_on >> dealer_hard) & 1:
                        break
                    if pos >= n:
                        void = True
                        break
                    card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                    pos += 1
                    card_points = _points(card)
                    dealer_hard += card_points
                    dealer_ace = dealer_ace or card_points == 1
                if void:
                    break
            final_total = _total(dealer_hard, dealer_ace)
            break
        if void:
            rare[0] += 1
            pos = n  # the next round starts from a fresh shoe
            continue
        # -- settlement and the round's sums
        if count == 1:
            if not done:
                if dealer_blackjack:
                    outcome = O_DEALER_BLACKJACK
                    if natural:
                        net = 0
                        outcome = O_STAND_OFF
                    elif gave_up or takes == 0:
                        net = -stake
                    else:
                        net = -min(stake, unit)
                elif gave_up:
                    net = stake // 2 - stake
                    outcome = O_SURRENDER
                elif hard > 21:
                    net = -stake
                    outcome = O_BUST
                elif natural:
                    net = blackjack_pays
                    outcome = O_BLACKJACK
                else:
                    hand_total = _total(hard, ace)
                    if final_total > 21 or hand_total > final_total:
                        net = stake if even_money else win_pays * stake // unit
                        outcome = O_WIN
                    elif hand_total == final_total:
                        net = 0
                        outcome = O_STAND_OFF
                    else:
                        net = -stake
                        outcome = O_LOSE
            if stake > unit:
                rare[1] += 1
            outcome_counts[outcome] += 1
            box_net = net
        else:
            cap = unit
            box_net = 0
            for row in range(count):
                stake = stakes[row]
                if settled[row]:
                    net = nets[row]
                    outcome = outcomes[row]
                elif dealer_blackjack:
                    outcome = O_DEALER_BLACKJACK
                    if surrendered[row] or takes == 0:
                        net = -stake
                    else:
                        net = -min(stake, cap)
                        cap += net
                elif surrendered[row]:
                    net = stake // 2 - stake
                    outcome = O_SURRENDER
                elif hards[row] > 21:
                    net = -stake
                    outcome = O_BUST
                else:
                    hand_total = _total(hards[row], aces[row])
                    if final_total > 21 or hand_total > final_total:
                        net = stake if even_money else win_pays * stake // unit
                        outcome = O_WIN
                    elif hand_total == final_total:
                        net = 0
                        outcome = O_STAND_OFF
                    else:
                        net = -stake
                        outcome = O_LOSE
                if stake > unit:
                    rare[1] += 1
                box_net += net
                outcome_counts[outcome] += 1
            rare[2] += count - 1
        net_sum += box_net
        squares += box_net * box_net
        bucket = box_net + hand_offset
        if bucket < 0:
            bucket = 0
        elif bucket > hand_last:
            bucket = hand_last
        hand_histogram[bucket] += 1
        if session > 0:
            session_net += box_net
            session_rounds += 1
            if session_rounds == session:
                bucket = session_net // unit + session_offset
                if bucket < 0:
                    bucket = 0
                elif bucket > session_last:
                    bucket = session_last
                session_histogram[bucket] += 1
                session_net = 0
                session_rounds = 0
    voids = rare[0]
    splits = rare[2]
    _close_tally(
        tally,
        rounds,
        voids,
        net_sum,
        squares,
        squares,
        wager,
        outcome_counts,
        rare[1],
        splits,
        rounds - voids + splits,
    )
    if every > 0 and countdown == 0 and traced < trace.shape[0]:
        for k in range(TRACE_FIELDS):
            trace[traced, k] = tally[k]
    seed[0] = s0
    seed[1] = s1
    seed[2] = s2
    seed[3] = s3
    return pos


#: More cards than one round of :func:`run_peek` can take: a hand hits only at a
#: hard total of 20 or less, so it holds at most 21 cards (20 before its last), and the
#: dealer draws only under 17, so his holds at most 17; two hands and his, 59.  A round
#: that starts this far from the shoe's end never runs out of cards.
PEEK_ROUND_CARDS = 60


@numba.njit(cache=True, nogil=True, error_model="numpy")  # type: ignore[misc]
def run_peek(
    shoe: ByteArray,
    p: IntArray,
    first_play: IntArray,
    drawn_stands: IntArray,
    pair_play: IntArray,
    index_plays: IntArray,
    rounds: int,
    seed: UIntArray,
    tally: IntArray,
    hand_histogram: IntArray,
    session_histogram: IntArray,
    trace: IntArray,
) -> int:
    """:func:`run_plain` for the commonest game, a kernel of its own: one box, a hole card
    and the peek, no surrender or late surrender, one split (two hands), and a cut card
    far enough from the shoe's end that no round runs out of cards (:func:`peek_plays`;
    ``index_plays`` is not read).  A round
    is written as a hand-written simulator writes it: the dealer's blackjack is settled
    at the peek, the hand and the sums live in local variables, a split hand's first
    decision is looked up in a table of its own, and the round of a box that splits is
    played by :func:`_split_pair`.  It deals the same cards, takes the same decisions
    and adds the same sums as :func:`_play_one_box` (``tests/test_simulate_run.py``
    holds the two to it)."""
    given = shoe
    shoe = given.copy()  # a shoe of its own: no write to it can touch another array
    unit = p[P_UNIT]
    cut = p[P_CUT]
    shuffle_each_round = p[P_SHUFFLE_EVERY_ROUND] == 1
    session = p[P_SESSION]
    by_rank = p[P_SPLIT_BY_RANK]
    draw_to_12 = p[P_DRAW_TO_12]
    blackjack_pays = p[P_BLACKJACK_PAYS]
    double_after_split = p[P_DOUBLE_AFTER_SPLIT]
    double_nine_to_eleven = p[P_DOUBLE_NINE_TO_ELEVEN]
    double_on_21 = p[P_DOUBLE_ON_21]
    hit_split_aces = p[P_HIT_SPLIT_ACES]
    hole_first = p[P_HOLE_FIRST]
    win_pays = p[P_WIN_PAYS]
    hands = p[P_MAX_HANDS]  # two: a bound the compiler does not unroll
    even_money = win_pays == unit
    hand_offset = hand_histogram.shape[0] // 2
    hand_last = hand_histogram.shape[0] - 1
    session_offset = session_histogram.shape[0] // 2
    session_last = session_histogram.shape[0] - 1
    wager = unit
    s0 = seed[0]
    s1 = seed[1]
    s2 = seed[2]
    s3 = seed[3]
    outcome_counts = np.zeros(7, dtype=np.int64)
    stand_offs = 0
    dealer_blackjacks = 0
    blackjacks = 0
    surrenders = 0
    busts = 0
    wins = 0
    losses = 0
    tables = _plain_tables(p, first_play, drawn_stands, pair_play)
    first_by_hard, hits_by_hard, pair_actions = tables[2:5]
    dealer_stands_hard, dealer_stands_ace = tables[5:]
    # The hot lookups as flat arrays of bytes: the loop's tables take an eighth of the
    # processor's first-level cache they took as 64-bit integers.
    first_flat = first_by_hard.ravel().astype(np.int8)
    hits_flat = hits_by_hard.ravel().astype(np.int8)
    pair_flat = pair_actions.ravel().astype(np.int8)
    # A split hand's decision on its two cards, by (split Aces, soft, total, up card):
    # the chart's play among the moves the rules allow a split hand.
    split_actions = np.full((2, 2, 22, 10), A_STAND, dtype=np.int64)
    for aces in range(2):
        for soft in range(2):
            for total in range(22):
                legal = 0
                if total < 21 and (aces == 0 or hit_split_aces):
                    legal |= 1 << A_HIT
                if total >= 12 or not draw_to_12:
                    legal |= 1 << A_STAND
                if (
                    aces == 0
                    and double_after_split
                    and (not double_nine_to_eleven or (total >= 9 and total <= 11))
                    and (total != 21 or double_on_21)
                ):
                    legal |= 1 << A_DOUBLE
                if legal != (1 << A_STAND):
                    for up_index in range(10):
                        split_actions[aces, soft, total, up_index] = _resolve(
                            first_play[soft, total, up_index], legal
                        )
    split_flat = split_actions.ravel().astype(np.int8)
    net_sum = 0
    squares = 0
    doubles = 0
    splits = 0
    session_net = 0
    session_rounds = 0
    pos = 0
    every = rounds // trace.shape[0] if trace.shape[0] > 0 else 0
    traced = 0
    # The round before which the trace takes its next row (-1: no more rows).
    trace_at = every if every > 0 else -1
    for played in range(rounds):
        if _unlikely(played == trace_at):
            _trace_row(trace, traced, tally, played, 0, net_sum, squares, squares, wager)
            traced += 1
            trace_at = trace_at + every if traced < trace.shape[0] else -1
        if pos >= cut or (shuffle_each_round and pos > 0):
            pos = 0
        # -- the deal: a card to the box, the dealer's first, the box's second, the hole
        one, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
        first_dealer, s0, s1, s2, s3 = _deal(shoe, pos + 1, False, s0, s1, s2, s3)
        two, s0, s1, s2, s3 = _deal(shoe, pos + 2, False, s0, s1, s2, s3)
        second_dealer, s0, s1, s2, s3 = _deal(shoe, pos + 3, False, s0, s1, s2, s3)
        pos += 4
        if hole_first:
            up = second_dealer
            hole_card = first_dealer
        else:
            up = first_dealer
            hole_card = second_dealer
        hard = _points(one) + _points(two)
        ace = 1 if (one >> 2) == 0 or (two >> 2) == 0 else 0
        up_points = _points(up)
        up_index = up_points - 1
        dealer_hard = up_points + _points(hole_card)
        dealer_ace = up_points == 1 or (hole_card >> 2) == 0
        if _unlikely(dealer_hard == 11 and dealer_ace):
            # The peek finds the dealer's blackjack: it takes the bet, or stands off one.
            if hard == 11 and ace == 1:
                box_net = 0
                stand_offs += 1
            else:
                box_net = -unit
                dealer_blackjacks += 1
        elif _unlikely(hard == 11 and ace == 1):
            box_net = blackjack_pays
            blackjacks += 1
        else:
            if _pair_by_rule(one, two, by_rank):
                action = pair_flat[np.uint64((_points(one) - 1) * 10 + up_index)]
            else:
                action = first_flat[np.uint64(ace * 320 + hard * 10 + up_index)]
            if not _unlikely(action == A_SPLIT):
                stake = unit
                if _unlikely(action == A_SURRENDER):
                    box_net = unit // 2 - unit
                    surrenders += 1
                else:
                    if action in (A_HIT, A_DOUBLE):
                        while True:
                            card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                            pos += 1
                            hard += _points(card)
                            if (card >> 2) == 0:
                                ace = 1
                            if action == A_DOUBLE:
                                stake += unit
                                doubles += 1
                                break
                            if not hits_flat[np.uint64(ace * 320 + hard * 10 + up_index)]:
                                break
                    if hard > 21:
                        box_net = -stake
                        busts += 1
                    else:
                        dealer_hard, dealer_ace, pos, s0, s1, s2, s3 = _dealer_plays(
                            shoe,
                            pos,
                            dealer_hard,
                            dealer_ace,
                            dealer_stands_hard,
                            dealer_stands_ace,
                            s0,
                            s1,
                            s2,
                            s3,
                        )
                        final_total = _total(dealer_hard, dealer_ace)
                        hand_total = _total(hard, ace)
                        if final_total > 21 or hand_total > final_total:
                            box_net = stake if even_money else win_pays * stake // unit
                            wins += 1
                        elif hand_total == final_total:
                            box_net = 0
                            stand_offs += 1
                        else:
                            box_net = -stake
                            losses += 1
            else:
                splits += 1
                box_net, doubled, pos, s0, s1, s2, s3 = _split_pair(
                    shoe,
                    pos,
                    one,
                    up_index,
                    dealer_hard,
                    dealer_ace,
                    unit,
                    win_pays,
                    hands,
                    hit_split_aces,
                    split_flat,
                    hits_flat,
                    dealer_stands_hard,
                    dealer_stands_ace,
                    outcome_counts,
                    s0,
                    s1,
                    s2,
                    s3,
                )
                doubles += doubled
        net_sum += box_net
        squares += box_net * box_net
        bucket = box_net + hand_offset
        if bucket < 0:
            bucket = 0
        elif bucket > hand_last:
            bucket = hand_last
        hand_histogram[bucket] += 1
        if session > 0:
            session_net += box_net
            session_rounds += 1
            if session_rounds == session:
                bucket = session_net // unit + session_offset
                if bucket < 0:
                    bucket = 0
                elif bucket > session_last:
                    bucket = session_last
                session_histogram[bucket] += 1
                session_net = 0
                session_rounds = 0
    outcome_counts[O_STAND_OFF] += stand_offs
    outcome_counts[O_DEALER_BLACKJACK] += dealer_blackjacks
    outcome_counts[O_BLACKJACK] += blackjacks
    outcome_counts[O_SURRENDER] += surrenders
    outcome_counts[O_BUST] += busts
    outcome_counts[O_WIN] += wins
    outcome_counts[O_LOSE] += losses
    _close_tally(
        tally,
        rounds,
        0,
        net_sum,
        squares,
        squares,
        wager,
        outcome_counts,
        doubles,
        splits,
        rounds + splits,
    )
    if trace_at == rounds:
        for k in range(TRACE_FIELDS):
            trace[traced, k] = tally[k]
    seed[0] = s0
    seed[1] = s1
    seed[2] = s2
    seed[3] = s3
    given[:] = shoe
    return pos


@numba.njit(cache=True, inline="always")  # type: ignore[misc]
def _dealer_plays(
    shoe: ByteArray,
    pos: int,
    hard: int,
    ace: bool,
    stands_hard: int,
    stands_ace: int,
    s0: np.uint64,
    s1: np.uint64,
    s2: np.uint64,
    s3: np.uint64,
) -> tuple[int, bool, int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """The dealer draws to his standing totals (``stands_hard``, ``stands_ace``: bit
    sets of the hard totals he stands on, without an Ace and with one)."""
    while True:
        stands_on = stands_ace if ace else stands_hard
        if (stands_on >> hard) & 1:
            break
        card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
        pos += 1
        points = _points(card)
        hard += points
        ace = ace or points == 1
    return hard, ace, pos, s0, s1, s2, s3


def peek_plays(p: IntArray, shoe_cards: int) -> bool:
    """Whether :func:`run_peek` plays a run of :func:`run_plain`'s with these rules (``p``)
    and a shoe of ``shoe_cards`` cards: one box, a hole card and the peek, no early
    surrender, one split, and no round that can run out of cards.

    >>> p = np.zeros(P_SIZE, dtype=np.int64)
    >>> p[[P_BOXES, P_HOLE, P_MAX_HANDS, P_CUT]] = 1, 1, 2, 234
    >>> peek_plays(p, 312), peek_plays(p, 260)  # 6 decks to 75%; a cut card too deep
    (True, False)
    """
    return bool(
        p[P_BOXES] == 1
        and p[P_HOLE] == 1
        and p[P_SURRENDER] in (0, 1)
        and p[P_MAX_HANDS] == 2
        # A round starts before the cut card, or at the top of a shoe shuffled each round.
        and (p[P_SHUFFLE_EVERY_ROUND] == 1 or p[P_CUT] + PEEK_ROUND_CARDS <= shoe_cards)
        and shoe_cards >= PEEK_ROUND_CARDS
    )


@numba.njit(cache=True, nogil=True, error_model="numpy")  # type: ignore[misc]
def _split_pair(
    shoe: ByteArray,
    pos: int,
    one: int,
    up_index: int,
    dealer_hard: int,
    dealer_ace: bool,
    unit: int,
    win_pays: int,
    hands: int,
    hit_split_aces: int,
    split_flat: ByteArray,
    hits_flat: ByteArray,
    dealer_stands_hard: int,
    dealer_stands_ace: int,
    outcome_counts: IntArray,
    s0: np.uint64,
    s1: np.uint64,
    s2: np.uint64,
    s3: np.uint64,
) -> tuple[int, int, int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """The round of :func:`run_peek` whose box splits its pair (``one`` is its first
    card): two hands, each from one card of the pair, the first played out (its second
    card dealt when its turn comes) before the second, then the dealer's hand and the
    settlement.  Returns the box's net, its doubles, the shoe's position and the
    generator; counts each hand's outcome in ``outcome_counts``.

    A function of its own, not inlined: the few rounds that split would otherwise cost
    every round of the loop registers."""
    even_money = win_pays == unit
    doubled = 0
    # Two hands, each from one card of the pair: the first is played out
    # (its second card dealt when its turn comes) before the second.
    split_aces = (one >> 2) == 0
    split_row = 440 if split_aces else 0
    can_hit = not split_aces or hit_split_aces
    first_hard = 0
    first_ace = 0
    first_stake = unit
    for row in range(hands):
        hard = _points(one)
        ace = 1 if split_aces else 0
        card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
        pos += 1
        hard += _points(card)
        if (card >> 2) == 0:
            ace = 1
        total = _total(hard, ace)
        soft = 1 if ace and hard <= 11 else 0
        row_index = split_row + soft * 220 + total * 10 + up_index
        action = split_flat[np.uint64(row_index)]
        stake = unit
        if action in (A_HIT, A_DOUBLE):
            while True:
                card, s0, s1, s2, s3 = _deal(shoe, pos, False, s0, s1, s2, s3)
                pos += 1
                hard += _points(card)
                if (card >> 2) == 0:
                    ace = 1
                if hard > 21:
                    break
                if action == A_DOUBLE:
                    break
                if not can_hit or not hits_flat[np.uint64(ace * 320 + hard * 10 + up_index)]:
                    break
            if action == A_DOUBLE:
                stake += unit
                doubled += 1
        if row == 0:
            first_hard = hard
            first_ace = ace
            first_stake = stake
    second_hard = hard
    second_ace = ace
    second_stake = stake
    if first_hard <= 21 or second_hard <= 21:
        dealer_hard, dealer_ace, pos, s0, s1, s2, s3 = _dealer_plays(
            shoe,
            pos,
            dealer_hard,
            dealer_ace,
            dealer_stands_hard,
            dealer_stands_ace,
            s0,
            s1,
            s2,
            s3,
        )
    final_total = _total(dealer_hard, dealer_ace)
    box_net = 0
    for row in range(hands):
        hard = first_hard if row == 0 else second_hard
        ace = first_ace if row == 0 else second_ace
        stake = first_stake if row == 0 else second_stake
        if hard > 21:
            box_net -= stake
            outcome_counts[O_BUST] += 1
            continue
        hand_total = _total(hard, ace)
        if final_total > 21 or hand_total > final_total:
            box_net += stake if even_money else win_pays * stake // unit
            outcome_counts[O_WIN] += 1
        elif hand_total == final_total:
            outcome_counts[O_STAND_OFF] += 1
        else:
            box_net -= stake
            outcome_counts[O_LOSE] += 1
    return box_net, doubled, pos, s0, s1, s2, s3


@numba.njit(cache=True, nogil=True, error_model="numpy")  # type: ignore[misc]
def run_plain(
    shoe: ByteArray,
    p: IntArray,
    first_play: IntArray,
    drawn_stands: IntArray,
    pair_play: IntArray,
    index_plays: IntArray,
    rounds: int,
    seed: UIntArray,
    tally: IntArray,
    hand_histogram: IntArray,
    session_histogram: IntArray,
    trace: IntArray,
) -> int:
    """:func:`run_chunk` for a run with the chart's decisions, no count and no side bets,
    shuffled as dealt (``index_plays`` is not read).

    A kernel of its own, written for speed: the rules' legal masks and the chart are
    resolved into tables of actions before the first round, the hand in play and the
    sums live in local variables, and the one-box game has code of its own.  It deals
    the same cards, takes the same decisions and adds the same sums as
    :func:`run_chunk`: ``tests/test_simulate_run.py`` holds the two to the same sums,
    histograms, trace, shoe and generator for the same seed.
    """
    if p[P_BOXES] == 1:
        return _play_one_box(
            shoe,
            p,
            first_play,
            drawn_stands,
            pair_play,
            rounds,
            seed,
            tally,
            hand_histogram,
            session_histogram,
            trace,
        )
    return _play_plain(
        shoe,
        p,
        first_play,
        drawn_stands,
        pair_play,
        rounds,
        seed,
        tally,
        hand_histogram,
        session_histogram,
        trace,
    )
