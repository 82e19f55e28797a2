"""A simulation run: reproducibly seeded chunks played on every core, exact tallies merged.

A run of ``rounds`` rounds is cut into chunks of at most :data:`CHUNK_ROUNDS` rounds;
chunk ``i`` is seeded with the ``i``-th child of ``numpy.random.SeedSequence(seed)``
and starts from a freshly shuffled shoe.  The chunks depend on the seed and the
number of rounds only, and their tallies are integers summed exactly, so the result
is the same bit for bit whatever the number of workers and whatever order they
finish in.

>>> from croupier.presets import find_rules
>>> result = simulate(find_rules("rws-v5"), rounds=2_000, seed=7)
>>> result.rounds, result == simulate(find_rules("rws-v5"), rounds=2_000, seed=7)
(2000, True)
>>> -0.2 < result.mean < 0.2
True
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol, overload

import numpy as np
import numpy.typing as npt

from croupier.analysis.strategy import BasicStrategy, derive_strategy
from croupier.errors import RulesError
from croupier.rules import Rules, SideBet
from croupier.simulate import kernel
from croupier.simulate.compile import (
    SIDE_BETS,
    CompiledGame,
    CompiledStrategy,
    compile_game,
    compile_strategy,
    side_bet_scale,
)

__all__ = ["CHUNK_ROUNDS", "Chunk", "SimulationResult", "chunks", "play_chunk", "simulate"]

#: Rounds in one chunk: one seeded stream, one fresh shoe.
CHUNK_ROUNDS = 1 << 20
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Rounds in a session for the session histogram.
SESSION_ROUNDS = 100
#: Half width of the session histogram, in initial bets.
SESSION_BETS = 100
#: Points of the running mean's path in each chunk.
TRACE_ROWS = 64
#: The running path keeps between this many points and twice as many, however long the run.
RUNNING_POINTS = 4096

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Chunk:
    """One chunk of a run: its index, its rounds and its generator's four state words."""

    index: int
    rounds: int
    state: tuple[int, int, int, int]


#: The most rounds one run plays (its plan of chunks is counted in machine integers).
MOST_ROUNDS = 10**18


class ChunkPlan(Sequence[Chunk]):
    """A run cut into seeded chunks, each made when it is asked for: a run of any
    length plans in no time and no memory.  Chunk ``i``'s generator is the ``i``-th
    child of the run's seed (NumPy's ``SeedSequence(seed).spawn``), whatever the
    run's length.

    >>> plan = ChunkPlan(5, seed=1, chunk_rounds=2)
    >>> len(plan), [chunk.rounds for chunk in plan]
    (3, [2, 2, 1])
    >>> len(ChunkPlan(10**14, seed=1))
    95367432
    """

    def __init__(self, rounds: int, seed: int, chunk_rounds: int = CHUNK_ROUNDS) -> None:
        if not 1 <= rounds <= MOST_ROUNDS:
            raise RulesError(f"rounds must be from 1 to 10^18, not {rounds}")
        if chunk_rounds < 1:
            raise RulesError(f"chunk_rounds must be at least 1, not {chunk_rounds}")
        self.rounds = rounds
        self.seed = seed
        self.chunk_rounds = chunk_rounds
        self._count = -(-rounds // chunk_rounds)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Chunk: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Chunk]: ...

    def __getitem__(self, index: int | slice) -> Chunk | Sequence[Chunk]:
        if isinstance(index, slice):
            return [self[place] for place in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(f"chunk {index} is not in a plan of {self._count}")
        size = min(self.chunk_rounds, self.rounds - index * self.chunk_rounds)
        words = np.random.SeedSequence(self.seed, spawn_key=(index,)).generate_state(
            4, dtype=np.uint64
        )
        return Chunk(index, size, (int(words[0]), int(words[1]), int(words[2]), int(words[3])))

    def __iter__(self) -> Iterator[Chunk]:
        for index in range(self._count):
            yield self[index]


def chunks(rounds: int, seed: int, chunk_rounds: int = CHUNK_ROUNDS) -> ChunkPlan:
    """The run cut into seeded chunks (:class:`ChunkPlan`, made as they are asked for).

    >>> [chunk.rounds for chunk in chunks(5, seed=1, chunk_rounds=2)]
    [2, 2, 1]
    >>> chunks(5, seed=1, chunk_rounds=2)[0] == chunks(9, seed=1, chunk_rounds=2)[0]
    True
    """
    if rounds < 1:
        raise RulesError(f"rounds must be at least 1, not {rounds}")
    return ChunkPlan(rounds, seed, chunk_rounds)


@dataclass(frozen=True)
class _Work:
    game: CompiledGame
    tables: CompiledStrategy


def _plain(game: CompiledGame) -> bool:
    """Whether :func:`~croupier.simulate.kernel.run_plain` plays this game: the chart's
    decisions, no count and no side bets."""
    params = game.params
    return (
        params[kernel.P_COUNT] == 0
        and params[kernel.P_DECISIONS] == 0
        and not game.side_stakes.any()
    )


def _fast_kernel(game: CompiledGame) -> Any:
    """The kernel of its own that plays a :func:`_plain` game: ``run_peek`` for the
    peek game it plays (:func:`~croupier.simulate.kernel.peek_plays`), else
    ``run_plain``.  Each compiles on its first use (about half a minute), so a game
    compiles only the kernel it plays."""
    if kernel.peek_plays(game.params, game.shoe.shape[0]):
        return kernel.run_peek
    return kernel.run_plain


def play_chunk(work: _Work, chunk: Chunk) -> tuple[int, IntArray, IntArray, IntArray, IntArray]:
    """Play one chunk; its index and its tallies (see :func:`_play`)."""
    return _play(work, chunk)


def _play(work: _Work, chunk: Chunk) -> tuple[int, IntArray, IntArray, IntArray, IntArray]:
    """Play one chunk; returns its index, its tally, its two histograms and its trace."""
    game = work.game
    tables = work.tables
    tally = np.zeros(kernel.TALLY_SIZE, dtype=np.int64)
    hands = np.zeros(2 * 10 * game.unit + 1, dtype=np.int64)
    sessions = np.zeros(2 * SESSION_BETS + 1, dtype=np.int64)
    trace = np.zeros((min(TRACE_ROWS, chunk.rounds), kernel.TRACE_FIELDS), dtype=np.int64)
    if _plain(game):
        _fast_kernel(game)(
            game.shoe.copy(),
            game.params,
            tables.first_play,
            tables.drawn_stands,
            tables.pair_play,
            tables.index_plays,
            chunk.rounds,
            np.array(chunk.state, dtype=np.uint64),
            tally,
            hands,
            sessions,
            trace,
        )
        return chunk.index, tally, hands, sessions, trace
    kernel.run_chunk(
        game.shoe.copy(),
        False,
        game.params,
        tables.first_play,
        tables.drawn_stands,
        tables.pair_play,
        tables.index_plays,
        game.side_pays,
        game.side_stakes,
        chunk.rounds,
        np.array(chunk.state, dtype=np.uint64),
        tally,
        hands,
        sessions,
        np.zeros((0, kernel.R_WIDTH), dtype=np.int64),
        np.full((1, 2), -1, dtype=np.int64),
        trace,
    )
    return chunk.index, tally, hands, sessions, trace


def _mean_and_error(t: Sequence[int]) -> tuple[float, float]:
    """The mean per initial bet and its standard error from a tally's first sums."""
    n = t[kernel.T_ROUNDS] - t[kernel.T_VOIDS]
    wagered = t[kernel.T_WAGERED]
    if wagered == 0:
        return 0.0, math.nan
    m = t[kernel.T_NET] / wagered
    if n < 2:
        return m, math.nan
    residual = (
        t[kernel.T_ROUND_SQUARES]
        - 2 * m * t[kernel.T_NET_BY_WAGER]
        + m * m * t[kernel.T_WAGER_SQUARES]
    )
    return m, math.sqrt(max(residual, 0.0) * n / (n - 1)) / wagered


@dataclass(frozen=True)
class SideBetResult:
    """One side bet over the run, per unit staked; ``stake`` is its amount in initial bets."""

    stake: Fraction
    mean: float
    ci95: tuple[float, float]
    hits: int
    placed: int
    outcomes: dict[str, float]

    def to_json(self) -> dict[str, object]:
        """The side bet as JSON values."""
        return {
            "stake": str(self.stake),
            "mean": self.mean,
            "ci95": list(self.ci95),
            "hits": self.hits,
            "placed": self.placed,
            "hit_rate": self.hits / self.placed if self.placed else 0.0,
            "outcomes": self.outcomes,
        }


#: The basis of every counting figure, as the report names it.
ROUND_BASIS = "a round of every box played, void rounds left out, in minimum bets"


@dataclass(frozen=True)
class SimulationResult:
    """What a run found; every figure is per initial bet unless named otherwise.

    Attributes:
        tally: the exact integer sums (``kernel.T_*``), in units of ``1/unit`` bet.
        hand_histogram: counts of a box's result per round, in units, centred.
        session_histogram: counts of a session's result in initial bets, centred.
        running: the running mean's path: rounds played, the mean so far and its
            standard error, :data:`TRACE_ROWS` points in each chunk and one at its end.
    """

    rules: Rules
    rounds: int
    boxes: int
    seed: int
    workers: int
    unit: int
    exact: float | None
    seconds: float
    interrupted: bool
    side_bets: tuple[SideBet, ...]
    spread: tuple[int, int] | None
    tally: tuple[int, ...] = field(repr=False)
    hand_histogram: tuple[int, ...] = field(repr=False)
    session_histogram: tuple[int, ...] = field(repr=False)
    running: tuple[tuple[int, float, float], ...] = field(repr=False, default=())
    side_bet_amounts: tuple[Fraction, ...] = ()
    side_scale: int = 1
    #: The bet ramp's ``(true count, initial bets)`` steps; ``None``: the true count
    #: less one (:func:`~croupier.simulate.counting.ramp_table`).
    ramp: tuple[tuple[int, int], ...] | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SimulationResult):
            return NotImplemented
        return (self.tally, self.hand_histogram, self.session_histogram) == (
            other.tally,
            other.hand_histogram,
            other.session_histogram,
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def played(self) -> int:
        """Rounds played (fewer than asked when interrupted)."""
        return self.tally[kernel.T_ROUNDS]

    @property
    def mean(self) -> float:
        """The mean result per unit initial bet."""
        wagered = self.tally[kernel.T_WAGERED]
        return self.tally[kernel.T_NET] / wagered if wagered else 0.0

    @property
    def standard_error(self) -> float:
        """The standard error of :attr:`mean`, from each round's result and bets.

        Boxes sharing a shoe are not independent, so the round, not the box, is the
        sample; with a bet spread the mean is a ratio and its error the ratio's.
        """
        return _mean_and_error(self.tally)[1]

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95% confidence interval of :attr:`mean`."""
        half = Z95 * self.standard_error
        return (self.mean - half, self.mean + half)

    @property
    def standard_deviation(self) -> float:
        """The standard deviation of one box's result in one round, in initial bets
        (minimum bets with a spread)."""
        t = self.tally
        boxes = (t[kernel.T_ROUNDS] - t[kernel.T_VOIDS]) * self.boxes
        if boxes < 2:
            return math.nan
        unit = self.unit
        mean = t[kernel.T_NET] / unit / boxes
        variance = (t[kernel.T_BOX_SQUARES] / (unit * unit) - boxes * mean * mean) / (boxes - 1)
        return math.sqrt(max(variance, 0.0))

    @property
    def z(self) -> float | None:
        """Standard errors between :attr:`mean` and the exact figure."""
        if self.exact is None or not self.standard_error > 0:
            return None
        return (self.mean - self.exact) / self.standard_error

    @property
    def rounds_per_second(self) -> float:
        """Rounds played per second of wall time."""
        return self.played / self.seconds if self.seconds > 0 else 0.0

    def outcomes(self) -> dict[str, float]:
        """Each hand outcome's share of the hands played, and doubles, splits and
        void rounds per round."""
        t = self.tally
        hands = t[kernel.T_HANDS] or 1
        rounds = t[kernel.T_ROUNDS] or 1
        shares = {
            name: t[kernel.T_OUTCOMES + code] / hands
            for code, name in enumerate(kernel.OUTCOME_NAMES)
        }
        shares["doubles_per_round"] = t[kernel.T_DOUBLES] / rounds
        shares["splits_per_round"] = t[kernel.T_SPLITS] / rounds
        shares["void_rounds"] = t[kernel.T_VOIDS] / rounds
        return shares

    def side_bet_results(self) -> dict[str, SideBetResult]:
        """Each side bet played, per unit staked."""
        out: dict[str, SideBetResult] = {}
        amounts = self.side_bet_amounts or (Fraction(1),) * len(self.side_bets)
        for side_bet, stake in zip(self.side_bets, amounts, strict=True):
            key = SIDE_BETS.index(side_bet)
            base = kernel.T_SIDE + key * kernel.SIDE_FIELDS
            count = self.tally[base + kernel.T_SIDE_COUNT]
            # The tallies are in side-bet units: the stake is stake * unit * scale of them.
            per_stake = self.unit * self.side_scale * stake
            net = float(Fraction(self.tally[base + kernel.T_SIDE_NET]) / per_stake)
            squares = float(Fraction(self.tally[base + kernel.T_SIDE_SQUARES]) / per_stake**2)
            mean = net / count if count else 0.0
            variance = (squares - count * mean * mean) / (count - 1) if count > 1 else 0.0
            half = Z95 * math.sqrt(max(variance, 0.0) / count) if count else 0.0
            names = kernel.SIDE_OUTCOMES[key]
            out[side_bet.value] = SideBetResult(
                stake=stake,
                mean=mean,
                ci95=(mean - half, mean + half),
                hits=self.tally[base + kernel.T_SIDE_WINS],
                placed=count,
                outcomes={
                    name: self.tally[base + kernel.T_SIDE_OUTCOMES + code] / (count or 1)
                    for code, name in enumerate(names)
                },
            )
        return out

    def per_round(self) -> tuple[float, float]:
        """The mean and variance of a round's result: every box played in it together,
        void rounds left out, in minimum (initial) bets.  The counting figures (win,
        standard deviation, N0, SCORE, risk of ruin) are all on this one basis."""
        t = self.tally
        n = t[kernel.T_ROUNDS] - t[kernel.T_VOIDS]
        if n < 2:
            return math.nan, math.nan
        unit = self.unit
        mu = t[kernel.T_NET] / unit / n
        variance = (t[kernel.T_ROUND_SQUARES] / (unit * unit) - n * mu * mu) / (n - 1)
        return mu, max(variance, 0.0)

    def win_per_100_rounds(self) -> float:
        """The mean result of 100 rounds (:meth:`per_round`'s basis), in minimum bets."""
        return 100 * self.per_round()[0]

    def sd_per_100_rounds(self) -> float:
        """The standard deviation of 100 rounds' result (:meth:`per_round`), in minimum bets."""
        return 10 * math.sqrt(self.per_round()[1])

    def n0(self) -> float:
        """N0: the rounds after which the expected win equals one standard deviation,
        variance over squared mean (:meth:`per_round`); infinite without an edge."""
        mu, variance = self.per_round()
        return variance / (mu * mu) if mu > 0 else math.inf

    def score(self) -> float:
        """SCORE: the win per 100 rounds of a 10,000-unit bankroll bet in proportion to
        it (optimal betting), ``10**6 * mu**2 / variance`` (:meth:`per_round`); 0
        without an edge."""
        mu, variance = self.per_round()
        return 1e6 * mu * mu / variance if mu > 0 and variance > 0 else 0.0

    def risk_of_ruin(self, bankroll: float) -> float:
        """The chance of ever losing ``bankroll`` minimum bets, playing on for ever at this
        mean and variance per round (:meth:`per_round`; the diffusion estimate
        ``exp(-2 mu B / sigma^2)``)."""
        mu, variance = self.per_round()
        if math.isnan(mu):
            return math.nan
        if mu <= 0:
            return 1.0
        return math.exp(-2 * mu * bankroll / variance) if variance > 0 else 0.0

    def to_json(self, bankroll: float | None = None) -> dict[str, object]:
        """Every figure as JSON values, in the documented schema."""
        low, high = self.ci95
        data: dict[str, object] = {
            "rules": self.rules.name,
            "rounds": self.played,
            "boxes": self.boxes,
            "mean": self.mean,
            "ci95": [low, high],
            "sd": self.standard_deviation,
            "exact": self.exact,
            "z": self.z,
            "rounds_per_second": self.rounds_per_second,
            "seconds": self.seconds,
            "workers": self.workers,
            "seed": self.seed,
            "interrupted": self.interrupted,
            "outcomes": self.outcomes(),
            "side_bets": {key: value.to_json() for key, value in self.side_bet_results().items()},
            "shoe": {
                "decks": self.rules.decks,
                "penetration": str(self.rules.penetration),
                "shuffle_every_round": self.rules.shuffle_every_round,
            },
        }
        if self.spread is not None:
            counting: dict[str, object] = {
                "spread": list(self.spread),
                "ramp": (
                    [list(step) for step in self.ramp]
                    if self.ramp is not None
                    else "initial bets = true count - 1"
                ),
                "basis": ROUND_BASIS,
                "win_per_100_rounds": self.win_per_100_rounds(),
                "sd_per_100_rounds": self.sd_per_100_rounds(),
                "n0_rounds": self.n0() if math.isfinite(self.n0()) else None,
                "score": self.score(),
            }
            if bankroll is not None:
                counting["bankroll"] = bankroll
                counting["risk_of_ruin"] = self.risk_of_ruin(bankroll)
            data["counting"] = counting
        return data


Progress = Callable[[int], None]
ChunkResult = tuple[int, IntArray, IntArray, IntArray, IntArray]


class ChunkFuture(Protocol):
    """A chunk played elsewhere: a :class:`concurrent.futures.Future` or a Dask future."""

    def result(self, timeout: float | None = None) -> ChunkResult: ...

    def done(self) -> bool: ...

    def cancel(self) -> object: ...


def kernel_cached(game: CompiledGame) -> bool:
    """Whether the kernel that plays ``game`` is in Numba's cache (otherwise the first
    chunk compiles it: about half a minute of one core)."""
    dispatcher = _fast_kernel(game) if _plain(game) else kernel.run_chunk
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    return isinstance(index, str) and os.path.exists(index)


#: The signals that stop a run: held back while a worker process starts.
_STOPPING = {signal.SIGINT, signal.SIGTERM}


def _start_worker(parent: int) -> None:
    """A worker process leaves Ctrl-C and SIGTERM to the run, which stops it, and ends
    when the run's process does, even if that one is killed (``SIGKILL``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        # Started with them held back (see _quietly): what came meanwhile is dropped.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)
    _die_with_parent()
    if os.getppid() != parent:  # the run's process died before the line above
        os._exit(1)


def _die_with_parent() -> None:
    """On Linux, ask the kernel to kill this process when its parent ends."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        pass


#: prctl's option: the signal a process gets when its parent ends (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def _quietly(call: Callable[[], ChunkFuture]) -> ChunkFuture:
    """Run ``call`` (which may start a worker process) with Ctrl-C and SIGTERM held
    back: a worker starts with them blocked, so one arriving while it starts cannot
    end it mid-import (it unblocks them once it ignores them).  A signal that came
    meanwhile is taken here just after."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        return call()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    try:
        return call()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _collect(
    submit: Callable[[Chunk], ChunkFuture],
    plan: Sequence[Chunk],
    take: Callable[..., None],
    window: int,
) -> None:
    """Submit the chunks, at most ``window`` under way at once, and take each result in
    order; on Ctrl-C cancel those not started, take those finished or under way, and
    stop."""
    pending: deque[ChunkFuture] = deque()
    try:
        for chunk in plan:
            pending.append(submit(chunk))
            if len(pending) >= window:
                take(*pending.popleft().result())
        while pending:
            take(*pending.popleft().result())
    except KeyboardInterrupt:
        for future in pending:
            future.cancel()
        # The chunks under way finish (a chunk's time at most) and are kept; a second
        # Ctrl-C stops at once with what is kept so far.
        for future in pending:
            try:
                result = future.result()
            except KeyboardInterrupt:
                break
            except BaseException:  # cancelled or failed: not taken
                continue
            take(*result)
        raise


def simulate(
    rules: Rules,
    *,
    rounds: int,
    seed: int = 0,
    boxes: int = 1,
    side_bets: Sequence[SideBet] = (),
    side_bet_amounts: Mapping[SideBet, Fraction] | None = None,
    strategy: BasicStrategy | None = None,
    spread: tuple[int, int] | None = None,
    indices: bool = False,
    ramp: Sequence[tuple[int, int]] | None = None,
    workers: int = 1,
    chunk_rounds: int = CHUNK_ROUNDS,
    progress: Progress | None = None,
    submit: Callable[[_Work, Chunk], ChunkFuture] | None = None,
    compiling: Callable[[], None] | None = None,
) -> SimulationResult:
    """Play ``rounds`` rounds of ``rules`` and tally them exactly.

    Args:
        rules: the rule set (its decks, cut card and every rule).
        rounds: rounds to deal, at least 1.
        seed: seeds every chunk.
        boxes: boxes played, each with one initial bet, sharing one shoe.
        side_bets: side bets placed on every box, one initial bet each unless
            ``side_bet_amounts`` gives a side bet's stake in initial bets.
        strategy: the chart played; the derived basic strategy when omitted.  Without a
            spread its exact value is computed beside the result.
        spread: a Hi-Lo bet spread ``(low, high)`` in initial bets, or ``None``.
        indices: play the Illustrious 18 index plays (with a spread).
        ramp: the bet at each true count, ``(true count, initial bets)`` steps held
            within the spread; the true count less one when omitted.
        workers: processes playing chunks; 1 plays them here.
        chunk_rounds: rounds per chunk.
        progress: called with the rounds done after each chunk.
        submit: plays a chunk elsewhere (a cluster); returns a future of
            :func:`play_chunk`'s result.
        compiling: told when the kernel is about to be compiled (the first run with
            an empty cache): the compile happens before the clock starts, here, once.

    A ``KeyboardInterrupt`` while chunks play stops the run; the chunks finished are
    returned with ``interrupted`` set.
    """
    if workers < 1:
        raise RulesError(f"workers must be at least 1, not {workers}")
    chart = strategy if strategy is not None else derive_strategy(rules)
    index_table = None
    if indices:
        from croupier.simulate.counting import illustrious_18

        index_table = illustrious_18(chart)
    game = compile_game(
        rules,
        boxes=boxes,
        side_bets=side_bets,
        side_bet_amounts=side_bet_amounts,
        spread=spread,
        indices=indices,
        session=SESSION_ROUNDS,
        session_bets=SESSION_BETS,
        ramp=ramp,
    )
    # A chunk sums the squares of the side bets' results in int64: refuse stakes so fine
    # (a side-bet unit the smallest common fraction of them all) that the sums could overflow.
    largest = int(np.abs(game.side_pays).max()) * int(game.side_stakes.max(initial=0))
    if largest and largest * largest * boxes * chunk_rounds >= 2**63:
        stakes = ", ".join(
            f"{bet.value}={amount}" for bet, amount in (side_bet_amounts or {}).items()
        )
        scale = side_bet_scale(side_bet_amounts or {})
        raise RulesError(
            f"the side-bet stakes {stakes} are counted in 1/{scale} of a bet, too fine to "
            "tally exactly; choose amounts with a smaller common denominator"
        )
    work = _Work(game, compile_strategy(chart, index_table))
    plan = chunks(rounds, seed, chunk_rounds)
    exact = None
    if spread is None:
        exact = chart.evaluate().ev
    tally = [0] * kernel.TALLY_SIZE
    hands: IntArray = np.zeros(2 * 10 * game.unit + 1, dtype=np.int64)
    sessions: IntArray = np.zeros(2 * SESSION_BETS + 1, dtype=np.int64)
    running: list[tuple[int, float, float]] = []
    done = 0
    interrupted = False
    if submit is None:
        # Compiled here, once, before the clock starts: the workers then load the kernel
        # from Numba's cache instead of each compiling it (half a minute and half a
        # gigabyte each).
        if compiling is not None and not kernel_cached(work.game):
            compiling()
        _play(work, Chunk(-1, 1, plan[0].state))
    start = time.perf_counter()
    # Chunks are merged in index order as they come, so the merge (and every float of the
    # running path) does not depend on timing and memory stays flat: only chunks that
    # finished ahead of an earlier one wait here.
    held: dict[int, tuple[IntArray, IntArray, IntArray, IntArray]] = {}
    merged = 0

    def merge(
        chunk_tally: IntArray, chunk_hands: IntArray, chunk_sessions: IntArray, trace: IntArray
    ) -> None:
        nonlocal running
        for row in trace:
            sums = [tally[k] + int(row[k]) for k in range(kernel.TRACE_FIELDS)]
            if sums[kernel.T_WAGERED]:
                running.append((sums[kernel.T_ROUNDS], *_mean_and_error(sums)))
        for k in range(kernel.TALLY_SIZE):
            tally[k] += int(chunk_tally[k])
        hands[:] += chunk_hands
        sessions[:] += chunk_sessions
        if tally[kernel.T_WAGERED] and (not running or running[-1][0] < tally[kernel.T_ROUNDS]):
            running.append((tally[kernel.T_ROUNDS], *_mean_and_error(tally)))
        if len(running) > 2 * RUNNING_POINTS:
            running = [*running[-2::-2][::-1], running[-1]]

    def take(
        index: int,
        chunk_tally: IntArray,
        chunk_hands: IntArray,
        chunk_sessions: IntArray,
        chunk_trace: IntArray,
    ) -> None:
        nonlocal done, merged
        if index < merged or index in held:
            return
        held[index] = (chunk_tally, chunk_hands, chunk_sessions, chunk_trace)
        while merged in held:
            merge(*held.pop(merged))
            merged += 1
        done += plan[index].rounds
        if progress is not None:
            progress(done)

    window = max(4, 2 * workers)
    try:
        if submit is not None:
            _collect(lambda chunk: submit(work, chunk), plan, take, window)
        elif workers == 1 or len(plan) == 1:
            for chunk in plan:
                take(*play_chunk(work, chunk))
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context,
                initializer=_start_worker,
                initargs=(os.getpid(),),
            ) as pool:
                _collect(
                    lambda chunk: _quietly(lambda: pool.submit(play_chunk, work, chunk)),
                    plan,
                    take,
                    window,
                )
    except KeyboardInterrupt:
        interrupted = True
    seconds = time.perf_counter() - start
    # After Ctrl-C, the chunks finished past one that did not.
    for index in sorted(held):
        merge(*held.pop(index))
    return SimulationResult(
        rules=rules,
        rounds=rounds,
        boxes=boxes,
        seed=seed,
        workers=workers,
        unit=game.unit,
        exact=exact,
        seconds=seconds,
        interrupted=interrupted,
        side_bets=tuple(side_bets),
        spread=spread,
        ramp=tuple(ramp) if ramp is not None else None,
        side_bet_amounts=tuple(
            (side_bet_amounts or {}).get(side_bet, Fraction(1)) for side_bet in side_bets
        ),
        side_scale=side_bet_scale(side_bet_amounts or {}),
        tally=tuple(tally),
        hand_histogram=tuple(int(x) for x in hands),
        session_histogram=tuple(int(x) for x in sessions),
        running=tuple(running),
    )
