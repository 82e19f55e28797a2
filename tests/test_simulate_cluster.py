"""A run on a Dask cluster equals the same run on one machine, bit for bit."""

from __future__ import annotations

import json
from collections.abc import Iterator

import distributed
import pytest
from click.testing import CliRunner

from croupier.cli import cli
from croupier.presets import find_rules
from croupier.rules import SideBet
from croupier.simulate.run import simulate


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    # Two small worker processes, as on a cluster: each unpickles the game and plays.
    with distributed.LocalCluster(  # type: ignore[no-untyped-call,unused-ignore]
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


def test_a_cluster_run_equals_a_local_run(scheduler: str) -> None:
    from croupier.simulate.cluster import connect, submitter, worker_threads

    rules = find_rules("rws-v5")
    settings = {
        "rounds": 25_000,
        "seed": 17,
        "boxes": 3,
        "side_bets": (SideBet.UNDER_13,),
        "chunk_rounds": 4_000,
    }
    local = simulate(rules, **settings)  # type: ignore[arg-type]
    with connect(scheduler) as client:
        assert worker_threads(client) == 2
        remote = simulate(rules, submit=submitter(client), **settings)  # type: ignore[arg-type]
    assert remote == local and remote.tally == local.tally
    assert remote != simulate(rules, **{**settings, "seed": 18})  # type: ignore[arg-type]


def test_the_command_on_a_cluster_prints_what_it_prints_locally(scheduler: str) -> None:
    runner = CliRunner()
    common = ["simulate", "--rules", "live", "--rounds", "30000", "--seed", "4", "--json"]
    local = runner.invoke(cli, [*common, "--workers", "1"])
    remote = runner.invoke(cli, [*common, "--cluster", scheduler])
    assert local.exit_code == 0 and remote.exit_code == 0, remote.output
    ours, theirs = json.loads(local.stdout), json.loads(remote.stdout)
    assert theirs["workers"] == 2
    for key in ("rounds", "mean", "ci95", "sd", "outcomes", "side_bets", "exact", "z"):
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("tcp://127.0.0.1:1", "Connection refused"),
        ("tcp://127.0.0.1", "missing port number"),
        ("nonsense://x", "unknown address scheme"),
    ],
)
def test_an_unreachable_cluster_is_one_line_and_exit_2(address: str, reason: str) -> None:
    result = CliRunner().invoke(
        cli, ["simulate", "--rules", "live", "--rounds", "10", "--cluster", address]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: --cluster: cannot reach the Dask scheduler at {address}"
    )
    assert reason in result.stderr and result.stderr.count("\n") == 1


def test_workers_and_a_cluster_exclude_each_other() -> None:
    arguments = ["--rules", "live", "--workers", "2", "--cluster", "tcp://127.0.0.1:1"]
    result = CliRunner().invoke(cli, ["simulate", *arguments])
    assert result.exit_code == 2 and "exclude each other" in result.stderr


def test_a_chunk_failing_on_the_cluster_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from croupier.simulate import cluster as cluster_module

    def broken(*_: object) -> object:
        raise ModuleNotFoundError("No module named 'croupier'")

    monkeypatch.setattr(cluster_module, "play_chunk", broken)
    with distributed.LocalCluster(  # type: ignore[no-untyped-call,unused-ignore]
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as local:
        result = CliRunner().invoke(
            cli,
            ["simulate", "--rules", "live", "--rounds", "10", "--cluster", local.scheduler_address],
        )
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --cluster: a chunk failed on the cluster: "
        "ModuleNotFoundError: No module named 'croupier'\n"
    )
