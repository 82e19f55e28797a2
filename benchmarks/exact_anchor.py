"""The exact math beside a C++ combinatorial analyzer, in one run: CPU time and values.

The anchor is Eric Farmer's blackjack analyzer (GPL-3.0), whose public source is at
https://github.com/possibly-wrong/blackjack.  It is never part of this project: give
the benchmark a checkout of it::

    git clone https://github.com/possibly-wrong/blackjack .anchor/blackjack
    python benchmarks/exact_anchor.py                       # looks in .anchor/blackjack
    python benchmarks/exact_anchor.py --anchor PATH/TO/blackjack

With a C++ compiler (``c++``, ``g++`` or ``clang++``) and that checkout present, the
script writes a small driver of its own (below: it constructs the analyzer's
``BJPlayer`` for the rules and prints the overall EV and the CPU seconds the
construction took, measured with ``std::clock`` inside the process), compiles it with
``-O2`` against the checkout's ``src/blackjack.cpp`` into a temporary folder, and runs
it for each rule set.  Without them it says what is missing and times croupier alone.

croupier runs each case in a new process of this Python with ``NUMBA_NUM_THREADS=1``
(one thread: the anchor is single-threaded), after one analysis of a 3-deck game that
no case uses (so the compiled code is loaded and nothing computed for a case is
cached), and times ``croupier.analysis.game.analyze(rules, outcomes=False)`` with
``time.process_time``: the composition-dependent EV of the full shoe, what the anchor's
``BJPlayer`` computes.  Both play post-split hands by the anchor's CDP1 convention (the
strategy for split hands optimised for the first split hand) and resplit whenever a pair
card comes; both values are printed, with their difference.

The rule sets: dealer peeks, blackjack pays 3:2, double on any two cards (soft too),
no double after a hit, Aces split once and not hit; S17 or H17, DAS, split to 2 or 4
hands, with or without late surrender.  Each timing is the best of ``--repeats`` runs
(the machine is shared: the best is the least disturbed).  The ratio printed is
croupier's CPU over the anchor's: under 1, croupier is faster.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ANCHOR = REPO / ".anchor" / "blackjack"
SOURCE_URL = "https://github.com/possibly-wrong/blackjack"

#: The driver: this project's own text, compiled against the anchor's library.
DRIVER = r"""
#include "blackjack.h"
#include <cstdio>
#include <cstdlib>
#include <ctime>

// argv: decks, hits soft 17, double after split, resplit (to 4 hands), late surrender.
int main(int argc, char **argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: driver DECKS H17 DAS RESPLIT SURRENDER\n");
        return 2;
    }
    int decks = std::atoi(argv[1]);
    bool h17 = std::atoi(argv[2]) != 0;
    bool das = std::atoi(argv[3]) != 0;
    bool resplit = std::atoi(argv[4]) != 0;
    bool surrender = std::atoi(argv[5]) != 0;
    BJShoe shoe(decks);
    // hit soft 17, double any total, double 9, double soft, double after hit,
    // double after split, resplit, resplit aces, late surrender, blackjack pays.
    BJRules rules(h17, true, true, true, false, das, resplit, false, surrender, 1.5);
    BJStrategy strategy(false, true);  // CDP1
    BJProgress progress;
    std::clock_t start = std::clock();
    BJPlayer *player = new BJPlayer(shoe, rules, strategy, progress);
    double seconds = double(std::clock() - start) / CLOCKS_PER_SEC;
    std::printf("%.15f %.6f\n", (double) player->getValue(), seconds);
    return 0;
}
"""

#: Run by this Python as ``python -c CROUPIER CASE_JSON``: one JSON line {"ev", "cpu"}.
CROUPIER = r"""
import json
import sys
import time

from croupier.analysis import game
from croupier.rules import Rules, Surrender

case = json.loads(sys.argv[1])
def rules(decks, hands):
    return Rules(
        decks=decks,
        dealer_hits_soft_17=case["h17"],
        double_after_split=case["das"],
        max_split_hands=hands,
        surrender=Surrender.LATE if case["surrender"] else Surrender.NONE,
    )
game.analyze(rules(3, case["hands"]), outcomes=False)
game._dealer_batch.cache_clear()
start = time.process_time()
result = game.analyze(rules(case["decks"], case["hands"]), outcomes=False)
print(json.dumps({"ev": result.ev, "cpu": time.process_time() - start}))
"""


@dataclass(frozen=True)
class Case:
    label: str
    decks: int
    h17: bool
    das: bool
    hands: int
    surrender: bool


CASES = (
    Case("8 decks S17 DAS, split once", 8, False, True, 2, False),
    Case("8 decks S17 DAS, resplit to 4", 8, False, True, 4, False),
    Case("6 decks H17 DAS LS, resplit to 4", 6, True, True, 4, True),
    Case("1 deck S17 DAS, split once", 1, False, True, 2, False),
)


def build_anchor(anchor: Path, work: Path) -> Path | str:
    """The compiled driver, or why it could not be built."""
    library = anchor / "src" / "blackjack.cpp"
    if not library.is_file():
        return f"no anchor source at {anchor} (git clone {SOURCE_URL} {anchor})"
    compiler = next(
        (found for name in ("c++", "g++", "clang++") if (found := shutil.which(name))), None
    )
    if compiler is None:
        return "no C++ compiler (c++, g++ or clang++) on the PATH"
    driver = work / "driver.cpp"
    driver.write_text(DRIVER)
    binary = work / "driver"
    print(f"building the anchor with {compiler} -O2 (a minute or so) ...", file=sys.stderr)
    build = subprocess.run(
        [compiler, "-O2", "-I", str(anchor / "src"), "-o", str(binary), str(driver), str(library)],
        capture_output=True,
        text=True,
        check=False,
    )
    if build.returncode != 0:
        return f"the anchor did not build: {build.stderr.strip().splitlines()[-1:]}"
    return binary


def run_anchor(binary: Path, case: Case) -> tuple[float, float]:
    """The anchor's EV and CPU seconds for ``case``."""
    args = [case.decks, case.h17, case.das, case.hands > 2, case.surrender]
    out = subprocess.run(
        [str(binary), *(str(int(arg)) for arg in args)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout.split()
    return float(out[0]), float(out[1])


def run_croupier(case: Case) -> tuple[float, float]:
    """croupier's EV and CPU seconds for ``case``, one thread, in a new process."""
    environment = dict(os.environ, NUMBA_NUM_THREADS="1")
    spec = {"decks": case.decks, "h17": case.h17, "das": case.das, "hands": case.hands}
    spec["surrender"] = case.surrender
    out = subprocess.run(
        [sys.executable, "-c", CROUPIER, json.dumps(spec)],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
        timeout=600,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return float(result["ev"]), float(result["cpu"])


def compare(anchor: Path, repeats: int) -> None:
    """Build the anchor from the checkout at ``anchor`` and print each case for both
    (croupier alone where the anchor cannot be built), each the best of ``repeats``."""
    with tempfile.TemporaryDirectory() as folder:
        binary = build_anchor(anchor, Path(folder))
        if isinstance(binary, str):
            print(f"anchor: {binary}; timing croupier alone")
        print(
            f"{'rules':36s} {'croupier CPU':>12s} {'anchor CPU':>10s} {'ratio':>6s}"
            f"   {'croupier EV':>18s} {'anchor EV':>18s} {'difference':>10s}"
        )
        for case in CASES:
            ours = min((run_croupier(case) for _ in range(repeats)), key=lambda run: run[1])
            if isinstance(binary, str):
                print(f"{case.label:36s} {ours[1]:10.3f} s {'':>10s} {'':>6s}   {ours[0]:18.15f}")
                continue
            theirs = min((run_anchor(binary, case) for _ in range(repeats)), key=lambda run: run[1])
            print(
                f"{case.label:36s} {ours[1]:10.3f} s {theirs[1]:8.3f} s {ours[1] / theirs[1]:6.2f}"
                f"   {ours[0]:18.15f} {theirs[0]:18.15f} {ours[0] - theirs[0]:10.2e}"
            )
    print("CPU: one thread each, best of", repeats, "; ratio: croupier over anchor")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--anchor", type=Path, default=DEFAULT_ANCHOR, help="anchor checkout")
    parser.add_argument("--repeats", type=int, default=3, help="timings per case (best kept)")
    options = parser.parse_args()
    compare(options.anchor, options.repeats)


if __name__ == "__main__":
    main()
