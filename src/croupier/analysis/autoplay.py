"""The basic strategy played through the engine, round after round.

The exact math says what a chart is worth (:meth:`BasicStrategy.evaluate
<croupier.analysis.strategy.BasicStrategy.evaluate>`); the engine, dealing from a
shuffled shoe and driven by :class:`StrategyPlayer`, says what it wins.  The two are
separate code held together by tests that play seeded rounds and compare the mean
result with the exact value within three standard errors.

:class:`StrategyPlayer` plays one box of a :class:`~croupier.round.Round` as the chart
says: it never insures and never takes even money, accepts the RWS surrender offer
where the chart's first decision surrenders, and at each turn maps the hand to its
total, softness, pair and the dealer's up card.  :func:`play_rounds` deals rounds from
a shoe shuffled before every round (the full shoe the exact math assumes) and returns
exact sums from which a mean and a standard error follow.

>>> from croupier.presets import find_rules
>>> from croupier.analysis.strategy import derive_strategy
>>> rules = find_rules("online-8deck")
>>> tally = play_rounds(rules, derive_strategy(rules), 200, seed=1)
>>> tally.rounds
200
>>> tally == play_rounds(rules, derive_strategy(rules), 200, seed=1)
True
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from decimal import Decimal
from typing import NamedTuple

from croupier.analysis.strategy import BasicStrategy, Play
from croupier.cards import Card
from croupier.events import Event
from croupier.round import Action, Awaiting, OfferKind, Phase, Round
from croupier.round_state import Hand, RoundState
from croupier.rules import Rules, SplitMatch
from croupier.table import Table

__all__ = [
    "CHUNK_ROUNDS",
    "PLAYER",
    "StrategyPlayer",
    "Tally",
    "chunk_seed",
    "play_rounds",
    "point_index",
]

#: The name the simulated player plays under.
PLAYER = "p"
#: Rounds dealt from one seeded table; a run is cut into such chunks, each with its own seed.
CHUNK_ROUNDS = 50_000

_ZERO = Decimal(0)
_ACTIONS = {action.value: action for action in Action}
_SURRENDER_OPTIONS = {"hit": 0.0, "stand": 0.0, "surrender": 0.0}
_SURRENDER_OR_SPLIT_OPTIONS = {**_SURRENDER_OPTIONS, "split": 0.0}
_OVER = (Phase.SETTLED, Phase.VOID)
# Enum members as module names: on Python 3.11 reading a member off its class goes
# through EnumType.__getattr__'s slow hook (about 70 ns), and a round reads dozens.
_DECISION = Awaiting.DECISION
_ANSWERS = Awaiting.ANSWERS
_NOTHING = Awaiting.NOTHING
_VOID = Phase.VOID
_SURRENDER_OFFER = OfferKind.SURRENDER
_HIT = Action.HIT
_STAND = Action.STAND
_DOUBLE = Action.DOUBLE
_SPLIT = Action.SPLIT


def point_index(card: Card) -> int:
    """The exact math's index of a card's point value: 0 the Ace, 1 to 8 the two to the nine,
    9 every ten-value card.

    >>> from croupier.cards import parse_card
    >>> point_index(parse_card("AS")), point_index(parse_card("7H")), point_index(parse_card("KD"))
    (0, 6, 9)
    """
    return card.points - 1


class Tally(NamedTuple):
    """Exact sums over played rounds, each round's net counted per unit initial bet.

    Attributes:
        total: the sum of the rounds' nets.
        squares: the sum of the squares of the rounds' nets.
        rounds: how many rounds were played.
    """

    total: Decimal
    squares: Decimal
    rounds: int

    def merge(self, other: Tally) -> Tally:
        """The tally of both runs together.

        >>> Tally(Decimal(1), Decimal(1), 1).merge(Tally(Decimal(-2), Decimal(4), 2))
        Tally(total=Decimal('-1'), squares=Decimal('5'), rounds=3)
        """
        return Tally(
            self.total + other.total, self.squares + other.squares, self.rounds + other.rounds
        )

    @property
    def mean(self) -> float:
        """The mean net per unit initial bet.

        >>> Tally(Decimal("-1"), Decimal("3"), 4).mean
        -0.25
        """
        return float(self.total / self.rounds)

    @property
    def standard_deviation(self) -> float:
        """The sample standard deviation of a round's net (``rounds - 1`` in the divisor).

        Raises:
            ValueError: fewer than two rounds were played.
        """
        n = self.rounds
        if n < 2:
            raise ValueError(f"a standard deviation needs at least two rounds, not {n}")
        variance = (self.squares - self.total * self.total / n) / (n - 1)
        return math.sqrt(float(variance))

    @property
    def standard_error(self) -> float:
        """The standard error of the mean: the sample standard deviation over ``sqrt(rounds)``.

        >>> round(Tally(Decimal("0"), Decimal("4"), 4).standard_error, 6)
        0.57735
        """
        return self.standard_deviation / math.sqrt(self.rounds)

    def z_score(self, expected: float) -> float:
        """How many standard errors the mean lies from ``expected``."""
        return (self.mean - expected) / self.standard_error


class StrategyPlayer:
    """One player on one box of a round, playing a basic strategy chart.

    The player bets, answers the offers put to him (he declines insurance and even
    money, which basic strategy never takes, and accepts the RWS surrender offer where
    the chart's first decision for the hand surrenders), and decides every turn of his
    box by the chart.  A double is always for the full initial bet.

    Args:
        strategy: the chart to play; its rules should be the round's.
        player: the player's name.
        box: the box he plays.
        amount: his initial bet; the table minimum when omitted.

    >>> from croupier.presets import find_rules
    >>> from croupier.analysis.strategy import derive_strategy
    >>> from croupier.shoe import FixedOrder
    >>> rules = find_rules("online-8deck")
    >>> player = StrategyPlayer(derive_strategy(rules))
    >>> game = Round(rules, FixedOrder("10S 7D 6H KC"))   # 16 against a ten, no blackjack
    >>> player.play(game)
    Decimal('-0.50')
    >>> "player_surrendered" in [event.type for event in game.events]
    True
    """

    def __init__(
        self,
        strategy: BasicStrategy,
        *,
        player: str = PLAYER,
        box: int = 1,
        amount: Decimal | None = None,
    ) -> None:
        self.strategy = strategy
        self.player = player
        self.box = box
        self.amount = amount if amount is not None else strategy.rules.minimum_bet
        # The chart's answers, by what they depend on: a round asks the same few
        # questions again and again.
        self._decisions: dict[tuple[object, ...], Action] = {}
        self._surrenders: dict[tuple[bool, int, int, int], bool] = {}

    def play(self, game: Round) -> Decimal:
        """Bet, close bets and play the round to its end; returns the player's net.

        Raises:
            RuntimeError: the round waits for something this player cannot give (a card
                entered by a dealer, another player's answer) or was voided.
        """
        game.place_bet(self.player, self.box, self.amount)
        game.close_bets()
        state = game.state
        cursor = state.cursor
        while True:
            awaiting = cursor.awaiting
            if awaiting is _DECISION:
                self.act(game, self.decide(game))
            elif awaiting is _ANSWERS:
                self.answer_offers(game)
            elif awaiting is _NOTHING:
                break
            else:
                raise RuntimeError(f"the round waits for what no player gives (phase={game.phase})")
        if game.phase is _VOID:
            raise RuntimeError(f"the round was voided: {game.void_reason}")
        return game.net_by_player()[self.player]

    # -- offers --------------------------------------------------------------------------------

    def answer_offers(self, game: Round) -> None:
        """Answer every open offer put to this player on his box.

        Raises:
            RuntimeError: an open offer is another player's, or on another box.
        """
        state = game.state
        while state.offers:
            offer = state.offers[0]
            if offer.player != self.player or offer.box != self.box:
                raise RuntimeError(f"an offer of {offer.kind.value} waits for {offer.player}")
            if offer.kind is _SURRENDER_OFFER and self.surrenders_first(game):
                game.surrender(box=self.box, player=self.player)
            else:
                game.decline(self.player, self.box, offer.kind)

    def surrenders_first(self, game: Round) -> bool:
        """Whether the chart's first decision for the box's two cards is to surrender.

        The chart is asked as the exact math asks it at the first decision: with
        surrender offered, and split too for a pair the rules let split.  Its answer is
        ``surrender`` exactly where the cell is Rh or Rs, or the pair cell Rp.
        """
        state = game.state
        box = state.box(self.box)
        if box is None:
            raise RuntimeError(f"box {self.box} is not in play")
        hand = box.hands[0]
        up = self._up(state)
        first, second = hand.cards
        # The points and whether the ranks match say all the answer depends on.
        key = (first.rank is second.rank, first.points, second.points, up)
        known = self._surrenders.get(key)
        if known is not None:
            return known
        pair = -1
        options = _SURRENDER_OPTIONS
        if self._pair_splits(first, second):
            pair = point_index(first)
            options = _SURRENDER_OR_SPLIT_OPTIONS
        answer = self.strategy.choose(up, hand.total, hand.is_soft, pair, options) == "surrender"
        self._surrenders[key] = answer
        return answer

    def _pair_splits(self, first: Card, second: Card) -> bool:
        rules = self.strategy.rules
        if rules.max_split_hands < 2:
            return False
        if rules.split_match is SplitMatch.RANK:
            return first.rank is second.rank
        return first.points == second.points

    # -- turns ---------------------------------------------------------------------------------

    def decide(self, game: Round) -> Action:
        """The chart's action for the hand whose turn it is, among the legal ones.

        A hand of two cards is looked up as its first decision: with its pair index for
        a dealt pair, with none for a split hand, except that a split hand dealt a new
        pair resplits where the chart splits that pair and the rules allow.  A hand of
        three cards or more hits or stands by the chart's drawn-hand table.

        Raises:
            RuntimeError: no hand of this player's box is waiting for a decision.
        """
        state = game.state
        current = state.current()
        if current is None or current[0].number != self.box:
            raise RuntimeError(f"no hand of box {self.box} waits for a decision")
        hand = current[1]
        legal = state.cursor.legal
        up = self._up(state)
        cards = hand.cards
        # Two cards are known by their points (which give the total and whether it is
        # soft or a pair by points), more by the total alone.
        key: tuple[object, ...] = (
            (hand.total, hand.is_soft, up, legal)
            if len(cards) > 2
            else (hand.from_split, cards[0].points, cards[1].points, up, legal)
        )
        known = self._decisions.get(key)
        if known is None:
            known = self._decisions[key] = self._chart_action(hand, legal, up)
        return known

    def _chart_action(self, hand: Hand, legal: tuple[Action, ...], up: int) -> Action:
        strategy = self.strategy
        cards = hand.cards
        total = hand.total
        soft = hand.is_soft
        if len(cards) > 2:
            play = strategy.drawn.get((soft, total, up), Play.HIT)
            if play is Play.STAND and Action.STAND in legal:
                return Action.STAND
            return Action.HIT if Action.HIT in legal else Action.STAND
        first = cards[0]
        pair = -1
        if hand.from_split:
            if Action.SPLIT in legal and strategy.splits(point_index(first), up):
                return Action.SPLIT
            legal = tuple(action for action in legal if action is not Action.SPLIT)
        elif first.points == cards[1].points:
            pair = point_index(first)
        # An Action is its own text, so it keys the options as the chart names them.
        options: dict[str, float] = dict.fromkeys(legal, 0.0)
        return _ACTIONS[strategy.choose(up, total, soft, pair, options)]

    def act(self, game: Round, action: Action) -> Event:
        """Take ``action`` on the hand whose turn it is; returns its event."""
        player = self.player
        if action is _HIT:
            return game.hit(player)
        if action is _STAND:
            return game.stand(player)
        if action is _DOUBLE:
            return game.double_down(player=player)
        if action is _SPLIT:
            return game.split(player)
        return game.surrender(player=player)

    # -- what the player sees ------------------------------------------------------------------

    @staticmethod
    def _up(state: RoundState) -> int:
        cards = state.dealer_cards
        if not cards:
            raise RuntimeError("the dealer has no up card yet")
        return cards[0].points - 1


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of a run's ``chunk``-th table, derived from the run's seed.

    >>> chunk_seed(7, 0) == chunk_seed(7, 0) != chunk_seed(7, 1)
    True
    """
    digest = hashlib.sha256(f"croupier-autoplay:{seed}:{chunk}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _play_chunk(rules: Rules, strategy: BasicStrategy, rounds: int, seed: int) -> Tally:
    """Play ``rounds`` rounds at one table seeded with ``seed``, shuffled before every round."""
    table = Table(rules.replace(shuffle_every_round=True), seed=seed)
    player = StrategyPlayer(strategy, amount=rules.minimum_bet)
    bet = player.amount
    total = _ZERO
    squares = _ZERO
    for _ in range(rounds):
        net = player.play(table.new_round()) / bet
        total += net
        squares += net * net
    return Tally(total, squares, rounds)


def _chunks(rounds: int, seed: int, chunk_rounds: int) -> list[tuple[int, int]]:
    """The run cut into chunks: ``(rounds, seed)`` of each table."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")
    if chunk_rounds < 1:
        raise ValueError(f"chunk_rounds must be at least 1, not {chunk_rounds}")
    sizes = [chunk_rounds] * (rounds // chunk_rounds)
    if rounds % chunk_rounds:
        sizes.append(rounds % chunk_rounds)
    return [(size, chunk_seed(seed, index)) for index, size in enumerate(sizes)]


def play_rounds(
    rules: Rules,
    strategy: BasicStrategy,
    rounds: int,
    seed: int,
    *,
    workers: int = 1,
    chunk_rounds: int = CHUNK_ROUNDS,
) -> Tally:
    """Play ``rounds`` rounds of one box at the table minimum by ``strategy``.

    Every round is dealt from a freshly shuffled shoe, as the exact math assumes.  The
    run is cut into chunks of at most ``chunk_rounds`` rounds, each dealt at its own
    table seeded by :func:`chunk_seed`, so the sums depend on ``seed``, ``rounds`` and
    ``chunk_rounds`` only: they are the same whatever the number of worker processes.

    Args:
        rules: the table's rules (``shuffle_every_round`` is set whatever they say).
        strategy: the chart to play.
        rounds: how many rounds to play, at least 1.
        seed: seeds the shoes.
        workers: processes that play the chunks; 1 plays them in this process.
        chunk_rounds: the most rounds dealt at one seeded table.

    Returns:
        The exact sums of the rounds' nets per unit initial bet and of their squares.

    Raises:
        ValueError: ``rounds``, ``workers`` or ``chunk_rounds`` is less than 1.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    chunks = _chunks(rounds, seed, chunk_rounds)
    tallies: Sequence[Tally]
    if workers == 1 or len(chunks) == 1:
        tallies = [_play_chunk(rules, strategy, size, chunk) for size, chunk in chunks]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = [
                pool.submit(_play_chunk, rules, strategy, size, chunk) for size, chunk in chunks
            ]
            tallies = [future.result() for future in futures]
    result = Tally(_ZERO, _ZERO, 0)
    for tally in tallies:
        result = result.merge(tally)
    return result
