"""`croupier simulate` on 1 and 2 local workers and on a local Dask cluster of 2 workers.

Runs the command as a user runs it (``croupier simulate ... --json``) on the target rule
set (6 decks, S17, DAS, peek, 75% penetration, one box, basic strategy), prints its
rounds per second (wall time, the compile or cache load before the first chunk
included), the scaling from 1 to 2 workers, and the core-seconds one billion rounds
take, from which a cluster's cost per billion rounds follows: core-seconds / 3600 times
the price of a core-hour.  It checks that the cluster's result equals the local one.

Run: ``python benchmarks/simulate_scaling.py [ROUNDS]`` (needs ``croupier[simulate]``).
"""

from __future__ import annotations

import json
import subprocess
import sys

from distributed import LocalCluster  # type: ignore[import-not-found,unused-ignore]

#: An assumed price of one core-hour on a cloud's compute-optimised machines, in dollars.
PRICE_PER_CORE_HOUR = 0.05

TARGET = [
    "--rules",
    "online-8deck",
    "--set",
    "decks=6",
    "--set",
    "penetration=3/4",
    "--set",
    "surrender=none",
    "--set",
    "shuffle_every_round=false",
]


def run(rounds: int, *options: str) -> dict[str, object]:
    """The command's JSON report."""
    command = [
        sys.executable,
        "-m",
        "croupier",
        "simulate",
        *TARGET,
        "--rounds",
        str(rounds),
        "--seed",
        "1",
    ]
    command += ["--json", "--timings"]
    done = subprocess.run([*command, *options], capture_output=True, text=True, check=True)
    report: dict[str, object] = json.loads(done.stdout)
    return report


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40_000_000
    run(1000, "--workers", "1")  # the kernel compiled once, into the disk cache
    one = run(rounds, "--workers", "1")
    two = run(rounds, "--workers", "2")
    with LocalCluster(  # type: ignore[no-untyped-call,unused-ignore]
        n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        run(1000, "--cluster", cluster.scheduler_address)  # each worker loads the kernel
        remote = run(rounds, "--cluster", cluster.scheduler_address)
    for name, report in (("1 worker", one), ("2 workers", two), ("Dask, 2 workers", remote)):
        rate = float(report["rounds_per_second"])  # type: ignore[arg-type]
        print(f"{name:16} {rate / 1e6:6.2f} M rounds/s  {report['seconds']:.1f} s")
    rate_one = float(one["rounds_per_second"])  # type: ignore[arg-type]
    rate_two = float(two["rounds_per_second"])  # type: ignore[arg-type]
    print(f"scaling 1 -> 2 workers: {rate_two / rate_one:.2f}x")
    core_seconds = 1e9 / rate_one
    print(f"core-seconds per 10^9 rounds: {core_seconds:.0f}")
    cost = core_seconds / 3600 * PRICE_PER_CORE_HOUR
    print(f"cost per 10^9 rounds at ${PRICE_PER_CORE_HOUR} a core-hour: ${cost:.4f}")
    same = all(remote[key] == one[key] for key in ("rounds", "mean", "ci95", "sd", "outcomes"))
    print(f"cluster result equals the local result: {same}")


if __name__ == "__main__":
    main()
