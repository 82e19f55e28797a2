"""The run: reproducible chunks, agreement with the exact value, the command line."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner

from croupier.cli import cli
from croupier.presets import find_rules
from croupier.simulate.run import simulate
from tests.test_simulate_engine import VARIANTS


@pytest.mark.slow
def test_same_seed_same_result_whatever_the_workers() -> None:
    rules = find_rules("live")
    one = simulate(rules, rounds=30_000, seed=3, boxes=2, chunk_rounds=7_000)
    two = simulate(rules, rounds=30_000, seed=3, boxes=2, chunk_rounds=7_000, workers=2)
    assert one == two
    assert one != simulate(rules, rounds=30_000, seed=4, boxes=2, chunk_rounds=7_000)


@pytest.mark.slow
def test_shuffled_every_round_the_mean_agrees_with_the_exact_value() -> None:
    # A full shoe every round is what the exact analysis assumes.
    for name in ("rws-v5", "online-8deck", "casino-to-go"):
        rules = find_rules(name).replace(shuffle_every_round=True)
        result = simulate(rules, rounds=2_000_000, seed=11)
        assert result.exact is not None
        low, high = result.ci95
        assert result.z is not None and abs(result.z) < 3.5, (name, result.mean, result.exact)
        assert high - low < 0.004


@pytest.mark.slow
def test_side_bet_means_agree_with_their_pay_tables() -> None:
    # Checked against the exact side-bet analysis of the same rules.
    from croupier.analysis.sidebets import analyze_side_bets

    for name in ("rws-v5", "live"):
        rules = find_rules(name).replace(shuffle_every_round=True)
        offered = rules.side_bets_offered()
        result = simulate(rules, rounds=1_000_000, seed=5, boxes=2, side_bets=offered)
        exact = analyze_side_bets(rules)
        for key, side in result.side_bet_results().items():
            expected = float(exact[key].ev)
            half = (side.ci95[1] - side.ci95[0]) / 2
            # 3.5 standard errors either side (a 95% half width is 1.96).
            assert abs(side.mean - expected) < half * 3.5 / 1.96, (name, key, side.mean, expected)


def test_command_json_schema_and_bad_input() -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["simulate", "--rules", "rws-v5", "--rounds", "20000", "--workers", "1", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in (
        "rules",
        "rounds",
        "mean",
        "ci95",
        "sd",
        "exact",
        "z",
        "workers",
        "seed",
        "outcomes",
        "side_bets",
    ):
        assert key in data
    assert data["rounds"] == 20000 and len(data["ci95"]) == 2
    # RWS v5 preset: 8 decks dealt to a cut card three quarters in, so the mean is not a
    # full shoe's and the report says how the rounds were dealt.
    assert data["shoe"] == {"decks": 8, "penetration": "3/4", "shuffle_every_round": False}
    # The same seed gives the same JSON: the speed goes to stderr.
    assert "seconds" not in data and "rounds_per_second" not in data
    assert "rounds/s" in result.stderr
    unknown = runner.invoke(cli, ["simulate", "--rules", "nowhere"])
    assert unknown.exit_code == 2 and "Invalid value for '--rules'" in unknown.stderr
    bad = [
        ["--rules", "live", "--set", "decks=99"],
        ["--rules", "live", "--count", "hi-lo", "--spread", "8-1"],
        ["--rules", "live", "--side-bets", "under_13"],
    ]
    for arguments in bad:
        failed = runner.invoke(cli, ["simulate", *arguments])
        assert failed.exit_code == 2, arguments
        assert failed.stderr.startswith("error: ") and failed.stderr.count("\n") == 1


def test_counting_with_a_spread_reports_win_rate_and_risk_of_ruin() -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "simulate",
            "--rules",
            "rws-v5",
            "--rounds",
            "50000",
            "--workers",
            "1",
            "--count",
            "hi-lo",
            "--spread",
            "1-8",
            "--indices",
            "--bankroll",
            "1000",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    counting = json.loads(result.stdout)["counting"]
    assert counting["spread"] == [1, 8]
    assert 0 <= counting["risk_of_ruin"] <= 1


def test_side_bet_amounts_scale_their_tallies_exactly() -> None:
    from fractions import Fraction

    from croupier.rules import SideBet
    from croupier.simulate import kernel
    from croupier.simulate.compile import SIDE_BETS

    rules = find_rules("rws-v5")
    under, over = SideBet.UNDER_13, SideBet.OVER_13
    one = simulate(rules, rounds=20_000, seed=9, boxes=2, side_bets=(under, over))
    amounts = {under: Fraction(1, 2), over: Fraction(3)}
    mixed = simulate(
        rules, rounds=20_000, seed=9, boxes=2, side_bets=(under, over), side_bet_amounts=amounts
    )
    # Side bets take no cards: the main game is the same round for round.
    assert mixed.tally[: kernel.T_SIDE] == one.tally[: kernel.T_SIDE]
    # Stakes of 1/2 and 3 initial bets are 1 and 6 side-bet units of 1/2 bet, so every net,
    # a whole number of units, is 1 and 6 times the net of a 1-bet stake.
    assert mixed.side_scale == 2
    for side_bet, factor in ((under, 1), (over, 6)):
        base = kernel.T_SIDE + SIDE_BETS.index(side_bet) * kernel.SIDE_FIELDS
        assert mixed.tally[base + kernel.T_SIDE_NET] == factor * one.tally[base + kernel.T_SIDE_NET]
        assert mixed.tally[base + kernel.T_SIDE_SQUARES] == (
            factor * factor * one.tally[base + kernel.T_SIDE_SQUARES]
        )
    # Per unit staked the results are the same.
    for key, side in mixed.side_bet_results().items():
        reference = one.side_bet_results()[key]
        assert side.mean == pytest.approx(reference.mean, abs=1e-15)
        assert side.hits == reference.hits
    assert mixed.side_bet_results()["over_13"].stake == 3


def test_side_bet_amounts_on_the_command_line() -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "simulate",
            "--rules",
            "rws-v5",
            "--rounds",
            "5000",
            "--workers",
            "1",
            "--side-bets",
            "under_13=0.5",
            "--side-bets",
            "over_13=1/5",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    sides = json.loads(result.stdout)["side_bets"]
    assert sides["under_13"]["stake"] == "1/2" and sides["over_13"]["stake"] == "1/5"
    for setting in ("under_13=0", "under_13=-1", "under_13=abc", "under_13=1/0", "under_13=101"):
        failed = runner.invoke(cli, ["simulate", "--rules", "rws-v5", "--side-bets", setting])
        assert failed.exit_code == 2, setting
        assert failed.stderr.startswith(f"error: --side-bets {setting}: the amount must")
        assert failed.stderr.count("\n") == 1
    # Stakes of 1/997, 1/991 and 100 bets are whole numbers of 1/988,027 of a bet: a chunk's
    # sum of squared side-bet results could overflow 64 bits, so the run is refused.
    fine = ["under_13=1/997", "over_13=1/991", "player_pair=100"]
    arguments = ["simulate", "--rules", "rws-v5", "--rounds", "10"]
    refused = runner.invoke(cli, [*arguments, *(f"--side-bets={bet}" for bet in fine)])
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1
    assert "counted in 1/988027 of a bet, too fine to tally exactly" in refused.stderr
    twice = runner.invoke(
        cli,
        ["simulate", "--rules", "rws-v5", "--side-bets", "under_13", "--side-bets", "under_13=2"],
    )
    assert twice.exit_code == 2 and "given twice" in twice.stderr


def _interrupt_after(calls: int) -> Callable[[int], None]:
    count = 0

    def progress(done: int) -> None:
        nonlocal count
        count += 1
        if count >= calls:
            raise KeyboardInterrupt

    return progress


def test_ctrl_c_stops_the_run_and_keeps_the_chunks_finished() -> None:
    rules = find_rules("live")
    stopped = simulate(
        rules, rounds=50_000, seed=2, chunk_rounds=10_000, progress=_interrupt_after(2)
    )
    assert stopped.interrupted and stopped.played == 20_000
    # The chunks kept are the run's first two, as a run of 20,000 rounds plays them.
    assert stopped == simulate(rules, rounds=20_000, seed=2, chunk_rounds=10_000)
    parallel = simulate(
        rules, rounds=200_000, seed=2, chunk_rounds=10_000, workers=2, progress=_interrupt_after(1)
    )
    assert parallel.interrupted and 10_000 <= parallel.played < 200_000
    assert parallel.played % 10_000 == 0


def test_ctrl_c_on_the_command_line_reports_what_was_done(monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier.simulate import run

    played = 0
    real = run.play_chunk

    def play_then_interrupt(work: object, chunk: run.Chunk) -> object:
        nonlocal played
        if played:
            raise KeyboardInterrupt
        played += 1
        return real(work, chunk)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "play_chunk", play_then_interrupt)
    arguments = ["simulate", "--rules", "live", "--rounds", "3000000", "--workers", "1"]
    result = CliRunner().invoke(cli, [*arguments, "--json"])
    assert result.exit_code == 130, result.output
    data = json.loads(result.stdout)
    assert data["interrupted"] is True and data["rounds"] == run.CHUNK_ROUNDS
    played = 1  # the first chunk is interrupted: nothing to report
    nothing = CliRunner().invoke(cli, arguments)
    assert nothing.exit_code == 130
    assert nothing.stderr == "error: interrupted before the first chunk of rounds finished\n"


def _positions(rules_name: str, shuffle_every_round: bool, rounds: int = 400) -> list[int]:
    """The shoe position after each of ``rounds`` rounds played as a run plays them
    (with its running-mean trace, as ``play_chunk`` passes one)."""
    import numpy as np

    from croupier.analysis.strategy import derive_strategy
    from croupier.simulate import kernel
    from croupier.simulate.compile import compile_game, compile_strategy

    rules = find_rules(rules_name).replace(shuffle_every_round=shuffle_every_round)
    game = compile_game(rules)
    tables = compile_strategy(derive_strategy(rules))
    record = np.zeros((rounds, kernel.R_WIDTH), dtype=np.int64)
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
        rounds,
        np.array((1, 2, 3, 4), dtype=np.uint64),
        np.zeros(kernel.TALLY_SIZE, dtype=np.int64),
        np.zeros(2 * 10 * game.unit + 1, dtype=np.int64),
        np.zeros(201, dtype=np.int64),
        record,
        np.full((1, 2), -1, dtype=np.int64),
        np.zeros((40, kernel.TRACE_FIELDS), dtype=np.int64),
    )
    return [int(position) for position in record[:, kernel.R_POSITION]]


def test_a_shoe_game_is_dealt_down_to_its_cut_card() -> None:
    # RWS v5 preset: 8 decks, cut about three quarters in, no shuffle between rounds
    # (rws-v5.toml, [rules.penetration] and [rules.shuffle_every_round]).
    rules = find_rules("rws-v5")
    cut = int(rules.decks * 52 * rules.penetration)
    positions = _positions("rws-v5", shuffle_every_round=False)
    # A shoe lasts many rounds: each round starts where the last one ended until a
    # round starts at or past the cut card.
    assert max(positions) >= cut
    assert max(positions) < cut + 40
    shuffles = sum(1 for before, after in itertools.pairwise(positions) if after < before)
    # About 5 cards a round of one box: a shoe lasts between cut/7 and cut/4 rounds.
    assert cut / 7 < 400 / shuffles < cut / 4


def test_a_game_shuffled_every_round_starts_every_round_from_a_full_shoe() -> None:
    # Online 8-deck rulebook: "Decks of cards may be shuffled by the dealer (operator)
    # after every hand" (online-8deck.toml, [rules.shuffle_every_round]).
    positions = _positions("online-8deck", shuffle_every_round=True)
    assert max(positions) <= 21  # one round of one box: at most 21 cards
    assert max(_positions("rws-v5", shuffle_every_round=True)) <= 21


#: Rule changes that reach the plain kernel's other paths: hits soft 17, 6:5, resplit
#: and hit split Aces; late surrender with a peek, pairs by rank, 9-11 doubles, no DAS;
#: no hole card, the dealer's blackjack takes all, draw to 12; no peek with
#: casino-to-go surrender; 2:1 wins.
PLAIN_VARIANTS: dict[str, dict[str, object]] = {
    "": {},
    **VARIANTS,
    "no-peek-casino-to-go-3-hands": {
        "hole_card": "no-peek",
        "surrender": "casino-to-go",
        "max_split_hands": "3",
    },
    "wins-pay-2:1": {"win_pays": "2/1"},
}


def _general_and_fast(
    game: Any, params: Any, fast: Any, rounds: int, seed: tuple[int, ...]
) -> tuple[list[int], list[tuple[Any, ...]]]:
    """``rounds`` of ``game`` (with rule parameters ``params``) from one seed, played by
    run_chunk and by the kernel ``fast``: each one's shoe position, and its shoe,
    generator, tally, histograms (hands, sessions) and trace."""
    import numpy as np

    from croupier.analysis.strategy import derive_strategy
    from croupier.simulate import kernel
    from croupier.simulate.compile import compile_strategy

    tables = compile_strategy(derive_strategy(game.rules))
    common = (tables.first_play, tables.drawn_stands, tables.pair_play, tables.index_plays)
    positions: list[int] = []
    results: list[tuple[Any, ...]] = []
    for plain in (False, True):
        shoe = game.shoe.copy()
        state = np.array(seed, dtype=np.uint64)
        tally = np.zeros(kernel.TALLY_SIZE, dtype=np.int64)
        hands = np.zeros(2 * 10 * game.unit + 1, dtype=np.int64)
        sessions = np.zeros(201, dtype=np.int64)
        trace = np.zeros((16, kernel.TRACE_FIELDS), dtype=np.int64)
        sums = (tally, hands, sessions, trace)
        if plain:
            position = fast(shoe, params, *common, rounds, state, *sums)
        else:
            position = kernel.run_chunk(
                shoe,
                False,
                params,
                *common,
                game.side_pays,
                game.side_stakes,
                rounds,
                state,
                tally,
                hands,
                sessions,
                np.zeros((0, kernel.R_WIDTH), dtype=np.int64),
                np.full((1, 2), -1, dtype=np.int64),
                trace,
            )
        positions.append(position)
        results.append((shoe, state, *sums))
    return positions, results


@pytest.mark.parametrize("variant", list(PLAIN_VARIANTS))
@pytest.mark.parametrize("name", ["rws-v4", "rws-v5", "online-8deck", "casino-to-go", "live"])
def test_the_plain_kernel_plays_exactly_as_the_general_one(name: str, variant: str) -> None:
    # run_plain is a kernel of its own, written for speed, for a run without the count,
    # side bets, random decisions or recording (run_peek, the peek game's, another); it
    # must deal the same cards and give the same sums, histograms and trace as run_chunk,
    # and leave the generator and the shoe in the same place, whatever the rules and the
    # boxes (one box has code of its own).
    import numpy as np

    from croupier.simulate import kernel
    from croupier.simulate.compile import compile_game
    from croupier.simulate.run import _fast_kernel

    rules = find_rules(name).replace(**PLAIN_VARIANTS[variant])
    for boxes in (1, min(3, rules.boxes)):
        game = compile_game(rules, boxes=boxes)
        positions, (general, fast) = _general_and_fast(
            game, game.params, _fast_kernel(game), 20_000, (5, 6, 7, 8)
        )
        assert positions[0] == positions[1]
        for one, two in zip(general, fast, strict=True):
            assert np.array_equal(one, two)
        assert general[2][kernel.T_ROUNDS] == 20_000


def test_a_first_run_says_it_compiles_and_compiles_once_before_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With an empty cache the kernel is compiled in the parent, once, before the clock
    starts (the workers then load it), and the command says so on stderr; with the
    kernel cached nothing is said."""
    from croupier.simulate import run

    told: list[str] = []
    monkeypatch.setattr(run, "kernel_cached", lambda game: False)
    result = run.simulate(find_rules("rws-v5"), rounds=2000, compiling=lambda: told.append("x"))
    assert told == ["x"] and result.played == 2000
    said = CliRunner().invoke(cli, ["simulate", "--rounds", "2000", "--workers", "1", "--json"])
    assert said.exit_code == 0 and "compiling the simulator's kernel (once" in said.stderr
    monkeypatch.setattr(run, "kernel_cached", lambda game: True)
    quiet = CliRunner().invoke(cli, ["simulate", "--rounds", "2000", "--workers", "1", "--json"])
    assert quiet.exit_code == 0 and "compiling" not in quiet.stderr


def test_a_run_of_10_14_rounds_is_planned_lazily() -> None:
    """The chunks of a run are made as they are played: 10^14 rounds plan at once, in
    next to no memory, each chunk seeded as it is in a short run."""
    import tracemalloc

    import numpy as np

    from croupier.simulate import run

    tracemalloc.start()
    plan = run.chunks(10**14, seed=3)
    first, last = plan[0], plan[-1]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100_000
    assert len(plan) == -(-(10**14) // run.CHUNK_ROUNDS)
    assert last.rounds == 10**14 - (len(plan) - 1) * run.CHUNK_ROUNDS
    assert first == run.chunks(3 * run.CHUNK_ROUNDS, seed=3)[0]
    # As NumPy's spawned children of the seed, whatever the run's length.
    child = np.random.SeedSequence(3).spawn(3)[2].generate_state(4, dtype=np.uint64)
    assert run.chunks(5, seed=3, chunk_rounds=2)[2].state == tuple(int(word) for word in child)
    stopped = simulate(find_rules("live"), rounds=10**14, seed=3, progress=_interrupt_after(1))
    assert stopped.interrupted and stopped.played == run.CHUNK_ROUNDS


@pytest.mark.parametrize("rounds", ["0", str(10**18 + 1), "1" + "0" * 40])
def test_rounds_out_of_range_is_one_line_and_exit_2(rounds: str) -> None:
    result = CliRunner().invoke(cli, ["simulate", "--rounds", rounds])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--rounds" in result.stderr


def _start_run(*extra: str) -> tuple[Any, list[Any]]:
    """``croupier simulate --workers 2`` in a session of its own (as a terminal runs
    it), once its two workers have started."""
    import subprocess
    import sys
    import time

    import psutil

    command = [sys.executable, "-m", "croupier", "simulate", "--rules", "casino-to-go"]
    command += ["--rounds", "300000000", "--workers", "2", "--json", *extra]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    workers: list[Any] = []
    while len(workers) < 2 and time.monotonic() < deadline:
        children = psutil.Process(process.pid).children()
        workers = [child for child in children if "resource_tracker" not in child.cmdline()[-1]]
        time.sleep(0.1)
    assert len(workers) >= 2, "the workers did not start"
    return process, workers


def _gone(workers: list[Any], seconds: float) -> bool:
    import time

    import psutil

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
        if not alive:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signal_name", "to_group", "status"),
    [("SIGINT", True, 130), ("SIGTERM", False, 143)],
)
def test_one_ctrl_c_or_sigterm_stops_a_run_with_workers_cleanly(
    signal_name: str, to_group: bool, status: int
) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it, while the
    workers are still starting) or SIGTERM to the command alone: the run stops at once,
    keeps the chunks finished or under way, prints them marked interrupted (or says
    none finished), exits 130 or 143, and leaves no worker and no traceback."""
    import os
    import signal
    import subprocess

    process, workers = _start_run()
    number = getattr(signal, signal_name)
    if to_group:
        os.killpg(process.pid, number)
    else:
        os.kill(process.pid, number)
    try:
        out, err = process.communicate(timeout=90)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure this test is for
        os.killpg(process.pid, signal.SIGKILL)
        raise
    assert process.returncode == status, err
    assert b"Traceback" not in err
    if out:
        assert json.loads(out)["interrupted"] is True
    else:
        assert err.endswith(b"error: interrupted before the first chunk of rounds finished\n")
    assert _gone(workers, 10)


@pytest.mark.slow
def test_the_workers_end_when_the_run_is_killed() -> None:
    """SIGKILL of the command (a time limit) takes its workers with it at once."""
    import os
    import signal

    process, workers = _start_run()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert _gone(workers, 10)


_ORPHAN = """
import multiprocessing, os, sys, time
from croupier.simulate import run

def worker(parent):
    run._start_worker(parent)
    print("working", flush=True)
    time.sleep(120)

if __name__ == "__main__":
    child = multiprocessing.get_context("spawn").Process(target=worker, args=(os.getpid(),))
    child.start()
    print(child.pid, flush=True)
    time.sleep(120)
"""


@pytest.mark.slow
def test_a_worker_busy_for_minutes_ends_when_its_parent_is_killed(tmp_path: Any) -> None:
    """A worker process started as the run starts them ends with its parent, even in
    the middle of a long piece of work (Linux: PR_SET_PDEATHSIG)."""
    import os
    import signal
    import subprocess
    import sys

    import psutil

    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN, encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE)
    assert parent.stdout is not None
    worker = psutil.Process(int(parent.stdout.readline()))
    assert parent.stdout.readline() == b"working\n"  # at its work, its start behind it
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    assert _gone([worker], 5)


@pytest.mark.parametrize("bankroll", ["nan", "inf"])
def test_a_bankroll_that_is_not_a_finite_number_is_refused(bankroll: str) -> None:
    result = CliRunner().invoke(
        cli, ["simulate", "--count", "hi-lo", "--bankroll", bankroll, "--rounds", "100"]
    )
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error: --bankroll {bankroll}: a bankroll is a finite number of initial bets\n"
    )


def test_counting_figures_share_one_basis_the_round_of_every_box_without_voids() -> None:
    """Win and SD per 100 rounds, N0, SCORE and the risk of ruin all come from one
    mean and variance: a round's result over every box played, void rounds left out,
    in minimum bets (two boxes here: the round, not the box)."""
    import math

    from croupier.simulate import kernel
    from croupier.simulate.run import ROUND_BASIS

    result = simulate(
        find_rules("rws-v5"), rounds=30_000, seed=4, boxes=2, spread=(1, 8), chunk_rounds=10_000
    )
    t = result.tally
    n = t[kernel.T_ROUNDS] - t[kernel.T_VOIDS]
    mu = t[kernel.T_NET] / result.unit / n
    variance = (t[kernel.T_ROUND_SQUARES] / result.unit**2 - n * mu * mu) / (n - 1)
    assert result.per_round() == pytest.approx((mu, variance))
    assert result.win_per_100_rounds() == pytest.approx(100 * mu)
    assert result.sd_per_100_rounds() == pytest.approx(10 * math.sqrt(variance))
    if mu > 0:
        assert result.n0() == pytest.approx(variance / mu**2)
        assert result.score() == pytest.approx(1e6 * mu**2 / variance)
        assert result.risk_of_ruin(500) == pytest.approx(math.exp(-2 * mu * 500 / variance))
    else:
        assert result.n0() == math.inf and result.score() == 0 and result.risk_of_ruin(500) == 1
    counting = result.to_json(500)["counting"]
    assert isinstance(counting, dict)
    assert counting["basis"] == ROUND_BASIS
    assert counting["sd_per_100_rounds"] == result.sd_per_100_rounds()
    assert counting["n0_rounds"] == (result.n0() if mu > 0 else None)
    json.dumps(counting, allow_nan=False)


def test_the_bet_ramp_sets_the_bet_at_each_true_count() -> None:
    """``--ramp``: the default is the true count less one (held within the spread), the
    same as its steps written out; a flat ramp bets one unit at every count and plays
    the same cards as a run without a count."""
    from croupier.simulate import kernel

    rules = find_rules("rws-v5")
    run = {"rounds": 20_000, "seed": 6, "chunk_rounds": 10_000}
    default = simulate(rules, spread=(1, 8), **run)  # type: ignore[arg-type]
    written = tuple((count, count - 1) for count in range(3, 10))
    assert simulate(rules, spread=(1, 8), ramp=written, **run) == default  # type: ignore[arg-type]
    assert default.ramp is None
    assert default.to_json()["counting"]["ramp"] == "initial bets = true count - 1"  # type: ignore[index]
    flat = simulate(rules, spread=(1, 8), ramp=((-20, 1),), **run)  # type: ignore[arg-type]
    t = flat.tally
    assert t[kernel.T_WAGERED] == t[kernel.T_ROUNDS] * flat.unit
    plain = simulate(rules, **run)  # type: ignore[arg-type]
    assert t[kernel.T_NET] == plain.tally[kernel.T_NET]
    steep = simulate(rules, spread=(1, 8), ramp=((1, 8),), **run)  # type: ignore[arg-type]
    assert steep.tally[kernel.T_WAGERED] > default.tally[kernel.T_WAGERED]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--ramp", "1:1"], "error: --ramp needs --count hi-lo\n"),
        (["--count", "hi-lo", "--ramp", "2:2,1:1"], "error: --ramp 2:2,1:1: expected TC:BETS"),
        (["--count", "hi-lo", "--ramp", "1:0"], "error: --ramp 1:0: expected TC:BETS"),
        (["--count", "hi-lo", "--ramp", "\uff11:1"], "error: --ramp"),
    ],
)
def test_a_bad_ramp_is_one_line_and_exit_2(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["simulate", "--rounds", "100", *arguments])
    assert result.exit_code == 2
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1


def test_a_short_run_without_workers_given_plays_in_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker takes seconds to start: without ``--workers`` a run gets one per idle
    core and per 50,000,000 rounds, so a short run on a machine of many idle cores
    plays here, and a long one on a busy machine spreads only over the cores idle."""
    import os

    from croupier.cli import simulate as command

    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    result = CliRunner().invoke(cli, ["simulate", "--rules", "live", "--rounds", "3000", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["workers"] == 1
    assert command.default_workers(4 * command.ROUNDS_PER_WORKER) == 4
    monkeypatch.setattr(os, "getloadavg", lambda: (13.7, 0.0, 0.0))
    assert command.default_workers(10**10) == 2


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("online-8deck", {}),
        ("online-8deck", {"shuffle_every_round": True, "surrender": "none"}),
        ("online-8deck", {"split_match": "value", "double_after_split": False}),
        ("online-8deck", {"hit_split_aces": True, "double_on": "9-11", "decks": 2}),
    ],
)
def test_the_peek_game_kernel_plays_exactly_as_the_general_one(
    name: str, changes: dict[str, Any]
) -> None:
    # The one-box peek game (a hole card and the peek, one split, no early surrender)
    # has a kernel of its own (kernel.run_peek): the same cards, sums, histograms
    # (sessions of 25 rounds too), trace, shoe and generator as run_chunk.
    import numpy as np

    from croupier.simulate import kernel
    from croupier.simulate.compile import compile_game

    rules = find_rules(name).replace(max_split_hands=2, **changes)
    game = compile_game(rules, boxes=1)
    params = game.params.copy()
    params[kernel.P_SESSION] = 25
    assert kernel.peek_plays(params, game.shoe.shape[0])
    positions, (general, peek) = _general_and_fast(
        game, params, kernel.run_peek, 30_000, (9, 10, 11, 12)
    )
    assert positions[0] == positions[1]
    for one, two in zip(general, peek, strict=True):
        assert np.array_equal(one, two)
    assert peek[2][kernel.T_SPLITS] > 0 and peek[2][kernel.T_DOUBLES] > 0
    assert peek[4].sum() == 30_000 // 25
