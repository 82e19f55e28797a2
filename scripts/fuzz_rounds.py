"""Play random rounds at scale and check every property the fuzz test checks.

The rounds are those of ``tests/test_round_fuzz.py`` (the driver is
``tests/fuzz_driver.py``): random boxes and players, legal and illegal commands,
irregularities, hand-dealt rounds with jokers and excess cards, a snapshot, a copy and
a pickle run on beside the round.  Round ``i`` of a preset is played from the seed
text ``"{seed}:{preset}:{i}"``, so any failure is reproduced by its seed and index:

    python scripts/fuzz_rounds.py --rounds 200000 --presets all --seed 1
    python scripts/fuzz_rounds.py --presets rws-v5 --seed 1 --only 73   # one round, shown

For each preset it prints the rounds played and checked, the irregularities exercised,
the failures found (each property once, with the seed and round index of its first
failure and a reproduction cut down to a few commands from a fixed card order), and
the rounds played per second.  The exit status is 1 when any round failed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from croupier.presets import PRESETS  # noqa: E402
from tests.fuzz_driver import (  # noqa: E402
    describe_repro,
    fixed_setup,
    play_random_round,
    shrink,
)


def round_seed(seed: int, preset: str, index: int) -> str:
    """The seed text of one round."""
    return f"{seed}:{preset}:{index}"


@dataclass
class Found:
    """A failing round: where it is and what failed."""

    preset: str
    index: int
    check: str
    message: str


@dataclass
class Tally:
    """What a batch of rounds of one preset gave."""

    stats: Counter[str] = field(default_factory=Counter)
    failures: list[Found] = field(default_factory=list)


Job = tuple[str, int, int, int, bool, frozenset[str]]


def play_batch(job: Job) -> Tally:
    """Play rounds ``start`` to ``stop`` of a preset."""
    preset, seed, start, stop, deep, tolerate = job
    tally = Tally()
    for index in range(start, stop):
        record = play_random_round(
            preset,
            random.Random(round_seed(seed, preset, index)),
            deep=deep,
            tolerate=tolerate,
        )
        tally.stats.update(record.stats)
        if record.failure is not None:
            tally.failures.append(Found(preset, index, record.failure.check, str(record.failure)))
    return tally


def reproduction(
    preset: str, seed: int, index: int, *, cut: bool, tolerate: frozenset[str] = frozenset()
) -> str:
    """The failing round again, cut down to a short reproduction from a fixed card order."""
    record = play_random_round(
        preset, random.Random(round_seed(seed, preset, index)), tolerate=tolerate
    )
    if record.failure is None:
        return "    (the round passes when played again)"
    setup = fixed_setup(record)
    commands = record.commands
    fork_at = record.fork_at
    if cut:
        setup, commands, fork_at = shrink(
            setup, commands, fork_at, record.failure.check, tolerate=tolerate
        )
    text = describe_repro(setup, commands, fork_at)
    return "\n".join("    " + line for line in text.splitlines())


def irregularity_line(stats: Counter[str]) -> str:
    names = [
        ("time_out", "irregularity:time_out"),
        ("walk_away", "irregularity:walk_away"),
        ("return_bets", "irregularity:return_bets"),
        ("interrupt", "irregularity:interrupt"),
        ("  of which continued", "interrupt:continued"),
        ("  of which void", "interrupt:void"),
        ("void", "irregularity:void"),
        ("settle by hand", "irregularity:settle"),
        ("foreign card", "void:foreign-card"),
        ("excess card", "void:excess-card"),
        ("shoe exhausted", "void:shoe-exhausted"),
    ]
    return ", ".join(f"{label.strip()} {stats.get(key, 0)}" for label, key in names)


def report(
    preset: str,
    tally: Tally,
    seconds: float,
    seed: int,
    *,
    cut: bool,
    shown: int,
    tolerate: frozenset[str],
) -> None:
    stats = tally.stats
    played = stats.get("rounds", 0)
    print(f"{preset}:")
    print(
        f"  rounds played {played}, checked {stats.get('checked', 0)}, "
        f"settled {stats.get('phase:settled', 0)}, void {stats.get('phase:void', 0)}; "
        f"commands {stats.get('accepted', 0) + stats.get('refused', 0)} "
        f"(refused {stats.get('refused', 0)}); snapshot forks {stats.get('forks', 0)}"
    )
    print(
        f"  cards from: shoe {stats.get('mode:shoe', 0)}, short fixed order "
        f"{stats.get('mode:fixed', 0)}, dealt by hand {stats.get('mode:hand', 0)}, "
        f"dealer entry {stats.get('mode:entry', 0)}"
    )
    print(f"  irregularities: {irregularity_line(stats)}")
    for key, value in sorted(stats.items()):
        if key.startswith("tolerated:"):
            print(f"  known defect {key.removeprefix('tolerated:')}: {value} rounds (tolerated)")
    by_check: dict[str, list[Found]] = {}
    for found in tally.failures:
        by_check.setdefault(found.check, []).append(found)
    print(f"  failures: {len(tally.failures)}")
    for check, founds in sorted(by_check.items()):
        first = min(founds, key=lambda item: item.index)
        again = "".join(f" --tolerate {name}" for name in sorted(tolerate))
        print(
            f"  - {check}: {len(founds)} rounds; first: --seed {seed} --presets {preset} "
            f"--only {first.index}{again}"
        )
        print(f"    {first.message.splitlines()[0][:400]}")
        if shown > 0:
            print(reproduction(preset, seed, first.index, cut=cut, tolerate=tolerate))
            shown -= 1
    rate = played / seconds if seconds > 0 else 0.0
    print(f"  rounds per second: {rate:.0f} ({seconds:.1f} s)")


def show_round(preset: str, seed: int, index: int, tolerate: frozenset[str]) -> int:
    """Play one round and print every command, its result and the failure, if any."""
    record = play_random_round(
        preset, random.Random(round_seed(seed, preset, index)), tolerate=tolerate
    )
    print(f"{preset} seed {seed} round {index}: {record.setup}")
    print(f"snapshot/copy/pickle before command {record.fork_at}")
    for number, step in enumerate(record.steps):
        outcome = "ok" if step.accepted else f"refused ({step.error})"
        print(f"  {number:3d}. {step.command!r}: {outcome}")
    if record.failure is None:
        print("passes")
        return 0
    print(f"FAILED {record.failure}")
    print("cut down:")
    print(reproduction(preset, seed, index, cut=True, tolerate=tolerate))
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per preset")
    parser.add_argument(
        "--presets", default="all", help="'all' or preset names separated by commas"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--jobs", type=int, default=multiprocessing.cpu_count(), help="processes to play in"
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="compare a fingerprint, not the whole snapshot, around refused commands",
    )
    parser.add_argument("--only", type=int, help="play and show this one round")
    parser.add_argument(
        "--tolerate",
        action="append",
        default=[],
        metavar="CHECK",
        help="count, do not fail on, this check (a known defect), to hunt for others",
    )
    parser.add_argument("--no-cut", action="store_true", help="do not shorten reproductions")
    parser.add_argument("--repros", type=int, default=6, help="reproductions printed per preset")
    args = parser.parse_args(argv)
    names = list(PRESETS) if args.presets == "all" else args.presets.split(",")
    unknown = [name for name in names if name not in PRESETS]
    if unknown:
        parser.error(f"unknown preset(s) {', '.join(unknown)}; the presets: {', '.join(PRESETS)}")
    tolerate = frozenset(args.tolerate)
    if args.only is not None:
        return max(show_round(name, args.seed, args.only, tolerate) for name in names)
    jobs = max(1, args.jobs)
    failed = False
    print(
        f"fuzz_rounds: {args.rounds} rounds per preset, seed {args.seed}, {jobs} processes, "
        f"{'fingerprint' if args.fast else 'snapshot'} check of refused commands"
    )
    with multiprocessing.Pool(jobs) as pool:
        for name in names:
            size = max(50, min(1000, args.rounds // (jobs * 4) or 1))
            batches = [
                (name, args.seed, start, min(start + size, args.rounds), not args.fast, tolerate)
                for start in range(0, args.rounds, size)
            ]
            started = time.perf_counter()
            tally = Tally()
            for part in pool.imap_unordered(play_batch, batches):
                tally.stats.update(part.stats)
                tally.failures.extend(part.failures)
            seconds = time.perf_counter() - started
            report(
                name,
                tally,
                seconds,
                args.seed,
                cut=not args.no_cut,
                shown=args.repros,
                tolerate=tolerate,
            )
            sys.stdout.flush()
            failed = failed or bool(tally.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
