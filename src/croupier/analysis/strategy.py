"""The basic strategy: a total-dependent chart derived for a rule set, and its exact value.

The chart is derived from the composition-dependent analysis: for each dealer up
card and each hand total, the play whose expected value, summed over the hands of
that total weighted by their probability, is highest.  Two-card hands choose among
every play the rules allow (the chart's first decision); hands of three cards or
more choose between hitting and standing.  Pairs are split where splitting beats
the hand's other plays.  The chart's own expected value is then computed exactly by
playing it through the same analysis.

>>> from croupier.presets import find_rules
>>> strategy = derive_strategy(find_rules("online-8deck"))
>>> strategy.cell("hard", 16, 9), strategy.cell("hard", 11, 5), strategy.cell("pair", 8, 0)
('Rh', 'Dh', 'P')
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from croupier.analysis.game import MainGameResult, analyze, up_card_analysis
from croupier.analysis.hands import hand_graph
from croupier.analysis.shoe import ACE, RANKS, full_shoe
from croupier.rules import Rules

FloatArray = npt.NDArray[np.float64]

__all__ = ["UP_CARDS", "BasicStrategy", "Play", "derive_strategy"]

#: The dealer's up cards in the order a chart shows them: 2 to 10, then the Ace.
UP_CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, ACE)


class Play(StrEnum):
    """A chart cell: the play, and what to do when it is not allowed."""

    HIT = "H"
    STAND = "S"
    DOUBLE_OR_HIT = "Dh"
    DOUBLE_OR_STAND = "Ds"
    SPLIT = "P"
    SURRENDER_OR_HIT = "Rh"
    SURRENDER_OR_STAND = "Rs"
    SURRENDER_OR_SPLIT = "Rp"

    def resolve(self, options: Mapping[str, float]) -> str:
        """The option this cell plays among those offered."""
        for option in _WANTED[self]:
            if option in options:
                return option
        return next(iter(options))


#: What each cell plays, in order of preference, among the options offered.
_WANTED = {
    Play.HIT: ("hit",),
    Play.STAND: ("stand", "hit"),
    Play.DOUBLE_OR_HIT: ("double", "hit"),
    Play.DOUBLE_OR_STAND: ("double", "stand", "hit"),
    Play.SPLIT: ("split", "hit"),
    Play.SURRENDER_OR_HIT: ("surrender", "hit"),
    Play.SURRENDER_OR_STAND: ("surrender", "stand", "hit"),
    Play.SURRENDER_OR_SPLIT: ("surrender", "split", "hit"),
}


@dataclass(frozen=True)
class BasicStrategy:
    """A total-dependent strategy chart for one rule set.

    Attributes:
        first: ``(soft, total, up)`` to the play of a two-card hand.
        drawn: ``(soft, total, up)`` to hit or stand, for a hand of three cards or more.
        pairs: ``(pair, up)`` to the play of a pair (``P`` to split).
    """

    rules: Rules
    first: Mapping[tuple[bool, int, int], Play]
    drawn: Mapping[tuple[bool, int, int], Play]
    pairs: Mapping[tuple[int, int], Play]

    def choose(
        self, up: int, total: int, soft: bool, pair: int, options: Mapping[str, float]
    ) -> str:
        """The option the chart plays for a two-card hand (see :class:`~.game.Chart`)."""
        if pair >= 0 and "split" in options:
            play = self.pairs[(pair, up)]
            if play in (Play.SPLIT, Play.SURRENDER_OR_SPLIT):
                return play.resolve(options)
        play = self.first.get((soft, total, up)) or self.drawn.get((soft, total, up), Play.HIT)
        return play.resolve(options)

    def splits(self, pair: int, up: int) -> bool:
        """Whether the chart splits (and resplits) the pair against the up card."""
        return self.pairs[(pair, up)] in (Play.SPLIT, Play.SURRENDER_OR_SPLIT)

    def policy(self, up: int) -> npt.NDArray[np.int64]:
        """Hit (1) or stand (0) for every hand of the hand graph past its first decision."""
        graph = hand_graph()
        # Indexed by (soft, total); a total the chart does not name is hit.
        stands = np.zeros((2, 32), dtype=np.bool_)
        for (soft, total, chart_up), play in self.drawn.items():
            if chart_up == up and play is Play.STAND:
                stands[int(soft), total] = True
        policy: npt.NDArray[np.int64] = np.where(
            stands[graph.soft.astype(np.int64), graph.total], 0, 1
        ).astype(np.int64)
        return policy

    def cell(self, table: str, row: int, up: int) -> str:
        """A chart cell: ``table`` is hard, soft or pair; ``row`` the total or the pair's
        points (Ace 1); ``up`` the up card's point index (Ace 0)."""
        if table == "pair":
            return self.pairs[(row - 1, up)].value
        key = (table == "soft", row, up)
        return (self.first.get(key) or self.drawn[key]).value

    def evaluate(self, *, outcomes: bool = True) -> MainGameResult:
        """The exact expected value of playing this chart (with ``outcomes`` false, the
        value alone: no win, stand-off and loss chances, no standard deviation)."""
        return analyze(self.rules, self, outcomes=outcomes)


@functools.lru_cache(maxsize=64)
def _hand_weights(decks: int, up: int) -> FloatArray:
    """:func:`_multiset_weights` of the hand graph's hands from a full shoe less the up
    card (cached: every rule set with these decks weighs its hands alike)."""
    shoe = full_shoe(decks)
    shoe[up] -= 1
    weights = _multiset_weights(hand_graph().counts, shoe)
    weights.flags.writeable = False
    return weights


def _multiset_weights(counts: npt.NDArray[np.int64], shoe: npt.NDArray[np.int64]) -> FloatArray:
    """For each hand, the chance that it is exactly these cards, in any order, from ``shoe``."""
    remaining = int(shoe.sum())
    log_factorial = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, remaining + 1)))))
    sizes = counts.sum(axis=1)
    log_weight = log_factorial[sizes] - (
        log_factorial[remaining] - log_factorial[remaining - sizes]
    )
    for rank in range(RANKS):
        have = counts[:, rank]
        left = shoe[rank] - have
        safe = np.maximum(left, 0)
        log_weight = log_weight + np.where(
            left >= 0,
            log_factorial[shoe[rank]] - log_factorial[safe] - log_factorial[have],
            -np.inf,
        )
    weights: FloatArray = np.exp(log_weight)
    return weights


def _better(first: float, second: float) -> bool:
    return first > second + 1e-12


@functools.cache
def derive_strategy(rules: Rules) -> BasicStrategy:
    """Derive the basic strategy chart for ``rules`` (cached)."""
    return joined(rules, [chart_cells(rules, up) for up in range(RANKS)])


def joined(rules: Rules, columns: list[BasicStrategy]) -> BasicStrategy:
    """One chart of the columns' cells, in their order (as :func:`chart_cells` makes
    them, one an up card)."""
    first: dict[tuple[bool, int, int], Play] = {}
    drawn: dict[tuple[bool, int, int], Play] = {}
    pairs: dict[tuple[int, int], Play] = {}
    for column in columns:
        first.update(column.first)
        drawn.update(column.drawn)
        pairs.update(column.pairs)
    return BasicStrategy(rules, first, drawn, pairs)


def chart_cells(rules: Rules, up: int) -> BasicStrategy:
    """The chart's cells against one up card (a chart of that column alone), derived
    from the composition-dependent analysis against it."""
    graph = hand_graph()
    first: dict[tuple[bool, int, int], Play] = {}
    drawn: dict[tuple[bool, int, int], Play] = {}
    pairs: dict[tuple[int, int], Play] = {}
    analysis = up_card_analysis(rules, up)
    decisions = analysis.decisions(outcomes=False)
    # Hit or stand past the first decision, by total, weighted by how often a hand is met.
    weights = _hand_weights(rules.decks, up)
    differences = analysis.main.stand - analysis.main.hit
    # Summed by (soft, total) in node order: 32 * soft + total.
    chosen = (graph.cards >= 3) & analysis.main.mask
    keys = 32 * graph.soft[chosen].astype(np.int64) + graph.total[chosen]
    sums = np.bincount(keys, weights=(weights * differences)[chosen], minlength=64)
    met = np.bincount(keys, minlength=64) > 0
    for soft in (False, True):
        for total in range(4, 22):
            index = 32 * int(soft) + total
            stands = bool(met[index]) and float(sums[index]) >= 0
            if total == 21 or (stands and total >= 12):
                drawn[(soft, total, up)] = Play.STAND
            else:
                drawn[(soft, total, up)] = Play.HIT
    # The first decision, by total, over the two-card hands that are not pairs.
    groups: dict[tuple[bool, int], dict[str, float]] = {}
    pair_groups: dict[tuple[bool, int], dict[str, float]] = {}
    for decision in decisions:
        if decision.action == "blackjack":
            continue
        one, two = decision.cards
        node = graph.index_of((one, two))
        key = (bool(graph.soft[node]), int(graph.total[node]))
        target = pair_groups if one == two else groups
        sums_of = target.setdefault(key, {})
        for option, value in decision.options.items():
            if option != "split":
                sums_of[option] = sums_of.get(option, 0.0) + decision.probability * value
    for key in set(groups) | set(pair_groups):
        options = groups.get(key) or pair_groups[key]
        first[(key[0], key[1], up)] = _play_of(options)
    for decision in decisions:
        one, two = decision.cards
        if one != two:
            continue
        options = decision.options
        if "split" not in options:
            node = graph.index_of((one, two))
            pairs[(one, up)] = first[(bool(graph.soft[node]), int(graph.total[node]), up)]
            continue
        others = {name: value for name, value in options.items() if name != "split"}
        best_other = max(others, key=lambda name: others[name])
        if _better(options["split"], others[best_other]):
            pairs[(one, up)] = Play.SPLIT
        elif best_other == "surrender" and _better(
            options["split"], max(others.get("hit", -9.0), others.get("stand", -9.0))
        ):
            pairs[(one, up)] = Play.SURRENDER_OR_SPLIT
        else:
            node = graph.index_of((one, two))
            pairs[(one, up)] = first[(bool(graph.soft[node]), int(graph.total[node]), up)]
    return BasicStrategy(rules, first, drawn, pairs)


def _play_of(options: Mapping[str, float]) -> Play:
    """The chart cell for summed option values: the best, with its fallback."""
    best = max(options, key=lambda name: options[name])
    hit = options.get("hit", -9.0)
    stand = options.get("stand", -9.0)
    fallback_stands = "stand" in options and stand >= hit
    if best == "double":
        return Play.DOUBLE_OR_STAND if fallback_stands else Play.DOUBLE_OR_HIT
    if best == "surrender":
        return Play.SURRENDER_OR_STAND if fallback_stands else Play.SURRENDER_OR_HIT
    if best == "stand":
        return Play.STAND
    return Play.HIT
