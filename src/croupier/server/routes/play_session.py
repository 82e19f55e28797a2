"""The player's session of play (see :mod:`croupier.server.play_sessions`): its start,
net result, amount wagered and the reality check's clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from croupier.server import limits, play_sessions
from croupier.server.dependencies import CurrentUser, Database, ServerSettings, server_now
from croupier.server.http_errors import ErrorOut

__all__ = ["PlaySessionOut", "RealityCheckOut", "router"]

router = APIRouter(tags=["play session"])

_ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorOut}, 401: {"model": ErrorOut}}


class RealityCheckOut(BaseModel):
    """The reality check's clock: its interval, its start and when it is next due."""

    interval_minutes: int
    since: str
    due_at: str


class PlaySessionOut(BaseModel):
    """The player's session of play as the server keeps it (times in ISO 8601, UTC;
    money as exact text).  ``now`` is the server's time, to read the others against."""

    started_at: str
    now: str
    net: str
    wagered: str
    reality_check: RealityCheckOut
    #: When the session reaches the player's own session-time limit (no new bet after
    #: it); ``None`` without a limit.
    time_limit_at: str | None = None


@router.get("/api/play-session", responses=_ERRORS)
def play_session(user: CurrentUser, database: Database, settings: ServerSettings) -> PlaySessionOut:
    """The session of play: its start, net result, amount wagered and the reality
    check's clock, the same in every tab and after logging in again."""
    moment = server_now(settings)
    with database.begin() as conn:
        found = limits.read(conn, user.id, moment)
        stats = play_sessions.stats(conn, user.id, moment, found.reality_check_minutes)
    return PlaySessionOut(
        started_at=stats.started_at.isoformat(),
        now=moment.isoformat(),
        net=str(stats.net),
        wagered=str(stats.wagered),
        reality_check=RealityCheckOut(
            interval_minutes=stats.reality_check_minutes,
            since=stats.reality_check_at.isoformat(),
            due_at=stats.reality_check_due.isoformat(),
        ),
        time_limit_at=None
        if found.session_minutes is None
        else (stats.started_at + timedelta(minutes=found.session_minutes)).isoformat(),
    )


@router.post("/api/play-session/reality-check", responses=_ERRORS)
def acknowledge(user: CurrentUser, database: Database, settings: ServerSettings) -> PlaySessionOut:
    """The player has read the reality check: its clock starts again."""
    moment = server_now(settings)
    with database.begin() as conn:
        found = limits.read(conn, user.id, moment)
        play_sessions.acknowledge_reality_check(
            conn, user.id, moment, timedelta(minutes=found.reality_check_minutes)
        )
    return play_session(user, database, settings)
