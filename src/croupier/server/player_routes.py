"""The player's own side of the HTTP API: his session of play, his limits, breaks and
self-exclusion (see :mod:`croupier.server.play_sessions` and :mod:`croupier.server.limits`).

The route functions' annotations are evaluated where they are defined (no postponed
annotations in this module), since the login they depend on is given by the app.
"""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import Body, FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from croupier.server import limits, play_sessions
from croupier.server.errors import InvalidAmount, InvalidLimit

__all__ = ["LimitsIn", "LimitsOut", "PlaySessionOut", "add_player_routes"]


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


class PendingOut(BaseModel):
    """A raised limit cooling off: its value (``None``: no limit), from when the player
    may confirm it, and whether he may now."""

    value: str | int | None
    confirmable_from: str
    confirmable: bool


class LimitsOut(BaseModel):
    """The player's limits as they hold now (``None``: no limit), the raises waiting,
    and a break or exclusion while it lasts."""

    loss_limit: str | None
    session_minutes: int | None
    reality_check_minutes: int
    pending_loss_limit: PendingOut | None
    pending_session_minutes: PendingOut | None
    break_until: str | None
    excluded_until: str | None
    cooling_off_hours: int


class LimitsIn(BaseModel):
    """New limits: a loss limit per session (money as text, ``null`` for none), a
    session-time limit in minutes (``null`` for none), the reality check's interval."""

    loss_limit: str | None = Field(
        default=None, pattern=r"^\d{1,7}(\.\d{1,2})?$", examples=["100.00"]
    )
    session_minutes: int | None = Field(default=None, examples=[60])
    reality_check_minutes: int = Field(default=limits.DEFAULT_REALITY_CHECK_MINUTES, examples=[60])


class BreakIn(BaseModel):
    """A break from play: 1 to 42 days."""

    days: int = Field(examples=[7])


class ExclusionIn(BaseModel):
    """Self-exclusion: 6 to 60 months."""

    months: int = Field(examples=[6])


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat()


def _pending(pending: limits.Pending | None, now: datetime) -> PendingOut | None:
    if pending is None:
        return None
    value = pending.value
    return PendingOut(
        value=str(value) if isinstance(value, Decimal) else value,
        confirmable_from=pending.effective_from.astimezone(UTC).isoformat(),
        confirmable=pending.due(now),
    )


def limits_out(found: limits.Limits, now: datetime) -> LimitsOut:
    """The limits as the API gives them."""
    return LimitsOut(
        loss_limit=None if found.loss_limit is None else str(found.loss_limit),
        session_minutes=found.session_minutes,
        reality_check_minutes=found.reality_check_minutes,
        pending_loss_limit=_pending(found.pending_loss_limit, now),
        pending_session_minutes=_pending(found.pending_session_minutes, now),
        break_until=_iso(found.break_until),
        excluded_until=_iso(found.excluded_until),
        cooling_off_hours=int(limits.COOLING_OFF.total_seconds() // 3600),
    )


def add_player_routes(
    app: FastAPI,
    engine: sa.Engine,
    clock: Callable[[], float],
    forget_user: Callable[[int], None],
) -> None:
    """Add the session-of-play and limits routes.

    ``clock`` gives the server's time in seconds; ``forget_user`` is told when a
    player's logins all end (a break, self-exclusion).
    """
    from croupier.server.app import CurrentUser, ErrorOut, HttpError, clear_session_cookie

    errors: dict[int | str, dict[str, Any]] = {
        400: {"model": ErrorOut},
        401: {"model": ErrorOut},
    }

    def now() -> datetime:
        return datetime.fromtimestamp(clock(), UTC)

    def invalid(error: Exception) -> HttpError:
        return HttpError(400, "invalid_limit", str(error))

    @app.get("/api/play-session", responses=errors)
    def play_session(user: CurrentUser) -> PlaySessionOut:
        """The session of play: its start, net result, amount wagered and the reality
        check's clock, the same in every tab and after logging in again."""
        moment = now()
        with engine.begin() as conn:
            found = limits.read(conn, user[0].id, moment)
            stats = play_sessions.stats(conn, user[0].id, moment, found.reality_check_minutes)
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
        )

    @app.post("/api/play-session/reality-check", responses=errors)
    def acknowledge(user: CurrentUser) -> PlaySessionOut:
        """The player has read the reality check: its clock starts again."""
        moment = now()
        with engine.begin() as conn:
            found = limits.read(conn, user[0].id, moment)
            play_sessions.acknowledge_reality_check(
                conn, user[0].id, moment, timedelta(minutes=found.reality_check_minutes)
            )
        return play_session(user)

    @app.get("/api/limits", responses=errors)
    def read_limits(user: CurrentUser) -> LimitsOut:
        """The player's limits, the raises cooling off, his break or exclusion."""
        moment = now()
        with engine.begin() as conn:
            return limits_out(limits.read(conn, user[0].id, moment), moment)

    @app.put("/api/limits", responses=errors)
    def change_limits(user: CurrentUser, wanted: LimitsIn) -> LimitsOut:
        """Set the limits: a lower one holds at once; a higher one (or none) only once
        24 hours have passed and the player confirms it (``POST /api/limits/confirm``)."""
        moment = now()
        try:
            with engine.begin() as conn:
                changed = limits.change(
                    conn,
                    user[0].id,
                    moment,
                    loss_limit=None if wanted.loss_limit is None else Decimal(wanted.loss_limit),
                    session_minutes=wanted.session_minutes,
                    reality_check_minutes=wanted.reality_check_minutes,
                )
        except (InvalidLimit, InvalidAmount) as error:
            raise invalid(error) from None
        return limits_out(changed, moment)

    @app.post("/api/limits/confirm", responses={**errors, 409: {"model": ErrorOut}})
    def confirm_limits(user: CurrentUser) -> LimitsOut:
        """Confirm the raised limits whose cooling-off period is over."""
        moment = now()
        try:
            with engine.begin() as conn:
                return limits_out(limits.confirm(conn, user[0].id, moment), moment)
        except InvalidLimit as error:
            raise HttpError(409, "not_confirmable", str(error)) from None

    def logged_out(request: Request, found: limits.Limits, moment: datetime) -> Response:
        body = limits_out(found, moment).model_dump_json()
        response = Response(content=body, media_type="application/json")
        clear_session_cookie(request, response)
        return response

    @app.post("/api/limits/break", response_model=LimitsOut, responses=errors)
    def take_break(user: CurrentUser, request: Request, wanted: BreakIn) -> Response:
        """Take a break from play for 1 to 42 days.  It cannot be shortened; every
        login of the player ends now."""
        moment = now()
        try:
            with engine.begin() as conn:
                found = limits.take_break(conn, user[0].id, wanted.days, moment)
        except InvalidLimit as error:
            raise invalid(error) from None
        forget_user(user[0].id)
        return logged_out(request, found, moment)

    @app.post("/api/limits/self-exclusion", response_model=LimitsOut, responses=errors)
    def self_exclude(
        user: CurrentUser, request: Request, wanted: Annotated[ExclusionIn, Body()]
    ) -> Response:
        """Exclude yourself from play for 6 months to 5 years.  It cannot be undone or
        shortened; every login of the player ends now."""
        moment = now()
        try:
            with engine.begin() as conn:
                found = limits.self_exclude(conn, user[0].id, wanted.months, moment)
        except InvalidLimit as error:
            raise invalid(error) from None
        forget_user(user[0].id)
        return logged_out(request, found, moment)
