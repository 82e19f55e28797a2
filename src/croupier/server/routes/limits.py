"""The player's own limits (see :mod:`croupier.server.limits`): a loss limit and a
session-time limit, the reality check's interval, a break, self-exclusion."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from croupier.server import limits
from croupier.server.dependencies import (
    CurrentUser,
    Database,
    ServerSettings,
    TableHub,
    clear_session_cookie,
    server_now,
)
from croupier.server.errors import InvalidAmount, InvalidLimit
from croupier.server.http_errors import ErrorOut, HttpError

__all__ = ["BreakIn", "ExclusionIn", "LimitsIn", "LimitsOut", "PendingOut", "router"]

router = APIRouter(tags=["limits"])

_ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorOut}, 401: {"model": ErrorOut}}


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
        default=None, pattern=r"^[0-9]{1,7}(\.[0-9]{1,2})?$", examples=["100.00"]
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


def _invalid(error: Exception) -> HttpError:
    return HttpError(400, "invalid_limit", str(error))


@router.get("/api/limits", responses=_ERRORS)
def read_limits(user: CurrentUser, database: Database, settings: ServerSettings) -> LimitsOut:
    """The player's limits, the raises cooling off, his break or exclusion."""
    moment = server_now(settings)
    with database.begin() as conn:
        return limits_out(limits.read(conn, user.id, moment), moment)


@router.put("/api/limits", responses=_ERRORS)
def change_limits(
    user: CurrentUser, wanted: LimitsIn, database: Database, settings: ServerSettings
) -> LimitsOut:
    """Set the limits: a lower one holds at once; a higher one (or none) only once
    24 hours have passed and the player confirms it (``POST /api/limits/confirm``)."""
    moment = server_now(settings)
    try:
        with database.begin() as conn:
            changed = limits.change(
                conn,
                user.id,
                moment,
                loss_limit=None if wanted.loss_limit is None else Decimal(wanted.loss_limit),
                session_minutes=wanted.session_minutes,
                reality_check_minutes=wanted.reality_check_minutes,
            )
    except (InvalidLimit, InvalidAmount) as error:
        raise _invalid(error) from None
    return limits_out(changed, moment)


@router.post("/api/limits/confirm", responses={**_ERRORS, 409: {"model": ErrorOut}})
def confirm_limits(user: CurrentUser, database: Database, settings: ServerSettings) -> LimitsOut:
    """Confirm the raised limits whose cooling-off period is over."""
    moment = server_now(settings)
    try:
        with database.begin() as conn:
            return limits_out(limits.confirm(conn, user.id, moment), moment)
    except InvalidLimit as error:
        raise HttpError(409, "not_confirmable", str(error)) from None


def _logged_out(request: Request, found: limits.Limits, moment: datetime) -> Response:
    body = limits_out(found, moment).model_dump_json()
    response = Response(content=body, media_type="application/json")
    clear_session_cookie(request, response)
    return response


@router.post("/api/limits/break", response_model=LimitsOut, responses=_ERRORS)
def take_break(
    user: CurrentUser,
    request: Request,
    wanted: BreakIn,
    database: Database,
    settings: ServerSettings,
    hub: TableHub,
) -> Response:
    """Take a break from play for 1 to 42 days.  It cannot be shortened; every
    login of the player ends now."""
    moment = server_now(settings)
    try:
        with database.begin() as conn:
            found = limits.take_break(conn, user.id, wanted.days, moment)
    except InvalidLimit as error:
        raise _invalid(error) from None
    hub.sessions.forget_user(user.id)
    return _logged_out(request, found, moment)


@router.post("/api/limits/self-exclusion", response_model=LimitsOut, responses=_ERRORS)
def self_exclude(
    user: CurrentUser,
    request: Request,
    wanted: Annotated[ExclusionIn, Body()],
    database: Database,
    settings: ServerSettings,
    hub: TableHub,
) -> Response:
    """Exclude yourself from play for 6 months to 5 years.  It cannot be undone or
    shortened; every login of the player ends now."""
    moment = server_now(settings)
    try:
        with database.begin() as conn:
            found = limits.self_exclude(conn, user.id, wanted.months, moment)
    except InvalidLimit as error:
        raise _invalid(error) from None
    hub.sessions.forget_user(user.id)
    return _logged_out(request, found, moment)
