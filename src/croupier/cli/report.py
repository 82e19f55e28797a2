"""``croupier report``: the back office's report over the server's database.

Tables, players, irregularities, advantage play and shuffle health for a period (the
last 24 hours by default), as Rich tables, as JSON (``--json``: the same for the same
database and period) or as CSV files, one per section (``--csv DIR``).  See
``docs/report.md`` for what each figure means.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from croupier.cli.serve import connect_database
from croupier.cli.shared import (
    FilePath,
    UserError,
    db_option,
    echo_json,
    echo_timing,
    json_option,
)

if TYPE_CHECKING:
    from rich.console import Console

    from croupier.backoffice.report import Report

__all__ = ["parse_moment", "report"]


def parse_moment(text: str, option: str) -> datetime:
    """An ISO 8601 date or time; without a zone it is UTC.

    >>> parse_moment("2026-11-27", "--since").isoformat()
    '2026-11-27T00:00:00+00:00'
    >>> parse_moment("2026-11-27T10:30+01:00", "--since").isoformat()
    '2026-11-27T09:30:00+00:00'
    >>> parse_moment("0001-01-01T00:00+05:00", "--since")
    Traceback (most recent call last):
    ...
    croupier.cli.shared.UserError: --since '0001-01-01T00:00+05:00' is out of range in UTC
    >>> parse_moment("yesterday", "--since")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.cli.shared.UserError: --since 'yesterday' is not an ISO 8601 date or time ...
    """
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UserError(
            f"{option} {text!r} is not an ISO 8601 date or time (2026-11-27, 2026-11-27T10:30)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise UserError(f"{option} {text!r} is out of range in UTC") from None


@click.command("report")
@db_option
@click.option("--since", "since", default=None, help="Start (ISO 8601; default 24 h ago).")
@click.option("--until", "until", default=None, help="End, not included (default now).")
@click.option("--table", "table", default=None, help="One table only.")
@click.option("--player", "player", default=None, help="One player only (his name).")
@json_option
@click.option(
    "--csv",
    "csv_dir",
    default=None,
    type=FilePath(file_okay=False, path_type=Path),
    help="Also write each section as a CSV file in this folder.",
)
def report(
    url: str | None,
    since: str | None,
    until: str | None,
    table: str | None,
    player: str | None,
    as_json: bool,
    csv_dir: Path | None,
) -> None:
    """The back office: each table's and player's win against the exact math,
    irregularities, advantage play and shuffle health, for a period."""
    import time

    import sqlalchemy

    from croupier.backoffice.report import build_report, default_period

    start_at, end_at = default_period(datetime.now(UTC))
    if since is not None:
        start_at = parse_moment(since, "--since")
    if until is not None:
        end_at = parse_moment(until, "--until")
    engine = connect_database(url, read_only=True)
    assert isinstance(engine, sqlalchemy.Engine)
    started = time.perf_counter()
    with engine.connect() as conn:
        made = build_report(conn, since=start_at, until=end_at, table=table, player=player)
    seconds = time.perf_counter() - started
    if csv_dir is not None:
        write_csv(made, csv_dir)
    if as_json:
        echo_json(made.to_json())
    else:
        from rich.console import Console

        _print(made, Console())
    echo_timing(f"Report made in {seconds:.2f} s.")


def _rows(made: Report) -> dict[str, list[dict[str, Any]]]:
    """Each section as flat rows (nested values as text)."""
    data = made.to_json()
    sections: dict[str, list[dict[str, Any]]] = {}
    for name in ("tables", "players", "irregularities", "shuffle_health"):
        entries = data[name]
        assert isinstance(entries, list)
        sections[name] = entries
    advantage = data["advantage_play"]
    assert isinstance(advantage, dict)
    sections["advantage_play"] = advantage["players"]
    return sections


def write_csv(made: Report, folder: Path) -> None:
    """One CSV file per section in ``folder`` (made if missing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, entries in _rows(made).items():
            with (folder / f"{name}.csv").open("w", newline="") as out:
                columns = list(entries[0]) if entries else []
                writer = csv.DictWriter(out, fieldnames=columns)
                writer.writeheader()
                for entry in entries:
                    writer.writerow({key: _flat(value) for key, value in entry.items()})
    except OSError as error:
        raise UserError(f"--csv {folder}: {error.strerror or error}") from None


def _flat(value: object) -> object:
    if isinstance(value, dict):
        return "; ".join(f"{key}={item}" for key, item in value.items())
    return "" if value is None else value


def _print(made: Report, console: Console) -> None:
    from rich.table import Table

    console.print(
        f"[bold]Report[/bold] {made.since.isoformat()} to {made.until.isoformat()}"
        + (f", table {made.table}" if made.table else "")
        + (f", player {made.player}" if made.player else "")
    )
    tables = Table(title="Tables")
    for column in (
        "table",
        "rules",
        "rounds",
        "handle",
        "house win",
        "hold",
        "theoretical win",
        "SD",
        "verdict",
    ):
        tables.add_column(column, justify="left" if column in ("table", "rules") else "right")
    for entry in made.tables:
        handle = ", ".join(f"{bet} {amount}" for bet, amount in entry.handle.items())
        hold = "" if entry.hold is None else f"{float(entry.hold) * 100:.2f}%"
        tables.add_row(
            entry.table,
            entry.rules,
            str(entry.rounds),
            handle,
            str(entry.house_win),
            hold,
            str(entry.theoretical_win),
            str(entry.sd),
            entry.verdict,
        )
    console.print(tables)
    players = Table(title="Players")
    for column in (
        "player",
        "rounds",
        "hours",
        "average bet",
        "handle",
        "net",
        "theoretical loss",
        "verdict",
    ):
        players.add_column(column, justify="left" if column == "player" else "right")
    for person in made.players:
        players.add_row(
            person.player,
            str(person.rounds),
            str(person.hours),
            "" if person.average_bet is None else str(person.average_bet),
            str(person.handle),
            str(person.net),
            str(person.theoretical_loss),
            person.verdict,
        )
    console.print(players)
    irregular = Table(title="Irregularities")
    for column in ("round", "table", "kind", "clause", "who", "dealer", "returned", "detail"):
        irregular.add_column(column)
    for event in made.irregularities:
        irregular.add_row(
            f"{event.number} ({event.round_id[:8]})",
            event.table,
            event.kind,
            event.clause,
            event.who or "",
            event.dealer or "",
            str(event.returned),
            event.detail,
        )
    console.print(irregular)
    counted = Table(title="Advantage play (hi-lo true count)")
    columns = ("player", "rounds", "correlation", "z", "spread", "insured", "index plays", "play z")
    for column in (*columns, "verdict"):
        counted.add_column(column, justify="left" if column in ("player", "verdict") else "right")
    for counting in made.advantage:
        counted.add_row(
            counting.player,
            str(counting.rounds),
            "" if counting.correlation is None else f"{counting.correlation:+.3f}",
            "" if counting.z is None else f"{counting.z:+.1f}",
            "" if counting.spread is None else f"1-{counting.spread}",
            f"{counting.insured_at_index}/{counting.insured}",
            f"{counting.index_plays}/{counting.index_decisions}",
            "" if counting.play_z is None else f"{counting.play_z:+.1f}",
            counting.verdict,
        )
    console.print(counted)
    from croupier.backoffice.advantage import FEWEST_ROUNDS, FLAT_BETTOR_FLAGGED

    console.print(
        f"Players with {FEWEST_ROUNDS} rounds or more; a player whose bets ignore the count "
        f"is flagged with a chance of {FLAT_BETTOR_FLAGGED:.1e}, one whose play ignores it "
        f"(index plays: departures from basic strategy where the count called for them, of "
        f"his decisions at the Illustrious 18's situations in the rounds replayed) no more."
    )
    shuffle = Table(title="Shuffle health")
    for column in ("table", "shoes", "first cards p", "card by position p", "verdict"):
        shuffle.add_column(column, justify="left" if column in ("table", "verdict") else "right")
    for health in made.shuffle:
        shuffle.add_row(
            health.table,
            str(health.shoes),
            f"{health.first_card_p_value:.3g}",
            f"{health.position_p_value:.3g}",
            health.verdict,
        )
    console.print(shuffle)
