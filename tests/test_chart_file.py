"""A chart read back from the text `croupier strategy` writes, and played by `croupier simulate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from croupier.analysis.chart import render_plain
from croupier.analysis.chart_file import ChartError, parse_chart, read_chart
from croupier.analysis.strategy import derive_strategy
from croupier.cli import cli
from croupier.presets import find_rules
from croupier.simulate.compile import compile_strategy


def _chart_text(name: str) -> str:
    return render_plain(derive_strategy(find_rules(name)))


@pytest.mark.parametrize("name", ["online-8deck", "rws-v5", "casino-to-go"])
def test_a_derived_chart_reads_back_cell_for_cell(name: str) -> None:
    rules = find_rules(name)
    derived = derive_strategy(rules)
    text = render_plain(derived)
    chart = parse_chart(text, rules)
    assert render_plain(chart) == text
    ours, theirs = compile_strategy(chart), compile_strategy(derived)
    # Every two-card hand the chart shows plays as the derived chart plays it.
    for soft, totals in ((0, range(5, 21)), (1, range(13, 21))):
        for total in totals:
            assert ours.first_play[soft, total].tolist() == theirs.first_play[soft, total].tolist()
    assert ours.pair_play.tolist() == theirs.pair_play.tolist()


def _replace_row(text: str, label: str, row: str) -> str:
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.split()[:1] == [label])
    lines[index] = row
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: _replace_row(t, "16", "16 S S S S S H H H H"), "16 has 9 cells, not 10"),
        (lambda t: _replace_row(t, "16", "16 S S S S S H H H H Q"), "unknown code 'Q'"),
        (lambda t: _replace_row(t, "16", "16 S S S S S H H H H P"), "16 is not a pair"),
        (lambda t: _replace_row(t, "16", "21 S S S S S H H H H H"), "'21' is not a row"),
        (lambda t: _replace_row(t, "17", "16 S S S S S S S S S S"), "row 16 appears twice"),
        (lambda t: t.replace("A,9 ", "A,8 ", 1), "row A,8 appears twice"),
        (lambda t: t.replace("Pairs         2", "Pairs         1"), "up cards of Pairs"),
        (lambda t: "\n".join(t.splitlines()[:30]), "Pairs: missing rows 2,2"),
        (lambda t: "", "missing rows 5, 6"),
    ],
)
def test_a_malformed_chart_is_refused_naming_what_is_wrong(change: object, message: str) -> None:
    rules = find_rules("online-8deck")
    text = change(_chart_text("online-8deck"))  # type: ignore[operator]
    with pytest.raises(ChartError, match=message):
        parse_chart(text, rules)


def test_an_unreadable_chart_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ChartError, match="cannot read the chart"):
        read_chart(tmp_path / "absent.txt", find_rules("live"))
    binary = tmp_path / "chart.bin"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ChartError, match="cannot read the chart"):
        read_chart(binary, find_rules("live"))


def test_simulate_plays_a_chart_file_beside_its_exact_value(tmp_path: Path) -> None:
    runner = CliRunner()
    written = runner.invoke(cli, ["strategy", "--rules", "online-8deck"])
    assert written.exit_code == 0, written.output
    basic = tmp_path / "basic.txt"
    basic.write_text(written.stdout, encoding="utf-8")
    # A player who never busts: stands on every hard 12 to 16.
    timid = tmp_path / "timid.txt"
    text = written.stdout
    for total in range(12, 17):
        text = _replace_row(text, str(total), f"{total} " + " ".join(["S"] * 10))
    timid.write_text(text, encoding="utf-8")
    results = {}
    for path in (basic, timid):
        run = runner.invoke(
            cli,
            [
                "simulate",
                "--rules",
                "online-8deck",
                "--set",
                "shuffle_every_round=true",
                "--rounds",
                "400000",
                "--workers",
                "1",
                "--strategy",
                str(path),
                "--json",
            ],
        )
        assert run.exit_code == 0, run.output
        results[path.name] = json.loads(run.stdout)
    for data in results.values():
        assert data["exact"] is not None and abs(data["z"]) < 4
    # Never busting costs a few per cent of the bet (the dealer busts less than the player would).
    assert results["timid.txt"]["exact"] < results["basic.txt"]["exact"] - 0.01


def test_simulate_refuses_a_malformed_chart_file_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.txt"
    broken.write_text("Hard totals   2  3  4  5  6  7  8  9 10  A\n5 H H\n", encoding="utf-8")
    runner = CliRunner()
    for path in (broken, tmp_path / "absent.txt"):
        failed = runner.invoke(
            cli, ["simulate", "--rules", "live", "--rounds", "10", "--strategy", str(path)]
        )
        assert failed.exit_code == 2
        assert failed.stderr.startswith("error: --strategy: ") and failed.stderr.count("\n") == 1
        assert str(path) in failed.stderr
