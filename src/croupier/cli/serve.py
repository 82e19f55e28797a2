"""``croupier serve``: the table server."""

from __future__ import annotations

import os
import socket
from decimal import Decimal
from typing import TYPE_CHECKING

import click

from croupier.cli.shared import UserError, db_option, require_extra
from croupier.errors import BetError
from croupier.money import parse_amount

if TYPE_CHECKING:
    from croupier.server.cluster import Share

__all__ = ["connect_database", "serve"]


def connect_database(url: str | None) -> object:
    """The database at ``url`` (SQLite's ``croupier.db`` by default), migrated."""
    import sqlalchemy

    from croupier.server.db import connect, migrate

    try:
        engine = connect(url)
        migrate(engine)
    except ModuleNotFoundError as error:
        if error.name != "psycopg":
            raise
        require_extra("postgres", f"database {url}")
    except (ValueError, sqlalchemy.exc.SQLAlchemyError) as error:
        raise UserError(f"database {url or 'sqlite:///croupier.db'}: {error}") from None
    return engine


@click.command()
@db_option
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    envvar="CROUPIER_HOST",
    show_envvar=True,
    help="Address to listen on.",
)
@click.option(
    "--port",
    default=8000,
    envvar="CROUPIER_PORT",
    show_envvar=True,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="Port to listen on.",
)
@click.option(
    "--tables",
    "tables_file",
    default=None,
    envvar="CROUPIER_TABLES",
    show_envvar=True,
    type=click.Path(dir_okay=False),
    help="A TOML file of tables (default: one table per preset).",
)
@click.option(
    "--play-money",
    default="1000.00",
    envvar="CROUPIER_PLAY_MONEY",
    show_envvar=True,
    show_default=True,
    help='Chips a new account gets; "none" for a wallet funded elsewhere.',
)
@click.option(
    "--log",
    "log_format",
    type=click.Choice(["json", "text", "none"]),
    envvar="CROUPIER_LOG",
    show_envvar=True,
    default="json",
    show_default=True,
    help="The server's log on stderr: JSON lines (requests, commands, money movements), "
    "plain text, or warnings only.",
)
@click.option(
    "--standby",
    is_flag=True,
    envvar="CROUPIER_STANDBY",
    show_envvar=True,
    help="While another croupier process runs these tables on this database, wait "
    "(not listening yet), and take them over the moment it stops or dies, recovering "
    "their rounds (RWS v5 5.4).",
)
@click.option(
    "--workers",
    default=1,
    envvar="CROUPIER_WORKERS",
    show_envvar=True,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Server processes on this address, sharing the tables (PostgreSQL only): each "
    "runs its share of the tables, serves every table to its players, and takes over "
    "the tables of one that dies; one that dies is started again.",
)
@click.option(
    "--share",
    default=None,
    envvar="CROUPIER_SHARE",
    show_envvar=True,
    metavar="I/N",
    help="Run as server I of N sharing these tables on one PostgreSQL database (several "
    "machines behind a load balancer): this one runs tables I, I+N, ... first, serves "
    "every table to its players, and takes over the tables of any that dies.",
)
@click.option("--listen-fd", type=int, default=None, hidden=True)
def serve(
    url: str | None,
    host: str,
    port: int,
    tables_file: str | None,
    play_money: str,
    log_format: str,
    standby: bool,
    workers: int,
    share: str | None,
    listen_fd: int | None,
) -> None:
    """Run the live table server: accounts and wallet over HTTP, tables over WebSockets."""
    import logging

    import uvicorn

    from croupier.server.app import Settings, create_app
    from croupier.server.metrics import log_json_lines
    from croupier.server.ownership import TableOwned
    from croupier.server.tables import TablesFileError, default_tables, load_tables

    try:
        tables = load_tables(tables_file) if tables_file else default_tables()
    except TablesFileError as error:
        raise UserError(str(error)) from None
    chips: Decimal | None
    if play_money.strip().lower() == "none":
        chips = None
    else:
        try:
            chips = parse_amount(play_money, Decimal("0.01"), what="--play-money")
        except BetError as error:
            raise UserError(f"{error} (or 'none' for no chips)") from None
    cluster = _share(share)
    if workers > 1 and cluster is not None:
        raise UserError("--workers and --share exclude each other: --workers shares by itself")
    if (workers > 1 or cluster is not None) and standby:
        raise UserError("--standby is for one server; in a cluster every server takes over")
    if workers > 1 or cluster is not None:
        from croupier.server.db import normalize_url

        try:
            scheme = normalize_url(url).split(":", 1)[0]
        except ValueError as error:
            raise UserError(f"--db {url}: {error}") from None
        if not scheme.startswith("postgresql"):
            flag = f"--workers {workers}" if workers > 1 else f"--share {share}"
            raise UserError(
                f"{flag}: servers share tables only on PostgreSQL (--db postgresql://...); "
                "a SQLite file has one server"
            )
    if listen_fd is None:
        _check_port(host, port)
    connect_database(url)
    if workers > 1:
        from croupier.cli.workers import supervise

        passed = {"CROUPIER_DB_URL": url or "", "CROUPIER_PLAY_MONEY": play_money}
        passed["CROUPIER_LOG"] = log_format
        if tables_file is not None:
            passed["CROUPIER_TABLES"] = os.path.abspath(tables_file)
        raise SystemExit(supervise(host, port, workers, settings=passed))

    def waiting(owned: Exception) -> None:
        click.echo(f"croupier standing by: {owned}; taking over when it stops", err=True)

    settings = Settings(
        url=url,
        tables=tables,
        play_money=chips,
        standby=waiting if standby else None,
        share=cluster,
        rtp_at_start=True,  # the lobby's figures, worked out (or read back) at once
    )
    try:
        app = create_app(settings)
    except TableOwned as error:
        raise UserError(f"{error} (--standby waits and takes over when it stops)") from None
    if log_format == "json":
        log_json_lines()
    elif log_format == "text":
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if listen_fd is not None:  # a worker of --workers: the address is already open
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_max_size=65536))
        server.run(sockets=[socket.socket(fileno=listen_fd)])
        return
    click.echo(f"croupier serving {len(tables)} tables on http://{host}:{port}", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=65536)


def _share(text: str | None) -> Share | None:
    """``--share I/N`` read, or a :class:`UserError` naming what is wrong."""
    from croupier.server.cluster import Share

    if text is None:
        return None
    index, slash, count = text.partition("/")
    try:
        if not slash:
            raise ValueError("no slash")
        return Share(int(index), int(count))
    except ValueError:
        raise UserError(
            f"--share {text}: write I/N, server I (0 to N-1) of N, such as 0/2"
        ) from None


def _check_port(host: str, port: int) -> None:
    """Refuse, before anything starts, an address the server could not listen on."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise UserError(f"--host {host}: {error.strerror or error}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise UserError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
