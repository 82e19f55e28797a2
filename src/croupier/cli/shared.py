"""The one kind of failure every ``croupier`` command reports: one line, exit status 2."""

from __future__ import annotations

import click

__all__ = ["UserError"]


class UserError(click.ClickException):
    """A user error: ``error: <what and where>`` on stderr, exit status 2, no traceback."""

    exit_code = 2

    def show(self, file: object = None) -> None:
        """Print the one line."""
        click.echo(f"error: {self.format_message()}", err=True)
