"""``croupier ledger check``: reconcile the wallet's books with the rounds."""

from __future__ import annotations

import click

from croupier.cli.serve import connect_database
from croupier.cli.shared import db_option, echo_json, json_option

__all__ = ["ledger"]


@click.group()
def ledger() -> None:
    """The wallet's books."""


@ledger.command("check")
@db_option
@json_option
def check(url: str | None, as_json: bool) -> None:
    """Reconcile: every transaction balances, balances equal their legs, every round is
    settled, void, or open with its money on the table, and each round's replay through
    the engine agrees with its money.  Exit status 1 when a problem is found."""
    import sqlalchemy

    from croupier.server import ledger as books
    from croupier.server.audit import audit

    engine = connect_database(url, read_only=True)
    assert isinstance(engine, sqlalchemy.Engine)
    with engine.connect() as conn:  # a read-only transaction: the check writes nothing
        problems = books.check(conn) + audit(conn)
        counts = conn.execute(
            sqlalchemy.text(
                "SELECT (SELECT count(*) FROM transactions), (SELECT count(*) FROM rounds)"
            )
        ).one()
    if as_json:
        echo_json(
            {
                "transactions": counts[0],
                "rounds": counts[1],
                "balanced": not problems,
                "problems": problems,
            }
        )
    else:
        for problem in problems:
            click.echo(f"problem: {problem}")
        click.echo(
            f"{counts[0]} transactions, {counts[1]} rounds: "
            + ("the books balance" if not problems else f"{len(problems)} problem(s)")
        )
    if problems:
        raise SystemExit(1)
