"""The run: reproducible chunks, agreement with the exact value, the command line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from croupier.cli import cli
from croupier.presets import find_rules
from croupier.simulate.run import simulate


@pytest.mark.slow
def test_same_seed_same_result_whatever_the_workers() -> None:
    rules = find_rules("live")
    one = simulate(rules, rounds=30_000, seed=3, boxes=2, chunk_rounds=7_000)
    two = simulate(rules, rounds=30_000, seed=3, boxes=2, chunk_rounds=7_000, workers=2)
    assert one == two
    assert one != simulate(rules, rounds=30_000, seed=4, boxes=2, chunk_rounds=7_000)


@pytest.mark.slow
def test_shuffled_every_round_the_mean_agrees_with_the_exact_value() -> None:
    # A full shoe every round is what the exact analysis assumes.
    for name in ("rws-v5", "online-8deck", "casino-to-go"):
        rules = find_rules(name).replace(shuffle_every_round=True)
        result = simulate(rules, rounds=2_000_000, seed=11)
        assert result.exact is not None
        low, high = result.ci95
        assert result.z is not None and abs(result.z) < 3.5, (name, result.mean, result.exact)
        assert high - low < 0.004


@pytest.mark.slow
def test_side_bet_means_agree_with_their_pay_tables() -> None:
    # Checked against the exact side-bet analysis of the same rules.
    from croupier.analysis.sidebets import analyze_side_bets

    for name in ("rws-v5", "live"):
        rules = find_rules(name).replace(shuffle_every_round=True)
        offered = rules.side_bets_offered()
        result = simulate(rules, rounds=1_000_000, seed=5, boxes=2, side_bets=offered)
        exact = analyze_side_bets(rules)
        for key, side in result.side_bet_results().items():
            expected = float(exact[key].ev)
            half = (side.ci95[1] - side.ci95[0]) / 2
            # 3.5 standard errors either side (a 95% half width is 1.96).
            assert abs(side.mean - expected) < half * 3.5 / 1.96, (name, key, side.mean, expected)


def test_command_json_schema_and_bad_input() -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["simulate", "--rules", "rws-v5", "--rounds", "20000", "--workers", "1", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in (
        "rules",
        "rounds",
        "mean",
        "ci95",
        "sd",
        "exact",
        "z",
        "workers",
        "seed",
        "outcomes",
        "side_bets",
    ):
        assert key in data
    assert data["rounds"] == 20000 and len(data["ci95"]) == 2
    # The same seed gives the same JSON: the speed goes to stderr.
    assert "seconds" not in data and "rounds_per_second" not in data
    assert "rounds/s" in result.stderr
    unknown = runner.invoke(cli, ["simulate", "--rules", "nowhere"])
    assert unknown.exit_code == 2 and "Invalid value for '--rules'" in unknown.stderr
    bad = [
        ["--rules", "live", "--set", "decks=99"],
        ["--rules", "live", "--count", "hi-lo", "--spread", "8-1"],
        ["--rules", "live", "--side-bets", "under_13"],
    ]
    for arguments in bad:
        failed = runner.invoke(cli, ["simulate", *arguments])
        assert failed.exit_code == 2, arguments
        assert failed.stderr.startswith("error: ") and failed.stderr.count("\n") == 1


def test_counting_with_a_spread_reports_win_rate_and_risk_of_ruin() -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "simulate",
            "--rules",
            "rws-v5",
            "--rounds",
            "50000",
            "--workers",
            "1",
            "--count",
            "hi-lo",
            "--spread",
            "1-8",
            "--indices",
            "--bankroll",
            "1000",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    counting = json.loads(result.stdout)["counting"]
    assert counting["spread"] == [1, 8]
    assert 0 <= counting["risk_of_ruin"] <= 1
