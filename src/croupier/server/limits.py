"""A player's own limits, breaks and self-exclusion, kept and enforced by the server.

A player chooses a **loss limit** for a session of play, a **session-time limit** and
the interval of the **reality check**.  The server holds them to every stake:

- a stake (a bet, a double, a split, insurance, a follow) that would take the
  session's loss past the loss limit is refused with :class:`LossLimitReached`, which
  says how much may still be staked; money on the table counts as lost until it comes
  back, so the limit holds whatever the outcome of the hands in play;
- once the session has lasted the time limit, new bets are refused
  (:class:`SessionTimeLimitReached`); a hand in play is still played out.

Lowering a limit (or setting one where there was none) takes effect at once.  Raising
one (or removing it) waits for a cooling-off period of :data:`COOLING_OFF`, after which
the player must come back and confirm it (:func:`confirm`).  This is the practice of the
UK Gambling Commission's remote technical standards (RTS 12): a decision to play more is
the one to slow down, so that it is not taken in the heat of a losing session; a day is
long enough for that session to be over and the decision to be made again with a cool
head, and short enough not to keep a player who sets limits from changing his mind.
A lower limit protects the player, so nothing delays it.

A **break** (a time-out of 1 to 42 days, as RTS 12 and the LCCP describe) and
**self-exclusion** (6 months to 5 years) refuse logins and stakes until they end; the
player cannot shorten or lift either (:class:`OnBreak`, :class:`SelfExcluded`).
Starting one ends every login of the player at once.

>>> stricter(Decimal("50"), Decimal("100")), stricter(None, Decimal("100"))
(True, False)
>>> add_months(datetime(2026, 8, 31, tzinfo=UTC), 6)
datetime.datetime(2027, 2, 28, 0, 0, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import sqlalchemy
from sqlalchemy import delete, select

from croupier.server import ledger, play_sessions
from croupier.server.db import insert_ignoring
from croupier.server.driver import Prepared, Sent
from croupier.server.errors import (
    InvalidLimit,
    LossLimitReached,
    OnBreak,
    SelfExcluded,
    SessionTimeLimitReached,
)
from croupier.server.schema import player_limits, sessions

__all__ = [
    "BREAK_DAYS",
    "COOLING_OFF",
    "EXCLUSION_MONTHS",
    "LOSS_LIMIT",
    "REALITY_CHECK_MINUTES",
    "SESSION_MINUTES",
    "Limits",
    "Pending",
    "add_months",
    "change",
    "check_access",
    "check_stake",
    "confirm",
    "read",
    "read_from",
    "self_exclude",
    "send_read",
    "stricter",
    "take_break",
]

COOLING_OFF = timedelta(hours=24)
"""How long a raised limit waits before the player may confirm it."""
LOSS_LIMIT = (Decimal("1.00"), Decimal("1000000.00"))
"""The smallest and the largest loss limit a player may set."""
SESSION_MINUTES = (5, 1440)
"""The shortest and the longest session-time limit, in minutes."""
REALITY_CHECK_MINUTES = (5, 240)
"""The shortest and the longest interval of the reality check, in minutes."""
DEFAULT_REALITY_CHECK_MINUTES = 60
BREAK_DAYS = (1, 42)
"""The shortest and the longest break, in days (24 hours to six weeks)."""
EXCLUSION_MONTHS = (6, 60)
"""The shortest and the longest self-exclusion, in months."""


@dataclass(frozen=True)
class Pending:
    """A raised limit waiting for its cooling-off period (``value`` None: no limit)."""

    value: Any
    effective_from: datetime

    def due(self, now: datetime) -> bool:
        """Whether the cooling-off period is over (the player may confirm it)."""
        return now >= self.effective_from


@dataclass(frozen=True)
class Limits:
    """A player's limits as they hold now; ``None`` is no limit."""

    loss_limit: Decimal | None = None
    session_minutes: int | None = None
    reality_check_minutes: int = DEFAULT_REALITY_CHECK_MINUTES
    pending_loss_limit: Pending | None = None
    pending_session_minutes: Pending | None = None
    break_until: datetime | None = None
    excluded_until: datetime | None = None


def stricter(new: Any, current: Any) -> bool:
    """Whether the limit ``new`` is stricter than ``current`` (``None``: no limit)."""
    if new is None:
        return False
    return current is None or bool(new < current)


def add_months(moment: datetime, months: int) -> datetime:
    """The same day ``months`` later (the month's last day where it has fewer days)."""
    month = moment.month - 1 + months
    year, month = moment.year + month // 12, month % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def _money(units: int | None) -> Decimal | None:
    return None if units is None else ledger.from_units(units)


def _pending(value: Any, at: datetime | None) -> Pending | None:
    return None if at is None else Pending(value, at)


# Read at every stake.
_READ = Prepared(
    select(player_limits).where(player_limits.c.user_id == sqlalchemy.bindparam("user"))
)


def read(conn: sqlalchemy.Connection, user_id: int, now: datetime) -> Limits:
    """The player's limits, and his break or exclusion while it lasts."""
    return read_from(send_read(conn, user_id), now)


def send_read(conn: sqlalchemy.Connection, user_id: int) -> Sent:
    """The statement of :func:`read`, sent (in a :func:`~croupier.server.driver.
    pipeline`, with others); :func:`read_from` reads the limits from it."""
    return _READ.send(conn, {"user": user_id})


def read_from(sent: Sent, now: datetime) -> Limits:
    """The limits :func:`send_read` read, as :func:`read` gives them."""
    rows = sent.ran().all()
    if not rows:
        return Limits()
    row = rows[0]
    return Limits(
        loss_limit=_money(row.loss_limit),
        session_minutes=row.session_minutes,
        reality_check_minutes=int(row.reality_check_minutes),
        pending_loss_limit=_pending(_money(row.pending_loss_limit), row.pending_loss_limit_from),
        pending_session_minutes=_pending(
            row.pending_session_minutes, row.pending_session_minutes_from
        ),
        break_until=row.break_until if row.break_until and row.break_until > now else None,
        excluded_until=(
            row.excluded_until if row.excluded_until and row.excluded_until > now else None
        ),
    )


def _write(conn: sqlalchemy.Connection, user_id: int, limits: Limits, now: datetime) -> None:
    loss, minutes = limits.pending_loss_limit, limits.pending_session_minutes
    values: dict[str, Any] = {
        "loss_limit": None if limits.loss_limit is None else ledger.to_units(limits.loss_limit),
        "pending_loss_limit": (
            None if loss is None or loss.value is None else ledger.to_units(loss.value)
        ),
        "pending_loss_limit_from": None if loss is None else loss.effective_from,
        "session_minutes": limits.session_minutes,
        "pending_session_minutes": None if minutes is None else minutes.value,
        "pending_session_minutes_from": None if minutes is None else minutes.effective_from,
        "reality_check_minutes": limits.reality_check_minutes,
        "break_until": limits.break_until,
        "excluded_until": limits.excluded_until,
        "updated_at": now,
    }
    statement = insert_ignoring(conn, player_limits, ["user_id"])
    conn.execute(statement.values(user_id=user_id, **values))
    conn.execute(player_limits.update().where(player_limits.c.user_id == user_id).values(**values))


def _decide(
    current: Any, pending: Pending | None, new: Any, now: datetime
) -> tuple[Any, Pending | None]:
    """One limit changed to ``new``: at once when stricter, after cooling off when not."""
    if new == current:
        return current, None  # a raise asked for before is withdrawn
    if stricter(new, current):
        return new, None
    if pending is not None and pending.value == new:
        return current, pending  # asked again: the cooling-off already running goes on
    return current, Pending(new, now + COOLING_OFF)


def _check_range(what: str, value: Any, bounds: tuple[Any, Any], unit: str) -> None:
    low, high = bounds
    if not low <= value <= high:
        raise InvalidLimit(f"{what} must be from {low} to {high} {unit}, not {value}")


def change(
    conn: sqlalchemy.Connection,
    user_id: int,
    now: datetime,
    *,
    loss_limit: Decimal | None,
    session_minutes: int | None,
    reality_check_minutes: int,
) -> Limits:
    """Set the player's limits (``None``: no limit); the limits as they now hold.

    A stricter limit holds at once; a looser one waits :data:`COOLING_OFF` and then
    the player's confirmation.  The reality check's interval is the player's to choose
    and changes at once.
    """
    if loss_limit is not None:
        if not isinstance(loss_limit, Decimal) or not loss_limit.is_finite():
            raise InvalidLimit(f"loss limit {loss_limit!r} must be an amount of money")
        _check_range("a loss limit", loss_limit, LOSS_LIMIT, "")
        ledger.to_units(loss_limit)  # a whole number of cents
        loss_limit = loss_limit.quantize(ledger.UNIT)
    if session_minutes is not None:
        _check_range("a session-time limit", session_minutes, SESSION_MINUTES, "minutes")
    _check_range(
        "the reality check's interval", reality_check_minutes, REALITY_CHECK_MINUTES, "minutes"
    )
    limits = read(conn, user_id, now)
    loss, pending_loss = _decide(limits.loss_limit, limits.pending_loss_limit, loss_limit, now)
    minutes, pending_minutes = _decide(
        limits.session_minutes, limits.pending_session_minutes, session_minutes, now
    )
    limits = replace(
        limits,
        loss_limit=loss,
        pending_loss_limit=pending_loss,
        session_minutes=minutes,
        pending_session_minutes=pending_minutes,
        reality_check_minutes=reality_check_minutes,
    )
    _write(conn, user_id, limits, now)
    return limits


def confirm(conn: sqlalchemy.Connection, user_id: int, now: datetime) -> Limits:
    """The player confirms the raised limits whose cooling-off period is over.

    :class:`InvalidLimit` when none is waiting for confirmation (a raise still cooling
    off says until when).
    """
    limits = read(conn, user_id, now)
    waiting = [p for p in (limits.pending_loss_limit, limits.pending_session_minutes) if p]
    if not any(pending.due(now) for pending in waiting):
        if waiting:
            until = min(pending.effective_from for pending in waiting)
            raise InvalidLimit(
                f"a raised limit may be confirmed from {until.isoformat(timespec='minutes')}, "
                f"{COOLING_OFF} after it was asked for"
            )
        raise InvalidLimit("no raised limit is waiting for confirmation")
    loss, minutes = limits.pending_loss_limit, limits.pending_session_minutes
    if loss is not None and loss.due(now):
        limits = replace(limits, loss_limit=loss.value, pending_loss_limit=None)
    if minutes is not None and minutes.due(now):
        limits = replace(limits, session_minutes=minutes.value, pending_session_minutes=None)
    _write(conn, user_id, limits, now)
    return limits


def _log_out_everywhere(conn: sqlalchemy.Connection, user_id: int) -> None:
    conn.execute(delete(sessions).where(sessions.c.user_id == user_id))


def take_break(conn: sqlalchemy.Connection, user_id: int, days: int, now: datetime) -> Limits:
    """No play for ``days`` days from now; the player is logged out everywhere.

    A break cannot be shortened: a second one only ever makes it longer.
    """
    _check_range("a break", days, BREAK_DAYS, "days")
    limits = read(conn, user_id, now)
    until = now + timedelta(days=days)
    if limits.break_until is not None and limits.break_until > until:
        until = limits.break_until
    limits = replace(limits, break_until=until)
    _write(conn, user_id, limits, now)
    _log_out_everywhere(conn, user_id)
    return limits


def self_exclude(conn: sqlalchemy.Connection, user_id: int, months: int, now: datetime) -> Limits:
    """Exclude the player for ``months`` months; he is logged out everywhere.

    Nothing the player does can undo or shorten it.
    """
    _check_range("self-exclusion", months, EXCLUSION_MONTHS, "months")
    limits = read(conn, user_id, now)
    until = add_months(now, months)
    if limits.excluded_until is not None and limits.excluded_until > until:
        until = limits.excluded_until
    limits = replace(limits, excluded_until=until)
    _write(conn, user_id, limits, now)
    _log_out_everywhere(conn, user_id)
    return limits


def _day(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def check_access(
    conn: sqlalchemy.Connection, user_id: int, now: datetime, *, sent: Sent | None = None
) -> Limits:
    """Refuse a player on a break or self-excluded; his limits otherwise (``sent``: as
    :func:`send_read` read them)."""
    limits = read_from(sent if sent is not None else send_read(conn, user_id), now)
    if limits.excluded_until is not None:
        raise SelfExcluded(
            f"you have excluded yourself from play until {_day(limits.excluded_until)}; "
            "it cannot be lifted before then"
        )
    if limits.break_until is not None:
        raise OnBreak(f"you are taking a break from play until {_day(limits.break_until)}")
    return limits


def _duration(span: timedelta) -> str:
    minutes = int(span.total_seconds() // 60)
    return f"{minutes // 60} h {minutes % 60:02d} min"


def check_stake(
    conn: sqlalchemy.Connection,
    user_id: int,
    amount: Decimal,
    *,
    new_bet: bool,
    now: datetime,
    sent: Sent | None = None,
) -> None:
    """Refuse a stake of ``amount`` that the player's limits forbid.

    ``new_bet``: the stake opens a bet (a double, a split or insurance adds to a hand
    already in play, which the session-time limit lets the player finish).  ``sent``:
    his limits as :func:`send_read` read them (else they are read here).

    Raises:
        SelfExcluded, OnBreak: the player may not play now.
        LossLimitReached: the stake would take the session's loss past the limit.
        SessionTimeLimitReached: a new bet once the session has lasted the time limit.
    """
    limits = check_access(conn, user_id, now, sent=sent)
    if limits.loss_limit is None and limits.session_minutes is None:
        return
    session = play_sessions.current(conn, user_id, now)
    if limits.session_minutes is not None and new_bet and session is not None:
        played = now - session.started_at
        if played >= timedelta(minutes=limits.session_minutes):
            raise SessionTimeLimitReached(
                f"bet refused: this session has lasted {_duration(played)}, and your "
                f"session-time limit is {limits.session_minutes} minutes; a new session "
                f"starts after {int(play_sessions.AWAY.total_seconds() // 60)} minutes away"
            )
    if limits.loss_limit is not None:
        net = Decimal("0.00")
        if session is not None:
            net, _ = ledger.session_totals(conn, user_id, session.ledger_mark)
        loss = -(net - amount)
        if loss > limits.loss_limit:
            room = max(Decimal("0.00"), limits.loss_limit + net)
            raise LossLimitReached(
                f"bet of {amount} refused: it would take your loss this session to {loss}, "
                f"past your loss limit of {limits.loss_limit}; you may stake up to {room} "
                "more this session"
            )
