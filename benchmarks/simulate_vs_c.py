"""croupier's simulator kernel beside a plain C simulator of the same game, in one run.

The C simulator is ``benchmarks/simulate_anchor.c`` (this project's own, plain C: see
its header): 6 decks, S17, peek, DAS, pairs of a rank split once, split Aces one card,
no surrender, no insurance, 3:2, one box, the shoe shuffled at 75%, xoshiro256** and an
incremental Fisher-Yates deal.  The script writes croupier's chart for that game as a C
header, builds the simulator with ``gcc -O2`` twice (with that chart, and with the
textbook chart the C file holds), and runs each and croupier's kernel on one core for
the same number of rounds, each the best of ``--repeats`` runs by CPU time (the C
program times its own loop with ``clock()``; the kernel is timed with
``time.process_time`` around its calls, after one call that compiles or loads it).
The runs are short and many, taken in turn, so that the busy moments of a shared
machine fall on each simulator alike and each one's best run is a quiet one.

Prints rounds per CPU-second for each, the ratio of croupier's to the C simulator's
with the same chart (target: 1.0 or more), each one's mean result per round with its
standard error (every run's rounds pooled), and the z of the two means' difference:
the same game, played with different random cards, agrees within sampling error.

    python benchmarks/simulate_vs_c.py [--rounds 2000000] [--repeats 20]
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from croupier.analysis.strategy import derive_strategy
from croupier.presets import find_rules
from croupier.rules import Rules
from croupier.simulate import kernel
from croupier.simulate.compile import PLAY_CODES, compile_game, compile_strategy
from croupier.simulate.run import Chunk, _Work, play_chunk

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "simulate_anchor.c"
#: The C file's play letters by croupier's chart codes (no surrender in this game).
_LETTERS = {0: "H", 1: "S", 2: "D", 3: "d", 4: "P"}


@dataclass(frozen=True)
class Run:
    """One simulator's best run: rounds, CPU seconds, the net and its squares in half
    units (a bet is two)."""

    rounds: int
    seconds: float
    net: int
    squares: int

    @property
    def rate(self) -> float:
        return self.rounds / self.seconds

    @property
    def mean(self) -> float:
        return self.net / 2 / self.rounds

    @property
    def error(self) -> float:
        variance = self.squares / 4 / self.rounds - self.mean**2
        return math.sqrt(variance / self.rounds)


def target_rules() -> Rules:
    """The game both play: the online table's rules at 6 decks, 75%, no surrender."""
    return find_rules("online-8deck").replace(
        decks=6, penetration="3/4", shuffle_every_round=False, surrender="none"
    )


def chart_header(rules: Rules) -> str:
    """croupier's chart for ``rules`` as the C simulator's tables."""
    tables = compile_strategy(derive_strategy(rules))
    codes = {code: play for play, code in PLAY_CODES.items()}

    def letter(code: int) -> str:
        if code not in _LETTERS:
            raise ValueError(f"the C simulator has no play {codes[code].value!r}")
        return _LETTERS[code]

    def table(name: str, rows: list[list[str]]) -> str:
        lines = [f"static const unsigned char {name}[{len(rows)}][10] = {{"]
        lines += ["    {" + ", ".join(row) + "}," for row in rows]
        return "\n".join([*lines, "};"])

    first, drawn = tables.first_play, tables.drawn_stands
    parts = ["/* croupier's chart, written by benchmarks/simulate_vs_c.py. */"]
    for name, soft in (("HARD", 0), ("SOFT", 1)):
        parts.append(
            table(name, [[letter(int(first[soft, t, u])) for u in range(10)] for t in range(22)])
        )
    for name, soft in (("DRAWN_HARD", 0), ("DRAWN_SOFT", 1)):
        rows = [["S" if drawn[soft, t, u] else "H" for u in range(10)] for t in range(22)]
        parts.append(table(name, rows))
    pairs = [
        ["P" if int(tables.pair_play[p, u]) == 4 else "H" for u in range(10)] for p in range(10)
    ]
    parts.append(table("PAIR", pairs))
    return "\n".join(parts) + "\n"


def build(folder: Path, header: str | None) -> Path:
    """The C simulator compiled with gcc -O2 (with ``header`` as its chart, if given)."""
    binary = folder / ("anchor-chart" if header is not None else "anchor-textbook")
    command = ["gcc", "-O2", "-o", str(binary), str(SOURCE)]
    if header is not None:
        (folder / "chart.h").write_text(header)
        command[1:1] = [f'-DSTRATEGY_FILE="{folder / "chart.h"}"']
    subprocess.run(command, check=True, capture_output=True, text=True)
    return binary


def run_c(binary: Path, rounds: int, seed: int) -> Run:
    out = subprocess.run(
        [str(binary), str(rounds), str(seed)], check=True, capture_output=True, text=True
    ).stdout.split()
    return Run(int(out[0]), float(out[3]), int(out[1]), int(out[2]))


def run_croupier(work: _Work, rounds: int, seed: int) -> Run:
    """croupier's kernel on one core, in chunks of at most ``MAX_CHUNK`` rounds."""
    generator = np.random.SeedSequence(seed)
    net = squares = 0
    seconds = 0.0
    left, index = rounds, 0
    while left > 0:
        size = min(left, kernel.MAX_CHUNK)
        state = tuple(int(word) for word in generator.spawn(1)[0].generate_state(4, np.uint64))
        chunk = Chunk(index, size, (state[0], state[1], state[2], state[3]))
        start = time.process_time()
        _, tally, *_ = play_chunk(work, chunk)
        seconds += time.process_time() - start
        net += int(tally[kernel.T_NET])
        squares += int(tally[kernel.T_ROUND_SQUARES])
        left -= size
        index += 1
    return Run(rounds, seconds, net, squares)


def best(runs: list[Run]) -> Run:
    """The fastest run's rate, with the mean of every run (all their rounds pooled)."""
    fastest = min(runs, key=lambda run: run.seconds)
    return Run(
        sum(run.rounds for run in runs),
        fastest.seconds * len(runs),
        sum(run.net for run in runs),
        sum(run.squares for run in runs),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2_000_000, help="rounds per run")
    parser.add_argument("--repeats", type=int, default=20, help="runs of each (best kept)")
    options = parser.parse_args()
    if shutil.which("gcc") is None:
        sys.exit("gcc is needed to build the C simulator")
    rules = target_rules()
    game = compile_game(rules, boxes=1)
    if game.unit != 2:
        sys.exit(f"the game's unit is {game.unit}, not 2")
    work = _Work(game, compile_strategy(derive_strategy(rules)))
    start = time.perf_counter()
    play_chunk(work, Chunk(0, 10, (1, 2, 3, 4)))
    print(f"croupier's kernel: first call (compile or load) {time.perf_counter() - start:.1f} s")
    with tempfile.TemporaryDirectory() as folder:
        chart = build(Path(folder), chart_header(rules))
        textbook = build(Path(folder), None)
        results: dict[str, list[Run]] = {"c": [], "textbook": [], "croupier": []}
        for repeat in range(options.repeats):
            # Taken in turn, so a busy moment of the machine falls on each alike.
            results["c"].append(run_c(chart, options.rounds, 1 + repeat))
            results["croupier"].append(run_croupier(work, options.rounds, 1 + repeat))
            results["textbook"].append(run_c(textbook, options.rounds, 101 + repeat))
    c, ours, book = best(results["c"]), best(results["croupier"]), best(results["textbook"])
    print(
        f"6 decks S17 DAS peek, split once, 75% penetration, one box: {options.rounds:,} "
        f"rounds a run, best of {options.repeats} by CPU time, one core; the means pool every run"
    )
    print(f"  {'simulator':38s} {'M rounds/CPU-s':>14s} {'mean per round':>15s} {'SE':>9s}")
    for label, run in (
        ("C (simulate_anchor.c, croupier's chart)", c),
        ("croupier's kernel", ours),
        ("C (simulate_anchor.c, textbook chart)", book),
    ):
        print(f"  {label:38s} {run.rate / 1e6:14.2f} {run.mean:+15.5f} {run.error:9.5f}")
    print(f"  ratio, croupier over C with the same chart: {ours.rate / c.rate:.2f}   target 1.0")
    z = (ours.mean - c.mean) / math.hypot(ours.error, c.error)
    print(f"  the two means differ by {ours.mean - c.mean:+.5f}: z {z:+.2f} (same game: |z| < 3)")


if __name__ == "__main__":
    main()
