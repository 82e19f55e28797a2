"""The main game's exact expected value for a rule set, by combinatorial analysis.

The shoe is finite and every card dealt is removed: the player's cards, the dealer's
up card and every card the dealer draws.  Each hand is played best for its exact
cards against the up card (the composition-dependent strategy of a combinatorial
analyzer, for a full shoe).

Split hands follow the usual convention of such analyzers: a split hand's value
counts the pair cards removed so far (the other split cards) but not the other
cards drawn to the other split hands.  A dealer blackjack found after the players
have acted takes money by the box, as the rules say, not hand by hand:

- original-bet (Casino-To-Go "Blackjack": "the Player can only lose his original
  wager; split and double down bets are returned"): the box loses exactly one
  initial bet however many hands it holds, so a split is valued as in a peek game
  (the hands joint with no dealer blackjack) less the blackjack's chance;
- busted-and-initial-bet (RWS v4 3.13 and 3.14, RWS v5 3.21.3 and 3.22.2: the
  dealer collects every hand that busts, and "for wagers on hands that have not
  bust ... only an amount equal to the Player's initial bet"): every busted hand
  loses its wager, counted hand by hand, and the box loses one initial bet more
  unless every hand busted; the chance of that is taken with the hands' draws
  independent given the dealer's blackjack, as the convention takes them.

>>> from croupier.presets import find_rules
>>> result = analyze(find_rules("online-8deck"))
>>> -0.006 < result.ev < -0.002
True
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from croupier.analysis.columns import DEALER_OUTCOMES, DOUBLE, HIT, RESULTS, STAND
from croupier.analysis.dealer import dealer_table
from croupier.analysis.hands import hand_graph
from croupier.analysis.native import kernels
from croupier.analysis.shoe import ACE, RANKS, TEN, Counts, full_shoe
from croupier.rules import DealerBlackjackTakes, DoubleOn, HoleCard, Rules, SplitMatch, Surrender

__all__ = ["Chart", "Decision", "MainGameResult", "UpCardResult", "analyze", "up_card_analysis"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Decision:
    """The best play of one two-card hand against one up card, with each option's value."""

    up: int
    cards: tuple[int, int]
    probability: float
    action: str
    ev: float
    options: dict[str, float]
    #: The chance of a win, a stand-off, a loss, and the expected square of the result.
    #: A split counts as one of its hands (see ``round_outcomes``).
    outcomes: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    #: For a split, the chance that the round's total is a win, a stand-off, a loss.
    round_outcomes: tuple[float, float, float] | None = None

    @property
    def per_round(self) -> tuple[float, float, float]:
        """The chance of a win, a stand-off and a loss by the round's total result."""
        if self.round_outcomes is not None:
            return self.round_outcomes
        return self.outcomes[0], self.outcomes[1], self.outcomes[2]


@dataclass(frozen=True)
class UpCardResult:
    """The expected value of a round given the dealer's up card."""

    up: int
    probability: float
    ev: float
    decisions: tuple[Decision, ...] = field(repr=False)

    def outcome(self, index: int) -> float:
        """A decision statistic (0 win, 1 stand-off, 2 loss, 3 mean square) over the hands."""
        return sum(d.probability * d.outcomes[index] for d in self.decisions)

    def round_outcome(self, index: int) -> float:
        """The chance of a round won (0), stood off (1), lost (2) by its total result."""
        return sum(d.probability * d.per_round[index] for d in self.decisions)


@dataclass(frozen=True)
class MainGameResult:
    """The main game's expected value per unit initial bet, and its parts."""

    rules: Rules
    ev: float
    per_up: tuple[UpCardResult, ...] = field(repr=False)

    @property
    def rtp(self) -> float:
        """Return to player: one plus the expected value."""
        return 1.0 + self.ev

    def _total(self, index: int) -> float:
        return sum(up.probability * up.outcome(index) for up in self.per_up)

    @property
    def win(self) -> float:
        """The chance that a round's result is a win.

        A split round counts as one of its hands (the chance that a hand of the split
        wins), not by the sign of the round's total; see :data:`SPLIT_CONVENTION` of
        :mod:`croupier.analysis.report`.
        """
        return self._total(0)

    @property
    def push(self) -> float:
        """The chance of a stand-off (a split round as one of its hands, as :attr:`win`)."""
        return self._total(1)

    @property
    def loss(self) -> float:
        """The chance of a loss (a surrender counts as one; a split round as one of its
        hands, as :attr:`win`)."""
        return self._total(2)

    @property
    def round_win(self) -> float:
        """The chance that a round's total result is a win (a split round's hands summed).

        The hands of a split are taken as independent given the dealer's final outcome,
        as the standard deviation takes them.

        >>> from croupier.presets import find_rules
        >>> result = analyze(find_rules("online-8deck"))
        >>> round(result.round_win + result.round_push + result.round_loss, 12)
        1.0
        """
        return float(sum(up.probability * up.round_outcome(0) for up in self.per_up))

    @property
    def round_push(self) -> float:
        """The chance that a round's total result is a stand-off."""
        return float(sum(up.probability * up.round_outcome(1) for up in self.per_up))

    @property
    def round_loss(self) -> float:
        """The chance that a round's total result is a loss."""
        return float(sum(up.probability * up.round_outcome(2) for up in self.per_up))

    @property
    def blackjack(self) -> float:
        """The chance of a player blackjack."""
        return sum(
            up.probability * d.probability
            for up in self.per_up
            for d in up.decisions
            if d.action == "blackjack"
        )

    @property
    def sd(self) -> float:
        """The standard deviation of a round's result per unit initial bet."""
        return float(max(self._total(3) - self.ev**2, 0.0) ** 0.5)


@dataclass
class _Valuation:
    """One pass of the kernel: the hand values for one base shoe."""

    stand: FloatArray
    stand_doubled: FloatArray
    hit: FloatArray
    best: FloatArray
    double: FloatArray
    blackjack: FloatArray
    mask: npt.NDArray[np.bool_]
    # Per hand, the play it was valued by (-1: the best of standing and hitting).
    policy: npt.NDArray[np.int64]
    # The pair cards counted out beside the hand's own (0: the main game).
    out: int


def _blackjack_payoffs(rules: Rules, *, split: bool) -> FloatArray:
    """What a dealer blackjack found after the players acted takes: standing, standing
    doubled, busted, busted doubled (zero everywhere where the dealer peeks)."""
    if rules.hole_card is HoleCard.PEEK:
        return np.zeros(4)
    takes = rules.dealer_blackjack_takes
    if takes is DealerBlackjackTakes.ALL:
        return np.array([-1.0, -2.0, -1.0, -2.0])
    if not split:
        if takes is DealerBlackjackTakes.ORIGINAL_BET:
            return np.array([-1.0, -1.0, -1.0, -1.0])
        return np.array([-1.0, -1.0, -1.0, -2.0])
    # A split box's initial bet is charged once, by :meth:`_UpCardAnalysis.split_value`.
    if takes is DealerBlackjackTakes.ORIGINAL_BET:
        return np.zeros(4)
    return np.array([0.0, 0.0, -1.0, -2.0])


def _charged_by_box(rules: Rules) -> bool:
    """Whether a dealer blackjack after a split takes one initial bet for the whole box."""
    return (
        rules.hole_card is not HoleCard.PEEK
        and rules.dealer_blackjack_takes is not DealerBlackjackTakes.ALL
    )


_Batch = tuple[FloatArray, npt.NDArray[np.bool_], dict[tuple[int, int], npt.NDArray[np.int64]]]


class _BatchCache:
    """The dealer batches computed, the most recent 64: a batch for a plan also serves
    any plan it covers (split to 4 hands serves split to 2 or 3 of the same shoe).
    Safe across threads (the server computes charts in worker threads)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[int, bool, int, frozenset[tuple[int, int]]], _Batch]
        self._entries = OrderedDict()

    def __call__(
        self, decks: int, hits_soft_17: bool, up: int, plan: tuple[tuple[int, int], ...]
    ) -> _Batch:
        wanted = frozenset(plan)
        with self._lock:
            for key in reversed(self._entries):
                if key[:3] == (decks, hits_soft_17, up) and wanted <= key[3]:
                    self._entries.move_to_end(key)
                    return self._entries[key]
        batch = _compute_dealer_batch(decks, hits_soft_17, up, plan)
        with self._lock:
            self._entries[(decks, hits_soft_17, up, wanted)] = batch
            if len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return batch

    def cache_clear(self) -> None:
        """Forget every batch."""
        with self._lock:
            self._entries.clear()


def _compute_dealer_batch(
    decks: int, hits_soft_17: bool, up: int, plan: tuple[tuple[int, int], ...]
) -> _Batch:
    """The dealer's distribution for every shoe an analysis meets against one up card.

    Returns the distributions, whether each row's shoe can exist, and per valuation
    (``(0, 0)`` for the main one, ``(pair, others out)`` for split hands) each hand's row.
    """
    removed, by_valuation = _batch_rows(plan)
    base = full_shoe(decks)
    base[up] -= 1
    shoes = base[None, :] - removed
    feasible: npt.NDArray[np.bool_] = np.asarray((shoes >= 0).all(axis=1))
    dealer = np.zeros((removed.shape[0], 7))
    table = dealer_table(up, hits_soft_17)
    if feasible.all():
        table.fill(shoes, dealer)
    else:
        # A shoe that cannot exist (more of a rank out than the decks hold: with few
        # decks, a third of the hands) is never valued: its row stays empty.
        chosen = np.flatnonzero(feasible)
        part = np.zeros((chosen.shape[0], 7))
        table.fill(shoes[chosen], part)
        dealer[chosen] = part
    dealer.flags.writeable = False
    return dealer, feasible, by_valuation


#: The dealer batches (shared by every analysis, cached).
_dealer_batch = _BatchCache(64)


@functools.lru_cache(maxsize=16)
def _batch_rows(
    plan: tuple[tuple[int, int], ...],
) -> tuple[npt.NDArray[np.int64], dict[tuple[int, int], npt.NDArray[np.int64]]]:
    """The cards out of the shoe for every row of a batch, and each valuation's row per
    hand (see :func:`_compute_dealer_batch`): the same for every up card and deck count."""
    graph = hand_graph()
    node_keys = _node_keys()
    groups = [node_keys]
    for pair, out in plan:
        groups.append(node_keys[_descendants(graph.index_of((pair,)))] + (out << (6 * pair)))
    keys, rows = np.unique(np.concatenate(groups), return_inverse=True)
    removed: npt.NDArray[np.int64] = (keys[:, None] >> (6 * np.arange(RANKS))) & 63
    removed.flags.writeable = False
    by_valuation: dict[tuple[int, int], npt.NDArray[np.int64]] = {}
    size = graph.size
    by_valuation[(0, 0)] = rows[:size]
    offset = size
    for pair, out in plan:
        chosen = _descendants(graph.index_of((pair,)))
        row_of = np.zeros(size, dtype=np.int64)
        count = int(chosen.sum())
        row_of[chosen] = rows[offset : offset + count]
        offset += count
        by_valuation[(pair, out)] = row_of
    for row_of in by_valuation.values():
        row_of.flags.writeable = False
    return removed, by_valuation


@functools.cache
def _node_keys() -> npt.NDArray[np.int64]:
    """Each hand's cards packed six bits a rank, as dealer rows are keyed."""
    counts = hand_graph().counts
    keys: npt.NDArray[np.int64] = (counts << (6 * np.arange(RANKS))).sum(axis=1).astype(np.int64)
    keys.flags.writeable = False
    return keys


@functools.cache
def _descendants(root: int) -> npt.NDArray[np.bool_]:
    """The hands grown from hand ``root``: every hand holding its cards (the graph holds
    every hand of hard total 21 or less, so each is reached from any of its parts)."""
    counts = hand_graph().counts
    mask: npt.NDArray[np.bool_] = (counts >= counts[root]).all(axis=1)
    mask.flags.writeable = False
    return mask


class _SharedValuations:
    """Valuations kept for every analysis of a rule set with the decks, dealer's soft 17
    and drawing to 12 of ``rules``.

    A valuation depends on those, the up card, the pair cards out, the policy and what
    a dealer blackjack found after the players acted takes from a hand: rule sets that
    differ in their split, double, surrender, payout, hole card or dealer blackjack
    rules value many hands alike.
    """

    def __init__(self, rules: Rules) -> None:
        self._rules = _valuing(rules)
        self._valuations: dict[tuple[int, int, int, bytes, bytes | None], _Valuation] = {}
        # The composition-dependent analyses made, by rule set and up card: a chart's
        # derivation reads the very analysis the composition-dependent return made.
        self.analyses: dict[tuple[Rules, int], _UpCardAnalysis] = {}

    def get(self, analysis: _UpCardAnalysis, pair: int, out: int) -> _Valuation | None:
        """The valuation already made for ``analysis``, if any."""
        key = self._key(analysis, pair, out)
        return None if key is None else self._valuations.get(key)

    def keep(self, analysis: _UpCardAnalysis, pair: int, out: int, made: _Valuation) -> None:
        """Keep a valuation made for ``analysis`` (where it values hands as the rules do)."""
        key = self._key(analysis, pair, out)
        if key is not None:
            self._valuations[key] = made

    def _key(
        self, analysis: _UpCardAnalysis, pair: int, out: int
    ) -> tuple[int, int, int, bytes, bytes | None] | None:
        if _valuing(analysis.rules) != self._rules:
            return None
        taken = _blackjack_payoffs(analysis.rules, split=out > 0).tobytes()
        policy = None if analysis.chart is None else analysis.policy.tobytes()
        return (analysis.up, pair, out, taken, policy)


def _valuing(rules: Rules) -> tuple[int, bool, bool]:
    """The rules beside the payoffs that a hand's valuation depends on."""
    return (rules.decks, rules.dealer_hits_soft_17, rules.must_draw_to_12)


_shared: contextvars.ContextVar[_SharedValuations | None] = contextvars.ContextVar(
    "croupier_shared_valuations", default=None
)


@contextlib.contextmanager
def sharing_valuations(rules: Rules) -> Iterator[None]:
    """Within the block, analyses of rule sets that value hands as ``rules`` does share
    their valuations, and :func:`up_card_analysis` gives the same analysis again (a
    report's two strategies and its stated-RTP search's rule changes; all is let go at
    the end of the block)."""
    token = _shared.set(_SharedValuations(rules))
    try:
        yield
    finally:
        _shared.reset(token)


#: The plays of a split hand of two cards, by their code in :meth:`_UpCardAnalysis._post_split`.
_POST_SPLIT_ACTIONS = ("stand", "hit", "double")
_POST_SPLIT_CODES = {action: code for code, action in enumerate(_POST_SPLIT_ACTIONS)}


class _UpCardAnalysis:
    """Everything valued against one up card."""

    def __init__(
        self,
        rules: Rules,
        up: int,
        policy: npt.NDArray[np.int64] | None = None,
        chart: Chart | None = None,
    ) -> None:
        self.rules = rules
        self.chart = chart
        self.up = up
        self.graph = hand_graph()
        self.table = dealer_table(up, rules.dealer_hits_soft_17)
        self.base: Counts = full_shoe(rules.decks)
        self.base[up] -= 1
        self.blackjack_rank = TEN if up == ACE else ACE if up == TEN else -1
        self.policy = policy if policy is not None else np.full(self.graph.size, -1, dtype=np.int64)
        self._prepare_dealer()
        self.main = self._value(0, 0)
        self._split_valuations: dict[tuple[int, int], _Valuation] = {}
        self._outcome_tables: dict[tuple[int, int], FloatArray] = {}
        self._conditional_tables: dict[tuple[int, int], FloatArray] = {}
        # Whether a split hand dealt a pair card resplits: (pair, hands, waiting).
        self._resplits: dict[tuple[int, int, int], bool] = {}
        self._split_values: dict[int, float] = {}
        self._by_box = _charged_by_box(rules)
        # The play of the two-card hands of a split, by (pair, out): see _post_split.
        self._post_splits: dict[tuple[int, int], tuple[list[str], list[float]]] = {}
        self._doubles = self._doubling()

    def _split_plan(self) -> list[tuple[int, int]]:
        """The (pair, other pair cards out) a split analysis will value."""
        rules = self.rules
        if rules.max_split_hands < 2:
            return []
        plan: list[tuple[int, int]] = []
        for pair in range(RANKS):
            most = rules.max_split_hands if (pair != ACE or rules.resplit_aces) else 2
            # A hand of a split to ``most`` hands is valued with up to 2 * (most - 2) pair
            # cards out beside the two split first (see :meth:`_split_value`).
            plan.extend((pair, out) for out in range(1, 2 * most - 2))
        return plan

    def _prepare_dealer(self) -> None:
        """Every dealer distribution the analysis needs, in one batch (shared, cached)."""
        self._plan = self._split_plan()
        prepared = _dealer_batch(
            self.rules.decks, self.rules.dealer_hits_soft_17, self.up, tuple(self._plan)
        )
        self.dealer, self._feasible, self._rows = prepared

    def _value(self, pair: int, out: int) -> _Valuation:
        shared = _shared.get()
        if shared is not None:
            found = shared.get(self, pair, out)
            if found is not None:
                return found
        graph = self.graph
        rows = self._rows[(pair, out)]
        mask = self._feasible[rows].copy()
        if out:
            mask &= _descendants(graph.index_of((pair,)))
        policy = self.policy
        if out >= 2 and self.chart is None:
            # The split hands are played as is best with one other pair card out (the
            # first split), whatever more are out: one post-split strategy for every
            # number of hands, whose value the resplit formula then takes exactly.
            first = self._split_valuation(pair, 1)
            policy = np.where(first.hit > first.stand, 1, 0).astype(np.int64)
        # One block for the six arrays: each row a contiguous array the kernel fills.
        stand, stand_doubled, hit, best, double, blackjack = np.zeros((6, graph.size))
        valuation = _Valuation(
            stand=stand,
            stand_doubled=stand_doubled,
            hit=hit,
            best=best,
            double=double,
            blackjack=blackjack,
            mask=mask,
            policy=policy,
            out=out,
        )
        base = self.base.copy()
        base[pair] -= out
        kernels().value_hands(
            base,
            graph.counts,
            graph.total,
            graph.child,
            valuation.mask,
            rows,
            self.dealer,
            policy,
            self.blackjack_rank,
            _blackjack_payoffs(self.rules, split=out > 0),
            self.rules.must_draw_to_12,
            valuation.stand,
            valuation.stand_doubled,
            valuation.hit,
            valuation.best,
            valuation.double,
            valuation.blackjack,
        )
        if shared is not None:
            shared.keep(self, pair, out, valuation)
        return valuation

    def _split_valuation(self, pair: int, others_out: int) -> _Valuation:
        key = (pair, others_out)
        if key not in self._split_valuations:
            self._split_valuations[key] = self._value(pair, others_out)
        return self._split_valuations[key]

    # -- the options of a two-card hand ----------------------------------------------------------

    def _doubling(self) -> npt.NDArray[np.bool_]:
        """Per hand of two cards, whether the rules let it double (a split hand's also
        needs double after split, and not a split of Aces)."""
        rules = self.rules
        graph = self.graph
        allowed = np.ones(graph.size, dtype=np.bool_)
        if rules.double_on is DoubleOn.NINE_TO_ELEVEN:
            allowed &= ~graph.soft.astype(np.bool_) & (graph.total >= 9) & (graph.total <= 11)
        if not rules.double_on_21:
            allowed &= graph.total != 21
        return allowed

    def _post_split(self, pair: int, out: int) -> tuple[list[str], list[float]]:
        """The play of each two-card hand of a split of ``pair`` with ``out`` pair cards
        out, best (or by the chart), and its value: by the hand's second card (cached)."""
        key = (pair, out)
        found = self._post_splits.get(key)
        if found is not None:
            return found
        valuation = self._split_valuation(pair, out)
        graph = self.graph
        rules = self.rules
        nodes = graph.child[graph.index_of((pair,))]
        stand = valuation.stand[nodes]
        hit = valuation.hit[nodes]
        double = valuation.double[nodes]
        totals = graph.total[nodes]
        may_stand = ~(rules.must_draw_to_12 & (totals < 12))
        may_double = self._doubles[nodes] & (rules.double_after_split and pair != ACE)
        fixed = totals == 21
        if pair == ACE and not rules.hit_split_aces:
            fixed[:] = True
        if self.chart is None:
            # Chosen as with one other pair card out (see :meth:`_value`); the first of
            # hit, stand and double that is best, as ``max`` over them picks.
            deciding = valuation if out < 2 else self._split_valuation(pair, 1)
            d_hit = deciding.hit[nodes]
            d_stand = deciding.stand[nodes]
            d_double = deciding.double[nodes]
            stands = may_stand & (d_stand > d_hit)
            doubles = may_double & (d_double > np.where(stands, d_stand, d_hit))
            codes = np.where(fixed | (stands & ~doubles), 0, np.where(doubles, 2, 1))
        else:
            codes = np.zeros(RANKS, dtype=np.int64)
            soft = graph.soft[nodes]
            for card in range(RANKS):
                if fixed[card]:
                    continue
                options = {"hit": float(hit[card])}
                if may_stand[card]:
                    options["stand"] = float(stand[card])
                if may_double[card]:
                    options["double"] = float(double[card])
                total = int(totals[card])
                action = self.chart.choose(self.up, total, bool(soft[card]), -1, options)
                codes[card] = _POST_SPLIT_CODES[action]
        values = np.choose(codes, (stand, hit, double))
        played = ([_POST_SPLIT_ACTIONS[code] for code in codes.tolist()], values.tolist())
        self._post_splits[key] = played
        return played

    def split_value(self, pair: int) -> float:
        """The expected value of splitting a pair, resplitting as allowed and as is best.

        Joint with no dealer blackjack where the dealer peeks; where he does not, a
        dealer blackjack's take from the box is counted in (see the module docstring).
        """
        if pair not in self._split_values:
            value = self._split_value(pair)
            if self._by_box and self.blackjack_rank >= 0:
                value += self._box_blackjack_value(pair)
            self._split_values[pair] = value
        return self._split_values[pair]

    def _box_blackjack_value(self, pair: int) -> float:
        """What a dealer blackjack takes from a split box beside its busted hands' wagers:
        one initial bet, unless (RWS rules) every hand busted."""
        chance = float(self.main.blackjack[self.graph.index_of((pair, pair))])
        if self.rules.dealer_blackjack_takes is DealerBlackjackTakes.ORIGINAL_BET:
            return -chance
        return -chance + chance * self._all_bust_given_blackjack(pair)

    def _all_bust_given_blackjack(self, pair: int) -> float:
        """The chance that every hand of a split busts, given a dealer blackjack.

        The hands' draws are taken as independent given the dealer's blackjack and the
        pair cards out, as :meth:`_split_value` takes them; resplits as it chose.
        """
        rules = self.rules
        most = rules.max_split_hands
        may_resplit = pair != ACE or rules.resplit_aces
        root = self.graph.index_of((pair,))
        hole = self.blackjack_rank

        @functools.cache
        def given_blackjack(hands: int) -> FloatArray:
            """Per two-card split hand, its bust chance given a dealer blackjack."""
            valuation = self._split_valuation(pair, hands - 1)
            _, hit, double = self._busts_with_blackjack(pair, hands - 1)
            actions, _ = self._post_split(pair, hands - 1)
            chances = np.zeros(RANKS)
            for card in range(RANKS):
                node = int(self.graph.child[root, card])
                blackjack = float(valuation.blackjack[node])
                if blackjack <= 0.0:
                    continue
                action = actions[card]
                joint = {"hit": hit[node], "double": double[node]}.get(action, 0.0)
                chances[card] = float(joint) / blackjack
            return chances

        @functools.cache
        def all_bust(hands: int, waiting: int) -> float:
            if waiting == 0:
                return 1.0
            shoe = self.base.copy()
            shoe[pair] -= hands
            shoe[hole] -= 1
            if shoe[pair] < 0 or shoe[hole] < 0:
                return 0.0
            remaining = int(shoe.sum())
            busts = given_blackjack(hands)
            total = 0.0
            for card in range(RANKS):
                if shoe[card] <= 0:
                    continue
                probability = shoe[card] / remaining
                if (
                    card == pair
                    and may_resplit
                    and hands < most
                    and self._resplits.get((pair, hands, waiting), False)
                ):
                    total += probability * all_bust(hands + 1, waiting + 1)
                else:
                    total += probability * float(busts[card]) * all_bust(hands, waiting - 1)
            return total

        return all_bust(2, 2)

    def _busts_with_blackjack(
        self, pair: int, out: int
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """:func:`busts_with_blackjack` for a split valuation, as it is played."""
        valuation = self._split_valuation(pair, out)
        graph = self.graph
        played = np.zeros(graph.size)
        hit = np.zeros(graph.size)
        double = np.zeros(graph.size)
        base = self.base.copy()
        base[pair] -= out
        kernels().busts_with_blackjack(
            base,
            graph.counts,
            graph.total,
            graph.child,
            valuation.mask,
            self._stands(valuation),
            self.blackjack_rank,
            played,
            hit,
            double,
        )
        return played, hit, double

    def _resplit_most(self, pair: int) -> int:
        """The most hands a split of ``pair`` is played to: the rules' limit where the
        pair may be resplit and resplitting is the play, else two."""
        rules = self.rules
        if pair == ACE and not rules.resplit_aces:
            return 2
        if self.chart is not None and not self.chart.splits(pair, self.up):
            return 2
        return max(2, min(rules.max_split_hands, int(self.base[pair])))

    def _split_value(self, pair: int) -> float:
        """The value of splitting ``pair``: the sum of its hands' values, exactly.

        A pair card dealt to a split hand is resplit while the rules allow (the chart's
        play where a chart is valued).  By exchangeability a hand's value depends on the
        cards it is known the other hands took only through how many second cards were
        pair cards (``a`` beyond the first two) and how many were known not to be
        (``b``).  ``x(a, b)`` is a hand's value whose second card may be anything,
        ``n(a, b)`` one whose second card is known not to be a pair card; removing
        one more unknown card changes no expectation, which gives each ``b`` from
        ``b - 1`` (E. Farmer's method for a fixed post-split strategy).  The sum runs
        over the orders in which pair and other cards reach the hands.
        """
        most = self._resplit_most(pair)
        for hands in range(2, most + 1):
            for waiting in range(1, most + 1):
                self._resplits[(pair, hands, waiting)] = hands < most
        shoe = self.base.copy()
        shoe[pair] -= 2
        if shoe[pair] < 0:
            return 0.0
        pairs = int(shoe[pair])
        cards = int(shoe.sum())
        counts = shoe.tolist()
        drawn_memo: dict[int, tuple[float, float]] = {}
        x_memo: dict[tuple[int, int], float] = {}
        n_memo: dict[tuple[int, int], float] = {}

        def drawn(a: int) -> tuple[float, float]:
            """x(a, 0), and the value of a hand dealt the pair card (played as it is)."""
            found = drawn_memo.get(a)
            if found is not None:
                return found
            values = self._post_split(pair, a + 1)[1]
            left = counts.copy()
            left[pair] -= a
            remaining = sum(left)
            value = 0.0
            for card in range(RANKS):
                if left[card] > 0:
                    value += left[card] / remaining * values[card]
            drawn_memo[a] = (value, values[pair])
            return drawn_memo[a]

        def x(a: int, b: int) -> float:
            found = x_memo.get((a, b))
            if found is not None:
                return found
            if b == 0:
                value = drawn(a)[0]
            elif (chance := (pairs - a) / (cards - a - b + 1)) <= 0.0:
                value = x(a, b - 1)
            else:
                value = (x(a, b - 1) - chance * x(a + 1, b - 1)) / (1.0 - chance)
            x_memo[(a, b)] = value
            return value

        def n(a: int, b: int) -> float:
            found = n_memo.get((a, b))
            if found is not None:
                return found
            chance = (pairs - a) / (cards - a - b)
            if b == 0:
                if chance <= 0.0:
                    value = drawn(a)[0]
                else:
                    value = (drawn(a)[0] - chance * drawn(a)[1]) / (1.0 - chance)
            elif chance <= 0.0:
                value = n(a, b - 1)
            else:
                value = (n(a, b - 1) - chance * n(a + 1, b - 1)) / (1.0 - chance)
            n_memo[(a, b)] = value
            return value

        def orders(hands: int, waiting: int, completed: int, chance: float) -> float:
            """The hands' values summed over the orders of pair and other second cards:
            ``hands`` made, ``waiting`` for a second card, ``completed`` dealt another card."""
            if waiting == 0:
                return chance * completed * n(hands - 2, completed - 1)
            if hands == most:
                value = waiting * x(most - 2, completed)
                if completed:
                    value += completed * n(most - 2, completed - 1)
                return chance * value
            pair_next = (pairs - (hands - 2)) / (cards - (hands - 2) - completed)
            total = 0.0
            if pair_next > 0.0:
                total += orders(hands + 1, waiting + 1, completed, chance * pair_next)
            if pair_next < 1.0:
                total += orders(hands, waiting - 1, completed + 1, chance * (1.0 - pair_next))
            return total

        return orders(2, 2, 0, 1.0)

    def _hand_count_moments(self, pair: int) -> tuple[float, float]:
        """E[N] and E[N(N - 1)] for the number N of hands a split of ``pair`` ends with,
        resplitting as :meth:`split_value` chose."""
        self.split_value(pair)

        @functools.cache
        def moments(hands: int, waiting: int) -> tuple[float, float]:
            if waiting == 0:
                return float(hands), float(hands * (hands - 1))
            shoe = self.base.copy()
            shoe[pair] -= hands
            chance = shoe[pair] / int(shoe.sum()) if shoe[pair] > 0 else 0.0
            kept = moments(hands, waiting - 1)
            if not self._resplits.get((pair, hands, waiting), False):
                return kept
            resplit = moments(hands + 1, waiting + 1)
            return (
                chance * resplit[0] + (1 - chance) * kept[0],
                chance * resplit[1] + (1 - chance) * kept[1],
            )

        return moments(2, 2)

    def decisions(self, *, outcomes: bool = True) -> list[Decision]:
        """The best play of every two-card hand, with its probability given the up card.

        With ``outcomes`` false the win, stand-off and loss chances and the mean square
        are not computed (left at zero): a chart's derivation needs only the values.
        """
        rules = self.rules
        graph = self.graph
        main = self.main
        base = self.base
        remaining = int(base.sum())
        out: list[Decision] = []
        for first in range(RANKS):
            for second in range(first, RANKS):
                if first == second:
                    ways = base[first] * (base[first] - 1)
                else:
                    ways = 2 * base[first] * base[second]
                probability = float(ways) / (remaining * (remaining - 1))
                if probability == 0.0:
                    continue
                node = graph.index_of((first, second))
                chance = float(main.blackjack[node])
                if (first, second) == (ACE, TEN):
                    pays = float(rules.blackjack_pays)
                    ev = (1.0 - chance) * pays
                    stats = (1.0 - chance, chance, 0.0, (1.0 - chance) * pays * pays)
                    out.append(
                        Decision(self.up, (first, second), probability, "blackjack", ev, {}, stats)
                    )
                    continue
                options: dict[str, float] = {"hit": float(main.hit[node])}
                total = int(graph.total[node])
                if not (rules.must_draw_to_12 and total < 12):
                    options["stand"] = float(main.stand[node])
                if self._doubles[node]:
                    options["double"] = float(main.double[node])
                surrender = self._surrender_value(chance)
                if surrender is not None:
                    options["surrender"] = surrender
                rank_tens = first == second == TEN and rules.split_match is SplitMatch.RANK
                if first == second and rules.max_split_hands >= 2:
                    split = self.split_value(first)
                    if rank_tens:
                        # Only tens of one rank make a pair: the others play the hand's best
                        # other option.  Written as the gain over that option, so that a split
                        # worth no more than it ties it exactly rather than within an ulp.
                        best_other = max(options.values())
                        same = _same_rank_tens(rules.decks)
                        options["split"] = best_other + same * max(split - best_other, 0.0)
                    else:
                        options["split"] = float(split)
                if self.chart is None:
                    action = _best_option(options)
                else:
                    action = self.chart.choose(
                        self.up,
                        total,
                        bool(graph.soft[node]),
                        first if first == second else -1,
                        options,
                    )
                ev = float(options[action])
                if rules.hole_card is HoleCard.PEEK:
                    ev -= chance
                if not outcomes:
                    out.append(Decision(self.up, (first, second), probability, action, ev, options))
                    continue
                stats = self._outcomes_of(action, node, first, chance)
                rounds: tuple[float, float, float, float] | None = None
                if action == "split":
                    stats = self._with_box_blackjack(stats, chance)
                    rounds = self._with_box_blackjack(self._split_rounds(first), chance)
                if action == "split" and rank_tens:
                    # Tens of two ranks cannot split: they play the best other option.
                    others = {name: value for name, value in options.items() if name != "split"}
                    other = self._outcomes_of(_best_option(others), node, first, chance)
                    same = _same_rank_tens(rules.decks)
                    stats = _mix(same, stats, other)
                    rounds = _mix(same, rounds or stats, other)
                if rules.hole_card is HoleCard.PEEK:
                    stats = (stats[0], stats[1], stats[2] + chance, stats[3] + chance)
                    if rounds is not None:
                        rounds = (rounds[0], rounds[1], rounds[2] + chance, rounds[3] + chance)
                out.append(
                    Decision(
                        self.up,
                        (first, second),
                        probability,
                        action,
                        ev,
                        options,
                        stats,
                        None if rounds is None else (rounds[0], rounds[1], rounds[2]),
                    )
                )
        return out

    def _stands(self, valuation: _Valuation) -> npt.NDArray[np.bool_]:
        """Per hand, whether it stands when played on (at 21, by the chart, or as best)."""
        total = self.graph.total
        policy = valuation.policy
        stands: npt.NDArray[np.bool_] = np.where(
            total == 21,
            True,
            np.where(
                self.rules.must_draw_to_12 & (total < 12),
                False,
                np.where(
                    policy == 0,
                    True,
                    np.where(policy == 1, False, valuation.stand >= valuation.hit),
                ),
            ),
        ).astype(np.bool_)
        return stands

    def _outcome_payoffs(self, *, split: bool) -> FloatArray:
        """The dealer blackjack's take per hand for the outcome statistics: none for a
        split box charged as a whole (its blackjack share is added per round)."""
        if split and self._by_box:
            return np.zeros(4)
        return _blackjack_payoffs(self.rules, split=split)

    def _outcome_table(self, pair: int, out: int) -> FloatArray:
        """:func:`hand_outcomes` for a valuation, as it is played (cached)."""
        key = (pair, out)
        if key not in self._outcome_tables:
            valuation = self.main if out == 0 else self._split_valuation(pair, out)
            graph = self.graph
            table = np.zeros((graph.size, 20))
            base = self.base.copy()
            base[pair] -= out
            kernels().hand_outcomes(
                base,
                graph.counts,
                graph.total,
                graph.child,
                valuation.mask,
                self._rows[key],
                self.dealer,
                self._stands(valuation),
                self.blackjack_rank,
                self._outcome_payoffs(split=out > 0),
                table,
            )
            self._outcome_tables[key] = table
        return self._outcome_tables[key]

    def _conditional_table(self, pair: int, out: int) -> FloatArray:
        """:func:`conditional_means` for a split valuation, as it is played (cached)."""
        key = (pair, out)
        if key not in self._conditional_tables:
            valuation = self._split_valuation(pair, out)
            graph = self.graph
            table = np.zeros((graph.size, 5 * DEALER_OUTCOMES))
            base = self.base.copy()
            base[pair] -= out
            kernels().conditional_means(
                base,
                graph.counts,
                graph.total,
                graph.child,
                valuation.mask,
                self._stands(valuation),
                self._outcome_payoffs(split=True),
                table,
            )
            self._conditional_tables[key] = table
        return self._conditional_tables[key]

    def _with_box_blackjack(
        self, stats: tuple[float, float, float, float], chance: float
    ) -> tuple[float, float, float, float]:
        """A split's statistics with the dealer blackjack's share of a box charged as a
        whole: a loss, counted as one initial bet in the mean square."""
        if not self._by_box:
            return stats
        return (stats[0], stats[1], stats[2] + chance, stats[3] + chance)

    def _outcomes_of(
        self, action: str, node: int, pair: int, chance: float
    ) -> tuple[float, float, float, float]:
        """Win, stand-off and loss chances and the mean square of a two-card hand's play."""
        if action in ("hit", "stand", "double"):
            block = {"hit": HIT, "stand": STAND, "double": DOUBLE}[action]
            row = self._outcome_table(0, 0)[node]
            return (
                float(row[block]),
                float(row[block + 1]),
                float(row[block + 2]),
                float(row[block + 3]),
            )
        if action == "surrender":
            if self.rules.hole_card is HoleCard.PEEK:
                # Joint with no dealer blackjack; the blackjack share is added by the caller.
                return (0.0, 0.0, 1.0 - chance, 0.25 * (1.0 - chance))
            whole = self.rules.surrender is Surrender.CASINO_TO_GO
            taken = chance if whole else 0.0
            return (0.0, 0.0, 1.0, 0.25 * (1.0 - taken) + taken)
        # A split: its hands counted apart, each as a hand from the first split's shoe.
        return self._split_outcomes(pair)

    def _split_outcomes(self, pair: int) -> tuple[float, float, float, float]:
        table = self._outcome_table(pair, 1)
        valuation = self._split_valuation(pair, 1)
        shoe = self.base.copy()
        shoe[pair] -= 2
        remaining = int(shoe.sum())
        root = self.graph.index_of((pair,))
        conditional = self._conditional_table(pair, 1)
        played = self._post_split(pair, 1)[1]
        given_dealer = np.zeros(DEALER_OUTCOMES)
        win = push = loss = square = 0.0
        for card in range(RANKS):
            if shoe[card] <= 0:
                continue
            probability = shoe[card] / remaining
            node = int(self.graph.child[root, card])
            value = played[card]
            candidates = {
                STAND: float(valuation.stand[node]),
                HIT: float(valuation.hit[node]),
                DOUBLE: float(valuation.double[node]),
            }
            block = min(candidates, key=lambda b: abs(candidates[b] - value))
            row = table[node]
            win += probability * float(row[block])
            push += probability * float(row[block + 1])
            loss += probability * float(row[block + 2])
            square += probability * float(row[block + 3])
            start = (block // 4) * DEALER_OUTCOMES
            given_dealer += probability * conditional[node, start : start + DEALER_OUTCOMES]
        # With N hands, E[(X1 + ... + XN)^2] = E[N] E[X^2] + E[N(N - 1)] E[Xi Xj].  The
        # hands play against one dealer hand, so E[Xi Xj] is taken over the dealer's
        # outcome D as sum P(D) E[X | D]^2 (the hands' draws otherwise independent), each
        # hand valued as one of the first split's two.  Joint with no dealer blackjack
        # where the dealer peeks.
        dealer = self.dealer[self._rows[(pair, 1)][root]]
        chances = dealer.copy()
        if self.rules.hole_card is HoleCard.PEEK or self._by_box:
            chances[6] = 0.0
        cross = float((chances * given_dealer * given_dealer).sum())
        hands, pairs = self._hand_count_moments(pair)
        return (win, push, loss, hands * square + pairs * cross)

    def _split_rounds(self, pair: int) -> tuple[float, float, float, float]:
        """A split round's chances of a win, stand-off and loss by its total result (and
        a zero in place of the mean square), joint with no dealer blackjack where the
        dealer peeks or a blackjack takes the box as a whole.

        Given the dealer's final outcome, the hands are taken as independent, each as a
        hand of the first split (as for the standard deviation), and their number as
        the resplits chose.
        """
        actions = self._post_split(pair, 1)[0]
        graph = self.graph
        shoe = self.base.copy()
        shoe[pair] -= 2
        remaining = int(shoe.sum())
        root = graph.index_of((pair,))
        results = self._results_table(pair)
        given_dealer = np.zeros((DEALER_OUTCOMES, RESULTS))
        for card in range(RANKS):
            if shoe[card] <= 0:
                continue
            node = int(graph.child[root, card])
            block = {"stand": 4, "hit": 2, "double": 3}[actions[card]]
            given_dealer += shoe[card] / remaining * results[node, block]
        dealer = self.dealer[self._rows[(pair, 1)][root]].copy()
        if self.rules.hole_card is HoleCard.PEEK or self._by_box:
            dealer[6] = 0.0
        counts = self._hand_count_distribution(pair)
        win = push = loss = 0.0
        for outcome in range(DEALER_OUTCOMES):
            if dealer[outcome] <= 0.0:
                continue
            # The total of n hands: results -2n to 2n, index 2n for zero.
            total = np.array([1.0])
            for hands in range(1, len(counts)):
                total = np.convolve(total, given_dealer[outcome])
                if counts[hands] <= 0.0:
                    continue
                weight = dealer[outcome] * counts[hands]
                zero = 2 * hands
                win += weight * float(total[zero + 1 :].sum())
                push += weight * float(total[zero])
                loss += weight * float(total[:zero].sum())
        return win, push, loss, 0.0

    def _results_table(self, pair: int) -> FloatArray:
        """:func:`conditional_results` for the first split's valuation, as it is played."""
        valuation = self._split_valuation(pair, 1)
        graph = self.graph
        # Only the masked rows are written and read (the kernel clears them).
        table = np.empty((graph.size, 5, DEALER_OUTCOMES, RESULTS))
        base = self.base.copy()
        base[pair] -= 1
        kernels().conditional_results(
            base,
            graph.counts,
            graph.total,
            graph.child,
            valuation.mask,
            self._stands(valuation),
            self._outcome_payoffs(split=True),
            table,
        )
        return table

    def _hand_count_distribution(self, pair: int) -> FloatArray:
        """The chance that a split of ``pair`` ends with n hands, by n (resplits as
        :meth:`split_value` chose)."""
        self.split_value(pair)
        size = self.rules.max_split_hands + 1

        @functools.cache
        def distribution(hands: int, waiting: int) -> FloatArray:
            if waiting == 0:
                ended = np.zeros(size)
                ended[hands] = 1.0
                return ended
            shoe = self.base.copy()
            shoe[pair] -= hands
            chance = shoe[pair] / int(shoe.sum()) if shoe[pair] > 0 else 0.0
            kept = distribution(hands, waiting - 1)
            if not self._resplits.get((pair, hands, waiting), False):
                return kept
            resplit: FloatArray = chance * distribution(hands + 1, waiting + 1)
            return resplit + (1 - chance) * kept

        return distribution(2, 2)

    def _surrender_value(self, chance: float) -> float | None:
        rules = self.rules
        surrender = rules.surrender
        peek = rules.hole_card is HoleCard.PEEK
        if surrender is Surrender.NONE:
            return None
        if surrender is Surrender.LATE:
            return -0.5 * (1.0 - chance) if peek else -0.5
        if surrender is Surrender.RWS:
            if self.up == ACE:
                return None
            return -0.5 + chance if peek else -0.5
        # Casino-To-Go: against an Ace or ten a dealer blackjack takes the whole bet.
        if peek:
            return -0.5 * (1.0 - chance)
        return -0.5 * (1.0 - chance) - chance


#: How much more a split must be worth than the best other play to be chosen: values
#: equal in exact arithmetic may differ by a few ulps in floating point, and such a tie
#: must not split (the derived chart uses the same margin).
SPLIT_MARGIN = 1e-12


def _best_option(options: Mapping[str, float]) -> str:
    """The best option; on a tie (within :data:`SPLIT_MARGIN`) a play other than the split.

    >>> _best_option({"stand": 0.5, "split": 0.5 + 1e-16})
    'stand'
    >>> _best_option({"stand": 0.5, "split": 0.6})
    'split'
    """
    others = [name for name in options if name != "split"]
    best = max(others, key=lambda name: options[name])
    if "split" in options and options["split"] > options[best] + SPLIT_MARGIN:
        return "split"
    return best


def _mix(
    share: float,
    first: tuple[float, float, float, float],
    second: tuple[float, float, float, float],
) -> tuple[float, float, float, float]:
    """``share`` of ``first`` and the rest of ``second``, item by item."""
    return (
        share * first[0] + (1 - share) * second[0],
        share * first[1] + (1 - share) * second[1],
        share * first[2] + (1 - share) * second[2],
        share * first[3] + (1 - share) * second[3],
    )


def _same_rank_tens(decks: int) -> float:
    """The chance that two ten-value cards of a full shoe have the same rank."""
    per_rank = 4 * decks
    tens = 16 * decks
    return 4 * per_rank * (per_rank - 1) / (tens * (tens - 1))


class Chart(Protocol):
    """A strategy that picks the play of a two-card hand from its total (a basic strategy)."""

    def choose(
        self, up: int, total: int, soft: bool, pair: int, options: Mapping[str, float]
    ) -> str:
        """The option to play, among those offered, for a hand of this total (``pair`` is the
        pair's point index for a pair, else -1)."""
        ...

    def splits(self, pair: int, up: int) -> bool:
        """Whether the pair is split (and resplit) against the up card."""
        ...

    def policy(self, up: int) -> npt.NDArray[np.int64]:
        """For every hand of the hand graph: 0 to stand, 1 to hit, once past the first decision."""
        ...


def analyze(rules: Rules, chart: Chart | None = None, *, outcomes: bool = True) -> MainGameResult:
    """The main game's exact expected value: composition-dependent play, or ``chart``'s.

    With ``outcomes`` false only the expected values are computed: the win, stand-off
    and loss chances and the standard deviation read zero.
    """
    return combine(
        rules, [up_card_result(rules, up, chart, outcomes=outcomes) for up in range(RANKS)]
    )


def up_card_result(
    rules: Rules, up: int, chart: Chart | None = None, *, outcomes: bool = True
) -> UpCardResult:
    """The main game's expected value given one up card (see :func:`analyze`): ``chart``
    is read for that up card alone."""
    analysis = (
        up_card_analysis(rules, up)
        if chart is None
        else _UpCardAnalysis(rules, up, chart.policy(up), chart)
    )
    decisions = analysis.decisions(outcomes=outcomes)
    ev = float(sum(decision.probability * decision.ev for decision in decisions))
    shoe = full_shoe(rules.decks)
    probability = float(shoe[up]) / int(shoe.sum())
    return UpCardResult(up, probability, ev, tuple(decisions))


def combine(rules: Rules, per_up: list[UpCardResult]) -> MainGameResult:
    """The main game's result from its results by up card, in up-card order."""
    total = 0.0
    for result in per_up:
        total += result.probability * result.ev
    return MainGameResult(rules, total, tuple(per_up))


def up_card_analysis(rules: Rules, up: int) -> _UpCardAnalysis:
    """The composition-dependent analysis against one up card (for deriving a chart;
    the same one again within :func:`sharing_valuations`)."""
    shared = _shared.get()
    if shared is None:
        return _UpCardAnalysis(rules, up)
    key = (rules, up)
    if key not in shared.analyses:
        shared.analyses[key] = _UpCardAnalysis(rules, up)
    return shared.analyses[key]
