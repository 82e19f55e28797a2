"""Rounds per second of the simulator's kernel on one core, for every preset.

Prints the kernel's rate (the best of 3 runs) with and without the preset's side
bets, with 1 and 7 boxes, beside the engine's own rate (a few hundred rounds through
:class:`~croupier.analysis.autoplay.StrategyPlayer`), and first the target rule set:
6 decks, S17, DAS, peek, 75% penetration, one box.  The first call of the kernel
compiles it (cached on disk afterwards); its time is printed.

Run: ``python benchmarks/simulate_speed.py [ROUNDS]``.
"""

from __future__ import annotations

import sys
import time

from croupier.analysis.autoplay import play_rounds
from croupier.analysis.strategy import derive_strategy
from croupier.presets import PRESET_NAMES, find_rules
from croupier.rules import Rules
from croupier.simulate.compile import compile_game, compile_strategy
from croupier.simulate.run import Chunk, _Work, play_chunk


def kernel_rate(rules: Rules, rounds: int, boxes: int, side_bets: bool, repeats: int = 3) -> float:
    """Kernel rounds per second of process time on one core, the best of ``repeats`` runs
    (the machine is shared: the best is the least disturbed)."""
    offered = rules.side_bets_offered() if side_bets else ()
    work = _Work(
        compile_game(rules, boxes=boxes, side_bets=offered),
        compile_strategy(derive_strategy(rules)),
    )
    chunk = Chunk(0, rounds, (1, 2, 3, 4))
    best = 0.0
    for _ in range(repeats):
        start = time.process_time()
        play_chunk(work, chunk)
        best = max(best, rounds / (time.process_time() - start))
    return best


def engine_rate(rules: Rules, rounds: int) -> float:
    """Engine rounds per second of process time, one box."""
    start = time.process_time()
    play_rounds(rules, derive_strategy(rules), rounds, seed=1)
    return rounds / (time.process_time() - start)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    target = find_rules("online-8deck").replace(
        decks=6, penetration="3/4", shuffle_every_round=False, surrender="none"
    )
    start = time.perf_counter()
    kernel_rate(target, 10, 1, False, repeats=1)
    print(f"first call (compile or load from the cache): {time.perf_counter() - start:.1f} s")
    rate = kernel_rate(target, rounds, 1, False)
    print(f"6 decks S17 DAS peek 75% penetration, 1 box: {rate / 1e6:.2f} M rounds/s")
    print(f"{'preset':14} {'1 box':>8} {'1+side':>8} {'7 boxes':>8} {'7+side':>8} {'engine':>8}")
    for name in PRESET_NAMES:
        rules = find_rules(name)
        seven = min(7, rules.boxes)
        rates = [
            kernel_rate(rules, rounds, 1, False),
            kernel_rate(rules, rounds, 1, True),
            kernel_rate(rules, rounds // 4, seven, False),
            kernel_rate(rules, rounds // 4, seven, True),
        ]
        engine = engine_rate(rules, 300)
        cells = " ".join(f"{rate / 1e6:7.2f}M" for rate in rates)
        print(f"{name:14} {cells} {engine / 1e3:7.1f}k")


if __name__ == "__main__":
    main()
