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

from typing import TYPE_CHECKING

import click

from croupier.cli.shared import UserError, echo_json, json_option, preset_option
from croupier.errors import RulesError
from croupier.presets import PRESETS, find_preset

if TYPE_CHECKING:
    from rich.table import Table

    from croupier.presets import Preset

__all__ = ["rules"]

#: The console width from which the notes get a column of their own.
_WIDE_CONSOLE = 120


@click.group(name="rules")
def rules() -> None:
    """The house rules: one preset per rulebook, every rule with its clause."""


@rules.command(name="list")
@json_option
def list_presets(as_json: bool) -> None:
    """List the presets: name, title and rulebook file."""
    if as_json:
        echo_json(
            [
                {
                    "name": preset.name,
                    "title": preset.title,
                    "rulebook": preset.rulebook,
                    "version": preset.version,
                }
                for preset in PRESETS.values()
            ]
        )
        return
    width = max(len(name) for name in PRESETS)
    for preset in PRESETS.values():
        click.echo(f"{preset.name:<{width}}  {preset.title}  ({preset.rulebook})")


@rules.command(name="show")
@click.argument("name", required=False, metavar="[NAME]")
@preset_option
@json_option
def show(name: str | None, rules_name: str, as_json: bool) -> None:
    """Show a preset (--rules, or NAME): each rule, its value, and its rulebook clause."""
    source = click.get_current_context().get_parameter_source("rules_name")
    if name is not None and source is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError("give the preset once: NAME or --rules NAME")
    try:
        preset = find_preset(name if name is not None else rules_name)
    except RulesError as error:
        raise UserError(str(error)) from None
    if as_json:
        echo_json(preset.to_json())
    else:
        from rich.console import Console

        console = Console(highlight=False)
        console.print(_rules_table(preset, console.width))


def _rules_table(preset: Preset, width: int) -> Table:
    """Rule, value, clause and note; on a narrow console the note goes under its clause."""
    from rich.table import Table
    from rich.text import Text

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
