"""The engine, playing the derived basic strategy, against the chart's exact value.

For each preset: the basic strategy is derived, its exact expected value for a full
shoe computed, and the engine plays it over seeded rounds, each dealt from a freshly
shuffled shoe, one box at the table minimum.  The script prints one row a preset: the
exact value, the simulated mean with its standard error, the z-score, the engine's
speed, and whether the two agree within three standard errors.  It exits with status 1
when a preset does not agree.

Run it as::

    .venv/bin/python benchmarks/simulate_agreement.py --rounds 1000000 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from croupier.analysis.autoplay import play_rounds
from croupier.analysis.strategy import derive_strategy
from croupier.presets import PRESET_NAMES, find_rules

#: The agreement asked for: the mean within this many standard errors of the exact value.
STANDARD_ERRORS = 3.0

HEADER = (
    "| preset | rounds | exact TD EV | simulated mean ± SE | z | exact SD | simulated SD "
    "| rounds/s | agrees within 3 SE |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|:---:|"
)


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line: rounds, workers, presets and seed."""
    parser = argparse.ArgumentParser(
        description="Play the derived basic strategy through the engine and compare the "
        "mean result with the chart's exact expected value."
    )
    parser.add_argument(
        "--rounds", type=int, default=1_000_000, help="rounds per preset (default 1000000)"
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="processes playing the rounds (default 2)"
    )
    parser.add_argument(
        "--presets",
        nargs="+",
        default=["all"],
        metavar="NAME",
        help="presets to run, or all (default all)",
    )
    parser.add_argument(
        "--seed", type=int, default=2024, help="base seed; each preset derives its own"
    )
    arguments = parser.parse_args(argv)
    if arguments.presets == ["all"]:
        arguments.presets = list(PRESET_NAMES)
    return arguments


def percent(value: float) -> str:
    """A per-unit value as a signed percentage of the initial bet."""
    return f"{100 * value:+.4f}%"


def preset_seed(seed: int, name: str) -> int:
    """A preset's seed: the base seed plus the preset's place, so that no two share cards."""
    names = [known.lower() for known in PRESET_NAMES]
    return seed + (names.index(name.lower()) if name.lower() in names else len(names))


def run(name: str, rounds: int, workers: int, seed: int) -> bool:
    """Simulate one preset, print its row, and say whether it agrees."""
    rules = find_rules(name)
    strategy = derive_strategy(rules)
    evaluated = strategy.evaluate()
    exact = evaluated.ev
    start = time.perf_counter()
    tally = play_rounds(rules, strategy, rounds, seed, workers=workers)
    elapsed = time.perf_counter() - start
    z = tally.z_score(exact)
    agrees = abs(z) < STANDARD_ERRORS
    print(
        f"| {name} | {tally.rounds:,} | {percent(exact)} | "
        f"{percent(tally.mean)} ± {100 * tally.standard_error:.4f}% | {z:+.2f} | "
        f"{evaluated.sd:.4f} | {tally.standard_deviation:.4f} | "
        f"{tally.rounds / elapsed:,.0f} | {'yes' if agrees else 'no'} |",
        flush=True,
    )
    return agrees


def main(argv: Sequence[str] | None = None) -> int:
    """Run every preset asked for; 0 when all agree, 1 otherwise."""
    arguments = parse_arguments(argv)
    print(
        f"Basic strategy through the engine: {arguments.rounds:,} rounds a preset, "
        f"{arguments.workers} worker(s), seed {arguments.seed}; one box at the table "
        "minimum, a fresh shuffle every round; EV per unit initial bet.",
        flush=True,
    )
    print(HEADER, flush=True)
    results = [
        run(name, arguments.rounds, arguments.workers, preset_seed(arguments.seed, name))
        for name in arguments.presets
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
