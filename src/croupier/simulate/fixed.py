"""Rounds dealt by the kernel from a card order given in full: the kernel's side of the
tests that hold it to the engine.

>>> from croupier.presets import find_rules
>>> from croupier.analysis.strategy import derive_strategy
>>> from croupier.cards import parse_cards
>>> rules = find_rules("online-8deck")
>>> played = play_order(rules, derive_strategy(rules), parse_cards("10S 7D 6H KC"), rounds=1)
>>> played.rounds[0].hands[0]   # 16 against a ten: surrendered, half the bet lost
[(Fraction(-1, 2), 'surrender')]
>>> played.rounds[0].cards
4
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from croupier.analysis.strategy import BasicStrategy
from croupier.cards import Card
from croupier.rules import Rules, SideBet
from croupier.simulate import kernel
from croupier.simulate.compile import SIDE_BETS, card_code, compile_game, compile_strategy

__all__ = ["FixedPlay", "FixedRound", "play_order"]


@dataclass(frozen=True)
class FixedRound:
    """One round the kernel dealt from the order.

    Attributes:
        void: the order ran out before the round was complete (every bet returned).
        cards: cards taken from the order by the end of the round, counted from the start.
        hands: per box, each hand's net per initial bet and its outcome, in hand order.
        side_bets: per box, each side bet's net per unit staked.
    """

    void: bool
    cards: int
    hands: list[list[tuple[Fraction, str]]]
    side_bets: list[dict[SideBet, Fraction]]


@dataclass(frozen=True)
class FixedPlay:
    """The rounds, and every decision taken: ``(legal actions, action)``, an RWS surrender
    offer as ``(("surrender-offer",), "accept" or "decline")``."""

    rounds: list[FixedRound]
    decisions: list[tuple[tuple[str, ...], str]]


def play_order(
    rules: Rules,
    strategy: BasicStrategy,
    cards: Sequence[Card],
    *,
    rounds: int,
    boxes: int = 1,
    side_bets: Sequence[SideBet] = (),
    random_decisions: bool = False,
    seed: int = 0,
) -> FixedPlay:
    """Deal ``rounds`` rounds from ``cards`` in order, never shuffling.

    Args:
        rules: the rule set.
        strategy: the chart the boxes play.
        cards: the order, first dealt first.
        rounds: how many rounds to deal.
        boxes: boxes played, each with one initial bet.
        side_bets: side bets on every box.
        random_decisions: take uniformly random legal decisions (and answer the RWS
            surrender offer at random) instead of the chart's.
        seed: seeds the random decisions.
    """
    game = compile_game(rules, boxes=boxes, side_bets=side_bets, random_decisions=random_decisions)
    tables = compile_strategy(strategy)
    shoe = np.array([card_code(card) for card in cards], dtype=np.int8)
    tally = np.zeros(kernel.TALLY_SIZE, dtype=np.int64)
    record = np.zeros((rounds, kernel.R_WIDTH), dtype=np.int64)
    log = np.zeros((rounds * boxes * 24 + 2, 2), dtype=np.int64)
    state = np.random.SeedSequence(seed).generate_state(4, dtype=np.uint64).astype(np.uint64)
    kernel.run_chunk(
        shoe,
        True,
        game.params,
        tables.first_play,
        tables.drawn_stands,
        tables.pair_play,
        tables.index_plays,
        game.side_pays,
        game.side_stakes,
        rounds,
        state,
        tally,
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        record,
        log,
        np.zeros((0, kernel.TRACE_FIELDS), dtype=np.int64),
    )
    unit = game.unit
    played: list[FixedRound] = []
    for row in record:
        hands: list[list[tuple[Fraction, str]]] = []
        sides: list[dict[SideBet, Fraction]] = []
        for box in range(boxes):
            count = int(row[kernel.R_COUNTS + box])
            hands.append(
                [
                    (
                        Fraction(int(row[kernel.R_NETS + box * 4 + hand]), unit),
                        kernel.OUTCOME_NAMES[int(row[kernel.R_OUTCOMES + box * 4 + hand])],
                    )
                    for hand in range(count)
                ]
            )
            sides.append(
                {
                    side_bet: Fraction(int(row[kernel.R_SIDE + box * 5 + key]), unit)
                    for key, side_bet in enumerate(SIDE_BETS)
                    if game.side_stakes[box, key]
                }
            )
        void = row[kernel.R_STATUS] == 0
        played.append(FixedRound(void, int(row[kernel.R_POSITION]), [] if void else hands, sides))
    decisions: list[tuple[tuple[str, ...], str]] = []
    for mask, action in log[1 : int(log[0, 0]) + 1]:
        if mask == kernel.OFFER_MASK:
            decisions.append((("surrender-offer",), "accept" if action else "decline"))
            continue
        legal = tuple(name for bit, name in enumerate(kernel.ACTION_NAMES) if mask & (1 << bit))
        decisions.append((legal, kernel.ACTION_NAMES[int(action)]))
    return FixedPlay(played, decisions)
