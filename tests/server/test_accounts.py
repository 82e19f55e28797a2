"""Players and dealers: registration, login, lockout and sessions."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy
from sqlalchemy import func, select

from croupier.server import accounts
from croupier.server.driver import trace
from croupier.server.errors import (
    AuthError,
    InvalidCredentials,
    LoginFailed,
    NameTaken,
    SessionExpired,
)
from croupier.server.roles import Role
from croupier.server.schema import play_sessions, sessions, users

T0 = datetime(2025, 3, 1, 20, 0, tzinfo=UTC)
PASSWORD = "correct horse"


def register(engine: sqlalchemy.Engine, name: str = "alice", role: str = "player") -> int:
    with engine.begin() as conn:
        return accounts.register(conn, name, PASSWORD, role=role, now=T0)


def sign_in(engine: sqlalchemy.Engine, password: str, at: datetime, name: str = "alice") -> str:
    return accounts.sign_in(engine, name, password, now=at)


def authenticate(engine: sqlalchemy.Engine, token: str, at: datetime) -> accounts.User:
    with engine.begin() as conn:
        return accounts.authenticate(conn, token, now=at)


def user_row(engine: sqlalchemy.Engine, name: str = "alice") -> sqlalchemy.Row[tuple[object, ...]]:
    with engine.connect() as conn:
        return conn.execute(select(users).where(users.c.name == name)).one()


def session_count(engine: sqlalchemy.Engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(sessions)).scalar_one()


def test_passwords_are_stored_as_argon2id_hashes(engine: sqlalchemy.Engine) -> None:
    user_id = register(engine)
    row = user_row(engine)
    assert row.id == user_id
    assert row.role == "player"
    assert row.failed_logins == 0
    assert row.locked_until is None
    assert row.created_at == T0
    stored = str(row.password_hash)
    assert stored.startswith("$argon2id$")
    assert PASSWORD not in stored
    assert register(engine, "bob", role="dealer") != user_id
    assert user_row(engine, "bob").role == "dealer"


def test_a_taken_name_is_refused(engine: sqlalchemy.Engine) -> None:
    register(engine)
    with pytest.raises(NameTaken, match="'alice' is taken"):
        register(engine)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(users)).scalar_one() == 1


@pytest.mark.parametrize(
    ("name", "password", "role", "rule"),
    [
        ("al", PASSWORD, "player", "user name 'al' must be 3 to 40"),
        ("a" * 41, PASSWORD, "player", "must be 3 to 40"),
        ("bad name", PASSWORD, "player", "user name 'bad name'"),
        ("émile", PASSWORD, "player", "A-Z a-z 0-9 _ . -"),
        ("alice", "7chars!", "player", "password must have at least 8 characters"),
        ("alice", "x" * 1025, "player", "at most 1024 characters"),
        ("alice", PASSWORD, "boss", "role 'boss' must be one of player, dealer, admin"),
    ],
)
def test_invalid_credentials_name_the_rule(
    engine: sqlalchemy.Engine, name: str, password: str, role: str, rule: str
) -> None:
    with engine.begin() as conn, pytest.raises(InvalidCredentials, match=rule) as raised:
        accounts.register(conn, name, password, role=role, now=T0)
    assert isinstance(raised.value, ValueError)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(users)).scalar_one() == 0


def test_good_names_and_the_shortest_password_are_accepted(engine: sqlalchemy.Engine) -> None:
    with engine.begin() as conn:
        for name in ("abc", "dealer.01", "A-b_c", "z" * 40):
            accounts.register(conn, name, "8 chars!", now=T0)
    assert sign_in(engine, "8 chars!", T0, name="dealer.01")


def test_login_authenticate_logout(engine: sqlalchemy.Engine) -> None:
    user_id = register(engine)
    token = sign_in(engine, PASSWORD, T0)
    assert len(token) >= 40
    with engine.connect() as conn:
        stored = conn.execute(select(sessions)).one()
    assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in (stored.token_hash, str(stored))
    assert (stored.user_id, stored.created_at, stored.last_seen) == (user_id, T0, T0)
    signed = authenticate(engine, token, T0 + timedelta(minutes=1))
    assert signed == accounts.User(id=user_id, name="alice", role=Role.PLAYER)
    assert type(signed.role) is Role and not signed.role.is_staff
    other = sign_in(engine, PASSWORD, T0)
    assert other != token
    with engine.begin() as conn:
        accounts.logout(conn, token)
        accounts.logout(conn, token)  # twice is fine
    with pytest.raises(SessionExpired):
        authenticate(engine, token, T0 + timedelta(minutes=2))
    assert authenticate(engine, other, T0 + timedelta(minutes=2)).id == user_id


def test_unknown_name_and_wrong_password_fail_alike(engine: sqlalchemy.Engine) -> None:
    register(engine)
    with pytest.raises(LoginFailed) as wrong:
        sign_in(engine, "not the password", T0)
    with pytest.raises(LoginFailed) as unknown:
        sign_in(engine, PASSWORD, T0, name="mallory")
    assert str(wrong.value) == str(unknown.value)
    assert "alice" not in str(wrong.value)
    assert user_row(engine).failed_logins == 1
    assert session_count(engine) == 0


@pytest.mark.slow
def test_failures_make_the_name_wait_never_more_than_thirty_seconds(
    engine: sqlalchemy.Engine,
) -> None:
    """Guessing is slowed per name (3 free tries, then 1, 2, 4 ... 30 seconds between
    tries), never locked: the owner's right password works as soon as the wait is over,
    however many guesses came before."""
    register(engine)
    at = T0
    for attempt in range(1, 40):
        with pytest.raises(LoginFailed):
            sign_in(engine, "guess", at)
        wait = accounts.backoff(attempt)
        assert wait <= accounts.MAX_BACKOFF
        row = user_row(engine)
        assert row.failed_logins == attempt
        assert (row.locked_until or at) - at == wait
        at += wait
    assert session_count(engine) == 0
    # While a name waits, even its right password is refused, alike and uncounted.
    with pytest.raises(LoginFailed) as waiting:
        sign_in(engine, PASSWORD, at - timedelta(seconds=1))
    with pytest.raises(LoginFailed) as wrong:
        sign_in(engine, "guess", T0, name="nobody")
    assert str(waiting.value) == str(wrong.value)
    assert user_row(engine).failed_logins == 39
    token = sign_in(engine, PASSWORD, at)
    assert authenticate(engine, token, at).name == "alice"
    row = user_row(engine)
    assert (row.failed_logins, row.locked_until) == (0, None)


def test_the_backoff_doubles_from_the_fourth_failure_up_to_thirty_seconds() -> None:
    waits = [accounts.backoff(n).total_seconds() for n in range(1, 100)]
    assert waits[:3] == [0, 0, 0] and waits[3:8] == [1, 2, 4, 8, 16]
    assert max(waits) == 30 == waits[-1]


@pytest.mark.slow
def test_a_success_resets_the_failure_count(engine: sqlalchemy.Engine) -> None:
    register(engine)
    for _ in range(accounts.FREE_FAILURES):
        with pytest.raises(LoginFailed):
            sign_in(engine, "guess", T0)
    sign_in(engine, PASSWORD, T0)
    assert user_row(engine).failed_logins == 0
    for _ in range(accounts.FREE_FAILURES):
        with pytest.raises(LoginFailed):
            sign_in(engine, "guess", T0)
    assert user_row(engine).locked_until is None


def test_a_name_that_cannot_exist_is_refused_like_any_other(engine: sqlalchemy.Engine) -> None:
    """A NUL byte or a name of other characters never reaches the database's text."""
    register(engine)
    for name in ("ali\x00ce", "a" * 400, "ann 1"):
        with pytest.raises(LoginFailed):
            sign_in(engine, PASSWORD, T0, name=name)


def test_login_on_a_callers_connection_counts_failures_once_committed(
    engine: sqlalchemy.Engine,
) -> None:
    register(engine)
    with engine.connect() as conn:
        with pytest.raises(LoginFailed):
            accounts.login(conn, "alice", "guess", now=T0)
        conn.commit()
    assert user_row(engine).failed_logins == 1
    with engine.begin() as conn:
        token = accounts.login(conn, "alice", PASSWORD, now=T0)
    assert authenticate(engine, token, T0).name == "alice"


def test_sessions_expire_after_thirty_idle_minutes(engine: sqlalchemy.Engine) -> None:
    register(engine)
    token = sign_in(engine, PASSWORD, T0)
    almost = accounts.IDLE - timedelta(minutes=1)
    # Each use keeps the session alive for another thirty minutes.
    assert authenticate(engine, token, T0 + almost).name == "alice"
    assert authenticate(engine, token, T0 + 2 * almost).name == "alice"
    with engine.connect() as conn:
        assert conn.execute(select(sessions.c.last_seen)).scalar_one() == T0 + 2 * almost
    expired_at = T0 + 2 * almost + accounts.IDLE + timedelta(seconds=1)
    with engine.connect() as conn:
        with pytest.raises(SessionExpired, match="expired after 0:30:00 idle"):
            accounts.authenticate(conn, token, now=expired_at)
        conn.commit()
    assert session_count(engine) == 0
    with pytest.raises(SessionExpired, match="no such session"):
        authenticate(engine, token, expired_at)


def test_a_signed_in_socket_confirms_its_session_in_two_statements(
    engine: sqlalchemy.Engine,
) -> None:
    """A socket's command is held to a live session (issue: every command is checked
    against a live session): ``confirm`` marks it used, as ``authenticate`` does, in one
    statement and one for the session of play, and refuses what ``authenticate`` refuses."""
    user_id = register(engine)
    token = sign_in(engine, PASSWORD, T0)
    almost = accounts.IDLE - timedelta(minutes=1)
    with engine.begin() as conn:
        statements = trace(conn)
        assert accounts.confirm(conn, token, now=T0 + almost) == user_id
        assert len(statements) == 2
        # An earlier time (another process's clock) never moves the last use back.
        assert accounts.confirm(conn, token, now=T0) == user_id
    with engine.connect() as conn:
        assert conn.execute(select(sessions.c.last_seen)).scalar_one() == T0 + almost
    expired_at = T0 + almost + accounts.IDLE + timedelta(seconds=1)
    with engine.connect() as conn:
        with pytest.raises(SessionExpired, match="expired after 0:30:00 idle"):
            accounts.confirm(conn, token, now=expired_at)
        conn.commit()
    assert session_count(engine) == 0
    with engine.begin() as conn, pytest.raises(SessionExpired, match="no such session"):
        accounts.confirm(conn, token, now=T0)
    other = sign_in(engine, PASSWORD, T0)
    with engine.begin() as conn:
        accounts.disable(conn, "alice", now=T0)
    with engine.begin() as conn, pytest.raises(SessionExpired):
        accounts.confirm(conn, other, now=T0)


def test_the_sessions_due_are_confirmed_together_in_two_statements(
    engine: sqlalchemy.Engine,
) -> None:
    """The table server confirms every socket's session due in one transaction
    (``confirm_alive``): two statements for all of them, not two each, and the same
    answer ``confirm`` gives one by one: a live session is marked used and its player's
    session of play goes on; an idle, unknown or disabled one is left as it is."""
    alice, bob, carol = register(engine), register(engine, "bob"), register(engine, "carol")
    tokens = [sign_in(engine, PASSWORD, T0) for _ in range(3)]
    bobs = sign_in(engine, PASSWORD, T0, name="bob")
    carols = sign_in(engine, PASSWORD, T0, name="carol")
    with engine.begin() as conn:
        accounts.disable(conn, "carol", now=T0)
        for token in (*tokens, bobs):  # each player's session of play begins
            accounts.confirm(conn, token, now=T0)
    later = T0 + accounts.IDLE - timedelta(minutes=1)
    with engine.begin() as conn:
        statements = trace(conn)
        alive = accounts.confirm_alive(conn, {*tokens, bobs, carols, "unknown"}, now=later)
    assert alive == {*tokens, bobs}
    assert len(statements) == 2
    with engine.connect() as conn:
        seen = dict(conn.execute(select(sessions.c.token_hash, sessions.c.last_seen)).all())
        active = dict(
            conn.execute(select(play_sessions.c.user_id, play_sessions.c.last_active_at)).all()
        )
    for token in (*tokens, bobs):
        assert seen[accounts.hash_token(token)] == later
    assert accounts.hash_token(carols) not in seen  # disabling her ended her sessions
    assert active == {alice: later, bob: later, carol: T0}
    # A player with no session of play going on starts one, as ``confirm`` would.
    with engine.begin() as conn:
        conn.execute(play_sessions.delete().where(play_sessions.c.user_id == bob))
        assert accounts.confirm_alive(conn, {bobs}, now=later) == {bobs}
        started = conn.execute(
            select(play_sessions.c.started_at).where(play_sessions.c.user_id == bob)
        )
        assert started.scalar_one() == later
    # Past its idle time a session is not confirmed (``authenticate`` says why, later).
    gone = later + accounts.IDLE + timedelta(seconds=1)
    with engine.begin() as conn:
        assert accounts.confirm_alive(conn, {*tokens, bobs}, now=gone) == set()


def test_unknown_tokens_and_naive_times_are_refused(engine: sqlalchemy.Engine) -> None:
    register(engine)
    with pytest.raises(SessionExpired):
        authenticate(engine, "not-a-token", T0)
    with pytest.raises(ValueError, match="no time zone"):
        sign_in(engine, PASSWORD, datetime(2025, 3, 1, 20, 0))
    assert issubclass(SessionExpired, AuthError)


def test_processes_on_one_database_share_an_addresss_login_budget(
    db_url: str, engine: sqlalchemy.Engine
) -> None:
    """Two processes (two engines on one database): failures counted by either use up
    the address's one burst; an address whose bucket is full again is forgotten."""
    from croupier.server import db
    from croupier.server.schema import login_throttle

    other = db.connect(db_url)
    try:
        here = accounts.AddressThrottle(engine, burst=4, every=10.0)
        there = accounts.AddressThrottle(other, burst=4, every=10.0)
        for throttle in (here, there, here):
            throttle.failed("203.0.113.7", 0.0)
        assert here.allows("203.0.113.7", 0.0) and there.allows("203.0.113.7", 0.0)
        there.failed("203.0.113.7", 0.0)
        assert not here.allows("203.0.113.7", 0.0) and not there.allows("203.0.113.7", 0.0)
        assert here.allows("203.0.113.8", 0.0)  # another address: its own budget
        assert there.allows("203.0.113.7", 10.0)  # one failure's room, ten seconds on
        here.failed("198.51.100.1", 40.0)  # the first address's bucket is full by then
        with engine.connect() as conn:
            kept = conn.execute(select(login_throttle.c.address)).scalars().all()
        assert kept == ["198.51.100.1"]
    finally:
        other.dispose()


def test_a_crowd_signing_in_is_read_together_and_a_dead_session_refused_alone(
    engine: sqlalchemy.Engine,
) -> None:
    """Sockets signing in at one moment have their sessions read in one transaction
    (``Sessions.sign_in``): each live one is marked as used and trusted; one the
    database no longer holds is refused with why, and leaves the others signed in."""
    import asyncio

    from croupier.server.sessions import Sessions

    names = ["ann", "bob", "cat"]
    for name in names:
        register(engine, name)
    tokens = {name: sign_in(engine, PASSWORD, T0, name) for name in names}
    with engine.begin() as conn:
        accounts.disable(conn, "bob", now=T0)
    later = T0 + timedelta(minutes=5)
    reads: list[int] = []
    sessions_here = Sessions(
        engine,
        later.timestamp,
        tokens_of=lambda user: [],
        tell_others=lambda body: None,
        keep=lambda task: None,
    )
    read_all = sessions_here.read_all

    def counted(wanted: set[str]) -> dict[str, accounts.User | SessionExpired]:
        reads.append(len(wanted))
        return read_all(wanted)

    sessions_here._signing._read = counted

    async def crowd() -> list[object]:
        signing = [sessions_here.sign_in(tokens[name], later.timestamp()) for name in names]
        return await asyncio.gather(*signing, return_exceptions=True)

    ann, bob, cat = asyncio.run(crowd())
    assert isinstance(ann, accounts.User) and ann.name == "ann"
    assert isinstance(cat, accounts.User) and cat.name == "cat"
    assert isinstance(bob, SessionExpired) and "no such session" in str(bob)
    assert reads == [3]
    assert sessions_here.trusted_since(tokens["ann"]) == later.timestamp()
    assert sessions_here.trusted_since(tokens["bob"]) is None
    with engine.connect() as conn:
        seen = dict(conn.execute(select(sessions.c.user_id, sessions.c.last_seen)).all())
    assert sorted(seen.values()) == [later, later]  # ann and cat, marked as used
