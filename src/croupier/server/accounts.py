"""Players and dealers: registration, password login, throttling and sessions.

Passwords are hashed with argon2id (memory-hard) and never stored; session tokens
are random and only their SHA-256 is stored.  Every function takes the current time
``now`` (an aware datetime) so that throttling and idle expiry can be tested.

Failed logins are throttled per name, never locked: after :data:`FREE_FAILURES`
failures in a row the name waits between tries, the wait doubling up to
:data:`MAX_BACKOFF` (:func:`backoff`), so guessing is slow and its owner, who cannot
be told apart from a guesser, is never kept out for longer than that.  An unknown
name, a wrong password and a name waiting its turn are refused alike: the same
:class:`LoginFailed`, the same message, one password hash's time.  (The server adds a
throttle per client address.)  Hashing never runs inside a write transaction.

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
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any, NoReturn

import sqlalchemy
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import bindparam, delete, select, update

from croupier.server import limits, play_sessions
from croupier.server.db import insert_ignoring, utcnow
from croupier.server.errors import (
    AccountDisabled,
    InvalidCredentials,
    LoginFailed,
    NameTaken,
    NotFound,
    SessionExpired,
)
from croupier.server.roles import Role
from croupier.server.schema import ROLES, login_throttle, sessions, users

__all__ = [
    "CONFIRMED_TOGETHER",
    "FREE_FAILURES",
    "IDLE",
    "MAX_BACKOFF",
    "MIN_PASSWORD",
    "AccountRow",
    "AddressThrottle",
    "NewAccount",
    "User",
    "authenticate",
    "backoff",
    "check_name",
    "check_password",
    "confirm",
    "confirm_alive",
    "create",
    "disable",
    "hash_token",
    "list_accounts",
    "login",
    "logout",
    "prepare",
    "refuse",
    "register",
    "sign_in",
    "still_alive",
]

FREE_FAILURES = 3
"""Failed logins in a row a name may have before it must wait between attempts."""
MAX_BACKOFF = timedelta(seconds=30)
"""The longest a name ever waits between attempts: its owner is never locked out."""
IDLE = timedelta(minutes=30)
"""How long a session lives without being used."""
MIN_PASSWORD = 8
MAX_PASSWORD = 1024

_NAME = re.compile(r"[A-Za-z0-9_.-]{3,40}")
_LOGIN_FAILED = (
    "wrong user name or password (after repeated failures, wait up to 30 seconds between tries)"
)

#: A user a login may be for: id, name, password hash, backoff, disabled.
_Candidate = sqlalchemy.Row[Any, Any, Any, Any, Any]

_hasher = PasswordHasher()  # argon2id with the library's (RFC 9106) memory-hard defaults


@dataclass(frozen=True)
class User:
    """A signed-in user."""

    id: int
    name: str
    role: Role


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


@dataclass(frozen=True)
class NewAccount:
    """A checked registration with its password already hashed (see :func:`prepare`)."""

    name: str
    password_hash: str
    role: Role


def prepare(name: str, password: str, *, role: str = Role.PLAYER) -> NewAccount:
    """Check a registration and hash its password.

    Hashing is slow on purpose (memory-hard): do it here, before any transaction, so
    that no write waits on it.
    """
    check_name(name)
    check_password(password)
    if role not in ROLES:
        raise InvalidCredentials(f"role {role!r} must be one of {', '.join(ROLES)}")
    return NewAccount(name, _hasher.hash(password), Role(role))


def create(conn: sqlalchemy.Connection, account: NewAccount, *, now: datetime | None = None) -> int:
    """Store a prepared account; its id.  :class:`NameTaken` if the name is taken."""
    created = _aware(now) if now is not None else utcnow()
    values = {
        "name": account.name,
        "password_hash": account.password_hash,
        "role": account.role,
        "created_at": created,
    }
    statement = insert_ignoring(conn, users, ["name"])
    user_id = conn.execute(statement.values(values).returning(users.c.id)).scalar_one_or_none()
    if user_id is None:
        raise NameTaken(f"user name {account.name!r} is taken")
    registered: int = user_id
    return registered


def register(
    conn: sqlalchemy.Connection,
    name: str,
    password: str,
    *,
    role: str = Role.PLAYER,
    now: datetime | None = None,
) -> int:
    """Create a user; his id.  :class:`NameTaken` if the name is taken.

    This hashes inside the caller's transaction; a server prepares first
    (:func:`prepare`, then :func:`create`).
    """
    return create(conn, prepare(name, password, role=role), now=now)


@cache
def _decoy_hash() -> str:
    return _hasher.hash(secrets.token_urlsafe(16))


#: How long one password hash takes here (an average of the recent ones, in seconds):
#: a refusal made without hashing waits as long, so it looks like any other.
_hash_seconds = 0.05


def _verify(password_hash: str, password: str) -> bool:
    global _hash_seconds
    started = time.perf_counter()
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
    finally:
        _hash_seconds += (time.perf_counter() - started - _hash_seconds) / 8


def backoff(failures: int) -> timedelta:
    """How long a name waits after ``failures`` failed logins in a row.

    The first :data:`FREE_FAILURES` cost nothing; each one after doubles the wait,
    from one second up to :data:`MAX_BACKOFF` and never beyond, so that however
    often someone else guesses, the owner waits at most that long.

    >>> [int(backoff(n).total_seconds()) for n in range(1, 12)]
    [0, 0, 0, 1, 2, 4, 8, 16, 30, 30, 30]
    """
    if failures <= FREE_FAILURES:
        return timedelta(0)
    return min(MAX_BACKOFF, timedelta(seconds=2 ** min(failures - FREE_FAILURES - 1, 16)))


def _candidate(conn: sqlalchemy.Connection, name: str, now: datetime) -> _Candidate | None:
    """The user a login may be for: ``None`` for a name that cannot be one, is not
    registered, or is waiting out its backoff (the caller cannot tell which)."""
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        return None
    row = conn.execute(
        select(
            users.c.id,
            users.c.name,
            users.c.password_hash,
            users.c.locked_until,
            users.c.disabled_at,
        ).where(users.c.name == name)
    ).one_or_none()
    if row is None or (row.locked_until is not None and now < row.locked_until):
        return None
    return row


def _count_failure(conn: sqlalchemy.Connection, user_id: int, now: datetime) -> None:
    conn.execute(
        update(users).where(users.c.id == user_id).values(failed_logins=users.c.failed_logins + 1)
    )
    failures = conn.execute(select(users.c.failed_logins).where(users.c.id == user_id)).scalar_one()
    wait = backoff(failures)
    if wait:
        conn.execute(update(users).where(users.c.id == user_id).values(locked_until=now + wait))


def _admit(conn: sqlalchemy.Connection, row: _Candidate, now: datetime) -> None:
    """Refuse a login with the right password for an account that may not play now:
    disabled by the operator, on a break, or self-excluded (each says so: the password
    was right, so telling him reveals nothing to a guesser)."""
    if row.disabled_at is not None:
        raise AccountDisabled(f"account {row.name!r} is disabled: ask the site's operator")
    limits.check_access(conn, row.id, now)


def _open_session(
    conn: sqlalchemy.Connection, user_id: int, now: datetime, rehashed: str | None
) -> str:
    play_sessions.touch(conn, user_id, now)
    values: dict[str, object] = {"failed_logins": 0, "locked_until": None}
    if rehashed is not None:
        values["password_hash"] = rehashed
    conn.execute(update(users).where(users.c.id == user_id).values(**values))
    token = secrets.token_urlsafe(32)
    conn.execute(
        sessions.insert().values(
            token_hash=hash_token(token), user_id=user_id, created_at=now, last_seen=now
        )
    )
    return token


def _check(row: _Candidate | None, password: str) -> bool:
    """Verify the password: one memory-hard hash whatever the row (the same time for
    an unknown name, a wrong password and a name waiting out its backoff)."""
    if row is None:
        _verify(_decoy_hash(), password)
        return False
    return _verify(str(row.password_hash), password)


def _rehash(row: _Candidate, password: str) -> str | None:
    if _hasher.check_needs_rehash(str(row.password_hash)):
        return _hasher.hash(password)
    return None


def refuse(password: str) -> NoReturn:
    """Refuse a login as every refusal is made: one hash's time, the same error.

    No hash is computed (an address that must wait gets no CPU spent on it): the
    caller's thread waits as long as a hash takes, then gets the same error.
    """
    time.sleep(_hash_seconds)
    raise LoginFailed(_LOGIN_FAILED)


def login(conn: sqlalchemy.Connection, name: str, password: str, *, now: datetime) -> str:
    """Check a name and password on the caller's connection; a new session token.

    Every refusal is the same :class:`LoginFailed`, with the same message and in the
    same time: an unknown name, a wrong password, and a name waiting out its
    :func:`backoff` after repeated failures.  With the right password, a disabled
    account is refused with :class:`AccountDisabled`, a player on a break or
    self-excluded with :class:`~croupier.server.errors.OnBreak` or
    :class:`~croupier.server.errors.SelfExcluded`.  A failure is written on ``conn`` before
    the error is raised: commit it.  :func:`sign_in` does the same with the hashing
    outside any transaction; a server uses that.
    """
    _aware(now)
    row = _candidate(conn, name, now)
    if not _check(row, password):
        if row is not None:
            _count_failure(conn, row.id, now)
        raise LoginFailed(_LOGIN_FAILED)
    assert row is not None
    _admit(conn, row, now)
    return _open_session(conn, row.id, now, _rehash(row, password))


def sign_in(engine: sqlalchemy.Engine, name: str, password: str, *, now: datetime) -> str:
    """:func:`login` with no transaction open while the password is hashed; a token.

    The user is read, the password verified with no connection held, then the
    outcome written in a short transaction of its own.
    """
    _aware(now)
    with engine.connect() as conn:
        row = _candidate(conn, name, now)
    if not _check(row, password):
        if row is not None:
            with engine.begin() as conn:
                _count_failure(conn, row.id, now)
        raise LoginFailed(_LOGIN_FAILED)
    assert row is not None
    rehashed = _rehash(row, password)
    with engine.begin() as conn:
        _admit(conn, row, now)
        return _open_session(conn, row.id, now, rehashed)


class AddressThrottle:
    """Failed logins per client address: a burst of ``burst``, then one per ``every``
    seconds.  It knows nothing of names, so it can only slow its own address down.

    Kept in the database (``login_throttle``): every process of a cluster counts
    against the same budget, and a restart clears nothing.

    >>> from datetime import UTC
    >>> from croupier.server.db import connect, migrate
    >>> engine = connect("sqlite://"); migrate(engine)
    >>> throttle = AddressThrottle(engine, burst=2, every=10.0)
    >>> throttle.failed("10.0.0.1", 0.0); throttle.failed("10.0.0.1", 0.0)
    >>> throttle.allows("10.0.0.1", 1.0), throttle.allows("10.0.0.2", 1.0)
    (False, True)
    >>> AddressThrottle(engine, burst=2, every=10.0).allows("10.0.0.1", 10.0)
    True
    """

    def __init__(self, engine: sqlalchemy.Engine, *, burst: int = 20, every: float = 3.0) -> None:
        self.engine = engine
        self.burst = burst
        self.every = every

    def allows(self, address: str, now: float) -> bool:
        """Whether ``address`` may try a login now (one failure's room is left)."""
        with self.engine.connect() as conn:
            full_ms = conn.execute(
                select(login_throttle.c.full_ms).where(login_throttle.c.address == address)
            ).scalar_one_or_none()
        return full_ms is None or full_ms - _ms(now) <= (self.burst - 1) * _ms(self.every)

    def failed(self, address: str, now: float) -> None:
        """Count a failed login from ``address`` (and forget the addresses whose
        buckets are full again)."""
        now_ms, every_ms = _ms(now), _ms(self.every)
        column = login_throttle.c.full_ms
        with self.engine.begin() as conn:
            moved = conn.execute(
                update(login_throttle)
                .where(login_throttle.c.address == address)
                .values(full_ms=sqlalchemy.case((column > now_ms, column), else_=now_ms) + every_ms)
            ).rowcount
            if not moved:
                conn.execute(delete(login_throttle).where(column <= now_ms))
                values = {"address": address, "full_ms": now_ms + every_ms}
                statement = insert_ignoring(conn, login_throttle, ["address"]).values(values)
                # No row written: another process counted this address meanwhile.
                if not conn.execute(statement).rowcount:
                    conn.execute(
                        update(login_throttle)
                        .where(login_throttle.c.address == address)
                        .values(full_ms=column + every_ms)
                    )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def authenticate(conn: sqlalchemy.Connection, token: str, *, now: datetime) -> User:
    """The user of a session token, which is marked as used now.

    :class:`SessionExpired` if the token names no session, or one idle for longer
    than :data:`IDLE` (that session is then deleted).
    """
    _aware(now)
    token_hash = hash_token(token)
    row = conn.execute(
        select(sessions.c.last_seen, users.c.id, users.c.name, users.c.role, users.c.disabled_at)
        .join(users, sessions.c.user_id == users.c.id)
        .where(sessions.c.token_hash == token_hash)
    ).one_or_none()
    if row is None:
        raise SessionExpired("no such session: log in again")
    if row.disabled_at is not None:
        conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))
        raise SessionExpired(f"account {row.name!r} is disabled: ask the site's operator")
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
    play_sessions.touch(conn, row.id, now)  # the player is here: his session of play goes on
    return User(id=row.id, name=row.name, role=Role(row.role))


def _confirming(
    which: sqlalchemy.ColumnElement[bool], *returned: sqlalchemy.ColumnElement[Any]
) -> sqlalchemy.Update:
    """The live sessions ``which`` names marked as used, their users not disabled, in
    one statement that returns ``returned`` of each."""
    return (
        update(sessions)
        .where(
            which,
            sessions.c.last_seen >= bindparam("alive_since", type_=sessions.c.last_seen.type),
            sqlalchemy.exists().where(
                users.c.id == sessions.c.user_id, users.c.disabled_at.is_(None)
            ),
        )
        .values(
            last_seen=sqlalchemy.case(
                (sessions.c.last_seen < bindparam("now"), bindparam("now")),
                else_=sessions.c.last_seen,
            )
        )
        .returning(*returned)
    )


# A live session marked as used: one statement (see ``confirm``).
_CONFIRM = _confirming(sessions.c.token_hash == bindparam("token"), sessions.c.user_id)

#: The most sessions :func:`confirm_alive` confirms in one statement (the list of
#: their hashes is bound as one parameter each).
CONFIRMED_TOGETHER = 500

# Every live session of a list of them, as ``_CONFIRM`` does one.
_CONFIRM_ALL = _confirming(
    sessions.c.token_hash.in_(bindparam("tokens", expanding=True)),
    sessions.c.token_hash,
    sessions.c.user_id,
)


def confirm(conn: sqlalchemy.Connection, token: str, *, now: datetime) -> int:
    """The id of a session's user, the session marked as used now, as
    :func:`authenticate` does, for a socket that signed in already.

    A live session costs one statement (and one for the session of play); any other
    goes through :func:`authenticate`, which raises :class:`SessionExpired` with why.
    """
    _aware(now)
    user_id: int | None = conn.execute(
        _CONFIRM,
        {"token": hash_token(token), "alive_since": now - IDLE, "now": now},
    ).scalar_one_or_none()
    if user_id is None:
        return authenticate(conn, token, now=now).id
    play_sessions.touch(conn, user_id, now)  # the player is here: his session of play goes on
    return int(user_id)


def _by_hash(
    conn: sqlalchemy.Connection,
    statement: sqlalchemy.Executable,
    tokens: Iterable[str],
    values: dict[str, Any],
) -> Iterator[tuple[str, Any]]:
    """``statement`` run on the hashes of ``tokens``, :data:`CONFIRMED_TOGETHER` at a
    time (bound as ``tokens``, with ``values``): each row's token, and the row's second
    column where it has one."""
    by_hash = {hash_token(token): token for token in tokens}
    hashes = sorted(by_hash)
    for start in range(0, len(hashes), CONFIRMED_TOGETHER):
        chunk = hashes[start : start + CONFIRMED_TOGETHER]
        for row in conn.execute(statement, {"tokens": chunk, **values}):
            yield by_hash[row[0]], row[1] if len(row) > 1 else None


def confirm_alive(conn: sqlalchemy.Connection, tokens: Iterable[str], *, now: datetime) -> set[str]:
    """Of ``tokens``, the sessions still alive, each marked as used now and its
    player's session of play going on, as :func:`confirm` does one by one; the others
    are left as they are (:func:`authenticate` says why when one is next used).

    One transaction for every socket whose session is due to be confirmed again (the
    table server's, in the background), not one each; two statements for all of them
    (:data:`CONFIRMED_TOGETHER` at a time), and the sessions of play, not two each.
    """
    _aware(now)
    alive: set[str] = set()
    players: set[int] = set()
    for token, user_id in _by_hash(
        conn, _CONFIRM_ALL, tokens, {"alive_since": now - IDLE, "now": now}
    ):
        alive.add(token)
        players.add(int(user_id))
    play_sessions.touch_all(conn, players, now)
    return alive


# The live sessions of a list of them, read: nothing is marked.
_ALIVE = select(sessions.c.token_hash).where(
    sessions.c.token_hash.in_(bindparam("tokens", expanding=True)),
    sessions.c.last_seen >= bindparam("alive_since", type_=sessions.c.last_seen.type),
    sqlalchemy.exists().where(users.c.id == sessions.c.user_id, users.c.disabled_at.is_(None)),
)


def still_alive(conn: sqlalchemy.Connection, tokens: Iterable[str], *, now: datetime) -> set[str]:
    """Of ``tokens``, the sessions still alive at ``now`` (their users not disabled, not
    idle past :data:`IDLE`), read: none is marked as used, no player's session of play
    goes on.  What keeps the trust in an idle socket's session (the table server's, in
    the background): a session is used only when its player does something.

    >>> from datetime import UTC
    >>> from croupier.server.db import connect, migrate
    >>> engine = connect("sqlite://")
    >>> migrate(engine)
    >>> moment = datetime(2026, 1, 1, tzinfo=UTC)
    >>> with engine.begin() as conn:
    ...     _ = register(conn, "ann", "correct horse battery")
    ...     token = login(conn, "ann", "correct horse battery", now=moment)
    ...     still_alive(conn, [token, "gone"], now=moment) == {token}
    True
    >>> with engine.begin() as conn:  # idle past IDLE: no longer alive
    ...     still_alive(conn, [token], now=moment + IDLE + timedelta(seconds=1))
    set()
    """
    _aware(now)
    return {token for token, _ in _by_hash(conn, _ALIVE, tokens, {"alive_since": now - IDLE})}


def logout(conn: sqlalchemy.Connection, token: str) -> None:
    """End a session (nothing happens if there is none)."""
    conn.execute(delete(sessions).where(sessions.c.token_hash == hash_token(token)))


@dataclass(frozen=True)
class AccountRow:
    """An account as the operator lists it."""

    id: int
    name: str
    role: Role
    created_at: datetime
    disabled_at: datetime | None


def list_accounts(conn: sqlalchemy.Connection) -> list[AccountRow]:
    """Every account, in the order they were made."""
    rows = conn.execute(
        select(
            users.c.id, users.c.name, users.c.role, users.c.created_at, users.c.disabled_at
        ).order_by(users.c.id)
    )
    return [
        AccountRow(row.id, row.name, Role(row.role), row.created_at, row.disabled_at)
        for row in rows
    ]


def disable(conn: sqlalchemy.Connection, name: str, *, now: datetime) -> bool:
    """Disable an account and end its logins; ``False`` if it was disabled already.

    :class:`~croupier.server.errors.NotFound` if there is no such account.
    """
    _aware(now)
    row = conn.execute(
        select(users.c.id, users.c.disabled_at).where(users.c.name == name)
    ).one_or_none()
    if row is None:
        raise NotFound(f"no account named {name!r}")
    conn.execute(delete(sessions).where(sessions.c.user_id == row.id))
    if row.disabled_at is not None:
        return False
    conn.execute(update(users).where(users.c.id == row.id).values(disabled_at=now))
    return True
