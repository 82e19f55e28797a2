"""How fast the exact math is: the main game's EV alone, and every preset's full report.

Prints, beside the figures it is measured against:

* the first run in a fresh process with an empty compile cache (Numba compiles);
* a fresh process whose compiled code is already cached on disk (a user's second run);
* warm, in one process, with every result cache cleared before each timing: the main
  game's composition-dependent EV for an 8-deck split-once rule set and for resplits to
  four hands, and each preset's full report (both strategies and all side bets).

The anchors: an open exact analyzer in C++ takes about 0.1 s of CPU for the 8-deck
split-once EV and about 0.4 s with resplits to four hands on this 2-core machine; an
exact analyzer in plain Python takes about 12 s.  Targets: every full report under 1 s
warm, and the main game's EV no slower than the C++ figures.

    python benchmarks/edge.py
"""

from __future__ import annotations

import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numba

from croupier.analysis import game, sidebets, strategy
from croupier.analysis.game import analyze
from croupier.analysis.report import par_sheet
from croupier.presets import PRESETS
from croupier.rules import Rules

ANCHORS = {"8 decks, split once": 0.1, "8 decks, resplit to 4 hands": 0.4}
PLAIN_PYTHON = 12.0


def clear_caches() -> None:
    """Forget every computed result, so a timing recomputes it all (compiled code stays)."""
    game._dealer_batch.cache_clear()
    strategy.derive_strategy.cache_clear()
    par_sheet.cache_clear()
    sidebets._classify.cache_clear()


def best_of(runs: int, work: Callable[[], object]) -> float:
    """The fastest of ``runs`` wall-clock timings, each from cleared caches."""
    return best_wall_and_cpu(runs, work)[0]


def best_wall_and_cpu(runs: int, work: Callable[[], object]) -> tuple[float, float]:
    """The fastest of ``runs`` timings as (wall seconds, CPU seconds of the process)."""
    times = []
    for _ in range(runs):
        clear_caches()
        start, cpu = time.perf_counter(), time.process_time()
        work()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return min(times)


def in_fresh_process(cache_dir: str) -> float:
    """Seconds for one full report in a new Python process using ``cache_dir``."""
    code = (
        "import time; t = time.perf_counter();"
        "from croupier.analysis.report import par_sheet;"
        "from croupier.presets import find_rules;"
        "par_sheet(find_rules('rws-v5'), explain=False);"
        "print(time.perf_counter() - t)"
    )
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    output = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    )
    return float(output.stdout.strip())


def main() -> None:
    """Measure and print."""
    with tempfile.TemporaryDirectory() as cache_dir:
        first = in_fresh_process(cache_dir)
        second = in_fresh_process(cache_dir)
    print("croupier exact math (rws-v5 full report, in a new process)")
    print(f"  first run, compiling:            {first:6.2f} s")
    print(f"  second run, compiled code cached: {second:6.2f} s")
    print()
    threads = numba.get_num_threads()
    print("main game EV, composition-dependent, warm (best of 5)")
    print(
        f"  {'':30s} wall ({threads} threads)   CPU ({threads} threads)   CPU (1 thread)"
        "   anchor (C++ CPU)"
    )
    for label, hands in (("8 decks, split once", 2), ("8 decks, resplit to 4 hands", 4)):
        rules = Rules(decks=8, max_split_hands=hands)
        analyze(rules)
        wall, cpu = best_wall_and_cpu(5, functools.partial(analyze, rules))
        numba.set_num_threads(1)
        single = best_wall_and_cpu(5, functools.partial(analyze, rules))[1]
        numba.set_num_threads(threads)
        print(
            f"  {label:30s} {wall:8.3f} s {cpu:17.3f} s {single:15.3f} s {ANCHORS[label]:15.1f} s"
        )
    print(f"  (an exact analyzer in plain Python: about {PLAIN_PYTHON:.0f} s)")
    print()
    print("full report, warm (both strategies, every side bet; best of 3)   target 1 s")
    timings = []
    for name, preset in PRESETS.items():
        par_sheet(preset.rules, explain=False)
        seconds = best_of(3, functools.partial(par_sheet, preset.rules, explain=False))
        timings.append(seconds)
        print(f"  {name:14s} {seconds:6.3f} s")
    print(f"  median {statistics.median(timings):.3f} s, slowest {max(timings):.3f} s")


if __name__ == "__main__":
    main()
