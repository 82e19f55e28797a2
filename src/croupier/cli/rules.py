"""The ``croupier rules`` commands: list the presets, show one rule by rule with its clause.

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(rules, ["list"]).stdout, end="")
rws-v4        Blackjack (RWS) Game Rules, Version 4  (000_a29c150467b5bf4a.txt)
rws-v5        Blackjack (Version 5), RWS  (001_6130f5c0c88ed314.txt)
online-8deck  Blackjack Rules, online 8-deck table  (002_3da4452be13ecf55.txt)
casino-to-go  Casino-To-Go Rules and Playing Guide: Black Jack  (003_2831acbadac5637d.txt)
live          Live Blackjack Game Rules  (004_fc8581d4eecaf77f.txt)
"""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from croupier.errors import RulesError
from croupier.presets import PRESETS, Preset, find_preset

__all__ = ["rules"]

#: Exit status for a name that is not a preset (as Click uses for a usage error).
_EXIT_UNKNOWN_PRESET = 2
#: The console width from which the notes get a column of their own.
_WIDE_CONSOLE = 120


@click.group(name="rules")
def rules() -> None:
    """The house rules: one preset per rulebook, every rule with its clause."""


@rules.command(name="list")
def list_presets() -> None:
    """List the presets: name, title and rulebook file."""
    width = max(len(name) for name in PRESETS)
    for preset in PRESETS.values():
        click.echo(f"{preset.name:<{width}}  {preset.title}  ({preset.rulebook})")


@rules.command(name="show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the preset as JSON.")
def show(name: str, as_json: bool) -> None:
    """Show preset NAME: each rule, its value, and the rulebook clause it comes from."""
    try:
        preset = find_preset(name)
    except RulesError as error:
        click.echo(f"error: {error}", err=True)
        raise click.exceptions.Exit(_EXIT_UNKNOWN_PRESET) from None
    if as_json:
        click.echo(json.dumps(preset.to_json(), indent=2, ensure_ascii=False))
    else:
        console = Console(highlight=False)
        console.print(_rules_table(preset, console.width))


def _rules_table(preset: Preset, width: int) -> Table:
    """Rule, value, clause and note; on a narrow console the note goes under its clause."""
    wide = width >= _WIDE_CONSOLE
    table = Table(
        title=Text(f"{preset.name}: {preset.title}"),
        caption=Text(f"rulebook {preset.rulebook}, preset version {preset.version}"),
        expand=True,
    )
    table.add_column("Rule", no_wrap=True)
    table.add_column("Value", max_width=16, overflow="fold")
    if wide:
        table.add_column("Clause", max_width=20)
        table.add_column("Note", ratio=1)
    else:
        table.add_column("Clause and note", ratio=1)
    values = preset.rules.to_json()
    for citation in preset.citations:
        cells = [Text(citation.field), Text(_display(values[citation.field]))]
        if wide:
            cells += [Text(citation.clause), Text(citation.note)]
        else:
            cell = Text(citation.clause, style="bold")
            if citation.note:
                cell.append("\n" + citation.note)
            cells.append(cell)
        table.add_row(*cells)
    return table


def _display(value: object) -> str:
    """A rule's JSON value as the preset file writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(_display(item) for item in value)
    return str(value)
