"""The running mean's path and `croupier simulate --plot`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from croupier.cli import cli
from croupier.presets import find_rules
from croupier.simulate.run import TRACE_ROWS, simulate


def test_the_running_path_ends_on_the_result_and_does_not_depend_on_the_workers() -> None:
    rules = find_rules("rws-v5")
    one = simulate(rules, rounds=50_000, seed=8, chunk_rounds=20_000)
    two = simulate(rules, rounds=50_000, seed=8, chunk_rounds=20_000, workers=2)
    assert one.running == two.running
    played = [point[0] for point in one.running]
    assert played == sorted(played) and len(played) >= 2 * TRACE_ROWS
    assert played[0] == 20_000 // TRACE_ROWS
    last = one.running[-1]
    assert last == (50_000, one.mean, one.standard_error)
    # A point mid-way is the run so far: the first chunk's own result.
    first_chunk = simulate(rules, rounds=20_000, seed=8, chunk_rounds=20_000)
    assert (20_000, first_chunk.mean, first_chunk.standard_error) in one.running


def test_plot_writes_a_png(tmp_path: Path) -> None:
    path = tmp_path / "run.png"
    result = CliRunner().invoke(
        cli,
        ["simulate", "--rules", "live", "--rounds", "40000", "--workers", "1", "--plot", str(path)],
    )
    assert result.exit_code == 0, result.output
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("name", "message"),
    [("run.svg", "the plot is a PNG file"), ("absent/run.png", "does not exist")],
)
def test_a_plot_that_cannot_be_written_is_refused_before_the_run(
    tmp_path: Path, name: str, message: str
) -> None:
    path = tmp_path / name
    result = CliRunner().invoke(
        cli, ["simulate", "--rules", "live", "--rounds", "10", "--plot", str(path)]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --plot {path}: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and not path.exists()


def test_the_running_path_stays_bounded_however_many_chunks() -> None:
    from croupier.simulate.run import RUNNING_POINTS

    rules = find_rules("live")
    # 300 chunks of 64 rounds: 64 points each, 19,200 in all before thinning.
    result = simulate(rules, rounds=300 * 64, seed=3, chunk_rounds=64)
    assert RUNNING_POINTS <= len(result.running) <= 2 * RUNNING_POINTS
    played = [point[0] for point in result.running]
    assert played == sorted(set(played))
    assert result.running[-1] == (300 * 64, result.mean, result.standard_error)
    assert result.running == simulate(rules, rounds=300 * 64, seed=3, chunk_rounds=64).running
