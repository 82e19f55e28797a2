"""``croupier schema``: the JSON Schema of the round's commands, the script, or the protocol."""

from __future__ import annotations

from typing import Any

import click

from croupier.cli.shared import echo_json, require_extra

__all__ = ["schema"]


@click.command("schema")
@click.argument("which", type=click.Choice(["commands", "script", "protocol"]))
def schema(which: str) -> None:
    """Print a JSON Schema: the round's commands, the round script, or the table protocol.

    All three are read from the command classes, so they always agree with the engine.
    """
    document: dict[str, Any]
    if which == "commands":
        from croupier.commands import command_schema

        document = command_schema()
    elif which == "script":
        from croupier.script import script_schema

        document = script_schema()
    else:
        require_extra("server", "croupier schema protocol")
        from croupier.server.protocol import message_schema

        document = message_schema()
    echo_json(document)
