"""How long the light commands take to start, run as a user runs them.

Runs ``croupier --help`` and ``croupier rules list`` (the installed entry point next to
this Python) several times each and prints the fastest and the median wall time, and
the CPU time of the fastest run, so that a busy machine shows as a gap between the two.

    python benchmarks/cli_startup.py [RUNS]
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = (["--help"], ["rules", "list"])


def entry_point() -> str:
    """The ``croupier`` command of this Python's environment."""
    beside = Path(sys.executable).with_name("croupier")
    found = str(beside) if beside.exists() else shutil.which("croupier")
    if found is None:
        raise SystemExit("no croupier command: pip install -e . first")
    return found


def timed(command: list[str]) -> tuple[float, float]:
    """One run: (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    croupier = entry_point()
    print(f"croupier start-up, {runs} runs each (fastest, median wall; CPU of the fastest)")
    for arguments in COMMANDS:
        timings = sorted(timed([croupier, *arguments]) for _ in range(runs))
        median = statistics.median(wall for wall, _ in timings)
        wall, cpu = timings[0]
        print(
            f"  croupier {' '.join(arguments):12s} {wall:5.3f} s  {median:5.3f} s  cpu {cpu:5.3f} s"
        )


if __name__ == "__main__":
    main()
