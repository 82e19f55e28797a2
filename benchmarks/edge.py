"""How fast the exact math is: the main game's EV alone, and every preset's full report.

Prints, beside the figures it is measured against:

* ``croupier edge --rules NAME --json`` as a user runs it, a new process each time: the
  first run with an empty compile cache (Numba compiles), then every preset with the
  compiled code cached on disk (a user's second run);
* warm, in one process, with every result cache cleared before each timing: the main
  game's composition-dependent EV for an 8-deck split-once rule set and for resplits to
  four hands, and each preset's full report (both strategies and all side bets).

Targets: every full report under 1 s.  The main game's EV beside the C++ analyzer it
is measured against, built and run in the same run: ``benchmarks/exact_anchor.py``.

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

from croupier.analysis import game, report, sidebets, strategy
from croupier.analysis.game import analyze
from croupier.analysis.report import par_sheet
from croupier.presets import PRESETS
from croupier.rules import Rules


def clear_caches() -> None:
    """Forget every computed result, so a timing recomputes it all (compiled code stays)."""
    game._dealer_batch.cache_clear()
    strategy.derive_strategy.cache_clear()
    par_sheet.cache_clear()
    report._explain.cache_clear()
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


def command_seconds(name: str, cache_dir: str) -> float:
    """Wall seconds of ``croupier edge --rules NAME --json`` as a user runs it: a new
    process, default options, the compiled code in ``cache_dir`` (stated-RTP search,
    both strategies and every side bet included)."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "croupier", "edge", "--rules", name, "--json"],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start


def main() -> None:
    """Measure and print."""
    print("croupier edge --rules NAME --json, each a new process (wall seconds)")
    with tempfile.TemporaryDirectory() as cache_dir:
        first = command_seconds("rws-v5", cache_dir)
        print(f"  first run (rws-v5), compiling into an empty cache: {first:6.2f} s")
        print("  compiled code cached, best of 2:")
        for name in PRESETS:
            seconds = min(command_seconds(name, cache_dir) for _ in range(2))
            print(f"    {name:14s} {seconds:6.2f} s")
    print()
    threads = numba.get_num_threads()
    print("main game EV, composition-dependent, warm (best of 5)")
    print(f"  {'':30s} wall ({threads} threads)   CPU ({threads} threads)   CPU (1 thread)")
    for label, hands in (("8 decks, split once", 2), ("8 decks, resplit to 4 hands", 4)):
        rules = Rules(decks=8, max_split_hands=hands)
        analyze(rules)
        wall, cpu = best_wall_and_cpu(5, functools.partial(analyze, rules))
        numba.set_num_threads(1)
        single = best_wall_and_cpu(5, functools.partial(analyze, rules))[1]
        numba.set_num_threads(threads)
        print(f"  {label:30s} {wall:8.3f} s {cpu:17.3f} s {single:15.3f} s")
    print("  (beside the C++ analyzer, in one run: python benchmarks/exact_anchor.py)")
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
