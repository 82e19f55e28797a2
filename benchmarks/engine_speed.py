"""How fast croupier's engine plays and replays blackjack: against the engine before its
redesign, and beside small pure-Python blackjack packages.

Every figure is rounds per CPU-second: rounds done over the CPU time
(``time.process_time``) of the process doing them.  Each timed loop runs
``WARMUP_ROUNDS`` rounds (or records) first, off the clock, so that first-call costs
(lazy imports, caches) stay out; deriving a strategy (exact math, numba, slow the first
time it compiles) always happens before the clock starts.

**Play** (``--rounds N``): one box, one player, from the bet to the settlement.  For
every built-in preset, ``N`` rounds through the full public API (bets, offers, turns,
the events every action records), each ``StrategyPlayer(derive_strategy(rules)).play(
table.new_round())`` on a seeded table (seed 1), the player betting the table minimum:

* ``croupier``, shoe ``lazy``: this working tree's engine, ``Table(rules, seed=1,
  lazy_shuffle=True)``, the shoe that shuffles as it deals (same distribution of orders;
  what a simulation uses);
* ``croupier``, shoe ``eager``: this working tree's engine, ``Table(rules, seed=1)``, the
  whole shoe shuffled at once;
* ``baseline``: the engine at git ``REF`` (``--baseline``, default ``e6546bc``, the last
  commit before the engine's second edition), ``Table(rules, seed=1)`` (it has no lazy
  shoe).  The same loop (this file's own functions) runs in a subprocess of the project's
  Python with ``PYTHONPATH=<worktree>/src`` and the worktree as working directory; the
  worktree is made with ``git worktree add --detach`` at ``.bench-baseline/REF`` (kept and
  reused), and the subprocess reports ``croupier.__file__``, which must lie in it.  The
  eager shoe deals the same orders for a seed in both engines, so the eager row and the
  baseline play the same games: the table says whether their nets agree.

**Replay** (``--replay-rounds K``): what the table server does to rebuild a round from
its record, and what ``croupier ledger check`` and game recall do for every round.  For
every preset, ``K`` rounds are recorded first, off the clock, with this tree's engine:
each dealt from a ``FixedOrder`` of a freshly shuffled shoe (``random.Random``, seeded)
and driven input by input through ``croupier.inputs.apply_input`` (bet, close bets,
answers to offers, the chart's decisions, as ``StrategyPlayer`` takes them), every input
kept as ``{"op", "player", "args"}`` with the cards the round dealt.  Then, per round:

* replay, new (a): ``Round(rules, FixedOrder(cards))`` from the card texts, then every
  recorded input through ``apply_input``;
* replay, baseline (b): the same records (passed as a JSON file) replayed the same way by
  the baseline engine in its subprocess;
* restore, new (c): ``Round.restore(snapshot, rules, FixedOrder(remaining cards))`` of the
  snapshot taken right after ``close_bets``.  Restore reads the whole snapshot (the rules,
  the composition check, the hands, every event so far); the snapshot is given as JSON
  values already parsed (``json.loads`` is off the clock), the remaining cards as texts.

After each timed replay, an untimed pass checks that every replayed (or restored and then
played on) round settles with the net recorded when it was played; mismatches are counted
in the figures.

**Peers**, each in its own subprocess of the peers' virtual environment (``.peers-venv``
beside ``.venv``; never the project's own environment, and no peer code is copied into the
project): ``N`` rounds through each package's own public API, with a simple fixed
strategy (basic-strategy-like hit/stand, doubles where the package has them, splitting
aces and eights where it can).  Import and table set-up are excluded.

- ``blackjack21`` 5.0.0: ``Table.start_game`` then ``hit``/``stand``/``double_down``/
  ``split`` until the table settles each hand (8 decks, reshuffled past 75 %).
- ``jackblack`` 0.8.0: ``Simulation.run(n_times=N)`` with a ``Strategy`` subclass
  (hit, stay, double down, split; 8 decks).
- ``gymnasium`` 1.4.0: ``gymnasium.make("Blackjack-v1", natural=True)``, one episode
  per round (``reset``, ``step`` until terminated); hit or stand only, infinite deck.

The peers play simpler games than croupier: none offers insurance or surrender, none
keeps events or exact money, gymnasium has neither doubles nor splits.  The figures say
what croupier's rules and bookkeeping cost next to them, not that the games are equal.
The peers are compared with ``rws-v5`` on the lazy shoe.

The ratios printed:

* play: ``rws-v5 ÷ this`` (the lazy ``rws-v5`` row's rate over the row's) and ``this ÷
  fastest peer``; per preset, ``lazy ÷ baseline`` and ``eager ÷ baseline`` (new engine's
  rate over the baseline's: above 1, the new engine is faster);
* replay: ``new ÷ baseline``, (a) over (b).

The new engine runs in this process, the baseline and the peers each in a subprocess of
their own; each figure is the CPU time of the process that did the work.  The whole set
of rows is timed ``--repeat`` times (default 3), one row after another in each
repetition so that the machine's drift in speed falls on every row alike, and each row
keeps its fastest repetition (every repetition plays the same games: the nets must
agree).  These machines
are shared and their speed varies from run to run: compare the ratios printed by one
run, never absolute times from different runs.

Run it as::

    .venv/bin/python benchmarks/engine_speed.py --rounds 20000
    .venv/bin/python benchmarks/engine_speed.py --json
    .venv/bin/python benchmarks/engine_speed.py --baseline none --replay-rounds 0
    .venv/bin/python benchmarks/engine_speed.py --setup-peers   # (re)install the peers only

The peers' environment is created, and the pinned peers installed into it with pip, the
first time the script runs without it (``--peers`` with no name skips the peers).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

# Only names the baseline engine has too: the baseline subprocess runs this very file.
from croupier.analysis.autoplay import PLAYER, StrategyPlayer
from croupier.analysis.strategy import derive_strategy
from croupier.cards import full_deck
from croupier.inputs import apply_input
from croupier.presets import PRESET_NAMES, find_rules
from croupier.round import Phase, Round
from croupier.rules import Rules
from croupier.shoe import FixedOrder
from croupier.table import Table

#: The repository root: this file lives in ``benchmarks/``.
REPO = Path(__file__).resolve().parent.parent
#: The peers' own virtual environment, never the project's ``.venv``.
PEERS_VENV = REPO / ".peers-venv"
#: Where the baseline's git worktrees live, one per ref (ignored by git).
BASELINE_ROOT = REPO / ".bench-baseline"
#: The last commit before the engine's second edition.
DEFAULT_BASELINE = "e6546bc"
#: The preset every peer is compared with.
REFERENCE_PRESET = "rws-v5"
#: Rounds played (or records replayed) before the clock starts, in every engine, so that
#: first-call costs (lazy imports, caches) stay out of the figures.
WARMUP_ROUNDS = 100
#: Recorded rounds per preset for the replay timings.
DEFAULT_REPLAY_ROUNDS = 2000
#: Times every row is timed; the fastest is kept.
DEFAULT_REPEAT = 3
#: Seeds the shuffles of the recorded rounds' fixed orders.
RECORD_SEED = 2024

#: The peers: the name the peer script knows each by, its distribution, its pinned version.
PEERS: tuple[tuple[str, str, str], ...] = (
    ("blackjack21", "blackjack21", "5.0.0"),
    ("jackblack", "jackblack", "0.8.0"),
    ("gymnasium-blackjack-v1", "gymnasium", "1.4.0"),
)

#: What each peer's timed loop calls.
PEER_CALLS = {
    "blackjack21": "Table.start_game + hit/stand/double_down/split per round",
    "jackblack": "Simulation.run(n_times=N) with a Strategy subclass",
    "gymnasium-blackjack-v1": "env.reset + env.step per episode (Blackjack-v1, natural=True)",
}

#: Run by the peers' Python as ``python -c PEER_SCRIPT PEER ROUNDS WARMUP``; prints one JSON
#: line ``{"name", "version", "hands", "cpu_seconds"}``.  Only this string touches peer code.
PEER_SCRIPT = r"""
import json
import random
import sys
import time
from importlib.metadata import version


def choose(total, soft, up, can_double):
    # A basic-strategy-like chart; up is 2..11 (11 the ace).  Returns hit, stand or double.
    if soft:
        if total >= 19:
            return "stand"
        if total == 18:
            if can_double and 3 <= up <= 6:
                return "double"
            return "stand" if up <= 8 else "hit"
        if total == 17 and can_double and 3 <= up <= 6:
            return "double"
        return "hit"
    if total >= 17:
        return "stand"
    if total >= 13:
        return "stand" if up <= 6 else "hit"
    if total == 12:
        return "stand" if 4 <= up <= 6 else "hit"
    if total == 11 and can_double:
        return "double"
    if total == 10 and can_double and up <= 9:
        return "double"
    if total == 9 and can_double and 3 <= up <= 6:
        return "double"
    return "hit"


def run_blackjack21(rounds, warmup):
    import blackjack21 as bj

    random.seed(1)
    deck = bj.Deck(bj.DEFAULT_SUITS, count=8)
    table = bj.Table([("p", 10)], deck, on_round_reset=bj.shoe_reset_hook(deck, 0.75))
    players_turn = bj.GameState.PLAYERS_TURN
    split_action = bj.Action.SPLIT

    def play():
        table.start_game()
        while table.state is players_turn:
            hand = table.current_hand
            cards = list(hand)
            if len(cards) == 2 and cards[0].rank in ("A", "8") and cards[0].rank == cards[1].rank:
                if split_action in table.available_actions():
                    table.split()
                    continue
            total = hand.total
            hard = sum(1 if card.rank == "A" else card.value for card in cards)
            soft = hard != total
            up = table.dealer_visible_hand[0].value
            decision = choose(total, soft, up, len(cards) == 2)
            if decision == "stand":
                table.stand()
            elif decision == "double":
                table.double_down()
            else:
                table.hit()
        hands = table.players[0].hands
        if any(hand.result is None for hand in hands):
            raise RuntimeError("blackjack21 left a hand unsettled")

    for _ in range(warmup):
        play()
    hands = 0
    start = time.process_time()
    for _ in range(rounds):
        play()
        hands += 1
    return hands, time.process_time() - start


def run_jackblack(rounds, warmup):
    import jackblack as jb

    class Chart(jb.Strategy):
        def decide(self, player, choices, dealer=None, players=()):
            hand = player.hand
            if len(hand) < 2:
                return jb.HIT
            if jb.SPLIT in choices and hand[0].rank in ("Ace", "8"):
                return jb.SPLIT
            total = hand.value()
            soft = total != hand.lowest_value()
            decision = choose(total, soft, dealer.showing(), jb.DOUBLE_DOWN in choices)
            if decision == "stand":
                return jb.STAY
            if decision == "double":
                return jb.DOUBLE_DOWN
            return jb.HIT

    random.seed(1)
    player = jb.Player("p", chips=10**15, strategy=Chart(auto_log=False))
    deck = jb.Deck(num_decks=8, shuffle=True)
    sim = jb.Simulation(players=[player], deck=deck, min_bet=10)
    if warmup:
        sim.run(n_times=warmup)
    start = time.process_time()
    sim.run(n_times=rounds)
    seconds = time.process_time() - start
    if len(player.results) != warmup + rounds:
        raise RuntimeError("jackblack did not settle every round")
    return rounds, seconds


def run_gymnasium(rounds, warmup):
    import gymnasium as gym

    env = gym.make("Blackjack-v1", natural=True)
    env.reset(seed=1)

    def play():
        (total, up, ace), _ = env.reset()
        done = False
        while not done:
            decision = choose(total, bool(ace), 11 if up == 1 else up, False)
            (total, up, ace), _, done, _, _ = env.step(0 if decision == "stand" else 1)

    for _ in range(warmup):
        play()
    start = time.process_time()
    for _ in range(rounds):
        play()
    return rounds, time.process_time() - start


PEERS = {
    "blackjack21": ("blackjack21", run_blackjack21),
    "jackblack": ("jackblack", run_jackblack),
    "gymnasium-blackjack-v1": ("gymnasium", run_gymnasium),
}

name, rounds, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
distribution, run = PEERS[name]
hands, seconds = run(rounds, warmup)
print(json.dumps({
    "name": name, "version": version(distribution), "hands": hands, "cpu_seconds": seconds,
}))
"""


@dataclass(frozen=True, slots=True)
class Timing:
    """Rounds done by one engine on one task, and the CPU time they took.

    Attributes:
        engine: ``croupier`` (this working tree), ``baseline`` (the engine at the
            baseline ref) or ``peer``.
        task: ``play``, ``replay`` or ``restore``.
        label: the preset, or the peer's name.
        version: the engine's version (for croupier, with ``git describe``).
        rounds: rounds played, replayed or restored.
        cpu_seconds: the CPU time they took, in the process that did them.
        what: what the timed loop calls.
        shoe: ``lazy`` or ``eager`` for croupier's play rows, else ``None``.
        net: the players' net over the timed rounds, exact, for the play rows of croupier
            and the baseline (the eager shoe and the baseline play the same games).
        mismatches: for replays and restores, rounds whose net differed from the one
            recorded when they were played (0 when all agree).
    """

    engine: str
    task: str
    label: str
    version: str
    rounds: int
    cpu_seconds: float
    what: str
    shoe: str | None = None
    net: str | None = None
    mismatches: int | None = None

    @property
    def rate(self) -> float:
        """Rounds per CPU-second."""
        return self.rounds / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")


@dataclass(frozen=True, slots=True)
class Baseline:
    """The engine before its redesign: a git worktree of ``ref``."""

    ref: str
    commit: str
    worktree: Path

    @property
    def version(self) -> str:
        """The ref and its commit, as the table shows them."""
        short = self.commit[:7]
        return self.ref if self.ref == short else f"{self.ref} ({short})"


def peers_python(venv: Path = PEERS_VENV) -> Path:
    """The peers' Python interpreter."""
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def setup_message(venv: Path = PEERS_VENV) -> str:
    """How to create the peers' environment by hand."""
    pins = " ".join(f"{distribution}=={pinned}" for _, distribution, pinned in PEERS)
    return (
        f"the peers' virtual environment {venv} is missing or incomplete; create it with\n"
        f"    .venv/bin/python benchmarks/engine_speed.py --setup-peers\n"
        f"or by hand:\n"
        f"    python3 -m venv {venv}\n"
        f"    {peers_python(venv)} -m pip install {pins}"
    )


def peers_ready(venv: Path = PEERS_VENV) -> bool:
    """Whether the peers' environment exists and imports every peer at its pinned version."""
    python = peers_python(venv)
    if not python.exists():
        return False
    check = "; ".join(
        f"assert version({distribution!r}) == {pinned!r}" for _, distribution, pinned in PEERS
    )
    result = subprocess.run(
        [str(python), "-c", f"from importlib.metadata import version; {check}"],
        capture_output=True,
        check=False,
    )
    return result.returncode == 0


def setup_peers(venv: Path = PEERS_VENV) -> None:
    """Create the peers' virtual environment (if absent) and pip install the pinned peers.

    Raises:
        RuntimeError: the environment is the project's own, or venv or pip failed.
    """
    if venv.resolve() in (Path(sys.prefix).resolve(), (REPO / ".venv").resolve()):
        raise RuntimeError(f"{venv} is the project's own environment, not the peers'")
    if not peers_python(venv).exists():
        print(f"creating the peers' environment {venv}", file=sys.stderr)
        python3 = shutil.which("python3") or sys.executable
        subprocess.run([python3, "-m", "venv", str(venv)], check=True)
    pins = [f"{distribution}=={pinned}" for _, distribution, pinned in PEERS]
    print(f"installing {' '.join(pins)} into {venv}", file=sys.stderr)
    subprocess.run([str(peers_python(venv)), "-m", "pip", "install", "--quiet", *pins], check=True)


# -- the timed loops, run by this engine and (in its subprocess) by the baseline's ------------
#
# These functions only use names the baseline engine has too: the baseline subprocess runs
# this file with the baseline's ``croupier`` first on its path (``--worker``).

#: A recorded round as JSON values: ``cards`` (texts, first dealt first), ``inputs`` (each
#: ``{"op", "player", "args"}``) and ``net`` (the player's net when it was played).
Record = dict[str, Any]


def play_loop(preset: str, rounds: int, warmup: int, *, lazy: bool) -> tuple[float, Decimal]:
    """Play ``rounds`` rounds of ``preset`` at a table seeded with 1, by its derived chart.

    Returns the CPU seconds of the timed rounds and the player's net over them.  The
    strategy is derived and ``warmup`` rounds are played before the clock starts.
    """
    rules = find_rules(preset)
    strategy = derive_strategy(rules)  # exact math, before the clock starts
    table = Table(rules, seed=1, lazy_shuffle=True) if lazy else Table(rules, seed=1)
    player = StrategyPlayer(strategy)
    for _ in range(warmup):
        player.play(table.new_round())
    net = Decimal(0)
    start = time.process_time()
    for _ in range(rounds):
        net += player.play(table.new_round())
    seconds = time.process_time() - start
    return seconds, net


def _settled_net(game: Round) -> Decimal | None:
    """The player's net on a settled round, ``None`` on one that is not settled."""
    if game.phase is not Phase.SETTLED:
        return None
    return game.net_by_player().get(PLAYER, Decimal(0))


def replay_one(rules: Rules, record: Mapping[str, Any]) -> Round:
    """The round a record describes: a fresh round on its cards, every input applied."""
    game = Round(rules, FixedOrder(record["cards"]))
    for entry in record["inputs"]:
        apply_input(game, entry["op"], entry["player"], entry["args"])
    return game


def replay_loop(preset: str, records: Sequence[Record], warmup: int) -> tuple[float, int]:
    """Replay every record of ``preset``; returns the CPU seconds and the mismatches.

    The first ``warmup`` records are replayed before the clock starts; after it stops, an
    untimed pass replays them all again and counts the rounds whose net differs from the
    recorded one.
    """
    rules = find_rules(preset)
    for record in records[:warmup]:
        replay_one(rules, record)
    start = time.process_time()
    for record in records:
        game = Round(rules, FixedOrder(record["cards"]))
        for entry in record["inputs"]:
            apply_input(game, entry["op"], entry["player"], entry["args"])
    seconds = time.process_time() - start
    mismatches = sum(
        1 for record in records if _settled_net(replay_one(rules, record)) != Decimal(record["net"])
    )
    return seconds, mismatches


def run_worker(job_file: Path) -> int:
    """The baseline's side: play and replay as the job file says; print the figures as JSON.

    The job: ``presets``, ``rounds``, ``warmup`` and ``replay`` (records by preset).  The
    answer, one JSON line: ``croupier_file`` (where ``croupier`` was imported from),
    ``play`` and ``replay`` by preset.
    """
    import croupier

    job = json.loads(job_file.read_text(encoding="utf-8"))
    warmup: int = job["warmup"]
    rounds: int = job["rounds"]
    play: dict[str, dict[str, Any]] = {}
    replay: dict[str, dict[str, Any]] = {}
    for preset in job["presets"]:
        seconds, net = play_loop(preset, rounds, warmup, lazy=False)
        play[preset] = {"rounds": rounds, "cpu_seconds": seconds, "net": str(net)}
    for preset, records in job["replay"].items():
        seconds, mismatches = replay_loop(preset, records, warmup)
        replay[preset] = {"rounds": len(records), "cpu_seconds": seconds, "mismatches": mismatches}
    print(json.dumps({"croupier_file": str(croupier.__file__), "play": play, "replay": replay}))
    return 0


# -- this engine ------------------------------------------------------------------------------


def _git(*args: str, cwd: Path = REPO) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed:\n{result.stderr.strip()}")
    return result.stdout.strip()


def engine_version() -> str:
    """The installed croupier's version and this working tree's ``git describe``."""
    from importlib.metadata import version

    try:
        described = _git("describe", "--always", "--dirty")
    except (OSError, RuntimeError):
        described = "no git"
    return f"{version('croupier')} ({described})"


def time_croupier(
    preset: str,
    rounds: int,
    warmup: int = WARMUP_ROUNDS,
    *,
    lazy: bool = True,
    version: str | None = None,
) -> Timing:
    """Play ``rounds`` rounds of one box of ``preset`` by its derived basic strategy."""
    seconds, net = play_loop(preset, rounds, warmup, lazy=lazy)
    call = "Table(rules, seed=1, lazy_shuffle=True)" if lazy else "Table(rules, seed=1)"
    return Timing(
        "croupier",
        "play",
        preset,
        version if version is not None else engine_version(),
        rounds,
        seconds,
        f"{call}.new_round + StrategyPlayer.play per round",
        shoe="lazy" if lazy else "eager",
        net=str(net),
    )


@dataclass(frozen=True, slots=True)
class Restorable:
    """A recorded round's snapshot right after ``close_bets``, and what follows it."""

    #: The snapshot as JSON text (parsed before the clock starts).
    snapshot: str
    #: The cards not yet dealt when it was taken, as texts.
    remaining: list[str]
    #: The inputs recorded after ``close_bets``.
    inputs: list[dict[str, Any]]
    #: The player's net when the round was played.
    net: str


def _issue(
    game: Round, inputs: list[dict[str, Any]], op: str, who: str | None, args: dict[str, Any]
) -> None:
    """Apply one input to ``game`` and record it."""
    apply_input(game, op, who, args)
    inputs.append({"op": op, "player": who, "args": args})


def record_rounds(
    preset: str, count: int, seed: int = RECORD_SEED
) -> tuple[list[Record], list[Restorable]]:
    """Play ``count`` rounds of ``preset`` by its chart, recording every input.

    Each round is dealt from a :class:`~croupier.shoe.FixedOrder` of a shoe shuffled
    afresh by ``random.Random(seed)`` and driven input by input through
    :func:`~croupier.inputs.apply_input`, as :class:`StrategyPlayer` would play it: a bet
    of the table minimum, ``close_bets``, offers declined (the RWS surrender offer taken
    where :meth:`StrategyPlayer.surrenders_first` says so), the chart's decisions.

    Raises:
        RuntimeError: a round waited for something no player gives, or did not settle.
    """
    from croupier.round import Awaiting, OfferKind

    rules = find_rules(preset)
    player = StrategyPlayer(derive_strategy(rules))
    rng = random.Random(f"{seed}:{preset}")
    shoe = full_deck() * rules.decks
    amount = str(rules.minimum_bet)
    records: list[Record] = []
    restorables: list[Restorable] = []
    for _ in range(count):
        rng.shuffle(shoe)
        order = FixedOrder(shoe)
        game = Round(rules, order)
        inputs: list[dict[str, Any]] = []
        _issue(game, inputs, "bet", player.player, {"box": player.box, "amount": amount})
        _issue(game, inputs, "close_bets", None, {})
        snapshot = json.dumps(game.snapshot())
        dealt_at_close = order.dealt
        while True:
            awaiting = game.awaiting
            if awaiting is Awaiting.DECISION:
                _issue(game, inputs, player.decide(game).value, player.player, {})
            elif awaiting is Awaiting.ANSWERS:
                offer = game.offers[0]
                if offer.kind is OfferKind.SURRENDER and player.surrenders_first(game):
                    _issue(game, inputs, "surrender", player.player, {"box": offer.box})
                else:
                    _issue(
                        game,
                        inputs,
                        "decline",
                        player.player,
                        {"box": offer.box, "kind": offer.kind.value},
                    )
            elif awaiting is Awaiting.NOTHING:
                break
            else:
                raise RuntimeError(f"{preset}: the round waits for {awaiting.value}")
        net = _settled_net(game)
        if net is None:
            raise RuntimeError(f"{preset}: a recorded round ended {game.phase.value}")
        cards = [str(card) for card in shoe[: order.dealt]]
        records.append({"cards": cards, "inputs": inputs, "net": str(net)})
        restorables.append(Restorable(snapshot, cards[dealt_at_close:], inputs[2:], str(net)))
    return records, restorables


def time_replay(
    preset: str, records: Sequence[Record], version: str, warmup: int = WARMUP_ROUNDS
) -> Timing:
    """Replay ``records`` with this engine (figure (a))."""
    seconds, mismatches = replay_loop(preset, records, warmup)
    return Timing(
        "croupier",
        "replay",
        preset,
        version,
        len(records),
        seconds,
        "Round(rules, FixedOrder(cards)) + apply_input per recorded input",
        mismatches=mismatches,
    )


def time_restore(
    preset: str, restorables: Sequence[Restorable], version: str, warmup: int = WARMUP_ROUNDS
) -> Timing:
    """Restore every round's snapshot taken after ``close_bets`` (figure (c)).

    After the clock stops, an untimed pass restores each again, applies the inputs that
    followed and counts the rounds whose net differs from the recorded one.
    """
    rules = find_rules(preset)
    for item in restorables[:warmup]:
        Round.restore(json.loads(item.snapshot), rules, FixedOrder(item.remaining))
    parsed = [(json.loads(item.snapshot), item.remaining) for item in restorables]
    start = time.process_time()
    for snapshot, remaining in parsed:
        Round.restore(snapshot, rules, FixedOrder(remaining))
    seconds = time.process_time() - start
    del parsed
    mismatches = 0
    for item in restorables:
        game = Round.restore(json.loads(item.snapshot), rules, FixedOrder(item.remaining))
        for entry in item.inputs:
            apply_input(game, entry["op"], entry["player"], entry["args"])
        if _settled_net(game) != Decimal(item.net):
            mismatches += 1
    return Timing(
        "croupier",
        "restore",
        preset,
        version,
        len(restorables),
        seconds,
        "Round.restore(snapshot after close_bets, rules, FixedOrder(remaining cards))",
        mismatches=mismatches,
    )


# -- the baseline -----------------------------------------------------------------------------


def _worktree_name(ref: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "_", ref)
    return name if name.strip(".") else "ref_" + name.replace(".", "_")


def prepare_baseline(ref: str) -> Baseline:
    """The git worktree of ``ref`` at ``.bench-baseline/REF``: made, or reused.

    A worktree already there is moved to ``ref``'s commit if it is elsewhere.

    Raises:
        RuntimeError: ``ref`` names no commit, git failed, the folder is there but is
            not a worktree, or the commit has no ``src/croupier``.
    """
    try:
        commit = _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except RuntimeError:
        raise RuntimeError(f"git knows no commit named {ref!r}") from None
    worktree = BASELINE_ROOT / _worktree_name(ref)
    if worktree.exists():
        top = _git("rev-parse", "--show-toplevel", cwd=worktree)
        if Path(top).resolve() != worktree.resolve():
            raise RuntimeError(
                f"{worktree} is there but is not a git worktree: remove it and run again"
            )
        if _git("rev-parse", "HEAD", cwd=worktree) != commit:
            _git("checkout", "--quiet", "--detach", commit, cwd=worktree)
    else:
        BASELINE_ROOT.mkdir(exist_ok=True)
        _git("worktree", "prune")
        print(f"creating the baseline's worktree {worktree} at {ref}", file=sys.stderr)
        _git("worktree", "add", "--quiet", "--detach", str(worktree), commit)
    if not (worktree / "src" / "croupier" / "__init__.py").exists():
        raise RuntimeError(f"{ref} ({commit[:7]}) has no src/croupier: not a croupier engine")
    return Baseline(ref, commit, worktree)


def run_baseline(
    baseline: Baseline,
    presets: Sequence[str],
    rounds: int,
    records: Mapping[str, Sequence[Record]],
    warmup: int = WARMUP_ROUNDS,
) -> tuple[list[Timing], str]:
    """Play ``presets`` and replay ``records`` with the baseline engine, in a subprocess.

    Returns its timings and the file its ``croupier`` was imported from.

    Raises:
        RuntimeError: the subprocess failed, printed no usable figures, or imported
            ``croupier`` from outside the worktree.
    """
    job = {"presets": list(presets), "rounds": rounds, "warmup": warmup, "replay": records}
    env = dict(os.environ)
    env["PYTHONPATH"] = str(baseline.worktree / "src")
    with tempfile.TemporaryDirectory(prefix="engine-speed-") as folder:
        job_file = Path(folder) / "job.json"
        job_file.write_text(json.dumps(job), encoding="utf-8")
        result = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--worker", str(job_file)],
            capture_output=True,
            text=True,
            check=False,
            cwd=baseline.worktree,
            env=env,
        )
    if result.returncode != 0:
        raise RuntimeError(f"the baseline {baseline.version} failed:\n{result.stderr.strip()}")
    lines = result.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"the baseline printed nothing:\n{result.stderr.strip()}")
    figures = json.loads(lines[-1])
    imported = Path(figures["croupier_file"]).resolve()
    if not imported.is_relative_to(baseline.worktree.resolve()):
        raise RuntimeError(
            f"the baseline subprocess imported croupier from {imported}, "
            f"not from the worktree {baseline.worktree}"
        )
    timings = [
        Timing(
            "baseline",
            "play",
            preset,
            baseline.version,
            figures["play"][preset]["rounds"],
            float(figures["play"][preset]["cpu_seconds"]),
            "Table(rules, seed=1).new_round + StrategyPlayer.play per round",
            shoe="eager",
            net=figures["play"][preset]["net"],
        )
        for preset in presets
    ]
    timings.extend(
        Timing(
            "baseline",
            "replay",
            preset,
            baseline.version,
            figures["replay"][preset]["rounds"],
            float(figures["replay"][preset]["cpu_seconds"]),
            "Round(rules, FixedOrder(cards)) + apply_input per recorded input",
            mismatches=figures["replay"][preset]["mismatches"],
        )
        for preset in records
    )
    return timings, str(imported)


# -- the peers --------------------------------------------------------------------------------


def time_peer(name: str, rounds: int, warmup: int = WARMUP_ROUNDS) -> Timing:
    """Play ``rounds`` rounds of peer ``name`` in a subprocess of the peers' Python.

    Raises:
        RuntimeError: the subprocess failed or printed no usable figures.
    """
    result = subprocess.run(
        [str(peers_python()), "-c", PEER_SCRIPT, name, str(rounds), str(warmup)],
        capture_output=True,
        text=True,
        check=False,
        cwd=PEERS_VENV,  # not the repository, so that nothing of the project is imported
    )
    if result.returncode != 0:
        raise RuntimeError(f"peer {name} failed:\n{result.stderr.strip()}")
    lines = result.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"peer {name} printed nothing:\n{result.stderr.strip()}")
    figures = json.loads(lines[-1])
    if not isinstance(figures, dict):
        raise RuntimeError(f"peer {name} printed {lines[-1]!r}")
    hands = figures.get("hands")
    seconds = figures.get("cpu_seconds")
    peer_version = figures.get("version")
    if (
        not isinstance(hands, int)
        or not isinstance(seconds, int | float)
        or not isinstance(peer_version, str)
    ):
        raise RuntimeError(f"peer {name} printed {lines[-1]!r}")
    return Timing("peer", "play", name, peer_version, hands, float(seconds), PEER_CALLS[name])


# -- the figures ------------------------------------------------------------------------------


def fastest(runs: Sequence[Sequence[Timing]]) -> list[Timing]:
    """Each row's fastest repetition, in the order of the first.

    The least CPU time is the figure least disturbed by the rest of the machine (the
    advice of the ``timeit`` documentation).  Every repetition plays the same games, so a
    row whose net differs between repetitions is an error.

    Raises:
        RuntimeError: a row's net or mismatch count differs between repetitions.
    """
    best: dict[tuple[str, str, str, str | None], Timing] = {}
    for run in runs:
        for timing in run:
            key = (timing.engine, timing.task, timing.label, timing.shoe)
            kept = best.get(key)
            if kept is None:
                best[key] = timing
                continue
            if (kept.net, kept.mismatches) != (timing.net, timing.mismatches):
                raise RuntimeError(f"{key}: repetitions differ ({kept} and {timing})")
            if timing.cpu_seconds < kept.cpu_seconds:
                best[key] = timing
    return list(best.values())


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


def _find(
    timings: Sequence[Timing], engine: str, task: str, label: str, shoe: str | None = None
) -> Timing | None:
    return next(
        (
            t
            for t in timings
            if t.engine == engine and t.task == task and t.label == label and t.shoe == shoe
        ),
        None,
    )


def _rate(timing: Timing | None) -> float | None:
    return timing.rate if timing is not None else None


def _over(numerator: Timing | None, denominator: Timing | None) -> float | None:
    if numerator is None or denominator is None:
        return None
    return _ratio(numerator.rate, denominator.rate)


def _same_games(eager: Timing | None, baseline: Timing | None) -> bool | None:
    if eager is None or baseline is None or eager.net is None or baseline.net is None:
        return None
    return eager.rounds == baseline.rounds and Decimal(eager.net) == Decimal(baseline.net)


def _reference(timings: Sequence[Timing]) -> Timing | None:
    return _find(timings, "croupier", "play", REFERENCE_PRESET, "lazy")


def _fastest_peer(timings: Sequence[Timing]) -> Timing | None:
    peers = [timing for timing in timings if timing.engine == "peer"]
    return max(peers, key=lambda timing: timing.rate, default=None)


def _presets(timings: Sequence[Timing], task: str) -> list[str]:
    return list(
        dict.fromkeys(t.label for t in timings if t.engine == "croupier" and t.task == task)
    )


def summarise(
    timings: Sequence[Timing],
    baseline: Baseline | None = None,
    baseline_file: str | None = None,
    version: str | None = None,
) -> dict[str, object]:
    """The figures of one run, with the ratios, as plain data (the same keys every run)."""
    peers = [timing for timing in timings if timing.engine == "peer"]
    reference = _reference(timings)
    fastest = _fastest_peer(timings)
    versus: dict[str, object] = {}
    for preset in _presets(timings, "play"):
        lazy = _find(timings, "croupier", "play", preset, "lazy")
        eager = _find(timings, "croupier", "play", preset, "eager")
        old = _find(timings, "baseline", "play", preset, "eager")
        versus[preset] = {
            "lazy_rate": _rate(lazy),
            "eager_rate": _rate(eager),
            "baseline_rate": _rate(old),
            "lazy_over_baseline": _over(lazy, old),
            "eager_over_baseline": _over(eager, old),
            "eager_same_games_as_baseline": _same_games(eager, old),
        }
    replay: dict[str, object] = {}
    for preset in _presets(timings, "replay"):
        new = _find(timings, "croupier", "replay", preset)
        old = _find(timings, "baseline", "replay", preset)
        restore = _find(timings, "croupier", "restore", preset)
        replay[preset] = {
            "records": new.rounds if new else None,
            "replay_rate": _rate(new),
            "baseline_replay_rate": _rate(old),
            "restore_rate": _rate(restore),
            "replay_over_baseline": _over(new, old),
            "mismatches": {
                "replay": new.mismatches if new else None,
                "baseline_replay": old.mismatches if old else None,
                "restore": restore.mismatches if restore else None,
            },
        }
    return {
        "measure": "rounds per CPU-second (time.process_time); compare ratios of one run only",
        "engine_version": version,
        "baseline": (
            {
                "ref": baseline.ref,
                "commit": baseline.commit,
                "worktree": str(baseline.worktree),
                "croupier_file": baseline_file,
            }
            if baseline is not None
            else None
        ),
        "reference_preset": REFERENCE_PRESET,
        "reference_shoe": "lazy",
        "fastest_peer": fastest.label if fastest else None,
        "timings": [{**asdict(timing), "rate": timing.rate} for timing in timings],
        "reference_over_peer": {peer.label: _over(reference, peer) for peer in peers},
        "preset_over_fastest_peer": {
            preset: _over(_find(timings, "croupier", "play", preset, "lazy"), fastest)
            for preset in _presets(timings, "play")
        },
        "versus_baseline": versus,
        "replay": replay,
    }


def _format_ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _format_rate(timing: Timing | None) -> str:
    return "-" if timing is None else f"{timing.rate:,.0f}"


def _format_same(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "NO")


def render_table(timings: Sequence[Timing], baseline: Baseline | None = None) -> str:
    """The figures as Markdown tables: play, play against the baseline, replay."""
    reference = _reference(timings)
    fastest = _fastest_peer(timings)
    lines = [
        "Play: one box by the preset's chart, from the bet to the settlement.",
        "",
        f"| engine | preset / peer | shoe | version | rounds | CPU s | rounds per CPU-s "
        f"| {REFERENCE_PRESET} lazy ÷ this | this ÷ fastest peer |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for timing in timings:
        if timing.task != "play":
            continue
        lines.append(
            f"| {timing.engine} | {timing.label} | {timing.shoe or '-'} | {timing.version} "
            f"| {timing.rounds} | {timing.cpu_seconds:.3f} | {timing.rate:,.0f} "
            f"| {_format_ratio(_over(reference, timing))} "
            f"| {_format_ratio(_over(timing, fastest))} |"
        )
    if fastest is not None:
        lines.append("")
        lines.append(f"fastest peer: {fastest.label}")
    play_presets = _presets(timings, "play")
    if baseline is not None and play_presets:
        lines += [
            "",
            f"Play against the baseline {baseline.version}, rounds per CPU-second "
            "(ratios above 1: the new engine is faster).",
            "",
            f"| preset | new, lazy shoe | new, eager shoe | baseline {baseline.ref} "
            "| lazy ÷ baseline | eager ÷ baseline | eager and baseline same games |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for preset in play_presets:
            lazy = _find(timings, "croupier", "play", preset, "lazy")
            eager = _find(timings, "croupier", "play", preset, "eager")
            old = _find(timings, "baseline", "play", preset, "eager")
            lines.append(
                f"| {preset} | {_format_rate(lazy)} | {_format_rate(eager)} | {_format_rate(old)} "
                f"| {_format_ratio(_over(lazy, old))} | {_format_ratio(_over(eager, old))} "
                f"| {_format_same(_same_games(eager, old))} |"
            )
    replay_presets = _presets(timings, "replay")
    if replay_presets:
        old_name = f"baseline {baseline.ref}" if baseline is not None else "baseline"
        lines += [
            "",
            "Replay: a recorded round rebuilt from its inputs (a: new, b: baseline), and the "
            "snapshot after close_bets restored (c: new); rounds per CPU-second.",
            "",
            f"| preset | records | replay, new (a) | replay, {old_name} (b) | (a) ÷ (b) "
            "| restore, new (c) | mismatches a/b/c |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for preset in replay_presets:
            new = _find(timings, "croupier", "replay", preset)
            old = _find(timings, "baseline", "replay", preset)
            restore = _find(timings, "croupier", "restore", preset)
            mismatches = "/".join(
                "-" if t is None or t.mismatches is None else str(t.mismatches)
                for t in (new, old, restore)
            )
            lines.append(
                f"| {preset} | {new.rounds if new else '-'} | {_format_rate(new)} "
                f"| {_format_rate(old)} | {_format_ratio(_over(new, old))} "
                f"| {_format_rate(restore)} | {mismatches} |"
            )
    lines.append("")
    lines.append("CPU time of one run on a shared machine: compare the ratios, not the times.")
    return "\n".join(lines)


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description="Time croupier's engine against its baseline and beside small "
        "pure-Python blackjack packages."
    )
    parser.add_argument(
        "--rounds", type=int, default=20_000, help="rounds per preset and peer (default 20000)"
    )
    parser.add_argument(
        "--presets",
        nargs="+",
        default=list(PRESET_NAMES),
        choices=PRESET_NAMES,
        metavar="NAME",
        help="croupier presets to time (default all)",
    )
    parser.add_argument(
        "--peers",
        nargs="*",
        default=[name for name, _, _ in PEERS],
        choices=[name for name, _, _ in PEERS],
        metavar="NAME",
        help="peers to time (default all; none with an empty list)",
    )
    parser.add_argument(
        "--baseline",
        default=DEFAULT_BASELINE,
        metavar="REF",
        help=f"git ref of the engine to compare with (default {DEFAULT_BASELINE}, the last "
        f"commit before the engine's second edition; 'none' to skip it); its worktree is "
        f"kept in {BASELINE_ROOT.name}/REF",
    )
    parser.add_argument(
        "--replay-rounds",
        type=int,
        default=DEFAULT_REPLAY_ROUNDS,
        metavar="K",
        help=f"recorded rounds per preset to replay and restore (default "
        f"{DEFAULT_REPLAY_ROUNDS}; 0 skips the replay timings)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=DEFAULT_REPEAT,
        metavar="R",
        help=f"times every row is timed, the fastest kept (default {DEFAULT_REPEAT})",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--setup-peers",
        action="store_true",
        help=f"create {PEERS_VENV.name} and pip install the pinned peers, then exit",
    )
    parser.add_argument(
        "--no-setup",
        action="store_true",
        help="do not create the peers' environment when it is missing; say how instead",
    )
    # The baseline's side, run by this script in the baseline's subprocess.
    parser.add_argument("--worker", type=Path, metavar="JOB", help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {arguments.rounds}")
    if arguments.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {arguments.repeat}")
    if arguments.replay_rounds < 0:
        parser.error(f"--replay-rounds must be 0 or more, not {arguments.replay_rounds}")
    return arguments


def _ensure_peers(no_setup: bool) -> bool:
    """Whether the peers' environment is ready, set up here unless ``no_setup``."""
    if peers_ready():
        return True
    if no_setup:
        print(setup_message(), file=sys.stderr)
        return False
    print("the peers' environment is missing or incomplete: setting it up", file=sys.stderr)
    try:
        setup_peers()
    except (OSError, subprocess.CalledProcessError, RuntimeError) as error:
        print(f"{error}\n{setup_message()}", file=sys.stderr)
        return False
    if not peers_ready():
        print(setup_message(), file=sys.stderr)
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Time the presets, the baseline, the replays and the peers; print the tables or JSON."""
    arguments = parse_arguments(argv)
    if arguments.worker is not None:
        return run_worker(arguments.worker)
    if arguments.setup_peers:
        setup_peers()
        return 0 if peers_ready() else 1
    peer_names: list[str] = arguments.peers
    if peer_names and not _ensure_peers(arguments.no_setup):
        return 2
    baseline: Baseline | None = None
    if arguments.baseline.lower() != "none":
        try:
            baseline = prepare_baseline(arguments.baseline)
        except (OSError, RuntimeError) as error:
            print(f"the baseline {arguments.baseline}: {error}", file=sys.stderr)
            return 2
    presets: list[str] = arguments.presets
    rounds: int = arguments.rounds
    version = engine_version()
    records: dict[str, list[Record]] = {}
    restorables: dict[str, list[Restorable]] = {}
    for preset in presets if arguments.replay_rounds else ():
        recorded, restorables[preset] = record_rounds(preset, arguments.replay_rounds)
        # Replayed as the baseline reads them: JSON values.
        records[preset] = json.loads(json.dumps(recorded))
    runs: list[list[Timing]] = []
    baseline_file: str | None = None
    for _ in range(arguments.repeat):
        # One repetition times every row once, so that the machine's drift in speed falls
        # on every row alike.
        run: list[Timing] = []
        for preset in presets:
            run.append(time_croupier(preset, rounds, lazy=True, version=version))
            run.append(time_croupier(preset, rounds, lazy=False, version=version))
        for preset in records:
            run.append(time_replay(preset, records[preset], version))
            run.append(time_restore(preset, restorables[preset], version))
        if baseline is not None:
            baseline_run, baseline_file = run_baseline(baseline, presets, rounds, records)
            run += baseline_run
        run += [time_peer(name, rounds) for name in peer_names]
        runs.append(run)
    best = fastest(runs)
    play = [t for t in best if t.engine == "croupier" and t.task == "play"]
    replays = [t for t in best if t.engine == "croupier" and t.task != "play"]
    baseline_timings = [t for t in best if t.engine == "baseline"]
    peers = [t for t in best if t.engine == "peer"]
    timings: list[Timing] = []
    for preset in presets:
        timings += [t for t in play if t.label == preset]
        timings += [t for t in baseline_timings if t.task == "play" and t.label == preset]
    timings += peers
    for preset in records:
        timings += [t for t in replays if t.label == preset and t.task == "replay"]
        timings += [t for t in baseline_timings if t.task == "replay" and t.label == preset]
        timings += [t for t in replays if t.label == preset and t.task == "restore"]
    if arguments.json:
        print(json.dumps(summarise(timings, baseline, baseline_file, version), indent=2))
    else:
        print(render_table(timings, baseline))
        if baseline_file is not None:
            print(f"baseline croupier imported from {baseline_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
