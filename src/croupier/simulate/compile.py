"""The rules, a strategy and the side bets, compiled into the kernel's integer arrays.

>>> from croupier.presets import find_rules
>>> game = compile_game(find_rules("rws-v5"), boxes=2)
>>> game.unit, int(game.params[kernel.P_BLACKJACK_PAYS]), int(game.params[kernel.P_BOXES])
(2, 3, 2)
>>> compile_game(find_rules("rws-v5").replace(blackjack_pays="6/5")).unit
10
>>> game.shoe.shape, int(game.params[kernel.P_CUT])
((416,), 312)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from croupier.analysis.strategy import BasicStrategy, Play
from croupier.cards import Card, Rank, Suit
from croupier.errors import RulesError
from croupier.rules import (
    DealerBlackjackTakes,
    DoubleOn,
    HoleCard,
    Rules,
    SideBet,
    SplitMatch,
    Surrender,
)
from croupier.simulate import kernel

__all__ = [
    "ACTIONS",
    "PLAY_CODES",
    "CompiledGame",
    "CompiledStrategy",
    "card_code",
    "compile_game",
    "compile_strategy",
    "side_bet_stakes",
]

IntArray = npt.NDArray[np.int64]

#: A chart cell's code in the kernel's tables.
PLAY_CODES: Mapping[Play, int] = {
    Play.HIT: 0,
    Play.STAND: 1,
    Play.DOUBLE_OR_HIT: 2,
    Play.DOUBLE_OR_STAND: 3,
    Play.SPLIT: 4,
    Play.SURRENDER_OR_HIT: 5,
    Play.SURRENDER_OR_STAND: 6,
    Play.SURRENDER_OR_SPLIT: 7,
}
#: The kernel's action codes by the chart's option names.
ACTIONS = {name: code for code, name in enumerate(kernel.ACTION_NAMES)}
#: No index play in this cell.
NO_INDEX = -99

_RANKS = tuple(Rank)
_SUITS = tuple(Suit)
_HOLE = {HoleCard.NONE: 0, HoleCard.PEEK: 1, HoleCard.NO_PEEK: 2}
_TAKES = {
    DealerBlackjackTakes.ALL: 0,
    DealerBlackjackTakes.ORIGINAL_BET: 1,
    DealerBlackjackTakes.BUSTED_AND_INITIAL_BET: 2,
}
_SURRENDER = {Surrender.NONE: 0, Surrender.LATE: 1, Surrender.RWS: 2, Surrender.CASINO_TO_GO: 3}
#: The side bets in the kernel's order.
SIDE_BETS = (
    SideBet.PLAYER_PAIR,
    SideBet.UNDER_13,
    SideBet.OVER_13,
    SideBet.PERFECT_PAIRS,
    SideBet.TWENTY_ONE_PLUS_THREE,
)


def card_code(card: Card) -> int:
    """The kernel's code of a card: ``rank * 4 + suit``.

    >>> from croupier.cards import parse_card
    >>> card_code(parse_card("AS")), card_code(parse_card("10H")), card_code(parse_card("KC"))
    (0, 37, 51)
    """
    return _RANKS.index(card.rank) * 4 + _SUITS.index(card.suit)


def code_card(code: int) -> Card:
    """The card of a kernel code.

    >>> str(code_card(37))
    '10H'
    """
    return Card(_RANKS[code >> 2], _SUITS[code & 3])


@dataclass(frozen=True)
class CompiledStrategy:
    """A strategy as the kernel's lookup tables (see :func:`compile_strategy`)."""

    first_play: IntArray
    drawn_stands: IntArray
    pair_play: IntArray
    index_plays: IntArray


@dataclass(frozen=True)
class CompiledGame:
    """A rule set, the boxes played and the side bets as the kernel's arrays.

    Attributes:
        rules: the rule set.
        params: the kernel's parameter array (``kernel.P_*``).
        unit: units in one initial bet: every payout is a whole number of units.
        shoe: one of each card of the shoe, as kernel codes.
        side_pays: units won per side bet, by side bet and outcome (a loss is ``-unit``).
        side_stakes: 1 where a box carries a side bet, by box and side bet.
    """

    rules: Rules
    params: IntArray
    unit: int
    shoe: npt.NDArray[np.int8]
    side_pays: IntArray
    side_stakes: IntArray


def _unit(rules: Rules) -> int:
    """The smallest even number of units per bet that pays every ratio in whole units."""
    ratios: list[Fraction] = [rules.blackjack_pays, rules.win_pays, rules.insurance_pays / 2]
    for table in (
        rules.player_pair_pays,
        rules.under_13_pays,
        rules.over_13_pays,
    ):
        if table is not None:
            ratios.append(table)
    for tables in (rules.perfect_pairs_pays, rules.twenty_one_plus_three_pays):
        if tables is not None:
            ratios.extend(tables)
    unit = 2
    for ratio in ratios:
        unit = math.lcm(unit, ratio.denominator)
    return unit


def _side_pays(rules: Rules, unit: int) -> IntArray:
    pays = np.zeros((5, 6), dtype=np.int64)
    pays[:] = -unit
    single = (rules.player_pair_pays, rules.under_13_pays, rules.over_13_pays)
    for key, ratio in enumerate(single):
        if ratio is not None:
            # Player Pair wins on outcome 0; Under 13 on 0, Over 13 on 1.
            pays[key, 1 if key == 2 else 0] = int(ratio * unit)
    if rules.perfect_pairs_pays is not None:
        for outcome, ratio in enumerate(rules.perfect_pairs_pays):
            pays[3, outcome] = int(ratio * unit)
    if rules.twenty_one_plus_three_pays is not None:
        for outcome, ratio in enumerate(rules.twenty_one_plus_three_pays):
            pays[4, outcome] = int(ratio * unit)
    return pays


def side_bet_scale(amounts: Mapping[SideBet, Fraction]) -> int:
    """The side-bet units in one initial bet: the smallest whole number that makes every
    side bet's stake a whole number of them.

    >>> side_bet_scale({SideBet.UNDER_13: Fraction(1, 2), SideBet.OVER_13: Fraction(2, 3)})
    6
    """
    scale = 1
    for amount in amounts.values():
        scale = math.lcm(scale, amount.denominator)
    return scale


def side_bet_stakes(
    rules: Rules,
    boxes: int,
    side_bets: Sequence[SideBet],
    amounts: Mapping[SideBet, Fraction] | None = None,
) -> IntArray:
    """Each box's stake on each side bet, in side-bet units (:func:`side_bet_scale`):
    one initial bet each unless ``amounts`` says otherwise, 0 where none is placed.

    Raises:
        RulesError: the rule set does not offer one of ``side_bets``.

    >>> from croupier.presets import find_rules
    >>> side_bet_stakes(find_rules("rws-v5"), 2, [SideBet.UNDER_13]).tolist()
    [[0, 1, 0, 0, 0], [0, 1, 0, 0, 0]]
    >>> halves = {SideBet.UNDER_13: Fraction(1, 2), SideBet.OVER_13: Fraction(3)}
    >>> side_bet_stakes(find_rules("rws-v5"), 1, list(halves), halves).tolist()
    [[0, 1, 6, 0, 0]]
    >>> side_bet_stakes(find_rules("live"), 1, [SideBet.UNDER_13])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: live does not offer the side bet under_13; it offers: perfect...
    """
    offered = rules.side_bets_offered()
    stakes = np.zeros((boxes, 5), dtype=np.int64)
    for side_bet in side_bets:
        if side_bet not in offered:
            names = ", ".join(bet.value for bet in offered) or "none"
            raise RulesError(
                f"{rules.name} does not offer the side bet {side_bet.value}; it offers: {names}"
            )
        amount = amounts.get(side_bet, Fraction(1)) if amounts is not None else Fraction(1)
        if amount <= 0:
            raise RulesError(f"the side bet {side_bet.value} must stake more than 0, not {amount}")
        scale = side_bet_scale(amounts) if amounts is not None else 1
        stakes[:, SIDE_BETS.index(side_bet)] = int(amount * scale)
    return stakes


def compile_game(
    rules: Rules,
    *,
    boxes: int = 1,
    side_bets: Sequence[SideBet] = (),
    side_bet_amounts: Mapping[SideBet, Fraction] | None = None,
    random_decisions: bool = False,
    spread: tuple[int, int] | None = None,
    indices: bool = False,
    session: int = 0,
    session_bets: int = 100,
    ramp: Sequence[tuple[int, int]] | None = None,
) -> CompiledGame:
    """Compile ``rules`` for the kernel, ``boxes`` boxes each with ``side_bets``.

    Args:
        rules: the rule set.
        boxes: boxes played, from 1 to 9; each carries one initial bet.
        side_bets: side bets placed on every box.
        side_bet_amounts: each side bet's stake in initial bets (1 when not given).
        random_decisions: play random legal decisions instead of the chart (tests).
        spread: the Hi-Lo bet spread, lowest and highest bet in initial bets; ``None``
            bets one initial bet always.
        indices: play the Illustrious 18 index plays (with ``spread``).
        ramp: the bet at each true count, as ``(true count, initial bets)`` steps
            (:func:`~croupier.simulate.counting.ramp_table`); the true count less one
            when not given.  Held within ``spread``.
        session: rounds in a session for the session histogram; 0 for none.
        session_bets: the session histogram's half width, in initial bets.

    Raises:
        RulesError: ``boxes`` is out of range, or a side bet is not offered.
    """
    if not 1 <= boxes <= 9:
        raise RulesError(f"boxes must be from 1 to 9, not {boxes}")
    unit = _unit(rules)
    p = np.zeros(kernel.P_SIZE, dtype=np.int64)
    cards = 52 * rules.decks
    p[kernel.P_DECKS] = rules.decks
    p[kernel.P_CUT] = max(1, int(cards * rules.penetration))
    p[kernel.P_SHUFFLE_EVERY_ROUND] = rules.shuffle_every_round
    p[kernel.P_HITS_SOFT_17] = rules.dealer_hits_soft_17
    p[kernel.P_HOLE] = _HOLE[rules.hole_card]
    p[kernel.P_HOLE_FIRST] = rules.hole_card_dealt_first
    p[kernel.P_DEALER_BLACKJACK_TAKES] = _TAKES[rules.dealer_blackjack_takes]
    p[kernel.P_BLACKJACK_PAYS] = int(rules.blackjack_pays * unit)
    p[kernel.P_WIN_PAYS] = int(rules.win_pays * unit)
    p[kernel.P_BLACKJACK_AT_ONCE] = rules.blackjack_paid_immediately
    p[kernel.P_DOUBLE_NINE_TO_ELEVEN] = rules.double_on is DoubleOn.NINE_TO_ELEVEN
    p[kernel.P_DOUBLE_AFTER_SPLIT] = rules.double_after_split
    p[kernel.P_DOUBLE_ON_21] = rules.double_on_21
    p[kernel.P_SPLIT_BY_RANK] = rules.split_match is SplitMatch.RANK
    p[kernel.P_MAX_HANDS] = rules.max_split_hands
    p[kernel.P_RESPLIT_ACES] = rules.resplit_aces
    p[kernel.P_HIT_SPLIT_ACES] = rules.hit_split_aces
    p[kernel.P_SURRENDER] = _SURRENDER[rules.surrender]
    p[kernel.P_DRAW_TO_12] = rules.must_draw_to_12
    p[kernel.P_UNIT] = unit
    p[kernel.P_BOXES] = boxes
    p[kernel.P_INSURANCE] = rules.insurance
    p[kernel.P_INSURANCE_PAYS] = int(rules.insurance_pays * unit)
    p[kernel.P_INSURANCE_WITH_BLACKJACK] = rules.insurance_with_blackjack
    p[kernel.P_DECISIONS] = 1 if random_decisions else 0
    if spread is not None:
        p[kernel.P_COUNT] = 1
        p[kernel.P_SPREAD_LOW], p[kernel.P_SPREAD_HIGH] = spread
        from croupier.simulate.counting import ramp_table

        table = ramp_table(ramp, spread, kernel.RAMP_LOW, kernel.RAMP_SIZE)
        p[kernel.P_RAMP : kernel.P_RAMP + kernel.RAMP_SIZE] = table
    p[kernel.P_INDICES] = indices
    p[kernel.P_SESSION] = session
    p[kernel.P_HIST_BETS] = session_bets
    shoe = np.tile(np.arange(52, dtype=np.int8), rules.decks)
    return CompiledGame(
        rules=rules,
        params=p,
        unit=unit,
        shoe=shoe,
        side_pays=_side_pays(rules, unit),
        side_stakes=side_bet_stakes(rules, boxes, side_bets, side_bet_amounts),
    )


def compile_strategy(
    strategy: BasicStrategy, index_plays: IntArray | None = None
) -> CompiledStrategy:
    """The chart as the kernel's tables, exactly as :class:`~croupier.analysis.autoplay.
    StrategyPlayer` reads it: the first decision's cell falls back to the drawn-hand
    cell, then to hit.

    >>> from croupier.presets import find_rules
    >>> from croupier.analysis.strategy import derive_strategy
    >>> tables = compile_strategy(derive_strategy(find_rules("online-8deck")))
    >>> codes = {code: play.value for play, code in PLAY_CODES.items()}
    >>> codes[int(tables.first_play[0, 16, 9])], codes[int(tables.pair_play[7, 0])]
    ('Rh', 'P')
    """
    first = np.zeros((2, 32, 10), dtype=np.int64)
    drawn = np.zeros((2, 32, 10), dtype=np.int64)
    for soft in (0, 1):
        for total in range(32):
            for up in range(10):
                key = (bool(soft), total, up)
                play = strategy.first.get(key) or strategy.drawn.get(key, Play.HIT)
                first[soft, total, up] = PLAY_CODES[play]
                drawn[soft, total, up] = strategy.drawn.get(key, Play.HIT) is Play.STAND
    pairs = np.zeros((10, 10), dtype=np.int64)
    for pair in range(10):
        for up in range(10):
            cell = strategy.pairs.get((pair, up))
            pairs[pair, up] = PLAY_CODES[cell] if cell is not None else PLAY_CODES[Play.HIT]
    if index_plays is None:
        index_plays = np.full((9, 32, 10), NO_INDEX, dtype=np.int64)
    return CompiledStrategy(first, drawn, pairs, index_plays)
