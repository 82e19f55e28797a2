"""How fast the exact math is: every preset's report as a user runs it, the main game's
EV alone, and the C++ analyzer beside it, in one run.

Prints:

* ``croupier edge --rules NAME --json`` as a user runs it, a new process each time: the
  first run with an empty cache (the kernels are compiled ahead of time into it, and
  the stated-RTP search runs), then every preset with its caches warm (a user's second
  run: the compiled kernels, and the search's answer kept on disk by the first run);
  beside it the same with the search's answer forgotten before each run (the search
  runs, as on a first run: live and online-8deck, the presets that state an RTP), with
  Numba's build (where the compiled one cannot be made: Numba loads in every process),
  and on one core (``NUMBA_NUM_THREADS=1``: the dealer's distributions in one thread,
  and no helper process); with ``--baseline SRC``, also croupier imported from another
  version's ``src`` folder (a before and after in the same run);
* warm, in one process, with every result cache cleared before each timing: the main
  game's composition-dependent EV for an 8-deck split-once rule set and for resplits to
  four hands, and each preset's full report (both strategies and all side bets);
* the C++ analyzer's EV beside croupier's, one thread each (``exact_anchor.py``, built
  from a checkout of it at ``.anchor/blackjack`` or ``--anchor PATH``; croupier alone
  where there is none).

Target: every preset's report under 1 s as a new process, its caches warm, and with
the stated-RTP search's answer not kept (a first run's search afresh).

    python benchmarks/edge.py [--repeats 5] [--baseline OTHER/src] [--anchor PATH]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import exact_anchor

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


def command_seconds(
    name: str, cache_dir: str, threads: int | None = None, source: str | None = None
) -> float:
    """Wall seconds of ``croupier edge --rules NAME --json`` as a user runs it: a new
    process, default options, every cache in ``cache_dir`` (stated-RTP search, both
    strategies and every side bet included); with ``threads``, ``NUMBA_NUM_THREADS`` set
    to it (1: one core, no helper process for the search); with ``source``, croupier
    imported from that ``src`` folder (another version of it, for a before and after)."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, CROUPIER_CACHE_DIR=cache_dir)
    if threads is not None:
        environment["NUMBA_NUM_THREADS"] = str(threads)
    if source is not None:
        environment["PYTHONPATH"] = source
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "croupier", "edge", "--rules", name, "--json"],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start


def forget_searches(cache_dir: str) -> None:
    """Empty the stated-RTP search's answers kept in ``cache_dir`` (the kernels stay)."""
    shutil.rmtree(Path(cache_dir) / "stated-rtp", ignore_errors=True)


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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="timings per cell (best kept)")
    parser.add_argument(
        "--baseline",
        metavar="SRC",
        help="another version's src folder, timed beside this one (a before and after)",
    )
    parser.add_argument(
        "--anchor",
        type=Path,
        default=exact_anchor.DEFAULT_ANCHOR,
        help="a checkout of the C++ analyzer (benchmarks/exact_anchor.py), run beside",
    )
    options = parser.parse_args()
    repeats = options.repeats
    print(
        f"croupier edge --rules NAME --json, each a new process (wall seconds, best of {repeats})"
    )
    print("  target 1 s for every preset, its caches warm or its stated-RTP search afresh")
    with (
        tempfile.TemporaryDirectory() as compiled,
        tempfile.TemporaryDirectory() as jit,
        tempfile.TemporaryDirectory() as before,
    ):
        numba_only(jit)
        first = time.perf_counter()
        command_seconds("rws-v5", compiled)
        print(
            f"  first run, empty cache (rws-v5: compiles the kernels): "
            f"{time.perf_counter() - first:.2f} s"
        )
        first = time.perf_counter()
        command_seconds("rws-v5", jit)
        print(f"  first run, empty cache, Numba's build: {time.perf_counter() - first:.2f} s")
        # Each column: (label, cache, threads, source, forget the search's answers first).
        columns: list[tuple[str, str, int | None, str | None, bool]] = [
            ("warm", compiled, None, None, False),
            ("search afresh", compiled, None, None, True),
            ("Numba's build", jit, None, None, False),
            ("1 core", compiled, 1, None, False),
        ]
        if options.baseline:
            command_seconds("rws-v5", before, source=options.baseline)
            columns.append(("baseline", before, None, options.baseline, False))
        print("  " + " " * 14 + "".join(f"{label:>15s}" for label, *_ in columns))
        for name in PRESETS:
            best = [9e9] * len(columns)
            for _ in range(repeats):
                for place, (_, cache, threads, source, forget) in enumerate(columns):
                    if forget:
                        forget_searches(cache)
                    seconds = command_seconds(name, cache, threads, source)
                    best[place] = min(best[place], seconds)
            print(f"  {name:14s}" + "".join(f"{seconds:14.2f}s" for seconds in best))
        print(
            "  (warm: kernels compiled and the stated-RTP search's answer kept; search afresh:"
            " its answer\n   not kept, as on a first run; live and online-8deck search, the"
            " others state no RTP)"
        )
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
    print()
    print("beside the C++ analyzer (benchmarks/exact_anchor.py), in this run:")
    sys.stdout.flush()
    exact_anchor.compare(options.anchor, 3)


if __name__ == "__main__":
    main()
