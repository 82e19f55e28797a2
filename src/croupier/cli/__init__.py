"""The ``croupier`` command: play, replay scripted rounds, show the rules.

Every user error ends with one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from croupier.cli.edge import edge
from croupier.cli.shared import UserError
from croupier.cli.play import play
from croupier.cli.rules import rules
from croupier.cli.serve import ledger, serve
from croupier.cli.simulate import simulate
from croupier.cli.strategy import strategy
from croupier.commands import command_schema
from croupier.errors import CroupierError
from croupier.script import play_script, script_schema

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(package_name="croupier")
@click.pass_context
def cli(context: click.Context) -> None:
    """Casino blackjack, played exactly as the house rulebooks write it."""
    if context.invoked_subcommand is None:
        click.echo(context.get_help())


@cli.command("round")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--indent", type=int, default=2, show_default=True, help="JSON indentation.")
def round_command(file: Any, indent: int) -> None:
    """Play one scripted round from FILE (or - for stdin) and print it as JSON.

    The script names the rules, the shoe's top cards in dealing order, the bets and
    each player's decisions; see the README for the format.
    """
    name = getattr(file, "name", "-")
    text = file.read()
    try:
        script = json.loads(text)
    except json.JSONDecodeError as error:
        raise click.UsageError(
            f"{name}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    try:
        report = play_script(script)
    except CroupierError as error:
        raise UserError(f"{name}: {error}") from None
    click.echo(json.dumps(report, indent=indent if indent > 0 else None))


@cli.command("schema")
@click.argument("which", type=click.Choice(["commands", "script", "protocol"]))
def schema_command(which: str) -> None:
    """Print a JSON Schema: the round's commands, the round script, or the table protocol.

    All three are read from the command classes, so they always agree with the engine.
    """
    if which == "commands":
        schema: dict[str, Any] = command_schema()
    elif which == "script":
        schema = script_schema()
    else:
        from croupier.server.protocol import message_schema

        schema = message_schema()
    click.echo(json.dumps(schema, indent=2))


cli.add_command(rules)
cli.add_command(play)
cli.add_command(strategy)
cli.add_command(edge)
cli.add_command(simulate)
cli.add_command(serve)
cli.add_command(ledger)


def main() -> None:
    """Run the command line; user errors exit with status 2 and one line, never a traceback."""
    try:
        status = cli.main(standalone_mode=False)
        if isinstance(status, int) and status:
            sys.exit(status)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.Abort:
        click.echo("", err=True)
        sys.exit(1)
    except UserError as failure:
        failure.show()
        sys.exit(2)
    except click.ClickException as failure:
        click.echo(f"error: {failure.format_message()}", err=True)
        sys.exit(2)
    except CroupierError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
