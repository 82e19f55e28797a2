"""The ``croupier simulate`` command: Monte Carlo over real shoes, on every core.

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(simulate, ["--rules", "vegas"])
>>> result.exit_code, result.stderr.splitlines()[-1]  # doctest: +ELLIPSIS
(2, "Error: Invalid value for '--rules': 'vegas' is not one of 'rws-v4', 'rws-v5', ...")
>>> CliRunner().invoke(simulate, ["--rules", "live", "--spread", "0-8"]).stderr
'error: --spread needs --count hi-lo\\n'
"""

from __future__ import annotations

import math
import os
import signal
import threading
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from croupier.cli.shared import (
    FilePath,
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
from croupier.rules import SIDE_BET_KEYS, Rules, SideBet

if TYPE_CHECKING:
    from croupier.simulate.run import SimulationResult

__all__ = ["simulate"]

#: Exit status after Ctrl-C (128 + SIGINT), once what was done is reported.
_EXIT_INTERRUPTED = 130
#: The exit status after SIGTERM (128 + 15), as a shell reports a process it ended.
_EXIT_TERMINATED = 143


class _Stop:
    """How the run was stopped: Ctrl-C (SIGINT) or SIGTERM, each taken as Ctrl-C is by
    the run (the chunks finished are kept), and the exit status it gives."""

    def __init__(self) -> None:
        self.terminated = False

    def __enter__(self) -> _Stop:
        self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._terminate)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)

    def _terminate(self, signum: int, frame: object) -> None:
        self.terminated = True
        raise KeyboardInterrupt

    @property
    def status(self) -> int:
        """130 after Ctrl-C, 143 after SIGTERM."""
        return _EXIT_TERMINATED if self.terminated else _EXIT_INTERRUPTED


#: Runs shorter than this show no progress bar.
_QUIET_SECONDS = 1.0


def _fail(message: str) -> NoReturn:
    raise UserError(message)


#: The largest side-bet stake, in initial bets.
_MOST_SIDE_BET = 100


def _flagged(flag: str, error: Exception, between: str = " ") -> str:
    """``error``'s message under the flag it is about, named once.

    >>> _flagged("--plot", ValueError("--plot needs matplotlib"))
    '--plot needs matplotlib'
    >>> _flagged("--plot", ValueError("x.txt: the plot is a PNG file"))
    '--plot x.txt: the plot is a PNG file'
    >>> _flagged("--cluster", ValueError("cannot reach it"), ": ")
    '--cluster: cannot reach it'
    """
    message = str(error)
    return message if message.startswith(flag) else f"{flag}{between}{message}"


def _side_bets(settings: tuple[str, ...]) -> dict[SideBet, Fraction]:
    """Each ``KEY[=AMOUNT]`` as a side bet and its stake in initial bets (1 by default)."""
    chosen: dict[SideBet, Fraction] = {}
    for setting in settings:
        key, equals, amount = setting.partition("=")
        key = key.strip()
        if key not in SIDE_BET_KEYS:
            _fail(
                f"--side-bets {setting}: unknown side bet; the side bets are: "
                f"{', '.join(SIDE_BET_KEYS)}"
            )
        stake = Fraction(1)
        if equals:
            try:
                stake = Fraction(amount.strip())
            except (ValueError, ZeroDivisionError):
                _fail(
                    f"--side-bets {setting}: the amount must be a number of initial bets, "
                    "such as 1, 0.5 or 1/5"
                )
            if not 0 < stake <= _MOST_SIDE_BET or stake.denominator > 1000:
                _fail(
                    f"--side-bets {setting}: the amount must be more than 0 and at most "
                    f"{_MOST_SIDE_BET} initial bets, in steps of no less than 1/1000"
                )
        side_bet = SideBet(key)
        if side_bet in chosen:
            _fail(f"--side-bets {setting}: {key} is given twice")
        chosen[side_bet] = stake
    return chosen


@click.command(name="simulate")
@preset_option
@set_option
@click.option(
    "--rounds",
    type=click.IntRange(1, 10**18),
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
    metavar="basic|FILE",
    help="The chart: the derived basic strategy, or a chart file as `croupier strategy` writes it.",
)
@click.option(
    "--side-bets",
    "side_bet_settings",
    multiple=True,
    metavar="KEY[=AMOUNT]",
    help="A side bet on every box, AMOUNT initial bets (1, 0.5, 1/5; default 1; repeatable).",
)
@click.option("--count", type=click.Choice(["hi-lo"]), default=None, help="Count cards.")
@click.option(
    "--spread",
    default=None,
    metavar="LOW-HIGH",
    help="The bet spread in initial bets by true count, e.g. 1-8.",
)
@click.option(
    "--ramp",
    default=None,
    metavar="TC:BETS,...",
    help="The bet by true count, held within the spread, e.g. 1:1,2:2,3:4,4:8 "
    "(at +1 and up one bet, at +2 two...); initial bets = true count - 1 when omitted.",
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
    help="Processes; when omitted, one per idle core and per 50,000,000 rounds "
    "(a worker takes seconds to start: a short run plays here).",
)
@click.option(
    "--cluster",
    default=None,
    metavar="ADDRESS",
    help="Play the chunks on the Dask scheduler at ADDRESS (tcp://host:8786).",
)
@click.option(
    "--plot",
    "plot_path",
    type=FilePath(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE.png",
    help="Draw the running mean and the distributions of results into FILE.png (matplotlib).",
)
@json_option
@click.option(
    "--timings",
    is_flag=True,
    help="Put seconds and rounds_per_second in the JSON too (then it differs from run "
    "to run; without it the same seed gives the same JSON, and the speed goes to stderr).",
)
def simulate(
    rules_name: str,
    settings: tuple[str, ...],
    rounds: int,
    boxes: int,
    strategy_name: str,
    side_bet_settings: tuple[str, ...],
    count: str | None,
    spread: str | None,
    ramp: str | None,
    indices: bool,
    bankroll: float | None,
    seed: int,
    workers: int | None,
    cluster: str | None,
    plot_path: Path | None,
    as_json: bool,
    timings: bool,
) -> None:
    """Deal ROUNDS rounds of preset NAME from real shoes and report the result per
    initial bet with its 95% interval, beside the chart's exact value."""
    try:
        preset = find_preset(rules_name)
    except CroupierError as error:
        _fail(str(error))
    rules = apply_changes(preset.rules, settings)
    chart = None
    if strategy_name != "basic":
        from croupier.analysis.chart_file import read_chart

        try:
            chart = read_chart(Path(strategy_name), rules)
        except CroupierError as error:
            _fail(f"--strategy: {error}")
    needs_count: dict[str, object] = {
        "--spread": spread,
        "--ramp": ramp,
        "--indices": indices or None,
        "--bankroll": bankroll,
    }
    given_alone = [option for option, value in needs_count.items() if value is not None]
    if given_alone and count is None:
        _fail(f"{given_alone[0]} needs --count hi-lo")
    if bankroll is not None and not math.isfinite(bankroll):
        _fail(f"--bankroll {bankroll}: a bankroll is a finite number of initial bets")
    from croupier.simulate.counting import parse_ramp, parse_spread
    from croupier.simulate.run import simulate as run

    parsed_spread = None
    parsed_ramp = None
    if count is not None:
        try:
            parsed_spread = parse_spread(spread or "1-8")
            parsed_ramp = parse_ramp(ramp) if ramp is not None else None
        except CroupierError as error:
            _fail(str(error))
    side_bets = _side_bets(side_bet_settings)
    if boxes > rules.boxes:
        _fail(f"--boxes {boxes}: {rules.name} has {rules.boxes} boxes")
    if plot_path is not None:
        from croupier.simulate.plot import check_plot_path

        try:
            check_plot_path(plot_path)
        except CroupierError as error:
            _fail(_flagged("--plot", error))
    processes = workers if workers is not None else default_workers(rounds)
    client = None
    submit = None
    if cluster is not None:
        if workers is not None:
            _fail("--workers and --cluster exclude each other: the cluster's workers play")
        from croupier.simulate.cluster import connect, submitter, worker_threads

        try:
            client = connect(cluster)
        except CroupierError as error:
            _fail(_flagged("--cluster", error, ": "))
        processes = worker_threads(client)
        submit = submitter(client)
    bar = _progress_bar(Console(stderr=True))
    task = bar.add_task(rules.name, total=rounds)
    # The bar shows only on a run longer than a second.
    timer = threading.Timer(_QUIET_SECONDS, bar.start)
    timer.daemon = True
    timer.start()
    stop = _Stop()
    try:
        with stop:
            result = _run_stoppable(
                run,
                rules,
                rounds=rounds,
                seed=seed,
                boxes=boxes,
                side_bets=tuple(side_bets),
                side_bet_amounts=side_bets,
                strategy=chart,
                spread=parsed_spread,
                ramp=parsed_ramp,
                indices=indices,
                workers=processes,
                progress=lambda done: bar.update(task, completed=done),
                submit=submit,
                compiling=lambda: bar.console.print(
                    "croupier: compiling the simulator's kernel (once, about half a minute; "
                    "not counted in the speed) ...",
                    highlight=False,
                ),
            )
    except CroupierError as error:
        _fail(str(error))
    except Exception as error:
        if client is None:
            raise
        # A worker without croupier, or one that died: the cluster's error, in one line.
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        _fail(f"--cluster: a chunk failed on the cluster: {type(error).__name__}: {reason}")
    finally:
        timer.cancel()
        timer.join()
        bar.stop()
        if client is not None:
            client.close()  # type: ignore[no-untyped-call,unused-ignore]
    if result is None or (result.interrupted and result.played == 0):
        click.echo("error: interrupted before the first chunk of rounds finished", err=True)
        raise click.exceptions.Exit(stop.status)
    if plot_path is not None:
        from croupier.simulate.plot import plot_result

        try:
            plot_result(result, plot_path)
        except CroupierError as error:
            _fail(_flagged("--plot", error))
    if as_json:
        report = result.to_json(bankroll)
        if not timings:
            for timing in ("rounds_per_second", "seconds"):
                report.pop(timing, None)
        echo_json(report)
        echo_timing(f"{result.rounds_per_second:,.0f} rounds/s, {result.seconds:.2f} s")
    else:
        _print(result, bankroll)
    if result.interrupted:
        raise click.exceptions.Exit(stop.status)


#: The rounds a worker process must have to play to pay for its start (a few seconds
#: of importing and loading the kernel, some 25,000,000 rounds of one core).
ROUNDS_PER_WORKER = 50_000_000


def default_workers(rounds: int, cores: int | None = None, load: float | None = None) -> int:
    """The worker processes a run gets when ``--workers`` is not given: one per idle
    core (the cores less the last minute's load), and no more than one per
    :data:`ROUNDS_PER_WORKER` rounds, so that workers never make a run slower than
    this process alone would play it.

    >>> default_workers(10**9, cores=16, load=0.0), default_workers(10**9, cores=16, load=12.4)
    (16, 4)
    >>> default_workers(20_000_000, cores=16, load=0.0), default_workers(10**9, cores=2, load=3.0)
    (1, 1)
    """
    if cores is None:
        cores = os.cpu_count() or 1
    if load is None:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    idle = int(cores - load + 0.5)
    return max(1, min(cores, idle, rounds // ROUNDS_PER_WORKER))


def _run_stoppable(
    run: Callable[..., SimulationResult], *args: Any, **kwargs: Any
) -> SimulationResult | None:
    """``run(...)``, or ``None`` when Ctrl-C or SIGTERM came before its chunks (while
    the kernel was compiled or the chart derived): the run keeps what its chunks did."""
    try:
        return run(*args, **kwargs)
    except KeyboardInterrupt:
        return None


class _RoundsPerSecond(ProgressColumn):
    """The run's speed, in rounds per second."""

    def render(self, task: Task) -> Text:
        """The speed so far, once there is one."""
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} rounds/s" if speed else "", style="progress.data.speed")


def _progress_bar(console: Console) -> Progress:
    """A bar with the rounds done, their rate and the time left (on a terminal only).

    >>> import io
    >>> bar = _progress_bar(Console(file=io.StringIO()))
    >>> task = bar.add_task("live", total=4_000_000)
    >>> bar.update(task, completed=1_000_000)
    >>> [column.__class__.__name__ for column in bar.columns][-2:]
    ['_RoundsPerSecond', 'TimeRemainingColumn']
    """
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} rounds"),
        _RoundsPerSecond(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def _shoe(rules: Rules) -> str:
    """How the rounds were dealt, and what that does to the comparison with the exact value.

    >>> from croupier.presets import find_rules
    >>> _shoe(find_rules("online-8deck"))
    '8 decks, shuffled every round (a full shoe, as the exact value has)'
    """
    if rules.shuffle_every_round:
        return f"{rules.decks} decks, shuffled every round (a full shoe, as the exact value has)"
    return (
        f"{rules.decks} decks dealt to the cut card at {rules.penetration}: "
        "the mean includes the cut-card effect"
    )


def _print(result: object, bankroll: float | None) -> None:
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
    table.add_row("shoe", _shoe(result.rules))
    table.add_row("sd of a box's round", f"{result.standard_deviation:.4f}")
    for name, share in result.outcomes().items():
        table.add_row(name, f"{share:.5f}")
    for key, side in result.side_bet_results().items():
        table.add_row(
            f"side bet {key} ({side.stake} bet)",
            f"{side.mean:+.5f} a unit  (95% {side.ci95[0]:+.5f} to {side.ci95[1]:+.5f}), "
            f"{side.hits:,} hits",
        )
    if result.spread is not None:
        from croupier.simulate.run import ROUND_BASIS

        ramp = result.ramp
        steps = ", ".join(f"{bets} at {count:+d}" for count, bets in ramp) if ramp else ""
        table.add_row("bet ramp", steps or "initial bets = true count - 1")
        table.add_row("counting figures per round", ROUND_BASIS)
        table.add_row("win per 100 rounds", f"{result.win_per_100_rounds():+.3f} minimum bets")
        table.add_row("sd per 100 rounds", f"{result.sd_per_100_rounds():.3f} minimum bets")
        n0 = result.n0()
        table.add_row("N0", f"{n0:,.0f} rounds" if math.isfinite(n0) else "none (no edge)")
        table.add_row("SCORE", f"{result.score():.2f}")
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
