"""``croupier round``: play one scripted round and print every event and result as JSON."""

from __future__ import annotations

import json
from typing import Any

import click

from croupier.cli.shared import TextFile, UserError

__all__ = ["round"]


@click.command("round")
@click.argument("file", type=TextFile("r", encoding="utf-8"))
@click.option("--indent", type=int, default=2, show_default=True, help="JSON indentation.")
def round(file: Any, indent: int) -> None:
    """Play one scripted round from FILE (or - for stdin) and print it as JSON.

    The script names the rules, the shoe's top cards in dealing order, the bets and
    each player's decisions; its format is in docs/round-script.md.
    """
    from croupier.errors import CroupierError
    from croupier.script import play_script

    name = getattr(file, "name", "-")
    try:
        text = file.read()
    except UnicodeDecodeError as error:
        raise UserError(
            f"{name}: not UTF-8 text (byte {error.start}: {error.object[error.start]:#04x})"
        ) from None
    try:
        script = json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(
            f"{name}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise UserError(f"{name}: not a round script: its JSON is nested too deeply") from None
    try:
        report = play_script(script)
    except CroupierError as error:
        raise UserError(f"{name}: {error}") from None
    click.echo(json.dumps(report, indent=indent if indent > 0 else None))
