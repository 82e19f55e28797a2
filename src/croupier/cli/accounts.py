"""``croupier accounts create|list|disable``: the site's accounts, for its operator.

Players sign up on the page; dealer and admin accounts are made here.  The password is
asked twice on the terminal (never echoed), or read from the first line of stdin when
stdin is not a terminal, so that a script can pipe it in::

    printf '%s\\n' "$DEALER_PASSWORD" | croupier accounts create dee --role dealer
"""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import TYPE_CHECKING

import click

from croupier.cli.serve import connect_database
from croupier.cli.shared import UserError, db_option, echo_json, json_option
from croupier.errors import BetError
from croupier.money import parse_amount
from croupier.server.roles import Role

if TYPE_CHECKING:
    import sqlalchemy

__all__ = ["ROLES", "accounts"]

#: The roles an account may have (:class:`~croupier.server.roles.Role`, which needs none
#: of the database's packages).
ROLES = tuple(role.value for role in Role)


def stdin_is_terminal() -> bool:
    """Whether the password can be asked on a terminal (else it is read from stdin)."""
    return sys.stdin.isatty()


def read_password() -> str:
    """The new account's password: asked twice on a terminal, else stdin's first line."""
    if stdin_is_terminal():
        password: str = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        return password
    line = sys.stdin.readline()
    if not line:
        raise UserError("no password on stdin: pipe it in, one line")
    return line.rstrip("\r\n")


def _engine(url: str | None, *, read_only: bool = False) -> sqlalchemy.Engine:
    import sqlalchemy

    engine = connect_database(url, read_only=read_only)
    assert isinstance(engine, sqlalchemy.Engine)
    return engine


@click.group()
def accounts() -> None:
    """The site's accounts: create, list, disable."""


@accounts.command("create")
@click.argument("name")
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default=Role.PLAYER.value,
    show_default=True,
    help="The role.",
)
@click.option(
    "--chips",
    metavar="AMOUNT",
    default=None,
    help="Play-money chips to start a player's account with (none by default).",
)
@db_option
@json_option
def create(name: str, role: str, chips: str | None, url: str | None, as_json: bool) -> None:
    """Create an account NAME with a password read as the help above says."""
    from croupier.server import accounts as users
    from croupier.server import ledger
    from croupier.server.errors import InvalidAmount, InvalidCredentials, NameTaken

    grant: Decimal | None = None
    if chips is not None:
        if role != Role.PLAYER:
            raise UserError(f"--chips: only a player's account holds chips, not a {role}'s")
        try:
            # Digits 0-9 and a decimal point only: no exponent, underscores or other
            # scripts' digits (which Decimal would read).
            grant = parse_amount(chips, Decimal("0.01"), what="--chips")
            ledger.to_units(grant)
        except (BetError, InvalidAmount) as error:
            raise UserError(f"{error}; give an amount of money such as 500.00") from None
    password = read_password()
    try:
        # Hashed before the transaction: no write waits on it.
        account = users.prepare(name, password, role=role)
    except InvalidCredentials as error:
        raise UserError(str(error)) from None
    engine = _engine(url)
    try:
        with engine.begin() as conn:
            user_id = users.create(conn, account)
            if role == Role.PLAYER:
                ledger.player_account(conn, user_id)
                if grant is not None:
                    ledger.grant(conn, user_id, grant, idempotency_key=f"chips:{user_id}")
    except NameTaken as error:
        raise UserError(str(error)) from None
    finally:
        engine.dispose()
    if as_json:
        echo_json({"id": user_id, "name": name, "role": role})
    else:
        click.echo(f"created {role} account {name!r} (id {user_id})")


@accounts.command("list")
@db_option
@json_option
def list_accounts(url: str | None, as_json: bool) -> None:
    """Every account: its id, name, role, when it was made, and whether it is disabled."""
    from croupier.server import accounts as users

    engine = _engine(url, read_only=True)
    try:
        with engine.connect() as conn:
            rows = users.list_accounts(conn)
    finally:
        engine.dispose()
    if as_json:
        echo_json(
            [
                {
                    "id": row.id,
                    "name": row.name,
                    "role": row.role,
                    "created_at": row.created_at.isoformat(),
                    "disabled_at": None if row.disabled_at is None else row.disabled_at.isoformat(),
                }
                for row in rows
            ]
        )
        return
    width = max([len("name"), *(len(row.name) for row in rows)])
    click.echo(f"{'id':>5}  {'name':<{width}}  {'role':<6}  {'created':<16}  status")
    for row in rows:
        status = "active" if row.disabled_at is None else f"disabled {row.disabled_at:%Y-%m-%d}"
        click.echo(
            f"{row.id:>5}  {row.name:<{width}}  {row.role:<6}  "
            f"{row.created_at:%Y-%m-%d %H:%M}  {status}"
        )


@accounts.command("disable")
@click.argument("name")
@db_option
def disable(name: str, url: str | None) -> None:
    """Disable the account NAME: its logins end, and it can no longer log in."""
    from croupier.server import accounts as users
    from croupier.server.db import utcnow
    from croupier.server.errors import NotFound

    engine = _engine(url)
    try:
        with engine.begin() as conn:
            changed = users.disable(conn, name, now=utcnow())
    except NotFound as error:
        raise UserError(str(error)) from None
    finally:
        engine.dispose()
    if changed:
        click.echo(f"disabled account {name!r}: its logins have ended")
    else:
        click.echo(f"account {name!r} was already disabled")
