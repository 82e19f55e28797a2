"""The ``croupier`` command: play, replay scripted rounds, show the rules, the math, the server.

Each command lives in a module of its own, loaded only when that command runs (or
its help is asked for), so that ``croupier --help`` loads neither NumPy, Numba nor
FastAPI.  A user error ends with one line on stderr and exit status 2; a malformed
command line gets Click's usage hint.

>>> from click.testing import CliRunner
>>> print(CliRunner().invoke(cli, ["rules", "list"]).stdout.splitlines()[1])
rws-v5        Blackjack (Version 5), RWS  (001_6130f5c0c88ed314.txt)
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import click

__all__ = ["COMMANDS", "LazyCommand", "cli", "main"]


class LazyCommand(NamedTuple):
    """A command loaded on first use: its module, the extra it needs, its one-line help."""

    module: str
    extra: str | None
    help: str


#: The commands in the order ``croupier --help`` lists them.
COMMANDS: dict[str, LazyCommand] = {
    "play": LazyCommand("croupier.cli.play", None, "Play blackjack at the terminal."),
    "rules": LazyCommand("croupier.cli.rules", None, "The house rules: one preset per rulebook."),
    "round": LazyCommand(
        "croupier.cli.round", None, "Play one scripted round and print it as JSON."
    ),
    "schema": LazyCommand(
        "croupier.cli.schema", None, "Print a JSON Schema: commands, script or protocol."
    ),
    "edge": LazyCommand("croupier.cli.edge", "math", "The exact RTP report of a rule set."),
    "strategy": LazyCommand("croupier.cli.strategy", "math", "The basic strategy chart."),
    "simulate": LazyCommand(
        "croupier.cli.simulate", "math", "Monte Carlo over real shoes, on every core."
    ),
    "serve": LazyCommand("croupier.cli.serve", "server", "Run the live table server."),
    "ledger": LazyCommand("croupier.cli.ledger", "server", "The wallet's books."),
    "accounts": LazyCommand(
        "croupier.cli.accounts", "server", "The site's accounts: create, list, disable."
    ),
    "report": LazyCommand(
        "croupier.cli.report", "server", "The back office: tables, players, irregularities."
    ),
}


class _LazyGroup(click.Group):
    """A group whose commands are imported when one of them is used, not before."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        if entry.extra is not None and not ctx.resilient_parsing:
            from croupier.cli.shared import require_extra

            require_extra(entry.extra, f"croupier {cmd_name}")
        command = getattr(importlib.import_module(entry.module), cmd_name)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The one-line helps are written here, so listing them imports no command.
        with formatter.section("Commands"):
            formatter.write_dl([(name, entry.help) for name, entry in COMMANDS.items()])

    def invoke(self, ctx: click.Context) -> Any:
        from croupier.cli.shared import UserError
        from croupier.errors import CroupierError

        try:
            return super().invoke(ctx)
        except CroupierError as error:
            raise UserError(str(error)) from None


@click.group(
    "croupier",
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=True,
)
@click.version_option(package_name="croupier")
@click.pass_context
def cli(context: click.Context) -> None:
    """Casino blackjack, played exactly as the house rulebooks write it."""
    if context.invoked_subcommand is None:
        click.echo(context.get_help())


def main() -> None:
    """Run the command line: a user error is one line and exit status 2, never a traceback."""
    cli.main(prog_name="croupier")
