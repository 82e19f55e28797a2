"""Players and dealers: registration, password login, lockout and sessions.

Passwords are hashed with argon2id (memory-hard) and never stored; session tokens
are random and only their SHA-256 is stored.  Every function takes the current time
``now`` (an aware datetime) so that lockout and idle expiry can be tested.

Failed logins are counted in the database *before* :class:`LoginFailed` or
:class:`AccountLocked` is raised.  A caller that rolls its transaction back on every
error (``with engine.begin() as conn:``) would forget them and defeat the lockout:
commit even when those errors are raised, as :func:`sign_in` does.

>>> check_name("dealer_01")
>>> check_name("a b")
Traceback (most recent call last):
...
croupier.server.errors.InvalidCredentials: user name 'a b' must be 3 to 40 of A-Z a-z 0-9 _ . -
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

import sqlalchemy
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select, update

from croupier.server.db import insert_ignoring, utcnow
from croupier.server.errors import (
    AccountLocked,
    InvalidCredentials,
    LoginFailed,
    NameTaken,
    SessionExpired,
)
from croupier.server.schema import ROLES, sessions, users

__all__ = [
    "IDLE",
    "LOCKOUT",
    "MAX_FAILED",
    "MIN_PASSWORD",
    "User",
    "authenticate",
    "check_name",
    "check_password",
    "hash_token",
    "login",
    "logout",
    "register",
    "sign_in",
]

MAX_FAILED = 5
"""Consecutive failed logins that lock an account."""
LOCKOUT = timedelta(minutes=15)
"""How long a locked account stays locked."""
IDLE = timedelta(minutes=30)
"""How long a session lives without being used."""
MIN_PASSWORD = 8
MAX_PASSWORD = 1024

_NAME = re.compile(r"[A-Za-z0-9_.-]{3,40}")
_LOGIN_FAILED = "wrong user name or password"

_hasher = PasswordHasher()  # argon2id with the library's (RFC 9106) memory-hard defaults


@dataclass(frozen=True)
class User:
    """A signed-in user."""

    id: int
    name: str
    role: str


def check_name(name: str) -> None:
    """Refuse a user name that is not 3 to 40 of ``A-Z a-z 0-9 _ . -``."""
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise InvalidCredentials(f"user name {name!r} must be 3 to 40 of A-Z a-z 0-9 _ . -")


def check_password(password: str) -> None:
    """Refuse a password shorter than eight characters (or absurdly long).

    >>> check_password("short")
    Traceback (most recent call last):
    ...
    croupier.server.errors.InvalidCredentials: password must have at least 8 characters
    """
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise InvalidCredentials(f"password must have at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise InvalidCredentials(f"password must have at most {MAX_PASSWORD} characters")


def hash_token(token: str) -> str:
    """The SHA-256 (hex) under which a session token is stored.

    >>> len(hash_token("abc"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


def _aware(now: datetime) -> datetime:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"time {now.isoformat()} has no time zone; pass an aware UTC datetime")
    return now


def register(
    conn: sqlalchemy.Connection,
    name: str,
    password: str,
    *,
    role: str = "player",
    now: datetime | None = None,
) -> int:
    """Create a user; his id.  :class:`NameTaken` if the name is taken."""
    check_name(name)
    check_password(password)
    if role not in ROLES:
        raise InvalidCredentials(f"role {role!r} must be one of {', '.join(ROLES)}")
    created = _aware(now) if now is not None else utcnow()
    password_hash = _hasher.hash(password)
    values = {"name": name, "password_hash": password_hash, "role": role, "created_at": created}
    statement = insert_ignoring(conn, users, ["name"])
    user_id = conn.execute(statement.values(values).returning(users.c.id)).scalar_one_or_none()
    if user_id is None:
        raise NameTaken(f"user name {name!r} is taken")
    registered: int = user_id
    return registered


@cache
def _decoy_hash() -> str:
    return _hasher.hash(secrets.token_urlsafe(16))


def _verify(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def login(conn: sqlalchemy.Connection, name: str, password: str, *, now: datetime) -> str:
    """Check a name and password; a new session token.

    A wrong password (or an unknown name: the message is the same) raises
    :class:`LoginFailed` and counts a failure; the :data:`MAX_FAILED`-th failure in a
    row locks the account for :data:`LOCKOUT`, during which every login raises
    :class:`AccountLocked`.  A success resets the count.  The failure count is written
    on ``conn`` before the error is raised: commit it (see :func:`sign_in`).
    """
    _aware(now)
    row = conn.execute(
        select(users.c.id, users.c.password_hash, users.c.failed_logins, users.c.locked_until)
        .where(users.c.name == name)
        .with_for_update()
    ).one_or_none()
    if row is None:
        _verify(_decoy_hash(), password)  # spend the same time as for a known name
        raise LoginFailed(_LOGIN_FAILED)
    if row.locked_until is not None and now < row.locked_until:
        raise AccountLocked(
            f"account {name!r} is locked after {MAX_FAILED} failed logins "
            f"until {row.locked_until.isoformat()}"
        )
    if not _verify(row.password_hash, password):
        failures = row.failed_logins + 1
        if failures >= MAX_FAILED:
            until = now + LOCKOUT
            conn.execute(
                update(users)
                .where(users.c.id == row.id)
                .values(failed_logins=0, locked_until=until)
            )
            raise AccountLocked(
                f"account {name!r} is locked after {MAX_FAILED} failed logins "
                f"until {until.isoformat()}"
            )
        conn.execute(update(users).where(users.c.id == row.id).values(failed_logins=failures))
        raise LoginFailed(_LOGIN_FAILED)
    if _hasher.check_needs_rehash(row.password_hash):
        conn.execute(
            update(users).where(users.c.id == row.id).values(password_hash=_hasher.hash(password))
        )
    conn.execute(
        update(users).where(users.c.id == row.id).values(failed_logins=0, locked_until=None)
    )
    token = secrets.token_urlsafe(32)
    conn.execute(
        sessions.insert().values(
            token_hash=hash_token(token), user_id=row.id, created_at=now, last_seen=now
        )
    )
    return token


def sign_in(engine: sqlalchemy.Engine, name: str, password: str, *, now: datetime) -> str:
    """:func:`login` in its own transaction, committing failed attempts too; a token."""
    with engine.connect() as conn:
        try:
            token = login(conn, name, password, now=now)
        except (LoginFailed, AccountLocked):
            conn.commit()
            raise
        conn.commit()
        return token


def authenticate(conn: sqlalchemy.Connection, token: str, *, now: datetime) -> User:
    """The user of a session token, which is marked as used now.

    :class:`SessionExpired` if the token names no session, or one idle for longer
    than :data:`IDLE` (that session is then deleted).
    """
    _aware(now)
    token_hash = hash_token(token)
    row = conn.execute(
        select(sessions.c.last_seen, users.c.id, users.c.name, users.c.role)
        .join(users, sessions.c.user_id == users.c.id)
        .where(sessions.c.token_hash == token_hash)
    ).one_or_none()
    if row is None:
        raise SessionExpired("no such session: log in again")
    if now - row.last_seen > IDLE:
        conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))
        raise SessionExpired(
            f"session of {row.name!r} expired after {IDLE} idle (last seen "
            f"{row.last_seen.isoformat()}): log in again"
        )
    conn.execute(
        update(sessions)
        .where(sessions.c.token_hash == token_hash)
        .values(last_seen=max(now, row.last_seen))
    )
    return User(id=row.id, name=row.name, role=row.role)


def logout(conn: sqlalchemy.Connection, token: str) -> None:
    """End a session (nothing happens if there is none)."""
    conn.execute(delete(sessions).where(sessions.c.token_hash == hash_token(token)))
