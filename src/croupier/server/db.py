"""Database engines and migrations of the table server (SQLite or PostgreSQL).

>>> normalize_url(None)
'sqlite:///croupier.db'
>>> normalize_url("postgres://dealer@db.example/casino")
'postgresql+psycopg://dealer@db.example/casino'
>>> normalize_url("mysql://db/casino")
Traceback (most recent call last):
...
ValueError: database URL scheme 'mysql' is not supported; use sqlite:// or postgresql://
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.visitors import InternalTraversal

__all__ = [
    "ANY_OF_MOST",
    "BUSY_SECONDS",
    "BUSY_TIMEOUT",
    "DEFAULT_URL",
    "IDLE_IN_TRANSACTION_SECONDS",
    "LOCK_SECONDS",
    "MIGRATION_LOCK",
    "PING_AFTER_IDLE",
    "SESSION_OPTIONS",
    "STATEMENT_SECONDS",
    "WriteTurns",
    "alembic_config",
    "any_of",
    "connect",
    "current_revision",
    "head_revision",
    "in_chunks",
    "insert_ignoring",
    "insert_ignoring_for",
    "migrate",
    "normalize_url",
    "unindexed",
    "utcnow",
]

DEFAULT_URL = "sqlite:///croupier.db"

_POSTGRES_SCHEMES = ("postgresql", "postgres")
_SQLITE_MEMORY = ("", ":memory:")
_T = TypeVar("_T")
_MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def utcnow() -> datetime:
    """The current time as a timezone-aware UTC datetime.

    >>> utcnow().tzinfo is UTC
    True
    """
    return datetime.now(UTC)


def normalize_url(url: str | None) -> str:
    """The SQLAlchemy URL for a database URL: PostgreSQL goes through psycopg 3.

    ``None`` means :data:`DEFAULT_URL`; SQLite URLs are kept as they are.

    >>> normalize_url("postgresql://localhost/test")
    'postgresql+psycopg://localhost/test'
    >>> normalize_url("sqlite:////var/lib/croupier.db")
    'sqlite:////var/lib/croupier.db'
    """
    if url is None:
        return DEFAULT_URL
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise ValueError(f"database URL {url!r} has no scheme; use sqlite:// or postgresql://")
    base = scheme.split("+", 1)[0].lower()
    if base in _POSTGRES_SCHEMES:
        return f"postgresql+psycopg://{rest}"
    if base == "sqlite":
        return url
    raise ValueError(
        f"database URL scheme {scheme!r} is not supported; use sqlite:// or postgresql://"
    )


def connect(url: str | None, *, read_only: bool = False) -> sqlalchemy.Engine:
    """An engine for the database at ``url`` (see :func:`normalize_url`).

    SQLite connections enforce foreign keys, wait up to five seconds for a lock,
    use write-ahead logging for file databases, and begin every transaction with
    ``BEGIN IMMEDIATE`` so that concurrent writers queue instead of failing; a process's
    writers on one file take the write lock in turn (:class:`WriteTurns`).
    A PostgreSQL connection is checked before use when it has been idle in the pool
    for :data:`PING_AFTER_IDLE` seconds (see :func:`_ping_when_idle`).

    ``read_only``: an engine that cannot write (a report, a check): SQLite opens the
    file read-only and takes no write lock, PostgreSQL runs read-only transactions.
    """
    normalized = normalize_url(url)
    if make_url(normalized).get_backend_name() == "sqlite":
        return _connect_sqlite(normalized, read_only=read_only)
    options = SESSION_OPTIONS
    if read_only:
        options += " -c default_transaction_read_only=on"
    engine = sqlalchemy.create_engine(normalized, connect_args={"options": options})
    _ping_when_idle(engine)
    return engine


#: Seconds a PostgreSQL statement waits for a lock before it fails (and its caller
#: tries again): no process waits without end on another.
LOCK_SECONDS = 5.0
#: Seconds a PostgreSQL session may sit idle inside a transaction before the server
#: ends it: a process that hangs (or is stopped) mid-transaction lets go of its row
#: locks after this, so it cannot freeze the tables of other processes.
IDLE_IN_TRANSACTION_SECONDS = 5.0
#: Seconds a PostgreSQL statement may run.
STATEMENT_SECONDS = 60.0
#: The settings of every PostgreSQL session of the server (libpq's ``options``).
SESSION_OPTIONS = " ".join(
    f"-c {name}={int(seconds * 1000)}"
    for name, seconds in (
        ("lock_timeout", LOCK_SECONDS),
        ("idle_in_transaction_session_timeout", IDLE_IN_TRANSACTION_SECONDS),
        ("statement_timeout", STATEMENT_SECONDS),
    )
)


PING_AFTER_IDLE = 10.0
"""Seconds a pooled PostgreSQL connection may rest before it is checked on checkout."""


def _ping_when_idle(engine: sqlalchemy.Engine) -> None:
    """Check a pooled connection before use only if it rested :data:`PING_AFTER_IDLE`.

    A connection that a busy server used a moment ago is alive: checking it at every
    checkout (``pool_pre_ping``) cost each command one more round trip.  One that rested
    may have been closed by the server (a restart, an idle timeout); it is checked, and
    a dead one is replaced before anyone uses it (SQLAlchemy's ``DisconnectionError``
    from a checkout event).  One that dies in use raises, and the pool is refreshed.
    """

    @event.listens_for(engine, "checkin")
    def _rested_from(_dbapi_connection: Any, record: Any) -> None:
        record.info["checked_in"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _check_if_rested(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        rested = record.info.get("checked_in")
        if rested is None or time.monotonic() - rested < PING_AFTER_IDLE:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)  # what pool_pre_ping runs
        except Exception as error:
            raise sqlalchemy.exc.DisconnectionError(str(error)) from error


#: The execution option of a transaction that only reads (see :func:`reading`).
READING = "croupier_reading"


def reading(engine: sqlalchemy.Engine) -> sqlalchemy.Engine:
    """``engine`` for transactions that only read: on SQLite they begin without taking
    the write lock (``BEGIN``, not ``BEGIN IMMEDIATE``), so that a burst of reads (a
    crowd's balances) never holds up the tables' commits, nor waits for them; elsewhere
    it is ``engine`` as it is.

    >>> engine = connect("sqlite://")
    >>> with reading(engine).begin() as conn:
    ...     conn.exec_driver_sql("select 1").scalar()
    1
    """
    return engine.execution_options(**{READING: True})


class WriteTurns:
    """The writers of one process on one SQLite file, let in to its write lock in the
    order they asked for it.

    SQLite lets a writer that finds the lock taken sleep and try again (the busy
    timeout); whoever asks at the moment it is free takes it.  A thread that commits
    back to back (the tables' group commit, flat out) asks again within microseconds of
    its ``COMMIT``, so a writer asleep in its busy handler could find the lock taken at
    every try and fail after five seconds: the sessions' confirmations and the leases'
    renewals did, and a server that cannot renew its leases gives up its tables.  Each
    writer here takes a turn first (``BEGIN IMMEDIATE``, until its ``COMMIT`` or
    ``ROLLBACK``), and a turn given back goes to the writer that waited longest.

    A turn not had within ``seconds`` is not waited for longer: the writer goes on to
    SQLite's own wait, as it would without turns (a thread that would wait for a turn it
    holds itself is never stuck for good).

    >>> turns = WriteTurns()
    >>> turns.take(1.0), turns.take(0.01)  # the second waits for the first: in vain
    (True, False)
    >>> turns.give()
    >>> turns.take(0.01)
    True
    """

    __slots__ = ("_held", "_lock", "_waiting")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held = False
        self._waiting: deque[threading.Lock] = deque()

    def take(self, seconds: float) -> bool:
        """Wait for the turn, at most ``seconds``; whether it was had."""
        with self._lock:
            if not self._held:
                self._held = True
                return True
            waiter = threading.Lock()
            waiter.acquire()
            self._waiting.append(waiter)
        if waiter.acquire(timeout=seconds):
            return True  # handed over by :meth:`give`
        with self._lock:
            try:
                self._waiting.remove(waiter)
            except ValueError:  # handed over as the wait ran out: it is this writer's
                return True
            return False

    def give(self) -> None:
        """Give the turn to the writer that waited longest (or to whoever asks next)."""
        with self._lock:
            if self._waiting:
                self._waiting.popleft().release()  # still held: it is the waiter's now
            else:
                self._held = False


#: Each SQLite file's :class:`WriteTurns`, shared by every engine of the process on it.
_TURNS: dict[str, WriteTurns] = {}
_TURNS_LOCK = threading.Lock()


def _turns_for(path: str) -> WriteTurns:
    with _TURNS_LOCK:
        turns = _TURNS.get(path)
        if turns is None:
            turns = _TURNS[path] = WriteTurns()
        return turns


class _TakingTurns(sqlite3.Connection):
    """A SQLite connection that gives back its write turn as its transaction ends."""

    turns: WriteTurns | None = None
    holds = False

    def take_turn(self, seconds: float) -> None:
        if self.turns is not None and not self.holds:
            self.holds = self.turns.take(seconds)

    def give_turn(self) -> None:
        if self.holds and self.turns is not None:
            self.holds = False
            self.turns.give()

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.give_turn()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.give_turn()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.give_turn()


#: Seconds SQLite waits for a lock (``PRAGMA busy_timeout``), and a writer for its turn.
BUSY_SECONDS = 5.0
#: The statement that sets it on a connection.
BUSY_TIMEOUT = f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}"


def _connect_sqlite(url: str, *, read_only: bool = False) -> sqlalchemy.Engine:
    database = make_url(url).database or ""
    in_memory = database in _SQLITE_MEMORY or database.startswith("file::memory:")
    if read_only and not in_memory:
        path = Path(database).resolve().as_posix()
        engine = sqlalchemy.create_engine(
            f"sqlite:///file:{path}?mode=ro&uri=true", connect_args={"uri": True}
        )

        @event.listens_for(engine, "connect")
        def _read_only(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None
            dbapi_connection.execute(BUSY_TIMEOUT)

        @event.listens_for(engine, "begin")
        def _deferred(connection: sqlalchemy.Connection) -> None:
            connection.exec_driver_sql("BEGIN")  # a reader takes no write lock

        return engine
    turns = None if in_memory else _turns_for(Path(database).resolve().as_posix())
    engine = sqlalchemy.create_engine(
        url, connect_args={} if turns is None else {"factory": _TakingTurns}
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # SQLAlchemy, not the sqlite3 module, emits BEGIN (see the "begin" hook).
        dbapi_connection.isolation_level = None
        if isinstance(dbapi_connection, _TakingTurns):
            dbapi_connection.turns = turns
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(BUSY_TIMEOUT)
            if not in_memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                # In WAL mode NORMAL loses no committed transaction when the process
                # dies (the crash the server must survive); only a power cut can take
                # the last few.  FULL would fsync every bet.
                cursor.execute("PRAGMA synchronous=NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: sqlalchemy.Connection) -> None:
        # On the driver's connection itself: every command at a table begins one.
        driver = connection.connection.dbapi_connection
        assert driver is not None
        # A writer takes the write lock at once (a transaction that reads, then writes,
        # could find it taken and fail); a reader (:func:`reading`) takes none, and reads
        # the last commit while a writer goes on.
        begin = "BEGIN" if connection.get_execution_options().get(READING) else "BEGIN IMMEDIATE"
        turn = isinstance(driver, _TakingTurns) and begin == "BEGIN IMMEDIATE"
        if turn:
            driver.take_turn(BUSY_SECONDS)  # see WriteTurns
        try:
            driver.execute(begin)
        except sqlite3.Error as error:  # typed as SQLAlchemy types the driver's errors
            if turn:
                driver.give_turn()
            raise sqlalchemy.exc.DBAPIError.instance(begin, (), error, sqlite3.Error) from error

    return engine


#: The most values one statement compares a column with (:func:`any_of`, and the
#: ledger's statements built per count of accounts): SQLite refuses an expression over
#: 1,000 deep, and a round with a thousand players betting behind touches more
#: accounts than that.  Longer lists go :func:`in_chunks`.
ANY_OF_MOST = 100


def any_of(
    column: sqlalchemy.ColumnElement[_T], values: Iterable[_T]
) -> sqlalchemy.ColumnElement[bool]:
    """``column`` equal to one of ``values``, written as equalities joined by ``OR``.

    A statement with it is compiled once for each count of values and then cached,
    where an expanding ``IN`` is rendered again at every execution (a hot path's cost).
    At most :data:`ANY_OF_MOST` values: split a longer list with :func:`in_chunks`.

    >>> from croupier.server.schema import accounts
    >>> print(any_of(accounts.c.id, [1, 2]))
    accounts.id = :id_1 OR accounts.id = :id_2
    """
    values = list(values)
    if len(values) > ANY_OF_MOST:
        raise ValueError(f"{len(values)} values: at most {ANY_OF_MOST} in one statement")
    return sqlalchemy.or_(*(column == value for value in values))


class _Unindexed(sqlalchemy.ColumnElement[_T]):
    """A column that SQLite's planner may not look up by an index (see :func:`unindexed`)."""

    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]  # noqa: RUF012

    def __init__(self, column: sqlalchemy.ColumnElement[_T]) -> None:
        self.column = column
        self.type = column.type


@compiles(_Unindexed)
def _unindexed_anywhere(element: _Unindexed[Any], compiler: Any, **kw: Any) -> str:
    return str(compiler.process(element.column, **kw))


@compiles(_Unindexed, "sqlite")
def _unindexed_on_sqlite(element: _Unindexed[Any], compiler: Any, **kw: Any) -> str:
    return "+" + str(compiler.process(element.column, **kw))


def unindexed(column: sqlalchemy.ColumnElement[_T]) -> sqlalchemy.ColumnElement[_T]:
    """``column``, where a comparison with it must not be where SQLite's planner starts
    a join: on SQLite it is written ``+column`` (the unary plus changes no value and
    takes the term off every index: SQLite's own way to steer its planner), elsewhere
    as it is.

    SQLite keeps no statistics unless told to (``ANALYZE``), and guesses that an
    equality on an index's first column finds a few rows.  ``accounts.kind = 'player'``
    finds every player: a round's stakes read through it went through every leg of
    every player's account (a thousand players, 11 ms a round and growing with the
    ledger) where the round's transactions lead to its few legs at once.

    >>> from sqlalchemy.dialects import postgresql, sqlite
    >>> from croupier.server.schema import accounts
    >>> where = unindexed(accounts.c.kind) == sqlalchemy.bindparam("kind")
    >>> print(where.compile(dialect=sqlite.dialect()))
    +accounts.kind = ?
    >>> print(where.compile(dialect=postgresql.dialect()))
    accounts.kind = %(kind)s::VARCHAR
    """
    return _Unindexed(column)


def in_chunks(values: Iterable[_T], size: int = ANY_OF_MOST) -> Iterator[list[_T]]:
    """``values`` in order, ``size`` at a time.

    >>> list(in_chunks(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    chunk: list[_T] = []
    for value in values:
        chunk.append(value)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def insert_ignoring(
    conn: sqlalchemy.Connection, table: sqlalchemy.Table, conflict: list[str]
) -> sqlalchemy.Insert:
    """``INSERT ... ON CONFLICT (conflict) DO NOTHING`` for the connection's database.

    Under concurrency PostgreSQL waits for a conflicting uncommitted row, then skips.
    The statement is built once per database, table and conflict, then reused.
    """
    return insert_ignoring_for(conn.dialect.name, table, tuple(conflict))


@functools.cache
def insert_ignoring_for(
    dialect: str, table: sqlalchemy.Table, conflict: tuple[str, ...]
) -> sqlalchemy.Insert:
    """:func:`insert_ignoring` for a database named by its dialect, built once.

    >>> from croupier.server.schema import accounts
    >>> print(insert_ignoring_for("sqlite", accounts, ("kind", "owner")).compile(
    ...     dialect=sqlite.dialect()))  # doctest: +NORMALIZE_WHITESPACE
    INSERT INTO accounts (id, kind, owner, balance) VALUES (?, ?, ?, ?)
    ON CONFLICT (kind, owner) DO NOTHING
    """
    if dialect == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing(index_elements=list(conflict))
    if dialect == "sqlite":
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=list(conflict))
    raise ValueError(f"database dialect {dialect!r} is not supported")


def alembic_config(connection: sqlalchemy.Connection | None = None) -> Config:
    """The Alembic configuration of the packaged migrations, built in code.

    With a ``connection``, Alembic commands run on it (inside its transaction).

    >>> alembic_config().get_main_option("script_location").endswith("migrations")
    True
    """
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest migration revision shipped with this package.

    >>> head_revision()
    '0007'
    """
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError("the packaged migrations have no head revision")
    return head


def migrate(engine: sqlalchemy.Engine) -> None:
    """Bring the database up to the newest schema (Alembic ``upgrade head``); idempotent.

    A database already at the head is only read: starting a server runs no migration
    twice.
    """
    if current_revision(engine) == head_revision():
        return
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Processes started together migrate one at a time; the others then find
            # the database at the head and do nothing.
            # A migration is long work between statements (Alembic's own Python): none
            # of the server's timeouts applies to it.
            connection.exec_driver_sql("SET LOCAL lock_timeout = 0")
            connection.exec_driver_sql("SET LOCAL statement_timeout = 0")
            connection.exec_driver_sql("SET LOCAL idle_in_transaction_session_timeout = 0")
            connection.execute(
                sqlalchemy.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
            )
            if MigrationContext.configure(connection).get_current_revision() == head_revision():
                return
        command.upgrade(alembic_config(connection), "head")


#: The advisory lock that migrations of one PostgreSQL database take in turn.
MIGRATION_LOCK = 0x0C40_71E5_0000_0001


def current_revision(engine: sqlalchemy.Engine) -> str | None:
    """The migration revision the database is at, or ``None`` if it was never migrated."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
