"""The ``croupier simulate`` command: Monte Carlo over real shoes, on every core.

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(simulate, ["--rules", "vegas"])
>>> result.exit_code, result.stderr.splitlines()[-1]  # doctest: +ELLIPSIS
(2, "Error: Invalid value for '--rules': 'vegas' is not one of 'rws-v4', 'rws-v5', ...")
>>> CliRunner().invoke(simulate, ["--rules", "live", "--spread", "0-8"]).stderr
'error: --spread needs --count hi-lo\\n'
"""

from __future__ import annotations

import os
from typing import NoReturn

import click

from croupier.cli.shared import (
    UserError,
    apply_changes,
    echo_json,
    echo_timing,
    json_option,
    preset_option,
    set_option,
)
from croupier.errors import CroupierError
from croupier.presets import find_preset
from croupier.rules import SIDE_BET_KEYS, SideBet

__all__ = ["simulate"]


def _fail(message: str) -> NoReturn:
    raise UserError(message)


def _side_bets(settings: tuple[str, ...]) -> tuple[SideBet, ...]:
    chosen: list[SideBet] = []
    for setting in settings:
        key, _, amount = setting.partition("=")
        key = key.strip()
        if key not in SIDE_BET_KEYS:
            _fail(
                f"--side-bets {setting}: unknown side bet; the side bets are: "
                f"{', '.join(SIDE_BET_KEYS)}"
            )
        if amount and amount.strip() not in ("1", "1.0"):
            _fail(
                f"--side-bets {setting}: each side bet stakes one initial bet; "
                "results are given per unit staked"
            )
        chosen.append(SideBet(key))
    return tuple(dict.fromkeys(chosen))


@click.command(name="simulate")
@preset_option
@set_option
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Rounds to deal.",
)
@click.option(
    "--boxes",
    type=click.IntRange(1, 9),
    default=1,
    show_default=True,
    help="Boxes played, sharing one shoe, one initial bet each.",
)
@click.option(
    "--strategy",
    "strategy_name",
    default="basic",
    show_default=True,
    metavar="basic",
    help="The chart: the derived basic strategy.",
)
@click.option(
    "--side-bets",
    "side_bet_settings",
    multiple=True,
    metavar="KEY[=1]",
    help="A side bet on every box, one initial bet (repeatable).",
)
@click.option("--count", type=click.Choice(["hi-lo"]), default=None, help="Count cards.")
@click.option(
    "--spread",
    default=None,
    metavar="LOW-HIGH",
    help="The bet spread in initial bets by true count, e.g. 1-8.",
)
@click.option("--indices", is_flag=True, help="Play the Illustrious 18 index plays.")
@click.option(
    "--bankroll",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="With --count: the bankroll in initial bets, for the risk of ruin.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seeds every chunk of the run.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Processes; every core when omitted.",
)
@json_option
def simulate(
    rules_name: str,
    settings: tuple[str, ...],
    rounds: int,
    boxes: int,
    strategy_name: str,
    side_bet_settings: tuple[str, ...],
    count: str | None,
    spread: str | None,
    indices: bool,
    bankroll: float | None,
    seed: int,
    workers: int | None,
    as_json: bool,
) -> None:
    """Deal ROUNDS rounds of preset NAME from real shoes and report the result per
    initial bet with its 95% interval, beside the chart's exact value."""
    try:
        preset = find_preset(rules_name)
    except CroupierError as error:
        _fail(str(error))
    rules = apply_changes(preset.rules, settings)
    if strategy_name != "basic":
        _fail(f"--strategy {strategy_name}: only the derived basic strategy is played")
    if (spread is not None or indices or bankroll is not None) and count is None:
        option = "--spread" if spread is not None else "--indices" if indices else "--bankroll"
        _fail(f"{option} needs --count hi-lo")
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from croupier.simulate.counting import parse_spread
    from croupier.simulate.run import simulate as run

    parsed_spread = None
    if count is not None:
        try:
            parsed_spread = parse_spread(spread or "1-8")
        except CroupierError as error:
            _fail(str(error))
    side_bets = _side_bets(side_bet_settings)
    if boxes > rules.boxes:
        _fail(f"--boxes {boxes}: {rules.name} has {rules.boxes} boxes")
    processes = workers if workers is not None else (os.cpu_count() or 1)
    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} rounds"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task(rules.name, total=rounds)
        try:
            result = run(
                rules,
                rounds=rounds,
                seed=seed,
                boxes=boxes,
                side_bets=side_bets,
                spread=parsed_spread,
                indices=indices,
                workers=processes,
                progress=lambda done: bar.update(task, completed=done),
            )
        except CroupierError as error:
            _fail(str(error))
    if as_json:
        # The same seed gives the same JSON: the speed goes to stderr.
        report = result.to_json(bankroll)
        for timing in ("rounds_per_second", "seconds"):
            report.pop(timing, None)
        echo_json(report)
        echo_timing(f"{result.rounds_per_second:,.0f} rounds/s, {result.seconds:.2f} s")
        return
    _print(result, bankroll)


def _print(result: object, bankroll: float | None) -> None:
    from rich.console import Console
    from rich.table import Table

    from croupier.simulate.run import SimulationResult

    assert isinstance(result, SimulationResult)
    console = Console(highlight=False)
    low, high = result.ci95
    title = (
        f"{result.rules.name}: {result.played:,} rounds, {result.boxes} box(es), seed {result.seed}"
    )
    if result.interrupted:
        title += " (interrupted)"
    table = Table(title=title, show_header=False)
    table.add_row("mean per initial bet", f"{result.mean:+.5f}  (95% {low:+.5f} to {high:+.5f})")
    if result.exact is not None:
        z = result.z
        table.add_row(
            "exact (chart, full shoe)",
            f"{result.exact:+.5f}  z = {z:+.2f}" if z is not None else f"{result.exact:+.5f}",
        )
    table.add_row("sd of a box's round", f"{result.standard_deviation:.4f}")
    for name, share in result.outcomes().items():
        table.add_row(name, f"{share:.5f}")
    for key, side in result.side_bet_results().items():
        table.add_row(
            f"side bet {key}",
            f"{side.mean:+.5f}  (95% {side.ci95[0]:+.5f} to {side.ci95[1]:+.5f}), "
            f"{side.hits:,} hits",
        )
    if result.spread is not None:
        table.add_row("win per 100 rounds", f"{result.win_per_100_rounds():+.3f} initial bets")
        if bankroll is not None:
            table.add_row(
                f"risk of ruin ({bankroll:g} bets)", f"{result.risk_of_ruin(bankroll):.4f}"
            )
    table.add_row(
        "speed",
        f"{result.rounds_per_second:,.0f} rounds/s on {result.workers} worker(s), "
        f"{result.seconds:.2f} s",
    )
    console.print(table)
