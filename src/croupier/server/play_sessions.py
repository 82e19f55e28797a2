"""A player's session of play, kept in the database so that no tab or login resets it.

A session of play starts at a player's first login and goes on for as long as he
keeps coming back within :data:`AWAY` (the idle time of a login): logging in again,
a reload, a second tab or a new browser window all continue it, so its start, its
net result, the amount wagered and the reality-check clock are the server's, not a
page's.  After :data:`AWAY` without a request the next login starts a new one.

Its money is read from the ledger: every movement of the player's account after the
session's *mark* (the newest transaction when it started).  The reality check is due
one interval (the player's choice, :mod:`croupier.server.limits`) after the start of
its clock: the session's start, moved on by whole intervals as he acknowledges each check
(:func:`next_reality_check`).

>>> from datetime import UTC
>>> interval = timedelta(minutes=60)
>>> start = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
>>> next_reality_check(start, interval, acknowledged_at=start + timedelta(minutes=61))  # due 14:00
datetime.datetime(2026, 1, 1, 13, 0, tzinfo=datetime.timezone.utc)
>>> next_reality_check(start, interval, acknowledged_at=start + timedelta(minutes=185))  # 16:00
datetime.datetime(2026, 1, 1, 15, 0, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import sqlalchemy
from sqlalchemy import bindparam, select, update

from croupier.server import ledger
from croupier.server.schema import play_sessions

__all__ = [
    "AWAY",
    "PlaySession",
    "SessionStats",
    "acknowledge_reality_check",
    "current",
    "next_reality_check",
    "stats",
    "touch",
    "touch_all",
]

AWAY = timedelta(minutes=30)
"""How long a player may be away (no request at all) before his session of play ends:
the same as a login's idle time, so a session ends when its last login has expired."""


@dataclass(frozen=True)
class PlaySession:
    """A session of play as stored."""

    id: int
    user_id: int
    started_at: datetime
    last_active_at: datetime
    ledger_mark: int
    reality_check_at: datetime


@dataclass(frozen=True)
class SessionStats:
    """What the player is shown of his session: all of it the server's."""

    started_at: datetime
    net: Decimal
    wagered: Decimal
    reality_check_minutes: int
    reality_check_at: datetime
    """The start of the reality-check clock: the session's start, or the check last
    acknowledged."""
    reality_check_due: datetime
    """When the next reality check is due."""


def _row(row: sqlalchemy.Row[Any, Any, Any]) -> PlaySession:
    return PlaySession(
        id=int(row.id),
        user_id=int(row.user_id),
        started_at=row.started_at,
        last_active_at=row.last_active_at,
        ledger_mark=int(row.ledger_mark),
        reality_check_at=row.reality_check_at,
    )


def current(conn: sqlalchemy.Connection, user_id: int, now: datetime) -> PlaySession | None:
    """The player's session of play at ``now`` (``None`` if he has been away too long)."""
    row = conn.execute(
        select(play_sessions)
        .where(play_sessions.c.user_id == user_id)
        .order_by(play_sessions.c.id.desc())
        .limit(1)
    ).one_or_none()
    if row is None or now - row.last_active_at > AWAY:
        return None
    return _row(row)


def _going_on(
    which: sqlalchemy.ColumnElement[bool], *returned: sqlalchemy.ColumnElement[Any]
) -> sqlalchemy.Update:
    """The sessions of play ``which`` names go on, where their players have not been
    away too long: one statement that returns ``returned`` of each."""
    return (
        update(play_sessions)
        .where(
            which,
            play_sessions.c.last_active_at
            >= bindparam("alive_since", type_=play_sessions.c.last_active_at.type),
        )
        .values(
            last_active_at=sqlalchemy.case(
                (play_sessions.c.last_active_at < bindparam("now"), bindparam("now")),
                else_=play_sessions.c.last_active_at,
            )
        )
        .returning(*returned)
    )


# The player's latest session of play goes on: one statement, the session as it is
# after it (see ``touch``).
_GO_ON = _going_on(
    play_sessions.c.id
    == select(sqlalchemy.func.max(play_sessions.c.id))
    .where(play_sessions.c.user_id == bindparam("who"))
    .scalar_subquery(),
    *play_sessions.c,
)

# Each player's latest session of play goes on, for many players in one statement
# (the ids of the players whose session did).
_GO_ON_ALL = _going_on(
    play_sessions.c.id.in_(
        select(sqlalchemy.func.max(play_sessions.c.id))
        .where(play_sessions.c.user_id.in_(bindparam("who", expanding=True)))
        .group_by(play_sessions.c.user_id)
    ),
    play_sessions.c.user_id,
)


def touch(conn: sqlalchemy.Connection, user_id: int, now: datetime) -> PlaySession:
    """The player is here at ``now``: his session of play goes on, or a new one starts."""
    row = conn.execute(
        _GO_ON, {"who": user_id, "alive_since": now - AWAY, "now": now}
    ).one_or_none()
    if row is not None:
        return _row(row)
    session = current(conn, user_id, now)
    if session is None:
        mark = ledger.last_transaction(conn)
        new_id = conn.execute(
            play_sessions.insert()
            .values(
                user_id=user_id,
                started_at=now,
                last_active_at=now,
                ledger_mark=mark,
                reality_check_at=now,
            )
            .returning(play_sessions.c.id)
        ).scalar_one()
        return PlaySession(int(new_id), user_id, now, now, mark, now)
    if now > session.last_active_at:
        conn.execute(
            update(play_sessions).where(play_sessions.c.id == session.id).values(last_active_at=now)
        )
    return session


def touch_all(conn: sqlalchemy.Connection, user_ids: Iterable[int], now: datetime) -> None:
    """The players are here at ``now``: each one's session of play goes on, or a new
    one starts, as :func:`touch` does one by one.  Those whose session goes on (all but
    the rare player back after :data:`AWAY`) cost one statement together."""
    who = sorted(set(user_ids))
    if not who:
        return
    went_on = conn.execute(
        _GO_ON_ALL, {"who": who, "alive_since": now - AWAY, "now": now}
    ).scalars()
    for user_id in sorted(set(who) - {int(user) for user in went_on}):
        touch(conn, user_id, now)


def next_reality_check(
    reality_check_at: datetime, interval: timedelta, *, acknowledged_at: datetime
) -> datetime:
    """The new start of the reality-check clock once a check is acknowledged.

    The clock moves on by whole intervals, at least one: a check answered late does
    not come back at once, and one answered by a page whose clock runs ahead of the
    server's is not asked again a moment later.
    """
    intervals = max(1, (acknowledged_at - reality_check_at) // interval)
    return reality_check_at + interval * intervals


def acknowledge_reality_check(
    conn: sqlalchemy.Connection, user_id: int, now: datetime, interval: timedelta
) -> None:
    """The player has read the reality check: its clock starts again."""
    session = touch(conn, user_id, now)
    conn.execute(
        update(play_sessions)
        .where(play_sessions.c.id == session.id)
        .values(
            reality_check_at=next_reality_check(
                session.reality_check_at, interval, acknowledged_at=now
            )
        )
    )


def stats(
    conn: sqlalchemy.Connection, user_id: int, now: datetime, reality_check_minutes: int
) -> SessionStats:
    """The player's session of play, started now if he has none."""
    session = touch(conn, user_id, now)
    net, wagered = ledger.session_totals(conn, user_id, session.ledger_mark)
    reality_check_at = conn.execute(
        select(play_sessions.c.reality_check_at).where(play_sessions.c.id == session.id)
    ).scalar_one()
    return SessionStats(
        started_at=session.started_at,
        net=net,
        wagered=wagered,
        reality_check_minutes=reality_check_minutes,
        reality_check_at=reality_check_at,
        reality_check_due=reality_check_at + timedelta(minutes=reality_check_minutes),
    )
