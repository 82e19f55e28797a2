"""The back office's JSON under ``/api/admin/``: for ``admin`` accounts only.

Every answer is the report of :mod:`croupier.backoffice.report` (or one of its
sections) for a period, ``since`` and ``until`` in ISO 8601 (UTC when no zone is given;
the last 24 hours by default), at one ``table`` and for one ``player`` where asked.
Anonymous requests get 401; a player's or a dealer's session 403.  A report that cannot
be made (an unknown table or player, an empty period) is a 404 or 422 naming why.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from croupier.backoffice.errors import ReportError
from croupier.backoffice.report import Report, build_report, default_period
from croupier.server import accounts
from croupier.server.dependencies import CurrentUser, Database, ServerSettings, server_now
from croupier.server.http_errors import ErrorOut, HttpError
from croupier.server.roles import Role

__all__ = ["router"]

router = APIRouter(prefix="/api/admin", tags=["admin"])

_CENT = Decimal("0.01")

_REFUSALS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut},
    403: {"model": ErrorOut},
    404: {"model": ErrorOut},
    422: {"model": ErrorOut},
}


def admin_user(user: CurrentUser) -> accounts.User:
    """The signed-in user if he is an admin; 403 for any other role."""
    if user.role is not Role.ADMIN:
        raise HttpError(403, "forbidden", "the back office is for admin accounts only")
    return user


Admin = Annotated[accounts.User, Depends(admin_user)]


def _utc(moment: datetime | None) -> datetime | None:
    """The moment in UTC (UTC when it has no zone); 422 when UTC cannot hold it."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise HttpError(422, "invalid", f"{moment.isoformat()} is out of range in UTC") from None


def _report(
    database: Database,
    settings: ServerSettings,
    since: datetime | None,
    until: datetime | None,
    table: str | None,
    player: str | None,
    sections: set[str] | None = None,
) -> Report:
    start, end = default_period(server_now(settings))
    start = _utc(since) or start
    end = _utc(until) or end
    try:
        with database.connect() as conn:
            return build_report(
                conn, since=start, until=end, table=table, player=player, sections=sections
            )
    except ReportError as error:
        message = str(error)
        status = 404 if message.startswith(("no table", "no player")) else 422
        raise HttpError(status, "no_report", message) from None


Since = Annotated[datetime | None, Query(description="Start, ISO 8601 (default 24 h ago).")]
Until = Annotated[datetime | None, Query(description="End, not included (default now).")]
TableName = Annotated[str | None, Query(description="One table only.")]
PlayerName = Annotated[str | None, Query(description="One player only.")]


@router.get("/report", responses=_REFUSALS)
def report(
    user: Admin,
    database: Database,
    settings: ServerSettings,
    since: Since = None,
    until: Until = None,
    table: TableName = None,
    player: PlayerName = None,
) -> dict[str, object]:
    """Every section of the report for the period (as ``croupier report --json``)."""
    return _report(database, settings, since, until, table, player).to_json()


@router.get("/tables", responses=_REFUSALS)
def tables(
    user: Admin,
    database: Database,
    settings: ServerSettings,
    since: Since = None,
    until: Until = None,
    table: TableName = None,
) -> list[dict[str, object]]:
    """Each table's rounds, handle, win, hold and theoretical win."""
    made = _report(database, settings, since, until, table, None, {"tables"})
    return [entry.to_json() for entry in made.tables]


@router.get("/players", responses=_REFUSALS)
def players(
    user: Admin,
    database: Database,
    settings: ServerSettings,
    since: Since = None,
    until: Until = None,
    table: TableName = None,
    player: PlayerName = None,
) -> list[dict[str, object]]:
    """Each player's rounds, hours, average bet, handle, net and theoretical loss."""
    made = _report(database, settings, since, until, table, player, {"players"})
    return [entry.to_json() for entry in made.players]


@router.get("/irregularities", responses=_REFUSALS)
def irregularities(
    user: Admin,
    database: Database,
    settings: ServerSettings,
    since: Since = None,
    until: Until = None,
    table: TableName = None,
) -> list[dict[str, object]]:
    """Every void, interruption, return of bets, walk-away and time-out, with its clause;
    each names its round (``/api/rounds/{round}`` recalls it)."""
    made = _report(database, settings, since, until, table, None, {"irregularities"})
    return [entry.to_json() for entry in made.irregularities]


@router.get("/hold", responses=_REFUSALS)
def hold(
    user: Admin,
    database: Database,
    settings: ServerSettings,
    table: Annotated[str, Query(description="The table.")],
    since: Since = None,
    until: Until = None,
    steps: Annotated[int, Query(ge=1, le=48, description="How many stretches.")] = 12,
) -> list[dict[str, object]]:
    """A table's hold over time: the period cut in ``steps`` stretches, each with its
    handle, win, theoretical win and the band of two standard deviations around it
    (a stretch without rounds says so)."""
    start, end = default_period(server_now(settings))
    start = _utc(since) or start
    end = _utc(until) or end
    if start >= end:
        raise HttpError(422, "no_report", "the period is empty: since is not before until")
    width = (end - start) / steps
    points: list[dict[str, object]] = []
    for step in range(steps):
        low = start + width * step
        high = end if step == steps - 1 else low + width
        point: dict[str, object] = {"since": low.isoformat(), "until": high.isoformat()}
        try:
            with database.connect() as conn:
                made = build_report(conn, since=low, until=high, table=table, sections={"tables"})
        except ReportError as error:
            if str(error).startswith("no table"):
                raise HttpError(404, "no_report", str(error)) from None
            point["rounds"] = 0
            points.append(point)
            continue
        zero = Decimal("0.00")
        handle = sum((entry.total_handle for entry in made.tables), zero)
        won = sum((entry.house_win for entry in made.tables), zero)
        theory = sum((entry.theoretical_win for entry in made.tables), zero)
        sd = sum((entry.sd**2 for entry in made.tables), zero).sqrt()
        point.update(
            {
                "rounds": sum(entry.rounds for entry in made.tables),
                "handle": str(handle),
                "house_win": str(won),
                "theoretical_win": str(theory),
                "band_low": str((theory - 2 * sd).quantize(_CENT)),
                "band_high": str((theory + 2 * sd).quantize(_CENT)),
            }
        )
        points.append(point)
    return points
