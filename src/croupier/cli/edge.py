"""``croupier edge``: the exact RTP report (a PAR sheet) of a preset, with rule changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from croupier.cli.shared import (
    apply_changes,
    compiled_math,
    echo_json,
    echo_timing,
    json_option,
    preset_option,
    set_option,
)
from croupier.presets import find_preset

if TYPE_CHECKING:
    from rich.console import Console

    from croupier.analysis.report import ParSheet
    from croupier.rules import Rules

__all__ = ["edge"]

_UP_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")


@click.command("edge")
@preset_option
@set_option
@json_option
def edge(rules_name: str, settings: tuple[str, ...], as_json: bool) -> None:
    """The exact RTP of a rule set: main game under both strategies, side bets, by up card.

    The JSON is the same for the same rules: the time taken goes to stderr.
    """
    rules = apply_changes(find_preset(rules_name).rules, settings)
    # The analysis loads NumPy and its kernels (and the tables, Rich): only this command
    # pays for them.
    sheet = _computed(rules)
    if as_json:
        report = sheet.to_json()
        report.pop("seconds", None)
        echo_json(report)
        echo_timing(f"Computed in {sheet.seconds:.2f} s.")
        return
    from rich.console import Console

    _print(sheet, Console())


def _computed(rules: Rules) -> ParSheet:
    """The PAR sheet, with a progress line on a terminal's stderr while it is computed."""
    import sys

    from croupier.analysis.report import par_sheet, reporting_progress

    compiled_math()
    if not sys.stderr.isatty():
        told = False

        def tell(step: str) -> None:
            # The one step worth a line: the search for the stated RTP's rule changes
            # runs once for a rule set (its answer is kept in the cache).
            nonlocal told
            if step.startswith("the stated RTP") and not told:
                told = True
                click.echo(
                    "croupier: searching the rule changes behind the stated RTP "
                    "(once for these rules, a few seconds) ...",
                    err=True,
                )

        with reporting_progress(tell):
            return par_sheet(rules)
    from rich.console import Console

    title = "Computing the exact return"
    with Console(stderr=True).status(title) as status:

        def show(step: str) -> None:
            status.update(f"{title}: {step}")

        with reporting_progress(show):
            return par_sheet(rules)


def _print_sets(sheet: ParSheet, console: Console) -> None:
    """The small sets of rule changes nearest the stated figure."""
    from croupier.analysis.search import TOLERANCE

    stated = float(sheet.stated_rtp or 0)
    rounding = [found for found in sheet.nearest_sets if abs(found.rtp - stated) < TOLERANCE]
    if not sheet.nearest_sets:
        return
    nearest = sheet.nearest_sets[0]
    console.print(
        f"  Nearest set of rule changes: {nearest.words()}: {_percent(nearest.rtp)}"
        + (", which rounds to the stated figure." if nearest in rounding else ".")
    )
    others = [found for found in rounding if found is not nearest]
    if others:
        console.print(
            f"  {len(others)} other set(s) of two or three changes also round to it, "
            "so the figure alone does not say which rules it was computed for:"
        )
        for found in others:
            console.print(f"    {found.words()}: {_percent(found.rtp)}")


def _percent(value: float) -> str:
    return f"{value * 100:.4f}%"


def _print(sheet: ParSheet, console: Console) -> None:
    from rich.table import Table

    from croupier.analysis.report import SPLIT_CONVENTION

    rules = sheet.rules
    cd, td = sheet.cd, sheet.td
    console.print(f"[bold]{rules.name}[/bold]: exact return, {rules.decks} decks, full shoe")
    main = Table(title="Main game (per unit initial bet)")
    for column in ("strategy", "expected value", "RTP"):
        main.add_column(column, justify="right")
    main.add_row("composition-dependent", _percent(cd.ev), _percent(cd.rtp))
    main.add_row("basic strategy (chart)", _percent(td.ev), _percent(td.rtp))
    console.print(main)
    console.print(
        f"Basic strategy: standard deviation {td.sd:.4f}; per round, by its total "
        f"result: win {_percent(td.round_win)}, "
        f"stand-off {_percent(td.round_push)}, loss {_percent(td.round_loss)}; "
        f"blackjack {_percent(td.blackjack)}"
    )
    if rules.max_split_hands > 2:
        from croupier.analysis.report import SD_NOTE

        console.print(f"[dim]{SD_NOTE}[/dim]")
    if sheet.stated_rtp is not None:
        difference = td.rtp - float(sheet.stated_rtp)
        console.print(
            f"The rulebook states {sheet.stated_words}: computed {_percent(td.rtp)}, "
            f"difference {difference * 100:+.4f} points."
        )
        if abs(difference) >= 0.00005:
            if sheet.explanations:
                for change in sheet.explanations:
                    value = getattr(change.value, "value", change.value)
                    console.print(
                        f"  With {change.field} = {value} the basic-strategy RTP is "
                        f"{_percent(change.rtp)}, which rounds to the stated figure."
                    )
            else:
                console.print("  No single rule change gives the stated figure.")
                _print_sets(sheet, console)
    by_up = Table(title="By dealer up card")
    for column in ("up card", "probability", "CD expected value", "basic strategy"):
        by_up.add_column(column, justify="right")
    for up_td, up_cd in zip(td.per_up, cd.per_up, strict=True):
        by_up.add_row(
            _UP_NAMES[up_td.up],
            f"{up_td.probability:.5f}",
            _percent(up_cd.ev),
            _percent(up_td.ev),
        )
    console.print(by_up)
    for key, bet in sheet.side_bets.items():
        table = Table(title=f"Side bet {key}: RTP {_percent(float(bet.rtp))}")
        for column in ("outcome", "pays", "probability"):
            table.add_column(column, justify="right")
        for line in bet.lines:
            pays = "loses" if line.pays is None else f"{line.pays} to 1"
            table.add_row(line.outcome.value, pays, f"{float(line.probability):.6f}")
        console.print(table)
    console.print(f"[dim]{SPLIT_CONVENTION}[/dim]")
    console.print(f"[dim]Computed in {sheet.seconds:.2f} s.[/dim]")
