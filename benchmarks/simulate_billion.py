"""A billion rounds of one preset on a local Dask cluster, held to the exact value.

Starts a Dask ``LocalCluster`` of one worker per core, runs the command as a user runs
it against that cluster::

    croupier simulate --rules NAME --rounds 1000000000 --cluster ADDRESS --json --timings

and prints the mean per initial bet with its 95% interval, the exact value of the
chart from the analysis, the z-score between them, the side bets' results, and the
time taken.  It runs twice: once with every round dealt from a full shoe
(``--set shuffle_every_round=true``), which is what the exact value assumes, so the
z-score there holds the kernel to the analysis; once as the preset deals, to its cut
card, where the difference from the full shoe's value is the cut-card effect.

Run: ``python benchmarks/simulate_billion.py [NAME] [ROUNDS]`` (needs
``croupier[simulate]``; defaults rws-v5 and 10^9).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from distributed import LocalCluster  # type: ignore[import-not-found,unused-ignore]


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "rws-v5"
    rounds = int(float(sys.argv[2])) if len(sys.argv) > 2 else 1_000_000_000
    workers = os.cpu_count() or 1
    with LocalCluster(  # type: ignore[no-untyped-call,unused-ignore]
        n_workers=workers, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        command = [sys.executable, "-m", "croupier", "simulate", "--rules", name]
        command += ["--cluster", cluster.scheduler_address, "--json", "--timings"]
        # Each worker loads the compiled kernel once before the run is timed.
        subprocess.run([*command, "--rounds", "10000"], capture_output=True, check=True)
        for label, settings in (
            ("every round from a full shoe", ["--set", "shuffle_every_round=true"]),
            ("as the preset deals (its cut card)", []),
        ):
            done = subprocess.run(
                [*command, *settings, "--rounds", str(rounds)],
                capture_output=True,
                text=True,
                check=True,
            )
            _print(name, rounds, workers, label, json.loads(done.stdout))


def _print(name: str, rounds: int, workers: int, label: str, report: dict[str, Any]) -> None:
    low, high = report["ci95"]
    print(f"croupier simulate --rules {name} --rounds {rounds:,} on {workers} Dask workers:")
    print(f"  {label}")
    print(f"  mean per initial bet  {report['mean']:+.6f}  (95% {low:+.6f} to {high:+.6f})")
    print(f"  exact (the chart)     {report['exact']:+.6f}")
    print(f"  z-score               {report['z']:+.2f}")
    print(f"  standard deviation    {report['sd']:.4f}")
    for key, side in sorted(report["side_bets"].items()):
        side_low, side_high = side["ci95"]
        print(
            f"  side bet {key:14s} mean {side['mean']:+.5f} "
            f"(95% {side_low:+.5f} to {side_high:+.5f}), hits {side['hits']:,}"
        )
    print(
        f"  {report['seconds']:.0f} s, {report['rounds_per_second'] / 1e6:.2f} M rounds/s"
        f" on {report['workers']} workers"
    )


if __name__ == "__main__":
    main()
