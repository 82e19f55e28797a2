"""How fast the exact math is: the main game's EV alone, and every preset's full report.

Prints, beside the figures it is measured against:

* ``croupier edge --rules NAME --json`` as a user runs it, a new process each time: the
  first run with an empty cache (the kernels are compiled ahead of time into it), then
  every preset with the compiled kernels cached (a user's second run); beside it, the
  same with Numba's build (where the compiled one cannot be made: Numba loads in every
  process, and compiles into its own cache the first time), and on one core
  (``NUMBA_NUM_THREADS=1``: the dealer's distributions in one thread, and no helper
  process for the stated-RTP search);
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

from croupier.analysis import game, native, sidebets, strategy
from croupier.analysis.game import analyze
from croupier.analysis.report import par_sheet
from croupier.presets import PRESETS
from croupier.rules import Rules


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


def command_seconds(name: str, cache_dir: str, threads: int | None = None) -> float:
    """Wall seconds of ``croupier edge --rules NAME --json`` as a user runs it: a new
    process, default options, every cache in ``cache_dir`` (stated-RTP search, both
    strategies and every side bet included); with ``threads``, ``NUMBA_NUM_THREADS`` set
    to it (1: one core, no helper process for the search)."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, CROUPIER_CACHE_DIR=cache_dir)
    if threads is not None:
        environment["NUMBA_NUM_THREADS"] = str(threads)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "croupier", "edge", "--rules", name, "--json"],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start


def numba_only(cache_dir: str) -> None:
    """Mark the compiled build as failed in ``cache_dir``: Numba's build runs."""
    previous = os.environ.get("CROUPIER_CACHE_DIR")
    os.environ["CROUPIER_CACHE_DIR"] = cache_dir
    try:
        folder = native.compiled_folder()
    finally:
        if previous is None:
            del os.environ["CROUPIER_CACHE_DIR"]
        else:
            os.environ["CROUPIER_CACHE_DIR"] = previous
    folder.mkdir(parents=True)
    (folder / "failed.txt").write_text("Numba's build, for the benchmark\n")


def main() -> None:
    """Measure and print."""
    print("croupier edge --rules NAME --json, each a new process (wall seconds)   target 1 s")
    with tempfile.TemporaryDirectory() as compiled, tempfile.TemporaryDirectory() as jit:
        numba_only(jit)
        firsts = [command_seconds("rws-v5", cache) for cache in (compiled, jit)]
        print(f"  {'':32s} {'compiled':>9s} {'Numba':>9s} {'compiled, 1 core':>17s}")
        print(f"  {'first run (rws-v5), empty cache':32s} {firsts[0]:8.2f}s {firsts[1]:8.2f}s")
        print("  cached, best of 5 (the three taken in turn):")
        runs = ((compiled, None), (jit, None), (compiled, 1))
        for name in PRESETS:
            best = [9e9] * len(runs)
            for _ in range(5):
                for place, (cache, threads) in enumerate(runs):
                    best[place] = min(best[place], command_seconds(name, cache, threads))
            print(f"    {name:30s} {best[0]:8.2f}s {best[1]:8.2f}s {best[2]:16.2f}s")
    print()
    threads = native.threads()
    print("main game EV, composition-dependent, warm (best of 5)")
    print(f"  {'':30s} wall ({threads} threads)   CPU ({threads} threads)   CPU (1 thread)")
    for label, hands in (("8 decks, split once", 2), ("8 decks, resplit to 4 hands", 4)):
        rules = Rules(decks=8, max_split_hands=hands)
        analyze(rules)
        wall, cpu = best_wall_and_cpu(5, functools.partial(analyze, rules))
        os.environ["NUMBA_NUM_THREADS"] = "1"
        single = best_wall_and_cpu(5, functools.partial(analyze, rules))[1]
        os.environ["NUMBA_NUM_THREADS"] = str(threads)
        print(f"  {label:30s} {wall:8.3f} s {cpu:17.3f} s {single:15.3f} s")
    print("  (beside the C++ analyzer, in one run: python benchmarks/exact_anchor.py)")
    print()
    print(
        "full report, warm (both strategies, every side bet, no stated-RTP search; best of 3)"
        "   target 1 s"
    )
    timings = []
    for name, preset in PRESETS.items():
        par_sheet(preset.rules, explain=False)
        seconds = best_of(3, functools.partial(par_sheet, preset.rules, explain=False))
        timings.append(seconds)
        print(f"  {name:14s} {seconds:6.3f} s")
    print(f"  median {statistics.median(timings):.3f} s, slowest {max(timings):.3f} s")


if __name__ == "__main__":
    main()
